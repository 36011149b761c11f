use std::io::IsTerminal;
use std::path::PathBuf;

use cudasleuth::explain::{self, Format, Options};

use super::{terminal, CliError, ColorChoice};

pub const AFTER_HELP: &str = "Examples:\n  cudasleuth explain crash.log\n  pbpaste | cudasleuth explain\n  cudasleuth explain crash.log --project .\n  cudasleuth explain --format json 'logs/**/*.log.gz'\n  cudasleuth explain job.log --project . --format github\n  cudasleuth explain job.log --format markdown --redact >> \"$GITHUB_STEP_SUMMARY\"\n\nExit codes: 0 nothing found, 1 something explained, 2 usage error or unreadable input.";

#[derive(clap::Args)]
pub struct Args {
    /// Log files (plain, gzip, UTF-8 or UTF-16) or globs (`logs/**/*.log`). `-` or none reads stdin.
    logs: Vec<String>,
    /// Output format; with several logs, `json` writes one object per line (JSON Lines).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Replace home directories and the user's name in paths, in every format (for output posted
    /// where others read it).
    #[arg(long)]
    redact: bool,
    /// Colour in human output: auto (a terminal, NO_COLOR unset), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// The Python project the log came from: traceback paths are mapped into it, and its
    /// pyproject.toml may add kernel sites under [tool.cudasleuth.kernels].
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<u8, CliError> {
    let reads_stdin = a.logs.is_empty() || a.logs.iter().any(|l| l == "-");
    if reads_stdin && std::io::stdin().is_terminal() {
        eprintln!("cudasleuth: reading the log from stdin; paste it, then press Ctrl-D");
    }
    let opts = Options { logs: a.logs, project: a.project, format: a.format, redact: a.redact, terminal: terminal(a.color) };
    let mut out = super::Out::new();
    let mut unreadable = |e| eprint!("{:?}", miette::Report::new(CliError::Input(e)));
    match explain::run(&opts, &mut out, &mut unreadable) {
        Ok(done) => out.finish(done.exit_code()),
        Err(explain::Error::Project(p)) => Err(CliError::Project(p)),
    }
}
