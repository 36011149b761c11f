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
    /// Only sites of this op or Python API (a substring; `F.` and `nn.` stand for
    /// `torch.nn.functional.` and `torch.nn.`, as code writes them).
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
    // a filter that selects nothing is a mistake to say, not an empty table
    if (a.op.is_some() || a.category.is_some()) && kb.select(a.op.as_deref(), a.category.as_deref()).is_empty() {
        let categories: std::collections::BTreeSet<&str> = kb.sites.iter().map(|s| s.category.as_str()).collect();
        let what = match (&a.op, &a.category) {
            (Some(o), Some(c)) => format!("no site of op `{o}` in category `{c}`"),
            (Some(o), None) => format!("no site of an op or Python API matching `{o}`"),
            (None, Some(c)) => format!("no site in category `{c}`"),
            (None, None) => unreachable!(),
        };
        return Err(CliError::KernelFilter(format!("{what}; categories: {}", categories.into_iter().collect::<Vec<_>>().join(", "))));
    }
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
