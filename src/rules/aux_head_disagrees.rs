use crate::rules::{fingerprint, rule, Ctx, Finding};
use crate::scan::facts::Call;

rule!(
    AuxHeadDisagrees,
    r#"## What it does
Compares the classification heads of one model class: an auxiliary head (`aux_fc`,
`aux_classifier`, `head_aux`, ...) and the main head (`fc`, `classifier`, `head`) with literal
output sizes that differ (`nn.Linear(512, 10)` and `nn.Linear(256, 9)`).

## Why is this bad?
Both heads are trained against the same labels. When the class count was changed in one of
them only, the smaller head fails the loss with `t >= 0 && t < n_classes` on the GPU as soon as
a label reaches its size — often only in training, where the auxiliary loss runs.

## Example
```python
self.fc = nn.Linear(512, 10)
self.aux_fc = nn.Linear(256, 9)
```

Use instead:
```python
self.fc = nn.Linear(512, num_classes)
self.aux_fc = nn.Linear(256, num_classes)
```

## Known false positives
An auxiliary head that predicts something else (a coarser label set, a domain label): name it
for what it predicts (`domain_head`), or suppress the line."#
);

const MAIN: &[&str] = &["fc", "classifier", "head", "logits", "cls", "out"];

/// The head name without its `aux` marker: `self.aux_classifier` → `classifier`.
fn role(target: &str) -> (bool, String) {
    let base = target.rsplit('.').next().unwrap_or(target).to_ascii_lowercase();
    let aux = base.contains("aux");
    let stripped = base.replace("aux", "").trim_matches('_').to_string();
    (aux, stripped)
}

fn out_size(c: &Call) -> Option<i64> {
    c.kwarg("out_features").or_else(|| c.positional(1)).and_then(|a| a.int)
}

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, f) in cx.files.sites() {
        let linears: Vec<(&Call, bool, String, i64)> = f
            .calls
            .iter()
            .filter(|c| c.name == "Linear" && c.scope.class.is_some())
            .filter_map(|c| {
                let (aux, name) = role(c.assigned_to.as_deref()?);
                let n = out_size(c)?;
                MAIN.iter()
                    .any(|m| name == *m || name.ends_with(&format!("_{m}")) || name.starts_with(&format!("{m}_")))
                    .then_some((c, aux, name, n))
            })
            .collect();
        for (aux_call, _, aux_name, aux_n) in linears.iter().filter(|l| l.1) {
            // the main head of the same class with the same role (`aux_fc` ↔ `fc`)
            let Some((main_call, _, _, main_n)) =
                linears.iter().find(|m| !m.1 && m.0.scope.class == aux_call.scope.class && m.2 == *aux_name)
            else {
                continue;
            };
            if main_n == aux_n || *main_n < 2 || *aux_n < 2 {
                continue;
            }
            let (small, small_n, other, other_n) =
                if aux_n < main_n { (*aux_call, *aux_n, *main_call, *main_n) } else { (*main_call, *main_n, *aux_call, *aux_n) };
            let small_name = small.assigned_to.as_deref().unwrap_or("");
            let other_name = other.assigned_to.as_deref().unwrap_or("");
            out.push(Finding {
                rule: "CS117",
                file: f.path.clone(),
                span: small.span,
                message: format!("`{small_name}` has {small_n} outputs but `{other_name}` of the same model has {other_n}: labels {small_n}..{} fail the smaller head's loss", other_n - 1),
                evidence: vec![format!("`{other_name} = {}` at {}:{}", other.func, f.path, other.span.line)],
                fingerprint: fingerprint("CS117", f, &small.scope.qualified(), &format!("{small_name}:{small_n}!={other_n}")),
                category: "label_out_of_range",
                lint: true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::rules::finding_lines;

    #[test]
    fn heads_of_one_model_disagree() {
        let src = "import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(512, MAIN)\n        self.aux_fc = nn.Linear(256, AUX)\n";
        assert_eq!(finding_lines(check, &src.replace("MAIN", "10").replace("AUX", "9")), [6]);
        assert_eq!(finding_lines(check, &src.replace("MAIN", "9").replace("AUX", "10")), [5]);
        assert!(finding_lines(check, &src.replace("MAIN", "10").replace("AUX", "10")).is_empty());
        assert!(finding_lines(check, &src.replace("MAIN", "num_classes").replace("AUX", "9")).is_empty());
        // heads that predict different things are not compared
        let multi = "class Net(nn.Module):\n    def __init__(self):\n        self.age_head = nn.Linear(512, 8)\n        self.aux_domain = nn.Linear(512, 2)\n        self.classifier = nn.Linear(512, 10)\n";
        assert!(finding_lines(check, multi).is_empty());
    }
}
