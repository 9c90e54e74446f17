//! `memloop doctor`: checks everything a run depends on, offline, and says what to fix:
//! the config, the provider `auto` picks and why (with the `claude` CLI, whether
//! `llm.concurrency` of them fit in the memory available), the vaults and their
//! transcripts, the state directory and ledger, the memory file and the prompt. It never
//! calls an LLM.

use std::path::Path;

use anyhow::Result;

use super::{EXIT_FAILED, EXIT_OK, print};
use crate::config::{Resolved, provider_name};
use crate::ledger::Ledger;
use crate::llm::{ProviderKind, claude_cli};
use crate::paths::Env;
use crate::prompt::Prompt;
use crate::vault;

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Ok,
    Warn,
    Error,
}

#[derive(Default)]
struct Checks {
    lines: Vec<(Level, String)>,
}

impl Checks {
    fn push(&mut self, level: Level, text: impl Into<String>) {
        self.lines.push((level, text.into()));
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
        let errors = self
            .lines
            .iter()
            .filter(|(l, _)| *l == Level::Error)
            .count();
        let warnings = self.lines.iter().filter(|(l, _)| *l == Level::Warn).count();
        out.push_str(&format!("{errors} errors, {warnings} warnings\n"));
        out
    }

    fn failed(&self) -> bool {
        self.lines.iter().any(|(l, _)| *l == Level::Error)
    }
}

pub fn run(cfg: &Resolved, env: &Env, _args: &crate::cli::DoctorArgs) -> Result<u8> {
    let mut c = Checks::default();
    if cfg.paths.config_file.exists() {
        c.push(
            Level::Ok,
            format!("config {}", cfg.paths.config_file.display()),
        );
    } else {
        c.push(
            Level::Ok,
            format!(
                "config {} (absent: defaults)",
                cfg.paths.config_file.display()
            ),
        );
    }
    check_provider(&mut c, cfg, env);
    check_vaults(&mut c, cfg);
    check_state(&mut c, cfg);
    check_memory(&mut c, &cfg.memory_file, cfg.config.memory.max_bytes);
    match Prompt::load(&cfg.paths.prompt_file) {
        Ok(p) => c.push(
            Level::Ok,
            format!("{}, categories: {}", p.describe(), p.categories.join(", ")),
        ),
        Err(e) => c.push(Level::Error, format!("{e:#}")),
    }
    print(&c.render())?;
    Ok(if c.failed() { EXIT_FAILED } else { EXIT_OK })
}

fn check_provider(c: &mut Checks, cfg: &Resolved, env: &Env) {
    let llm = &cfg.llm;
    let name = provider_name(llm.kind);
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
    if let Err(e) = cfg.require_credentials() {
        c.push(Level::Error, e.to_string());
    }
    match llm.kind {
        ProviderKind::Anthropic | ProviderKind::OpenAi => {
            let key = if llm.kind == ProviderKind::Anthropic {
                "ANTHROPIC_API_KEY"
            } else {
                "OPENAI_API_KEY"
            };
            let key_state = if llm.api_key.is_some() {
                "set"
            } else {
                "not set (fine for a local server)"
            };
            c.push(
                Level::Ok,
                format!("endpoint {}, {key} {key_state}", llm.base_url),
            );
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
    for v in found {
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
}

fn check_state(c: &mut Checks, cfg: &Resolved) {
    let ledger = cfg.paths.ledger();
    if let Err(e) = ledger.try_exists() {
        c.push(Level::Error, format!("ledger {}: {e}", ledger.display()));
        return;
    }
    if !ledger.exists() {
        c.push(
            Level::Ok,
            format!("ledger {} (created by the first run)", ledger.display()),
        );
        return;
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
        }
        Err(e) => c.push(Level::Error, format!("{e:#}")),
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
    match std::fs::read_to_string(path) {
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
