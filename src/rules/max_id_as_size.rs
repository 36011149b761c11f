use crate::analysis::shared::{is_count_name, is_label_name};
use crate::rules::{fingerprint, rule, Ctx, Finding};

rule!(
    MaxIdAsSize,
    r#"## What it does
Finds a table size (vocabulary, number of users/items, field dimensions) computed as the
largest id — `np.max(ids)`, `ids.max()`, `max(ids)` — without adding 1; and a class count
computed as the largest label (`n_classes = int(y_train.max())`), which then sizes a head or
`F.one_hot(..., num_classes=n_classes)`.

## Why is this bad?
Ids `0..max` need `max + 1` rows. An `nn.Embedding(max_id, dim)` has no row for the largest id,
so looking it up fails on the GPU (`srcIndex < srcSelectDimSize` or the vectorized gather's
`ind < ind_dim_size`). Likewise labels `0..max` are `max + 1` classes: a head or a one-hot
encoding with `max` classes fails `t >= 0 && t < n_classes` (or one_hot's "Class values must be
smaller than num_classes") for the last class.

## Example
```python
self.field_dims = np.max(self.items, axis=0)
```

```python
n_classes = int(y_train.max())
target = F.one_hot(y, num_classes=n_classes)
```

Use instead:
```python
self.field_dims = np.max(self.items, axis=0) + 1
```

```python
n_classes = int(y_train.max()) + 1
```

## Known false positives
Labels numbered from 1 that are shifted to 0-based later in another file (a shift in the same
file keeps the rule quiet)."#
);

/// Label arrays: `y`, `y_train`, `labels`, `train_labels`, `targets`, `self.targets`.
fn is_labels_name(arg: &str) -> bool {
    let base = arg.rsplit('.').next().unwrap_or(arg).split('[').next().unwrap_or(arg);
    is_label_name(base) || base.starts_with("y_") || base.starts_with("labels_") || base.starts_with("targets_") || base.ends_with("_y")
}

fn is_size_name(name: &str) -> bool {
    crate::analysis::shared::with_lower(name.rsplit('.').next().unwrap_or(name), size_name)
}

fn size_name(n: &str) -> bool {
    n.starts_with("num_")
        || n.starts_with("n_")
        || n.ends_with("_size")
        || n.ends_with("_dims")
        || n.ends_with("_dim") && n.contains("field")
        || n.contains("vocab")
        || n.ends_with("_count")
        || n == "field_dims"
        || n.starts_with("num") && n.len() > 3 && !n.contains("classes")
}

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    static RE: std::sync::OnceLock<crate::analysis::shared::Pattern> = std::sync::OnceLock::new();
    // the whole value is a max over ids, with nothing added
    // one argument (the ids), optionally an axis, nothing chained but `.item()`
    let re = || {
        RE.get_or_init(|| {
        crate::analysis::shared::Pattern::new(r"^(?:(?:np|numpy|torch)\.max\(\s*([\w.\[\]:, ]+?)\s*(?:,\s*(?:axis|dim)\s*=\s*-?\d+)?\s*\)|max\(\s*([\w.\[\]:]+)\s*\)|([\w.\[\]:, ]+?)\.max\(\s*(?:(?:axis|dim)\s*=\s*-?\d+|-?\d+)?\s*\))(?:\.item\(\))?$")
    })
    };
    for (_, f) in cx.files.sites() {
        for a in &f.assigns {
            let count = is_count_name(&a.target);
            if a.op.is_some() || !is_size_name(&a.target) && !count {
                continue;
            }
            // `int(y.max())`, `y.max().item()`
            let value = a.value.trim();
            let value = value.strip_prefix("int(").and_then(|v| v.strip_suffix(')')).unwrap_or(value);
            // (every form holds `max(`: the expression is compiled only for a value that does)
            if !value.contains("max(") {
                continue;
            }
            let Some(c) = re().captures(value.trim()) else { continue };
            let arg = c.get(1).or(c.get(2)).or(c.get(3)).map(|m| m.as_str().to_ascii_lowercase()).unwrap_or_default();
            if arg.contains(',') && !arg.contains(':') {
                continue;
            }
            // a class count taken as the largest label: `n_classes = int(y_train.max())`
            let labels = count && is_labels_name(&arg);
            if labels {
                // labels shifted down elsewhere in the file (`y = y - 1`): 1-based ids, max is the count
                if f.assigns.iter().any(|b| b.shift.is_some_and(|k| k < 0) && is_labels_name(&b.target.to_ascii_lowercase())) {
                    continue;
                }
                let scope = a.scope.qualified();
                out.push(Finding {
                    rule: "CS108",
                    file: f.path.clone(),
                    span: a.span,
                    message: format!(
                        "`{}` is the largest label, not the number of classes: labels 0..max need max + 1 classes (add 1)",
                        a.target
                    ),
                    evidence: vec![format!("`{} = {}`", a.target, a.value)],
                    fingerprint: fingerprint("CS108", f, &scope, &a.target),
                    category: "label_out_of_range",
                    lint: true,
                });
                continue;
            }
            if count {
                continue;
            }
            let ids = ["id", "idx", "index", "token", "item", "user", "vocab", "word"].iter().any(|w| arg.contains(w));
            let sizes = ["size", "shape", "len", "count", "num", "values"].iter().any(|w| arg.contains(w));
            if !ids || sizes {
                continue;
            }
            let scope = a.scope.qualified();
            out.push(Finding {
                rule: "CS108",
                file: f.path.clone(),
                span: a.span,
                message: format!(
                    "`{}` is the largest id, not the number of ids: a table with that many rows has no row for the largest id (add 1)",
                    a.target
                ),
                evidence: vec![format!("`{} = {}`", a.target, a.value)],
                fingerprint: fingerprint("CS108", f, &scope, &a.target),
                category: "embedding_index_out_of_range",
                lint: true,
            });
        }
    }
}
