use crate::analysis::project::{Files, ADD_TOKENS, DEFINES_RESIZE, RESIZE};
use crate::rules::{fingerprint, rule, Ctx, Finding};

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

/// Functions of the project that resize embeddings themselves (helpers such as
/// `smart_tokenizer_and_embedding_resize`).
pub fn resizing_functions(files: &Files<'_>) -> Vec<crate::scan::facts::Text> {
    files.calls_with(RESIZE).filter(|(_, c)| c.name == "resize_token_embeddings").filter_map(|(_, c)| c.scope.function.clone()).collect()
}

/// Whether a resize follows the adding call: later in the same function (or, at module level,
/// later in the file), by `resize_token_embeddings` or a project function that calls it
/// (`helpers`: `resizing_functions`).
pub fn resized_after(helpers: &[crate::scan::facts::Text], file: &crate::scan::facts::FileFacts, add: &crate::scan::facts::Call) -> bool {
    if add.scope.function.as_ref().is_some_and(|fun| helpers.contains(fun)) {
        return true;
    }
    file.calls
        .iter()
        .any(|r| (r.name == "resize_token_embeddings" || helpers.contains(&r.name)) && r.scope == add.scope && r.span.line > add.span.line)
}

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    // A project that defines resize_token_embeddings is the modeling library itself.
    if files.any(DEFINES_RESIZE) {
        return;
    }
    let sites: Vec<_> = files
        .sites_with(ADD_TOKENS)
        .flat_map(|(_, f)| f.calls.iter().map(move |c| (f, c)))
        .filter(|(_, c)| c.name == "add_tokens" || c.name == "add_special_tokens")
        .collect();
    if sites.is_empty() {
        return;
    }
    let helpers = resizing_functions(files);
    let resizes = |c: &crate::scan::facts::Call| c.name == "resize_token_embeddings" || helpers.contains(&c.name);
    // a resize anywhere: a call of resize_token_embeddings or of a helper that calls it
    let any_resize = std::cell::OnceCell::new();
    let any_resize = || {
        *any_resize.get_or_init(|| {
            files.any(RESIZE) || helpers.iter().any(|h| files.calling(h).any(|i| files.file(i).calls.iter().any(|c| c.name == *h)))
        })
    };
    for (f, c) in sites {
        // inside a resizing helper the resize follows by construction
        if c.scope.function.as_ref().is_some_and(|fun| helpers.contains(fun)) {
            continue;
        }
        // a tokenizer adding to itself, or a `tokenizers.Tokenizer` being built, is not a
        // training script extending a model's vocabulary
        if c.func.starts_with("self.") || c.func == "add_tokens" || c.func == "add_special_tokens" {
            continue;
        }
        // only where a model is at hand: loaded or built in the same file
        let model_here = f.calls.iter().any(|m| {
            m.name == "from_pretrained" && m.func.contains("Model")
                || m.assigned_to.as_deref().is_some_and(|t| t.to_ascii_lowercase().contains("model"))
        });
        if !model_here {
            continue;
        }
        // a resize later in the same function (or, at module level, later in the file) covers it
        let later = f.calls.iter().any(|r| resizes(r) && r.scope == c.scope && r.span.line > c.span.line);
        if later {
            continue;
        }
        let why = if any_resize() {
            "no resize follows it in the same function (an earlier resize does not cover tokens added after it)"
        } else {
            "the project never calls resize_token_embeddings"
        };
        let scope = c.scope.qualified();
        out.push(Finding {
            rule: "CS104",
            file: f.path.clone(),
            span: c.span,
            message: format!(
                "tokens are added with {} but the embeddings are not resized after it (model.resize_token_embeddings(len(tokenizer)))",
                c.func
            ),
            evidence: vec![why.to_string()],
            fingerprint: fingerprint("CS104", f, &scope, &c.func),
            category: "embedding_index_out_of_range",
            lint: true,
        });
    }
}
