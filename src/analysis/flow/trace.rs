//! Backward slicing: from an expression at a statement, back along assignments, tuple
//! positions, returns, attribute stores, containers, parameters and their arguments, loader
//! loops and library calls to where the value was made, computing its abstract value on the
//! way. Each statement passed is a `Node` of the slice, with its role, what it does to the
//! value and the value's range after it; a node's parent is the statement that used it.
//!
//! Bounds: at most `MAX_NODES` nodes per slice and `MAX_CALLS` nested calls or parameter hops;
//! past them, and wherever no model of a call exists, the value is `Unknown` with the reason.

use std::collections::HashMap;
use std::rc::Rc;

use super::index::{DefId, Index, StmtId};
use super::value::{Norm, Range, Sym, Val};
use crate::scan::facts::{FileFacts, Text};
use crate::scan::flow::{Def, DefKind, Expr, SeqKind, StmtKind};

mod written;

pub const MAX_NODES: usize = 600;
/// The longest chain copied where a traced statement is reached again (`Tracer::graft`).
const GRAFT: usize = 6;
/// The most nodes copied in one slice (a statement reached from many paths is copied to a few).
const GRAFTS: usize = 24;

pub const MAX_CALLS: u8 = 10;
/// At most this many call sites are followed back from one parameter.
const MAX_SITES: usize = 6;

/// A statement's value traced once: reached again with no arguments of its own, the value is
/// the same.
struct Memo {
    val: Val,
    /// The call depth it was traced at (deeper paths reuse it; shallower ones trace again).
    depth: u8,
    /// Traced aside (its nodes auxiliary) or with no chain (its thunks hang nowhere).
    aside: bool,
    /// The nodes its tracing made (a copy, the first one's index), when there are few.
    nodes: Option<(usize, Vec<Node>)>,
}

/// What a slice node does to the value; the scorers read it.
#[derive(Debug, Clone, PartialEq)]
pub enum Tag {
    /// `+ k` / `- k` (also `+=`) on the value.
    Shift(i64),
    /// Other arithmetic (`*`, `//`, `/`, `%`, `**`).
    Arith(Text),
    /// A literal integer that is negative or a marker (`-1`, `255`, `-100`) put into the value.
    Sentinel(i64),
    /// A range or count starting above 0 (`range(1, …)`, `enumerate(…, start=1)`, `randint(1, …)`).
    OneBased(i64),
    /// Read from a data column.
    Column(String),
    /// A number parsed out of text (`int(name.split("_")[0])`): ids written in names or lines,
    /// not numbered by position.
    Parsed,
    /// A config key or a flag default.
    Config(String),
    /// A size made from a count of distinct values (`len(set(…))`, `nunique()`).
    Distinct,
    /// A size made from a maximum (`max(ids)`).
    Max,
    /// A size made from a length.
    Len(Length),
    /// Keeps at most n elements (`ids[:n]`), while a length is followed; `window`: a window
    /// that starts anywhere (`ids[i : i + n]`), not a truncation.
    Cut { window: bool },
    /// An integer literal.
    Literal(i64),
    /// A lookup in a table (`m[c]`, `.map(m)`, `.get(k)`).
    Lookup,
    /// A narrowing the tracing does not model (`y[y == 255] = …`, `clamp`, `where`).
    Narrow,
    /// Normalized to probabilities (softmax, sigmoid), over the dimension when it is written
    /// as a number.
    Normalize(Option<i64>),
    /// Scaled or shifted floats (`logits / t`, `p * 1.1`), or a formula of the project's own.
    Scale(Scaling),
    /// A model's output (scores).
    ModelOutput,
    /// Unpacks a position under the name the callee returns at another position
    /// (`b, a = f()` where `f` returns `a, b`).
    Swapped,
    /// Copies the value on (unpacking, `.to()`, `torch.tensor`, returns).
    Pass,
    /// The op call itself.
    Call,
}

/// How a length was made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Length {
    /// `len(x)`, a dimension's size.
    Of,
    /// The longest of several lengths.
    Longest,
    /// A count of positions (`(ids != pad).sum(1)`).
    Counted,
    /// Running counts (`cumsum`): each one past its own block.
    Running,
    /// A container's length read before it grows (`self.stoi[t] = len(self.itos)`): numbers
    /// its entries from 0, one below the length it ends with.
    Numbering,
}

/// How floats were scaled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scaling {
    /// Arithmetic on scores or probabilities.
    Arith,
    /// A formula meant to give probabilities (`1 - exp(-x)`): in [0, 1] only for some inputs.
    ByHand,
    /// Probabilities added up (`p.sum(1)`, `index_add_`): a mean once divided by a count.
    Sum,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub file: usize,
    pub line: u32,
    pub tag: Tag,
    /// What the line does, for the chain (`adds 1`, `reads column 'label'`).
    pub what: String,
    /// The value after this line, as far as known.
    pub val: String,
    pub out: Option<Range>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// The function or method the line is in (`Dataset.__init__`).
    pub scope: String,
    /// Traced for an operand that does not carry the value (a modulus, an index, a callee):
    /// kept out of the scoring.
    pub aux: bool,
    /// `out` is a length (or a last position), not the elements' values.
    pub length: bool,
}

/// A call's positional and keyword arguments.
type CallArgs = (Vec<Expr>, Vec<(Text, Expr)>);

/// An expression to evaluate when its value is used (a field of a returned dict or tuple).
#[derive(Debug, Clone)]
pub struct Thunk {
    pub expr: Expr,
    pub cx: Ctx,
    pub parent: Option<usize>,
    /// The length being traced when the thunk was made (`Tracer::count`).
    pub count: Option<(i64, i64)>,
    /// A buffer the expression's value is written into part of (a record's field filled in
    /// place): the value once evaluated is the buffer's cells joined with it.
    pub into: Option<Val>,
    /// What the line of `cx` does to the value, said by a node of its own when it is evaluated
    /// (`passes max(ids) as n_codes`).
    pub what: Option<String>,
    /// What of `expr`'s value the thunk stands for.
    pub pick: Pick,
    /// Another value the same place may hold (a column two writes of a file fill), joined
    /// with this one's.
    pub also: Option<Val>,
}

impl Thunk {
    /// `expr` at `cx`, its value whole, its nodes under `parent` (`count`: the length being
    /// traced when it was made).
    pub fn of(expr: Expr, cx: Ctx, parent: Option<usize>, count: Option<(i64, i64)>) -> Thunk {
        Thunk { expr, cx, parent, count, into: None, what: None, pick: Pick::Whole, also: None }
    }
}

/// What a thunk's value is made of its expression's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pick {
    /// The value itself.
    Whole,
    /// An element of what it iterates (the item `enumerate` pairs with its counter).
    Element,
    /// The value itself, made by the line said (`what`) as the expression's shape says (a
    /// field a write fills with `j + 1` adds 1).
    Shaped,
}

/// An instance of a project class: its class and the arguments of its constructor call.
#[derive(Debug)]
pub struct Object {
    pub class: String,
    pub ctor: Option<Rc<Env>>,
    /// The other instances the value may be: a factory's branches build different classes
    /// (`return DeepCTR(…)` / `return WideDeep(…)`); a call on the object runs each one.
    pub also: Vec<Rc<Object>>,
}

impl Object {
    pub fn of(class: String, ctor: Option<Rc<Env>>) -> Object {
        Object { class, ctor, also: Vec::new() }
    }

    /// The instances one of which this value is (most `MAX_ALTS`): of other classes, and of
    /// the same class built by other constructor calls (a list of records, each written out:
    /// `[Spec(1, "fridge"), Spec(2, "kettle")]`).
    pub fn alternatives(a: &Rc<Object>, b: &Rc<Object>) -> Rc<Object> {
        let mut also: Vec<Rc<Object>> = a.also.clone();
        for o in std::iter::once(b).chain(b.also.iter()) {
            let plain = Rc::new(Object { class: o.class.clone(), ctor: o.ctor.clone(), also: Vec::new() });
            if !plain.same(a) && !also.iter().any(|x| x.same(&plain)) && also.len() < MAX_ALTS {
                also.push(plain);
            }
        }
        Rc::new(Object { class: a.class.clone(), ctor: a.ctor.clone(), also })
    }

    /// The same class built by the same call (or both with no call known).
    pub fn same(&self, other: &Object) -> bool {
        let site = |o: &Object| o.ctor.as_ref().map(|e| (e.caller.as_ref().map(|c| (c.def, c.at)), e.args.clone(), e.kwargs.clone()));
        self.class == other.class && site(self) == site(other)
    }
}

/// The classes one value may be an instance of, followed at a call.
const MAX_ALTS: usize = 8;

/// How the reading of a column from a file the project does not hold ends its description
/// (`slice_sink` keeps such a reading only when its cells reach the op).
pub const UNREAD_COLUMN: &str = "(its file is not in the project)";
/// The end of what a column of a file the scan did not read is (`column `family` of …`).
const UNREAD_TABLE: &str = "of a table the scan did not read";
/// Said of a column whose cells are text (names, codes), not numbers.
pub const TEXT_COLUMN: &str = "distinct values)";
/// Said of a line that selects the cells that are not a marker (`labels[labels != -100]`).
pub const MASKS_OUT: &str = "keeps the cells that are not the marker";
/// Said of such a column whose cells are turned into numbers (`int(row["item_id"])`).
pub const AS_NUMBERS: &str = "as numbers";
/// Said of a data column whose numbers run 1..n with n distinct (ids numbered from 1, no gaps).
pub const FROM_ONE: &str = "numbered from 1";
/// What a joint index's line says when its stride is wider than the part added to it holds.
pub const WIDE_STRIDE: &str = "a stride wider than the part it is added to";

/// The statements that grow a field, with the root its filled length is written in (None: no
/// method grows it).
type Growth = Option<(String, Vec<StmtId>)>;

/// The arguments a definition was entered with.
#[derive(Debug)]
pub struct Env {
    pub args: Vec<Expr>,
    pub kwargs: Vec<(Text, Expr)>,
    /// Where the arguments are evaluated (None: they are already values, in `vals`).
    pub caller: Option<Ctx>,
    /// Parameters bound to values already computed (a loader's sample, a collate batch).
    pub vals: Vec<(String, Val)>,
    /// The receiver (`self`).
    pub recv: Option<Rc<Object>>,
}

impl Env {
    /// A method entered on an instance with no arguments of its own known (a field's store, a
    /// `@property`, `__len__`).
    pub fn receiver(o: Rc<Object>) -> Rc<Env> {
        Rc::new(Env { args: Vec::new(), kwargs: Vec::new(), caller: None, vals: Vec::new(), recv: Some(o) })
    }
}

#[derive(Debug, Clone)]
pub struct Ctx {
    pub def: DefId,
    /// Statements before this index are the ones that ran before.
    pub at: usize,
    pub env: Option<Rc<Env>>,
    pub depth: u8,
}

pub struct Tracer<'a, 'i> {
    pub ix: &'i Index<'a>,
    pub nodes: Vec<Node>,
    /// (def, stmt, name) being traced: a cycle ends in Unknown
    active: Vec<(DefId, usize, String)>,
    /// Definitions whose returned values are being traced: a call back into one of them (a
    /// recursive merge of nested dicts) is not entered again.
    returning: Vec<DefId>,
    /// Values of assignments, with the call depth they were computed at: one made deeper (with
    /// less budget left, perhaps cut short) is not reused higher up.
    memo: HashMap<(DefId, usize, String), Memo>,
    /// The memo entries whose chain was too long to copy, by the index of their first node.
    uncopied: Vec<(usize, (DefId, usize, String))>,
    /// While above 0, new nodes are auxiliary (`Node::aux`).
    aux: u32,
    /// How deep `expr` is nested now: past `MAX_DEPTH` the value is unknown.
    depth: u32,
    /// While set, the value traced is a length (a count, or a dimension of a tensor): node
    /// outputs are the length in dimension `.1` plus `.0` (`arange(n)`'s last position is n - 1).
    count: Option<(i64, i64)>,
    /// `module_calls`, by class.
    module_sites: HashMap<String, Vec<ModuleCall>>,
    /// `field_growth`, by class and field (read at every use of the field).
    growth: HashMap<(String, String), Growth>,
    /// Whether the project writes into a dict of that name or into an entry of that key (see
    /// `literal_entry`), by (name, key).
    dict_writes: HashMap<(String, String), bool>,
    /// Expressions evaluated so far: past `MAX_STEPS` every value is unknown (the work of one
    /// slice is bounded, discarded evaluations included).
    steps: u32,
    /// The most nodes this slice may hold (the bound's slice gets its own share).
    node_limit: usize,
    /// Nodes copied by `graft` so far (at most `GRAFTS`).
    grafted: usize,
    /// The names of the files whose saved value is being traced (a project that writes a copy
    /// of a file it read, under the same name, reads the file itself there).
    loading: Vec<String>,
    /// Functions the traceback of the failing call passes through, each with the line that
    /// called it: their parameters come from that call, not from every call site.
    pub pins: Vec<Pin>,
}

/// A function on a traceback, with the file and line of the frame that called it.
pub type Pin = (DefId, usize, u32);

/// The most expressions one slice evaluates.
pub const MAX_STEPS: u32 = 40_000;

type ModuleCall = ((DefId, usize), Vec<Expr>, Vec<(Text, Expr)>);

/// How deep the evaluation of expressions may nest (names through assignments through calls).
pub const MAX_DEPTH: u32 = 160;

/// How a save the project reads back later is said on the chain (data the pipeline made).
pub const READ_BACK: &str = ", read back later";

/// The start of what a line that parses a number out of text the project wrote does.
pub const PARSES: &str = "parses a number out of";

pub(super) fn is_pass_method(m: &str) -> bool {
    matches!(
        m,
        "to" | "cuda"
            | "cpu"
            | "long"
            | "int"
            | "float"
            | "double"
            | "half"
            | "view"
            | "reshape"
            | "squeeze"
            | "unsqueeze"
            | "flatten"
            | "contiguous"
            | "clone"
            | "detach"
            | "numpy"
            | "tolist"
            | "astype"
            | "type"
            | "permute"
            | "transpose"
            | "expand"
            | "expand_as"
            | "repeat"
            | "view_as"
            | "reshape_as"
            | "copy"
            | "values"
            | "to_numpy"
            | "item"
            | "split"
            | "chunk"
            | "unbind"
            | "pin_memory"
            | "squeeze_"
            | "unsqueeze_"
            | "bool"
            | "short"
            | "byte"
            | "requires_grad_"
            | "sort_values"
            | "reset_index"
            | "dropna"
            | "head"
            | "tail"
            | "sample"
            | "copy_"
            | "long_"
            | "flip"
            | "fliplr"
            | "flipud"
            | "rot90"
            | "roll"
            | "ascontiguousarray"
            | "cumsum_"
            | "index_select"
            | "narrow"
            | "select"
            | "gather_"
            | "to_dense"
            | "as_type"
            | "apply_"
            | "iloc"
            | "loc"
            | "swapaxes"
            | "moveaxis"
            | "ravel"
            // a line of text stays the line (`line.rstrip("\n").split(",")`)
            | "strip"
            | "rstrip"
            | "lstrip"
    )
}

fn is_pass_function(f: &str) -> bool {
    matches!(
        f,
        "tensor"
            | "as_tensor"
            | "LongTensor"
            | "IntTensor"
            | "from_numpy"
            | "array"
            | "asarray"
            | "list"
            | "tuple"
            | "stack"
            | "cat"
            | "concatenate"
            | "vstack"
            | "hstack"
            | "int"
            | "int64"
            | "long"
            | "sorted"
            | "reversed"
            | "tqdm"
            | "iter"
            | "next"
            | "deepcopy"
            | "copy"
            | "Tensor"
            | "from_dlpack"
            | "pad_sequence"
            | "default_collate"
            | "np.array"
            | "squeeze"
            | "flatten"
            | "column_stack"
            | "ascontiguousarray"
            | "flip"
            | "fliplr"
            | "flipud"
            | "rot90"
            | "as_strided"
            | "atleast_1d"
            | "atleast_2d"
            | "expand_dims"
            | "transpose"
            | "reshape"
            | "ravel"
            // resampling: each value out is one of the values in, or a weighted mean of some
            | "interpolate"
            | "upsample"
            | "upsample_nearest"
            | "upsample_bilinear"
    )
}

fn is_normalizer(f: &str) -> bool {
    matches!(f, "softmax" | "sigmoid" | "log_softmax" | "Softmax" | "Sigmoid" | "normalize" | "softmax_" | "sigmoid_")
}

impl<'a, 'i> Tracer<'a, 'i> {
    pub fn new(ix: &'i Index<'a>) -> Self {
        Tracer {
            ix,
            nodes: Vec::new(),
            active: Vec::new(),
            returning: Vec::new(),
            memo: HashMap::new(),
            uncopied: Vec::new(),
            aux: 0,
            count: None,
            depth: 0,
            module_sites: HashMap::new(),
            growth: HashMap::new(),
            dict_writes: HashMap::new(),
            steps: 0,
            node_limit: MAX_NODES,
            grafted: 0,
            loading: Vec::new(),
            pins: Vec::new(),
        }
    }

    /// A share of its own for a second slice traced by the same tracer (the bound's, after the
    /// value's has spent the budget): `nodes` more nodes, and at least a quarter of the steps.
    pub fn next_share(&mut self, nodes: usize) {
        self.node_limit = self.nodes.len() + nodes;
        self.steps = self.steps.min(MAX_STEPS - MAX_STEPS / 4);
    }

    /// The value of a deferred field (a thunk), evaluated now; other values as they are.
    pub fn force(&mut self, v: Val) -> Val {
        let mut v = v;
        for _ in 0..16 {
            match v {
                // a parent made in an evaluation since discarded is gone
                Val::Thunk(t) => {
                    let saved = std::mem::replace(&mut self.count, t.count);
                    let mut parent = t.parent.filter(|&p| p < self.nodes.len());
                    // a number written into a field (`dict(fill=-1)`, `{"pad": -1}`): the line
                    // that makes the value, as an assignment of it would be
                    let mut made = None;
                    if let Some(what) = &t.what {
                        made = self.node(&t.cx, t.cx.at, Tag::Pass, what.clone(), parent);
                        parent = made.or(parent);
                    } else if let (Expr::Int(_), Some(_)) = (t.expr.bare(), parent) {
                        if let (Some(tag), what) = shape(&t.expr, None, &Val::unknown("a number")) {
                            made = self.node(&t.cx, t.cx.at, tag, what, parent);
                            parent = made.or(parent);
                        }
                    }
                    v = match t.pick {
                        Pick::Whole | Pick::Shaped => self.expr(&t.expr, &t.cx, parent),
                        Pick::Element => match self.expr(&t.expr, &t.cx, parent) {
                            Val::Obj(o) => self.dataset_item(o, parent),
                            other => self.force(other).element(),
                        },
                    };
                    if t.pick == Pick::Shaped {
                        self.classify(made, &t.expr, None, &v);
                    }
                    if let Some(other) = &t.also {
                        let other = self.force(other.clone());
                        v = v.join(&other);
                    }
                    if let Some(buffer) = &t.into {
                        let buffer = self.force(buffer.clone());
                        v = fill_join(&buffer, &v);
                    }
                    self.finish(made, &v);
                    self.count = saved;
                }
                other => return other,
            }
        }
        Val::unknown("deferred too deep")
    }

    /// `force` through containers: the value with its elements evaluated (a few levels).
    pub fn force_deep(&mut self, v: Val, depth: usize) -> Val {
        let v = self.force(v);
        if depth > 4 {
            return v;
        }
        match v {
            Val::Seq { elem, len, most } => Val::Seq { elem: Box::new(self.force_deep(*elem, depth + 1)), len, most },
            Val::Map { key, val, len } => Val::Map { key, val: Box::new(self.force_deep(*val, depth + 1)), len },
            other => other,
        }
    }

    fn project(&mut self, v: &Val, pos: &[usize]) -> Val {
        let mut cur = v.clone();
        for &i in pos {
            let x = self.force(cur);
            cur = self.force(x.at(i));
        }
        self.force(cur)
    }

    /// `e` at `cx`, evaluated when its value is used (a field of a record, an element of a
    /// returned tuple), its nodes then under `parent`.
    fn defer(&self, e: &Expr, cx: &Ctx, parent: Option<usize>) -> Val {
        Val::Thunk(Rc::new(Thunk::of(e.clone(), cx.clone(), parent, self.count)))
    }

    /// Evaluates an operand that does not carry the value (its nodes are auxiliary).
    pub fn aux_expr(&mut self, e: &Expr, cx: &Ctx, parent: Option<usize>) -> Val {
        self.aux += 1;
        let v = self.expr(e, cx, parent);
        self.aux -= 1;
        v
    }

    /// `f` run for an element of the value being traced: a length in dimension d of the
    /// container is one in dimension d - 1 of its element (the container's own length does not
    /// depend on its elements: they are auxiliary then).
    fn in_elem<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = (self.count, self.aux);
        match self.count {
            Some((k, d)) if d > 0 => self.count = Some((k, d - 1)),
            Some((_, 0)) => {
                self.count = None;
                self.aux += 1;
            }
            _ => {}
        }
        let r = f(self);
        (self.count, self.aux) = saved;
        r
    }

    /// `f` run for the container of the value being traced (an iterable, a subscripted base):
    /// a length in dimension d of the element is one in dimension d + 1 of the container.
    fn in_iter<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.count;
        if let Some((k, d)) = self.count.filter(|&(_, d)| d >= 0) {
            self.count = Some((k, d + 1));
        }
        let r = f(self);
        self.count = saved;
        r
    }

    fn def(&self, cx: &Ctx) -> &'a Def {
        self.ix.def(cx.def)
    }

    pub fn node(&mut self, cx: &Ctx, stmt: usize, tag: Tag, what: String, parent: Option<usize>) -> Option<usize> {
        if self.nodes.len() >= self.node_limit {
            return None;
        }
        let d = self.def(cx);
        let line = d.stmts.get(stmt).map_or(d.span.line, |s| d.line(s));
        let id = self.nodes.len();
        self.nodes.push(Node {
            file: cx.def.0,
            line,
            tag,
            what,
            val: String::new(),
            out: None,
            parent,
            children: Vec::new(),
            scope: d.qualified(),
            aux: self.aux > 0,
            length: false,
        });
        if let Some(p) = parent {
            self.nodes[p].children.push(id);
        }
        Some(id)
    }

    fn finish(&mut self, n: Option<usize>, v: &Val) {
        // a sample tuple's sequences are measured where the length is followed
        let forced;
        let v = match v {
            Val::Tuple(xs) if self.count.is_some() && n.is_some() && xs.iter().any(|x| matches!(x, Val::Thunk(_))) => {
                let mut out = Vec::with_capacity(xs.len());
                for x in xs {
                    out.push(self.force(x.clone()));
                }
                forced = Val::Tuple(out);
                &forced
            }
            other => other,
        };
        if let Some(n) = n {
            self.nodes[n].out = match self.count {
                // a length: a sequence's (in the dimension asked), or a count a line made
                Some((k, dim)) => match v {
                    Val::Int(r) if matches!(self.nodes[n].tag, Tag::Len(_)) => Some(r.shift(k)),
                    Val::Seq { .. } | Val::Tuple(_) => dim_len(v, dim).map(|m| Range { lo: Some(Sym::num(0)), hi: Some(m.plus(k)) }),
                    _ => None,
                },
                None => v.range(),
            };
            self.nodes[n].length = self.count.is_some() && self.nodes[n].out.is_some();
            self.nodes[n].val = v.describe();
        }
    }

    /// `e` evaluated as a length in dimension `dim`, shifted by `k` (see `count`): its nodes
    /// are scored (not auxiliary) when the tracing is already following a length.
    fn count_expr(&mut self, e: &Expr, k: i64, dim: i64, cx: &Ctx, parent: Option<usize>) -> Val {
        let saved = (self.count, self.aux);
        let k = saved.0.map_or(k, |(outer, _)| outer + k);
        self.count = Some((k, dim));
        // (a length met aside, in an operand that does not carry the value, stays aside)
        if saved.0.is_some() {
            self.aux = 0;
        }
        let v = self.expr(e, cx, parent);
        (self.count, self.aux) = saved;
        v
    }

    /// A tensor of `elem` values with the dimensions `dims` (`torch.full((n, width), pad)`): the
    /// dimension a length is traced in is followed (the others are auxiliary).
    fn shaped(&mut self, dims: &[Expr], elem: Val, cx: &Ctx, parent: Option<usize>) -> Val {
        let mut sizes = Vec::with_capacity(dims.len());
        for (i, d) in dims.iter().enumerate() {
            let v = match self.count {
                Some((_, dim)) if dim == i as i64 || (dim < 0 && i + 1 == dims.len()) => self.count_expr(d, 0, 0, cx, parent),
                // a size read for the shape alone: what it reads does not tag the value's line
                // (`torch.zeros(len(batch), T)` holds zeros, not a length)
                _ => self.aux_expr(d, cx, None),
            };
            sizes.push(v);
        }
        sizes.into_iter().rev().fold(elem, |inner, n| match n {
            Val::Int(r) if r.lo == r.hi && r.hi.is_some() => Val::Seq { elem: Box::new(inner), len: r.hi, most: None },
            Val::Int(r) => Val::Seq { elem: Box::new(inner), len: None, most: r.hi },
            _ => Val::Seq { elem: Box::new(inner), len: None, most: None },
        })
    }

    /// `base[lo:hi]`: the elements of `base`, at most `hi` (or `hi - lo`) of them.
    fn sliced(&mut self, base: Val, lo: Option<&Expr>, hi: Option<&Expr>, cx: &Ctx, parent: Option<usize>) -> Val {
        let elem = match &base {
            Val::Seq { elem, .. } => (**elem).clone(),
            Val::Int(_) | Val::Float(_) | Val::Unknown(_) | Val::Column { .. } => base.element(),
            _ => return base,
        };
        let from_start = lo.map_or(true, |e| int_literal(e) == Some(0));
        let mut window = false;
        let most = match hi {
            // `xs[-n:]`: the last n at most (a truncation that keeps the end)
            None => match lo.map(Expr::bare) {
                Some(Expr::Unary(op, n)) if &**op == "-" => match self.aux_expr(n, cx, parent) {
                    Val::Int(r) if r.hi.as_ref().is_some_and(|h| h.constant().map_or(true, |k| k > 0)) => r.hi,
                    _ => base.most(),
                },
                _ => base.most(),
            },
            Some(h) => match int_literal(h) {
                Some(k) if k < 0 => base.most().map(|m| m.plus(k)),
                _ => {
                    // `xs[a : a + n]` is n long; `xs[:n]` at most n; a window that ends at `i`
                    // (`xs[max(0, i - n) : i]`) at most n
                    let width = match (lo, h.bare()) {
                        (Some(a), Expr::Bin(op, x, y)) if &**op == "+" && x.bare() == a.bare() => Some(&**y),
                        (Some(a), _) if window_width(a, h).is_some() => window_width(a, h),
                        _ if from_start => Some(h),
                        _ => None,
                    };
                    window = !from_start && width.is_some();
                    width.and_then(|w| match self.aux_expr(w, cx, parent) {
                        Val::Int(r) => r.hi,
                        _ => None,
                    })
                }
            },
        };
        if self.count.is_some() {
            if let Some(m) = &most {
                let what = if window { format!("takes a window of at most {m} elements") } else { format!("keeps at most {m} elements") };
                self.mark(parent, Tag::Cut { window }, what);
            }
        }
        Val::Seq { elem: Box::new(elem), len: None, most }
    }

    /// The size of dimension `dim` of the tensor `e` (`x.size(1)`, `x.shape[-1]`, `len(x)`).
    fn dim_size(&mut self, e: &Expr, dim: i64, cx: &Ctx, parent: Option<usize>) -> Val {
        let v = if self.count.is_some() { self.count_expr(e, 0, dim, cx, parent) } else { self.aux_expr(e, cx, parent) };
        // an instance of a project class: what its `__len__` returns
        if let (Val::Obj(o), 0) = (&v, dim) {
            if let Some(&id) = self.ix.method(&o.class, "__len__").first().filter(|_| cx.depth < MAX_CALLS) {
                let env = Env::receiver(o.clone());
                let first = self.nodes.len();
                let v = self.returns(&Ctx { def: id, at: usize::MAX, env: Some(env), depth: cx.depth + 1 }, parent);
                // the length is taken where `len(obj)` is written; `__len__` passes its own on
                for n in &mut self.nodes[first..] {
                    if n.tag == Tag::Len(Length::Of) {
                        n.tag = Tag::Pass;
                    }
                }
                return v;
            }
        }
        let exact = if dim == 0 { v.len() } else { None };
        match (exact, dim_len(&v, dim)) {
            // a length that is a root of its own, with a bound known beside it
            (Some(l), Some(m)) if l != m && l.constant().is_none() => Val::Int(Range { lo: Some(l), hi: Some(m) }),
            (Some(l), _) => Val::Int(Range::exact(l)),
            (None, Some(m)) => Val::Int(Range { lo: Some(Sym::num(0)), hi: Some(m) }),
            _ => Val::unknown(format!("the size of {}", v.describe())),
        }
    }

    fn retag(&mut self, n: Option<usize>, tag: Tag, what: String) {
        if let Some(n) = n {
            self.nodes[n].tag = tag;
            self.nodes[n].what = what;
        }
    }

    /// The value of `e` evaluated at `cx`.
    pub fn expr(&mut self, e: &Expr, cx: &Ctx, parent: Option<usize>) -> Val {
        if self.nodes.len() >= self.node_limit {
            return Val::unknown("slice budget spent");
        }
        if self.depth >= MAX_DEPTH {
            return Val::unknown("nested too deep");
        }
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Val::unknown("slice budget spent");
        }
        self.depth += 1;
        let v = self.expr_at(e, cx, parent);
        self.depth -= 1;
        v
    }

    fn expr_at(&mut self, e: &Expr, cx: &Ctx, parent: Option<usize>) -> Val {
        match e {
            Expr::Int(k) => Val::Int(Range::exact(Sym::num(*k))),
            Expr::Float(_) => Val::Float(None),
            Expr::Name(n) => self.name(n, cx, parent),
            Expr::Attr(obj, attr) => self.attr(obj, attr, cx, parent),
            Expr::Sub(obj, idx) => self.subscript(obj, idx, cx, parent),
            Expr::Call { func, args, kwargs } => self.call(func, args, kwargs, cx, parent),
            Expr::Bin(op, l, r) => self.binary(op, l, r, cx, parent),
            Expr::Unary(op, x) => {
                let v = self.expr(x, cx, parent);
                match (op.as_str(), v) {
                    ("-", Val::Int(r)) => {
                        let neg = |s: &Option<Sym>| s.as_ref().and_then(|s| s.constant()).map(|k| Sym::num(-k));
                        Val::Int(Range { lo: neg(&r.hi), hi: neg(&r.lo) })
                    }
                    // probabilities negated (a sign flip meant for a value in [-1, 1]): in
                    // [-1, 0], never a probability again
                    ("-", ref v) if matches!(v.element_deep(), Val::Float(Some(Norm::Probs))) => {
                        self.mark(
                            parent,
                            Tag::Scale(Scaling::Arith),
                            format!("{SCALES_PROBS} (`{}`): negated, they lie in [-1, 0]", short(e)),
                        );
                        Val::Float(Some(Norm::Raw))
                    }
                    (_, v @ Val::Float(_)) => v,
                    _ => Val::unknown("unary operator"),
                }
            }
            Expr::Seq(SeqKind::Tuple, xs) => Val::Tuple(xs.iter().map(|x| self.defer(x, cx, parent)).collect()),
            Expr::Seq(kind, xs) => {
                let vals: Vec<Val> = xs.iter().map(|x| self.in_elem(|tr| tr.expr(x, cx, parent))).collect();
                match kind {
                    SeqKind::Tuple => Val::Tuple(vals),
                    _ => {
                        let n = vals.len() as i64;
                        let elem = vals.iter().skip(1).fold(vals.first().cloned().unwrap_or(Val::unknown("empty")), |a, b| a.join(b));
                        Val::Seq { elem: Box::new(elem), len: Some(Sym::num(n)), most: None }
                    }
                }
            }
            Expr::Dict(pairs) => {
                let splat = |k: &Expr| matches!(k, Expr::Star(_));
                if pairs.iter().all(|(k, _)| matches!(k, Expr::Str(_)) || splat(k)) && pairs.iter().any(|(k, _)| !splat(k)) {
                    // a literal table of ints (`{"cat": 1, "dog": 2}`) is a map; other dicts
                    // with literal keys are records, their fields evaluated when used; a
                    // splatted record (`{**batch, "labels": y}`) gives its fields first
                    let table = pairs.iter().all(|(k, v)| !splat(k) && matches!(v, Expr::Int(_)));
                    let mut fields: Vec<(String, Val)> = Vec::new();
                    for (k, v) in pairs {
                        let k = match k {
                            Expr::Star(inner) => {
                                if let Val::Record(xs) = self.expr(inner, cx, parent) {
                                    for (k, v) in xs {
                                        fields.retain(|(f, _)| *f != k);
                                        fields.push((k, v));
                                    }
                                }
                                continue;
                            }
                            Expr::Str(k) => k,
                            _ => unreachable!(),
                        };
                        let val = if table { self.expr(v, cx, parent) } else { self.defer(v, cx, parent) };
                        fields.retain(|(f, _)| **f != **k);
                        fields.push((k.to_string(), val));
                    }
                    if table {
                        let val = fields.iter().skip(1).fold(fields[0].1.clone(), |a, (_, b)| a.join(b));
                        return Val::Map {
                            key: Box::new(Val::unknown("str")),
                            val: Box::new(val),
                            len: Some(Sym::num(fields.len() as i64)),
                        };
                    }
                    return Val::Record(fields);
                }
                let n = pairs.len() as i64;
                let len = (!pairs.iter().any(|(k, _)| splat(k))).then(|| Sym::num(n));
                let mut val = None::<Val>;
                for (_, v) in pairs.iter().filter(|(k, _)| !splat(k)) {
                    let x = self.expr(v, cx, parent);
                    val = Some(match val {
                        Some(a) => a.join(&x),
                        None => x,
                    });
                }
                Val::Map { key: Box::new(Val::unknown("key")), val: Box::new(val.unwrap_or(Val::unknown("empty"))), len }
            }
            Expr::Comp { kind, elt, value, gens, .. } => self.comprehension(*kind, elt, value.as_deref(), gens, cx, parent),
            Expr::IfElse(a, _, b) => {
                let x = self.expr(a, cx, parent);
                let y = self.expr(b, cx, parent);
                self.sentinel_check(&x, &y, parent);
                x.join(&y)
            }
            Expr::Str(_) => Val::unknown("a string"),
            Expr::Const(c) => Val::unknown(format!("{c}")),
            Expr::Lambda { .. } => Val::unknown("a lambda"),
            Expr::Star(x) => self.expr(x, cx, parent),
            Expr::Test(..) => Val::Int(Range { lo: Some(Sym::num(0)), hi: Some(Sym::num(1)) }),
            Expr::Slice | Expr::Span(..) => Val::unknown("a slice"),
            Expr::Other(t) => Val::unknown(format!("`{t}` is not modelled")),
            Expr::At(delta, inner) => {
                // a line of its own in the chain (a field of a multi-line dict, an argument)
                let d = self.def(cx);
                match d.stmts.get(cx.at) {
                    Some(st) if parent.is_some() => {
                        let line = d.line(st) + delta;
                        let node = self.node(cx, cx.at, Tag::Pass, format!("`{}`", short(inner)), parent);
                        if let Some(n) = node {
                            self.nodes[n].line = line;
                        }
                        let v = self.expr(inner, cx, node);
                        self.classify(node, inner, None, &v);
                        self.finish(node, &v);
                        v
                    }
                    _ => self.expr(inner, cx, parent),
                }
            }
        }
    }

    /// A literal marker joined into a value (`x if ok else -1`): the node says so.
    fn sentinel_check(&mut self, a: &Val, b: &Val, parent: Option<usize>) {
        for v in [a, b] {
            if let Val::Int(r) = v {
                if let Some(k) = r.lo.as_ref().and_then(|s| s.constant()).filter(|&k| k < 0 || k == 255) {
                    if r.lo == r.hi {
                        if let Some(p) = parent {
                            if matches!(self.nodes[p].tag, Tag::Pass | Tag::Lookup) {
                                self.nodes[p].tag = Tag::Sentinel(k);
                                self.nodes[p].what = format!("can give the marker {k}");
                            }
                        }
                    }
                }
            }
        }
    }

    fn binary(&mut self, op: &str, l: &Expr, r: &Expr, cx: &Ctx, parent: Option<usize>) -> Val {
        // a blend with weights that sum to one (`(1 - w) * p + w * q`, `0.7 * p + 0.3 * q`): a
        // probability where both parts are, so each part is the value (neither weight is)
        if let Some((p, q)) = (op == "+").then(|| blend(l, r)).flatten().filter(|&(p, q)| self.probs_of(p, q, false, cx)) {
            let from = self.nodes.len();
            let a = self.expr(p, cx, parent);
            let mid = self.nodes.len();
            let b = self.expr(q, cx, parent);
            let probs = |v: &Val| matches!(v.element_deep(), Val::Float(Some(Norm::Probs)));
            if probs(&a) && probs(&b) {
                return Val::Float(Some(Norm::Probs));
            }
            // the part not known to be a probability is the one to look at; a model's raw
            // output blended in (an embedding's value with no sigmoid) leaves [0, 1] for sure,
            // the blend's line says so; otherwise the blend stays a lesser suspect
            let (other, made) = if probs(&a) { (q, mid..self.nodes.len()) } else { (p, from..mid) };
            let raw = |v: &Val| matches!(v.element_deep(), Val::Float(Some(Norm::Raw)));
            let scores = (raw(&a) || raw(&b)) && self.nodes[made].iter().any(|n| !n.aux && n.tag == Tag::ModelOutput);
            let what = if scores {
                let code = short(&Expr::Bin(op.into(), Box::new(l.clone()), Box::new(r.clone())));
                format!("{SCALES_PROBS} (`{code}`): blended with raw scores, `{}`, the result can leave [0, 1]", short(other))
            } else {
                format!("blends probabilities with `{}`, not known to lie in [0, 1]", short(other))
            };
            self.mark(parent, Tag::Scale(Scaling::Arith), what);
            return a.join(&b);
        }
        // a mean of two probabilities (`0.5 * (p + p.transpose(1, 2))`, `(p + q) / 2`): in [0, 1]
        // again, where both parts are
        if let Some((p, q)) = mean_terms(op, l, r).filter(|&(p, q)| self.probs_of(p, q, true, cx)) {
            self.expr(p, cx, parent);
            self.expr(q, cx, parent);
            return Val::Float(Some(Norm::Probs));
        }
        // the two parts of `q, r = divmod(x, k)` put back together by the same k (`q * k + r`,
        // or `r * k + q`, a transposed grid cell): the same cells as x, renumbered
        if let Some(x) = (op == "+").then(|| self.divmod_rejoined(l, r, cx)).flatten() {
            let node = self.node(cx, cx.at, Tag::Pass, format!("{REJOINS} `divmod({}, …)` together again", short(&x)), parent);
            let v = self.expr(&x, cx, node);
            self.finish(node, &v);
            return v;
        }
        let first = self.nodes.len();
        let a = self.expr(l, cx, parent);
        // a quotient (`n_items // 2`): the lines that made the dividend hang under a line of
        // their own, with the quotient as its value (the dividend is not what reaches the op)
        let under = match parent {
            Some(p)
                if matches!(op, "//" | ">>")
                    && matches!(a.element_deep(), Val::Int(_))
                    && self.nodes[p].children.iter().any(|&c| c >= first) =>
            {
                let quotient = self.node(
                    cx,
                    cx.at,
                    Tag::Arith(op.into()),
                    format!("`{}`", short(&Expr::Bin(op.into(), Box::new(l.clone()), Box::new(r.clone())))),
                    parent,
                );
                if let Some(q) = quotient {
                    let moved: Vec<usize> = self.nodes[p].children.iter().copied().filter(|&c| c >= first && c != q).collect();
                    self.nodes[p].children.retain(|c| !moved.contains(c));
                    for &c in &moved {
                        self.nodes[c].parent = Some(q);
                    }
                    self.nodes[q].children = moved;
                }
                quotient
            }
            _ => None,
        };
        if under.is_some() {
            let b = self.aux_expr(r, cx, parent);
            let v = self.combine(op, a, b);
            self.finish(under, &v);
            return v;
        }
        let before_b = self.nodes.len();
        // (a product of two probabilities, `p_ctr * p_cvr`: both factors are the value)
        let factors = op == "*" && matches!(a.element_deep(), Val::Float(Some(_)));
        let b =
            if matches!(op, "%" | "//" | "*" | "/" | "**") && !factors { self.aux_expr(r, cx, parent) } else { self.expr(r, cx, parent) };
        // a constant taken away (`o - MIN_OX` with MIN_OX = -3): its own value never reaches
        // the op, so the lines that made it are beside the value, not on it
        if op == "-" && matches!(&b, Val::Int(x) if x.lo == x.hi && x.lo.as_ref().is_some_and(|s| s.constant().is_some())) {
            for n in &mut self.nodes[before_b..] {
                n.aux = true;
            }
        }
        // probabilities that arithmetic turns into something else (a weight nothing bounds, a
        // sum): the line that does it, even inside a larger expression
        let probs = |v: &Val| matches!(v.element_deep(), Val::Float(Some(Norm::Probs)));
        // a total of probabilities divided by a count computed beside it (`total / count`,
        // `p.sum(1) / mask.sum(1)`): a mean, in [0, 1] again
        if op == "/" && !matches!(r.bare(), Expr::Int(_) | Expr::Float(_)) {
            let sums: Vec<usize> =
                (first..before_b).filter(|&i| !self.nodes[i].aux && self.nodes[i].tag == Tag::Scale(Scaling::Sum)).collect();
            if !sums.is_empty() && matches!(a.element_deep(), Val::Float(Some(Norm::Raw))) {
                for i in sums {
                    self.nodes[i].tag = Tag::Pass;
                    self.nodes[i].what = format!("adds probabilities up, then divided by `{}`: a mean", short(r));
                }
                return Val::Float(Some(Norm::Probs));
            }
        }
        // the complement of probabilities (`1 - p`) is probabilities
        let one = matches!(l.bare(), Expr::Int(1)) || matches!(l.bare(), Expr::Float(x) if *x == 1.0);
        if op == "-" && one && probs(&b) {
            return b;
        }
        let v = if elementwise(op, l, r) { self.cellwise(op, &a, &b) } else { None };
        let v = match v {
            Some(v) => v,
            None => self.combine(op, a.clone(), b.clone()),
        };
        // arrays of integers on both sides, neither written as a list: tensors added element by
        // element, or lists joined end to end (or a set's difference); either one
        let ints = |x: &Val| matches!(x, Val::Seq { elem, .. } if matches!(**elem, Val::Int(_)));
        let v = match v {
            Val::Seq { elem, len, most } if matches!(op, "+" | "-") && ints(&a) && ints(&b) && !listed(l) && !listed(r) => {
                match (*elem, self.cellwise(op, &a, &b)) {
                    (e @ Val::Int(_), Some(Val::Seq { elem: cells, .. })) => Val::Seq { elem: Box::new(e.join(&cells)), len, most },
                    (e, _) => Val::Seq { elem: Box::new(e), len, most },
                }
            }
            v => v,
        };
        if op == "+" {
            if let Some(what) = self.wide_stride(l, r, &a, &b, cx) {
                self.mark(parent, Tag::Arith("+".into()), what);
            }
        }
        if (probs(&a) || probs(&b)) && matches!(v.element_deep(), Val::Float(Some(Norm::Raw))) {
            let code = short(&Expr::Bin(op.into(), Box::new(l.clone()), Box::new(r.clone())));
            let does = if op == "*" { PROBS_TIMES } else { SCALES_PROBS };
            self.mark(parent, Tag::Scale(Scaling::Arith), format!("{does} (`{code}`): the result can leave [0, 1]"));
        }
        v
    }

    /// A joint index `outer * k + inner` (either order) whose stride `k` is wider than the
    /// values `inner` takes (`[0, m - 1]` with k > m): the blocks are k wide where the table
    /// holds m per outer value, so the last outer values index past it. (k = m is the layout;
    /// k < m overlaps but stays inside.)
    fn wide_stride(&mut self, l: &Expr, r: &Expr, a: &Val, b: &Val, cx: &Ctx) -> Option<String> {
        let (prod, inner, inner_expr) = match (l.bare(), r.bare()) {
            (Expr::Bin(o, x, y), _) if &**o == "*" => ((x, y), b, r),
            (_, Expr::Bin(o, x, y)) if &**o == "*" => ((x, y), a, l),
            _ => return None,
        };
        let Val::Int(range) = inner.element_deep() else { return None };
        if range.lo.as_ref().and_then(|s| s.constant()) != Some(0) {
            return None;
        }
        let m = range.hi.as_ref()?.plus(1);
        let keep = self.nodes.len();
        let exact = |v: Val| match v {
            Val::Int(r) if r.lo == r.hi => r.lo,
            _ => None,
        };
        let kx = self.aux_expr(prod.0, cx, None);
        let ky = self.aux_expr(prod.1, cx, None);
        self.cut(keep);
        let k = exact(ky).or_else(|| exact(kx))?;
        let wider = k.minus(&m).is_some_and(|d| d > 0);
        wider.then(|| format!("{WIDE_STRIDE}: blocks of {k} over `{}`, which takes {m} values", short(inner_expr)))
    }

    /// `a op b` of two values (a binary operation, or an augmented assignment's `a op= b`).
    fn combine(&mut self, op: &str, a: Val, b: Val) -> Val {
        let konst = |v: &Val| match v {
            Val::Int(r) if r.lo == r.hi => r.lo.as_ref().and_then(|s| s.constant()),
            _ => None,
        };
        match (op, &a, &b) {
            ("+", Val::Int(x), _) if konst(&b).is_some() => Val::Int(x.shift(konst(&b).unwrap_or(0))),
            ("+", _, Val::Int(y)) if konst(&a).is_some() => Val::Int(y.shift(konst(&a).unwrap_or(0))),
            ("-", Val::Int(x), _) if konst(&b).is_some() => Val::Int(x.shift(-konst(&b).unwrap_or(0))),
            ("+" | "-", Val::Int(x), Val::Int(y)) => Val::Int(add_ranges(op, x, y)),
            // an array of integers and a number (`torch.tensor(ids) + offset`): a list cannot be
            // added to a number, so the array is a tensor and the number goes to every cell
            ("+" | "-", Val::Seq { elem, .. }, Val::Int(_)) | ("+", Val::Int(_), Val::Seq { elem, .. })
                if matches!(**elem, Val::Int(_)) =>
            {
                self.cellwise(op, &a, &b).unwrap_or_else(|| Val::unknown(format!("`{op}` of values not modelled")))
            }
            ("%", _, Val::Int(m)) => Val::Int(Range { lo: Some(Sym::num(0)), hi: m.hi.as_ref().map(|s| s.plus(-1)) }),
            ("//", Val::Int(x), _) if konst(&b).is_some_and(|k| k > 0) => {
                let k = konst(&b).unwrap_or(1);
                let div = |s: &Option<Sym>| s.as_ref().and_then(|s| s.constant()).map(|v| Sym::num(v.div_euclid(k)));
                Val::Int(Range { lo: div(&x.lo), hi: div(&x.hi) })
            }
            ("*", Val::Int(x), _) if konst(&b).is_some_and(|k| k >= 0) => {
                let k = konst(&b).unwrap_or(1);
                let mul = |s: &Option<Sym>| s.as_ref().and_then(|s| s.constant()).map(|v| Sym::num(v.saturating_mul(k)));
                Val::Int(Range { lo: mul(&x.lo), hi: mul(&x.hi) })
            }
            // floats, and tensors of floats (`w.unsqueeze(1) * probs` on stacked probabilities)
            _ if matches!(a.element_deep(), Val::Float(_)) || matches!(b.element_deep(), Val::Float(_)) => {
                Val::Float(float_arith(op, a.element_deep(), b.element_deep()))
            }
            ("+", Val::Seq { elem: x, len: lx, most: mx }, Val::Seq { elem: y, len: ly, most: my }) => {
                // list concatenation: the elements of both
                let (x, y) = (self.force((**x).clone()), self.force((**y).clone()));
                let add = |a: Option<&Sym>, b: Option<&Sym>| a?.add(b?);
                let len = add(lx.as_ref(), ly.as_ref());
                // `[bos] + ids[:n] + [eos]`: at most n + 2 long (kept beside a length that is a
                // root of its own)
                let most = add(mx.as_ref().or(lx.as_ref()), my.as_ref().or(ly.as_ref())).filter(|m| Some(m) != len.as_ref());
                let elem = match (&x, &y) {
                    (Val::Unknown(_), _) => y,
                    (_, Val::Unknown(_)) => x,
                    _ => x.join(&y),
                };
                Val::Seq { elem: Box::new(elem), len, most }
            }
            // a list repeated (`[pad] * (n - len(seq))`): its elements, any number of times
            ("*", Val::Seq { elem, .. }, Val::Int(_)) | ("*", Val::Int(_), Val::Seq { elem, .. }) => {
                Val::Seq { elem: elem.clone(), len: None, most: None }
            }
            // a set's difference or intersection keeps some of the left's elements, a union
            // joins both
            ("-" | "&", Val::Seq { elem, len, most }, Val::Seq { .. }) => {
                Val::Seq { elem: elem.clone(), len: None, most: len.clone().or(most.clone()) }
            }
            ("|", Val::Seq { elem: x, .. }, Val::Seq { elem: y, .. }) => Val::Seq { elem: Box::new(x.join(y)), len: None, most: None },
            ("*" | "/" | "+" | "-" | "**", Val::Seq { .. } | Val::Unknown(_), _) if matches!(b, Val::Float(_)) => {
                Val::Float(Some(Norm::Raw))
            }
            _ => Val::unknown(format!("`{op}` of values not modelled")),
        }
    }

    /// Arithmetic on the cells of arrays (`type_idx * n_types + channel_idx` on numpy arrays):
    /// the cells' ranges combined, the array's length kept. None when neither side is an array
    /// of integers.
    fn cellwise(&mut self, op: &str, a: &Val, b: &Val) -> Option<Val> {
        let (cells, len) = match (a, b) {
            (Val::Seq { elem, len, .. }, Val::Seq { elem: y, .. }) => (self.combine(op, (**elem).clone(), (**y).clone()), len.clone()),
            (Val::Seq { elem, len, .. }, y @ Val::Int(_)) => (self.combine(op, (**elem).clone(), y.clone()), len.clone()),
            (x @ Val::Int(_), Val::Seq { elem, len, .. }) => (self.combine(op, x.clone(), (**elem).clone()), len.clone()),
            _ => return None,
        };
        matches!(cells, Val::Int(_)).then_some(Val::Seq { elem: Box::new(cells), len, most: None })
    }

    fn comprehension(
        &mut self,
        kind: SeqKind,
        elt: &Expr,
        value: Option<&Expr>,
        gens: &[(Expr, Expr)],
        cx: &Ctx,
        parent: Option<usize>,
    ) -> Val {
        // `{k: v.to(device) for k, v in batch.items()}` over a record: a record with each field
        // made by the value expression, evaluated when the field is used (a batch of eight
        // fields whose loss reads one traces that one)
        if let (SeqKind::Dict, Some(vexpr), [(Expr::Seq(_, kv), it)]) = (kind, value, gens) {
            if let ([Expr::Name(kn), Expr::Name(vn)], Expr::Call { func, args, .. }) = (kv.as_slice(), it.bare()) {
                if let (Expr::Attr(base, m), true) = (func.bare(), args.is_empty()) {
                    if &**m == "items" && matches!(elt.bare(), Expr::Name(e) if e == kn) {
                        if let Val::Record(fields) = self.expr(base, cx, parent) {
                            let mut out = Vec::with_capacity(fields.len());
                            for (key, fv) in fields {
                                let vals = vec![(kn.to_string(), Val::unknown("a key")), (vn.to_string(), fv)];
                                let thunk = Thunk::of(vexpr.clone(), bound(cx, &vals), parent, self.count);
                                out.push((key, Val::Thunk(Rc::new(thunk))));
                            }
                            return Val::Record(out);
                        }
                    }
                }
            }
        }
        // `{k: torch.stack([s[k] for s in batch]) for k in batch[0]}` over a record's keys: a
        // record with each field made by the value expression with that key in place of `k`
        if let (SeqKind::Dict, Some(vexpr), [(Expr::Name(kn), it)]) = (kind, value, gens) {
            if matches!(elt.bare(), Expr::Name(e) if e == kn) {
                if let Some(keys) = self.record_keys(it, cx, parent) {
                    let out = keys
                        .into_iter()
                        .map(|key| {
                            let expr = with_key(vexpr, kn, &key);
                            let thunk = Thunk::of(expr, cx.clone(), parent, self.count);
                            (key, Val::Thunk(Rc::new(thunk)))
                        })
                        .collect();
                    return Val::Record(out);
                }
            }
        }
        // a generator over a tuple of different things (`tuple(t(x) for x in (s, a, r))`): a
        // tuple, each position made from its own part
        let mut first = None;
        // `[data[i : i + n] for i in starts]`: the names the clauses bind only pick elements, so
        // the iterables are positions, not the values (traced aside)
        // (and `[make() for _ in range(n)]`, an element that does not read them: they only count)
        let picks = self.count.map_or(true, |(_, d)| d > 0) && value.is_none() && (positions_only(elt, gens) || counts_only(elt, gens));
        if let ([(t, it)], SeqKind::List | SeqKind::Gen) = (gens, kind) {
            let v = if picks { self.aux_expr(it, cx, parent) } else { self.expr(it, cx, parent) };
            match v {
                Val::Tuple(xs) if xs.len() <= 8 => {
                    let mut out = Vec::with_capacity(xs.len());
                    // (each position evaluated when it is used, as a tuple's are)
                    for x in xs {
                        let mut vals = Vec::new();
                        let x = if matches!(t.bare(), Expr::Name(_)) { x } else { self.force(x) };
                        bind_pattern(t, &x, &mut vals);
                        out.push(self.defer(elt, &bound(cx, &vals), parent));
                    }
                    return Val::Tuple(out);
                }
                v => first = Some(v),
            }
        }
        // bind each `for` target to the element of its iterable, in a child environment
        let mut vals: Vec<(String, Val)> = Vec::new();
        let (mut len, mut most) = (None, None);
        for (i, (t, it)) in gens.iter().enumerate() {
            let v = match first.take() {
                Some(v) => v,
                None if picks => self.with_vals(cx, &vals, |tr, c| tr.aux_expr(it, c, parent)),
                None => self.with_vals(cx, &vals, |tr, c| tr.expr(it, c, parent)),
            };
            if i == 0 {
                len = v.len();
                // a comprehension is at most as long as its first iterable
                most = v.most();
            }
            let el = self.iterate(&v);
            bind_pattern(t, &el, &mut vals);
        }
        // (a dict's keys are traced aside: the lines that make a key are not its values' chain)
        let elem = if value.is_some() {
            self.in_elem(|tr| tr.with_vals(cx, &vals, |tr, c| tr.aux_expr(elt, c, parent)))
        } else {
            self.in_elem(|tr| tr.with_vals(cx, &vals, |tr, c| tr.expr(elt, c, parent)))
        };
        // a length the iterables do not give is a root of its own, named where it is made, so
        // that `xs.index(v)` and `len(xs)` of the same `xs` compare (a set's: its distinct values)
        if len.is_none() {
            len = self.fresh_root(cx, parent, if kind == SeqKind::List { "len" } else { "distinct" });
        } else if kind == SeqKind::Set {
            // a set of what the iterables give: its distinct values, at most as many
            let of = Val::Seq { elem: Box::new(elem.clone()), len: len.clone(), most: None };
            most = most.or(len);
            len = self.distinct_root(cx, parent, &of);
        }
        match (kind, value) {
            (SeqKind::Dict, Some(v)) => {
                let val = self.with_vals(cx, &vals, |tr, c| tr.expr(v, c, parent));
                Val::Map { key: Box::new(elem), val: Box::new(val), len }
            }
            _ => Val::Seq { elem: Box::new(elem), len, most },
        }
    }

    /// The keys of the record an iterable walks (`batch[0]`, `sample.keys()`, a sample dict,
    /// the keys written out: `("next_skill", "label")`): None when it is not a record (traced
    /// aside: finding the keys is not the value's chain).
    fn record_keys(&mut self, it: &Expr, cx: &Ctx, parent: Option<usize>) -> Option<Vec<String>> {
        if let Expr::Seq(SeqKind::Tuple | SeqKind::List, xs) = it.bare() {
            let keys: Vec<String> = xs
                .iter()
                .map_while(|x| match x.bare() {
                    Expr::Str(k) => Some(k.to_string()),
                    _ => None,
                })
                .collect();
            return (!keys.is_empty() && keys.len() == xs.len()).then_some(keys);
        }
        let it = match it.bare() {
            Expr::Call { func, args, kwargs } if args.is_empty() && kwargs.is_empty() => match func.bare() {
                Expr::Attr(base, m) if &**m == "keys" => &**base,
                _ => it,
            },
            other => other,
        };
        let v = self.aux_expr(it, cx, parent);
        match self.force(v) {
            Val::Record(fields) if !fields.is_empty() => Some(fields.into_iter().map(|(k, _)| k).collect()),
            _ => None,
        }
    }

    /// The keys an enclosing `for k in record:` loop of statement `i` gives the name `k` (a
    /// batch filled key by key: `for k in b: out[k][i, :n] = b[k]`).
    fn loop_keys(&mut self, cx: &Ctx, i: usize, k: &str, parent: Option<usize>) -> Option<Vec<String>> {
        let d = self.def(cx);
        let mut level = d.stmts.get(i)?.nest;
        for j in (0..i).rev() {
            let sj = &d.stmts[j];
            if sj.nest >= level {
                continue;
            }
            level = sj.nest;
            if let StmtKind::For { target, iter } = &sj.kind {
                if matches!(target.bare(), Expr::Name(t) if t == k) {
                    let c = Ctx { at: j, ..cx.clone() };
                    return self.record_keys(iter, &c, parent);
                }
            }
            if level == 0 {
                break;
            }
        }
        None
    }

    /// The element of a comprehension, traced as the value itself (`max(len(s) for s in xs)`
    /// while following a length: the length is each element's).
    fn comprehension_element(&mut self, elt: &Expr, gens: &[(Expr, Expr)], cx: &Ctx, parent: Option<usize>) -> Val {
        let vals = self.bind_gens(gens, cx, parent);
        self.with_vals(cx, &vals, |tr, c| tr.expr(elt, c, parent))
    }

    /// The names `for` clauses bind, each target to an element of its iterable (traced in `cx`
    /// with the earlier clauses' names bound).
    fn bind_gens(&mut self, gens: &[(Expr, Expr)], cx: &Ctx, parent: Option<usize>) -> Vec<(String, Val)> {
        let mut vals: Vec<(String, Val)> = Vec::new();
        for (t, it) in gens {
            let v = self.in_iter(|tr| tr.with_vals(cx, &vals, |tr, c| tr.expr(it, c, parent)));
            let el = self.iterate(&v);
            bind_pattern(t, &el, &mut vals);
        }
        vals
    }

    /// Runs `f` in `cx` with `vals` bound as local names (comprehension targets).
    fn with_vals<R>(&mut self, cx: &Ctx, vals: &[(String, Val)], f: impl FnOnce(&mut Self, &Ctx) -> R) -> R {
        if vals.is_empty() {
            return f(self, cx);
        }
        let c = bound(cx, vals);
        f(self, &c)
    }

    /// The element a `for` over this value binds.
    pub fn iterate(&mut self, v: &Val) -> Val {
        let v = self.force(v.clone());
        let el = match &v {
            Val::Obj(o) => self.dataset_item(o.clone(), None),
            // a tuple gives each of its items in turn: each evaluated, then joined
            Val::Tuple(xs) if xs.len() > 1 => Val::Tuple(xs.iter().map(|x| self.force(x.clone())).collect()).element(),
            other => other.element(),
        };
        self.force(el)
    }

    /// One sample of a Dataset instance: its `__getitem__`'s (or `__iter__`'s) returns.
    pub fn dataset_item(&mut self, o: Rc<Object>, parent: Option<usize>) -> Val {
        let defs = {
            let g = self.ix.method(&o.class, "__getitem__");
            if g.is_empty() {
                self.ix.method(&o.class, "__iter__")
            } else {
                g
            }
        };
        let Some(&id) = defs.first() else { return Val::unknown(format!("{} has no __getitem__", o.class)) };
        let env = Env::receiver(o);
        let cx = Ctx { def: id, at: usize::MAX, env: Some(env), depth: 1 };
        self.returns(&cx, parent)
    }

    /// The join of a definition's returned (or yielded) values.
    pub fn returns(&mut self, cx: &Ctx, parent: Option<usize>) -> Val {
        let d = self.def(cx);
        if self.returning.contains(&cx.def) {
            return Val::unknown(format!("a recursive call of {}", d.qualified()));
        }
        self.returning.push(cx.def);
        let v = self.returns_of(d, cx, parent);
        self.returning.pop();
        v
    }

    fn returns_of(&mut self, d: &'a Def, cx: &Ctx, parent: Option<usize>) -> Val {
        let mut out: Option<Val> = None;
        for (i, s) in d.stmts.iter().enumerate() {
            let e = match &s.kind {
                StmtKind::Return(Some(e)) | StmtKind::Yield(e) => e,
                _ => continue,
            };
            if self.branch_not_taken(d, cx, i) {
                continue;
            }
            let c = Ctx { at: i, ..cx.clone() };
            let n = self.node(&c, i, Tag::Pass, format!("returned by {}", d.qualified()), parent);
            let v = self.expr(e, &c, n);
            self.classify(n, e, None, &v);
            self.finish(n, &v);
            join_into(&mut out, v);
        }
        out.unwrap_or_else(|| Val::unknown(format!("{} returns nothing the tracing reads", d.qualified())))
    }

    /// Whether statement `i` of `d` sits in a branch the call `cx` was entered from cannot take:
    /// its block's test asks whether a parameter is `None` (`if y is None: return X`), and the
    /// call passes a value that is not (`self._tensors(X, y)`), or the reverse. Only that test
    /// is decided, only from the argument as written; anything else may be taken.
    fn branch_not_taken(&mut self, d: &'a Def, cx: &Ctx, i: usize) -> bool {
        let Some(env) = cx.env.clone() else { return false };
        let Some(caller) = env.caller.clone() else { return false };
        let nest = d.stmts[i].nest;
        let Some(head) = nest.checked_sub(1) else { return false };
        // the block's header: the nearest statement before it on the level above
        let Some(j) = (0..i).rev().find(|&j| d.stmts[j].nest <= head) else { return false };
        let StmtKind::Cond(test) = &d.stmts[j].kind else { return false };
        if d.stmts[j].nest != head {
            return false;
        }
        let (negated, test) = match test.bare() {
            Expr::Unary(op, x) if op.as_str() == "not" => (true, x.bare()),
            t => (false, t),
        };
        let Expr::Test(op, xs) = test else { return false };
        let asks_none = match op.as_str() {
            "is" => true,
            "is not" => false,
            _ => return false,
        };
        let [Expr::Name(p), Expr::Const(k)] = xs.iter().map(Expr::bare).collect::<Vec<_>>()[..] else { return false };
        if k.as_str() != "None" {
            return false;
        }
        let Some(pi) = d.params.iter().position(|q| q.name == *p && !q.star) else { return false };
        let offset = usize::from(d.is_method());
        let arg = self.argument(&env.args, &env.kwargs, p, pi, offset, &caller);
        let is_none = match arg.as_ref().or(d.params[pi].default.as_ref()).map(Expr::bare) {
            None => return false,
            Some(a) => match none_as_written(a, self.def(&caller)) {
                Some(b) => b,
                None => return false,
            },
        };
        // the test holds when the value's none-ness is what it asks for
        let holds = is_none == asks_none;
        holds == negated
    }

    fn lookup_env(&self, cx: &Ctx, name: &str) -> Option<Val> {
        cx.env.as_ref().and_then(|e| e.vals.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()))
    }

    /// Where the function of `cx` is called (its parameters' arguments are there): every call
    /// site by its name (a constructor by its class's name, its subclasses' calls and
    /// `super().__init__`, a registry's factory), a module's `forward` (a callable class's
    /// `__call__`) where an instance of it is called, and of those the call the traceback names
    /// when it names one.
    pub(super) fn param_sites(&mut self, cx: &Ctx, offset: usize) -> Vec<super::index::CallSite> {
        let d = self.def(cx);
        let mut calls = self.ix.call_sites(d, cx.def, MAX_SITES);
        if d.name == "forward" || d.name == "__call__" {
            if let Some(class) = d.class.clone() {
                calls.extend(self.module_calls(&class).into_iter().map(|(at, args, kwargs)| super::index::CallSite {
                    at,
                    args,
                    kwargs,
                    offset,
                    via: None,
                }));
            }
        }
        if let Some(&(_, file, line)) = self.pins.iter().find(|(id, _, _)| *id == cx.def) {
            // (the statement the frame's line belongs to: a call written over several lines)
            let at = self.ix.stmt_at(file, line);
            let on_frame = |s: &super::index::CallSite| Some(s.at) == at;
            if calls.iter().any(on_frame) {
                calls.retain(on_frame);
            } else if d.name == "forward" || d.name == "__call__" {
                // a module called on that line (`logits = model(clips, views)`), which the
                // tracing could not tell an instance of the class: the traceback says it is
                calls = self.frame_calls(d, file, line, offset);
            }
        }
        calls
    }

    /// A local name: its last assignment before `cx.at`, a parameter, a global, a definition.
    pub fn name(&mut self, n: &str, cx: &Ctx, parent: Option<usize>) -> Val {
        if let Some(v) = self.lookup_env(cx, n) {
            return self.force(v);
        }
        let d = self.def(cx);
        if d.is_method() && d.params.first().is_some_and(|p| p.name == n) {
            return match cx.env.as_ref().and_then(|e| e.recv.clone()) {
                Some(o) => Val::Obj(o),
                None => Val::Obj(Rc::new(Object::of(d.class.clone().unwrap_or_default().to_string(), None))),
            };
        }
        let at = cx.at.min(d.stmts.len());
        for i in (0..at).rev() {
            let s = &d.stmts[i];
            match &s.kind {
                StmtKind::Assign { targets, value, op } => {
                    for t in targets {
                        if let Some(pos) = pattern_pos(t, n) {
                            let v = self.assigned(cx, i, n, t, pos, value, op.as_deref(), parent);
                            let v = self.appended(v, n, cx, i, at, parent);
                            // an assignment under an `if` the read is not under: what the name
                            // held before the `if` reaches the read too (`pos = -1` then
                            // `if found: pos = …`)
                            if op.is_none() {
                                if let Some(h) = branch_header(d, i, at, n) {
                                    let c = Ctx { at: h, ..cx.clone() };
                                    let before = self.name(n, &c, parent);
                                    if !matches!(before, Val::Unknown(_)) {
                                        return v.join(&before);
                                    }
                                }
                            }
                            return v;
                        }
                        // `out["target"][i, :n] = b["target"]`: a field of a record filled
                        // in place, traced when the field is read (the other fields' fills are
                        // not the value of this one)
                        if let (Expr::Sub(base, idx), None) = (t, op.as_deref()) {
                            if let Expr::Sub(rec, key) = base.bare() {
                                // a span, a row (`[i]`, `[i, ...]`) or a block of the buffer; a
                                // mask's store is a narrowing, not a fill
                                let mask = |e: &Expr| matches!(e.bare(), Expr::Test(..) | Expr::Unary(..));
                                let fills = match idx.bare() {
                                    Expr::Seq(SeqKind::Tuple, xs) => !xs.iter().any(mask),
                                    e => !mask(e),
                                };
                                // the key written, or each key of the record a loop walks
                                // (`for k in b: out[k][i, :n] = b[k]`), with the value it stores
                                let keyed: Option<Vec<(String, Expr)>> = match key.bare() {
                                    _ if !fills || rec.dotted().as_deref() != Some(n) => None,
                                    Expr::Str(k) => Some(vec![(k.to_string(), value.clone())]),
                                    Expr::Name(kn) => self
                                        .loop_keys(cx, i, kn, parent)
                                        .map(|keys| keys.into_iter().map(|k| (k.clone(), with_key(value, kn, &k))).collect()),
                                    _ => None,
                                };
                                if let Some(keyed) = keyed {
                                    let c = Ctx { at: i, ..cx.clone() };
                                    let before = self.name(n, &c, parent);
                                    if let Val::Record(fields) = before {
                                        let mut out = Vec::with_capacity(fields.len());
                                        for (f, v) in fields {
                                            let Some((k, value)) = keyed.iter().find(|(k, _)| *k == f) else {
                                                out.push((f, v));
                                                continue;
                                            };
                                            // (the field as it was, evaluated when the
                                            // field is used: another field's use does not
                                            // trace this one)
                                            let buffer = v;
                                            let node = self.node(
                                                &c,
                                                i,
                                                Tag::Pass,
                                                format!("fills part of `{n}[\"{k}\"]` with `{}`", short(value)),
                                                parent,
                                            );
                                            let thunk =
                                                Thunk { into: Some(buffer), ..Thunk::of(value.clone(), c.clone(), node, self.count) };
                                            out.push((f, Val::Thunk(Rc::new(thunk))));
                                        }
                                        return Val::Record(out);
                                    }
                                    return before;
                                }
                            }
                        }
                        // `out[k] = torch.stack([b[k] for b in batch])` for each key of the
                        // record a loop walks: a record, each field stored with its own key
                        if let (Expr::Sub(base, idx), None) = (t, op.as_deref()) {
                            if let (Some(true), Expr::Name(kn)) = (base.dotted().map(|b| b == n), idx.bare()) {
                                if let Some(keys) = self.loop_keys(cx, i, kn, parent) {
                                    let c = Ctx { at: i, ..cx.clone() };
                                    let before = self.name(n, &c, parent);
                                    let mut out = match self.force(before) {
                                        Val::Record(fields) => fields,
                                        _ => Vec::new(),
                                    };
                                    for k in keys {
                                        let expr = with_key(value, kn, &k);
                                        let what = format!("stores `{}` in `{n}[\"{k}\"]`", short(&expr));
                                        let node = self.node(&c, i, Tag::Pass, what, parent);
                                        let thunk = Thunk::of(expr, c.clone(), node, self.count);
                                        out.retain(|(f, _)| *f != k);
                                        out.push((k, Val::Thunk(Rc::new(thunk))));
                                    }
                                    return Val::Record(out);
                                }
                            }
                        }
                        // `y[mask] = v` changes some of y's elements: the value joins in (a
                        // column store, `df["x"] = …`, is read where the column is)
                        if let Expr::Sub(base, idx) = t {
                            let column = matches!(**idx, Expr::Str(_)) || self.string_of(idx, cx, 0).is_some();
                            // (also through a part of it: `mask[z][~fov] = FOV` writes into mask)
                            if sub_root(base).and_then(Expr::dotted).as_deref() == Some(n) && op.is_none() && !column {
                                let c = Ctx { at: i, ..cx.clone() };
                                // tagged once the base is known (a dict's store is no narrowing)
                                let node = self.node(&c, i, Tag::Pass, format!("stores a value in `{n}`"), parent);
                                // `x[i, :k] = row` writes a row: an element of x
                                let row = matches!(idx.bare(), Expr::Seq(SeqKind::Tuple, xs) if xs.len() > 1
                                    && !matches!(xs[0].bare(), Expr::Span(..) | Expr::Slice));
                                let v = if row { self.in_elem(|tr| tr.expr(value, &c, node)) } else { self.expr(value, &c, node) };
                                let before = self.name(n, &c, node);
                                // a dict's store (`codes[c] = …` in a loop over names): the
                                // value is one of its values
                                if let Val::Map { key, val, len } = &before {
                                    let empty = len.as_ref().and_then(|l| l.constant()) == Some(0);
                                    let val = Box::new(if empty { v.clone() } else { val.join(&v) });
                                    // (its keys: the index, traced where they are used as values)
                                    let k = self.defer(idx, &c, node);
                                    let key = Box::new(if empty { k } else { key.join(&k) });
                                    let out = Val::Map { key, val, len: None };
                                    self.finish(node, &out);
                                    // lists inside it grown later (`d[k]["events"].append(e)`)
                                    return self.appended(out, n, cx, i, at, parent);
                                }
                                // `x[1:1 + n] = ids` fills a span with values of their own (a
                                // buffer of zeros filled with the data): the data joins in; a
                                // constant or a mask's store is a narrowing (`y[y == 255] = 0`)
                                let span = |e: &Expr| matches!(e.bare(), Expr::Span(..));
                                let fills = match idx.bare() {
                                    Expr::Seq(SeqKind::Tuple, xs) => {
                                        xs.iter().any(span) && !xs.iter().any(|x| matches!(x.bare(), Expr::Test(..)))
                                    }
                                    // a table filled entry by entry in a loop (`lut[int(raw)] =
                                    // int(cls)` for each row, `y[i] = f(row)` at the loop's
                                    // counter): the entries join in
                                    e => span(e) || s.nest > 0 && (matches!(e, Expr::Call { .. }) || counter_of_loop(d, i, e)),
                                };
                                let constant = matches!(&v, Val::Int(r) if r.lo == r.hi) || matches!(&v, Val::Float(_));
                                if fills && !constant && !matches!(v, Val::Unknown(_)) {
                                    if let Some(k) = node {
                                        // what the stored expression does (`stoi[c] + 1`: a
                                        // shift), else what its reading said (a lookup)
                                        let (tag, what) = (self.nodes[k].tag.clone(), self.nodes[k].what.clone());
                                        self.nodes[k].tag = Tag::Pass;
                                        self.classify(node, value, None, &v);
                                        if self.nodes[k].tag == Tag::Pass {
                                            self.nodes[k].tag = tag;
                                            self.nodes[k].what = if self.nodes[k].tag == Tag::Pass {
                                                format!("fills part of `{n}` with `{}`", short(value))
                                            } else {
                                                what
                                            };
                                        }
                                    }
                                    let out = fill_join(&before, &v);
                                    self.finish(node, &out);
                                    return out;
                                }
                                if node.is_some_and(|k| self.nodes[k].tag == Tag::Pass) {
                                    self.retag(node, Tag::Narrow, format!("overwrites some elements of `{n}`"));
                                }
                                if let Val::Int(r) = &v {
                                    if let Some(k) =
                                        r.lo.as_ref().and_then(|s| s.constant()).filter(|&k| r.lo == r.hi && (k < 0 || k == 255))
                                    {
                                        self.retag(node, Tag::Sentinel(k), format!("writes the marker {k} into `{n}`"));
                                        let out = with_marker(&before, k, &v);
                                        self.finish(node, &out);
                                        return out;
                                    }
                                }
                                self.finish(node, &before);
                                return before;
                            }
                        }
                    }
                }
                StmtKind::For { target, iter } => {
                    if let Some(pos) = pattern_pos(target, n) {
                        let c = Ctx { at: i, ..cx.clone() };
                        let node = self.node(&c, i, Tag::Pass, format!("`{n}` from the loop over `{}`", short(iter)), parent);
                        // `for i, x in enumerate(xs)` / `zip(a, b)`: a name bound to one of the
                        // iterables' elements is traced through that iterable alone, so that the
                        // counter's start (or another iterable) does not tag it
                        let inner = match (iter.bare(), pos.first()) {
                            (Expr::Call { func, args, kwargs }, Some(&k)) if kwargs.iter().all(|(n, _)| &**n == "start") => {
                                let plain = args.iter().all(|a| !matches!(a.bare(), Expr::Star(_)));
                                match func.dotted().as_deref() {
                                    Some("enumerate") if k == 1 && plain => args.first(),
                                    Some("zip") if plain && kwargs.is_empty() => args.get(k),
                                    _ => None,
                                }
                                .map(|a| (a, 1))
                            }
                            _ => None,
                        };
                        let v = if let Some((a, skip)) = inner {
                            let it = self.in_iter(|tr| tr.expr(a, &c, node));
                            let el = self.iterate(&it);
                            self.project(&el, &pos[skip..])
                        } else {
                            let it = self.in_iter(|tr| tr.expr(iter, &c, node));
                            let el = self.iterate(&it);
                            self.project(&el, &pos)
                        };
                        self.finish(node, &v);
                        return v;
                    }
                }
                StmtKind::With { target: Some(t), value } if pattern_pos(t, n).is_some() => {
                    let c = Ctx { at: i, ..cx.clone() };
                    return self.expr(value, &c, parent);
                }
                _ => {}
            }
        }
        // a name bound by a comprehension of the statement being traced (a constructor inside
        // `nn.ModuleList([nn.Embedding(n, d) for n in cards])`, traced from its arguments)
        if let Some(gens) = d.stmts.get(cx.at).and_then(|s| comprehension_binding(&s.kind, n)) {
            let node = self.node(cx, cx.at, Tag::Pass, format!("`{n}` from the comprehension's loop"), parent);
            let vals = self.bind_gens(&gens, cx, node);
            let v = vals.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()).unwrap_or_else(|| Val::unknown("a loop target"));
            let v = self.force(v);
            self.finish(node, &v);
            return v;
        }
        if let Some(pi) = d.param_index(n) {
            return self.param(cx, pi, parent);
        }
        // a nested function reads its outer function's names
        if let Some(outer) = d.outer.as_deref() {
            if let Some(&oid) = self.ix.functions(outer).iter().find(|id| id.0 == cx.def.0).or(self
                .ix
                .methods_named(outer)
                .iter()
                .find(|id| id.0 == cx.def.0))
            {
                let c = Ctx { def: oid, at: usize::MAX, env: None, depth: cx.depth + 1 };
                if cx.depth < MAX_CALLS {
                    return self.name(n, &c, parent);
                }
            }
        }
        self.global(n, cx, parent)
    }

    fn global(&mut self, n: &str, cx: &Ctx, parent: Option<usize>) -> Val {
        let d = self.def(cx);
        let line = if d.kind == DefKind::Module { d.span.line } else { u32::MAX };
        let sites = self.ix.globals(n);
        // the same file first (before this line when at module level), then other files
        let pick = sites
            .iter()
            .filter(|(id, _)| id.0 == cx.def.0 && self.ix.def(*id).span.line < line)
            .max_by_key(|(id, s)| self.ix.def(*id).line(&self.ix.def(*id).stmts[*s]))
            .or_else(|| sites.iter().filter(|(id, _)| id.0 != cx.def.0).max_by_key(|(id, _)| self.ix.def(*id).span.line))
            .copied();
        if let Some((id, si)) = pick {
            // a module's constants hold no arguments of their own: a deep call still follows
            // them (`TIME_SHIFT = VELOCITY + 8`; a cycle stops at `active`)
            let module = self.ix.def(id).kind == DefKind::Module;
            if cx.depth >= MAX_CALLS && !module {
                return Val::unknown("call depth");
            }
            let depth = cx.depth.saturating_add(1);
            let c = Ctx { def: id, at: si + 1, env: None, depth };
            let v = self.name(n, &c, parent);
            // a module-level list filled by later top-level statements (`for t in tunes:
            // stream.extend(…)`; each top-level statement is a definition of its own)
            if !matches!(v, Val::Seq { .. }) || self.ix.def(id).kind != DefKind::Module {
                return v;
            }
            let (from, to) = (self.ix.def(id).span.line, if id.0 == cx.def.0 { line } else { u32::MAX });
            let fillers: Vec<DefId> = (0..self.ix.files[id.0].flow.len())
                .map(|k| (id.0, k))
                .filter(|&k| {
                    let d = self.ix.def(k);
                    d.kind == DefKind::Module && d.span.line > from && d.span.line < to
                })
                .collect();
            let mut v = v;
            for k in fillers {
                let c = Ctx { def: k, at: 0, env: None, depth: cx.depth + 1 };
                v = self.appended_in(v, n, &c, 0..usize::MAX, parent);
            }
            return v;
        }
        // a class used as a value (`conv_cls = GCNConv`, `partial(Block, …)`): its body, which
        // a call turns into an instance
        if let Some(&body) = self.ix.class_bodies(n).first() {
            return Val::Func(body);
        }
        if let Some(&f) = self.ix.functions(n).first() {
            return Val::Func(f);
        }
        // a project module used as a value (`create_model(config)` after `import config`): a
        // record of its globals, each traced where the module sets it when it is read
        if let Some(v) = self.module_value(n, cx, parent) {
            return v;
        }
        Val::unknown(format!("`{n}` is not defined in the project"))
    }

    /// The value written for `key` in the dict display `n` is bound to, in the function of `cx`
    /// (before its statement) or else at its module's level, with where it is written; None where
    /// the name is a parameter or bound to anything else there, or where the project writes
    /// into it or into an entry `key` of any dict (`n[k] = …`, `cfg["span"] = …`, `n.update(…)`).
    fn literal_entry(&mut self, cx: &Ctx, n: &str, key: &str) -> Option<(Ctx, usize, Expr)> {
        let file = cx.def.0;
        let defs = &self.ix.files[file].flow;
        // a parameter of the function is whatever its callers pass
        if self.ix.def(cx.def).param_index(n).is_some() {
            return None;
        }
        // the project writes into the dict, or into an entry of that name of any dict (an alias
        // passed to another function, a module's dict imported elsewhere): what is written out
        // is not what is read
        let names = |t: &Expr| match t.bare() {
            Expr::Sub(b, k) => matches!(b.bare(), Expr::Name(x) if x == n) || matches!(k.bare(), Expr::Str(x) if x == key),
            _ => false,
        };
        let writes = |e: &Expr| match e.bare() {
            Expr::Call { func, args, kwargs } => match func.bare() {
                // a list or set kept under the key, filled in place (`cols["ccd"].append(v)`)
                Expr::Attr(o, m) if matches!(&**m, "append" | "extend" | "insert" | "add") && matches!(o.bare(), Expr::Sub(..)) => names(o),
                Expr::Attr(o, m) if matches!(&**m, "update" | "setdefault" | "pop" | "__setitem__") => {
                    matches!(o.bare(), Expr::Name(x) if x == n)
                        || kwargs.iter().any(|(k, _)| k == key)
                        || args.iter().any(|a| match a.bare() {
                            Expr::Str(x) => x == key,
                            Expr::Dict(pairs) => pairs.iter().any(|(k, _)| matches!(k, Expr::Str(x) if x == key)),
                            _ => false,
                        })
                }
                _ => false,
            },
            _ => false,
        };
        let ix = self.ix;
        let written = *self.dict_writes.entry((n.to_string(), key.to_string())).or_insert_with(|| {
            ix.files.iter().any(|f| {
                f.flow.iter().any(|d| {
                    d.stmts.iter().any(|st| match &st.kind {
                        StmtKind::Assign { targets, .. } => targets.iter().any(names),
                        StmtKind::Expr(e) => writes(e),
                        _ => false,
                    })
                })
            })
        });
        if written {
            return None;
        }
        let module = defs.iter().position(|d| d.kind == DefKind::Module).map(|k| (file, k));
        let own = (cx.def, cx.at.min(self.ix.def(cx.def).stmts.len()));
        let places = std::iter::once(own).chain(module.filter(|&m| m != cx.def).map(|m| (m, self.ix.def(m).stmts.len())));
        for (def, upto) in places {
            let d = self.ix.def(def);
            let bound = (0..upto).rev().find(|&i| match &d.stmts[i].kind {
                StmtKind::Assign { targets, .. } => targets.iter().any(|t| matches!(t.bare(), Expr::Name(x) if x == n)),
                StmtKind::For { target, .. } => pattern_pos(target, n).is_some(),
                StmtKind::With { target: Some(t), .. } => pattern_pos(t, n).is_some(),
                _ => false,
            });
            let Some(i) = bound else { continue };
            let StmtKind::Assign { targets, value, op: None } = &d.stmts[i].kind else { return None };
            let Expr::Dict(pairs) = value.bare() else { return None };
            if targets.len() != 1 || !matches!(targets[0].bare(), Expr::Name(_)) {
                return None;
            }
            let entry = pairs.iter().rev().find(|(k, _)| matches!(k, Expr::Str(x) if x == key)).map(|(_, v)| v.clone())?;
            let env = if def == cx.def { cx.env.clone() } else { None };
            return Some((Ctx { def, at: i, env, depth: cx.depth }, i, entry));
        }
        None
    }

    /// The project module the file of `cx` imports as `n`, as a record of its globals.
    fn module_value(&mut self, n: &str, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
        let stem = self.module_stem(cx.def.0, n)?;
        let fi = (0..self.ix.files.len()).find(|&i| crate::analysis::shared::module_name(&self.ix.files[i].path) == stem)?;
        let mut fields: Vec<(String, Val)> = Vec::new();
        for (k, d) in self.ix.files[fi].flow.iter().enumerate().filter(|(_, d)| d.kind == DefKind::Module) {
            for (si, st) in d.stmts.iter().enumerate() {
                let StmtKind::Assign { targets, .. } = &st.kind else { continue };
                for t in targets {
                    let mut names = Vec::new();
                    t.walk(&mut |e| {
                        if let Expr::Name(x) = e {
                            names.push(x.to_string());
                        }
                    });
                    for x in names {
                        let c = Ctx { def: (fi, k), at: si + 1, env: None, depth: cx.depth + 1 };
                        fields.retain(|(f, _)| *f != x);
                        let read = Expr::Name(x.as_str().into());
                        fields.push((x, self.defer(&read, &c, parent)));
                    }
                }
            }
        }
        (!fields.is_empty()).then_some(Val::Record(fields))
    }

    /// An assignment statement that binds `n` (at tuple position `pos` of target `t`).
    #[allow(clippy::too_many_arguments)]
    fn assigned(
        &mut self,
        cx: &Ctx,
        i: usize,
        n: &str,
        t: &Expr,
        pos: Vec<usize>,
        value: &Expr,
        op: Option<&str>,
        parent: Option<usize>,
    ) -> Val {
        let key = (cx.def, i, n.to_string());
        if self.active.contains(&key) {
            return Val::unknown("a cycle");
        }
        // the same statement reached again with no arguments of its own: the value is the same
        if cx.env.is_none() {
            if let Some(m) = self.memo.get(&key) {
                // a value traced aside (its nodes auxiliary) is traced again on the value's own
                // path, so that its chain is there
                if m.depth <= cx.depth && (!m.aside || self.aux > 0 || parent.is_none()) {
                    let (v, nodes) = (m.val.clone(), m.nodes.clone());
                    self.graft(nodes, parent);
                    return v;
                }
            }
        }
        self.active.push(key.clone());
        let c = Ctx { at: i, ..cx.clone() };
        let node = self.node(&c, i, Tag::Pass, format!("assigns `{}`", short(t)), parent);
        let v = match op {
            Some(op) => {
                let before = self.name(n, &c, node);
                let rhs = self.expr(value, &c, node);
                match self.combine(op, before, rhs) {
                    Val::Unknown(_) => Val::unknown(format!("`{op}=` not modelled")),
                    v => v,
                }
            }
            // `B, N, C = x.shape` (or `x.size()`): each name is the size of its dimension
            None if pos.len() == 1 && shape_of(value).is_some() => {
                let t = shape_of(value).expect("checked");
                let k = pos[0] as i64;
                self.dim_size(t, k, &c, node)
            }
            None => {
                let whole = self.expr(value, &c, node);
                if let Some(what) = self.swapped(t, n, &pos, value) {
                    self.mark(node, Tag::Swapped, what);
                }
                self.project(&whole, &pos)
            }
        };
        self.classify(node, value, op, &v);
        self.finish(node, &v);
        self.active.pop();
        if cx.env.is_none() {
            // (a copy: the nodes may be rolled back with a trial they were made in)
            let nodes = node.filter(|&n| self.nodes.len() - n <= GRAFT).map(|n| (n, self.nodes[n..].to_vec()));
            // (reached with no chain, by a look whose nodes are discarded: its thunks hang
            // nowhere, so a path with a chain traces it again)
            let aside = self.aux > 0 || parent.is_none();
            // (a chain too long to copy stays where it was made: a trial that rolls those nodes
            // back forgets the value with them, so that the next path traces it again)
            if let (None, Some(n)) = (&nodes, node) {
                self.uncopied.push((n, key.clone()));
            }
            self.memo.insert(key, Memo { val: v.clone(), depth: cx.depth, aside, nodes });
        }
        v
    }

    /// A statement's chain, traced where it was first reached (the nodes `from`), copied under
    /// `parent` where it is reached again: every path that reaches a line shows where its value
    /// comes from, whichever path the tracing took first. A long chain is not copied (the
    /// value still is).
    fn graft(&mut self, from: Option<(usize, Vec<Node>)>, parent: Option<usize>) {
        let (Some((start, from)), Some(parent)) = (from, parent) else { return };
        // only a chain that says where the value comes from (an origin or a transform, not
        // passes alone), within the slice's budget
        if from.iter().all(|n| n.tag == Tag::Pass || n.aux)
            || self.grafted + from.len() > GRAFTS
            || self.nodes.len() + from.len() > self.node_limit
        {
            return;
        }
        self.grafted += from.len();
        let mut new_of: HashMap<usize, usize> = HashMap::new();
        for (old, mut n) in (start..).zip(from) {
            // the statement's own node goes under `parent`; a node made meanwhile for another
            // path (a value forced later) is not the statement's
            let to = if old == start { Some(parent) } else { n.parent.and_then(|p| new_of.get(&p).copied()) };
            let Some(to) = to else { continue };
            let id = self.nodes.len();
            n.parent = Some(to);
            n.children = Vec::new();
            n.aux |= self.aux > 0;
            self.nodes.push(n);
            self.nodes[to].children.push(id);
            new_of.insert(old, id);
        }
    }

    /// Whether the nodes from `keep` on reach a write of the project's that a reading reads
    /// back.
    fn read_back_since(&self, keep: usize) -> bool {
        (keep..self.nodes.len()).any(|i| self.nodes[i].tag == Tag::Pass && self.nodes[i].what.ends_with(READ_BACK))
    }

    /// A node of this line put between `parent` and the nodes made under it from `keep` on.
    fn interpose(&mut self, parent: Option<usize>, keep: usize, cx: &Ctx, what: String) {
        let Some(p) = parent else { return };
        let d = self.def(cx);
        let stmt = cx.at.min(d.stmts.len().saturating_sub(1));
        let Some(n) = self.node(cx, stmt, Tag::Pass, what, parent) else { return };
        let moved: Vec<usize> = self.nodes[p].children.iter().copied().filter(|&c| c >= keep && c != n).collect();
        self.nodes[p].children.retain(|c| !moved.contains(c));
        for &c in &moved {
            self.nodes[c].parent = Some(n);
        }
        if let Some(&first) = moved.first() {
            let (val, out) = (self.nodes[first].val.clone(), self.nodes[first].out.clone());
            self.nodes[n].val = val;
            self.nodes[n].out = out;
        }
        self.nodes[n].children = moved;
    }

    /// Sets a node's tag from the shape of the expression it assigns.
    fn classify(&mut self, node: Option<usize>, value: &Expr, op: Option<&str>, v: &Val) {
        let Some(n) = node else { return };
        let (tag, what) = shape(value, op, v);
        // a count made on this line and 1 taken off it (`mask.sum(1) - 1`): the last position,
        // no longer a length
        if matches!(self.nodes[n].tag, Tag::Len(Length::Counted | Length::Running)) && matches!(tag, Some(Tag::Shift(k)) if k < 0) {
            self.nodes[n].tag = Tag::Pass;
            self.nodes[n].what = format!("{what} from a count: the last position");
            return;
        }
        // the parts of a divmod put together again are the value, not arithmetic made on it
        let rejoins = self.nodes[n].children.iter().any(|&c| self.nodes[c].what.starts_with(REJOINS));
        // arithmetic on the looked-up values (`top_ix[t] * stride + sub_ix[t][s]`) says more
        // of the line than one of its lookups
        let computed = matches!(tag, Some(Tag::Arith(_)));
        if !(matches!(self.nodes[n].tag, Tag::Pass) || computed && self.nodes[n].tag == Tag::Lookup) || rejoins {
            return;
        }
        if let Some(tag) = tag {
            // a marker keeps the name it is set under (`VOID = 255`): the name says what it is for
            let what = match (&tag, self.nodes[n].what.strip_prefix("assigns ")) {
                (Tag::Sentinel(_), Some(name)) => format!("{what} in {name}"),
                _ => what,
            };
            self.nodes[n].tag = tag;
            self.nodes[n].what = what;
        }
    }

    /// A list built up after its assignment (statement `from`) and before `to`:
    /// `xs.append(v)`, `xs.extend(vs)`, `xs.insert(i, v)` join their values in, each a node.
    fn appended(&mut self, v: Val, n: &str, cx: &Ctx, from: usize, to: usize, parent: Option<usize>) -> Val {
        self.appended_in(v, n, cx, from + 1..to, parent)
    }

    /// `appended` over the statements `range` of `cx`'s definition.
    fn appended_in(&mut self, v: Val, n: &str, cx: &Ctx, range: std::ops::Range<usize>, parent: Option<usize>) -> Val {
        let d = self.def(cx);
        let mut out = v;
        // names bound to a list inside it (`seq = students.setdefault(sid, [])`): appending to
        // them fills it too
        let mut aliases: Vec<(String, Vec<Option<String>>)> = Vec::new();
        for i in range.start..range.end.min(d.stmts.len()) {
            if let StmtKind::Assign { targets, value, op: None } = &d.stmts[i].kind {
                if let ([Expr::Name(a)], Some(path)) = (targets.as_slice(), value_slot(value, n)) {
                    out = seeded(out, &path);
                    aliases.retain(|(x, _)| x != a.as_str());
                    aliases.push((a.to_string(), path));
                }
                continue;
            }
            let StmtKind::Expr(Expr::Call { func, args, .. }) = &d.stmts[i].kind else { continue };
            let Expr::Attr(o, m) = func.bare() else { continue };
            if !matches!(m.as_str(), "append" | "extend" | "insert") {
                continue;
            }
            // `n.append(x)`, or a list inside it (`cohort[k]["events"].append(x)`,
            // `n.setdefault(k, []).append(x)`, a name bound to one): the keys on the way from the
            // name to the list
            let found = match sub_path(o) {
                Some((root, path)) if root == n => Some(path),
                Some((root, path)) => aliases.iter().find(|(a, _)| *a == root).map(|(_, at)| at.iter().cloned().chain(path).collect()),
                None => value_slot(o, n).inspect(|path| out = seeded(std::mem::replace(&mut out, Val::unknown("")), path)),
            };
            let path = match found {
                Some(path) if reaches(&out, &path) => path,
                _ => continue,
            };
            let Some(arg) = args.last() else { continue };
            let c = Ctx { at: i, ..cx.clone() };
            let node = self.node(&c, i, Tag::Pass, format!("`{}.{m}({})`", short(o), short(arg)), parent);
            let el = if m == "extend" {
                let x = self.expr(arg, &c, node);
                let el = self.force(x.element());
                self.classify(node, arg, None, &el);
                self.finish(node, &x);
                el
            } else {
                // the appended value is an element of the list
                self.in_elem(|tr| {
                    let x = tr.expr(arg, &c, node);
                    tr.classify(node, arg, None, &x);
                    tr.finish(node, &x);
                    x
                })
            };
            out = self.join_at(out, &path, &el);
        }
        out
    }

    /// `v` after `el` is added to the list at `path` inside it (the keys of records and dicts on
    /// the way; None for any key or position).
    fn join_at(&mut self, v: Val, path: &[Option<String>], el: &Val) -> Val {
        let v = self.force(v);
        let Some((first, rest)) = path.split_first() else {
            return match v {
                Val::Seq { elem, .. } => {
                    let e = match *elem {
                        Val::Unknown(_) => el.clone(),
                        other => other.join(el),
                    };
                    Val::Seq { elem: Box::new(e), len: None, most: None }
                }
                other => other,
            };
        };
        match (v, first) {
            // a key the code names, or any where it is computed (`splits[split][1]`)
            (Val::Record(xs), k) => {
                let mut out = Vec::with_capacity(xs.len());
                for (name, x) in xs {
                    let x = if k.as_ref().map_or(true, |k| *k == name) { self.join_at(x, rest, el) } else { x };
                    out.push((name, x));
                }
                Val::Record(out)
            }
            (Val::Tuple(xs), k) => {
                let mut out = Vec::with_capacity(xs.len());
                for (i, x) in xs.into_iter().enumerate() {
                    out.push(if at_position(k, i) { self.join_at(x, rest, el) } else { x });
                }
                Val::Tuple(out)
            }
            (Val::Map { key, val, len }, _) => Val::Map { key, val: Box::new(self.join_at(*val, rest, el)), len },
            (Val::Seq { elem, len, most }, k) if k.is_none() || position(k).is_some() => {
                Val::Seq { elem: Box::new(self.join_at(*elem, rest, el)), len, most }
            }
            (other, _) => other,
        }
    }

    /// A parameter: its argument in the call this definition was entered from, its value when
    /// bound, else the join over the project's call sites (a few), else its default.
    fn param(&mut self, cx: &Ctx, pi: usize, parent: Option<usize>) -> Val {
        let d = self.def(cx);
        let p = &d.params[pi];
        let offset = usize::from(d.is_method());
        if let Some(env) = cx.env.clone() {
            if let Some(caller) = &env.caller {
                // `*args`: the positional arguments from its place on (a star parameter the call
                // fills by position is not `**kwargs`)
                let first_star = d.params.iter().position(|q| q.star) == Some(pi);
                let positional: Vec<Expr> = env.args.iter().filter(|a| !matches!(a.bare(), Expr::Star(_))).cloned().collect();
                if let Some(from) = pi.checked_sub(offset).filter(|&f| p.star && first_star && positional.len() > f) {
                    let mut parts = Vec::with_capacity(positional.len() - from);
                    for a in &positional[from..] {
                        parts.push(self.passed(caller, a, format!("passes `{}` in `*{}`", short(a), p.name), parent));
                    }
                    return Val::Tuple(parts);
                }
                // `**kwargs`: the keyword arguments no named parameter takes, and the fields of a
                // dict passed on with `**`
                let last_star = d.params.iter().rposition(|q| q.star) == Some(pi);
                if p.star && last_star {
                    let named: Vec<&str> = d.params.iter().filter(|q| !q.star).map(|q| q.name.as_str()).collect();
                    let mut fields: Vec<(String, Val)> = Vec::new();
                    // (each evaluated where it is read: one field's lines are not on another's chain)
                    for (k, e) in env.kwargs.iter().filter(|(k, _)| !named.contains(&k.as_str())) {
                        let what = Some(format!("passes `{}` as `{k}`", short(e)));
                        let thunk = Thunk { what, ..Thunk::of(e.clone(), caller.clone(), parent, self.count) };
                        fields.push((k.to_string(), Val::Thunk(Rc::new(thunk))));
                    }
                    for a in &env.args {
                        if let Expr::Star(inner) = a.bare() {
                            if let Val::Record(fs) = self.expr(inner, caller, parent) {
                                fields.extend(fs.into_iter().filter(|(k, _)| !named.contains(&k.as_str())));
                            }
                        }
                    }
                    if !fields.is_empty() {
                        return Val::Record(fields);
                    }
                }
                let arg = self.argument(&env.args, &env.kwargs, &p.name, pi, offset, caller);
                if let Some(arg) = arg {
                    return self.passed(caller, &arg, format!("passes `{}` as `{}`", short(&arg), p.name), parent);
                }
                if let Some(def) = &p.default {
                    let c = Ctx { at: 0, ..cx.clone() };
                    return self.expr(&def.clone(), &c, parent);
                }
                return Val::unknown(format!("argument `{}` not passed", p.name));
            }
        }
        if let Some(v) = self.library_param(cx, pi, parent) {
            return v;
        }
        if cx.depth >= MAX_CALLS {
            return Val::unknown("call depth");
        }
        // every call site of this function (by its name; a constructor by its class's name, its
        // subclasses' calls and `super().__init__`, a registry's factory)
        let mut out: Option<Val> = None;
        let calls = self.param_sites(cx, offset);
        for site in calls {
            let (sid, si) = site.at;
            let c = Ctx { def: sid, at: si, env: None, depth: cx.depth + 1 };
            let arg = self.argument(&site.args, &site.kwargs, &p.name, pi, site.offset, &c);
            let Some(arg) = arg else { continue };
            let via = site.via.as_deref().map(|v| format!(" ({v})")).unwrap_or_default();
            let node = self.node(&c, si, Tag::Pass, format!("passes `{}` as `{}`{via}", short(&arg), p.name), parent);
            // a call inside a comprehension (`[step(b) for b in loader]`): its targets bound
            let gens = enclosing_gens(&self.ix.def(sid).stmts[si].kind, &site.args);
            let vals = self.bind_gens(&gens, &c, node);
            let v = self.with_vals(&c, &vals, |tr, c2| tr.expr(&arg, c2, node));
            self.finish(node, &v);
            join_into(&mut out, v);
        }
        if let Some(v) = out {
            return v;
        }
        if let Some(def) = p.default.clone() {
            let c = Ctx { at: 0, ..cx.clone() };
            let node = self.node(&c, 0, Tag::Pass, format!("`{}` defaults to `{}`", p.name, short(&def)), parent);
            let v = self.expr(&def, &c, node);
            if let Val::Int(r) = &v {
                if let Some(k) = r.lo.as_ref().and_then(|s| s.constant()).filter(|_| r.lo == r.hi) {
                    self.retag(node, Tag::Literal(k), format!("`{}` defaults to {k}", p.name));
                }
            }
            self.finish(node, &v);
            return v;
        }
        // no call site the tracing can follow (a registry's class built with `**cfg`): the
        // setting of the parameter's name, where the project has one
        let (name, qualified) = (p.name.to_string(), d.qualified());
        if let Some(v) = self.named_setting(&name, cx, parent) {
            return v;
        }
        Val::unknown(format!("parameter `{name}` of {qualified} (no call site found)"))
    }

    /// An argument traced in the call that passes it, with that call's line on the chain (the
    /// bound made in the call's arguments, `Net(n_out=len(names) - 1)`, is that line's).
    fn passed(&mut self, caller: &Ctx, arg: &Expr, what: String, parent: Option<usize>) -> Val {
        if caller.at >= self.def(caller).stmts.len() {
            return self.expr(arg, caller, parent);
        }
        let node = self.node(caller, caller.at, Tag::Pass, what, parent);
        let v = self.expr(arg, caller, node);
        self.finish(node, &v);
        v
    }

    /// The lambda a name is bound to where `cx` reads it: an assignment in the same function, or
    /// in the module when the function binds none.
    fn bound_lambda(&self, cx: &Ctx, n: &str) -> Option<(Vec<Text>, Expr)> {
        let find = |d: &Def| {
            d.stmts.iter().find_map(|s| match &s.kind {
                StmtKind::Assign { targets, value: Expr::Lambda { params, body }, op: None }
                    if targets.iter().any(|t| matches!(t, Expr::Name(x) if x == n)) =>
                {
                    Some((params.clone(), (**body).clone()))
                }
                _ => None,
            })
        };
        find(self.def(cx)).or_else(|| {
            let &(gid, _) = self.ix.globals(n).iter().find(|(id, _)| id.0 == cx.def.0)?;
            find(self.ix.def(gid))
        })
    }

    /// Whether `p` and `q` (`both`), or either of them, are known to hold probabilities (looked
    /// at aside, no chain kept; `q` only where `p` does not decide it).
    fn probs_of(&mut self, p: &Expr, q: &Expr, both: bool, cx: &Ctx) -> bool {
        let keep = self.nodes.len();
        let probs = |v: &Val| matches!(v.element_deep(), Val::Float(Some(Norm::Probs)));
        let first = probs(&self.expr(p, cx, None));
        let yes = if first == both { probs(&self.expr(q, cx, None)) } else { first };
        self.cut(keep);
        yes
    }

    /// Whether `recv.name(…)` is a method of a project class (the receiver is an instance of
    /// one that defines `name`), not a library value's method of the same name.
    fn project_method_on(&mut self, recv: &Expr, name: &str, cx: &Ctx) -> bool {
        if self.ix.methods_named(name).is_empty() {
            return false;
        }
        let keep = self.nodes.len();
        let v = self.expr(recv, cx, None);
        self.cut(keep);
        matches!(v, Val::Obj(o) if !self.ix.method(&o.class, name).is_empty())
    }

    /// The argument a call (made in `cx`) gives parameter `name` at position `pi`: by keyword,
    /// inside a dict splatted into the call, or by position.
    fn argument(&mut self, args: &[Expr], kwargs: &[(Text, Expr)], name: &str, pi: usize, offset: usize, cx: &Ctx) -> Option<Expr> {
        kwargs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, e)| e.clone())
            .or_else(|| self.splat_field(args, name, cx))
            .or_else(|| positional(args, pi, offset))
    }

    /// A keyword parameter passed inside a dict splatted into the call (`f(**kw)` where `kw`
    /// holds `name`): `kw["name"]`.
    fn splat_field(&mut self, args: &[Expr], name: &str, cx: &Ctx) -> Option<Expr> {
        for a in args {
            let Expr::Star(inner) = a.bare() else { continue };
            let keep = self.nodes.len();
            let v = self.expr(inner, cx, None);
            self.cut(keep);
            if let Val::Record(fields) = v {
                if fields.iter().any(|(k, _)| k == name) {
                    return Some(Expr::Sub(inner.clone(), Box::new(Expr::Str(name.into()))));
                }
            }
        }
        None
    }

    /// The calls of instances of `class` (or of its subclasses) in the project: `model(x)`,
    /// `self.encoder(h)`, found by evaluating the callee of each call of a variable or field.
    fn module_calls(&mut self, class: &str) -> Vec<ModuleCall> {
        if let Some(v) = self.module_sites.get(class) {
            return v.clone();
        }
        // while they are searched, a forward reached again finds none (no cycle)
        self.module_sites.insert(class.to_string(), Vec::new());
        let out = self.find_module_calls(class);
        self.module_sites.insert(class.to_string(), out.clone());
        out
    }

    fn find_module_calls(&mut self, class: &str) -> Vec<ModuleCall> {
        let mut out = Vec::new();
        let mut tried = 0;
        // the names an instance of the class (or a subclass) is stored under: calls through
        // them are tried first and without counting against the budget
        let mut holders: Vec<String> = Vec::new();
        for f in &self.ix.files {
            for d in &f.flow {
                for st in &d.stmts {
                    let StmtKind::Assign { targets, value, op: None } = &st.kind else { continue };
                    let value = super::sinks::unmoved(value);
                    let Expr::Call { func, .. } = value.bare() else { continue };
                    // a class looked up in a registry (`MODELS[cfg.arch](…)`) may be this one
                    let looked_up = matches!(func.bare(), Expr::Sub(..));
                    if !looked_up {
                        let Some(c) = func.last_name() else { continue };
                        if !self.ix.is_class(c) || !self.ix.mro(c).iter().any(|m| m == class) {
                            continue;
                        }
                    }
                    for t in targets {
                        match t.bare() {
                            Expr::Name(n) | Expr::Attr(_, n) => holders.push(n.to_string()),
                            _ => {}
                        }
                    }
                }
            }
        }
        for (fi, f) in self.ix.files.iter().enumerate() {
            for (di, d) in f.flow.iter().enumerate() {
                for (si, st) in d.stmts.iter().enumerate() {
                    let mut cands = Vec::new();
                    stmt_exprs(&st.kind, &mut |e| {
                        if let Expr::Call { func, args, kwargs } = e {
                            let callable = match func.bare() {
                                Expr::Name(n) => !self.ix.is_class(n) && self.ix.functions(n).is_empty(),
                                Expr::Attr(o, _) => matches!(o.bare(), Expr::Name(_)),
                                _ => false,
                            };
                            if callable && !args.is_empty() {
                                cands.push(((**func).clone(), args.clone(), kwargs.clone()));
                            }
                        }
                    });
                    for (func, args, kwargs) in cands {
                        let held = match func.bare() {
                            Expr::Name(n) | Expr::Attr(_, n) => holders.iter().any(|h| h == &**n),
                            _ => false,
                        };
                        if !held {
                            tried += 1;
                        }
                        if out.len() >= MAX_SITES {
                            return out;
                        }
                        if tried > 80 && !held {
                            continue;
                        }
                        let c = Ctx { def: (fi, di), at: si, env: None, depth: MAX_CALLS - 3 };
                        let keep = self.nodes.len();
                        let v = self.expr(&func, &c, None);
                        self.cut(keep);
                        if let Val::Obj(o) = v {
                            // the instance, or one of the classes it may be (a registry's)
                            if std::iter::once(&o).chain(o.also.iter()).any(|x| self.ix.mro(&x.class).iter().any(|m| m == class)) {
                                out.push((((fi, di), si), args, kwargs));
                            }
                        }
                    }
                }
            }
        }
        if out.is_empty() {
            out = self.container_loop_calls(class);
        }
        out
    }

    /// The calls of modules held in a container and run in a loop (`for conv in self.convs:
    /// x = conv(x, edge_index)` over an `nn.ModuleList`), for a module class no call of which
    /// was found: the container's elements are not traced, so each such call whose positional
    /// arguments fit the class's `forward` is one of its call sites.
    fn container_loop_calls(&self, class: &str) -> Vec<ModuleCall> {
        let Some(&fwd) = self.ix.method(class, "forward").first() else { return Vec::new() };
        let (required, most) = arity(self.ix.def(fwd), 1);
        // fields that hold module containers
        let container = |attr: &str| {
            self.ix.stores(attr).iter().any(|&(id, si)| {
                let StmtKind::Assign { value, .. } = &self.ix.def(id).stmts[si].kind else { return false };
                match value.bare() {
                    Expr::Call { func, .. } => matches!(func.last_name(), Some("ModuleList" | "ModuleDict" | "Sequential")),
                    Expr::Comp { .. } | Expr::Seq(SeqKind::List, _) => true,
                    _ => false,
                }
            })
        };
        let mut out = Vec::new();
        for (fi, f) in self.ix.files.iter().enumerate() {
            for (di, d) in f.flow.iter().enumerate() {
                // a loop in the class itself (or a relative) runs other modules, not this one
                let Some(owner) = d.class.as_deref() else { continue };
                if self.ix.mro(owner).iter().any(|c| c == class) || self.ix.mro(class).iter().any(|c| c == owner) {
                    continue;
                }
                for (li, st) in d.stmts.iter().enumerate() {
                    let StmtKind::For { target, iter } = &st.kind else { continue };
                    let mut fields = Vec::new();
                    iter.walk(&mut |e| {
                        if let Expr::Attr(o, a) = e {
                            if matches!(o.bare(), Expr::Name(n) if n == "self") {
                                fields.push(a.to_string());
                            }
                        }
                    });
                    if !fields.iter().any(|a| container(a)) {
                        continue;
                    }
                    let mut names = Vec::new();
                    target.walk(&mut |e| {
                        if let Expr::Name(n) = e {
                            names.push(n.clone());
                        }
                    });
                    // the loop's body: the statements nested deeper, up to the next at its level
                    let body = d.stmts[li + 1..].iter().take_while(|s| s.nest > st.nest).count();
                    for (si, s) in d.stmts.iter().enumerate().skip(li + 1).take(body) {
                        stmt_exprs(&s.kind, &mut |e| {
                            if let Expr::Call { func, args, kwargs } = e {
                                let called = matches!(func.bare(), Expr::Name(n) if names.contains(n));
                                let positional = args.iter().filter(|a| !matches!(a.bare(), Expr::Star(_))).count();
                                if called
                                    && positional >= required.saturating_sub(kwargs.len())
                                    && positional <= most
                                    && out.len() < MAX_SITES
                                {
                                    out.push((((fi, di), si), args.clone(), kwargs.clone()));
                                }
                            }
                        });
                    }
                }
            }
        }
        out
    }

    /// The calls on line `line` of file `file` that can run `callee` as a module's forward: a
    /// name or a field called with the arguments its parameters take.
    fn frame_calls(&self, callee: &Def, file: usize, line: u32, offset: usize) -> Vec<super::index::CallSite> {
        let (required, most) = arity(callee, offset);
        let mut out = Vec::new();
        // (the statement the line belongs to: a call written over several lines is named by
        // the line of its own part)
        if let Some(((_, di), si)) = self.ix.stmt_at(file, line) {
            let st = &self.ix.files[file].flow[di].stmts[si];
            stmt_exprs(&st.kind, &mut |e| {
                if let Expr::Call { func, args, kwargs } = e {
                    let named = match func.bare() {
                        Expr::Name(n) => !self.ix.is_class(n) && self.ix.functions(n).is_empty(),
                        Expr::Attr(o, _) => matches!(o.bare(), Expr::Name(_) | Expr::Attr(..)),
                        _ => false,
                    };
                    let positional = args.iter().filter(|a| !matches!(a.bare(), Expr::Star(_))).count();
                    if named && positional + kwargs.len() >= required && positional <= most && out.len() < MAX_SITES {
                        out.push(super::index::CallSite {
                            at: ((file, di), si),
                            args: args.clone(),
                            kwargs: kwargs.clone(),
                            offset,
                            via: None,
                        });
                    }
                }
            });
        }
        // a line with several such calls does not say which one it was
        if out.len() > 1 {
            out.clear();
        }
        out
    }

    /// Parameters a library fills: a Lightning step's batch, a collate function's samples.
    fn library_param(&mut self, cx: &Ctx, pi: usize, parent: Option<usize>) -> Option<Val> {
        let d = self.def(cx);
        let pname = d.params[pi].name.as_str();
        let offset = usize::from(d.is_method());
        // a Hugging Face Trainer subclass's hook (`compute_loss(self, model, inputs)`): the
        // batches of the train_dataset and data_collator its constructor was given
        if pi == offset + 1 && matches!(d.name.as_str(), "compute_loss" | "training_step" | "prediction_step") {
            return self.trainer_batches(cx, pname, parent);
        }
        if pi != offset {
            return None;
        }
        let loader = match d.name.as_str() {
            "training_step" => "train_dataloader",
            "validation_step" => "val_dataloader",
            "test_step" => "test_dataloader",
            "predict_step" => "predict_dataloader",
            _ => return None,
        };
        let defs: Vec<DefId> = self.ix.methods_named(loader).to_vec();
        let mut out: Option<Val> = None;
        for id in defs.into_iter().take(2) {
            let c = Ctx { def: id, at: usize::MAX, env: None, depth: cx.depth + 1 };
            let node = self.node(&c, 0, Tag::Pass, format!("`{pname}` is a batch of {}", self.ix.def(id).qualified()), parent);
            let v = self.in_iter(|tr| tr.returns(&c, node));
            let el = self.iterate(&v);
            self.finish(node, &el);
            join_into(&mut out, el);
        }
        out
    }

    /// The batch a Trainer subclass's hook receives: `DataLoader(train_dataset,
    /// collate_fn=data_collator)` of each construction of the class (or of a subclass), when the
    /// class derives from a library `Trainer`.
    fn trainer_batches(&mut self, cx: &Ctx, pname: &str, parent: Option<usize>) -> Option<Val> {
        let class = self.def(cx).class.clone()?;
        let library_trainer =
            self.ix.mro(&class).iter().any(|c| self.ix.bases(c).iter().any(|b| b.ends_with("Trainer") && !self.ix.is_class(b)));
        if !library_trainer {
            return None;
        }
        let mut classes = vec![class.to_string()];
        classes.extend(self.ix.subclasses(&class).iter().map(|s| s.to_string()));
        let mut out: Option<Val> = None;
        for c in classes {
            for &(sid, si) in self.ix.calling(&c).iter().take(MAX_SITES) {
                let mut found = None;
                stmt_exprs(&self.ix.def(sid).stmts[si].kind, &mut |e| {
                    if let Expr::Call { func, kwargs, .. } = e {
                        if func.last_name() == Some(c.as_str()) && found.is_none() {
                            found = kwargs.iter().find(|(k, _)| k == "train_dataset").map(|(_, ds)| {
                                let collate: Vec<(Text, Expr)> = kwargs
                                    .iter()
                                    .filter(|(k, _)| k == "data_collator")
                                    .map(|(_, v)| ("collate_fn".into(), v.clone()))
                                    .collect();
                                Expr::Call { func: Box::new(Expr::Name("DataLoader".into())), args: vec![ds.clone()], kwargs: collate }
                            });
                        }
                    }
                });
                let Some(loader) = found else { continue };
                let c2 = Ctx { def: sid, at: si, env: None, depth: cx.depth + 1 };
                let node = self.node(&c2, si, Tag::Pass, format!("`{pname}` is a batch of the Trainer built here"), parent);
                let v = self.in_iter(|tr| tr.expr(&loader, &c2, node));
                let el = self.iterate(&v);
                self.finish(node, &el);
                join_into(&mut out, el);
            }
        }
        out
    }

    fn attr(&mut self, obj: &Expr, attr: &str, cx: &Ctx, parent: Option<usize>) -> Val {
        if let Some(v) = self.module_global(obj, attr, cx, parent) {
            return v;
        }
        let base = self.expr(obj, cx, parent);
        match &base {
            Val::Obj(o) => {
                let o = o.clone();
                // the field of each instance the value may be
                let mut out = self.field(&o, attr, cx, parent);
                if out.is_some() {
                    for alt in o.also.clone() {
                        if let Some(v) = self.field(&alt, attr, cx, parent) {
                            join_into(&mut out, v);
                        }
                    }
                }
                if let Some(v) = out {
                    return v;
                }
            }
            Val::Record(_) => {
                if let Some(v) = base.field(attr) {
                    return self.force(v);
                }
            }
            _ => {}
        }
        // pandas' attribute access to a column (`ratings.user_id`) of a table the scan read
        if let Val::Table(Some(file)) = &base {
            if let Some(v) = self.column_in(attr, Some(*file), cx, parent) {
                return v;
            }
        }
        if attr == "T" || attr == "mT" {
            return transposed(base);
        }
        if attr == "shape" || attr == "data" || attr == "values" || attr == "loc" || attr == "iloc" {
            return base;
        }
        // pandas' categorical codes (`s.astype("category").cat.codes`): 0.. for the categories,
        // and -1 for a missing value. Whether the column has one is the data's to say, so the
        // range stays from 0 (nothing is proven) and the line is marked as one that can give -1
        if attr == "codes" && matches!(obj.bare(), Expr::Attr(_, c) if c == "cat") {
            self.mark(parent, Tag::Sentinel(-1), "pandas' categorical codes: -1 for a missing value".into());
            return Val::Seq { elem: Box::new(Val::Int(Range { lo: Some(Sym::num(0)), hi: None })), len: base.len(), most: None };
        }
        // a config object, flags or hyperparameters read by field name
        self.named_setting(attr, cx, parent).unwrap_or(Val::unknown(format!("`.{attr}` of {}", base.describe())))
    }

    /// The dividend x when `l + r` is `a * k + b` (either way round) and `a`, `b` are the two
    /// names of one `q, r = divmod(x, k)` before this statement, with the same `k`.
    fn divmod_rejoined(&self, l: &Expr, r: &Expr, cx: &Ctx) -> Option<Expr> {
        let (prod, b) = match (l.bare(), r.bare()) {
            (p @ Expr::Bin(o, ..), b) if o == "*" => (p, b),
            (b, p @ Expr::Bin(o, ..)) if o == "*" => (p, b),
            _ => return None,
        };
        let Expr::Bin(_, pa, pk) = prod else { return None };
        let (Expr::Name(a), Expr::Name(b)) = (pa.bare(), b) else { return None };
        let d = self.def(cx);
        (0..cx.at.min(d.stmts.len())).rev().find_map(|i| {
            let StmtKind::Assign { targets, value, op: None } = &d.stmts[i].kind else { return None };
            let [Expr::Seq(_, names)] = targets.as_slice() else { return None };
            let named = |n: &str| names.iter().any(|t| matches!(t, Expr::Name(x) if x == n));
            if !(named(a) || named(b)) {
                return None;
            }
            let Expr::Call { func, args, .. } = value.bare() else { return Some(None) };
            let whole = names.len() == 2 && named(a) && named(b) && a != b;
            match (func.last_name(), args.as_slice()) {
                (Some("divmod"), [x, k]) if whole && k == &**pk => Some(Some(x.clone())),
                _ => Some(None),
            }
        })?
    }

    /// Whether definition `id` is a method of one of the classes `mro` lists.
    fn method_of(&self, id: DefId, mro: &[String]) -> bool {
        let d = self.ix.def(id);
        d.is_method() && d.class.as_deref().is_some_and(|c| mro.iter().any(|m| m == c))
    }

    /// A field holding an array, with what the class's methods write into its elements
    /// (`self.actions[i] = a`, `self.s[i], self.a[i] = s, a`) joined into them.
    fn element_writes(&mut self, v: Val, o: &Rc<Object>, mro: &[String], attr: &str, cx: &Ctx, parent: Option<usize>) -> Val {
        let writes: Vec<_> = self.ix.elem_stores(attr).iter().copied().filter(|&(id, _)| self.method_of(id, mro)).collect();
        // (a dict: the values its keys are set to, `self.stoi[t] = len(self.itos)`)
        let keyed = matches!(v, Val::Map { .. });
        let mut elem = match &v {
            Val::Seq { elem, .. } => (**elem).clone(),
            Val::Map { val, .. } => (**val).clone(),
            _ => return v,
        };
        // (a dict's keys: the indices written at, traced where they are used as values)
        let mut keys = match &v {
            Val::Map { key, .. } => Some((**key).clone()),
            _ => None,
        };
        for (id, si) in writes.into_iter().take(MAX_SITES) {
            let d = self.ix.def(id);
            let selfname = d.params.first().map(|p| p.name.clone()).unwrap_or_default();
            let StmtKind::Assign { targets, value, op: None } = &d.stmts[si].kind else { continue };
            let mine = |x: &Expr| matches!(x, Expr::Sub(b, _) if matches!(b.bare(), Expr::Attr(s, a) if a == attr && s.dotted().as_deref() == Some(selfname.as_str())));
            let Some(pos) = targets.iter().find_map(|t| match t {
                Expr::Seq(_, xs) => xs.iter().position(mine).map(Some),
                t if mine(t) => Some(None),
                _ => None,
            }) else {
                continue;
            };
            let env = Env::receiver(o.clone());
            let c = Ctx { def: id, at: si, env: Some(env), depth: cx.depth + 1 };
            let node = self.node(&c, si, Tag::Pass, format!("writes into `self.{attr}[…]`"), parent);
            let target = match pos {
                Some(p) => targets.iter().find_map(|t| match t {
                    Expr::Seq(_, xs) => xs.get(p),
                    _ => None,
                }),
                None => targets.iter().find(|t| mine(t)),
            };
            if let (Some(k), Some(Expr::Sub(_, idx))) = (keys.take(), target) {
                let at = self.defer(idx, &c, node);
                keys = Some(match k {
                    Val::Unknown(_) => at,
                    k => k.join(&at),
                });
            }
            let whole = self.expr(value, &c, node);
            let w = match pos {
                Some(p) => self.force(whole.at(p)),
                None => whole,
            };
            self.classify(node, value, None, &w);
            self.finish(node, &w);
            // a row written into a table of rows, a scalar into a vector, a slice's elements
            let w = if !keyed && matches!(w, Val::Seq { .. }) && !matches!(elem, Val::Seq { .. }) { w.element() } else { w };
            elem = match elem {
                Val::Unknown(_) => w,
                e => e.join(&w),
            };
        }
        match v {
            Val::Seq { len, most, .. } => Val::Seq { elem: Box::new(elem), len, most },
            Val::Map { key, len, .. } => Val::Map { key: keys.map(Box::new).unwrap_or(key), val: Box::new(elem), len },
            other => other,
        }
    }

    /// The values stores outside the class's methods give a field of this instance (a training
    /// loop's `model.gate.keep = rate(epoch)`): those whose object is one of the class's.
    fn outside_stores(&mut self, o: &Rc<Object>, mro: &[String], attr: &str, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
        let sites: Vec<_> = self.ix.stores(attr).iter().copied().filter(|&(id, _)| !self.method_of(id, mro)).collect();
        let mut out: Option<Val> = None;
        for (id, si) in sites.into_iter().take(MAX_SITES) {
            let d = self.ix.def(id);
            let StmtKind::Assign { targets, value, op: None } = &d.stmts[si].kind else { continue };
            let Some(Expr::Attr(base, _)) = targets.iter().find(|t| matches!(t, Expr::Attr(_, a) if a == attr)) else { continue };
            let c = Ctx { def: id, at: si, env: None, depth: cx.depth + 1 };
            // whose field it is, looked at with its nodes discarded
            let keep = self.nodes.len();
            let of = self.expr(base, &c, None);
            self.cut(keep);
            if !matches!(&of, Val::Obj(x) if x.class == o.class || self.ix.mro(&x.class).contains(&o.class)) {
                continue;
            }
            let node = self.node(&c, si, Tag::Pass, format!("sets `{}`", short(&targets[0])), parent);
            let v = self.expr(value, &c, node);
            self.classify(node, value, None, &v);
            self.finish(node, &v);
            join_into(&mut out, v);
        }
        out
    }

    /// The statements of the class's methods that grow the field `attr` (`self.attr.append(…)`,
    /// `extend`, `insert`, and for a field set to a dict `self.attr[k] = …`), with the root its
    /// length is written in once filled (`len@` the line that sets it, in `__init__` first);
    /// None when no method grows it.
    fn field_growth(&mut self, mro: &[String], attr: &str) -> Growth {
        let key = (mro.first().cloned().unwrap_or_default(), attr.to_string());
        if let Some(known) = self.growth.get(&key) {
            return known.clone();
        }
        let found = self.find_growth(mro, attr);
        self.growth.insert(key, found.clone());
        found
    }

    /// `field_growth`, looked up in the index.
    fn find_growth(&self, mro: &[String], attr: &str) -> Growth {
        let stores: Vec<StmtId> = self.ix.stores(attr).iter().copied().filter(|&(id, _)| self.method_of(id, mro)).collect();
        let keyed = stores.iter().any(|&(id, si)| match &self.ix.def(id).stmts[si].kind {
            StmtKind::Assign { value, op: None, .. } => match value.bare() {
                Expr::Dict(_) | Expr::Comp { value: Some(_), .. } => true,
                Expr::Call { func, .. } => {
                    matches!(func.last_name(), Some("dict" | "defaultdict" | "OrderedDict" | "Counter"))
                }
                _ => false,
            },
            _ => false,
        });
        let grows = |&(id, si): &StmtId| {
            let d = self.ix.def(id);
            let Some(me) = d.params.first().map(|p| p.name.as_str()) else { return false };
            let field = |e: &Expr| matches!(e.bare(), Expr::Attr(b, a) if a == attr && b.dotted().as_deref() == Some(me));
            match &d.stmts[si].kind {
                StmtKind::Expr(Expr::Call { func, .. }) => {
                    matches!(func.bare(), Expr::Attr(o, m) if matches!(m.as_str(), "append" | "extend" | "insert") && field(o))
                }
                StmtKind::Assign { targets, .. } => keyed && targets.iter().any(|t| matches!(t, Expr::Sub(b, _) if field(b))),
                _ => false,
            }
        };
        let mut sites: Vec<StmtId> = Vec::new();
        for m in ["append", "extend", "insert"] {
            sites.extend(self.ix.calling(m).iter().copied().filter(|&(id, _)| self.method_of(id, mro)).filter(grows));
        }
        if keyed {
            sites.extend(self.ix.elem_stores(attr).iter().copied().filter(|&(id, _)| self.method_of(id, mro)).filter(grows));
        }
        if sites.is_empty() {
            return None;
        }
        sites.sort_unstable();
        sites.dedup();
        let (id, si) =
            stores.iter().copied().find(|&(id, _)| self.ix.def(id).name == "__init__").or(stores.first().copied()).unwrap_or(sites[0]);
        let d = self.ix.def(id);
        Some((format!("len@{}:{}", self.ix.path(id), d.line(&d.stmts[si])), sites))
    }

    /// `len(self.f)` in a method that grows the field `f` (`self.stoi[t] = len(self.itos)` and
    /// then `self.itos.append(t)`): read before the growth in the same pass it numbers entries
    /// from 0, read after it from 1; both up to the length the field has once filled. None
    /// where the method does not grow the field (its length is then the field's own).
    fn growing_len(&mut self, e: &Expr, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
        let d = self.def(cx);
        let me = d.params.first().filter(|_| d.is_method())?.name.as_str();
        let Expr::Attr(b, attr) = e.bare() else { return None };
        if b.dotted().as_deref() != Some(me) || cx.at >= d.stmts.len() {
            return None;
        }
        let mro = self.ix.mro(d.class.as_deref()?);
        let (root, sites) = self.field_growth(&mro, attr)?;
        let here: Vec<usize> = sites.iter().filter(|(id, _)| *id == cx.def).map(|&(_, si)| si).collect();
        let r = cx.at;
        let nest = d.stmts[r].nest;
        let later = here.iter().any(|&g| g >= r && (r + 1..=g).all(|i| d.stmts[i].nest >= nest));
        let earlier = here.iter().any(|&g| g < r);
        let end = Sym::root(&root);
        if later {
            self.mark(parent, Tag::Len(Length::Numbering), format!("numbers entries from 0 as `self.{attr}` grows"));
            Some(Val::Int(Range { lo: Some(Sym::num(0)), hi: Some(end.plus(-1)) }))
        } else if earlier {
            self.mark(parent, Tag::OneBased(1), format!("numbers entries from 1: the length of `self.{attr}` after it grew"));
            Some(Val::Int(Range { lo: Some(Sym::num(1)), hi: Some(end) }))
        } else {
            None
        }
    }

    /// An instance field: the stores to `self.<attr>` in the class's methods (and its bases'),
    /// a `@property`, or a class-body field (a dataclass).
    fn field(&mut self, o: &Rc<Object>, attr: &str, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
        if cx.depth >= MAX_CALLS {
            return Some(Val::unknown("call depth"));
        }
        let mro = self.ix.mro(&o.class);
        let stores: Vec<_> = self.ix.stores(attr).iter().copied().filter(|&(id, _)| self.method_of(id, &mro)).collect();
        // a constructor's placeholder (`self.n = 0`, `= None`, `= []`) that another method sets
        // (`fit`): the other method's value is what the instance holds once used
        let set_later = stores.iter().any(|&(id, _)| self.ix.def(id).name != "__init__");
        let placeholder = |k: &StmtKind| match k {
            StmtKind::Assign { value, op: None, .. } => match value.bare() {
                Expr::Int(0) => true,
                Expr::Const(c) => c == "None",
                Expr::Seq(_, xs) => xs.is_empty(),
                Expr::Dict(xs) => xs.is_empty(),
                _ => false,
            },
            _ => false,
        };
        let mut out: Option<Val> = None;
        for (id, si) in stores.into_iter().take(MAX_SITES) {
            let d = self.ix.def(id);
            if set_later && d.name == "__init__" && placeholder(&d.stmts[si].kind) {
                continue;
            }
            let selfname = d.params.first().map(|p| p.name.clone()).unwrap_or_default();
            let env = (d.name == "__init__").then(|| o.ctor.clone()).flatten().map(|e| {
                Rc::new(Env {
                    args: e.args.clone(),
                    kwargs: e.kwargs.clone(),
                    caller: e.caller.clone(),
                    vals: e.vals.clone(),
                    recv: Some(o.clone()),
                })
            });
            let env = env.or_else(|| Some(Env::receiver(o.clone())));
            let registered = super::index::registered_field(&d.stmts[si].kind).filter(|(a, _)| *a == attr).map(|(_, v)| v.clone());
            if let Some(value) = registered {
                // `self.register_buffer("attr", value)`
                let c = Ctx { def: id, at: si, env, depth: cx.depth + 1 };
                let node = self.node(&c, si, Tag::Pass, format!("registers `self.{attr}`"), parent);
                let v = self.expr(&value, &c, node);
                self.classify(node, &value, None, &v);
                self.finish(node, &v);
                join_into(&mut out, v);
                continue;
            }
            let StmtKind::Assign { targets, value, op } = &d.stmts[si].kind else { continue };
            let Some(t) = targets
                .iter()
                .find(|t| matches!(t, Expr::Attr(b, a) if a == attr && b.dotted().as_deref() == Some(selfname.as_str())))
                .or_else(|| targets.iter().find(|t| matches!(t, Expr::Seq(..))))
            else {
                continue;
            };
            let c = Ctx { def: id, at: si, env, depth: cx.depth + 1 };
            let node = self.node(&c, si, Tag::Pass, format!("sets `self.{attr}`"), parent);
            let v = match op {
                Some(_) => {
                    let rhs = self.expr(value, &c, node);
                    match &rhs {
                        Val::Int(r) if r.lo == r.hi => {
                            let k = r.lo.as_ref().and_then(|s| s.constant()).unwrap_or(0);
                            Val::Int(Range::exact(Sym::num(k)))
                        }
                        _ => Val::unknown("augmented field"),
                    }
                }
                None => {
                    let whole = self.expr(value, &c, node);
                    match t {
                        Expr::Seq(_, xs) => {
                            let pos = xs.iter().position(|x| matches!(x, Expr::Attr(_, a) if a == attr)).unwrap_or(0);
                            self.force(whole.at(pos))
                        }
                        _ => whole,
                    }
                }
            };
            self.classify(node, value, op.as_deref(), &v);
            self.finish(node, &v);
            // `self.items = []` and then `self.items.append(…)` in the same method
            let v = if matches!(v, Val::Seq { .. }) && op.is_none() {
                let c2 = Ctx { at: usize::MAX, ..c.clone() };
                self.appended(v, &format!("{selfname}.{attr}"), &c2, si, usize::MAX, node)
            } else {
                v
            };
            join_into(&mut out, v);
        }
        if let Some(Val::Seq { .. } | Val::Map { .. }) = &out {
            out = out.map(|v| self.element_writes(v, o, &mro, attr, cx, parent));
            // a list or dict the class's methods grow: as long as it is once filled
            if let Some((root, _)) = self.field_growth(&mro, attr) {
                out = out.map(|v| match v {
                    Val::Seq { elem, .. } => Val::Seq { elem, len: Some(Sym::root(&root)), most: None },
                    Val::Map { key, val, .. } => Val::Map { key, val, len: Some(Sym::root(&root)) },
                    other => other,
                });
            }
        }
        // set from outside too (`model.gate.keep = rate(epoch)`), on what holds this instance; a
        // field no method sets (a dataclass's default, a plain config object) filled in from
        // outside (`cfg.vocab_size = len(vocab)`) takes what was stored, not its default
        if let Some(v) = self.outside_stores(o, &mro, attr, cx, parent) {
            join_into(&mut out, v);
        }
        if out.is_some() {
            return out;
        }
        // a class without a constructor of its own (a dataclass, a NamedTuple) built with the
        // field as a keyword: the argument
        if let Some(e) = o.ctor.clone().filter(|_| self.ix.method(&o.class, "__init__").is_empty()) {
            if let (Some((_, arg)), Some(caller)) = (e.kwargs.iter().find(|(k, _)| k == attr), &e.caller) {
                return Some(self.passed(caller, arg, format!("builds {} with `{attr}={}`", o.class, short(arg)), parent));
            }
            // built with the fields by position (`Recording(mains, sub, apps)`): the fields in
            // the order the class bodies declare them, a base's first
            let pos = self.declared_fields(&o.class).iter().position(|f| f == attr);
            let plain = e.args.iter().take(pos.map_or(0, |p| p + 1)).all(|a| !matches!(a.bare(), Expr::Star(_)));
            if let (Some(pos), true, Some(caller)) = (pos, plain, &e.caller) {
                if let Some(arg) = e.args.get(pos) {
                    let arg = arg.clone();
                    return Some(self.passed(caller, &arg, format!("builds {} with `{}` as `{attr}`", o.class, short(&arg)), parent));
                }
            }
        }
        for c in &mro {
            let props = self.ix.method(c, attr);
            if let Some(&id) = props.first() {
                if self.ix.def(id).decorators.iter().any(|d| d.ends_with("property")) {
                    let env = Env::receiver(o.clone());
                    let c = Ctx { def: id, at: usize::MAX, env: Some(env), depth: cx.depth + 1 };
                    return Some(self.returns(&c, parent));
                }
            }
            for &body in self.ix.class_bodies(c) {
                let d = self.ix.def(body);
                for (si, s) in d.stmts.iter().enumerate() {
                    if let StmtKind::Assign { targets, value, .. } = &s.kind {
                        if targets.iter().any(|t| t.dotted().as_deref() == Some(attr)) {
                            let c2 = Ctx { def: body, at: si, env: None, depth: cx.depth + 1 };
                            // a dataclass field set by a keyword of the constructor call
                            if let Some(e) = &o.ctor {
                                if let (Some(arg), Some(caller)) = (e.kwargs.iter().find(|(k, _)| k == attr), &e.caller) {
                                    let arg = arg.1.clone();
                                    return Some(self.expr(&arg, caller, parent));
                                }
                                // built from a mapping spread into the call (`cls(**section)`, a
                                // section of a config file read into a dict): the default holds
                                // only for a key the mapping lacks, and a setting of the field's
                                // name in the project (a config file's key, a flag) is what the
                                // run reads
                                let spread = e.args.iter().any(|a| matches!(a, Expr::Star(_)));
                                if spread && !self.ix.config(attr).is_empty() {
                                    if let Some(v) = self.named_setting(attr, cx, parent) {
                                        return Some(v);
                                    }
                                }
                                if spread {
                                    if let Some(caller) = e.caller.clone() {
                                        if let Some(v) = self.spread_entry(&e.args, attr, &caller, parent) {
                                            return Some(v);
                                        }
                                    }
                                }
                            }
                            let node = self.node(&c2, si, Tag::Pass, format!("field `{attr}` of {c}"), parent);
                            let v = self.expr(value, &c2, node);
                            self.classify(node, value, None, &v);
                            if let Val::Int(r) = &v {
                                if let Some(k) = r.lo.as_ref().and_then(|s| s.constant()).filter(|_| r.lo == r.hi) {
                                    self.retag(node, Tag::Config(attr.to_string()), format!("`{attr}` defaults to {k}"));
                                }
                            }
                            self.finish(node, &v);
                            return Some(v);
                        }
                    }
                }
            }
        }
        None
    }

    /// The length in characters of a string written out, named or as it is (a module's
    /// constant bound once).
    fn literal_text(&self, e: &Expr, cx: &Ctx) -> Option<usize> {
        // (text the scan kept as written: no escapes, no f-string fields, not clipped)
        let plain = |t: &str| (!t.contains(['\\', '{']) && t.len() < 40).then(|| t.chars().count());
        match e.bare() {
            Expr::Str(t) => plain(t),
            Expr::Name(n) => {
                // (the module's own, where several modules name one)
                let sites: Vec<&StmtId> = self.ix.globals(n).iter().collect();
                let here: Vec<&StmtId> = sites.iter().copied().filter(|(g, _)| g.0 == cx.def.0).collect();
                let pick = if here.is_empty() { &sites[..] } else { &here[..] };
                let [(gid, gi)] = pick else { return None };
                match &self.ix.def(*gid).stmts[*gi].kind {
                    StmtKind::Assign { value, op: None, .. } => match value.bare() {
                        Expr::Str(t) => plain(t),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A class's annotated fields (a dataclass's, a `NamedTuple`'s) in the order its
    /// constructor takes them: a base's first.
    fn declared_fields(&self, class: &str) -> Vec<String> {
        let mut order: Vec<String> = Vec::new();
        for c in self.ix.mro(class).iter().rev() {
            for &body in self.ix.class_bodies(c) {
                for p in &self.ix.def(body).fields {
                    if !order.iter().any(|f| **f == *p.name) {
                        order.push(p.name.to_string());
                    }
                }
            }
        }
        order
    }

    /// The entry `key` of the mappings spread into a call (`Config(**raw)`), where `raw` was
    /// updated before the call (`raw.update(overrides)`, the later update winning): its value
    /// where a mapping known to have the key sets it; None where none does.
    fn spread_entry(&mut self, args: &[Expr], key: &str, caller: &Ctx, parent: Option<usize>) -> Option<Val> {
        for a in args.iter().rev() {
            let Expr::Star(inner) = a.bare() else { continue };
            // the updates of a name before the call, last first, then what it was bound to
            let mut parts: Vec<(Ctx, Expr)> = Vec::new();
            if let Expr::Name(n) = inner.bare() {
                let d = self.ix.def(caller.def);
                for (i, st) in d.stmts.iter().enumerate().take(caller.at.min(d.stmts.len())).rev() {
                    match &st.kind {
                        StmtKind::Expr(Expr::Call { func, args: ua, kwargs: uk }) if matches!(func.bare(), Expr::Attr(o, m) if &**m == "update" && matches!(o.bare(), Expr::Name(x) if x == n)) =>
                        {
                            let c = Ctx { at: i, ..caller.clone() };
                            if let Some((_, v)) = uk.iter().find(|(k, _)| k == key) {
                                parts.push((c.clone(), v.clone()));
                            }
                            parts.extend(ua.iter().map(|u| (c.clone(), Expr::Star(Box::new(u.clone())))));
                        }
                        StmtKind::Assign { targets, op: None, .. }
                            if targets.iter().any(|t| matches!(t.bare(), Expr::Name(x) if x == n)) =>
                        {
                            break
                        }
                        _ => {}
                    }
                }
            }
            parts.push((caller.clone(), a.clone()));
            for (c, part) in parts {
                let Expr::Star(m) = part.bare() else {
                    return Some(self.passed(&c, &part, format!("sets `{key}` to `{}`", short(&part)), parent));
                };
                // (a mapping whose keys are not known, `**vars(args)` of flags made from the
                // fields with their defaults: the default is what a run without options reads)
                if let Val::Record(fs) = self.aux_expr(m, &c, parent) {
                    if fs.iter().any(|(k, _)| k == key) {
                        let sub = Expr::Sub(m.clone(), Box::new(Expr::Str(key.into())));
                        return Some(self.passed(&c, &sub, format!("`{key}` of `{}`", short(m)), parent));
                    }
                }
            }
        }
        None
    }

    /// A setting read by name from a config object, flags or hyperparameters: an argparse
    /// default, a YAML/JSON key, a dataclass field; None when the project has none by that name.
    fn named_setting(&mut self, key: &str, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
        // a setting stored by the code outside a class (`args.num_entities = stats["n"]`)
        // (or under the key, `hp["model"]["n_speakers"] = len(speakers)`)
        let outside: Vec<_> = self
            .ix
            .stores(key)
            .iter()
            .chain(self.ix.key_stores(key))
            .copied()
            .filter(|(id, _)| self.ix.def(*id).class.is_none())
            .take(MAX_SITES)
            .collect();
        if !outside.is_empty() && cx.depth < MAX_CALLS {
            let mut out: Option<Val> = None;
            for (id, si) in outside {
                let StmtKind::Assign { value, op: None, .. } = &self.ix.def(id).stmts[si].kind else { continue };
                let c = Ctx { def: id, at: si, env: None, depth: cx.depth + 1 };
                let node = self.node(&c, si, Tag::Pass, format!("sets `.{key}`"), parent);
                let v = self.expr(value, &c, node);
                self.classify(node, value, None, &v);
                self.finish(node, &v);
                join_into(&mut out, v);
            }
            if out.is_some() {
                return out;
            }
        }
        // argparse: add_argument("--num-classes", default=…)
        let flag_sites: Vec<_> = self.ix.calling("add_argument").to_vec();
        for (sid, si) in flag_sites.into_iter().filter(|(sid, _)| self.ix.same_program(sid.0, cx.def.0)) {
            let sd = self.ix.def(sid);
            let (mut hit, mut defined) = (None, false);
            stmt_exprs(&sd.stmts[si].kind, &mut |e| {
                if let Expr::Call { func, args, kwargs } = e {
                    if func.last_name() != Some("add_argument") {
                        return;
                    }
                    let dest =
                        kwargs
                            .iter()
                            .find(|(k, _)| k == "dest")
                            .and_then(|(_, v)| if let Expr::Str(s) = v { Some(s.to_string()) } else { None });
                    let names: Vec<String> = args
                        .iter()
                        .filter_map(|a| if let Expr::Str(s) = a { Some(s.trim_start_matches('-').replace('-', "_")) } else { None })
                        .collect();
                    if dest.as_deref() == Some(key) || (dest.is_none() && names.iter().any(|n| n == key)) {
                        defined = true;
                        hit = kwargs.iter().find(|(k, _)| k == "default").map(|(_, v)| v.clone());
                    }
                }
            });
            // the value a run script passes on its command line, over the default
            if let Some((fi, a)) = defined.then(|| self.script_flag(key, sid.0)).flatten() {
                let v = match a.int {
                    Some(k) => Val::Int(Range::exact(Sym::num(k))),
                    None => Val::unknown(format!("flag `--{key}`")),
                };
                let (line, what) = (a.span.line, format!("flag `--{key}` is given `{}` on the command line", a.value));
                let node = self.setting_node(fi, line, key, what, &v, parent);
                self.finish(node, &v);
                return Some(v);
            }
            if let Some(def) = hit {
                let c = Ctx { def: sid, at: si, env: None, depth: cx.depth + 1 };
                let node = self.node(&c, si, Tag::Config(key.to_string()), format!("flag `--{key}` defaults to `{}`", short(&def)), parent);
                let v = self.expr(&def, &c, node);
                self.finish(node, &v);
                return Some(v);
            }
        }
        // YAML / JSON / INI / TOML keys
        if let Some(v) = self.config_key(key, parent) {
            return Some(v);
        }
        // a class-body field (a dataclass, a config class) of that name, when only one class has it
        let mut bodies = Vec::new();
        for (fi, f) in self.ix.files.iter().enumerate() {
            for (di, d) in f.flow.iter().enumerate() {
                if d.kind != DefKind::Class {
                    continue;
                }
                for (si, s) in d.stmts.iter().enumerate() {
                    if let StmtKind::Assign { targets, .. } = &s.kind {
                        if targets.iter().any(|t| t.dotted().as_deref() == Some(key)) {
                            bodies.push(((fi, di), si));
                        }
                    }
                }
            }
        }
        if bodies.len() == 1 {
            let (id, _) = bodies[0];
            let o = Rc::new(Object::of(self.ix.def(id).name.to_string(), None));
            return self.field(&o, key, cx, parent);
        }
        // an instance field of the one class that stores it
        let stores: Vec<_> = self.ix.stores(key).to_vec();
        let classes: Vec<String> = {
            let mut v: Vec<String> = stores.iter().filter_map(|(id, _)| self.ix.def(*id).class.as_deref().map(str::to_string)).collect();
            v.dedup();
            v
        };
        if classes.len() == 1 {
            let o = Rc::new(Object::of(classes[0].clone(), None));
            return self.field(&o, key, cx, parent);
        }
        None
    }

    /// The string an expression always is: a literal, or a name or class attribute assigned one
    /// (`CFG.target_col`, `LABEL_COL`).
    fn string_of(&self, e: &Expr, cx: &Ctx, hops: usize) -> Option<Text> {
        if hops > 4 {
            return None;
        }
        let e = e.bare();
        match e {
            Expr::Str(s) => Some(s.clone()),
            Expr::Name(n) => {
                let d = self.def(cx);
                if let Some((_, v)) = d.last_assign(cx.at, n) {
                    return self.string_of(v, cx, hops + 1);
                }
                // a parameter: the string every call site passes (or its default)
                if let Some(pi) = d.param_index(n).filter(|&pi| !d.params[pi].star) {
                    let p = &d.params[pi];
                    let mut found: Option<Text> = None;
                    for site in self.ix.call_sites(d, cx.def, MAX_SITES) {
                        let arg = given(&site.args, &site.kwargs, &p.name, pi, site.offset);
                        let c = Ctx { def: site.at.0, at: site.at.1, env: None, depth: cx.depth + 1 };
                        let got = match arg {
                            Some(a) => self.string_of(&a, &c, hops + 1),
                            None => p.default.as_ref().and_then(|e| self.string_of(e, cx, hops + 1)),
                        };
                        match (&found, got) {
                            (_, None) => return None,
                            (Some(f), Some(g)) if *f != g => return None,
                            (_, Some(g)) => found = Some(g),
                        }
                    }
                    return found.or_else(|| p.default.as_ref().and_then(|e| self.string_of(e, cx, hops + 1)));
                }
                let &(gid, gi) = self.ix.globals(n).iter().find(|(id, _)| id.0 == cx.def.0).or(self.ix.globals(n).first())?;
                match &self.ix.def(gid).stmts[gi].kind {
                    StmtKind::Assign { value: Expr::Str(s), .. } => Some(s.clone()),
                    _ => None,
                }
            }
            Expr::Attr(o, a) => {
                let class_default = |class: &str| self.class_string(class, a);
                if let Some(v) = o.dotted().and_then(|c| class_default(&c)) {
                    return Some(v);
                }
                // a flag's default (`args.data` of `add_argument("--data", default="…")`), else
                // the one class whose body gives the field a string (a dataclass's default)
                if let Some(v) = self.flag_string(a) {
                    return Some(v);
                }
                let mut owners = Vec::new();
                for f in &self.ix.files {
                    for d in f.flow.iter().filter(|d| d.kind == DefKind::Class) {
                        if let Some(v) = class_default(&d.name) {
                            owners.push(v);
                        }
                    }
                }
                owners.dedup();
                if owners.len() == 1 {
                    return Some(owners.remove(0));
                }
                self.config_string(a)
            }
            // a path the command line may give, else the project's own (`sys.argv[1] if
            // len(sys.argv) > 1 else "config.yaml"`): the one the script reads when run as it
            // is, as for a flag's default
            Expr::IfElse(a, _, b) => match (self.string_of(a, cx, hops + 1), self.string_of(b, cx, hops + 1)) {
                (Some(x), Some(y)) => (x == y).then_some(x),
                (Some(x), None) if from_outside(b) => Some(x),
                (None, Some(y)) if from_outside(a) => Some(y),
                _ => None,
            },
            // a key of a loaded config (`d["participants"]` where the YAML says `participants:
            // participants.json`)
            Expr::Sub(_, k) => match k.bare() {
                Expr::Str(key) => self.config_string(key),
                _ => None,
            },
            _ => None,
        }
    }

    /// A key of the project's config files (YAML, JSON, INI, TOML) by its last name: its value
    /// (an integer, a list of known length, else unknown) and the line that sets it.
    fn config_key(&mut self, key: &str, parent: Option<usize>) -> Option<Val> {
        self.config_key_at(key, None, parent)
    }

    /// `config_key`, and where `section` is given only a key set in that section
    /// (`model.n_classes` for `cp.getint("model", "n_classes")`).
    fn config_key_at(&mut self, key: &str, section: Option<&str>, parent: Option<usize>) -> Option<Val> {
        let mut keys = self.ix.config(key);
        if let Some(section) = section {
            let full = format!("{section}.{key}");
            keys.retain(|&(fi, line, _)| self.ix.files[fi].assigns.iter().any(|a| a.span.line == line && *a.target == *full));
        }
        if let Some(&(fi, line, int)) = keys.first() {
            let v = match (int, self.ix.config_len(key)) {
                (Some(k), _) => Val::Int(Range::exact(Sym::num(k))),
                // a list: as many items as the file writes out, each unknown
                (None, Some(n)) => {
                    Val::Seq { elem: Box::new(Val::unknown(format!("an item of config key `{key}`"))), len: Some(Sym::num(n)), most: None }
                }
                (None, None) => Val::unknown(format!("config key `{key}`")),
            };
            let what = format!("config key `{key}`{}", int.map(|k| format!(" = {k}")).unwrap_or_default());
            self.setting_node(fi, line, key, what, &v, parent);
            return Some(v);
        }
        None
    }

    /// A node for a setting read from a file that is not code (a config key, a run script's
    /// flag), at its line.
    fn setting_node(&mut self, fi: usize, line: u32, key: &str, what: String, v: &Val, parent: Option<usize>) -> Option<usize> {
        if self.nodes.len() >= self.node_limit {
            return None;
        }
        let id = self.nodes.len();
        self.nodes.push(Node {
            file: fi,
            line,
            tag: Tag::Config(key.to_string()),
            what,
            val: v.describe(),
            out: v.range(),
            parent,
            children: Vec::new(),
            scope: self.ix.files[fi].path.clone(),
            aux: self.aux > 0,
            length: false,
        });
        if let Some(p) = parent {
            self.nodes[p].children.push(id);
        }
        Some(id)
    }

    /// The one string the project's config files give a key (in any section), unquoted.
    fn config_string(&self, key: &str) -> Option<Text> {
        let mut found: Option<&str> = None;
        for f in self.ix.files.iter().filter(|f| f.is_config()) {
            for a in &f.assigns {
                if a.int.is_some() || a.target.rsplit('.').next() != Some(key) {
                    continue;
                }
                let v = a.value.trim().trim_matches(['"', '\'']);
                if v.is_empty() || v.contains(['[', '{', '\n']) || found.is_some_and(|f| f != v) {
                    return None;
                }
                found = Some(v);
            }
        }
        found.map(Text::from)
    }

    /// The string a field read from an instance holds by its class's default (`cfg.name` where
    /// `cfg` is a `ModelConfig` whose body sets `name: str = "tcn"`).
    fn field_string(&mut self, e: &Expr, cx: &Ctx) -> Option<Text> {
        let Expr::Attr(o, a) = e.bare() else { return None };
        let keep = self.nodes.len();
        let v = self.expr(o, cx, None);
        self.cut(keep);
        let Val::Obj(obj) = v else { return None };
        // a keyword of the constructor call, else the class body's default
        if let Some(env) = &obj.ctor {
            if let (Some((_, arg)), Some(caller)) = (env.kwargs.iter().find(|(k, _)| k == a), &env.caller) {
                return self.string_of(arg, caller, 0);
            }
        }
        self.ix.mro(&obj.class).iter().find_map(|c| self.class_string(c, a))
    }

    /// The string a class's body gives `field` (`name: str = "tcn"`, `LABEL = "y"`).
    fn class_string(&self, class: &str, field: &str) -> Option<Text> {
        self.ix.class_bodies(class).iter().find_map(|&body| {
            self.ix.def(body).stmts.iter().find_map(|s| match &s.kind {
                StmtKind::Assign { targets, value: Expr::Str(v), .. } if targets.iter().any(|t| t.dotted().as_deref() == Some(field)) => {
                    Some(v.clone())
                }
                _ => None,
            })
        })
    }

    /// The string default of the argparse flag whose destination is `key`.
    fn flag_string(&self, key: &str) -> Option<Text> {
        let mut hit = None;
        for &(sid, si) in self.ix.calling("add_argument") {
            stmt_exprs(&self.ix.def(sid).stmts[si].kind, &mut |e| {
                let Expr::Call { func, args, kwargs } = e else { return };
                if func.last_name() != Some("add_argument") || hit.is_some() {
                    return;
                }
                let dest =
                    kwargs
                        .iter()
                        .find(|(k, _)| k == "dest")
                        .and_then(|(_, v)| if let Expr::Str(s) = v.bare() { Some(s.to_string()) } else { None });
                let names: Vec<String> = args
                    .iter()
                    .filter_map(|a| if let Expr::Str(s) = a.bare() { Some(s.trim_start_matches('-').replace('-', "_")) } else { None })
                    .collect();
                if dest.as_deref() == Some(key) || (dest.is_none() && names.iter().any(|n| n == key)) {
                    // what a run script passes, else the default
                    hit = self.script_flag(key, sid.0).map(|(_, a)| Text::from(a.value.trim_matches(['"', '\''])));
                    if let (None, Some((_, Expr::Str(s)))) = (&hit, kwargs.iter().find(|(k, _)| k == "default").map(|(k, v)| (k, v.bare())))
                    {
                        hit = Some(s.clone());
                    }
                }
            });
        }
        hit
    }

    /// The flag `--key` as a run script of the project passes it on a command line to the
    /// program that file `parser` (where the flag is defined) runs in (its file and setting), the
    /// first where several do. A program the project does not hold (`-m` of a library) is taken
    /// to be any.
    fn script_flag(&self, key: &str, parser: usize) -> Option<(usize, &crate::scan::facts::AssignFact)> {
        let runs = |program: &str| {
            let module = program.replace('.', "/");
            let paths = [program.to_string(), format!("{module}.py"), format!("{module}/__main__.py")];
            let mut files = (0..self.ix.files.len())
                .filter(|&i| {
                    let p = &self.ix.files[i].path;
                    paths.iter().any(|w| p == w || p.ends_with(&format!("/{w}")))
                })
                .peekable();
            files.peek().is_none() || files.any(|i| self.ix.same_program(i, parser))
        };
        self.ix.files.iter().enumerate().filter(|(_, f)| crate::scan::facts::is_run_script_path(&f.path)).find_map(|(fi, f)| {
            f.assigns.iter().find(|a| a.target == key && a.scope.function.as_deref().map_or(true, runs)).map(|a| (fi, a))
        })
    }

    /// The path a file object was opened on: `open(p)` itself, or the name a `with open(p) as f`
    /// (or `f = open(p)`) of this function binds.
    fn opened_path(&self, e: &Expr, cx: &Ctx) -> Option<String> {
        self.path_text(&self.opened(e, cx)?, cx)
    }

    /// `opened_path`'s path expression, as written.
    fn opened(&self, e: &Expr, cx: &Ctx) -> Option<Expr> {
        self.open_call(e, cx)?.0.first().cloned()
    }

    /// The arguments of the `open(…)` call a file object comes from: the call itself, or the
    /// one a `with open(p) as f` (or `f = open(p)`) of this function binds the name to.
    fn open_call(&self, e: &Expr, cx: &Ctx) -> Option<CallArgs> {
        let opened = |v: &Expr| match v.bare() {
            Expr::Call { func, args, kwargs } if func.last_name() == Some("open") => Some((args.clone(), kwargs.clone())),
            _ => None,
        };
        match e.bare() {
            Expr::Name(n) => {
                let d = self.def(cx);
                (0..cx.at.min(d.stmts.len())).rev().find_map(|i| match &d.stmts[i].kind {
                    StmtKind::With { target: Some(t), value } if pattern_pos(t, n).is_some() => opened(value),
                    StmtKind::Assign { targets, value, .. } if targets.iter().any(|t| pattern_pos(t, n).is_some()) => opened(value),
                    _ => None,
                })
            }
            other => opened(other),
        }
    }

    /// The marker a mask picks out of `obj`: `mask` is (or names) `obj == k` with `k` a known
    /// constant.
    fn masked_out_eq(&mut self, obj: &Expr, mask: &Expr, cx: &Ctx) -> Option<i64> {
        self.marker_tested(obj, mask, cx, "==")
    }

    /// The marker a boolean mask leaves out of `obj` when `obj[idx]` selects by it: `idx` is
    /// (or names) `obj != k` with `k` a known constant.
    fn masked_out(&mut self, obj: &Expr, idx: &Expr, cx: &Ctx) -> Option<i64> {
        self.marker_tested(obj, idx, cx, "!=")
    }

    /// Whether a boolean mask keeps the cells of `obj` that are not negative: `idx` is (or names)
    /// `obj >= 0` or `obj > -1` (`remap[v][remap[v] >= 0]`).
    fn kept_nonnegative(&self, obj: &Expr, idx: &Expr, cx: &Ctx) -> bool {
        let Some(test) = self.mask_test(idx, cx) else { return false };
        let Expr::Test(op, xs) = test.bare() else { return false };
        match (op.as_str(), xs.as_slice()) {
            (">=", [a, b]) => same_place(a, obj) && int_literal(b) == Some(0),
            (">", [a, b]) => same_place(a, obj) && int_literal(b) == Some(-1),
            ("<=", [a, b]) => same_place(b, obj) && int_literal(a) == Some(0),
            ("<", [a, b]) => same_place(b, obj) && int_literal(a) == Some(-1),
            _ => false,
        }
    }

    /// The test a mask is: written in the subscript, or the expression the name was last
    /// assigned (`keep = labels != k; labels[keep]`).
    fn mask_test(&self, idx: &Expr, cx: &Ctx) -> Option<Expr> {
        match idx.bare() {
            Expr::Test(..) => Some(idx.clone()),
            Expr::Name(n) => Some(self.def(cx).last_assign(cx.at, n)?.1.clone()),
            _ => None,
        }
    }

    /// The constant `obj` is compared with by `test` (or the name it is assigned to) under the
    /// operator `want`.
    fn marker_tested(&mut self, obj: &Expr, test: &Expr, cx: &Ctx, want: &str) -> Option<i64> {
        let test = self.mask_test(test, cx)?;
        let Expr::Test(op, xs) = test.bare() else { return None };
        let other = match xs.as_slice() {
            [a, b] if &**op == want && same_place(a, obj) => b,
            [a, b] if &**op == want && same_place(b, obj) => a,
            _ => return None,
        };
        match self.aux_expr(other, cx, None) {
            Val::Int(r) if r.lo == r.hi => r.lo.and_then(|s| s.constant()),
            _ => None,
        }
    }

    /// What a project's own write left in the file a load reads (`arg`: the opened file, or the
    /// path itself when `by_path`): the value each `json.dump` / `pickle.dump` / `torch.save` /
    /// `np.save` of a file of the same name saved, traced where it was saved.
    fn saved(&mut self, arg: Option<&Expr>, by_path: bool, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
        let arg = arg?;
        let path = if by_path { self.path_text(arg, cx).or_else(|| self.opened_path(arg, cx)) } else { self.opened_path(arg, cx) };
        // a path taken from a listing of a directory (`self.files[i]` of `glob(join(root,
        // "*.npy"))`): every file the project writes under a name the listing takes
        let (name, listed) = match path {
            Some(path) => (path.rsplit('/').next().unwrap_or(&path).to_string(), None),
            None if by_path => {
                let l = self.listed(arg, cx, 0)?;
                (l.pattern.clone(), Some(l))
            }
            None => return None,
        };
        if name.is_empty() || cx.depth >= MAX_CALLS || self.loading.contains(&name) {
            return None;
        }
        self.loading.push(name.clone());
        // the folder the file is read from, where the path says it (`join(root, "labels", …)`):
        // a file of the same name written into another folder is another file
        let dir = self.folder_of(arg, cx);
        let out = match &listed {
            Some(l) => self.saved_as(&|w: &str| l.takes(w), dir.as_deref(), &name, cx, parent),
            None => self.saved_as(&|w: &str| file_name_fits(w, &name), dir.as_deref(), &name, cx, parent),
        };
        self.loading.pop();
        out
    }

    /// The names a path picked from a listing of a directory can have: `files[i]`, or a loop's
    /// file, where `files = sorted(glob(join(root, "*.npy")))` or `[f for f in os.listdir(d) if
    /// f.endswith(".json")]`, through names, fields of the instance and `sorted`/`list`.
    fn listed(&self, e: &Expr, cx: &Ctx, hops: usize) -> Option<Listing> {
        if hops > 8 {
            return None;
        }
        match e.bare() {
            Expr::Sub(base, _) => self.listed(base, cx, hops + 1),
            Expr::Name(n) => {
                let d = self.def(cx);
                let at = cx.at.min(d.stmts.len());
                // the last binding: an assignment, or the loop that walks a listing
                (0..at).rev().find_map(|i| match &d.stmts[i].kind {
                    StmtKind::Assign { targets, value, op: None } if targets.iter().any(|t| matches!(t, Expr::Name(x) if x == n)) => {
                        Some(self.listed(value, &Ctx { at: i, ..cx.clone() }, hops + 1))
                    }
                    StmtKind::For { target: Expr::Name(x), iter } if x == n => {
                        Some(self.listed(iter, &Ctx { at: i, ..cx.clone() }, hops + 1))
                    }
                    _ => None,
                })?
            }
            // a field of the instance: its stores in the class's methods
            Expr::Attr(o, a) if matches!(o.bare(), Expr::Name(s) if s == "self") => {
                let class = self.def(cx).class.clone()?;
                let mro = self.ix.mro(&class);
                self.ix.stores(a).iter().find_map(|&(def, at)| {
                    let d = self.ix.def(def);
                    if !d.class.as_ref().is_some_and(|c| mro.iter().any(|m| m == c)) {
                        return None;
                    }
                    let StmtKind::Assign { value, op: None, .. } = &d.stmts.get(at)?.kind else { return None };
                    self.listed(value, &Ctx { def, at, env: None, depth: cx.depth }, hops + 1)
                })
            }
            Expr::Call { func, args, .. } => match func.last_name()? {
                "sorted" | "list" | "tuple" => self.listed(args.first()?, cx, hops + 1),
                "glob" | "iglob" | "rglob" => {
                    let pat = self.path_text(args.first()?, cx)?;
                    let pat = pat.rsplit('/').next().unwrap_or(&pat).to_string();
                    pat.contains(['*', '?', '[']).then(|| Listing::new(pat))
                }
                "listdir" | "iterdir" | "scandir" => Some(Listing::new("*".to_string())),
                _ => None,
            },
            // `[f for f in listing if f.endswith(".npy")]`, `(os.path.join(d, f) for f in …)`
            Expr::Comp { gens, conds, .. } if gens.len() == 1 => {
                let (target, iter) = &gens[0];
                let mut l = self.listed(iter, cx, hops + 1)?;
                let var = target.dotted()?;
                for c in conds {
                    let (negated, test) = match c.bare() {
                        Expr::Unary(op, x) if &**op == "not" => (true, &**x),
                        other => (false, other),
                    };
                    if let Expr::Call { func, args, .. } = test.bare() {
                        let on_var =
                            matches!(func.bare(), Expr::Attr(o, m) if &**m == "endswith" && o.dotted().as_deref() == Some(var.as_str()));
                        if let (true, Some(Expr::Str(sfx))) = (on_var, args.first().map(Expr::bare)) {
                            if negated {
                                l.drop.push(sfx.to_string())
                            } else {
                                l.keep.push(sfx.to_string())
                            }
                        }
                    }
                }
                Some(l)
            }
            _ => None,
        }
    }

    /// The nodes from `from` on that trace a column of a stack (`np.stack([a, b, c], axis=1)`)
    /// other than the columns `taken`, and the nodes below them: auxiliary.
    fn columns_aside(&mut self, from: usize, taken: &[usize]) {
        let mut aside: Vec<usize> = Vec::new();
        for i in from..self.nodes.len() {
            let n = &self.nodes[i];
            let other_column = n
                .what
                .strip_prefix(COLUMN)
                .and_then(|r| r.trim_start().split(':').next())
                .and_then(|k| k.parse::<usize>().ok())
                .is_some_and(|k| !taken.contains(&k));
            if other_column || n.parent.is_some_and(|p| aside.binary_search(&p).is_ok()) {
                aside.push(i);
                self.nodes[i].aux = true;
            }
        }
    }

    /// `saved`, for the files whose written name `fits`.
    fn saved_as(&mut self, fits: &dyn Fn(&str) -> bool, dir: Option<&str>, name: &str, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
        let ix = self.ix;
        let mut out: Option<Val> = None;
        for writer in ["dump", "save", "savez", "savez_compressed"] {
            for &(def, at) in ix.calling(writer).iter().take(MAX_SITES) {
                let d = ix.def(def);
                let Some(StmtKind::Expr(Expr::Call { func, args, kwargs })) = d.stmts.get(at).map(|s| &s.kind) else { continue };
                let module = match func.bare() {
                    Expr::Attr(o, m) if m.as_str() == writer => o.dotted().unwrap_or_default(),
                    _ => continue,
                };
                let c = Ctx { def, at, env: None, depth: cx.depth + 1 };
                // which argument is the value (none for an archive of several), which the file
                let (obj, file, file_by_path) = match (writer, module.as_str()) {
                    ("dump", "json" | "pickle" | "yaml") => (args.first(), args.get(1), false),
                    ("dump", "joblib") | ("save", "torch") => (args.first(), args.get(1), true),
                    ("save", "np" | "numpy") => (args.get(1), args.first(), true),
                    ("savez" | "savez_compressed", "np" | "numpy") => (None, args.first(), true),
                    _ => continue,
                };
                let Some(file) = file else { continue };
                let written_in = |t: &Self, c: &Ctx| {
                    if file_by_path {
                        t.path_text(file, c).or_else(|| t.opened_path(file, c))
                    } else {
                        t.opened_path(file, c)
                    }
                };
                for c in self.write_sites(def, at, &c, &|t: &Self, c: &Ctx| written_in(t, c).is_some()) {
                    let written = written_in(self, &c);
                    let elsewhere = dir.is_some_and(|dir| self.folder_of(file, &c).is_some_and(|d| d != dir));
                    if !written.as_deref().is_some_and(|w| fits(w.rsplit('/').next().unwrap_or(w))) || elsewhere {
                        continue;
                    }
                    let v = self.saved_value(obj, args, kwargs, &c, at, name, parent);
                    out = Some(match out {
                        Some(o) => o.join(&v),
                        None => v,
                    });
                }
            }
        }
        out
    }

    /// The places a write at `at` of `def` (reached at `c`) writes from: there, or, when it
    /// does not name its file there (`placed` is false), each call of the project's own helper
    /// it is in (`save_json(obj, path)`), its arguments in place of the parameters.
    fn write_sites(&self, def: DefId, at: usize, c: &Ctx, placed: &dyn Fn(&Self, &Ctx) -> bool) -> Vec<Ctx> {
        if placed(self, c) || c.depth >= MAX_CALLS {
            return vec![c.clone()];
        }
        self.ix
            .call_sites(self.ix.def(def), def, MAX_SITES)
            .into_iter()
            .map(|site| {
                let caller = Ctx { def: site.at.0, at: site.at.1, env: None, depth: c.depth };
                let env = Env { args: site.args, kwargs: site.kwargs, caller: Some(caller), vals: Vec::new(), recv: None };
                Ctx { def, at, env: Some(Rc::new(env)), depth: c.depth + 1 }
            })
            .collect()
    }

    /// What one write saved (`obj`: the value written; none for an archive of several).
    #[allow(clippy::too_many_arguments)]
    fn saved_value(
        &mut self,
        obj: Option<&Expr>,
        args: &[Expr],
        kwargs: &[(Text, Expr)],
        c: &Ctx,
        at: usize,
        name: &str,
        parent: Option<usize>,
    ) -> Val {
        match obj {
            Some(obj) => {
                let node = self.node(c, at, Tag::Pass, format!("saves `{}` to `{name}`{READ_BACK}", short(obj)), parent);
                let v = self.expr(obj, c, node);
                self.finish(node, &v);
                v
            }
            // `np.savez(path, sp=sp, fam=fam)`: an archive of named arrays (the
            // positional ones named `arr_0`, `arr_1`, … as numpy names them), each
            // traced when a load reads it by its name
            None => {
                let names: Vec<String> = (1..args.len()).map(|i| format!("arr_{}", i - 1)).collect();
                let parts: Vec<(&str, &Expr)> =
                    names.iter().map(String::as_str).zip(&args[1..]).chain(kwargs.iter().map(|(k, e)| (&**k, e))).collect();
                let shown = parts.iter().map(|(k, _)| *k).collect::<Vec<_>>().join("`, `");
                let node = self.node(c, at, Tag::Pass, format!("saves `{shown}` to `{name}`{READ_BACK}"), parent);
                Val::Record(parts.iter().map(|(k, e)| (k.to_string(), self.defer(e, c, node))).collect())
            }
        }
    }

    /// The folder a file is in where its path says it (`file`, a path or an opened file).
    fn folder_of(&self, file: &Expr, cx: &Ctx) -> Option<String> {
        match self.opened(file, cx) {
            Some(p) => self.path_dir(&p, cx),
            None => self.path_dir(file, cx),
        }
    }

    /// The folder a path names last before its file name, when it is written out:
    /// `join(root, "labels", name)`, `root / "labels" / name`, `f"{root}/labels/{name}"` is not.
    fn path_dir(&self, e: &Expr, cx: &Ctx) -> Option<String> {
        let literal = |x: &Expr| match x.bare() {
            Expr::Str(s) if !s.contains(['{', '%']) => Some(s.trim_matches('/').rsplit('/').next().unwrap_or("").to_string()),
            _ => None,
        };
        match e.bare() {
            Expr::Call { func, args, .. } if func.last_name().is_some_and(|n| n == "join") && args.len() >= 2 => {
                literal(&args[args.len() - 2]).filter(|d| !d.is_empty())
            }
            Expr::Bin(op, l, _) if op == "/" => match l.bare() {
                Expr::Bin(op2, _, ll) if op2 == "/" => literal(ll).filter(|d| !d.is_empty()),
                // a folder held by a name (`PREP_DIR / "meta.json"`, `PREP_DIR = ROOT / "prepared"`)
                Expr::Name(_) => self.dir_name(l, cx, 0).filter(|d| !d.contains('.')),
                other => literal(other).filter(|d| !d.is_empty() && !d.contains('.')),
            },
            Expr::Name(n) => match self.def(cx).last_assign(cx.at, n) {
                Some((i, v)) => self.path_dir(v, &Ctx { at: i, ..cx.clone() }),
                // a parameter of the call being traced: the path its caller passed
                None => {
                    let (arg, caller) = self.param_passed(n, cx)?;
                    self.path_dir(&arg, &caller)
                }
            },
            _ => None,
        }
    }

    /// The argument the call being traced passes as parameter `n`, and where it is evaluated,
    /// when the arguments are still expressions of the caller.
    fn param_passed(&self, n: &str, cx: &Ctx) -> Option<(Expr, Ctx)> {
        let env = cx.env.as_ref()?;
        let caller = env.caller.as_ref()?;
        let d = self.def(cx);
        let pi = d.param_index(n).filter(|&pi| !d.params[pi].star)?;
        let arg = given(&env.args, &env.kwargs, &d.params[pi].name, pi, usize::from(d.is_method()))?;
        Some((arg, caller.clone()))
    }

    /// The last part of a folder a name holds where it is written out: a local or a module's
    /// constant assigned `ROOT / "prepared"`, `os.path.join(root, "prepared")` or
    /// `"data/prepared"`.
    fn dir_name(&self, e: &Expr, cx: &Ctx, hops: usize) -> Option<String> {
        if hops > 4 {
            return None;
        }
        match e.bare() {
            Expr::Str(s) if !s.contains(['{', '%']) => {
                Some(s.trim_matches('/').rsplit('/').next().unwrap_or("").to_string()).filter(|d| !d.is_empty())
            }
            Expr::Bin(op, _, r) if op == "/" => self.dir_name(r, cx, hops + 1),
            Expr::Call { func, args, .. } if func.last_name().is_some_and(|n| n == "join" || n == "Path") => {
                self.dir_name(args.last()?, cx, hops + 1)
            }
            Expr::Name(n) => {
                if let Some((i, v)) = self.def(cx).last_assign(cx.at, n) {
                    return self.dir_name(v, &Ctx { at: i, ..cx.clone() }, hops + 1);
                }
                let &(gid, gi) = self.ix.globals(n).iter().find(|(id, _)| id.0 == cx.def.0).or(self.ix.globals(n).first())?;
                match &self.ix.def(gid).stmts[gi].kind {
                    StmtKind::Assign { value, .. } => self.dir_name(value, &Ctx { def: gid, at: gi, env: None, depth: cx.depth }, hops + 1),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The file name a path expression ends in: a literal, `os.path.join(…, "train.csv")`,
    /// `Path(…) / "train.csv"`, an f-string's literal end.
    fn path_text(&self, e: &Expr, cx: &Ctx) -> Option<String> {
        match e.bare() {
            Expr::Str(s) => Some(s.to_string()),
            Expr::Call { func, args, .. } if func.last_name().is_some_and(|n| n == "join" || n == "Path") => {
                args.last().and_then(|a| self.path_text(a, cx))
            }
            // a helper that places a file name (`cfg.path("meta.json")`): the name
            Expr::Call { args, .. } if args.last().is_some_and(|a| matches!(a.bare(), Expr::Str(s) if s.contains('.'))) => {
                args.last().and_then(|a| self.path_text(a, cx))
            }
            // `dir / "x.json"`, `root + "/x.json"`: the name is in the right part
            Expr::Bin(op, _, r) if op == "/" || op == "+" => self.path_text(r, cx),
            // a name formatted per split or run (`"%s.json" % name`): the template
            Expr::Bin(op, l, _) if op == "%" => self.path_text(l, cx),
            // a parameter of the call being traced: the path its caller passed
            Expr::Name(n) if self.def(cx).last_assign(cx.at, n).is_none() => {
                self.passed_path(n, cx).or_else(|| self.string_of(e, cx, 0).map(|s| s.to_string()))
            }
            // a name the function assigned a path it builds (`path = os.path.join(out, "rows.json")`)
            Expr::Name(n) => self.string_of(e, cx, 0).map(|s| s.to_string()).or_else(|| {
                let (i, v) = self.def(cx).last_assign(cx.at, n).filter(|(_, v)| !matches!(v.bare(), Expr::Name(_)))?;
                self.path_text(v, &Ctx { at: i, ..cx.clone() })
            }),
            Expr::Attr(..) | Expr::Sub(..) => self.string_of(e, cx, 0).map(|s| s.to_string()),
            _ => None,
        }
    }

    /// The path the call being traced passes as parameter `n` (`load_split("train.json")`
    /// reached from that call), when the arguments are still expressions of the caller.
    fn passed_path(&self, n: &str, cx: &Ctx) -> Option<String> {
        let (arg, caller) = self.param_passed(n, cx)?;
        self.path_text(&arg, &caller)
    }

    /// The data or config file the scan read that a path names (by its last part).
    fn data_file(&self, p: &str) -> Option<usize> {
        let name = p.rsplit('/').next().unwrap_or(p);
        let data = |f: &FileFacts| !f.columns.is_empty() || f.is_config();
        self.ix.files.iter().position(|f| data(f) && (f.path == p || f.path == name || f.path.ends_with(&format!("/{name}"))))
    }

    /// The node of a line that takes the marker `k` out of what it selects from or fills: the
    /// passing line's own, else one of its own (where the parent is the op's call or another
    /// line's transform), on the chain of that value and marked as taking the marker out.
    fn narrow_under(&mut self, cx: &Ctx, parent: Option<usize>, k: i64) -> Option<usize> {
        let under = self.narrowing_node(cx, parent, String::new());
        self.mark(under, Tag::Narrow, format!("{MASKS_OUT} {k}"));
        under
    }

    /// The node of a line that may narrow the value: the passing line's own, else one of its
    /// own saying `what`.
    fn narrowing_node(&mut self, cx: &Ctx, parent: Option<usize>, what: String) -> Option<usize> {
        match parent {
            Some(p) if matches!(self.nodes[p].tag, Tag::Pass | Tag::Lookup) => parent,
            _ => self.node(cx, cx.at, Tag::Pass, what, parent),
        }
    }

    /// Whether `e` is a name for a draw of positions (`choice = np.random.choice(len(x), n)`).
    fn drawn_positions(&self, e: &Expr, cx: &Ctx) -> bool {
        matches!(e.bare(), Expr::Name(n) if self.def(cx).last_assign(cx.at, n).is_some_and(|(_, v)| positions_call(v)))
    }

    fn subscript(&mut self, obj: &Expr, idx: &Expr, cx: &Ctx, parent: Option<usize>) -> Val {
        // `labels[labels != ignore]` (or through a name: `keep = labels != ignore;
        // labels[keep]`): the marker is selected out
        // (`ids[ids >= 0]`: a negative marker, whichever the value holds, is selected out)
        let named = self.masked_out(obj, idx, cx);
        if named.is_some() || self.kept_nonnegative(obj, idx, cx) {
            let under = match named {
                Some(k) => self.narrow_under(cx, parent, k),
                None => self.narrowing_node(cx, parent, format!("keeps the cells of `{}` that are not negative", short(obj))),
            };
            let v = self.expr(obj, cx, under);
            let v = self.force(v);
            let k = named.or_else(|| {
                let k = low_marker(&v).filter(|&k| k < 0)?;
                self.mark(under, Tag::Narrow, format!("{MASKS_OUT} {k}"));
                Some(k)
            });
            let kept = match k {
                Some(k) => without_marker(&v, k),
                None => v,
            };
            if under != parent {
                self.finish(under, &kept);
            }
            return kept;
        }
        let key = if matches!(idx, Expr::Name(_) | Expr::Attr(..)) { self.string_of(idx, cx, 0).map(Expr::Str) } else { None };
        let idx = key.as_ref().unwrap_or(idx);
        if let Expr::Str(key) = idx {
            // a column or key stored in this function before (`df["y"] = …`, `row["label"] = …`)
            if let Some(n) = obj.dotted() {
                let d = self.def(cx);
                let at = cx.at.min(d.stmts.len());
                let store = (0..at).rev().find_map(|i| match &d.stmts[i].kind {
                    StmtKind::Assign { targets, value, op: None }
                        if targets.iter().any(|t| matches!(t, Expr::Sub(b, k) if b.dotted().as_deref() == Some(n.as_str()) && matches!(&**k, Expr::Str(x) if x == key))) =>
                    {
                        Some((i, value))
                    }
                    _ => None,
                });
                if let Some((i, value)) = store {
                    let c = Ctx { at: i, ..cx.clone() };
                    let node = self.node(&c, i, Tag::Pass, format!("sets `{n}[{key:?}]`"), parent);
                    let v = self.expr(value, &c, node);
                    self.classify(node, value, None, &v);
                    self.finish(node, &v);
                    return v;
                }
            }
            // a literal key of a dict written out in this function or its module, that nothing
            // in the file writes into (`SETTINGS = {"span": 24, …}` … `SETTINGS["span"]`)
            if let Expr::Name(n) = obj.bare() {
                if let Some((c, si, value)) = self.literal_entry(cx, n, key) {
                    let node = self.node(&c, si, Tag::Pass, format!("sets `{n}[{key:?}]`"), parent);
                    let v = self.expr(&value, &c, node);
                    self.classify(node, &value, None, &v);
                    self.finish(node, &v);
                    return v;
                }
            }
            let base = self.expr(obj, cx, parent);
            if let Val::Table(file) = &base {
                if let Some(v) = self.column_in(key, *file, cx, parent) {
                    return v;
                }
                // read as it is from data the project does not hold: the line that takes it is
                // where its range (ids from 1, gaps) would have to be mapped
                let v = Val::unknown(format!("column `{key}` {UNREAD_TABLE}"));
                self.unread_column(key, cx, parent, &v);
                return v;
            }
            if let Some(v) = base.field(key) {
                return self.force(v);
            }
            if let Val::Obj(o) = &base {
                if let Some(v) = self.field(&o.clone(), key, cx, parent) {
                    return v;
                }
            }
            if let Some(v) = self.column(key, cx, parent) {
                return v;
            }
            return self.named_setting(key, cx, parent).unwrap_or(Val::unknown(format!("`[{key:?}]` of {}", base.describe())));
        }
        if let (Expr::Attr(t, a), Some(k)) = (obj.bare(), int_literal(idx)) {
            if &**a == "shape" {
                return self.dim_size(t, k, cx, parent);
            }
        }
        if let Expr::Span(lo, hi) = idx.bare() {
            let base = self.expr(obj, cx, parent);
            return self.sliced(base, lo.as_deref(), hi.as_deref(), cx, parent);
        }
        // `df[["src", "dst"]]`: the cells of those columns
        if let Expr::Seq(SeqKind::List, keys) = idx.bare() {
            let names: Vec<String> =
                keys.iter().filter_map(|k| if let Expr::Str(s) = k.bare() { Some(s.to_string()) } else { None }).collect();
            if !names.is_empty() && names.len() == keys.len() {
                let keep = self.nodes.len();
                let base = self.expr(obj, cx, parent);
                if let Val::Table(file) = base {
                    let mut out: Option<Val> = None;
                    for n in &names {
                        if let Some(v) = self.column_in(n, file, cx, parent) {
                            join_into(&mut out, v);
                        }
                    }
                    return out.unwrap_or_else(|| {
                        let all = names.join("`, `");
                        let v = Val::unknown(format!("columns `{all}` of a table the scan did not read"));
                        self.unread_column(&all, cx, parent, &v);
                        v
                    });
                }
                self.cut(keep);
            }
        }
        // `xs[idx]` with an array of positions or a mask (`windows[perm[:n]]`, `x[x > 0]`):
        // some of xs's elements, in a container of the same depth
        let positions = match idx.bare() {
            Expr::Sub(_, i) => matches!(i.bare(), Expr::Span(..)),
            Expr::Call { .. } => positions_call(idx),
            _ => false,
        };
        // a name for a draw of positions (`x[choice]`)
        let drawn = self.drawn_positions(idx, cx);
        let positions = positions || drawn;
        let mask = matches!(idx.bare(), Expr::Test(..)) || drawn;
        if positions || mask {
            let keep = self.nodes.len();
            let index = self.aux_expr(idx, cx, parent);
            if mask || matches!(index, Val::Seq { .. }) {
                if let Val::Seq { elem, len, most } = self.expr(obj, cx, parent) {
                    return if mask {
                        Val::Seq { elem, len: None, most: len.or(most) }
                    } else {
                        Val::Seq { elem, len: index.len(), most: if index.len().is_some() { None } else { index.most() } }
                    };
                }
            }
            self.cut(keep);
        }
        // `xs[i]`: an element of xs (a tuple index `x[:, 0]` is taken as the same dimensions)
        let before_base = self.nodes.len();
        let base = if matches!(idx.bare(), Expr::Seq(SeqKind::Tuple, _)) {
            self.expr(obj, cx, parent)
        } else {
            self.in_iter(|tr| tr.expr(obj, cx, parent))
        };
        let index = self.aux_expr(idx, cx, parent);
        // a column of rows built side by side (`scan[:, 4]`, `scan[:, :3]`): that part
        if let (Val::Seq { elem, len, most }, Expr::Seq(SeqKind::Tuple, ix2)) = (&base, idx.bare()) {
            if let (Val::Tuple(cols), [rows, col]) = (&**elem, ix2.as_slice()) {
                // (all rows, or some picked by positions: `scan[choice, 3:4]`)
                let some_rows = match rows.bare() {
                    Expr::Slice | Expr::Span(..) | Expr::Test(..) => true,
                    Expr::Call { .. } => positions_call(rows),
                    _ => self.drawn_positions(rows, cx),
                };
                if some_rows {
                    // the columns picked, once: a span's, or one column's
                    let n = cols.len() as i64;
                    let at = |e: &Option<Box<Expr>>, or: i64| match e {
                        None => Some(or),
                        Some(x) => int_literal(x).map(|k| if k < 0 { n + k } else { k }),
                    };
                    let (taken, single) = match col.bare() {
                        Expr::Span(lo, hi) => (at(lo, 0).zip(at(hi, n)).filter(|&(a, b)| 0 <= a && a <= b && b <= n), false),
                        c => (int_literal(c).map(|k| if k < 0 { n + k } else { k }).filter(|&k| 0 <= k && k < n).map(|k| (k, k + 1)), true),
                    };
                    let taken: Option<Vec<usize>> = taken.map(|(a, b)| (a as usize..b as usize).collect());
                    let picked = taken.as_ref().map(|t| {
                        if single {
                            cols[t[0]].clone()
                        } else {
                            Val::Tuple(t.iter().map(|&k| cols[k].clone()).collect())
                        }
                    });
                    if let (Some(p), Some(taken)) = (picked, taken) {
                        // the other columns' lines made nothing that reaches here: off the chain
                        self.columns_aside(before_base, &taken);
                        return Val::Seq { elem: Box::new(p), len: len.clone(), most: most.clone() };
                    }
                }
            }
        }
        // one column of rows written as lists (`[[user, item] for c in clicks]`, `pairs[:, 1]`):
        // the rows' cells, not a row
        if let (Val::Seq { elem, len, most }, Expr::Seq(SeqKind::Tuple, ix2)) = (&base, idx.bare()) {
            if let (Val::Seq { elem: cell, .. }, [rows, col]) = (&**elem, ix2.as_slice()) {
                if matches!(rows.bare(), Expr::Slice | Expr::Span(None, None)) && int_literal(col).is_some() {
                    return Val::Seq { elem: cell.clone(), len: len.clone(), most: most.clone() };
                }
            }
        }
        match (&base, idx) {
            // a slice of a tensor or list keeps its values
            (_, Expr::Slice) | (_, Expr::Seq(SeqKind::Tuple, _)) => base,
            (Val::Map { val, .. }, _) => {
                if let Some(p) = parent {
                    if matches!(self.nodes[p].tag, Tag::Pass) {
                        self.nodes[p].tag = Tag::Lookup;
                        self.nodes[p].what = format!("looks `{}` up in `{}`", short(idx), short(obj));
                    }
                }
                (**val).clone()
            }
            (Val::Tuple(xs), _) => match &index {
                Val::Int(r) if r.lo == r.hi => {
                    let k = r.lo.as_ref().and_then(|s| s.constant()).unwrap_or(0);
                    let k = if k < 0 { xs.len() as i64 + k } else { k };
                    let x = xs.get(k as usize).cloned().unwrap_or(Val::unknown("tuple index"));
                    self.force(x)
                }
                _ => {
                    let x = base.element();
                    self.force(x)
                }
            },
            (Val::Obj(o), _) => {
                let o = o.clone();
                let v = self.dataset_item(o, parent);
                self.force(v)
            }
            _ => {
                let x = base.element();
                self.force(x)
            }
        }
    }

    /// A data column read by name (`df["label"]`, `row["label"]`) from a data file the scan read.
    fn column(&mut self, name: &str, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
        self.column_in(name, None, cx, parent)
    }

    /// A column of a table whose file the scan has not read: its reading, tagged as an origin.
    fn unread_column(&mut self, name: &str, cx: &Ctx, parent: Option<usize>, v: &Val) {
        self.column_node(name, format!("reads column `{name}` as it is {UNREAD_COLUMN}"), cx, parent, v);
    }

    /// The node of a column's reading: the passing line that reads it, else one of its own.
    fn column_node(&mut self, name: &str, what: String, cx: &Ctx, parent: Option<usize>, v: &Val) {
        // (read on the side, a key looked up or an index taken, the column is not what the
        // passing line passes on: it gets a node of its own, auxiliary)
        let node = if self.aux == 0 && parent.is_some_and(|p| matches!(self.nodes[p].tag, Tag::Pass)) {
            parent
        } else {
            let d = self.def(cx);
            let stmt = cx.at.min(d.stmts.len().saturating_sub(1));
            self.node(cx, stmt, Tag::Pass, String::new(), parent)
        };
        self.retag(node, Tag::Column(name.to_string()), what);
        self.finish(node, v);
    }

    /// `column`, from one file when the table's file is known.
    fn column_in(&mut self, name: &str, file: Option<usize>, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
        let cols = self.ix.columns(name);
        let (fi, c) = cols.iter().find(|(fi, _)| file.is_none_or_eq(*fi)).copied()?;
        let range = if c.text { Range::default() } else { Range { lo: Some(Sym::num(c.min)), hi: Some(Sym::num(c.max)) } };
        let v = Val::Column { range, rows: c.rows as i64, distinct: c.distinct as i64 };
        let what = if c.text {
            format!("reads column `{name}` of {} ({} {TEXT_COLUMN}", self.ix.files[fi].path, c.distinct)
        } else {
            let from_one = if c.min == 1 && c.max == c.distinct as i64 && c.distinct > 1 { format!(", {FROM_ONE}") } else { String::new() };
            format!("reads column `{name}` of {} ({}..={}, {} distinct{from_one})", self.ix.files[fi].path, c.min, c.max, c.distinct)
        };
        self.column_node(name, what, cx, parent, &v);
        // the element of a row is the same as of the column
        Some(v)
    }

    fn call(&mut self, func: &Expr, args: &[Expr], kwargs: &[(Text, Expr)], cx: &Ctx, parent: Option<usize>) -> Val {
        let name = func.last_name().unwrap_or("").to_string();
        let kw = |k: &str| kwargs.iter().find(|(n, _)| n == k).map(|(_, e)| e);
        let recv = match func {
            Expr::Attr(o, _) => Some(&**o),
            _ => None,
        };
        // methods on a value: pass-through, narrowing, normalization
        // `self.head(x)` calls a module, `df.head()` keeps a table's values
        let on_self = recv.is_some_and(
            |r| matches!(r.bare(), Expr::Name(n) if self.def(cx).is_method() && self.def(cx).params.first().is_some_and(|p| p.name == *n)),
        );
        // a project module's function called through the module (`P.codes(rows)`) is not a
        // method of a value
        let of_module = recv.and_then(|r| r.dotted()).and_then(|m| self.module_function(cx.def.0, &m, &name));
        // `unique(…, return_inverse=True, return_counts=True)`: the values, then positions into
        // them and counts, never negative whatever the values are
        let flag = |k: &str| kwargs.iter().any(|(n, v)| n == k && matches!(v.bare(), Expr::Const(c) if c == "True"));
        if matches!(name.as_str(), "unique" | "unique_consecutive") && (flag("return_inverse") || flag("return_counts")) {
            // the values' own lines are not on the positions' chain
            let of = recv.or(args.first()).map(|a| self.aux_expr(a, cx, parent)).unwrap_or(Val::unknown("unique"));
            let positions = Val::Seq { elem: Box::new(Val::Int(Range { lo: Some(Sym::num(0)), hi: None })), len: None, most: None };
            let mut parts = vec![Val::Seq { elem: Box::new(of.element()), len: None, most: None }];
            for k in ["return_inverse", "return_counts"] {
                if flag(k) {
                    parts.push(positions.clone());
                }
            }
            return Val::Tuple(parts);
        }
        // a project class's own method of a library name (`buffer.sample(n)`) is called, not
        // modelled as the library's
        let own_method = !on_self && of_module.is_none() && recv.is_some_and(|r| self.project_method_on(r, &name, cx));
        if let Some(r) = recv.filter(|_| !on_self && of_module.is_none() && !own_method) {
            // an option of a section of an INI file (`cp.getint("model", "n_classes")`,
            // `cp.get("data", "root")`) that a settings file sets: the line that sets it
            if matches!(name.as_str(), "get" | "getint" | "getfloat" | "getboolean") {
                if let (Some(Expr::Str(section)), Some(Expr::Str(option))) = (args.first().map(Expr::bare), args.get(1).map(Expr::bare)) {
                    if let Some(v) = self.config_key_at(option, Some(section), parent) {
                        return v;
                    }
                }
            }
            match name.as_str() {
                // `np.ascontiguousarray(x)`, `torch.flatten(x)`: the library's function takes the
                // value first; `x.flatten()` is a method of it
                m if is_pass_method(m) => {
                    let of = subject(r, args);
                    let v = self.expr(of, cx, parent);
                    // a cast to unsigned bytes wraps a negative marker (`labels.astype(np.uint8)`:
                    // -1 becomes 255, which `ignore_index=-1` no longer matches)
                    let to_bytes = m == "byte"
                        || matches!(m, "astype" | "to" | "type") && args.iter().chain(kwargs.iter().map(|(_, e)| e)).any(names_uint8);
                    if !to_bytes {
                        return v;
                    }
                    let v = self.force(v);
                    let Some((k, w)) = wrapped_marker(&v) else { return v };
                    self.mark(parent, Tag::Sentinel(w), format!("casts to unsigned bytes: the marker {k} becomes {w}"));
                    return with_ints(v, &Range { lo: Some(Sym::num(0)), hi: Some(Sym::num(255)) });
                }
                // `np.clip(x, lo, hi)` / `torch.clamp(x, min=…)`: the library's function takes
                // the value first; `x.clamp(lo, hi)` is a method of it
                "clamp" | "clip" | "clamp_" | "clip_" => {
                    return self.clamp_call((!is_module(r)).then_some(r), args, kwargs, cx, parent);
                }
                "softmax" | "sigmoid" | "sigmoid_" => return Val::Float(Some(Norm::Probs)),
                f if signed_unit(f) => return self.signed_unit(f, parent),
                "exp" | "expm1" | "exp2" | "exp_" | "logsumexp" => {
                    // `torch.exp(x)` takes the value first, `x.exp()` is a method of it
                    let of = subject(r, args);
                    return self.exponential(of, cx, parent);
                }
                // `csv.reader(f)`: the rows the project wrote into the file
                "reader" if r.dotted().as_deref() == Some("csv") => {
                    if let Some(v) = args.first().and_then(|a| self.written_lines(a, false, cx, parent)) {
                        return v;
                    }
                }
                // the lines of a file the project writes as text (`f.read().split("\n")`,
                // `f.readlines()`): the lines it wrote; another file's text is not modelled
                "read" | "readlines" | "readline" if self.opened(r, cx).is_some() => {
                    let v = self.expr(r, cx, parent);
                    return match v {
                        Val::Seq { .. } if name == "readline" => v.element(),
                        Val::Seq { .. } => v,
                        _ => Val::unknown(format!("no model for `{}`", func.dotted().unwrap_or(name))),
                    };
                }
                "splitlines" if matches!(r.bare(), Expr::Call { func, .. } if func.last_name() == Some("read")) => {
                    let v = self.expr(r, cx, parent);
                    if matches!(v, Val::Seq { .. }) {
                        return v;
                    }
                    return Val::unknown(format!("no model for `{}`", func.dotted().unwrap_or(name)));
                }
                "map" | "apply" | "replace" => {
                    let base = self.expr(r, cx, parent);
                    let f = args.first().cloned().unwrap_or(Expr::Slice);
                    return self.mapped(&base, &f, cx, parent);
                }
                // a record's field taken out (`labels = inputs.pop("labels")`)
                "pop" if args.first().is_some_and(|a| matches!(a.bare(), Expr::Str(_))) => {
                    let Some(Expr::Str(k)) = args.first().map(Expr::bare) else { unreachable!() };
                    let base = self.expr(r, cx, parent);
                    if let Some(v) = base.field(k) {
                        return self.force(v);
                    }
                    return Val::unknown(format!("`.pop({k:?})` of {}", base.describe()));
                }
                "get" => {
                    let base = self.expr(r, cx, parent);
                    // a record's field by name (`meta.get("ignore_index", 255)` of a JSON file
                    // the project wrote): the default is only for a key the record lacks
                    if let Some(Expr::Str(k)) = args.first().map(Expr::bare) {
                        if let Some(v) = base.field(k) {
                            return self.force(v);
                        }
                    }
                    // (a dict's value for the key; iterating it would give its keys)
                    let v = match base {
                        Val::Map { val, .. } => *val,
                        other => other.element(),
                    };
                    if let Some(d) = args.get(1) {
                        let dv = self.expr(d, cx, parent);
                        // an empty default (`raw.get("model", {})`) only says the key may be
                        // missing: where the value is not known, nothing is
                        let empty = |z: &Option<Sym>| z.as_ref().and_then(|z| z.constant()) == Some(0);
                        let nothing = match &dv {
                            Val::Map { len, .. } | Val::Seq { len, .. } => empty(len),
                            Val::Record(fs) => fs.is_empty(),
                            _ => false,
                        };
                        if nothing && matches!(v, Val::Unknown(_)) {
                            return v;
                        }
                        // a pair of ids or its default pair (`lookup.get(sku, (-1, -1))`): each
                        // position beside its default
                        if let (Val::Tuple(xs), Val::Tuple(ds)) = (&v, &dv) {
                            if xs.len() == ds.len() {
                                let mut parts = Vec::with_capacity(xs.len());
                                for (x, d) in xs.clone().into_iter().zip(ds.clone()) {
                                    let (x, d) = (self.force(x), self.force(d));
                                    self.sentinel_check(&x, &d, parent);
                                    parts.push(x.join(&d));
                                }
                                return Val::Tuple(parts);
                            }
                        }
                        self.sentinel_check(&v, &dv, parent);
                        return v.join(&dv);
                    }
                    return v;
                }
                // a fill: the value where it was missing (or masked) joins in (`.map(m).fillna(-1)`,
                // `x.masked_fill(pad, -100)`)
                "fillna" | "masked_fill" | "masked_fill_" => {
                    let fill = if name == "fillna" { args.first().or(kw("value")) } else { args.get(1).or(kw("value")) };
                    // the marker's own places filled (`t.masked_fill(~(t != k), 0)`, `t ==
                    // k`): the marker is gone, the fill is in its place
                    let replaced = match (name.as_str(), args.first().map(Expr::bare)) {
                        ("fillna", _) | (_, None) => None,
                        (_, Some(Expr::Unary(op, inner))) if &**op == "~" => self.masked_out(r, inner, cx),
                        (_, Some(m)) => self.masked_out_eq(r, m, cx),
                    };
                    if let Some(k) = replaced {
                        let under = self.narrow_under(cx, parent, k);
                        let base = self.expr(r, cx, under);
                        let kept = without_marker(&self.force(base), k);
                        let fv = fill.map(|f| self.aux_expr(f, cx, parent)).unwrap_or(Val::unknown("fill"));
                        let v = join_cells(&kept, &fv);
                        if under != parent {
                            self.finish(under, &v);
                        }
                        return v;
                    }
                    let base = self.expr(r, cx, parent);
                    if let Some(f) = fill {
                        let fv = self.expr(f, cx, parent);
                        if let Val::Int(_) = fv {
                            self.sentinel_check(&base, &fv, parent);
                            return match (&base, &fv) {
                                (Val::Int(_), _) => base.join(&fv),
                                (Val::Seq { elem, len, most }, Val::Int(_)) if matches!(**elem, Val::Int(_)) => {
                                    Val::Seq { elem: Box::new(elem.join(&fv)), len: len.clone(), most: most.clone() }
                                }
                                _ => fv,
                            };
                        }
                    }
                    return base;
                }
                "index" => {
                    let base = self.expr(r, cx, parent);
                    // a position in a string written out (`RANKS = "23456789TJQKA"`,
                    // `RANKS.index(card[0])`): below its length
                    if let Some(n) = self.literal_text(r, cx) {
                        return Val::Int(Range { lo: Some(Sym::num(0)), hi: Some(Sym::num(n as i64 - 1)) });
                    }
                    return match base.len() {
                        Some(l) => Val::Int(Range { lo: Some(Sym::num(0)), hi: Some(l.plus(-1)) }),
                        None => Val::Int(Range { lo: Some(Sym::num(0)), hi: None }),
                    };
                }
                "keys" => {
                    let base = self.expr(r, cx, parent);
                    return match base {
                        Val::Map { key, len, .. } => Val::Seq { elem: key, len, most: None },
                        other => other,
                    };
                }
                "items" => {
                    let base = self.expr(r, cx, parent);
                    return match base {
                        Val::Map { key, val, len } => Val::Seq { elem: Box::new(Val::Tuple(vec![*key, *val])), len, most: None },
                        other => other,
                    };
                }
                // a product of probabilities along a dimension (`torch.prod(1 - h, dim=1)`, the
                // chance that none happens) is a probability; of anything else, scores
                "prod" | "cumprod" => {
                    let base = self.expr(subject(r, args), cx, parent);
                    return match base.element_deep() {
                        Val::Float(Some(Norm::Probs)) => Val::Float(Some(Norm::Probs)),
                        Val::Float(_) => Val::Float(Some(Norm::Raw)),
                        _ => Val::unknown(format!("a product made by `{name}`")),
                    };
                }
                // `out.index_add_(0, index, src)`, `torch.scatter_add(out, 0, index, src)`: the
                // source's values added into shared slots
                "index_add" | "index_add_" | "scatter_add" | "scatter_add_" => {
                    let function = Some(r).is_none_or_module();
                    let at = if function { 3 } else { 2 };
                    let Some(src) = args.get(at).or(kw("source")).or(kw("src")) else {
                        return Val::unknown(format!("`{name}`"));
                    };
                    if !function {
                        self.aux_expr(r, cx, parent);
                    }
                    let v = self.expr(src, cx, parent);
                    return match v.element_deep() {
                        Val::Float(norm) => {
                            if matches!(norm, Some(Norm::Probs)) {
                                self.summed(src, &name, cx, parent);
                            }
                            Val::Float(Some(Norm::Raw))
                        }
                        _ => Val::unknown(format!("a total made by `{name}`")),
                    };
                }
                "sum" | "cumsum" | "count_nonzero" if matches!(r.bare(), Expr::Test(..)) || name == "cumsum" => {
                    // a count of positions (`(ids != pad).sum(1)`) or a running count: lengths
                    self.aux_expr(r, cx, parent);
                    self.mark(
                        parent,
                        if name == "cumsum" { Tag::Len(Length::Running) } else { Tag::Len(Length::Counted) },
                        format!("counts (`{name}`): a length, one past the last position"),
                    );
                    return Val::Int(Range { lo: Some(Sym::num(0)), hi: None });
                }
                "size" | "__len__" if args.len() <= 1 => {
                    let dim = match args.first() {
                        None => 0,
                        Some(a) => match int_literal(a) {
                            Some(k) => k,
                            None => return Val::unknown("the size of a dimension not written as a number"),
                        },
                    };
                    if name == "size" && args.is_empty() {
                        return Val::unknown("a tensor's shape");
                    }
                    return self.dim_size(r, dim, cx, parent);
                }
                // `pairs.t()`: a list of (a, b) rows becomes the rows a and b
                "t" if args.is_empty() => {
                    let base = self.expr(r, cx, parent);
                    return transposed(base);
                }
                // `torch.unique(x, dim=1)`: whole rows or columns kept as they are
                "unique" if kwargs.iter().any(|(k, _)| k == "dim") => {
                    let of = subject(r, args);
                    return self.expr(of, cx, parent);
                }
                "unique" | "nunique" | "argmax" | "argmin" | "max" | "min" | "sum" | "size" | "numel" | "__len__" | "count" => {
                    // `torch.unique(x)`: the function of a library module takes the value first
                    let function = Some(r).is_none_or_module();
                    let of = subject(r, args);
                    let keep = self.nodes.len();
                    let base = self.expr(of, cx, parent);
                    if name == "sum" {
                        let dim = kw("dim").or(if function { args.get(1) } else { args.first() });
                        if let Some(v) = self.weighted_sum(of, dim, &base, keep, parent) {
                            return v;
                        }
                        // a sum of integers (a mask, flags) along one dimension counts along it:
                        // a length, one past the last position
                        if dim.is_some() && !matches!(base.element_deep(), Val::Float(_)) {
                            self.mark(
                                parent,
                                Tag::Len(Length::Counted),
                                format!("counts along a dimension (`{}`): a length, one past the last position", short(func)),
                            );
                            // no lower bound claimed: a row with nothing to count is rare and
                            // nothing here tells
                            return Val::Int(Range { lo: None, hi: None });
                        }
                    }
                    return self.aggregate(&name, &base, func, cx, parent);
                }
                "fit_transform" | "transform" | "cat" | "codes" if !Some(r).is_none_or_module() => {
                    // an encoder's codes: 0 up to the distinct values of the column it encodes,
                    // when the column was read
                    let base = self.expr(args.first().unwrap_or(r), cx, parent);
                    let len = base.len();
                    let hi = match name.as_str() {
                        "fit_transform" | "transform" => base.distinct().filter(|&d| d > 0).map(|d| Sym::num(d - 1)),
                        _ => None,
                    };
                    return Val::Seq { elem: Box::new(Val::Int(Range { lo: Some(Sym::num(0)), hi })), len, most: None };
                }
                _ => {}
            }
        }
        // a lambda bound to a name in this function or at module level (`to_t = lambda x: …`):
        // its body with the arguments bound
        if let (None, Expr::Name(n)) = (recv, func.bare()) {
            if let Some((params, body)) = self.bound_lambda(cx, n) {
                let mut vals = Vec::with_capacity(params.len());
                for (p, a) in params.iter().zip(args) {
                    vals.push((p.to_string(), self.expr(a, cx, parent)));
                }
                let v = self.with_vals(cx, &vals, |tr, c| tr.expr(&body, c, parent));
                // a lambda that passes its argument on (`lambda x: torch.as_tensor(x)`): the
                // line is what its argument does (`as_long([g - 1 for g in gs])` shifts)
                let mut top = &body;
                while let Expr::Call { func, args: inner, .. } = top.bare() {
                    match (func.bare(), inner.first()) {
                        (Expr::Attr(o, m), _) if is_pass_method(m) && !is_module(o) => top = o,
                        (f, Some(a)) if f.last_name().is_some_and(is_pass_function) => top = a,
                        _ => break,
                    }
                }
                if let (Expr::Name(x), Some(a)) = (top.bare(), args.first()) {
                    if params.first().is_some_and(|p| p == x) {
                        self.classify(parent, a, None, &v);
                    }
                }
                return v;
            }
        }
        // a function of the project's own that shares a library name (`random_split`, `load`)
        // is traced as written, not modelled as the library's
        let own = own_method || recv.is_none() && self.ix.functions(&name).iter().any(|&id| self.ix.def(id).class.is_none());
        match if own { "" } else { name.as_str() } {
            // parts side by side as columns (`np.column_stack([x, y, ring])`, `torch.stack([a,
            // b], dim=-1)`): rows whose k-th cell is the k-th part's element, so that `[:, k]`
            // reads that part again
            "column_stack" | "stack"
                if matches!(args.first().map(Expr::bare), Some(Expr::Seq(SeqKind::List | SeqKind::Tuple, xs)) if xs.len() > 1)
                    && (name == "column_stack"
                        || kw("dim").or(kw("axis")).or(args.get(1)).and_then(int_literal).is_some_and(|d| d == 1 || d == -1)) =>
            {
                let Some(Expr::Seq(_, parts)) = args.first().map(Expr::bare) else { unreachable!() };
                // each part under a node of its own, so that a read of one column (`x[:, k]`)
                // leaves the others' lines off its chain
                let mut cells = Vec::with_capacity(parts.len());
                let mut len = None;
                for (k, part) in parts.iter().enumerate() {
                    let node = self.node(cx, cx.at, Tag::Pass, format!("{COLUMN} {k}: `{}`", short(part)), parent);
                    let v = self.expr(part, cx, node.or(parent));
                    let v = self.force(v);
                    self.finish(node, &v);
                    len = len.or_else(|| v.len());
                    cells.push(v.element());
                }
                // a part of more than one dimension takes several columns: their places unknown
                if cells.iter().any(|c| matches!(c, Val::Seq { .. } | Val::Tuple(_))) {
                    let mut out: Option<Val> = None;
                    for c in cells {
                        join_into(&mut out, c);
                    }
                    return Val::Seq { elem: Box::new(out.unwrap_or(Val::unknown("columns"))), len, most: None };
                }
                return Val::Seq { elem: Box::new(Val::Tuple(cells)), len, most: None };
            }
            // the grids of coordinates (`np.meshgrid(np.arange(rows), np.arange(cols))`): each
            // holds the values of its axis, taken here as the cells they are read as once
            // flattened
            "meshgrid" if !args.is_empty() && args.iter().all(|a| !matches!(a.bare(), Expr::Star(_))) => {
                let grids = args
                    .iter()
                    .map(|a| {
                        let v = self.expr(a, cx, parent);
                        let v = self.force(v);
                        Val::Seq { elem: Box::new(v.element()), len: None, most: None }
                    })
                    .collect();
                return Val::Tuple(grids);
            }
            // `torch.cat([a, b], dim=1)`: the parts joined, one value of the same shape
            "cat" | "concat" | "concatenate" | "hstack" | "vstack" | "column_stack" if matches!(args.first().map(Expr::bare), Some(Expr::Seq(SeqKind::List | SeqKind::Tuple, xs)) if !xs.is_empty()) =>
            {
                let Some(Expr::Seq(_, parts)) = args.first().map(Expr::bare) else { unreachable!() };
                let mut out: Option<Val> = None;
                let mut unknown = None;
                let mut vals = Vec::with_capacity(parts.len());
                for part in parts {
                    let v = self.expr(part, cx, parent);
                    let v = self.force(v);
                    // a part nothing is known of leaves the whole unknown (its elements are in it)
                    if unknown.is_none() && matches!(v.element_deep(), Val::Unknown(_)) {
                        unknown = Some(v.clone());
                    }
                    vals.push(v.clone());
                    join_into(&mut out, v);
                }
                // the dimension the parts are joined in is as long as theirs together (a
                // `[CLS]` put before a window of n is n + 1 long); the others are the parts'
                let dim = match (name.as_str(), kw("dim").or(kw("axis")).or(args.get(1))) {
                    ("vstack", None) => Some(0),
                    ("cat" | "concat" | "concatenate", None) => Some(0),
                    ("cat" | "concat" | "concatenate", Some(d)) => int_literal(d).and_then(|d| usize::try_from(d).ok()),
                    _ => None,
                };
                if let Some(Val::Seq { elem, len, most }) = dim.and_then(|d| cat_along(&vals, d)) {
                    let elem = match unknown {
                        Some(u) => Box::new(with_innermost(&elem, u.element_deep().clone())),
                        None => elem,
                    };
                    return Val::Seq { elem, len, most };
                }
                return unknown.or(out).unwrap_or(Val::unknown("an empty concatenation"));
            }
            // padding with a value (`pad_sequence(ys, padding_value=-1)`, `F.pad(y, (0, k),
            // value=-100)`, `np.pad(y, w, constant_values=-1)`): the value joins the cells
            "pad_sequence" | "pad"
                if !args.is_empty()
                    && (kw("padding_value").or(kw("value")).or(kw("constant_values")).is_some() || name == "pad" && args.len() >= 4) =>
            {
                let base = self.expr(&args[0], cx, parent);
                // (the samples' sequences, when a transposed batch left them to be traced)
                let base = self.force_deep(base, 2);
                let fill = kw("padding_value").or(kw("value")).or(kw("constant_values")).or(args.get(3));
                let fv = fill.map(|f| self.expr(f, cx, parent)).unwrap_or(Val::unknown("padding"));
                if let Val::Int(_) = fv {
                    self.sentinel_check(&base, &fv, parent);
                    return join_cells(&base, &fv);
                }
                return base;
            }
            // a number parsed out of a name or a line of text: an origin of its own
            // `map(int, line.split())` of a line the project wrote: its fields as numbers, each
            // in its place (another text's fields are not modelled)
            "map" if args.len() == 2 && recv.is_none() && matches!(args[0].bare(), Expr::Name(f) if f == "int" || f == "float") => {
                let keep = self.nodes.len();
                let v = self.expr(&args[1], cx, parent);
                if !self.read_back_since(keep) {
                    self.cut(keep);
                    return Val::unknown("no model for `map`");
                }
                self.interpose(parent, keep, cx, format!("{PARSES} each of `{}`", short(&args[1])));
                return v;
            }
            // (a field of a line the project wrote is the number it wrote there)
            "int" if args.len() == 1 && recv.is_none() && textual(&args[0]) => {
                let keep = self.nodes.len();
                let v = self.expr(&args[0], cx, parent);
                if self.read_back_since(keep) && v.range().is_some() {
                    self.interpose(parent, keep, cx, format!("{PARSES} `{}`", short(&args[0])));
                    return v;
                }
                self.cut(keep);
                return self.parsed(&args[0], cx, parent);
            }
            // the cells of a column the scan did not read, as numbers (`int(row["item_id"])`):
            // ids used as they are, an origin whose range is not known
            "int" if args.len() == 1 && recv.is_none() => {
                let keep = self.nodes.len();
                let v = self.expr(&args[0], cx, parent);
                // a field of text the project wrote (`int(i)` of a line's field): the number is
                // taken out of the text here
                if self.read_back_since(keep) {
                    self.interpose(parent, keep, cx, format!("{PARSES} `{}`", short(&args[0])));
                }
                // a field of the rows of a file the scan did not read (`for i, c in
                // read_pairs(path): int(c)`): a number parsed out of text
                if matches!(v, Val::Table(_)) {
                    return self.parsed(&args[0], cx, parent);
                }
                // a column's cells turned into numbers (`int(row["code"])`): a text column's,
                // or one the scan did not read (an origin whose range is not known)
                let text = matches!(&v, Val::Column { range, .. } if !range.known());
                let unread = matches!(&v, Val::Unknown(why) if why.contains("column `"));
                if text || unread {
                    // the reading's node: one of its own, or the line that reads it
                    for i in (keep..self.nodes.len()).chain(parent) {
                        let n = &mut self.nodes[i];
                        if !matches!(n.tag, Tag::Column(_)) {
                            continue;
                        }
                        if text && n.what.ends_with(TEXT_COLUMN) {
                            n.what = format!("{}, {AS_NUMBERS}", n.what);
                        } else if unread && n.what.ends_with(UNREAD_COLUMN) {
                            n.what = n.what.replacen(" as it is ", &format!(" {AS_NUMBERS} "), 1);
                        }
                    }
                }
                if unread {
                    return Val::Int(Range::default());
                }
                return v;
            }
            f if is_pass_function(f) && !args.is_empty() => return self.expr(&args[0], cx, parent),
            "softmax" | "sigmoid" | "Softmax" => return Val::Float(Some(Norm::Probs)),
            f if signed_unit(f) => return self.signed_unit(f, parent),
            // the exponential of scores: positive, unbounded
            "exp" | "expm1" | "exp2" | "logsumexp" if !args.is_empty() => return self.exponential(&args[0], cx, parent),
            // probabilities convolved with a kernel (`F.conv1d(p, torch.ones(1, 1, k))`): a
            // weighted sum, in [0, 1] only when the kernel is normalized; the kernel's line is
            // the one to change
            "conv1d" | "conv2d" | "conv3d" if args.len() >= 2 || kw("weight").is_some() => {
                let input = args.first().map(|a| self.expr(a, cx, parent)).unwrap_or(Val::unknown("conv input"));
                if !matches!(input.element_deep(), Val::Float(Some(Norm::Probs))) {
                    return Val::Float(None);
                }
                let Some(w) = args.get(1).or(kw("weight")) else { return Val::Float(None) };
                let keep = self.nodes.len();
                self.expr(w, cx, parent);
                let made = (keep..self.nodes.len()).find(|&i| self.nodes[i].parent == parent);
                let normalizes = |what: &str| ["softmax", "normalize", "mean", "sum("].iter().any(|k| what.contains(k));
                // the kernel divided where it is made: by its sum or length it is normalized, by its
                // peak or its norm (`w / w.max()`) its weights sum to more than one
                let divided = (keep..self.nodes.len()).find(|&i| !self.nodes[i].aux && self.nodes[i].what.contains(" / "));
                if let Some(i) = divided {
                    let what = self.nodes[i].what.clone();
                    let by = what.rsplit(" / ").next().unwrap_or_default();
                    if normalizes(by) || !["max", "norm("].iter().any(|k| by.contains(k)) {
                        return input;
                    }
                    self.nodes[i].tag = Tag::Scale(Scaling::Arith);
                    self.nodes[i].what = format!("{what}: a kernel divided by its peak or norm, not its sum; its weights can add up to more than one, so the probabilities it smooths can leave [0, 1]");
                    return Val::Float(Some(Norm::Raw));
                }
                if made.is_some_and(|i| normalizes(&self.nodes[i].what)) {
                    return input;
                }
                match made {
                    Some(mut i) => {
                        // where the weights are made: down a kernel handed along unchanged
                        // (`self.register_buffer("k", box(w))` to `return torch.ones(…)`)
                        while let [c] = self.nodes[i].children.iter().copied().filter(|&c| !self.nodes[c].aux).collect::<Vec<_>>()[..] {
                            if self.nodes[c].tag != Tag::Pass || self.nodes[i].tag != Tag::Pass {
                                break;
                            }
                            i = c;
                        }
                        self.nodes[i].tag = Tag::Scale(Scaling::Arith);
                        self.nodes[i].what = format!("{}: {KERNEL_SUMS_PROBS}", self.nodes[i].what);
                    }
                    None => {
                        self.mark(parent, Tag::Scale(Scaling::Arith), "convolves probabilities with a kernel that is not normalized".into())
                    }
                }
                return Val::Float(Some(Norm::Raw));
            }
            "log_softmax" | "logsigmoid" => return Val::Float(Some(Norm::Raw)),
            "clamp" | "clip" => return self.clamp_call(None, args, kwargs, cx, parent),
            "len" if args.len() == 1 => {
                if let Some(v) = self.growing_len(&args[0], cx, parent) {
                    return v;
                }
                self.mark(parent, Tag::Len(Length::Of), "a length".into());
                // a string written out (`len(ALPHABET)`): its characters
                if let Some(n) = self.literal_text(&args[0], cx) {
                    return Val::Int(Range::exact(Sym::num(n as i64)));
                }
                return self.dim_size(&args[0], 0, cx, parent);
            }
            "max" | "min" if args.len() == 1 && self.count.is_some() && matches!(args[0].bare(), Expr::Comp { .. }) => {
                // the largest of the lengths a comprehension makes (`max(len(s) for s in xs)`)
                if let Expr::Comp { elt, gens, .. } = args[0].bare() {
                    let v = self.comprehension_element(elt, gens, cx, parent);
                    self.mark(parent, Tag::Len(Length::Longest), "the longest length".into());
                    return match v {
                        Val::Int(r) if name == "max" => Val::Int(Range { lo: r.hi.clone(), hi: r.hi }),
                        other => other,
                    };
                }
            }
            "max" | "min" | "sum" if !args.is_empty() && recv.is_none_or_module() => {
                if args.len() >= 2 {
                    let a = self.expr(&args[0], cx, parent);
                    let b = self.expr(&args[1], cx, parent);
                    if name == "max" {
                        self.mark(parent, Tag::Max, "takes the largest value".into());
                    }
                    return match (name.as_str(), a, b) {
                        ("max", Val::Int(x), Val::Int(y)) => {
                            Val::Int(Range { lo: x.lo.clone().or(y.lo.clone()), hi: x.hi.join_max(&y.hi) })
                        }
                        ("min", Val::Int(x), Val::Int(y)) => {
                            // the smaller of the two highs bounds it; the low is the smaller low
                            // when both are known
                            let hi = match (x.hi.as_ref().and_then(Sym::constant), y.hi.as_ref().and_then(Sym::constant)) {
                                (Some(a), Some(b)) => Some(Sym::num(a.min(b))),
                                _ => x.hi.clone().or(y.hi.clone()),
                            };
                            let lo = match (x.lo.as_ref().and_then(Sym::constant), y.lo.as_ref().and_then(Sym::constant)) {
                                (Some(a), Some(b)) => Some(Sym::num(a.min(b))),
                                _ => None,
                            };
                            Val::Int(Range { lo, hi })
                        }
                        // one side unknown: `min(gap, 16)` is at most 16, `max(n, 1)` at least 1
                        ("min", Val::Int(k), _) | ("min", _, Val::Int(k)) => Val::Int(Range { lo: None, hi: k.hi }),
                        ("max", Val::Int(k), _) | ("max", _, Val::Int(k)) => Val::Int(Range { lo: k.lo, hi: None }),
                        _ => Val::unknown("min/max"),
                    };
                }
                let base = self.expr(&args[0], cx, parent);
                return self.aggregate(&name, &base, func, cx, parent);
            }
            // `defaultdict(list)`: a dict whose missing values start as the factory's (filled by
            // `d[k].append(x)` later, which the list's readers join in)
            "defaultdict" if recv.is_none_or_module() => {
                // `defaultdict(lambda: len(ids), known)`: a key it does not hold is numbered with
                // its length when it is looked up, past every id the map held before
                if let Some(Expr::Lambda { params, body }) = args.first().map(Expr::bare) {
                    if params.is_empty()
                        && matches!(body.bare(), Expr::Call { func, args: a, .. } if func.last_name() == Some("len") && a.len() == 1)
                    {
                        let init = args.get(1).map(|a| self.expr(a, cx, parent));
                        let len = init.as_ref().and_then(Val::len).or_else(|| self.fresh_root(cx, parent, "len"));
                        let held = init.map(|v| v.element()).unwrap_or(Val::unknown("empty"));
                        self.mark(
                            parent,
                            Tag::Len(Length::Of),
                            "numbers a key it does not hold with its length, past the ids it holds".into(),
                        );
                        let val = held.join(&Val::Int(Range { lo: None, hi: len.clone() }));
                        return Val::Map { key: Box::new(Val::unknown("a key")), val: Box::new(val), len };
                    }
                }
                let empty = match args.first().map(Expr::bare) {
                    Some(Expr::Name(f)) if matches!(f.as_str(), "list" | "set" | "deque") => {
                        Val::Seq { elem: Box::new(Val::unknown("empty")), len: None, most: None }
                    }
                    Some(Expr::Name(f)) if f == "int" => Val::Int(Range::exact(Sym::num(0))),
                    _ => Val::unknown("a defaultdict's factory"),
                };
                return Val::Map { key: Box::new(Val::unknown("a key")), val: Box::new(empty), len: None };
            }
            // a tally (`Counter(labels)`): one entry per distinct value, each counted
            "Counter" if args.len() == 1 && kwargs.is_empty() => {
                let v = self.expr(&args[0], cx, parent);
                let len = match v.distinct() {
                    Some(d) => Some(Sym::num(d)),
                    None => self.distinct_root(cx, parent, &v),
                };
                let counts = Val::Int(Range { lo: Some(Sym::num(1)), hi: None });
                return Val::Map { key: Box::new(v.element()), val: Box::new(counts), len };
            }
            "set" | "frozenset" | "unique" => {
                let v = args.first().map(|a| self.expr(a, cx, parent)).unwrap_or(Val::unknown("set"));
                let len = match v.distinct() {
                    Some(d) => Some(Sym::num(d)),
                    None => self.distinct_root(cx, parent, &v),
                };
                return Val::Seq { elem: Box::new(v.element()), len, most: None };
            }
            // (`itertools.accumulate(sizes)`: running sums too, when no other function is given)
            "cumsum" | "accumulate" if name == "cumsum" || args.len() == 1 && kwargs.is_empty() => {
                if let Some(a) = args.first() {
                    self.aux_expr(a, cx, parent);
                }
                self.mark(parent, Tag::Len(Length::Running), format!("running counts (`{name}`): each one past its own block"));
                return Val::Int(Range { lo: Some(Sym::num(0)), hi: None });
            }
            "range" | "arange" => {
                // the ends are not the values: their nodes are auxiliary, the call's line holds the range
                // `range(n)`: a count whose last position is n - 1 (its slice is a length's)
                let vals: Vec<Val> = match args {
                    [n] => vec![self.count_expr(n, -1, 0, cx, parent)],
                    _ => args.iter().map(|a| self.aux_expr(a, cx, parent)).collect(),
                };
                let r = |v: &Val| match v {
                    Val::Int(r) => r.clone(),
                    _ => Range::default(),
                };
                let (lo, hi) = match vals.as_slice() {
                    [n] => (Some(Sym::num(0)), r(n).hi.map(|s| s.plus(-1))),
                    [a, b, ..] => (r(a).lo, r(b).hi.map(|s| s.plus(-1))),
                    _ => (None, None),
                };
                if let Some(k) = lo.as_ref().and_then(|s| s.constant()).filter(|&k| k >= 1) {
                    self.mark(parent, Tag::OneBased(k), format!("counts from {k}"));
                }
                let len = match vals.as_slice() {
                    [n] => r(n).hi,
                    _ => None,
                };
                return Val::Seq { elem: Box::new(Val::Int(Range { lo, hi })), len, most: None };
            }
            "enumerate" => {
                // the counter takes the iterable's length alone: the lines that make the elements
                // are not its chain (an element is traced where it is used); a length being
                // traced is the iterable's own
                let counting = self.count.is_some();
                let v = match args.first() {
                    Some(a) if counting => self.expr(a, cx, parent),
                    Some(a) => self.aux_expr(a, cx, parent),
                    None => Val::unknown("enumerate"),
                };
                let start = args.get(1).or(kw("start")).map(|s| self.expr(s, cx, parent));
                let k = match &start {
                    Some(Val::Int(r)) => r.lo.as_ref().and_then(|s| s.constant()).unwrap_or(0),
                    _ => 0,
                };
                if k >= 1 {
                    self.mark(parent, Tag::OneBased(k), format!("numbers from {k} (`enumerate(…, start={k})`)"));
                }
                let len = v.len().or_else(|| self.fresh_root(cx, parent, "len"));
                let idx = Val::Int(Range { lo: Some(Sym::num(k)), hi: len.as_ref().map(|l| l.plus(k - 1)) });
                let el = match (&v, args.first()) {
                    (_, Some(a)) if !counting => {
                        Val::Thunk(Rc::new(Thunk { pick: Pick::Element, ..Thunk::of(a.clone(), cx.clone(), parent, None) }))
                    }
                    (Val::Obj(o), _) => self.dataset_item(o.clone(), parent),
                    (other, _) => other.element(),
                };
                return Val::Seq { elem: Box::new(Val::Tuple(vec![idx, el])), len, most: None };
            }
            "zip" if args.len() == 1 && matches!(args[0], Expr::Star(_)) => {
                // `zip(*batch)`: the positions of the samples, each a sequence
                let v = self.expr(&args[0], cx, parent);
                let el = self.force(v.element());
                return match el {
                    // (each position traced when it is used: the others' lines are not on the
                    // value of the one a caller takes; a length followed is measured on all of
                    // them here, under the line that transposes)
                    Val::Tuple(xs) => {
                        let mut out = Vec::with_capacity(xs.len());
                        for x in xs {
                            let x = if self.count.is_some() { self.force(x) } else { x };
                            out.push(Val::Seq { elem: Box::new(x), len: v.len(), most: v.most() });
                        }
                        Val::Tuple(out)
                    }
                    other => Val::Seq { elem: Box::new(other), len: None, most: None },
                };
            }
            "open" => {
                // text the project writes itself (a script's rows and lines): what it wrote
                if Self::opens_for_reading(args, kwargs) {
                    if let Some(v) = args.first().and_then(|a| self.written_lines(a, true, cx, parent)) {
                        return v;
                    }
                }
                let path = args.first().and_then(|a| self.path_text(a, cx));
                return Val::Table(path.and_then(|p| self.data_file(&p)));
            }
            "load" | "safe_load" | "full_load"
                if recv.and_then(|r| r.dotted()).is_some_and(|m| ["json", "yaml", "toml", "tomllib", "tomli"].contains(&m.as_str())) =>
            {
                let v = args.first().map(|a| self.expr(a, cx, parent)).unwrap_or(Val::unknown("load"));
                if let Val::Table(Some(fi)) = v {
                    // a file the project writes itself is what a run reads: the copy on disk is
                    // what an earlier run left (a vocabulary, label map or metadata a
                    // preprocessing script dumps), and the line to change made the value it saved
                    if let Some(saved) = self.saved(args.first(), false, cx, parent) {
                        return saved;
                    }
                    // a JSON, YAML or TOML mapping: its top-level keys
                    let f = self.ix.files[fi];
                    let top = f.assigns.iter().filter(|a| !a.target.contains('.') && !a.target.starts_with("len(")).count() as i64;
                    return Val::Map { key: Box::new(Val::unknown("key")), val: Box::new(Val::unknown("value")), len: Some(Sym::num(top)) };
                }
                return self.saved(args.first(), false, cx, parent).unwrap_or_else(|| Val::unknown("a loaded file the scan did not read"));
            }
            // a file the project writes itself and reads back (`pickle.dump(cohort, f)` in one
            // script, `pickle.load(f)` in another): the value that was saved
            "load" if recv.and_then(|r| r.dotted()).is_some_and(|m| ["pickle", "joblib", "torch", "np", "numpy"].contains(&m.as_str())) => {
                let by_path = recv.and_then(|r| r.dotted()).is_some_and(|m| m != "pickle");
                return self
                    .saved(args.first(), by_path, cx, parent)
                    .unwrap_or_else(|| Val::unknown("a loaded file the scan did not read"));
            }
            // `q, r = divmod(x, n)`: the quotient and the remainder, each traced where it is used
            "divmod" if args.len() == 2 && recv.is_none() => {
                let part = |op: &str| Expr::Bin(op.into(), Box::new(args[0].clone()), Box::new(args[1].clone()));
                return Val::Tuple(vec![self.defer(&part("//"), cx, parent), self.defer(&part("%"), cx, parent)]);
            }
            // one draw from a sequence (`random.choice(ids)`, `rng.choice(free_cells)`): one of
            // its elements; numpy's `choice(n)` draws from 0..n-1
            // numpy's `choice(n, size=k)`: k such draws
            "choice" if args.len() == 1 => {
                let one = match self.expr(&args[0], cx, parent) {
                    Val::Int(r) if r.lo == r.hi => Val::Int(Range { lo: Some(Sym::num(0)), hi: r.hi.map(|h| h.plus(-1)) }),
                    v @ (Val::Seq { .. } | Val::Map { .. } | Val::Tuple(_) | Val::Column { .. }) => v.element(),
                    _ => Val::unknown(format!("a draw from `{}`", short(&args[0]))),
                };
                if kw("size").is_some() {
                    return Val::Seq { elem: Box::new(one), len: None, most: None };
                }
                return one;
            }
            // draws of several from a population (`random.choices(moves, k=8)`): a list of its
            // elements (`random.sample(buffer, 32)` passes its population on)
            "choices" if !args.is_empty() && recv.is_some() => {
                let pop = self.expr(&args[0], cx, parent);
                if matches!(pop, Val::Seq { .. } | Val::Tuple(_) | Val::Map { .. }) {
                    return Val::Seq { elem: Box::new(pop.element()), len: None, most: None };
                }
                return Val::unknown(format!("a draw from `{}`", short(&args[0])));
            }
            // the places a mask or an array holds something (`np.flatnonzero(board == 0)`): positions
            // of it, from 0 to its length less one
            "flatnonzero" | "nonzero" | "argwhere" if args.len() <= 1 => {
                let Some(x) = args.first().or(recv) else { return Val::unknown("nonzero") };
                // a mask (`board.ravel() == 0`) has the shape of the array it tests
                let x = match x.bare() {
                    Expr::Test(_, xs) => {
                        xs.iter().find(|e| !matches!(e.bare(), Expr::Int(_) | Expr::Float(_) | Expr::Const(_))).unwrap_or(x)
                    }
                    _ => x,
                };
                let v = self.aux_expr(x, cx, parent);
                // flat positions run over every cell; per-dimension ones only over a flat array
                let size = if name == "flatnonzero" { flat_len(&v) } else { v.len().filter(|_| !matches!(v.element(), Val::Seq { .. })) };
                let hi = size.as_ref().map(|l| l.plus(-1));
                return Val::Seq { elem: Box::new(Val::Int(Range { lo: Some(Sym::num(0)), hi })), len: None, most: size };
            }
            "zip" => {
                let vals: Vec<Val> = args.iter().map(|a| self.expr(a, cx, parent)).collect();
                let len = vals.iter().find_map(|v| v.len());
                let els = vals.iter().map(|v| if matches!(v, Val::Tuple(_)) { self.iterate(v) } else { v.element() }).collect();
                return Val::Seq { elem: Box::new(Val::Tuple(els)), len, most: None };
            }
            "dict" if !kwargs.is_empty() && args.len() <= 1 => {
                // `dict(n=12, fill=-1)`, `dict(base, lr=0.1)`: a record of the keywords (over the
                // one it copies), each evaluated when it is used; keywords name fields, so even
                // all-int values are no table
                let mut fields = match args.first().map(|a| self.expr(a, cx, parent)) {
                    Some(Val::Record(xs)) => xs,
                    _ => Vec::new(),
                };
                for (k, v) in kwargs {
                    fields.retain(|(f, _)| **f != **k);
                    fields.push((k.to_string(), self.defer(v, cx, parent)));
                }
                return Val::Record(fields);
            }
            // `dataclasses.asdict(x)` of an instance: a record of its declared fields, each read
            // from the instance where it is used
            "asdict" if args.len() == 1 && recv.map_or(true, |r| r.dotted().as_deref() == Some("dataclasses")) => {
                if let Val::Obj(o) = self.aux_expr(&args[0], cx, parent) {
                    let fields = self.declared_fields(&o.class);
                    if !fields.is_empty() {
                        let out = fields
                            .into_iter()
                            .map(|f| {
                                let read = Expr::Attr(Box::new(args[0].clone()), f.as_str().into());
                                let v = self.defer(&read, cx, parent);
                                (f, v)
                            })
                            .collect();
                        return Val::Record(out);
                    }
                }
                return Val::unknown("no model for `asdict`");
            }
            // an empty dict, filled later
            "dict" | "OrderedDict" if args.is_empty() && kwargs.is_empty() && recv.is_none_or_module() => {
                return Val::Map { key: Box::new(Val::unknown("key")), val: Box::new(Val::unknown("empty")), len: Some(Sym::num(0)) };
            }
            "dict" => {
                let v = args.first().map(|a| self.expr(a, cx, parent)).unwrap_or(Val::unknown("dict"));
                return match v {
                    Val::Seq { elem, len, .. } => match *elem {
                        Val::Tuple(mut xs) if xs.len() == 2 => {
                            let val = xs.pop().unwrap_or(Val::unknown("dict"));
                            let key = xs.pop().unwrap_or(Val::unknown("dict"));
                            Val::Map { key: Box::new(key), val: Box::new(val), len }
                        }
                        other => Val::Map { key: Box::new(Val::unknown("key")), val: Box::new(other), len },
                    },
                    other => other,
                };
            }
            "randint" | "integers" => {
                let vals: Vec<Val> = args.iter().map(|a| self.aux_expr(a, cx, parent)).collect();
                let r = |v: &Val| match v {
                    Val::Int(r) => r.clone(),
                    _ => Range::default(),
                };
                // random.randint is inclusive; torch / numpy exclude the high end
                let inclusive = func.dotted().is_some_and(|d| d.starts_with("random."));
                let sub = if inclusive { 0 } else { -1 };
                let (lo, hi) = match vals.as_slice() {
                    [n] => (Some(Sym::num(0)), r(n).hi.map(|s| s.plus(sub))),
                    [a, b, ..] if !matches!(b, Val::Tuple(_) | Val::Seq { .. }) => (r(a).lo, r(b).hi.map(|s| s.plus(sub))),
                    [n, _] => (Some(Sym::num(0)), r(n).hi.map(|s| s.plus(sub))),
                    _ => (None, None),
                };
                if let Some(k) = lo.as_ref().and_then(|s| s.constant()).filter(|&k| k >= 1) {
                    self.mark(parent, Tag::OneBased(k), format!("draws from {k} up"));
                }
                return Val::Seq { elem: Box::new(Val::Int(Range { lo, hi })), len: None, most: None };
            }
            "zeros" | "zeros_like" | "ones" | "ones_like" | "empty" | "empty_like"
                if recv.is_some_and(|r| r.dotted().is_some_and(|m| m == "np" || m == "numpy" || m == "torch")) || recv.is_none() =>
            {
                let k = if name.starts_with("ones") { 1 } else { 0 };
                if args
                    .iter()
                    .chain(kwargs.iter().map(|(_, e)| e))
                    .any(|a| matches!(a, Expr::Attr(_, t) if t.starts_with("float") || t == "bool"))
                {
                    return Val::Float(None);
                }
                let dims: Vec<Expr> = match args.first().map(Expr::bare) {
                    _ if name.ends_with("_like") => Vec::new(),
                    Some(Expr::Seq(SeqKind::Tuple | SeqKind::List, xs)) => xs.clone(),
                    _ => args.to_vec(),
                };
                return self.shaped(&dims, Val::Int(Range::exact(Sym::num(k))), cx, parent);
            }
            "full" => {
                // (while a length is followed, the fill value is beside it: it sizes nothing)
                let fill = |tr: &mut Self, a: &Expr| if tr.count.is_some() { tr.aux_expr(a, cx, parent) } else { tr.expr(a, cx, parent) };
                let v = args.get(1).or(kw("fill_value")).map(|a| fill(self, a)).unwrap_or(Val::unknown("full"));
                self.sentinel_check(&v, &v, parent);
                let dims: Vec<Expr> = match args.first().map(Expr::bare) {
                    Some(Expr::Seq(SeqKind::Tuple | SeqKind::List, xs)) => xs.clone(),
                    Some(x) => vec![x.clone()],
                    None => Vec::new(),
                };
                return self.shaped(&dims, v, cx, parent);
            }
            "full_like" => {
                let v = args.get(1).or(kw("fill_value")).map(|a| self.expr(a, cx, parent)).unwrap_or(Val::unknown("full"));
                self.sentinel_check(&v, &v, parent);
                return Val::Seq { elem: Box::new(v), len: None, most: None };
            }
            "where" if args.len() == 3 => {
                // the value where it is not the marker, something else where it is
                // (`torch.where(t != k, t, 0)`, `torch.where(t == k, 0, t)`): the marker is
                // replaced
                let kept = |tr: &mut Self, at: usize, v: &Expr, cond: &Expr| match at {
                    1 => tr.masked_out(v, cond, cx),
                    _ => tr.masked_out_eq(v, cond, cx),
                };
                let side = |tr: &mut Self, at: usize| match kept(tr, at, &args[at], &args[0]) {
                    Some(k) => {
                        let under = tr.narrow_under(cx, parent, k);
                        let v = tr.expr(&args[at], cx, under);
                        let v = without_marker(&tr.force(v), k);
                        if under != parent {
                            tr.finish(under, &v);
                        }
                        v
                    }
                    None => tr.expr(&args[at], cx, parent),
                };
                let a = side(self, 1);
                let b = side(self, 2);
                // a number put beside measurements (`np.where(side == 0, -8, x)` with x drawn
                // uniformly) is a coordinate, not a marker in ids: the cells are floats
                let floats = |v: &Val| matches!(v.element_deep(), Val::Float(_));
                let ints = |v: &Val| matches!(v.element_deep(), Val::Int(_));
                if floats(&a) && ints(&b) || ints(&a) && floats(&b) {
                    return if floats(&a) { a } else { b };
                }
                self.sentinel_check(&a, &b, parent);
                return a.join(&b);
            }
            // draws of real numbers (`rng.uniform(-8, 8, n)`, `torch.randn(b, d)`): floats
            "uniform" | "normal" | "randn" | "rand" | "standard_normal" | "exponential" | "lognormal" | "laplace" | "beta" | "gamma"
                if !self.ix.is_class(&name) =>
            {
                return Val::Float(None);
            }
            "multinomial" | "argmax" | "topk" | "sample" => {
                return Val::Seq { elem: Box::new(Val::Int(Range { lo: Some(Sym::num(0)), hi: None })), len: None, most: None };
            }
            "DataLoader" => return self.loader(args, kwargs, cx, parent),
            // a frame made from columns: its cells take the columns' values
            "DataFrame" if recv.is_some_and(|r| r.dotted().is_some_and(|m| m == "pd" || m == "pandas")) => {
                let v = args.first().or(kw("data")).map(|a| self.expr(a, cx, parent)).unwrap_or(Val::unknown("an empty frame"));
                return match v {
                    Val::Map { val, .. } => *val,
                    other => other,
                };
            }
            // `functools.partial(f, …)`: the function (its bound arguments take their defaults)
            "partial" if !self.ix.is_class("partial") && self.ix.functions("partial").is_empty() && !args.is_empty() => {
                let keep = self.nodes.len();
                let f = self.expr(&args[0], cx, None);
                self.cut(keep);
                if let Val::Func(_) = f {
                    return f;
                }
            }
            // a sample is the tuple of the tensors' rows, each evaluated when its position is
            // used (the tensors are different values: one's lines are not another's); a tuple
            // splatted (`TensorDataset(*arrays)`, `TensorDataset(*[t[idx] for t in arrays])`)
            // gives each tensor its position, a splat of anything else positions unknown
            "TensorDataset" if !self.ix.is_class("TensorDataset") => {
                let row = |e: &Expr, c: &Ctx, p: Option<usize>, count| {
                    let expr = Expr::Sub(Box::new(e.clone()), Box::new(Expr::Int(0)));
                    Val::Thunk(Rc::new(Thunk::of(expr, c.clone(), p, count)))
                };
                let mut rows = Vec::new();
                for a in args {
                    let Expr::Star(inner) = a.bare() else {
                        rows.push(row(a, cx, parent, self.count));
                        continue;
                    };
                    match self.expr(inner, cx, parent) {
                        Val::Tuple(xs) => {
                            for x in xs {
                                match x {
                                    Val::Thunk(t) if t.into.is_none() => rows.push(row(&t.expr, &t.cx, t.parent, t.count)),
                                    other => rows.push(self.force(other).element()),
                                }
                            }
                        }
                        _ => return Val::Seq { elem: Box::new(Val::unknown("the tensors of a splatted list")), len: None, most: None },
                    }
                }
                return Val::Seq { elem: Box::new(Val::Tuple(rows)), len: None, most: None };
            }
            // `csv.DictReader(f)`: rows of the file `f` was opened on, each read by column name
            "DictReader" if !self.ix.is_class("DictReader") => {
                let path = args.first().and_then(|a| self.opened_path(a, cx));
                return Val::Seq { elem: Box::new(Val::Table(path.and_then(|p| self.data_file(&p)))), len: None, most: None };
            }
            "read_csv" | "read_table" | "read_json" | "read_parquet" | "read_excel" | "read_feather" => {
                let path = args.first().and_then(|a| self.path_text(a, cx));
                return Val::Table(path.and_then(|p| self.data_file(&p)));
            }
            // `ConcatDataset(parts)`: an item is an item of one of the datasets it chains
            "ConcatDataset" | "ChainDataset" => {
                let v = args.first().or(kw("datasets")).map(|a| self.expr(a, cx, parent)).unwrap_or(Val::unknown("datasets"));
                return v.element();
            }
            "Subset" | "random_split" => {
                let v = args.first().map(|a| self.expr(a, cx, parent)).unwrap_or(Val::unknown("subset"));
                return if name == "random_split" { Val::Seq { elem: Box::new(v), len: None, most: None } } else { v };
            }
            _ => {}
        }
        // `cls(…)` in a classmethod: its class (a subclass's call is not followed)
        let name = match func.bare() {
            Expr::Name(n)
                if self.def(cx).decorators.iter().any(|d| d == "classmethod")
                    && self.def(cx).params.first().is_some_and(|p| p.name == *n) =>
            {
                self.def(cx).class.as_deref().map(str::to_string).unwrap_or(name)
            }
            _ => name,
        };
        // a class or function looked up in a registry (`MODELS[cfg.name](…)`, `factory = DATASETS[k]`)
        let cands = match func.bare() {
            Expr::Sub(..) | Expr::Name(_) if !self.ix.is_class(&name) => self.registry_callee(func, cx, 0).unwrap_or_default(),
            _ => Vec::new(),
        };
        // a registry of classes with no key known: an instance of one of them
        if cands.len() > 1 && cands.iter().all(|c| self.ix.is_class(c)) {
            let env = Rc::new(Env { args: args.to_vec(), kwargs: kwargs.to_vec(), caller: Some(cx.clone()), vals: Vec::new(), recv: None });
            let objs: Vec<Rc<Object>> = cands.iter().map(|c| Rc::new(Object::of(c.clone(), Some(env.clone())))).collect();
            let first = objs[0].clone();
            return Val::Obj(objs[1..].iter().fold(first, |a, b| Object::alternatives(&a, b)));
        }
        let name = match cands.as_slice() {
            [one] => one.clone(),
            _ => name,
        };
        // a project class: an instance (its constructor's arguments kept for its fields)
        if self.ix.is_class(&name) {
            let env = Rc::new(Env { args: args.to_vec(), kwargs: kwargs.to_vec(), caller: Some(cx.clone()), vals: Vec::new(), recv: None });
            return Val::Obj(Rc::new(Object::of(name, Some(env))));
        }
        if cx.depth >= MAX_CALLS {
            return Val::unknown("call depth");
        }
        // a project function or method: its returns, with the arguments bound
        let (targets, recv_obj) = match recv {
            // `super().forward(x)`: the method of a project base of the class, on the same object
            Some(r) if matches!(r.bare(), Expr::Call { func, .. } if func.bare().last_name() == Some("super")) => {
                let own = self.def(cx).class.as_deref().map(str::to_string).unwrap_or_default();
                let found = self.ix.mro(&own).iter().skip(1).map(|c| self.ix.method(c, &name)).find(|m| !m.is_empty());
                let obj = cx.env.as_ref().and_then(|e| e.recv.clone()).unwrap_or_else(|| Rc::new(Object::of(own.clone(), None)));
                match found {
                    Some(m) => (m, Some(obj)),
                    None => return Val::unknown(format!("no project base of {own} defines `{name}`")),
                }
            }
            Some(r) => {
                // the receiver: a module or object called is not the value (its nodes are
                // auxiliary), an array's method keeps the array's value
                let keep = self.nodes.len();
                let rv = self.expr(r, cx, parent);
                if matches!(rv, Val::Obj(_) | Val::Func(_)) {
                    for n in &mut self.nodes[keep..] {
                        n.aux = true;
                    }
                }
                match rv {
                    Val::Obj(o) => {
                        let m = self.ix.method(&o.class, &name);
                        if m.is_empty() {
                            // a module stored in a field (`self.head(h)`): a project module runs
                            // its forward, a library layer gives scores
                            return self.layer_call(&o, &name, args, cx, parent);
                        }
                        (m, Some(o))
                    }
                    Val::Func(f) if name == "__call__" => (vec![f], None),
                    _ if of_module.is_some() => (of_module.into_iter().collect(), None),
                    // a library module's function (`np.load`) is not a project method that
                    // happens to share its name
                    _ if matches!(r.bare(), Expr::Name(n) if imported_module(&self.ix.files[cx.def.0].imports, n)) => (Vec::new(), None),
                    _ => {
                        let ms = self.ix.methods_named(&name);
                        (if ms.len() == 1 { ms.to_vec() } else { Vec::new() }, None)
                    }
                }
            }
            None => match self.lookup_env(cx, &name) {
                Some(Val::Func(f)) => (vec![f], None),
                Some(Val::Obj(o)) => (self.ix.callable(&o.class), Some(o)),
                _ => {
                    let local = self.name_value(&name, cx, parent);
                    match local {
                        Some(Val::Func(f)) => (vec![f], None),
                        Some(Val::Obj(o)) => (self.ix.callable(&o.class), Some(o)),
                        _ => (
                            self.ix
                                .functions(&name)
                                .iter()
                                .copied()
                                .filter(|id| id.0 == cx.def.0)
                                .chain(self.ix.functions(&name).iter().copied())
                                .take(1)
                                .collect(),
                            None,
                        ),
                    }
                }
            },
        };
        let targets = if targets.is_empty() {
            match &recv_obj {
                Some(o) => self.ix.callable(&o.class),
                None => targets,
            }
        } else {
            targets
        };
        let Some(&target) = targets.first() else {
            return match recv_obj {
                Some(o) => Val::unknown(format!("{} has no `{name}`", o.class)),
                None => Val::unknown(format!("no model for `{}`", func.dotted().unwrap_or(name))),
            };
        };
        // a class reached as a value: an instance
        if self.ix.def(target).kind == DefKind::Class {
            let env = Rc::new(Env { args: args.to_vec(), kwargs: kwargs.to_vec(), caller: Some(cx.clone()), vals: Vec::new(), recv: None });
            return Val::Obj(Rc::new(Object::of(self.ix.def(target).name.to_string(), Some(env))));
        }
        let alts = recv_obj.as_ref().map(|o| o.also.clone()).unwrap_or_default();
        let env = Rc::new(Env { args: args.to_vec(), kwargs: kwargs.to_vec(), caller: Some(cx.clone()), vals: Vec::new(), recv: recv_obj });
        let c = Ctx { def: target, at: usize::MAX, env: Some(env), depth: cx.depth + 1 };
        let mut v = self.returns(&c, parent);
        // a generator function's call is the sequence of what it yields (`for x, y in
        // batches(data)` binds one yielded tuple)
        let d = self.ix.def(target);
        if d.stmts.iter().any(|s| matches!(s.kind, StmtKind::Yield(_))) {
            v = Val::Seq { elem: Box::new(v), len: None, most: None };
        }
        // an object that may be one of several classes: each one's method, joined
        let method = self.ix.def(target).name.to_string();
        for alt in alts {
            let Some(&t) = self.ix.method(&alt.class, &method).first() else { continue };
            let env =
                Rc::new(Env { args: args.to_vec(), kwargs: kwargs.to_vec(), caller: Some(cx.clone()), vals: Vec::new(), recv: Some(alt) });
            let c = Ctx { def: t, at: usize::MAX, env: Some(env), depth: cx.depth + 1 };
            let w = self.returns(&c, parent);
            v = v.join(&w);
        }
        v
    }

    /// A function of a project module called through the module's name as the file imports it
    /// (`import features as F_` … `F_.to_tensors(…)`, `from pkg import data` … `data.load(…)`).
    fn module_function(&self, file: usize, recv: &str, name: &str) -> Option<DefId> {
        let stem = self.module_stem(file, recv)?;
        self.ix
            .functions(name)
            .iter()
            .copied()
            .find(|&id| crate::analysis::shared::module_name(self.ix.path(id)) == stem && self.ix.def(id).class.is_none())
    }

    /// The module a name of file `file` is bound to by its imports (`import events`, `import
    /// data.vocab as V`, `from pkg import events`): its last component.
    fn module_stem(&self, file: usize, recv: &str) -> Option<String> {
        self.ix.files[file].imports.iter().find_map(|imp| {
            let names = match imp.strip_prefix("from ") {
                Some(rest) => rest.split_once(" import ")?.1,
                None => imp.strip_prefix("import ")?,
            };
            names.trim_matches(|c| c == '(' || c == ')').split(',').find_map(|part| {
                let (module, alias) = part.split_once(" as ").unwrap_or((part, part));
                (alias.trim() == recv).then(|| module.trim().rsplit('.').next().unwrap_or_default().to_string())
            })
        })
    }

    /// `events.VOCAB_SIZE` where `events` is a project module the file imports: the module's
    /// global of that name.
    fn module_global(&mut self, obj: &Expr, attr: &str, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
        let Expr::Name(m) = obj.bare() else { return None };
        let stem = self.module_stem(cx.def.0, m)?;
        let (id, si) = self
            .ix
            .globals(attr)
            .iter()
            .filter(|(id, _)| crate::analysis::shared::module_name(self.ix.path(*id)) == stem)
            .max_by_key(|(id, s)| self.ix.def(*id).line(&self.ix.def(*id).stmts[*s]))
            .copied()?;
        if cx.depth >= MAX_CALLS {
            return Some(Val::unknown("call depth"));
        }
        let c = Ctx { def: id, at: si + 1, env: None, depth: cx.depth + 1 };
        Some(self.name(attr, &c, parent))
    }

    /// The project class or function a registry lookup gives: `R[key]` (or a local name
    /// assigned it) where `R` is a module-level dict display of classes or functions (the entry
    /// of `key` when it is a known string, else the one callee all entries name) or a dict a
    /// decorator fills (`@register("transe")` over a class or a function, `R[name] = cls` in
    /// the decorator): the one decorated with `key`, or the one so decorated.
    /// The project classes or functions a registry lookup may call: the one its key names, else
    /// every one it holds.
    fn registry_callee(&mut self, func: &Expr, cx: &Ctx, hops: usize) -> Option<Vec<String>> {
        if hops > 3 {
            return None;
        }
        match func.bare() {
            Expr::Name(n) => {
                let (_, value) = self.def(cx).last_assign(cx.at, n)?;
                match value.bare() {
                    Expr::Sub(..) => self.registry_callee(value, cx, hops + 1),
                    _ => None,
                }
            }
            Expr::Sub(base, key) => {
                let Expr::Name(r) = base.bare() else { return None };
                let key = self.string_of(key, cx, 0).or_else(|| self.field_string(key, cx));
                let &(gid, gi) = self.ix.globals(r).iter().find(|(id, _)| id.0 == cx.def.0).or(self.ix.globals(r).first())?;
                let StmtKind::Assign { value, .. } = &self.ix.def(gid).stmts[gi].kind else { return None };
                let pick = |cands: Vec<(Option<Text>, String)>| -> Option<Vec<String>> {
                    let callee = |c: &str| self.ix.is_class(c) || self.ix.functions(c).iter().any(|&id| self.ix.def(id).class.is_none());
                    let cands: Vec<_> = cands.into_iter().filter(|(_, c)| callee(c)).collect();
                    if let Some(k) = &key {
                        if let Some((_, c)) = cands.iter().find(|(ck, _)| ck.as_ref() == Some(k)) {
                            return Some(vec![c.clone()]);
                        }
                    }
                    let mut all: Vec<String> = Vec::new();
                    for (_, c) in cands {
                        if !all.contains(&c) {
                            all.push(c);
                        }
                    }
                    (!all.is_empty()).then_some(all)
                };
                match value.bare() {
                    Expr::Dict(kv) if !kv.is_empty() => pick(
                        kv.iter()
                            .filter_map(|(k, v)| {
                                let k = match k.bare() {
                                    Expr::Str(s) => Some(s.clone()),
                                    _ => None,
                                };
                                v.bare().dotted().map(|c| (k, c.rsplit('.').next().unwrap_or_default().to_string()))
                            })
                            .collect(),
                    ),
                    Expr::Dict(_) | Expr::Call { .. } => {
                        // filled by a decorator: the functions that store a class into `r`
                        let fillers: Vec<&str> = self
                            .ix
                            .files
                            .iter()
                            .flat_map(|f| f.flow.iter())
                            .filter(|d| {
                                d.stmts.iter().any(|s| {
                                    matches!(&s.kind, StmtKind::Assign { targets, .. }
                                        if targets.iter().any(|t| matches!(t.bare(), Expr::Sub(b, _) if matches!(b.bare(), Expr::Name(x) if x == r))))
                                })
                            })
                            .map(|d| d.outer.as_deref().unwrap_or(d.name.as_str()))
                            .collect();
                        if fillers.is_empty() {
                            return None;
                        }
                        let mut cands = Vec::new();
                        for f in &self.ix.files {
                            for d in
                                f.flow.iter().filter(|d| d.kind == DefKind::Class || (d.kind == DefKind::Function && d.class.is_none()))
                            {
                                for (i, dec) in d.decorators.iter().enumerate() {
                                    let fname = dec.rsplit('.').next().unwrap_or_default();
                                    if fillers.contains(&fname) {
                                        // (the name it is registered under, where the decorator is given one)
                                        let k = d.decorator_keys.get(i).filter(|k| !k.is_empty()).cloned();
                                        cands.push((k, d.name.to_string()));
                                    }
                                }
                            }
                        }
                        pick(cands)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A call of a module held in an instance field: the project module's forward with the
    /// arguments, or for a library layer its output: probabilities after a final sigmoid or
    /// softmax, scores otherwise.
    fn layer_call(&mut self, o: &Rc<Object>, attr: &str, args: &[Expr], cx: &Ctx, parent: Option<usize>) -> Val {
        let keep = self.nodes.len();
        let field = self.field(o, attr, cx, None);
        self.cut(keep);
        match field {
            Some(Val::Obj(inner)) => match self.ix.callable(&inner.class).first() {
                Some(&f) if cx.depth < MAX_CALLS => {
                    let env = Rc::new(Env {
                        args: args.to_vec(),
                        kwargs: Vec::new(),
                        caller: Some(cx.clone()),
                        vals: Vec::new(),
                        recv: Some(inner),
                    });
                    let c = Ctx { def: f, at: usize::MAX, env: Some(env), depth: cx.depth + 1 };
                    self.returns(&c, parent)
                }
                _ => Val::unknown(format!("{} has no forward or __call__", inner.class)),
            },
            _ => {
                let mro = self.ix.mro(&o.class);
                let store = self
                    .ix
                    .stores(attr)
                    .iter()
                    .copied()
                    .find(|(id, _)| self.ix.def(*id).class.as_deref().is_some_and(|c| mro.iter().any(|m| m == c)));
                let last = store.and_then(|(id, si)| match &self.ix.def(id).stmts[si].kind {
                    StmtKind::Assign { value, .. } => match self.last_layer(value, id, si, None, 0) {
                        Some(Layer::Named(n)) => Some(n),
                        _ => None,
                    },
                    _ => None,
                });
                // a one-wide table (`nn.Embedding(n, 1)`) holds a learned number per id: a
                // bias or a logit, raw like a layer's output
                let one_wide = store.is_some_and(|(id, si)| match &self.ix.def(id).stmts[si].kind {
                    StmtKind::Assign { value: Expr::Call { args, kwargs, .. }, .. } => args
                        .get(1)
                        .or(kwargs.iter().find(|(k, _)| k == "embedding_dim").map(|(_, v)| v))
                        .is_some_and(|w| matches!(w.bare(), Expr::Int(1))),
                    _ => false,
                });
                match last.as_deref() {
                    Some(l) if squashes_to_probs(l) => Val::Float(Some(Norm::Probs)),
                    Some("Embedding" | "EmbeddingBag") if one_wide => {
                        self.mark(parent, Tag::ModelOutput, format!("`self.{attr}` gives a learned number per id (raw)"));
                        Val::Float(Some(Norm::Raw))
                    }
                    Some("Embedding" | "EmbeddingBag") => Val::Float(None),
                    Some(l) => {
                        self.mark(parent, Tag::ModelOutput, format!("`self.{attr}` gives raw scores"));
                        // squashed into [-1, 1], or built the way a module beside it is, which
                        // ends in a sigmoid: the line that builds it chose its range
                        let why = if squashes_to_signed_unit(l) {
                            Some(format!("`self.{attr}` ends in `{l}`, which {SIGNED_SQUASH}"))
                        } else {
                            store
                                .and_then(|st| self.squashed_sibling(st, attr))
                                .map(|sib| format!("`self.{attr}` ends in a bare `{l}` where `self.{sib}` {RAW_BESIDE_SQUASHED}"))
                        };
                        if let Some(((id, si), what)) = store.zip(why) {
                            let c = Ctx { def: id, at: si, env: None, depth: cx.depth };
                            self.node(&c, si, Tag::Pass, what, parent);
                        }
                        Val::Float(Some(Norm::Raw))
                    }
                    None => Val::unknown(format!("`self.{attr}` is not modelled")),
                }
            }
        }
    }

    /// The value a name has at `cx` when it is a function or an instance (a callee).
    fn name_value(&mut self, name: &str, cx: &Ctx, _parent: Option<usize>) -> Option<Val> {
        let d = self.def(cx);
        // assigned, or a loop's name (`for t in self.transforms: x = t(x)`)
        let bound_locally = d.stmts.iter().take(cx.at.min(d.stmts.len())).any(|s| match &s.kind {
            StmtKind::Assign { targets, .. } => targets.iter().any(|t| pattern_pos(t, name).is_some()),
            StmtKind::For { target, .. } => pattern_pos(target, name).is_some(),
            _ => false,
        }) || d.param_index(name).is_some();
        if !bound_locally && self.ix.globals(name).is_empty() {
            return None;
        }
        // tracing a callee's value makes no chain nodes of its own
        let keep = self.nodes.len();
        let v = self.name(name, cx, None);
        self.cut(keep);
        Some(v)
    }

    fn loader(&mut self, args: &[Expr], kwargs: &[(Text, Expr)], cx: &Ctx, parent: Option<usize>) -> Val {
        let kw = |k: &str| kwargs.iter().find(|(n, _)| n == k).map(|(_, e)| e);
        let ds = args.first().or(kw("dataset")).map(|a| self.expr(a, cx, parent)).unwrap_or(Val::unknown("dataset"));
        // a batch is an element of the loader, a sample one of the batch
        let item = self.in_elem(|tr| {
            tr.in_elem(|tr| match &ds {
                Val::Obj(o) => tr.dataset_item(o.clone(), parent),
                other => other.element(),
            })
        });
        let collate = kw("collate_fn").map(|c| self.expr(c, cx, parent));
        // `functools.partial(collate, pad=…)`: the keywords it binds, read where it is written
        let bound = kw("collate_fn").and_then(|c| partial_keywords(self.ix, c, cx));
        let batch = match collate {
            Some(Val::Func(f)) => {
                let (kwargs, caller) = bound.map_or((Vec::new(), None), |(k, c)| (k, Some(c)));
                let env = Rc::new(Env {
                    args: Vec::new(),
                    kwargs,
                    caller,
                    vals: vec![(
                        self.ix.def(f).params.first().map(|p| p.name.to_string()).unwrap_or_default(),
                        Val::Seq { elem: Box::new(item), len: None, most: None },
                    )],
                    recv: None,
                });
                let c = Ctx { def: f, at: usize::MAX, env: Some(env), depth: cx.depth + 1 };
                self.in_elem(|tr| tr.returns(&c, parent))
            }
            Some(Val::Obj(o)) => {
                let m = self.ix.method(&o.class, "__call__");
                match m.first() {
                    Some(&f) => {
                        let pname = self.ix.def(f).params.get(1).map(|p| p.name.to_string()).unwrap_or_default();
                        let env = Rc::new(Env {
                            args: Vec::new(),
                            kwargs: Vec::new(),
                            caller: None,
                            vals: vec![(pname, Val::Seq { elem: Box::new(item), len: None, most: None })],
                            recv: Some(o),
                        });
                        let c = Ctx { def: f, at: usize::MAX, env: Some(env), depth: cx.depth + 1 };
                        self.in_elem(|tr| tr.returns(&c, parent))
                    }
                    None => item,
                }
            }
            _ => item,
        };
        Val::Seq { elem: Box::new(batch), len: None, most: None }
    }

    fn mapped(&mut self, base: &Val, f: &Expr, cx: &Ctx, parent: Option<usize>) -> Val {
        let fv = match f.bare() {
            Expr::Lambda { params, body } => {
                let vals = params.first().map(|p| vec![(p.to_string(), base.element())]).unwrap_or_default();
                let body = (**body).clone();
                return Val::Seq {
                    elem: Box::new(self.with_vals(cx, &vals, |tr, c| tr.expr(&body, c, parent))),
                    len: base.len(),
                    most: base.most(),
                };
            }
            other => self.expr(other, cx, parent),
        };
        match fv {
            Val::Map { val, .. } => {
                self.mark(parent, Tag::Lookup, format!("maps through `{}`", short(f)));
                Val::Seq { elem: val, len: base.len(), most: base.most() }
            }
            Val::Func(id) => {
                let pname = self.ix.def(id).params.first().map(|p| p.name.to_string()).unwrap_or_default();
                let env =
                    Rc::new(Env { args: Vec::new(), kwargs: Vec::new(), caller: None, vals: vec![(pname, base.element())], recv: None });
                let c = Ctx { def: id, at: usize::MAX, env: Some(env), depth: cx.depth + 1 };
                Val::Seq { elem: Box::new(self.returns(&c, parent)), len: base.len(), most: base.most() }
            }
            other => other,
        }
    }

    /// A number parsed out of the text `of` (`int(name.split("_")[0])`): an origin of its own,
    /// its range not known.
    fn parsed(&mut self, of: &Expr, cx: &Ctx, parent: Option<usize>) -> Val {
        let d = self.def(cx);
        let stmt = cx.at.min(d.stmts.len().saturating_sub(1));
        let node = self.node(cx, stmt, Tag::Parsed, format!("{PARSES} `{}`", short(of)), parent);
        let v = Val::Int(Range { lo: None, hi: None });
        self.finish(node, &v);
        v
    }

    /// The exponential of `x` (or the log of a sum of exponentials): of scores or probabilities,
    /// unbounded; anything else passes.
    fn exponential(&mut self, x: &Expr, cx: &Ctx, parent: Option<usize>) -> Val {
        let x = self.expr(x, cx, parent);
        if matches!(x.element_deep(), Val::Float(_)) {
            Val::Float(Some(Norm::Raw))
        } else {
            x
        }
    }

    /// A sum over `dim` of a product of probabilities and weights a softmax made (attention
    /// pooling, a mixture): a probability when the softmax normalized over the summed dimension
    /// (the weights sum to one there). Over another dimension the weights do not, and the line
    /// to change is the softmax's. None: not such a sum, or the dimensions cannot be compared
    /// (a dimension not written as a number, or one counted from the end and one from the start).
    fn weighted_sum(&mut self, of: &Expr, dim: Option<&Expr>, base: &Val, keep: usize, parent: Option<usize>) -> Option<Val> {
        if !matches!(of.bare(), Expr::Bin(op, _, _) if op == "*") || !matches!(base.element_deep(), Val::Float(Some(Norm::Probs))) {
            return None;
        }
        let summed = dim.and_then(int_literal)?;
        let (made, over) = (keep..self.nodes.len()).find_map(|i| match self.nodes[i].tag {
            Tag::Normalize(over) if self.nodes[i].parent == parent => Some((i, over)),
            _ => None,
        })?;
        let over = over?;
        if (over < 0) != (summed < 0) {
            return None;
        }
        if over == summed {
            return Some(Val::Float(Some(Norm::Probs)));
        }
        let n = &mut self.nodes[made];
        n.tag = Tag::Scale(Scaling::Arith);
        n.what = format!("normalizes over dim={over}, but the weighted sum runs over dim={summed}: the weights do not sum to one there, so the result can leave [0, 1]");
        Some(Val::Float(Some(Norm::Raw)))
    }

    fn aggregate(&mut self, name: &str, base: &Val, func: &Expr, cx: &Ctx, parent: Option<usize>) -> Val {
        match name {
            // a sum of probabilities (a blend of several heads' outputs) is no probability; a
            // sum of scores stays scores
            "sum" if matches!(base.element_deep(), Val::Float(_)) => {
                if matches!(base.element_deep(), Val::Float(Some(Norm::Probs))) {
                    self.mark(parent, Tag::Scale(Scaling::Sum), "sums probabilities: the total can leave [0, 1]".into());
                }
                Val::Float(Some(Norm::Raw))
            }
            "max" => match base.range().and_then(|r| r.hi) {
                Some(h) => {
                    self.mark(parent, Tag::Max, format!("takes the largest value (`{}`)", func.dotted().unwrap_or_default()));
                    Val::Int(Range::exact(h))
                }
                None => {
                    self.mark(parent, Tag::Max, "takes the largest value".into());
                    Val::Int(Range { lo: None, hi: self.fresh_root(cx, parent, "max") })
                }
            },
            "min" => Val::Int(Range { lo: base.range().and_then(|r| r.lo), hi: None }),
            "nunique" | "unique" => {
                // the distinct values themselves keep their values; their number is a count
                if name == "nunique" {
                    self.mark(parent, Tag::Distinct, "counts the distinct values".into());
                }
                let len = match base.distinct() {
                    Some(d) => Some(Sym::num(d)),
                    None => self.fresh_root(cx, parent, "distinct"),
                };
                if name == "unique" {
                    Val::Seq { elem: Box::new(base.element()), len, most: None }
                } else {
                    Val::Int(Range::exact(len.unwrap_or(Sym::num(0))))
                }
            }
            "size" | "numel" | "__len__" | "count" => match base.len() {
                Some(l) => Val::Int(Range::exact(l)),
                None => Val::unknown("a size"),
            },
            "argmax" | "argmin" => Val::Int(Range { lo: Some(Sym::num(0)), hi: None }),
            _ => Val::unknown(format!("`{name}`")),
        }
    }

    /// Probabilities `src` added up into shared slots by `how`: the line that does it, or,
    /// where `src` is a parameter of a function that only adds up what it is given (a project's
    /// `scatter_sum(src, index, n)`), the caller's line that hands it probabilities.
    fn summed(&mut self, src: &Expr, how: &str, cx: &Ctx, parent: Option<usize>) {
        let d = self.def(cx);
        let given = matches!(src.bare(), Expr::Name(n) if d.params.iter().any(|p| p.name == *n)) && cx.env.is_some();
        let caller = parent.filter(|_| given).and_then(|p| {
            let scope = self.nodes[p].scope.clone();
            let mut at = self.nodes[p].parent;
            while let Some(a) = at {
                if self.nodes[a].scope != scope {
                    return Some(a);
                }
                at = self.nodes[a].parent;
            }
            None
        });
        match caller {
            Some(c) => {
                let what = format!("hands probabilities to `{}`, which adds them up (`{how}`): a total can leave [0, 1]", d.qualified());
                self.mark(Some(c), Tag::Scale(Scaling::Sum), what)
            }
            None => self.mark(parent, Tag::Scale(Scaling::Sum), format!("adds probabilities up (`{how}`): a total can leave [0, 1]")),
        }
    }

    /// A clamp called as a method of `on` (`x.clamp(lo, hi)`), or as a function that takes the
    /// value first (`np.clip(x, lo, hi)`, `torch.clamp(x, min=…)`; numpy names them `a_min`,
    /// `a_max`).
    fn clamp_call(&mut self, on: Option<&Expr>, args: &[Expr], kwargs: &[(Text, Expr)], cx: &Ctx, parent: Option<usize>) -> Val {
        let kw = |k: &str| kwargs.iter().find(|(n, _)| n == k).map(|(_, e)| e);
        let (value, bounds) = match on {
            Some(r) => (Some(r), args),
            None => (args.first(), args.get(1..).unwrap_or(&[])),
        };
        let v = value.map(|a| self.expr(a, cx, parent)).unwrap_or(Val::unknown("clamp"));
        let (lo, hi) = if on.is_some() { (kw("min"), kw("max")) } else { (kw("min").or(kw("a_min")), kw("max").or(kw("a_max"))) };
        self.clamped(v, bounds.first().or(lo), bounds.get(1).or(hi), cx, parent)
    }

    fn clamped(&mut self, v: Val, lo: Option<&Expr>, hi: Option<&Expr>, cx: &Ctx, parent: Option<usize>) -> Val {
        let l = lo.map(|e| self.expr(e, cx, parent));
        let h = hi.map(|e| self.expr(e, cx, parent));
        self.mark(parent, Tag::Narrow, "clamps the value".into());
        match v {
            Val::Float(_) => {
                let unit = |x: &Option<Val>| matches!(x, Some(Val::Int(_)) | Some(Val::Float(_)));
                if unit(&l) && unit(&h) {
                    Val::Float(Some(Norm::Probs))
                } else {
                    Val::Float(Some(Norm::Raw))
                }
            }
            _ => {
                let end = |x: Option<Val>, lower: bool| match x {
                    Some(Val::Int(r)) => {
                        if lower {
                            r.lo
                        } else {
                            r.hi
                        }
                    }
                    _ => None,
                };
                Val::Int(Range { lo: end(l, true), hi: end(h, false) })
            }
        }
    }

    /// The number of distinct values of a sequence: of one column of a file the scan did not
    /// read, over one list (`{t.family for t in taxa}` in one module, `set(t.family for t in
    /// taxa)` in another), the same number wherever it is counted; else a root of its own.
    fn distinct_root(&mut self, cx: &Ctx, parent: Option<usize>, of: &Val) -> Option<Sym> {
        let column = match of.element() {
            Val::Unknown(why) => {
                why.strip_prefix("column `").and_then(|r| r.strip_suffix(&format!("` {UNREAD_TABLE}"))).map(str::to_string)
            }
            _ => None,
        };
        match (column, of.len().and_then(|l| l.root.clone().map(|r| (r, l.off)))) {
            (Some(c), Some((over, off))) => Some(Sym::root(&format!("distinct@`{c}` of {over}{off:+}"))),
            _ => self.fresh_root(cx, parent, "distinct"),
        }
    }

    /// A new shared root for a size the tracing cannot compute, named by where it is made.
    fn fresh_root(&mut self, cx: &Ctx, parent: Option<usize>, what: &str) -> Option<Sym> {
        let line = parent.map(|p| self.nodes[p].line).unwrap_or(self.def(cx).span.line);
        Some(Sym::root(&format!("{what}@{}:{line}", self.ix.path(cx.def))))
    }

    /// `mean, freq = stats(x)` where every return of `stats` is a tuple of names and the name
    /// it returns at `n`'s position is one the caller unpacks at another (`stats` returns `freq,
    /// mean`): the names cross, the caller reads one value under the other's name. (A function
    /// returning its own parameters, `def swap(a, b): return b, a`, trades them on purpose.)
    fn swapped(&self, t: &Expr, n: &str, pos: &[usize], value: &Expr) -> Option<String> {
        let (Expr::Seq(SeqKind::Tuple | SeqKind::List, targets), [p]) = (t.bare(), pos) else { return None };
        let Expr::Call { func, .. } = value.bare() else { return None };
        let name = func.last_name()?;
        let mut returned: Option<String> = None;
        for &id in self.ix.functions(name) {
            let d = self.ix.def(id);
            for s in &d.stmts {
                let StmtKind::Return(Some(e)) = &s.kind else { continue };
                let Expr::Seq(SeqKind::Tuple, xs) = e.bare() else { return None };
                if xs.len() != targets.len() {
                    return None;
                }
                let here = xs.get(*p).and_then(|x| match x.bare() {
                    Expr::Name(m) => Some(m.to_string()),
                    _ => None,
                })?;
                let crossed = targets.iter().enumerate().any(|(q, t)| q != *p && t.bare().last_name() == Some(here.as_str()));
                if !crossed || here == n || d.params.iter().any(|a| a.name == here.as_str()) {
                    return None;
                }
                returned = Some(here);
            }
        }
        let here = returned?;
        Some(format!("unpacks `{n}` from the position where `{name}` returns `{here}`, a name this line gives another position"))
    }

    /// Drops the nodes from `keep` on (a tracing done aside), and the links older nodes had to
    /// them (a thunk forced aside hangs its nodes under the node it was made under).
    pub fn cut(&mut self, keep: usize) {
        if self.nodes.len() <= keep {
            return;
        }
        self.nodes.truncate(keep);
        for n in &mut self.nodes {
            n.children.retain(|&c| c < keep);
        }
        let memo = &mut self.memo;
        self.uncopied.retain(|(n, key)| {
            if *n >= keep {
                memo.remove(key);
            }
            *n < keep
        });
    }

    /// A function whose values lie in [-1, 1] (a cosine similarity, a `tanh`): scores, not
    /// probabilities; the line that makes them is said to.
    fn signed_unit(&mut self, f: &str, parent: Option<usize>) -> Val {
        self.mark(parent, Tag::Scale(Scaling::Arith), format!("`{f}` {SIGNED_UNIT}"));
        Val::Float(Some(Norm::Raw))
    }

    fn mark(&mut self, node: Option<usize>, tag: Tag, what: String) {
        // (an operand traced aside, `len(xs)` in `a * len(xs) + b`, does not say what the
        // value's line does: its nodes are auxiliary, the line's is not)
        if let Some(n) = node.filter(|&n| self.aux == 0 || self.nodes[n].aux) {
            if matches!(self.nodes[n].tag, Tag::Pass | Tag::Lookup) {
                self.nodes[n].tag = tag;
                // (a save on the same line stays said: the data went through a file)
                self.nodes[n].what = match &self.nodes[n].what {
                    old if old.ends_with(READ_BACK) => format!("{what} ({old})"),
                    _ => what,
                };
            }
        }
    }
}

trait NoneOrEq {
    fn is_none_or_eq(&self, x: usize) -> bool;
}

impl NoneOrEq for Option<usize> {
    fn is_none_or_eq(&self, x: usize) -> bool {
        self.map_or(true, |v| v == x)
    }
}

trait NoneOrModule {
    fn is_none_or_module(&self) -> bool;
}

impl NoneOrModule for Option<&Expr> {
    /// `max(x)` or `np.max(x)` / `torch.max(x)`: a function, not a method of the value.
    fn is_none_or_module(&self) -> bool {
        match self {
            None => true,
            Some(e) => matches!(e.dotted().as_deref(), Some("np" | "numpy" | "torch" | "builtins" | "math" | "random")),
        }
    }
}

/// What arithmetic on floats gives: a product of probabilities is a probability, anything else
/// (a sum, a scale by a weight nothing bounds) is scores.
fn float_arith(op: &str, a: &Val, b: &Val) -> Option<Norm> {
    let probs = |v: &Val| matches!(v, Val::Float(Some(Norm::Probs)));
    if op == "*" && probs(a) && probs(b) {
        Some(Norm::Probs)
    } else {
        Some(Norm::Raw)
    }
}

/// A two-dimensional value with its dimensions swapped: rows of tuples `(a, b)` become the
/// tuple of the columns, rows of rows stay rows of rows; other values are kept.
fn transposed(v: Val) -> Val {
    match v {
        Val::Seq { elem, len, most } => match *elem {
            Val::Tuple(xs) => {
                Val::Tuple(xs.into_iter().map(|x| Val::Seq { elem: Box::new(x), len: len.clone(), most: most.clone() }).collect())
            }
            Val::Seq { elem: inner, len: ilen, most: imost } => {
                Val::Seq { elem: Box::new(Val::Seq { elem: inner, len, most }), len: ilen, most: imost }
            }
            other => Val::Seq { elem: Box::new(other), len, most },
        },
        other => other,
    }
}

trait JoinMax {
    fn join_max(&self, o: &Option<Sym>) -> Option<Sym>;
}

impl JoinMax for Option<Sym> {
    fn join_max(&self, o: &Option<Sym>) -> Option<Sym> {
        match (self, o) {
            (Some(a), Some(b)) => match a.minus(b) {
                Some(d) if d >= 0 => Some(a.clone()),
                Some(_) => Some(b.clone()),
                None => None,
            },
            _ => None,
        }
    }
}

/// The argument a positional parameter (`pi`, after `offset` receivers) gets at a call: the
/// argument in its place, or a position of the tuple a `*args` spreads (`f(*inputs)` gives
/// parameter 3 `inputs[3]`).
/// Whether an argument, as written in the function `at` that passes it, is `None`: a literal
/// `None` is, a literal, display, arithmetic or a call (but `d.get(k)`) is not, and a name is not
/// when `at` never binds it to what may be `None` (`None`, `d.get(k)`, `a if c else b`, a `None`
/// default); anything else is not known.
fn none_as_written(a: &Expr, at: &Def) -> Option<bool> {
    let may_be_none = |x: &Expr| match x.bare() {
        Expr::Const(k) => k.as_str() == "None",
        Expr::IfElse(..) => true,
        Expr::Call { func, .. } => matches!(func.bare(), Expr::Attr(_, m) if m.as_str() == "get"),
        _ => false,
    };
    match a {
        Expr::Const(k) => Some(k.as_str() == "None"),
        Expr::Call { .. } if may_be_none(a) => None,
        Expr::Int(_)
        | Expr::Float(_)
        | Expr::Str(_)
        | Expr::Seq(..)
        | Expr::Dict(_)
        | Expr::Comp { .. }
        | Expr::Call { .. }
        | Expr::Bin(..)
        | Expr::Sub(..) => Some(false),
        Expr::Name(n) => {
            let mut bound = false;
            for q in at.params.iter().filter(|q| q.name == *n) {
                bound = true;
                if q.default.as_ref().is_some_and(may_be_none) {
                    return None;
                }
            }
            for s in &at.stmts {
                if let StmtKind::Assign { targets, value, .. } = &s.kind {
                    if targets.iter().any(|t| matches!(t.bare(), Expr::Name(x) if x == n)) {
                        bound = true;
                        if may_be_none(value) {
                            return None;
                        }
                    }
                }
            }
            bound.then_some(false)
        }
        Expr::At(_, x) => none_as_written(x, at),
        _ => None,
    }
}

pub fn positional(args: &[Expr], pi: usize, offset: usize) -> Option<Expr> {
    let k = pi.checked_sub(offset)?;
    for (j, a) in args.iter().enumerate() {
        if let Expr::Star(inner) = a.bare() {
            // `**kwargs` is a Star too, but comes after the positional ones
            return Some(Expr::Sub(inner.clone(), Box::new(Expr::Int((k - j.min(k)) as i64)))).filter(|_| k >= j);
        }
        if j == k {
            return Some(a.clone());
        }
    }
    None
}

/// Whether `e` is read from outside the program when it runs: a command-line argument
/// (`sys.argv[1]`) or an environment variable (`os.environ["CFG"]`, `os.getenv("CFG")`).
fn from_outside(e: &Expr) -> bool {
    let outside = |f: &Expr| {
        f.dotted().is_some_and(|d| d.ends_with("argv") || d.ends_with("environ") || d.ends_with("getenv") || d.ends_with("environ.get"))
    };
    match e.bare() {
        Expr::Sub(o, _) => outside(o),
        Expr::Call { func, .. } => outside(func),
        _ => false,
    }
}

/// The argument a call gives parameter `name` at position `pi`, by keyword or by position
/// (`offset`: the parameters before the call's first argument, `self`).
pub(super) fn given(args: &[Expr], kwargs: &[(Text, Expr)], name: &str, pi: usize, offset: usize) -> Option<Expr> {
    kwargs.iter().find(|(k, _)| k == name).map(|(_, e)| e.clone()).or_else(|| positional(args, pi, offset))
}

/// Whether a file name written by the project names the file `name`: the same name, or a
/// template whose placeholders (`%s`, `{split}`) stand for the parts that differ
/// (`"%s.json" % name` writes `train.json` and `val.json`).
/// The names a listing of a directory takes: a glob pattern, less the names that end in a
/// suffix the listing leaves out, and only those ending in a suffix it keeps (when it keeps by
/// suffix at all).
struct Listing {
    pattern: String,
    drop: Vec<String>,
    keep: Vec<String>,
}

impl Listing {
    fn new(pattern: String) -> Listing {
        Listing { pattern, drop: Vec::new(), keep: Vec::new() }
    }

    /// Whether a name a project writes (holes such as `{i:06d}` or `%s` standing for a part
    /// of it) is one the listing takes.
    fn takes(&self, written: &str) -> bool {
        // a name of that form, a hole given one character
        let sample = name_hole().replace_all(written, "0");
        let Ok(glob) = globset::Glob::new(&self.pattern) else { return false };
        glob.compile_matcher().is_match(sample.as_ref())
            && !self.drop.iter().any(|s| sample.ends_with(s.as_str()))
            && (self.keep.is_empty() || self.keep.iter().any(|s| sample.ends_with(s.as_str())))
    }
}

/// A part of a file name a program fills in (`%03d`, `{i:06d}`, `{split}`).
fn name_hole() -> &'static regex::Regex {
    static HOLE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    HOLE.get_or_init(|| regex::Regex::new(r"%[-+ 0#]*[0-9]*(?:\.[0-9]+)?[sdirfxg]|\{[^{}]*\}").unwrap())
}

fn file_name_fits(written: &str, name: &str) -> bool {
    let hole = name_hole();
    if !hole.is_match(written) {
        return written == name;
    }
    let pieces: Vec<&str> = hole.split(written).collect();
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if !name.starts_with(first) || !name[first.len()..].ends_with(last) {
        return false;
    }
    // the pieces between, in order, in what is left
    let mut rest = &name[first.len()..name.len() - last.len()];
    for p in &pieces[1..pieces.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    // each placeholder stands for something
    pieces.iter().map(|p| p.len()).sum::<usize>() < name.len()
}

/// The `for` clauses of the comprehensions of a statement that hold a call with these
/// arguments, outermost first.
fn enclosing_gens(kind: &StmtKind, args: &[Expr]) -> Vec<(Expr, Expr)> {
    let mut out = Vec::new();
    stmt_exprs(kind, &mut |e| {
        if let Expr::Comp { elt, value, gens, .. } = e {
            let mut holds = false;
            let mut look = |x: &Expr| {
                if let Expr::Call { args: a, .. } = x {
                    holds |= a.as_slice() == args;
                }
            };
            elt.walk(&mut look);
            if let Some(v) = value {
                v.walk(&mut look);
            }
            if holds {
                out.extend(gens.iter().cloned());
            }
        }
    });
    out
}

/// The `for` clauses, up to the one that binds `n`, of a comprehension in a statement, when
/// no clause's iterable reads `n` itself.
fn comprehension_binding(kind: &StmtKind, n: &str) -> Option<Vec<(Expr, Expr)>> {
    let mut out = None;
    stmt_exprs(kind, &mut |e| {
        if out.is_some() {
            return;
        }
        if let Expr::Comp { gens, .. } = e {
            if let Some(k) = gens.iter().position(|(t, _)| pattern_pos(t, n).is_some()) {
                let mut reads = Vec::new();
                gens[..=k].iter().for_each(|(_, it)| it.names(&mut reads));
                if !reads.iter().any(|r| r.as_str() == n) {
                    out = Some(gens[..=k].to_vec());
                }
            }
        }
    });
    out
}

/// The `if` (or `while`) statement a statement `i` of `d` sits directly under, when the read at
/// statement `at` is outside that block: the assignment at `i` may not run before the read.
fn branch_header(d: &Def, i: usize, at: usize, n: &str) -> Option<usize> {
    let nest = d.stmts.get(i)?.nest;
    let read = d.stmts.get(at).map_or(0, |s| s.nest);
    if nest <= read {
        return None;
    }
    let h = (0..i).rev().find(|&j| d.stmts[j].nest < nest)?;
    let StmtKind::Cond(test) = &d.stmts[h].kind else { return None };
    // (a test of the function's own parameters, `if max_len is not None:`, is an option its
    // callers choose, not a branch the data takes; but a parameter given a default where it is
    // None, `if ids is None: ids = …`, keeps what the callers pass when they pass one)
    let mut names = Vec::new();
    test.names(&mut names);
    let defaulted = names.len() == 1 && names[0] == n && none_test(test);
    let option = !defaulted && !names.is_empty() && names.iter().all(|n| d.params.iter().any(|p| p.name == *n));
    (d.stmts[h].nest + 1 == nest && d.stmts[h].nest >= read && !option).then_some(h)
}

/// Whether a test asks only whether its name is None (`x is None`, `x is not None`, `not x`).
fn none_test(test: &Expr) -> bool {
    match test.bare() {
        Expr::Unary(op, x) if op.as_str() == "not" => matches!(x.bare(), Expr::Name(_)) || none_test(x),
        Expr::Test(op, xs) => {
            matches!(op.as_str(), "is" | "is not")
                && matches!(xs.iter().map(Expr::bare).collect::<Vec<_>>()[..], [Expr::Name(_), Expr::Const(k)] if k.as_str() == "None")
        }
        _ => false,
    }
}

/// Joins `v` into the values found so far.
fn join_into(out: &mut Option<Val>, v: Val) {
    *out = Some(match out.take() {
        Some(a) => a.join(&v),
        None => v,
    });
}

/// The call a module was built by, seen from inside a function of the project's own that builds
/// and returns it (`def make_head(d, out=None): … return nn.Sequential(*layers)`): a parameter
/// there is the argument this call gives it, else its default.
struct Built<'a, 'g> {
    args: &'a [Expr],
    kwargs: &'a [(Text, Expr)],
    def: DefId,
    at: usize,
    outer: Option<&'g Built<'a, 'g>>,
}

/// What a module's last layer is, as far as its construction says.
#[derive(Debug, Clone, PartialEq)]
enum Layer {
    /// The class of the layer (`Sigmoid`, `Linear`, `Tanh`).
    Named(String),
    /// `None` where a layer goes (`layers.append(final)` with `final=None`): nothing added.
    Absent,
}

/// Layers whose outputs lie in [0, 1].
fn squashes_to_probs(layer: &str) -> bool {
    matches!(layer, "Sigmoid" | "Softmax" | "LogSigmoid" | "Hardsigmoid")
}

/// Layers whose outputs lie in [-1, 1] (`signed_unit`'s functions as modules).
fn squashes_to_signed_unit(layer: &str) -> bool {
    matches!(layer, "Tanh" | "Hardtanh" | "Softsign")
}

impl<'a, 'i> Tracer<'a, 'i> {
    /// The last layer the module that `e` builds (in `def`, before statement `at`) applies:
    /// through `nn.Sequential`, lists of layers appended to, `.to(…)`, and functions of the
    /// project's own that build the module and return it (their parameters bound to the call's
    /// arguments).
    fn last_layer(&self, e: &'a Expr, def: DefId, at: usize, built: Option<&Built<'a, '_>>, hops: usize) -> Option<Layer> {
        let d = self.ix.def(def);
        match e.bare() {
            Expr::Seq(_, xs) => return self.last_of(xs, def, at, built, hops),
            Expr::Star(x) | Expr::Unary(_, x) => return self.last_layer(x, def, at, built, hops),
            Expr::Const(c) if c == "None" => return Some(Layer::Absent),
            Expr::Name(n) => {
                let listed = d.stmts[..at.min(d.stmts.len())].iter().any(|s| match &s.kind {
                    StmtKind::Assign { targets, .. } => targets.iter().any(|t| t.dotted().as_deref() == Some(n.as_str())),
                    _ => false,
                });
                if !listed {
                    if let (Some(pi), Some(b)) = (d.param_index(n), built) {
                        let offset = usize::from(d.is_method());
                        let given =
                            pi.checked_sub(offset).and_then(|i| b.args.get(i)).or(b.kwargs.iter().find(|(k, _)| k == n).map(|(_, v)| v));
                        return match given {
                            Some(g) => self.last_layer(g, b.def, b.at, b.outer, hops),
                            None => d.params[pi].default.as_ref().and_then(|x| self.last_layer(x, def, at, None, hops)),
                        };
                    }
                }
                return self.last_listed(n, def, at, built, hops);
            }
            _ => {}
        }
        let Expr::Call { func, args, kwargs } = e.bare() else { return None };
        let name = func.last_name()?;
        if name == "Sequential" || name == "ModuleList" {
            return self.last_of(args, def, at, built, hops);
        }
        if let Expr::Attr(o, m) = &**func {
            if m == "to" || m == "cuda" {
                return self.last_layer(o, def, at, built, hops);
            }
        }
        // a function of the project's own that builds the module: what it returns, built by
        // this call
        let own = match self.ix.functions(name) {
            [f] if hops < 3 && self.ix.def(*f).class.is_none() => Some(*f),
            _ => None,
        };
        if let Some(f) = own {
            let fd = self.ix.def(f);
            let ret = fd.stmts.iter().enumerate().rev().find_map(|(i, s)| match &s.kind {
                StmtKind::Return(Some(r)) => Some((i, r)),
                _ => None,
            });
            let Some((ri, r)) = ret else { return Some(Layer::Named(name.to_string())) };
            let call = Built { args, kwargs, def, at, outer: built };
            return self.last_layer(r, f, ri, Some(&call), hops + 1).or(Some(Layer::Named(name.to_string())));
        }
        Some(Layer::Named(name.to_string()))
    }

    /// Another module the constructor that stores `store` builds by the same call (the same
    /// function of the project's own, or `nn.Sequential` both), ending in a sigmoid where
    /// this one does not: its field's name.
    fn squashed_sibling(&self, store: StmtId, attr: &str) -> Option<String> {
        let (id, si) = store;
        let d = self.ix.def(id);
        let callee = |k: &StmtKind| match k {
            StmtKind::Assign { value: Expr::Call { func, .. }, .. } => func.last_name().map(str::to_string),
            _ => None,
        };
        let own = callee(&d.stmts[si].kind)?;
        d.stmts.iter().enumerate().find_map(|(i, s)| {
            let StmtKind::Assign { targets, value, .. } = &s.kind else { return None };
            let [t] = targets.as_slice() else { return None };
            let Expr::Attr(o, f) = t.bare() else { return None };
            if !matches!(o.bare(), Expr::Name(n) if n == "self") || f == attr || callee(&s.kind).as_deref() != Some(own.as_str()) {
                return None;
            }
            match self.last_layer(value, id, i, None, 0) {
                Some(Layer::Named(l)) if l == "Sigmoid" || l == "Hardsigmoid" => Some(f.to_string()),
                _ => None,
            }
        })
    }

    /// The last of several layers that adds one (`None` adds nothing).
    fn last_of(&self, xs: &'a [Expr], def: DefId, at: usize, built: Option<&Built<'a, '_>>, hops: usize) -> Option<Layer> {
        for x in xs.iter().rev() {
            match self.last_layer(x, def, at, built, hops) {
                Some(Layer::Absent) => continue,
                other => return other,
            }
        }
        Some(Layer::Absent)
    }

    /// A list of layers built in `def` before statement `at` (`layers.append(nn.Linear(…))`,
    /// `layers += [...]`, `layers = [...]`): its last layer. An append of `None` adds nothing.
    fn last_listed(&self, name: &str, def: DefId, at: usize, built: Option<&Built<'a, '_>>, hops: usize) -> Option<Layer> {
        let d = self.ix.def(def);
        for (i, s) in d.stmts[..at.min(d.stmts.len())].iter().enumerate().rev() {
            match &s.kind {
                StmtKind::Expr(Expr::Call { func, args, .. }) => {
                    if let Expr::Attr(o, m) = &**func {
                        if o.dotted().as_deref() == Some(name) && (m == "append" || m == "extend") {
                            match args.last().and_then(|a| self.last_layer(a, def, i, built, hops)) {
                                Some(Layer::Absent) => continue,
                                other => return other,
                            }
                        }
                    }
                }
                StmtKind::Assign { targets, value, .. } if targets.iter().any(|t| t.dotted().as_deref() == Some(name)) => {
                    match self.last_layer(value, def, i, built, hops) {
                        Some(Layer::Absent) => continue,
                        other => return other,
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// An integer literal (`3`, `-1`).
/// The parts of a sum of two weighted terms whose weights sum to one: `(1 - w) * p + w * q`
/// (either order, either side of each product) or two literals adding to 1 (`0.7 * p + 0.3 *
/// q`).
fn blend<'e>(l: &'e Expr, r: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
    let product = |e: &'e Expr| match e.bare() {
        Expr::Bin(op, x, y) if op == "*" => Some((&**x, &**y)),
        _ => None,
    };
    let (lx, ly) = product(l)?;
    let (rx, ry) = product(r)?;
    // `1 - w` and `w`
    let rest = |e: &Expr, w: &Expr| match e.bare() {
        Expr::Bin(op, one, x) if op == "-" && number(one) == Some(1.0) => x.bare() == w.bare(),
        _ => false,
    };
    let sums = |a: &Expr, b: &Expr| {
        rest(a, b) || rest(b, a) || number(a).zip(number(b)).is_some_and(|(u, v)| (u + v - 1.0).abs() < 1e-9 && u > 0.0 && v > 0.0)
    };
    for (lw, lp) in [(lx, ly), (ly, lx)] {
        for (rw, rp) in [(rx, ry), (ry, rx)] {
            if sums(lw, rw) {
                return Some((lp, rp));
            }
        }
    }
    None
}

/// A number written as a literal, integer or float.
fn number(e: &Expr) -> Option<f64> {
    match e.bare() {
        Expr::Float(v) => Some(*v),
        Expr::Int(k) => Some(*k as f64),
        _ => None,
    }
}

/// The two terms of a mean written by hand: `c * (x + y)` with 0 < c <= 1/2, `(x + y) / d`
/// with d >= 2 (literals).
fn mean_terms<'e>(op: &str, l: &'e Expr, r: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
    let sum = |e: &'e Expr| match e.bare() {
        Expr::Bin(op, x, y) if op == "+" => Some((&**x, &**y)),
        _ => None,
    };
    match op {
        "*" => match (number(l), number(r)) {
            (Some(c), None) if c > 0.0 && c <= 0.5 => sum(r),
            (None, Some(c)) if c > 0.0 && c <= 0.5 => sum(l),
            _ => None,
        },
        "/" => number(r).filter(|&d| d >= 2.0).and_then(|_| sum(l)),
        _ => None,
    }
}

/// The tensor whose sizes `e` lists: `x.shape`, `x.size()`.
fn shape_of(e: &Expr) -> Option<&Expr> {
    match e.bare() {
        Expr::Attr(t, a) if &**a == "shape" => Some(t),
        Expr::Call { func, args, kwargs } if args.is_empty() && kwargs.is_empty() => match func.bare() {
            Expr::Attr(t, a) if &**a == "size" => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// The array a chain of subscripts reads a part of (`mask` of `mask[z]`, `grid[i][j]`), not
/// a column picked by name (`df["x"][i]`).
fn sub_root(e: &Expr) -> Option<&Expr> {
    match e.bare() {
        Expr::Sub(b, k) if !matches!(k.bare(), Expr::Str(_)) => sub_root(b),
        Expr::Sub(..) => None,
        other => Some(other),
    }
}

/// The number of cells of an array (the product of its dimensions' lengths, when they are
/// numbers or it has one dimension).
fn flat_len(v: &Val) -> Option<Sym> {
    match v {
        Val::Seq { elem, len: Some(l), .. } => match &**elem {
            Val::Seq { .. } => Some(Sym::num(l.constant()?.checked_mul(flat_len(elem)?.constant()?)?)),
            _ => Some(l.clone()),
        },
        _ => None,
    }
}

/// What the line of `q * k + r` after `q, r = divmod(x, k)` says first.
const REJOINS: &str = "puts the parts of";

/// What a node that traces one column of a stack says first.
const COLUMN: &str = "column";

/// A call that gives an array of positions to index with: a permutation, a sort order, the
/// places a mask holds, or a draw of several positions (`np.random.choice(n, k)`,
/// `randint(0, n, size=k)`).
fn positions_call(e: &Expr) -> bool {
    let Expr::Call { func, args, kwargs } = e.bare() else { return false };
    let sized = kwargs.iter().any(|(k, _)| k == "size");
    match func.last_name() {
        Some("randperm" | "permutation" | "argsort" | "nonzero" | "flatnonzero" | "arange") => true,
        Some("choice") => args.len() >= 2 || sized,
        Some("randint" | "integers") => args.len() >= 3 || sized,
        _ => false,
    }
}

fn int_literal(e: &Expr) -> Option<i64> {
    match e.bare() {
        Expr::Int(k) => Some(*k),
        Expr::Unary(op, x) if &**op == "-" => int_literal(x).map(|k| -k),
        _ => None,
    }
}

/// `v` with `fill` joined into its innermost integer cells (a padding value).
fn join_cells(v: &Val, fill: &Val) -> Val {
    match v {
        Val::Seq { elem, len, most } => Val::Seq { elem: Box::new(join_cells(elem, fill)), len: len.clone(), most: most.clone() },
        Val::Int(_) => v.join(fill),
        Val::Unknown(_) => Val::Seq { elem: Box::new(fill.clone()), len: None, most: None },
        other => other.clone(),
    }
}

/// The length (or its upper bound) of dimension `dim` of a nested sequence; -1 is the innermost.
/// Sequences joined end to end in dimension `dim` (`torch.cat(parts, dim)`): that dimension's
/// length is the sum of theirs (exact where each is, else an upper bound), the elements of all
/// of them. None when a part is not a sequence that deep.
fn cat_along(parts: &[Val], dim: usize) -> Option<Val> {
    let mut elems = Vec::with_capacity(parts.len());
    let mut lens = Vec::with_capacity(parts.len());
    let mut mosts = Vec::with_capacity(parts.len());
    for p in parts {
        let Val::Seq { elem, len, most } = p else { return None };
        elems.push((**elem).clone());
        lens.push(len.clone());
        mosts.push(most.clone().or_else(|| len.clone()));
    }
    if elems.is_empty() {
        return None;
    }
    if dim > 0 {
        // the other dimensions are the parts' own (the same in each, or the call fails)
        let inner = cat_along(&elems, dim - 1)?;
        let len = lens.iter().flatten().next().cloned();
        let most = if len.is_none() { mosts.iter().flatten().next().cloned() } else { None };
        return Some(Val::Seq { elem: Box::new(inner), len, most });
    }
    let sum = |xs: &[Option<Sym>]| xs.iter().try_fold(Sym::num(0), |acc, x| acc.add(x.as_ref()?));
    let len = sum(&lens);
    let most = sum(&mosts).filter(|m| Some(m) != len.as_ref());
    let elem = elems.into_iter().reduce(|a, b| a.join(&b))?;
    Some(Val::Seq { elem: Box::new(elem), len, most })
}

/// `v` with its innermost element replaced by `x` (the lengths kept).
fn with_innermost(v: &Val, x: Val) -> Val {
    match v {
        Val::Seq { elem, len, most } => Val::Seq { elem: Box::new(with_innermost(elem, x)), len: len.clone(), most: most.clone() },
        _ => x,
    }
}

fn dim_len(v: &Val, dim: i64) -> Option<Sym> {
    // a sample tuple (`(ids, label)`): the longest of its sequences' lengths
    if let Val::Tuple(xs) = v {
        return xs.iter().filter(|x| matches!(x, Val::Seq { .. })).filter_map(|x| dim_len(x, dim)).reduce(|a, b| match a.minus(&b) {
            Some(d) if d < 0 => b,
            _ => a,
        });
    }
    let mut levels = Vec::new();
    let mut x = v;
    while let Val::Seq { elem, .. } = x {
        levels.push(x.most());
        x = elem;
    }
    let i = if dim < 0 { levels.len() as i64 + dim } else { dim };
    usize::try_from(i).ok().and_then(|i| levels.get(i).cloned().flatten())
}

/// The tuple positions of name `n` in an assignment target (`a, (b, c) = …` → b at [1, 0]).
pub fn pattern_pos(t: &Expr, n: &str) -> Option<Vec<usize>> {
    match t {
        Expr::Name(x) if x == n => Some(Vec::new()),
        Expr::Seq(_, xs) => xs.iter().enumerate().find_map(|(i, x)| {
            let mut p = pattern_pos(x, n)?;
            p.insert(0, i);
            Some(p)
        }),
        Expr::Star(x) => pattern_pos(x, n),
        _ => None,
    }
}

fn bind_pattern(t: &Expr, v: &Val, out: &mut Vec<(String, Val)>) {
    match t {
        Expr::Name(n) => out.push((n.to_string(), v.clone())),
        Expr::Seq(_, xs) => {
            for (i, x) in xs.iter().enumerate() {
                bind_pattern(x, &v.at(i), out);
            }
        }
        _ => {}
    }
}

/// Every expression of a statement.
pub fn stmt_exprs(k: &StmtKind, f: &mut dyn FnMut(&Expr)) {
    match k {
        StmtKind::Assign { targets, value, .. } => {
            value.walk(f);
            targets.iter().for_each(|t| t.walk(f));
        }
        StmtKind::For { target, iter } => {
            iter.walk(f);
            target.walk(f);
        }
        StmtKind::With { value, .. } => value.walk(f),
        StmtKind::Return(Some(e)) | StmtKind::Yield(e) | StmtKind::Expr(e) | StmtKind::Cond(e) => e.walk(f),
        StmtKind::Return(None) => {}
    }
}

/// How tightly a binary operator binds, as Python orders them.
fn precedence(op: &str) -> u8 {
    match op {
        "**" => 6,
        "*" | "/" | "//" | "%" | "@" => 5,
        "+" | "-" => 4,
        "<<" | ">>" => 3,
        "&" => 2,
        "^" => 1,
        _ => 0,
    }
}

/// A short rendering of an expression for a chain's text.
pub fn short(e: &Expr) -> String {
    fn go(e: &Expr, depth: usize) -> String {
        if depth > 4 {
            return "…".into();
        }
        let d = depth + 1;
        match e {
            Expr::Name(n) => n.to_string(),
            Expr::Attr(o, a) => format!("{}.{a}", go(o, d)),
            Expr::Sub(o, i) => format!("{}[{}]", go(o, d), go(i, d)),
            Expr::Call { func, args, kwargs } => {
                let mut parts: Vec<String> = args.iter().take(3).map(|a| go(a, d)).collect();
                parts.extend(kwargs.iter().take(2).map(|(k, v)| format!("{k}={}", go(v, d))));
                if args.len() + kwargs.len() > parts.len() {
                    parts.push("…".into());
                }
                format!("{}({})", go(func, d), parts.join(", "))
            }
            Expr::Int(k) => k.to_string(),
            Expr::Float(x) => x.to_string(),
            Expr::Str(s) => format!("{s:?}"),
            Expr::Const(c) => c.to_string(),
            Expr::Bin(op, l, r) => {
                // parentheses where the operands' own operators bind less tightly
                let p = precedence(op);
                let left = match l.bare() {
                    Expr::Bin(o, ..) if precedence(o) < p => format!("({})", go(l, d)),
                    Expr::Test(..) => format!("({})", go(l, d)),
                    _ => go(l, d),
                };
                let right = match r.bare() {
                    Expr::Bin(o, ..) if precedence(o) <= p => format!("({})", go(r, d)),
                    Expr::Test(..) => format!("({})", go(r, d)),
                    _ => go(r, d),
                };
                format!("{left} {op} {right}")
            }
            Expr::Unary(op, x) if matches!(x.bare(), Expr::Bin(..) | Expr::Test(..)) => format!("{op}({})", go(x, d)),
            Expr::Unary(op, x) if op.chars().all(char::is_alphabetic) => format!("{op} {}", go(x, d)),
            Expr::Unary(op, x) => format!("{op}{}", go(x, d)),
            Expr::Test(op, xs) => xs.iter().map(|x| go(x, d)).collect::<Vec<_>>().join(&format!(" {op} ")),
            Expr::Seq(SeqKind::List, xs) => format!("[{}]", xs.iter().take(4).map(|x| go(x, d)).collect::<Vec<_>>().join(", ")),
            Expr::Seq(_, xs) => xs.iter().take(4).map(|x| go(x, d)).collect::<Vec<_>>().join(", "),
            Expr::Dict(_) => "{…}".into(),
            Expr::Comp { elt, gens, .. } => {
                format!(
                    "[{} for {} in {}]",
                    go(elt, d),
                    gens.first().map_or(String::new(), |g| go(&g.0, d)),
                    gens.first().map_or(String::new(), |g| go(&g.1, d))
                )
            }
            Expr::IfElse(a, c, b) => format!("{} if {} else {}", go(a, d), go(c, d), go(b, d)),
            Expr::Lambda { .. } => "lambda …".into(),
            Expr::Star(x) => format!("*{}", go(x, d)),
            Expr::Slice => ":".into(),
            Expr::Span(a, b) => {
                format!("{}:{}", a.as_ref().map_or(String::new(), |x| go(x, d)), b.as_ref().map_or(String::new(), |x| go(x, d)))
            }
            Expr::Other(t) => t.to_string(),
            Expr::At(_, x) => go(x, depth),
        }
    }
    go(e, 0)
}

/// Whether `e` is a name that an enclosing `for` of statement `at` binds (`i` of `for i, row in
/// enumerate(rows):`).
fn counter_of_loop(d: &crate::scan::flow::Def, at: usize, e: &Expr) -> bool {
    let Expr::Name(k) = e.bare() else { return false };
    let Some(nest) = d.stmts.get(at).map(|s| s.nest) else { return false };
    let mut inner = nest;
    for j in (0..at).rev() {
        let s = &d.stmts[j];
        if s.nest >= inner {
            continue;
        }
        inner = s.nest;
        if let StmtKind::For { target, .. } = &s.kind {
            let mut names = Vec::new();
            target.names(&mut names);
            if names.iter().any(|x| x == k) {
                return true;
            }
        }
        if inner == 0 {
            break;
        }
    }
    false
}

/// Whether a comprehension's element only picks elements of another value with the names its
/// clauses bind (`data[i : i + n]`, `torch.tensor(xs[j])`): the names are positions.
fn positions_only(elt: &Expr, gens: &[(Expr, Expr)]) -> bool {
    let mut e = elt.bare();
    while let Expr::Call { func, args, .. } = e {
        match (func.last_name(), args.first()) {
            (Some(f), Some(a)) if is_pass_function(f) => e = a.bare(),
            _ => break,
        }
    }
    let Expr::Sub(base, _) = e else { return false };
    reads_none_bound(base, gens)
}

/// What a call of a library name with receiver `r` works on: the first argument of a module's
/// function (`torch.flatten(x)`, `np.unique(x)`), else the receiver of a method (`x.flatten()`).
/// Whether a dtype argument names unsigned bytes (`np.uint8`, `torch.uint8`, `"uint8"`, `"u1"`).
fn names_uint8(e: &Expr) -> bool {
    match e.bare() {
        Expr::Str(s) => matches!(s.as_str(), "uint8" | "u1" | "B"),
        other => matches!(other.last_name(), Some("uint8" | "ubyte")),
    }
}

/// The negative marker a value holds (its lowest value, a constant from -128 to -1), and the
/// byte it becomes cast to unsigned bytes.
fn wrapped_marker(v: &Val) -> Option<(i64, i64)> {
    let Val::Int(r) = v.element_deep() else { return None };
    let k = r.lo.as_ref()?.constant()?;
    (-128..0).contains(&k).then_some((k, 256 + k))
}

/// `v` with each integer range inside it (through sequences, tuples, records) replaced by `r`.
fn with_ints(v: Val, r: &Range) -> Val {
    match v {
        Val::Int(_) => Val::Int(r.clone()),
        Val::Seq { elem, len, most } => Val::Seq { elem: Box::new(with_ints(*elem, r)), len, most },
        Val::Tuple(xs) => Val::Tuple(xs.into_iter().map(|x| with_ints(x, r)).collect()),
        Val::Record(xs) => Val::Record(xs.into_iter().map(|(k, x)| (k, with_ints(x, r))).collect()),
        other => other,
    }
}

fn subject<'e>(r: &'e Expr, args: &'e [Expr]) -> &'e Expr {
    if Some(r).is_none_or_module() {
        args.first().unwrap_or(r)
    } else {
        r
    }
}

/// Whether a comprehension's element reads none of the names its clauses bind: its iterables
/// only say how many elements it has.
fn counts_only(elt: &Expr, gens: &[(Expr, Expr)]) -> bool {
    reads_none_bound(elt, gens)
}

/// Whether `e` reads none of the names the `for` clauses bind (and they bind some).
fn reads_none_bound(e: &Expr, gens: &[(Expr, Expr)]) -> bool {
    let mut bound = Vec::new();
    for (t, _) in gens {
        t.names(&mut bound);
    }
    let mut used = Vec::new();
    e.names(&mut used);
    !bound.is_empty() && !used.iter().any(|n| bound.contains(n))
}

/// Whether an expression is text cut out of a string (`name.split("_")[0]`, `line.strip()`,
/// `m.group(1)`, `s[3:]` of one of those).
fn textual(e: &Expr) -> bool {
    match e.bare() {
        // a part of a code cut out by position (`int(code[1:])`: `int` of a list's or tensor's
        // slice is no number)
        Expr::Sub(_, i) if matches!(i.bare(), Expr::Span(..)) => true,
        Expr::Sub(b, _) => textual(b),
        Expr::Call { func, .. } => match &**func {
            Expr::Attr(o, m) => {
                matches!(
                    m.as_str(),
                    "split" | "rsplit" | "strip" | "lstrip" | "rstrip" | "group" | "removeprefix" | "removesuffix" | "replace"
                ) || textual(o)
            }
            _ => false,
        },
        _ => false,
    }
}

/// Whether `import …` statements among `imports` bind `n` to a module (`import numpy as np`,
/// `import os.path`).
pub(super) fn imported_module(imports: &[Text], n: &str) -> bool {
    imports.iter().filter_map(|t| t.strip_prefix("import ")).flat_map(|rest| rest.split(',')).any(|part| {
        let mut words = part.split_whitespace();
        let module = words.next().unwrap_or("");
        match (words.next(), words.next()) {
            (Some("as"), Some(alias)) => alias == n,
            _ => module.split('.').next() == Some(n),
        }
    })
}

/// The mode an `open(…)` call's arguments give, as written (none: reading text).
pub fn open_mode<'e>(args: &'e [Expr], kwargs: &'e [(Text, Expr)]) -> Option<&'e Expr> {
    args.get(1).or(kwargs.iter().find(|(k, _)| k == "mode").map(|(_, e)| e))
}

/// Whether `e` names an array library's module (`torch.squeeze(x)`, `np.stack(xs)`).
pub(super) fn is_module(e: &Expr) -> bool {
    matches!(e.dotted().as_deref(), Some("torch" | "np" | "numpy" | "F" | "nn" | "torch.nn" | "torch.nn.functional" | "pd" | "pandas"))
}

/// The constant low end of a value's cells (where a marker is kept).
fn low_marker(v: &Val) -> Option<i64> {
    match v {
        Val::Int(r) => r.lo.as_ref().and_then(|s| s.constant()),
        Val::Seq { elem, .. } => low_marker(elem),
        _ => None,
    }
}

/// Whether two expressions name the same place (`labels`, `batch["y"]`, `remap[voxel]`).
fn same_place(a: &Expr, b: &Expr) -> bool {
    match (a.place(), b.place()) {
        (Some(x), Some(y)) => x == y,
        _ => matches!(a.bare(), Expr::Sub(..)) && a.bare() == b.bare(),
    }
}

/// `v` with the marker `k` taken out of its cells (the low end the marker is kept as is no
/// longer known).
fn without_marker(v: &Val, k: i64) -> Val {
    match v {
        // nothing known but the marker: what is left is not known
        Val::Int(r) if r.lo == r.hi && r.lo.as_ref().and_then(|s| s.constant()) == Some(k) => Val::unknown("the cells a mask keeps"),
        Val::Int(r) if r.lo.as_ref().and_then(|s| s.constant()) == Some(k) => Val::Int(Range { lo: None, hi: r.hi.clone() }),
        Val::Seq { elem, len, most } => Val::Seq { elem: Box::new(without_marker(elem, k)), len: None, most: most.clone().or(len.clone()) },
        other => other.clone(),
    }
}

/// A value after a marker `k` is written into some of its cells (`mask[edge] = 255`): the marker
/// is kept as the low end of the cells' range (the convention `breaks` reads markers by).
fn with_marker(before: &Val, k: i64, v: &Val) -> Val {
    match before {
        Val::Int(b) => Val::Int(Range { lo: Some(Sym::num(k)), hi: b.hi.clone() }),
        Val::Seq { elem, len, most } => Val::Seq { elem: Box::new(with_marker(elem, k, v)), len: len.clone(), most: most.clone() },
        _ => before.join(v),
    }
}

/// Whether `path` leads to a list inside `v` as far as its shape is known (a record's field
/// picked by a key known only at run time does not).
fn reaches(v: &Val, path: &[Option<String>]) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return matches!(v, Val::Seq { .. } | Val::Thunk(_));
    };
    match (v, first) {
        (Val::Thunk(_), _) => true,
        (Val::Record(xs), Some(k)) => xs.iter().any(|(name, x)| name == k && reaches(x, rest)),
        (Val::Record(xs), None) => xs.iter().any(|(_, x)| reaches(x, rest)),
        (Val::Tuple(xs), k) => xs.iter().enumerate().any(|(i, x)| at_position(k, i) && reaches(x, rest)),
        (Val::Map { val, .. }, _) => reaches(val, rest),
        (Val::Seq { elem, .. }, k) if position(k).is_some() || k.is_none() => reaches(elem, rest),
        _ => false,
    }
}

/// A path's step that is a position (`xs[1]`, kept as `#1`), not a key.
fn position(k: &Option<String>) -> Option<usize> {
    k.as_deref()?.strip_prefix('#')?.parse().ok()
}

/// Whether a path's step reaches position `i` of a tuple: that position, or any (an unknown key).
fn at_position(k: &Option<String>, i: usize) -> bool {
    k.is_none() || position(k) == Some(i)
}

/// How many positional arguments a call of `d` must and may pass (`offset` parameters, a
/// method's `self`, are not passed): its parameters without a default, and all of them (any
/// number with a `*args`).
fn arity(d: &Def, offset: usize) -> (usize, usize) {
    let own: Vec<_> = d.params.iter().skip(offset).filter(|p| !p.star).collect();
    let required = own.iter().filter(|p| p.default.is_none()).count();
    let most = if d.params.iter().any(|p| p.star) { usize::MAX } else { own.len() };
    (required, most)
}

/// `v` with an empty list where `path` ends on nothing known yet (the `[]` a `setdefault` puts
/// in a dict that starts empty).
fn seeded(v: Val, path: &[Option<String>]) -> Val {
    let Some((first, rest)) = path.split_first() else {
        return match v {
            Val::Unknown(_) => Val::Seq { elem: Box::new(Val::unknown("empty")), len: None, most: None },
            other => other,
        };
    };
    match (v, first) {
        (Val::Map { key, val, len }, _) => Val::Map { key, val: Box::new(seeded(*val, rest)), len },
        (Val::Record(xs), k) => Val::Record(
            xs.into_iter()
                .map(|(name, x)| if k.as_ref().map_or(true, |k| *k == name) { (name, seeded(x, rest)) } else { (name, x) })
                .collect(),
        ),
        (Val::Tuple(xs), k) => {
            Val::Tuple(xs.into_iter().enumerate().map(|(i, x)| if at_position(k, i) { seeded(x, rest) } else { x }).collect())
        }
        (Val::Seq { elem, len, most }, k) if k.is_none() || position(k).is_some() => {
            Val::Seq { elem: Box::new(seeded(*elem, rest)), len, most }
        }
        (other, _) => other,
    }
}

/// The slot of `n` a `setdefault` call gives (`n.setdefault(k, [])`, `n[u].setdefault(k, [])`):
/// the keys from the name to it.
fn value_slot(e: &Expr, n: &str) -> Option<Vec<Option<String>>> {
    let Expr::Call { func, .. } = e.bare() else { return None };
    let Expr::Attr(o, m) = func.bare() else { return None };
    let (root, mut path) = sub_path(o).filter(|_| m == "setdefault")?;
    (root == n).then(|| {
        path.push(None);
        path
    })
}

/// An expression written for each key of a record (`s[k]` under `for k in sample`), with the
/// key `key` in place of the loop's name `name`.
fn with_key(e: &Expr, name: &str, key: &str) -> Expr {
    e.replacing(name, &Expr::Str(key.into()))
}

/// A store's target as a name and the keys under it (`d[k]["events"]` → `d`, [any, "events"]).
fn sub_path(e: &Expr) -> Option<(String, Vec<Option<String>>)> {
    match e.bare() {
        Expr::Sub(base, key) => {
            let (root, mut path) = sub_path(base)?;
            path.push(match key.bare() {
                Expr::Str(k) => Some(k.to_string()),
                Expr::Int(i) if *i >= 0 => Some(format!("#{i}")),
                _ => None,
            });
            Some((root, path))
        }
        other => Some((other.dotted()?, Vec::new())),
    }
}

/// A buffer after part of it is filled (`x[1:1 + n] = ids`, `lab[a:b] = c + 1`): its cells
/// join the stored values, a scalar stored into every cell of the span.
fn fill_join(before: &Val, v: &Val) -> Val {
    let depth = |mut x: &Val| {
        let mut d = 0;
        while let Val::Seq { elem, .. } = x {
            d += 1;
            x = elem;
        }
        d
    };
    match before {
        Val::Seq { elem, len, most } if depth(before) > depth(v) => {
            Val::Seq { elem: Box::new(fill_join(elem, v)), len: len.clone(), most: most.clone() }
        }
        _ => before.join(v),
    }
}

/// Said of a shift on a dict comprehension's values (`{w: i + 2 for i, w in enumerate(vocab)}`):
/// the ids below it are kept for other uses (padding, markers, a boundary token).
pub const NUMBERS_KEYS_FROM: &str = "numbers the keys from";

/// The keyword arguments a `functools.partial(f, k=…)` binds, with where they are evaluated:
/// the expression itself or the name it was last assigned to before `cx`'s statement.
fn partial_keywords(ix: &Index, e: &Expr, cx: &Ctx) -> Option<(Vec<(Text, Expr)>, Ctx)> {
    let (call, at) = match e.bare() {
        Expr::Name(n) => {
            let (i, v) = ix.def(cx.def).last_assign(cx.at, n)?;
            (v, i)
        }
        other => (other, cx.at),
    };
    match call.bare() {
        Expr::Call { func, args, kwargs } if func.last_name() == Some("partial") && args.len() == 1 && !kwargs.is_empty() => {
            Some((kwargs.clone(), Ctx { at, ..cx.clone() }))
        }
        _ => None,
    }
}

/// `x + y` or `x - y` of two integer ranges: an end is kept where one side's is a constant (a
/// sum of two roots, `len(a) + len(b)`, is not modelled).
fn add_ranges(op: &str, x: &Range, y: &Range) -> Range {
    let add = |p: &Option<Sym>, q: &Option<Sym>| p.as_ref()?.add(q.as_ref()?);
    let sub = |p: &Option<Sym>, q: &Option<Sym>| Some(p.as_ref()?.plus(-q.as_ref()?.constant()?));
    if op == "+" {
        // two draws up to one root (`ids + offset`, each below the number of ids), one of them
        // at least k > 0: the sum reaches past the other's top by k
        let past = |p: &Range, q: &Range| match (&p.hi, q.lo.as_ref().and_then(|s| s.constant()), &q.hi) {
            (Some(h), Some(k), Some(qh))
                if k > 0 && h.root.is_some() && h.root == qh.root && p.lo.as_ref().and_then(|s| s.constant()).is_some_and(|l| l >= 0) =>
            {
                Some(h.plus(k))
            }
            _ => None,
        };
        let hi = add(&x.hi, &y.hi).or_else(|| past(x, y)).or_else(|| past(y, x));
        Range { lo: add(&x.lo, &y.lo), hi }
    } else {
        Range { lo: sub(&x.lo, &y.hi), hi: sub(&x.hi, &y.lo) }
    }
}

/// Whether an expression is written as a list (a display, a comprehension, `list(…)`).
fn listed(e: &Expr) -> bool {
    match e.bare() {
        Expr::Seq(SeqKind::List, _) | Expr::Comp { kind: SeqKind::List, .. } => true,
        Expr::Call { func, .. } => matches!(func.bare(), Expr::Name(n) if n == "list" || n == "sorted"),
        // `[pad] * n + ids`, `prefix + [eos]`
        Expr::Bin(op, a, b) if op == "+" || op == "*" => listed(a) || listed(b),
        _ => false,
    }
}

/// The tag a statement gets from the shape of the expression it assigns.
fn shape(value: &Expr, op: Option<&str>, v: &Val) -> (Option<Tag>, String) {
    let value = value.bare();
    let konst = |e: &Expr| match e.bare() {
        Expr::Int(k) => Some(*k),
        _ => None,
    };
    // a list extended by a value repeated (`tones += [tone] * n`): the elements are the value
    // as it was, only more of them (a list extended by new elements, `ids += [eos]`, is not)
    let repeated = |e: &Expr| match e.bare() {
        Expr::Bin(op, l, r) if op == "*" => matches!(l.bare(), Expr::Seq(..)) || matches!(r.bare(), Expr::Seq(..)),
        _ => false,
    };
    if op == Some("+") && repeated(value) {
        return (None, String::new());
    }
    if let Some(op) = op {
        if let Expr::Int(k) = value.bare() {
            return match op {
                "+" => (Some(Tag::Shift(*k)), format!("adds {k}")),
                "-" => (Some(Tag::Shift(-k)), format!("subtracts {k}")),
                other => (Some(Tag::Arith(other.into())), format!("`{other}=` {k}")),
            };
        }
        if matches!(v, Val::Float(_)) {
            return (Some(Tag::Scale(Scaling::Arith)), format!("`{op}=` on scores"));
        }
        return (Some(Tag::Arith(op.into())), format!("`{op}=`"));
    }
    // the arithmetic at the top of the value, also inside a comprehension's element (whose
    // value is then an element of the sequence, not the sequence)
    let mut top = value;
    let mut comps = 0;
    // the arithmetic is on a dict comprehension's values (`{w: i + 2 for i, w in …}`)
    let mut numbers_keys = false;
    loop {
        match top {
            Expr::Comp { elt, value: Some(v), .. } => {
                numbers_keys = comps == 0 && matches!(**v, Expr::Bin(..));
                top = if matches!(**v, Expr::Bin(..)) { v } else { elt };
                comps += 1;
            }
            Expr::Comp { elt, .. } => {
                top = elt;
                comps += 1;
            }
            // a one-element row (`[[m.index(v) + 1] for v in vs]`): its element
            Expr::Seq(SeqKind::List | SeqKind::Tuple, xs) if comps > 0 && xs.len() == 1 => {
                top = &xs[0];
                comps += 1;
            }
            // a method that passes its receiver on (`p.squeeze(-1)`: the value is `p`, not -1);
            // the same name called on a module is a function of its first argument
            Expr::Call { func, .. } if matches!(&**func, Expr::Attr(o, m) if is_pass_method(m) && !is_module(o)) => {
                let Expr::Attr(o, _) = &**func else { unreachable!() };
                top = o;
            }
            Expr::Call { func, args, .. } if func.last_name().is_some_and(is_pass_function) && !args.is_empty() => top = &args[0],
            _ => break,
        }
    }
    let el;
    let v = if comps > 0 {
        el = (1..comps).fold(v.element(), |x, _| x.element());
        &el
    } else {
        v
    };
    match top {
        // list concatenation: a marker among the literal elements, else no arithmetic (a list
        // display on either side says so when the value itself is not known)
        Expr::Bin(op, l, r)
            if op == "+"
                && !elementwise(op, l, r)
                && (matches!(v, Val::Seq { elem, .. } if !matches!(**elem, Val::Int(_)) || listed(l) || listed(r))
                    || [l, r].iter().any(|x| matches!(x.bare(), Expr::Seq(SeqKind::List | SeqKind::Tuple, _) | Expr::Comp { .. }))) =>
        {
            let marker = [l, r].into_iter().find_map(|x| match x.bare() {
                Expr::Seq(_, xs) => xs.iter().find_map(|e| match e.bare() {
                    Expr::Int(k) if *k < 0 => Some(*k),
                    _ => None,
                }),
                _ => None,
            });
            match marker {
                Some(k) => (Some(Tag::Sentinel(k)), format!("adds the marker {k}")),
                None => (None, String::new()),
            }
        }
        Expr::Bin(..) | Expr::Call { .. } if matches!(v, Val::Float(Some(Norm::Raw) | None)) && maps_through_exp(value) => {
            (Some(Tag::Scale(Scaling::ByHand)), format!("{HAND_MADE_PROBS} (`{}`): it stays in [0, 1] only for some inputs", short(top)))
        }
        // text formatted or joined (`"spk%03d" % s`, `"id_" + name`): no arithmetic on a number
        Expr::Bin(op, l, r)
            if (op == "%" || op == "+") && (matches!(l.bare(), Expr::Str(_)) || (op == "+" && matches!(r.bare(), Expr::Str(_)))) =>
        {
            (None, String::new())
        }
        Expr::Bin(op, l, r) if op == "+" || op == "-" => {
            let k = konst(r).or_else(|| if op == "+" { konst(l) } else { None });
            match (k, matches!(v, Val::Float(_))) {
                (Some(k), false) if k != 0 => {
                    let k = if op == "-" { -k } else { k };
                    let what = if k > 0 && numbers_keys {
                        format!("{NUMBERS_KEYS_FROM} {k}")
                    } else if k > 0 {
                        format!("adds {k}")
                    } else {
                        format!("subtracts {}", -k)
                    };
                    (Some(Tag::Shift(k)), what)
                }
                (_, true) => (Some(Tag::Scale(Scaling::Arith)), format!("`{op}` on scores")),
                _ => (Some(Tag::Arith(op.clone())), format!("`{}`", short(top))),
            }
        }
        // a mean of probabilities (`total / count`, `0.5 * (p + q)`): in [0, 1] again
        Expr::Bin(op, l, r) if (op == "/" || mean_terms(op, l, r).is_some()) && matches!(v, Val::Float(Some(Norm::Probs))) => {
            (None, String::new())
        }
        Expr::Bin(op, _, _) => {
            if matches!(v, Val::Float(_)) {
                (Some(Tag::Scale(Scaling::Arith)), format!("scales the scores (`{}`)", short(top)))
            } else {
                (Some(Tag::Arith(op.clone())), format!("`{}`", short(top)))
            }
        }
        Expr::Int(k) => {
            if *k < 0 || *k == 255 {
                (Some(Tag::Sentinel(*k)), format!("sets the marker {k}"))
            } else {
                (Some(Tag::Literal(*k)), format!("sets {k}"))
            }
        }
        Expr::Call { func, args, kwargs } if func.last_name().is_some_and(is_normalizer) => {
            // the dimension a softmax normalizes over: `dim=`, else the second argument of
            // `torch.softmax(x, 1)` / `F.softmax(x, 1)`, the first of `x.softmax(1)`
            let library = match func.bare() {
                Expr::Attr(o, _) => matches!(o.dotted().as_deref(), Some("torch" | "F" | "nn.functional" | "torch.nn.functional")),
                _ => true,
            };
            let dim = kwargs.iter().find(|(k, _)| k == "dim").map(|(_, e)| e).or(if library { args.get(1) } else { args.first() });
            match dim.and_then(int_literal).filter(|_| func.last_name().is_some_and(|f| f.contains("softmax"))) {
                Some(d) => (Some(Tag::Normalize(Some(d))), format!("normalizes over dim={d}")),
                None => (Some(Tag::Normalize(None)), "normalizes".into()),
            }
        }
        _ => (None, String::new()),
    }
}

/// A node's text for arithmetic on probabilities (`p + 0.1`, `p / t`).
pub const SCALES_PROBS: &str = "scales probabilities";
/// What a function whose values lie in [-1, 1] gives (`signed_unit`).
pub const SIGNED_UNIT: &str = "gives values in [-1, 1]: a similarity or `tanh`, not a probability";

/// Functions (and methods) whose values lie in [-1, 1].
fn signed_unit(f: &str) -> bool {
    matches!(f, "cosine_similarity" | "tanh" | "tanh_" | "hardtanh" | "softsign" | "cos" | "sin")
}

/// How a node says a module was built as one beside it is, without the sigmoid that one ends in.
pub const RAW_BESIDE_SQUASHED: &str = "is built the same way and ends in a sigmoid";
/// How a node says a module was built ending in a layer whose values lie in [-1, 1].
pub const SIGNED_SQUASH: &str = "squashes into [-1, 1], not into [0, 1]";
/// What a convolution's kernel whose weights are not normalized does to probabilities.
pub const KERNEL_SUMS_PROBS: &str = "a kernel that sums probabilities (not normalized)";
/// A node's text for probabilities multiplied by a factor (`p * w`): in [0, 1] while the factor is.
pub const PROBS_TIMES: &str = "multiplies probabilities by a factor";
/// How a line that turns scores into probabilities by a formula of its own says so; read back
/// by the ranking of a probability sink.
pub const HAND_MADE_PROBS: &str = "maps scores onto probabilities by hand";

/// Arithmetic around an exponential (`1 - torch.exp(-rate * t)`, `x.exp() / (1 + x.exp())`): a
/// formula written to give probabilities.
fn maps_through_exp(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let Expr::Call { func, .. } = x {
            found |= func.last_name().is_some_and(|n| matches!(n, "exp" | "expm1" | "exp2" | "logsumexp"));
        }
    });
    found
}

/// `cx` with `vals` bound to names (before the names it binds already).
fn bound(cx: &Ctx, vals: &[(String, Val)]) -> Ctx {
    let mut all = vals.to_vec();
    if let Some(env) = &cx.env {
        all.extend(env.vals.iter().cloned());
    }
    let env = match &cx.env {
        Some(e) => Env { args: e.args.clone(), kwargs: e.kwargs.clone(), caller: e.caller.clone(), vals: all, recv: e.recv.clone() },
        None => Env { args: Vec::new(), kwargs: Vec::new(), caller: None, vals: all, recv: None },
    };
    Ctx { def: cx.def, at: cx.at, env: Some(Rc::new(env)), depth: cx.depth }
}

/// Whether `l op r` is arithmetic on the cells of arrays rather than on lists: no list display
/// on either side (`[pad] * n` repeats a list, `ids + [eos]` extends one), and a product, or a
/// sum with a product in it (`row * width + col`: a list is not scaled and then extended by
/// another).
fn elementwise(op: &str, l: &Expr, r: &Expr) -> bool {
    let display = |e: &Expr| matches!(e.bare(), Expr::Seq(SeqKind::List | SeqKind::Tuple, _) | Expr::Comp { kind: SeqKind::List, .. });
    let scaled = |e: &Expr| matches!(e.bare(), Expr::Bin(o, x, y) if o == "*" && !display(x) && !display(y));
    !display(l) && !display(r) && (op == "*" || matches!(op, "+" | "-") && (scaled(l) || scaled(r)))
}

/// The width of a window that ends at `hi` and starts at `lo` = `hi - n` or `max(0, hi - n)`:
/// `n`.
fn window_width<'e>(lo: &'e Expr, hi: &Expr) -> Option<&'e Expr> {
    let back = |e: &'e Expr| match e.bare() {
        Expr::Bin(op, x, n) if &**op == "-" && x.bare() == hi.bare() => Some(&**n),
        _ => None,
    };
    match lo.bare() {
        Expr::Call { func, args, .. } if func.last_name() == Some("max") && args.len() == 2 => back(&args[0]).or_else(|| back(&args[1])),
        _ => back(lo),
    }
}

#[cfg(test)]
mod tests {
    use super::{file_name_fits, shape, Expr, Tag, Val};

    /// Text formatted or joined (`"spk%03d" % s`, `"id_" + name`) is not arithmetic on the
    /// value; a number's remainder or sum is.
    #[test]
    fn formatting_text_is_not_arithmetic() {
        let bin = |op: &str, l: Expr, r: Expr| Expr::Bin(op.into(), Box::new(l), Box::new(r));
        let n = || Expr::Name("s".into());
        let v = Val::unknown("a number");
        assert_eq!(shape(&bin("%", Expr::Str("spk%03d".into()), n()), None, &v).0, None);
        assert_eq!(shape(&bin("+", Expr::Str("id_".into()), n()), None, &v).0, None);
        assert_eq!(shape(&bin("+", n(), Expr::Str(".npy".into())), None, &v).0, None);
        assert!(matches!(shape(&bin("%", n(), Expr::Int(7)), None, &v).0, Some(Tag::Arith(_))));
        // a list extended by the value repeated (`tones += [tone] * k`) is not either; one
        // extended by new elements (`ids += [eos]`) is
        let list = || Expr::Seq(crate::scan::flow::SeqKind::List, vec![n()]);
        assert_eq!(shape(&bin("*", list(), Expr::Name("k".into())), Some("+"), &v).0, None);
        assert!(matches!(shape(&list(), Some("+"), &v).0, Some(Tag::Arith(_))));
        assert!(matches!(shape(&bin("*", n(), Expr::Name("k".into())), Some("+"), &v).0, Some(Tag::Arith(_))));
    }

    #[test]
    fn a_templated_file_name_fits_the_names_it_makes() {
        assert!(file_name_fits("train.json", "train.json"));
        assert!(!file_name_fits("train.json", "val.json"));
        assert!(file_name_fits("%s.json", "train.json"));
        assert!(file_name_fits("{split}_rows.npy", "val_rows.npy"));
        assert!(file_name_fits("fold%d-%s.pkl", "fold3-train.pkl"));
        assert!(!file_name_fits("%s.json", "train.csv"));
        assert!(!file_name_fits("%s.json", ".json"));
        assert!(!file_name_fits("{split}_rows.npy", "rows.npy"));
    }
}
