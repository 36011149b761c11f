//! A repro run's results as a report: the run's own output read like any log, the static
//! suspects ranked and confirmed by the witness, and (with the original log) the replay of the
//! failing predicate.

use std::io::Write;
use std::path::PathBuf;

use super::{ci_text, Format, Terminal};
use crate::log::{self, LogSource};
use crate::model::Report;
use crate::rank::{advice, assemble, confirm, quote, suspects};
use crate::report::human;
use crate::repro::{self, replay, ReproError};
use crate::scan::{self, files::ProjectFiles};

/// Where the replay against the original log runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Replay {
    // (auto: the GPU through NVRTC when present, else the CPU; the flag's help says so)
    Auto,
    Gpu,
    Cpu,
}

pub struct ReproRequest {
    pub opts: repro::Options,
    /// The project (default: the current directory).
    pub project: Option<PathBuf>,
    /// Read the results of an earlier run from this directory instead of running.
    pub read: Option<PathBuf>,
    /// The original crash log, and where to replay the failing predicate.
    pub original_log: Option<(PathBuf, Replay)>,
    pub format: Format,
    pub terminal: Terminal,
    /// Home directories out of the report's paths (`--redact`), in every format; the
    /// command's own output, echoed while it runs, is the command's.
    pub redact: bool,
}

/// `cudasleuth repro`: run the command guarded (or read an earlier run), write the report to
/// `out`, and return repro's exit code (`repro::exit`).
pub fn repro(req: &ReproRequest, out: &mut dyn Write) -> Result<u8, ReproError> {
    let opts = &req.opts;
    let root = req.project.clone().unwrap_or_else(|| PathBuf::from("."));
    if !root.is_dir() {
        return Err(ReproError::Project(root));
    }
    let outcome = match &req.read {
        Some(dir) => {
            let collected = repro::collect(dir);
            if collected.witnesses.is_empty() && collected.sweeps.is_empty() && collected.loaded.is_empty() {
                return Err(ReproError::NothingToRead(dir.clone()));
            }
            repro::Outcome {
                collected,
                ending: repro::process::Ending::Exited(None),
                seconds: 0.0,
                out_dir: dir.clone(),
                log: dir.join("run.log"),
                environment: Vec::new(),
            }
        }
        None => repro::run(opts)?,
    };
    let files = ProjectFiles::walk(&root);
    let facts = scan::scan_project(&root, &files);
    let incident = match log::read_log(&LogSource::File(outcome.log.clone())) {
        Ok(i) => i,
        Err(_) => log::read_from(Box::new(std::io::Cursor::new(Vec::new()))),
    };
    let argv = if req.read.is_some() { Vec::new() } else { opts.argv.clone() };
    let source = if argv.is_empty() { outcome.log.display().to_string() } else { argv.join(" ") };
    let mut report = assemble::assemble_with(&source, &incident, crate::kb::kb(), Some((root.as_path(), &files)));
    let cpu = opts.cpu || outcome.collected.loaded.iter().any(|l| crate::model::witness::Loaded::of(l).cpu);
    let code = repro::confirm::finish(&mut report, &outcome, &argv, opts.sweep, cpu);
    report.suspects = suspects::rank(&report, &facts);
    born_pass(&mut report, req, &root, &outcome.out_dir);
    confirm::confirm(&mut report, Some(&root), Some(&files));
    report.next_steps = advice::next_steps(&report, &incident);
    if report.witness.is_none() {
        report.next_steps.splice(0..0, repro::confirm::cpu_hint(&outcome, &argv, cpu));
    }
    if let (Some((log_path, choice)), Some(w)) = (&req.original_log, &report.witness) {
        match log::read_log(&LogSource::File(log_path.clone())) {
            Ok(original) => {
                let logged = assemble::assemble_with(&log_path.display().to_string(), &original, crate::kb::kb(), None);
                let backend = match choice {
                    Replay::Auto => replay::Backend::Auto,
                    Replay::Gpu => replay::Backend::Gpu,
                    Replay::Cpu => replay::Backend::Cpu,
                };
                let python = opts.argv.first().filter(|p| p.contains("python")).map(String::as_str);
                let r = replay::against_log(w, &outcome.out_dir, &original, &logged.asserts, backend, python);
                report.replay = serde_json::to_value(&r).ok();
            }
            Err(e) => report.warnings.push(format!("--log {}: {e}", log_path.display())),
        }
    }
    let _ = write_report(&report, req, root, out);
    Ok(code)
}

/// The born-at pass after a caught violation (or its result, read back with `--read`): the
/// spec names the witness's op, value, sample and bound, and the static suspects' lines to
/// watch; the result goes into the witness as `born`.
fn born_pass(report: &mut Report, req: &ReproRequest, root: &std::path::Path, out_dir: &std::path::Path) {
    let Some(w) = report.witness.as_ref() else { return };
    let born = if req.read.is_some() {
        repro::read_born(&out_dir.join("born"))
    } else if req.opts.born {
        let bad = w.get("bad").and_then(|b| b.get(0));
        let Some((value, range)) = crate::model::witness::born_followed(w) else { return };
        let abs = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let watch: Vec<serde_json::Value> = report
            .suspects
            .iter()
            .filter(|s| s.file.ends_with(".py"))
            .map(|s| serde_json::json!([abs.join(&s.file).display().to_string(), s.line]))
            .collect();
        let spec = serde_json::json!({
            "op": w.get("op"),
            "value": value,
            "sample": bad.and_then(|b| b.get("sample")),
            "bound": w.get("bound"),
            "range": range,
            "watch": watch,
        });
        let mut opts = req.opts.clone();
        opts.project = Some(abs);
        match repro::run_born(&opts, out_dir, &spec) {
            Ok(b) => b,
            Err(e) => {
                // the first run's report stands without it
                report.warnings.push(format!("the born-at pass did not run: {e}"));
                None
            }
        }
    } else {
        None
    };
    if let (Some(b), Some(serde_json::Value::Object(o))) = (born, report.witness.as_mut()) {
        o.insert("born".into(), b);
    }
}

fn write_report(report: &Report, req: &ReproRequest, root: PathBuf, out: &mut dyn Write) -> std::io::Result<()> {
    // JSON quotes nothing: the project's files are read only for the formats that show them
    let quoted = || quote::quote(report, Some(&root));
    match req.format {
        Format::Json => {
            let mut v = serde_json::to_value(report).map_err(std::io::Error::from)?;
            if req.redact {
                crate::report::ci::redact_value(&mut v);
            }
            serde_json::to_writer(&mut *out, &v).map_err(std::io::Error::from).and_then(|_| writeln!(out))
        }
        Format::Human => {
            let quoted = quoted();
            let style = human::Style { color: req.terminal.color, width: req.terminal.width, quoted };
            let text = crate::report::inert(&human::render(report, &style));
            write!(out, "\n{}", if req.redact { crate::report::ci::redact(&text) } else { text })
        }
        _ => out.write_all(ci_text(std::slice::from_ref(report), &[quoted()], req.format, Some(&root), req.redact).as_bytes()),
    }
}
