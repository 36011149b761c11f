use crate::rank::rules::shared::{is_label_name, is_loss_with_classes};
use crate::rank::rules::{fingerprint, rule, Finding};
use crate::scan::facts::{Facts, FileFacts, Span};

rule!(
    SentinelLabelWithoutIgnoreIndex,
    r#"## What it does
Finds label values used as "ignore" sentinels in the data code — `255` (void pixels in
segmentation masks), `-1` (padding, unlabeled samples) — when no class-index loss in the
project is told to ignore that value with `ignore_index=`.

## Why is this bad?
`CrossEntropyLoss` ignores only `ignore_index` (default `-100`). Any other sentinel is treated
as a class id and fails `t >= 0 && t < n_classes` on the GPU.

## Example
```python
mask[mask == 0] = 255                  # void pixels
criterion = nn.CrossEntropyLoss()      # ignore_index is -100
```

Use instead:
```python
criterion = nn.CrossEntropyLoss(ignore_index=255)
```"#
);

const SENTINELS: &[i64] = &[255, -1];

fn sentinel_sites(f: &FileFacts) -> Vec<(i64, Span, String)> {
    let mut out = Vec::new();
    for a in &f.assigns {
        if let Some(v) = a.int.filter(|v| SENTINELS.contains(v)) {
            let base = a.target.split(['[', '.']).next().unwrap_or(&a.target);
            // `mask[mask == 0] = 255` marks some values; a plain `target = -1` is usually the
            // "no label" value of an unlabeled sample
            let some_values = a.target.contains('[');
            if some_values && (is_label_name(base) || is_label_name(&a.target)) {
                out.push((v, a.span, format!("{} = {}", a.target, a.value)));
            }
        }
    }
    for c in &f.calls {
        let owner = c.func.rsplit_once('.').map(|(o, _)| o).unwrap_or("");
        let filling = matches!(c.name.as_str(), "append" | "fill_" | "full" | "full_like" | "fill");
        if !filling {
            continue;
        }
        for a in &c.args {
            if let Some(v) = a.int.filter(|v| SENTINELS.contains(v)) {
                if is_label_name(owner) || c.assigned_to.as_deref().is_some_and(is_label_name) {
                    out.push((v, c.span, format!("{}({})", c.func, a.text)));
                }
            }
        }
    }
    out
}

pub fn check(facts: &Facts, out: &mut Vec<Finding>) {
    let losses: Vec<(&FileFacts, &crate::scan::facts::Call)> = facts.calls().filter(|(_, c)| is_loss_with_classes(c)).collect();
    if losses.is_empty() {
        return;
    }
    for f in &facts.files {
        for (v, span, how) in sentinel_sites(f) {
            let ignored = losses.iter().any(|(_, c)| c.kwarg("ignore_index").is_some_and(|a| a.int == Some(v) || !a.text.trim_start_matches('-').chars().all(|ch| ch.is_ascii_digit())));
            if ignored {
                continue;
            }
            let (lf, lc) = losses[0];
            let scope = facts.file(&f.path).and_then(|ff| ff.assigns.iter().find(|a| a.span == span).map(|a| a.scope.qualified())).unwrap_or_else(|| "<module>".into());
            out.push(Finding {
                rule: "CS103",
                file: f.path.clone(),
                span,
                message: format!("label value {v} is used as a sentinel, but the loss does not ignore it (ignore_index={v} missing)"),
                evidence: vec![format!("sentinel: `{how}`"), format!("loss without ignore_index={v}: {} at {}:{}", lc.func, lf.path, lc.span.line)],
                fingerprint: fingerprint("CS103", f, &scope, &format!("sentinel{v}")),
                category: "label_out_of_range",
                lint: true,
            });
        }
    }
}
