//! `memloop status`: where everything is, which provider a run would use and why, and what
//! the ledger holds.

use anyhow::Result;
use serde::Serialize;

use super::{EXIT_OK, print};
use crate::cli::StatusArgs;
use crate::config::{Resolved, provider_name};
use crate::fact::Status;
use crate::ledger::Ledger;
use crate::prompt::Prompt;

#[derive(Serialize)]
struct StatusReport {
    config: String,
    state_dir: String,
    memory_file: String,
    vaults_dir: Option<String>,
    provider: String,
    provider_reason: String,
    model: String,
    prompt: String,
    transcripts: i64,
    facts_active: usize,
    facts_archived: usize,
    facts_forgotten: usize,
    last_run: Option<String>,
}

pub fn run(cfg: &Resolved, args: &StatusArgs) -> Result<u8> {
    let ledger = Ledger::scratch_copy(&cfg.paths.ledger())?;
    let count = |s: Status| -> Result<usize> { Ok(ledger.facts(&[s])?.len()) };
    let report = StatusReport {
        config: cfg.paths.config_file.display().to_string(),
        state_dir: cfg.paths.state_dir.display().to_string(),
        memory_file: cfg.memory_file.display().to_string(),
        vaults_dir: cfg.vaults_dir.as_ref().map(|d| d.display().to_string()),
        provider: provider_name(cfg.llm.kind).to_owned(),
        provider_reason: cfg.provider_reason.to_string(),
        model: cfg.llm.model.clone(),
        prompt: Prompt::load(&cfg.paths.prompt_file)?.describe(),
        transcripts: ledger.transcript_count()?,
        facts_active: count(Status::Active)?,
        facts_archived: count(Status::Archived)?,
        facts_forgotten: count(Status::Forgotten)?,
        last_run: ledger.last_run()?.map(|(at, _)| at),
    };
    if args.json {
        print(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        print(&format!(
            "config       {}\nstate        {}\nmemory       {}\nvaults_dir   {}\nprovider     {} {} ({})\nprompt       {}\ntranscripts  {} processed\nfacts        {} active, {} archived, {} forgotten\nlast run     {}\n",
            report.config,
            report.state_dir,
            report.memory_file,
            report
                .vaults_dir
                .as_deref()
                .unwrap_or("(not set: VAULTS_DIR or vaults_dir)"),
            report.provider,
            report.model,
            report.provider_reason,
            report.prompt,
            report.transcripts,
            report.facts_active,
            report.facts_archived,
            report.facts_forgotten,
            report.last_run.as_deref().unwrap_or("never"),
        ))?;
    }
    Ok(EXIT_OK)
}
