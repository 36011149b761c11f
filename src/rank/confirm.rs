//! The witness joined with the suspects: the static suspects confirmed or refuted by what the
//! run caught, the line the value was born on made the first suspect, and the sentences that
//! say what was caught (shared by every renderer).

use std::path::Path;

use crate::model::witness::{show, Place, ProvenanceKind, Witness};
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

/// [`project_place`] for a frame of the witness (or the place a provenance names).
pub fn frame_place(f: &Place, root: Option<&Path>, files: Option<&ProjectFiles>) -> Option<(String, u32)> {
    project_place(f.file.as_deref()?, f.line? as u32, f.code.as_deref(), root, files)
}

/// The sentence for the provenance outcome, with the project-relative place it names.
pub fn provenance_line(w: &Witness, root: Option<&Path>, files: Option<&ProjectFiles>) -> Option<(String, Option<(String, u32)>)> {
    let p = w.provenance.as_ref()?;
    let place = || {
        let file = p.place.file.as_deref()?;
        let line = p.place.line? as u32;
        Some(frame_place(&p.place, root, files).unwrap_or_else(|| (file.to_string(), line)))
    };
    let bound = w.bound.as_ref().map(|b| format!(" ({})", b.text())).unwrap_or_default();
    let sample = p.sample.map(|s| format!(" for sample {s}")).unwrap_or_default();
    match p.kind {
        ProvenanceKind::CodeLine => {
            let at = place();
            let where_ = at.as_ref().map(|(f, l)| format!("{f}:{l}")).unwrap_or_else(|| "a line".into());
            let var = p.variable.as_deref().map(|v| format!("{v} ")).unwrap_or_default();
            let mut s = format!("{where_} turned {var}{} into {}{sample}{bound}", show(&p.before), show(&p.after));
            if let Some(n) = p.replays.filter(|n| *n > 1) {
                s.push_str(&format!("; the replay needed {n} tries (random branch)"));
            }
            Some((s, at))
        }
        ProvenanceKind::RawData => {
            let at = place();
            let where_ = at.as_ref().map(|(f, l)| format!(" as read at {f}:{l}")).unwrap_or_default();
            Some((format!("the value {} is in the data{where_}{sample}{bound}: no line of __getitem__ changed it", show(&p.value)), at))
        }
        ProvenanceKind::OutsideGetitem => {
            let at = place();
            let reason = p.reason.as_deref().unwrap_or("__getitem__ returned a value in range");
            let where_ = at.as_ref().map(|(f, l)| format!(" (see {f}:{l})")).unwrap_or_default();
            Some((format!("made after __getitem__{sample}: {reason}{where_}"), at))
        }
        ProvenanceKind::NotReplayable => {
            let reason = p.reason.as_deref().unwrap_or("no reason given");
            Some((format!("the sample could not be replayed: {reason}"), None))
        }
        ProvenanceKind::Other => None,
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
    let Some(w) = report.witness.as_ref().map(Witness::of) else { return };
    for s in report.suspects.iter_mut() {
        s.confirmed = Some(false);
    }
    let caught = w.caught_line();
    let named = provenance_line(&w, root, files);
    let kind = w.provenance_kind();
    let category = w.category.as_deref().unwrap_or("");
    if kind == ProvenanceKind::CodeLine {
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
            || w.op.as_deref().is_some_and(crate::rank::suspects::indexes_by_label) && class == "label_out_of_range";
        // a traced line the ranges did not prove is not confirmed by the class alone
        let unproven = s.rule == crate::rules::value_leaves_bound::CODE && s.tier != "strong";
        if !category.is_empty() && fits && !shift && !unproven {
            s.tier = "confirmed".into();
            s.confirmed = Some(true);
            s.evidence.insert(0, format!("caught: {caught}"));
            if let Some((sentence, _)) = &named {
                s.evidence.insert(1, format!("repro: {sentence}"));
            }
            confirmed.push(s);
        } else {
            if shift && matches!(kind, ProvenanceKind::RawData | ProvenanceKind::OutsideGetitem) {
                s.evidence.insert(0, "refuted by repro: the replayed sample did not take its bad value in __getitem__".into());
            }
            rest.push(s);
        }
    }
    // the files the run went through come first (a notebook export and its .ipynb say the
    // same thing; the one that ran is the one to fix)
    let ran: Vec<String> = w.stack.iter().filter_map(|f| frame_place(f, root, files)).map(|(p, _)| p).collect();
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
        if let Some(f) = w.user_frame() {
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

fn new_suspect(file: &str, line: u32, w: &Witness, message: &str) -> Suspect {
    let at_line = |p: &&Place| p.line == Some(i64::from(line));
    let code = w
        .provenance
        .as_ref()
        .map(|p| &p.place)
        .filter(at_line)
        .and_then(|p| p.code.as_deref())
        .or_else(|| w.user_frame().filter(at_line).and_then(|f| f.code.as_deref()))
        .unwrap_or("");
    let indent = code.len() - code.trim_start().len();
    let width = code.trim().chars().count().max(1) as u32;
    let op = w.op.as_deref().unwrap_or("op");
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
        chain: Vec::new(),
        bound_chain: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

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
        let w = Witness::of(&witness());
        assert_eq!(w.caught_line(), "nll_loss: target value 3 out of range (n_classes = 3), sample 41");
        let (s, at) = provenance_line(&w, None, None).unwrap();
        assert_eq!(s, "/x/proj/data/dataset.py:23 turned label 2 into 3 for sample 41 (n_classes = 3)");
        assert_eq!(at, Some(("/x/proj/data/dataset.py".to_string(), 23)));
    }

    #[test]
    fn provenance_line_becomes_the_confirmed_first_suspect() {
        let incident = crate::log::read_from(Box::new(std::io::Cursor::new(Vec::new())));
        let mut report = crate::rank::assemble::assemble("run.log", &incident);
        report.suspects.push(new_suspect("train.py", 30, &Witness::default(), "loss call"));
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
