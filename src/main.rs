use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use miette::Diagnostic;
use thiserror::Error;

use cudasleuth::log::{self, InputError, LogSource};
use cudasleuth::report::{assemble, human, model::Verdict};

/// Explains PyTorch's `CUDA error: device-side assert triggered`: which kernel failed, which
/// op and Python call reached it, and what to check next.
#[derive(Parser)]
#[command(name = "cudasleuth", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read crash logs and explain the device assert (or other CUDA error) in them.
    #[command(after_help = "Examples:\n  cudasleuth explain crash.log\n  pbpaste | cudasleuth explain\n  cudasleuth explain --format json job-*.log.gz\n\nExit codes: 0 nothing found, 1 something explained, 2 usage error or unreadable input.")]
    Explain {
        /// Log files (plain, gzip, UTF-8 or UTF-16). `-` or none reads stdin.
        logs: Vec<String>,
        /// Output format; with several logs, `json` writes one object per line.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Colour in human output: auto (a terminal, NO_COLOR unset), always, never.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
        /// The Python project the log came from: traceback paths are mapped into it, and its
        /// pyproject.toml may add kernel sites under [tool.cudasleuth.kernels].
        #[arg(long, value_name = "DIR")]
        project: Option<std::path::PathBuf>,
    },
    /// Check data pipelines without a log: the pre-commit and CI linter.
    #[command(after_help = "Examples:\n  cudasleuth lint\n  cudasleuth lint data/dataset.py model.py\n  cudasleuth lint --format sarif > cudasleuth.sarif\n\nConfigure in pyproject.toml under [tool.cudasleuth] (select, ignore, extend-select,\nper-file-ignores, exclude, preview); silence one line with `# cudasleuth: ignore[CS101]`.\nExit codes: 0 no findings, 1 findings, 2 usage or configuration error.")]
    Lint {
        /// Files or directories to report on (as pre-commit passes them); none: the whole project.
        paths: Vec<std::path::PathBuf>,
        #[arg(long, value_enum, default_value_t = LintFormat::Human)]
        format: LintFormat,
        /// Exit 0 even when there are findings.
        #[arg(long)]
        exit_zero: bool,
        /// Do not read or write the facts cache.
        #[arg(long)]
        no_cache: bool,
        /// Also run rules still in preview.
        #[arg(long)]
        preview: bool,
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Print a rule's documentation (all rules without a code).
    #[command(after_help = "Examples:\n  cudasleuth rule\n  cudasleuth rule CS101\n  cudasleuth rule --format markdown CS103")]
    Rule {
        /// A rule code (CS101) or name (label-shift-in-getitem).
        code: Option<String>,
        /// text (default) or markdown (as in docs/rules/).
        #[arg(long, value_enum, default_value_t = RuleFormat::Text)]
        format: RuleFormat,
    },
    /// List the PyTorch assert sites cudasleuth knows.
    #[command(after_help = "Examples:\n  cudasleuth kernels\n  cudasleuth kernels --op nll_loss\n  cudasleuth kernels --category embedding_index_out_of_range")]
    Kernels {
        /// Only sites of this op (substring match).
        #[arg(long)]
        op: Option<String>,
        /// Only sites of this failure class.
        #[arg(long)]
        category: Option<String>,
        /// table (default), json, or markdown (the whole table, as in docs/kernels.md).
        #[arg(long, value_enum, default_value_t = KernelsFormat::Table)]
        format: KernelsFormat,
    },
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Human,
    Json,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum LintFormat {
    Human,
    Json,
    Github,
    Sarif,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum RuleFormat {
    Text,
    Markdown,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum KernelsFormat {
    Table,
    Json,
    Markdown,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Error, Diagnostic)]
enum CliError {
    #[error("{0}")]
    #[diagnostic(code(cudasleuth::input), help("check the path; `-` reads the log from stdin (paste it, then Ctrl-D)"))]
    Input(InputError),
    #[error("{0}")]
    #[diagnostic(code(cudasleuth::config), help("see `cudasleuth lint --help` for the keys of [tool.cudasleuth]"))]
    Config(cudasleuth::lint::config::ConfigError),
    #[error("unknown rule {0}")]
    #[diagnostic(code(cudasleuth::rule), help("`cudasleuth rule` lists the rules"))]
    UnknownRule(String),
    #[error("--project {0}: not a directory")]
    #[diagnostic(code(cudasleuth::project), help("give the root of the Python project the log came from"))]
    Project(String),
    #[error("{0}")]
    #[diagnostic(code(cudasleuth::pyproject), help("[[tool.cudasleuth.kernels.site]] tables take the keys documented in grammars/kernels/README.md"))]
    UserKb(cudasleuth::kb::UserKbError),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Explain { logs, format, color, project } => explain(logs, format, color, project),
        Command::Kernels { op, category, format } => kernels(op, category, format),
        Command::Rule { code, format } => rule(code, format),
        Command::Lint { paths, format, exit_zero, no_cache, preview, color } => lint(paths, format, exit_zero, no_cache, preview, color),
    }
}

/// Colour (auto: a terminal and NO_COLOR unset) and width for human output.
fn terminal(color: ColorChoice, stdout: &std::io::Stdout) -> (bool, usize) {
    let use_color = match color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let width = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(100);
    (use_color, width)
}

fn explain(logs: Vec<String>, format: Format, color: ColorChoice, project: Option<std::path::PathBuf>) -> ExitCode {
    if let Some(p) = &project {
        if !p.is_dir() {
            eprint!("{:?}", miette::Report::new(CliError::Project(p.display().to_string())));
            return ExitCode::from(2);
        }
    }
    let pyproject = project.clone().unwrap_or_else(|| std::path::PathBuf::from(".")).join("pyproject.toml");
    let user_kb = match cudasleuth::kb::user_sites(&pyproject) {
        Ok(sites) if !sites.is_empty() => Some(cudasleuth::kb::Kb::with_user_sites(sites)),
        Ok(_) => None,
        Err(e) => {
            eprint!("{:?}", miette::Report::new(CliError::UserKb(e)));
            return ExitCode::from(2);
        }
    };
    let kb = user_kb.as_ref().unwrap_or_else(|| cudasleuth::kb::kb());
    let files = project.as_deref().map(cudasleuth::scan::files::ProjectFiles::walk);
    let facts = match (&project, &files) {
        (Some(root), Some(f)) => Some(cudasleuth::scan::scan_project(root, f)),
        _ => None,
    };
    let sources: Vec<LogSource> = if logs.is_empty() {
        vec![LogSource::Stdin]
    } else {
        logs.iter().map(|l| LogSource::from_arg(l)).collect()
    };
    if sources.iter().any(|s| matches!(s, LogSource::Stdin)) && std::io::stdin().is_terminal() {
        eprintln!("cudasleuth: reading the log from stdin; paste it, then press Ctrl-D");
    }
    let stdout = std::io::stdout();
    let (use_color, width) = terminal(color, &stdout);
    let mut style_root: Option<std::path::PathBuf> = None;
    let mut out = stdout.lock();
    let mut failed = false;
    let mut found = false;
    for (i, source) in sources.iter().enumerate() {
        let incident = match log::read_log(source) {
            Ok(inc) => inc,
            Err(e) => {
                failed = true;
                eprint!("{:?}", miette::Report::new(CliError::Input(e)));
                continue;
            }
        };
        let mut report = assemble::assemble_with(&source.display_name(), &incident, kb, files.as_ref());
        if let (Some(facts), Some(root)) = (&facts, &project) {
            report.suspects = cudasleuth::rank::suspects::rank(&report, facts);
            report.next_steps = cudasleuth::report::advice::next_steps(&report, &incident);
            style_root = Some(root.clone());
        }
        found |= report.verdict != Verdict::None;
        let written = match format {
            Format::Json => serde_json::to_writer(&mut out, &report).map_err(std::io::Error::from).and_then(|_| writeln!(out)),
            Format::Human => {
                let sep = if i > 0 { "\n" } else { "" };
                let style = human::Style { color: use_color, width, project: style_root.clone() };
                write!(out, "{sep}{}", human::render(&report, &style))
            }
        };
        if written.is_err() {
            // a closed pipe (`| head`): stop quietly
            return ExitCode::from(if found { 1 } else { 0 });
        }
    }
    if failed {
        ExitCode::from(2)
    } else if found {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn kernels(op: Option<String>, category: Option<String>, format: KernelsFormat) -> ExitCode {
    let kb = cudasleuth::kb::kb();
    let mut out = std::io::stdout().lock();
    if format == KernelsFormat::Markdown {
        let _ = out.write_all(cudasleuth::kb::doc::markdown(kb).as_bytes());
        return ExitCode::SUCCESS;
    }
    let chosen: Vec<&cudasleuth::kb::KernelSite> = kb
        .sites
        .iter()
        .filter(|s| op.as_deref().map_or(true, |o| s.op.contains(o)))
        .filter(|s| category.as_deref().map_or(true, |c| s.category == c || s.classes.iter().any(|x| x == c)))
        .collect();
    if format == KernelsFormat::Json {
        let _ = serde_json::to_writer_pretty(&mut out, &chosen).map(|_| writeln!(out));
        return ExitCode::SUCCESS;
    }
    for s in chosen {
        let kernel = s.kernels.first().map(String::as_str).unwrap_or("-");
        let assertion = s.assertions.first().or(s.assertion_prefixes.first()).map(String::as_str).unwrap_or("");
        if writeln!(out, "{:<44} {:<28} {:<44} {}", s.id, s.category, kernel, assertion).is_err() {
            break;
        }
    }
    ExitCode::SUCCESS
}

fn rule(code: Option<String>, format: RuleFormat) -> ExitCode {
    use cudasleuth::rank::rules::{self, RULES};
    let mut out = std::io::stdout().lock();
    match code {
        None => {
            for r in RULES {
                let _ = writeln!(out, "{}  {:<38} {}", r.code, r.name, r.category);
            }
            ExitCode::SUCCESS
        }
        Some(c) => match rules::find_rule(&c) {
            Some(r) => {
                let text = match format {
                    RuleFormat::Markdown => rules::markdown(r),
                    RuleFormat::Text => format!("{} ({}): leads to {}\n\n{}\n", r.code, r.name, r.category.replace('_', " "), r.doc),
                };
                let _ = out.write_all(text.as_bytes());
                ExitCode::SUCCESS
            }
            None => {
                eprint!("{:?}", miette::Report::new(CliError::UnknownRule(c)));
                ExitCode::from(2)
            }
        },
    }
}

fn lint(paths: Vec<std::path::PathBuf>, format: LintFormat, exit_zero: bool, no_cache: bool, preview: bool, color: ColorChoice) -> ExitCode {
    use cudasleuth::lint::{self, output};
    for p in &paths {
        if !p.exists() {
            eprint!("{:?}", miette::Report::new(CliError::Input(InputError::NotFound { path: p.clone() })));
            return ExitCode::from(2);
        }
    }
    let result = match lint::run(&lint::Options { paths, no_cache, preview }) {
        Ok(r) => r,
        Err(e) => {
            eprint!("{:?}", miette::Report::new(CliError::Config(e)));
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let (use_color, width) = terminal(color, &stdout);
    let text = match format {
        LintFormat::Human => output::human(&result, use_color, width),
        LintFormat::Json => serde_json::to_string(&result).unwrap_or_default() + "\n",
        LintFormat::Github => output::github(&result),
        LintFormat::Sarif => serde_json::to_string_pretty(&output::sarif(&result, "cudasleuth/lint")).unwrap_or_default() + "\n",
    };
    let _ = stdout.lock().write_all(text.as_bytes());
    if result.diagnostics.is_empty() || exit_zero {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
