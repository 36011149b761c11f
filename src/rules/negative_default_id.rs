use crate::rules::{fingerprint, rule, Ctx, Finding};

rule!(
    NegativeDefaultId,
    r#"## What it does
Finds a token-to-id lookup with a negative default — `stoi.get(tok, -1)`,
`vocab.get(word, -1)`, `word2idx.get(w, -100)` — in a project that has an embedding table, when
the function never checks for that default (`if i < 0`, `i if i != -1 else unk`).

## Why is this bad?
Unknown words become id `-1`. `nn.Embedding` does not wrap negative ids: the lookup fails on the
GPU (`srcIndex < srcSelectDimSize`, or the vectorized gather's `ind >= -ind_dim_size && ind <
ind_dim_size`), often only at validation, when words outside the training vocabulary appear.

## Example
```python
def lookup(self, tokens):
    return [self.stoi.get(tok, -1) for tok in tokens]
```

Use instead:
```python
def lookup(self, tokens):
    return [self.stoi.get(tok, self.unk_index) for tok in tokens]
```

## Known false positives
A lookup whose `-1` results are filtered out in another function before they reach the model."#
);

/// Names of token → id maps.
fn is_token_map(owner: &str) -> bool {
    let n = owner.rsplit('.').next().unwrap_or(owner).to_ascii_lowercase();
    [
        "stoi",
        "vocab",
        "2id",
        "2idx",
        "2ix",
        "2index",
        "to_id",
        "to_idx",
        "to_ix",
        "to_index",
        "w2i",
        "c2i",
        "t2i",
        "tok2",
        "word_index",
        "token_index",
    ]
    .iter()
    .any(|w| n.contains(w))
}

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    if !cx.files.any(crate::analysis::project::EMBEDDING) {
        return;
    }
    for (_, f) in cx.files.sites() {
        for c in f.calls.iter().filter(|c| c.name == "get") {
            let Some(default) = c.positional(1).or_else(|| c.kwarg("default")).and_then(|a| a.int).filter(|v| *v < 0) else { continue };
            let owner = c.func.strip_suffix(".get").unwrap_or("");
            if !is_token_map(owner) {
                continue;
            }
            // the default checked in the same function: `if i < 0`, `i if i != -1 else unk`
            let checked = f.conds.iter().any(|k| {
                k.scope == c.scope
                    && (k.text.contains(&default.to_string())
                        || k.text.contains("< 0")
                        || k.text.contains(">= 0")
                        || k.text.contains("<0")
                        || k.text.contains(">=0"))
            });
            if checked {
                continue;
            }
            let scope = c.scope.qualified();
            out.push(Finding {
                rule: "CS112",
                file: f.path.clone(),
                span: c.span,
                message: format!(
                    "`{}(…, {default})` gives unknown tokens the id {default}, which no embedding row has: map them to an <unk> id",
                    c.func
                ),
                evidence: vec![format!("a negative default id in {scope}; the project looks ids up in an embedding table")],
                fingerprint: fingerprint("CS112", f, &scope, &format!("{}{default}", c.func)),
                category: "embedding_index_out_of_range",
                lint: true,
            });
        }
    }
}
