use std::io::Write;

use super::CliError;

pub const AFTER_HELP: &str =
    "Examples:\n  cudasleuth kernels\n  cudasleuth kernels --op nll_loss\n  cudasleuth kernels --category embedding_index_out_of_range";

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
enum Format {
    Table,
    Json,
    Markdown,
}

#[derive(clap::Args)]
pub struct Args {
    /// Only sites of this op (substring match).
    #[arg(long)]
    op: Option<String>,
    /// Only sites of this failure class.
    #[arg(long)]
    category: Option<String>,
    /// table (default), json, or markdown (the whole table, as in docs/kernels.md).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

pub fn run(a: Args) -> Result<u8, CliError> {
    let kb = cudasleuth::kb::kb();
    let text = match a.format {
        Format::Markdown => cudasleuth::kb::doc::markdown(kb),
        Format::Json => {
            let chosen = kb.select(a.op.as_deref(), a.category.as_deref());
            serde_json::to_string_pretty(&chosen).unwrap_or_default() + "\n"
        }
        Format::Table => cudasleuth::kb::doc::table(&kb.select(a.op.as_deref(), a.category.as_deref())),
    };
    let mut out = super::Out::new();
    let _ = out.write_all(text.as_bytes());
    out.finish(0)
}
