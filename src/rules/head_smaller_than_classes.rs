use crate::analysis::project::{Files, CLASS_INDEX, COUNT, DATASET, HEAD, HEAD_CALL, LOSS};
use crate::analysis::shared::{dataset_label_bounds, is_count_name};
use crate::rules::{fingerprint, rule, Ctx, Finding};
use crate::scan::facts::{FileFacts, Span};

rule!(
    HeadSmallerThanClasses,
    r#"## What it does
Compares the model's classification head with the classes the project uses:

- a head `nn.Linear(in, N)` with a literal `N` against the class counts the project states
  elsewhere: `num_classes = M`, `n_classes`, `num_labels`, `nc`, argparse defaults
  (`--num_classes`), dataclass fields;
- a head `nn.Linear(in, n)` or a 1x1 `nn.Conv2d(in, n, 1)` whose size is followed back to a
  literal — an argparse default (`--classes`, default 3), a key of a JSON/YAML config the code
  reads (`"n_cls": 2`), a constant, through the constructor arguments that build the model —
  against the largest label a Dataset built in the same pipeline writes (`mask[blob] = cls`
  with `cls` drawn from `1..len(CLASS_NAMES)`). The finding is at the line that set the size.

The project must index the head's outputs by label somewhere: a class-index loss
(`CrossEntropyLoss`, `nll_loss`, ...) or a hand-written one that gathers the log-probabilities at
the labels (`log_probs.gather(1, y.unsqueeze(1))`).

## Why is this bad?
When the head has fewer outputs than there are classes, every label `>= N` makes
`nll_loss`/`cross_entropy` fail with `t >= 0 && t < n_classes` on the GPU, and a gather at the
labels with `index out of bounds` in the gather kernel. A segmentation
mask with background 0 and classes `1..K` needs `K + 1` output channels.

## Example
```python
NUM_CLASSES = 10
model.fc = nn.Linear(512, 9)      # one output short
```

```python
parser.add_argument("--classes", type=int, default=3)   # masks hold 0 (background) and 1..3
...
self.outc = nn.Conv2d(base, n_classes, kernel_size=1)
```

Use instead:
```python
model.fc = nn.Linear(512, NUM_CLASSES)
```

```python
parser.add_argument("--classes", type=int, default=4)   # background + 3 classes
```

## Known false positives
A Dataset whose labels are remapped after `__getitem__` (in a collate function or the training
step) is compared as it writes them."#
);

/// (value, file, span, how it was stated): assignments, dataclass fields and argparse
/// defaults. Keyword arguments of library calls are left out: `num_classes=1000` there is
/// usually a pretrained model's default, not this project's class count.
fn stated_counts(files: &Files<'_>) -> Vec<(i64, String, Span, String)> {
    let mut out = Vec::new();
    for (_, f) in files.with(COUNT) {
        stated_counts_in(f, &mut out);
    }
    out
}

/// Whether a file states a class count (`stated_counts_in`).
pub fn has_stated_count(f: &FileFacts) -> bool {
    let mut out = Vec::new();
    stated_counts_in(f, &mut out);
    !out.is_empty()
}

fn stated_counts_in(f: &FileFacts, out: &mut Vec<(i64, String, Span, String)>) {
    {
        for a in &f.assigns {
            if let Some(v) = a.int.filter(|v| *v > 1) {
                if is_count_name(&a.target) {
                    out.push((v, f.path.clone(), a.span, format!("{} = {v}", a.target)));
                }
            }
        }
        for c in f.calls.iter().filter(|c| c.name == "add_argument") {
            let flag = c
                .args
                .iter()
                .filter(|a| a.name.is_none())
                .map(|a| a.text.trim_matches(['"', '\'']).trim_start_matches('-').replace('-', "_"))
                .find(|t| is_count_name(t));
            if let (Some(flag), Some(v)) = (flag, c.kwarg("default").and_then(|d| d.int)) {
                out.push((v, f.path.clone(), c.span, format!("--{flag} default {v}")));
            }
        }
    }
}

/// `config` for `config.py` and `pkg/config.py`.
fn module_of(path: &str) -> &str {
    let base = path.rsplit('/').next().unwrap_or(path);
    base.strip_suffix(".py").unwrap_or(base)
}

/// Module names a file imports: every dotted segment of `import a.b` / `from a.b import c`,
/// plus the imported names (`from . import config`).
fn imported_modules(f: &crate::scan::facts::FileFacts) -> Vec<String> {
    let mut out = Vec::new();
    for imp in &f.imports {
        for word in imp.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !word.is_empty() && word != "import" && word != "from" && word != "as" {
                out.push(word.to_string());
            }
        }
    }
    out
}

/// This rule's prefilter: the files with a stated class count (`analysis::project::COUNT`).
pub const MARK: crate::analysis::project::Mark = (crate::analysis::project::COUNT, has_stated_count);

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    if !files.any(CLASS_INDEX) {
        return;
    }
    check_against_data(cx, out);
    // the class counts the project states, found when a head needs them
    let counts = std::cell::OnceCell::new();
    let counts = || counts.get_or_init(|| stated_counts(files));
    // what indexes the outputs by label: the loss, or a gather at the labels when there is none
    let consumer = || {
        files
            .first_call(LOSS, crate::analysis::shared::is_loss_with_classes)
            .or_else(|| files.first_call(CLASS_INDEX, crate::analysis::shared::is_label_gather))
            .map(|(f, c)| {
                let what = if c.name == "gather" { "the gather at the labels" } else { "the loss" };
                (what, format!("{} at {}:{}", c.func, f.path, c.span.line))
            })
    };
    let heads = files.sites_with(HEAD).flat_map(|(_, f)| crate::analysis::shared::heads_in(f));
    for h in heads.filter(|h| h.out >= 2) {
        // counts stated in the head's own module or in modules it imports (by name)
        let imported = imported_modules(h.file);
        let pool: Vec<&(i64, String, Span, String)> =
            counts().iter().filter(|c| c.1 == h.file.path || imported.iter().any(|m| module_of(&c.1) == *m)).collect();
        let Some((m, file, span, how)) = pool.into_iter().filter(|(v, ..)| *v > h.out).max_by_key(|(v, ..)| *v) else { continue };
        let scope = h.call.scope.qualified();
        out.push(Finding {
            rule: "CS102",
            file: h.file.path.clone(),
            span: h.call.span,
            message: format!("head {}(…, {}) has fewer outputs than the {m} classes stated at {file}:{}", h.call.func, h.out, span.line),
            evidence: vec![
                format!("class count: `{how}` at {file}:{}", span.line),
                match &consumer() {
                    Some((what, at)) => format!("labels {}..{} would fail {what} ({at})", h.out, m - 1),
                    None => format!("labels {}..{} would fail the loss", h.out, m - 1),
                },
            ],
            fingerprint: fingerprint("CS102", h.file, &scope, &format!("{}->{}", h.out, m)),
            category: "label_out_of_range",
            lint: true,
        });
    }
}

/// Heads whose size is followed back to a literal, against the labels of a Dataset built in the
/// same pipeline (constructed in a file the size passed through, or in the head's own file).
fn check_against_data(cx: &Ctx, out: &mut Vec<Finding>) {
    // every head of the project: a finding lands where the head's size is set, which may be
    // any file
    let values = cx.values();
    let bounds = || if cx.files.any(DATASET) { Some(dataset_label_bounds(values)).filter(|b| !b.is_empty()) } else { None };
    cx.origins("CS102", HEAD_CALL, out, bounds, |bounds, fi, out| check_heads_against_data(cx, bounds, fi, out));
}

/// `check_against_data` for the heads of file `fi`.
fn check_heads_against_data(cx: &Ctx, bounds: &[crate::analysis::shared::LabelBound<'_>], fi: usize, out: &mut Vec<Finding>) {
    let values = cx.values();
    let f = cx.files.file(fi);
    for (call, arg) in crate::analysis::shared::head_calls_in(f) {
        let Some(size) = values.int(fi, &call.scope, &arg.text, call.span) else { continue };
        if size.value < 1 {
            continue;
        }
        let mut pipeline = size.files.clone();
        pipeline.push(f.path.clone());
        let built_here = |class: &str| values.calls_named(class).any(|(cf, _)| pipeline.contains(&cf.path));
        let Some(b) = bounds.iter().filter(|b| b.max >= size.value && built_here(b.class)).max_by_key(|b| b.max) else { continue };
        let at_head = size.file == f.path && size.span == call.span;
        let head = format!("{}(…, {}) at {}:{}", call.func, arg.text, f.path, call.span.line);
        let labels = format!(
            "{} writes labels up to {} at {}:{} (`{} = {}`)",
            b.class, b.max, b.file.path, b.site.span.line, b.site.target, b.site.value
        );
        let (message, evidence) = if at_head {
            (format!("head {head} has {} outputs, but {labels}: {} classes are needed", size.value, b.max + 1), vec![labels.clone()])
        } else {
            (
                format!(
                    "`{}` sizes the head to {} outputs, but {} writes labels up to {}: {} classes are needed",
                    size.how,
                    size.value,
                    b.class,
                    b.max,
                    b.max + 1
                ),
                vec![format!("head: {head}"), format!("labels: {labels}")],
            )
        };
        let fp_file = cx.file(&size.file).unwrap_or(f);
        out.push(Finding {
            rule: "CS102",
            file: size.file.clone(),
            span: size.span,
            message,
            evidence,
            fingerprint: fingerprint("CS102", fp_file, &call.scope.qualified(), &format!("{}->{}", size.value, b.max + 1)),
            category: "label_out_of_range",
            lint: true,
        });
    }
}
