//! The application edge: set up logging, load the config, dispatch to a subcommand, and
//! turn the outcome into the contract's exit status.

mod completions;
mod daemon;
mod doctor;
pub mod editor;
mod extract;
pub mod ledger;
mod mcp;
pub mod memory;
mod prompt;
pub(crate) mod service;
mod status;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{Cli, Command, Global};
use crate::config::{Config, Resolved};
use crate::error;
use crate::ledger::LedgerDamaged;
use crate::paths::{Env, Paths};

/// Exit status: done.
pub const EXIT_OK: u8 = 0;
/// Exit status: some transcripts failed, or another runtime error.
pub const EXIT_FAILED: u8 = 1;

/// Runs the parsed command line and returns the process's exit status.
pub fn main(cli: Cli) -> ExitCode {
    let env = Env::from_process();
    init_logging(&cli.global, matches!(cli.command, Command::Daemon), &env);
    let json = cli.wants_json();
    let config = cli.global.config.clone();
    match dispatch(cli, &env) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // A key pasted into the wrong setting must not be echoed to a log.
            let mut message = crate::redact::redact(&format!("{e:#}")).into_owned();
            say(&message);
            let advice = damage_advice(&e, config.as_deref(), &env)
                .or_else(|| disk_full_advice(&e, config.as_deref(), &env));
            if let Some(advice) = advice {
                say(&advice);
                message = format!("{message}\n{advice}");
            }
            let code = error::kind_of(&e).code();
            if json {
                print_json_error(&message, code);
            }
            ExitCode::from(code)
        }
    }
}

/// Whether this process has printed its JSON document on stdout.
static JSON_PRINTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Prints a command's JSON document on stdout (once per process: a script reads one object).
pub(crate) fn print_json(value: &impl serde::Serialize) -> Result<()> {
    print_json_text(&format!("{}\n", serde_json::to_string_pretty(value)?))
}

/// [`print_json`] for a document already rendered.
pub(crate) fn print_json_text(text: &str) -> Result<()> {
    JSON_PRINTED.store(true, std::sync::atomic::Ordering::SeqCst);
    print(text)
}

/// With `--json`, a command that fails before it printed its document prints this instead,
/// so a script never parses an empty stdout: `{"error": "...", "exit": N}`.
pub fn print_json_error(message: &str, exit: u8) {
    if JSON_PRINTED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    let doc = serde_json::json!({"error": message, "exit": exit});
    let _ = print(&format!("{doc:#}\n"));
}

/// The way out of a ledger found broken in the middle of a command (its check at open
/// passed): SQLite's words alone do not say which file or what to do.
fn damage_advice(e: &anyhow::Error, config: Option<&std::path::Path>, env: &Env) -> Option<String> {
    if e.chain()
        .any(|c| c.downcast_ref::<LedgerDamaged>().is_some())
    {
        return None;
    }
    let why = crate::ledger::corruption_in(e)?;
    let paths = Paths::resolve(env, config).ok()?;
    Some(LedgerDamaged::unreadable(&paths.ledger(), why).to_string())
}

/// What a full state disk means for the user (SQLite's words alone are "database or disk
/// is full", or "disk I/O error").
fn disk_full_advice(
    e: &anyhow::Error,
    config: Option<&std::path::Path>,
    env: &Env,
) -> Option<String> {
    let paths = Paths::resolve(env, config).ok()?;
    error::is_disk_full_at(e, &paths.state_dir).then(|| {
        format!(
            "the disk holding memloop's state ({}) is full: free some space on it and run again; \
             nothing memloop committed is lost, and what it did not commit waits for the next run",
            paths.state_dir.display()
        )
    })
}

fn dispatch(cli: Cli, env: &Env) -> Result<u8> {
    let Cli { global, command } = cli;
    match command {
        Command::Extract(args) => extract::run(&resolve(&global, env)?, env, &global, &args),
        Command::Memory(cmd) => memory::run(&resolve(&global, env)?, env, &cmd),
        Command::Prompt(cmd) => {
            prompt::run(&Paths::resolve(env, global.config.as_deref())?, env, &cmd)
        }
        Command::Status(args) => status::run(&resolve(&global, env)?, &args),
        Command::Daemon => daemon::run(&global, env),
        Command::Service(cmd) => service::run(&global, env, &cmd),
        Command::Ledger(cmd) => ledger::run(&resolve(&global, env)?, &cmd),
        Command::Doctor(args) => doctor::run(&global, env, &args),
        Command::Completions(args) => completions::run(args.shell),
        Command::Man => completions::man(),
        Command::Mcp => mcp::run(&resolve(&global, env)?, env),
    }
}

/// Loads the config file and merges flags and environment over it.
pub(super) fn resolve(global: &Global, env: &Env) -> Result<Resolved> {
    let paths = Paths::resolve(env, global.config.as_deref())?;
    let config = Config::load(&paths)?;
    Ok(Resolved::new(config, paths, env)?)
}

/// A usage error (exit 2) when the run would have no vault at all, naming what to set:
/// unattended, doing nothing every night without a word is the failure to avoid.
pub(super) fn require_vaults(cfg: &Resolved) -> Result<()> {
    if no_vaults(cfg) {
        return Err(error::usage(no_vaults_message(cfg)));
    }
    Ok(())
}

/// Whether this run has nothing to read: no vault configured, or a vaults directory with
/// no vault in it, and Claude Code's sessions not enabled. A vault that fails to open is
/// not "none": the run reports it.
fn no_vaults(cfg: &Resolved) -> bool {
    if cfg.claude_code.enabled {
        return false;
    }
    if cfg.vaults_dir.is_none() && cfg.vaults.is_empty() {
        return true;
    }
    crate::vault::discover(cfg.vaults_dir.as_deref(), &cfg.vaults).is_empty()
}

fn no_vaults_message(cfg: &Resolved) -> String {
    let mut message = no_vault_found(cfg);
    if let Some(hint) = crate::claude_code::project::hint(&cfg.claude_code, &cfg.paths.config_file)
    {
        message.push_str("; ");
        message.push_str(&hint);
    }
    message
}

fn no_vault_found(cfg: &Resolved) -> String {
    let config = cfg.paths.config_file.display();
    match &cfg.vaults_dir {
        Some(dir) if cfg.vaults.is_empty() => format!(
            "no vault found in {}: a vault is a directory there with a CLAUDE.md; fix VAULTS_DIR or vaults_dir in {config}, or name vaults with `vaults = [...]` or `--vault DIR`",
            dir.display()
        ),
        _ => format!(
            "no vaults configured: set VAULTS_DIR, or vaults_dir = \"~/vaults\" (the directory holding your vaults) in {config}, or pass --vault DIR"
        ),
    }
}

/// Logs go to stderr, one line per event, never in colour. The daemon logs what it does
/// (`info`) by default, with timestamps unless journald, which stamps lines itself, reads
/// them (`$JOURNAL_STREAM`); a command logs warnings only. The words of facts are logged
/// only for a command run with `-v` on a terminal (`logged`).
fn init_logging(global: &Global, daemon: bool, env: &Env) {
    use std::io::IsTerminal;
    crate::logged::show_words(!daemon && global.verbose > 0 && std::io::stderr().is_terminal());
    let level = match (global.quiet, global.verbose + u8::from(daemon)) {
        (true, _) if daemon => "warn",
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, _) => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("MEMLOOP_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("memloop={level}")));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(false);
    let _ = if daemon && env.var("JOURNAL_STREAM").is_none() {
        builder.try_init()
    } else {
        builder.without_time().try_init()
    };
}

/// One line for the user on stderr, redacted (under a service stderr goes to a log, and a
/// key pasted into the wrong setting is echoed by the error that names it). A closed stderr
/// (`memloop extract 2>&1 | head -1`) must not stop a run half way, so write errors are
/// ignored (`eprintln!` would panic).
pub(crate) fn say(line: &str) {
    let line = crate::redact::redact(line);
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "memloop: {line}");
}

/// Writes to stdout; a closed pipe (`memloop memory show | head`) is not an error.
pub(crate) fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_data_met_mid_command_is_explained_once_with_the_ledger_and_the_way_out() {
        let env = Env::from_pairs([("HOME", "/h"), ("XDG_STATE_HOME", "/s")]);
        let corrupt = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
            None,
        );
        let e = anyhow::Error::from(corrupt).context("could not read facts");
        let advice = damage_advice(&e, None, &env).expect("advice");
        assert!(advice.contains("/s/memory-loop/ledger.sqlite3"), "{advice}");
        assert!(advice.contains("memloop ledger rebuild"), "{advice}");
        let said = anyhow::Error::from(LedgerDamaged::unreadable(
            std::path::Path::new("/s/l"),
            "garbage",
        ));
        assert_eq!(damage_advice(&said, None, &env), None, "already said");
        assert_eq!(
            damage_advice(&anyhow::anyhow!("disk full"), None, &env),
            None
        );
    }
}
