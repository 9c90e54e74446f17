//! The `memloop` binary: parse the command line and hand it to the library.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    memloop::cmd::main(memloop::cli::Cli::parse())
}
