//! The `explain` front end: crash logs (and a project) in, rendered reports out. `run` is the
//! whole `cudasleuth explain` pipeline; `repro` (in `repro.rs`) turns a repro run's results
//! into the same report.

mod repro;

use std::io::Write;
use std::path::{Path, PathBuf};

use thiserror::Error;

pub use self::repro::{repro, Replay, ReproRequest};
use crate::kb::{self, Kb, UserKbError};
use crate::log::{self, InputError, LogSource};
use crate::model::{Quoted, Report, Verdict};
use crate::rank::{advice, assemble, quote, suspects};
use crate::report::{ci, human};
use crate::scan::{self, files::ProjectFiles};

/// How a report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    /// GitHub Actions annotations: one per log, on the top suspect's line.
    Github,
    /// SARIF 2.1.0 for code scanning: one result per located suspect.
    Sarif,
    /// A Markdown summary (for $GITHUB_STEP_SUMMARY or a PR comment).
    Markdown,
}

/// Terminal settings for human output.
#[derive(Clone, Copy, Debug)]
pub struct Terminal {
    pub color: bool,
    pub width: usize,
}

pub struct Options {
    /// Log paths or globs; empty: stdin.
    pub logs: Vec<String>,
    pub project: Option<PathBuf>,
    pub format: Format,
    /// Markdown: replace home directories and the user's name in paths.
    pub redact: bool,
    pub terminal: Terminal,
}

/// What stops `explain` before it reads a log.
#[derive(Debug, Error)]
pub enum Error {
    #[error("--project {0}: not a directory")]
    Project(String),
}

/// The end of an `explain` run: whether something was found, and the logs that could not be read
/// (the others were explained).
pub struct Explained {
    pub found: bool,
    pub unreadable: usize,
}

impl Explained {
    /// `explain`'s exit code: 2 when a log could not be read, 1 when something was explained.
    pub fn exit_code(&self) -> u8 {
        if self.unreadable > 0 {
            2
        } else if self.found {
            1
        } else {
            0
        }
    }
}

/// A project configuration the explanation goes on without (its kernel sites are not used).
fn on_config_problem(e: UserKbError) {
    eprintln!("warning: {e} (explaining without its [tool.cudasleuth.kernels] sites; `cudasleuth lint` checks the file)");
}

/// `cudasleuth explain`: read each log, explain it (against the project when given), and write
/// the reports to `out`. A log that cannot be read is passed to `on_unreadable` as it happens
/// and the others are explained.
pub fn run(opts: &Options, out: &mut dyn Write, on_unreadable: &mut dyn FnMut(InputError)) -> Result<Explained, Error> {
    let logs = expand_globs(&opts.logs);
    let project = opts.project.as_deref();
    if let Some(p) = project {
        if !p.is_dir() {
            return Err(Error::Project(p.display().to_string()));
        }
    }
    let pyproject = project.unwrap_or(Path::new(".")).join("pyproject.toml");
    // a broken pyproject.toml never stops a crash from being explained: its kernel sites are
    // left out, and a warning says so
    let user_kb = match kb::user_sites(&pyproject) {
        Ok(sites) if !sites.is_empty() => Some(Kb::with_user_sites(sites)),
        Ok(_) => None,
        Err(e) => {
            on_config_problem(e);
            None
        }
    };
    let kb = user_kb.as_ref().unwrap_or_else(|| kb::kb());
    let files = project.map(ProjectFiles::walk);
    let facts = match (project, &files) {
        (Some(root), Some(f)) => Some(scan::scan_project(root, f)),
        _ => None,
    };
    let sources: Vec<LogSource> =
        if logs.is_empty() { vec![LogSource::Stdin] } else { logs.iter().map(|l| LogSource::from_arg(l)).collect() };
    let mut done = Explained { found: false, unreadable: 0 };
    let mut style_root: Option<&Path> = None;
    let mut kept: Vec<Report> = Vec::new();
    let mut quotes: Vec<Quoted> = Vec::new();
    // a sweep over many logs: a line on the terminal when it takes more than a second
    let progress = crate::progress::Progress::new("logs read", sources.len());
    for (i, source) in sources.iter().enumerate() {
        progress.step();
        let incident = match log::read_log(source) {
            Ok(inc) => inc,
            Err(e) => {
                on_unreadable(e);
                done.unreadable += 1;
                continue;
            }
        };
        let mut report = assemble::assemble_with(&source.display_name(), &incident, kb, project.zip(files.as_ref()));
        if let (Some(facts), Some(root)) = (&facts, project) {
            report.suspects = suspects::rank(&report, facts);
            report.next_steps = advice::next_steps(&report, &incident);
            style_root = Some(root);
        }
        done.found |= report.verdict != Verdict::None;
        progress.clear();
        // JSON quotes nothing: the project's files are read only for the formats that show them
        let quoted = || quote::quote(&report, style_root);
        let written = match opts.format {
            Format::Json if opts.redact => {
                let mut v = serde_json::to_value(&report).unwrap_or_default();
                ci::redact_value(&mut v);
                serde_json::to_writer(&mut *out, &v).map_err(std::io::Error::from).and_then(|_| writeln!(out))
            }
            Format::Json => serde_json::to_writer(&mut *out, &report).map_err(std::io::Error::from).and_then(|_| writeln!(out)),
            Format::Human => {
                let quoted = quoted();
                let sep = if i > 0 { "\n" } else { "" };
                let style = human::Style { color: opts.terminal.color, width: opts.terminal.width, quoted };
                let text = crate::report::inert(&human::render(&report, &style));
                write!(out, "{sep}{}", if opts.redact { ci::redact(&text) } else { text })
            }
            Format::Github | Format::Sarif | Format::Markdown => {
                quotes.push(quoted());
                kept.push(report);
                Ok(())
            }
        };
        if written.is_err() {
            // a closed pipe (`| head`): stop quietly
            return Ok(done);
        }
    }
    if !kept.is_empty() {
        let _ = out.write_all(ci_text(&kept, &quotes, opts.format, project, opts.redact).as_bytes());
    }
    Ok(done)
}

/// The CI formats, written once over all the reports.
pub fn ci_text(reports: &[Report], quotes: &[Quoted], format: Format, project: Option<&Path>, redact: bool) -> String {
    let prefix = quote::repo_prefix(project);
    match format {
        Format::Github => {
            let text = crate::report::inert(&ci::github(reports, &prefix));
            if redact {
                ci::redact(&text)
            } else {
                text
            }
        }
        Format::Sarif => {
            let mut v = ci::sarif(reports, &prefix);
            if redact {
                ci::redact_value(&mut v);
            } else if let Ok(cwd) = std::env::current_dir() {
                ci::with_srcroot(&mut v, &cwd);
            }
            serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
        }
        Format::Markdown => ci::markdown(reports, quotes, &prefix, redact),
        Format::Human | Format::Json => String::new(),
    }
}

/// Expand arguments with glob characters that name no file (CI configs often pass them quoted).
fn expand_globs(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for a in args {
        let is_glob = a.contains(['*', '?', '[']) && !Path::new(a).exists();
        if !is_glob {
            out.push(a.clone());
            continue;
        }
        let first = a.find(['*', '?', '[']).unwrap_or(0);
        let base = match a[..first].rfind('/') {
            Some(i) => a[..i].to_string(),
            None => ".".to_string(),
        };
        let mut found: Vec<String> = ignore::WalkBuilder::new(&base)
            .standard_filters(false)
            .build()
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| e.path().to_string_lossy().trim_start_matches("./").to_string())
            .filter(|p| crate::scan::files::glob_match(a.trim_start_matches("./"), p))
            .collect();
        found.sort();
        if found.is_empty() {
            out.push(a.clone()); // reported as not found
        } else {
            out.extend(found);
        }
    }
    out
}
