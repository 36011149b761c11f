use crate::analysis::project::ADD_TOKENS;
use crate::rules::added_tokens_without_resize::{resized_after, resizing_functions};
use crate::rules::{fingerprint, rule, Ctx, Finding};
use crate::scan::facts::Span;

rule!(
    VocabSizeExcludesAddedTokens,
    r#"## What it does
Finds an embedding table or a model config sized with `tokenizer.vocab_size` in a project that
adds tokens to that tokenizer (`add_tokens`, `add_special_tokens`).

## Why is this bad?
`tokenizer.vocab_size` is the size of the base vocabulary: it does not count added tokens,
whose ids are `vocab_size`, `vocab_size + 1`, ... An `nn.Embedding(tokenizer.vocab_size, d)`
has no rows for them, so the lookup fails on the GPU (`srcIndex < srcSelectDimSize`, or the
vectorized gather's `ind < ind_dim_size`).

## Example
```python
tokenizer.add_special_tokens({"pad_token": "[PAD]"})
embed = nn.Embedding(tokenizer.vocab_size, 512)
```

Use instead:
```python
embed = nn.Embedding(len(tokenizer), 512)
```

A table sized before the tokens are added is fine when the embeddings are resized right after
adding them (`model.resize_token_embeddings(len(tokenizer))`): the rule stays quiet then."#
);

fn uses_vocab_size(text: &str) -> bool {
    text.contains("tokenizer.vocab_size") || text.contains("tok.vocab_size") || text.contains("tokenizer().vocab_size")
}

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    if !files.any(ADD_TOKENS) {
        return;
    }
    // tokens added (not by a tokenizer to itself) and not followed by a resize of the
    // embeddings: found when a file sizes something with vocab_size
    let adding = std::cell::OnceCell::new();
    let adding = || -> &Vec<usize> {
        adding.get_or_init(|| {
            let helpers = resizing_functions(files);
            let mut adding: Vec<usize> = files
                .with(ADD_TOKENS)
                .filter(|(_, f)| {
                    f.calls.iter().any(|c| {
                        (c.name == "add_tokens" || c.name == "add_special_tokens")
                            && !c.func.starts_with("self.")
                            && !resized_after(&helpers, f, c)
                    })
                })
                .map(|(i, _)| i)
                .collect();
            adding.dedup();
            adding
        })
    };
    for (fi, f) in files.sites() {
        let mut sites: Vec<(Span, String, String)> = Vec::new();
        for c in &f.calls {
            let sized = matches!(c.name.as_str(), "Embedding" | "EmbeddingBag")
                && c.positional(0).or(c.kwarg("num_embeddings")).is_some_and(|a| uses_vocab_size(&a.text));
            let config = c.kwarg("vocab_size").is_some_and(|a| uses_vocab_size(&a.text));
            if sized || config {
                sites.push((c.span, c.scope.qualified(), c.func.to_string()));
            }
        }
        for a in f.assigns.iter().filter(|a| uses_vocab_size(&a.value) && a.target.to_ascii_lowercase().contains("vocab")) {
            sites.push((a.span, a.scope.qualified(), a.target.to_string()));
        }
        if sites.is_empty() {
            continue;
        }
        // the tokens must be added in this file or in one it imports or is imported by
        if !adding().iter().any(|&gi| gi == fi || files.imports(fi, gi) || files.imports(gi, fi)) {
            continue;
        }
        for (span, scope, what) in sites {
            out.push(Finding {
                rule: "CS110",
                file: f.path.clone(),
                span,
                message: format!(
                    "{what} is sized with tokenizer.vocab_size, which leaves out the tokens this project adds: use len(tokenizer)"
                ),
                evidence: vec!["the project adds tokens to the tokenizer".to_string()],
                fingerprint: fingerprint("CS110", f, &scope, &what),
                category: "embedding_index_out_of_range",
                lint: true,
            });
        }
    }
}
