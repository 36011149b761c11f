use crate::rules::{fingerprint, rule, Ctx, Finding};

rule!(
    OneHotNarrowerThanHead,
    r#"## What it does
Finds a one-hot encoding of labels sized smaller than the model's classification head:
`F.one_hot(y, num_classes=K)` or `torch.zeros(n, K).scatter_(1, y, 1)` with `K` (a literal, a
constant, a config value or a default followed back to where it was set) below the head's
`out_features`, in the same module or one it imports or is imported by.

## Why is this bad?
The head says there are `C` classes, so labels go up to `C - 1`; a one-hot of width `K < C`
fails for every label `>= K`: on the GPU `one_hot` and `scatter` assert
`index out of bounds` (`idx_dim >= 0 && idx_dim < index_size`), on the CPU they raise
`Class values must be smaller than num_classes` or an index error.

## Example
```python
NUM_CLASSES = 10
head = nn.Linear(512, NUM_CLASSES)
...
targets = F.one_hot(labels, num_classes=9)   # one short
```

Use instead:
```python
targets = F.one_hot(labels, num_classes=NUM_CLASSES)
```

## Known false positives
A one-hot of a different label set than the head's (a multi-task model whose second task has
fewer classes) when both live in one module."#
);

/// The width argument of a one-hot encoding: `one_hot(y, K)` / `one_hot(y, num_classes=K)`;
/// `zeros(n, K).scatter_(1, y, 1)`.
pub fn width_text(c: &crate::scan::facts::Call) -> Option<String> {
    match c.name.as_str() {
        "one_hot" => c.kwarg("num_classes").or_else(|| c.positional(1)).map(|a| a.text.to_string()),
        "scatter_" | "scatter" if c.func.contains("zeros(") => {
            let inner = c.func.split("zeros(").nth(1).and_then(|r| r.rsplit_once(')')).map(|(a, _)| a.to_string());
            inner.and_then(|a| a.rsplit(',').next().map(|s| s.trim().to_string()))
        }
        _ => None,
    }
}

type SizedHead<'a> = (&'a crate::scan::facts::FileFacts, &'a crate::scan::facts::Call, i64);

/// This rule's prefilter: the files with a one-hot width (`analysis::project::ONE_HOT`).
pub const MARK: crate::analysis::project::Mark = (crate::analysis::project::ONE_HOT, |f| f.calls.iter().any(|c| width_text(c).is_some()));

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    use crate::analysis::project::{HEAD_CALL, ONE_HOT};
    use crate::analysis::record;
    let files = cx.files;
    let values = cx.values();
    // the heads of a file with their size followed back to a number (`nn.Linear(512, NUM_CLASSES)`),
    // and what finding them read
    let sized = std::cell::RefCell::new(rustc_hash::FxHashMap::<usize, (Vec<SizedHead>, Vec<record::Read>)>::default());
    let heads_of = |gi: usize| -> Vec<SizedHead> {
        let known = sized.borrow().get(&gi).cloned();
        let (heads, reads) = known.unwrap_or_else(|| {
            let computed = record::capture(|| {
                let hf = files.file(gi);
                crate::analysis::shared::head_calls_in(hf)
                    .into_iter()
                    .filter_map(|(call, arg)| {
                        Some((hf, call, arg.int.or_else(|| values.int(gi, &call.scope, &arg.text, call.span).map(|o| o.value))?))
                    })
                    .collect::<Vec<SizedHead>>()
            });
            sized.borrow_mut().insert(gi, computed.clone());
            computed
        });
        record::replay(&reads);
        heads
    };
    // every one-hot of the project: a finding lands where its width is set, which may be any file
    cx.origins(
        "CS115",
        ONE_HOT,
        out,
        || Some(()),
        |_, fi, out| {
            let f = files.file(fi);
            for c in &f.calls {
                let Some(width) = width_text(c).filter(|w| !w.is_empty() && w != "-1") else { continue };
                let Some(k) = values.int(fi, &c.scope, &width, c.span) else { continue };
                if k.value < 1 {
                    continue;
                }
                // heads in this file, or in one it imports or is imported by
                let hs: Vec<SizedHead> = files
                    .indices_with(HEAD_CALL)
                    .filter(|&gi| gi == fi || values.imports(fi, gi) || values.imports(gi, fi))
                    .flat_map(&heads_of)
                    .collect();
                let Some(&(hfile, hcall, hout)) = hs.iter().filter(|h| h.2 > k.value).max_by_key(|h| h.2) else { continue };
                let head = format!("{}(…, {}) at {}:{}", hcall.func, hout, hfile.path, hcall.span.line);
                let at_call = k.file == f.path && k.span == c.span;
                let message = if at_call {
                    format!(
                        "one-hot width {} is smaller than the head's {} classes: labels {}..{} do not fit",
                        k.value,
                        hout,
                        k.value,
                        hout - 1
                    )
                } else {
                    format!(
                        "`{}` makes the one-hot width {} at {}:{}, smaller than the head's {} classes",
                        k.how, k.value, f.path, c.span.line, hout
                    )
                };
                let fp_file = cx.file(&k.file).unwrap_or(f);
                out.push(Finding {
                    rule: "CS115",
                    file: k.file.clone(),
                    span: k.span,
                    message,
                    evidence: vec![format!("head: {head}"), format!("one-hot: `{}` at {}:{}", c.func, f.path, c.span.line)],
                    fingerprint: fingerprint("CS115", fp_file, &c.scope.qualified(), &format!("{}<{}", k.value, hout)),
                    category: "label_out_of_range",
                    lint: true,
                });
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> Vec<Finding> {
        crate::rules::findings_in(check, src)
    }

    #[test]
    fn narrow_one_hot_and_scatter() {
        let src = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nNUM_CLASSES = 10\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(512, NUM_CLASSES)\n\ndef targets(y):\n    return F.one_hot(y, num_classes=9)\n\ndef soft(y):\n    return torch.zeros(len(y), 8).scatter_(1, y.unsqueeze(1), 1)\n";
        let f = run(src);
        assert_eq!(f.iter().map(|x| x.span.line).collect::<Vec<_>>(), vec![11, 14], "{f:?}");
        assert!(f[0].message.contains("smaller than the head's 10 classes"), "{}", f[0].message);
    }

    #[test]
    fn matching_widths_stay_quiet() {
        let src = "import torch.nn as nn\nimport torch.nn.functional as F\nNUM_CLASSES = 10\nfc = nn.Linear(512, NUM_CLASSES)\nt = F.one_hot(y, num_classes=NUM_CLASSES)\nu = F.one_hot(y)\nv = F.one_hot(y, 12)\n";
        assert!(run(src).is_empty(), "{:?}", run(src));
    }
}
