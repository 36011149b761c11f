use crate::analysis::project::{Files, DATASET, PIPELINE_ARG};
use crate::analysis::shared::{is_index_name, is_label_name, loss_target_positions};
use crate::rules::{fingerprint, rule, Ctx, Finding};
use crate::scan::facts::{Arg, Call, FileFacts, ReturnFact, Text};

rule!(
    LabelShiftInGetitem,
    r#"## What it does
Finds a Dataset's `__getitem__` (or a helper it calls) that adds to or subtracts from the label
or index it returns: `y = y + 1`, `label -= 1`, `target = target + offset`. The same shift in a
function the data passes through on its way to the loss is found too: a DataLoader's
`collate_fn`, a `target_transform` (a function or a `lambda y: y + 1`), and a function given to
`datasets`' `.map` (`example["label"] = example["label"] + 1`); a label column shifted in
place (`df["label"] = df["label"] + 1`, `df["label"] += 1`); and the 0-based output of an
encoder shifted (`labels = LabelEncoder().fit_transform(names) + 1`).

## Why is this bad?
A label shifted by +1 reaches `n_classes` for the last class, and one shifted by -1 becomes -1
for class 0. `CrossEntropyLoss` then fails with `t >= 0 && t < n_classes` on the GPU — often
only for the rare samples that take the shifting branch, hours into training.

## Example
```python
def __getitem__(self, idx):
    x, y = self.data[idx], self.labels[idx]
    if torch.rand(1) < 0.1:
        y = y + 1          # augmentation that changes the class
    return x, y
```

Use instead:
```python
def __getitem__(self, idx):
    x, y = self.data[idx], self.labels[idx]
    return x, y            # keep labels in 0..n_classes-1; augment x, not y
```"#
);

/// The functions of Dataset classes that produce a sample: `__getitem__` and the helpers it
/// calls by name (one level).
fn sample_functions(f: &FileFacts) -> Vec<(Text, Text)> {
    let mut out = Vec::new();
    for class in f.classes.iter().filter(|c| c.is_dataset()) {
        out.push((class.name.clone(), Text::from("__getitem__")));
        for call in &f.calls {
            if call.scope.class.as_deref() == Some(class.name.as_str()) && call.scope.function.as_deref() == Some("__getitem__") {
                let callee = call.func.trim_start_matches("self.");
                if class.methods.iter().any(|m| m == callee) {
                    out.push((class.name.clone(), Text::from(callee)));
                }
            }
        }
    }
    out
}

/// The return statements of `class.__getitem__`.
fn getitem_returns<'a>(f: &'a FileFacts, class: &'a str) -> impl Iterator<Item = &'a ReturnFact> + 'a {
    f.returns.iter().filter(move |r| r.scope.class.as_deref() == Some(class) && r.scope.function.as_deref() == Some("__getitem__"))
}

/// Dict values `__getitem__` returns under label-like keys (`{"labels": y}` → `y`).
fn returned_under_label_keys(f: &FileFacts, class: &str) -> Vec<Text> {
    getitem_returns(f, class).flat_map(|r| r.dict.iter().filter(|(k, _)| is_label_name(k)).map(|(_, v)| v.clone())).collect()
}

/// Names returned by `__getitem__` after the first element (the input), and dict values under
/// label-like keys.
fn returned_labels(f: &FileFacts, class: &str) -> Vec<Text> {
    let mut out: Vec<Text> = getitem_returns(f, class).flat_map(|r| r.elements.iter().skip(1).cloned()).collect();
    out.extend(returned_under_label_keys(f, class));
    out
}

/// Names `__getitem__` returns at tuple position `k`.
fn returned_at(f: &FileFacts, class: &str, k: usize) -> Vec<Text> {
    getitem_returns(f, class).filter_map(|r| r.elements.get(k).cloned()).collect()
}

/// `labels = [l - 1 for l in labels]`, `ds._labels = [y + 1 for y in ...]`: a whole label list
/// shifted at once, anywhere in the project.
fn comprehension_shift(value: &str) -> Option<(String, i64)> {
    // (the expression must open with `[` and hold a `for`: most values are not compared at all,
    // and a run that meets none does not compile the expression)
    if !(value.starts_with('[') && value.contains("for")) {
        return None;
    }
    static RE: std::sync::OnceLock<crate::analysis::shared::Pattern> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| crate::analysis::shared::Pattern::new(r"^\[\s*(\w+)\s*([+-])\s*(\d+)\s+for\s+(\w+)\s+in\b"));
    let c = re.captures(value)?;
    if c[1] != c[4] {
        return None;
    }
    let k: i64 = c[3].parse().ok()?;
    Some((c[1].to_string(), if &c[2] == "-" { -k } else { k }))
}

fn check_comprehensions(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, f) in cx.files.sites() {
        for a in &f.assigns {
            let base = a.target.rsplit('.').next().unwrap_or(&a.target);
            if !is_label_name(base) {
                continue;
            }
            let Some((var, k)) = comprehension_shift(&a.value) else { continue };
            if k == 0 {
                continue;
            }
            let sign = if k > 0 { format!("+{k}") } else { k.to_string() };
            let scope = a.scope.qualified();
            let mut evidence = vec![format!("every label in `{}` shifted by {sign}", a.target)];
            evidence.extend(cx.head_evidence());
            out.push(Finding {
                rule: "CS101",
                file: f.path.clone(),
                span: a.span,
                message: format!(
                    "labels `{}` shifted by {sign} (`{var} {} {}`): {}",
                    a.target,
                    if k > 0 { "+" } else { "-" },
                    k.abs(),
                    if k > 0 { "the last class reaches the number of classes" } else { "labels that were already 0-based become -1" }
                ),
                evidence,
                fingerprint: fingerprint("CS101", f, &scope, &format!("{}{sign}", a.target)),
                category: "label_out_of_range",
                lint: k > 0,
            });
        }
    }
}

/// `example["label"]` → `label`; a plain name stays as it is.
fn label_key(target: &str) -> &str {
    match (target.find('['), target.rfind(']')) {
        (Some(a), Some(b)) if b > a => target[a + 1..b].trim_matches(|c| c == '"' || c == '\'' || c == ' '),
        _ => target.rsplit('.').next().unwrap_or(target),
    }
}

/// The arguments of a call that pass a sample pipeline function, with its role:
/// `collate_fn=f`, `target_transform=f`, `ds.map(f)`, `ds.map(function=f)`.
pub fn pipeline_args(c: &Call) -> impl Iterator<Item = (&Arg, &'static str)> + '_ {
    c.args.iter().filter_map(move |a| {
        let role = match a.name.as_deref() {
            Some("collate_fn") => "collate_fn",
            Some("target_transform") => "target_transform",
            Some("function") if c.name == "map" => "map",
            None if c.name == "map" && c.func.contains('.') && std::ptr::eq(a, &c.args[0]) => "map",
            _ => return None,
        };
        Some((a, role))
    })
}

/// Functions the samples pass through outside `__getitem__`: (name, role).
fn pipeline_functions(files: &Files<'_>) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    let ident = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    for (_, f) in files.with(PIPELINE_ARG) {
        for c in &f.calls {
            for (a, role) in pipeline_args(c) {
                let name = a.text.rsplit('.').next().unwrap_or(&a.text).to_string();
                if ident(&a.text) && !out.iter().any(|(n, _)| *n == name) {
                    out.push((name, role));
                }
            }
        }
    }
    out
}

fn lambda_shift(text: &str) -> Option<i64> {
    if !text.trim().starts_with("lambda") {
        return None;
    }
    static RE: std::sync::OnceLock<crate::analysis::shared::Pattern> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| crate::analysis::shared::Pattern::new(r"^lambda\s+(\w+)\s*:\s*(\w+)\s*([+-])\s*(\d+)\s*$"));
    let c = re.captures(text.trim())?;
    if c[1] != c[2] {
        return None;
    }
    let k: i64 = c[4].parse().ok()?;
    Some(if &c[3] == "-" { -k } else { k })
}

fn check_pipeline(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    // target_transform=lambda y: y + 1
    for (_, f) in files.sites() {
        for c in &f.calls {
            let Some(a) = c.kwarg("target_transform") else { continue };
            let Some(k) = lambda_shift(&a.text).filter(|k| *k != 0) else { continue };
            let sign = if k > 0 { format!("+{k}") } else { k.to_string() };
            let mut evidence = vec![format!("`target_transform={}` in the `{}` call", a.text, c.func)];
            evidence.extend(cx.head_evidence());
            evidence.extend(cx.loss_evidence());
            let scope = c.scope.qualified();
            out.push(Finding {
                rule: "CS101",
                file: f.path.clone(),
                span: c.span,
                message: format!(
                    "target_transform shifts every label by {sign}: {}",
                    if k > 0 { "the last class reaches the number of classes" } else { "class 0 becomes -1" }
                ),
                evidence,
                fingerprint: fingerprint("CS101", f, &scope, &format!("target_transform{sign}")),
                category: "label_out_of_range",
                lint: k > 0,
            });
        }
    }
    // the pipeline functions of the project, found when a shifted label needs them
    let role_of = std::cell::OnceCell::new();
    let role_of =
        || -> &rustc_hash::FxHashMap<String, &'static str> { role_of.get_or_init(|| pipeline_functions(files).into_iter().collect()) };
    // a label column shifted in place: df["label"] = df["label"] + 1, df["label"] += 1
    for (_, f) in files.sites() {
        for a in &f.assigns {
            if a.shift.is_none() {
                continue;
            }
            let column = a.target.contains('[') && a.target.ends_with(']') && (a.target.contains('"') || a.target.contains('\''));
            if !column || a.scope.function.as_deref() == Some("__getitem__") || !is_label_name(label_key(&a.target)) {
                continue;
            }
            if a.scope.function.as_deref().is_some_and(|func| role_of().contains_key(func)) {
                continue;
            }
            let Some(k) = a.shift.filter(|k| *k != 0) else { continue };
            let sign = signed(k);
            let what = if k > 0 { "the last class reaches the number of classes" } else { "labels that were already 0-based become -1" };
            out.push(label_shift(
                cx,
                f,
                a,
                format!("label column `{}` shifted by {sign}: {what}", a.target),
                format!("label column `{}` shifted by {sign}", a.target),
            ));
        }
    }
    // encoder output shifted: y = LabelEncoder().fit_transform(names) + 1 (already 0..n-1)
    for (_, f) in files.sites() {
        for a in &f.assigns {
            if !is_label_name(label_key(&a.target)) {
                continue;
            }
            let Some(k) = encoder_shift(&a.value).filter(|k| *k != 0) else { continue };
            let sign = signed(k);
            let what = if k > 0 { "the last class reaches the number of classes" } else { "class 0 becomes -1" };
            let mut finding = label_shift(
                cx,
                f,
                a,
                format!("encoded labels `{}` shifted by {sign}: the encoder already gives 0..n-1, so {what}", a.target),
                format!("`{}`", a.value.trim()),
            );
            finding.fingerprint = fingerprint("CS101", f, &a.scope.qualified(), &format!("{}{sign}", a.target));
            finding.lint = k > 0;
            out.push(finding);
        }
    }
    // shifts inside collate_fn / target_transform / .map functions
    for (_, f) in files.sites() {
        for a in &f.assigns {
            let Some(func) = a.scope.function.as_deref() else { continue };
            let Some(k) = a.shift.filter(|k| *k != 0) else { continue };
            let label = is_label_name(label_key(&a.target));
            let first_param = f.functions.iter().any(|d| d.name == func && d.params.first().is_some_and(|p| *p == a.target));
            if !label && !first_param {
                continue;
            }
            let Some(role) = role_of().get(func) else { continue };
            // (a label column shifted in place was reported above)
            let counter = f.assigns.iter().any(|b| b.scope == a.scope && b.target == a.target && b.int.is_some());
            // in a target_transform the parameter is the label whatever its name
            let param_is_label = *role == "target_transform" && first_param;
            if counter || !(label || param_is_label) {
                continue;
            }
            let sign = signed(k);
            let reach = if k > 0 { "can reach the number of classes" } else { "can become negative" };
            out.push(label_shift(
                cx,
                f,
                a,
                format!("label `{}` shifted by {sign} in {role} `{func}` {reach}", a.target),
                format!("label `{}` shifted by {sign} in `{func}`, used as {role}", a.target),
            ));
        }
    }
}

/// `encoder.fit_transform(x) + 1`, `le.transform(x) - 1`, `pd.factorize(x)[0] + 1`: the shift.
fn encoder_shift(value: &str) -> Option<i64> {
    if !(value.contains("transform(") || value.contains("factorize(")) {
        return None;
    }
    static RE: std::sync::OnceLock<crate::analysis::shared::Pattern> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::analysis::shared::Pattern::new(
            r"^\s*[\w.()]*?(?:\.fit_transform|\.transform|factorize)\(.*\)(?:\[0\])?\s*([+-])\s*(\d+)\s*$",
        )
    });
    let c = re.captures(value)?;
    let k: i64 = c[2].parse().ok()?;
    Some(if &c[1] == "-" { -k } else { k })
}

fn signed(k: i64) -> String {
    if k > 0 {
        format!("+{k}")
    } else {
        k.to_string()
    }
}

/// A CS101 finding on a shifted label assignment, with the head and the loss as evidence.
fn label_shift(cx: &Ctx, f: &FileFacts, a: &crate::scan::facts::AssignFact, message: String, first: String) -> Finding {
    let k = a.shift.unwrap_or(0);
    let mut evidence = vec![first];
    evidence.extend(cx.head_evidence());
    evidence.extend(cx.loss_evidence());
    Finding {
        rule: "CS101",
        file: f.path.clone(),
        span: a.span,
        message,
        evidence,
        fingerprint: fingerprint("CS101", f, &a.scope.qualified(), &format!("{}{}", a.target, signed(k))),
        category: "label_out_of_range",
        lint: k > 0,
    }
}

/// This rule's prefilter: the files with a call passing a sample pipeline function (`analysis::project::PIPELINE_ARG`).
pub const MARK: crate::analysis::project::Mark =
    (crate::analysis::project::PIPELINE_ARG, |f| f.calls.iter().any(|c| pipeline_args(c).next().is_some()));

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    check_pipeline(cx, out);
    check_comprehensions(cx, out);
    // the batch position the training loop hands to the loss, when every loop agrees (found
    // when a shifted value in a Dataset needs it)
    let positions = std::cell::OnceCell::new();
    let target = || {
        let positions = positions.get_or_init(|| loss_target_positions(files));
        positions.first().filter(|p| positions.iter().all(|q| q.position == p.position))
    };
    for (_, f) in files.sites_with(DATASET) {
        for (class, function) in sample_functions(f) {
            // without a loop that says which position is the target: anything after the input
            let returned = returned_labels(f, &class);
            let dict_labels = returned_under_label_keys(f, &class);
            for a in &f.assigns {
                if a.scope.class.as_deref() != Some(class.as_str()) || a.scope.function.as_deref() != Some(function.as_str()) {
                    continue;
                }
                let Some(k) = a.shift.filter(|k| *k != 0) else { continue };
                // `target = 0` ... `target += 1` in a loop is a counter, not a label read from data
                let counter = f.assigns.iter().any(|b| b.scope == a.scope && b.target == a.target && b.int.is_some());
                if counter {
                    continue;
                }
                let target = target();
                let at_target = target.map(|t| returned_at(f, &class, t.position)).unwrap_or_default();
                let returned_as_label = match target {
                    Some(_) => at_target.contains(&a.target) || dict_labels.contains(&a.target),
                    None => returned.contains(&a.target),
                };
                let label = is_label_name(&a.target) || returned_as_label;
                let index = is_index_name(&a.target);
                if !label && !index {
                    continue;
                }
                let sign = if k > 0 { format!("+{k}") } else { k.to_string() };
                let reach = if k > 0 { "can reach the number of classes" } else { "can become negative" };
                let what = if label { "label" } else { "index" };
                let mut evidence = vec![format!("{what} `{}` shifted by {sign} in {class}.{function}", a.target)];
                match target {
                    Some(t) if at_target.contains(&a.target) => evidence.push(format!(
                        "returned at position {} of {class}.__getitem__, the position the training loop at {}:{} passes to the loss as `{}` ({}:{})",
                        t.position, t.file.path, t.loop_line, t.var, t.file.path, t.loss_line
                    )),
                    _ if returned.contains(&a.target) => evidence.push(format!("returned by {class}.__getitem__")),
                    _ => {}
                }
                if label {
                    evidence.extend(cx.head_evidence());
                    evidence.extend(cx.loss_evidence());
                }
                let scope = format!("{class}.{function}");
                out.push(Finding {
                    rule: "CS101",
                    file: f.path.clone(),
                    span: a.span,
                    message: format!("{what} `{}` shifted by {sign} in {scope} {reach}", a.target),
                    evidence,
                    fingerprint: fingerprint("CS101", f, &scope, &format!("{}{sign}", a.target)),
                    category: if label { "label_out_of_range" } else { "embedding_index_out_of_range" },
                    lint: k > 0,
                });
            }
        }
    }
}

#[cfg(test)]
mod pipeline_tests {
    use super::*;

    fn run(src: &str) -> Vec<Finding> {
        crate::rules::findings_in(check, src)
    }

    #[test]
    fn collate_target_transform_and_map_functions() {
        let collate = "import torch\nfrom torch.utils.data import DataLoader\n\ndef collate(batch):\n    images = torch.stack([b[0] for b in batch])\n    labels = torch.tensor([b[1] for b in batch])\n    labels = labels + 1\n    return images, labels\n\nloader = DataLoader(ds, batch_size=8, collate_fn=collate)\n";
        let f = run(collate);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].span.line, 7);
        assert!(f[0].message.contains("collate_fn `collate`"), "{}", f[0].message);

        let tt = "from torchvision import datasets\ntrain = datasets.ImageFolder('data', target_transform=lambda y: y + 1)\n";
        let f = run(tt);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].span.line, 2);

        let pandas = "import pandas as pd\ndf = pd.read_csv('labels.csv')\ndf[\"label\"] = df[\"label\"] + 1\ndf['target'] += 1\ndf['label'] = df['label'] - 1\n";
        let f = run(pandas);
        assert_eq!(f.iter().map(|x| (x.span.line, x.lint)).collect::<Vec<_>>(), vec![(3, true), (4, true), (5, false)], "{f:?}");

        let enc = "from sklearn.preprocessing import LabelEncoder\nle = LabelEncoder()\nlabels = le.fit_transform(df['species']) + 1\ncodes = pd.factorize(df['c'])[0] + 1\nok_labels = le.fit_transform(df['species'])\n";
        let f = run(enc);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].span.line, 3);
        assert!(f[0].message.contains("encoder already gives 0..n-1"), "{}", f[0].message);

        let mapped = "def shift(example):\n    example[\"label\"] = example[\"label\"] + 1\n    return example\n\nds = ds.map(shift)\n";
        let f = run(mapped);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].span.line, 2);
        assert!(f[0].message.contains("map `shift`"), "{}", f[0].message);
    }

    #[test]
    fn legitimate_pipelines_stay_quiet() {
        let ok = "def to_id(example):\n    example[\"label\"] = label2id[example[\"label\"]]\n    return example\n\nds = ds.map(to_id)\ntrain = datasets.ImageFolder('d', target_transform=lambda y: (y + 1) % 10)\n\ndef collate(batch):\n    count = 0\n    count = count + 1\n    return batch\n\nloader = DataLoader(ds, collate_fn=collate)\n";
        assert!(run(ok).is_empty(), "{:?}", run(ok));
        // a function of the same name that no pipeline uses is not a pipeline step
        let unrelated = "def collate(batch):\n    labels = labels + 1\n    return labels\n";
        assert!(run(unrelated).is_empty());
    }

    #[test]
    fn the_training_loop_says_which_returned_value_is_the_target() {
        // `tok` is not a label name: the loop `for ids, pos, tok in loader` hands position 2
        // to the loss, so the shift of `tok` in __getitem__ is the label shift
        let src = "import torch\nimport torch.nn as nn\nfrom torch.utils.data import Dataset, DataLoader\n\nclass Pairs(Dataset):\n    def __getitem__(self, i):\n        ids, pos, tok = self.rows[i]\n        pos = pos + 1\n        tok = tok + 1\n        return ids, pos, tok\n\ncriterion = nn.CrossEntropyLoss()\nfor epoch in range(3):\n    for ids, pos, tok in DataLoader(Pairs()):\n        loss = criterion(model(ids, pos), tok.cuda())\n";
        let f = run(src);
        assert_eq!(f.iter().map(|x| x.span.line).collect::<Vec<_>>(), vec![9], "{f:?}");
        assert!(f[0].evidence.iter().any(|e| e.contains("position 2") && e.contains("as `tok`")), "{:?}", f[0].evidence);

        // the same Dataset without a loop: anything returned after the input may be the label
        let no_loop = src.split("criterion =").next().unwrap();
        assert_eq!(run(no_loop).iter().map(|x| x.span.line).collect::<Vec<_>>(), vec![8, 9]);

        // `for i, (x, y) in enumerate(loader)` and `x, y = batch`
        for lp in [
            "for i, (a, b, tok) in enumerate(loader):\n        loss = F.cross_entropy(out, target=tok)\n",
            "for batch in loader:\n        a, b, tok = batch\n        loss = criterion(out, tok)\n",
        ] {
            let src = format!("{}criterion = nn.CrossEntropyLoss()\nif True:\n    {lp}", no_loop);
            let f = run(&src);
            assert_eq!(f.iter().map(|x| x.span.line).collect::<Vec<_>>(), vec![9], "{lp}: {f:?}");
        }
    }
}
