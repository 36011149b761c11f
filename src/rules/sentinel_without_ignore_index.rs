use crate::analysis::shared::{is_label_name, is_loss_with_classes, is_sentinel_name};
use crate::analysis::values::Origin;
use crate::rules::{fingerprint, rule, Ctx, Finding};
use crate::scan::facts::{FileFacts, Scope, Span};

rule!(
    SentinelLabelWithoutIgnoreIndex,
    r#"## What it does
Finds label values used as "ignore" sentinels in the data code — `255` (void pixels in
segmentation masks), `-1` (padding, unlabeled samples), or any value written through a name
such as `self.ignore_index`, `IGNORE_LABEL` or `void_label` (followed back to its literal, e.g.
`self.ignore_index = 250`) — when no class-index loss in the project is told to ignore that
value with `ignore_index=`.

## Why is this bad?
`CrossEntropyLoss` ignores only `ignore_index` (default `-100`). Any other sentinel is treated
as a class id and fails `t >= 0 && t < n_classes` on the GPU.

## Example
```python
mask[mask == 0] = 255                  # void pixels
criterion = nn.CrossEntropyLoss()      # ignore_index is -100
```

```python
self.ignore_index = 250
...
mask[mask == void_class] = self.ignore_index
loss = F.cross_entropy(input, target)  # ignores -100 only
```

Use instead:
```python
criterion = nn.CrossEntropyLoss(ignore_index=255)
```

A sentinel of `-100` needs nothing: it is the losses' default `ignore_index`."#
);

const SENTINELS: &[i64] = &[255, -1];

/// The sentinel a value stands for: a literal 255 / -1, or a value named like one
/// (`self.ignore_index`, `IGNORE_LABEL`, `void_label`) followed back to its literal.
fn sentinel_value(cx: &Ctx, fi: usize, scope: &Scope, text: &str, int: Option<i64>, at: Span) -> Option<(i64, Option<Origin>)> {
    if let Some(v) = int {
        return SENTINELS.contains(&v).then_some((v, None));
    }
    if !is_sentinel_name(text) || text.contains('(') {
        return None;
    }
    let o = cx.values().int(fi, scope, text, at)?;
    Some((o.value, Some(o)))
}

fn sentinel_sites(cx: &Ctx, fi: usize) -> Vec<(i64, Span, String, Scope, Option<Origin>)> {
    let f = cx.files.file(fi);
    let mut out = Vec::new();
    for a in &f.assigns {
        let base = a.target.split(['[', '.']).next().unwrap_or(&a.target);
        // `mask[mask == 0] = 255` marks some values; a plain `target = -1` is usually the
        // "no label" value of an unlabeled sample
        let some_values = a.target.contains('[');
        if !(some_values && (is_label_name(base) || is_label_name(&a.target))) || a.op.is_some() {
            continue;
        }
        if let Some((v, o)) = sentinel_value(cx, fi, &a.scope, &a.value, a.int, a.span) {
            out.push((v, a.span, format!("{} = {}", a.target, a.value), a.scope.clone(), o));
        }
    }
    for c in &f.calls {
        let owner = c.func.rsplit_once('.').map(|(o, _)| o).unwrap_or("");
        let filling = matches!(c.name.as_str(), "append" | "fill_" | "full" | "full_like" | "fill");
        if !filling || !(is_label_name(owner) || c.assigned_to.as_deref().is_some_and(is_label_name)) {
            continue;
        }
        for a in &c.args {
            if let Some((v, o)) = sentinel_value(cx, fi, &c.scope, &a.text, a.int, c.span) {
                out.push((v, c.span, format!("{}({})", c.func, a.text), c.scope.clone(), o));
            }
        }
    }
    out
}

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    if !files.any(crate::analysis::project::LOSS) {
        return;
    }
    // the project's loss calls, found when a sentinel needs them
    let losses = std::cell::OnceCell::new();
    let losses = || -> &Vec<(&FileFacts, &crate::scan::facts::Call)> {
        losses.get_or_init(|| files.calls_with(crate::analysis::project::LOSS).filter(|(_, c)| is_loss_with_classes(c)).collect())
    };
    for (fi, f) in files.sites() {
        for (v, span, how, scope, origin) in sentinel_sites(cx, fi) {
            let losses = losses();
            // a loss told to ignore it (a non-literal ignore_index is taken to match), or -100,
            // which a loss without ignore_index ignores
            let ignored = losses.iter().any(|(_, c)| match c.kwarg("ignore_index") {
                Some(a) => a.int == Some(v) || !a.text.trim_start_matches('-').chars().all(|ch| ch.is_ascii_digit()),
                None => v == -100,
            });
            if ignored || (0..255).contains(&v) && origin.is_none() {
                continue;
            }
            let (lf, lc) = losses[0];
            let mut evidence = vec![format!("sentinel: `{how}`")];
            if let Some(o) = &origin {
                evidence.push(format!("value: `{}` at {}:{}", o.how, o.file, o.span.line));
            }
            evidence.push(format!("loss without ignore_index={v}: {} at {}:{}", lc.func, lf.path, lc.span.line));
            out.push(Finding {
                rule: "CS103",
                file: f.path.clone(),
                span,
                message: format!("label value {v} is used as a sentinel, but the loss does not ignore it (ignore_index={v} missing)"),
                evidence,
                fingerprint: fingerprint("CS103", f, &scope.qualified(), &format!("sentinel{v}")),
                category: "label_out_of_range",
                lint: true,
            });
        }
    }
}
