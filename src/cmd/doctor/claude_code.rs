//! Claude Code's sessions as a source: which projects a run would read, with their
//! sessions and how many are pending; which it would not, and why; a project opted in to
//! insights whose `CLAUDE.local.md` cannot be written safely; and, with the source off,
//! what was found and how to turn it on.
//!
//! It reads directories, the first lines of a session for its working directory, and the
//! ledger's private copy; never a session's text beyond what `scan` hashes.

use std::time::SystemTime;

use super::{Check, plural};
use crate::claude_code::project;
use crate::config::Resolved;
use crate::ledger::Ledger;

pub(super) fn check(
    cfg: &Resolved,
    ledger: Option<&Ledger>,
    prompt_hash: Option<&str>,
    now: SystemTime,
) -> Vec<Check> {
    let selection = &cfg.claude_code;
    let config = cfg.paths.config_file.display();
    if !selection.enabled {
        let Some(hint) = project::hint(selection, &cfg.paths.config_file) else {
            return Vec::new();
        };
        // Said loudly only to someone with nothing else to read.
        let nothing_else = cfg.vaults_dir.is_none() && cfg.vaults.is_empty();
        let check = if nothing_else {
            Check::warn("claude code", hint)
        } else {
            Check::ok("claude code", hint)
        };
        return vec![check.fix(format!(
            "nothing from a coding session reaches an LLM until you enable it: [sources.claude_code] enabled = true in {config}"
        ))];
    }
    let listing = match project::select(selection, &[]) {
        Ok(listing) => listing,
        Err(e) => return vec![Check::error("claude code", e)],
    };
    let mut out = Vec::new();
    for (path, error) in &listing.failures {
        out.push(
            Check::error("claude code", format!("{}: {error}", path.display()))
                .fix("let this user read Claude Code's project directories"),
        );
    }
    if listing.projects.is_empty() {
        out.push(Check::ok(
            "claude code",
            format!(
                "enabled, but no project has sessions in {} yet",
                selection.projects_dir.display()
            ),
        ));
    }
    let scanned = super::pending(cfg, &listing.vaults, ledger, prompt_hash, now);
    for listed in &listing.projects {
        let name = listed.project.cwd.display().to_string();
        let sessions = plural(listed.sessions, "session");
        if !listed.is_read() {
            out.push(Check::ok(
                "claude code",
                format!("project {name}: {sessions}, not read ({})", listed.status),
            ));
            continue;
        }
        let counts = listing
            .vaults
            .iter()
            .position(|v| v.name == name)
            .and_then(|i| scanned.as_ref().map(|s| &s.vaults[i]));
        let pending = counts.map_or_else(
            || "pending unknown".to_owned(),
            |c| {
                let mut p = format!("{} pending", c.new + c.changed);
                if c.settling > 0 {
                    p.push_str(&format!(", {} still settling", c.settling));
                }
                p
            },
        );
        let insights = if listed.insights {
            "; its insights go to its CLAUDE.local.md"
        } else {
            ""
        };
        out.push(Check::ok(
            "claude code",
            format!(
                "project {name}: {sessions}, {pending}{insights} ({})",
                listed.project.sessions_dir.display()
            ),
        ));
    }
    for notice in listing.notices {
        out.push(Check::warn("claude code", notice).fix(
            "its facts are kept and written once the file is git-ignored; or take the project out of [sources.claude_code] insights",
        ));
    }
    out
}
