use crate::rank::rules::{Ctx, fingerprint, rule, Finding};

rule!(
    OneBasedLabelMap,
    r#"## What it does
Finds class ids numbered from 1: `enumerate(class_names, 1)` or `enumerate(labels, start=1)`
when building a label map.

## Why is this bad?
Class ids must run from 0 to `n_classes - 1`. Numbered from 1, the last class gets id
`n_classes`, which fails `t >= 0 && t < n_classes` on the GPU (and class 0 is never used).

## Example
```python
label2id = {name: i for i, name in enumerate(class_names, start=1)}
```

Use instead:
```python
label2id = {name: i for i, name in enumerate(class_names)}
```"#
);

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let facts = cx.facts;
    for (f, c) in facts.calls().filter(|(_, c)| c.func == "enumerate") {
        let start = c.kwarg("start").or_else(|| c.positional(1)).and_then(|a| a.int);
        if start != Some(1) {
            continue;
        }
        let first = c.positional(0).map(|a| a.text.to_ascii_lowercase()).unwrap_or_default();
        if !["class", "label", "categor", "names", "tags", "species"].iter().any(|w| first.contains(w)) {
            continue;
        }
        // numbers already (`labels - 1`, `.tolist()` of a label array): the counter is a key
        if first.contains(" - ") || first.contains(" + ") || first.contains(".tolist()") || first.contains(".values") {
            continue;
        }
        let scope = c.scope.qualified();
        out.push(Finding {
            rule: "CS105",
            file: f.path.clone(),
            span: c.span,
            message: format!("class ids start at 1 ({}): the last class gets id n_classes", c.positional(0).map(|a| a.text.as_str()).unwrap_or("")),
            evidence: vec!["class ids must run from 0 to n_classes - 1".to_string()],
            fingerprint: fingerprint("CS105", f, &scope, &format!("enumerate({first},1)")),
            category: "label_out_of_range",
            lint: true,
        });
    }
}
