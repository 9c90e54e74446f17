//! `memloop doctor [--json] [--offline]`: checks everything a nightly run depends on and
//! says what to fix, one line per check, exit 1 when something will fail (an error) and 0
//! otherwise (warnings included). The checks, in this order: the config (one that cannot
//! be used is a line, and the rest is checked with what can be kept of it), the provider
//! `auto` picks and why and whether it answers one cheap request (`provider`), the vaults
//! with their pending transcripts (`vaults`), the prompt and the memory file (`files`), the
//! ledger, the run lock and the last run (`state`), the nightly service (`service`), and
//! Memory Loop's own nightly extraction (`memory_loop`).
//!
//! It changes nothing: the ledger is read through a private copy, the lock is only probed,
//! and the one request it sends (not with `--offline`) extracts from a two-line chat.

mod claude_code;
mod files;
mod memory_loop;
mod provider;
mod service;
mod state;
mod vaults;

use std::fmt::Write as _;

use anyhow::Result;

use super::{EXIT_FAILED, EXIT_OK, print};
use crate::cli::{DoctorArgs, Global};
use crate::config::{Config, LlmConfig, Resolved};
use crate::ledger::Ledger;
use crate::paths::{Env, Paths};
use crate::prompt::Prompt;

/// How one check came out: `Error` is what will make a run fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
enum Level {
    Ok,
    Warn,
    Error,
}

/// One line of the report: what was checked, how it came out, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
struct Check {
    /// Which check, stable for scripts: `config`, `provider`, `endpoint`, `vault`, ...
    name: &'static str,
    level: Level,
    message: String,
    /// What to do, when there is something to do.
    fix: Option<String>,
}

impl Check {
    fn new(level: Level, name: &'static str, message: impl Into<String>) -> Self {
        Self {
            name,
            level,
            message: message.into(),
            fix: None,
        }
    }

    fn ok(name: &'static str, message: impl Into<String>) -> Self {
        Self::new(Level::Ok, name, message)
    }

    fn warn(name: &'static str, message: impl Into<String>) -> Self {
        Self::new(Level::Warn, name, message)
    }

    fn error(name: &'static str, message: impl Into<String>) -> Self {
        Self::new(Level::Error, name, message)
    }

    fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }
}

pub fn run(global: &Global, env: &Env, args: &DoctorArgs) -> Result<u8> {
    let now = chrono::Local::now();
    let mut checks = Vec::new();
    let setup = configure(global, env, &mut checks)?;
    let cfg = &setup.cfg;
    if setup.provider_known {
        checks.extend(provider::check(cfg, env, args.offline));
    }
    let prompt = cfg.paths.prompt();
    let ledger = read_ledger(cfg);
    let hash = prompt.as_ref().ok().map(Prompt::hash);
    checks.extend(vaults::check(
        cfg,
        ledger.as_ref().ok(),
        hash.as_deref(),
        now.into(),
    ));
    checks.extend(claude_code::check(
        cfg,
        ledger.as_ref().ok(),
        hash.as_deref(),
        now.into(),
    ));
    checks.push(files::prompt(&prompt));
    checks.extend(files::memory(cfg));
    // Asked before the last run is judged (a silent service is what makes an old run
    // worrying) and reported after it, in the order a reader follows.
    let inspection = service::inspect(cfg, env);
    checks.extend(state::check(cfg, &ledger));
    checks.push(state::last_run(
        &ledger,
        service::installed_at(&inspection),
        now,
    ));
    checks.push(service::check(&inspection, cfg, now));
    checks.push(memory_loop::check(cfg, env, now));
    if let Ok(home) = env.home() {
        checks.push(mcp_registered(&home));
    }
    if args.json {
        super::print_json_text(&to_json(&checks)?)?;
    } else {
        print(&render(&checks))?;
    }
    Ok(if failed(&checks) {
        EXIT_FAILED
    } else {
        EXIT_OK
    })
}

/// Whether Claude Code has `memloop mcp` registered: a server in `~/.claude.json` (user
/// scope, or a project's local scope) whose command is memloop with the argument `mcp`.
/// Optional, so never worse than ok, and the line says how.
fn mcp_registered(home: &std::path::Path) -> Check {
    let path = home.join(".claude.json");
    let doc: Option<serde_json::Value> = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let is_memloop = |server: &serde_json::Value| {
        let command = server["command"].as_str().unwrap_or_default();
        let args = server["args"].as_array().cloned().unwrap_or_default();
        std::path::Path::new(command)
            .file_name()
            .is_some_and(|n| n == "memloop")
            && args.first().and_then(|a| a.as_str()) == Some("mcp")
    };
    let found = doc.as_ref().and_then(|doc| {
        let user = doc["mcpServers"].as_object().into_iter().flatten();
        let local = doc["projects"]
            .as_object()
            .into_iter()
            .flatten()
            .flat_map(|(_, p)| p["mcpServers"].as_object().into_iter().flatten());
        user.map(|s| ("user", s))
            .chain(local.map(|s| ("a project's local", s)))
            .find(|(_, (_, server))| is_memloop(server))
            .map(|(scope, (name, _))| (scope, name.clone()))
    });
    match found {
        Some((scope, name)) => Check::ok(
            "mcp",
            format!(
                "Claude Code has `memloop mcp` registered as {name:?} ({scope} scope, {})",
                path.display()
            ),
        ),
        None => Check::ok(
            "mcp",
            "Claude Code does not have `memloop mcp` registered (optional: `claude mcp add --scope user memloop -- memloop mcp` lets sessions search memloop's memory)",
        ),
    }
}

/// A private copy of the ledger, or why it cannot be used: damaged, or emptied while
/// memloop's files remain (`rebuild::check_not_emptied`).
fn read_ledger(cfg: &Resolved) -> Result<Ledger> {
    let path = cfg.paths.ledger();
    let ledger = Ledger::scratch_copy(&path)?;
    let vaults: Vec<_> = crate::vault::discover(cfg.vaults_dir.as_deref(), &cfg.vaults)
        .into_iter()
        .filter_map(Result::ok)
        .collect();
    crate::rebuild::check_not_emptied(&ledger, &path, &cfg.memory_file, &vaults)?;
    Ok(ledger)
}

/// The configuration the checks run against.
struct Setup {
    cfg: Resolved,
    /// Whether `cfg.llm` is the one a run would use; when the provider or `[llm]` could
    /// not be resolved, the config line says so and the provider is not checked.
    provider_known: bool,
}

/// The variables `Resolved::new` reads, less `MEMLOOP_PROVIDER`: the environment of the
/// last fallback, when the provider it names is the problem.
const RESOLVE_VARS: [&str; 8] = [
    "HOME",
    "VAULTS_DIR",
    "MEMLOOP_MODEL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CLAUDE_CONFIG_DIR",
];

/// Loads and resolves the config, pushing its line. A file that does not parse, or a value
/// that cannot be used, is an error line, not the end: the rest is checked with the file's
/// other settings, else the defaults.
fn configure(global: &Global, env: &Env, checks: &mut Vec<Check>) -> Result<Setup> {
    let paths = Paths::resolve(env, global.config.as_deref())?;
    let file = paths.config_file.display().to_string();
    let config = match Config::load(&paths) {
        Ok(config) => config,
        Err(e) => {
            checks.push(
                Check::error("config", e.to_string()).fix(format!(
                    "correct {file} there; until then every memloop command exits 2 (doctor goes on with the defaults)"
                )),
            );
            Config::default()
        }
    };
    let first = match Resolved::new(config.clone(), paths.clone(), env) {
        Ok(cfg) => {
            if !checks.iter().any(|c| c.level == Level::Error) {
                checks.push(Check::ok("config", config_line(&cfg)));
            }
            return Ok(Setup {
                cfg,
                provider_known: true,
            });
        }
        Err(e) => e,
    };
    checks.push(
        Check::error("config", first.to_string())
            .fix("correct that value; until then every memloop command exits 2"),
    );
    let without_llm = Config {
        llm: LlmConfig::default(),
        ..config
    };
    let stripped = Env::from_pairs(RESOLVE_VARS.iter().filter_map(|k| Some((*k, env.var(k)?))));
    for (config, env) in [
        (without_llm, env),
        (Config::default(), env),
        (Config::default(), &stripped),
    ] {
        if let Ok(cfg) = Resolved::new(config, paths.clone(), env) {
            return Ok(Setup {
                cfg,
                provider_known: false,
            });
        }
    }
    Err(first.into())
}

fn config_line(cfg: &Resolved) -> String {
    let file = cfg.paths.config_file.display();
    if cfg.paths.config_file.exists() {
        format!(
            "config {file} (schedule \"{}\")",
            cfg.config.schedule.cron.expr()
        )
    } else {
        format!("config {file} (absent: the defaults)")
    }
}

/// Whether any check says a run will fail.
fn failed(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.level == Level::Error)
}

fn count(checks: &[Check], level: Level) -> usize {
    checks.iter().filter(|c| c.level == level).count()
}

/// One line per check, its fix on the same line, then the totals.
fn render(checks: &[Check]) -> String {
    let mut out = String::new();
    for c in checks {
        let tag = match c.level {
            Level::Ok => "ok   ",
            Level::Warn => "warn ",
            Level::Error => "error",
        };
        let _ = write!(out, "{tag} {}", c.message);
        if let Some(fix) = &c.fix {
            let _ = write!(out, "; fix: {fix}");
        }
        out.push('\n');
    }
    let (errors, warnings) = (count(checks, Level::Error), count(checks, Level::Warn));
    let _ = writeln!(
        out,
        "{errors} error{}, {warnings} warning{}",
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" }
    );
    out
}

/// What `--json` prints.
#[derive(serde::Serialize)]
struct Json<'a> {
    checks: &'a [Check],
    errors: usize,
    warnings: usize,
}

fn to_json(checks: &[Check]) -> Result<String> {
    let json = Json {
        checks,
        errors: count(checks, Level::Error),
        warnings: count(checks, Level::Warn),
    };
    Ok(serde_json::to_string_pretty(&json)? + "\n")
}

/// `1 transcript`, `2 transcripts`.
/// What a run would find in `vaults`, as `extract` and `status` judge it; `None` without a
/// ledger to compare with (or one that cannot be queried).
fn pending(
    cfg: &Resolved,
    vaults: &[crate::vault::Vault],
    ledger: Option<&Ledger>,
    prompt_hash: Option<&str>,
    now: std::time::SystemTime,
) -> Option<crate::scan::Scan> {
    let answer = prompt_hash.map(|h| crate::scan::answer_key(h, &cfg.llm.model));
    let rules = crate::scan::Rules {
        settle: std::time::Duration::from_secs(cfg.config.settle_minutes * 60),
        force: false,
        now,
        prompt_hash,
        answer: answer.as_deref(),
    };
    crate::scan::scan(vaults, ledger?, &rules).ok()
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Check> {
        vec![
            Check::ok("config", "config /c/config.toml (absent: the defaults)"),
            Check::warn("vault", "/v/gamma holds 1 chat but no CLAUDE.md")
                .fix("add a CLAUDE.md to /v/gamma to make it a vault"),
            Check::error("provider", "provider openai needs OPENAI_API_KEY"),
        ]
    }

    #[test]
    fn each_check_is_one_line_with_its_fix_then_the_totals() {
        assert_eq!(
            render(&sample()),
            "ok    config /c/config.toml (absent: the defaults)\n\
             warn  /v/gamma holds 1 chat but no CLAUDE.md; fix: add a CLAUDE.md to /v/gamma to make it a vault\n\
             error provider openai needs OPENAI_API_KEY\n\
             1 error, 1 warning\n"
        );
        assert!(failed(&sample()));
        assert!(!failed(&sample()[..2]));
        assert!(render(&sample()[..1]).ends_with("0 errors, 0 warnings\n"));
    }

    #[test]
    fn json_lists_name_level_message_and_fix() {
        let json: serde_json::Value = serde_json::from_str(&to_json(&sample()).unwrap()).unwrap();
        assert_eq!(json["errors"], 1);
        assert_eq!(json["warnings"], 1);
        assert_eq!(
            json["checks"][1],
            serde_json::json!({
                "name": "vault",
                "level": "warn",
                "message": "/v/gamma holds 1 chat but no CLAUDE.md",
                "fix": "add a CLAUDE.md to /v/gamma to make it a vault",
            })
        );
        assert_eq!(json["checks"][0]["fix"], serde_json::Value::Null);
    }

    #[test]
    fn levels_order_from_ok_to_error() {
        assert!(Level::Ok < Level::Warn && Level::Warn < Level::Error);
    }
}
