//! The `memloop` binary: parse the command line and hand it to the library.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

fn main() -> ExitCode {
    match memloop::cli::Cli::try_parse() {
        Ok(cli) => memloop::cmd::main(cli),
        Err(e) => {
            // A script that asked for JSON gets a JSON object for a usage error too.
            let usage = !matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            );
            if usage && std::env::args_os().any(|a| a == "--json") {
                let message = e.kind().to_string();
                let detail = e.to_string();
                let first = detail.lines().next().unwrap_or(&message);
                let first = first.strip_prefix("error: ").unwrap_or(first);
                memloop::cmd::print_json_error(first, 2);
            }
            e.exit()
        }
    }
}
