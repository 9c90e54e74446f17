//! The command line, declared with clap's derive API. Nothing here runs anything: `app`
//! dispatches the parsed `Cli` to the subcommands in `cmd/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Turn Memory Loop chat transcripts (and, once enabled, Claude Code's sessions) into
/// durable memory for Claude.
///
/// Facts about you go to ~/.claude/rules/memory.md (loaded by Claude Code into every
/// session); facts about a vault's work go to a fenced "Memory Loop Insights" section of
/// that vault's CLAUDE.md. Claude Code sessions (~/.claude/projects) are read only with
/// [sources.claude_code] enabled = true in the config, or `extract --project DIR`; a
/// project's facts stay unwritten unless you list it in [sources.claude_code] insights.
#[derive(Debug, Parser)]
#[command(name = "memloop", version, propagate_version = true)]
#[command(after_help = "\
Exit status: 0 done; 1 some transcripts failed (the rest were committed) or another runtime
error; 2 usage or configuration error (a rejected API key included), or a damaged ledger
(`memloop ledger rebuild`); 75 another memloop run holds the lock; 130 / 143 stopped by
SIGINT / SIGTERM after committing what was answered.

Environment: VAULTS_DIR, MEMLOOP_CONFIG, MEMLOOP_PROVIDER (auto|anthropic|openai|claude-cli|builtin),
MEMLOOP_MODEL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL,
CLAUDE_CONFIG_DIR, NO_COLOR, VISUAL/EDITOR.")]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Whether the command prints JSON on stdout (`--json`), so an error must too.
    #[must_use]
    pub fn wants_json(&self) -> bool {
        match &self.command {
            Command::Extract(a) => a.json,
            Command::Status(a) => a.json,
            Command::Doctor(a) => a.json,
            Command::Memory(MemoryCommand::Show(a)) => a.json,
            Command::Ledger(LedgerCommand::Rebuild(a)) => a.json,
            _ => false,
        }
    }
}

/// Options every subcommand takes.
#[derive(Debug, Args)]
pub struct Global {
    /// Config file [default: $MEMLOOP_CONFIG, else $XDG_CONFIG_HOME/memory-loop/config.toml]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Say more (repeat for debug output)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Print only errors (extract: nothing at all when the run went well)
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Extract durable facts from new or changed transcripts and update the memory files
    ///
    /// Only transcripts that are new or changed since the last run are sent (SHA-256 in the
    /// ledger); files modified in the last `settle_minutes` wait for the next run. Secrets
    /// are redacted before anything leaves the machine. Each transcript is committed as it
    /// finishes: a failure names the file and it is retried next run, except one only a
    /// change to the file can fix (not text, unreadable, an answer that cannot be read),
    /// which is reported once and skipped while it stays as it is (`--force` tries again);
    /// Ctrl-C keeps what was committed. With --json, stdout holds one JSON object on every
    /// exit ({"error", "exit"} when the run could not start).
    Extract(ExtractArgs),
    /// See, correct and prune the memory memloop keeps (show, edit, forget, restore, ...)
    #[command(subcommand)]
    Memory(MemoryCommand),
    /// Show, edit, locate or reset the extraction prompt
    #[command(subcommand)]
    Prompt(PromptCommand),
    /// The last run and its failures, what waits per vault, sizes against caps, pending review
    Status(StatusArgs),
    /// Run extractions on the `[schedule] cron` schedule, in the foreground, for a service manager
    ///
    /// Runs at once when the last successful run is older than `catch_up_hours` (or there was
    /// none), then at each time the cron expression names (local time). Holds the run lock
    /// only while a run is in progress; a second daemon refuses to start. SIGTERM or SIGINT
    /// commits what was answered and exits 0; SIGHUP or a changed config file or prompt is
    /// picked up without a restart (an invalid new config is logged and the old one kept).
    Daemon,
    /// Install, remove or inspect the nightly service (systemd user timer or launchd agent)
    #[command(subcommand)]
    Service(ServiceCommand),
    /// Repair memloop's ledger (its record of facts and processed transcripts)
    #[command(subcommand)]
    Ledger(LedgerCommand),
    /// Check everything a nightly run depends on and say how to fix what will fail
    ///
    /// One line per check with its fix; exit 1 when something will fail.
    Doctor(DoctorArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(CompletionsArgs),
    /// Print the man page (roff) on stdout: `memloop man > ~/.local/share/man/man1/memloop.1`
    Man,
    /// Serve memory to Claude Code sessions over MCP (stdin/stdout): search and remember
    ///
    /// Register it once: `claude mcp add --scope user memloop -- memloop mcp`. Its `search`
    /// tool finds every accepted fact memloop keeps that no one forgot (archived ones and
    /// projects' facts written nowhere included; none waiting for review), with where each
    /// came from; its `remember` tool keeps
    /// a fact the person states in a session, held for `memory review` unless `[mcp]
    /// remember = "accept"`. No tool forgets. Nothing but JSON-RPC on stdout; it ends when
    /// the client closes stdin.
    Mcp,
}

/// `memloop ledger ...`: memloop's own state.
#[derive(Debug, Subcommand)]
pub enum LedgerCommand {
    /// Rebuild a damaged or emptied ledger from what it still holds and from your files
    ///
    /// The damaged file is kept beside the new one (ledger.sqlite3.damaged-<time>), never
    /// deleted. What can still be read from it is kept (facts with their history, forgotten
    /// ones included, processed transcripts, runs). Then memory.md and every vault's
    /// insights fence are read back: their bullets are facts again, yours stay yours, and a
    /// bullet memloop wrote that you deleted stays forgotten. The transcripts there now are
    /// taken as processed at their current checksums (unless the salvaged ledger knows
    /// them), so none is extracted again to bring back what you deleted. No memory file is
    /// written; the next run renders them. A sound ledger is left alone.
    ///
    /// Exit 0 when rebuilt (or nothing to do), 1 when a file or transcript could not be read
    /// (the rest was rebuilt), 75 when another run holds the lock.
    Rebuild(crate::cmd::ledger::RebuildArgs),
}

/// `memloop service ...`: the nightly job, as a systemd user unit or a launchd agent.
#[derive(Debug, Subcommand)]
pub enum ServiceCommand {
    /// Write the unit (or agent) for this user and this binary, and enable it
    Install(ServiceArgs),
    /// Disable and remove what `install` wrote
    Uninstall(ServiceArgs),
    /// What is installed, whether it is enabled, when it next fires, and whether it runs this binary
    Status(ServiceArgs),
}

#[derive(Debug, Args)]
pub struct ServiceArgs {
    /// Use systemd user units [default on Linux]
    #[arg(long, conflicts_with = "launchd")]
    pub systemd: bool,
    /// Use a launchd agent [default on macOS]
    #[arg(long)]
    pub launchd: bool,
    /// Run `memloop daemon` as a long-lived service instead of a timer firing `memloop extract`
    #[arg(long)]
    pub daemon: bool,
    /// Only print what would be written and run; change nothing
    #[arg(long)]
    pub print: bool,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print the checks as JSON
    #[arg(long)]
    pub json: bool,
    /// Do not send the one cheap request that checks the provider answers
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to print completions for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// Process every transcript again, ignoring the ledger and the settle time
    #[arg(long)]
    pub force: bool,
    /// Extract (the LLM is called) and print what would change; write nothing at all
    #[arg(long)]
    pub dry_run: bool,
    /// Only these vaults (repeatable)
    #[arg(long = "vault", value_name = "DIR")]
    pub vaults: Vec<PathBuf>,
    /// Only the Claude Code sessions of the project in DIR (its working directory;
    /// repeatable), read even when [sources.claude_code] is not enabled
    #[arg(long = "project", value_name = "DIR")]
    pub projects: Vec<PathBuf>,
    /// Print the run report as JSON on stdout
    #[arg(long)]
    pub json: bool,
    /// Run on the small sample vault memloop carries, in a temporary directory, and print
    /// what it would remember; nothing of yours is read or written. On a terminal,
    /// `extract` does this by itself when no vault is configured.
    #[arg(long, conflicts_with_all = ["force", "dry_run", "vaults", "projects", "json"])]
    pub sample: bool,
}

/// `memloop memory ...`: see, correct and prune what memloop keeps.
#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// Print the memory file (with --json: every fact with its category, scope and sources)
    Show(crate::cmd::memory::show::ShowArgs),
    /// Open memory.md (or a vault's insights) in $VISUAL/$EDITOR; your changes are kept
    ///
    /// You edit a copy. When the editor exits 0, the copy is checked and reconciled under the
    /// run lock: a bullet you delete is forgotten and never comes back (not even with
    /// `extract --force`); a bullet you change or add becomes yours, kept in your words; a
    /// heading you add is a category; any other text you type stays where you put it. If the
    /// editor fails or the copy cannot be used, the file is left as it was and the command
    /// says where your copy is.
    Edit(crate::cmd::memory::edit::EditArgs),
    /// Forget facts that match QUERY (words or a substring); restore brings them back
    Forget(crate::cmd::memory::forget::ForgetArgs),
    /// Bring back a forgotten or archived fact that matches QUERY
    Restore(crate::cmd::memory::restore::RestoreArgs),
    /// Add a fact in your own words
    Remember(crate::cmd::memory::remember::RememberArgs),
    /// Where a fact came from: transcripts, dates, words, edits, what it replaced
    Why(crate::cmd::memory::why::WhyArgs),
    /// Accept or reject facts waiting for review (`[memory] review = true`, or held: quoted
    /// from a message that may be the assistant's, in a language the filter does not read,
    /// or letting the assistant take a risky step unchecked)
    Review(crate::cmd::memory::review::ReviewArgs),
}

/// `memloop prompt ...`: the extraction prompt. The one in use is your override
/// (extraction-prompt.md beside the config file), else the one Memory Loop's settings saved
/// (durable-facts.md there), else the built-in default.
#[derive(Debug, Subcommand)]
pub enum PromptCommand {
    /// Print the prompt in use, saying which one it is
    Show,
    /// Open your override in $VISUAL/$EDITOR (copying the prompt in use on first edit)
    Edit,
    /// Remove your override (asks first); Memory Loop's durable-facts.md is left alone
    Reset {
        /// Do not ask
        #[arg(long)]
        yes: bool,
    },
    /// Print the path of the prompt file in use (with the built-in one: where an override goes)
    Path,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print as JSON
    #[arg(long)]
    pub json: bool,
}
