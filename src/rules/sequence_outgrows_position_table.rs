use crate::rules::{fingerprint, rule, Ctx, Finding};
use crate::scan::facts::{Call, FileFacts};

rule!(
    SequenceOutgrowsPositionTable,
    r#"## What it does
Finds a generation loop that appends each new token to the sequence (`idx = torch.cat((idx,
next), dim=1)`) and feeds the whole sequence back to a model with a learned position table
(`nn.Embedding(block_size, d)`, `max_position_embeddings`, `n_positions`), without cropping it
to the table's size first.

## Why is this bad?
The model looks positions `0..t-1` up in its position table. Once the sequence is longer than
the table (`block_size`), position `block_size` has no row, and the lookup fails on the GPU
(`srcIndex < srcSelectDimSize`, or the vectorized gather's `ind < ind_dim_size`) — after the
training, at sampling time, for prompts plus generated tokens that pass the limit.

## Example
```python
for _ in range(max_new_tokens):
    logits, _ = self(idx)
    idx_next = torch.multinomial(F.softmax(logits[:, -1, :], dim=-1), num_samples=1)
    idx = torch.cat((idx, idx_next), dim=1)
```

Use instead:
```python
for _ in range(max_new_tokens):
    idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
    logits, _ = self(idx_cond)
    ...
```

## Known false positives
A loop whose length is bounded elsewhere so that prompt plus new tokens always fit the table."#
);

const POSITION_SIZES: &[&str] = &[
    "block_size",
    "max_position",
    "n_positions",
    "n_ctx",
    "max_len",
    "max_seq",
    "context_length",
    "context_len",
    "ctx_len",
    "seq_len",
    "max_length",
    "num_positions",
    "max_positions",
];

pub fn is_position_table(c: &Call) -> bool {
    matches!(c.name.as_str(), "Embedding")
        && c.positional(0).or_else(|| c.kwarg("num_embeddings")).is_some_and(|a| {
            let t = a.text.to_ascii_lowercase();
            POSITION_SIZES.iter().any(|w| t.contains(w))
        })
}

/// `torch.cat((idx, idx_next), dim=1)` growing `idx` along the sequence.
fn grows(value: &str, var: &str) -> bool {
    let v = value.replace(' ', "");
    (v.starts_with("torch.cat(") || v.starts_with("torch.concat(") || v.starts_with("torch.concatenate("))
        && (v.contains(&format!("(({var},")) || v.contains(&format!("([{var},")))
        && (v.contains("dim=1") || v.contains("dim=-1") || v.ends_with(",1)") || v.ends_with(",-1)"))
}

/// This rule's prefilter: the files with a position table (`analysis::project::POSITION_TABLE`).
pub const MARK: crate::analysis::project::Mark = (crate::analysis::project::POSITION_TABLE, |f| f.calls.iter().any(is_position_table));

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    if !files.any(crate::analysis::project::POSITION_TABLE) {
        return;
    }
    // the project's first position table, for a model that has none of its own
    let first_table = || -> Option<(&FileFacts, &Call)> { files.first_call(crate::analysis::project::POSITION_TABLE, is_position_table) };
    for (_, f) in files.sites() {
        for lp in &f.fors {
            let inside = |line: u32| line > lp.span.line && line <= lp.span.end_line;
            for a in f.assigns.iter().filter(|a| a.scope == lp.scope && inside(a.span.line) && a.op.is_none()) {
                let var = a.target.as_str();
                if !var.chars().all(|c| c.is_alphanumeric() || c == '_') || !grows(&a.value, var) {
                    continue;
                }
                // cropped somewhere in the function (`idx = idx[:, -block_size:]`), or a length check
                let cropped = f
                    .assigns
                    .iter()
                    .any(|b| b.scope == lp.scope && b.target == var && b.value.replace(' ', "").starts_with(&format!("{var}[")))
                    || f.conds.iter().any(|k| {
                        k.scope == lp.scope
                            && k.text.contains(var)
                            && (k.text.contains("size(") || k.text.contains("shape") || POSITION_SIZES.iter().any(|w| k.text.contains(w)))
                    });
                if cropped {
                    continue;
                }
                for call in
                    f.calls.iter().filter(|c| c.scope == lp.scope && inside(c.span.line) && c.positional(0).is_some_and(|p| p.text == var))
                {
                    // the model itself, with its own position table, or a model object
                    // the model itself, with a position table in its own class
                    let own_table = |t: &&Call| is_position_table(t) && t.scope.class == lp.scope.class;
                    let own = call.func == "self" && f.calls.iter().any(|t| own_table(&t) && t.scope.class.is_some());
                    let model = call.func.rsplit('.').next().is_some_and(|n| {
                        n.to_ascii_lowercase().ends_with("model")
                            || ["gpt", "lm", "transformer", "net"].contains(&n.to_ascii_lowercase().as_str())
                    });
                    if !own && !model {
                        continue;
                    }
                    let found = if own { f.calls.iter().find(own_table).map(|t| (f, t)) } else { None };
                    let Some((tf, t)) = found.or_else(first_table) else { continue };
                    let scope = call.scope.qualified();
                    out.push(Finding {
                        rule: "CS113",
                        file: f.path.clone(),
                        span: call.span,
                        message: format!(
                            "`{}({var})` in a loop that grows `{var}` by one token per step (line {}) without cropping it: positions past {} have no row in the position table",
                            call.func,
                            a.span.line,
                            t.positional(0).map(|x| x.text.as_str()).unwrap_or("the table size")
                        ),
                        evidence: vec![
                            format!("grows: `{} = {}` at {}:{}", a.target, a.value, f.path, a.span.line),
                            format!("position table: {}({}) at {}:{}", t.func, t.args.iter().map(|x| x.text.as_str()).collect::<Vec<_>>().join(", "), tf.path, t.span.line),
                        ],
                        fingerprint: fingerprint("CS113", f, &scope, &format!("{}({var})", call.func)),
                        category: "embedding_index_out_of_range",
                        lint: true,
                    });
                }
            }
        }
    }
}
