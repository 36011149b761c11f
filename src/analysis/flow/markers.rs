//! A marker the op's own function knows is in the value: `valid = target != self.ignore_index`
//! written a line above `F.one_hot(target, n)`. The comparison says the value holds the marker;
//! an op that then takes the value itself (not the masked or filled copy) gets the marker as an
//! index. This needs no knowledge of where the value came from (masks read from files, ids from
//! a tokenizer): the test and the use, in one function, are the evidence.

use super::index::Index;
use super::sinks::{Sink, SinkKind};
use super::trace::{self, Ctx, Tracer};
use super::value::{Sym, Val};
use crate::scan::flow::{Expr, StmtKind};

/// A comparison of the op's value with a marker, in the op's function.
pub struct Tested {
    /// The comparison's line.
    pub line: u32,
    /// The marker as written (`self.ignore_index`).
    pub marker: String,
    /// Its value.
    pub value: i64,
}

/// Whether the op's value is compared (`==` / `!=`, `.eq` / `.ne`) with a marker in the op's
/// function, outside a condition (an `if x == pad: continue` guards the op), with nothing
/// between the comparison and the op that changes the value (`x[x == pad] = 0`,
/// `x = x.clamp(…)`, `x.masked_fill_(…)`). The comparison may come before the op (a mask made
/// and not applied) or after it (a mask applied to the op's result, too late). The value must
/// reach the op as the name compared, through pass-through methods only (`target.unsqueeze(1)`),
/// not through a mask or a fill.
pub fn tested(ix: &Index, sink: &Sink) -> Option<Tested> {
    let mut value = sink.value.bare();
    while let Expr::Call { func, .. } = value {
        match func.bare() {
            Expr::Attr(o, m) if trace::is_pass_method(m) => value = o.bare(),
            _ => break,
        }
    }
    // only a plain name, or an attribute of one, is followed (`target`, `batch.labels`)
    value.dotted()?;
    let d = ix.def(sink.def);
    let same = |x: &Expr| x.bare() == value;
    let compared = |k: &StmtKind| {
        let mut other: Option<Expr> = None;
        if matches!(k, StmtKind::Cond(_)) {
            return None;
        }
        trace::stmt_exprs(k, &mut |e| match e {
            Expr::Test(op, xs) if (op == "!=" || op == "==") && xs.len() == 2 => {
                if same(&xs[0]) {
                    other = other.clone().or(Some(xs[1].clone()));
                } else if same(&xs[1]) {
                    other = other.clone().or(Some(xs[0].clone()));
                }
            }
            Expr::Call { func, args, .. } if args.len() == 1 => {
                if let Expr::Attr(o, m) = func.bare() {
                    if (m == "ne" || m == "eq") && same(o) {
                        other = other.clone().or(Some(args[0].clone()));
                    }
                }
            }
            _ => {}
        });
        // a comparison with another tensor (`pred == target`) is no marker: the other side is a
        // literal or a name of a setting
        other.filter(|o| matches!(o.bare(), Expr::Int(_) | Expr::Unary(..) | Expr::Name(_) | Expr::Attr(..)))
    };
    // the nearest comparison above the op with no change between, else the nearest below
    let mut found: Option<(usize, Expr)> = None;
    for (i, s) in d.stmts.iter().enumerate().take(sink.stmt + 1) {
        if i < sink.stmt && changes(&s.kind, value) {
            found = None;
        } else if let Some(o) = compared(&s.kind) {
            found = Some((i, o));
        }
    }
    if found.is_none() {
        for (i, s) in d.stmts.iter().enumerate().skip(sink.stmt + 1) {
            if changes(&s.kind, value) {
                break;
            }
            if let Some(o) = compared(&s.kind) {
                found = Some((i, o));
                break;
            }
        }
    }
    let (i, marker) = found?;
    let mut tr = Tracer::new(ix);
    let cx = Ctx { def: sink.def, at: i, env: None, depth: 0 };
    let v = tr.expr(&marker, &cx, None);
    if std::env::var_os("CUDASLEUTH_FLOW_DEBUG").is_some() {
        eprintln!("marker test at {}: `{}` = {}", d.line(&d.stmts[i]), trace::short(&marker), v.describe());
    }
    // a name the tracing cannot evaluate may be another tensor, not a marker
    let value = match v {
        Val::Int(r) if r.lo == r.hi => r.lo.as_ref().and_then(Sym::constant)?,
        _ => return None,
    };
    Some(Tested { line: d.line(&d.stmts[i]), marker: trace::short(&marker), value })
}

/// Whether a statement changes what `value` holds: assigns it, stores into it, or calls an
/// in-place method on it.
fn changes(k: &StmtKind, value: &Expr) -> bool {
    let stores = |t: &Expr| {
        let mut hit = false;
        t.walk(&mut |x| hit |= x == value);
        hit
    };
    match k {
        StmtKind::Assign { targets, .. } => targets.iter().any(stores),
        StmtKind::For { target, .. } => stores(target),
        StmtKind::Expr(Expr::Call { func, .. }) => match func.bare() {
            Expr::Attr(o, m) => o.bare() == value && m.ends_with('_'),
            _ => false,
        },
        _ => false,
    }
}

/// Whether the marker `k` fails the op: below 0 always; at or past the bound when the bound is
/// a number; not at all for a class-target op that ignores it, nor for 0 (a row of every
/// non-empty table). None: a marker above 0 against a bound that is not a number.
pub fn fails(k: i64, kind: SinkKind, bound: Option<&Sym>, ignore: Option<i64>) -> Option<bool> {
    if kind.takes_probabilities() || ignore == Some(k) {
        return Some(false);
    }
    if k < 0 {
        return Some(true);
    }
    match bound.and_then(Sym::constant) {
        Some(b) => Some(k >= b),
        None if k == 0 => Some(false),
        None => None,
    }
}

/// The names a setting's line binds: a config key's last segment, or the targets of the
/// assignment on that line (`IGNORE = -100`, `self.pad_label = -1`).
pub fn setting_names(ix: &Index, file: usize, line: u32, key: Option<&str>) -> Vec<String> {
    if let Some(k) = key {
        return k.rsplit('.').next().map(|s| vec![s.to_string()]).unwrap_or_default();
    }
    let mut out = Vec::new();
    for s in ix.statements_on(file, line) {
        if let StmtKind::Assign { targets, .. } = &s.kind {
            for t in targets {
                if let Some(n) = t.bare().last_name() {
                    out.push(n.to_string());
                }
            }
        }
    }
    out
}

/// The first line (by file, then line) where the project skips a marker held in a setting named
/// one of `names`: a loss built with `ignore_index=` it, or a value compared with it
/// (`label != cfg.ignore_label`, `ids.ne(PAD)`). A marker skipped so is a convention of the
/// project, right where it is set; a value that takes it and reaches an op that does not skip it
/// got it from the line that wrote it there.
///
/// A comparison of a value named one of `values` with the marker does not count: that value is
/// the one being traced (`n_unknown = (self.y == UNLABELED).sum()` counts the marker in it).
pub fn skipped(ix: &Index, names: &[String], values: &[String]) -> Option<(String, u32)> {
    let named = |e: &Expr| e.bare().last_name().is_some_and(|n| names.iter().any(|m| m == n));
    let traced = |e: &Expr| e.bare().last_name().is_some_and(|n| values.iter().any(|m| m == n));
    let mut found: Option<(String, u32)> = None;
    for f in &ix.files {
        for d in &f.flow {
            for s in &d.stmts {
                let mut hit = false;
                trace::stmt_exprs(&s.kind, &mut |e| match e {
                    Expr::Test(op, xs) if op == "==" || op == "!=" => hit |= xs.iter().any(named) && !xs.iter().any(traced),
                    Expr::Call { func, args, kwargs } => {
                        hit |= kwargs.iter().any(|(k, v)| k == "ignore_index" && named(v));
                        let of_traced = matches!(func.bare(), Expr::Attr(o, _) if traced(o));
                        hit |= matches!(func.bare().last_name(), Some("ne" | "eq")) && args.first().is_some_and(named) && !of_traced;
                    }
                    _ => {}
                });
                if hit {
                    let at = (f.path.clone(), d.line(s));
                    if found.as_ref().map_or(true, |f| at < *f) {
                        found = Some(at);
                    }
                }
            }
        }
    }
    found
}

/// The first line where the project compares a value with a name that holds the marker `k` (a
/// setting passed down under another name: `flag = cfg["no_data"]`, then `y != flag` in a
/// helper whose parameter is `flag`), the comparison's own values not being the traced ones
/// (`values`). A literal compared (`x != 255`) is no setting and does not count. At most
/// `BUDGET` names are evaluated.
pub fn skipped_value(ix: &Index, k: i64, values: &[String]) -> Option<(String, u32)> {
    const BUDGET: usize = 64;
    let traced = |e: &Expr| e.bare().last_name().is_some_and(|n| values.iter().any(|m| m == n));
    let mut spent = 0;
    for (fi, f) in ix.files.iter().enumerate() {
        for (di, d) in f.flow.iter().enumerate() {
            for (si, s) in d.stmts.iter().enumerate() {
                let mut operands: Vec<Expr> = Vec::new();
                trace::stmt_exprs(&s.kind, &mut |e| match e {
                    Expr::Test(op, xs) if (op == "==" || op == "!=") && xs.len() == 2 && !xs.iter().any(traced) => {
                        operands.extend(xs.iter().filter(|x| x.bare().dotted().is_some()).cloned());
                    }
                    Expr::Call { func, args, .. } if args.len() == 1 => {
                        if let Expr::Attr(o, m) = func.bare() {
                            if (m == "ne" || m == "eq") && !traced(o) && args[0].bare().dotted().is_some() {
                                operands.push(args[0].clone());
                            }
                        }
                    }
                    _ => {}
                });
                for o in operands {
                    if spent >= BUDGET {
                        return None;
                    }
                    spent += 1;
                    let mut tr = Tracer::new(ix);
                    let cx = Ctx { def: (fi, di), at: si, env: None, depth: 0 };
                    if let Val::Int(r) = tr.expr(&o, &cx, None) {
                        if r.lo == r.hi && r.lo.as_ref().and_then(Sym::constant) == Some(k) {
                            return Some((f.path.clone(), d.line(s)));
                        }
                    }
                }
            }
        }
    }
    None
}
