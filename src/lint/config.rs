//! `[tool.cudasleuth]` in pyproject.toml, the way Python linters are configured:
//!
//! ```toml
//! [tool.cudasleuth]
//! select = ["CS1"]              # rule codes or prefixes; default: every stable rule
//! extend-select = ["CS106"]
//! ignore = ["CS105"]
//! exclude = ["legacy/", "*_pb2.py"]
//! preview = false               # rules still in preview run only when true
//!
//! [tool.cudasleuth.per-file-ignores]
//! "tests/*" = ["CS101"]
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::rank::rules::RuleInfo;

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LintConfig {
    #[serde(default)]
    pub select: Option<Vec<String>>,
    #[serde(default)]
    pub extend_select: Vec<String>,
    #[serde(default)]
    pub ignore: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub preview: bool,
    #[serde(default)]
    pub per_file_ignores: std::collections::BTreeMap<String, Vec<String>>,
    /// Project kernel sites (read by `explain`; accepted here so one table serves both).
    #[serde(default)]
    pub kernels: Option<toml::Value>,
}

#[derive(Debug, thiserror::Error)]
#[error("{path}: [tool.cudasleuth] is not valid: {message}")]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
}

pub fn load(pyproject: &Path) -> Result<LintConfig, ConfigError> {
    let Ok(text) = std::fs::read_to_string(pyproject) else { return Ok(LintConfig::default()) };
    let err = |message: String| ConfigError { path: pyproject.to_path_buf(), message };
    let doc: toml::Value = toml::from_str(&text).map_err(|e| err(e.to_string()))?;
    match doc.get("tool").and_then(|t| t.get("cudasleuth")) {
        None => Ok(LintConfig::default()),
        Some(v) => v.clone().try_into().map_err(|e: toml::de::Error| err(e.to_string())),
    }
}

fn matches_code(code: &str, sel: &str) -> bool {
    sel == "ALL" || code.starts_with(sel)
}

/// Simple globs: `*` within a path segment, `**` across, a trailing `/` for a directory.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    if let Some(dir) = pattern.strip_suffix('/') {
        return path == dir || path.starts_with(&format!("{dir}/")) || glob_match(&format!("{dir}/**"), path);
    }
    let re = regex::escape(pattern).replace(r"\*\*", "\u{1}").replace(r"\*", "[^/]*").replace('\u{1}', ".*").replace(r"\?", "[^/]");
    regex::Regex::new(&format!("^(?:{re})$")).is_ok_and(|r| r.is_match(path) || r.is_match(path.rsplit('/').next().unwrap_or(path)))
}

impl LintConfig {
    pub fn enabled(&self, rule: &RuleInfo) -> bool {
        if rule.preview && !self.preview {
            return false;
        }
        let selected = match &self.select {
            Some(sel) => sel.iter().any(|s| matches_code(rule.code, s)),
            None => true,
        } || self.extend_select.iter().any(|s| matches_code(rule.code, s));
        selected && !self.ignore.iter().any(|s| matches_code(rule.code, s))
    }

    pub fn excluded(&self, path: &str) -> bool {
        self.exclude.iter().any(|p| glob_match(p, path))
    }

    pub fn ignored_in_file(&self, code: &str, path: &str) -> bool {
        self.per_file_ignores.iter().any(|(glob, codes)| glob_match(glob, path) && codes.iter().any(|c| matches_code(code, c)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("tests/*", "tests/test_a.py"));
        assert!(!glob_match("tests/*", "src/tests.py"));
        assert!(glob_match("legacy/", "legacy/a/b.py"));
        assert!(glob_match("*_pb2.py", "proto/x_pb2.py"));
        assert!(glob_match("src/**/gen.py", "src/a/b/gen.py"));
    }
}
