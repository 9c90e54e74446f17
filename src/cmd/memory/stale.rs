//! `memloop memory review --stale`: the facts nobody has confirmed for `[memory]
//! stale_after_days` (365 by default), one by one: keep (it is confirmed today), forget,
//! edit (your words, confirmed today), skip. A fact is confirmed when a transcript says it
//! again or when you keep it here; nothing leaves memory for its age alone.
//!
//! It shares the walk's shape with the pending review (`review`): the run lock is checked
//! before the walk and the answers applied under it afterwards; `--accept-all` keeps every
//! stale fact, `--reject-all` forgets them all. It extracts nothing and calls no LLM.

use std::io::{self, BufRead, Write};

use anyhow::{Context, Result};

use super::review::Verdict;
use crate::cmd::{EXIT_FAILED, EXIT_OK, editor, print, say};
use crate::config::Resolved;
use crate::engine::Engine;
use crate::fact::{Fact, Status};
use crate::ledger::Ledger;
use crate::report::Report;

/// What the person decided for one stale fact; a skipped one has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Still true: confirmed today.
    Keep,
    /// No longer true: forgotten.
    Forget,
    /// True in these words: confirmed today, in the user's words.
    Reword(String),
}

/// The day before which a fact's last confirmation makes it stale, `None` when stale review
/// is off (`stale_after_days = 0`).
#[must_use]
pub fn cutoff(today: chrono::NaiveDate, days: u32) -> Option<String> {
    (days > 0).then(|| {
        (today - chrono::Days::new(u64::from(days)))
            .format("%Y-%m-%d")
            .to_string()
    })
}

/// The active facts last confirmed before `cutoff`, least recently confirmed first.
pub fn stale(ledger: &Ledger, cutoff: &str) -> Result<Vec<Fact>> {
    let mut facts: Vec<Fact> = ledger
        .facts(&[Status::Active])?
        .into_iter()
        .filter(|f| f.last_seen.as_str() < cutoff)
        .collect();
    facts.sort_by(|a, b| a.last_seen.cmp(&b.last_seen).then(a.id.cmp(&b.id)));
    Ok(facts)
}

/// `memory review --stale [--accept-all | --reject-all]`.
pub fn run(cfg: &Resolved, keep_all: bool, forget_all: bool) -> Result<u8> {
    let today = chrono::Local::now().date_naive();
    let Some(cutoff) = cutoff(today, cfg.config.memory.stale_after_days) else {
        say("stale review is off (`stale_after_days = 0` under [memory] in the config file)");
        return Ok(EXIT_OK);
    };
    let snapshot = stale(&Ledger::scratch_copy(&cfg.paths.ledger())?, &cutoff)?;
    if snapshot.is_empty() {
        say(&format!(
            "no fact has gone unconfirmed for {} days",
            cfg.config.memory.stale_after_days
        ));
        return Ok(EXIT_OK);
    }
    let all = match (keep_all, forget_all) {
        (true, _) => Some(Kept::Keep),
        (_, true) => Some(Kept::Forget),
        _ => None,
    };
    if let Some(kept) = all {
        let mut engine = Engine::for_curation(cfg)?;
        let decisions: Vec<(i64, Kept)> = stale(&engine.store.ledger, &cutoff)?
            .into_iter()
            .map(|f| (f.id, kept.clone()))
            .collect();
        return apply(&mut engine, &decisions, &cutoff);
    }
    if !editor::interactive() {
        let mut s = format!(
            "{} not confirmed since before {cutoff}:\n\n",
            snapshot.len()
        );
        for f in &snapshot {
            s.push_str(&format!(
                "- {}\n  {}; last confirmed {}\n",
                f.text, f.category, f.last_seen
            ));
        }
        print(&s)?;
        say(
            "keep them all with `memloop memory review --stale --accept-all`, forget them with `--reject-all`, or run `memloop memory review --stale` in a terminal to decide one by one",
        );
        return Ok(EXIT_OK);
    }
    let waiting = stale(&Engine::for_curation(cfg)?.store.ledger, &cutoff)?;
    let decisions = {
        let mut input = io::stdin().lock();
        let mut err = io::stderr().lock();
        walk(&waiting, &mut input, &mut err).context("could not ask about the stale facts")?
    };
    let mut engine = Engine::for_curation(cfg).context(
        "your answers were not applied: run `memloop memory review --stale` again once the other run is done",
    )?;
    apply(&mut engine, &decisions, &cutoff)
}

/// Asks about each stale fact in turn: keep, forget, edit, skip, quit. The end of the input
/// stops the walk like quit; the answers given so far are returned either way.
///
/// # Errors
///
/// Only when `input` or `out` fails.
pub fn walk(
    facts: &[Fact],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<Vec<(i64, Kept)>> {
    writeln!(out, "{} not confirmed for a long time.", facts.len())?;
    let items: Vec<(i64, String, &str)> = facts
        .iter()
        .map(|f| {
            let about = format!("{}; last confirmed {}", f.category, f.last_seen);
            (f.id, about, f.text.as_str())
        })
        .collect();
    let words = super::review::Words {
        accept: ["k", "keep"],
        reject: ["f", "forget"],
        question: "keep, forget, edit, skip, quit? [k/f/e/s/q] ",
        help: "k: keep it (still true: confirmed today)\nf: forget it (no longer true: it will not come back)\ne: edit it (type your own words; confirmed today)\ns: skip it (asked again next time)\nq: quit (the answers given so far are kept)",
    };
    let decided = super::review::ask_each(&items, &words, input, out)?;
    Ok(decided
        .into_iter()
        .map(|(id, verdict)| {
            let kept = match verdict {
                Verdict::Accept => Kept::Keep,
                Verdict::Reject => Kept::Forget,
                Verdict::Reword(text) => Kept::Reword(text),
            };
            (id, kept)
        })
        .collect())
}

/// Applies the decisions to the facts still stale, under the lock, then brings the files in
/// step.
fn apply(engine: &mut Engine<'_>, decisions: &[(i64, Kept)], cutoff: &str) -> Result<u8> {
    let now = chrono::Local::now().to_rfc3339();
    let today = now.get(..10).unwrap_or(&now).to_owned();
    let still: std::collections::HashSet<i64> = stale(&engine.store.ledger, cutoff)?
        .into_iter()
        .map(|f| f.id)
        .collect();
    let (mut kept, mut forgotten) = (Vec::new(), Vec::new());
    for (id, decision) in decisions.iter().filter(|(id, _)| still.contains(id)) {
        match decision {
            Kept::Keep => kept.push(*id),
            Kept::Forget => forgotten.push(*id),
            Kept::Reword(text) => {
                engine.store.reword(*id, text, &now)?;
                kept.push(*id);
            }
        }
    }
    engine.store.confirm(&kept, &today, &now)?;
    engine.store.set_status(
        &forgotten,
        Status::Forgotten,
        "forgotten",
        Some("memory review --stale"),
        &now,
    )?;
    let mut report = Report::default();
    engine.sync_all(&mut report, &now)?;
    say(&format!(
        "kept {} (confirmed today), forgot {}",
        kept.len(),
        forgotten.len()
    ));
    for f in &report.failures {
        say(&format!("failed: {}: {}", f.path, f.error));
    }
    Ok(if report.failures.is_empty() {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cutoff_is_that_many_days_back_and_zero_turns_it_off() {
        let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 27).expect("a day");
        assert_eq!(cutoff(today, 365).as_deref(), Some("2025-11-27"));
        assert_eq!(cutoff(today, 0), None);
    }

    #[test]
    fn the_walk_reads_keep_forget_edit_skip_and_stops_at_the_end() {
        let fact = |id: i64, text: &str| Fact {
            id,
            text: text.to_owned(),
            category: "Identity".to_owned(),
            scope: crate::fact::Scope::Global,
            vault: None,
            first_seen: "2024-01-01".to_owned(),
            last_seen: "2024-06-01".to_owned(),
            times_seen: 1,
            status: Status::Active,
            archived_reason: None,
            origin: crate::fact::Origin::Extracted,
        };
        let facts = [
            fact(1, "Lives in Munich."),
            fact(2, "Uses Vue."),
            fact(3, "Works at Stripe."),
            fact(4, "Has a cat."),
        ];
        let mut input = io::Cursor::new("k\nwhat\nf\ne\nWorks at Shopify.\ns\n");
        let mut out = Vec::new();
        let decisions = walk(&facts, &mut input, &mut out).expect("walks");
        assert_eq!(
            decisions,
            [
                (1, Kept::Keep),
                (2, Kept::Forget),
                (3, Kept::Reword("Works at Shopify.".to_owned())),
            ]
        );
        let shown = String::from_utf8(out).expect("text");
        assert!(shown.contains("last confirmed 2024-06-01"), "{shown}");
        assert!(shown.contains("k: keep it"), "{shown}");
    }
}
