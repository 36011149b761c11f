use crate::rank::rules::{fingerprint, rule, Finding};
use crate::scan::facts::Facts;

rule!(
    AddedTokensWithoutResize,
    r#"## What it does
Finds tokens added to a tokenizer (`tokenizer.add_tokens(...)`,
`tokenizer.add_special_tokens(...)`) in a project that never calls
`model.resize_token_embeddings(...)`.

## Why is this bad?
New tokens get ids `>= vocab_size`; the model's embedding matrix still has `vocab_size` rows,
so the lookup fails on the GPU (`srcIndex < srcSelectDimSize`, or the vectorized gather's
`ind < ind_dim_size`).

## Example
```python
tokenizer.add_special_tokens({"pad_token": "[PAD]"})
model = AutoModelForCausalLM.from_pretrained(name)
```

Use instead:
```python
tokenizer.add_special_tokens({"pad_token": "[PAD]"})
model = AutoModelForCausalLM.from_pretrained(name)
model.resize_token_embeddings(len(tokenizer))
```"#
);

pub fn check(facts: &Facts, out: &mut Vec<Finding>) {
    if facts.calls().any(|(_, c)| c.name == "resize_token_embeddings") {
        return;
    }
    for (f, c) in facts.calls().filter(|(_, c)| c.name == "add_tokens" || c.name == "add_special_tokens") {
        let scope = c.scope.qualified();
        out.push(Finding {
            rule: "CS104",
            file: f.path.clone(),
            span: c.span,
            message: format!("tokens are added with {} but the embeddings are never resized (model.resize_token_embeddings(len(tokenizer)))", c.func),
            evidence: vec!["no call of resize_token_embeddings in the project".to_string()],
            fingerprint: fingerprint("CS104", f, &scope, &c.func),
            category: "embedding_index_out_of_range",
        });
    }
}
