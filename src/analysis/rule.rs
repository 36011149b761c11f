//! The interface a rule implements: its metadata (`RuleInfo`) and what it reports (`Finding`).
//! The rules themselves live on the floor above (`crate::rules`).

use serde::Serialize;

use crate::analysis::context::Ctx;
use crate::scan::facts::{FileFacts, Span};

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub file: String,
    pub span: Span,
    pub message: String,
    pub evidence: Vec<String>,
    pub fingerprint: String,
    /// The failure class this problem leads to.
    pub category: &'static str,
    /// Worth reporting without a crash. A `label - 1` is often a correct 1-based → 0-based
    /// conversion, so only a log that shows a negative label makes it a suspect.
    pub lint: bool,
}

pub struct RuleInfo {
    pub code: &'static str,
    /// Names the bad pattern.
    pub name: &'static str,
    pub category: &'static str,
    pub doc: &'static str,
    pub check: fn(&Ctx, &mut Vec<Finding>),
    /// `error` or `warning` in lint output.
    pub severity: &'static str,
    /// New rules start in preview so an upgrade does not break anyone's CI.
    pub preview: bool,
}

/// The fingerprint stays the same when unrelated lines move: rule, file, scope, and what.
pub fn fingerprint(rule: &str, file: &FileFacts, scope: &str, what: &str) -> String {
    format!("{rule}:{}:{scope}:{}", file.path, what.replace(' ', ""))
}
