use crate::rank::rules::{fingerprint, rule, Finding};
use crate::scan::facts::Facts;

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

pub fn check(facts: &Facts, out: &mut Vec<Finding>) {
    let sigmoid = facts.calls().any(|(_, c)| matches!(c.name.as_str(), "sigmoid" | "Sigmoid" | "sigmoid_" | "softmax" | "Softmax"));
    if sigmoid {
        return;
    }
    for (f, c) in facts.calls().filter(|(_, c)| c.name == "BCELoss" || c.name == "binary_cross_entropy") {
        let scope = c.scope.qualified();
        out.push(Finding {
            rule: "CS106",
            file: f.path.clone(),
            span: c.span,
            message: format!("{} expects probabilities, and the project never applies a sigmoid: use BCEWithLogitsLoss on logits", c.func),
            evidence: vec!["no sigmoid/softmax call in the project".to_string()],
            fingerprint: fingerprint("CS106", f, &scope, &c.func),
            category: "probability_out_of_range",
        });
    }
}
