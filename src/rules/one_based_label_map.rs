use crate::rules::{fingerprint, rule, Ctx, Finding};

rule!(
    OneBasedLabelMap,
    r#"## What it does
Finds class ids numbered from 1 when building a label map: `enumerate(class_names, 1)`,
`enumerate(labels, start=1)`, `{c: i + 1 for i, c in enumerate(classes)}`,
`dict(zip(classes, range(1, len(classes) + 1)))`. A map whose collection is also counted with
one extra class (`num_classes = len(classes) + 1`: 0 is a background class) is left alone, and
so is a loop over `enumerate(names, 1)` that keeps no counter (it writes a numbered list, such
as a `classInd.txt`, and builds no map).

## Why is this bad?
Class ids must run from 0 to `n_classes - 1`. Numbered from 1, the last class gets id
`n_classes`, which fails `t >= 0 && t < n_classes` on the GPU (and class 0 is never used).

## Example
```python
label2id = {name: i for i, name in enumerate(class_names, start=1)}
```

Use instead:
```python
label2id = {name: i for i, name in enumerate(class_names)}
```"#
);

const CLASS_WORDS: &[&str] = &["class", "label", "categor", "names", "tags", "species"];

/// `{c: i + 1 for i, c in enumerate(X)}` → (X, 1); `dict(zip(X, range(1, ...)))` → (X, 1).
fn shifted_map(value: &str) -> Option<(String, i64)> {
    let v = value.trim();
    // (necessary for either expression to match: most values are not compared at all)
    if !(v.starts_with('{') && v.contains("enumerate(") || v.starts_with("dict(") && v.contains("zip(")) {
        return None;
    }
    static RE: std::sync::OnceLock<[crate::analysis::shared::Pattern; 2]> = std::sync::OnceLock::new();
    let [comp, zip] = RE.get_or_init(|| {
        [
            crate::analysis::shared::Pattern::new(
                r"^\{\s*(\w+)\s*:\s*(\w+)\s*\+\s*(\d+)\s+for\s+(\w+)\s*,\s*(\w+)\s+in\s+enumerate\((.+)\)\s*\}$",
            ),
            crate::analysis::shared::Pattern::new(r"^dict\(\s*zip\(\s*([^,]+?)\s*,\s*range\(\s*(\d+)\s*,"),
        ]
    });
    if let Some(c) = comp.captures(value.trim()) {
        let k: i64 = c[3].parse().ok()?;
        return (c[1] == c[5] && c[2] == c[4] && k > 0).then(|| (c[6].trim().to_string(), k));
    }
    let c = zip.captures(value.trim())?;
    let k: i64 = c[2].parse().ok()?;
    (k > 0).then(|| (c[1].to_string(), k))
}

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    // `len(classes) + 1` anywhere: the project counts a background class 0 on purpose
    // (other than in the map itself: `range(1, len(classes) + 1)`)
    let counted_with_background = |collection: &str, file: &str, map: &crate::scan::facts::AssignFact| {
        let want = format!("len({})+1", collection.replace(' ', ""));
        let inside_map = |g: &str, s: &crate::scan::facts::Span| g == file && s.line >= map.span.line && s.end_line <= map.span.end_line;
        files.all().any(|(_, g)| g.assigns.iter().any(|a| !inside_map(&g.path, &a.span) && a.value.replace(' ', "").contains(&want)))
            || files.all().any(|(_, g)| {
                g.calls.iter().any(|c| !inside_map(&g.path, &c.span) && c.args.iter().any(|a| a.text.replace(' ', "").contains(&want)))
            })
    };
    for (f, a) in files.sites().flat_map(|(_, f)| f.assigns.iter().map(move |a| (f, a))) {
        let Some((collection, k)) = shifted_map(&a.value) else { continue };
        let lower = collection.to_ascii_lowercase();
        if !CLASS_WORDS.iter().any(|w| lower.contains(w)) || counted_with_background(&collection, &f.path, a) {
            continue;
        }
        let scope = a.scope.qualified();
        out.push(Finding {
            rule: "CS105",
            file: f.path.clone(),
            span: a.span,
            message: format!("`{}` numbers the classes of `{collection}` from {k}: the last class gets id n_classes", a.target),
            evidence: vec!["class ids must run from 0 to n_classes - 1".to_string()],
            fingerprint: fingerprint("CS105", f, &scope, &format!("{}:{collection}+{k}", a.target)),
            category: "label_out_of_range",
            lint: true,
        });
    }
    for (f, c) in files.sites().flat_map(|(_, f)| f.calls.iter().map(move |c| (f, c))).filter(|(_, c)| c.func == "enumerate") {
        let start = c.kwarg("start").or_else(|| c.positional(1)).and_then(|a| a.int);
        if start != Some(1) {
            continue;
        }
        let first = c.positional(0).map(|a| a.text.to_ascii_lowercase()).unwrap_or_default();
        if !CLASS_WORDS.iter().any(|w| first.contains(w)) {
            continue;
        }
        // numbers already (`labels - 1`, `.tolist()` of a label array): the counter is a key
        if first.contains(" - ") || first.contains(" + ") || first.contains(".tolist()") || first.contains(".values") {
            continue;
        }
        // a loop that only writes the numbers out (`f.write(f"{i} {name}")`, a classInd file a
        // reader maps back): no id is kept
        if loop_keeps_no_counter(f, c.span.line) {
            continue;
        }
        let scope = c.scope.qualified();
        out.push(Finding {
            rule: "CS105",
            file: f.path.clone(),
            span: c.span,
            message: format!(
                "class ids start at 1 ({}): the last class gets id n_classes",
                c.positional(0).map(|a| a.text.as_str()).unwrap_or("")
            ),
            evidence: vec!["class ids must run from 0 to n_classes - 1".to_string()],
            fingerprint: fingerprint("CS105", f, &scope, &format!("enumerate({first},1)")),
            category: "label_out_of_range",
            lint: true,
        });
    }
}

/// Whether line `line` of `f` is a `for` over `enumerate(…)` whose body keeps the counter
/// nowhere: no assignment takes it (`m[name] = i`, `ids = …i…`) and no `append`/`add`/
/// `insert`/`setdefault`/`update` is given it.
fn loop_keeps_no_counter(f: &crate::scan::facts::FileFacts, line: u32) -> bool {
    use crate::scan::flow::{Expr, StmtKind};
    for d in &f.flow {
        let Some(at) = d.stmts.iter().position(|s| d.line(s) == line && matches!(s.kind, StmtKind::For { .. })) else { continue };
        let StmtKind::For { target, .. } = &d.stmts[at].kind else { continue };
        let counter = match target.bare() {
            Expr::Seq(_, ts) => match ts.first().map(Expr::bare) {
                Some(Expr::Name(n)) => n.clone(),
                _ => return false,
            },
            _ => return false,
        };
        let nest = d.stmts[at].nest;
        let names = |e: &Expr| {
            let mut hit = false;
            e.walk(&mut |x| hit |= matches!(x, Expr::Name(n) if *n == counter));
            hit
        };
        let mut kept = false;
        for st in d.stmts[at + 1..].iter().take_while(|s| s.nest > nest) {
            match &st.kind {
                StmtKind::Assign { value, targets, .. } => kept |= names(value) || targets.iter().any(names),
                other => crate::analysis::flow::trace::stmt_exprs(other, &mut |e| {
                    if let Expr::Call { func, args, kwargs } = e {
                        let stores = matches!(func.last_name(), Some("append" | "add" | "insert" | "setdefault" | "update" | "extend"));
                        kept |= stores && (args.iter().any(names) || kwargs.iter().any(|(_, v)| names(v)));
                    }
                }),
            }
        }
        return !kept;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::rules::finding_lines;

    #[test]
    fn label_maps_numbered_from_one() {
        let src = "classes = sorted(set(df['species']))\nMAP\nmodel = nn.Linear(4, COUNT)\n";
        for map in [
            "class_to_idx = {c: i + 1 for i, c in enumerate(classes)}",
            "class_to_idx = dict(zip(classes, range(1, len(classes) + 1)))",
            "class_to_idx = {c: i for i, c in enumerate(classes, 1)}",
        ] {
            assert_eq!(finding_lines(check, &src.replace("MAP", map).replace("COUNT", "len(classes)")), [2], "{map}");
            // background 0 counted: 1-based on purpose
            assert!(
                finding_lines(check, &src.replace("MAP", map).replace("COUNT", "len(classes) + 1")).is_empty() || map.contains(", 1)"),
                "{map}"
            );
        }
        assert!(finding_lines(
            check,
            &src.replace("MAP", "class_to_idx = {c: i for i, c in enumerate(classes)}").replace("COUNT", "len(classes)")
        )
        .is_empty());
        assert!(finding_lines(check, &src.replace("MAP", "pos = {w: i + 1 for i, w in enumerate(words)}").replace("COUNT", "3")).is_empty());
        // a loop that writes the numbers to an index file keeps no id; one that stores them does
        let written = "with open(path, 'w') as f:\n    for i, name in enumerate(class_names, 1):\n        f.write(f'{i} {name}')\n";
        assert!(finding_lines(check, written).is_empty());
        let kept = "ids = {}\nfor i, name in enumerate(class_names, 1):\n    ids[name] = i\n";
        assert_eq!(finding_lines(check, kept), [2]);
    }
}
