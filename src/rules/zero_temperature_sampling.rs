use crate::rules::{fingerprint, rule, Ctx, Finding};
use crate::scan::facts::{FileFacts, Scope, Span};

rule!(
    ZeroTemperatureSampling,
    r#"## What it does
Finds a sampling function that divides the logits by a temperature (`logits / temperature`)
before `softmax` → `torch.multinomial`, without a check for zero, when the project sets that
temperature to 0: a key of a JSON/YAML config the code reads (`"temperature": 0.0`), an
argparse default, a keyword argument at a call site, or the parameter's own default.

## Why is this bad?
Temperature 0 usually means "greedy", but `logits / 0` is `±inf` (and `0 / 0` is NaN);
`softmax` turns that into NaN probabilities, and `torch.multinomial` fails on the GPU with
`probability tensor contains either inf, nan or element < 0` (or the `_assert_async` of the
sampling kernel).

## Example
```json
{"temperature": 0.0}
```

```python
next_logits = logits[:, -1, :] / temperature
next_id = torch.multinomial(F.softmax(next_logits, dim=-1), num_samples=1)
```

Use instead:
```python
if temperature == 0:
    next_id = logits[:, -1, :].argmax(-1, keepdim=True)
else:
    next_id = torch.multinomial(F.softmax(logits[:, -1, :] / temperature, dim=-1), num_samples=1)
```

## Known false positives
A caller that never passes the zero temperature to the sampling function."#
);

fn is_zero(text: &str) -> bool {
    text.trim().parse::<f64>().is_ok_and(|v| v == 0.0)
}

/// `/ temperature`, `/ self.temperature`, `.div(temperature)` in a text: the divisor's last name.
fn divisors(text: &str) -> Vec<String> {
    if !text.contains("temp") {
        return Vec::new();
    }
    static RE: std::sync::OnceLock<crate::analysis::shared::Pattern> = std::sync::OnceLock::new();
    let re = RE
        .get_or_init(|| crate::analysis::shared::Pattern::new(r"(?:/\s*|\.div\(\s*|\.div_\(\s*)(?:[A-Za-z_]\w*\.)*([A-Za-z_]*temp\w*)\b"));
    re.captures_iter(text)
        .map(|c| c[1].to_string())
        .filter(|n| {
            let l = n.to_ascii_lowercase();
            l.contains("temperature") || l == "temp"
        })
        .collect()
}

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    use crate::analysis::project::MULTINOMIAL;
    let files = cx.files;
    // every sampler of the project: a finding lands where the temperature is set to zero,
    // which may be any file
    cx.origins("CS114", MULTINOMIAL, out, || Some(()), |_, fi, out| check_samplers(cx, files.file(fi), out));
}

/// The samplers of one file.
fn check_samplers(cx: &Ctx, f: &FileFacts, out: &mut Vec<Finding>) {
    use crate::analysis::project::{ADD_ARGUMENT, CONFIG};
    let files = cx.files;
    let samplers: Vec<&Scope> = f.calls.iter().filter(|c| c.name == "multinomial").map(|c| &c.scope).collect();
    let mut seen = std::collections::BTreeSet::new();
    for scope in samplers {
        let Some(function) = scope.function.as_deref() else { continue };
        let texts = f
            .assigns
            .iter()
            .filter(|a| a.scope == *scope)
            .map(|a| a.value.as_str())
            .chain(f.calls.iter().filter(|c| c.scope == *scope).flat_map(|c| c.args.iter().map(|a| a.text.as_str())));
        let names: std::collections::BTreeSet<String> = texts.flat_map(divisors).collect();
        for name in names {
            if !seen.insert((f.path.clone(), scope.qualified(), name.clone())) {
                continue;
            }
            // a check for zero (`if temperature == 0`, `max(temperature, 1e-5)`, `do_sample`)
            let guarded = f
                .conds
                .iter()
                .any(|k| k.scope == *scope && (k.text.contains(&name) || k.text.contains("do_sample") || k.text.contains("greedy")))
                || f.calls.iter().any(|c| {
                    c.scope == *scope
                        && matches!(c.name.as_str(), "max" | "clamp" | "clip" | "clamp_min")
                        && c.args.iter().any(|a| a.text.contains(&name))
                });
            if guarded {
                continue;
            }
            // where the temperature is set to zero
            let mut zero: Vec<(String, Span, String)> = Vec::new();
            let def = f.functions.iter().find(|d| d.name == function && d.class == scope.class);
            if let Some(d) = def {
                if let Some(i) = d.params.iter().position(|p| *p == name) {
                    if d.defaults.get(i).and_then(|x| x.as_deref()).is_some_and(is_zero) {
                        zero.push((f.path.clone(), d.span, format!("parameter default {name}=0")));
                    }
                }
            }
            let callers: Vec<_> = files
                .calling(function)
                .flat_map(|i| {
                    let cf = files.file(i);
                    cf.calls.iter().map(move |c| (cf, c))
                })
                .filter(|(_, c)| c.name == function)
                .collect();
            for (cf, c) in &callers {
                if let Some(a) = c.kwarg(&name).filter(|a| is_zero(&a.text)) {
                    zero.push((cf.path.clone(), c.span, format!("{}(…, {name}={})", c.func, a.text)));
                }
            }
            // configs the code reads: a `temperature` key (passed with `**cfg` or read by key)
            let passes_config = callers.iter().any(|(_, c)| {
                c.args.iter().any(|a| a.text.starts_with("**") || a.name.as_deref() == Some(name.as_str()) && a.text.contains('['))
            });
            for (_, cf) in files.with(CONFIG).filter(|(_, x)| x.is_config()) {
                for a in cf.assigns.iter().filter(|a| a.target.rsplit('.').next() == Some(name.as_str()) && is_zero(&a.value)) {
                    if passes_config || def.is_none() {
                        zero.push((cf.path.clone(), a.span, format!("{}: {}", a.target, a.value)));
                    }
                }
            }
            for (cf, c) in files.calls_with(ADD_ARGUMENT).filter(|(_, c)| c.name == "add_argument") {
                let flag = c
                    .args
                    .iter()
                    .filter(|a| a.name.is_none())
                    .any(|a| a.text.trim_matches(['"', '\'']).trim_start_matches('-').replace('-', "_") == name);
                if flag && c.kwarg("default").is_some_and(|d| is_zero(&d.text)) {
                    zero.push((cf.path.clone(), c.span, format!("--{name} default 0")));
                }
            }
            for (zf, span, how) in zero {
                let zfile = cx.file(&zf).unwrap_or(f);
                out.push(Finding {
                    rule: "CS114",
                    file: zf.clone(),
                    span,
                    message: format!("temperature 0 (`{how}`) divides the logits in {} before sampling: the probabilities become NaN and torch.multinomial fails", scope.qualified()),
                    evidence: vec![format!("{} divides by `{name}` and samples with torch.multinomial ({}), with no check for 0", scope.qualified(), f.path)],
                    fingerprint: fingerprint("CS114", zfile, &scope.qualified(), &format!("{name}=0")),
                    category: "invalid_distribution",
                    lint: true,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisions_by_a_temperature() {
        assert_eq!(divisors("logits[:, -1, :] / temperature"), ["temperature"]);
        assert_eq!(divisors("logits / self.temp"), ["temp"]);
        assert_eq!(divisors("logits.div(args.temperature)"), ["temperature"]);
        assert!(divisors("x / template_len").is_empty());
        assert!(divisors("a / b").is_empty());
    }
}
