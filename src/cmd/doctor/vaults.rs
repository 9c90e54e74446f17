//! The vaults a run would read: one line per vault with its transcripts and how many are
//! pending (new or changed since the ledger, as `scan` judges them for `extract` and
//! `status`); an error for no vault at all, for a vault that cannot be opened, and for two
//! vaults of one name (their insights would mix, so a run refuses the second); a warning
//! for each directory under the vaults directory that holds chats but no `CLAUDE.md`, so
//! is not a vault.
//!
//! It reads directories and the ledger's private copy, never a transcript's text beyond
//! what `scan` hashes.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::{Check, plural};
use crate::config::Resolved;
use crate::ledger::Ledger;
use crate::scan::{self, VaultCounts};
use crate::vault::{self, Vault, VaultError};

pub(super) fn check(
    cfg: &Resolved,
    ledger: Option<&Ledger>,
    prompt_hash: Option<&str>,
    now: SystemTime,
) -> Vec<Check> {
    let config = cfg.paths.config_file.display();
    if cfg.vaults_dir.is_none() && cfg.vaults.is_empty() {
        // Claude Code's sessions are what a run reads (see the `claude code` lines).
        if cfg.claude_code.enabled {
            return Vec::new();
        }
        return vec![
            Check::error("vaults", "no vaults configured: a run has nothing to read").fix(
                format!(
                    "set VAULTS_DIR, or vaults_dir = \"~/vaults\" (the directory holding your vaults) in {config}"
                ),
            ),
        ];
    }
    let mut out = Vec::new();
    let mut vaults: Vec<Vault> = Vec::new();
    for found in vault::discover(cfg.vaults_dir.as_deref(), &cfg.vaults) {
        match found {
            Ok(v) => match vaults.iter().find(|o| o.name == v.name) {
                Some(first) => out.push(
                    Check::error(
                        "vault",
                        format!(
                            "two vaults are named {}: {} and {}; their insights would mix, so a run refuses the second",
                            v.name,
                            first.root.display(),
                            v.root.display()
                        ),
                    )
                    .fix("rename one of the two directories (a vault's name is its directory's name)"),
                ),
                None => {
                    for warning in &v.warnings {
                        out.push(Check::warn("vault", warning.clone()).fix(
                            "correct it, or save the vault's settings in Memory Loop, which rewrites the file",
                        ));
                    }
                    vaults.push(v);
                }
            },
            Err(e) => out.push(unusable(&e, &config.to_string())),
        }
    }
    let scanned = super::pending(cfg, &vaults, ledger, prompt_hash, now);
    for (i, v) in vaults.iter().enumerate() {
        out.push(match &scanned {
            Some(s) => vault_line(v, &s.vaults[i], &problems_in(v, &s.problems)),
            None => unscanned_line(v),
        });
    }
    let dir = cfg.vaults_dir.as_deref();
    if vaults.is_empty()
        && let Some(dir) = dir.filter(|d| d.is_dir())
    {
        out.push(
            Check::error(
                "vaults",
                format!(
                    "no vault in {}: a vault is a directory there with a CLAUDE.md",
                    dir.display()
                ),
            )
            .fix(format!(
                "add a CLAUDE.md to each vault directory in {}, or name vaults with vaults = [...] in {config}",
                dir.display()
            )),
        );
    }
    if let Some(dir) = dir {
        let known: Vec<&Path> = vaults.iter().map(|v| v.root.as_path()).collect();
        for (root, chats) in chats_without_vault(dir, &known) {
            out.push(
                Check::warn(
                    "vault",
                    format!(
                        "{} holds {} but no CLAUDE.md: it is not a vault, so memloop does not read its chats",
                        root.display(),
                        plural(chats, "chat")
                    ),
                )
                .fix(format!(
                    "add a CLAUDE.md to {} to make it a vault",
                    root.display()
                )),
            );
        }
    }
    out
}

/// A vault or vaults directory that cannot be opened, with what to do about it.
fn unusable(e: &VaultError, config: &str) -> Check {
    let fix = match e {
        VaultError::VaultsDirMissing { .. } => {
            format!("create it, or correct VAULTS_DIR or vaults_dir in {config}")
        }
        VaultError::Missing { .. } | VaultError::NotADirectory { .. } => {
            format!("correct the path in vaults = [...] in {config}, or --vault")
        }
        VaultError::InboxEscapes { path, .. } => {
            format!("correct {} (Memory Loop's vault settings)", path.display())
        }
        VaultError::Unreadable { path, .. } => {
            format!("let this user read {}", path.display())
        }
        VaultError::Refused { .. } => {
            "keep the vault's directories inside it: links out of a vault are not followed"
                .to_owned()
        }
    };
    Check::error("vault", e.to_string()).fix(fix)
}

/// What the scan could not read in `v`.
fn problems_in<'a>(v: &Vault, problems: &'a [scan::Problem]) -> Vec<&'a scan::Problem> {
    problems
        .iter()
        .filter(|p| p.path.starts_with(&v.root) || p.path.starts_with(v.chats_dir()))
        .collect()
}

/// One vault's line: its transcripts and what a run would do with them.
fn vault_line(v: &Vault, counts: &VaultCounts, problems: &[&scan::Problem]) -> Check {
    let chats = v.chats_dir();
    if let Some(p) = problems.iter().find(|p| !p.transcript) {
        return Check::error(
            "vault",
            format!("vault {}: {}: {}", v.name, p.path.display(), p.error),
        )
        .fix("let this user list it, and keep it inside the vault");
    }
    let mut text = format!(
        "vault {}: {}, {} pending",
        v.name,
        plural(counts.found, "transcript"),
        counts.new + counts.changed
    );
    if counts.settling > 0 {
        text.push_str(&format!(", {} still settling", counts.settling));
    }
    text.push_str(&format!(" ({})", chats.display()));
    match problems.first() {
        Some(p) => Check::warn(
            "vault",
            format!(
                "{text}; {} cannot be read, first {}: {}",
                counts.failed,
                p.path.display(),
                p.error
            ),
        )
        .fix("a run reports them as failed and goes on; `memloop status` lists them"),
        None if counts.found == 0 && !chats.is_dir() => Check::warn(
            "vault",
            format!("{text}; that directory does not exist"),
        )
        .fix(
            "nothing if no chat was saved there yet; else check inboxPath in the vault's .memory-loop.json: Memory Loop writes chats to {contentRoot}/{inboxPath}/chats, inside the vault even when inboxPath starts with /",
        ),
        None if counts.still_failing > 0 => Check::warn(
            "vault",
            format!(
                "{text}; {} skipped: they failed before and have not changed",
                counts.still_failing
            ),
        )
        .fix("`memloop status` says why; mend or replace them, or `memloop extract --force`"),
        None => Check::ok("vault", text),
    }
}

/// A vault's line when the ledger cannot be read: its transcripts, pending unknown.
fn unscanned_line(v: &Vault) -> Check {
    match vault::transcripts(v) {
        Ok(t) => Check::ok(
            "vault",
            format!(
                "vault {}: {} ({}; pending unknown: the ledger cannot be read)",
                v.name,
                plural(t.len(), "transcript"),
                v.chats_dir().display()
            ),
        ),
        Err(e) => Check::error("vault", format!("vault {}: {e}", v.name))
            .fix("let this user list it, and keep it inside the vault"),
    }
}

/// The non-hidden directories in `dir` with no `CLAUDE.md` whose inbox (as Memory Loop
/// would find it) holds chats, with how many; `known` vaults (named in `vaults = [...]`)
/// are not reported.
fn chats_without_vault(dir: &Path, known: &[&Path]) -> Vec<(PathBuf, usize)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let root = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if hidden || !root.is_dir() || root.join(vault::MARKER_FILE).exists() {
            continue;
        }
        let Ok(v) = vault::open(&root) else { continue };
        if known.contains(&v.root.as_path()) {
            continue;
        }
        match vault::transcripts(&v) {
            Ok(t) if !t.is_empty() => out.push((root, t.len())),
            _ => {}
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::super::Level;
    use super::*;

    fn vault() -> Vault {
        Vault {
            name: "alpha".into(),
            root: "/v/alpha".into(),
            content_root: "/v/alpha".into(),
            inbox: "00_Inbox".into(),
            warnings: Vec::new(),
            kind: crate::vault::Kind::MemoryLoop,
        }
    }

    #[test]
    fn a_vault_line_counts_transcripts_pending_and_settling() {
        let counts = VaultCounts {
            found: 4,
            new: 1,
            changed: 1,
            unchanged: 1,
            settling: 1,
            ..VaultCounts::default()
        };
        let line = vault_line(&vault(), &counts, &[]);
        assert_eq!(line.level, Level::Ok);
        assert_eq!(
            line.message,
            "vault alpha: 4 transcripts, 2 pending, 1 still settling (/v/alpha/00_Inbox/chats)"
        );
        let one = VaultCounts {
            found: 1,
            unchanged: 1,
            ..VaultCounts::default()
        };
        assert_eq!(
            vault_line(&vault(), &one, &[]).message,
            "vault alpha: 1 transcript, 0 pending (/v/alpha/00_Inbox/chats)"
        );
    }

    #[test]
    fn unreadable_transcripts_warn_and_an_unlistable_inbox_is_an_error() {
        let bad = scan::Problem {
            path: "/v/alpha/00_Inbox/chats/x.md".into(),
            error: "not UTF-8".into(),
            transcript: true,
            fingerprint: None,
        };
        let counts = VaultCounts {
            found: 2,
            new: 1,
            failed: 1,
            ..VaultCounts::default()
        };
        let line = vault_line(&vault(), &counts, &[&bad]);
        assert_eq!(line.level, Level::Warn);
        assert!(
            line.message
                .ends_with("; 1 cannot be read, first /v/alpha/00_Inbox/chats/x.md: not UTF-8"),
            "{line:?}"
        );
        let dir = scan::Problem {
            path: "/v/alpha/00_Inbox/chats".into(),
            error: "could not list transcripts: permission denied".into(),
            transcript: false,
            fingerprint: None,
        };
        assert_eq!(
            vault_line(&vault(), &VaultCounts::default(), &[&dir]).level,
            Level::Error
        );
        let skipped = VaultCounts {
            found: 2,
            still_failing: 1,
            ..VaultCounts::default()
        };
        let line = vault_line(&vault(), &skipped, &[]);
        assert_eq!(line.level, Level::Warn);
        assert!(
            line.message
                .ends_with("1 skipped: they failed before and have not changed"),
            "{line:?}"
        );
    }
}
