use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use miette::Diagnostic;
use thiserror::Error;

use cudasleuth::lint;
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
    #[command(
        after_help = "Examples:\n  cudasleuth explain crash.log\n  pbpaste | cudasleuth explain\n  cudasleuth explain crash.log --project .\n  cudasleuth explain --format json 'logs/**/*.log.gz'\n  cudasleuth explain job.log --project . --format github\n  cudasleuth explain job.log --format markdown --redact >> \"$GITHUB_STEP_SUMMARY\"\n\nExit codes: 0 nothing found, 1 something explained, 2 usage error or unreadable input."
    )]
    Explain {
        /// Log files (plain, gzip, UTF-8 or UTF-16) or globs (`logs/**/*.log`). `-` or none reads stdin.
        logs: Vec<String>,
        /// Output format; with several logs, `json` writes one object per line (JSON Lines).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Markdown: replace home directories and the user's name in paths.
        #[arg(long)]
        redact: bool,
        /// Colour in human output: auto (a terminal, NO_COLOR unset), always, never.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
        /// The Python project the log came from: traceback paths are mapped into it, and its
        /// pyproject.toml may add kernel sites under [tool.cudasleuth.kernels].
        #[arg(long, value_name = "DIR")]
        project: Option<std::path::PathBuf>,
    },
    /// Check data pipelines without a log: the pre-commit and CI linter.
    #[command(
        after_help = "Examples:\n  cudasleuth lint\n  cudasleuth lint data/dataset.py model.py\n  cudasleuth lint --format sarif > cudasleuth.sarif\n  cudasleuth lint --select CS101,CS102 --preview\n\nConfigure in pyproject.toml under [tool.cudasleuth] (select, ignore, extend-select,\nper-file-ignores, exclude, preview); silence one line with `# cudasleuth: ignore[CS101]`.\nExit codes: 0 no findings, 1 findings, 2 usage or configuration error."
    )]
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
        /// Rule codes or prefixes to run, in place of the configuration's `select` (comma-separated).
        #[arg(long, value_delimiter = ',', value_name = "CODES")]
        select: Option<Vec<String>>,
        /// Rule codes or prefixes to run as well (comma-separated).
        #[arg(long, value_delimiter = ',', value_name = "CODES")]
        extend_select: Vec<String>,
        /// Rule codes or prefixes not to report (comma-separated).
        #[arg(long, value_delimiter = ',', value_name = "CODES")]
        ignore: Vec<String>,
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Run your command again, synchronized and guarded: catch the first bad label or index
    /// before the kernel asserts, with the sample it came from and the line that made it.
    #[command(
        after_help = "Examples:\n  cudasleuth repro -- python train.py --epochs 1\n  cudasleuth repro --cpu --project . -- python train.py\n  cudasleuth repro --sweep -- python train.py\n  cudasleuth repro --print-env > cudasleuth.env   # for sbatch, accelerate, containers\n  cudasleuth repro --read cudasleuth-out --project .\n\nThe command runs with CUDA_LAUNCH_BLOCKING=1, TORCHDYNAMO_DISABLE=1 and a Python shim\nloaded through sitecustomize; your files are not changed. See docs/repro.md.\nExit codes: 0 no violation, 1 violation caught (or bad samples found by --sweep),\n2 usage or setup error, 3 the command failed without a guarded violation, 4 timeout,\n130 interrupted."
    )]
    Repro {
        /// The command to run, after `--` (e.g. `-- python train.py`).
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
        /// The Python project (default: the current directory): suspects are ranked from its
        /// code and confirmed or refuted by the run.
        #[arg(long, value_name = "DIR")]
        project: Option<std::path::PathBuf>,
        /// Run on the CPU: hide the GPUs and map `cuda` devices to `cpu`.
        #[arg(long)]
        cpu: bool,
        /// Do not train: check every sample of the script's datasets against the model's bounds.
        #[arg(long)]
        sweep: bool,
        /// Stop the command (and everything it started) after this many seconds.
        #[arg(long, value_name = "S")]
        timeout: Option<f64>,
        /// Where to write the witness, the batch's tensors and the run's output (default: a
        /// fresh directory under the temporary directory).
        #[arg(long, value_name = "DIR")]
        out: Option<std::path::PathBuf>,
        /// Keep tensor values out of the witness (positions, shapes and bounds only; no .npy).
        #[arg(long)]
        no_values: bool,
        /// Print the environment that arms the shim, for launchers repro cannot wrap.
        #[arg(long, conflicts_with_all = ["command", "read"])]
        print_env: bool,
        /// Read the results of an earlier run (a directory the shim wrote) instead of running.
        #[arg(long, value_name = "DIR", conflicts_with = "command")]
        read: Option<std::path::PathBuf>,
        /// The original crash log: replay the failing predicate on the caught batch with the
        /// logged kernel's launch geometry and say whether it is the same failure.
        #[arg(long, value_name = "LOG")]
        log: Option<std::path::PathBuf>,
        /// Where that replay runs: auto (the GPU through NVRTC when present, else the CPU), gpu, cpu.
        #[arg(long, value_enum, default_value_t = ReplayChoice::Auto)]
        replay: ReplayChoice,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
        /// Do not echo the command's output.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  cudasleuth completions bash > ~/.local/share/bash-completion/completions/cudasleuth\n  cudasleuth completions zsh > \"${fpath[1]}/_cudasleuth\"\n  cudasleuth completions fish > ~/.config/fish/completions/cudasleuth.fish"
    )]
    Completions { shell: clap_complete::Shell },
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
    #[command(
        after_help = "Examples:\n  cudasleuth kernels\n  cudasleuth kernels --op nll_loss\n  cudasleuth kernels --category embedding_index_out_of_range"
    )]
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
    /// GitHub Actions annotations: one per log, on the top suspect's line.
    Github,
    /// SARIF 2.1.0 for code scanning: one result per located suspect.
    Sarif,
    /// A Markdown summary (for $GITHUB_STEP_SUMMARY or a PR comment).
    Markdown,
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
enum ReplayChoice {
    Auto,
    Gpu,
    Cpu,
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
    #[error("{0}")]
    #[diagnostic(code(cudasleuth::usage), help("`cudasleuth rule` lists the rules; a prefix such as CS1 selects the rules it begins"))]
    Selector(String),
    #[error("unknown rule {0}")]
    #[diagnostic(code(cudasleuth::rule), help("`cudasleuth rule` lists the rules"))]
    UnknownRule(String),
    #[error("--project {0}: not a directory")]
    #[diagnostic(code(cudasleuth::project), help("give the root of the Python project the log came from"))]
    Project(String),
    #[error("{0}")]
    #[diagnostic(code(cudasleuth::repro), help("{1}"))]
    Repro(cudasleuth::repro::ReproError, String),
    #[error("{0}")]
    #[diagnostic(
        code(cudasleuth::pyproject),
        help("[[tool.cudasleuth.kernels.site]] tables take the keys documented in grammars/kernels/README.md")
    )]
    UserKb(cudasleuth::kb::UserKbError),
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Transparent huge pages for the process's memory: they make reading a whole project's facts
/// faster, and cost a run that reads a few files more than its work (each first touch of a page
/// clears 2 MiB). The kernel checks the switch when a page is first touched, so it applies to
/// memory the allocator has reserved already.
fn allow_huge_pages(on: bool) {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes only this process's flag
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, libc::c_ulong::from(!on), 0 as libc::c_ulong, 0 as libc::c_ulong, 0 as libc::c_ulong);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = on;
}

/// Huge pages off from the start of the process, before the Rust runtime's first allocation
/// reserves the allocator's arena (a constructor runs before `main`): clearing the 2 MiB
/// pages that the runtime's first allocations touch costs a short run several milliseconds.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static HUGE_PAGES_OFF_AT_START: extern "C" fn() = {
    extern "C" fn off() {
        allow_huge_pages(false);
    }
    off
};

fn main() -> ExitCode {
    #[cfg(not(target_os = "linux"))]
    allow_huge_pages(false);
    cudasleuth::memory::register(allow_huge_pages);
    let cli = Cli::parse();
    match cli.command {
        Command::Explain { logs, format, redact, color, project } => explain(logs, format, redact, color, project),
        Command::Kernels { op, category, format } => kernels(op, category, format),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "cudasleuth", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
        Command::Rule { code, format } => rule(code, format),
        Command::Lint { paths, format, exit_zero, no_cache, preview, select, extend_select, ignore, color } => {
            lint(lint::Options { paths, no_cache, preview, select, extend_select, ignore }, format, exit_zero, color)
        }
        Command::Repro { command, project, cpu, sweep, timeout, out, no_values, print_env, read, log, replay, format, color, quiet } => {
            let opts = cudasleuth::repro::Options {
                argv: command,
                cpu,
                sweep,
                timeout: timeout.filter(|t| *t > 0.0).map(std::time::Duration::from_secs_f64),
                out,
                project: project.clone(),
                no_values,
                echo_to_stderr: format != Format::Human,
                quiet,
            };
            repro(opts, project, print_env, read, log.map(|l| (l, replay)), format, color)
        }
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

/// Expand arguments with glob characters that name no file (CI configs often pass them quoted).
fn expand_globs(args: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    for a in args {
        let is_glob = a.contains(['*', '?', '[']) && !std::path::Path::new(&a).exists();
        if !is_glob {
            out.push(a);
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
            .filter(|p| cudasleuth::lint::config::glob_match(a.trim_start_matches("./"), p))
            .collect();
        found.sort();
        if found.is_empty() {
            out.push(a); // reported as not found
        } else {
            out.extend(found);
        }
    }
    out
}

fn explain(logs: Vec<String>, format: Format, redact: bool, color: ColorChoice, project: Option<std::path::PathBuf>) -> ExitCode {
    let logs = expand_globs(logs);
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
    let sources: Vec<LogSource> =
        if logs.is_empty() { vec![LogSource::Stdin] } else { logs.iter().map(|l| LogSource::from_arg(l)).collect() };
    if sources.iter().any(|s| matches!(s, LogSource::Stdin)) && std::io::stdin().is_terminal() {
        eprintln!("cudasleuth: reading the log from stdin; paste it, then press Ctrl-D");
    }
    let stdout = std::io::stdout();
    let (use_color, width) = terminal(color, &stdout);
    let mut style_root: Option<std::path::PathBuf> = None;
    let mut out = stdout.lock();
    let mut failed = false;
    let mut found = false;
    let mut kept: Vec<cudasleuth::report::model::Report> = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        let incident = match log::read_log(source) {
            Ok(inc) => inc,
            Err(e) => {
                failed = true;
                eprint!("{:?}", miette::Report::new(CliError::Input(e)));
                continue;
            }
        };
        let mut report = assemble::assemble_with(&source.display_name(), &incident, kb, project.as_deref().zip(files.as_ref()));
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
            Format::Github | Format::Sarif | Format::Markdown => {
                kept.push(report);
                Ok(())
            }
        };
        if written.is_err() {
            // a closed pipe (`| head`): stop quietly
            return ExitCode::from(if found { 1 } else { 0 });
        }
    }
    if !kept.is_empty() {
        let _ = out.write_all(ci_text(&kept, format, project.as_deref(), redact).as_bytes());
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
                let _ = writeln!(out, "{}  {:<38} {}{}", r.code, r.name, r.category, if r.preview { " (preview)" } else { "" });
            }
            ExitCode::SUCCESS
        }
        Some(c) => match rules::find_rule(&c) {
            Some(r) => {
                let text = match format {
                    RuleFormat::Markdown => rules::markdown(r),
                    RuleFormat::Text => format!(
                        "{} ({}): leads to {}.{}\n\n{}\n",
                        r.code,
                        r.name,
                        r.category.replace('_', " "),
                        rules::preview_note(r),
                        r.doc
                    ),
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

fn lint(opts: lint::Options, format: LintFormat, exit_zero: bool, color: ColorChoice) -> ExitCode {
    use lint::{config, output};
    let flags =
        [("--select", opts.select.as_deref().unwrap_or_default()), ("--extend-select", &opts.extend_select), ("--ignore", &opts.ignore)];
    if let Some(message) = flags.into_iter().find_map(|(flag, codes)| config::unknown_selector(codes, flag)) {
        eprint!("{:?}", miette::Report::new(CliError::Selector(message)));
        return ExitCode::from(2);
    }
    for p in &opts.paths {
        if !p.exists() {
            eprint!("{:?}", miette::Report::new(CliError::Input(InputError::NotFound { path: p.clone() })));
            return ExitCode::from(2);
        }
    }
    let result = match lint::run(&opts) {
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

/// The CI formats, written once over all the reports.
fn ci_text(reports: &[cudasleuth::report::model::Report], format: Format, project: Option<&std::path::Path>, redact: bool) -> String {
    use cudasleuth::report::ci;
    let prefix = ci::repo_prefix(project);
    match format {
        Format::Github => ci::github(reports, &prefix),
        Format::Sarif => serde_json::to_string_pretty(&ci::sarif(reports, &prefix)).unwrap_or_default() + "\n",
        Format::Markdown => ci::markdown(reports, project, &prefix, redact),
        _ => String::new(),
    }
}

fn repro_help(e: &cudasleuth::repro::ReproError) -> String {
    use cudasleuth::repro::ReproError as E;
    match e {
        E::NoCommand => "put the command after `--`: cudasleuth repro -- python train.py".into(),
        E::SkipsSite { .. } => "drop that flag for the repro run, or load the shim from inside: `import cudasleuth_shim; cudasleuth_shim.install()` (see `cudasleuth repro --print-env`)".into(),
        E::OutNotEmpty(_) => "give a new or empty --out directory, or leave --out out for a fresh one".into(),
        E::Write { .. } => "check that the directory is writable and the disk is not full".into(),
        E::Spawn { .. } => "check the command: is it on PATH, and executable?".into(),
        E::NothingToRead(_) => "give the CUDASLEUTH_OUT directory of a run armed with `cudasleuth repro --print-env`".into(),
    }
}

fn repro(
    opts: cudasleuth::repro::Options,
    project: Option<std::path::PathBuf>,
    print_env: bool,
    read: Option<std::path::PathBuf>,
    original_log: Option<(std::path::PathBuf, ReplayChoice)>,
    format: Format,
    color: ColorChoice,
) -> ExitCode {
    use cudasleuth::repro::{self, confirm, exit};
    let fail = |e: repro::ReproError| {
        let help = repro_help(&e);
        eprint!("{:?}", miette::Report::new(CliError::Repro(e, help)));
        ExitCode::from(exit::SETUP)
    };
    if print_env {
        return match repro::print_env(&opts, &repro::lasting_shim_dir()) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        };
    }
    let root = project.clone().unwrap_or_else(|| std::path::PathBuf::from("."));
    if !root.is_dir() {
        eprint!("{:?}", miette::Report::new(CliError::Project(root.display().to_string())));
        return ExitCode::from(exit::SETUP);
    }
    let outcome = match &read {
        Some(dir) => {
            let collected = repro::collect(dir);
            if collected.witnesses.is_empty() && collected.sweeps.is_empty() && collected.loaded.is_empty() {
                return fail(repro::ReproError::NothingToRead(dir.clone()));
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
        None => match repro::run(&opts) {
            Ok(o) => o,
            Err(e) => return fail(e),
        },
    };
    let files = cudasleuth::scan::files::ProjectFiles::walk(&root);
    let facts = cudasleuth::scan::scan_project(&root, &files);
    let incident = match log::read_log(&LogSource::File(outcome.log.clone())) {
        Ok(i) => i,
        Err(_) => log::read_from(Box::new(std::io::Cursor::new(Vec::new()))),
    };
    let argv = if read.is_some() { Vec::new() } else { opts.argv.clone() };
    let source = if argv.is_empty() { outcome.log.display().to_string() } else { argv.join(" ") };
    let mut report = assemble::assemble_with(&source, &incident, cudasleuth::kb::kb(), Some((root.as_path(), &files)));
    let cpu = opts.cpu || outcome.collected.loaded.iter().any(|l| l.get("cpu").and_then(|c| c.as_bool()).unwrap_or(false));
    let code = confirm::finish(&mut report, &outcome, &argv, opts.sweep, cpu);
    report.suspects = cudasleuth::rank::suspects::rank(&report, &facts);
    confirm::confirm(&mut report, Some(&root), Some(&files));
    report.next_steps = cudasleuth::report::advice::next_steps(&report, &incident);
    if let (Some((log_path, choice)), Some(w)) = (&original_log, &report.witness) {
        match log::read_log(&LogSource::File(log_path.clone())) {
            Ok(original) => {
                let logged = assemble::assemble_with(&log_path.display().to_string(), &original, cudasleuth::kb::kb(), None);
                let backend = match choice {
                    ReplayChoice::Auto => repro::replay::Backend::Auto,
                    ReplayChoice::Gpu => repro::replay::Backend::Gpu,
                    ReplayChoice::Cpu => repro::replay::Backend::Cpu,
                };
                let python = opts.argv.first().filter(|p| p.contains("python")).map(String::as_str);
                let r = repro::replay::against_log(w, &outcome.out_dir, &original, &logged.asserts, backend, python);
                report.replay = serde_json::to_value(&r).ok();
            }
            Err(e) => report.warnings.push(format!("--log {}: {e}", log_path.display())),
        }
    }
    let stdout = std::io::stdout();
    let (use_color, width) = terminal(color, &stdout);
    let mut out = stdout.lock();
    let _ = match format {
        Format::Json => serde_json::to_writer(&mut out, &report).map_err(std::io::Error::from).and_then(|_| writeln!(out)),
        Format::Human => {
            let style = human::Style { color: use_color, width, project: Some(root) };
            write!(out, "\n{}", human::render(&report, &style))
        }
        _ => out.write_all(ci_text(std::slice::from_ref(&report), format, Some(&root), false).as_bytes()),
    };
    ExitCode::from(code)
}
