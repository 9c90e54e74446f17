//! `memloop memory restore QUERY`: brings a forgotten fact (by `memory forget`, a bullet
//! deleted in the editor, a rejection in review) or one a newer fact replaced back into
//! memory.md or its vault's insights, at once.
//!
//! It does not retire the fact that replaced a restored one (forget that one if it is
//! wrong), and it does not restore a fact the size cap archived: that one comes back by
//! itself when there is room. A purged fact is gone for good.

use anyhow::Result;
use clap::Args;

use super::find::{self, Found};
use crate::cmd::{EXIT_FAILED, EXIT_OK, print, say};
use crate::config::Resolved;
use crate::fact::{ArchiveReason, Fact, Status};

/// `memory restore` options.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// Words or a substring of the forgotten or archived fact
    pub query: String,
}

/// Restores the fact the query names.
///
/// Exit 0: restored, or already in memory. Exit 1: no fact matches, several do, the match
/// waits for review or for room under the cap, or a file could not be written.
pub fn run(cfg: &Resolved, args: &RestoreArgs) -> Result<u8> {
    let query = find::query(&args.query)?;
    let Some(find::Session {
        mut engine,
        mut report,
        now,
        all,
    }) = find::open(cfg, query, "nothing was restored")?
    else {
        return Ok(EXIT_FAILED);
    };
    let restorable: Vec<Fact> = all.iter().filter(|f| restorable(f)).cloned().collect();
    let chosen: Vec<Fact> = match find::search(query, &restorable) {
        Found::Named(facts) => facts.into_iter().cloned().collect(),
        Found::Several(facts) => {
            print(&find::numbered(&facts))?;
            say(&format!(
                "{} facts match \"{query}\": nothing was restored; give more of the words of the one to restore",
                facts.len()
            ));
            return Ok(EXIT_FAILED);
        }
        Found::Nothing => return not_restorable(query, &all),
    };

    let ids: Vec<i64> = chosen.iter().map(|f| f.id).collect();
    // A fact whose day had passed holds again, with no end, once the user restores it.
    engine.store.clear_valid_until(&ids)?;
    engine.store.set_status(
        &ids,
        Status::Active,
        "restored",
        Some("memory restore"),
        &now,
    )?;
    engine.sync_all(&mut report, &now)?;
    for f in &report.failures {
        say(&format!("{}: {}", f.path, f.error));
    }
    let after: Vec<Fact> = ids
        .iter()
        .filter_map(|&id| engine.store.ledger.fact(id).transpose())
        .collect::<Result<_>>()?;
    print(&find::numbered(&after.iter().collect::<Vec<_>>()))?;
    if after
        .iter()
        .any(|f| f.archived_reason == Some(ArchiveReason::Cap))
    {
        print("restored, but there is no room under the size cap: it comes back when there is\n")?;
    } else {
        print("restored: it is back in the file\n")?;
    }
    for f in &chosen {
        if let Some(newer) = engine.store.ledger.replaced_by(f.id)?
            && let Some(newer) = engine.store.ledger.fact(newer)?
            && newer.status == Status::Active
        {
            print(&format!(
                "note: \"{}\" replaced it and stays (forget it with `memloop memory forget`)\n",
                newer.text
            ))?;
        }
    }
    Ok(if report.failures.is_empty() {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

/// Whether `restore` brings a fact back: forgotten, or archived because it was replaced.
fn restorable(f: &Fact) -> bool {
    match f.status {
        Status::Forgotten => true,
        Status::Archived => f.archived_reason != Some(ArchiveReason::Cap),
        Status::Active | Status::Pending => false,
    }
}

/// Says why the facts the query matches cannot be restored.
fn not_restorable(query: &str, all: &[Fact]) -> Result<u8> {
    let facts = match find::search(query, all) {
        Found::Named(facts) | Found::Several(facts) => facts,
        Found::Nothing => {
            say(&format!(
                "no fact matches \"{query}\": nothing was restored (see `memloop memory show --archived`)"
            ));
            return Ok(EXIT_FAILED);
        }
    };
    print(&find::numbered(&facts))?;
    if facts.iter().all(|f| f.status == Status::Active) {
        say("already in memory: nothing to restore");
        return Ok(EXIT_OK);
    }
    say(
        "nothing was restored: a fact waiting for review is accepted with `memloop memory review`, \
         and one the size cap archived comes back by itself when there is room",
    );
    Ok(EXIT_FAILED)
}
