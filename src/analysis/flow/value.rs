//! The abstract values the tracing computes: integer ranges whose ends are a constant or a
//! shared root (`len(classes)`, a config key, a data column) plus an offset, containers of such
//! values, records (a batch dict), instances, and "unknown" with the reason.

use std::fmt;
use std::rc::Rc;

/// `root + off`, or the constant `off` when there is no root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sym {
    pub root: Option<Rc<str>>,
    pub off: i64,
}

impl Sym {
    pub fn num(n: i64) -> Sym {
        Sym { root: None, off: n }
    }
    pub fn root(r: &str) -> Sym {
        Sym { root: Some(r.into()), off: 0 }
    }
    pub fn plus(&self, k: i64) -> Sym {
        Sym { root: self.root.clone(), off: self.off.saturating_add(k) }
    }
    pub fn constant(&self) -> Option<i64> {
        self.root.is_none().then_some(self.off)
    }
    /// Whether the root is a count (a length, a number of distinct values): never below 0.
    pub fn counts(&self) -> bool {
        self.root.as_deref().is_some_and(|r| r.starts_with("len@") || r.starts_with("distinct@"))
    }
    /// `self + other` when at most one of them has a root (a length plus a number of specials).
    pub fn add(&self, other: &Sym) -> Option<Sym> {
        other.constant().map(|k| self.plus(k)).or_else(|| self.constant().map(|k| other.plus(k)))
    }
    /// `self - other` when both are written in the same root (or are constants).
    pub fn minus(&self, other: &Sym) -> Option<i64> {
        (self.root == other.root).then(|| self.off - other.off)
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.root, self.off) {
            (None, k) => write!(f, "{k}"),
            (Some(r), 0) => write!(f, "{r}"),
            (Some(r), k) if k > 0 => write!(f, "{r} + {k}"),
            (Some(r), k) => write!(f, "{r} - {}", -k),
        }
    }
}

/// An inclusive range; an end that is not known is None.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Range {
    pub lo: Option<Sym>,
    pub hi: Option<Sym>,
}

impl Range {
    pub fn exact(s: Sym) -> Range {
        Range { lo: Some(s.clone()), hi: Some(s) }
    }
    pub fn shift(&self, k: i64) -> Range {
        Range { lo: self.lo.as_ref().map(|s| s.plus(k)), hi: self.hi.as_ref().map(|s| s.plus(k)) }
    }
    pub fn known(&self) -> bool {
        self.lo.is_some() || self.hi.is_some()
    }
    /// The smallest range holding both (an end is kept only when both are written in one root).
    pub fn join(&self, o: &Range) -> Range {
        let pick = |a: &Option<Sym>, b: &Option<Sym>, lower: bool| match (a, b) {
            (Some(x), Some(y)) => match x.minus(y) {
                Some(d) if (d <= 0) == lower => Some(x.clone()),
                Some(_) => Some(y.clone()),
                // a constant beside a count (never below 0) plus at least that constant:
                // the constant is the lower end, the count the upper
                None => match (x.constant(), y.constant()) {
                    (Some(c), None) if y.counts() && c <= y.off => Some(if lower { x.clone() } else { y.clone() }),
                    (None, Some(c)) if x.counts() && c <= x.off => Some(if lower { y.clone() } else { x.clone() }),
                    _ => None,
                },
            },
            _ => None,
        };
        Range { lo: pick(&self.lo, &o.lo, true), hi: pick(&self.hi, &o.hi, false) }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let end = |s: &Option<Sym>| s.as_ref().map_or("?".to_string(), |s| s.to_string());
        if self.lo.is_some() && self.lo == self.hi {
            return write!(f, "{}", end(&self.lo));
        }
        write!(f, "[{}, {}]", end(&self.lo), end(&self.hi))
    }
}

/// Whether a value holds probabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Norm {
    /// softmax, sigmoid, a clamp to [0, 1]
    Probs,
    /// raw model scores, or arithmetic that can leave [0, 1]
    Raw,
}

#[derive(Debug, Clone)]
pub enum Val {
    /// An integer, or the integer elements of a tensor or array.
    Int(Range),
    /// Floating values (a tensor of scores or probabilities).
    Float(Option<Norm>),
    /// A list, set, tensor or generator: its elements and its length (`most`: an upper bound
    /// of the length when the length itself is not known; a tensor's second dimension is its
    /// element's length).
    Seq {
        elem: Box<Val>,
        len: Option<Sym>,
        most: Option<Sym>,
    },
    /// A dict (or a mapping-like table): keys, values, length.
    Map {
        key: Box<Val>,
        val: Box<Val>,
        len: Option<Sym>,
    },
    Tuple(Vec<Val>),
    /// A dict with literal keys (a sample or batch dict).
    Record(Vec<(String, Val)>),
    /// An instance of a project class.
    Obj(Rc<super::trace::Object>),
    /// A project function (a `collate_fn`, a transform).
    Func(super::index::DefId),
    /// A data column: its values, rows and distinct values (from the scan's read of the file).
    Column {
        range: Range,
        rows: i64,
        distinct: i64,
    },
    /// A table read from a data file (`pd.read_csv(…)`): the file's index when the scan read it.
    Table(Option<usize>),
    /// An element of a tuple or record display, evaluated when it is used.
    Thunk(Rc<super::trace::Thunk>),
    Unknown(Rc<str>),
}

impl Val {
    pub fn unknown(why: impl Into<String>) -> Val {
        Val::Unknown(why.into().into())
    }

    /// The integer range this value's elements take, through containers.
    pub fn range(&self) -> Option<Range> {
        match self {
            Val::Int(r) if r.known() => Some(r.clone()),
            Val::Column { range, .. } if range.known() => Some(range.clone()),
            Val::Seq { elem, .. } => elem.range(),
            Val::Map { val, .. } => val.range(),
            _ => None,
        }
    }

    /// The element of a container (or the value itself for a scalar or a tensor: indexing a
    /// tensor by a sample index keeps its values).
    pub fn element(&self) -> Val {
        match self {
            Val::Seq { elem, .. } => (**elem).clone(),
            Val::Map { val, .. } => (**val).clone(),
            Val::Int(_) | Val::Float(_) => self.clone(),
            Val::Column { range, .. } => Val::Int(range.clone()),
            Val::Tuple(xs) if !xs.is_empty() => xs.iter().skip(1).fold(xs[0].clone(), |a, b| a.join(b)),
            other => other.clone(),
        }
    }

    /// The length when it is known, else an upper bound of it (`ids[:n]` is at most n long).
    pub fn most(&self) -> Option<Sym> {
        match self {
            // a bound kept beside a length that is a root of its own (`[f(t) for t in ids[:n]]`
            // is `len@…` long and at most n)
            Val::Seq { most: Some(m), .. } => Some(m.clone()),
            other => other.len(),
        }
    }

    pub fn len(&self) -> Option<Sym> {
        match self {
            Val::Seq { len, .. } | Val::Map { len, .. } => len.clone(),
            Val::Column { rows, .. } => Some(Sym::num(*rows)),
            Val::Tuple(xs) => Some(Sym::num(xs.len() as i64)),
            Val::Record(xs) => Some(Sym::num(xs.len() as i64)),
            _ => None,
        }
    }

    pub fn join(&self, o: &Val) -> Val {
        match (self, o) {
            (Val::Int(a), Val::Int(b)) => Val::Int(a.join(b)),
            // a column's cells beside other integers (a table of zeros filled from a column)
            (Val::Int(a), Val::Column { range, .. }) | (Val::Column { range, .. }, Val::Int(a)) if range.known() => Val::Int(a.join(range)),
            (Val::Float(a), Val::Float(b)) => Val::Float(if a == b {
                *a
            } else if *a == Some(Norm::Raw) || *b == Some(Norm::Raw) {
                // one branch's raw scores may reach what wants probabilities
                Some(Norm::Raw)
            } else {
                None
            }),
            (Val::Seq { elem: a, len: la, most: ma }, Val::Seq { elem: b, len: lb, most: mb }) => {
                // the longest of the two, when both are written in one root
                let most = match (la.as_ref().or(ma.as_ref()), lb.as_ref().or(mb.as_ref())) {
                    (Some(x), Some(y)) => x.minus(y).map(|d| if d >= 0 { x.clone() } else { y.clone() }),
                    _ => None,
                };
                Val::Seq { elem: Box::new(a.join(b)), len: if la == lb { la.clone() } else { None }, most }
            }
            (Val::Unknown(_), x) | (x, Val::Unknown(_)) => x.clone(),
            // a dict set empty (`self.lookup = {}` in `__init__`) beside the one filled later
            (Val::Map { len: Some(z), .. }, m @ Val::Map { .. }) | (m @ Val::Map { .. }, Val::Map { len: Some(z), .. })
                if z.constant() == Some(0) =>
            {
                m.clone()
            }
            (Val::Map { key: ka, val: va, len: la }, Val::Map { key: kb, val: vb, len: lb }) => {
                Val::Map { key: Box::new(ka.join(kb)), val: Box::new(va.join(vb)), len: if la == lb { la.clone() } else { None } }
            }
            // integers in containers of different depth (a batch beside one sample): the
            // cells join, in the deeper container's shape
            (Val::Seq { elem, len, most }, b @ Val::Int(_)) | (b @ Val::Int(_), Val::Seq { elem, len, most }) => {
                Val::Seq { elem: Box::new(elem.join(b)), len: len.clone(), most: most.clone() }
            }
            // instances of different classes (a factory's branches), or of one class built by
            // different calls (a list of records written out): either one
            (Val::Obj(a), Val::Obj(b)) if !a.same(b) || !b.also.is_empty() => Val::Obj(super::trace::Object::alternatives(a, b)),
            (a, _) => a.clone(),
        }
    }

    /// The innermost element (a tensor's cells): through sequences, and through tuples whose
    /// parts agree on nothing better than the first.
    pub fn element_deep(&self) -> &Val {
        let mut v = self;
        for _ in 0..8 {
            match v {
                Val::Seq { elem, .. } => v = elem,
                Val::Tuple(xs) if !xs.is_empty() => v = &xs[0],
                _ => break,
            }
        }
        v
    }

    /// A record's field, a tuple's position.
    pub fn field(&self, key: &str) -> Option<Val> {
        match self {
            Val::Record(xs) => xs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()),
            _ => None,
        }
    }

    pub fn at(&self, i: usize) -> Val {
        match self {
            Val::Tuple(xs) => xs.get(i).cloned().unwrap_or_else(|| Val::unknown("tuple position")),
            Val::Seq { elem, .. } => (**elem).clone(),
            Val::Record(xs) => xs.get(i).map(|(_, v)| v.clone()).unwrap_or_else(|| Val::unknown("record position")),
            Val::Int(_) | Val::Float(_) => self.clone(),
            Val::Column { range, .. } => Val::Int(range.clone()),
            other => other.clone(),
        }
    }

    /// The number of distinct values, when known (a data column's).
    pub fn distinct(&self) -> Option<i64> {
        match self {
            Val::Column { distinct, .. } => Some(*distinct),
            _ => None,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Val::Int(r) => r.to_string(),
            Val::Float(Some(Norm::Probs)) => "probabilities".into(),
            Val::Float(Some(Norm::Raw)) => "unnormalized scores".into(),
            Val::Float(None) => "floats".into(),
            Val::Seq { elem, len, .. } => match len {
                Some(l) => format!("{l} × {}", elem.describe()),
                None => format!("elements {}", elem.describe()),
            },
            Val::Map { val, len, .. } => match len {
                Some(l) => format!("{l} entries, values {}", val.describe()),
                None => format!("values {}", val.describe()),
            },
            Val::Tuple(xs) => format!("({})", xs.iter().map(Val::describe).collect::<Vec<_>>().join(", ")),
            Val::Record(xs) => format!("{{{}}}", xs.iter().map(|(k, v)| format!("{k}: {}", v.describe())).collect::<Vec<_>>().join(", ")),
            Val::Obj(o) => format!("a {}", o.class),
            Val::Func(_) => "a function".into(),
            Val::Table(_) => "a table".into(),
            Val::Column { range, rows, distinct } => format!("{rows} rows of {range}, {distinct} distinct"),
            Val::Thunk(_) => "…".into(),
            Val::Unknown(why) => format!("unknown ({why})"),
        }
    }
}
