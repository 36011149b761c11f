//! The witness joined with the suspects: the static suspects confirmed or refuted by what the
//! run caught, the line the value was born on made the first suspect, and the sentences that
//! say what was caught (shared by every renderer).

use std::path::Path;

use serde_json::Value;

use crate::model::{Report, Suspect};
use crate::scan::files::ProjectFiles;

/// A path the shim wrote (absolute, on this machine) as a path inside the project.
pub fn project_path(file: &str, root: Option<&Path>, files: Option<&ProjectFiles>) -> Option<String> {
    if let Some(root) = root {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let f = std::fs::canonicalize(file).unwrap_or_else(|_| Path::new(file).to_path_buf());
        if let Ok(rel) = f.strip_prefix(&root) {
            return Some(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    files.and_then(|p| p.resolve(file))
}

/// A place the run recorded, as a project path and line: a file of the project, or the code of a
/// Jupyter cell (`<ipython-input-5-…>`, ipykernel's temporary `.py`) found in the project's
/// notebook that holds it (the cell's line becomes the notebook file's line).
pub fn project_place(
    file: &str,
    line: u32,
    code: Option<&str>,
    root: Option<&Path>,
    files: Option<&ProjectFiles>,
) -> Option<(String, u32)> {
    if let (Some(count), Some(root)) = (crate::scan::notebook::cell_number(file), root) {
        let walked;
        let files = match files {
            Some(f) => f,
            None => {
                walked = ProjectFiles::walk(root);
                &walked
            }
        };
        let notebooks = crate::scan::notebook::read_all(root, files.paths().iter().map(String::as_str));
        return crate::scan::notebook::find_frame(&notebooks, count, line, code);
    }
    project_path(file, root, files).map(|p| (p, line))
}

/// [`project_place`] for a frame of the witness (`file`, `line`, `code`).
pub fn frame_place(f: &Value, root: Option<&Path>, files: Option<&ProjectFiles>) -> Option<(String, u32)> {
    let file = f.get("file").and_then(Value::as_str)?;
    let line = f.get("line").and_then(int)? as u32;
    project_place(file, line, f.get("code").and_then(Value::as_str), root, files)
}

fn int(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_f64().map(|f| f as i64))
}

pub fn show(v: &Value) -> String {
    match v {
        Value::Null => "?".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One line that says what the witness caught: op, value, bound, where, which sample.
pub fn caught_line(w: &Value) -> String {
    let op = w.get("op").and_then(Value::as_str).unwrap_or("a guarded op");
    let tensor = w.get("tensor").and_then(Value::as_str).unwrap_or("value");
    let first = w.get("bad").and_then(Value::as_array).and_then(|b| b.first());
    let value = first.and_then(|b| b.get("value")).map(show).unwrap_or_else(|| "?".into());
    let bound = w.get("bound");
    let bound_txt = match bound {
        Some(b) => {
            format!("{} = {}", b.get("name").and_then(Value::as_str).unwrap_or("bound"), b.get("value").map(show).unwrap_or_default())
        }
        None => String::new(),
    };
    let mut s = format!("{op}: {tensor} value {value}");
    if !bound_txt.is_empty() {
        s.push_str(&format!(" out of range ({bound_txt})"));
    } else if let Some(p) = w.get("predicate").and_then(Value::as_str) {
        s.push_str(&format!(" breaks `{p}`"));
    }
    let count = w.get("bad_count").and_then(int).unwrap_or(1);
    if count > 1 {
        s.push_str(&format!(", {count} bad elements in the batch"));
    }
    if let Some(sample) = first.and_then(|b| b.get("sample")).and_then(int) {
        s.push_str(&format!(", sample {sample}"));
    }
    if let Some(r) = w.get("rank").and_then(int) {
        s.push_str(&format!(" (rank {r})"));
    }
    s
}

/// The user frame that called the op, from the witness's stack (innermost last).
pub fn user_frame(w: &Value) -> Option<&Value> {
    w.get("stack")?.as_array()?.iter().rev().find(|f| f.get("user_code").and_then(Value::as_bool).unwrap_or(false))
}

/// The sentence for the provenance outcome, with the project-relative place it names.
pub fn provenance_line(w: &Value, root: Option<&Path>, files: Option<&ProjectFiles>) -> Option<(String, Option<(String, u32)>)> {
    let p = w.get("provenance")?;
    let kind = p.get("kind").and_then(Value::as_str)?;
    let place = || {
        let file = p.get("file").and_then(Value::as_str)?;
        let line = p.get("line").and_then(int)? as u32;
        Some(frame_place(p, root, files).unwrap_or_else(|| (file.to_string(), line)))
    };
    let bound = w
        .get("bound")
        .map(|b| {
            format!(" ({} = {})", b.get("name").and_then(Value::as_str).unwrap_or("bound"), b.get("value").map(show).unwrap_or_default())
        })
        .unwrap_or_default();
    let sample = p.get("sample").and_then(int).map(|s| format!(" for sample {s}")).unwrap_or_default();
    match kind {
        "code_line" => {
            let at = place();
            let where_ = at.as_ref().map(|(f, l)| format!("{f}:{l}")).unwrap_or_else(|| "a line".into());
            let var = p.get("variable").and_then(Value::as_str).map(|v| format!("{v} ")).unwrap_or_default();
            let before = p.get("before").map(show).unwrap_or_else(|| "?".into());
            let after = p.get("after").map(show).unwrap_or_else(|| "?".into());
            let mut s = format!("{where_} turned {var}{before} into {after}{sample}{bound}");
            if let Some(n) = p.get("replays").and_then(int).filter(|n| *n > 1) {
                s.push_str(&format!("; the replay needed {n} tries (random branch)"));
            }
            Some((s, at))
        }
        "raw_data" => {
            let at = place();
            let value = p.get("value").map(show).unwrap_or_else(|| "?".into());
            let where_ = at.as_ref().map(|(f, l)| format!(" as read at {f}:{l}")).unwrap_or_default();
            Some((format!("the value {value} is in the data{where_}{sample}{bound}: no line of __getitem__ changed it"), at))
        }
        "outside_getitem" => {
            let at = place();
            let reason = p.get("reason").and_then(Value::as_str).unwrap_or("__getitem__ returned a value in range");
            let where_ = at.as_ref().map(|(f, l)| format!(" (see {f}:{l})")).unwrap_or_default();
            Some((format!("made after __getitem__{sample}: {reason}{where_}"), at))
        }
        "not_replayable" => {
            let reason = p.get("reason").and_then(Value::as_str).unwrap_or("no reason given");
            Some((format!("the sample could not be replayed: {reason}"), None))
        }
        _ => None,
    }
}

/// The failure classes that name the same bug (an embedding lookup is an index).
fn same_class(a: &str, b: &str) -> bool {
    fn norm(c: &str) -> &str {
        if c == "embedding_index_out_of_range" {
            "index_out_of_range"
        } else {
            c
        }
    }
    norm(a) == norm(b)
}

/// Mark the suspects the witness confirms or refutes, and add the line it names when no rule
/// had it.
///
/// - A `code_line` provenance proves one line: that suspect (or a new one) goes first.
/// - Otherwise the run proves the class of bug and the bound: static suspects of that class
///   that are about the bound or the data (head size, sentinel, config, vocabulary) are
///   confirmed; a label shift in `__getitem__` is refuted when the replay shows the value
///   arrived unchanged (`raw_data`) or was made later (`outside_getitem`).
/// - The line where a `raw_data` value was read is added as evidence of where it came from.
pub fn confirm(report: &mut Report, root: Option<&Path>, files: Option<&ProjectFiles>) {
    let Some(w) = report.witness.clone() else { return };
    for s in report.suspects.iter_mut() {
        s.confirmed = Some(false);
    }
    let caught = caught_line(&w);
    let named = provenance_line(&w, root, files);
    let kind = w.get("provenance").and_then(|p| p.get("kind")).and_then(Value::as_str).unwrap_or("");
    let category = w.get("category").and_then(Value::as_str).unwrap_or("");
    if kind == "code_line" {
        if let Some((sentence, Some((file, line)))) = &named {
            let pos = report.suspects.iter().position(|s| &s.file == file && s.line == *line);
            let mut s = match pos {
                Some(i) => report.suspects.remove(i),
                None => new_suspect(file, *line, &w, sentence),
            };
            s.tier = "confirmed".into();
            s.confirmed = Some(true);
            s.evidence.insert(0, format!("repro: {sentence}"));
            s.evidence.insert(1, format!("caught: {caught}"));
            report.suspects.insert(0, s);
            return;
        }
    }
    // the class and the bound are proven; which static suspects fit them?
    let mut confirmed: Vec<Suspect> = Vec::new();
    let mut rest = Vec::new();
    for mut s in std::mem::take(&mut report.suspects) {
        let class = crate::rules::RULES.iter().find(|r| r.code == s.rule).map(|r| r.category).unwrap_or("");
        let shift = s.rule == "CS101";
        // one_hot of labels (or a gather at them) trips an index check in the kernel: a class
        // count bug all the same
        let fits = same_class(class, category)
            || w.get("op").and_then(Value::as_str).is_some_and(crate::rank::suspects::indexes_by_label) && class == "label_out_of_range";
        if !category.is_empty() && fits && !shift {
            s.tier = "confirmed".into();
            s.confirmed = Some(true);
            s.evidence.insert(0, format!("caught: {caught}"));
            if let Some((sentence, _)) = &named {
                s.evidence.insert(1, format!("repro: {sentence}"));
            }
            confirmed.push(s);
        } else {
            if shift && matches!(kind, "raw_data" | "outside_getitem") {
                s.evidence.insert(0, "refuted by repro: the replayed sample did not take its bad value in __getitem__".into());
            }
            rest.push(s);
        }
    }
    // the files the run went through come first (a notebook export and its .ipynb say the
    // same thing; the one that ran is the one to fix)
    let ran: Vec<String> = w
        .get("stack")
        .and_then(Value::as_array)
        .map(|s| s.iter().filter_map(|f| frame_place(f, root, files)).map(|(p, _)| p).collect())
        .unwrap_or_default();
    confirmed.sort_by_key(|s| !ran.contains(&s.file));
    let mut out = confirmed;
    // where the value was read (raw_data) or changed after __getitem__ (a collate_fn)
    if let Some((sentence, Some((file, line)))) = &named {
        if !out.iter().chain(rest.iter()).any(|s| &s.file == file && s.line == *line) {
            let mut s = new_suspect(file, *line, &w, sentence);
            s.tier = if out.is_empty() { "strong".into() } else { "likely".into() };
            s.evidence.push(format!("caught: {caught}"));
            out.push(s);
        }
    }
    if out.is_empty() && rest.is_empty() {
        // nothing static: the call that received the bad value is what the run proves
        if let Some(f) = user_frame(&w) {
            if let Some((rel, line)) = frame_place(f, root, files) {
                let msg = format!("received the bad value: {caught}");
                let mut s = new_suspect(&rel, line, &w, &msg);
                s.tier = "likely".into();
                if let Some((sentence, _)) = &named {
                    s.evidence.push(format!("repro: {sentence}"));
                }
                out.push(s);
            }
        }
    }
    out.extend(rest);
    report.suspects = out;
}

fn new_suspect(file: &str, line: u32, w: &Value, message: &str) -> Suspect {
    let code = w
        .get("provenance")
        .filter(|p| p.get("line").and_then(int) == Some(i64::from(line)))
        .and_then(|p| p.get("code"))
        .and_then(Value::as_str)
        .or_else(|| {
            user_frame(w)
                .filter(|f| f.get("line").and_then(int) == Some(i64::from(line)))
                .and_then(|f| f.get("code"))
                .and_then(Value::as_str)
        })
        .unwrap_or("");
    let indent = code.len() - code.trim_start().len();
    let width = code.trim().chars().count().max(1) as u32;
    let op = w.get("op").and_then(Value::as_str).unwrap_or("op");
    Suspect {
        file: file.to_string(),
        line,
        column: indent as u32 + 1,
        end_line: line,
        end_column: indent as u32 + 1 + width,
        rule: "repro".into(),
        tier: "confirmed".into(),
        confirmed: Some(true),
        message: message.to_string(),
        evidence: Vec::new(),
        fingerprint: format!("repro:{file}:{op}:{line}"),
    }
}

pub fn bad_samples(sweep: &Value) -> usize {
    sweep
        .get("datasets")
        .and_then(Value::as_array)
        .map(|ds| ds.iter().map(|d| d.get("bad").and_then(Value::as_array).map_or(0, Vec::len)).sum())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn witness() -> Value {
        serde_json::json!({
            "version": 1, "kind": "witness", "op": "nll_loss", "aten": "aten::nll_loss_forward",
            "category": "label_out_of_range", "tensor": "target",
            "bound": {"name": "n_classes", "value": 3}, "bad": [{"position": [5], "value": 3, "sample": 41}], "bad_count": 1,
            "stack": [{"file": "/x/proj/train.py", "line": 30, "function": "<module>", "user_code": true}],
            "provenance": {"kind": "code_line", "file": "/x/proj/data/dataset.py", "line": 23, "variable": "label", "before": 2, "after": 3, "sample": 41, "code": "        label = label + 1"}
        })
    }

    #[test]
    fn sentences() {
        let w = witness();
        assert_eq!(caught_line(&w), "nll_loss: target value 3 out of range (n_classes = 3), sample 41");
        let (s, at) = provenance_line(&w, None, None).unwrap();
        assert_eq!(s, "/x/proj/data/dataset.py:23 turned label 2 into 3 for sample 41 (n_classes = 3)");
        assert_eq!(at, Some(("/x/proj/data/dataset.py".to_string(), 23)));
    }

    #[test]
    fn provenance_line_becomes_the_confirmed_first_suspect() {
        let incident = crate::log::read_from(Box::new(std::io::Cursor::new(Vec::new())));
        let mut report = crate::rank::assemble::assemble("run.log", &incident);
        report.suspects.push(new_suspect("train.py", 30, &Value::Null, "loss call"));
        report.suspects[0].confirmed = None;
        report.suspects[0].tier = "likely".into();
        report.witness = Some(witness());
        confirm(&mut report, None, None);
        assert_eq!(report.suspects[0].line, 23);
        assert_eq!(report.suspects[0].confirmed, Some(true));
        assert_eq!(report.suspects[0].tier, "confirmed");
        assert_eq!(report.suspects[1].confirmed, Some(false));
        assert!(report.suspects[0].evidence[0].starts_with("repro: "));
    }
}
