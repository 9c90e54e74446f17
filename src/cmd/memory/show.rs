//! `memloop memory show`: print the memory file, or every fact as JSON; with `--archived`,
//! also the facts that are not in the files (archived or forgotten), each with why.
//!
//! It reads a private copy of the ledger and changes nothing.

use anyhow::{Context, Result};
use serde::Serialize;

use clap::Args;

use super::why;
use crate::cmd::{EXIT_OK, print, say};
use crate::config::Resolved;
use crate::fact::{Fact, Scope, Status};
use crate::ledger::{Ledger, Source};

#[derive(Serialize)]
struct ShownFact {
    #[serde(flatten)]
    fact: Fact,
    sources: Vec<Source>,
}

#[derive(Serialize)]
struct Shown {
    path: String,
    facts: Vec<ShownFact>,
}

/// `memory show` options.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Print the facts as JSON
    #[arg(long)]
    pub json: bool,
    /// Include archived facts (replaced, or pushed out by the size cap) and forgotten ones
    #[arg(long)]
    pub archived: bool,
}

pub fn run(cfg: &Resolved, args: &ShowArgs) -> Result<u8> {
    match args {
        ShowArgs {
            json: false,
            archived,
        } => {
            match std::fs::read_to_string(&cfg.memory_file) {
                Ok(text) => print(&text)?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => say(&format!(
                    "no memory yet ({} does not exist): run `memloop extract`",
                    cfg.memory_file.display()
                )),
                Err(e) => {
                    return Err(e)
                        .with_context(|| format!("could not read {}", cfg.memory_file.display()));
                }
            }
            if *archived {
                let ledger = Ledger::scratch_copy(&cfg.paths.ledger())?;
                print(&not_loaded(&ledger)?)?;
            }
        }
        ShowArgs {
            json: true,
            archived,
        } => {
            let ledger = Ledger::scratch_copy(&cfg.paths.ledger())?;
            let mut statuses = vec![Status::Active, Status::Pending];
            if *archived {
                statuses.extend([Status::Archived, Status::Forgotten]);
            }
            let facts = ledger
                .facts(&statuses)?
                .into_iter()
                .map(|fact| {
                    Ok(ShownFact {
                        sources: ledger.sources(fact.id)?,
                        fact,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let shown = Shown {
                path: cfg.memory_file.display().to_string(),
                facts,
            };
            crate::cmd::print_json(&shown)?;
        }
    }
    Ok(EXIT_OK)
}

/// The archived and the forgotten facts, each with why it is not in the files: what
/// `--archived` adds after the memory file.
fn not_loaded(ledger: &Ledger) -> Result<String> {
    let mut text = String::new();
    for (status, heading) in [
        (Status::Archived, "Archived"),
        (Status::Forgotten, "Forgotten"),
    ] {
        let facts = ledger.facts(&[status])?;
        if facts.is_empty() {
            continue;
        }
        text.push_str(&format!("\n## {heading} (not loaded by Claude)\n\n"));
        for f in &facts {
            let place = match f.vault.as_deref() {
                Some(vault) if f.scope == Scope::Vault => format!(", vault {vault}"),
                _ => String::new(),
            };
            text.push_str(&format!(
                "- {} [{}{place}] {}\n",
                f.text,
                f.category,
                why::status(ledger, f)?
            ));
        }
    }
    Ok(text)
}
