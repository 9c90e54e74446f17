//! Facts a session asked `memloop mcp` to remember while a run held the lock: each kept in a
//! file of its own under the state directory (`mcp-remembered/`, written whole by rename,
//! already redacted and checked), and merged by whoever next holds the lock (the next run,
//! or the server once the run is over) with [`merge`].
//!
//! It decides nothing about the fact itself: `Store::remember` does, when it is merged.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::config::{McpRemember, Resolved};
use crate::fact::Scope;
use crate::fsutil;
use crate::store::{By, Remember, Remembered, Store};

/// The directory under the state directory that holds them.
pub const DIR: &str = "mcp-remembered";

/// One fact waiting for the lock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Queued {
    pub text: String,
    pub category: String,
    /// When it was asked (RFC 3339).
    pub at: String,
}

/// Keeps `fact` until the lock is free; its file's path.
///
/// # Errors
///
/// The file could not be written (the state disk full, no permission).
pub fn keep(state_dir: &Path, fact: &Queued) -> Result<PathBuf> {
    static KEPT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = state_dir.join(DIR);
    // By when it was asked, so the oldest sorts first.
    let stamp: String = fact
        .at
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let n = KEPT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let path = dir.join(format!("{stamp}-{}-{n}.json", std::process::id()));
    let json = serde_json::to_vec(fact)?;
    fsutil::write_atomic(&path, &json)
        .with_context(|| format!("could not keep the fact in {}", path.display()))?;
    Ok(path)
}

/// The facts waiting, oldest first, with their files. A file that cannot be read as one is
/// skipped (and named in the log); it stays for the person to look at.
#[must_use]
pub fn waiting(state_dir: &Path) -> Vec<(PathBuf, Queued)> {
    let Ok(entries) = std::fs::read_dir(state_dir.join(DIR)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let read = std::fs::read(&path)
                .map_err(anyhow::Error::from)
                .and_then(|b| Ok(serde_json::from_slice::<Queued>(&b)?));
            match read {
                Ok(fact) => Some((path, fact)),
                Err(e) => {
                    tracing::warn!(path = %path.display(), "not a fact a session asked to keep: {e:#}");
                    None
                }
            }
        })
        .collect()
}

/// Merges the facts waiting into `store` (under the run lock, which the caller holds) and
/// removes their files; how many were merged.
///
/// # Errors
///
/// The ledger could not take one; the rest stay waiting.
pub fn merge(cfg: &Resolved, store: &mut Store) -> Result<usize> {
    let accept = cfg.config.mcp.remember == McpRemember::Accept;
    let mut merged = 0;
    for (path, fact) in waiting(&cfg.paths.state_dir) {
        let done = store.remember(&Remember {
            text: &fact.text,
            category: &fact.category,
            scope: Scope::Global,
            vault: None,
            now: &fact.at,
            by: By::Session { accept },
        })?;
        if let Remembered::Refused(why) = done {
            tracing::info!(path = %path.display(), "a fact a session asked to keep was refused: {why}");
        }
        if let Remembered::Withheld(why) = done {
            tracing::info!(path = %path.display(), "a fact a session asked to keep was not kept: {why}");
        }
        std::fs::remove_file(&path)
            .with_context(|| format!("could not remove {}", path.display()))?;
        merged += 1;
    }
    Ok(merged)
}
