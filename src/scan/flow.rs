//! The statements of a Python file as a small tree, for the value tracing (`analysis::flow`):
//! each function, method, class body and top-level statement is a `Def` holding its statements
//! in order — assignments (with their target patterns), `for` targets and iterables, returns,
//! yields, expression statements (`labels.append(y)`) and the conditions that guard the lines
//! under them — and each expression is an `Expr` tree of names, attributes, subscripts, calls,
//! arithmetic, literals, containers and comprehensions.
//!
//! Lines inside a `Def` are kept relative to its first line, so that the facts of a file's
//! unchanged top-level statements can be moved to their new lines (`scan::chunks`) by changing
//! the `Def`'s span alone. Expressions nested deeper than `MAX_DEPTH` (CPython allows 200
//! brackets, but `x = ----…1` nests without any) end in `Expr::Other`, so that building and
//! walking them never runs out of stack.

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use crate::scan::facts::{Span, Text};
use crate::scan::fields::{Field, F};

/// The largest file (in bytes) whose statement trees are built: about 1,500 lines of code.
/// Training scripts, datasets and configs are far smaller; the modules of model libraries
/// (transformers' modeling files) often larger, and building their trees cost a lint of
/// transformers a third more time.
pub const MAX_FILE_BYTES: usize = 60_000;

/// How deep an expression tree is built before the rest is kept as text.
pub const MAX_DEPTH: usize = 48;
/// The most characters of an expression kept as `Other` text.
const OTHER_TEXT: usize = 80;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DefKind {
    /// Top-level statements (one `Def` for each).
    Module,
    Function,
    /// The statements of a class body (dataclass fields, class constants).
    Class,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: Text,
    pub default: Option<Expr>,
    /// `*args` or `**kwargs`.
    pub star: bool,
}

/// A function, method, class body or top-level statement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Def {
    pub kind: DefKind,
    /// The function's or class's name; empty for top-level statements.
    pub name: Text,
    /// The class a method (or a class body) belongs to.
    pub class: Option<Text>,
    /// The function a nested function is defined in.
    pub outer: Option<Text>,
    pub params: Vec<Param>,
    /// The decorators as written, without `@` and arguments (`property`, `dataclass`,
    /// `register`).
    pub decorators: Vec<Text>,
    /// Aligned with `decorators`: the string each one is called with first, unquoted
    /// (`cosine` of `@register("cosine")`), else empty.
    pub decorator_keys: Vec<Text>,
    /// A class's bases (for a `Class` def).
    pub bases: Vec<Expr>,
    /// A class body's annotated fields in order (`name: int`, `size: int = 3`): the parameters
    /// of the constructor a dataclass or a `NamedTuple` is given.
    pub fields: Vec<Param>,
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stmt {
    /// The line, relative to the `Def`'s first line (0: its first line).
    pub rel: u32,
    /// How many `if`/`while`/`try`/`for` blocks the statement sits in (within its `Def`).
    pub nest: u16,
    pub kind: StmtKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum StmtKind {
    /// `a = b = value`, `a, b = value`, `a: int = value`; `op` for `a += value`.
    Assign {
        targets: Vec<Expr>,
        value: Expr,
        op: Option<Text>,
    },
    /// `for target in iter:` (also the `for` of a comprehension is kept in its `Expr`).
    For {
        target: Expr,
        iter: Expr,
    },
    /// `with value as target:`.
    With {
        target: Option<Expr>,
        value: Expr,
    },
    Return(Option<Expr>),
    Yield(Expr),
    /// An expression statement: `labels.append(y)`, `loss.backward()`.
    Expr(Expr),
    /// The condition of an `if`/`elif`/`while`, or an `assert`.
    Cond(Expr),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeqKind {
    List,
    Tuple,
    Set,
    /// A generator expression (only in comprehensions).
    Gen,
    Dict,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    Name(Text),
    Attr(Box<Expr>, Text),
    /// `value[index]`; a slice index is `Expr::Slice`.
    Sub(Box<Expr>, Box<Expr>),
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        kwargs: Vec<(Text, Expr)>,
    },
    Int(i64),
    Float(f64),
    Str(Text),
    /// `True`, `False`, `None`.
    Const(Text),
    /// `+ - * / // % ** @ & | ^ << >>`.
    Bin(Text, Box<Expr>, Box<Expr>),
    /// `-x`, `+x`, `~x`, `not x`.
    Unary(Text, Box<Expr>),
    /// A comparison or boolean operation, with its operands (`a < b`, `a and b`).
    Test(Text, Vec<Expr>),
    /// A list, tuple or set display; a dict display is `Dict`.
    Seq(SeqKind, Vec<Expr>),
    Dict(Vec<(Expr, Expr)>),
    /// A comprehension: its element (for a dict, the key and `value`), its `for` clauses (target,
    /// iterable) and its `if` clauses.
    Comp {
        kind: SeqKind,
        elt: Box<Expr>,
        value: Option<Box<Expr>>,
        gens: Vec<(Expr, Expr)>,
        conds: Vec<Expr>,
    },
    /// `a if cond else b`.
    IfElse(Box<Expr>, Box<Expr>, Box<Expr>),
    Lambda {
        params: Vec<Text>,
        body: Box<Expr>,
    },
    /// `*x` / `**x` in a call or display.
    Star(Box<Expr>),
    /// `a:b:c` in a subscript (or nothing, where an operand is missing).
    Slice,
    /// `a:b` in a subscript, each end optional.
    Span(Option<Box<Expr>>, Option<Box<Expr>>),
    /// Anything else (or an expression nested too deep), as written (clipped).
    Other(Text),
    /// An element of a display or an argument that starts this many lines below its
    /// statement (a field of a multi-line dict, an argument on its own line).
    At(u32, Box<Expr>),
}

impl Expr {
    /// The dotted name of a name/attribute chain (`self.fc`, `F.cross_entropy`), if it is one.
    pub fn dotted(&self) -> Option<String> {
        match self {
            Expr::Name(n) => Some(n.to_string()),
            Expr::Attr(o, a) => o.dotted().map(|s| format!("{s}.{a}")),
            Expr::At(_, x) => x.dotted(),
            _ => None,
        }
    }

    /// The place a name/attribute chain with constant keys names (`batch["start"]`,
    /// `self.y[0]`), written out, if it is one: two expressions that name the same place read
    /// the same value.
    pub fn place(&self) -> Option<String> {
        match self {
            Expr::Sub(o, k) => {
                let key = match k.bare() {
                    Expr::Str(s) => format!("{s:?}"),
                    Expr::Int(i) => i.to_string(),
                    _ => return None,
                };
                o.place().map(|o| format!("{o}[{key}]"))
            }
            Expr::Attr(o, a) => o.place().map(|s| format!("{s}.{a}")),
            Expr::At(_, x) => x.place(),
            other => other.dotted(),
        }
    }

    /// The expression without its line marker.
    pub fn bare(&self) -> &Expr {
        match self {
            Expr::At(_, x) => x.bare(),
            other => other,
        }
    }

    /// The last segment of a callee (`cross_entropy` of `F.cross_entropy`).
    pub fn last_name(&self) -> Option<&str> {
        match self {
            Expr::Name(n) => Some(n),
            Expr::Attr(_, a) => Some(a),
            _ => None,
        }
    }

    /// The names an expression reads (not attribute names, not names bound inside it).
    pub fn names(&self, out: &mut Vec<Text>) {
        self.walk(&mut |e| {
            if let Expr::Name(n) = e {
                out.push(n.clone());
            }
        });
    }

    /// The expression with every read of the name `name` replaced by `with` (not inside a
    /// comprehension or lambda that binds the name again).
    pub fn replacing(&self, name: &str, with: &Expr) -> Expr {
        let r = |e: &Expr| e.replacing(name, with);
        let b = |e: &Expr| Box::new(e.replacing(name, with));
        match self {
            Expr::Name(n) if n.as_str() == name => with.clone(),
            Expr::Attr(o, a) => Expr::Attr(b(o), a.clone()),
            Expr::Unary(op, o) => Expr::Unary(op.clone(), b(o)),
            Expr::Star(o) => Expr::Star(b(o)),
            Expr::Sub(x, y) => Expr::Sub(b(x), b(y)),
            Expr::Bin(op, x, y) => Expr::Bin(op.clone(), b(x), b(y)),
            Expr::Call { func, args, kwargs } => Expr::Call {
                func: b(func),
                args: args.iter().map(r).collect(),
                kwargs: kwargs.iter().map(|(k, v)| (k.clone(), r(v))).collect(),
            },
            Expr::Test(op, xs) => Expr::Test(op.clone(), xs.iter().map(r).collect()),
            Expr::Seq(k, xs) => Expr::Seq(*k, xs.iter().map(r).collect()),
            Expr::Dict(ps) => Expr::Dict(ps.iter().map(|(k, v)| (r(k), r(v))).collect()),
            Expr::Comp { gens, .. } if gens.iter().any(|(t, _)| t.binds(name)) => self.clone(),
            Expr::Comp { kind, elt, value, gens, conds } => Expr::Comp {
                kind: *kind,
                elt: b(elt),
                value: value.as_ref().map(|v| b(v)),
                gens: gens.iter().map(|(t, i)| (t.clone(), r(i))).collect(),
                conds: conds.iter().map(r).collect(),
            },
            Expr::IfElse(x, c, y) => Expr::IfElse(b(x), b(c), b(y)),
            Expr::Lambda { params, .. } if params.iter().any(|p| p.as_str() == name) => self.clone(),
            Expr::Lambda { params, body } => Expr::Lambda { params: params.clone(), body: b(body) },
            Expr::Span(x, y) => Expr::Span(x.as_ref().map(|e| b(e)), y.as_ref().map(|e| b(e))),
            Expr::At(k, x) => Expr::At(*k, b(x)),
            other => other.clone(),
        }
    }

    /// Whether a target pattern binds the name (`k`, `(i, k)`, `[k, *rest]`).
    pub fn binds(&self, name: &str) -> bool {
        let mut found = false;
        self.walk(&mut |e| found |= matches!(e, Expr::Name(n) if n.as_str() == name));
        found
    }

    /// Visits every sub-expression, parents first.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Attr(o, _) | Expr::Unary(_, o) | Expr::Star(o) => o.walk(f),
            Expr::Sub(a, b) | Expr::Bin(_, a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Call { func, args, kwargs } => {
                func.walk(f);
                args.iter().for_each(|a| a.walk(f));
                kwargs.iter().for_each(|(_, a)| a.walk(f));
            }
            Expr::Test(_, xs) | Expr::Seq(_, xs) => xs.iter().for_each(|x| x.walk(f)),
            Expr::Dict(ps) => ps.iter().for_each(|(k, v)| {
                k.walk(f);
                v.walk(f);
            }),
            Expr::Comp { elt, value, gens, conds, .. } => {
                elt.walk(f);
                if let Some(v) = value {
                    v.walk(f);
                }
                gens.iter().for_each(|(t, i)| {
                    t.walk(f);
                    i.walk(f);
                });
                conds.iter().for_each(|c| c.walk(f));
            }
            Expr::IfElse(a, c, b) => {
                a.walk(f);
                c.walk(f);
                b.walk(f);
            }
            Expr::Lambda { body, .. } => body.walk(f),
            Expr::At(_, x) => x.walk(f),
            Expr::Span(a, b) => a.iter().chain(b.iter()).for_each(|x| x.walk(f)),
            _ => {}
        }
    }
}

impl Def {
    /// The absolute line of a statement.
    pub fn line(&self, s: &Stmt) -> u32 {
        self.span.line + s.rel
    }

    /// `Class.method`, `function`, `Class` or `<module>`.
    pub fn qualified(&self) -> String {
        match (&self.class, self.kind) {
            (Some(c), DefKind::Function) => format!("{c}.{}", self.name),
            (_, DefKind::Class) => self.name.to_string(),
            (None, DefKind::Function) => self.name.to_string(),
            _ => "<module>".to_string(),
        }
    }

    /// The last plain assignment `name = value` among the statements before `before`: its
    /// statement's index and its value.
    pub fn last_assign(&self, before: usize, name: &str) -> Option<(usize, &Expr)> {
        (0..before.min(self.stmts.len())).rev().find_map(|i| match &self.stmts[i].kind {
            StmtKind::Assign { targets, value, op: None } if targets.iter().any(|t| matches!(t, Expr::Name(x) if x == name)) => {
                Some((i, value))
            }
            _ => None,
        })
    }

    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    pub fn is_method(&self) -> bool {
        self.class.is_some() && self.kind == DefKind::Function && !self.decorators.iter().any(|d| d == "staticmethod")
    }
}

struct Build<'s> {
    text: &'s str,
    defs: Vec<Def>,
    /// The line of the statement whose expressions are being built.
    line: u32,
}

fn text<'s>(b: &Build<'s>, n: Node) -> &'s str {
    b.text.get(n.byte_range()).unwrap_or("")
}

fn clip(s: &str) -> Text {
    // most texts are short and on one line: kept as they are, without a copy to normalize
    if s.len() <= OTHER_TEXT && !s.contains(['\n', '\r', '\t']) && !s.contains("  ") {
        return Text::from(s);
    }
    // words taken until the text is full: the cost is the kept text's, not the node's (a call
    // nested 200,000 deep is 200,000 nodes, each holding the rest of the line)
    let mut t = String::new();
    let mut chars = 0;
    for (i, w) in s.split_whitespace().enumerate() {
        for c in (i > 0).then_some(' ').into_iter().chain(w.chars()) {
            if chars == OTHER_TEXT {
                t.push('…');
                return t.into();
            }
            t.push(c);
            chars += 1;
        }
    }
    t.into()
}

fn named<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).filter(|x| x.kind_name() != "comment").collect()
}

fn parse_int(t: &str) -> Option<i64> {
    let t = t.replace('_', "");
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        i64::from_str_radix(b, 2).ok()
    } else {
        t.parse().ok()
    }
}

impl<'s> Build<'s> {
    /// `expr`, marked with its line when it starts below the statement's.
    fn lined(&self, n: Node, depth: usize) -> Expr {
        let e = self.expr(n, depth);
        let line = n.start_position().row as u32 + 1;
        match line.checked_sub(self.line) {
            Some(d) if d > 0 && self.line > 0 => Expr::At(d, Box::new(e)),
            _ => e,
        }
    }

    fn expr(&self, n: Node, depth: usize) -> Expr {
        if depth > MAX_DEPTH {
            return Expr::Other(clip(text(self, n)));
        }
        let d = depth + 1;
        let field = |f: F| n.field(f);
        let sub = |f: F| field(f).map(|x| self.expr(x, d)).unwrap_or(Expr::Other("".into()));
        match n.kind_name() {
            "identifier" => Expr::Name(text(self, n).into()),
            "attribute" => {
                let attr = field(F::Attribute).map(|a| text(self, a)).unwrap_or("");
                Expr::Attr(Box::new(sub(F::Object)), attr.into())
            }
            "subscript" => {
                let idx: Vec<Node> = {
                    let mut c = n.walk();
                    n.children_by_field_name("subscript", &mut c).collect()
                };
                let index = match idx.as_slice() {
                    [one] => self.expr(*one, d),
                    many => Expr::Seq(SeqKind::Tuple, many.iter().map(|x| self.expr(*x, d)).collect()),
                };
                Expr::Sub(Box::new(sub(F::Value)), Box::new(index))
            }
            "slice" => {
                // `a:b` (an end may be missing); a slice with a step stays opaque
                let mut ends: Vec<Option<Node>> = vec![None];
                let mut c = n.walk();
                for ch in n.children(&mut c) {
                    if ch.kind_name() == ":" {
                        ends.push(None);
                    } else if ch.is_named() && ch.kind_name() != "comment" {
                        if let Some(last) = ends.last_mut() {
                            *last = Some(ch);
                        }
                    }
                }
                match ends.as_slice() {
                    [lo, hi] => Expr::Span(lo.map(|x| Box::new(self.expr(x, d))), hi.map(|x| Box::new(self.expr(x, d)))),
                    _ => Expr::Slice,
                }
            }
            "call" => {
                let func = Box::new(sub(F::Function));
                let (mut args, mut kwargs) = (Vec::new(), Vec::new());
                if let Some(list) = field(F::Arguments) {
                    if list.kind_name() == "generator_expression" {
                        args.push(self.expr(list, d));
                    } else {
                        for a in named(list) {
                            match a.kind_name() {
                                "keyword_argument" => {
                                    let name = a.field(F::Name).map(|x| text(self, x)).unwrap_or("");
                                    let v = a.field(F::Value).map(|x| self.lined(x, d)).unwrap_or(Expr::Other("".into()));
                                    kwargs.push((Text::from(name), v));
                                }
                                "list_splat" | "dictionary_splat" => {
                                    args.push(Expr::Star(Box::new(a.named_child(0).map(|x| self.expr(x, d)).unwrap_or(Expr::Slice))))
                                }
                                _ => args.push(self.lined(a, d)),
                            }
                        }
                    }
                }
                Expr::Call { func, args, kwargs }
            }
            "integer" => parse_int(text(self, n)).map(Expr::Int).unwrap_or_else(|| Expr::Other(clip(text(self, n)))),
            "float" => text(self, n).replace('_', "").parse().map(Expr::Float).unwrap_or_else(|_| Expr::Other(clip(text(self, n)))),
            "string" | "concatenated_string" => {
                let t = text(self, n);
                let inner = t.trim_start_matches(|c: char| c.is_ascii_alphabetic()).trim_matches(|c| c == '"' || c == '\'');
                Expr::Str(clip(inner))
            }
            "true" | "false" | "none" => Expr::Const(text(self, n).into()),
            "binary_operator" => {
                let op = field(F::Operator).map(|o| text(self, o)).unwrap_or("?");
                Expr::Bin(op.into(), Box::new(sub(F::Left)), Box::new(sub(F::Right)))
            }
            "unary_operator" => {
                let op = field(F::Operator).map(|o| text(self, o)).unwrap_or("?");
                let arg = field(F::Argument).map(|x| self.expr(x, d)).unwrap_or(Expr::Other("".into()));
                match (op, &arg) {
                    ("-", Expr::Int(v)) => Expr::Int(-v),
                    ("+", Expr::Int(v)) => Expr::Int(*v),
                    ("-", Expr::Float(v)) => Expr::Float(-v),
                    _ => Expr::Unary(op.into(), Box::new(arg)),
                }
            }
            "not_operator" => Expr::Unary("not".into(), Box::new(sub(F::Argument))),
            "boolean_operator" => {
                let op = field(F::Operator).map(|o| text(self, o)).unwrap_or("and");
                Expr::Test(op.into(), vec![sub(F::Left), sub(F::Right)])
            }
            "comparison_operator" => {
                let mut c = n.walk();
                let ops: Vec<&str> = n.children(&mut c).filter(|x| !x.is_named()).map(|x| text(self, x)).collect();
                Expr::Test(ops.join(" ").into(), named(n).into_iter().map(|x| self.expr(x, d)).collect())
            }
            "parenthesized_expression" => n.named_child(0).map(|x| self.expr(x, d)).unwrap_or(Expr::Other("".into())),
            "list" | "tuple" | "set" | "expression_list" | "pattern_list" | "tuple_pattern" | "list_pattern" => {
                let kind = match n.kind_name() {
                    "list" | "list_pattern" => SeqKind::List,
                    "set" => SeqKind::Set,
                    _ => SeqKind::Tuple,
                };
                Expr::Seq(kind, named(n).into_iter().map(|x| self.lined(x, d)).collect())
            }
            "list_splat" | "dictionary_splat" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                Expr::Star(Box::new(n.named_child(0).map(|x| self.expr(x, d)).unwrap_or(Expr::Slice)))
            }
            "dictionary" => Expr::Dict(
                named(n)
                    .into_iter()
                    .filter(|p| matches!(p.kind_name(), "pair" | "dictionary_splat"))
                    .map(|p| {
                        // `**other` is kept as the key `*other` with no value: its calls are
                        // calls (`{**self.evaluate(loader)}`), its fields a record's
                        if p.kind_name() == "dictionary_splat" {
                            return (self.expr(p, d), Expr::Slice);
                        }
                        let k = p.field(F::Key).map(|x| self.expr(x, d)).unwrap_or(Expr::Slice);
                        let v = p.field(F::Value).map(|x| self.lined(x, d)).unwrap_or(Expr::Slice);
                        (k, v)
                    })
                    .collect(),
            ),
            "list_comprehension" | "set_comprehension" | "generator_expression" | "dictionary_comprehension" => {
                let kind = match n.kind_name() {
                    "list_comprehension" => SeqKind::List,
                    "set_comprehension" => SeqKind::Set,
                    "dictionary_comprehension" => SeqKind::Dict,
                    _ => SeqKind::Gen,
                };
                let body = field(F::Body);
                let (elt, value) = match body {
                    Some(p) if p.kind_name() == "pair" => (
                        p.field(F::Key).map(|x| self.expr(x, d)).unwrap_or(Expr::Slice),
                        p.field(F::Value).map(|x| Box::new(self.expr(x, d))),
                    ),
                    Some(b) => (self.expr(b, d), None),
                    None => (Expr::Slice, None),
                };
                let (mut gens, mut conds) = (Vec::new(), Vec::new());
                for c in named(n) {
                    match c.kind_name() {
                        "for_in_clause" => {
                            let t = c.field(F::Left).map(|x| self.expr(x, d)).unwrap_or(Expr::Slice);
                            let i = c.field(F::Right).map(|x| self.expr(x, d)).unwrap_or(Expr::Slice);
                            gens.push((t, i));
                        }
                        "if_clause" => {
                            if let Some(x) = c.named_child(0) {
                                conds.push(self.expr(x, d));
                            }
                        }
                        _ => {}
                    }
                }
                Expr::Comp { kind, elt: Box::new(elt), value, gens, conds }
            }
            "conditional_expression" => {
                let parts = named(n);
                match parts.as_slice() {
                    [a, c, b] => Expr::IfElse(Box::new(self.expr(*a, d)), Box::new(self.expr(*c, d)), Box::new(self.expr(*b, d))),
                    _ => Expr::Other(clip(text(self, n))),
                }
            }
            "lambda" => {
                let params = field(F::Parameters).map(|p| self.param_names(p)).unwrap_or_default();
                Expr::Lambda { params, body: Box::new(sub(F::Body)) }
            }
            "named_expression" => sub(F::Value),
            "await" => n.named_child(0).map(|x| self.expr(x, d)).unwrap_or(Expr::Other("".into())),
            "keyword_argument" => sub(F::Value),
            "as_pattern" => n.named_child(0).map(|x| self.expr(x, d)).unwrap_or(Expr::Other("".into())),
            _ => Expr::Other(clip(text(self, n))),
        }
    }

    fn param_names(&self, ps: Node) -> Vec<Text> {
        self.params(ps).into_iter().map(|p| p.name).collect()
    }

    fn params(&self, ps: Node) -> Vec<Param> {
        let mut out = Vec::new();
        for p in named(ps) {
            let (name, default, star) = match p.kind_name() {
                "identifier" => (Some(p), None, false),
                "default_parameter" | "typed_default_parameter" => (p.field(F::Name), p.field(F::Value), false),
                "typed_parameter" => (named(p).into_iter().find(|x| x.kind_name() == "identifier"), None, false),
                "list_splat_pattern" | "dictionary_splat_pattern" => (p.named_child(0), None, true),
                _ => (None, None, false),
            };
            if let Some(name) = name {
                out.push(Param { name: text(self, name).into(), default: default.map(|d| self.expr(d, 0)), star });
            }
        }
        out
    }

    /// The statements of a block into `out`; nested definitions become `Def`s of their own.
    fn block(&mut self, n: Node, nest: u16, out: &mut Vec<(u32, u16, StmtKind)>, class: Option<&Text>, outer: Option<&Text>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for s in named(n) {
            self.stmt(s, nest, out, class, outer, depth + 1);
        }
    }

    fn stmt(&mut self, s: Node, nest: u16, out: &mut Vec<(u32, u16, StmtKind)>, class: Option<&Text>, outer: Option<&Text>, depth: usize) {
        let line = s.start_position().row as u32 + 1;
        self.line = line;
        let field = |f: F| s.field(f);
        match s.kind_name() {
            "expression_statement" => {
                for e in named(s) {
                    match e.kind_name() {
                        "assignment" => self.assignment(e, nest, out),
                        "augmented_assignment" => {
                            if let (Some(l), Some(r)) = (e.field(F::Left), e.field(F::Right)) {
                                let op = e.field(F::Operator).map(|o| text(self, o).trim_end_matches('=')).unwrap_or("+");
                                out.push((
                                    line,
                                    nest,
                                    StmtKind::Assign { targets: vec![self.expr(l, 0)], value: self.expr(r, 0), op: Some(op.into()) },
                                ));
                            }
                        }
                        "yield" => {
                            let v = e.named_child(0).map(|x| self.expr(x, 0)).unwrap_or(Expr::Const("None".into()));
                            out.push((line, nest, StmtKind::Yield(v)));
                        }
                        // a docstring or a bare string says nothing about values
                        "string" | "concatenated_string" => {}
                        _ => out.push((line, nest, StmtKind::Expr(self.expr(e, 0)))),
                    }
                }
            }
            "return_statement" => out.push((line, nest, StmtKind::Return(s.named_child(0).map(|x| self.expr(x, 0))))),
            "assert_statement" => {
                if let Some(c) = s.named_child(0) {
                    out.push((line, nest, StmtKind::Cond(self.expr(c, 0))));
                }
            }
            "if_statement" | "elif_clause" | "while_statement" => {
                if let Some(c) = field(F::Condition) {
                    out.push((line, nest, StmtKind::Cond(self.expr(c, 0))));
                }
                if let Some(b) = field(F::Consequence).or_else(|| field(F::Body)) {
                    self.block(b, nest + 1, out, class, outer, depth);
                }
                let mut c = s.walk();
                let alts: Vec<Node> = s.children_by_field_name("alternative", &mut c).collect();
                for a in alts {
                    match a.kind_name() {
                        "elif_clause" => self.stmt(a, nest, out, class, outer, depth + 1),
                        _ => {
                            // `else:` reads as the test's negation, a header of its own: the
                            // branches' statements are alternatives, not one run after the other
                            if let (Some(c), Some(_)) = (field(F::Condition), a.field(F::Body)) {
                                let not = Expr::Unary("not".into(), Box::new(self.expr(c, 0)));
                                out.push((a.start_position().row as u32 + 1, nest, StmtKind::Cond(not)));
                            }
                            if let Some(b) = a.field(F::Body) {
                                self.block(b, nest + 1, out, class, outer, depth);
                            }
                        }
                    }
                }
            }
            "for_statement" => {
                if let (Some(t), Some(i)) = (field(F::Left), field(F::Right)) {
                    out.push((line, nest, StmtKind::For { target: self.expr(t, 0), iter: self.expr(i, 0) }));
                }
                if let Some(b) = field(F::Body) {
                    self.block(b, nest + 1, out, class, outer, depth);
                }
                if let Some(b) = field(F::Alternative).and_then(|a| a.field(F::Body)) {
                    self.block(b, nest + 1, out, class, outer, depth);
                }
            }
            "with_statement" => {
                for clause in named(s).into_iter().filter(|x| x.kind_name() == "with_clause") {
                    for item in named(clause) {
                        let Some(v) = item.field(F::Value) else { continue };
                        let (value, target) = if v.kind_name() == "as_pattern" {
                            let tgt = v.field(F::Alias).and_then(|a| a.named_child(0).or(Some(a)));
                            (v.named_child(0).map(|x| self.expr(x, 0)).unwrap_or(Expr::Slice), tgt.map(|t| self.expr(t, 0)))
                        } else {
                            (self.expr(v, 0), None)
                        };
                        out.push((line, nest, StmtKind::With { target, value }));
                    }
                }
                if let Some(b) = field(F::Body) {
                    self.block(b, nest, out, class, outer, depth);
                }
            }
            "try_statement" => {
                for part in named(s) {
                    match part.kind_name() {
                        "block" => self.block(part, nest + 1, out, class, outer, depth),
                        "except_clause" | "finally_clause" | "else_clause" | "except_group_clause" => {
                            if let Some(b) = named(part).into_iter().find(|x| x.kind_name() == "block") {
                                self.block(b, nest + 1, out, class, outer, depth);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "function_definition" | "class_definition" => self.def(s, (Vec::new(), Vec::new()), class, outer, depth),
            "decorated_definition" => {
                let nodes: Vec<Node> = named(s).into_iter().filter(|x| x.kind_name() == "decorator").collect();
                let decorators: Vec<Text> =
                    nodes.iter().map(|&x| clip(text(self, x).trim_start_matches('@').split('(').next().unwrap_or(""))).collect();
                // (the first argument of a decorator call, where it is a string)
                let keys: Vec<Text> = nodes
                    .iter()
                    .map(|&x| match x.named_child(0).map(|c| self.expr(c, 0)) {
                        Some(Expr::Call { args, .. }) => match args.first().map(Expr::bare) {
                            Some(Expr::Str(k)) => k.clone(),
                            _ => Text::default(),
                        },
                        _ => Text::default(),
                    })
                    .collect();
                if let Some(def) = field(F::Definition) {
                    self.def(def, (decorators, keys), class, outer, depth);
                }
            }
            _ => {}
        }
    }

    fn assignment(&mut self, e: Node, nest: u16, out: &mut Vec<(u32, u16, StmtKind)>) {
        let line = e.start_position().row as u32 + 1;
        // `a = b = v` nests: the right side of the outer assignment is the inner assignment
        let mut targets = Vec::new();
        let mut cur = e;
        loop {
            if let Some(l) = cur.field(F::Left) {
                targets.push(self.expr(l, 0));
            }
            match cur.field(F::Right) {
                Some(r) if r.kind_name() == "assignment" => cur = r,
                Some(r) => {
                    out.push((line, nest, StmtKind::Assign { targets, value: self.expr(r, 0), op: None }));
                    return;
                }
                // `x: int` with no value
                None => return,
            }
        }
    }

    fn def(
        &mut self,
        n: Node,
        (decorators, decorator_keys): (Vec<Text>, Vec<Text>),
        class: Option<&Text>,
        outer: Option<&Text>,
        depth: usize,
    ) {
        let name: Text = n.field(F::Name).map(|x| text(self, x)).unwrap_or("").into();
        self.line = n.start_position().row as u32 + 1;
        let mut stmts = Vec::new();
        let span = span_of(n);
        match n.kind_name() {
            "function_definition" => {
                let params = n.field(F::Parameters).map(|p| self.params(p)).unwrap_or_default();
                if let Some(b) = n.field(F::Body) {
                    self.block(b, 0, &mut stmts, None, Some(&name), depth);
                }
                self.push(
                    Def {
                        kind: DefKind::Function,
                        name: name.clone(),
                        class: class.cloned(),
                        outer: outer.cloned(),
                        params,
                        decorators,
                        decorator_keys: decorator_keys.clone(),
                        bases: Vec::new(),
                        fields: Vec::new(),
                        stmts: Vec::new(),
                        span,
                    },
                    stmts,
                );
            }
            _ => {
                let bases: Vec<Expr> =
                    n.field(F::Superclasses).map(|s| named(s).into_iter().map(|x| self.expr(x, 0)).collect()).unwrap_or_default();
                let mut fields = Vec::new();
                if let Some(b) = n.field(F::Body) {
                    self.block(b, 0, &mut stmts, Some(&name), None, depth);
                    fields = self.annotated_fields(b);
                }
                self.push(
                    Def {
                        kind: DefKind::Class,
                        name: name.clone(),
                        class: Some(name),
                        outer: None,
                        params: Vec::new(),
                        decorators,
                        decorator_keys: decorator_keys.clone(),
                        bases,
                        fields,
                        stmts: Vec::new(),
                        span,
                    },
                    stmts,
                );
            }
        }
    }

    /// The annotated assignments directly in a class body (`x: int`, `x: int = 3`), in order.
    fn annotated_fields(&self, body: Node) -> Vec<Param> {
        let mut out = Vec::new();
        for s in named(body).into_iter().filter(|s| s.kind_name() == "expression_statement") {
            for a in named(s).into_iter().filter(|a| a.kind_name() == "assignment" && a.field(F::Type).is_some()) {
                if let Some(l) = a.field(F::Left).filter(|l| l.kind_name() == "identifier") {
                    out.push(Param { name: text(self, l).into(), default: a.field(F::Right).map(|r| self.expr(r, 0)), star: false });
                }
            }
        }
        out
    }

    fn push(&mut self, mut def: Def, stmts: Vec<(u32, u16, StmtKind)>) {
        let first = def.span.line;
        def.stmts = stmts.into_iter().map(|(line, nest, kind)| Stmt { rel: line.saturating_sub(first), nest, kind }).collect();
        self.defs.push(def);
    }
}

fn span_of(n: Node) -> Span {
    let (s, e) = (n.start_position(), n.end_position());
    Span { line: s.row as u32 + 1, column: s.column as u32 + 1, end_line: e.row as u32 + 1, end_column: e.column as u32 + 1 }
}

/// The `Def`s of a parsed file: one for each top-level statement that is not a definition,
/// one for each function (methods and nested functions too) and one for each class body.
pub fn defs(root: Node, text: &str) -> Vec<Def> {
    let mut b = Build { text, defs: Vec::new(), line: 0 };
    for s in named(root) {
        match s.kind_name() {
            "function_definition" | "class_definition" | "decorated_definition" => {
                let mut none = Vec::new();
                b.stmt(s, 0, &mut none, None, None, 0);
            }
            _ => {
                let mut stmts = Vec::new();
                b.stmt(s, 0, &mut stmts, None, None, 0);
                if !stmts.is_empty() {
                    let def = Def {
                        kind: DefKind::Module,
                        name: Text::default(),
                        class: None,
                        outer: None,
                        params: Vec::new(),
                        decorators: Vec::new(),
                        decorator_keys: Vec::new(),
                        bases: Vec::new(),
                        fields: Vec::new(),
                        stmts: Vec::new(),
                        span: span_of(s),
                    };
                    b.push(def, stmts);
                }
            }
        }
    }
    b.defs.sort_by_key(|d| d.span.line);
    b.defs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Vec<Def> {
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_python::LANGUAGE.into()).unwrap();
        let tree = p.parse(src, None).unwrap();
        defs(tree.root_node(), src)
    }

    #[test]
    fn a_class_body_lists_its_annotated_fields_in_order() {
        let src = "@dataclass\nclass Unit:\n    code: int\n    name: str = \"g\"\n    SCALE = 3\n    def f(self):\n        x: int = 1\n";
        let defs = parse(src);
        let body = defs.iter().find(|d| d.kind == DefKind::Class).unwrap();
        let fields: Vec<&str> = body.fields.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(fields, ["code", "name"]);
        assert_eq!(body.fields[1].default, Some(Expr::Str("g".into())));
        // a method's annotated local is no field
        assert!(defs.iter().filter(|d| d.kind != DefKind::Class).all(|d| d.fields.is_empty()));
    }

    #[test]
    fn statements_and_expressions() {
        let src = "N = 3\nclass D(Dataset):\n    def __init__(self, names, k=1):\n        self.y = [m[c] + 1 for c in names]\n    def __getitem__(self, i):\n        if i < 0:\n            i = 0\n        return self.x[i], self.y[i]\nfor xb, yb in loader:\n    loss = crit(model(xb), yb)\n";
        let defs = parse(src);
        let names: Vec<String> = defs.iter().map(|d| d.qualified()).collect();
        assert_eq!(names, ["<module>", "D", "D.__init__", "D.__getitem__", "<module>"]);
        let init = &defs[2];
        assert_eq!(init.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["self", "names", "k"]);
        assert_eq!(init.params[2].default, Some(Expr::Int(1)));
        let StmtKind::Assign { targets, value, .. } = &init.stmts[0].kind else { panic!() };
        assert_eq!(targets[0].dotted().as_deref(), Some("self.y"));
        let Expr::Comp { elt, gens, .. } = value else { panic!("{value:?}") };
        assert!(matches!(&**elt, Expr::Bin(op, _, r) if op == "+" && **r == Expr::Int(1)));
        assert_eq!(gens[0], (Expr::Name("c".into()), Expr::Name("names".into())));
        assert_eq!(init.line(&init.stmts[0]), 4);
        let get = &defs[3];
        assert!(matches!(get.stmts[0].kind, StmtKind::Cond(_)));
        assert_eq!(get.stmts[1].nest, 1);
        assert!(matches!(&get.stmts[2].kind, StmtKind::Return(Some(Expr::Seq(SeqKind::Tuple, xs))) if xs.len() == 2));
        let main = &defs[4];
        assert!(matches!(&main.stmts[0].kind, StmtKind::For { .. }));
        assert_eq!(main.line(&main.stmts[1]), 10);
    }

    #[test]
    fn deep_expressions_end_in_text() {
        let src = format!("x = {}1\n", "-".repeat(40_000));
        // the tree-sitter parse itself is the scan's business; here only the builder's depth
        let defs = parse(&src);
        let StmtKind::Assign { value, .. } = &defs[0].stmts[0].kind else { panic!() };
        let mut depth = 0;
        let mut e = value;
        while let Expr::Unary(_, inner) = e {
            depth += 1;
            e = inner;
        }
        assert!(depth <= MAX_DEPTH + 1, "{depth}");
    }
}
