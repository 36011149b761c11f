//! `cudasleuth repro`: run the user's command once more, synchronized and guarded by a Python
//! shim that checks each guarded op's bound before the kernel runs, and read back the witness.
//!
//! The shim is an embedded Python package and a loader written into a temporary directory that goes first
//! on `PYTHONPATH` (`sitecustomize.py` loads the `cudasleuth_shim` package, then the user's own
//! sitecustomize). Nothing in the user's project is written; the temporary directory is
//! removed afterwards. Results land in `--out` (default: a fresh directory under the system's
//! temporary directory, kept and named in the report).

pub mod confirm;
pub mod gpu;
pub mod npy;
pub mod process;
pub mod replay;

use std::path::{Path, PathBuf};
use std::time::Duration;

use thiserror::Error;

// SHIM_FILES: the modules of python/cudasleuth_shim, as (file name, text), listed by build.rs
include!(concat!(env!("OUT_DIR"), "/shim_files.rs"));
pub const SITECUSTOMIZE: &str = include_str!("sitecustomize.py");

/// The seed of Python's, numpy's and torch's generators in both runs of a repro.
pub const SEED: u32 = 20_261_203;

/// Exit codes of `repro` (docs/repro.md).
pub mod exit {
    pub const CLEAN: u8 = 0;
    pub const VIOLATION: u8 = 1;
    pub const SETUP: u8 = 2;
    pub const COMMAND_FAILED: u8 = 3;
    pub const TIMEOUT: u8 = 4;
    pub const INTERRUPTED: u8 = 130;
}

#[derive(Debug, Error)]
pub enum ReproError {
    #[error("no command given")]
    NoCommand,
    #[error("`{flag}` makes Python skip sitecustomize, so the shim would never load")]
    SkipsSite { flag: String },
    #[error("--out {0}: already holds the results of an earlier run (a witness, a sweep or run.log)")]
    OutNotEmpty(PathBuf),
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot start `{program}`: {source}")]
    Spawn { program: String, source: std::io::Error },
    #[error("--read {0}: no loaded-*.json, witness-*.json or sweep-*.json there")]
    NothingToRead(PathBuf),
    #[error("--project {0}: not a directory")]
    Project(PathBuf),
}

#[derive(Clone)]
pub struct Options {
    pub argv: Vec<String>,
    pub cpu: bool,
    pub sweep: bool,
    pub timeout: Option<Duration>,
    pub out: Option<PathBuf>,
    pub project: Option<PathBuf>,
    pub no_values: bool,
    /// After a caught violation, run the command once more under the born-at tracer.
    pub born: bool,
    /// Child output to stderr (machine-readable formats keep stdout for the report).
    pub echo_to_stderr: bool,
    pub quiet: bool,
    /// The command reads cudasleuth's stdin (`--stdin`); else its stdin is closed and it runs
    /// in a session of its own.
    pub stdin: bool,
    /// Keep this run's results directory out of the cleanup of old runs (`--keep`).
    pub keep: bool,
}

/// What a run left behind, read back from the out directory.
#[derive(Debug, Default)]
pub struct Collected {
    pub witnesses: Vec<serde_json::Value>,
    pub sweeps: Vec<serde_json::Value>,
    pub loaded: Vec<serde_json::Value>,
    pub unmapped: Vec<serde_json::Value>,
}

pub struct Outcome {
    pub collected: Collected,
    pub ending: process::Ending,
    pub seconds: f64,
    pub out_dir: PathBuf,
    pub log: PathBuf,
    pub environment: Vec<String>,
}

/// The flags of a `python` command line that drop sitecustomize: -I (isolated), -E (ignore
/// PYTHON* variables, so PYTHONPATH), -S (no site module).
pub fn python_skips_site(argv: &[String]) -> Option<String> {
    let prog = Path::new(argv.first()?).file_name()?.to_string_lossy().to_string();
    let is_python = prog.starts_with("python") || prog == "py";
    if !is_python {
        return None;
    }
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        if a == "--" || !a.starts_with('-') || a == "-" || a == "-m" || a == "-c" || a.starts_with("--") {
            break;
        }
        let letters = &a[1..];
        for (j, ch) in letters.char_indices() {
            match ch {
                'I' | 'E' | 'S' => return Some(format!("python -{ch}")),
                // options that take the rest of this argument or the next one as a value
                'X' | 'W' | 'm' | 'c' => {
                    if j + 1 == letters.len() && ch != 'm' && ch != 'c' {
                        i += 1;
                    }
                    if ch == 'm' || ch == 'c' {
                        return None;
                    }
                    break;
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// Write the shim package (`cudasleuth_shim/`) and the `sitecustomize.py` that loads it into `dir`.
pub fn write_shim(dir: &Path) -> Result<(), ReproError> {
    let package = dir.join("cudasleuth_shim");
    std::fs::create_dir_all(&package).map_err(|source| ReproError::Write { path: package.clone(), source })?;
    let files = SHIM_FILES.iter().map(|(name, text)| (package.join(name), *text));
    for (path, text) in files.chain([(dir.join("sitecustomize.py"), SITECUSTOMIZE)]) {
        std::fs::write(&path, text).map_err(|source| ReproError::Write { path, source })?;
    }
    Ok(())
}

/// The variables that arm the shim, as (name, value); `shim_dir` goes first on PYTHONPATH.
pub fn shim_env(shim_dir: &Path, out_dir: &Path, opts: &Options) -> Vec<(String, String)> {
    let mut env = Vec::new();
    let old = std::env::var("PYTHONPATH").unwrap_or_default();
    let sep = if cfg!(windows) { ";" } else { ":" };
    let pp = if old.is_empty() { shim_dir.display().to_string() } else { format!("{}{sep}{old}", shim_dir.display()) };
    env.push(("PYTHONPATH".into(), pp));
    env.push(("CUDA_LAUNCH_BLOCKING".into(), "1".into()));
    env.push(("TORCHDYNAMO_DISABLE".into(), "1".into()));
    env.push(("PYTHONUNBUFFERED".into(), "1".into()));
    env.push(("CUDASLEUTH_OUT".into(), out_dir.display().to_string()));
    env.push(("CUDASLEUTH_MODE".into(), if opts.sweep { "sweep" } else { "guard" }.into()));
    // both runs of a repro draw the same random numbers (the born-at pass must meet the same
    // samples); a seed or hash seed the user set is theirs
    env.push(("CUDASLEUTH_SEED".into(), SEED.to_string()));
    if std::env::var_os("PYTHONHASHSEED").is_none() {
        env.push(("PYTHONHASHSEED".into(), SEED.to_string()));
    }
    if opts.cpu {
        env.push(("CUDASLEUTH_CPU".into(), "1".into()));
        env.push(("CUDA_VISIBLE_DEVICES".into(), String::new()));
    }
    if opts.no_values {
        env.push(("CUDASLEUTH_NO_VALUES".into(), "1".into()));
    }
    if let Some(p) = &opts.project {
        let abs = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
        env.push(("CUDASLEUTH_PROJECT".into(), abs.display().to_string()));
    }
    env
}

/// A fresh directory under the system's temporary directory.
pub fn fresh_dir(prefix: &str) -> std::io::Result<PathBuf> {
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    new_dir(&std::env::temp_dir(), |n| format!("{prefix}-{}-{:x}", std::process::id(), stamp as u64 ^ u64::from(n)))
}

/// A directory made new in `base`, named by `name(n)` for the first n whose name is free.
fn new_dir(base: &Path, name: impl Fn(u32) -> String) -> std::io::Result<PathBuf> {
    for n in 0..1000u32 {
        let dir = base.join(name(n));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free directory name"))
}

/// Removes the shim's temporary directory when dropped (also on early returns).
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn prepare_out(out: Option<&Path>, keep: bool) -> Result<PathBuf, ReproError> {
    match out {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|source| ReproError::Write { path: dir.to_path_buf(), source })?;
            // an earlier run's results are neither overwritten nor read as this run's
            let stale = collect(dir);
            if !stale.witnesses.is_empty() || !stale.sweeps.is_empty() || dir.join("run.log").exists() {
                return Err(ReproError::OutNotEmpty(dir.to_path_buf()));
            }
            Ok(std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()))
        }
        None => {
            let runs = runs_dir();
            let dir = new_run_dir(&runs).map_err(|source| ReproError::Write { path: runs.clone(), source })?;
            if keep {
                let _ = std::fs::write(dir.join(KEEP_MARK), "");
            }
            Ok(dir)
        }
    }
}

/// Where runs without `--out` keep their results: `runs/` in cudasleuth's cache directory.
pub fn runs_dir() -> PathBuf {
    crate::scan::cache::base_dir().unwrap_or_else(|| std::env::temp_dir().join("cudasleuth")).join("runs")
}

/// The most recent runs kept in `runs_dir()` (besides those run with `--keep`).
pub const RUNS_KEPT: usize = 20;

/// A run's results directory holding this file was run with `--keep`.
const KEEP_MARK: &str = ".keep";

/// A new results directory in `runs`, named so that names sort by time.
fn new_run_dir(runs: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(runs)?;
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    new_dir(runs, |n| format!("run-{secs:011}-{}-{n}", std::process::id()))
}

/// Removes the results of runs older than the `RUNS_KEPT` most recent, except those run with
/// `--keep` and `current`.
fn clean_old_runs(runs: &Path, current: &Path) {
    let Ok(rd) = std::fs::read_dir(runs) else { return };
    let mut names: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("run-")) && p != current && !p.join(KEEP_MARK).exists())
        .collect();
    names.sort();
    let drop = names.len().saturating_sub(RUNS_KEPT - 1);
    for p in &names[..drop] {
        // a results directory is plain files the shim wrote; one that is a link is left alone
        if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()) {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

pub fn run(opts: &Options) -> Result<Outcome, ReproError> {
    if opts.argv.is_empty() {
        return Err(ReproError::NoCommand);
    }
    if let Some(flag) = python_skips_site(&opts.argv) {
        return Err(ReproError::SkipsSite { flag });
    }
    let out_dir = prepare_out(opts.out.as_deref(), opts.keep)?;
    let (ran, env) = match run_shimmed(opts, &out_dir, &[], opts.echo_to_stderr, opts.quiet) {
        Ok(r) => r,
        Err(e) => {
            // a command that never started leaves no results directory behind
            if opts.out.is_none() {
                let _ = std::fs::remove_dir_all(&out_dir);
            }
            return Err(e);
        }
    };
    if opts.out.is_none() {
        clean_old_runs(&runs_dir(), &out_dir);
    }
    let environment: Vec<String> = env
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "PYTHONPATH" | "CUDASLEUTH_OUT" | "CUDASLEUTH_PROJECT"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    Ok(Outcome { collected: collect(&out_dir), ending: ran.ending, seconds: ran.seconds, out_dir, log: ran.log, environment })
}

/// Write the shim into a fresh temporary directory (removed afterwards) and run the command
/// armed by it, results into `out_dir`; `extra` is added to the shim's environment. Returns
/// how it ran and the environment it ran with.
fn run_shimmed(
    opts: &Options,
    out_dir: &Path,
    extra: &[(String, String)],
    echo_to_stderr: bool,
    quiet: bool,
) -> Result<(process::Ran, Vec<(String, String)>), ReproError> {
    let shim_dir = fresh_dir("cudasleuth-shim").map_err(|source| ReproError::Write { path: std::env::temp_dir(), source })?;
    let _cleanup = TempDir(shim_dir.clone());
    write_shim(&shim_dir)?;
    let mut env = shim_env(&shim_dir, out_dir, opts);
    env.extend(extra.iter().cloned());
    let spec = process::Spec { argv: &opts.argv, env: &env, out_dir, timeout: opts.timeout, echo_to_stderr, quiet, stdin: opts.stdin };
    let ran = process::run(&spec).map_err(|source| ReproError::Spawn { program: opts.argv[0].clone(), source })?;
    Ok((ran, env))
}

/// The born-at pass: the same command again, seeded as the first run, with the tracer armed
/// by `spec` (written into `out_dir/born/`, with the first run's `out_dir`, whose created files
/// the pass does not see); returns the `born-*.json` it wrote, if any.
pub fn run_born(opts: &Options, out_dir: &Path, spec: &serde_json::Value) -> Result<Option<serde_json::Value>, ReproError> {
    let dir = out_dir.join("born");
    std::fs::create_dir_all(&dir).map_err(|source| ReproError::Write { path: dir.clone(), source })?;
    let spec_path = dir.join("spec.json");
    // the first run's directory: the shim hides the files that run created (its `created-*.txt`)
    let mut spec = spec.clone();
    if let Some(o) = spec.as_object_mut() {
        o.insert("first_run".into(), serde_json::Value::String(out_dir.display().to_string()));
    }
    let text = serde_json::to_vec_pretty(&spec).unwrap_or_default();
    std::fs::write(&spec_path, text).map_err(|source| ReproError::Write { path: spec_path.clone(), source })?;
    let extra = [("CUDASLEUTH_BORN".to_string(), spec_path.display().to_string())];
    run_shimmed(opts, &dir, &extra, true, true)?;
    Ok(read_born(&dir))
}

/// The born-at pass's result in `dir` (the earliest, when several processes wrote one).
pub fn read_born(dir: &Path) -> Option<serde_json::Value> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("born-") && n.to_string_lossy().ends_with(".json")))
        .collect();
    found.sort_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok());
    found.iter().find_map(|p| std::fs::read(p).ok().and_then(|b| serde_json::from_slice(&b).ok()))
}

/// Read back what the shim wrote into `dir` (each process writes its own files).
pub fn collect(dir: &Path) -> Collected {
    let mut c = Collected::default();
    let Ok(rd) = std::fs::read_dir(dir) else { return c };
    // oldest first, so the earliest violation leads (one witness per process that saw one)
    let mut names: Vec<(std::time::SystemTime, PathBuf)> =
        rd.flatten().map(|e| (e.metadata().and_then(|m| m.modified()).unwrap_or(std::time::UNIX_EPOCH), e.path())).collect();
    names.sort();
    for (_, path) in names {
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        if !name.ends_with(".json") {
            continue;
        }
        let Some(value) = std::fs::read(&path).ok().and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok()) else { continue };
        if name.starts_with("witness-") {
            c.witnesses.push(value);
        } else if name.starts_with("sweep-") {
            c.sweeps.push(value);
        } else if name.starts_with("loaded-") {
            c.loaded.push(value);
        } else if name.starts_with("unmapped-") {
            c.unmapped.push(value);
        }
    }
    c
}

/// `repro --print-env`: the shim in a lasting directory and the variables to export, for
/// launchers repro cannot wrap (sbatch, accelerate, deepspeed, containers).
pub fn print_env(opts: &Options, shim_dir: &Path) -> Result<String, ReproError> {
    std::fs::create_dir_all(shim_dir).map_err(|source| ReproError::Write { path: shim_dir.to_path_buf(), source })?;
    write_shim(shim_dir)?;
    let out = match &opts.out {
        Some(o) => std::fs::canonicalize(o).unwrap_or_else(|_| o.clone()),
        None => PathBuf::from("cudasleuth-out"),
    };
    // every value quoted for the shell: a path holding `$(…)`, a quote or a space stays text
    // when the file is sourced
    // (no path or variable holds a NUL byte, the one thing quoting refuses)
    let quote = |v: &str| shlex::try_quote(v).map_or_else(|_| v.replace('\0', ""), |q| q.into_owned());
    let mut text = String::new();
    for (k, v) in shim_env(shim_dir, &out, opts) {
        if k == "PYTHONPATH" {
            text.push_str(&format!("export PYTHONPATH={}\"${{PYTHONPATH:+:$PYTHONPATH}}\"\n", quote(&shim_dir.to_string_lossy())));
        } else {
            text.push_str(&format!("export {k}={}\n", quote(&v)));
        }
    }
    Ok(text)
}

/// The lasting home of the shim for `--print-env`: beside the facts cache.
pub fn lasting_shim_dir() -> PathBuf {
    crate::scan::cache::base_dir().unwrap_or_else(std::env::temp_dir).join(format!("shim-v{}", env!("CARGO_PKG_VERSION")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_that_skip_sitecustomize() {
        assert_eq!(python_skips_site(&v(&["python", "-I", "train.py"])).as_deref(), Some("python -I"));
        assert_eq!(python_skips_site(&v(&["/usr/bin/python3.11", "-uE", "train.py"])).as_deref(), Some("python -E"));
        assert_eq!(python_skips_site(&v(&["python3", "-X", "dev", "-S", "t.py"])).as_deref(), Some("python -S"));
        assert_eq!(python_skips_site(&v(&["python", "-u", "train.py", "-I"])), None, "flags of the script are the script's");
        assert_eq!(python_skips_site(&v(&["python", "-m", "train", "-E"])), None);
        assert_eq!(python_skips_site(&v(&["python", "-c", "print(1)", "-S"])), None);
        assert_eq!(python_skips_site(&v(&["torchrun", "-I", "x"])), None);
        assert_eq!(python_skips_site(&v(&["python", "-Wignore", "-s", "t.py"])), None, "-s only drops the user site");
    }

    #[test]
    fn env_puts_the_shim_first_and_hides_gpus_for_cpu() {
        let opts = Options {
            argv: v(&["python", "t.py"]),
            cpu: true,
            sweep: false,
            timeout: None,
            out: None,
            project: None,
            no_values: true,
            born: false,
            echo_to_stderr: false,
            quiet: true,
            stdin: false,
            keep: false,
        };
        let env = shim_env(Path::new("/tmp/shim"), Path::new("/tmp/out"), &opts);
        let get = |k: &str| env.iter().find(|(a, _)| a == k).map(|(_, b)| b.as_str());
        assert!(get("PYTHONPATH").unwrap().starts_with("/tmp/shim"));
        assert_eq!(get("CUDA_VISIBLE_DEVICES"), Some(""));
        assert_eq!(get("CUDA_LAUNCH_BLOCKING"), Some("1"));
        assert_eq!(get("TORCHDYNAMO_DISABLE"), Some("1"));
        assert_eq!(get("CUDASLEUTH_NO_VALUES"), Some("1"));
        assert_eq!(get("CUDASLEUTH_MODE"), Some("guard"));
    }
}
