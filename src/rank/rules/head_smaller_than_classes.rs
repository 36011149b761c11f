use crate::rank::rules::shared::heads;
use crate::rank::rules::{fingerprint, rule, Finding};
use crate::scan::facts::{Facts, Span};

rule!(
    HeadSmallerThanClasses,
    r#"## What it does
Compares the model's classification head (`nn.Linear(in, N)` with a literal `N`) with the class
counts the project states elsewhere: `num_classes = M`, `n_classes`, `num_labels`, `nc`,
argparse defaults (`--num_classes`), dataclass fields, and `num_classes=`/`num_labels=`
arguments.

## Why is this bad?
When the head has fewer outputs than there are classes, every label `>= N` makes
`nll_loss`/`cross_entropy` fail with `t >= 0 && t < n_classes` on the GPU.

## Example
```python
NUM_CLASSES = 10
model.fc = nn.Linear(512, 9)      # one output short
```

Use instead:
```python
model.fc = nn.Linear(512, NUM_CLASSES)
```"#
);

const COUNT_NAMES: &[&str] = &["num_classes", "n_classes", "nclasses", "nclass", "n_class", "num_class", "classes_num", "num_labels", "n_labels", "nc", "number_of_classes", "class_num", "num_cls"];

fn is_count_name(name: &str) -> bool {
    let n = name.rsplit(['.', '[']).next().unwrap_or(name).trim_matches(|c: char| c == '\'' || c == '"' || c == ']' || c == '-').to_ascii_lowercase();
    COUNT_NAMES.contains(&n.as_str())
}

/// (value, file, span, how it was stated): assignments, dataclass fields and argparse
/// defaults. Keyword arguments of library calls are left out: `num_classes=1000` there is
/// usually a pretrained model's default, not this project's class count.
fn stated_counts(facts: &Facts) -> Vec<(i64, String, Span, String)> {
    let mut out = Vec::new();
    for f in &facts.files {
        for a in &f.assigns {
            if let Some(v) = a.int.filter(|v| *v > 1) {
                if is_count_name(&a.target) {
                    out.push((v, f.path.clone(), a.span, format!("{} = {v}", a.target)));
                }
            }
        }
        for c in f.calls.iter().filter(|c| c.name == "add_argument") {
            let flag = c.args.iter().filter(|a| a.name.is_none()).map(|a| a.text.trim_matches(['"', '\'']).trim_start_matches('-').replace('-', "_")).find(|t| is_count_name(t));
            if let (Some(flag), Some(v)) = (flag, c.kwarg("default").and_then(|d| d.int)) {
                out.push((v, f.path.clone(), c.span, format!("--{flag} default {v}")));
            }
        }
    }
    out
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

pub fn check(facts: &Facts, out: &mut Vec<Finding>) {
    if !facts.calls().any(|(_, c)| crate::rank::rules::shared::is_loss_with_classes(c)) {
        return;
    }
    let counts = stated_counts(facts);
    for h in heads(facts).into_iter().filter(|h| h.out >= 2) {
        // counts stated in the head's own module or in modules it imports (by name)
        let imported = imported_modules(h.file);
        let pool: Vec<&(i64, String, Span, String)> = counts
            .iter()
            .filter(|c| c.1 == h.file.path || imported.iter().any(|m| module_of(&c.1) == *m))
            .collect();
        let Some((m, file, span, how)) = pool.into_iter().filter(|(v, ..)| *v > h.out).max_by_key(|(v, ..)| *v) else { continue };
        let scope = h.call.scope.qualified();
        out.push(Finding {
            rule: "CS102",
            file: h.file.path.clone(),
            span: h.call.span,
            message: format!("head {}(…, {}) has fewer outputs than the {m} classes stated at {file}:{}", h.call.func, h.out, span.line),
            evidence: vec![format!("class count: `{how}` at {file}:{}", span.line), format!("labels {}..{} would fail the loss", h.out, m - 1)],
            fingerprint: fingerprint("CS102", h.file, &scope, &format!("{}->{}", h.out, m)),
            category: "label_out_of_range",
            lint: true,
        });
    }
}
