//! `cudasleuth lint`: the rules without a log, for pre-commit and CI. Cross-file rules see the
//! whole project: a run on the whole project reads every file's facts (cached), a run on some
//! files reads the others' facts from the cache only where a rule needs them
//! (`analysis::project`); only the files asked for are reported.

pub mod config;
pub mod output;
pub mod summary;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::rules;
use crate::scan::{self, files::ProjectFiles};

#[derive(Debug, Clone, Serialize)]
pub struct LintDiagnostic {
    /// POSIX, relative to the current directory.
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub rule: String,
    pub severity: String,
    pub message: String,
    pub fingerprint: String,
    #[serde(skip)]
    pub project_path: String,
    #[serde(skip)]
    pub evidence: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LintWarning {
    pub file: String,
    pub code: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct LintResult {
    pub version: u32,
    pub kind: &'static str,
    pub diagnostics: Vec<LintDiagnostic>,
    pub warnings: Vec<LintWarning>,
    #[serde(skip)]
    pub root: PathBuf,
}

/// The nearest directory at or above `start` with a pyproject.toml or a .git.
pub fn project_root(start: &Path) -> PathBuf {
    let start = if start.is_file() { start.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")) } else { start };
    let abs = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    let mut cur = Some(abs.as_path());
    while let Some(d) = cur {
        if d.join("pyproject.toml").is_file() || d.join(".git").exists() {
            return d.to_path_buf();
        }
        cur = d.parent();
    }
    abs
}

/// `path` as the user would type it from the current directory.
fn display_path(root: &Path, rel: &str, cwd: &Path) -> String {
    let full = root.join(rel);
    match full.strip_prefix(cwd) {
        Ok(p) => p.to_string_lossy().replace('\\', "/"),
        Err(_) => full.to_string_lossy().replace('\\', "/"),
    }
}

pub struct Options {
    pub paths: Vec<PathBuf>,
    pub no_cache: bool,
    /// Run preview rules too (as `preview = true` in the config).
    pub preview: bool,
    /// Rules selected on the command line, in place of the configuration's `select`.
    pub select: Option<Vec<String>>,
    /// Added to the configuration's `extend-select` and `ignore`.
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
}

/// One lint run, as the `lint` command makes it (once per process: the project's facts are
/// not freed).
pub fn run(opts: &Options) -> Result<LintResult, config::ConfigError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let root = project_root(opts.paths.first().map(PathBuf::as_path).unwrap_or(&cwd));
    let mut cfg = config::load(&root.join("pyproject.toml"))?;
    cfg.preview |= opts.preview;
    cfg.override_with(opts.select.clone(), &opts.extend_select, &opts.ignore);
    let cache = if opts.no_cache { None } else { crate::scan::cache::Cache::open() };
    // The project's files: with a cache, the summary's record of the last walk while no
    // directory changed since
    let t = std::time::Instant::now();
    let (summary, files) = match &cache {
        Some(c) => {
            let (s, f) = summary::Summary::open(c, &root);
            (Some(s), f)
        }
        None => (None, ProjectFiles::walk(&root)),
    };
    let t = crate::timings::phase("summary", t);

    // Which project files to report on: the paths given (files or directories), else all.
    let wanted: Option<BTreeSet<String>> = if opts.paths.is_empty() {
        None
    } else {
        let mut set = BTreeSet::new();
        let mut dirs = Vec::new();
        let known = |rel: &str| files.paths().binary_search_by(|p| p.as_str().cmp(rel)).is_ok();
        for p in &opts.paths {
            let abs = std::fs::canonicalize(p).unwrap_or_else(|_| cwd.join(p));
            let Ok(rel) = abs.strip_prefix(&root) else { continue };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if known(&rel) {
                set.insert(rel);
            } else {
                dirs.push(if rel.is_empty() { rel } else { format!("{rel}/") });
            }
        }
        // directories given: the files under them
        if !dirs.is_empty() {
            set.extend(files.paths().iter().filter(|f| dirs.iter().any(|d| f.starts_with(d.as_str()))).cloned());
        }
        Some(set)
    };
    // The summary keeps the results of the last whole-project run while no file's facts change
    // (same stamps, same bytes, or new bytes with the same facts).
    let stored = summary.as_ref().and_then(|s| {
        s.results(&root).map(|r| (r, None)).or_else(|| s.results_same_facts(&root, &files, cache.as_ref()?).map(|(r, k)| (r, Some(k))))
    });
    let t = crate::timings::phase("stored results", t);
    let (mut findings, scan_warnings) = match stored {
        Some((stored, keys)) => {
            // files changed without a change of facts: record their new stamps and keys
            if let (Some(s), Some(keys)) = (summary, keys) {
                s.keep_results(&files, &keys);
            }
            stored
        }
        None => match (&cache, summary) {
            (Some(c), Some(mut s)) => {
                // a run on some files reads the others only where a rule needs them; a run on
                // the whole project reads them all (in parallel) and stores its results
                let some = wanted.as_ref().filter(|_| s.mostly_recorded());
                let now: Vec<bool> = files.paths().iter().map(|p| some.map_or(true, |w| w.contains(p))).collect();
                let scan = s.project(&root, &files, c, some.is_none(), &now);
                let t = crate::timings::phase("scan", t);
                let focus = some.map(|w| scan.project.paths.iter().map(|p| w.contains(p)).collect());
                let rule_files = crate::analysis::project::Files::of_project(&scan.project, focus);
                let previous = s.previous_records();
                let (findings, records) = rules::run_recorded(&rule_files, &previous);
                let t = crate::timings::phase("rules", t);
                crate::timings::count("files read by the rules", scan.project.loaded());
                s.save(&root, &files, &scan, some.is_none().then_some(findings.as_slice()), records);
                std::mem::forget(previous);
                crate::timings::phase("save", t);
                let warnings = scan.warnings.clone();
                // the facts of a large project are millions of small allocations, and a lint run
                // is the last thing the `lint` command does before it exits: they are left to the
                // process rather than freed one by one (a tenth of a large project's run)
                std::mem::forget(rule_files);
                std::mem::forget(scan);
                (findings, warnings)
            }
            _ => {
                let facts = scan::scan_project_cached(&root, &files, cache.as_ref());
                let t = crate::timings::phase("scan", t);
                let findings = rules::run_all(&facts);
                crate::timings::phase("rules", t);
                let crate::scan::facts::Facts { files: all, warnings } = facts;
                std::mem::forget(all);
                (findings, warnings)
            }
        },
    };
    let reported = |path: &str| wanted.as_ref().map_or(true, |w| w.contains(path)) && !cfg.excluded(path);

    findings.retain(|f| {
        let rule = rules::find_rule(f.rule).expect("findings come from registered rules");
        f.lint && cfg.enabled(rule) && reported(&f.file) && !cfg.ignored_in_file(f.rule, &f.file)
    });
    findings.sort_by(|a, b| (&a.file, a.span.line, a.span.column, a.rule).cmp(&(&b.file, b.span.line, b.span.column, b.rule)));
    findings.dedup_by(|a, b| a.fingerprint == b.fingerprint && a.span == b.span);

    let mut result = LintResult { version: 1, kind: "lint", diagnostics: Vec::new(), warnings: Vec::new(), root: root.clone() };
    for (path, why) in &scan_warnings {
        if reported(path) {
            result.warnings.push(LintWarning {
                file: display_path(&root, path, &cwd),
                code: warning_code(why).to_string(),
                message: why.clone(),
            });
        }
    }

    // Suppressions: `# cudasleuth: ignore[CS101]` (or a bare `# cudasleuth: ignore`) on the line.
    let mut used: BTreeSet<(String, u32)> = BTreeSet::new();
    let mut texts: std::collections::HashMap<String, Vec<String>> = std::collections::HashMap::new();
    for f in findings {
        let lines = texts.entry(f.file.clone()).or_insert_with(|| read_lines(&root.join(&f.file)));
        let line_text = lines.get(f.span.line as usize - 1).map(String::as_str).unwrap_or("");
        if let Some(codes) = suppression(line_text) {
            if codes.is_empty() || codes.iter().any(|c| c == f.rule) {
                used.insert((f.file.clone(), f.span.line));
                continue;
            }
        }
        let rule = rules::find_rule(f.rule).unwrap();
        result.diagnostics.push(LintDiagnostic {
            file: display_path(&root, &f.file, &cwd),
            project_path: f.file.clone(),
            line: f.span.line,
            column: f.span.column,
            end_line: f.span.end_line,
            end_column: f.span.end_column,
            rule: f.rule.to_string(),
            severity: rule.severity.to_string(),
            message: f.message,
            fingerprint: f.fingerprint,
            evidence: f.evidence,
        });
    }
    for f in files.paths().iter().filter(|p| reported(p)) {
        if !texts.contains_key(f) && !mentions_suppression(&root.join(f)) {
            continue;
        }
        let lines = texts.entry(f.clone()).or_insert_with(|| read_lines(&root.join(f)));
        for (i, l) in lines.iter().enumerate() {
            if suppression(l).is_some() && !used.contains(&(f.clone(), i as u32 + 1)) {
                result.warnings.push(LintWarning {
                    file: display_path(&root, f, &cwd),
                    code: "unused-suppression".into(),
                    message: format!("line {}: `# cudasleuth: ignore` suppresses nothing", i + 1),
                });
            }
        }
    }
    Ok(result)
}

fn warning_code(why: &str) -> &'static str {
    if why.contains("UTF-8") {
        "not-utf8"
    } else if why.contains("larger") {
        "too-large"
    } else if why.contains("notebook") {
        "bad-notebook"
    } else if why.contains("nested") {
        "too-deep"
    } else {
        "unreadable"
    }
}

/// Whether a file has a suppression comment at all (most do not: their lines are not split).
fn mentions_suppression(p: &Path) -> bool {
    std::fs::read(p).is_ok_and(|b| memchr::memmem::find(&b, b"cudasleuth: ignore").is_some())
}

fn read_lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p).map(|t| t.lines().map(str::to_string).collect()).unwrap_or_default()
}

/// The codes a `# cudasleuth: ignore[...]` comment names (empty: all), if the line has one.
pub fn suppression(line: &str) -> Option<Vec<String>> {
    let hash = line.find('#')?;
    let comment = &line[hash..];
    let at = comment.find("cudasleuth: ignore")?;
    let rest = &comment[at + "cudasleuth: ignore".len()..];
    if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.split(']').next()) {
        return Some(inner.split(',').map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect());
    }
    Some(Vec::new())
}
