//! `memloop completions SHELL` and `memloop man`: the shell completion scripts and the man
//! page, generated from the clap declarations in `cli.rs` so they never drift from `--help`.

use anyhow::Result;
use clap::CommandFactory;

use super::{EXIT_OK, print};
use crate::cli::Cli;

/// Prints the completion script for `shell` on stdout.
pub fn run(shell: clap_complete::Shell) -> Result<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "memloop", &mut out);
    print(&String::from_utf8_lossy(&out))?;
    Ok(EXIT_OK)
}

/// Prints the man page (roff) on stdout.
pub fn man() -> Result<u8> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    print(&String::from_utf8_lossy(&out))?;
    Ok(EXIT_OK)
}
