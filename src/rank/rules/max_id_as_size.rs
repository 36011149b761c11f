use crate::rank::rules::{fingerprint, rule, Finding};
use crate::scan::facts::Facts;

rule!(
    MaxIdAsSize,
    r#"## What it does
Finds a table size (vocabulary, number of users/items, field dimensions) computed as the
largest id — `np.max(ids)`, `ids.max()`, `max(ids)` — without adding 1.

## Why is this bad?
Ids `0..max` need `max + 1` rows. An `nn.Embedding(max_id, dim)` has no row for the largest id,
so looking it up fails on the GPU (`srcIndex < srcSelectDimSize` or the vectorized gather's
`ind < ind_dim_size`).

## Example
```python
self.field_dims = np.max(self.items, axis=0)
```

Use instead:
```python
self.field_dims = np.max(self.items, axis=0) + 1
```"#
);

fn is_size_name(name: &str) -> bool {
    let n = name.rsplit('.').next().unwrap_or(name).to_ascii_lowercase();
    n.starts_with("num_") || n.starts_with("n_") || n.ends_with("_size") || n.ends_with("_dims") || n.ends_with("_dim") && n.contains("field")
        || n.contains("vocab") || n.ends_with("_count") || n == "field_dims" || n.starts_with("num") && n.len() > 3 && !n.contains("classes")
}

pub fn check(facts: &Facts, out: &mut Vec<Finding>) {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    // the whole value is a max over ids, with nothing added
    // one argument (the ids), optionally an axis, nothing chained but `.item()`
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"^(?:(?:np|numpy|torch)\.max\(\s*([\w.\[\]:, ]+?)\s*(?:,\s*(?:axis|dim)\s*=\s*-?\d+)?\s*\)|max\(\s*([\w.\[\]:]+)\s*\)|([\w.\[\]:, ]+?)\.max\(\s*(?:(?:axis|dim)\s*=\s*-?\d+|-?\d+)?\s*\))(?:\.item\(\))?$").unwrap()
    });
    for f in &facts.files {
        for a in &f.assigns {
            if a.op.is_some() || !is_size_name(&a.target) {
                continue;
            }
            let Some(c) = re.captures(a.value.trim()) else { continue };
            let arg = c.get(1).or(c.get(2)).or(c.get(3)).map(|m| m.as_str().to_ascii_lowercase()).unwrap_or_default();
            let ids = ["id", "idx", "index", "token", "item", "user", "vocab", "word"].iter().any(|w| arg.contains(w));
            let sizes = ["size", "shape", "len", "count", "num", "values"].iter().any(|w| arg.contains(w));
            if !ids || sizes || arg.contains(',') && !arg.contains(':') {
                continue;
            }
            let scope = a.scope.qualified();
            out.push(Finding {
                rule: "CS108",
                file: f.path.clone(),
                span: a.span,
                message: format!("`{}` is the largest id, not the number of ids: a table with that many rows has no row for the largest id (add 1)", a.target),
                evidence: vec![format!("`{} = {}`", a.target, a.value)],
                fingerprint: fingerprint("CS108", f, &scope, &a.target),
                category: "embedding_index_out_of_range",
                lint: true,
            });
        }
    }
}
