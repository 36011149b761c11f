//! Ranking: the rules whose failure class fits the report, ordered by how much the log and the
//! code agree. The aim is the line that *made* the bad value; the loss call and the head are
//! supporting evidence.

use std::collections::BTreeSet;

use crate::model::{ChainStep, Report, Suspect, Verdict};
use crate::rules::{self, Finding};
use crate::scan::facts::Facts;

/// Ops whose index is often a class label: `one_hot(y)`, a gather of log-probabilities at the
/// labels (a hand-written NLL or focal loss), a scatter into a one-hot matrix. Their index
/// checks fail on a class-count bug like the loss's `t < n_classes` does.
pub fn indexes_by_label(op: &str) -> bool {
    matches!(op, "one_hot" | "gather" | "scatter" | "scatter_" | "scatter_add" | "scatter_add_" | "scatter_reduce")
}

/// The failure classes the report points to (assert signatures, CPU errors, evidence lines).
fn categories(report: &Report) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = report.asserts.iter().filter_map(|a| a.signature.as_ref().map(|s| s.category.clone())).collect();
    // a repro witness names the class of the op it caught
    if let Some(w) = report.witness.as_ref().map(crate::model::witness::Witness::of) {
        if let Some(c) = &w.category {
            out.insert(c.to_string());
        }
        // one_hot of labels, or a gather/scatter at them, trips an index check: a class-count
        // bug all the same
        if w.op.as_deref().is_some_and(indexes_by_label) {
            out.insert("label_out_of_range".to_string());
        }
    }
    // a gather or scatter at the labels (a hand-written NLL, a one-hot built with scatter_) is a
    // class-count bug all the same
    if report
        .asserts
        .iter()
        .any(|a| a.signature.as_ref().is_some_and(|s| s.id.starts_with("scatter_gather.") || s.id.starts_with("scatter_fill.")))
    {
        out.insert("label_out_of_range".to_string());
        // and an index failure: the value reaches the op as an index (`scatter_(1, y, …)`)
        out.insert("index_out_of_range".to_string());
    }
    // an embedding lookup is an index failure too
    if out.contains("index_out_of_range") {
        out.insert("embedding_index_out_of_range".into());
    }
    if out.contains("embedding_index_out_of_range") {
        out.insert("index_out_of_range".into());
    }
    for n in report.evidence.iter() {
        let kind = n.kind.trim_start_matches("cpu_error:");
        if let Some(sig) = crate::log::host::signatures().iter().find(|s| s.kind == kind) {
            out.extend(sig.category.clone());
        }
    }
    if let Some(kind) = report.error.as_ref().and_then(|e| e.kind.as_deref()) {
        if let Some(sig) = crate::log::host::signatures().iter().find(|s| s.kind == kind) {
            out.extend(sig.category.clone());
        }
    }
    // the same on the CPU: the failing user line gathers or scatters
    let gathers = |code: &str| [".gather(", "torch.gather(", ".scatter(", ".scatter_(", ".scatter_add"].iter().any(|g| code.contains(g));
    if out.contains("index_out_of_range")
        && report.frames.iter().rev().find(|f| f.user_code).and_then(|f| f.code.as_deref()).is_some_and(gathers)
    {
        out.insert("label_out_of_range".to_string());
    }
    out
}

/// Rules whose finding names a line that set the stage rather than the line that made the bad
/// value: within a tier they come after the others. Tokens added without a resize (CS104) are
/// the reason an embedding sized with `tokenizer.vocab_size` (CS110) is too small, but the
/// sizing line is the one to change; a mask read from an image file (CS107) says only that void
/// pixels may exist.
const SETUP_RULES: &[&str] = &["CS104", "CS107"];

pub fn rank(report: &Report, facts: &Facts) -> Vec<Suspect> {
    if report.verdict == Verdict::None {
        return Vec::new();
    }
    let cats = categories(report);
    // a Jupyter cell's frame counts for the notebook that holds the cell
    let frame_files: BTreeSet<&str> =
        report.frames.iter().filter_map(|f| f.path.as_deref().or(f.notebook.as_ref().map(|n| n.0.as_str()))).collect();
    let call_place = report.call.as_ref().map(|c| {
        let frame =
            report.frames.iter().find(|f| f.file == c.file && f.line == c.line).or_else(|| report.frames.iter().find(|f| f.file == c.file));
        match frame {
            Some(f) if f.path.is_none() && f.notebook.is_some() => f.notebook.as_ref().map(|(p, l)| format!("{p}:{l}")).unwrap_or_default(),
            Some(f) => format!("{}:{}", f.path.as_deref().unwrap_or(&c.file), c.line),
            None => format!("{}:{}", c.file, c.line),
        }
    });
    let mut findings = rules::run_all(facts);
    // the value tracing's own rule is joined below with its full ranking
    findings.retain(|f| (cats.is_empty() || cats.contains(f.category)) && f.rule != rules::value_leaves_bound::CODE);
    let mut out: Vec<(f32, usize, Suspect)> = findings
        .into_iter()
        .map(|f: Finding| {
            let in_traceback = frame_files.contains(f.file.as_str());
            let mut evidence = Vec::new();
            if let Some(a) = report.asserts.iter().find(|a| a.signature.as_ref().is_some_and(|s| s.category == f.category)) {
                let sig = a.signature.as_ref().unwrap();
                evidence.push(format!("assert: {} `{}`", sig.op, a.assertion.as_deref().unwrap_or("")));
            }
            if let Some(c) = &report.call {
                evidence.push(format!("call: `{}` at {}", c.code, call_place.as_deref().unwrap_or_default()));
            }
            evidence.extend(f.evidence.iter().cloned());
            let tier = if cats.is_empty() {
                "possible"
            } else if in_traceback || f.rule == "CS101" && report.call.is_some() {
                "strong"
            } else {
                "likely"
            };
            let order =
                rules::RULES.iter().position(|r| r.code == f.rule).unwrap_or(99) + if SETUP_RULES.contains(&f.rule) { 100 } else { 0 };
            // a rule's pattern on a line: as sure as its tier says, setup lines after the others
            let score = match tier {
                "strong" => 0.93,
                "likely" => 0.88,
                _ => 0.5,
            } - if SETUP_RULES.contains(&f.rule) { 0.3 } else { 0.0 };
            (
                score,
                order,
                Suspect {
                    file: f.file,
                    line: f.span.line,
                    column: f.span.column,
                    end_line: f.span.end_line,
                    end_column: f.span.end_column,
                    rule: f.rule.to_string(),
                    tier: tier.to_string(),
                    confirmed: None,
                    message: f.message,
                    evidence,
                    fingerprint: f.fingerprint,
                    chain: Vec::new(),
                    bound_chain: Vec::new(),
                    repro: None,
                },
            )
        })
        .collect();
    // the value tracing: the slices from the calls that reach the failing op
    let files: Vec<&crate::scan::facts::FileFacts> = facts.files.iter().collect();
    let frames: Vec<(String, u32)> =
        report.frames.iter().filter(|f| f.user_code).filter_map(|f| f.path.clone().map(|p| (p, f.line))).collect();
    let flow_cats: Vec<&str> = if cats.is_empty() { vec![""] } else { cats.iter().map(String::as_str).collect() };
    // the Python APIs that reach the failing ops, as the knowledge base lists them
    let apis: Vec<String> =
        report.asserts.iter().filter_map(|a| a.signature.as_ref()).flat_map(|s| s.python_apis.iter().cloned()).collect();
    let mut traced: Vec<crate::analysis::flow::FlowSuspect> = Vec::new();
    // (a traceback that ends at the failing call: only the innermost frame's line can hold the op)
    let exact = report.traceback.level == "trusted";
    for s in rules::value_leaves_bound::ranked(&files, &flow_cats, &frames, &apis, exact).into_iter().flatten() {
        if !traced.iter().any(|t| t.file == s.file && t.line == s.line) {
            traced.push(s);
        }
    }
    // raw scores at the loss (CS106, a pattern on the loss's line) against a value the tracing
    // followed through a normalization to a line of arithmetic it blames: the traced line is the
    // more specific answer, and the pattern's premise (no normalization at all) does not hold
    let normalized = traced.iter().any(|t| t.chain.iter().any(|c| c.what.starts_with("normalizes")));
    let traced_probs =
        traced.iter().filter(|t| normalized && t.tier != crate::analysis::flow::Tier::Possible).map(|t| t.score).reduce(f32::max);
    if let Some(best) = traced_probs {
        for o in out.iter_mut().filter(|o| o.2.rule == "CS106" && !traced.iter().any(|t| t.file == o.2.file && t.line == o.2.line)) {
            o.0 = o.0.min(best - 0.01);
        }
    }
    for s in traced {
        let step = |c: &crate::analysis::flow::Step| ChainStep {
            file: c.file.clone(),
            line: c.line,
            role: c.role.to_string(),
            what: c.what.clone(),
            value: c.value.clone(),
        };
        let chain: Vec<ChainStep> = s.chain.iter().map(step).collect();
        let bound_chain: Vec<ChainStep> = s.bound_chain.iter().map(step).collect();
        // a rule that names the same line: the slice confirms its pattern is on the value's path
        if let Some(o) = out.iter_mut().find(|o| o.2.file == s.file && o.2.line == s.line) {
            o.0 = o.0.max(s.score) + 0.05;
            if o.2.chain.is_empty() {
                o.2.chain = chain;
                o.2.bound_chain = bound_chain;
            }
            continue;
        }
        let evidence = s.chain.iter().skip(1).map(|c| format!("{}:{} {}: {}", c.file, c.line, c.role, c.what)).collect();
        out.push((
            s.score,
            rules::RULES.len(),
            Suspect {
                file: s.file.clone(),
                line: s.line,
                column: 1,
                end_line: s.line,
                end_column: 1,
                rule: rules::value_leaves_bound::CODE.to_string(),
                tier: if cats.is_empty() { "possible" } else { s.tier.as_str() }.to_string(),
                confirmed: None,
                message: s.message.clone(),
                evidence,
                fingerprint: format!("{}:{}:{}", rules::value_leaves_bound::CODE, s.file, s.message.replace(' ', "")),
                chain,
                bound_chain,
                repro: None,
            },
        ));
    }
    out.sort_by(|a, b| {
        b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal).then((a.1, &a.2.file, a.2.line).cmp(&(b.1, &b.2.file, b.2.line)))
    });
    out.into_iter().map(|(_, _, s)| s).take(20).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::python::scan_source;

    #[test]
    fn seed_example_ranks_the_shift_first() {
        let src = include_str!("../../fixtures/projects/000-seed-blog/seed_blog_example.py");
        let facts = Facts { files: vec![scan_source("seed_blog_example.py", src)], warnings: vec![] };
        let log = crate::log::read_from(Box::new(std::io::Cursor::new(
            include_bytes!("../../fixtures/projects/000-seed-blog/crash.log").to_vec(),
        )));
        let report = crate::rank::assemble::assemble("crash.log", &log);
        let s = rank(&report, &facts);
        assert_eq!(s[0].rule, "CS101");
        assert_eq!((s[0].file.as_str(), s[0].line), ("seed_blog_example.py", 17));
        assert!(s[0].evidence.iter().any(|e| e.contains("Linear(3 outputs)")), "{:?}", s[0].evidence);
        assert_eq!(s[0].fingerprint, "CS101:seed_blog_example.py:CustomDataset.__getitem__:y+1");
    }
}
