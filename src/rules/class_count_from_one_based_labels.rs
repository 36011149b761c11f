use crate::analysis::project::{Files, COLUMNS};
use crate::analysis::shared::{is_count_name, is_label_name};
use crate::rules::{fingerprint, rule, Ctx, Finding};
use crate::scan::facts::{ColumnFact, FileFacts, Span};

rule!(
    ClassCountFromOneBasedLabels,
    r#"## What it does
Finds a class count taken as the number of distinct labels — `num_classes = len(set(labels))`,
`len(np.unique(y))`, `df["label"].nunique()` — where the labels come from a column of a CSV/TSV
file the code reads by a literal path, and that column's values are not `0..K-1`: grades
`1..4`, ratings `1..5`, class ids with gaps.

## Why is this bad?
`K` distinct labels make a head with `K` outputs, which accepts the ids `0..K-1`. Labels
numbered from 1 reach `K` for the last class, and `cross_entropy` fails with
`t >= 0 && t < n_classes` on the GPU.

## Example
```python
for row in csv.DictReader(open("flowers.csv")):
    labels.append(int(row["grade"]))           # grades 1..4
num_classes = len(set(labels))                 # 4
```

Use instead:
```python
    labels.append(int(row["grade"]) - 1)       # 0..3
```

## Known false positives
Labels remapped to `0..K-1` in another file before they reach the loss. A shift or a label map
in the same file (`- 1`, `LabelEncoder`, `.map(...)`, `.index(...)`, `factorize`) keeps the rule
quiet."#
);

/// `len(set(x))`, `len(np.unique(x))`, `len(torch.unique(x))`, `len(x.unique())`,
/// `x.nunique()` → `x`.
fn distinct_count_of(value: &str) -> Option<&str> {
    let v = value.trim();
    if let Some(x) = v.strip_suffix(".nunique()") {
        return Some(x.trim());
    }
    let inner = v.strip_prefix("len(")?.strip_suffix(')')?.trim();
    for f in ["set(", "np.unique(", "numpy.unique(", "torch.unique(", "sorted(set("] {
        if let Some(mut x) = inner.strip_prefix(f) {
            for _ in 0..f.matches('(').count() {
                x = x.trim_end().strip_suffix(')')?;
            }
            let x = x.trim();
            return Some(x.strip_suffix(".tolist()").unwrap_or(x));
        }
    }
    inner.strip_suffix(".unique()").map(str::trim)
}

/// The string key of a subscript (`row['grade']`, `df["label"]`) or attribute of a frame (`df.label`).
fn column_key(text: &str) -> Option<String> {
    if !(text.contains('[') && (text.contains('"') || text.contains('\''))) {
        return None;
    }
    static RE: std::sync::OnceLock<crate::analysis::shared::Pattern> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| crate::analysis::shared::Pattern::new(r#"\[\s*["']([^"']+)["']\s*\]"#));
    re.captures(text).map(|c| c[1].to_string())
}

/// The CSV/TSV files this Python file names by a literal path.
fn csv_columns<'a>(files: &Files<'a>, f: &FileFacts) -> Vec<(&'a FileFacts, &'a ColumnFact)> {
    let dir = f.path.rsplit_once('/').map(|(d, _)| d);
    let mut out = Vec::new();
    for p in crate::scan::data::referenced_paths(f) {
        let p = p.strip_prefix("./").unwrap_or(&p).to_string();
        let in_dir = dir.map(|d| format!("{d}/{p}"));
        for (_, d) in files.with(COLUMNS).filter(|(_, d)| !d.columns.is_empty() && (d.path == p || Some(&d.path) == in_dir.as_ref())) {
            out.extend(d.columns.iter().filter(|c| !c.text).map(|c| (d, c)));
        }
    }
    out
}

/// `x - 1`, `int(row['y']) - 1` (a binary minus one, not `view(-1)`).
fn minus_one(t: &str) -> bool {
    if !(t.contains('-') && t.contains('1')) {
        return false;
    }
    static RE: std::sync::OnceLock<crate::analysis::shared::Pattern> = std::sync::OnceLock::new();
    RE.get_or_init(|| crate::analysis::shared::Pattern::new(r"[\w)\]]\s*-\s*1\b")).is_match(t)
}

/// A remap of labels in the file: `- 1` on a label, a label encoder, a `.map`/`.index` lookup.
fn remapped(f: &FileFacts, var: &str) -> bool {
    let mentions = |t: &str| t.contains(var) || is_label_name(t.split(['[', '.', '(']).next().unwrap_or(t));
    f.assigns.iter().any(|a| (a.shift.is_some_and(|k| k < 0) && mentions(&a.target)) || mentions(&a.value) && minus_one(&a.value))
        || f.calls.iter().any(|c| {
            matches!(c.name.as_str(), "LabelEncoder" | "factorize" | "fit_transform" | "map" | "index" | "replace" | "searchsorted")
                && (c.func.contains(var) || c.args.iter().any(|a| a.text.contains(var)) || c.name == "LabelEncoder")
        })
}

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    if !files.any(COLUMNS) {
        return;
    }
    for (_, f) in files.sites().filter(|(_, f)| f.path.ends_with(".py") || f.path.ends_with(".ipynb")) {
        let columns = csv_columns(files, f);
        if columns.is_empty() {
            continue;
        }
        for a in f.assigns.iter().filter(|a| a.op.is_none() && is_count_name(&a.target)) {
            let Some(var) = distinct_count_of(&a.value) else { continue };
            // where the labels get their values: `labels.append(int(row['grade']))`, `y = df['grade'].values`
            let mut site: Option<(Span, String, String)> = None;
            let key = column_key(var).or_else(|| {
                let base = var.split(['[', '.']).next().unwrap_or(var);
                let appended = f.calls.iter().find(|c| c.name == "append" && c.func.strip_suffix(".append") == Some(base)).and_then(|c| {
                    let arg = c.positional(0)?;
                    Some((c.span, format!("{}({})", c.func, arg.text), arg.text.clone(), c.scope.qualified()))
                });
                let assigned = || {
                    f.assigns
                        .iter()
                        .rfind(|b| b.target == base && b.span.line <= a.span.line && !b.value.trim_start().starts_with('['))
                        .map(|b| (b.span, format!("{} = {}", b.target, b.value), b.value.clone(), b.scope.qualified()))
                };
                let (span, how, text, scope) = appended.or_else(assigned)?;
                if minus_one(&text) {
                    return None;
                }
                let k = column_key(&text)?;
                site = Some((span, how, scope));
                Some(k)
            });
            let Some(key) = key else { continue };
            let Some((data, col)) = columns.iter().find(|(_, c)| c.name == key) else { continue };
            if col.max < col.distinct as i64 || col.min < 0 {
                continue;
            }
            let base = var.split(['[', '.']).next().unwrap_or(var);
            if remapped(f, base) {
                continue;
            }
            let (span, scope) = site.as_ref().map(|(s, _, sc)| (*s, sc.clone())).unwrap_or((a.span, a.scope.qualified()));
            let mut evidence = vec![
                format!("class count: `{} = {}` at {}:{} gives {}", a.target, a.value, f.path, a.span.line, col.distinct),
                format!(
                    "{}: column `{}` holds {}..{} ({} distinct values in {} rows read)",
                    data.path, col.name, col.min, col.max, col.distinct, col.rows
                ),
            ];
            if let Some((_, how, _)) = &site {
                evidence.insert(0, format!("labels: `{how}`"));
            }
            out.push(Finding {
                rule: "CS111",
                file: f.path.clone(),
                span,
                message: format!(
                    "labels from column `{}` of {} run {}..{}, but `{}` counts {} classes (ids 0..{}): subtract {} or map the labels to 0..{}",
                    col.name,
                    data.path,
                    col.min,
                    col.max,
                    a.target,
                    col.distinct,
                    col.distinct - 1,
                    col.min,
                    col.distinct - 1
                ),
                evidence,
                fingerprint: fingerprint("CS111", f, &scope, &format!("{}:{}", data.path, col.name)),
                category: "label_out_of_range",
                lint: true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_counts() {
        assert_eq!(distinct_count_of("len(set(labels))"), Some("labels"));
        assert_eq!(distinct_count_of("len(np.unique(y))"), Some("y"));
        assert_eq!(distinct_count_of("df['label'].nunique()"), Some("df['label']"));
        assert_eq!(distinct_count_of("len(set(labels.tolist()))"), Some("labels"));
        assert_eq!(distinct_count_of("len(labels)"), None);
    }
}
