use std::io::Write;

use cudasleuth::rules;

use super::CliError;

pub const AFTER_HELP: &str = "Examples:\n  cudasleuth rule\n  cudasleuth rule CS101\n  cudasleuth rule --format markdown CS103";

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Markdown,
}

#[derive(clap::Args)]
pub struct Args {
    /// A rule code (CS101) or name (label-shift-in-getitem).
    code: Option<String>,
    /// text (default) or markdown (as in docs/rules/).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(a: Args) -> Result<u8, CliError> {
    let text = match &a.code {
        None => rules::listing(),
        Some(c) => {
            let r = rules::find_rule(c).ok_or_else(|| CliError::UnknownRule(c.clone()))?;
            match a.format {
                Format::Markdown => rules::markdown(r),
                Format::Text => rules::text(r),
            }
        }
    };
    let mut out = super::Out::new();
    let _ = out.write_all(text.as_bytes());
    out.finish(0)
}
