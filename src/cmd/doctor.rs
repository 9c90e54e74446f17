//! `memloop doctor`: checks everything a nightly run depends on and says what to fix, one
//! line per check (`--json` too), exit 1 when something will fail: the config (a file that
//! does not parse is a finding, the rest is checked with the defaults), the provider `auto`
//! picks and why and whether it answers one cheap request (not with `--offline`), base URLs
//! that cannot work, the vaults (same names, chats with no `CLAUDE.md`), the prompt, the
//! memory file, the ledger and the lock, the service, the last run, and Memory Loop's own
//! nightly extraction still rewriting memory.md. It changes nothing.

use std::path::Path;

use anyhow::Result;

use super::{EXIT_FAILED, EXIT_OK, print};
use crate::cli::{DoctorArgs, Global};
use crate::config::{Config, Resolved, provider_name};
use crate::fsutil;
use crate::ledger::Ledger;
use crate::llm::{ProviderKind, claude_cli};
use crate::paths::Env;
use crate::paths::Paths;
use crate::prompt::Prompt;
use crate::vault;

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
enum Level {
    Ok,
    Warn,
    Error,
}

/// The checks so far: each line with the part of the setup it is about.
#[derive(Default)]
struct Checks {
    lines: Vec<(Level, String)>,
    /// The part of the setup the next lines are about (`config`, `provider`, ...).
    topic: &'static str,
    topics: Vec<&'static str>,
}

#[derive(serde::Serialize)]
struct JsonCheck<'a> {
    check: &'a str,
    level: Level,
    message: &'a str,
}

impl Checks {
    fn about(&mut self, topic: &'static str) {
        self.topic = topic;
    }

    fn push(&mut self, level: Level, text: impl Into<String>) {
        self.lines.push((level, text.into()));
        self.topics.push(self.topic);
    }

    fn count(&self, level: Level) -> usize {
        self.lines.iter().filter(|(l, _)| *l == level).count()
    }

    fn render(&self) -> String {
        let mut out = String::new();
        for (level, text) in &self.lines {
            let tag = match level {
                Level::Ok => "ok   ",
                Level::Warn => "warn ",
                Level::Error => "error",
            };
            out.push_str(&format!("{tag} {text}\n"));
        }
        out.push_str(&format!(
            "{} errors, {} warnings\n",
            self.count(Level::Error),
            self.count(Level::Warn)
        ));
        out
    }

    fn to_json(&self) -> Result<String> {
        let checks: Vec<JsonCheck<'_>> = self
            .lines
            .iter()
            .zip(&self.topics)
            .map(|((level, message), check)| JsonCheck {
                check,
                level: *level,
                message,
            })
            .collect();
        Ok(serde_json::to_string_pretty(&serde_json::json!({
            "checks": checks,
            "errors": self.count(Level::Error),
            "warnings": self.count(Level::Warn),
        }))? + "\n")
    }

    fn failed(&self) -> bool {
        self.lines.iter().any(|(l, _)| *l == Level::Error)
    }
}

pub fn run(global: &Global, env: &Env, args: &DoctorArgs) -> Result<u8> {
    let mut c = Checks::default();
    c.about("config");
    // A config that does not parse is a finding, not the end: the rest is checked with
    // the defaults.
    let cfg = match super::resolve(global, env) {
        Ok(cfg) => {
            let file = &cfg.paths.config_file;
            c.push(
                Level::Ok,
                if file.exists() {
                    format!(
                        "config {} (schedule \"{}\")",
                        file.display(),
                        cfg.config.schedule.cron.expr()
                    )
                } else {
                    format!("config {} (absent: defaults)", file.display())
                },
            );
            cfg
        }
        Err(e) => {
            c.push(Level::Error, format!("{e:#}"));
            let paths = Paths::resolve(env, global.config.as_deref())?;
            Resolved::new(Config::default(), paths, env)?
        }
    };
    let cfg = &cfg;
    c.about("provider");
    check_provider(&mut c, cfg, env, args.offline);
    c.about("vaults");
    check_vaults(&mut c, cfg);
    c.about("prompt");
    match Prompt::load(&cfg.paths.prompt_file) {
        Ok(p) => c.push(
            Level::Ok,
            format!("{}, categories: {}", p.describe(), p.categories.join(", ")),
        ),
        Err(e) => c.push(Level::Error, format!("{e:#}")),
    }
    c.about("memory");
    check_memory(&mut c, &cfg.memory_file, cfg.config.memory.max_bytes);
    c.about("state");
    let last_run = check_state(&mut c, cfg);
    check_lock(&mut c, &cfg.paths.state_dir);
    c.about("service");
    let service = check_service(&mut c, cfg, env);
    c.about("last run");
    check_last_run(&mut c, last_run.as_ref(), service, chrono::Local::now());
    c.about("memory-loop");
    check_memory_loop(&mut c, &cfg.paths.legacy_state, chrono::Local::now());
    if args.json {
        print(&c.to_json()?)?;
    } else {
        print(&c.render())?;
    }
    Ok(if c.failed() { EXIT_FAILED } else { EXIT_OK })
}

fn check_provider(c: &mut Checks, cfg: &Resolved, env: &Env, offline: bool) {
    let llm = &cfg.llm;
    let name = provider_name(llm.kind);
    // One line for the provider: an error when it cannot work, else what it is and why.
    if let Err(e) = cfg.require_credentials() {
        c.push(Level::Error, format!("{e} ({})", cfg.provider_reason));
        return;
    }
    let level = if llm.kind == ProviderKind::Builtin
        && cfg.provider_reason == crate::config::ProviderReason::Fallback
    {
        Level::Warn
    } else {
        Level::Ok
    };
    c.push(
        level,
        format!(
            "provider {name}, model {} ({})",
            llm.model, cfg.provider_reason
        ),
    );
    match llm.kind {
        ProviderKind::Anthropic | ProviderKind::OpenAi => {
            if let Some(problem) = base_url_problem(llm.kind, &llm.base_url) {
                c.push(Level::Error, problem);
                return;
            }
            if offline {
                c.push(
                    Level::Ok,
                    format!("endpoint {} (not asked: --offline)", llm.base_url),
                );
            } else {
                ping(c, cfg);
            }
        }
        ProviderKind::ClaudeCli => {
            let path = env.var("PATH").unwrap_or_default();
            match claude_cli::find_program("claude", path.as_ref()) {
                Some(p) => c.push(Level::Ok, format!("claude CLI {}", p.display())),
                None => c.push(Level::Error, "the claude CLI was not found on PATH: install Claude Code or choose another provider"),
            }
            if let Some(available) = available_memory() {
                check_cli_memory(c, cfg.config.llm.concurrency, available);
            }
        }
        ProviderKind::Builtin => {}
    }
}

/// A base URL the client cannot use as given, with the fix.
fn base_url_problem(kind: ProviderKind, url: &str) -> Option<String> {
    let (var, suffix, example) = match kind {
        ProviderKind::Anthropic => (
            "ANTHROPIC_BASE_URL",
            "/v1/messages",
            "https://api.anthropic.com",
        ),
        _ => (
            "OPENAI_BASE_URL",
            "/chat/completions",
            "http://localhost:11434/v1",
        ),
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Some(format!(
            "{var} = {url} has no scheme: write http://{} (for example {example})",
            url.trim_start_matches('/')
        ));
    }
    let base = url.trim_end_matches('/').strip_suffix(suffix)?;
    Some(format!(
        "{var} = {url} already ends in {suffix}, which memloop appends: set it to {base}"
    ))
}

/// One cheap request (a two-line transcript) to see the provider answer, bounded to 15 s.
fn ping(c: &mut Checks, cfg: &Resolved) {
    let mut settings = cfg.llm.clone();
    settings.timeout = std::time::Duration::from_secs(15);
    settings.max_retries = 0;
    settings.max_output_tokens = settings.max_output_tokens.min(256);
    let categories = vec!["Preferences".to_owned()];
    let request = crate::llm::ExtractRequest {
        system: crate::llm::system_prompt("Extract durable facts.", &categories),
        transcript: "## [09:00] User\n\nHello.\n".to_owned(),
        categories,
        known_facts: Vec::new(),
        vault: "doctor".to_owned(),
        date: "2026-01-01".to_owned(),
    };
    let answer = crate::llm::Provider::new(&settings).map(|provider| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map(|rt| rt.block_on(provider.extract(&request)))
    });
    match answer {
        Ok(Ok(Ok(_))) => c.push(
            Level::Ok,
            format!(
                "endpoint {} answered (model {})",
                settings.base_url, settings.model
            ),
        ),
        Ok(Ok(Err(e))) => c.push(
            Level::Error,
            format!(
                "endpoint {} did not answer a test request: {e} (skip this check with --offline)",
                settings.base_url
            ),
        ),
        Ok(Err(e)) => c.push(
            Level::Error,
            format!("could not start the test request: {e}"),
        ),
        Err(e) => c.push(
            Level::Error,
            format!("provider {}: {e}", provider_name(settings.kind)),
        ),
    }
}

const MB: u64 = 1024 * 1024;

/// What one `claude` CLI process takes at its peak: 290 MB measured with Claude Code
/// 2.1.197 run as memloop runs it, rounded up.
const CLI_BYTES: u64 = 300 * 1024 * 1024;

/// Warns when `concurrency` CLIs at once would take more than the `available` bytes.
fn check_cli_memory(c: &mut Checks, concurrency: usize, available: u64) {
    let runs = u64::try_from(concurrency).unwrap_or(u64::MAX);
    let needed = runs.saturating_mul(CLI_BYTES);
    if needed <= available {
        return;
    }
    let fits = (available / CLI_BYTES).max(1);
    c.push(
        Level::Warn,
        format!(
            "llm.concurrency = {concurrency} runs up to {concurrency} claude CLIs at once, \
             about {} MB at {} MB each, more than the {} MB this machine has available: set \
             concurrency = {fits} under [llm]",
            needed / MB,
            CLI_BYTES / MB,
            available / MB
        ),
    );
}

/// The memory available for new processes, where the system says (Linux's
/// `MemAvailable`); `None` elsewhere, and the check is skipped.
fn available_memory() -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `MemAvailable` from the text of `/proc/meminfo`, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib = line.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()?;
    kib.checked_mul(1024)
}

fn check_vaults(c: &mut Checks, cfg: &Resolved) {
    if cfg.vaults_dir.is_none() && cfg.vaults.is_empty() {
        c.push(
            Level::Error,
            "no vaults: set VAULTS_DIR, or vaults_dir / vaults in the config file",
        );
        return;
    }
    let found = vault::discover(cfg.vaults_dir.as_deref(), &cfg.vaults);
    if found.is_empty() {
        let dir = cfg
            .vaults_dir
            .as_ref()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        c.push(
            Level::Warn,
            format!("no vault under {dir}: a vault is a directory with a CLAUDE.md"),
        );
    }
    let mut names: Vec<(String, std::path::PathBuf)> = Vec::new();
    for v in found {
        if let Ok(v) = &v {
            if let Some((_, other)) = names.iter().find(|(n, _)| *n == v.name) {
                c.push(
                    Level::Error,
                    format!(
                        "two vaults are named {}: {} and {}; their insights would be mixed, so the second is refused until one is renamed",
                        v.name,
                        other.display(),
                        v.root.display()
                    ),
                );
                continue;
            }
            names.push((v.name.clone(), v.root.clone()));
        }
        match v {
            Ok(v) => match vault::transcripts(&v) {
                Ok(t) => c.push(
                    Level::Ok,
                    format!(
                        "vault {}: {} transcript{} in {}",
                        v.name,
                        t.len(),
                        if t.len() == 1 { "" } else { "s" },
                        v.chats_dir().display()
                    ),
                ),
                Err(e) => c.push(
                    Level::Error,
                    format!(
                        "vault {}: cannot list {}: {e}",
                        v.name,
                        v.chats_dir().display()
                    ),
                ),
            },
            Err(e) => c.push(Level::Error, e.to_string()),
        }
    }
    if let Some(dir) = &cfg.vaults_dir {
        for chats in chats_without_vault(dir) {
            c.push(
                Level::Warn,
                format!(
                    "{} holds chats but its vault has no CLAUDE.md, so it is not read: add a CLAUDE.md to {} to make it a vault",
                    chats.display(),
                    chats.parent().and_then(Path::parent).map(Path::display).map(|d| d.to_string()).unwrap_or_default()
                ),
            );
        }
    }
}

/// `DIR/*/INBOX/chats` directories with transcripts whose vault has no `CLAUDE.md`.
fn chats_without_vault(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let root = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if hidden || !root.is_dir() || root.join(crate::vault::MARKER_FILE).exists() {
            continue;
        }
        for inbox in crate::vault::INBOX_CANDIDATES {
            let chats = root.join(inbox).join("chats");
            let has_md = std::fs::read_dir(&chats).is_ok_and(|mut d| {
                d.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "md")))
            });
            if has_md {
                out.push(chats);
                break;
            }
        }
    }
    out.sort();
    out
}

/// Whether the run lock is free, or a run (or the daemon's run) holds it; and whether the
/// daemon is running.
fn check_lock(c: &mut Checks, state_dir: &Path) {
    if !state_dir.exists() {
        return;
    }
    let daemon = state_dir.join("daemon.lock");
    if daemon.exists() && matches!(fsutil::try_lock_daemon(state_dir), Ok(None)) {
        c.push(Level::Ok, "memloop daemon is running");
    }
    if !state_dir.join("memloop.lock").exists() {
        return;
    }
    match fsutil::try_lock(state_dir) {
        Ok(Some(_)) => c.push(Level::Ok, "run lock free"),
        Ok(None) => c.push(
            Level::Ok,
            format!(
                "run lock {} is held: a memloop run is in progress; another run now would exit 75",
                state_dir.join("memloop.lock").display()
            ),
        ),
        Err(e) => c.push(
            Level::Error,
            format!("run lock in {}: {e}", state_dir.display()),
        ),
    }
}

/// The nightly service: installed, enabled and running this binary. Returns whether one
/// is installed.
fn check_service(c: &mut Checks, cfg: &Resolved, env: &Env) -> bool {
    let manager = crate::service::Manager::native();
    let i = match super::service::inspect(cfg, env, manager) {
        Ok(i) => i,
        Err(e) => {
            c.push(Level::Warn, format!("service: {e:#}"));
            return false;
        }
    };
    let Some((mode, path)) = &i.installed else {
        c.push(
            Level::Warn,
            format!(
                "no nightly service installed ({}): run `memloop service install`, or see README: Running it every night",
                i.manager.name()
            ),
        );
        return false;
    };
    let unit = mode.unit(manager);
    match (&i.binary, i.points_here) {
        (_, true) => {}
        (Some(b), false) => c.push(
            Level::Error,
            format!(
                "{} runs {}, not this memloop: run `memloop service install` again",
                path.display(),
                b.display()
            ),
        ),
        (None, false) => c.push(
            Level::Error,
            format!(
                "{} names no memloop binary: run `memloop service install` again",
                path.display()
            ),
        ),
    }
    match i.enabled {
        Some(false) => c.push(
            Level::Error,
            format!("{unit} is installed but not enabled: run `memloop service install` again"),
        ),
        Some(true) if i.points_here && i.current => {
            c.push(Level::Ok, format!("service {unit} installed and enabled ({})", path.display()));
        }
        _ if i.points_here && !i.current => c.push(
            Level::Warn,
            format!("{} differs from what this config would install (schedule or settings changed): run `memloop service install` again", path.display()),
        ),
        _ => {}
    }
    true
}

/// The last run and its result. A failed or stopped last run warns; so does a service
/// whose last run is more than two days old.
fn check_last_run(
    c: &mut Checks,
    last: Option<&(String, String)>,
    service: bool,
    now: chrono::DateTime<chrono::Local>,
) {
    let Some((at, report)) = last else {
        if service {
            c.push(Level::Warn, "no run yet although a service is installed: `memloop status` tells more after the first");
        }
        return;
    };
    let report = serde_json::from_str::<crate::report::Report>(report).unwrap_or_default();
    if let Some(reason) = &report.stopped {
        c.push(
            Level::Warn,
            format!("the last run ({at}) stopped early: {reason}"),
        );
    } else if !report.failures.is_empty() {
        c.push(
            Level::Warn,
            format!(
                "the last run ({at}) had {} failure(s), first {}: {}; `memloop status` lists them",
                report.failures.len(),
                report.failures[0].path,
                report.failures[0].error
            ),
        );
    } else {
        c.push(
            Level::Ok,
            format!(
                "last run {at}: {} transcripts processed",
                report.transcripts.processed
            ),
        );
    }
    let age = chrono::DateTime::parse_from_rfc3339(at).map(|t| now.signed_duration_since(t));
    if service && age.is_ok_and(|age| age > chrono::TimeDelta::days(2)) {
        c.push(
            Level::Warn,
            format!("a service is installed but the last run was {at}: check `memloop service status` and its logs"),
        );
    }
}

/// Memory Loop's own nightly extraction (its daemon, on by default) rewrites memory.md
/// too: when its state file says it ran in the last week, say how to turn it off.
fn check_memory_loop(c: &mut Checks, state_file: &Path, now: chrono::DateTime<chrono::Local>) {
    let Ok(text) = std::fs::read_to_string(state_file) else {
        return;
    };
    let last = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("lastRunAt")?.as_str().map(str::to_owned));
    let Some(last) = last else { return };
    let recent = chrono::DateTime::parse_from_rfc3339(&last)
        .is_ok_and(|t| now.signed_duration_since(t) < chrono::TimeDelta::days(7));
    if recent {
        c.push(
            Level::Warn,
            format!(
                "Memory Loop's own nightly extraction is still running (last run {last}, {}): it rewrites ~/.claude/rules/memory.md too. It has no off switch: start the Memory Loop daemon with MEMORY_FILE_PATH_OVERRIDE pointing at another file (and restart it), or give memloop another [memory] path",
                state_file.display()
            ),
        );
    }
}

fn check_state(c: &mut Checks, cfg: &Resolved) -> Option<(String, String)> {
    let ledger = cfg.paths.ledger();
    if let Err(e) = ledger.try_exists() {
        c.push(Level::Error, format!("ledger {}: {e}", ledger.display()));
        return None;
    }
    if !ledger.exists() {
        c.push(
            Level::Ok,
            format!("ledger {} (created by the first run)", ledger.display()),
        );
        return None;
    }
    match Ledger::scratch_copy(&ledger)
        .and_then(|l| Ok((l.transcript_count()?, l.last_run()?, l.notices(5)?)))
    {
        Ok((n, last, notices)) => {
            c.push(
                Level::Ok,
                format!(
                    "ledger {}: {n} transcripts, last run {}",
                    ledger.display(),
                    last.as_ref().map_or("never", |(at, _)| at.as_str())
                ),
            );
            check_rewrites(c, &notices);
            if let Some((_, report)) = &last {
                check_evidence(c, report);
            }
            last
        }
        Err(e) => {
            c.push(Level::Error, format!("{e:#}"));
            None
        }
    }
}

/// A model that ignores the `evidence` field, or paraphrases instead of quoting, loses facts
/// (held for review, or refused): say so, with what to do about it.
fn check_evidence(c: &mut Checks, report: &str) {
    let Ok(report) = serde_json::from_str::<crate::report::Report>(report) else {
        return;
    };
    let f = &report.facts;
    let model = format!("{} ({})", report.model, report.provider);
    if f.unverified > 0 {
        c.push(
            Level::Warn,
            format!(
                "the last run's model, {model}, quoted no evidence for its facts: {} wait in \
                 `memloop memory review`, since memloop cannot check that you said them. Use a \
                 model that follows the output contract (JSON schema or tool use), or review \
                 after each run",
                f.unverified
            ),
        );
    }
    let unfound = f
        .refused_by
        .get(&crate::ground::Ungrounded::NotInTranscript.to_string())
        .copied()
        .unwrap_or_default();
    if f.extracted >= 4 && unfound * 2 >= f.extracted {
        c.push(
            Level::Warn,
            format!(
                "the last run refused {unfound} of {} facts because their evidence was not in \
                 the transcript: {model} seems to paraphrase instead of quoting the person's \
                 words. A stronger model, or a prompt that insists on exact quotes, keeps them",
                f.extracted
            ),
        );
    }
}

/// Another program rewrote a file memloop writes (Memory Loop's own nightly extraction
/// rewrites memory.md while it is enabled): say when, what memloop did, and how to stop it.
fn check_rewrites(c: &mut Checks, notices: &[crate::ledger::Notice]) {
    let Some(newest) = notices.iter().find(|n| n.kind == "rewritten") else {
        return;
    };
    let times = notices.iter().filter(|n| n.kind == "rewritten").count();
    c.push(
        Level::Warn,
        format!(
            "{} was rewritten by another program ({times} time(s) recently, last {}): {}. \
             Memory Loop's own nightly extraction rewrites ~/.claude/rules/memory.md and has no \
             off switch: set MEMORY_FILE_PATH_OVERRIDE to another file in the Memory Loop \
             daemon's environment and restart it, or point memloop elsewhere with [memory] path",
            newest.target, newest.at, newest.detail
        ),
    );
}

fn check_memory(c: &mut Checks, path: &Path, max_bytes: usize) {
    // Opened for appending, never written: fails where a run's write would.
    let writable = |p: &Path| std::fs::OpenOptions::new().append(true).open(p).map(|_| ());
    match std::fs::read_to_string(path) {
        Ok(_) if writable(path).is_err() => c.push(
            Level::Error,
            format!(
                "memory {} cannot be written ({}): fix its permissions or set [memory] path",
                path.display(),
                writable(path)
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default()
            ),
        ),
        Ok(text) => {
            if text.starts_with("---") {
                c.push(
                    Level::Warn,
                    format!("{} starts with YAML frontmatter: Claude Code skips a rule file with `paths:`", path.display()),
                );
            }
            let level = if text.len() > max_bytes {
                Level::Warn
            } else {
                Level::Ok
            };
            c.push(
                level,
                format!(
                    "memory {} ({} of {max_bytes} bytes)",
                    path.display(),
                    text.len()
                ),
            );
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            c.push(
                Level::Ok,
                format!("memory {} (not written yet)", path.display()),
            );
        }
        Err(e) => c.push(Level::Error, format!("memory {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_and_oversize_memory_warn() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.md");
        std::fs::write(&path, "---\npaths: x\n---\n# Memory\n").unwrap();
        let mut c = Checks::default();
        check_memory(&mut c, &path, 10);
        let levels: Vec<Level> = c.lines.iter().map(|(l, _)| *l).collect();
        assert_eq!(levels, [Level::Warn, Level::Warn]);
        assert!(!c.failed());
        assert!(c.render().ends_with("0 errors, 2 warnings\n"));
    }

    #[test]
    fn mem_available_is_read_from_meminfo_in_bytes() {
        let meminfo = "MemTotal:       24684544 kB\nMemFree:        18657280 kB\n\
                       MemAvailable:   24196096 kB\nBuffers:          123456 kB\n";
        assert_eq!(mem_available(meminfo), Some(24_196_096 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None, "an old kernel");
        assert_eq!(mem_available("MemAvailable: lots\n"), None);
    }

    #[test]
    fn too_many_clis_for_the_memory_available_warn() {
        let cases = [
            (4, 2048 * MB, None),
            (4, 1200 * MB, None),
            (4, 1199 * MB, Some("concurrency = 3 ")),
            (4, 700 * MB, Some("concurrency = 2 ")),
            (2, 100 * MB, Some("concurrency = 1 ")),
        ];
        for (concurrency, available, advice) in cases {
            let mut c = Checks::default();
            check_cli_memory(&mut c, concurrency, available);
            match advice {
                None => assert!(
                    c.lines.is_empty(),
                    "{concurrency} {available}: {:?}",
                    c.lines
                ),
                Some(advice) => {
                    assert_eq!(c.lines.len(), 1);
                    let (level, text) = &c.lines[0];
                    assert_eq!(*level, Level::Warn);
                    assert!(text.contains(advice), "{text}");
                    assert!(
                        text.contains(&format!("{} MB this machine", available / MB)),
                        "{text}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_model_that_does_not_quote_is_named() {
        let report = |facts: serde_json::Value| {
            serde_json::json!({"provider": "openai", "model": "llama3", "facts": facts}).to_string()
        };
        let cases = [
            (serde_json::json!({"extracted": 3, "new": 3}), 0),
            (
                serde_json::json!({"extracted": 3, "new": 3, "pending": 3, "unverified": 3}),
                1,
            ),
            (
                serde_json::json!({"extracted": 6, "new": 2, "refused": 4,
                    "refused_by": {"evidence not in the transcript": 3, "carries a URL": 1}}),
                1,
            ),
            (
                serde_json::json!({"extracted": 8, "new": 6, "refused": 2,
                    "refused_by": {"evidence not in the transcript": 2}}),
                0,
            ),
        ];
        for (facts, warnings) in cases {
            let mut c = Checks::default();
            check_evidence(&mut c, &report(facts.clone()));
            assert_eq!(c.lines.len(), warnings, "{facts}: {:?}", c.lines);
            assert!(
                c.lines
                    .iter()
                    .all(|(l, t)| *l == Level::Warn && t.contains("llama3 (openai)"))
            );
        }
    }
}
