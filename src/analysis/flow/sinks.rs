//! The calls in a project that can reach a failing op — the sinks — with their value operand,
//! and the bound each is checked against: a loss's targets against the head that made its
//! input, an embedding's ids against its rows, BCE inputs and sampling weights against [0, 1].
//! Module instances (`criterion = nn.CrossEntropyLoss(…)`, `self.emb = nn.Embedding(…)`,
//! an HF `…ForSequenceClassification`) are found through the assignment that built them.

use std::rc::Rc;

use super::index::{DefId, Index};
use super::trace::{short, Ctx, Env, Object, Tag, Tracer};
use super::value::{Norm, Sym, Val};
use crate::scan::flow::{Def, Expr, SeqKind, StmtKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SinkKind {
    /// Class targets against a class count (cross-entropy, NLL).
    Classes,
    /// Row ids against an embedding table.
    Embedding,
    /// Indices against a tensor's size (gather, index_select).
    Index,
    /// Probabilities against [0, 1] (BCE).
    Probability,
    /// Sampling weights (multinomial, bernoulli).
    Distribution,
}

impl SinkKind {
    /// A loss or sampler that takes probabilities (its value is checked against [0, 1]).
    pub fn takes_probabilities(self) -> bool {
        matches!(self, SinkKind::Probability | SinkKind::Distribution)
    }
}

#[derive(Debug, Clone)]
pub struct Sink {
    pub kind: SinkKind,
    pub def: DefId,
    pub stmt: usize,
    pub line: u32,
    /// The value operand.
    pub value: Expr,
    /// The scores a loss is computed on (a classifier's output).
    pub input: Option<Expr>,
    pub call_text: String,
    pub ignore_index: Option<i64>,
    /// The constructor call of the module instance that is called, and where it was made.
    pub ctor: Option<(Expr, DefId, usize)>,
    /// For a library model's own lookup: the config fields that size its table, first found
    /// wins (`vocab_size`; `n_positions` / `max_position_embeddings` for its positions).
    pub fields: &'static [&'static str],
    /// An `ignore_index` written as an expression (`ignore_index=IGNORE`), and where: the
    /// slice evaluates it.
    pub ignore_expr: Option<(Expr, DefId, usize)>,
    /// The function or module class called (`index_add_`, `CrossEntropyLoss`); None for a
    /// library model, which reaches every op of its kind.
    pub api: Option<String>,
    /// A bound written at the call (`F.one_hot(y, num_classes)`).
    pub size: Option<Expr>,
}

impl Sink {
    /// Where the op's settings are chosen: the line that built the module called (a loss's
    /// constructor), or the call itself for a function.
    pub fn built_at(&self, ix: &Index) -> (String, u32) {
        match &self.ctor {
            Some((ctor, cdef, cstmt)) => {
                let d = ix.def(*cdef);
                // (an entry of a table of classes sits on its own line below the table's)
                let below = match ctor {
                    Expr::At(k, _) => *k,
                    _ => 0,
                };
                (ix.files[cdef.0].path.clone(), d.stmts.get(*cstmt).map_or(d.span.line, |s| d.line(s)) + below)
            }
            None => (ix.files[self.def.0].path.clone(), self.line),
        }
    }
}

fn kwarg<'e>(kwargs: &'e [(crate::scan::facts::Text, Expr)], k: &str) -> Option<&'e Expr> {
    kwargs.iter().find(|(n, _)| n == k).map(|(_, e)| e)
}

fn int_of(e: Option<&Expr>) -> Option<i64> {
    match e.map(Expr::bare) {
        Some(Expr::Int(k)) => Some(*k),
        _ => None,
    }
}

/// The name a value is, perhaps moved (`criterion`, `criterion.to(device)`, `loss_fn.cuda()`).
fn moved_name(e: &Expr) -> Option<&str> {
    let mut e = e.bare();
    loop {
        match e {
            Expr::Name(n) => return Some(n),
            Expr::Call { func, .. } => match &**func {
                Expr::Attr(o, m) if ["to", "cuda", "cpu", "float", "half", "double", "train", "eval"].contains(&m.as_str()) => e = o.bare(),
                _ => return None,
            },
            _ => return None,
        }
    }
}

/// A constructor call without the moves after it (`nn.Linear(8, 3).to(dev)` → `nn.Linear(8, 3)`).
pub fn unmoved(e: &Expr) -> Expr {
    let mut e = e.bare();
    while let Expr::Call { func, .. } = e {
        match &**func {
            Expr::Attr(o, m)
                if ["to", "cuda", "cpu", "float", "half", "double", "train", "eval", "requires_grad_"].contains(&m.as_str())
                    && matches!(**o, Expr::Call { .. }) =>
            {
                e = o
            }
            _ => break,
        }
    }
    e.clone()
}

/// The constructor call a callee was built with: a local or global assignment of the name, or
/// a store to the attribute in the class (or, for another object's attribute, the one store).
pub fn ctor_of(ix: &Index, func: &Expr, def: DefId, stmt: usize) -> Option<(Expr, DefId, usize)> {
    let found = ctor_at(ix, func, def, stmt, 0)?;
    Some(through_factory(ix, found, 0))
}

/// A constructor call that is a call of a project function (`model = build_model(cfg)`): the
/// call that function returns (`return BertForTokenClassification(config)`).
fn through_factory(ix: &Index, found: (Expr, DefId, usize), hops: usize) -> (Expr, DefId, usize) {
    if let Some(entry) = registry_entry(ix, &found) {
        return entry;
    }
    let Some(name) = ctor_name(&found.0) else { return found };
    if hops > 3 || ix.is_class(name) {
        return found;
    }
    // a method of the instance's own (`self._build()` in an estimator's `fit`), else a function
    let d0 = ix.def(found.1);
    let own = match &found.0 {
        Expr::Call { func, .. } => match func.bare() {
            Expr::Attr(o, m) if matches!(o.bare(), Expr::Name(s) if d0.params.first().is_some_and(|p| p.name == *s)) => {
                d0.class.as_deref().and_then(|c| ix.method(c, m).first().copied())
            }
            _ => None,
        },
        _ => None,
    };
    let Some(f) = own.or_else(|| ix.functions(name).first().copied()) else { return found };
    let d = ix.def(f);
    for (i, s) in d.stmts.iter().enumerate().rev() {
        if let StmtKind::Return(Some(e)) = &s.kind {
            let next = match e.bare() {
                Expr::Call { .. } => Some((unmoved(e), f, i)),
                other => ctor_at(ix, other, f, i, 0),
            };
            if let Some(n) = next {
                return through_factory(ix, n, hops + 1);
            }
        }
    }
    found
}

/// The value the name `n` was last assigned before statement `stmt` of `def`, else as a global
/// (of the same file first), with where it was assigned.
fn assignment<'i>(ix: &Index<'i>, def: DefId, stmt: usize, n: &str) -> Option<(&'i Expr, DefId, usize)> {
    if let Some((i, value)) = ix.def(def).last_assign(stmt, n) {
        return Some((value, def, i));
    }
    let sites = ix.globals(n);
    let (gid, gi) = sites.iter().find(|(id, _)| id.0 == def.0).or(sites.first()).copied()?;
    match &ix.def(gid).stmts[gi].kind {
        StmtKind::Assign { value, .. } => Some((value, gid, gi)),
        _ => None,
    }
}

/// The classes that can fail with a device assert when called (the losses that check their
/// targets or inputs, the lookup table).
const ASSERTING: &[&str] = &["CrossEntropyLoss", "NLLLoss", "BCELoss", "Embedding"];

/// A class picked from a table of classes and called (`LOSSES[name]()` where `LOSSES = {"mse":
/// nn.MSELoss, "bce": nn.BCELoss}`): the entry called with the call's arguments, marked with its
/// own line inside the table. The key is read where it is written out; else the entry is the one
/// class of the table whose call can fail this way (the others cannot have made the assert).
fn registry_entry(ix: &Index, found: &(Expr, DefId, usize)) -> Option<(Expr, DefId, usize)> {
    let (call, def, stmt) = found;
    let Expr::Call { func, args, kwargs } = call.bare() else { return None };
    let Expr::Sub(container, key) = func.bare() else { return None };
    let Expr::Name(n) = container.bare() else { return None };
    let (Expr::Dict(pairs), tdef, tstmt) = assignment(ix, *def, *stmt, n)? else { return None };
    let class = |v: &Expr| matches!(v.bare(), Expr::Name(_) | Expr::Attr(..));
    let entry = match key.bare() {
        Expr::Str(w) => pairs.iter().find(|(k, _)| matches!(k.bare(), Expr::Str(s) if s == w)).map(|(_, v)| v.clone())?,
        _ => {
            let mut picks =
                pairs.iter().map(|(_, v)| v).filter(|v| class(v) && v.bare().last_name().is_some_and(|c| ASSERTING.contains(&c)));
            let one = picks.next()?.clone();
            if picks.any(|o| o.bare().last_name() != one.bare().last_name()) {
                return None;
            }
            one
        }
    };
    if !class(&entry) {
        return None;
    }
    let delta = match &entry {
        Expr::At(k, _) => *k,
        _ => 0,
    };
    let made = Expr::Call { func: Box::new(entry.bare().clone()), args: args.clone(), kwargs: kwargs.clone() };
    Some((if delta > 0 { Expr::At(delta, Box::new(made)) } else { made }, tdef, tstmt))
}

fn ctor_at(ix: &Index, func: &Expr, def: DefId, stmt: usize, hops: usize) -> Option<(Expr, DefId, usize)> {
    let d = ix.def(def);
    if hops > 4 {
        return None;
    }
    // a parameter: the argument at the function's call sites (`train(model, criterion)`)
    if let Expr::Name(n) = func {
        let local = (0..stmt.min(d.stmts.len())).any(|i| matches!(&d.stmts[i].kind, StmtKind::Assign { targets, .. } if targets.iter().any(|t| matches!(t, Expr::Name(x) if x == n))));
        if let (false, Some(pi)) = (local, d.param_index(n)) {
            let offset = usize::from(d.is_method());
            let callee = if d.name == "__init__" { d.class.clone().unwrap_or_default() } else { d.name.clone() };
            for &(sid, si) in ix.calling(&callee).iter().take(6) {
                let mut found = None;
                super::trace::stmt_exprs(&ix.def(sid).stmts[si].kind, &mut |x| {
                    if let Expr::Call { func: f, args, kwargs } = x {
                        if f.last_name() == Some(callee.as_str()) && found.is_none() {
                            found = kwarg(kwargs, n).cloned().or_else(|| super::trace::positional(args, pi, offset));
                        }
                    }
                });
                if let Some(arg) = found {
                    if let Some(c) = ctor_at(ix, &arg, sid, si, hops + 1) {
                        return Some(c);
                    }
                }
            }
            return None;
        }
    }
    match func {
        Expr::Name(n) => {
            // a loop's name over a list of modules (`for j, emb in enumerate(self.embs)`, also in
            // a comprehension): the modules' constructor
            if let Some(over) = loop_source(d, stmt, n) {
                return ctor_at(ix, &over, def, stmt, hops + 1).and_then(|c| element_ctor(c, 0));
            }
            let (value, at, i) = assignment(ix, def, stmt, n)?;
            matches!(value, Expr::Call { .. }).then(|| (unmoved(value), at, i))
        }
        Expr::Call { .. } => Some((unmoved(func), def, stmt)),
        // an entry of a container of modules (`model["receiver_emb"]`, `self.heads[task]`,
        // `self.layers[0]`): the container's display, through a factory, then the entry
        Expr::Sub(container, key) => {
            let display = match container.bare() {
                Expr::Name(n) if loop_source(d, stmt, n).is_none() => {
                    d.last_assign(stmt, n).filter(|(_, v)| !matches!(v.bare(), Expr::Call { .. })).map(|(i, v)| (v.clone(), def, i))
                }
                _ => None,
            };
            let holder = display.or_else(|| ctor_at(ix, container, def, stmt, hops + 1).map(|c| through_factory(ix, c, 0)))?;
            entry_ctor(ix, holder, key, 0)
        }
        // a library's function (`torch.where`, `F.embedding`) is no module the project built,
        // whatever attribute of its own shares the name
        Expr::Attr(obj, _) if super::trace::is_module(obj) => None,
        Expr::Attr(obj, a) => {
            let mine = d.class.as_deref().filter(|_| matches!(&**obj, Expr::Name(s) if d.params.first().is_some_and(|p| p.name == *s)));
            let mro = mine.map(|c| ix.mro(c)).unwrap_or_default();
            // a method of the project's by that name (`bank.weekday(day)` where a `DayBank`
            // defines `weekday`, beside a model's `self.weekday = nn.Embedding(7, d)`): the
            // call may be the method's, whatever module another class keeps under the name
            let method = match mine {
                Some(c) => !ix.method(c, a).is_empty(),
                None => !ix.methods_named(a).is_empty(),
            };
            if method {
                return None;
            }
            let stores: Vec<_> = ix
                .stores(a)
                .iter()
                .copied()
                .filter(|(id, _)| mine.is_none() || ix.def(*id).class.as_deref().is_some_and(|c| mro.iter().any(|m| m == c)))
                .collect();
            for (sid, si) in stores {
                let StmtKind::Assign { targets, value, .. } = &ix.def(sid).stmts[si].kind else { continue };
                // (one of several fields set at once: `self.a, self.b = a, b`)
                let value = paired(targets, value, a).unwrap_or(value);
                match moved_name(value) {
                    // a module handed in and kept (`self.criterion = criterion.to(device)` in a
                    // `Trainer`): where the caller built it
                    Some(n) => {
                        if let Some(c) = ctor_at(ix, &Expr::Name(n.into()), sid, si, hops + 1) {
                            return Some(c);
                        }
                    }
                    None if matches!(value, Expr::Call { .. }) => return Some((unmoved(value), sid, si)),
                    None => {}
                }
            }
            None
        }
        _ => None,
    }
}

/// The element of a tuple display `value` assigned to the field `attr` among tuple `targets`
/// (`b` of `self.a, self.b = a, b`).
fn paired<'e>(targets: &[Expr], value: &'e Expr, attr: &str) -> Option<&'e Expr> {
    let Expr::Seq(_, vs) = value.bare() else { return None };
    targets.iter().find_map(|t| match t.bare() {
        Expr::Seq(_, ts) if ts.len() == vs.len() => {
            ts.iter().position(|x| matches!(x.bare(), Expr::Attr(_, f) if f == attr)).map(|k| vs[k].bare())
        }
        _ => None,
    })
}

/// The sequence a loop name walks, when `n` is bound by a comprehension in statement `stmt` or by
/// an enclosing `for` before it: the iterable, through `enumerate(xs)` and `zip(xs, ys)` to the
/// one whose elements `n` takes.
fn loop_source(d: &crate::scan::flow::Def, stmt: usize, n: &str) -> Option<Expr> {
    let mut found = None;
    if let Some(s) = d.stmts.get(stmt) {
        super::trace::stmt_exprs(&s.kind, &mut |e| {
            if let Expr::Comp { gens, .. } = e {
                for (t, it) in gens {
                    if found.is_none() {
                        found = walked(t, it, n);
                    }
                }
            }
        });
    }
    if found.is_some() {
        return found;
    }
    (0..stmt.min(d.stmts.len())).rev().find_map(|i| match &d.stmts[i].kind {
        StmtKind::For { target, iter } => walked(target, iter, n),
        _ => None,
    })
}

/// What `n` in the loop target `t` walks in `it`.
fn walked(t: &Expr, it: &Expr, n: &str) -> Option<Expr> {
    match (t.bare(), it.bare()) {
        (Expr::Name(x), _) if x == n => Some(it.clone()),
        (Expr::Seq(_, ts), Expr::Call { func, args, .. }) if ts.len() == 2 && func.last_name() == Some("enumerate") => {
            walked(&ts[1], args.first()?, n)
        }
        (Expr::Seq(_, ts), Expr::Call { func, args, .. }) if func.last_name() == Some("zip") && ts.len() == args.len() => {
            ts.iter().zip(args).find_map(|(t, a)| walked(t, a, n))
        }
        _ => None,
    }
}

/// The constructor of the elements of a module list (`nn.ModuleList([nn.Embedding(c, d) for c in
/// cards])`, `nn.ModuleList(nn.Embedding(c, d) for c in cards)`, a list display).
fn element_ctor(c: (Expr, DefId, usize), depth: usize) -> Option<(Expr, DefId, usize)> {
    let (e, def, stmt) = c;
    let inner = match e.bare() {
        Expr::Call { func, args, .. } if depth < 3 && matches!(func.last_name(), Some("ModuleList" | "list" | "tuple")) => {
            args.first()?.clone()
        }
        Expr::Comp { elt, .. } => (**elt).clone(),
        Expr::Seq(_, xs) => xs.first()?.clone(),
        _ => return None,
    };
    match inner.bare() {
        Expr::Call { func, .. } if !matches!(func.last_name(), Some("ModuleList" | "list" | "tuple")) => Some((unmoved(&inner), def, stmt)),
        _ if depth < 3 => element_ctor((inner, def, stmt), depth + 1),
        _ => None,
    }
}

/// The constructor of the entry `key` selects in a container of modules: a dict display or
/// `nn.ModuleDict({...})` / `dict(k=…)` by a string key (any entry for a key that is not
/// written out, or a dict comprehension's value), a list or `nn.Sequential(...)` by a position.
fn entry_ctor(ix: &Index, c: (Expr, DefId, usize), key: &Expr, depth: usize) -> Option<(Expr, DefId, usize)> {
    let (e, def, stmt) = c;
    let word = match key.bare() {
        Expr::Str(s) => Some(s.as_str()),
        _ => None,
    };
    let nth = |xs: &[Expr]| -> Option<Expr> {
        match key.bare() {
            Expr::Int(i) if *i >= 0 => xs.get(*i as usize).cloned(),
            Expr::Unary(op, x) if op == "-" => match x.bare() {
                Expr::Int(i) if *i >= 1 && (*i as usize) <= xs.len() => xs.get(xs.len() - *i as usize).cloned(),
                _ => None,
            },
            _ => None,
        }
    };
    let entry = match e.bare() {
        Expr::Call { func, args, kwargs } if depth < 3 => match func.last_name()? {
            "ModuleDict" | "dict" | "OrderedDict" => {
                let named = word.and_then(|w| kwargs.iter().find(|(k, _)| k == w)).map(|(_, v)| v.clone());
                match (named, args.first()) {
                    (Some(v), _) => v,
                    (None, Some(inner)) => return entry_ctor(ix, (inner.clone(), def, stmt), key, depth + 1),
                    (None, None) => kwargs.first()?.1.clone(),
                }
            }
            "Sequential" => nth(args)?,
            "ModuleList" | "list" | "tuple" => match args.first()?.bare() {
                Expr::Seq(_, xs) => nth(xs).or_else(|| xs.first().cloned())?,
                _ => return element_ctor((e.clone(), def, stmt), 0),
            },
            _ => return None,
        },
        Expr::Dict(pairs) => match word {
            Some(w) => pairs.iter().find(|(k, _)| matches!(k.bare(), Expr::Str(s) if s == w))?.1.clone(),
            None => pairs.iter().map(|(_, v)| v).find(|v| matches!(v.bare(), Expr::Call { .. }))?.clone(),
        },
        Expr::Comp { value: Some(v), .. } => (**v).clone(),
        Expr::Seq(_, xs) => nth(xs).or_else(|| xs.first().cloned())?,
        Expr::Comp { elt, .. } => (**elt).clone(),
        _ => return None,
    };
    match entry.bare() {
        Expr::Call { .. } => Some((unmoved(&entry), def, stmt)),
        Expr::Name(_) | Expr::Attr(..) if depth < 3 => ctor_at(ix, &entry, def, stmt, 2),
        _ => None,
    }
}

fn ctor_name(e: &Expr) -> Option<&str> {
    match e.bare() {
        Expr::Call { func, .. } => func.last_name(),
        _ => None,
    }
}

fn is_hf_classifier(n: &str) -> bool {
    n.ends_with("ForSequenceClassification") || n.ends_with("ForTokenClassification") || n.ends_with("ForMultipleChoice")
}

fn is_hf_lm(n: &str) -> bool {
    n.ends_with("LMHeadModel") || n.ends_with("ForCausalLM") || n.ends_with("ForMaskedLM") || n.ends_with("ForConditionalGeneration")
}

/// Every call of the project that reaches one of `kinds`.
pub fn find(ix: &Index, kinds: &[SinkKind]) -> Vec<Sink> {
    let mut out = Vec::new();
    for (fi, f) in ix.files.iter().enumerate() {
        for (di, d) in f.flow.iter().enumerate() {
            for (si, s) in d.stmts.iter().enumerate() {
                let mut calls: Vec<Expr> = Vec::new();
                super::trace::stmt_exprs(&s.kind, &mut |e| {
                    if matches!(e, Expr::Call { .. }) {
                        calls.push(e.clone());
                    }
                });
                for c in calls {
                    if let Some(sink) = classify(ix, &c, (fi, di), si) {
                        let positions = positions_of(&sink);
                        let decoder = decoder_of(&sink, &c);
                        for sink in std::iter::once(sink).chain(positions).chain(decoder) {
                            if kinds.contains(&sink.kind) {
                                out.push(Sink { line: d.line(s), ..sink });
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// The `api` of a subscript's sink.
pub const SUBSCRIPT: &str = "__getitem__";

/// The subscripts of the statement on `line` of `path` that index by a computed value
/// (`self.item_category[items]`, `table[ids - 1]`): where a traceback stops at a line with no
/// call the knowledge base names, its indexing is the op, checked against the length of what
/// is indexed. Literal keys, names of columns and slices are not such an index.
pub fn subscripts_on(ix: &Index, path: &str, line: u32) -> Vec<Sink> {
    let mut out = Vec::new();
    for (fi, f) in ix.files.iter().enumerate().filter(|(_, f)| f.path == path) {
        for (di, d) in f.flow.iter().enumerate() {
            for (si, s) in d.stmts.iter().enumerate().filter(|(_, s)| d.line(s) == line) {
                let mut subs: Vec<Expr> = Vec::new();
                super::trace::stmt_exprs(&s.kind, &mut |e| {
                    if let Expr::Sub(_, i) = e {
                        if computed_index(i) {
                            subs.push(e.clone());
                        }
                    }
                });
                for e in subs {
                    let Expr::Sub(base, i) = &e else { continue };
                    let size = Expr::Call { func: Box::new(Expr::Name("len".into())), args: vec![(**base).clone()], kwargs: Vec::new() };
                    out.push(Sink {
                        kind: SinkKind::Index,
                        def: (fi, di),
                        stmt: si,
                        line,
                        value: (**i).clone(),
                        input: None,
                        call_text: short(&e),
                        ignore_index: None,
                        ctor: None,
                        fields: VOCAB,
                        ignore_expr: None,
                        api: Some(SUBSCRIPT.to_string()),
                        size: Some(size),
                    });
                }
            }
        }
    }
    out
}

/// An index computed from values (a name, an attribute, arithmetic, a call), not a literal
/// key, a slice or a tuple holding one.
fn computed_index(i: &Expr) -> bool {
    match i.bare() {
        Expr::Int(_) | Expr::Str(_) | Expr::Const(_) | Expr::Slice | Expr::Span(..) | Expr::Unary(..) => false,
        Expr::Seq(_, xs) => xs.iter().all(computed_index),
        _ => true,
    }
}

/// `Trainer(model=…, train_dataset=…, data_collator=…)`: the library loops over the dataset
/// (through the collator) and calls the model on each batch, so the model's own loss or lookup
/// is a sink of the batches' `labels` (a classifier) or `input_ids` (a language model).
fn trainer_sink(ix: &Index, call: &Expr, kwargs: &[(crate::scan::facts::Text, Expr)], def: DefId, stmt: usize) -> Option<Sink> {
    let model = kwarg(kwargs, "model")?.bare();
    let ds = kwarg(kwargs, "train_dataset")?.bare();
    let (ctor, cdef, cstmt) = ctor_of(ix, model, def, stmt)?;
    let cname = ctor_name(&ctor)?;
    let (kind, key) = if is_hf_classifier(cname) {
        (SinkKind::Classes, "labels")
    } else if is_hf_lm(cname) {
        (SinkKind::Embedding, "input_ids")
    } else {
        return None;
    };
    let collate: Vec<(crate::scan::facts::Text, Expr)> =
        kwarg(kwargs, "data_collator").map(|c| vec![("collate_fn".into(), c.bare().clone())]).unwrap_or_default();
    let loader = Expr::Call { func: Box::new(Expr::Name("DataLoader".into())), args: vec![ds.clone()], kwargs: collate };
    let batch = Expr::Name("batch".into());
    let value = Expr::Comp {
        kind: SeqKind::List,
        elt: Box::new(Expr::Sub(Box::new(batch.clone()), Box::new(Expr::Str(key.into())))),
        value: None,
        gens: vec![(batch, loader)],
        conds: Vec::new(),
    };
    Some(Sink {
        kind,
        def,
        stmt,
        line: 0,
        value,
        input: None,
        call_text: short(call),
        ignore_index: (kind == SinkKind::Classes).then_some(-100),
        ctor: Some((ctor, cdef, cstmt)),
        fields: VOCAB,
        ignore_expr: None,
        api: None,
        size: None,
    })
}

/// An encoder-decoder library model (`T5ForConditionalGeneration`, BART, Marian) called with
/// `labels` makes its decoder's input ids from them (shifted right, `-100` replaced by the pad
/// id) and looks them up in the same vocabulary: a second lookup sink, of the labels.
fn decoder_of(sink: &Sink, call: &Expr) -> Option<Sink> {
    let (ctor, ..) = sink.ctor.as_ref()?;
    if sink.kind != SinkKind::Embedding || !ctor_name(ctor)?.ends_with("ForConditionalGeneration") {
        return None;
    }
    let Expr::Call { args, kwargs, .. } = call else { return None };
    let labels = batch_field(args, kwargs, "labels")?;
    Some(Sink { value: labels, ignore_index: Some(-100), ..sink.clone() })
}

/// A library model's input `key`: the `key=` keyword, else `batch["key"]` of a `model(**batch)`.
fn batch_field(args: &[Expr], kwargs: &[(crate::scan::facts::Text, Expr)], key: &str) -> Option<Expr> {
    kwarg(kwargs, key).cloned().or_else(|| {
        args.iter().find_map(|a| match a.bare() {
            Expr::Star(b) => Some(Expr::Sub(b.clone(), Box::new(Expr::Str(key.into())))),
            _ => None,
        })
    })
}

/// The config fields that size a library model's vocabulary and its position table.
const VOCAB: &[&str] = &["vocab_size"];
const POSITIONS: &[&str] = &["n_positions", "max_position_embeddings", "n_ctx"];

/// A library model called on token ids also looks its positions up (`arange` of the ids'
/// second dimension, against the config's position count): a second sink for the same call.
fn positions_of(sink: &Sink) -> Option<Sink> {
    let (ctor, ..) = sink.ctor.as_ref()?;
    let name = ctor_name(ctor)?;
    if !(is_hf_lm(name) || is_hf_classifier(name)) || name.starts_with("T5") || name.contains("Bart") {
        return None;
    }
    if matches!(sink.value, Expr::Comp { .. }) {
        // a `Trainer`'s batches: no one call of the model to measure
        return None;
    }
    let ids = if is_hf_lm(name) {
        sink.value.clone()
    } else {
        match &sink.value {
            Expr::Sub(b, _) => Expr::Sub(b.clone(), Box::new(Expr::Str("input_ids".into()))),
            _ => return None,
        }
    };
    let size = Expr::Call { func: Box::new(Expr::Attr(Box::new(ids), "size".into())), args: vec![Expr::Int(1)], kwargs: Vec::new() };
    let value = Expr::Call {
        func: Box::new(Expr::Attr(Box::new(Expr::Name("torch".into())), "arange".into())),
        args: vec![size],
        kwargs: Vec::new(),
    };
    Some(Sink { kind: SinkKind::Embedding, value, input: None, ignore_index: None, fields: POSITIONS, ..sink.clone() })
}

fn classify(ix: &Index, call: &Expr, def: DefId, stmt: usize) -> Option<Sink> {
    let Expr::Call { func, args, kwargs } = call else { return None };
    // a module built and called at once (`nn.BCELoss()(p, y)`): named by its class
    let name = match func.bare() {
        Expr::Call { func: ctor, .. } => ctor.last_name()?,
        // an entry of a container of modules: named by the entry's constructor (below)
        Expr::Sub(..) => "",
        f => f.last_name()?,
    };
    let recv = match &**func {
        Expr::Attr(o, _) => Some((**o).clone()),
        _ => None,
    };
    let mk = |kind, value: Expr, input: Option<Expr>, ignore: Option<i64>, ctor| Sink {
        kind,
        def,
        stmt,
        line: 0,
        value,
        input,
        call_text: short(call),
        ignore_index: ignore,
        ctor,
        fields: VOCAB,
        ignore_expr: None,
        api: Some(name.to_string()),
        size: None,
    };
    let module = recv.as_ref().and_then(|r| r.dotted()).unwrap_or_default();
    let library = module.is_empty() || ["F", "nn.functional", "torch.nn.functional", "torch", "functional"].contains(&module.as_str());
    match name {
        "cross_entropy" | "nll_loss" if library => {
            let target = args.get(1).or(kwarg(kwargs, "target"))?.clone();
            let ignore = int_of(kwarg(kwargs, "ignore_index")).or(Some(-100));
            let expr = kwarg(kwargs, "ignore_index").filter(|e| int_of(Some(e)).is_none()).map(|e| (e.clone(), def, stmt));
            return Some(Sink { ignore_expr: expr, ..mk(SinkKind::Classes, target, args.first().cloned(), ignore, None) });
        }
        "binary_cross_entropy" if library => {
            return Some(mk(SinkKind::Probability, args.first().or(kwarg(kwargs, "input"))?.clone(), None, None, None));
        }
        "multinomial" | "bernoulli" => {
            let v = if module == "torch" || recv.is_none() { args.first().or(kwarg(kwargs, "input")).cloned() } else { recv.clone() };
            return Some(mk(SinkKind::Distribution, v?, None, None, None));
        }
        "embedding" if library && module != "torch" || module == "F" => {
            return Some(mk(SinkKind::Embedding, args.first().or(kwarg(kwargs, "input"))?.clone(), None, None, None));
        }
        // one row per class (`F.one_hot(y, n)`): a class at or past n has no column
        "one_hot" if library => {
            let size = args.get(1).or(kwarg(kwargs, "num_classes")).filter(|e| int_of(Some(e)) != Some(-1))?.clone();
            let value = args.first().or(kwarg(kwargs, "tensor"))?.clone();
            return Some(Sink { size: Some(size), ..mk(SinkKind::Index, value, None, None, None) });
        }
        "gather" => {
            let v = if module == "torch" { args.get(2) } else { args.get(1) }.or(kwarg(kwargs, "index"))?.clone();
            // along the class dimension (`logp.gather(1, y[:, None])`): the scores' width bounds it
            let (source, dim) = if module == "torch" { (args.first(), args.get(1)) } else { (recv.as_ref(), args.first()) };
            let along_classes = int_of(dim.or(kwarg(kwargs, "dim"))).is_some_and(|d| d == 1 || d == -1);
            return Some(mk(SinkKind::Index, v, source.filter(|_| along_classes).cloned(), None, None));
        }
        n if (n == "Trainer" || n.ends_with("Trainer")) && kwarg(kwargs, "model").is_some() && kwarg(kwargs, "train_dataset").is_some() => {
            return trainer_sink(ix, call, kwargs, def, stmt);
        }
        // the index of a write along a dimension (`out.index_add_(0, index, src)`, a scatter)
        "index_select" | "index_add" | "index_add_" | "index_copy" | "index_copy_" | "index_fill" | "index_fill_" | "scatter"
        | "scatter_" | "scatter_add" | "scatter_add_" | "scatter_reduce" | "scatter_reduce_"
            if recv.is_some() =>
        {
            let v = if module == "torch" { args.get(2) } else { args.get(1) }.or(kwarg(kwargs, "index"))?.clone();
            let (source, dim) = if module == "torch" { (args.first(), args.get(1)) } else { (recv.as_ref(), args.first()) };
            let along_classes = name.starts_with("scatter") && int_of(dim.or(kwarg(kwargs, "dim"))).is_some_and(|d| d == 1 || d == -1);
            return Some(mk(SinkKind::Index, v, source.filter(|_| along_classes).cloned(), None, None));
        }
        _ => {}
    }
    // a module instance: what was it built as?
    let (ctor, cdef, cstmt) = ctor_of(ix, func, def, stmt)?;
    let cname = ctor_name(&ctor)?.to_string();
    let Expr::Call { args: cargs, kwargs: ckw, .. } = ctor.bare() else { return None };
    let ctor_place = Some((ctor.clone(), cdef, cstmt));
    let library_model = is_hf_classifier(&cname) || is_hf_lm(&cname);
    // a stack is checked as its first layer (below)
    let api = (!library_model).then(|| if cname == "Sequential" { "Embedding".to_string() } else { cname.clone() });
    let found = match cname.as_str() {
        "CrossEntropyLoss" | "NLLLoss" => {
            let target = args.get(1).or(kwarg(kwargs, "target"))?.clone();
            let ignore = int_of(kwarg(ckw, "ignore_index")).or(Some(-100));
            let expr = kwarg(ckw, "ignore_index").filter(|e| int_of(Some(e)).is_none()).map(|e| (e.clone(), cdef, cstmt));
            Some(Sink { ignore_expr: expr, ..mk(SinkKind::Classes, target, args.first().cloned(), ignore, ctor_place) })
        }
        "BCELoss" => Some(mk(SinkKind::Probability, args.first()?.clone(), None, None, ctor_place)),
        "Embedding" => Some(mk(SinkKind::Embedding, args.first().or(kwarg(kwargs, "input"))?.clone(), None, None, ctor_place)),
        // a stack whose first layer is a lookup (`nn.Sequential(nn.Embedding(n, d), …)`): the
        // stack's input is the lookup's ids, its rows the bound
        "Sequential" => {
            let first = cargs.first().filter(|e| ctor_name(e) == Some("Embedding"))?;
            let _ = ckw;
            let place = Some((first.clone(), cdef, cstmt));
            Some(mk(SinkKind::Embedding, args.first()?.clone(), None, None, place))
        }
        n if is_hf_classifier(n) => {
            let labels = batch_field(args, kwargs, "labels")?;
            Some(mk(SinkKind::Classes, labels, None, Some(-100), ctor_place))
        }
        n if is_hf_lm(n) => {
            // `input_ids=`, else the first positional argument, else a `**batch`'s field
            let first = args.first().filter(|a| !matches!(a.bare(), Expr::Star(_)));
            let ids = kwarg(kwargs, "input_ids").or(first).cloned().or_else(|| batch_field(args, kwargs, "input_ids"))?;
            Some(mk(SinkKind::Embedding, ids, None, None, ctor_place))
        }
        _ => None,
    };
    found.map(|s| Sink { api, ..s })
}

/// A Python API's name as sinks and the knowledge base both spell it: the last segment, without
/// an in-place `_`, in lower case (`torch.Tensor.index_add_` → `index_add`).
pub fn api_key(api: &str) -> String {
    api.rsplit('.').next().unwrap_or(api).trim_end_matches('_').to_ascii_lowercase()
}

/// The bound of a sink, traced under `parent`: the class count of the head that made a loss's
/// input, an embedding's rows, an HF config's `num_labels` / `vocab_size`.
pub fn bound(tr: &mut Tracer, sink: &Sink, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
    if let Some(size) = &sink.size {
        let node = tr.node(cx, sink.stmt, Tag::Pass, format!("`{}` columns", short(size)), parent);
        let v = tr.expr(size, cx, node);
        finish(tr, node, &v);
        return Some(v);
    }
    match sink.kind {
        SinkKind::Classes => {
            if let Some((ctor, cdef, cstmt)) = &sink.ctor {
                if ctor_name(ctor).is_some_and(is_hf_classifier) {
                    return hf_config(tr, ctor, *cdef, *cstmt, "num_labels", parent);
                }
            }
            let input = sink.input.clone()?;
            let mut reach = Reach::default();
            if let Some((obj, ocx)) = model_of(tr, &input, cx, 0, &mut reach) {
                return head_width(tr, &obj, &ocx, parent, 0, &reach);
            }
            reach.layer.and_then(|(call, lcx)| direct_layer(tr, &call, &lcx, parent)).or_else(|| direct_layer(tr, &input, cx, parent))
        }
        // a gather or scatter along the class dimension of a model's scores (a hand-written
        // loss): the head's width
        SinkKind::Index => {
            let input = sink.input.clone()?;
            let mut reach = Reach::default();
            let Some((obj, ocx)) = model_of(tr, &input, cx, 0, &mut reach) else {
                // a library layer's scores (its outputs), else a tensor made in the step
                // (`torch.full_like(logp, eps)` with `logp` reshaped to `(-1, n_classes)`): the
                // size of its second dimension, where its shape says it
                if let Some(v) = reach.layer.and_then(|(call, lcx)| direct_layer(tr, &call, &lcx, parent)) {
                    return Some(v);
                }
                return shape_dim(tr, &input, 1, cx, parent, 0);
            };
            let keep = tr.nodes.len();
            let v = head_width(tr, &obj, &ocx, parent, 0, &reach)?;
            // a head one wide scores each position (its width squeezed away): the dimension
            // gathered along is another one, of a size the head does not say
            if matches!(&v, Val::Int(r) if r.lo == r.hi && r.hi.as_ref().and_then(Sym::constant) == Some(1)) {
                tr.cut(keep);
                return None;
            }
            Some(v)
        }
        SinkKind::Embedding => {
            let (ctor, cdef, cstmt) = sink.ctor.clone()?;
            if ctor_name(&ctor).is_some_and(|n| is_hf_lm(n) || is_hf_classifier(n)) {
                return sink.fields.iter().find_map(|f| hf_config(tr, &ctor, cdef, cstmt, f, parent));
            }
            let Expr::Call { args, kwargs, .. } = ctor.bare() else { return None };
            let rows = args.first().or(kwarg(kwargs, "num_embeddings"))?.clone();
            let c = Ctx { def: cdef, at: cstmt, env: None, depth: 1 };
            let node = tr.node(&c, cstmt, Tag::Pass, format!("builds the table `{}`", short(&ctor)), parent);
            let v = tr.expr(&rows, &c, node);
            finish(tr, node, &v);
            Some(v)
        }
        _ => None,
    }
}

/// The size of dimension `dim` of a tensor, where the code writes it: a `reshape`/`view` to a
/// shape that names it (`logp.reshape(-1, n_classes)`), followed back through names and through
/// what keeps a shape (`torch.full_like(x, eps)`, `x.clone()`, `x.data`, a softmax); None where
/// no shape on the way says it.
fn shape_dim(tr: &mut Tracer, e: &Expr, dim: usize, cx: &Ctx, parent: Option<usize>, hops: usize) -> Option<Val> {
    if hops > 8 {
        return None;
    }
    let like = |n: &str| n.ends_with("_like") || matches!(n, "log_softmax" | "softmax" | "sigmoid" | "clone" | "detach" | "log");
    match e.bare() {
        Expr::Name(n) => {
            let (i, value) = tr.ix.def(cx.def).last_assign(cx.at, n)?;
            let c = Ctx { at: i, ..cx.clone() };
            shape_dim(tr, value, dim, &c, parent, hops + 1)
        }
        Expr::Attr(o, a) if a == "data" => shape_dim(tr, o, dim, cx, parent, hops + 1),
        Expr::Call { func, args, .. } => {
            let name = func.last_name()?;
            let recv = match func.bare() {
                Expr::Attr(o, _) if !matches!(o.dotted().as_deref(), Some("torch" | "F" | "np" | "numpy")) => Some(&**o),
                _ => None,
            };
            match (name, recv) {
                ("reshape" | "view", Some(_)) => {
                    let dims = match args.as_slice() {
                        [one] => match one.bare() {
                            Expr::Seq(SeqKind::Tuple | SeqKind::List, xs) => xs.clone(),
                            _ => vec![one.clone()],
                        },
                        more => more.to_vec(),
                    };
                    let size = dims.get(dim).filter(|d| !matches!(d.bare(), Expr::Unary(_, _) | Expr::Int(-1)))?.clone();
                    let node = tr.node(cx, cx.at, Tag::Pass, format!("shapes `{}`", short(e)), parent);
                    let v = tr.expr(&size, cx, node);
                    finish(tr, node, &v);
                    matches!(&v, Val::Int(r) if r.known()).then_some(v)
                }
                ("fill_" | "to" | "float" | "contiguous", Some(o)) => shape_dim(tr, o, dim, cx, parent, hops + 1),
                (n, Some(o)) if like(n) => shape_dim(tr, o, dim, cx, parent, hops + 1),
                (n, None) if like(n) => shape_dim(tr, args.first()?, dim, cx, parent, hops + 1),
                _ => None,
            }
        }
        _ => None,
    }
}

fn finish(tr: &mut Tracer, node: Option<usize>, v: &Val) {
    if let Some(n) = node {
        tr.nodes[n].out = v.range();
        tr.nodes[n].val = v.describe();
    }
}

/// An HF model's config field (`num_labels` of `BertConfig(num_labels=…)` passed to it).
fn hf_config(tr: &mut Tracer, ctor: &Expr, cdef: DefId, cstmt: usize, field: &str, parent: Option<usize>) -> Option<Val> {
    let Expr::Call { args, kwargs, .. } = ctor.bare() else { return None };
    let c = Ctx { def: cdef, at: cstmt, env: None, depth: 1 };
    if let Some(v) = kwarg(kwargs, field) {
        let node = tr.node(&c, cstmt, Tag::Pass, format!("`{field}` of the model"), parent);
        let val = tr.expr(&v.clone(), &c, node);
        finish(tr, node, &val);
        return Some(val);
    }
    let cfg = args.first().or(kwarg(kwargs, "config"))?.clone();
    let cfg_ctor = ctor_of(tr.ix, &cfg, cdef, cstmt)?;
    let Expr::Call { kwargs: ckw, .. } = &cfg_ctor.0 else { return None };
    let v = kwarg(ckw, field)?.clone();
    let c2 = Ctx { def: cfg_ctor.1, at: cfg_ctor.2, env: None, depth: 1 };
    let node = tr.node(&c2, cfg_ctor.2, Tag::Pass, format!("`{field}` of the model's config"), parent);
    let val = tr.expr(&v, &c2, node);
    finish(tr, node, &val);
    Some(val)
}

/// The model instance whose output an expression is (`logits = model(x)`, `self(x)`,
/// `out.logits`), with the context to read its fields in.
///
/// `at.pos`: the position of the model's output the scores are, when the caller unpacks a tuple
/// the model returns (`p_logits, l_logits = model(x)`, `out[1]`), the one nearest the scores;
/// `at.layer`: the last call on the way of something that is no project model (a library layer).
fn model_of(tr: &mut Tracer, e: &Expr, cx: &Ctx, hops: usize, at: &mut Reach) -> Option<(Rc<Object>, Ctx)> {
    if hops > 6 {
        return None;
    }
    let ix = tr.ix;
    let d = ix.def(cx.def);
    match e {
        Expr::Name(n) => {
            for i in (0..cx.at.min(d.stmts.len())).rev() {
                if let StmtKind::Assign { targets, value, .. } = &d.stmts[i].kind {
                    if let Some(p) = targets.iter().find_map(|t| super::trace::pattern_pos(t, n)) {
                        if at.pos.is_none() {
                            at.pos = p.first().copied();
                        }
                        let c = Ctx { at: i, ..cx.clone() };
                        return model_of(tr, value, &c, hops + 1, at);
                    }
                }
            }
            // a parameter: the argument at a call site of this function
            let pi = d.param_index(n)?;
            let offset = usize::from(d.is_method());
            // (a module's `forward` where an instance of it is called, the traceback's call
            // first)
            let sites = tr.param_sites(cx, offset);
            for site in sites.into_iter().take(4) {
                let (sid, si) = site.at;
                let Some(a) = super::trace::given(&site.args, &site.kwargs, n, pi, site.offset) else { continue };
                let c = Ctx { def: sid, at: si, env: None, depth: cx.depth + 1 };
                if let Some(m) = model_of(tr, &a, &c, hops + 1, at) {
                    return Some(m);
                }
            }
            None
        }
        Expr::Sub(o, k) => {
            match (&at.pos, &at.key, k.bare()) {
                (None, None, Expr::Int(k)) => at.pos = usize::try_from(*k).ok(),
                (None, None, Expr::Str(k)) => at.key = Some(k.to_string()),
                _ => {}
            }
            model_of(tr, o, cx, hops + 1, at)
        }
        Expr::Attr(o, a) => {
            // a field of what the model returns (`out.logits`, the `logits=` it was built with)
            if at.pos.is_none() && at.key.is_none() && !SHAPE_KEEPING.contains(&a.as_str()) {
                at.key = Some(a.to_string());
            }
            model_of(tr, o, cx, hops + 1, at)
        }
        Expr::Call { func, args, .. } => {
            // scores normalized on the way (`F.log_softmax(logits, dim=1)`) keep the head's width
            let function = match &**func {
                Expr::Name(_) => true,
                Expr::Attr(o, _) => o.dotted().is_some_and(|m| super::trace::imported_module(&ix.files[cx.def.0].imports, &m) || m == "F"),
                _ => false,
            };
            if function && func.last_name().is_some_and(|n| NORMALIZING.contains(&n)) {
                return model_of(tr, args.first()?, cx, hops + 1, at);
            }
            if let Expr::Attr(o, m) = &**func {
                if SHAPE_KEEPING.contains(&m.as_str()) {
                    return model_of(tr, o, cx, hops + 1, at);
                }
            }
            let keep = tr.nodes.len();
            let callee = tr.expr(func, cx, None);
            tr.cut(keep);
            match callee {
                Val::Obj(o) => Some((o, cx.clone())),
                _ if matches!(func.last_name(), Some("view" | "reshape")) => model_of(tr, args.first()?, cx, hops + 1, at),
                // a library layer called (`self.net(x)` with `net = nn.Linear(32, 10)`): no
                // project model, the call is kept for `direct_layer`
                _ => {
                    at.layer = Some((e.clone(), cx.clone()));
                    None
                }
            }
        }
        _ => None,
    }
}

/// What `model_of` found on its way: the position of a tuple the scores are taken from, the key
/// or field of a dict or record they are read from (`out["donor"]`, `out.logits`), and the last
/// call of something that is no project model (a library layer).
#[derive(Default)]
struct Reach {
    pos: Option<usize>,
    key: Option<String>,
    layer: Option<(Expr, Ctx)>,
}

/// Tensor methods that keep a model output's last dimension (or only move it).
const SHAPE_KEEPING: &[&str] = &[
    "view",
    "reshape",
    "permute",
    "transpose",
    "float",
    "squeeze",
    "contiguous",
    "to",
    "flatten",
    "log_softmax",
    "softmax",
    "sigmoid",
    "log",
];

/// Functions of scores that keep their shape.
const NORMALIZING: &[&str] = &["log_softmax", "softmax", "sigmoid", "logsigmoid", "log_sigmoid"];

/// A loss input made by a library layer called directly (`model = nn.Linear(10, 3)`,
/// `logits = model(x)`): the layer's outputs.
fn direct_layer(tr: &mut Tracer, e: &Expr, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
    let ix = tr.ix;
    let d = ix.def(cx.def);
    let mut e = e.clone();
    let mut at = cx.at;
    for _ in 0..6 {
        match e {
            Expr::Name(n) => {
                let (i, v) = (0..at.min(d.stmts.len())).rev().find_map(|i| match &d.stmts[i].kind {
                    StmtKind::Assign { targets, value, .. } if targets.iter().any(|t| super::trace::pattern_pos(t, &n).is_some()) => {
                        Some((i, value.clone()))
                    }
                    _ => None,
                })?;
                e = v;
                at = i;
            }
            Expr::Call { func, .. } => {
                if let Expr::Attr(o, m) = &*func {
                    if ["view", "reshape", "squeeze", "float", "contiguous", "permute", "to"].contains(&m.as_str()) {
                        e = (**o).clone();
                        continue;
                    }
                }
                let (ctor, cdef, cstmt) = ctor_of(ix, &func, cx.def, at)?;
                let width = layer_outputs(&ctor)?;
                let c = Ctx { def: cdef, at: cstmt, env: None, depth: 1 };
                let node = tr.node(&c, cstmt, Tag::Pass, format!("builds the head `{}`", short(&ctor)), parent);
                let v = tr.expr(&width, &c, node);
                finish(tr, node, &v);
                return Some(v);
            }
            _ => return None,
        }
    }
    None
}

/// The number of outputs of a model's last layer: the layer its `forward` returns the output
/// of (through local names; the entry of a returned dict or record the caller reads, where it
/// reads one), else the last `nn.Linear` its constructor builds.
fn head_width(tr: &mut Tracer, obj: &Rc<Object>, cx: &Ctx, parent: Option<usize>, depth: usize, reach: &Reach) -> Option<Val> {
    let (pos, key) = (reach.pos, reach.key.as_deref());
    if depth > 3 {
        return None;
    }
    let ix = tr.ix;
    let mut layer: Option<String> = None;
    if let Some(&fwd) = ix.method(&obj.class, "forward").first() {
        let d = ix.def(fwd);
        let mut ret: Option<(Expr, usize)> = d.stmts.iter().enumerate().rev().find_map(|(i, s)| match &s.kind {
            StmtKind::Return(Some(e)) => Some((e.clone(), i)),
            _ => None,
        });
        let mut hops = 0;
        while let Some((e, at)) = ret.take() {
            hops += 1;
            if hops > 8 {
                break;
            }
            match e.bare().clone() {
                Expr::Call { func, args, kwargs } => match &*func {
                    Expr::Attr(o, a) if matches!(&**o, Expr::Name(s) if d.params.first().is_some_and(|p| p.name == *s)) => {
                        layer = Some(a.to_string())
                    }
                    Expr::Attr(o, m) if ["view", "reshape", "squeeze", "float", "contiguous", "permute"].contains(&m.as_str()) => {
                        ret = Some(((**o).clone(), at))
                    }
                    // (a record built with the field the caller reads, `Output(logits=...)`)
                    _ => ret = key.and_then(|k| kwarg(&kwargs, k)).or(args.first()).map(|a| (a.clone(), at)),
                },
                // the entry the caller reads of a returned dict
                Expr::Dict(ps) => {
                    ret = key
                        .and_then(|k| ps.iter().find(|(kk, _)| matches!(kk.bare(), Expr::Str(s) if s == k)))
                        .map(|(_, v)| (v.clone(), at))
                }
                // (a dict filled entry by entry before it is returned, `out["donor"] =
                // self.head(z)`: the entry the caller reads)
                Expr::Name(n) => {
                    ret = key.and_then(|k| keyed_store(d, at, &n, k)).or_else(|| {
                        (0..at).rev().find_map(|i| match &d.stmts[i].kind {
                            StmtKind::Assign { targets, value, .. }
                                if targets.iter().any(|t| super::trace::pattern_pos(t, &n).is_some()) =>
                            {
                                Some((value.clone(), i))
                            }
                            _ => None,
                        })
                    })
                }
                // a tuple of outputs: the one the caller took (the first when unknown)
                Expr::Seq(_, xs) => ret = pos.and_then(|k| xs.get(k)).or(xs.first()).map(|x| (x.clone(), at)),
                Expr::Attr(o, _) | Expr::Sub(o, _) => ret = Some(((*o).clone(), at)),
                _ => {}
            }
        }
    }
    let mro = ix.mro(&obj.class);
    let in_class = |id: DefId| ix.def(id).class.as_deref().is_some_and(|c| mro.iter().any(|m| m == c));
    let store = |attr: &str| ix.stores(attr).iter().copied().find(|(id, _)| in_class(*id));
    let mut site = layer.as_deref().and_then(store);
    if site.is_none() {
        // the last Linear the constructor stores
        let mut last = None;
        for c in &mro {
            for &id in &ix.method(c, "__init__") {
                for (si, s) in ix.def(id).stmts.iter().enumerate() {
                    if let StmtKind::Assign { targets, value, .. } = &s.kind {
                        if matches!(targets.first(), Some(Expr::Attr(..))) && layer_outputs(value).is_some() {
                            last = Some((id, si));
                        }
                    }
                }
            }
        }
        site = last;
    }
    let (sid, si) = site?;
    let StmtKind::Assign { value, .. } = &ix.def(sid).stmts[si].kind else { return None };
    let env = (ix.def(sid).name == "__init__").then(|| obj.ctor.clone()).flatten();
    let env = env.map(|e| {
        Rc::new(Env { args: e.args.clone(), kwargs: e.kwargs.clone(), caller: e.caller.clone(), vals: Vec::new(), recv: Some(obj.clone()) })
    });
    let c = Ctx { def: sid, at: si, env, depth: cx.depth + 1 };
    // a project module as the head: its own head
    if let Expr::Call { func, .. } = value {
        if let Some(n) = func.last_name() {
            if ix.is_class(n) {
                let keep = tr.nodes.len();
                let v = tr.expr(value, &c, None);
                tr.cut(keep);
                if let Val::Obj(inner) = v {
                    return head_width(tr, &inner, &c, parent, depth + 1, &Reach::default());
                }
            }
        }
    }
    let width = layer_outputs(value)?;
    let node = tr.node(&c, si, Tag::Pass, format!("builds the head `{}`", short(value)), parent);
    let v = tr.expr(&width, &c, node);
    finish(tr, node, &v);
    let _ = Norm::Raw;
    Some(v)
}

/// The value stored under `key` into the dict `name` before statement `at` (`out["donor"] =
/// self.head(z)`), with its statement.
fn keyed_store(d: &Def, at: usize, name: &str, key: &str) -> Option<(Expr, usize)> {
    (0..at.min(d.stmts.len())).rev().find_map(|i| match &d.stmts[i].kind {
        StmtKind::Assign { targets, value, .. }
            if targets.iter().any(|t| matches!(t.bare(), Expr::Sub(o, k) if matches!(o.bare(), Expr::Name(m) if m == name) && matches!(k.bare(), Expr::Str(s) if s == key))) =>
        {
            Some((value.clone(), i))
        }
        _ => None,
    })
}

/// The expression of a layer's output count: `nn.Linear(_, out)`, `out_features=`, the last
/// Linear of an `nn.Sequential`, a `Conv` layer's out channels.
fn layer_outputs(e: &Expr) -> Option<Expr> {
    let Expr::Call { func, args, kwargs } = e.bare() else { return None };
    match func.last_name()? {
        "Linear" | "LazyLinear" | "Bilinear" => {
            let i = if func.last_name() == Some("LazyLinear") {
                0
            } else if func.last_name() == Some("Bilinear") {
                2
            } else {
                1
            };
            kwarg(kwargs, "out_features").or(args.get(i)).cloned()
        }
        "Conv1d" | "Conv2d" | "Conv3d" | "ConvTranspose2d" => kwarg(kwargs, "out_channels").or(args.get(1)).cloned(),
        "Sequential" => args.iter().rev().find_map(layer_outputs),
        "create_model" => kwarg(kwargs, "num_classes").cloned(),
        _ => None,
    }
}
