use std::path::PathBuf;

use cudasleuth::explain::{self, Format, Replay, ReproRequest};
use cudasleuth::repro::{self, ReproError};

use super::{terminal, CliError, ColorChoice};

pub const AFTER_HELP: &str = "Examples:\n  cudasleuth repro -- python train.py --epochs 1\n  cudasleuth repro --cpu --project . -- python train.py\n  cudasleuth repro --sweep -- python train.py\n  cudasleuth repro --print-env > cudasleuth.env   # for sbatch, accelerate, containers\n  cudasleuth repro --read cudasleuth-out --project .\n\nThe command runs with CUDA_LAUNCH_BLOCKING=1, TORCHDYNAMO_DISABLE=1 and a Python shim\nloaded through sitecustomize; your files are not changed. See docs/repro.md.\nExit codes: 0 no violation, 1 violation caught (or bad samples found by --sweep),\n2 usage or setup error, 3 the command failed without a guarded violation, 4 timeout,\n130 interrupted.";

#[derive(clap::Args)]
pub struct Args {
    /// The command to run, after `--` (e.g. `-- python train.py`).
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
    /// The Python project (default: the current directory): suspects are ranked from its
    /// code and confirmed or refuted by the run.
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Run on the CPU: hide the GPUs and map `cuda` devices to `cpu`.
    #[arg(long)]
    cpu: bool,
    /// Do not train: check every sample of the script's datasets against the model's bounds.
    #[arg(long)]
    sweep: bool,
    /// Stop the command (and everything it started) after this many seconds (above 0, at most
    /// 1e9; leave it out for no limit).
    #[arg(long, value_name = "S", value_parser = seconds)]
    timeout: Option<f64>,
    /// Where to write the witness, the batch's tensors and the run's output: a new or empty
    /// directory (default: a new one under `runs/` in cudasleuth's cache directory, where the
    /// 20 most recent runs are kept).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Keep this run's results in the cache directory for good (not removed with old runs).
    #[arg(long, conflicts_with = "out")]
    keep: bool,
    /// Let the command read this terminal's stdin (`input()`, `breakpoint()`, pdb); without
    /// it the command's stdin is closed.
    #[arg(long)]
    stdin: bool,
    /// Keep tensor values out of the witness (positions, shapes and bounds only; no .npy).
    #[arg(long)]
    no_values: bool,
    /// Skip the born-at pass (the second run, traced over the project's files, that finds
    /// the line where the caught value was made).
    #[arg(long)]
    no_born: bool,
    /// Print the environment that arms the shim, for launchers repro cannot wrap.
    #[arg(long, conflicts_with_all = ["command", "read"])]
    print_env: bool,
    /// Read the results of an earlier run (a directory the shim wrote) instead of running.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    read: Option<PathBuf>,
    /// The original crash log: replay the failing predicate on the caught batch with the
    /// logged kernel's launch geometry and say whether it is the same failure.
    #[arg(long, value_name = "LOG")]
    log: Option<PathBuf>,
    /// Where that replay runs: auto (the GPU through NVRTC when present, else the CPU), gpu, cpu.
    #[arg(long, value_enum, default_value_t = Replay::Auto)]
    replay: Replay,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Do not echo the command's output (nor draw a sweep's progress line).
    #[arg(long, short)]
    quiet: bool,
    /// Replace home directories in the report's paths with `~` (every format; the command's
    /// own output, echoed as it runs, is left as the command wrote it).
    #[arg(long)]
    redact: bool,
}

/// `--timeout`: a finite number of seconds above 0 and at most 1e9 (`inf` or `1e999` made a
/// duration that panicked; `nan`, `0` and `-1` silently meant no limit).
fn seconds(s: &str) -> Result<f64, String> {
    let t: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !t.is_finite() || t <= 0.0 || t > 1e9 {
        return Err(format!("`{s}`: give a number of seconds above 0 and at most 1e9 (leave --timeout out for no limit)"));
    }
    Ok(t)
}

pub fn run(a: Args) -> Result<u8, CliError> {
    if a.quiet {
        cudasleuth::progress::turn_off();
    }
    let opts = repro::Options {
        argv: a.command,
        cpu: a.cpu,
        sweep: a.sweep,
        timeout: a.timeout.map(std::time::Duration::from_secs_f64),
        out: a.out,
        project: a.project.clone(),
        no_values: a.no_values,
        born: !a.no_born && !a.sweep,
        echo_to_stderr: a.format != Format::Human,
        quiet: a.quiet,
        stdin: a.stdin,
        keep: a.keep,
    };
    if a.print_env {
        let text = repro::print_env(&opts, &repro::lasting_shim_dir()).map_err(failure)?;
        let mut out = super::Out::new();
        let _ = std::io::Write::write_all(&mut out, text.as_bytes());
        return out.finish(0);
    }
    let req = ReproRequest {
        opts,
        project: a.project,
        read: a.read,
        original_log: a.log.map(|l| (l, a.replay)),
        format: a.format,
        terminal: terminal(a.color),
        redact: a.redact,
    };
    // stdout is not locked while the command runs: its output is copied there (holding the
    // lock made the copy wait for ever, and the command with it once the pipe filled)
    let mut out = super::Out::new();
    let code = explain::repro(&req, &mut out).map_err(failure)?;
    out.finish(code)
}

fn failure(e: ReproError) -> CliError {
    use ReproError as E;
    let help = match &e {
        E::NoCommand => "put the command after `--`: cudasleuth repro -- python train.py",
        E::SkipsSite { .. } => "drop that flag for the repro run, or load the shim from inside: `import cudasleuth_shim; cudasleuth_shim.install()` (see `cudasleuth repro --print-env`)",
        E::OutNotEmpty(_) => "give a new or empty --out directory, or leave --out out for a fresh one",
        E::Write { .. } => "check that the directory is writable and the disk is not full",
        E::Spawn { .. } => "check the command: is it on PATH, and executable?",
        E::NothingToRead(_) => "give the CUDASLEUTH_OUT directory of a run armed with `cudasleuth repro --print-env`",
        E::Project(p) => return CliError::Project(p.display().to_string()),
    };
    CliError::Repro(e, help.into())
}
