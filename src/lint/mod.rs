//! `cudasleuth lint`: the rules without a log, for pre-commit and CI. Cross-file rules see the
//! whole project: a run on the whole project reads every file's facts (cached), a run on some
//! files reads the others' facts from the cache only where a rule needs them
//! (`analysis::project`); only the files asked for are reported.

pub mod config;
pub mod incremental;
pub mod output;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::rules;
use crate::scan::files::ProjectFiles;

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
    /// The place in the file, when the warning is about one (a suppression comment).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

impl LintWarning {
    pub fn of_file(file: String, code: &str, message: String) -> LintWarning {
        LintWarning { file, code: code.to_string(), message, line: None, column: None }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct LintResult {
    pub version: u32,
    pub kind: &'static str,
    /// How many files were checked (the human summary of a clean run says it).
    #[serde(skip)]
    pub checked: usize,
    pub diagnostics: Vec<LintDiagnostic>,
    pub warnings: Vec<LintWarning>,
    #[serde(skip)]
    pub root: PathBuf,
    /// The code read from standard input (`--stdin-filename`): its project path and text, shown
    /// in place of the file on disk.
    #[serde(skip)]
    pub stdin: Option<(String, String)>,
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
    /// A configuration file to use in place of the one found (`--config`).
    pub config: Option<PathBuf>,
    /// Read no configuration file (`--isolated`).
    pub isolated: bool,
    /// Code read from standard input and the file name it is linted as (`--stdin-filename`):
    /// the rest of the project is read from disk, this file's text is the one given.
    pub stdin: Option<(PathBuf, String)>,
}

/// One lint run, as the `lint` command makes it (once per process: the project's facts are
/// not freed).
pub fn run(opts: &Options) -> Result<LintResult, config::ConfigError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let start = opts.stdin.as_ref().map(|(name, _)| stdin_dir(name, &cwd)).or_else(|| opts.paths.first().filter(|p| !is_glob(p)).cloned());
    let root = project_root(start.as_deref().unwrap_or(&cwd));
    let path = match (&opts.config, opts.isolated) {
        (_, true) => None,
        (Some(p), false) => Some(p.clone()),
        (None, false) => config::discover(&root)?,
    };
    let mut cfg = match path {
        Some(p) => config::load(&p)?,
        None => config::LintConfig::default(),
    };
    cfg.preview |= opts.preview;
    cfg.override_with(opts.select.clone(), &opts.extend_select, &opts.ignore);
    if let Some((name, text)) = &opts.stdin {
        return Ok(lint_stdin(name, text, &cfg, root, &cwd));
    }
    let cache = if opts.no_cache { None } else { crate::scan::cache::Cache::open() };
    let (summary, files) = incremental::open(cache.as_ref(), &root);
    let (wanted, unselected) = chosen_files(&opts.paths, &files, &root, &cwd);
    // what the walk could not read, and paths given that select no file: warnings, never silence
    let mut said: Vec<LintWarning> = files
        .problems
        .iter()
        .map(|(path, why)| LintWarning::of_file(display_path(&root, path, cwd.as_path()), "walk", why.clone()))
        .collect();
    said.extend(unselected);
    let (findings, scan_warnings) = incremental::findings(&root, &files, cache.as_ref(), summary, wanted.as_ref());
    let mut result = apply(findings, scan_warnings, &cfg, wanted.as_ref(), &files, Place { root, cwd: &cwd, stdin: None });
    result.warnings.splice(0..0, said);
    Ok(result)
}

/// A path argument that is a glob the shell did not expand (quoted, or matching nothing):
/// it holds a glob character and names no existing file.
pub fn is_glob(p: &Path) -> bool {
    p.to_string_lossy().contains(['*', '?', '[']) && std::fs::symlink_metadata(p).is_err()
}

/// The directory a `--stdin-filename` names (the file itself need not exist).
fn stdin_dir(name: &Path, cwd: &Path) -> PathBuf {
    let full = cwd.join(name);
    let dir = full.parent().map(Path::to_path_buf).unwrap_or_else(|| cwd.to_path_buf());
    // the nearest existing directory above it: a new file in a new package is still in the project
    dir.ancestors().find(|d| d.is_dir()).map(Path::to_path_buf).unwrap_or_else(|| cwd.to_path_buf())
}

/// `lint --stdin-filename NAME`: the code given on standard input linted as the project file
/// NAME (the other files as they are on disk, without the cache: the cache holds what is on
/// disk). Only NAME is reported.
fn lint_stdin(name: &Path, text: &str, cfg: &config::LintConfig, root: PathBuf, cwd: &Path) -> LintResult {
    let full = std::fs::canonicalize(stdin_dir(name, cwd)).unwrap_or_else(|_| cwd.to_path_buf()).join(name.file_name().unwrap_or_default());
    let rel = full.strip_prefix(&root).unwrap_or(name).to_string_lossy().replace('\\', "/");
    let walked = ProjectFiles::walk(&root);
    let mut paths: Vec<String> = walked.paths().iter().filter(|p| **p != rel).cloned().collect();
    let mut facts = crate::scan::scan_files(&root, &paths, None);
    let (given, _) = crate::scan::scan_bytes(&rel, text.as_bytes().to_vec(), None, None, crate::scan::Prior::None);
    match given {
        Ok(f) if !f.path.is_empty() => facts.files.push(f),
        Ok(_) => {}
        Err(w) => facts.warnings.push(w),
    }
    crate::scan::read_referenced_data(&root, &mut facts);
    let findings = rules::run_all(&facts);
    paths.push(rel.clone());
    let files = ProjectFiles::from_list(paths);
    let wanted = BTreeSet::from([rel.clone()]);
    let stdin = Some((rel, text.to_string()));
    apply(findings, facts.warnings, cfg, Some(&wanted), &files, Place { root, cwd, stdin })
}

/// Which project files to report on: the paths given (files or directories, as project paths),
/// else all (None); and a warning for each path given that selects no file (a link to a file
/// outside the project, a file the walk leaves out, a directory with no Python in it).
fn chosen_files(paths: &[PathBuf], files: &ProjectFiles, root: &Path, cwd: &Path) -> (Option<BTreeSet<String>>, Vec<LintWarning>) {
    if paths.is_empty() {
        return (None, Vec::new());
    }
    let mut set = BTreeSet::new();
    let mut warnings = Vec::new();
    let known = |rel: &str| files.paths().binary_search_by(|p| p.as_str().cmp(rel)).is_ok();
    for p in paths {
        if is_glob(p) {
            // a quoted glob (the shell left it): matched against the project's files, from the
            // current directory, with `**` as zero or more directories
            let text = p.to_string_lossy().replace('\\', "/");
            let here = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
            let pattern = match here.strip_prefix(root) {
                Ok(prefix) if !prefix.as_os_str().is_empty() => {
                    format!("{}/{}", prefix.to_string_lossy().replace('\\', "/"), text.trim_start_matches("./"))
                }
                _ => text.trim_start_matches("./").to_string(),
            };
            let before = set.len();
            set.extend(files.paths().iter().filter(|f| crate::scan::files::shell_glob_match(&pattern, f)).cloned());
            if set.len() == before {
                warnings.push(LintWarning::of_file(text, "not-linted", "the glob matches no file the project's walk keeps".to_string()));
            }
            continue;
        }
        let abs = std::fs::canonicalize(p).unwrap_or_else(|_| cwd.join(p));
        let is_link = std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
        let Ok(rel) = abs.strip_prefix(root) else {
            let why = if is_link {
                format!("a symbolic link to {}, outside the project ({}): not linted", abs.display(), root.display())
            } else {
                format!("outside the project ({}): not linted", root.display())
            };
            warnings.push(LintWarning::of_file(p.display().to_string(), "not-linted", why));
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let before = set.len();
        if known(&rel) {
            set.insert(rel);
        } else {
            // a directory given: the files under it
            let dir = if rel.is_empty() { rel } else { format!("{rel}/") };
            set.extend(files.paths().iter().filter(|f| f.starts_with(dir.as_str())).cloned());
        }
        if set.len() == before && !abs.is_dir() {
            let why = if is_link {
                "a symbolic link: the project walk does not follow links; lint the file it points to".to_string()
            } else {
                "not a file the project's walk keeps (ignored by .gitignore, in a virtualenv, or not Python): not linted".to_string()
            };
            warnings.push(LintWarning::of_file(p.display().to_string(), "not-linted", why));
        }
    }
    (Some(set), warnings)
}

/// Where a lint run reports: the project root, the current directory (paths are shown from
/// it) and the file read from standard input, if any (its project path and text).
struct Place<'a> {
    root: PathBuf,
    cwd: &'a Path,
    stdin: Option<(String, String)>,
}

/// The findings and warnings as reported: the configuration's rules, the files asked for,
/// sorted, and the suppression comments applied.
fn apply(
    mut findings: Vec<rules::Finding>,
    scan_warnings: Vec<crate::scan::facts::Skipped>,
    cfg: &config::LintConfig,
    wanted: Option<&BTreeSet<String>>,
    files: &ProjectFiles,
    at: Place<'_>,
) -> LintResult {
    let Place { root, cwd, stdin } = at;
    // a settings file (TOML, INI) is no file the walk keeps: a finding at one of its keys is
    // reported when the run covers every file the walk keeps
    let whole = wanted.as_ref().map_or(true, |w| files.paths().iter().all(|p| w.contains(p)));
    let settings = |path: &str| whole && crate::scan::ini::is_settings_path(path);
    let reported = |path: &str| (wanted.as_ref().map_or(true, |w| w.contains(path)) || settings(path)) && !cfg.excluded(path);

    findings.retain(|f| {
        let rule = rules::find_rule(f.rule).expect("findings come from registered rules");
        f.lint && cfg.enabled(rule) && reported(&f.file) && !cfg.ignored_in_file(f.rule, &f.file)
    });
    findings.sort_by(|a, b| (&a.file, a.span.line, a.span.column, a.rule).cmp(&(&b.file, b.span.line, b.span.column, b.rule)));
    findings.dedup_by(|a, b| a.fingerprint == b.fingerprint && a.span == b.span);

    let checked = files.paths().iter().filter(|p| reported(p)).count();
    let mut result =
        LintResult { version: 1, kind: "lint", checked, diagnostics: Vec::new(), warnings: Vec::new(), root: root.clone(), stdin: None };
    for (path, why) in &scan_warnings {
        if reported(path) {
            result.warnings.push(LintWarning::of_file(display_path(&root, path, cwd), why.code(), why.to_string()));
        }
    }

    // Suppressions: `# cudasleuth: ignore[CS101]` (or a bare `# cudasleuth: ignore`, or
    // `# noqa: CS101`) on the line, `# cudasleuth: ignore-file[CS101]` anywhere in the file
    let mut used: BTreeSet<(String, u32)> = BTreeSet::new();
    let mut texts: std::collections::HashMap<String, Vec<String>> = std::collections::HashMap::new();
    if let Some((rel, text)) = &stdin {
        texts.insert(rel.clone(), text.lines().map(str::to_string).collect());
    }
    for f in findings {
        let lines = texts.entry(f.file.clone()).or_insert_with(|| read_lines(&root.join(&f.file)));
        let line_text = lines.get(f.span.line as usize - 1).map(String::as_str).unwrap_or("");
        let on_line = suppression(line_text).filter(|s| !s.file_level && s.covers(f.rule));
        let in_file = || {
            lines.iter().enumerate().find_map(|(i, l)| suppression(l).filter(|s| s.file_level && s.covers(f.rule)).map(|_| i as u32 + 1))
        };
        if let Some(at) = on_line.map(|_| f.span.line).or_else(in_file) {
            used.insert((f.file.clone(), at));
            continue;
        }
        let rule = rules::find_rule(f.rule).unwrap();
        result.diagnostics.push(LintDiagnostic {
            file: display_path(&root, &f.file, cwd),
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
            let Some(sup) = suppression(l) else { continue };
            let at = |message: String, code: &str| LintWarning {
                file: display_path(&root, f, cwd),
                code: code.to_string(),
                message,
                line: Some(i as u32 + 1),
                column: Some(sup.column),
            };
            let unknown: Vec<&String> = sup.codes.iter().filter(|c| rules::find_rule(c).is_none()).collect();
            for c in &unknown {
                result
                    .warnings
                    .push(at(format!("`{c}` in `{}` is not a cudasleuth rule (`cudasleuth rule` lists them)", sup.text), "unknown-rule"));
            }
            if !used.contains(&(f.clone(), i as u32 + 1)) && unknown.len() < sup.codes.len().max(1) {
                result.warnings.push(at(format!("`{}` suppresses nothing", sup.text), "unused-suppression"));
            }
        }
    }
    result.stdin = stdin;
    result
}

/// Whether a file has a suppression comment at all (most do not: their lines are not split).
fn mentions_suppression(p: &Path) -> bool {
    std::fs::read(p).is_ok_and(|b| {
        let lower = b.to_ascii_lowercase();
        memchr::memmem::find(&lower, b"cudasleuth").is_some() || memchr::memmem::find(&lower, b"noqa").is_some()
    })
}

fn read_lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p).map(|t| t.lines().map(str::to_string).collect()).unwrap_or_default()
}

/// A suppression comment: the codes it names (empty: every rule), whether it covers the whole
/// file, the 1-based column of its `#` and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    pub codes: Vec<String>,
    pub file_level: bool,
    pub column: u32,
    pub text: String,
}

impl Suppression {
    pub fn covers(&self, rule: &str) -> bool {
        self.codes.is_empty() || self.codes.iter().any(|c| c == rule)
    }
}

/// The suppression comment on a line, if it has one, as ruff users write them: `# cudasleuth:
/// ignore[CS101, CS102]` with any spacing or case, `# cudasleuth: ignore` (every rule),
/// `# cudasleuth: ignore-file[CS101]`, or `# noqa: CS101` (a `noqa` naming no CS code is another
/// tool's and not ours).
pub fn suppression(line: &str) -> Option<Suppression> {
    static OURS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    static NOQA: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let hash = line.find('#')?;
    let comment = &line[hash..];
    let codes = |list: &str| -> Vec<String> {
        list.split(|c: char| c == ',' || c.is_whitespace()).map(|c| c.trim().to_ascii_uppercase()).filter(|c| !c.is_empty()).collect()
    };
    let ours =
        OURS.get_or_init(|| regex::Regex::new(r"(?i)\bcudasleuth\s*:\s*ignore(-file)?\b(?:\s*\[([^\]]*)\])?").expect("a valid pattern"));
    if let Some(m) = ours.captures(comment) {
        let all = m.get(0).map_or("", |x| x.as_str());
        return Some(Suppression {
            codes: m.get(2).map(|x| codes(x.as_str())).unwrap_or_default(),
            file_level: m.get(1).is_some(),
            column: (line[..hash].chars().count() + 1) as u32,
            text: format!("# {}", all.trim()),
        });
    }
    let noqa = NOQA.get_or_init(|| regex::Regex::new(r"(?i)\bnoqa\s*:\s*([a-z]+[0-9]+(?:\s*,\s*[a-z]+[0-9]+)*)").expect("a valid pattern"));
    let m = noqa.captures(comment)?;
    let ours: Vec<String> = codes(m.get(1)?.as_str()).into_iter().filter(|c| c.starts_with("CS")).collect();
    if ours.is_empty() {
        return None;
    }
    Some(Suppression {
        codes: ours,
        file_level: false,
        column: (line[..hash].chars().count() + 1) as u32,
        text: format!("# {}", m.get(0).map_or("", |x| x.as_str()).trim()),
    })
}
