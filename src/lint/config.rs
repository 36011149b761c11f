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

use crate::rules::RuleInfo;

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

/// The configuration in `path`: a `pyproject.toml`'s `[tool.cudasleuth]` table (none: the
/// defaults), or any other TOML file's top level (`--config cudasleuth.toml`). A file that
/// cannot be read, is not UTF-8 or is not TOML is an error, never skipped in silence.
pub fn load(path: &Path) -> Result<LintConfig, ConfigError> {
    let err = |message: String| ConfigError { path: path.to_path_buf(), message };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && is_pyproject(path) => return Ok(LintConfig::default()),
        Err(e) => return Err(err(format!("cannot be read: {e}"))),
    };
    let text = String::from_utf8(bytes).map_err(|e| err(format!("is not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))?;
    let doc: toml::Value = toml::from_str(&text).map_err(|e| err(e.to_string()))?;
    let table = if is_pyproject(path) { doc.get("tool").and_then(|t| t.get("cudasleuth")).cloned() } else { Some(doc) };
    let config: LintConfig = match table {
        None => return Ok(LintConfig::default()),
        Some(v) => v.try_into().map_err(|e: toml::de::Error| err(e.to_string()))?,
    };
    config.check_codes().map_err(err)?;
    Ok(config)
}

fn is_pyproject(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "pyproject.toml")
}

/// The configuration file that applies at `start`, as ruff finds its own: the nearest
/// `pyproject.toml` at or above it that has a `[tool.cudasleuth]` table (one without it is
/// passed over). A `pyproject.toml` that cannot be read or parsed stops the search with its error.
pub fn discover(start: &Path) -> Result<Option<PathBuf>, ConfigError> {
    let mut cur = Some(start);
    while let Some(d) = cur {
        let p = d.join("pyproject.toml");
        if p.is_file() {
            let err = |message: String| ConfigError { path: p.clone(), message };
            let bytes = std::fs::read(&p).map_err(|e| err(format!("cannot be read: {e}")))?;
            let text = String::from_utf8(bytes).map_err(|e| err(format!("is not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))?;
            let doc: toml::Value = toml::from_str(&text).map_err(|e| err(e.to_string()))?;
            if doc.get("tool").and_then(|t| t.get("cudasleuth")).is_some() {
                return Ok(Some(p));
            }
        }
        cur = d.parent();
    }
    Ok(None)
}

/// Whether a selector names at least one rule: `ALL`, a code, or a code's prefix (`CS1`).
fn names_a_rule(sel: &str) -> bool {
    sel == "ALL" || (sel.len() >= 2 && crate::rules::RULES.iter().any(|r| r.code.starts_with(sel)))
}

/// The first selector of `codes` that names no rule, with the message that says so.
pub fn unknown_selector(codes: &[String], key: &str) -> Option<String> {
    let bad = codes.iter().find(|c| !names_a_rule(c))?;
    let known = crate::rules::RULES.iter().map(|r| r.code).collect::<Vec<_>>().join(", ");
    Some(format!("`{bad}` in `{key}` is not a rule code or a prefix of one (the rules: {known}; `ALL` selects every one)"))
}

pub use crate::scan::files::glob_match;

fn matches_code(code: &str, sel: &str) -> bool {
    sel == "ALL" || code.starts_with(sel)
}

impl LintConfig {
    /// A selector that names no rule is a typo that would silently turn a check off (or on
    /// nothing): refuse it, the way Python linters do.
    fn check_codes(&self) -> Result<(), String> {
        let lists =
            [("select", self.select.as_deref().unwrap_or_default()), ("extend-select", &self.extend_select), ("ignore", &self.ignore)];
        let pfi = self.per_file_ignores.iter().map(|(glob, codes)| (glob.as_str(), codes.as_slice()));
        match lists.into_iter().chain(pfi).find_map(|(key, codes)| unknown_selector(codes, key)) {
            Some(message) => Err(message),
            None => Ok(()),
        }
    }

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

    /// The command line's `--select` (in place of the configuration's), `--extend-select` and
    /// `--ignore` (added to it).
    pub fn override_with(&mut self, select: Option<Vec<String>>, extend_select: &[String], ignore: &[String]) {
        if select.is_some() {
            self.select = select;
        }
        self.extend_select.extend_from_slice(extend_select);
        self.ignore.extend_from_slice(ignore);
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
    fn selectors_must_name_rules() {
        let parse = |t: &str| -> LintConfig { toml::from_str(t).unwrap() };
        for ok in ["select = [\"CS1\", \"CS101\"]", "ignore = [\"ALL\"]", "[per-file-ignores]\n\"tests/*\" = [\"CS10\"]"] {
            assert!(parse(ok).check_codes().is_ok(), "{ok}");
        }
        for bad in ["select = [\"CS999\"]", "extend-select = [\"E501\"]", "ignore = [\"C\"]", "[per-file-ignores]\n\"tests/*\" = [\"CS9\"]"]
        {
            let e = parse(bad).check_codes().unwrap_err();
            assert!(e.contains("is not a rule code"), "{bad}: {e}");
        }
    }

    #[test]
    fn globs() {
        assert!(glob_match("tests/*", "tests/test_a.py"));
        assert!(!glob_match("tests/*", "src/tests.py"));
        assert!(glob_match("legacy/", "legacy/a/b.py"));
        assert!(glob_match("*_pb2.py", "proto/x_pb2.py"));
        assert!(glob_match("src/**/gen.py", "src/a/b/gen.py"));
        // `**` is zero or more directories, as bash's globstar has it
        assert!(glob_match("logs/**/*.log", "logs/a.log"));
        assert!(glob_match("logs/**/*.log", "logs/x/y/a.log"));
        assert!(!glob_match("logs/*.log", "logs/x/a.log"));
        assert!(!glob_match("logs/**/*.log", "other/logs/a.log"));
        assert!(glob_match("**/*.py", "a.py"));
    }
}
