use crate::rules::{fingerprint, rule, Ctx, Finding};

rule!(
    BceOnLogits,
    r#"## What it does
Finds `nn.BCELoss` / `F.binary_cross_entropy` in a project that never applies a sigmoid.

## Why is this bad?
`BCELoss` expects probabilities in [0, 1]. Raw logits outside that range fail
`input_val >= zero && input_val <= one` on the GPU.

## Example
```python
criterion = nn.BCELoss()
loss = criterion(model(x), y)          # model ends in nn.Linear
```

Use instead:
```python
criterion = nn.BCEWithLogitsLoss()
```"#
);

fn names_bce(text: &str) -> bool {
    (text.contains("binary_cross_entropy") && !text.contains("with_logits")) || text.contains("BCELoss")
}

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    if files.any(crate::analysis::project::SIGMOID) {
        return;
    }
    let mut push = |f: &crate::scan::facts::FileFacts, span, scope: String, what: &str| {
        out.push(Finding {
            rule: "CS106",
            file: f.path.clone(),
            span,
            message: format!("{what} expects probabilities, and the project never applies a sigmoid: use BCEWithLogitsLoss on logits"),
            evidence: vec!["no sigmoid/softmax call in the project".to_string()],
            fingerprint: fingerprint("CS106", f, &scope, what),
            category: "probability_out_of_range",
            lint: true,
        });
    };
    for (_, f) in files.sites() {
        for c in f.calls.iter().filter(|c| c.name == "BCELoss" || c.name == "binary_cross_entropy") {
            push(f, c.span, c.scope.qualified(), &c.func);
        }
        // the loss passed around as a function: `return F.binary_cross_entropy`, `loss_fn = nn.BCELoss`
        for r in f.returns.iter().filter(|r| r.elements.len() == 1 && names_bce(&r.elements[0]) && !r.elements[0].contains('(')) {
            push(f, r.span, r.scope.qualified(), &r.elements[0]);
        }
        for a in f.assigns.iter().filter(|a| names_bce(&a.value) && !a.value.contains('(')) {
            push(f, a.span, a.scope.qualified(), &a.value);
        }
    }
}
