//! `memloop memory remember TEXT [--category NAME] [--vault DIR]`: a fact in the user's own
//! words, written to memory.md (or with `--vault`, to that vault's insights) at once. It is
//! treated like any fact: secrets are redacted before anything is stored, the policy filter
//! refuses instructions, and a fact memloop already knows is reinforced (and brought back
//! when it was forgotten or archived) instead of written twice.
//!
//! It does not reword a known fact: use `memloop memory edit` for that.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use crate::cmd::{EXIT_FAILED, EXIT_OK, print, say};
use crate::config::Resolved;
use crate::engine::Engine;
use crate::error;
use crate::fact::{ArchiveReason, Scope, Status};
use crate::report::Report;
use crate::store::{Remember, Remembered};
use crate::write::Target;

/// `memory remember` options.
#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The fact, in your words (a list over several lines is joined into one)
    pub text: String,
    /// One of the prompt's categories [default: the first; with --vault, Project Context]
    #[arg(long, value_name = "NAME")]
    pub category: Option<String>,
    /// A fact about this vault's work (its CLAUDE.md insights) instead of about you
    #[arg(long, value_name = "DIR")]
    pub vault: Option<PathBuf>,
}

/// The category vault facts go to when the prompt has it.
const VAULT_CATEGORY: &str = "Project Context";

/// Remembers the user's fact.
///
/// Exit 0: remembered or reinforced. Exit 2: empty text, an unknown category or vault, or
/// a fact the policy filter refuses. Exit 1: a file could not be written.
pub fn run(cfg: &Resolved, args: &RememberArgs) -> Result<u8> {
    if args.text.trim().is_empty() {
        return Err(error::usage("the fact is empty: give its words"));
    }
    let mut engine = Engine::for_curation(cfg)?;
    let target = match &args.vault {
        Some(dir) => engine.vault_target(dir)?,
        None => Target::Memory,
    };
    let category = category_for(
        &engine.prompt.categories,
        args.category.as_deref(),
        &args.text,
        target != Target::Memory,
    )?;
    let vault = match target {
        Target::Vault(i) => Some(engine.vaults[i].name.clone()),
        Target::Memory => None,
    };
    let now = chrono::Local::now().to_rfc3339();
    let mut report = Report::default();
    // Hand edits first: a bullet deleted since the last run is forgotten, not "known".
    engine.sync_all(&mut report, &now)?;
    let done = engine.store.remember(&Remember {
        text: &args.text,
        category: &category,
        scope: if vault.is_some() {
            Scope::Vault
        } else {
            Scope::Global
        },
        vault: vault.as_deref(),
        now: &now,
        by: crate::store::By::User,
    })?;
    let (id, said) = match done {
        Remembered::Refused(reason) => {
            return Err(error::usage(format!("not remembered: {reason}")));
        }
        Remembered::Withheld(why) => {
            return Err(error::usage(format!("not remembered: {why}")));
        }
        Remembered::New { id, .. } => (id, "remembered".to_owned()),
        Remembered::Known { id, was } => (
            id,
            match was {
                Some(Status::Forgotten) => "it was forgotten; remembered again".to_owned(),
                Some(Status::Archived) => "back from the archive, and reinforced".to_owned(),
                Some(Status::Pending) => "it was waiting for review; now in memory".to_owned(),
                Some(Status::Active) | None => "already known: reinforced".to_owned(),
            },
        ),
    };
    engine.sync_all(&mut report, &now)?;
    for f in &report.failures {
        say(&format!("{}: {}", f.path, f.error));
    }
    let fact = engine
        .store
        .ledger
        .fact(id)?
        .ok_or_else(|| anyhow::anyhow!("fact {id} vanished from the ledger"))?;
    print(&format!(
        "{said}: {}  [{}, {}] (seen {} time{})\n",
        fact.text,
        fact.category,
        super::find::place(&fact),
        fact.times_seen,
        if fact.times_seen == 1 { "" } else { "s" }
    ))?;
    if fact.archived_reason == Some(ArchiveReason::Cap) {
        print(
            "note: there is no room under the size cap: it waits in the archive until there is\n",
        )?;
    }
    if target != Target::Memory && !cfg.config.insights.enabled {
        print("note: insights are off ([insights] enabled = false): it is kept but not written\n")?;
    }
    Ok(if report.failures.is_empty() {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

/// The category a remembered fact goes to: the one asked for ([`category`]), or with none
/// asked, for a fact about the person, the one its first words say ("Prefers …"), else
/// the default. Shared by `memory remember` and `memloop mcp`'s remember tool.
///
/// # Errors
///
/// A category the prompt does not have (a usage error).
pub fn category_for(
    categories: &[String],
    asked: Option<&str>,
    text: &str,
    vault: bool,
) -> Result<String> {
    let category = category(categories, asked, vault)?;
    Ok(match asked {
        None if !vault => crate::llm::builtin::category_of(text, categories).unwrap_or(category),
        _ => category,
    })
}

/// The prompt's spelling of the category asked for (case-insensitive), or the default:
/// the first category, or for a vault fact Project Context when the prompt has it. (With
/// none asked for, `run` first lets a global fact's first words choose.)
fn category(categories: &[String], asked: Option<&str>, vault: bool) -> Result<String> {
    let Some(asked) = asked else {
        let fallback = vault
            .then(|| {
                categories
                    .iter()
                    .find(|c| c.eq_ignore_ascii_case(VAULT_CATEGORY))
            })
            .flatten()
            .or_else(|| categories.first());
        return Ok(fallback.cloned().unwrap_or_else(|| "Memory".to_owned()));
    };
    let wanted = asked.trim().to_lowercase();
    categories
        .iter()
        .find(|c| c.to_lowercase() == wanted)
        .cloned()
        .ok_or_else(|| {
            error::usage(format!(
                "unknown category \"{asked}\": use one of the prompt's categories: {}",
                categories.join(", ")
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_category_takes_the_prompts_spelling_or_is_refused_with_the_list() {
        let cats: Vec<String> = ["Identity", "Goals", "Project Context"]
            .map(str::to_owned)
            .to_vec();
        assert_eq!(category(&cats, Some("goals"), false).unwrap(), "Goals");
        assert_eq!(
            category(&cats, Some(" PROJECT context "), false).unwrap(),
            "Project Context"
        );
        assert_eq!(category(&cats, None, false).unwrap(), "Identity");
        assert_eq!(category(&cats, None, true).unwrap(), "Project Context");
        let short = vec!["Identity".to_owned()];
        assert_eq!(category(&short, None, true).unwrap(), "Identity");
        let e = category(&cats, Some("Health"), false).unwrap_err();
        assert_eq!(error::kind_of(&e), error::Kind::Usage);
        assert_eq!(
            e.to_string(),
            "unknown category \"Health\": use one of the prompt's categories: Identity, Goals, Project Context"
        );
    }
}
