//! Facts the rules share: which names hold labels, the model's head, the loss calls.

use crate::scan::facts::{Arg, Call, FileFacts};

/// `f` of `s` in ASCII lower case, without allocating for a name of up to 64 bytes (the name
/// tests below run on every assignment and call of a project).
pub fn with_lower<R>(s: &str, f: impl FnOnce(&str) -> R) -> R {
    let mut buf = [0u8; 64];
    match buf.get_mut(..s.len()) {
        Some(b) => {
            b.copy_from_slice(s.as_bytes());
            b.make_ascii_lowercase();
            // lower-casing ASCII bytes keeps UTF-8 valid
            f(std::str::from_utf8(b).unwrap_or_default())
        }
        None => f(&s.to_ascii_lowercase()),
    }
}

/// Names that usually hold class labels (or segmentation masks).
pub fn is_label_name(name: &str) -> bool {
    with_lower(name.rsplit('.').next().unwrap_or(name).trim_start_matches('_'), label_name)
}

fn label_name(n: &str) -> bool {
    const EXACT: &[&str] = &[
        "y",
        "label",
        "labels",
        "lbl",
        "lbls",
        "target",
        "targets",
        "tgt",
        "cls",
        "class_id",
        "class_idx",
        "category",
        "category_id",
        "mask",
        "masks",
        "seg",
        "gt",
        "gt_label",
        "y_true",
        "cls_id",
    ];
    EXACT.contains(&n)
        || n.ends_with("_label")
        || n.ends_with("_labels")
        || n.ends_with("_target")
        || n.starts_with("label_") && !n.contains("smooth")
}

/// Names that usually hold token ids or indices into an embedding.
pub fn is_index_name(name: &str) -> bool {
    with_lower(name.rsplit('.').next().unwrap_or(name), |n| {
        ["input_ids", "ids", "token_ids", "tokens", "idx", "index", "indices", "word_ids", "token_id"].contains(&n)
    })
}

pub fn is_loss_with_classes(c: &Call) -> bool {
    matches!(c.name.as_str(), "CrossEntropyLoss" | "cross_entropy" | "NLLLoss" | "nll_loss" | "NLLLoss2d")
}

/// A gather of the model's outputs at the labels — a hand-written NLL loss:
/// `log_probs.gather(1, y.unsqueeze(1))`, `torch.gather(logp, 1, labels[:, None])`. It indexes
/// the head's outputs by class just as the loss does.
pub fn is_label_gather(c: &Call) -> bool {
    if c.name != "gather" {
        return false;
    }
    let module_form = matches!(c.func.as_str(), "torch.gather" | "th.gather");
    let index = c.kwarg("index").or_else(|| c.positional(if module_form { 2 } else { 1 }));
    index.is_some_and(|a| a.text.split(|ch: char| !(ch.is_alphanumeric() || ch == '_')).any(|w| !w.is_empty() && is_label_name(w)))
}

/// A call that indexes the head's outputs by class label: a class-index loss or a label gather.
pub fn consumes_class_index(c: &Call) -> bool {
    is_loss_with_classes(c) || is_label_gather(c)
}

/// A classification head: `nn.Linear(in, out)` with a literal `out`, the last one in its file
/// or one assigned to a head-like name.
pub struct Head<'a> {
    pub file: &'a FileFacts,
    pub call: &'a Call,
    pub out: i64,
}

/// The heads of one file (`heads_of` its `head_calls_in`).
pub fn heads_in(f: &FileFacts) -> Vec<Head<'_>> {
    let calls: Vec<_> = head_calls_in(f).into_iter().map(|(c, a)| (f, c, a)).collect();
    heads_of(&calls)
}

/// The heads among `head_calls`: the `Linear` ones with a literal output size.
pub fn heads_of<'a>(calls: &[(&'a FileFacts, &'a Call, &'a Arg)]) -> Vec<Head<'a>> {
    calls
        .iter()
        .filter(|(_, c, _)| c.name.contains("Linear"))
        .filter_map(|&(file, call, out)| Some(Head { file, call, out: out.int? }))
        .collect()
}

const HEAD_EXCLUDED: &[&str] = &["qkv", "proj", "query", "key", "value", "gate", "attn", "seq_relationship", "embed", "pos"];
const HEAD_NAMES: &[&str] = &["fc", "classifier", "head", "cls", "out", "output", "logits", "model", "linear", "last", "final", "decoder"];

/// The calls that may be a classification head, with their output-size argument: an
/// `nn.Linear(in, out)` assigned to a head-like name (or the file's last one, in a file that
/// computes a class-index loss), and a 1x1 convolution (`nn.Conv2d(in, n_classes, 1)`, the
/// per-pixel classifier of a segmentation model) assigned to a head-like name; in one file.
pub fn head_calls_in(f: &FileFacts) -> Vec<(&Call, &Arg)> {
    let mut out = Vec::new();
    {
        let linears: Vec<&Call> = f.calls.iter().filter(|c| c.name == "Linear" || c.name == "LazyLinear").collect();
        let loss_here = f.calls.iter().any(consumes_class_index);
        for (i, c) in linears.iter().enumerate() {
            let Some(n_out) = c.kwarg("out_features").or_else(|| c.positional(if c.name == "LazyLinear" { 0 } else { 1 })) else {
                continue;
            };
            let target = c.assigned_to.as_deref().unwrap_or("").to_ascii_lowercase();
            let base = target.rsplit('.').next().unwrap_or(&target);
            let excluded = HEAD_EXCLUDED.iter().any(|w| base.contains(w));
            let named = HEAD_NAMES.iter().any(|w| base.contains(w));
            // an unnamed `nn.Linear` is a head only when it is the file's last one and the file
            // also computes a class-index loss
            if !excluded && (named || i + 1 == linears.len() && loss_here) {
                out.push((*c, n_out));
            }
        }
        for c in f.calls.iter().filter(|c| matches!(c.name.as_str(), "Conv1d" | "Conv2d" | "Conv3d")) {
            let kernel = c.kwarg("kernel_size").or_else(|| c.positional(2)).and_then(|a| a.int);
            let Some(n_out) = c.kwarg("out_channels").or_else(|| c.positional(1)) else { continue };
            let target = c.assigned_to.as_deref().unwrap_or("").to_ascii_lowercase();
            let base = target.rsplit('.').next().unwrap_or(&target);
            let named = ["out", "classifier", "cls", "head", "logits", "score", "final", "pred", "seg"].iter().any(|w| base.contains(w))
                && !HEAD_EXCLUDED.iter().any(|w| base.contains(w));
            if kernel == Some(1) && named {
                out.push((c, n_out));
            }
        }
    }
    out
}

const COUNT_NAMES: &[&str] = &[
    "num_classes",
    "n_classes",
    "nclasses",
    "nclass",
    "n_class",
    "num_class",
    "classes_num",
    "num_labels",
    "n_labels",
    "nc",
    "number_of_classes",
    "class_num",
    "num_cls",
    "n_cls",
];

/// Names that usually hold a class count: `num_classes`, `n_classes`, `num_labels`, `nc`, ...
pub fn is_count_name(name: &str) -> bool {
    let n = name.rsplit(['.', '[']).next().unwrap_or(name).trim_matches(|c: char| c == '\'' || c == '"' || c == ']' || c == '-');
    with_lower(n, |n| COUNT_NAMES.contains(&n))
}

/// Names of values that mark pixels or samples to leave out of the loss: `ignore_index`,
/// `IGNORE_LABEL`, `void_label`, `unlabeled`.
pub fn is_sentinel_name(name: &str) -> bool {
    with_lower(name.rsplit('.').next().unwrap_or(name), |n| {
        ["ignore", "void", "unlabeled", "unlabelled", "invalid_label", "dont_care", "dontcare"].iter().any(|w| n.contains(w))
    })
}

/// The largest label a Dataset writes, when its label values are bounded by literals
/// (`mask[blob] = cls` with `cls = randint(1, len(NAMES) + 1)`, `self.targets =
/// torch.randint(0, 10, ...)`). Sentinels (negative, `>= 255`, or named like `ignore_index`)
/// are left out: they are the sentinel rule's business.
pub struct LabelBound<'a> {
    pub file: &'a FileFacts,
    pub class: &'a str,
    pub max: i64,
    /// The write of the largest label.
    pub site: &'a crate::scan::facts::AssignFact,
}

pub fn dataset_label_bounds<'a>(values: &crate::analysis::values::Values<'a>) -> Vec<LabelBound<'a>> {
    let mut out: Vec<LabelBound<'a>> = Vec::new();
    for (fi, f) in values.files().with(crate::analysis::project::DATASET) {
        for class in f.classes.iter().filter(|c| c.is_dataset()) {
            let mut best: Option<LabelBound<'a>> = None;
            for a in f.assigns.iter().filter(|a| a.scope.class.as_deref() == Some(class.name.as_str()) && a.op.is_none()) {
                let base = a.target.split('[').next().unwrap_or(&a.target);
                if !(is_label_name(base) || is_label_name(&a.target)) || is_sentinel_name(&a.value) {
                    continue;
                }
                let Some(o) = values.max_value(fi, &a.scope, &a.value, a.span) else { continue };
                if o.value < 0 || o.value >= 255 {
                    continue;
                }
                if best.as_ref().map_or(true, |b| o.value > b.max) {
                    best = Some(LabelBound { file: f, class: &class.name, max: o.value, site: a });
                }
            }
            out.extend(best);
        }
    }
    out
}

pub fn head_evidence_of(heads: &[Head<'_>]) -> Option<String> {
    let h = heads.first()?;
    Some(format!("head: {}({} outputs) at {}:{}", h.call.func, h.out, h.file.path, h.call.span.line))
}

/// `loss: nn.CrossEntropyLoss at train.py:30`.
pub fn loss_evidence_at(f: &FileFacts, c: &Call) -> String {
    format!("loss: {} at {}:{}", c.func, f.path, c.span.line)
}

/// Whether file `f` imports the module of file `g` (by module name: `import data`,
/// `from data import X`, `from . import data`, `from pkg.data import X`).
pub fn imports(f: &FileFacts, g: &FileFacts) -> bool {
    f.imports_module(module_name(&g.path))
}

/// The name other files import a project file by: `data` for `pkg/data.py`, `pkg` for
/// `pkg/__init__.py`.
pub fn module_name(path: &str) -> &str {
    let base = path.rsplit('/').next().unwrap_or(path);
    let module = base.strip_suffix(".py").unwrap_or(base);
    if module == "__init__" {
        path.rsplit('/').nth(1).unwrap_or(module)
    } else {
        module
    }
}

/// Where a training loop's loss takes its target from: `for x, y in loader:` …
/// `criterion(model(x), y)` → position 1 of the batch (also `for i, (x, y) in
/// enumerate(loader)` and `for batch in loader: x, y = batch`).
pub struct TargetPosition<'a> {
    pub file: &'a FileFacts,
    /// Position of the target in the batch tuple.
    pub position: usize,
    /// The loop variable the loss receives (`y`).
    pub var: String,
    pub loop_line: u32,
    pub loss_line: u32,
}

/// The elements a tuple target or value names: `(x, y)` / `x, y` → `["x", "y"]`.
fn tuple_names(t: &str) -> Vec<String> {
    let t = t.trim();
    let t = t
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| t.strip_prefix('[').and_then(|r| r.strip_suffix(']')))
        .unwrap_or(t);
    t.split(',').map(|e| e.trim().to_string()).filter(|e| !e.is_empty()).collect()
}

/// The identifier an expression starts with: `y.to(device)` → `y`, `labels.long()` → `labels`.
fn leading_name(t: &str) -> &str {
    let t = t.trim();
    let end = t.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(t.len());
    &t[..end]
}

pub fn loss_target_positions<'a>(files: &crate::analysis::project::Files<'a>) -> Vec<TargetPosition<'a>> {
    use crate::analysis::project::LOSS;
    // losses called through a variable: `criterion = nn.CrossEntropyLoss()` … `criterion(out, y)`
    let loss_vars: rustc_hash::FxHashSet<&str> = files
        .with(LOSS)
        .flat_map(|(_, f)| f.calls.iter())
        .filter(|c| is_loss_with_classes(c))
        .filter_map(|c| c.assigned_to.as_deref())
        .collect();
    // the files that call a loss: directly, or through one of those variables (by the name the
    // call has: `criterion` for `self.criterion(...)`)
    let mut callers: Vec<usize> = files.with(LOSS).map(|(i, _)| i).collect();
    for v in &loss_vars {
        let name = v.rsplit('.').next().unwrap_or(v);
        callers.extend(files.calling(name));
    }
    callers.sort_unstable();
    callers.dedup();
    let mut out = Vec::new();
    for f in callers.into_iter().map(|i| files.file(i)) {
        let losses: Vec<&Call> = f.calls.iter().filter(|c| is_loss_with_classes(c) || loss_vars.contains(&c.func.as_str())).collect();
        if losses.is_empty() {
            continue;
        }
        for lp in &f.fors {
            let inside = |line: u32| line > lp.span.line && line <= lp.span.end_line;
            let mut elems: Vec<String> = match lp.targets.as_slice() {
                [_, inner] if lp.iter.trim_start().starts_with("enumerate(") && inner.contains(',') => tuple_names(inner),
                [single] => f
                    .assigns
                    .iter()
                    .find(|a| a.scope == lp.scope && inside(a.span.line) && a.value.trim() == single.trim() && a.target.contains(','))
                    .map(|a| tuple_names(&a.target))
                    .unwrap_or_default(),
                many => many.iter().map(|e| e.trim().to_string()).collect(),
            };
            elems.retain(|e| !e.is_empty());
            if elems.len() < 2 {
                continue;
            }
            for c in losses.iter().filter(|c| c.scope == lp.scope && inside(c.span.line)) {
                let Some(target) = c.kwarg("target").or_else(|| c.positional(1)) else { continue };
                let var = leading_name(&target.text);
                if let Some(position) = elems.iter().position(|e| e == var) {
                    out.push(TargetPosition { file: f, position, var: var.to_string(), loop_line: lp.span.line, loss_line: c.span.line });
                }
            }
        }
    }
    out
}

/// A regular expression over code text, compiled for ASCII: `\w`, `\s`, `\d` and `\b` are
/// their ASCII forms (Python identifiers and numbers in the code the rules read are ASCII) and
/// `.` steps over bytes. Compiling the Unicode forms of a rule's patterns cost a pre-commit
/// run about 10 ms; these compile about ten times faster.
pub struct Pattern(regex::bytes::Regex);

impl Pattern {
    /// The patterns are written in the source and covered by the rules' tests.
    pub fn new(pattern: &str) -> Pattern {
        Pattern(regex::bytes::RegexBuilder::new(pattern).unicode(false).build().expect("a rule's pattern compiles"))
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text.as_bytes())
    }

    pub fn captures<'t>(&self, text: &'t str) -> Option<Captures<'t>> {
        self.0.captures(text.as_bytes()).map(|c| Captures { text, spans: (0..c.len()).map(|i| c.get(i).map(|m| m.range())).collect() })
    }

    pub fn captures_iter<'p, 't>(&'p self, text: &'t str) -> impl Iterator<Item = Captures<'t>> + 'p
    where
        't: 'p,
    {
        self.0
            .captures_iter(text.as_bytes())
            .map(move |c| Captures { text, spans: (0..c.len()).map(|i| c.get(i).map(|m| m.range())).collect() })
    }
}

/// The groups of one match of a `Pattern`.
pub struct Captures<'t> {
    text: &'t str,
    spans: Vec<Option<std::ops::Range<usize>>>,
}

/// One group of a match: its text and where it ends.
#[derive(Clone, Copy)]
pub struct Group<'t> {
    text: &'t str,
    end: usize,
}

impl<'t> Group<'t> {
    pub fn as_str(&self) -> &'t str {
        self.text
    }

    pub fn end(&self) -> usize {
        self.end
    }
}

impl<'t> Captures<'t> {
    /// Group `i`, when it took part in the match (and falls on character boundaries, as every
    /// group of these ASCII patterns does).
    pub fn get(&self, i: usize) -> Option<Group<'t>> {
        let r = self.spans.get(i)?.clone()?;
        Some(Group { end: r.end, text: self.text.get(r)? })
    }
}

impl std::ops::Index<usize> for Captures<'_> {
    type Output = str;

    /// Group `i`'s text ("" when it did not take part).
    fn index(&self, i: usize) -> &str {
        self.get(i).map_or("", |g| g.as_str())
    }
}
