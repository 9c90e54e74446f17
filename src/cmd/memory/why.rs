//! `memloop memory why QUERY`: everything memloop knows about where a fact came from and
//! what happened to it since: its category and place, status (and why it is archived or
//! forgotten), whose words it holds, when and how often it was seen, each transcript that
//! stated it with the user's words where known, its history, and the facts it replaced or
//! that replaced it.
//!
//! It reads a private copy of the ledger and takes no lock, so it changes nothing and works
//! while a run is going. When several facts match it explains each of them: it cannot do
//! harm, and the user sees which one they meant.

use std::fmt::Write as _;

use anyhow::Result;
use clap::Args;

use super::find::{self, Found};
use crate::cmd::{EXIT_FAILED, EXIT_OK, print, say};
use crate::config::Resolved;
use crate::fact::{ArchiveReason, Fact, Origin, Scope, Status};
use crate::ledger::{Event, Ledger, Source};
use crate::store::{HAND_EDIT, REMEMBERED, SESSION};

/// `memory why` options.
#[derive(Debug, Args)]
pub struct WhyArgs {
    /// Words or a substring of the fact
    pub query: String,
}

/// Explains the facts the query names (every one of them when several match).
///
/// Exit 0: at least one fact explained. Exit 1: no fact matches.
pub fn run(cfg: &Resolved, args: &WhyArgs) -> Result<u8> {
    let query = find::query(&args.query)?;
    let ledger = Ledger::scratch_copy(&cfg.paths.ledger())?;
    let all = ledger.facts(&Status::ALL)?;
    let facts = match find::search(query, &all) {
        Found::Named(facts) | Found::Several(facts) => facts,
        Found::Nothing => {
            say(&format!(
                "no fact matches \"{query}\" (see `memloop memory show --archived`)"
            ));
            return Ok(EXIT_FAILED);
        }
    };
    let mut out = String::new();
    if facts.len() > 1 {
        let _ = writeln!(out, "{} facts match \"{query}\":\n", facts.len());
    }
    for (i, f) in facts.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&explain(&ledger, cfg, f)?);
    }
    print(&out)?;
    Ok(EXIT_OK)
}

/// Everything the ledger knows about one fact, for a person.
fn explain(ledger: &Ledger, cfg: &Resolved, f: &Fact) -> Result<String> {
    let mut out = String::new();
    let _ = writeln!(out, "{}", f.text);
    let _ = writeln!(out, "  category:    {}", f.category);
    let place = match (f.scope, f.vault.as_deref()) {
        (Scope::Vault, Some(vault)) => format!("vault {vault} (its CLAUDE.md insights)"),
        _ => format!("about you ({})", cfg.memory_file.display()),
    };
    let _ = writeln!(out, "  written to:  {place}");
    let _ = writeln!(out, "  status:      {}", status(ledger, f)?);
    let origin = match f.origin {
        Origin::Extracted => "extracted from your conversations",
        Origin::User => "written or changed by you",
    };
    let _ = writeln!(out, "  origin:      {origin}");
    let _ = writeln!(out, "  first seen:  {}", f.first_seen);
    let _ = writeln!(out, "  last seen:   {}", f.last_seen);
    let _ = writeln!(out, "  times seen:  {}", f.times_seen);
    let sources = ledger.sources(f.id)?;
    if !sources.is_empty() {
        let _ = writeln!(out, "  sources:");
        for s in &sources {
            out.push_str(&source(ledger, s)?);
        }
    }
    let events = ledger.events(f.id)?;
    if !events.is_empty() {
        let _ = writeln!(out, "  history:");
        for e in &events {
            let _ = writeln!(out, "    {}  {}", when(&e.at), event(e));
        }
    }
    for old in ledger.replaced(f.id)? {
        if let Some(old) = ledger.fact(old)? {
            let _ = writeln!(out, "  replaced:    \"{}\"", old.text);
        }
    }
    // An archived fact's status already names what replaced it.
    if f.status != Status::Archived
        && let Some(newer) = ledger.replaced_by(f.id)?
        && let Some(newer) = ledger.fact(newer)?
    {
        let _ = writeln!(out, "  replaced by: \"{}\"", newer.text);
    }
    Ok(out)
}

/// A fact's status, and why it is not shown when it is not (`memory show --archived` says
/// the same).
pub fn status(ledger: &Ledger, f: &Fact) -> Result<String> {
    Ok(match (f.status, f.archived_reason) {
        (Status::Active, _) => "active (in the file)".to_owned(),
        (Status::Pending, _) => "waiting for review (`memloop memory review`)".to_owned(),
        (Status::Archived, Some(ArchiveReason::Cap)) => {
            "archived: pushed out by the size cap".to_owned()
        }
        (Status::Archived, Some(ArchiveReason::Expired)) => match ledger.valid_until(f.id)? {
            Some(day) => format!("archived: expired (its last day was {day})"),
            None => "archived: expired".to_owned(),
        },
        (Status::Archived, _) => match ledger.replaced_by(f.id)? {
            Some(id) => match ledger.fact(id)? {
                Some(newer) => format!("archived: replaced by \"{}\"", newer.text),
                None => "archived: replaced".to_owned(),
            },
            None => "archived: replaced".to_owned(),
        },
        (Status::Forgotten, _) => forgotten(&ledger.events(f.id)?),
    })
}

/// When and how a fact was forgotten, from its history.
fn forgotten(events: &[Event]) -> String {
    let last = events
        .iter()
        .rev()
        .find(|e| matches!(e.event.as_str(), "forgotten" | "rejected"));
    match last {
        Some(e) => {
            let how = match (e.event.as_str(), e.detail.as_deref()) {
                ("rejected", _) => "rejected in review",
                (_, Some(detail)) => detail,
                (_, None) => "forgotten",
            };
            format!("forgotten on {} ({how})", e.at.get(..10).unwrap_or(&e.at))
        }
        None => "forgotten".to_owned(),
    }
}

/// One source: the transcript's vault, path and date, and the user's words.
fn source(ledger: &Ledger, s: &Source) -> Result<String> {
    let mut out = match s.transcript.as_str() {
        HAND_EDIT => format!("    {}  written in the file by hand\n", s.date),
        REMEMBERED => format!("    {}  `memloop memory remember`\n", s.date),
        SESSION => format!(
            "    {}  asked to keep in a Claude Code session (`memloop mcp`)\n",
            s.date
        ),
        path => {
            // A Claude Code session's row says how far it was read; its "vault" is the
            // project it was held in.
            let vault = ledger
                .transcript(path)?
                .map(|row| match row.consumed {
                    Some(_) => format!("Claude Code session in {}: ", row.vault),
                    None => format!("{}: ", row.vault),
                })
                .unwrap_or_default();
            format!("    {}  {vault}{path}\n", s.date)
        }
    };
    if let Some(evidence) = s.evidence.as_deref() {
        let _ = writeln!(out, "                \"{evidence}\"");
    }
    Ok(out)
}

/// One history entry: what happened, and how.
fn event(e: &Event) -> String {
    match e.detail.as_deref() {
        Some(detail) => format!("{} ({detail})", e.event),
        None => e.event.clone(),
    }
}

/// An RFC 3339 time as `YYYY-MM-DD HH:MM`, or as it is when it does not parse.
fn when(at: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(at)
        .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_else(|_| at.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(at: &str, event: &str, detail: Option<&str>) -> Event {
        Event {
            at: at.to_owned(),
            event: event.to_owned(),
            detail: detail.map(str::to_owned),
        }
    }

    #[test]
    fn a_source_names_its_vault_and_path_and_quotes_the_users_words() -> Result<()> {
        let ledger = Ledger::scratch_copy(std::path::Path::new("/nonexistent/ledger.db"))?;
        let row = |path: &str, vault: &str, consumed: Option<i64>| crate::ledger::TranscriptRow {
            path: path.to_owned(),
            vault: vault.to_owned(),
            size: 10,
            mtime_ns: 1,
            sha256: path.to_owned(),
            prompt_hash: String::new(),
            model: String::new(),
            processed_at: "2025-06-12T09:00:00Z".to_owned(),
            fact_count: 1,
            consumed,
            read: None,
        };
        let path = "/v/alpha/00_Inbox/chats/one.md";
        ledger.mark_transcript(&row(path, "alpha", None))?;
        let session = "/h/.claude/projects/-h-app/5d1c.jsonl";
        ledger.mark_transcript(&row(session, "/h/app", Some(10)))?;
        let src = |transcript: &str, evidence: Option<&str>| Source {
            transcript: transcript.to_owned(),
            date: "2025-06-12".to_owned(),
            evidence: evidence.map(str::to_owned),
        };
        let cases = [
            (
                src(path, Some("I want straight answers")),
                "    2025-06-12  alpha: /v/alpha/00_Inbox/chats/one.md\n                \"I want straight answers\"\n",
            ),
            (
                src(session, None),
                "    2025-06-12  Claude Code session in /h/app: /h/.claude/projects/-h-app/5d1c.jsonl\n",
            ),
            (
                src("/elsewhere/two.md", None),
                "    2025-06-12  /elsewhere/two.md\n",
            ),
            (
                src(HAND_EDIT, None),
                "    2025-06-12  written in the file by hand\n",
            ),
            (
                src(REMEMBERED, None),
                "    2025-06-12  `memloop memory remember`\n",
            ),
        ];
        for (s, expected) in cases {
            assert_eq!(source(&ledger, &s)?, expected);
        }
        Ok(())
    }

    #[test]
    fn forgotten_says_when_and_how_from_the_last_forgetting() {
        let at = "2025-07-01T09:30:00+02:00";
        let cases: Vec<(Vec<Event>, &str)> = vec![
            (
                vec![ev(at, "forgotten", Some("deleted from the file"))],
                "forgotten on 2025-07-01 (deleted from the file)",
            ),
            (
                vec![
                    ev("2025-06-01T08:00:00Z", "forgotten", Some("memory forget")),
                    ev("2025-06-02T08:00:00Z", "restored", Some("memory restore")),
                    ev(at, "forgotten", Some("memory forget")),
                ],
                "forgotten on 2025-07-01 (memory forget)",
            ),
            (
                vec![ev(at, "rejected", Some("memory review"))],
                "forgotten on 2025-07-01 (rejected in review)",
            ),
            (vec![], "forgotten"),
        ];
        for (events, expected) in cases {
            assert_eq!(forgotten(&events), expected);
        }
        assert_eq!(when(at), "2025-07-01 09:30");
        assert_eq!(when("yesterday"), "yesterday");
    }
}
