//! The command line: each subcommand's clap arguments in its own file, each calling one library
//! function; this file maps their errors to miette diagnostics and exit codes (the README lists
//! them: 0 nothing found, 1 something found, 2 usage or input error; repro adds 3, 4, 130).

mod completions;
mod explain;
mod kernels;
mod lint;
mod repro;
mod rule;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use miette::Diagnostic;
use thiserror::Error;

/// Explains PyTorch's `CUDA error: device-side assert triggered`: which kernel failed, which
/// op and Python call reached it, and what to check next.
#[derive(Parser)]
#[command(name = "cudasleuth", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read crash logs and explain the device assert (or other CUDA error) in them.
    #[command(after_help = explain::AFTER_HELP)]
    Explain(explain::Args),
    /// Check data pipelines without a log: the pre-commit and CI linter.
    #[command(after_help = lint::AFTER_HELP)]
    Lint(lint::Args),
    /// Run your command again, synchronized and guarded: catch the first bad label or index
    /// before the kernel asserts, with the sample it came from and the line that made it.
    #[command(after_help = repro::AFTER_HELP)]
    Repro(repro::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = completions::AFTER_HELP)]
    Completions(completions::Args),
    /// Print a rule's documentation (all rules without a code).
    #[command(after_help = rule::AFTER_HELP)]
    Rule(rule::Args),
    /// List the PyTorch assert sites cudasleuth knows.
    #[command(after_help = kernels::AFTER_HELP)]
    Kernels(kernels::Args),
}

/// Colour in human output.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Every error a subcommand ends with, as the diagnostic it prints.
#[derive(Debug, Error, Diagnostic)]
pub enum CliError {
    #[error("{0}")]
    #[diagnostic(code(cudasleuth::input), help("check the path; `-` reads the log from stdin (paste it, then Ctrl-D)"))]
    Input(cudasleuth::log::InputError),
    #[error("{0}")]
    #[diagnostic(
        code(cudasleuth::input),
        help("check the path; lint takes Python files, directories and globs (`cudasleuth lint src/`, `cudasleuth lint '**/*.py'`)")
    )]
    LintInput(cudasleuth::log::InputError),
    #[error("{0}")]
    #[diagnostic(code(cudasleuth::config), help("see `cudasleuth lint --help` for the keys of [tool.cudasleuth]"))]
    Config(cudasleuth::lint::config::ConfigError),
    #[error("{0}")]
    #[diagnostic(code(cudasleuth::usage), help("`cudasleuth rule` lists the rules; a prefix such as CS1 selects the rules it begins"))]
    Selector(String),
    #[error("{0}")]
    #[diagnostic(
        code(cudasleuth::usage),
        help("`cudasleuth kernels` lists every site; --op matches part of an op or Python API name (nll_loss, CrossEntropyLoss, embedding), --category is one of the categories above")
    )]
    KernelFilter(String),
    #[error("{0}")]
    #[diagnostic(code(cudasleuth::usage), help("`cudasleuth lint --help` shows the options and examples"))]
    Usage(String),
    #[error("unknown rule {0}")]
    #[diagnostic(code(cudasleuth::rule), help("`cudasleuth rule` lists the rules"))]
    UnknownRule(String),
    #[error("--project {0}: not a directory")]
    #[diagnostic(code(cudasleuth::project), help("give the root of the Python project the log came from"))]
    Project(String),
    #[error("{0}")]
    #[diagnostic(code(cudasleuth::repro), help("{1}"))]
    Repro(cudasleuth::repro::ReproError, String),
    #[error("cannot write the output: {0}")]
    #[diagnostic(code(cudasleuth::output), help("check that the disk is not full and the output file or pipe is writable"))]
    Output(std::io::Error),
}

impl CliError {
    /// Prints the diagnostic to stderr and gives the exit code (2: usage, input or setup).
    fn report(self) -> ExitCode {
        eprint!("{:?}", miette::Report::new(self));
        ExitCode::from(2)
    }
}

/// `cudasleuth repro python train.py` (no `--`): the command as it was meant, from its first
/// word that is not an option.
fn repro_command_without_separator(args: &[String]) -> Option<String> {
    let at = args.iter().position(|a| a == "repro")?;
    if args.iter().any(|a| a == "--") {
        return None;
    }
    let first = args[at + 1..].iter().position(|a| !a.starts_with('-'))? + at + 1;
    Some(args[first..].join(" "))
}

/// Parses the command line and runs the subcommand.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            if e.kind() == clap::error::ErrorKind::UnknownArgument {
                if let Some(cmd) = repro_command_without_separator(&std::env::args().collect::<Vec<_>>()) {
                    eprintln!("\ntip: the command to run goes after `--`: cudasleuth repro [OPTIONS] -- {cmd}");
                }
            }
            return ExitCode::from(e.exit_code().clamp(0, 255) as u8);
        }
    };
    let result = match cli.command {
        Command::Explain(a) => explain::run(a),
        Command::Lint(a) => lint::run(a),
        Command::Repro(a) => repro::run(a),
        Command::Completions(a) => completions::run(a),
        Command::Rule(a) => rule::run(a),
        Command::Kernels(a) => kernels::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => e.report(),
    }
}

/// Standard output that remembers its first write error: the commands write with `let _ =
/// writeln!(…)`, and `finish` turns an error into exit code 2 with a diagnostic (a full disk
/// was an exit 0 with nothing written). A closed pipe (`| head`) is no error: output stops.
pub struct Out {
    error: Option<std::io::Error>,
}

impl Out {
    pub fn new() -> Out {
        Out { error: None }
    }

    fn keep<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &r {
            if self.error.is_none() {
                self.error = Some(std::io::Error::new(e.kind(), e.to_string()));
            }
        }
        r
    }

    /// Flushes, and gives back `code` or the write error.
    pub fn finish(mut self, code: u8) -> Result<u8, CliError> {
        let r = std::io::stdout().flush();
        let _ = self.keep(r);
        match self.error {
            None => Ok(code),
            Some(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(code),
            Some(e) => Err(CliError::Output(e)),
        }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.error.is_some() {
            // nothing more is written after the first error
            return Ok(buf.len());
        }
        let r = std::io::stdout().lock().write(buf);
        self.keep(r)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        if self.error.is_some() {
            return Ok(());
        }
        let r = std::io::stdout().lock().write_all(buf);
        self.keep(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = std::io::stdout().flush();
        self.keep(r)
    }
}

/// Colour (auto: a terminal and NO_COLOR unset) and width for human output.
fn terminal(color: ColorChoice) -> cudasleuth::explain::Terminal {
    let tty = std::io::stdout().is_terminal();
    let color = match color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => auto_color(tty, &|k| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned())),
    };
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|&w: &usize| w > 0)
        .or_else(|| tty.then(terminal_width).flatten())
        .unwrap_or(100);
    cudasleuth::explain::Terminal { color, width }
}

/// `--color auto` by the conventions other tools follow: `NO_COLOR` set to anything but the
/// empty string turns colour off (no-color.org), and so does `TERM=dumb`; `FORCE_COLOR` or
/// `CLICOLOR_FORCE` (set, not empty, not `0`) turns it on even when the output is piped;
/// otherwise colour on a terminal.
fn auto_color(tty: bool, var: &dyn Fn(&str) -> Option<String>) -> bool {
    let set = |k: &str| var(k).is_some_and(|v| !v.is_empty());
    if set("NO_COLOR") {
        return false;
    }
    if ["FORCE_COLOR", "CLICOLOR_FORCE"].iter().any(|k| var(k).is_some_and(|v| !v.is_empty() && v != "0")) {
        return true;
    }
    tty && var("TERM").as_deref() != Some("dumb")
}

/// The width of the terminal on stdout (bash does not export COLUMNS).
fn terminal_width() -> Option<usize> {
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ fills a winsize; a failure leaves it zeroed and is reported
        let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::ioctl(1, libc::TIOCGWINSZ, &mut ws) } == 0;
        (ok && ws.ws_col > 0).then_some(usize::from(ws.ws_col))
    }
    #[cfg(not(unix))]
    None
}

#[cfg(test)]
mod tests {
    use super::auto_color;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| pairs.iter().find(|(a, _)| *a == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn colour_follows_the_conventions() {
        assert!(auto_color(true, &env(&[])));
        assert!(!auto_color(false, &env(&[])));
        assert!(auto_color(true, &env(&[("NO_COLOR", "")])), "an empty NO_COLOR is unset");
        assert!(!auto_color(true, &env(&[("NO_COLOR", "1")])));
        assert!(!auto_color(true, &env(&[("TERM", "dumb")])));
        assert!(auto_color(false, &env(&[("FORCE_COLOR", "1")])));
        assert!(auto_color(false, &env(&[("CLICOLOR_FORCE", "1")])));
        assert!(!auto_color(false, &env(&[("FORCE_COLOR", "0")])));
        assert!(!auto_color(false, &env(&[("FORCE_COLOR", "1"), ("NO_COLOR", "1")])), "NO_COLOR wins");
    }
}
