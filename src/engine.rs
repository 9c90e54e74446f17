//! What every command that changes memory opens first: the run lock, the ledger and its
//! index (`Store`), the prompt's categories, the vaults, and a `Writer` that keeps the files
//! in step with the ledger. `extract` drives it through the pipeline; the curation commands
//! (`memory edit | forget | restore | remember | review`) change facts through the store and
//! call [`Engine::sync_all`], so there is one write path whatever the command.
//!
//! It does not extract anything or decide merges.

use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::config::Resolved;
use crate::error;
use crate::fsutil::{self, RunLock};
use crate::ledger::Ledger;
use crate::prompt::Prompt;
use crate::rebuild;
use crate::report::{Failure, Report};
use crate::store::Store;
use crate::vault::{self, Vault};
use crate::write::{Layout, Target, Writer};

/// The memory a command works on, held under the run lock.
pub struct Engine<'a> {
    pub cfg: &'a Resolved,
    pub prompt: Prompt,
    pub vaults: Vec<Vault>,
    pub store: Store,
    pub writer: Writer,
    _lock: Option<RunLock>,
}

impl<'a> Engine<'a> {
    /// Takes the run lock and opens the ledger. A dry run works on a private copy of the
    /// ledger, so it writes nothing at all.
    pub fn open(
        cfg: &'a Resolved,
        prompt: Prompt,
        vaults: Vec<Vault>,
        dry_run: bool,
    ) -> Result<Self> {
        // A dry run writes nothing at all, not even the lock file: it takes the lock only
        // where one already exists (so it still waits for no one and changes nothing).
        let lock = if dry_run && !cfg.paths.state_dir.join(fsutil::LOCK_FILE).exists() {
            None
        } else {
            let lock = fsutil::try_lock(&cfg.paths.state_dir).with_context(|| {
                format!(
                    "could not take the run lock in {}",
                    cfg.paths.state_dir.display()
                )
            })?;
            Some(lock.ok_or_else(|| error::locked(&cfg.paths.state_dir.join(fsutil::LOCK_FILE)))?)
        };
        let path = cfg.paths.ledger();
        rebuild::check_file_not_emptied(&path, &cfg.memory_file, &vaults)?;
        let ledger = if dry_run {
            Ledger::scratch_copy(&path)?
        } else {
            Ledger::open(&path)?
        };
        // An emptied ledger is not a first run: it would bring back what the user deleted.
        rebuild::check_not_emptied(&ledger, &path, &cfg.memory_file, &vaults)?;
        if !dry_run {
            // Under the lock no other memloop is half way through a write: what a killed
            // one left behind goes.
            let removed: usize = std::iter::once(cfg.memory_file.clone())
                .chain(vaults.iter().map(Vault::claude_md))
                .map(|target| fsutil::remove_stale_temps(&target))
                .sum();
            if removed > 0 {
                tracing::info!("removed {removed} temp files a stopped run left");
            }
        }
        Ok(Self {
            cfg,
            prompt,
            vaults,
            store: Store::new(ledger)?,
            writer: Writer::new(dry_run),
            _lock: lock,
        })
    }

    /// Opens the engine for a curation command: the prompt in use and every configured
    /// vault (a vault that cannot be opened is left out with a warning).
    pub fn for_curation(cfg: &'a Resolved) -> Result<Self> {
        let prompt = cfg.paths.prompt()?;
        let mut vaults: Vec<Vault> = Vec::new();
        for v in vault::discover(cfg.vaults_dir.as_deref(), &cfg.vaults) {
            match v {
                Ok(v) if !vaults.iter().any(|o| o.name == v.name) => vaults.push(v),
                Ok(_) => {}
                Err(e) => tracing::warn!("{e}"),
            }
        }
        // Projects whose insights are written: a fact forgotten leaves their file too.
        vaults.extend(
            crate::claude_code::project::read_by_default(&cfg.claude_code)
                .into_iter()
                .filter(Vault::writes_insights),
        );
        let mut engine = Self::open(cfg, prompt, vaults, false)?;
        // A vault memloop wrote that discovery does not list (named by `extract --vault`):
        // its insights are rewritten too, so a fact forgotten leaves every file at once.
        // Claude Code's projects, listed once, when a written `CLAUDE.local.md` asks.
        let mut projects = None;
        for written in engine.store.ledger.rendered_all()? {
            let path = PathBuf::from(written.target);
            if engine.vaults.iter().any(|v| v.claude_md() == path) {
                continue;
            }
            // A project's `CLAUDE.local.md` written by a run that named it (`extract
            // --project`), or before it left `include`: still rewritten while git ignores it.
            if path.file_name() == Some(vault::LOCAL_FILE.as_ref()) {
                let found = projects.get_or_insert_with(|| {
                    crate::claude_code::project::discover(&cfg.claude_code.projects_dir)
                        .unwrap_or_default()
                });
                if let Some(v) = written_project(found, &path)
                    && !engine.vaults.iter().any(|o| o.name == v.name)
                {
                    engine.vaults.push(v);
                }
                continue;
            }
            if path.file_name() != Some(vault::MARKER_FILE.as_ref()) {
                continue;
            }
            if let Some(Ok(v)) = path.parent().map(vault::open)
                && !engine.vaults.iter().any(|o| o.name == v.name)
            {
                engine.vaults.push(v);
            }
        }
        Ok(engine)
    }

    /// Where the files are and how they render.
    pub fn layout(&self) -> Layout<'_> {
        layout(self.cfg, &self.prompt, &self.vaults)
    }

    /// Brings every file in step with the ledger (reading hand edits back first).
    pub fn sync_all(&mut self, report: &mut Report, now: &str) -> Result<()> {
        let layout = layout(self.cfg, &self.prompt, &self.vaults);
        self.writer.sync_all(&mut self.store, &layout, report, now)
    }

    /// Brings one file in step with the ledger.
    pub fn sync(&mut self, target: Target, report: &mut Report, now: &str) -> Result<()> {
        let layout = layout(self.cfg, &self.prompt, &self.vaults);
        self.writer
            .sync(&mut self.store, &layout, target, report, now)
    }

    /// Writes a `memory edit` session's result (see `Writer::sync_edited`).
    pub fn sync_edited(
        &mut self,
        target: Target,
        base: &str,
        edited: &str,
        report: &mut Report,
        now: &str,
    ) -> Result<()> {
        let layout = layout(self.cfg, &self.prompt, &self.vaults);
        self.writer
            .sync_edited(&mut self.store, &layout, target, base, edited, report, now)
    }

    /// The vault target for a directory the user named, if it is one of the engine's.
    pub fn vault_target(&self, dir: &std::path::Path) -> Result<Target> {
        let wanted = vault::open(dir).map_err(|e| error::usage(e.to_string()))?;
        // A Claude Code project is named by its own directory, where its insights go.
        let project = |v: &Vault| {
            v.is_project()
                && (v.insights_root() == dir
                    || std::fs::canonicalize(v.insights_root()).is_ok_and(|p| p == wanted.root))
        };
        self.vaults
            .iter()
            .position(|v| v.root == wanted.root || project(v))
            .map(Target::Vault)
            .ok_or_else(|| {
                error::usage(format!(
                    "{} is not one of the configured vaults (VAULTS_DIR, vaults_dir, vaults), nor a Claude Code project whose insights are written ([sources.claude_code] insights)",
                    dir.display()
                ))
            })
    }

    /// The file a target lives in.
    pub fn path(&self, target: Target) -> PathBuf {
        self.layout().path(target)
    }

    /// Reports a failure to write after the ledger changed: the change is kept and the file
    /// catches up next time.
    pub fn sync_or_report(&mut self, report: &mut Report, now: &str) {
        if let Err(e) = self.sync_all(report, now) {
            report.failures.push(Failure {
                path: self.cfg.memory_file.display().to_string(),
                error: format!("{e:#}"),
            });
        }
    }
}

/// The project of `found` whose `CLAUDE.local.md` is `local`, as a vault whose insights
/// are written, when Claude Code still has its sessions and git ignores the file.
fn written_project(
    found: &[crate::claude_code::project::Project],
    local: &std::path::Path,
) -> Option<Vault> {
    use crate::claude_code::project;
    let dir = local.parent()?;
    let p = found.iter().find(|p| p.cwd == dir)?;
    if let Some(refused) = project::insights_refused(&p.cwd) {
        tracing::warn!("{refused}");
        return None;
    }
    project::to_vault(p, true).ok()
}

fn layout<'b>(cfg: &'b Resolved, prompt: &'b Prompt, vaults: &'b [Vault]) -> Layout<'b> {
    Layout {
        memory_file: &cfg.memory_file,
        vaults,
        categories: &prompt.categories,
        memory_max: cfg.config.memory.max_bytes,
        insights_max: cfg.config.insights.max_bytes,
        insights_enabled: cfg.config.insights.enabled,
    }
}
