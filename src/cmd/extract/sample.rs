//! `memloop extract --sample`: the first thing a newcomer sees. The sample vault in
//! `examples/sample-vault/` is compiled into the binary, copied into a temporary
//! directory with its own home, state and memory file, extracted with the provider the
//! environment picks, printed, and deleted. Nothing of the user's is read or written: not
//! their config, ledger, memory file or vaults.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{Reporter, print, say};
use crate::cli::Global;
use crate::config::{Config, Resolved};
use crate::fsutil;
use crate::paths::{Env, Paths};
use crate::pipeline::{self, Options};

/// The sample vault, as files relative to the vault.
const FILES: [(&str, &str); 4] = [
    (
        "CLAUDE.md",
        include_str!("../../../examples/sample-vault/CLAUDE.md"),
    ),
    (
        "00_Inbox/chats/2026-03-02-0912-photo-upload.md",
        include_str!(
            "../../../examples/sample-vault/00_Inbox/chats/2026-03-02-0912-photo-upload.md"
        ),
    ),
    (
        "00_Inbox/chats/2026-03-05-2041-storage.md",
        include_str!("../../../examples/sample-vault/00_Inbox/chats/2026-03-05-2041-storage.md"),
    ),
    (
        "00_Inbox/chats/2026-03-09-0730-species-list.md",
        include_str!(
            "../../../examples/sample-vault/00_Inbox/chats/2026-03-09-0730-species-list.md"
        ),
    ),
];

/// What the sample run takes from the user's environment: how to reach a provider, nothing
/// that points at their files.
const PROVIDER_VARS: [&str; 8] = [
    "MEMLOOP_PROVIDER",
    "MEMLOOP_MODEL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "PATH",
    "MEMLOOP_RETRY_BASE_MS",
];

/// A temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn run(env: &Env, global: &Global) -> Result<u8> {
    let nanos = chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default();
    let scratch = Scratch(
        std::env::temp_dir().join(format!("memloop-sample-{}-{nanos}", std::process::id())),
    );
    let home = scratch.0.join("home");
    let vault = scratch.0.join("vaults/tidepool");
    for (name, text) in FILES {
        let path = vault.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
        }
        fsutil::write_atomic(&path, text.as_bytes())
            .with_context(|| format!("could not write {}", path.display()))?;
    }
    std::fs::create_dir_all(&home)?;
    let home_text = home.to_string_lossy().into_owned();
    let vaults_text = scratch.0.join("vaults").to_string_lossy().into_owned();
    let mut pairs: Vec<(&str, &str)> = vec![("HOME", &home_text), ("VAULTS_DIR", &vaults_text)];
    pairs.extend(
        PROVIDER_VARS
            .iter()
            .filter_map(|key| Some((*key, env.var(key)?))),
    );
    let sample_env = Env::from_pairs(pairs);
    let paths = Paths::resolve(&sample_env, None)?;
    let cfg = Resolved::new(Config::default(), paths, &sample_env)?;
    cfg.require_credentials()?;
    let opts = Options {
        // Just copied, the transcripts look like chats still going on.
        force: true,
        ..Options::default()
    };
    let progress = Reporter::new(global.quiet, false);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let (report, stopped) = runtime.block_on(async {
        let cancel = pipeline::shutdown_signal();
        pipeline::run(&cfg, &opts, &progress, cancel, chrono::Local::now()).await
    })?;
    if let Some(reason) = stopped {
        return Err(reason);
    }
    let mut out = format!(
        "\nSample run: {} transcripts of a made-up vault, \"tidepool\", extracted with {} ({} facts).\n",
        report.transcripts.processed, report.provider, report.facts.new
    );
    out.push_str(&format!(
        "\nWhat memloop would remember about the person ({}):\n\n",
        "~/.claude/rules/memory.md"
    ));
    out.push_str(&facts_of(&cfg.memory_file));
    out.push_str("\nAnd about the vault's work (its CLAUDE.md, inside memloop's fence):\n\n");
    out.push_str(&facts_of(&vault.join("CLAUDE.md")));
    out.push_str(&format!(
        "\nThat copy is deleted; nothing of yours was read or written. To run it on your own vaults:\n\
         \n  VAULTS_DIR=~/vaults memloop extract      # or vaults_dir = \"~/vaults\" in {}\
         \n  memloop extract --vault ~/notes          # one vault: a directory with a CLAUDE.md\
         \n\nWith no API key memloop uses its offline extractor; set ANTHROPIC_API_KEY (or OPENAI_API_KEY / OPENAI_BASE_URL) for real extraction. `memloop doctor` checks the setup.\n",
        env_config_hint(env)
    ));
    print(&out)?;
    if !report.failures.is_empty() {
        for f in &report.failures {
            say(&format!("failed: {}: {}", f.path, f.error));
        }
        return Ok(super::EXIT_FAILED);
    }
    Ok(super::EXIT_OK)
}

/// The headings and bullets memloop wrote in a file (in a `CLAUDE.md`, its fence), indented.
fn facts_of(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_default();
    let text = match crate::fence::inner(&bytes) {
        Ok(Some(inner)) => inner,
        _ => String::from_utf8_lossy(&bytes).into_owned(),
    };
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("- ") || line.starts_with("## ") {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    if out.is_empty() {
        out.push_str("  (nothing)\n");
    }
    out
}

/// Where the user's config file would be, for the next steps.
fn env_config_hint(env: &Env) -> String {
    Paths::resolve(env, None).map_or_else(
        |_| "~/.config/memory-loop/config.toml".to_owned(),
        |p| p.config_file.display().to_string(),
    )
}
