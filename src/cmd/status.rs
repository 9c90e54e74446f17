//! `memloop status [--json]`: what memloop did last and what it would do next. The last
//! run (when, how it ended, what failed and where), whether a run is in progress, the
//! transcripts waiting in each vault and those processed with an older prompt, the memory
//! file and each vault's insights against their caps, the facts waiting for review, the
//! provider a run would use and why, and the prompt in use.
//!
//! It is read-only: the ledger is read through a private copy, the transcripts are scanned
//! (`scan`) without recording anything, and on a home where memloop never ran it creates
//! nothing. It calls no LLM.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, SystemTime};

use anyhow::Result;
use serde::Serialize;

use super::{EXIT_OK, print};
use crate::cli::StatusArgs;
use crate::config::{Resolved, provider_name};
use crate::fact::Status;
use crate::fence;
use crate::fsutil;
use crate::ledger::{Ledger, LedgerDamaged};
use crate::prompt::Prompt;
use crate::rebuild;
use crate::render;
use crate::report::{Failure, Report};
use crate::scan::{self, VaultCounts};
use crate::vault::{self, Vault};

#[derive(Serialize)]
struct State {
    config: String,
    /// Whether the config file exists (absent: the defaults).
    config_exists: bool,
    state_dir: String,
    vaults_dir: Option<String>,
    provider: String,
    provider_reason: String,
    model: String,
    prompt: PromptState,
    /// Why the ledger cannot be used (damaged, or emptied while memloop's files remain);
    /// the counts then stand against an empty ledger.
    ledger_error: Option<String>,
    last_run: Option<LastRun>,
    /// Whether another run holds the lock; `None` when that could not be checked.
    in_progress: Option<bool>,
    transcripts: Transcripts,
    claude_code: ClaudeCode,
    memory: Memory,
    insights: Vec<Insights>,
    facts: Facts,
}

#[derive(Serialize)]
struct PromptState {
    /// The file in use: the user's override or Memory Loop's prompt (`None`: built-in).
    path: Option<String>,
    /// `builtin`, `override` (extraction-prompt.md) or `memory-loop` (durable-facts.md).
    source: &'static str,
    /// Why the override cannot be used, if it cannot (every command exits 2 then).
    error: Option<String>,
    /// Why Memory Loop's prompt, which is there, is not used.
    #[serde(skip_serializing_if = "Option::is_none")]
    notice: Option<String>,
}

#[derive(Serialize)]
struct LastRun {
    /// As the ledger recorded it (RFC 3339).
    finished_at: String,
    outcome: Outcome,
    /// The run's report, when it could be read.
    report: Option<Report>,
}

/// How the last run ended.
#[derive(Serialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    Ok,
    Failures,
    Interrupted,
    /// The report could not be read (written by another memloop version, say).
    Unknown,
}

#[derive(Serialize)]
struct Transcripts {
    /// Transcripts the ledger records as processed.
    processed: i64,
    /// New or changed since the ledger: what `memloop extract` would send.
    waiting: usize,
    settling: usize,
    /// Processed with a prompt other than the one in use.
    older_prompt: usize,
    vaults: Vec<VaultState>,
    /// Vaults and transcripts that could not be read.
    problems: Vec<Failure>,
}

#[derive(Serialize)]
struct VaultState {
    name: String,
    path: String,
    #[serde(flatten)]
    counts: VaultCounts,
}

/// `[sources.claude_code]`: the projects found, which are read, and what waits in each.
#[derive(Serialize)]
struct ClaudeCode {
    enabled: bool,
    projects_dir: String,
    projects: Vec<ProjectState>,
    /// What a run would say when the source is off and sessions are there.
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
}

#[derive(Serialize)]
struct ProjectState {
    /// The project's working directory.
    path: String,
    /// Claude Code's directory of its sessions.
    sessions_dir: String,
    sessions: usize,
    /// `read`, `not enabled`, `excluded`, `no sessions`.
    status: &'static str,
    /// Its insights go to its `CLAUDE.local.md`.
    insights: bool,
    /// For a project read: what the scan found.
    #[serde(skip_serializing_if = "Option::is_none")]
    counts: Option<VaultCounts>,
}

#[derive(Serialize)]
struct Memory {
    path: String,
    /// `None`: not written yet.
    bytes: Option<u64>,
    max_bytes: usize,
}

#[derive(Serialize)]
struct Insights {
    vault: String,
    path: String,
    enabled: bool,
    bullets: usize,
    bytes: usize,
    max_bytes: usize,
    /// The markers are malformed or the file cannot be read.
    error: Option<String>,
}

#[derive(Serialize)]
struct Facts {
    active: usize,
    archived: usize,
    forgotten: usize,
    pending: usize,
    /// Active facts nobody confirmed for `stale_after_days` (`memory review --stale`).
    stale: usize,
    /// `[memory] stale_after_days` (0: stale review off).
    stale_after_days: u32,
}

/// Prints the status. A prompt that cannot be used is a usage error (exit 2) here as in
/// every command, but only once everything else has been shown.
/// A damaged ledger is shown the same way and exits 2 after the rest, with the way out.
pub fn run(cfg: &Resolved, args: &StatusArgs) -> Result<u8> {
    let prompt = cfg.paths.prompt();
    let shown = prompt.as_ref().map_err(|e| format!("{e:#}"));
    let (state, damaged) = gather(cfg, shown, chrono::Local::now().into())?;
    if args.json {
        super::print_json(&state)?;
    } else {
        print(&text(&state))?;
    }
    prompt?;
    if let Some(e) = damaged {
        return Err(e);
    }
    Ok(EXIT_OK)
}

/// The ledger as status reads it: a private copy, or an empty one beside the error that
/// says why the real one cannot be used.
fn read_ledger(cfg: &Resolved, vaults: &[Vault]) -> Result<(Ledger, Option<anyhow::Error>)> {
    let path = cfg.paths.ledger();
    let read = Ledger::scratch_copy(&path).and_then(|l| {
        rebuild::check_not_emptied(&l, &path, &cfg.memory_file, vaults)?;
        Ok(l)
    });
    match read {
        Ok(l) => Ok((l, None)),
        Err(e) if e.downcast_ref::<LedgerDamaged>().is_some() => {
            Ok((Ledger::in_memory()?, Some(e)))
        }
        Err(e) => Err(e),
    }
}

/// Everything status shows; `prompt` is why the override cannot be used, if it cannot.
fn gather(
    cfg: &Resolved,
    prompt: Result<&Prompt, String>,
    now: SystemTime,
) -> Result<(State, Option<anyhow::Error>)> {
    let prompt_state = match &prompt {
        Ok(p) => PromptState {
            path: p.path.as_ref().map(|p| p.display().to_string()),
            source: p.source.as_str(),
            error: None,
            notice: p.notice.clone(),
        },
        Err(e) => PromptState {
            path: Some(cfg.paths.prompt_file.display().to_string()),
            source: crate::prompt::Source::Override.as_str(),
            error: Some(e.clone()),
            notice: None,
        },
    };
    let (mut vaults, mut problems) = vaults(cfg);
    let memory_loop_vaults = vaults.len();
    // Only the projects a run would read are scanned; the others are listed.
    let listing = crate::claude_code::project::select(&cfg.claude_code, &[]).unwrap_or_default();
    vaults.extend(listing.vaults.iter().cloned());
    problems.extend(listing.failures.iter().map(|(path, error)| Failure {
        path: path.display().to_string(),
        error: error.clone(),
    }));
    let (ledger, damaged) = read_ledger(cfg, &vaults)?;
    let hash = prompt.ok().map(Prompt::hash);
    let answer = hash.as_deref().map(|h| scan::answer_key(h, &cfg.llm.model));
    let rules = scan::Rules {
        settle: Duration::from_secs(cfg.config.settle_minutes * 60),
        force: false,
        now,
        prompt_hash: hash.as_deref(),
        answer: answer.as_deref(),
    };
    let mut found = scan::scan(&vaults, &ledger, &rules)?;
    let total = found.total();
    let project_counts = found.vaults.split_off(memory_loop_vaults);
    let claude_code = ClaudeCode {
        enabled: cfg.claude_code.enabled,
        projects_dir: cfg.claude_code.projects_dir.display().to_string(),
        projects: listing
            .projects
            .iter()
            .map(|l| {
                let name = l.project.cwd.display().to_string();
                let counts = vaults[memory_loop_vaults..]
                    .iter()
                    .position(|v| v.name == name)
                    .map(|i| project_counts[i].clone());
                ProjectState {
                    path: name,
                    sessions_dir: l.project.sessions_dir.display().to_string(),
                    sessions: l.sessions,
                    status: l.status,
                    insights: l.insights,
                    counts,
                }
            })
            .collect(),
        hint: crate::claude_code::project::hint(&cfg.claude_code, &cfg.paths.config_file),
    };
    problems.extend(found.problems.iter().map(|p| Failure {
        path: p.path.display().to_string(),
        error: p.error.clone(),
    }));
    for path in &found.still_failing {
        let key = path.display().to_string();
        if let Some(f) = ledger.failed_input(&key)? {
            problems.push(Failure {
                path: key,
                error: format!(
                    "{} (since {}; skipped until it changes)",
                    f.error,
                    local(&f.failed_at)
                ),
            });
        }
    }
    let count = |s: Status| -> Result<usize> { Ok(ledger.facts(&[s])?.len()) };
    let state = State {
        config: cfg.paths.config_file.display().to_string(),
        config_exists: cfg.paths.config_file.exists(),
        state_dir: cfg.paths.state_dir.display().to_string(),
        vaults_dir: cfg.vaults_dir.as_ref().map(|d| d.display().to_string()),
        provider: provider_name(cfg.llm.kind).to_owned(),
        provider_reason: cfg.provider_reason.to_string(),
        model: cfg.llm.model.clone(),
        prompt: prompt_state,
        ledger_error: damaged.as_ref().map(|e| format!("{e:#}")),
        last_run: last_run(&ledger)?,
        in_progress: in_progress(&cfg.paths.state_dir),
        claude_code,
        transcripts: Transcripts {
            processed: ledger.transcript_count()?,
            waiting: total.new + total.changed,
            settling: total.settling,
            older_prompt: total.older_prompt,
            vaults: vaults
                .iter()
                .zip(found.vaults)
                .map(|(v, counts)| VaultState {
                    name: v.name.clone(),
                    path: v.root.display().to_string(),
                    counts,
                })
                .collect(),
            problems,
        },
        memory: Memory {
            path: cfg.memory_file.display().to_string(),
            bytes: std::fs::metadata(&cfg.memory_file).ok().map(|m| m.len()),
            max_bytes: cfg.config.memory.max_bytes,
        },
        insights: vaults
            .iter()
            .filter(|v| v.writes_insights())
            .map(|v| insights(cfg, v))
            .collect(),
        facts: Facts {
            active: count(Status::Active)?,
            archived: count(Status::Archived)?,
            forgotten: count(Status::Forgotten)?,
            pending: count(Status::Pending)?,
            stale: {
                let today = chrono::DateTime::<chrono::Local>::from(now).date_naive();
                match crate::cmd::memory::stale::cutoff(today, cfg.config.memory.stale_after_days) {
                    Some(cutoff) => crate::cmd::memory::stale::stale(&ledger, &cutoff)?.len(),
                    None => 0,
                }
            },
            stale_after_days: cfg.config.memory.stale_after_days,
        },
    };
    Ok((state, damaged))
}

/// The configured vaults, as a run would take them: the first of a name wins.
fn vaults(cfg: &Resolved) -> (Vec<Vault>, Vec<Failure>) {
    let mut vaults: Vec<Vault> = Vec::new();
    let mut problems = Vec::new();
    for v in vault::discover(cfg.vaults_dir.as_deref(), &cfg.vaults) {
        match v {
            Ok(v) if vaults.iter().any(|o| o.name == v.name) => problems.push(Failure {
                path: v.root.display().to_string(),
                error: format!("another vault is also named {}: rename one of them", v.name),
            }),
            Ok(v) => vaults.push(v),
            Err(e) => problems.push(Failure {
                path: e.path().display().to_string(),
                error: e.to_string(),
            }),
        }
    }
    (vaults, problems)
}

fn last_run(ledger: &Ledger) -> Result<Option<LastRun>> {
    Ok(ledger.last_run()?.map(|(finished_at, json)| {
        let report: Option<Report> = serde_json::from_str(&json).ok();
        let outcome = match &report {
            None => Outcome::Unknown,
            Some(r) if r.interrupted => Outcome::Interrupted,
            Some(r) if !r.failures.is_empty() => Outcome::Failures,
            Some(_) => Outcome::Ok,
        };
        LastRun {
            finished_at,
            outcome,
            report,
        }
    }))
}

/// Whether another run holds the lock. The lock is taken and released at once (a run
/// starting in that instant would find it held and exit 75); where memloop never ran there
/// is no state directory, and none is created.
fn in_progress(state_dir: &Path) -> Option<bool> {
    if !state_dir.is_dir() {
        return Some(false);
    }
    fsutil::try_lock(state_dir).ok().map(|lock| lock.is_none())
}

/// A vault's insights block: its bullets and its size, marker lines included.
fn insights(cfg: &Resolved, v: &Vault) -> Insights {
    let path = v.claude_md();
    let mut out = Insights {
        vault: v.name.clone(),
        path: path.display().to_string(),
        enabled: cfg.config.insights.enabled,
        bullets: 0,
        bytes: 0,
        max_bytes: cfg.config.insights.max_bytes,
        error: None,
    };
    // Only a CLAUDE.md inside the vault, and never a FIFO or a device (it would block).
    let doc = match crate::fsutil::read_within(&v.root, &path).map_err(std::io::Error::from) {
        Ok(doc) => doc,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return out,
        Err(e) => {
            out.error = Some(format!("could not read {}: {e}", path.display()));
            return out;
        }
    };
    match fence::find(&doc) {
        Ok(Some(f)) => {
            let inner = String::from_utf8_lossy(&doc[f.inner.clone()]);
            out.bullets = render::parse_bullets(&inner).len();
            out.bytes = f.end.end - f.begin.start;
        }
        Ok(None) => {}
        Err(e) => out.error = Some(e.to_string()),
    }
    out
}

/// An RFC 3339 time from the ledger in local time, to the second.
fn local(rfc3339: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(rfc3339).map_or_else(
        |_| rfc3339.to_owned(),
        |t| {
            t.with_timezone(&chrono::Local)
                .format("%Y-%m-%d %H:%M:%S")
                .to_string()
        },
    )
}

/// `1 transcript`, `2 transcripts`.
fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The human text: one labelled line per subject, details indented below.
fn text(s: &State) -> String {
    let mut o = String::new();
    let mut line = |label: &str, text: &str| {
        let _ = writeln!(o, "{label:<13}{text}");
    };
    if let Some(e) = &s.ledger_error {
        line("ledger", e);
    }

    match &s.last_run {
        None => line("last run", "never"),
        Some(run) => {
            let when = local(&run.finished_at);
            match &run.report {
                None => line("last run", &format!("{when}: its report could not be read")),
                Some(r) => {
                    let outcome = match run.outcome {
                        Outcome::Interrupted => "interrupted",
                        Outcome::Failures => "finished with failures",
                        Outcome::Ok | Outcome::Unknown => "done",
                    };
                    let t = &r.transcripts;
                    let mut what = format!("{} processed", plural(t.processed, "transcript"));
                    if t.failed > 0 {
                        let _ = write!(what, ", {} failed", t.failed);
                    }
                    if t.deferred > 0 {
                        let _ = write!(what, ", {} deferred", t.deferred);
                    }
                    let _ = write!(what, "; {}", plural(r.facts.new, "new fact"));
                    line(
                        "last run",
                        &format!(
                            "{when}, {outcome} in {:.1}s: {what}",
                            r.elapsed_ms as f64 / 1000.0
                        ),
                    );
                    for f in &r.failures {
                        line("", &format!("failed: {}: {}", f.path, f.error));
                    }
                }
            }
        }
    }
    line(
        "in progress",
        match s.in_progress {
            Some(true) => "yes: a memloop run holds the lock",
            Some(false) => "no",
            None => "unknown: the lock could not be checked",
        },
    );

    let t = &s.transcripts;
    if t.vaults.is_empty() && t.problems.is_empty() && s.claude_code.projects.is_empty() {
        line(
            "transcripts",
            if s.vaults_dir.is_none() {
                "no vaults configured: set VAULTS_DIR, or vaults_dir / vaults in the config file"
            } else {
                "no vaults found: a vault is a directory with a CLAUDE.md"
            },
        );
    } else {
        let mut summary = format!("{} waiting", t.waiting);
        if t.settling > 0 {
            let _ = write!(summary, ", {} still settling", t.settling);
        }
        let _ = write!(summary, "; {} processed", t.processed);
        line("transcripts", &summary);
        for v in &t.vaults {
            line(&format!("  {}", v.name), &vault_counts(&v.counts));
        }
        for p in &t.problems {
            line("", &format!("unreadable: {}: {}", p.path, p.error));
        }
    }
    let cc = &s.claude_code;
    if !cc.projects.is_empty() {
        line(
            "claude code",
            &format!(
                "{} in {}",
                if cc.enabled { "enabled" } else { "not enabled" },
                cc.projects_dir
            ),
        );
        for p in &cc.projects {
            let what = match &p.counts {
                Some(counts) => vault_counts(counts),
                None => format!("{}, not read: {}", plural(p.sessions, "session"), p.status),
            };
            let insights = if p.insights {
                " (insights in CLAUDE.local.md)"
            } else {
                ""
            };
            // A project's path is longer than the label column: it leads its own line.
            line("", &format!("{}: {what}{insights}", p.path));
        }
        if let Some(hint) = &cc.hint {
            line("", hint);
        }
    }
    if t.older_prompt > 0 {
        line(
            "",
            &format!(
                "{} processed with another prompt: `memloop extract --force` would process them again",
                plural(t.older_prompt, "transcript")
            ),
        );
    }

    let m = &s.memory;
    line(
        "memory",
        &match m.bytes {
            Some(b) => format!("{}: {b} of {} bytes", m.path, m.max_bytes),
            None => format!("{}: not written yet (cap {} bytes)", m.path, m.max_bytes),
        },
    );
    let mut label = "insights";
    for i in &s.insights {
        let what = match (&i.error, i.enabled, i.bytes) {
            (Some(e), _, _) => format!("{}: {e}", i.path),
            (None, false, _) => "off (insights.enabled = false)".to_owned(),
            (None, true, 0) => "none yet".to_owned(),
            (None, true, b) => format!(
                "{}, {b} of {} bytes",
                plural(i.bullets, "bullet"),
                i.max_bytes
            ),
        };
        line(label, &format!("{}: {what}", i.vault));
        label = "";
    }
    let f = &s.facts;
    line(
        "facts",
        &format!(
            "{} active, {} archived, {} forgotten",
            f.active, f.archived, f.forgotten
        ),
    );
    if f.pending > 0 {
        line(
            "review",
            &format!(
                "{} waiting: `memloop memory review`",
                plural(f.pending, "fact")
            ),
        );
    }
    if f.stale > 0 {
        line(
            "stale",
            &format!(
                "{} not confirmed for {} days: `memloop memory review --stale`",
                plural(f.stale, "fact"),
                f.stale_after_days
            ),
        );
    }
    line(
        "provider",
        &format!("{}, model {} ({})", s.provider, s.model, s.provider_reason),
    );
    line(
        "prompt",
        &match (&s.prompt.path, &s.prompt.error) {
            (_, Some(e)) => format!("cannot be used: {e}"),
            (Some(p), None) if s.prompt.source == "memory-loop" => {
                format!("Memory Loop's {p} (saved by its settings; no extraction-prompt.md)")
            }
            (Some(p), None) => format!("your override {p}"),
            (None, _) => "built-in".to_owned(),
        },
    );
    if let Some(notice) = &s.prompt.notice {
        line("", notice);
    }
    line(
        "config",
        &if s.config_exists {
            s.config.clone()
        } else {
            format!("{} (absent: defaults)", s.config)
        },
    );
    line("state", &s.state_dir);
    o
}

/// One vault's transcripts: what waits, then what is done.
fn vault_counts(c: &VaultCounts) -> String {
    let parts: Vec<String> = [
        (c.new, "new"),
        (c.changed, "changed"),
        (c.settling, "settling"),
        (c.failed, "unreadable"),
        (c.still_failing, "skipped (failed before)"),
        (c.unchanged, "processed"),
    ]
    .iter()
    .filter(|(k, _)| *k > 0)
    .map(|(k, what)| format!("{k} {what}"))
    .collect();
    if parts.is_empty() {
        "no transcripts".to_owned()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_times_are_shown_in_local_time_to_the_second() {
        let t = chrono::Local::now();
        let shown = local(&t.to_rfc3339());
        assert_eq!(shown, t.format("%Y-%m-%d %H:%M:%S").to_string());
        assert_eq!(shown.len(), "2026-11-24 07:12:05".len());
        assert_eq!(local("imported"), "imported", "not a time: as it is");
    }

    #[test]
    fn a_vault_line_names_only_what_it_has() {
        let c = VaultCounts {
            found: 4,
            new: 2,
            settling: 1,
            unchanged: 1,
            ..VaultCounts::default()
        };
        assert_eq!(vault_counts(&c), "2 new, 1 settling, 1 processed");
        assert_eq!(vault_counts(&VaultCounts::default()), "no transcripts");
    }

    #[test]
    fn a_report_that_cannot_be_read_is_an_unknown_outcome_not_an_error() {
        let mut ledger =
            Ledger::scratch_copy(Path::new("/nonexistent/memloop/ledger.sqlite3")).unwrap();
        ledger
            .transaction(|l| l.record_run("a", "2026-11-24T07:12:05+00:00", "not json at all"))
            .unwrap();
        let run = last_run(&ledger).unwrap().unwrap();
        assert!(run.outcome == Outcome::Unknown && run.report.is_none());
        let failed = Report {
            failures: vec![Failure {
                path: "/v/a.md".into(),
                error: "empty file".into(),
            }],
            ..Report::default()
        };
        let json = serde_json::to_string(&failed).unwrap();
        ledger
            .transaction(|l| l.record_run("b", "2026-11-24T07:13:00+00:00", &json))
            .unwrap();
        assert!(last_run(&ledger).unwrap().unwrap().outcome == Outcome::Failures);
    }
}
