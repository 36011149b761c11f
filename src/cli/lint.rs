use std::io::Write;
use std::path::PathBuf;

use cudasleuth::lint::{self, config, output};

use super::{terminal, CliError, ColorChoice};

pub const AFTER_HELP: &str = "Examples:\n  cudasleuth lint\n  cudasleuth lint data/dataset.py model.py\n  cudasleuth lint --format sarif > cudasleuth.sarif\n  cudasleuth lint --select CS101,CS102 --preview\n  cudasleuth lint --format concise --statistics\n  git show :train.py | cudasleuth lint --stdin-filename train.py\n\nConfigure in pyproject.toml under [tool.cudasleuth] (select, ignore, extend-select,\nper-file-ignores, exclude, preview); silence one line with `# cudasleuth: ignore[CS101]`
(or `# noqa: CS101`), a whole file with `# cudasleuth: ignore-file[CS101]`.\nExit codes: 0 no findings, 1 findings, 2 usage or configuration error.";

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
enum Format {
    Human,
    /// One line per finding, `file:line:col: CODE message`
    Concise,
    Json,
    Github,
    Sarif,
}

#[derive(clap::Args)]
pub struct Args {
    /// Files or directories to report on (as pre-commit passes them); none: the whole project.
    paths: Vec<PathBuf>,
    /// human, concise (a line per finding), json, github or sarif (`--output-format`, ruff's
    /// name for it, works too).
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = Format::Human)]
    format: Format,
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
    /// A configuration file to use in place of the nearest pyproject.toml with a
    /// [tool.cudasleuth] table (a pyproject.toml, or a TOML file with the keys at its top level).
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    config: Option<PathBuf>,
    /// Read no configuration file.
    #[arg(long)]
    isolated: bool,
    /// Count the findings of each rule instead of listing them.
    #[arg(long)]
    statistics: bool,
    /// Leave out the summary line (findings and warnings are still printed).
    #[arg(short, long)]
    quiet: bool,
    /// Lint the code read from standard input as this file of the project (editors, `git show
    /// :file | cudasleuth lint --stdin-filename file`); the path need not exist.
    #[arg(long, value_name = "PATH")]
    stdin_filename: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

pub fn run(a: Args) -> Result<u8, CliError> {
    let stdin = match &a.stdin_filename {
        Some(name) => {
            if a.paths.iter().any(|p| p.as_os_str() != "-") {
                return Err(CliError::Usage(
                    "--stdin-filename lints the code on standard input: give no paths with it (or `-`)".to_string(),
                ));
            }
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .map_err(|e| CliError::LintInput(cudasleuth::log::InputError::Io { path: PathBuf::from("<stdin>"), source: e }))?;
            Some((name.clone(), text))
        }
        None if a.paths.iter().any(|p| p.as_os_str() == "-") => {
            return Err(CliError::Usage(
                "`-` lints code from standard input only with --stdin-filename PATH, the project file the code stands for: `git show :train.py | cudasleuth lint --stdin-filename train.py`".to_string(),
            ));
        }
        None => None,
    };
    let paths = if stdin.is_some() { Vec::new() } else { a.paths };
    let opts = lint::Options {
        paths,
        no_cache: a.no_cache,
        preview: a.preview,
        select: a.select,
        extend_select: a.extend_select,
        ignore: a.ignore,
        config: a.config,
        isolated: a.isolated,
        stdin,
    };
    let flags =
        [("--select", opts.select.as_deref().unwrap_or_default()), ("--extend-select", &opts.extend_select), ("--ignore", &opts.ignore)];
    if let Some(message) = flags.into_iter().find_map(|(flag, codes)| config::unknown_selector(codes, flag)) {
        return Err(CliError::Selector(message));
    }
    for p in opts.paths.iter().filter(|p| !lint::is_glob(p)) {
        // a file in a directory cudasleuth may not enter is unreadable, not missing
        if let Err(e) = std::fs::metadata(p) {
            let path = p.clone();
            return Err(CliError::LintInput(match e.kind() {
                std::io::ErrorKind::PermissionDenied => cudasleuth::log::InputError::PermissionDenied { path },
                std::io::ErrorKind::NotFound => cudasleuth::log::InputError::NotFound { path },
                _ => cudasleuth::log::InputError::Io { path, source: e },
            }));
        }
    }
    if a.quiet {
        cudasleuth::progress::turn_off();
    }
    let result = lint::run(&opts).map_err(CliError::Config)?;
    let term = terminal(a.color);
    let text = match a.format {
        _ if a.statistics => statistics(&result, a.format),
        Format::Human => cudasleuth::report::inert(&output::human(&result, term.color, term.width, a.quiet)),
        Format::Concise => cudasleuth::report::inert(&output::concise(&result, a.quiet)),
        Format::Json => serde_json::to_string(&result).unwrap_or_default() + "\n",
        Format::Github => cudasleuth::report::inert(&output::github(&result)),
        Format::Sarif => serde_json::to_string_pretty(&output::sarif(&result, "cudasleuth/lint")).unwrap_or_default() + "\n",
    };
    let mut out = super::Out::new();
    let _ = out.write_all(text.as_bytes());
    out.finish(if result.diagnostics.is_empty() || a.exit_zero { 0 } else { 1 })
}

/// `--statistics`: a row per rule (JSON: a list of {code, name, count}).
fn statistics(result: &lint::LintResult, format: Format) -> String {
    match format {
        Format::Json => {
            let rows: Vec<serde_json::Value> = output::statistics(result)
                .into_iter()
                .map(|(count, code, name)| serde_json::json!({"code": code, "name": name, "count": count}))
                .collect();
            serde_json::to_string(&rows).unwrap_or_default() + "\n"
        }
        _ => cudasleuth::report::inert(&output::statistics_text(result)),
    }
}
