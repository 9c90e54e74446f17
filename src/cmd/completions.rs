//! `memloop completions SHELL` and `memloop man`: the shell completion scripts and the man
//! page, generated from the clap declarations in `cli.rs` so they never drift from `--help`.

use anyhow::Result;
use clap::CommandFactory;
use clap_mangen::Man;

use super::{EXIT_OK, print};
use crate::cli::Cli;

/// Prints the completion script for `shell` on stdout.
pub fn run(shell: clap_complete::Shell) -> Result<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "memloop", &mut out);
    print(&String::from_utf8_lossy(&out))?;
    Ok(EXIT_OK)
}

/// Prints the man page (roff) on stdout: one page, whose COMMANDS section gives each
/// command with its synopsis, description and options (the global ones are listed once,
/// under OPTIONS), as `memloop <command> --help` does.
pub fn man() -> Result<u8> {
    let mut root = Cli::command().disable_help_subcommand(true);
    root.build();
    let page = Man::new(root.clone());
    let mut out = Vec::new();
    page.render_title(&mut out)?;
    page.render_name_section(&mut out)?;
    page.render_synopsis_section(&mut out)?;
    page.render_description_section(&mut out)?;
    page.render_options_section(&mut out)?;
    out.extend_from_slice(b".SH COMMANDS\n");
    let globals: Vec<String> = root
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .collect();
    for command in leaves(&root) {
        out.extend_from_slice(&command_section(command, &globals)?);
    }
    page.render_extra_section(&mut out)?;
    page.render_version_section(&mut out)?;
    print(&once_preamble(&String::from_utf8_lossy(&out)))?;
    Ok(EXIT_OK)
}

/// The page with the preamble that each rendered section repeats (it defines the
/// apostrophe string) kept only where it first appears.
fn once_preamble(page: &str) -> String {
    let mut seen = false;
    let mut out = String::with_capacity(page.len());
    for line in page.lines() {
        let preamble = line.starts_with(".ie \\n(.g .ds Aq") || line.starts_with(".el .ds Aq");
        if preamble && seen {
            continue;
        }
        seen |= preamble && line.starts_with(".el");
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Every command that runs something (`memory forget`, not `memory`), in `--help`'s order.
fn leaves(cmd: &clap::Command) -> Vec<&clap::Command> {
    cmd.get_subcommands()
        .flat_map(|sub| {
            if sub.has_subcommands() {
                leaves(sub)
            } else {
                vec![sub]
            }
        })
        .collect()
}

/// One command's part of the COMMANDS section: a subsection headed by its synopsis, then
/// its description and its own options. clap_mangen renders each as a section of a page
/// of its own; here they become the body of one subsection.
fn command_section(command: &clap::Command, globals: &[String]) -> Result<Vec<u8>> {
    let mut command = command.clone();
    for id in globals {
        command = command.mut_arg(id, |a| a.hide(true));
    }
    let name = command
        .get_bin_name()
        .unwrap_or_else(|| command.get_name())
        .to_owned();
    let page = Man::new(command);
    let mut body = Vec::new();
    page.render_synopsis_section(&mut body)?;
    page.render_description_section(&mut body)?;
    page.render_options_section(&mut body)?;
    let body: String = String::from_utf8_lossy(&body)
        .lines()
        .map(|line| match line {
            ".SH SYNOPSIS" => format!(".SS \"{name}\"\n"),
            ".SH DESCRIPTION" | ".SH OPTIONS" => ".PP\n".to_owned(),
            _ => format!("{line}\n"),
        })
        .collect();
    Ok(body.into_bytes())
}
