//! `memloop ledger rebuild [--vault DIR]... [--json]`: the way out of a damaged or emptied
//! ledger (see `rebuild`). This file takes the vaults a run would read, calls the rebuild
//! and says what it did: what was salvaged, what each file gave, what became of the
//! transcripts, and where the damaged copy is.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{EXIT_FAILED, EXIT_OK, print};
use crate::cli::LedgerCommand;
use crate::config::Resolved;
use crate::error;
use crate::rebuild::{self, Rebuilt};
use crate::vault::{self, Vault};

#[derive(Debug, Args)]
pub struct RebuildArgs {
    /// Also read this vault's insights and transcripts (one named with `extract --vault`)
    #[arg(long = "vault", value_name = "DIR")]
    pub vaults: Vec<PathBuf>,
    /// Print what was done as JSON
    #[arg(long)]
    pub json: bool,
}

/// Runs a `memloop ledger` subcommand.
pub fn run(cfg: &Resolved, cmd: &LedgerCommand) -> Result<u8> {
    match cmd {
        LedgerCommand::Rebuild(args) => rebuild(cfg, args),
    }
}

fn rebuild(cfg: &Resolved, args: &RebuildArgs) -> Result<u8> {
    let mut vaults: Vec<Vault> = Vec::new();
    let named = args
        .vaults
        .iter()
        .map(|dir| vault::open(dir).map_err(|e| error::usage(e.to_string())));
    let found = vault::discover(cfg.vaults_dir.as_deref(), &cfg.vaults)
        .into_iter()
        .filter_map(|v| v.map_err(|e| tracing::warn!("{e}")).ok())
        .map(Ok);
    for v in named.chain(found) {
        let v = v?;
        if !vaults.iter().any(|o| o.name == v.name) {
            vaults.push(v);
        }
    }
    // The Claude Code projects a run reads: their sessions are taken as read too, or the
    // next run would send every one of them again, whole.
    vaults.extend(crate::claude_code::project::read_by_default(
        &cfg.claude_code,
    ));
    let path = cfg.paths.ledger();
    let Some(done) = rebuild::rebuild(cfg, vaults, chrono::Local::now())? else {
        if args.json {
            let json = serde_json::json!({"rebuilt": false, "ledger": path.display().to_string()});
            super::print_json(&json)?;
        } else {
            print(&format!(
                "ledger {} is sound: nothing to rebuild\n",
                path.display()
            ))?;
        }
        return Ok(EXIT_OK);
    };
    if args.json {
        let mut json = serde_json::to_value(&done)?;
        json["rebuilt"] = true.into();
        super::print_json(&json)?;
    } else {
        print(&text(&done))?;
    }
    Ok(if done.failures.is_empty() {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

/// What a rebuild did, a line per thing.
fn text(r: &Rebuilt) -> String {
    let mut out = format!("rebuilt the ledger {} ({})\n", r.ledger, r.damage);
    match &r.damaged_copy {
        Some(copy) => {
            let _ = writeln!(out, "the damaged file is kept as {copy}");
        }
        None => out.push_str("there was no ledger file to keep\n"),
    }
    let s = &r.salvaged;
    let stopped: Vec<String> = s
        .tables
        .iter()
        .filter(|t| !t.complete)
        .map(|t| t.table.clone())
        .collect();
    let _ = write!(
        out,
        "salvaged from it: {} facts, {} processed transcripts, {} runs, {} records of what memloop wrote",
        s.rows("facts"),
        s.rows("transcripts"),
        s.rows("runs"),
        s.rows("rendered")
    );
    if s.tables.is_empty() {
        out.push_str(" (nothing to read)\n");
    } else if stopped.is_empty() {
        out.push_str(" (every table read to its end)\n");
    } else {
        let _ = writeln!(
            out,
            " (could not be read to the end: {})",
            stopped.join(", ")
        );
    }
    for f in &r.files {
        let c = &f.counts;
        let _ = write!(out, "{}: ", f.path);
        match &f.note {
            Some(note) if f.bullets == 0 => {
                let _ = writeln!(out, "{note}");
                continue;
            }
            _ => {}
        }
        let _ = write!(
            out,
            "{} bullets: {} known facts ({} shown again, {} in your words now), {} facts again kept as yours; {} deleted bullets stay forgotten",
            f.bullets, c.known, c.restored, c.reworded, c.adopted, c.forgotten
        );
        match &f.note {
            Some(note) => {
                let _ = writeln!(out, " ({note})");
            }
            None => out.push('\n'),
        }
    }
    let t = &r.transcripts;
    let _ = writeln!(
        out,
        "transcripts: {} found; {} taken as processed at their current checksums (not extracted again), {} already known, {} wait for `memloop extract`",
        t.found, t.marked, t.known, t.waiting
    );
    let f = &r.facts;
    let _ = writeln!(
        out,
        "facts now: {} active, {} archived, {} forgotten, {} waiting for review; the next run writes the files",
        f.active, f.archived, f.forgotten, f.pending
    );
    for failure in &r.failures {
        let _ = writeln!(out, "failed: {}: {}", failure.path, failure.error);
    }
    out
}
