//! Finding the fact a user names on the command line (`memory forget | restore | why`):
//! a query matches a fact whose normalised text equals the query's, or that holds the query
//! as a plain substring (case-insensitive), or whose words start with each of the query's
//! words in any order. An exact match wins over the looser ones; facts saying the very same
//! thing in several places (memory.md and a vault) count as one fact named.
//!
//! It reads the ledger and the files only to say whether anything matches at all; it never
//! takes the lock, changes a status or prints the verdict: each command decides that.

use std::path::PathBuf;

use anyhow::Result;

use crate::config::Resolved;
use crate::error;
use crate::fact::{ArchiveReason, Fact, Scope, Status, normalize};
use crate::ledger::Ledger;
use crate::vault;

/// How well a query matches one fact's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fit {
    /// The query holds part of the fact: a substring, or a prefix of each of its words.
    Part,
    /// The query says the same thing (equal normalised text).
    Exact,
}

/// What a query names among the facts searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found<'a> {
    /// No fact matches.
    Nothing,
    /// One fact, or the same words kept in several places: the command acts on all of them.
    Named(Vec<&'a Fact>),
    /// Several different facts match as well as each other: the user has to say more.
    Several(Vec<&'a Fact>),
}

/// The query as the user typed it, trimmed; an empty one is a usage error.
pub fn query(raw: &str) -> Result<&str> {
    // A bullet copied whole from memory.md, with the month memloop put after an old fact.
    let q = crate::render::without_as_of(raw.trim()).trim();
    if q.is_empty() {
        return Err(error::usage(
            "the query is empty: give some words of the fact (see `memloop memory show`)",
        ));
    }
    Ok(q)
}

/// How `query` matches `text`, if it does.
#[must_use]
pub fn fit(query: &str, text: &str) -> Option<Fit> {
    let q_key = normalize(query);
    let t_key = normalize(text);
    if !q_key.is_empty() && q_key == t_key {
        return Some(Fit::Exact);
    }
    let plain = query.to_lowercase();
    if !plain.is_empty() && text.to_lowercase().contains(&plain) {
        return Some(Fit::Part);
    }
    if !q_key.is_empty() && t_key.contains(&q_key) {
        return Some(Fit::Part);
    }
    let words: Vec<&str> = t_key.split(' ').collect();
    let every_word = q_key
        .split(' ')
        .all(|q| !q.is_empty() && words.iter().any(|w| w.starts_with(q)));
    every_word.then_some(Fit::Part)
}

/// The facts `query` names among `facts` (see [`Found`]).
#[must_use]
pub fn search<'a>(query: &str, facts: &'a [Fact]) -> Found<'a> {
    let fits: Vec<(Fit, &Fact)> = facts
        .iter()
        .filter_map(|f| fit(query, &f.text).map(|fit| (fit, f)))
        .collect();
    let Some(best) = fits.iter().map(|(fit, _)| *fit).max() else {
        return Found::Nothing;
    };
    let top: Vec<&Fact> = fits
        .into_iter()
        .filter(|(fit, _)| *fit == best)
        .map(|(_, f)| f)
        .collect();
    let key = normalize(&top[0].text);
    if top.iter().all(|f| normalize(&f.text) == key) {
        Found::Named(top)
    } else {
        Found::Several(top)
    }
}

/// Whether anything memloop keeps matches `query`: a fact in the ledger, whatever its
/// status, or a bullet in memory.md or a vault's insights not read back yet (typed by
/// hand since the last run). Read-only, without the lock, so a query that matches nothing
/// leaves every byte as it was.
pub fn anything_matches(cfg: &Resolved, query: &str) -> Result<bool> {
    let ledger = Ledger::scratch_copy(&cfg.paths.ledger())?;
    if ledger
        .facts(&Status::ALL)?
        .iter()
        .any(|f| fit(query, &f.text).is_some())
    {
        return Ok(true);
    }
    // Each file with the vault it must stay inside (none for memory.md), read as the write
    // path reads it: never through a link out of its vault, never blocking on a FIFO.
    let mut files: Vec<(PathBuf, Option<PathBuf>)> = vec![(cfg.memory_file.clone(), None)];
    files.extend(
        vault::discover(cfg.vaults_dir.as_deref(), &cfg.vaults)
            .into_iter()
            .flatten()
            .map(|v| (v.claude_md(), Some(v.root))),
    );
    // Bullets as memloop reads them back (a `- ` line in a code block is not one; in a
    // CLAUDE.md, only the fence is memloop's).
    Ok(files.iter().enumerate().any(|(i, (path, root))| {
        let target = if i == 0 {
            crate::write::Target::Memory
        } else {
            crate::write::Target::Vault(i - 1)
        };
        let bytes = match root {
            Some(root) => crate::fsutil::read_within(root, path),
            None => crate::fsutil::read_regular_file(path),
        };
        let owned = bytes
            .ok()
            .and_then(|bytes| crate::write::read_back(target, Some(bytes)).ok())
            .and_then(|disk| disk.owned);
        owned.is_some_and(|text| {
            crate::render::parse_bullets(&text)
                .iter()
                .any(|bullet| fit(query, &bullet.text).is_some())
        })
    }))
}

/// A curation command under way: the engine under the run lock with the files read back,
/// and every fact the ledger knows.
pub struct Session<'a> {
    pub engine: crate::engine::Engine<'a>,
    pub report: crate::report::Report,
    pub now: String,
    pub all: Vec<Fact>,
}

/// Starts a command that changes the fact `query` names. A query that matches nothing is
/// answered (`nothing done` says what was not done) without the lock and without touching
/// a byte: `None`. Otherwise the lock is taken and hand edits are read back first, so the
/// search sees the files as the user left them (a bullet deleted by hand can be restored).
pub fn open<'a>(cfg: &'a Resolved, query: &str, nothing_done: &str) -> Result<Option<Session<'a>>> {
    if !anything_matches(cfg, query)? {
        crate::cmd::say(&format!(
            "no fact matches \"{query}\": {nothing_done} (see `memloop memory show --archived`)"
        ));
        return Ok(None);
    }
    let mut engine = crate::engine::Engine::for_curation(cfg)?;
    let now = chrono::Local::now().to_rfc3339();
    let mut report = crate::report::Report::default();
    engine.sync_all(&mut report, &now)?;
    let all = engine.store.facts(&Status::ALL)?;
    Ok(Some(Session {
        engine,
        report,
        now,
        all,
    }))
}

/// Where a fact is written: `memory.md`, or `vault NAME`.
#[must_use]
pub fn place(f: &Fact) -> String {
    match (f.scope, f.vault.as_deref()) {
        (Scope::Vault, Some(name)) => format!("vault {name}"),
        (Scope::Vault, None) => "a vault".to_owned(),
        (Scope::Global, _) => "memory.md".to_owned(),
    }
}

/// One fact on one line: its text, category and place, and its status when it is not
/// active.
#[must_use]
pub fn line(f: &Fact) -> String {
    let status = match (f.status, f.archived_reason) {
        (Status::Active, _) => String::new(),
        (Status::Archived, Some(ArchiveReason::Cap)) => ", archived by the size cap".to_owned(),
        (Status::Archived, _) => ", archived: replaced".to_owned(),
        (Status::Forgotten, _) => ", forgotten".to_owned(),
        (Status::Pending, _) => ", waiting for review".to_owned(),
    };
    format!("{}  [{}, {}{status}]", f.text, f.category, place(f))
}

/// The facts numbered, one per line, for a "which one?" answer.
#[must_use]
pub fn numbered(facts: &[&Fact]) -> String {
    facts
        .iter()
        .enumerate()
        .map(|(i, f)| format!("{:>3}. {}\n", i + 1, line(f)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(id: i64, text: &str, scope: Scope, vault: Option<&str>) -> Fact {
        Fact {
            id,
            text: text.to_owned(),
            category: "Preferences".to_owned(),
            scope,
            vault: vault.map(str::to_owned),
            first_seen: "2025-06-12".to_owned(),
            last_seen: "2025-06-12".to_owned(),
            times_seen: 1,
            status: Status::Active,
            archived_reason: None,
            origin: crate::fact::Origin::Extracted,
        }
    }

    #[test]
    fn a_query_fits_by_normalised_text_substring_or_word_prefixes() {
        let text = "Prefers direct answers without hedging.";
        let cases: &[(&str, Option<Fit>)] = &[
            ("Prefers direct answers without hedging.", Some(Fit::Exact)),
            ("I prefer direct answers without hedging", Some(Fit::Exact)),
            ("PREFERS  DIRECT answers without hedging!", Some(Fit::Exact)),
            ("direct answers", Some(Fit::Part)),
            ("DIRECT ANS", Some(Fit::Part)),
            ("hedging direct", Some(Fit::Part)),
            ("hedg dir", Some(Fit::Part)),
            ("rs dire", Some(Fit::Part)),
            ("without  hedging", Some(Fit::Part)),
            ("indirect", None),
            ("direct questions", None),
            ("tabs", None),
            ("!!!", None),
        ];
        for (query, expected) in cases {
            assert_eq!(fit(query, text), *expected, "query {query:?}");
        }
        assert_eq!(
            fit("cafe\u{301}", "Drafts design notes at the café."),
            Some(Fit::Part),
            "a decomposed accent meets the precomposed one"
        );
    }

    #[test]
    fn search_prefers_the_exact_fact_and_reports_ties_between_different_facts() {
        let direct = fact(1, "Prefers direct answers.", Scope::Global, None);
        let rationale = fact(
            2,
            "Prefers direct answers with a one-line rationale.",
            Scope::Global,
            None,
        );
        let same_in_vault = fact(3, "Prefers direct answers.", Scope::Vault, Some("alpha"));
        let tea = fact(4, "Drinks tea in the morning.", Scope::Global, None);
        let facts = vec![direct.clone(), rationale.clone(), tea.clone()];
        let with_vault = vec![direct.clone(), rationale.clone(), same_in_vault.clone()];
        type Case<'a> = (&'a str, &'a [Fact], Found<'a>);
        let cases: Vec<Case<'_>> = vec![
            (
                "prefers direct answers",
                &facts,
                Found::Named(vec![&direct]),
            ),
            ("direct", &facts, Found::Several(vec![&direct, &rationale])),
            ("rationale", &facts, Found::Named(vec![&rationale])),
            ("tea", &facts, Found::Named(vec![&tea])),
            ("coffee", &facts, Found::Nothing),
            (
                "Prefers direct answers.",
                &with_vault,
                Found::Named(vec![&direct, &same_in_vault]),
            ),
            (
                "direct",
                &with_vault,
                Found::Several(vec![&direct, &rationale, &same_in_vault]),
            ),
            ("anything", &[], Found::Nothing),
        ];
        for (query, facts, expected) in cases {
            assert_eq!(search(query, facts), expected, "query {query:?}");
        }
    }

    #[test]
    fn an_empty_query_is_a_usage_error() {
        let e = query("  \t").unwrap_err();
        assert_eq!(error::kind_of(&e), error::Kind::Usage);
        assert_eq!(query("  tea ").unwrap(), "tea");
    }

    #[test]
    fn a_numbered_list_names_category_place_and_status() {
        let mut gone = fact(7, "Uses Python 3.11.", Scope::Vault, Some("beta"));
        gone.status = Status::Forgotten;
        let active = fact(8, "Drinks tea.", Scope::Global, None);
        assert_eq!(
            numbered(&[&active, &gone]),
            "  1. Drinks tea.  [Preferences, memory.md]\n  \
             2. Uses Python 3.11.  [Preferences, vault beta, forgotten]\n"
        );
    }
}
