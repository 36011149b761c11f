use crate::rules::{fingerprint, rule, Ctx, Finding};
use crate::scan::facts::{Call, FileFacts};

rule!(
    MultinomialOnLogits,
    r#"## What it does
Finds `torch.multinomial` (or `.multinomial()`) sampling from logits: its input is named like
logits (`logits`, `next_token_logits`, `out.logits[:, -1]`) or was computed from them in the
same function (`probs = logits[:, -1, :] / temperature`) without a `softmax`, `exp` or
`sigmoid` on the way.

## Why is this bad?
`multinomial` takes non-negative weights. Logits are any real numbers: the first negative one
fails `probability tensor contains either inf, nan or element < 0` on the GPU (asynchronously:
the traceback points at a later line), or samples from the wrong distribution when all happen
to be positive.

## Example
```python
def sample(logits, temperature=1.0):
    probs = logits[:, -1, :] / temperature
    return torch.multinomial(probs, num_samples=1)
```

Use instead:
```python
def sample(logits, temperature=1.0):
    probs = torch.softmax(logits[:, -1, :] / temperature, dim=-1)
    return torch.multinomial(probs, num_samples=1)
```

## Known false positives
"Logits" that were made non-negative by a function this rule does not know (a custom
normalization): rename the variable or suppress the line."#
);

/// Makes weights non-negative (or is a probability already).
fn squashed(text: &str) -> bool {
    const SQUASH: &[&str] = &[
        "softmax",
        "exp",
        "sigmoid",
        "relu",
        "abs(",
        ".abs",
        "clamp",
        "clip",
        "square",
        "pow(",
        "**",
        "normalize",
        "probs(",
        ".probs",
        "softplus",
    ];
    SQUASH.iter().any(|s| text.contains(s))
}

fn logit_like(text: &str) -> bool {
    text.to_ascii_lowercase().contains("logit")
}

/// The name an expression is built on: `logits[:, -1, :] / t` → `logits`, `out.logits` → `out.logits`.
fn base_name(text: &str) -> &str {
    let t = text.trim();
    let end = t.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).unwrap_or(t.len());
    &t[..end]
}

/// The weights a multinomial call samples from: `torch.multinomial(w, n)`, `w.multinomial(n)`.
fn weights(c: &Call) -> Option<crate::scan::facts::Text> {
    if c.func == "multinomial" || c.func.ends_with("torch.multinomial") || c.func == "th.multinomial" {
        return c.kwarg("input").or_else(|| c.positional(0)).map(|a| a.text.clone());
    }
    c.func.strip_suffix(".multinomial").map(crate::scan::facts::Text::from)
}

/// Follows `text` back through assignments of its base name in the same function (nearest
/// first, up to 4 steps): Some(the logits expression) when logits reach the call unsquashed.
fn unsquashed_logits(f: &FileFacts, c: &Call, text: &str) -> Option<crate::scan::facts::Text> {
    let mut cur = crate::scan::facts::Text::from(text);
    let mut line = c.span.line;
    for _ in 0..4 {
        if squashed(&cur) {
            return None;
        }
        let name = base_name(&cur).to_string();
        if name.is_empty() {
            return None;
        }
        let prior = f.assigns.iter().filter(|a| a.scope == c.scope && a.target == name && a.span.line < line).max_by_key(|a| a.span.line);
        match prior {
            // `logits = logits.softmax(-1)` before the call
            Some(a) if a.op.is_none() => {
                if squashed(&a.value) {
                    return None;
                }
                if logit_like(&a.value) {
                    return Some(a.value.clone());
                }
                cur = a.value.clone();
                line = a.span.line;
            }
            Some(_) => return None,
            None => return logit_like(&cur).then_some(cur),
        }
    }
    None
}

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, f) in cx.files.sites_with(crate::analysis::project::MULTINOMIAL) {
        for c in f.calls.iter().filter(|c| c.name == "multinomial") {
            let Some(w) = weights(c) else { continue };
            let Some(logits) = unsquashed_logits(f, c, &w) else { continue };
            let scope = c.scope.qualified();
            let via = if logits == w { String::new() } else { format!(" (`{w}` is computed from `{logits}`)") };
            out.push(Finding {
                rule: "CS116",
                file: f.path.clone(),
                span: c.span,
                message: format!(
                    "`{}` samples from logits{via}: negative weights fail multinomial's `element < 0` check; apply softmax first",
                    c.func
                ),
                evidence: vec![format!("weights: `{w}`")],
                fingerprint: fingerprint("CS116", f, &scope, &w),
                category: "invalid_distribution",
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
    fn logits_reaching_multinomial() {
        assert_eq!(finding_lines(check, "import torch\ndef sample(logits):\n    return torch.multinomial(logits, 1)\n"), [3]);
        assert_eq!(finding_lines(check, "def sample(logits, temperature):\n    probs = logits[:, -1, :] / temperature\n    return torch.multinomial(probs, num_samples=1)\n"), [3]);
        assert_eq!(finding_lines(check, "def step(model, x):\n    out = model(x)\n    return out.logits[:, -1].multinomial(1)\n"), [3]);
    }

    #[test]
    fn probabilities_stay_quiet() {
        assert!(finding_lines(
            check,
            "def sample(logits, t):\n    probs = F.softmax(logits / t, dim=-1)\n    return torch.multinomial(probs, 1)\n"
        )
        .is_empty());
        assert!(finding_lines(check, "def sample(logits):\n    return torch.multinomial(logits.softmax(-1), 1)\n").is_empty());
        assert!(finding_lines(check, "def sample(logits):\n    logits = logits.softmax(-1)\n    return torch.multinomial(logits, 1)\n")
            .is_empty());
        assert!(finding_lines(check, "idx = torch.multinomial(weights, 3, replacement=True)\n").is_empty());
        assert!(finding_lines(check, "def draw(scores):\n    return torch.multinomial(scores.exp(), 1)\n").is_empty());
    }
}
