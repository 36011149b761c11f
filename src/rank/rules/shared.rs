//! Facts the rules share: which names hold labels, the model's head, the loss calls.

use crate::scan::facts::{Call, Facts, FileFacts};

/// Names that usually hold class labels (or segmentation masks).
pub fn is_label_name(name: &str) -> bool {
    let n = name.rsplit('.').next().unwrap_or(name).trim_start_matches('_').to_ascii_lowercase();
    const EXACT: &[&str] = &["y", "label", "labels", "lbl", "lbls", "target", "targets", "tgt", "cls", "class_id", "class_idx", "category", "category_id", "mask", "masks", "seg", "gt", "gt_label", "y_true", "cls_id"];
    EXACT.contains(&n.as_str()) || n.ends_with("_label") || n.ends_with("_labels") || n.ends_with("_target") || n.starts_with("label_") && !n.contains("smooth")
}

/// Names that usually hold token ids or indices into an embedding.
pub fn is_index_name(name: &str) -> bool {
    let n = name.rsplit('.').next().unwrap_or(name).to_ascii_lowercase();
    ["input_ids", "ids", "token_ids", "tokens", "idx", "index", "indices", "word_ids", "token_id"].contains(&n.as_str())
}

pub fn is_loss_with_classes(c: &Call) -> bool {
    matches!(c.name.as_str(), "CrossEntropyLoss" | "cross_entropy" | "NLLLoss" | "nll_loss" | "NLLLoss2d")
}

/// A classification head: `nn.Linear(in, out)` with a literal `out`, the last one in its file
/// or one assigned to a head-like name.
pub struct Head<'a> {
    pub file: &'a FileFacts,
    pub call: &'a Call,
    pub out: i64,
}

pub fn heads(facts: &Facts) -> Vec<Head<'_>> {
    let mut out = Vec::new();
    for f in &facts.files {
        let linears: Vec<&Call> = f.calls.iter().filter(|c| c.name == "Linear" || c.name == "LazyLinear").collect();
        for (i, c) in linears.iter().enumerate() {
            let n_out = c.kwarg("out_features").or_else(|| c.positional(if c.name == "LazyLinear" { 0 } else { 1 })).and_then(|a| a.int);
            let Some(n_out) = n_out else { continue };
            let target = c.assigned_to.as_deref().unwrap_or("").to_ascii_lowercase();
            let base = target.rsplit('.').next().unwrap_or(&target);
            let excluded = ["qkv", "proj", "query", "key", "value", "gate", "attn", "seq_relationship", "embed", "pos"].iter().any(|w| base.contains(w));
            let named = ["fc", "classifier", "head", "cls", "out", "output", "logits", "model", "linear", "last", "final", "decoder"].iter().any(|w| base.contains(w));
            // an unnamed `nn.Linear` is a head only when it is the file's last one and the file
            // also computes a class-index loss
            let loss_here = f.calls.iter().any(is_loss_with_classes);
            if !excluded && (named || i + 1 == linears.len() && loss_here) {
                out.push(Head { file: f, call: c, out: n_out });
            }
        }
    }
    out
}

pub fn head_evidence(facts: &Facts) -> Option<String> {
    let h = heads(facts).into_iter().next()?;
    Some(format!("head: {}({} outputs) at {}:{}", h.call.func, h.out, h.file.path, h.call.span.line))
}

pub fn loss_evidence(facts: &Facts) -> Option<String> {
    let (f, c) = facts.calls().find(|(_, c)| is_loss_with_classes(c))?;
    Some(format!("loss: {} at {}:{}", c.func, f.path, c.span.line))
}
