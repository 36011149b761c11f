//! Value provenance over the scan's statement trees: the calls that reach a failing op
//! (`sinks`), two slices back from each — the **value** operand (targets, indices, ids,
//! probabilities) and the **bound** (a head's outputs, an embedding's rows) — and the
//! **divergence**: the first slice node whose value, written in the bound's roots, stops fitting
//! the bound. Where the ranges cannot decide, the nodes are ranked by what they do to the value
//! (a shift, a marker, a count from 1, a size from a maximum), and the tier says so.
//!
//! The library calls the tracing knows (loaders, collate functions, Lightning hooks, encoders)
//! are modelled in `trace`; every other call ends its chain as "unknown (no model for X)".

pub mod index;
pub mod markers;
pub mod sinks;
pub mod trace;
pub mod value;

use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

use self::index::Index;
use self::sinks::{Sink, SinkKind};
use self::trace::{Ctx, Length, Node, Pin, Scaling, Tag, Tracer};
use self::value::{Norm, Range, Sym, Val};
use crate::scan;
use crate::scan::facts::FileFacts;

/// How sure a flow suspect is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    /// The ranges prove the value leaves the bound at this line.
    Strong,
    /// The line does what this failure class is made of (a shift, a marker, …) on the value's path.
    Likely,
    /// On the value's path, nothing proves it.
    Possible,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Strong => "strong",
            Tier::Likely => "likely",
            Tier::Possible => "possible",
        }
    }
}

/// One line of a chain: where, its role, and what it does.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Step {
    pub file: String,
    pub line: u32,
    /// `origin`, `transform`, `pass`, `bound` or `call`.
    pub role: &'static str,
    pub what: String,
    /// The value after the line, as far as the tracing knows it.
    pub value: String,
}

#[derive(Debug, Clone)]
pub struct FlowSuspect {
    pub file: String,
    pub line: u32,
    pub score: f32,
    pub tier: Tier,
    pub message: String,
    /// From this line to the op call.
    pub chain: Vec<Step>,
    /// The bound's chain, from its origin to the op call (empty when not found).
    pub bound_chain: Vec<Step>,
    /// The chain comes through the data: a loader loop, a Dataset's `__getitem__`, a Lightning
    /// batch, a data column, a config key or flag.
    pub data: bool,
    /// The line is where the value's range, traced in the code, first breaks a bound the slice
    /// knows (one size, not 0): a proof that needs no crash to point at the op.
    pub bounded: bool,
    /// The proof's range passes a line that comes after a decision in its function (an `if`
    /// above it), which the ranges do not follow: without a crash, not proof enough.
    pub decided: bool,
}

/// The failure classes of the knowledge base, as the sink kinds that reach them.
pub fn kinds_for(category: &str) -> Vec<SinkKind> {
    match category {
        "label_out_of_range" => vec![SinkKind::Classes],
        "embedding_index_out_of_range" => vec![SinkKind::Embedding, SinkKind::Index],
        "index_out_of_range" => vec![SinkKind::Embedding, SinkKind::Index, SinkKind::Classes],
        // the KB files bernoulli's and multinomial's asserts here too (its Python APIs narrow the calls)
        "probability_out_of_range" => vec![SinkKind::Probability, SinkKind::Distribution],
        "invalid_distribution" => vec![SinkKind::Distribution],
        _ => vec![SinkKind::Classes, SinkKind::Embedding, SinkKind::Probability, SinkKind::Distribution],
    }
}

fn role(tag: &Tag) -> &'static str {
    match tag {
        Tag::Column(_) | Tag::Config(_) | Tag::Literal(_) | Tag::OneBased(_) | Tag::Sentinel(_) | Tag::Parsed => "origin",
        Tag::Pass => "pass",
        Tag::Call => "call",
        _ => "transform",
    }
}

/// Whether a range leaves `[0, bound)` (or `[0, 1]` scaled ints never happen here): Some(true)
/// when it provably does, Some(false) when it provably fits, None when the ranges cannot say.
fn breaks(r: &Range, bound: Option<&Sym>, ignore: Option<i64>) -> Option<bool> {
    // the ignored marker itself (`IGNORE = 255` with `ignore_index=IGNORE`) is not out of range
    if ignore.is_some() && r.lo == r.hi && r.lo.as_ref().and_then(|s| s.constant()) == ignore {
        return Some(false);
    }
    let low = r.lo.as_ref().and_then(|s| s.constant()).map(|lo| lo < 0 && Some(lo) != ignore);
    let high = match (r.hi.as_ref(), bound) {
        (Some(h), Some(b)) => h.minus(b).map(|d| d >= 0),
        // every value at or past the bound (`ids + offset` with the offset the bound itself)
        (None, Some(b)) => r.lo.as_ref().and_then(|l| l.minus(b)).filter(|&d| d >= 0).map(|_| true),
        _ => None,
    };
    match (low, high) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// Which sides of the bound a range breaks: below 0 (a marker other than the ignored one), at
/// or past the bound.
fn break_sides(r: &Range, bound: Option<&Sym>, ignore: Option<i64>) -> (bool, bool) {
    let low = r.lo.as_ref().and_then(|s| s.constant()).is_some_and(|lo| lo < 0 && Some(lo) != ignore);
    let high = match (r.hi.as_ref(), bound) {
        (Some(h), Some(b)) => h.minus(b).is_some_and(|d| d >= 0),
        _ => false,
    };
    (low, high)
}

/// Values a script of the project makes up and writes out for the program to read back (a
/// data simulator: it draws random numbers and reads no file but settings) are the data the
/// program is given. Where what reaches the op is a marker the script draws (an id -1 for "none")
/// or ids it numbers from 1 (slot 0 unused) or writes shifted up from their positions (`i + 1`),
/// the line to change is where the program takes them as they are, not the script's: the reading
/// line takes the script's origin (named in its message) and the script's lines leave the
/// scoring. Other values it writes may be its own processing, and a marker in a loss's labels is
/// the data's convention (the loss that does not skip it is the line): the script's lines stay.
fn generated_data(ix: &Index, nodes: &mut [Node], kind: SinkKind, ignore: Option<i64>) {
    let from_one = nodes.first().and_then(|n| n.out.as_ref()).is_some_and(|r| r.lo.as_ref().and_then(Sym::constant) == Some(1));
    for r in 0..nodes.len() {
        if nodes[r].aux || !nodes[r].what.ends_with(trace::READ_BACK) || !generator_script(ix, nodes[r].file) {
            continue;
        }
        // the reading line: the first one on the way to the op, in another file, that makes
        // something else of what was written (takes a field of the record, a column of the
        // array: a range of numbers or another value)
        let written = container_element(&nodes[r].val).to_string();
        let (mut at, mut hops, mut pick) = (nodes[r].parent, 0, None);
        while let Some(a) = at.filter(|_| hops < 64) {
            // (a tuple or an instance holding it is not yet a part taken out of it)
            let shown = container_element(&nodes[a].val);
            let holder = shown.starts_with('(') || shown.starts_with("a ") || shown.starts_with("an ");
            let other = nodes[a].out.is_some() || shown != written && !holder;
            if nodes[a].file != nodes[r].file && other && nodes[a].tag != Tag::Call {
                pick = Some(a);
                break;
            }
            at = nodes[a].parent;
            hops += 1;
        }
        let Some(mut p) = pick else { continue };
        // a line of text split into fields is read where a number is parsed out of a field
        // (`int(i)`), a few lines on
        let mut up = nodes[p].parent;
        for _ in 0..8 {
            let Some(u) = up.filter(|&u| nodes[u].file == nodes[p].file) else { break };
            if nodes[u].what.starts_with(trace::PARSES) {
                p = u;
                break;
            }
            up = nodes[u].parent;
        }
        let mut sub = vec![r];
        let mut k = 0;
        while k < sub.len() && sub.len() < 4096 {
            let c = nodes[sub[k]].children.clone();
            sub.extend(c);
            k += 1;
        }
        let origin = |t: &Tag| !matches!(t, Tag::Pass | Tag::Call);
        let best = sub
            .iter()
            .copied()
            .filter(|&d| !nodes[d].aux && origin(&nodes[d].tag))
            .max_by(|&a, &b| base_score(&nodes[a].tag, kind, ignore).total_cmp(&base_score(&nodes[b].tag, kind, ignore)));
        let marker = best.is_some_and(|b| matches!(nodes[b].tag, Tag::Sentinel(k) if Some(k) != ignore));
        // (a marker in the labels of a loss is the data's convention: the loss that does not
        // skip it is the line, which the writer's lines show)
        if marker && kind == SinkKind::Classes {
            continue;
        }
        // positions it writes shifted up (`i + 1`): ids numbered from 1 in the file
        let shifted = best.and_then(|b| match nodes[b].tag {
            Tag::Shift(k) if k > 0 => Some(k),
            _ => None,
        });
        // (other values it makes up may be its own processing: its lines stay)
        if !marker && !from_one && shifted.is_none() {
            continue;
        }
        for &d in &sub {
            nodes[d].aux = true;
        }
        let Some(b) = best else { continue };
        if nodes[p].tag == Tag::Pass {
            let writer = format!("{}:{}", ix.files[nodes[b].file].path, nodes[b].line);
            let made = format!("a script of the project makes the data up: {writer} {}", nodes[b].what);
            if marker {
                nodes[p].tag = nodes[b].tag.clone();
                nodes[p].what = format!("takes the data as it is ({made})");
            } else if let Some(k) = shifted.filter(|_| !from_one) {
                nodes[p].tag = Tag::OneBased(k);
                nodes[p].what = format!("takes ids the data writes {k} above their positions as they are ({made})");
            } else {
                nodes[p].tag = Tag::OneBased(1);
                nodes[p].what = format!("takes ids the data numbers from 1 as they are ({made})");
            }
        }
    }
}

/// A value as shown, less the containers around it (`elements …`, `n × …`): a list of
/// records and one of them read the same.
fn container_element(shown: &str) -> &str {
    let mut v = shown;
    loop {
        if let Some(rest) = v.strip_prefix("elements ") {
            v = rest;
        } else if let Some((_, rest)) = v.split_once(" × ").filter(|(head, _)| !head.contains(['{', '(', '['])) {
            v = rest;
        } else {
            return v;
        }
    }
}

/// Whether a file of the project makes up data: it draws random numbers and reads no file but
/// settings (a YAML, TOML or INI file).
fn generator_script(ix: &Index, file: usize) -> bool {
    let in_file = |names: &[&str]| names.iter().any(|n| ix.calling(n).iter().any(|&((f, _), _)| f == file));
    let draws = in_file(&[
        "random",
        "randint",
        "integers",
        "choice",
        "choices",
        "normal",
        "uniform",
        "poisson",
        "binomial",
        "permutation",
        "shuffle",
        "sample",
        "dirichlet",
        "rand",
        "randn",
        "exponential",
        "gamma",
        "beta",
        "geometric",
        "multinomial",
        "lognormal",
    ]);
    if !draws {
        return false;
    }
    let reads = in_file(&[
        "load",
        "loads",
        "read_csv",
        "read_table",
        "read_parquet",
        "read_json",
        "read_excel",
        "read_feather",
        "read_pickle",
        "loadtxt",
        "genfromtxt",
        "fromfile",
        "imread",
        "read_text",
        "read_bytes",
        "readlines",
        "from_csv",
        "memmap",
    ]);
    if reads {
        return false;
    }
    // `open(path)` for reading, but for settings
    ix.calling("open").iter().filter(|&&((f, _), _)| f == file).all(|&(def, at)| {
        let mut writes = true;
        trace::stmt_exprs(&ix.def(def).stmts[at].kind, &mut |e| {
            let scan::flow::Expr::Call { func, args, kwargs } = e else { return };
            if func.last_name() != Some("open") {
                return;
            }
            let written = matches!(trace::open_mode(args, kwargs).map(scan::flow::Expr::bare), Some(scan::flow::Expr::Str(m)) if m.contains(['w', 'a', 'x']));
            let settings = matches!(args.first().map(scan::flow::Expr::bare), Some(scan::flow::Expr::Str(p))
                if [".yaml", ".yml", ".toml", ".ini", ".cfg"].iter().any(|x| p.ends_with(x)));
            writes &= written || settings;
        });
        writes
    })
}

fn base_score(tag: &Tag, kind: SinkKind, ignore: Option<i64>) -> f32 {
    let probs = kind.takes_probabilities();
    match tag {
        Tag::Swapped => 0.95,
        Tag::Shift(_) if !probs => 0.9,
        Tag::Sentinel(k) if Some(*k) == ignore => 0.02,
        Tag::Sentinel(_) if !probs => 0.85,
        Tag::OneBased(_) if !probs => 0.8,
        // the largest of probabilities is one too
        Tag::Max if !probs => 0.6,
        Tag::Arith(_) if !probs => 0.6,
        Tag::Scale(_) if probs => 0.8,
        Tag::ModelOutput if probs => 0.75,
        Tag::Distinct => 0.5,
        Tag::Column(_) | Tag::Parsed => 0.5,
        Tag::Config(_) => 0.45,
        Tag::Lookup => 0.4,
        Tag::Literal(_) => 0.35,
        // a length or a running count used as a position is one past the end
        Tag::Len(Length::Numbering) => 0.3,
        Tag::Len(_) if matches!(kind, SinkKind::Index | SinkKind::Embedding) => 0.8,
        Tag::Len(_) => 0.3,
        Tag::Narrow => 0.15,
        Tag::Normalize(_) => 0.1,
        Tag::Call => 0.1,
        Tag::Pass => 0.05,
        _ => 0.2,
    }
}

struct Slice<'t> {
    nodes: &'t [Node],
}

impl Slice<'_> {
    /// The chain from node `n` up to the root (the op call).
    fn chain(&self, mut n: usize, ix: &Index, bound: bool) -> Vec<Step> {
        let mut out = Vec::new();
        // a chain is at most as long as the slice (and never loops)
        for _ in 0..self.nodes.len().min(256) {
            let x = &self.nodes[n];
            let r = if bound && x.tag != Tag::Call { "bound" } else { role(&x.tag) };
            let step = Step { file: ix.files[x.file].path.clone(), line: x.line, role: r, what: x.what.clone(), value: x.val.clone() };
            if out.last() != Some(&step) {
                out.push(step);
            }
            match x.parent {
                Some(p) => n = p,
                None => break,
            }
        }
        out
    }
}

/// The line, after the sink's statement in the same function, of a comparison (`==`, `!=`)
/// of a name the sink's value reads with the marker `k` (a literal or a name the tracing
/// evaluates to it): a mask made after the op used the value.
fn late_mask(ix: &Index, sink: &Sink, k: i64) -> Option<u32> {
    use crate::scan::flow::Expr;
    let mut names = Vec::new();
    sink.value.names(&mut names);
    let d = ix.def(sink.def);
    let mut tr = Tracer::new(ix);
    for (i, s) in d.stmts.iter().enumerate().skip(sink.stmt + 1) {
        let mut others: Vec<Expr> = Vec::new();
        trace::stmt_exprs(&s.kind, &mut |e| {
            if let Expr::Test(op, xs) = e {
                if (op == "!=" || op == "==") && xs.len() == 2 {
                    let is_value = |x: &Expr| matches!(x.bare(), Expr::Name(n) if names.contains(n));
                    if is_value(&xs[0]) {
                        others.push(xs[1].clone());
                    } else if is_value(&xs[1]) {
                        others.push(xs[0].clone());
                    }
                }
            }
        });
        let c = Ctx { def: sink.def, at: i, env: None, depth: 0 };
        for o in others {
            if let Val::Int(r) = tr.expr(&o, &c, None) {
                if r.lo == r.hi && r.lo.as_ref().and_then(|x| x.constant()) == Some(k) {
                    return Some(d.line(s));
                }
            }
        }
    }
    None
}

/// The flow suspects for a failure of `category`, from every call in the project that can reach
/// it (the calls on the traceback's lines first when `frames` has them): ranked, best first.
///
/// `apis` are the Python APIs that reach the failing op (the knowledge base's, for the log's
/// kernel): when some calls in the project are to one of them, only those are traced (a
/// `cross_entropy` cannot fail an `index_add` kernel).
///
/// One list per category of `categories`, in order (a log's asserts may name several); the
/// project is indexed once, and a call that reaches ops of several categories is sliced once.
/// `exact`: the traceback ends at the failing call (a synchronous run, a CPU error).
pub fn suspects(
    files: &[&FileFacts],
    categories: &[&str],
    frames: &[(String, u32)],
    apis: &[String],
    exact: bool,
) -> Vec<Vec<FlowSuspect>> {
    suspects_each(files, categories, frames, apis, if exact { Mode::Exact } else { Mode::Explain })
}

/// What the slices are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A crash to explain: every call that reaches the op.
    Explain,
    /// A crash whose traceback ends at the failing call (a synchronous run, a CPU error): as
    /// `Explain`, and an op in a function the innermost frame's line calls is not the one that
    /// failed (its own frame would be innermost).
    Exact,
    /// No crash (lint): only suspects whose chain comes through the data (a loader loop, a
    /// Dataset's `__getitem__`, a data column, a config key or flag), or scores proven raw on
    /// their way to a loss or sampler that takes probabilities.
    Lint,
}

/// The suspects for each of `categories` in turn (one index of the project, each sink sliced once).
pub fn suspects_each(
    files: &[&FileFacts],
    categories: &[&str],
    frames: &[(String, u32)],
    apis: &[String],
    mode: Mode,
) -> Vec<Vec<FlowSuspect>> {
    // the tracing recurses (bounded by `trace::MAX_DEPTH`): on a thread of its own with room
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(s, || {
                let ix = Index::new(files.to_vec());
                // a sink's slice, by the sink (its kind, place, operands and settings)
                let mut sliced: FxHashMap<String, Vec<FlowSuspect>> = FxHashMap::default();
                let mut each: Vec<(Vec<FlowSuspect>, bool)> =
                    categories.iter().map(|c| suspects_here(&ix, &mut sliced, c, frames, apis, mode)).collect();
                // a message that fits several kinds of op (the CPU's "index 5 is out of bounds"):
                // where the failing line holds an op of one kind, the suspects of another kind's
                // ops elsewhere are weaker (the traceback names the op that failed)
                if each.iter().any(|(_, at)| *at) {
                    for (list, at) in each.iter_mut() {
                        if !*at {
                            for s in list.iter_mut() {
                                s.score *= 0.5;
                            }
                        }
                    }
                }
                each.into_iter().map(|(list, _)| list).collect()
            })
            .ok()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    })
}

/// The stack the tracing runs on.
const STACK: usize = 256 << 20;

fn suspects_here(
    ix: &Index,
    sliced: &mut FxHashMap<String, Vec<FlowSuspect>>,
    category: &str,
    frames: &[(String, u32)],
    apis: &[String],
    mode: Mode,
) -> (Vec<FlowSuspect>, bool) {
    let mut kinds = kinds_for(category);
    if mode == Mode::Lint {
        // a sampler's weights need not be probabilities (multinomial takes any non-negative
        // weights): without a crash naming the op, what it gets is not judged
        kinds.retain(|k| *k != SinkKind::Distribution);
    }
    let mut all = sinks::find(ix, &kinds);
    // a traceback that stops at a line with no call the knowledge base names: an index on that
    // line may be the op (`self.item_category[items]`, IndexKernel's check or the CPU's "index
    // 400 is out of bounds for dimension 0"), beside the calls that reach the op elsewhere (an
    // asynchronous traceback's line is a later one)
    let mut subscripts = Vec::new();
    if mode != Mode::Lint && kinds.contains(&SinkKind::Index) {
        if let Some((path, line)) = frames.last() {
            if !all.iter().any(|s| s.line == *line && ix.files[s.def.0].path == *path) {
                subscripts = sinks::subscripts_on(ix, path, *line);
            }
        }
    }
    if std::env::var_os("CUDASLEUTH_FLOW_DEBUG").is_some() {
        eprintln!("suspects {mode:?} category `{category}`: {} sinks, apis {apis:?}, frames {frames:?}", all.len());
    }
    if all.is_empty() && subscripts.is_empty() {
        return (Vec::new(), false);
    }
    let keys: Vec<String> = apis.iter().map(|a| sinks::api_key(a)).collect();
    let named = |s: &Sink| s.api.as_deref().is_some_and(|a| keys.contains(&sinks::api_key(a)));
    if all.iter().any(named) {
        // a library model (no api) reaches every op of its kind
        all.retain(|s| s.api.is_none() || named(s));
    }
    // the calls a traceback names come first; the others stay (an asynchronous traceback points
    // at a later line)
    let at_frame = |s: &Sink, (f, l): &(String, u32)| *l == s.line && ix.files[s.def.0].path == *f;
    let on_frame = |s: &Sink| frames.iter().any(|fr| at_frame(s, fr));
    // a frame's line that holds several calls (`torch.cat([self.store(s), self.hier(d, c, i)])`):
    // a sink in a module one of them calls is on that line as much as one written there (an
    // asynchronous traceback stops at the line, not inside the module's `forward`)
    let under_frame = |s: &Sink| frames.last().is_some_and(|fr| called_on_line(ix, fr, s.def));
    let on_innermost = |s: &Sink| frames.last().is_some_and(|fr| at_frame(s, fr));
    if mode == Mode::Exact && all.iter().any(on_innermost) {
        all.retain(on_innermost);
    } else if all.iter().any(on_frame) {
        all.retain(|s| on_frame(s) || under_frame(s));
    }
    // an op of this kind on the innermost frame's own line, or in a module or function that
    // line calls (a subscript the line holds is only a guess at the op: it claims nothing)
    // a library call none of the failing op's APIs names (a `cross_entropy` where a gather
    // kernel failed): it cannot have launched the op, and the traceback's line holding it says
    // nothing (an asynchronous traceback stops at a later call)
    let reaches = |s: &Sink| apis.is_empty() || s.api.is_none() || named(s);
    let on_last = frames.last().is_some_and(|fr| all.iter().filter(|s| reaches(s)).any(|s| at_frame(s, fr) || under_frame(s)));
    all.truncate(12);
    all.splice(0..0, subscripts);
    let debug = std::env::var_os("CUDASLEUTH_FLOW_DEBUG").is_some();
    let mut best: BTreeMap<(String, u32), FlowSuspect> = BTreeMap::new();
    for sink in &all {
        if debug {
            eprintln!(
                "sink {:?} {}:{} `{}` value `{}`",
                sink.kind,
                ix.files[sink.def.0].path,
                sink.line,
                sink.call_text,
                trace::short(&sink.value)
            );
        }
        let probs = sink.kind.takes_probabilities();
        // (a range the code itself proves past a known bound needs no data path)
        let keep = |s: &FlowSuspect| mode != Mode::Lint || s.data || s.bounded && !s.decided || probs && s.tier == Tier::Strong;
        let exact = on_frame(sink);
        // a sink above a frame's line in that frame's function (an asynchronous traceback that
        // noticed the error a few lines later): the function was still called from where the
        // frame above says
        let pins = if exact || in_frame_function(ix, frames, sink) { pins(ix, frames) } else { Vec::new() };
        // lines whose value reached this op, from the same function, through a call that ran
        // before the failing one and passed: they made values the op took (only where the
        // traceback names the op's own line: a later line's does not say which call failed)
        let mut cleared: Vec<(String, u32, String)> = Vec::new();
        for (alt, place) in if exact { earlier_calls(ix, &pins) } else { Vec::new() } {
            let key = format!("{sink:?} {alt:?}");
            let passed = sliced.entry(key).or_insert_with(|| slice_sink(ix, sink, alt));
            cleared.extend(passed.iter().map(|s| (s.file.clone(), s.line, place.clone())));
        }
        let slice = sliced.entry(format!("{sink:?}")).or_insert_with(|| slice_sink(ix, sink, pins));
        for mut s in slice.iter().filter(|s| keep(s)).cloned() {
            if !reaches(sink) {
                s.score *= 0.5;
            }
            if let Some((_, _, place)) = cleared.iter().find(|(f, l, _)| *f == s.file && *l == s.line) {
                s.score *= 0.5;
                s.message = format!("{}: its value reached the same op first through the call at {place}, which passed", s.message);
            }
            if debug {
                eprintln!("  {:.2} {} {}:{} {}", s.score, s.tier.as_str(), s.file, s.line, s.message);
            }
            let key = (s.file.clone(), s.line);
            match best.get(&key) {
                Some(old) if old.score >= s.score => {}
                _ => {
                    best.insert(key, s);
                }
            }
        }
    }
    let mut out: Vec<FlowSuspect> = best.into_values().collect();
    out.sort_by(|a, b| b.score.partial_cmp(&a.score).unwrap_or(std::cmp::Ordering::Equal).then((&a.file, a.line).cmp(&(&b.file, b.line))));
    (out, on_last)
}

/// Whether the sink sits in the function a traceback frame runs in, above the frame's line.
fn in_frame_function(ix: &Index, frames: &[(String, u32)], sink: &Sink) -> bool {
    frames.iter().any(|(path, line)| {
        *line > sink.line && ix.files[sink.def.0].path == *path && ix.stmt_at(sink.def.0, *line).is_some_and(|(def, _)| def == sink.def)
    })
}

/// Whether the statement at a frame's place calls the function `def`: a project function by
/// its name, or the `forward` of a module built in the frame's function or kept in a field of
/// its class (`self.hier = HierEmbedding(…)` in `__init__`, `self.hier(…)` on the line).
fn called_on_line(ix: &Index, (path, line): &(String, u32), def: index::DefId) -> bool {
    let target = ix.def(def);
    let Some(((fi, di), si)) = (0..ix.files.len()).filter(|&fi| ix.files[fi].path == *path).find_map(|fi| ix.stmt_at(fi, *line)) else {
        return false;
    };
    let here = ix.def((fi, di));
    // the class a name holds: built on a line of the frame's own function (`hier = Hier(…)`),
    // or, for a field, in its class's constructor (`self.hier = Hier(…)` in `__init__`)
    let built = |stmts: &[scan::flow::Stmt], name: &str| -> Option<String> {
        stmts.iter().find_map(|st| match &st.kind {
            scan::flow::StmtKind::Assign { targets, value, op: None, .. }
                if targets.iter().any(|t| t.dotted().as_deref() == Some(name)) =>
            {
                match value.bare() {
                    scan::flow::Expr::Call { func, .. } => func.last_name().map(str::to_string),
                    _ => None,
                }
            }
            _ => None,
        })
    };
    let held = |name: &str| -> Option<String> {
        if name.starts_with("self.") {
            let class = here.class.as_deref()?;
            ix.method(class, "__init__").into_iter().find_map(|init| built(&ix.def(init).stmts, name))
        } else {
            // the module's top-level statements are held in several pieces
            let same = |d: &&scan::flow::Def| d.name == here.name && d.class == here.class && d.kind == here.kind;
            ix.files[fi].flow.iter().filter(same).find_map(|d| built(&d.stmts, name))
        }
    };
    let module_of = |name: &str| *target.name == *"forward" && target.class.as_deref().is_some_and(|c| held(name).as_deref() == Some(c));
    let mut hit = false;
    trace::stmt_exprs(&here.stmts[si].kind, &mut |e| {
        let scan::flow::Expr::Call { func, .. } = e else { return };
        match func.bare() {
            scan::flow::Expr::Name(n) => hit |= target.class.is_none() && *target.name == **n || module_of(n),
            f @ scan::flow::Expr::Attr(..) => hit |= f.dotted().is_some_and(|d| d.starts_with("self.") && module_of(&d)),
            _ => {}
        }
    });
    hit
}

/// The functions a traceback passes through, each with the line of the frame above it (the
/// call it came from): outermost frame first, as a traceback prints them.
fn pins(ix: &Index, frames: &[(String, u32)]) -> Vec<Pin> {
    let place =
        |(path, line): &(String, u32)| (0..ix.files.len()).filter(|&fi| ix.files[fi].path == *path).find_map(|fi| ix.stmt_at(fi, *line));
    frames
        .windows(2)
        .filter_map(|w| {
            let (callee, _) = place(&w[1])?;
            let ((caller_file, _), _) = place(&w[0])?;
            Some((callee, caller_file, w[0].1))
        })
        .collect()
}

/// The same traceback with one frame's call moved to an earlier call of the same function in
/// the same block of its caller (`score(model, ctx, pos)` on the line before the failing
/// `score(model, ctx, neg)`): that call ran first, on the same data, and passed.
fn earlier_calls(ix: &Index, pins: &[Pin]) -> Vec<(Vec<Pin>, String)> {
    let mut out = Vec::new();
    for (k, &(callee, file, line)) in pins.iter().enumerate() {
        let name = ix.def(callee).name.clone();
        let Some((caller, at)) = ix.stmt_at(file, line) else { continue };
        let d = ix.def(caller);
        let nest = d.stmts[at].nest;
        // back through the block the failing call sits in
        for i in (0..at).rev() {
            let st = &d.stmts[i];
            if st.nest < nest {
                break;
            }
            if st.nest > nest {
                continue;
            }
            let mut calls = false;
            trace::stmt_exprs(&st.kind, &mut |e| {
                if let crate::scan::flow::Expr::Call { func, .. } = e {
                    calls |= func.last_name() == Some(name.as_str());
                }
            });
            if calls {
                let mut alt = pins.to_vec();
                alt[k] = (callee, file, d.line(st));
                out.push((alt, format!("{}:{}", ix.files[file].path, d.line(st))));
                break;
            }
        }
    }
    out.truncate(2);
    out
}

/// The suspects of one sink: the value's slice scored against the bound's (the parameters of
/// the functions in `pins` bound at the call the traceback names).
pub fn slice_sink(ix: &Index, sink: &Sink, pins: Vec<Pin>) -> Vec<FlowSuspect> {
    let mut tr = Tracer::new(ix);
    tr.pins = pins;
    let cx = Ctx { def: sink.def, at: sink.stmt, env: None, depth: 0 };
    let call = tr.node(&cx, sink.stmt, Tag::Call, format!("calls `{}`", sink.call_text), None);
    let value = tr.expr(&sink.value, &cx, call);
    let value = tr.force_deep(value, 0);
    if let Some(c) = call {
        tr.nodes[c].val = value.describe();
        tr.nodes[c].out = value.range();
    }
    let value_nodes = tr.nodes.len();
    // the bound, in its own slice under the call (with its own budget: a value's slice that
    // spent it all would leave the bound unknown)
    tr.next_share(trace::MAX_NODES / 4);
    let bound_root = tr.node(&cx, sink.stmt, Tag::Call, format!("the bound of `{}`", sink.call_text), None);
    let bound_val: Option<Val> = sinks::bound(&mut tr, sink, &cx, bound_root);
    let bound_sym: Option<Sym> = match &bound_val {
        Some(Val::Int(r)) if r.lo == r.hi => r.hi.clone(),
        _ => None,
    };
    let mut nodes = std::mem::take(&mut tr.nodes);
    generated_data(ix, &mut nodes, sink.kind, sink.ignore_index);
    if std::env::var_os("CUDASLEUTH_FLOW_DEBUG").is_some_and(|v| v == "2") {
        for (i, n) in nodes.iter().enumerate() {
            eprintln!(
                "    #{i} <{:?} {:?} {}:{} {:?} {} = {} out {}",
                n.parent,
                n.aux,
                ix.files[n.file].path,
                n.line,
                n.tag,
                n.what,
                n.val,
                n.out.as_ref().map_or("-".into(), |r| r.to_string())
            );
        }
    }
    let slice = Slice { nodes: &nodes };
    let mut ignore = sink.ignore_index;
    if let Some((e, def, stmt)) = &sink.ignore_expr {
        // `ignore_index=IGNORE`: its value when the tracing knows it (else the value is unknown:
        // no marker counts as ignored)
        let mut t = Tracer::new(ix);
        let c = Ctx { def: *def, at: *stmt, env: None, depth: 0 };
        ignore = match t.expr(e, &c, None) {
            Val::Int(r) if r.lo == r.hi => r.lo.and_then(|s| s.constant()),
            _ => None,
        };
    }
    let probs = sink.kind.takes_probabilities();
    let mut out = Vec::new();
    // the bound's origin: the deepest node of its slice with a known exact value
    let bound_origin = (value_nodes..nodes.len()).filter(|&i| nodes[i].tag != Tag::Call && !nodes[i].aux).max_by_key(|&i| {
        let d = depth(&nodes, i);
        let weight = match nodes[i].tag {
            Tag::Max => 3,
            Tag::Config(_) | Tag::Literal(_) => 2,
            // (a store into a container on the way, a merge of configs, makes no size)
            Tag::Pass | Tag::Narrow => 0,
            _ => 1,
        };
        (weight, d)
    });
    // a factor of a product that is the bound (`N_ITEMS = SHELVES * PER_SHELF`): the product's
    // line sets the bound, not the factor's
    let bound_origin = bound_origin.map(|b| {
        let (mut at, mut hops) = (nodes[b].parent, 0);
        while let Some(a) = at.filter(|_| hops < 16) {
            let exact = nodes[a].out.as_ref().is_some_and(|r| r.hi.is_some() && r.hi == bound_sym);
            if exact
                && matches!(&nodes[a].tag, Tag::Arith(o) if o.as_str() == "*")
                && nodes[b].out.as_ref().map(|r| &r.hi) != Some(&bound_sym)
            {
                return a;
            }
            at = nodes[a].parent;
            hops += 1;
        }
        b
    });
    let bound_chain = bound_origin.map(|b| slice.chain(b, ix, true)).unwrap_or_default();
    let bound_text = bound_sym.as_ref().map(|b| b.to_string());
    let mut proven = false;
    // a length that fills the bound exactly (`ids[:max_len]` for a table of max_len rows) and a
    // later line that adds to it (`[bos] + ids + [eos]`): the fill is the line to change
    let mut fills: Vec<usize> = Vec::new();
    let mut windows: Vec<usize> = Vec::new();
    let mut early: Vec<usize> = Vec::new();
    let mut bound_takes_bare: Vec<usize> = Vec::new();
    let value_text = value.describe();
    // the value that reaches the op provably fits: a line whose own value breaks the bound is
    // on another part of what was traced (a tuple's other position, a branch narrowed later)
    let root_fits =
        !probs && nodes.first().and_then(|n| n.out.as_ref()).is_some_and(|r| breaks(r, bound_sym.as_ref(), ignore) == Some(false));
    // the value that reaches the op is never below 0 (a clamp on the way, `y.clamp(min=0)`): a
    // line whose value is negative is not what reaches it
    let root_not_negative = !probs
        && nodes.first().and_then(|n| n.out.as_ref()).and_then(|r| r.lo.as_ref()).and_then(|s| s.constant()).is_some_and(|lo| lo >= 0);
    // the least the bound can be, where it is a range
    let bound_least: Option<Sym> = match &bound_val {
        Some(Val::Int(r)) => r.lo.clone(),
        _ => None,
    };
    // the value's largest is the bound's own count less something (the same root on both
    // sides): it fits whatever the data holds
    let fits_by_construction = !probs
        && nodes
            .first()
            .and_then(|n| n.out.as_ref())
            .and_then(|r| r.hi.as_ref())
            .is_some_and(|h| h.root.is_some() && bound_least.as_ref().is_some_and(|b| b.root == h.root && h.off < b.off));
    // the bound's node `j` reads a setting the bound is exactly (not a size derived from data
    // the setting generates)
    let bare = |j: &usize| bound_sym.is_some() && nodes[*j].out.as_ref().map(|r| &r.hi) == Some(&bound_sym);
    // a line below one whose value provably fits did not make the value that failed (on this
    // path): the fitting line cuts the slice there, unless a line above it breaks the bound
    // (then what fits below is a fill a later line adds to)
    let fits_above = |i: usize| {
        let (mut fits, mut at, mut hops) = (false, nodes[i].parent, 0);
        // a line between this one and a quotient that fits breaks the bound (the dividend)
        let mut dividend_breaks = false;
        while let Some(a) = at.filter(|_| hops < 64 && !probs) {
            if a < value_nodes && !nodes[a].aux {
                let quotient = matches!(&nodes[a].tag, Tag::Arith(o) if matches!(o.as_str(), "//" | ">>"));
                match nodes[a].out.as_ref().and_then(|r| breaks(r, bound_sym.as_ref(), ignore)) {
                    Some(true) if fits => return false,
                    Some(true) => dividend_breaks = true,
                    // a quotient that fits: what its dividend takes does not reach the op
                    Some(false) if quotient => {
                        fits = true;
                        dividend_breaks = false;
                    }
                    Some(false) if dividend_breaks => return false,
                    // only a length proven to fit (a tensor's dimension, positions) or a
                    // remainder (`% m` is below m whatever it takes) cuts: a value's range may be
                    // an estimate
                    Some(false) if nodes[a].length || matches!(&nodes[a].tag, Tag::Arith(o) if o.as_str() == "%") => fits = true,
                    _ => {}
                }
            }
            at = nodes[a].parent;
            hops += 1;
        }
        fits
    };
    // an id map numbered from k (`{w: i + 2 for i, w in enumerate(vocab)}`) keeps the rows below
    // k for padding and special tokens on purpose: a lookup table is sized by its largest id + 1,
    // and one sized by the map's count is the line to change (a class head reserves nothing)
    let reserves = |i: usize| {
        sink.kind == SinkKind::Embedding
            && matches!(nodes[i].tag, Tag::Shift(k) if k > 0)
            && nodes[i].what.starts_with(trace::NUMBERS_KEYS_FROM)
    };
    // the value reaches the op numbered from 1 (`[1, n]`: slot 0 never used, nothing such as
    // padding fills it): one added to positions counted from 0 renumbers them from 1, a
    // mistake of the value's side, not a reservation the bound must count (that would leave
    // the freed slot to a padding or special value, and the value would reach 0)
    let from_one = nodes.first().and_then(|n| n.out.as_ref()).is_some_and(|r| r.lo.as_ref().and_then(|l| l.constant()) == Some(1));
    for i in 0..value_nodes {
        let n = &nodes[i];
        if n.tag == Tag::Call || n.aux {
            continue;
        }
        if fits_above(i) {
            continue;
        }
        // a marker a later line selects out (`labels[labels != -100]`, a setting's number compared
        // with: `labels != cfg["ignore_index"]`) does not reach the op
        let marker = match n.tag {
            Tag::Sentinel(k) => Some(k),
            _ => exact_value(n),
        };
        if marker.is_some_and(|k| masked_above(&nodes, n.parent, k)) {
            continue;
        }
        if reserves(i) && !root_fits && bound_origin.is_some() {
            let why = format!("{}: the rows below it are kept on purpose, the table must count them", n.what);
            out.push(at_node(ix, n, 0.6, Tier::Likely, why, slice.chain(i, ix, false), bound_chain.clone()));
            continue;
        }
        // a column read from data the project does not hold is an origin only when its cells
        // are what reaches the op (not a key looked up, not names counted)
        if let Tag::Column(c) = &n.tag {
            // (the value names the column, or its cells are read as numbers: ids used as they are)
            if n.what.ends_with(trace::UNREAD_COLUMN) && !value_text.contains(&format!("`{c}`")) && !n.what.contains(trace::AS_NUMBERS) {
                continue;
            }
            // (cells of text, not turned into numbers, are names: counted, enumerated or looked
            // up on their way, they are not the number that reaches the op)
            if n.what.ends_with(trace::TEXT_COLUMN) && !value_text.contains(&format!("`{c}`")) {
                continue;
            }
        }
        let mut score = base_score(&n.tag, sink.kind, ignore);
        // a draw from 1 up added to another index (`anchor + randint(1, n)`, a step that never
        // stays in place) is an offset, not an id numbered from 1: the sum is where the index
        // leaves its range
        let offset_draw = |j: usize| {
            matches!(nodes[j].tag, Tag::OneBased(_))
                && nodes[j].parent.is_some_and(|p| {
                    matches!(&nodes[p].tag, Tag::Arith(o) if o == "+")
                        && nodes[p].children.iter().any(|&c| c != j && !nodes[c].aux && !matches!(nodes[c].tag, Tag::Literal(_)))
                })
        };
        // a difference (`lb[t] - lb[t - 1]`, signed on purpose) with an offset added to it later
        // to make it a class: the addition is where the difference is meant to come back into
        // range, so it comes before the subtraction it takes
        let shifts_difference = |j: usize| {
            matches!(&nodes[j].tag, Tag::Arith(o) if o == "+") && {
                // (below it, through lines that pass the value on)
                let mut stack: Vec<usize> = nodes[j].children.iter().copied().filter(|&c| !nodes[c].aux).collect();
                loop {
                    match stack.pop().map(|c| (c, &nodes[c].tag)) {
                        None => break false,
                        Some((_, Tag::Arith(o))) if o == "-" => break true,
                        Some((c, Tag::Pass)) => stack.extend(nodes[c].children.iter().copied().filter(|&d| !nodes[d].aux)),
                        Some(_) => {}
                    }
                }
            }
        };
        if offset_draw(i) {
            score *= 0.5;
        } else if matches!(&n.tag, Tag::Arith(o) if o == "+") && n.children.iter().any(|&c| offset_draw(c)) {
            score = score.max(0.85);
        } else if shifts_difference(i) {
            score = score.max(0.65);
        }
        // running counts (`cumsum`) are where each block ends: as ids or offsets of a class they
        // are one block too far unless shifted back (the exclusive sum starts at 0)
        if n.tag == Tag::Len(Length::Running) && sink.kind == SinkKind::Classes {
            score = score.max(0.8);
        }
        let mut why = n.what.clone();
        if matches!(n.tag, Tag::Column(_)) && n.what.contains(trace::AS_NUMBERS) && bound_origin.is_some() && !probs {
            // ids read as they are from a file (no arithmetic, lookup or count on the way to the
            // op) index a table sized by a count: unless the file numbers them 0..n-1, some id
            // reaches the count
            if untouched(&nodes, n.parent, |t| {
                matches!(t, Tag::Arith(_) | Tag::Shift(_) | Tag::Lookup | Tag::Len(_) | Tag::Max | Tag::Scale(_))
            }) {
                score = score.max(0.6);
            }
        }
        if n.tag == Tag::Pass && !probs && sink.kind != SinkKind::Probability {
            // a field read as it is (`view = meta["camera"]`) beside another of the same record
            // read with 1 taken off (`label = meta["action"] - 1`): the record numbers from 1
            if let Some((at, other)) = field_sibling(ix, n) {
                if untouched(&nodes, n.parent, |t| matches!(t, Tag::Shift(_) | Tag::Arith(_))) {
                    score = score.max(0.93);
                    why = format!("{why}: line {at} takes 1 off `{other}` of the same record, this field is used as it is");
                }
            }
        }
        if matches!(n.tag, Tag::Column(_)) && n.what.contains(trace::FROM_ONE) && !probs && sink.kind != SinkKind::Probability {
            // ids the file numbers 1..n with no gaps, taken as they are to the op: a table that
            // holds n rows (sized by their count) takes 0..n-1, so the reading is the line
            // (unless the bound is known to hold n + 1: the ranges below decide)
            if untouched(&nodes, n.parent, |t| {
                matches!(t, Tag::Arith(_) | Tag::Shift(_) | Tag::Lookup | Tag::Len(_) | Tag::Max | Tag::Scale(_) | Tag::Distinct)
            }) {
                score = score.max(0.9);
                why = format!("{why}: ids numbered from 1 used as they are, where rows count from 0");
            }
        }
        if matches!(n.tag, Tag::Parsed | Tag::Column(_)) && !probs {
            // the same function takes 1 off other ids it reads the same way (`int(c) - 1` a
            // line above): the files number from 1, and this id is used as it is
            if let Some(at) = shifted_sibling(ix, n) {
                if untouched(&nodes, n.parent, |t| matches!(t, Tag::Shift(_) | Tag::Arith(_))) {
                    score = score.max(0.93);
                    why =
                        format!("{why}: line {at} takes 1 off ids read the same way (the files number from 1), this one is used as it is");
                }
            }
        }
        if n.tag == Tag::Parsed && !probs {
            if let Some(b) = &bound_sym {
                // numbers written in names index a table sized by a count: unless the names
                // were numbered 0..n-1, some id reaches the count (which side to change is the
                // author's choice: the count's line is named too)
                why = format!("{why}: ids taken from text index a table sized by a count ({b}), not by the largest id");
            }
        }
        // arithmetic that mixes values stands between this line and the op (`xyz @ rot`,
        // `x / norm`): what reaches the op is not this line's range
        let lost = lost_on_way(&nodes, i);
        if lost {
            score *= 0.3;
        }
        // a joint index whose stride is wider than the part added to it: past the table for the
        // last blocks, whatever the parts take (unless a remainder brings it back)
        let wide =
            matches!(&n.tag, Tag::Arith(o) if o == "+") && n.what.starts_with(trace::WIDE_STRIDE) && !scaled_on_way(&nodes, i) && !probs;
        if wide {
            score = score.max(1.0);
        }
        let mut bounded = false;
        let mut decided = false;
        let mut tier = if wide {
            Tier::Strong
        } else if score >= 0.6 {
            Tier::Likely
        } else {
            Tier::Possible
        };
        if !probs && !lost {
            if let Some(r) = &n.out {
                match breaks(r, bound_sym.as_ref(), ignore) {
                    Some(true) if root_fits || root_not_negative && !break_sides(r, bound_sym.as_ref(), ignore).1 => score *= 0.3,
                    Some(true) => {
                        // the divergence: this node breaks the bound and none of its inputs does
                        // (an input whose own range is not known, a record holding the dict looked up,
                        // fits unless a line below it breaks the bound)
                        let breaking =
                            |m: &Node| !m.aux && m.out.as_ref().is_some_and(|r| breaks(r, bound_sym.as_ref(), ignore) == Some(true));
                        // (a single number added to indices, `ids + len(src_vocab)`, is an
                        // offset: past the bound alone, it is the sum that is used as an index)
                        let operands = n.children.iter().filter(|&&c| !nodes[c].aux).count();
                        let offset = |c: usize| {
                            operands >= 2
                                && matches!(&n.tag, Tag::Arith(o) if o.as_str() == "+")
                                && nodes[c].out.as_ref().is_some_and(|r| r.lo.is_some() && r.lo == r.hi)
                        };
                        // (an input that breaks the bound on one side only, a counter past the
                        // table, does not make a line that adds the other side, a marker -1,
                        // any less the line where that break begins)
                        let own = break_sides(r, bound_sym.as_ref(), ignore);
                        let inputs_fit =
                            n.children.iter().filter(|&&c| !nodes[c].aux && !offset(c)).all(|&c| match nodes[c].out.as_ref() {
                                Some(cr) => {
                                    let (lo, hi) = break_sides(cr, bound_sym.as_ref(), ignore);
                                    breaks(cr, bound_sym.as_ref(), ignore) != Some(true) || (own.0 && !lo) || (own.1 && !hi)
                                }
                                None => !below(&nodes, c, breaking),
                            });
                        let fill = n.children.iter().copied().filter(|&c| !nodes[c].aux && nodes[c].length).find(|&c| {
                            let hi = nodes[c].out.as_ref().and_then(|r| r.hi.as_ref());
                            matches!((hi, bound_sym.as_ref()), (Some(h), Some(b)) if h.minus(b) == Some(-1))
                        });
                        if n.length && inputs_fit && fill.is_some() {
                            // the fill's own origin: down through the lines that pass the same
                            // length on, to the one that made it (the truncation)
                            let mut f = fill.unwrap_or(i);
                            for _ in 0..nodes.len() {
                                let same = |c: usize| {
                                    !nodes[c].aux
                                        && nodes[c].length
                                        && nodes[c].out.as_ref().map(|r| &r.hi) == nodes[f].out.as_ref().map(|r| &r.hi)
                                };
                                match nodes[f].children.iter().copied().find(|&c| same(c)) {
                                    Some(c) => f = c,
                                    None => break,
                                }
                            }
                            // a cut to the same length traced elsewhere in the slice (the
                            // samples a collate function reads were traced once, under the loader)
                            if !matches!(nodes[f].tag, Tag::Cut { .. }) {
                                let hi = nodes[f].out.as_ref().map(|r| &r.hi);
                                if let Some(c) = (0..value_nodes).find(|&c| {
                                    matches!(nodes[c].tag, Tag::Cut { .. }) && !nodes[c].aux && nodes[c].out.as_ref().map(|r| &r.hi) == hi
                                }) {
                                    f = c;
                                }
                            }
                            proven = true;
                            // a window of the data (`ids[i : i + n]`) that fills the bound is a
                            // design of the data: this line, where the value first stops
                            // fitting, is the one to change and the window the alternative; a
                            // truncation (`ids[:n]`) is the line to change (it is reported
                            // strong) and this one the alternative
                            let window = matches!(nodes[f].tag, Tag::Cut { window: true });
                            if window {
                                windows.push(f);
                            } else {
                                fills.push(f);
                                if f < i {
                                    early.push(f);
                                }
                            }
                            (score, tier) = if window { (1.01, Tier::Strong) } else { (0.97, Tier::Likely) };
                            why = format!(
                                "{why}: adds to a {} that already fills the bound, giving {r}{}",
                                if window { "window" } else { "length" },
                                bound_text.as_ref().map(|b| format!(" (the bound is {b})")).unwrap_or_default()
                            );
                        } else if let Some(j) = shared_setting(&nodes, i, value_nodes)
                            .filter(|j| inputs_fit && bare(j) && !scaled_on_way(&nodes, i) && !from_one)
                        {
                            // the value and the bound are the same setting, and the value's side
                            // adds to it on purpose (`seq_len = max_len + 2`): the setting is
                            // not the line to change, the bound's use of it as it is is
                            score = 0.3;
                            if let Some(p) = nodes[j].parent.filter(|&p| nodes[p].tag != Tag::Call) {
                                bound_takes_bare.push(p);
                            }
                        } else if inputs_fit && n.tag != Tag::Pass {
                            // (ids renumbered from 1 by this line: where the value leaves the
                            // bound, ahead of an origin below it that only counts the ids)
                            score = if from_one && matches!(n.tag, Tag::Shift(k) if k > 0) { 1.02 } else { 1.0 };
                            tier = Tier::Strong;
                            proven = true;
                            bounded = bound_sym.as_ref().is_some_and(|b| b.constant() != Some(0));
                            decided = decided_before(ix, &nodes, i);
                            why = format!(
                                "{why}: gives {r}{}",
                                bound_text.as_ref().map(|b| format!(", the bound is {b}")).unwrap_or_default()
                            );
                        } else if n.tag != Tag::Pass {
                            score = score.max(0.3);
                        }
                    }
                    Some(false) => score *= 0.3,
                    None => {}
                }
            }
        } else if n.val == "probabilities" {
            score *= 0.3;
        }
        // the fill is the line to change, ahead of the lines that carry its length on; a window
        // a later line adds to is the alternative
        let filled = if fills.contains(&i) {
            Some(("length", 1.01, Tier::Strong))
        } else if windows.contains(&i) {
            Some(("window", 0.97, Tier::Likely))
        } else {
            None
        };
        if let Some((what, at, as_tier)) = filled.filter(|&(_, at, _)| score < at) {
            score = at;
            tier = as_tier;
            why = format!(
                "{why}: a {what} that fills the bound{}, and a later line adds to it",
                bound_text.as_ref().map(|b| format!(" ({b})")).unwrap_or_default()
            );
        }
        // a line whose values the tracing does not know, under a value that fits the bound by
        // construction (ids numbered over the very set the bound counts): not what made this op
        // fail
        if fits_by_construction && n.out.is_none() && tier != Tier::Strong {
            score *= 0.3;
        }
        if score < 0.1 {
            continue;
        }
        let mut s = at_node(ix, n, score, tier, why, slice.chain(i, ix, false), bound_chain.clone());
        s.bounded = bounded && tier == Tier::Strong;
        s.decided = decided;
        out.push(s);
    }
    // the value's side reads the setting the bound is sized by, and the value goes past it: the
    // value's lines add to the setting on purpose, the bound's use of it as it is is the line (a
    // value that breaks the bound only below, a marker -1, is not about the setting)
    let value_breaks = nodes.first().and_then(|n| n.out.as_ref()).is_some_and(|r| {
        let over = match (r.hi.as_ref(), bound_sym.as_ref()) {
            (Some(h), Some(b)) => h.minus(b).map(|d| d >= 0),
            _ => None,
        };
        breaks(r, bound_sym.as_ref(), ignore) == Some(true) && over != Some(false)
    });
    if value_breaks && fills.is_empty() && windows.is_empty() && !from_one {
        for i in (0..value_nodes).filter(|&i| !scaled_on_way(&nodes, i)) {
            if let Some(p) =
                shared_setting(&nodes, i, value_nodes).filter(bare).and_then(|j| nodes[j].parent).filter(|&p| nodes[p].tag != Tag::Call)
            {
                bound_takes_bare.push(p);
            }
        }
    }
    bound_takes_bare.sort_unstable();
    bound_takes_bare.dedup();
    if !bound_takes_bare.is_empty() {
        for s in out.iter_mut().filter(|s| s.tier == Tier::Strong) {
            s.score = s.score.min(0.9);
            s.tier = Tier::Likely;
        }
    }
    for &b in &bound_takes_bare {
        let n = &nodes[b];
        let why = format!(
            "{}: the bound takes the setting as it is, and the value's side adds to the same setting (it reaches {})",
            n.what,
            nodes[0].out.as_ref().map_or("more".to_string(), |r| r.to_string())
        );
        out.push(at_node(ix, n, 1.0, Tier::Strong, why, bound_chain.clone(), Vec::new()));
    }
    // a fill found below an earlier node (a cut traced where the samples were read): reported
    // as it would have been in its turn
    early.sort_unstable();
    early.dedup();
    for f in early {
        let n = &nodes[f];
        let why = format!(
            "{}: a length that fills the bound{}, and a later line adds to it",
            n.what,
            bound_text.as_ref().map(|b| format!(" ({b})")).unwrap_or_default()
        );
        out.push(at_node(ix, n, 1.01, Tier::Strong, why, slice.chain(f, ix, false), bound_chain.clone()));
    }
    // a marker held in a setting the project skips elsewhere (`ignore_label = -1` with a loss's
    // `ignore_index=` or a mask `label != ignore_label`): the setting is a convention, right where
    // it is set; the line that writes it into this value (a padding shared with the labels) is
    // where it joins a value whose op does not skip it. (Not for a library model's call: the
    // labels it is handed hold the marker on purpose, and what it moves where is its own.)
    if !probs && sink.api.is_some() {
        // (the setting's node, the joining line's node, the marker, the setting's name, the skip)
        struct Moved {
            set: usize,
            at: usize,
            k: i64,
            name: String,
            skip: (String, u32),
        }
        let mut moved: Vec<Moved> = Vec::new();
        // a loss that can skip a marker (`ignore_index=`) and is told another (the default
        // -100): the marker is the data's convention, the loss is where the skip is missing
        let skips = matches!(sink.api.as_deref(), Some("CrossEntropyLoss" | "NLLLoss" | "cross_entropy" | "nll_loss"));
        let loss_could_skip = |k: i64| skips && ignore.is_some_and(|g| g != k);
        for (i, n) in nodes[..value_nodes].iter().enumerate() {
            let exact = exact_value(n);
            let Some(k) = exact.filter(|&k| (k < 0 || k == 255) && !n.aux) else { continue };
            // a marker taken out on the way (`t.masked_fill(t == k, 0)`) does not reach the op,
            // nor a negative one where the op's value is never below 0 (a clamp)
            if masked_above(&nodes, n.parent, k) || k < 0 && root_not_negative {
                continue;
            }
            let key = match &n.tag {
                Tag::Config(c) => Some(c.as_str()),
                Tag::Sentinel(_) if n.children.is_empty() => None,
                _ => continue,
            };
            // (a marker above 0 against a class count the tracing cannot size, at a loss that
            // could skip it, may fail: the skip found below is the evidence it is no class)
            match markers::fails(k, sink.kind, bound_sym.as_ref(), ignore) {
                Some(true) => {}
                None if loss_could_skip(k) => {}
                _ => continue,
            }
            // the line above it that joins the marker into the value, and the line just below
            // that one on the way (an argument on a line of its own: `padding_value=…`)
            let (mut last, mut at, mut hops) = (i, n.parent, 0);
            let join = loop {
                match at.filter(|_| hops < 64) {
                    Some(a) if nodes[a].tag == Tag::Sentinel(k) => break Some(a),
                    Some(a) => {
                        last = a;
                        at = nodes[a].parent;
                        hops += 1;
                    }
                    None => break None,
                }
            };
            let Some(j) = join else { continue };
            // (a marker a later line selects out does not reach the op)
            if masked_above(&nodes, nodes[j].parent, k) {
                continue;
            }
            let names = markers::setting_names(ix, n.file, n.line, key);
            let joined = markers::setting_names(ix, nodes[j].file, nodes[j].line, None);
            let Some(skip) = markers::skipped(ix, &names, &joined).or_else(|| {
                // (a setting passed down under other names is followed by value only to a loss
                // that could skip it: the line to change is then the loss, whichever line wrote
                // the marker)
                loss_could_skip(k).then(|| markers::skipped_value(ix, k, &joined)).flatten()
            }) else {
                continue;
            };
            let w = if last != i && nodes[last].file == nodes[j].file && nodes[last].line != nodes[j].line { last } else { j };
            if !moved.iter().any(|m| (nodes[m.at].file, nodes[m.at].line) == (nodes[w].file, nodes[w].line)) {
                moved.push(Moved { set: i, at: w, k, name: names.first().cloned().unwrap_or_default(), skip });
            }
        }
        for Moved { set: i, at: w, k, name, skip: (file, line) } in moved {
            let set = (ix.files[nodes[i].file].path.as_str(), nodes[i].line);
            for s in out.iter_mut().filter(|s| (s.file.as_str(), s.line) == set) {
                s.tier = Tier::Likely;
                s.score = s.score.min(0.9);
            }
            if loss_could_skip(k) {
                let (at_file, at_line) = sink.built_at(ix);
                let wrote = (ix.files[nodes[w].file].path.as_str(), nodes[w].line);
                for s in out.iter_mut().filter(|s| (s.file.as_str(), s.line) == wrote) {
                    s.tier = Tier::Likely;
                    s.score = s.score.min(0.9);
                }
                let why = format!(
                    "builds the loss without `ignore_index={k}`: the value holds the marker {k} (`{name}`, written at {}:{}), which {file}:{line} skips and `{}` does not",
                    ix.files[nodes[w].file].path,
                    nodes[w].line,
                    sink.call_text
                );
                out.push(FlowSuspect {
                    file: at_file,
                    line: at_line,
                    score: 1.02,
                    tier: Tier::Strong,
                    message: why,
                    chain: slice.chain(w, ix, false),
                    bound_chain: bound_chain.clone(),
                    data: false,
                    bounded: false,
                    decided: false,
                });
                continue;
            }
            let why =
                format!("writes the marker {k} (`{name}`) into this value; {file}:{line} skips `{name}`, `{}` does not", sink.call_text);
            out.push(at_node(ix, &nodes[w], 1.02, Tier::Strong, why, slice.chain(w, ix, false), bound_chain.clone()));
        }
    }
    // a guard that comes too late: a negative marker (`-100`, `-1`) reaches an op that does not
    // skip it, and the same function masks the value against a marker only after the op
    // (`gather(…, labels)` then `active = labels != ignore_index`): the op's line is where the
    // mask belongs, not the line that wrote the marker (the convention the rest of the code
    // follows)
    if matches!(sink.kind, SinkKind::Index | SinkKind::Embedding) {
        let marker = nodes[..value_nodes].iter().enumerate().find_map(|(i, n)| match n.tag {
            Tag::Sentinel(k) if k < 0 && !n.aux => Some((i, k)),
            _ => None,
        });
        if let Some((at, k)) = marker {
            if let Some(line) = late_mask(ix, sink, k) {
                // the marker itself is the convention the code follows (the mask names it): its
                // lines are where it came from, not the fault
                let marks: Vec<(String, u32)> = nodes[..value_nodes]
                    .iter()
                    .filter(|n| n.tag == Tag::Sentinel(k))
                    .map(|n| (ix.files[n.file].path.clone(), n.line))
                    .collect();
                for s in out.iter_mut().filter(|s| marks.iter().any(|(f, l)| *f == s.file && *l == s.line)) {
                    s.tier = Tier::Likely;
                    s.score = s.score.min(0.9);
                }
                let name = trace::short(&sink.value);
                out.push(FlowSuspect {
                    file: ix.files[sink.def.0].path.clone(),
                    line: sink.line,
                    score: 1.05,
                    tier: Tier::Strong,
                    message: format!(
                        "{}: uses `{name}` with the marker {k} in it, and masks the marker out only on line {line}, after the op",
                        nodes[0].scope
                    ),
                    // from the line that wrote the marker to the op
                    chain: slice.chain(at, ix, false),
                    bound_chain: bound_chain.clone(),
                    data: false,
                    bounded: false,
                    decided: false,
                });
            }
        }
    }
    // a length (or a running count) used as a gather index with no bound known: one past the
    // last element. The length is right where it is counted; the line that turns it into the
    // index, next to the op, is where the `- 1` belongs
    if sink.kind == SinkKind::Index && !proven {
        let mut seen = Vec::new();
        for j in 0..value_nodes {
            if !matches!(nodes[j].tag, Tag::Len(_)) || nodes[j].aux {
                continue;
            }
            let mut k = j;
            while let Some(p) = nodes[k].parent {
                if nodes[p].parent.is_none() {
                    break;
                }
                k = p;
            }
            let near = &nodes[k];
            if k == j || near.scope != nodes[0].scope || near.tag != Tag::Pass || seen.contains(&k) {
                continue;
            }
            // a running count added to ids (`ids + offsets[graph]`, each block shifted by where
            // the blocks before it end) is an offset, not an index one past an end: where it is
            // counted (inclusive, not exclusive) is the line, not where it is used
            let added = {
                let mut at = nodes[j].parent;
                let mut hit = false;
                while let Some(a) = at.filter(|&a| a != k) {
                    if matches!(&nodes[a].tag, Tag::Arith(o) if o == "+") {
                        hit = true;
                        break;
                    }
                    at = nodes[a].parent;
                }
                hit
            };
            if nodes[j].tag == Tag::Len(Length::Running) && added {
                continue;
            }
            seen.push(k);
            out.push(FlowSuspect {
                file: ix.files[near.file].path.clone(),
                line: near.line,
                score: 0.85,
                tier: Tier::Likely,
                message: format!(
                    "{}: {}: a length ({}) becomes the index here, one past the last element unless 1 is taken off",
                    near.scope, near.what, nodes[j].what
                ),
                chain: slice.chain(k, ix, false),
                bound_chain: bound_chain.clone(),
                data: false,
                bounded: false,
                decided: false,
            });
        }
    }
    // the bound's own line: when the value's ranges are sound and the bound's root differs
    // (a config or a count that disagrees with the data), or nothing on the value's side broke
    // (an index's bound traced no further than the length of what it indexes, on its own line,
    // says nothing)
    let untraced = |b: usize| sink.api.as_deref() == Some(sinks::SUBSCRIPT) && nodes[b].line == sink.line;
    if let Some(b) = bound_origin.filter(|&b| !untraced(b)) {
        let n = &nodes[b];
        let value_range = value.range();
        // only a value past the bound from above is the bound's to fix (a larger table does not
        // take a negative id)
        let diverges =
            value_range.as_ref().and_then(|r| breaks(&Range { lo: None, ..r.clone() }, bound_sym.as_ref(), ignore)) == Some(true);
        // a size taken as the largest id (not the largest + 1) is the classic off-by-one
        let cap = if n.tag == Tag::Max { 0.8 } else { 0.55 };
        let mut score = base_score(&n.tag, sink.kind, ignore).clamp(0.3, cap);
        // the largest id + 1 is the size that holds every id: a bound made so is the one
        // least likely wrong
        let hi = n.out.as_ref().and_then(|r| r.hi.as_ref());
        if n.tag == Tag::Max && hi.is_some_and(|b| b.off >= 1 && b.root.as_deref().is_some_and(|r| r.starts_with("max@"))) {
            score = 0.3;
        }
        let mut tier = Tier::Possible;
        if diverges
            && fills.is_empty()
            && bound_takes_bare.is_empty()
            && !(0..value_nodes).any(|i| !reserves(i) && proven_on_value_transform(&nodes[i..=i], bound_sym.as_ref(), ignore))
        {
            // the value read as it is from data against a number set by hand (a config key, a
            // flag, a literal): the number is the one to change; against a count of the data
            // itself, the value's reading is
            // — unless the values run from 1 up to the bound itself: numbered from one, the
            // number counts them right and the reading is one off
            let one_based = value_range.as_ref().is_some_and(|r| {
                r.lo.as_ref().and_then(|s| s.constant()).is_some_and(|lo| lo >= 1)
                    && matches!((r.hi.as_ref(), bound_sym.as_ref()), (Some(h), Some(b)) if h.minus(b) == Some(0))
            });
            score = if matches!(n.tag, Tag::Config(_) | Tag::Literal(_)) && !one_based { 1.02 } else { 0.95 };
            tier = Tier::Strong;
        }
        // ids that number one set of distinct values (`{name: i for i, name in
        // enumerate(sorted(set(names)))}`) against a count of the distinct values of another
        // (the ids a split kept, `len(np.unique(train_ids))`): a count of what is there, where
        // the largest id + 1 is the size that holds them
        let distinct = |s: Option<&Sym>| s.and_then(|s| s.root.as_deref()).filter(|r| r.starts_with("distinct@")).map(str::to_string);
        let counted_apart = tier == Tier::Possible
            && matches!(
                (distinct(value_range.as_ref().and_then(|r| r.hi.as_ref())), distinct(bound_sym.as_ref())),
                (Some(v), Some(b)) if v != b
            );
        // ids numbered densely over what the data holds (`enumerate(sorted(set(codes)))`: 0 up
        // to the count less one) against a number set by hand: the numbering is right by
        // construction, the number is what disagrees with the data
        // (0 up to a count of one of `roots` less one)
        let numbered = |roots: &[&str]| {
            value_range.as_ref().is_some_and(|r| {
                r.lo.as_ref().and_then(Sym::constant) == Some(0)
                    && r.hi
                        .as_ref()
                        .is_some_and(|h| h.off == -1 && h.root.as_deref().is_some_and(|x| roots.iter().any(|p| x.starts_with(p))))
            })
        };
        let fixed_against_data =
            tier == Tier::Possible && matches!(n.tag, Tag::Config(_) | Tag::Literal(_)) && numbered(&["distinct@", "len@"]);
        // ids numbering every entry of a list (`{t.code: i for i, t in enumerate(taxa)}`) against
        // a count of the distinct values seen (`len(Counter(y))`): entries no sample has still
        // hold ids, so the largest id may be past the count
        // (or a fixed range of ids, `[0, 9]` over a list of ten written in a file: the count
        // of those seen is the largest + 1 only where every one of them occurs)
        let fixed_range = value_range.as_ref().is_some_and(|r| {
            r.lo.as_ref().and_then(Sym::constant) == Some(0) && r.hi.as_ref().and_then(Sym::constant).is_some_and(|h| h > 0)
        });
        let seen_against_listed = tier == Tier::Possible && distinct(bound_sym.as_ref()).is_some() && (numbered(&["len@"]) || fixed_range);
        let mut what = n.what.clone();
        if counted_apart {
            score = score.max(0.9);
            tier = Tier::Likely;
            what = format!("{what}: it counts the distinct values of another set than the one the ids number");
        } else if seen_against_listed {
            score = score.max(0.9);
            tier = Tier::Likely;
            what = format!("{what}: it counts the distinct values seen, where the ids number every entry of a list");
        } else if fixed_against_data {
            score = score.max(0.9);
            tier = Tier::Likely;
            what = format!("{what}: a number set by hand, where the ids number what the data holds");
        }
        let why = format!("the bound: {}{}", what, value_range.map(|r| format!(" (the value takes {r})")).unwrap_or_default());
        out.push(at_node(ix, n, score, tier, why, bound_chain.clone(), Vec::new()));
    }
    // a marker meant to be ignored (it comes from a setting named so) reaching a loss built
    // without `ignore_index`: the loss's line is the one to change
    if sink.kind == SinkKind::Classes {
        // named so anywhere below the marker (`VOID = 255` two files away, `fill=IGNORE`)
        let said = |text: &str, words: &[&str]| {
            let lower = text.to_lowercase();
            words.iter().any(|w| lower.contains(w))
        };
        let meant = |m: usize, k: i64| {
            let mut stack = vec![m];
            let mut seen = 0;
            while let Some(i) = stack.pop() {
                seen += 1;
                let n = &nodes[i];
                let named = match &n.tag {
                    Tag::Config(k) => said(k, &["ignore", "void", "pad", "unlabeled"]),
                    _ => said(&n.what, &["ignore", "void", "pad"]),
                };
                if named {
                    return true;
                }
                // another marker below this one (the padding a collate fills with, which the
                // loss does ignore) names that marker, not this one
                let other = |c: usize| matches!(nodes[c].tag, Tag::Sentinel(j) if j != k);
                if seen < 64 {
                    stack.extend(n.children.iter().copied().filter(|&c| c < value_nodes && !other(c)));
                }
            }
            false
        };
        let marker =
            (0..value_nodes).find(|&i| matches!(nodes[i].tag, Tag::Sentinel(k) if Some(k) != ignore && !nodes[i].aux && meant(i, k) && !masked_above(&nodes, nodes[i].parent, k)));
        if let Some(m) = marker {
            let Tag::Sentinel(k) = nodes[m].tag else { unreachable!() };
            let (file, line) = sink.built_at(ix);
            out.push(FlowSuspect {
                file,
                line,
                score: 1.03,
                tier: Tier::Strong,
                message: format!("the loss is built without `ignore_index={k}`, and the marker {k} ({}) reaches it", nodes[m].what),
                chain: slice.chain(m, ix, false),
                bound_chain: bound_chain.clone(),
                data: false,
                bounded: false,
                decided: false,
            });
        }
    }
    // the op's own function compares the value with a marker, then hands the op the value
    // itself: the marker reaches the op. The comparison says the marker is meant to be in the
    // value (where it is set is no mistake): the op that takes it unmasked is the line to change
    if let Some(t) = markers::tested(ix, sink) {
        let fails = markers::fails(t.value, sink.kind, bound_sym.as_ref(), ignore);
        if fails != Some(false) {
            let strong = fails == Some(true);
            let path = ix.files[sink.def.0].path.clone();
            let test = Step {
                file: path.clone(),
                line: t.line,
                role: "origin",
                what: format!("compares the value with `{}`: it holds that marker", t.marker),
                value: t.value.to_string(),
            };
            let call = Step {
                file: path.clone(),
                line: sink.line,
                role: "call",
                what: format!("calls `{}`", sink.call_text),
                value: value.describe(),
            };
            out.push(FlowSuspect {
                file: path,
                line: sink.line,
                // (above the line that wrote the marker, whose claim stands on the same
                // evidence: the comparison says the marker is meant to be there)
                score: if strong { 1.03 } else { 0.95 },
                tier: if strong { Tier::Strong } else { Tier::Likely },
                message: format!(
                    "`{}` takes the value as it is, and line {} compares it with the marker {} (`{}`): the marker reaches the op unmasked",
                    sink.call_text, t.line, t.value, t.marker
                ),
                chain: vec![test, call],
                bound_chain: bound_chain.clone(),
                data: false,
                bounded: false,
                decided: false,
            });
        }
    }
    if probs {
        match &value {
            Val::Float(Some(Norm::Probs)) => {
                for s in &mut out {
                    s.score *= 0.3;
                }
            }
            Val::Float(Some(Norm::Raw)) | Val::Unknown(_) => {
                let unknown = matches!(value, Val::Unknown(_));
                // arithmetic on probabilities that leaves [0, 1], or scores that never were
                // probabilities: the loss (or sampler) that takes them is the line to change
                // the lines that do arithmetic on values that were probabilities
                let scaling: Vec<(String, u32)> = (0..value_nodes)
                    .filter(|&i| {
                        // a weight with no value of its own below it (a convolution's kernel):
                        // the probabilities it scales are its siblings
                        let weight = !nodes[i].children.iter().any(|&c| !nodes[c].aux);
                        matches!(nodes[i].tag, Tag::Scale(_))
                            && !nodes[i].aux
                            && (below(&nodes, i, |n| matches!(n.tag, Tag::Normalize(_)))
                                || nodes[i].what.starts_with(trace::SCALES_PROBS)
                                || nodes[i].what.starts_with(trace::PROBS_TIMES)
                                || nodes[i].what.ends_with(trace::KERNEL_SUMS_PROBS)
                                || nodes[i].what.ends_with(trace::SIGNED_UNIT)
                                || weight && nodes[i].parent.is_some_and(|p| probs_below(&nodes, p)))
                    })
                    .map(|i| (ix.files[nodes[i].file].path.clone(), nodes[i].line))
                    .collect();
                // a formula of the project's own meant to give probabilities (`1 - exp(-x)`):
                // its line is where the value fails to land in [0, 1]
                // (its last line: the arithmetic nearest the sink with the exponential below it)
                let exp_made = |n: &Node| n.tag == Tag::Scale(Scaling::ByHand);
                let formula = (0..value_nodes).find(|&i| {
                    matches!(nodes[i].tag, Tag::Scale(_)) && !nodes[i].aux && (exp_made(&nodes[i]) || below(&nodes, i, exp_made))
                });
                let hand_made: Vec<(String, u32)> =
                    formula.map(|i| (ix.files[nodes[i].file].path.clone(), nodes[i].line)).into_iter().collect();
                if let Some(i) = formula {
                    let (file, line) = &hand_made[0];
                    match out.iter_mut().find(|s| s.file == *file && s.line == *line) {
                        Some(s) => {
                            s.score = 1.0;
                            s.tier = Tier::Strong;
                            if !s.message.contains(trace::HAND_MADE_PROBS) {
                                let code = nodes[i].what.split('`').nth(1).unwrap_or_default();
                                s.message = format!(
                                    "{}: {} (`{code}`, after an exponential): it stays in [0, 1] only for some inputs",
                                    nodes[i].scope,
                                    trace::HAND_MADE_PROBS,
                                );
                            }
                        }
                        None => out.push(at_node(
                            ix,
                            &nodes[i],
                            1.0,
                            Tier::Strong,
                            format!("{} (`{}`): it stays in [0, 1] only for some inputs", trace::HAND_MADE_PROBS, nodes[i].what),
                            slice.chain(i, ix, false),
                            Vec::new(),
                        )),
                    }
                }
                let scaled_probs = !scaling.is_empty();
                // a module built as one beside it is that ends in a sigmoid, without it: the
                // line that builds it left the sigmoid out; the loss, or the arithmetic on its
                // scores, comes after it
                let built = |i: usize, t: &str| !nodes[i].aux && nodes[i].what.ends_with(t);
                // or a module's raw scores joined with probabilities (`return [main, aux]`,
                // one loss over both): the module's line is where the sigmoid is missing
                let probs_text = Val::Float(Some(Norm::Probs)).describe();
                let joined = |i: usize| {
                    nodes[i].tag == Tag::ModelOutput
                        && !nodes[i].aux
                        && nodes[i].parent.is_some_and(|p| {
                            // (values put side by side, not added: `p + wide` is arithmetic)
                            nodes[p].tag == Tag::Pass
                                && nodes[p].children.iter().any(|&c| c != i && !nodes[c].aux && nodes[c].val == probs_text)
                        })
                };
                let unsquashed = (!unknown && hand_made.is_empty())
                    .then(|| {
                        (0..value_nodes)
                            .find(|&i| built(i, trace::RAW_BESIDE_SQUASHED))
                            .or_else(|| (0..value_nodes).find(|&i| joined(i)))
                            .or_else(|| (0..value_nodes).find(|&i| built(i, trace::SIGNED_SQUASH)))
                    })
                    .flatten();
                // (beside a head that ends in a sigmoid the loss takes what that head gives: it
                // comes second; after a squash into [-1, 1] either may be the one to change)
                let beside = unsquashed.filter(|&u| !built(u, trace::SIGNED_SQUASH));
                let what = if sink.kind == SinkKind::Probability {
                    "expects probabilities in [0, 1]"
                } else {
                    "samples from weights that must be a distribution"
                };
                if scaled_probs && !unknown {
                    for s in out.iter_mut().filter(|s| scaling.iter().any(|(f, l)| *f == s.file && *l == s.line)) {
                        s.score = 0.98;
                        s.tier = Tier::Strong;
                    }
                    // a probability times a factor made on a line of its own (`p * exam` with
                    // `exam = ctr[0] / ctr`): the product leaves [0, 1] only when the factor
                    // does, so the arithmetic that made the factor is the line to change
                    for i in (0..value_nodes).filter(|&i| nodes[i].what.starts_with(trace::PROBS_TIMES) && !nodes[i].aux) {
                        // (the probabilities' own lines, when they have any, are the other side)
                        let other: Vec<usize> = nodes[i]
                            .children
                            .iter()
                            .copied()
                            .filter(|&c| !nodes[c].aux && !matches!(nodes[c].tag, Tag::Normalize(_)) && !probs_below(&nodes, c))
                            .collect();
                        if other.len() != 1 {
                            continue;
                        }
                        let made = |n: &Node| matches!(n.tag, Tag::Arith(_) | Tag::Scale(_)) && !n.aux;
                        let mut stack = other.clone();
                        let mut factor = None;
                        let mut seen = 0;
                        while let Some(c) = stack.pop().filter(|_| seen < 400) {
                            seen += 1;
                            // (a model's raw scores as the factor: the product's line it is)
                            if nodes[c].tag == Tag::ModelOutput {
                                factor = None;
                                break;
                            }
                            if made(&nodes[c]) && (nodes[c].file, nodes[c].line) != (nodes[i].file, nodes[i].line) {
                                if factor.map_or(true, |f| depth(&nodes, c) < depth(&nodes, f)) {
                                    factor = Some(c);
                                }
                                continue;
                            }
                            stack.extend(nodes[c].children.iter().copied().filter(|&x| !nodes[x].aux));
                        }
                        let Some(f) = factor else { continue };
                        let product = (ix.files[nodes[i].file].path.clone(), nodes[i].line);
                        for s in out.iter_mut().filter(|s| (&s.file, s.line) == (&product.0, product.1)) {
                            s.score = 0.9;
                            s.tier = Tier::Likely;
                        }
                        let at = (ix.files[nodes[f].file].path.clone(), nodes[f].line);
                        out.retain(|s| (&s.file, s.line) != (&at.0, at.1));
                        let why = format!(
                            "{}: makes a factor that {}:{} multiplies probabilities by; the product leaves [0, 1] only where the factor does",
                            nodes[f].what, product.0, product.1
                        );
                        out.push(at_node(ix, &nodes[f], 0.99, Tier::Strong, why, slice.chain(f, ix, false), Vec::new()));
                    }
                } else {
                    let (file, line) = sink.built_at(ix);
                    // after a formula of the project's own the values are no raw scores: the
                    // loss is the second place to look
                    let formula = !hand_made.is_empty();
                    // the loss is inside a function of the project's own that takes the
                    // probabilities as a parameter (`def bce_dice(prob, target)`): the call that
                    // hands it raw scores is where they cross into it; the loss comes after it
                    let handed = (!unknown && !formula).then(|| handed_in(&nodes)).flatten();
                    let handed = handed.filter(|_| beside.is_none());
                    if let Some(h) = handed {
                        let why = format!(
                            "hands raw scores (no sigmoid or softmax on the way) to a function that feeds them to `{}`, which {what}",
                            sink.call_text
                        );
                        out.push(at_node(ix, &nodes[h], 0.97, Tier::Strong, why, slice.chain(h, ix, false), Vec::new()));
                    }
                    out.push(FlowSuspect {
                        file,
                        line,
                        score: if unknown {
                            0.5
                        } else if formula || handed.is_some() || beside.is_some() {
                            0.6
                        } else {
                            0.97
                        },
                        tier: if unknown {
                            Tier::Possible
                        } else if formula || handed.is_some() || beside.is_some() {
                            Tier::Likely
                        } else {
                            Tier::Strong
                        },
                        message: if unknown {
                            format!("`{}` {what}; what reaches it is {}", sink.call_text, value.describe())
                        } else if formula {
                            format!(
                                "`{}` {what}, and what reaches it comes from a formula of the project's own that can leave [0, 1] ({}:{})",
                                sink.call_text, hand_made[0].0, hand_made[0].1
                            )
                        } else {
                            format!("`{}` {what}, and it gets raw scores (no sigmoid or softmax on the way)", sink.call_text)
                        },
                        chain: nodes.first().map(|_| slice.chain(0, ix, false)).unwrap_or_default(),
                        bound_chain: Vec::new(),
                        data: false,
                        bounded: false,
                        decided: false,
                    });
                }
                if let Some(u) = unsquashed {
                    let at = (ix.files[nodes[u].file].path.clone(), nodes[u].line);
                    out.retain(|s| (&s.file, s.line) != (&at.0, at.1));
                    let why = if joined(u) {
                        format!(
                            "{}, where the values beside them are probabilities: both reach `{}`, which {what}",
                            nodes[u].what, sink.call_text
                        )
                    } else {
                        format!("{}: its raw scores reach `{}`, which {what}", nodes[u].what, sink.call_text)
                    };
                    // (a squash into [-1, 1] may be meant, and the loss the mistake: second)
                    let (score, tier) = if beside.is_some() { (0.99, Tier::Strong) } else { (0.9, Tier::Likely) };
                    out.push(at_node(ix, &nodes[u], score, tier, why, slice.chain(u, ix, false), Vec::new()));
                }
            }
            _ => {}
        }
    }
    if !probs {
        // (ids numbered over the very values the bound counts fit it whatever the data holds)
        if let Some(s) = counted_column(ix, &nodes, value_nodes, &slice, &bound_chain).filter(|_| !fits_by_construction) {
            out.push(s);
        }
        if let Some(s) = bound_origin.and_then(|b| counted_values(ix, &nodes, value_nodes, b, &slice)) {
            out.push(s);
        }
    }
    let _ = proven;
    for s in &mut out {
        s.data = s.chain.iter().chain(s.bound_chain.iter()).any(|c| {
            c.what.contains("from the loop over")
                || c.what.contains("is a batch of")
                || c.what.starts_with("reads column")
                || c.what.starts_with("config key")
                || c.what.starts_with("flag `--")
                || c.what.starts_with("returned by") && c.what.ends_with("__getitem__")
        });
    }
    out
}

/// Whether a line on the value's side of node `i` (the node and the lines below it) comes
/// after a decision in its function (an `if`, `while` or `assert` above it): the range that
/// breaks the bound may be one the decision rules out (`if c < size - 1: return cell(r, c + 1)`),
/// which the tracing, one range per value, does not see.
fn decided_before(ix: &Index, nodes: &[Node], i: usize) -> bool {
    let mut stack = vec![i];
    let mut seen = 0;
    while let Some(m) = stack.pop() {
        seen += 1;
        if seen > 256 {
            return true;
        }
        let n = &nodes[m];
        if let Some(((fi, di), si)) = ix.stmt_at(n.file, n.line) {
            let d = &ix.files[fi].flow[di];
            if d.stmts[..si].iter().any(|st| matches!(st.kind, crate::scan::flow::StmtKind::Cond(_))) {
                return true;
            }
        }
        stack.extend(n.children.iter().copied().filter(|&c| !nodes[c].aux));
    }
    false
}

/// Whether no node from `at` up to the sink (a node's parent is the node it flows into) has a
/// tag `changes` holds: the value reaches the op without that kind of step.
fn untouched(nodes: &[Node], mut at: Option<usize>, changes: impl Fn(&Tag) -> bool) -> bool {
    while let Some(a) = at {
        if changes(&nodes[a].tag) {
            return false;
        }
        at = nodes[a].parent;
    }
    true
}

/// The value takes a data column's ids as they are (no lookup, arithmetic or count on the way
/// to the op), and the bound is a count made of the same column (its distinct values,
/// `len({r["train_id"] for r in rows})`): a count of ids is one past the largest only when the
/// ids run 0..n-1, which nothing in the project makes sure of. The count is the line to change
/// (count vs max).
fn counted_column(ix: &Index, nodes: &[Node], value_nodes: usize, slice: &Slice, bound_chain: &[Step]) -> Option<FlowSuspect> {
    let as_they_are = |at: Option<usize>| {
        untouched(nodes, at, |t| {
            matches!(t, Tag::Arith(_) | Tag::Shift(_) | Tag::Lookup | Tag::Len(_) | Tag::Max | Tag::Scale(_) | Tag::Distinct)
        })
    };
    let columns: Vec<&str> = (0..value_nodes)
        .filter_map(|i| match &nodes[i].tag {
            // (numbers: a column read as numbers, or one the scan read whose cells are numbers)
            Tag::Column(c)
                if !nodes[i].aux
                    && (nodes[i].what.contains(trace::AS_NUMBERS) || !nodes[i].what.ends_with(trace::TEXT_COLUMN))
                    && as_they_are(nodes[i].parent) =>
            {
                Some(c.as_str())
            }
            _ => None,
        })
        .collect();
    for j in value_nodes..nodes.len() {
        let Tag::Column(c) = &nodes[j].tag else { continue };
        if !columns.contains(&c.as_str()) {
            continue;
        }
        // the count made of it: the nearest line above that counts
        let mut at = nodes[j].parent;
        while let Some(a) = at {
            if matches!(nodes[a].tag, Tag::Len(_) | Tag::Distinct) && nodes[a].out.as_ref().is_some_and(|r| r.hi.is_some()) {
                return Some(at_node(
                    ix,
                    &nodes[a],
                    0.92,
                    Tier::Likely,
                    format!(
                        "the bound is a count made of column `{c}`, while the value takes that column's ids as they are: unless the ids run 0..n-1, the largest reaches past the count"
                    ),
                    slice.chain(a, ix, true),
                    bound_chain.to_vec(),
                ));
            }
            at = nodes[a].parent;
        }
    }
    None
}

/// The elements a comprehension in the statement at `(file, line)` makes, casts taken off
/// (`int(r["id"])` → `r["id"]`), each with the comprehension's kind.
fn comprehended(ix: &Index, file: usize, line: u32) -> Vec<(crate::scan::flow::SeqKind, crate::scan::flow::Expr)> {
    use crate::scan::flow::Expr;
    fn bare_cast(e: &Expr) -> &Expr {
        match e.bare() {
            Expr::Call { func, args, kwargs }
                if args.len() == 1 && kwargs.is_empty() && matches!(func.last_name(), Some("int" | "str" | "float")) =>
            {
                bare_cast(&args[0])
            }
            other => other,
        }
    }
    let mut out = Vec::new();
    for st in ix.statements_at(file, line) {
        trace::stmt_exprs(&st.kind, &mut |e| {
            if let Expr::Comp { kind, elt, value: None, .. } = e {
                out.push((*kind, bare_cast(elt).clone()));
            }
        });
    }
    out
}

/// The names whose distinct values a statement at `(file, line)` takes: `np.unique(ids)`,
/// `torch.unique(ids)`, `ids.unique()`, `set(ids)`.
fn uniqued(ix: &Index, file: usize, line: u32) -> Vec<String> {
    use crate::scan::flow::Expr;
    let mut out = Vec::new();
    for st in ix.statements_at(file, line) {
        trace::stmt_exprs(&st.kind, &mut |e| {
            let Expr::Call { func, args, .. } = e else { return };
            let of = match (func.bare(), func.last_name()) {
                (Expr::Attr(o, _), Some("unique")) if args.is_empty() => Some(&**o),
                (_, Some("unique" | "set")) if args.len() == 1 => args.first(),
                _ => None,
            };
            if let Some(Expr::Name(n)) = of.map(Expr::bare) {
                out.push(n.to_string());
            }
        });
    }
    out
}

/// Whether a statement assigns the plain name `n` (`n = …`, not `n += …` or `x.n = …`).
fn assigns(st: &crate::scan::flow::Stmt, n: &str) -> bool {
    use crate::scan::flow::{Expr, StmtKind};
    matches!(&st.kind, StmtKind::Assign { targets, op: None, .. } if targets.iter().any(|t| matches!(t.bare(), Expr::Name(m) if m == n)))
}

/// The table is sized by how many distinct values an expression takes (`len({r["store"] for r
/// in rows})`), and the op gets the values of that same expression as they are (`[int(r["store"])
/// for r in rows]`, no lookup or arithmetic on the way): a count of ids is past the largest id
/// only when the ids run 0..n-1, which nothing makes sure of. The count is the line to change.
fn counted_values(ix: &Index, nodes: &[Node], value_nodes: usize, b: usize, slice: &Slice) -> Option<FlowSuspect> {
    use crate::scan::flow::SeqKind;
    let counted =
        nodes[b].out.as_ref().and_then(|r| r.hi.as_ref()).and_then(|h| h.root.as_deref()).is_some_and(|r| r.starts_with("distinct@"));
    if !counted || !matches!(nodes[b].tag, Tag::Len(_) | Tag::Distinct) {
        return None;
    }
    let sets: Vec<_> =
        comprehended(ix, nodes[b].file, nodes[b].line).into_iter().filter(|(k, _)| *k == SeqKind::Set).map(|(_, e)| e).collect();
    // or the distinct values of a collection named in the count's function (`np.unique(ids)`,
    // `set(ids)`), the op getting what that name was assigned, in the same function
    let mut named = uniqued(ix, nodes[b].file, nodes[b].line);
    // (a name assigned again after the count, `ids = np.searchsorted(uniq, ids)`, may be remapped)
    if let Some(d) = node_def(ix, &nodes[b]) {
        named.retain(|n| !d.stmts.iter().any(|st| d.line(st) > nodes[b].line && assigns(st, n)));
    }
    if sets.is_empty() && named.is_empty() {
        return None;
    }
    let as_they_are = |at: usize| {
        untouched(nodes, Some(at), |t| matches!(t, Tag::Arith(_) | Tag::Shift(_) | Tag::Lookup | Tag::Len(_) | Tag::Max | Tag::Distinct))
    };
    let same = (0..value_nodes).find(|&i| {
        !nodes[i].aux
            && as_they_are(i)
            && (comprehended(ix, nodes[i].file, nodes[i].line)
                .iter()
                .any(|(k, e)| matches!(k, SeqKind::List | SeqKind::Gen) && sets.contains(e))
                || (nodes[i].file == nodes[b].file
                    && nodes[i].scope == nodes[b].scope
                    && nodes[i].line < nodes[b].line
                    && ix.statements_on(nodes[i].file, nodes[i].line).iter().any(|st| named.iter().any(|n| assigns(st, n)))))
    })?;
    let counted = sets.first().map(trace::short).or_else(|| named.first().cloned()).unwrap_or_default();
    Some(FlowSuspect {
        file: ix.files[nodes[b].file].path.clone(),
        line: nodes[b].line,
        score: 0.96,
        tier: Tier::Strong,
        message: format!(
            "{}: the table counts the distinct values of `{}`, and the op gets those values as they are ({}:{}): unless they run 0..n-1, the largest reaches past the count",
            nodes[b].scope,
            counted,
            ix.files[nodes[same].file].path,
            nodes[same].line
        ),
        chain: slice.chain(same, ix, false),
        bound_chain: slice.chain(b, ix, true),
        data: false,
        bounded: false,
        decided: false,
    })
}

/// The line of another id in the function of node `n` parsed the same way and shifted down
/// (`int(c) - 1`, `int(row["class"]) - 1`), not on `n`'s own line.
fn shifted_sibling(ix: &Index, n: &Node) -> Option<u32> {
    use crate::scan::flow::Expr;
    let d = node_def(ix, n)?;
    let parse = |e: &Expr| matches!(e.bare(), Expr::Call { func, args, .. } if func.last_name() == Some("int") && args.len() == 1);
    // a number parsed into a dict's keys only (`{int(i): p for i, p in rows}`) is a key, not a
    // value that reaches the op
    let mut key_only = false;
    for s in d.stmts.iter().filter(|s| d.line(s) == n.line) {
        trace::stmt_exprs(&s.kind, &mut |e| {
            if let Expr::Comp { kind: crate::scan::flow::SeqKind::Dict, elt, value: Some(v), .. } = e {
                let mut in_value = false;
                v.walk(&mut |x| in_value |= parse(x));
                key_only |= parse(elt) && !in_value;
            }
        });
    }
    if key_only {
        return None;
    }
    for s in &d.stmts {
        let line = d.line(s);
        if line == n.line {
            continue;
        }
        let mut hit = false;
        trace::stmt_exprs(&s.kind, &mut |e| {
            if let Expr::Bin(op, x, k) = e {
                hit |= op == "-" && parse(x) && matches!(k.bare(), Expr::Int(1));
            }
        });
        if hit {
            return Some(line);
        }
    }
    None
}

/// The definition node `n` was made in: the one of its scope with a statement on its line.
fn node_def<'a>(ix: &Index<'a>, n: &Node) -> Option<&'a crate::scan::flow::Def> {
    ix.files[n.file].flow.iter().find(|d| d.stmts.iter().any(|s| d.line(s) == n.line) && d.qualified() == n.scope)
}

/// For a node whose statement assigns a field of a record as it is (`view = meta["camera"]`,
/// `v = row.cam`): another statement of the same function that takes 1 off a field of the same
/// record (`meta["action"] - 1`), as its line and the field.
fn field_sibling(ix: &Index, n: &Node) -> Option<(u32, String)> {
    use crate::scan::flow::{Expr, StmtKind};
    let d = node_def(ix, n)?;
    // `base["k"]` or `base.k`, through `int(…)`: the base's dotted name and the field
    let field = |e: &Expr| -> Option<(String, String)> {
        let e = match e.bare() {
            Expr::Call { func, args, .. } if func.last_name() == Some("int") && args.len() == 1 => args[0].bare(),
            other => other,
        };
        match e {
            Expr::Sub(b, k) => match k.bare() {
                Expr::Str(k) => Some((b.dotted()?, k.to_string())),
                _ => None,
            },
            Expr::Attr(b, k) if !matches!(b.bare(), Expr::Name(s) if s == "self") => Some((b.dotted()?, k.to_string())),
            _ => None,
        }
    };
    let (base, mine) = d.stmts.iter().filter(|s| d.line(s) == n.line).find_map(|s| match &s.kind {
        StmtKind::Assign { targets, value, op: None } if targets.len() == 1 && matches!(targets[0].bare(), Expr::Name(_)) => field(value),
        _ => None,
    })?;
    for s in d.stmts.iter().filter(|s| d.line(s) != n.line) {
        let mut hit = None;
        trace::stmt_exprs(&s.kind, &mut |e| {
            if let Expr::Bin(op, x, k) = e {
                if op == "-" && matches!(k.bare(), Expr::Int(1)) {
                    if let Some((_, other)) = field(x).filter(|(b, other)| *b == base && *other != mine) {
                        hit = Some(other);
                    }
                }
            }
        });
        if let Some(other) = hit {
            return Some((d.line(s), other));
        }
    }
    None
}

/// A suspect on node `n`'s line (`why` after the function it is in).
fn at_node(ix: &Index, n: &Node, score: f32, tier: Tier, why: String, chain: Vec<Step>, bound_chain: Vec<Step>) -> FlowSuspect {
    FlowSuspect {
        file: ix.files[n.file].path.clone(),
        line: n.line,
        score,
        tier,
        message: format!("{}: {why}", n.scope),
        chain,
        bound_chain,
        data: false,
        bounded: false,
        decided: false,
    }
}

/// The line that hands the value to a parameter of the function the op is called in (the
/// first argument binding on the value's path from the op that leaves that function), when the
/// value comes to it straight through plain passes.
fn handed_in(nodes: &[Node]) -> Option<usize> {
    let scope = &nodes.first()?.scope;
    let mut at = 0;
    for _ in 0..8 {
        let next = nodes[at].children.iter().copied().find(|&c| !nodes[c].aux)?;
        let n = &nodes[next];
        if n.tag != Tag::Pass {
            return None;
        }
        if &n.scope != scope {
            // a function or parameter that says it takes logits (`SmoothBCEwLogits.forward`,
            // `def loss(logits, y)`) means to get raw scores: the loss inside it is the line
            let param = n.what.rsplit(" as `").next().unwrap_or("");
            let logits = |t: &str| t.to_ascii_lowercase().contains("logit");
            return (n.what.starts_with("passes `") && !logits(scope) && !logits(param)).then_some(next);
        }
        at = next;
    }
    None
}

/// The one number a node's value takes, where its range is a single constant.
fn exact_value(n: &Node) -> Option<i64> {
    n.out.as_ref().filter(|r| r.lo == r.hi).and_then(|r| r.lo.as_ref()).and_then(|s| s.constant())
}

/// Whether a line at `at` or above it selects the marker `k` out (`labels[labels != k]`).
fn masked_above(nodes: &[Node], mut at: Option<usize>, k: i64) -> bool {
    let said = format!("{} {k}", trace::MASKS_OUT);
    while let Some(a) = at {
        if nodes[a].tag == Tag::Narrow && nodes[a].what == said {
            return true;
        }
        at = nodes[a].parent;
    }
    false
}

/// How many nodes lie between node `i` and the slice's root.
fn depth(nodes: &[Node], i: usize) -> usize {
    let (mut d, mut at) = (0, nodes[i].parent);
    while let Some(p) = at {
        d += 1;
        at = nodes[p].parent;
    }
    d
}

/// Whether probabilities are made or passed below node `i` (a normalization, or a value
/// known to be probabilities).
fn probs_below(nodes: &[Node], i: usize) -> bool {
    below(nodes, i, |n| matches!(n.tag, Tag::Normalize(_))) || below(nodes, i, |n| n.val == "probabilities")
}

/// The bound's node that reads the same setting (a config key, a flag, a literal line) as
/// value node `i`, when there is one.
fn shared_setting(nodes: &[Node], i: usize, value_nodes: usize) -> Option<usize> {
    let n = &nodes[i];
    if !matches!(n.tag, Tag::Config(_) | Tag::Literal(_)) {
        return None;
    }
    (value_nodes..nodes.len()).find(|&j| nodes[j].tag == n.tag && nodes[j].file == n.file && nodes[j].line == n.line)
}

/// Whether a product of matrices or a true division whose result the tracing could not model
/// stands between node `i` and the op (its range is not what reaches the op: coordinates
/// rotated, features scaled).
fn lost_on_way(nodes: &[Node], i: usize) -> bool {
    let (mut at, mut hops) = (nodes[i].parent, 0);
    while let Some(a) = at.filter(|_| hops < 64) {
        if matches!(&nodes[a].tag, Tag::Arith(o) if o == "@" || o == "/") && nodes[a].out.is_none() && !nodes[a].aux {
            return true;
        }
        at = nodes[a].parent;
        hops += 1;
    }
    false
}

/// Whether the value at node `i` reaches the op scaled (`n // 2`, `n * k`, `n % m`): a part of a
/// setting added to a value is an offset the value's line chose, not the setting's length
/// extended on purpose.
fn scaled_on_way(nodes: &[Node], i: usize) -> bool {
    let (mut at, mut hops) = (nodes[i].parent, 0);
    while let Some(a) = at.filter(|_| hops < 64) {
        // (or limits a draw: `x + randint(1, n)` takes the setting as the draw's end)
        if matches!(&nodes[a].tag, Tag::Arith(o) if matches!(o.as_str(), "//" | "*" | "%" | ">>"))
            || matches!(nodes[a].tag, Tag::OneBased(_))
        {
            return true;
        }
        at = nodes[a].parent;
        hops += 1;
    }
    false
}

/// Whether a node below `i` is a `hit` (at most 400 looked at).
fn below(nodes: &[Node], i: usize, hit: impl Fn(&Node) -> bool) -> bool {
    let mut stack = nodes[i].children.clone();
    let mut seen = 0;
    while let Some(c) = stack.pop() {
        seen += 1;
        if seen > 400 {
            return false;
        }
        if hit(&nodes[c]) {
            return true;
        }
        stack.extend(nodes[c].children.iter().copied());
    }
    false
}

/// Whether the value's divergence is made by a transform in code (a shift, a marker, a count
/// from 1) rather than read as it is from data or a table.
fn proven_on_value_transform(nodes: &[Node], bound: Option<&Sym>, ignore: Option<i64>) -> bool {
    nodes.iter().any(|n| {
        matches!(n.tag, Tag::Shift(_) | Tag::Sentinel(_) | Tag::OneBased(_) | Tag::Arith(_))
            && n.out.as_ref().and_then(|r| breaks(r, bound, ignore)) == Some(true)
    })
}
