//! The run report: counts of everything a run did, printed as text at the end of
//! `memloop extract` (or as JSON with `--json`) and stored with the run in the ledger.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// Reports recorded by an older memloop read back too: a field it did not have is its
/// default (`#[serde(default)]`), a field it named otherwise is read under that name.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Report {
    pub vaults: usize,
    /// Claude Code projects whose sessions were read.
    pub projects: usize,
    pub transcripts: TranscriptCounts,
    pub facts: FactCounts,
    pub memory: MemoryInfo,
    pub tokens: Tokens,
    /// Estimated cost in USD when the model's prices are known.
    pub cost_usd: Option<f64>,
    pub provider: String,
    pub model: String,
    pub prompt: PromptInfo,
    pub failures: Vec<Failure>,
    /// Inputs skipped because they failed in an earlier run (the reason and when) and have
    /// not changed since: reported when they first failed, not failures of this run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub still_failing: Vec<Failure>,
    pub dry_run: bool,
    /// What a `--dry-run` would have written (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<Change>,
    /// The run was stopped by a signal; what it committed stays, the rest waits.
    #[serde(default)]
    pub interrupted: bool,
    /// Why the run stopped before it was done (a signal, a rejected key, a provider that
    /// could not be reached), when it did: such a run is not a successful one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// How long the run took, in milliseconds.
    pub elapsed_ms: u64,
    /// Hand edits read back from the files memloop writes.
    #[serde(default)]
    pub edits: EditCounts,
    /// What the run has to say about the files: text it adopted, a rewrite by another
    /// program, text it had to leave out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
}

/// What a ledger rebuild made of one file's bullets (`rebuild::plan`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct RebuildCounts {
    /// Bullets of facts the salvaged ledger knew.
    pub known: usize,
    /// Of those, facts that were not shown (forgotten, archived) and are again.
    pub restored: usize,
    /// Of those, facts the file words differently: the user's words now.
    pub reworded: usize,
    /// Bullets no fact knew any more: facts again, kept as the user's own.
    pub adopted: usize,
    /// Facts memloop showed that the file no longer has: forgotten, as a deleted bullet is.
    pub forgotten: usize,
}

/// Hand edits read back from the files, as facts they touched.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct EditCounts {
    pub forgotten: usize,
    pub added: usize,
    pub changed: usize,
    pub moved: usize,
}

impl EditCounts {
    /// Whether any fact changed.
    #[must_use]
    pub fn any(&self) -> bool {
        self.forgotten + self.added + self.changed + self.moved > 0
    }

    /// Adds another file's edits.
    pub fn add(&mut self, other: EditCounts) {
        self.forgotten += other.forgotten;
        self.added += other.added;
        self.changed += other.changed;
        self.moved += other.moved;
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct TranscriptCounts {
    pub found: usize,
    /// The ledger already has them with the same checksum.
    pub unchanged: usize,
    /// Modified within `settle_minutes`: the chat may still be going.
    pub waiting: usize,
    /// Left for the next run, where they go first: over the per-run budget, or stopped by a
    /// signal or an error that ended the run.
    pub deferred: usize,
    pub processed: usize,
    pub failed: usize,
    /// Failed in an earlier run for a reason only a change to them can fix, unchanged
    /// since: skipped, not failed again (`still_failing` says why).
    pub still_failing: usize,
    /// Blank transcripts (Memory Loop leaves them): recorded as done without an LLM. Absent
    /// from the JSON when there were none.
    #[serde(skip_serializing_if = "is_zero")]
    pub empty: usize,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What happened to the facts extractors returned. The fates add up:
/// `extracted = new + reinforced + already_known + replaced + refused + forgotten +
/// duplicates`. `pending` (part of `new`), `archived` and the hand edits are counted apart.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct FactCounts {
    /// Candidates the extractors returned.
    pub extracted: usize,
    /// Facts memloop did not know (shown, or waiting for review).
    pub new: usize,
    /// Said again in another transcript: reinforced, provenance extended.
    #[serde(alias = "merged")]
    pub reinforced: usize,
    /// Said again in a transcript that had already said it (a `--force` run), or by an
    /// answer that quoted no evidence at all (which changes nothing known).
    pub already_known: usize,
    /// Updated a fact in force (which is archived as replaced, or takes the new wording).
    pub replaced: usize,
    /// Refused: not grounded in the person's own words (`ground`), or by the policy filter
    /// (instructions, commands, credentials, too long).
    pub refused: usize,
    /// `refused`, by reason.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub refused_by: std::collections::BTreeMap<String, usize>,
    /// Dropped because the user forgot them before.
    pub forgotten: usize,
    /// The same fact twice in one answer.
    pub duplicates: usize,
    /// Of `new`, waiting for `memloop memory review`.
    pub pending: usize,
    /// Of `pending`, held because the model quoted no evidence for any fact of its answer.
    pub unverified: usize,
    /// Facts whose quote's words could not tell whether it states them, and that the model
    /// was asked about, apart (`llm::judge`), whatever it answered.
    pub judged: usize,
    /// Of `pending`, held because memloop could not vouch that the quote is the person's
    /// message, or that it states the fact (`held_by` says which).
    pub held: usize,
    /// `held`, by reason.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub held_by: std::collections::BTreeMap<String, usize>,
    /// Left out of a file by its size cap (kept in the ledger).
    pub archived: usize,
    /// Learned in this run from two transcripts that could not see each other, saying the
    /// same in other words: merged into the first (`llm::reconcile`).
    #[serde(skip_serializing_if = "is_zero")]
    pub same_night: usize,
    /// Left out of the files because their last day (`valid_until`) passed: archived as
    /// expired, restorable.
    #[serde(skip_serializing_if = "is_zero")]
    pub expired: usize,
}

impl FactCounts {
    /// The sum of the fates, which equals `extracted`.
    #[must_use]
    pub fn settled(&self) -> usize {
        self.new
            + self.reinforced
            + self.already_known
            + self.replaced
            + self.refused
            + self.forgotten
            + self.duplicates
    }
}

/// Tokens as the provider reported them.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct Tokens {
    /// Every input token, cached ones included.
    pub input: u64,
    pub output: u64,
    /// Of `input`, written to the provider's prompt cache.
    #[serde(skip_serializing_if = "no_tokens")]
    pub cache_write: u64,
    /// Of `input`, read from the provider's prompt cache.
    #[serde(skip_serializing_if = "no_tokens")]
    pub cache_read: u64,
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn no_tokens(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct MemoryInfo {
    pub path: String,
    pub bytes: usize,
    pub max_bytes: usize,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct PromptInfo {
    pub path: Option<String>,
    pub custom: bool,
    /// Which prompt: `builtin`, `override` (extraction-prompt.md) or `memory-loop`
    /// (Memory Loop's durable-facts.md). Empty in reports recorded before it was kept.
    pub source: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Failure {
    pub path: String,
    pub error: String,
}

/// One file a dry run would change.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

impl Report {
    /// Adds `note` to the run's notices, once: a file written several times in a run says
    /// the same thing each time.
    pub fn notice(&mut self, note: String) {
        if !self.notices.contains(&note) {
            self.notices.push(note);
        }
    }

    /// The human summary printed at the end of a run.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let t = &self.transcripts;
        let f = &self.facts;
        let verb = if self.dry_run {
            "dry run (nothing written)"
        } else {
            "done"
        };
        let _ = writeln!(
            s,
            "memloop extract: {verb} in {:.1}s",
            self.elapsed_ms as f64 / 1000.0
        );
        let _ = writeln!(
            s,
            "  vaults       {}{}\n  transcripts  {} found, {} unchanged, {} waiting to settle, {} deferred, {} processed, {} failed{}",
            self.vaults,
            if self.projects > 0 {
                format!(" (and {} Claude Code projects)", self.projects)
            } else {
                String::new()
            },
            t.found,
            t.unchanged,
            t.waiting,
            t.deferred,
            t.processed,
            t.failed,
            if t.still_failing > 0 {
                format!(", {} still failing (skipped)", t.still_failing)
            } else {
                String::new()
            }
        );
        if t.empty > 0 {
            let _ = writeln!(
                s,
                "               {} empty (recorded as done, nothing to send)",
                t.empty
            );
        }
        let pending = if f.pending > 0 {
            format!(" ({} waiting for `memloop memory review`)", f.pending)
        } else {
            String::new()
        };
        let refused_by = if f.refused_by.is_empty() {
            String::new()
        } else {
            let reasons: Vec<String> = f
                .refused_by
                .iter()
                .map(|(reason, n)| format!("{n} {reason}"))
                .collect();
            format!(" ({})", reasons.join(", "))
        };
        let _ = writeln!(
            s,
            "  facts        {} extracted: {} new{pending}, {} reinforced, {} already known, {} replaced, {} refused{refused_by}, {} previously forgotten, {} duplicates",
            f.extracted,
            f.new,
            f.reinforced,
            f.already_known,
            f.replaced,
            f.refused,
            f.forgotten,
            f.duplicates
        );
        if f.unverified > 0 {
            let _ = writeln!(
                s,
                "               {} held for review: the model quoted no evidence for its facts, so memloop could not check that you said them (a model that ignores `evidence`; see `memloop doctor`)",
                f.unverified
            );
        }
        if f.judged > 0 {
            let _ = writeln!(
                s,
                "               {} asked about apart: whether the quote states the fact, where its words could not tell",
                f.judged
            );
        }
        if f.held > 0 {
            let reasons: Vec<String> = f
                .held_by
                .iter()
                .map(|(reason, n)| format!("{reason} ({n})"))
                .collect();
            let _ = writeln!(
                s,
                "               {} held for review (`memloop memory review`): {}",
                f.held,
                reasons.join("; ")
            );
        }
        if f.same_night > 0 {
            let _ = writeln!(
                s,
                "               {} merged: said the same as a fact learned the same night, in other words",
                f.same_night
            );
        }
        if f.expired > 0 {
            let _ = writeln!(
                s,
                "               {} expired: their last day passed (`memloop memory show --archived`)",
                f.expired
            );
        }
        if f.archived > 0 {
            let _ = writeln!(
                s,
                "               {} archived by the size cap (`memloop memory show --archived`)",
                f.archived
            );
        }
        let e = &self.edits;
        if e.any() {
            let _ = writeln!(
                s,
                "  your edits   {} forgotten, {} added, {} changed, {} moved",
                e.forgotten, e.added, e.changed, e.moved
            );
        }
        let _ = writeln!(
            s,
            "  memory       {} ({} of {} bytes)",
            self.memory.path, self.memory.bytes, self.memory.max_bytes
        );
        let cost = self
            .cost_usd
            .map(|c| format!(", about ${c:.4}"))
            .unwrap_or_default();
        let t = &self.tokens;
        let cached = if t.cache_write + t.cache_read > 0 {
            format!(
                " ({} written to the prompt cache, {} read from it)",
                t.cache_write, t.cache_read
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "  llm          {} {} ({} tokens in{cached}, {} out{cost})",
            self.provider, self.model, t.input, t.output
        );
        let prompt = match (self.prompt.path.as_deref(), self.prompt.source.as_str()) {
            (None, _) => "built-in prompt".to_owned(),
            (Some(p), "memory-loop") => format!("Memory Loop's prompt {p}"),
            (Some(p), _) => format!("custom prompt {p}"),
        };
        let _ = writeln!(s, "  prompt       {prompt}");
        for c in &self.changes {
            let _ = writeln!(
                s,
                "would change {} (+{} -{})",
                c.path,
                c.added.len(),
                c.removed.len()
            );
            for a in &c.added {
                let _ = writeln!(s, "  + {a}");
            }
            for r in &c.removed {
                let _ = writeln!(s, "  - {r}");
            }
        }
        for n in &self.notices {
            let _ = writeln!(s, "note: {n}");
        }
        if self.interrupted {
            let _ = writeln!(
                s,
                "interrupted: the transcripts not processed wait for the next run"
            );
        }
        for fail in &self.failures {
            let _ = writeln!(s, "failed: {}: {}", fail.path, fail.error);
        }
        if let Some(first) = self.still_failing.first() {
            let more = match self.still_failing.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            let _ = writeln!(
                s,
                "skipped: {}{more}: unchanged since it failed ({}); fix or replace it and the next run reads it, or `memloop extract --force` tries again now",
                first.path, first.error
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_the_documented_shape() {
        let r = Report {
            provider: "builtin".into(),
            ..Report::default()
        };
        let v = serde_json::to_value(&r).unwrap();
        for key in [
            "vaults",
            "projects",
            "transcripts",
            "facts",
            "memory",
            "tokens",
            "provider",
            "model",
            "prompt",
            "failures",
            "dry_run",
        ] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        for key in ["found", "unchanged", "waiting", "processed", "failed"] {
            assert!(
                v["transcripts"].get(key).is_some(),
                "missing transcripts.{key}"
            );
        }
        for key in [
            "extracted",
            "new",
            "reinforced",
            "already_known",
            "replaced",
            "duplicates",
            "refused",
            "archived",
            "forgotten",
        ] {
            assert!(v["facts"].get(key).is_some(), "missing facts.{key}");
        }
    }

    #[test]
    fn a_report_recorded_by_the_previous_release_reads_back() {
        let old = r#"{"vaults":2,"transcripts":{"found":3,"unchanged":0,"waiting":0,"deferred":0,
            "processed":3,"failed":0},"facts":{"extracted":6,"new":5,"merged":1,"replaced":0,
            "refused":0,"archived":0,"forgotten":0},"memory":{"path":"/m.md","bytes":10,
            "max_bytes":51200},"tokens":{"input":1,"output":2},"cost_usd":null,
            "provider":"anthropic","model":"m","prompt":{"path":null,"custom":false},
            "failures":[{"path":"/v/a.md","error":"boom"}],"dry_run":false,"elapsed_ms":5}"#;
        let r: Report = serde_json::from_str(old).unwrap();
        assert_eq!(r.facts.reinforced, 1);
        assert_eq!(r.failures[0].path, "/v/a.md");
        assert_eq!(r.edits, EditCounts::default());
    }

    #[test]
    fn text_snapshot_of_a_busy_run() {
        let mut refused_by = std::collections::BTreeMap::new();
        refused_by.insert("an instruction to the assistant".to_owned(), 2);
        refused_by.insert("carries a URL".to_owned(), 1);
        let r = Report {
            vaults: 2,
            transcripts: TranscriptCounts {
                found: 12,
                unchanged: 7,
                waiting: 1,
                deferred: 0,
                processed: 3,
                failed: 1,
                still_failing: 0,
                empty: 0,
            },
            facts: FactCounts {
                extracted: 14,
                new: 5,
                reinforced: 2,
                already_known: 1,
                replaced: 1,
                refused: 3,
                refused_by,
                forgotten: 1,
                duplicates: 1,
                pending: 2,
                unverified: 2,
                judged: 3,
                held: 1,
                held_by: [(
                    "quoted from a message that may be the assistant's text (no answer follows it)"
                        .to_owned(),
                    1,
                )]
                .into(),
                archived: 2,
                expired: 1,
                same_night: 0,
            },
            memory: MemoryInfo {
                path: "/home/u/.claude/rules/memory.md".into(),
                bytes: 2048,
                max_bytes: 51_200,
            },
            tokens: Tokens {
                input: 9000,
                output: 400,
                cache_write: 4000,
                cache_read: 3000,
            },
            cost_usd: Some(0.011),
            provider: "anthropic".into(),
            model: "claude-haiku-4-5".into(),
            edits: EditCounts {
                forgotten: 1,
                added: 1,
                changed: 0,
                moved: 0,
            },
            notices: vec!["took over /home/u/.claude/rules/memory.md: 3 bullets adopted".into()],
            failures: vec![Failure {
                path: "/v/a/00_Inbox/chats/bad.md".into(),
                error: "not valid UTF-8".into(),
            }],
            elapsed_ms: 1234,
            ..Report::default()
        };
        assert_eq!(r.facts.settled(), r.facts.extracted);
        insta::assert_snapshot!(r.to_text());
    }

    #[test]
    fn text_names_failures_and_dry_run_changes() {
        let r = Report {
            dry_run: true,
            failures: vec![Failure {
                path: "/v/a.md".into(),
                error: "empty file".into(),
            }],
            changes: vec![Change {
                path: "/m.md".into(),
                added: vec!["Prefers tea.".into()],
                removed: vec![],
            }],
            ..Report::default()
        };
        let text = r.to_text();
        assert!(text.contains("dry run (nothing written)"));
        assert!(text.contains("failed: /v/a.md: empty file"));
        assert!(text.contains("would change /m.md (+1 -0)\n  + Prefers tea."));
    }
}
