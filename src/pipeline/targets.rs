//! The files memloop writes, as a run keeps them in step with the ledger: read each target
//! back (a hand edit becomes ledger changes), render it, and write it when it changed, with
//! a pending record around the write so a crash between the two is recognisable. The
//! memory file failing fails the run; one vault's malformed fence fails that vault alone.
//! Rendering and splicing themselves are pure and live in `render` and `fence`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{Run, Target};
use crate::edits;
use crate::fact::{self, Fact, Scope, Status};
use crate::fence;
use crate::fsutil;
use crate::ledger::{NewFact, Source};
use crate::redact;
use crate::render;
use crate::report::{Change, Failure};

impl Run<'_> {
    pub(super) fn sync_all(&mut self) -> Result<()> {
        self.sync(Target::Memory)?;
        for vi in 0..self.vaults.len() {
            self.sync(Target::Vault(vi))?;
        }
        Ok(())
    }

    fn target_path(&self, target: Target) -> PathBuf {
        match target {
            Target::Memory => self.cfg.memory_file.clone(),
            Target::Vault(vi) => self.vaults[vi].root.join("CLAUDE.md"),
        }
    }

    fn read(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        if let Some(bytes) = self.overlay.get(path) {
            return Ok(Some(bytes.clone()));
        }
        match std::fs::read(path) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("could not read {}", path.display())),
        }
    }

    /// Reads a target back (recording hand edits), renders it and writes it if it changed.
    /// A vault whose fence is malformed fails alone; the memory file failing fails the run.
    pub(super) fn sync(&mut self, target: Target) -> Result<()> {
        if self.failed_targets.contains(&target)
            || (matches!(target, Target::Vault(_)) && !self.cfg.config.insights.enabled)
        {
            return Ok(());
        }
        let path = self.target_path(target);
        let result = self.sync_inner(target, &path);
        if let Err(e) = &result
            && matches!(target, Target::Vault(_))
        {
            self.failed_targets.insert(target);
            self.report.failures.push(Failure {
                path: path.display().to_string(),
                error: format!("{e:#}"),
            });
            return Ok(());
        }
        result
    }

    fn sync_inner(&mut self, target: Target, path: &Path) -> Result<()> {
        let bytes = self.read(path)?;
        let current = match (target, &bytes) {
            (_, None) => None,
            (Target::Memory, Some(b)) => Some(String::from_utf8_lossy(b).into_owned()),
            (Target::Vault(_), Some(b)) => fence::inner(b)
                .map_err(|e| anyhow::anyhow!("{e}; the file was left untouched"))?
                .map(|s| s.replace("\r\n", "\n")),
        };
        if self.opts.dry_run {
            self.originals
                .entry(path.to_path_buf())
                .or_insert_with(|| current.clone());
        }
        let key = path.display().to_string();
        let (written, pending) = self.ledger.rendered(&key)?;
        let edits = edits::diff(current.as_deref(), written.as_deref(), pending.as_deref());
        if !edits.is_empty() {
            self.apply_edits(target, edits)?;
        }

        let (scope, vault) = self.scope_of(target);
        let candidates: Vec<Fact> = self
            .ledger
            .renderable_facts()?
            .into_iter()
            .filter(|f| f.scope == scope && (scope == Scope::Global || f.vault == vault))
            .collect();
        let out = match target {
            Target::Memory => render::memory(
                &candidates,
                &self.prompt.categories,
                self.cfg.config.memory.max_bytes,
            ),
            Target::Vault(_) => render::insights(
                &candidates,
                self.cfg.config.insights.max_bytes,
                bytes.as_deref().is_some_and(crlf),
            ),
        };
        let left_out: HashSet<i64> = out.archived.iter().copied().collect();
        self.cap_binds |= !left_out.is_empty();
        let mut archived_now = 0;
        self.ledger.transaction(|l| {
            for f in &candidates {
                match (f.status, left_out.contains(&f.id)) {
                    (Status::Active, true) => {
                        l.set_status(f.id, Status::Archived, Some("cap"))?;
                        archived_now += 1;
                    }
                    (Status::Archived, false) => l.set_status(f.id, Status::Active, None)?,
                    _ => {}
                }
            }
            Ok(())
        })?;
        self.report.facts.archived += archived_now;

        let new_bytes = match target {
            Target::Memory => {
                // No facts and no file yet: nothing worth creating.
                let write = bytes.is_some() || !candidates.is_empty();
                self.report.memory.bytes = if write { out.text.len() } else { 0 };
                write.then(|| out.text.clone().into_bytes())
            }
            Target::Vault(_) => {
                let block = (!out.text.is_empty()).then_some(out.text.as_str());
                fence::splice(bytes.as_deref().unwrap_or_default(), block)?
            }
        }
        .filter(|new| bytes.as_deref() != Some(new.as_slice()));
        let Some(new_bytes) = new_bytes else {
            // Nothing to write; remember the file only when it holds exactly our render.
            if current.as_deref() == Some(out.text.as_str())
                && written.as_deref() != Some(&out.text)
            {
                self.ledger.set_written(&key, &out.text)?;
            }
            return Ok(());
        };
        if self.opts.dry_run {
            self.overlay.insert(path.to_path_buf(), new_bytes);
            self.ledger.set_written(&key, &out.text)?;
            return Ok(());
        }
        if bytes.is_some() {
            let hand_edited = current.as_deref() != written.as_deref()
                && current.as_deref() != pending.as_deref();
            if target == Target::Memory && written.is_none() && pending.is_none() {
                back_up(path, "before-memloop", false)?;
            } else if hand_edited && (target == Target::Memory || written.is_some()) {
                // Bullets are read back; anything else the user typed survives here.
                back_up(path, "bak", true)?;
            }
        }
        // Recorded before the write, cleared after it: see `edits::diff`.
        self.ledger.set_pending(&key, &out.text)?;
        fsutil::write_atomic(path, &new_bytes)
            .with_context(|| format!("could not write {}", path.display()))?;
        self.ledger.set_written(&key, &out.text)
    }

    fn scope_of(&self, target: Target) -> (Scope, Option<String>) {
        match target {
            Target::Memory => (Scope::Global, None),
            Target::Vault(vi) => (Scope::Vault, Some(self.vaults[vi].name.clone())),
        }
    }

    /// Records hand edits: deleted bullets become forgotten, added or reworded ones become
    /// facts in the user's words, moved ones change category. Secrets are redacted here too.
    fn apply_edits(&mut self, target: Target, edits: edits::Edits) -> Result<()> {
        let (scope, vault) = self.scope_of(target);
        let vault = vault.as_deref();
        let source = Source {
            transcript: "(edited by hand)".into(),
            date: self.today.clone(),
        };
        let default_category = match target {
            Target::Memory => self.prompt.categories.first().cloned().unwrap_or_default(),
            Target::Vault(_) => "Project Context".to_owned(),
        };
        let mut index = std::mem::take(&mut self.index);
        let result = self.ledger.transaction(|l| {
            for b in &edits.removed {
                if let Some(id) = index.find(&b.text, scope, vault) {
                    l.set_status(id, Status::Forgotten, None)?;
                }
            }
            for b in &edits.moved {
                if let (Some(id), Some(category)) =
                    (index.find(&b.text, scope, vault), b.category.as_deref())
                {
                    l.set_category(id, category)?;
                }
            }
            for b in &edits.added {
                let text = render::clean(&redact::redact(&b.text));
                let key = fact::normalize(&text);
                match index.find(&text, scope, vault) {
                    Some(id) => {
                        // The user's words win over the wording memloop had.
                        l.set_text(id, &text, &key)?;
                        l.set_status(id, Status::Active, None)?;
                        if let Some(category) = b.category.as_deref() {
                            l.set_category(id, category)?;
                        }
                        index.insert(id, &text, scope, vault);
                    }
                    None => {
                        let category = b
                            .category
                            .clone()
                            .unwrap_or_else(|| default_category.clone());
                        let id = l.insert_fact(&NewFact {
                            text: &text,
                            key: &key,
                            category: &category,
                            scope,
                            vault,
                            status: Status::Active,
                            source: &source,
                        })?;
                        index.insert(id, &text, scope, vault);
                    }
                }
            }
            Ok(())
        });
        self.index = index;
        if result.is_err() {
            self.rebuild_index()?;
        }
        result
    }
}

/// Keeps a copy of a memory file beside it before memloop rewrites it: `once` keeps the
/// first copy ever made (the file as it was before memloop took it over), otherwise the
/// copy is the latest hand-edited version.
fn back_up(path: &Path, suffix: &str, replace: bool) -> Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{suffix}"));
    let backup = path.with_file_name(name);
    if replace || !backup.exists() {
        let bytes =
            std::fs::read(path).with_context(|| format!("could not read {}", path.display()))?;
        fsutil::write_atomic(&backup, &bytes).with_context(|| {
            format!(
                "could not back up {} to {}",
                path.display(),
                backup.display()
            )
        })?;
    }
    Ok(())
}

/// Whether the fence's lines will end in CRLF: as its begin marker does, or, with no fence
/// yet, as the document's first line does (what `fence::splice` follows).
fn crlf(doc: &[u8]) -> bool {
    let line = match fence::find(doc) {
        Ok(Some(f)) => &doc[f.begin],
        _ => doc
            .split_inclusive(|&b| b == b'\n')
            .next()
            .unwrap_or_default(),
    };
    line.ends_with(b"\r\n")
}

pub(super) fn bullet_change(path: &Path, before: &str, after: &str) -> Change {
    let texts = |s: &str| -> Vec<String> {
        render::parse_bullets(s)
            .into_iter()
            .map(|b| b.text)
            .collect()
    };
    let (before, after) = (texts(before), texts(after));
    Change {
        path: path.display().to_string(),
        added: after
            .iter()
            .filter(|a| !before.contains(a))
            .cloned()
            .collect(),
        removed: before
            .iter()
            .filter(|b| !after.contains(b))
            .cloned()
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fence_decides_its_line_endings() {
        let begin = fence::BEGIN;
        let end = fence::END;
        assert!(crlf(b"# T\r\nbody\n"));
        assert!(!crlf(b"# T\nbody\r\n"));
        assert!(crlf(format!("# T\n{begin}\r\n- a\r\n{end}\r\n").as_bytes()));
        assert!(!crlf(format!("# T\r\n{begin}\n- a\n{end}\n").as_bytes()));
        assert!(!crlf(b""));
    }

    #[test]
    fn dry_run_changes_list_added_and_removed_bullets() {
        let c = bullet_change(
            Path::new("/m.md"),
            "## A\n\n- old\n- kept\n",
            "## A\n\n- kept\n- new\n",
        );
        assert_eq!(c.added, ["new"]);
        assert_eq!(c.removed, ["old"]);
    }
}
