use super::{Cli, CliError};

pub const AFTER_HELP: &str = "Examples:\n  cudasleuth completions bash > ~/.local/share/bash-completion/completions/cudasleuth\n  cudasleuth completions zsh > \"${fpath[1]}/_cudasleuth\"\n  cudasleuth completions fish > ~/.config/fish/completions/cudasleuth.fish";

#[derive(clap::Args)]
pub struct Args {
    shell: clap_complete::Shell,
}

pub fn run(a: Args) -> Result<u8, CliError> {
    use clap::CommandFactory;
    let mut out = super::Out::new();
    clap_complete::generate(a.shell, &mut Cli::command(), "cudasleuth", &mut out);
    out.finish(0)
}
