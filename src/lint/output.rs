//! Lint output: human (miette), JSON (the lint contract), GitHub annotations, SARIF 2.1.0.

use std::fmt::Write as _;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, Severity};

use crate::lint::{LintDiagnostic, LintResult, LintWarning};
use crate::report::ci::{gh_escape_data, gh_escape_prop, sarif_rule};
use crate::rules::{self, RULES};

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
struct Finding {
    message: String,
    code: String,
    severity: Severity,
    help: Option<String>,
    src: Option<NamedSource<String>>,
    span: Option<LabeledSpan>,
}

impl Diagnostic for Finding {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }
    fn severity(&self) -> Option<Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.src.as_ref().map(|s| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.span.clone().map(|s| Box::new(std::iter::once(s)) as Box<dyn Iterator<Item = LabeledSpan>>)
    }
}

fn byte_offset(text: &str, line: u32, column: u32) -> usize {
    let mut off = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line as usize {
            return off + l.chars().take(column.saturating_sub(1) as usize).map(char::len_utf8).sum::<usize>();
        }
        off += l.len();
    }
    off
}

pub fn human(result: &LintResult, color: bool, width: usize, quiet: bool) -> String {
    let theme = if color { GraphicalTheme::unicode() } else { GraphicalTheme::none() };
    let handler = crate::report::unbroken(GraphicalReportHandler::new_themed(theme).with_width(width).with_links(false));
    let mut out = String::new();
    for d in &result.diagnostics {
        let text = source_of(result, &d.project_path);
        let (src, span) = match text {
            Some(t) => {
                let start = byte_offset(&t, d.line, d.column);
                let end = if d.end_line == d.line {
                    byte_offset(&t, d.end_line, d.end_column)
                } else {
                    t[start..].find('\n').map_or(t.len(), |p| start + p)
                };
                let label = LabeledSpan::new(Some(d.rule.clone()), start, end.saturating_sub(start).max(1));
                (Some(NamedSource::new(d.file.clone(), t)), Some(label))
            }
            None => (None, None),
        };
        let name = rules::find_rule(&d.rule).map(|r| r.name).unwrap_or("");
        let f = Finding {
            message: format!("{}:{}:{}: {}", d.file, d.line, d.column, d.message),
            code: format!("{}({name})", d.rule),
            severity: if d.severity == "error" { Severity::Error } else { Severity::Warning },
            help: (!d.evidence.is_empty()).then(|| d.evidence.join("\n")),
            src,
            span,
        };
        let _ = handler.render_report(&mut out, &f);
    }
    warnings_and_summary(&mut out, result, quiet);
    // plain ASCII when not a terminal (docs/ci.md), as explain's report
    if color {
        out
    } else {
        crate::report::ascii_marks(&out)
    }
}

/// A file's text as linted: the code given on standard input for its file, else the file.
fn source_of(result: &LintResult, project_path: &str) -> Option<String> {
    match &result.stdin {
        Some((rel, text)) if rel == project_path => Some(text.clone()),
        _ => std::fs::read_to_string(result.root.join(project_path)).ok(),
    }
}

/// The warnings, then the one-line summary (left out when `quiet`, as ruff's `--quiet` does).
fn warnings_and_summary(out: &mut String, result: &LintResult, quiet: bool) {
    for w in &result.warnings {
        let _ = writeln!(out, "warning[{}]: {}: {}", w.code, place(w), w.message);
    }
    if quiet {
        return;
    }
    if !result.diagnostics.is_empty() {
        let _ = writeln!(
            out,
            "Found {} problem{} (`cudasleuth rule CODE` explains each rule).",
            result.diagnostics.len(),
            if result.diagnostics.len() == 1 { "" } else { "s" }
        );
    } else {
        // a clean run says so, and how much it looked at
        let n = result.checked;
        let _ = writeln!(out, "Checked {} file{}: no problems found.", grouped(n as u64), if n == 1 { "" } else { "s" });
    }
}

/// A count with its thousands grouped (`1,141`), as the summary line says it.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One line per finding, `file:line:col: CODE message`, as editors and ruff's concise output
/// have it; then the warnings and the summary.
pub fn concise(result: &LintResult, quiet: bool) -> String {
    let mut out = String::new();
    for d in &result.diagnostics {
        let _ = writeln!(out, "{}:{}:{}: {} {}", d.file, d.line, d.column, d.rule, d.message);
    }
    warnings_and_summary(&mut out, result, quiet);
    out
}

/// How many findings of each rule (most first), with the rule's name: `--statistics`.
pub fn statistics(result: &LintResult) -> Vec<(usize, String, &'static str)> {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for d in &result.diagnostics {
        *counts.entry(d.rule.as_str()).or_default() += 1;
    }
    let mut rows: Vec<(usize, String, &'static str)> =
        counts.into_iter().map(|(code, n)| (n, code.to_string(), rules::find_rule(code).map_or("", |r| r.name))).collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    rows
}

/// `--statistics` as text: a row per rule, count, code and name aligned.
pub fn statistics_text(result: &LintResult) -> String {
    let rows = statistics(result);
    let width = rows.iter().map(|r| r.0.to_string().len()).max().unwrap_or(1);
    let mut out = String::new();
    for (n, code, name) in &rows {
        let _ = writeln!(out, "{n:>width$}\t{code}\t{name}");
    }
    out
}

/// A warning's place as editors and terminals make it clickable: `file:line:col` when it has one.
fn place(w: &crate::lint::LintWarning) -> String {
    match (w.line, w.column) {
        (Some(l), Some(c)) => format!("{}:{l}:{c}", w.file),
        (Some(l), None) => format!("{}:{l}", w.file),
        _ => w.file.clone(),
    }
}

pub fn github(result: &LintResult) -> String {
    let mut out = String::new();
    for d in &result.diagnostics {
        let name = rules::find_rule(&d.rule).map(|r| r.name).unwrap_or("");
        let level = if d.severity == "error" { "error" } else { "warning" };
        let _ = writeln!(
            out,
            "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            gh_escape_prop(&d.file),
            d.line,
            d.column,
            d.end_line,
            d.end_column,
            gh_escape_prop(&format!("{} {name}", d.rule)),
            gh_escape_data(&d.message)
        );
    }
    // the warnings too (an unused or unknown suppression, a file not linted), on their line
    for w in &result.warnings {
        let mut props = format!("file={}", gh_escape_prop(&w.file));
        if let Some(l) = w.line {
            let _ = write!(props, ",line={l}");
        }
        if let Some(c) = w.column {
            let _ = write!(props, ",col={c}");
        }
        let _ =
            writeln!(out, "::warning {props},title={}::{}", gh_escape_prop(&format!("cudasleuth {}", w.code)), gh_escape_data(&w.message));
    }
    out
}

/// A rule as a SARIF `reportingDescriptor`, its documentation as help (lint and explain).
/// SARIF 2.1.0: one run, every rule with its documentation as help, repository-relative
/// paths, stable fingerprints so code-scanning alerts follow the code.
pub fn sarif(result: &LintResult, category: &str) -> serde_json::Value {
    let rules_json: Vec<serde_json::Value> = RULES.iter().map(sarif_rule).collect();
    let results: Vec<serde_json::Value> = result.diagnostics.iter().map(sarif_result).collect();
    let mut v = serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "cudasleuth",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/cudasleuth/cudasleuth",
                "rules": rules_json
            }},
            "automationDetails": {"id": format!("{category}/")},
            "columnKind": "unicodeCodePoints",
            "results": results,
            // the warnings (an unused or unknown suppression, a file not linted) as the run's
            // notifications, each at its place
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": result.warnings.iter().map(sarif_notification).collect::<Vec<_>>()
            }]
        }]
    });
    // the paths are relative to the project's root
    if result.root.is_absolute() {
        crate::report::ci::with_srcroot(&mut v, &result.root);
    }
    v
}

fn sarif_notification(w: &LintWarning) -> serde_json::Value {
    let mut region = serde_json::Map::new();
    if let Some(l) = w.line {
        region.insert("startLine".into(), l.into());
    }
    if let Some(c) = w.column {
        region.insert("startColumn".into(), c.into());
    }
    let mut physical = serde_json::json!({"artifactLocation": {"uri": w.file}});
    if !region.is_empty() {
        physical["region"] = serde_json::Value::Object(region);
    }
    serde_json::json!({
        "level": "warning",
        "descriptor": {"id": w.code},
        "message": {"text": w.message},
        "locations": [{"physicalLocation": physical}]
    })
}

fn sarif_result(d: &LintDiagnostic) -> serde_json::Value {
    let index = RULES.iter().position(|r| r.code == d.rule).unwrap_or(0);
    serde_json::json!({
        "ruleId": d.rule,
        "ruleIndex": index,
        "level": if d.severity == "error" { "error" } else { "warning" },
        "message": {"text": d.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": crate::report::ci::artifact(&d.project_path),
            "region": {"startLine": d.line, "startColumn": d.column, "endLine": d.end_line, "endColumn": d.end_column}
        }}],
        "partialFingerprints": {"cudasleuth/v1": d.fingerprint}
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_are_grouped_by_thousands() {
        for (n, s) in [(0, "0"), (7, "7"), (999, "999"), (1000, "1,000"), (1141, "1,141"), (1_881_063, "1,881,063")] {
            assert_eq!(super::grouped(n), s);
        }
    }
}
