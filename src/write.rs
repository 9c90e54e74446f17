//! The write path every command uses, under the run lock: read a file back (I/O), record
//! the user's hand edits in the store, plan the new bytes (pure: render, cap, splice,
//! backups), and apply the plan (ledger statuses, a pending record around an atomic write
//! that gives way to a save landing meanwhile). A dry run keeps what it would write in an
//! overlay that later reads see; nothing reaches the disk.
//!
//! The memory file failing fails the command; one vault's malformed fence fails that vault
//! alone, and so does a `CLAUDE.md` that leads out of its vault (a symlink to a file
//! elsewhere, perhaps shared with another vault) or is not a regular file: it is neither
//! read nor written through. The memory file lives wherever the user puts it, so its
//! symlinks are followed. Rendering and splicing themselves live in `render` and `fence`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::backup::{self, Backup};
use crate::edits;
use crate::fact::{ArchiveReason, Fact, Scope, Status};
use crate::fence;
use crate::fsutil::{self, Confined, Replaced};
use crate::ledger::FailedInput;
use crate::render::{self, Rendered};
use crate::report::{Change, Failure, Report};
use crate::scan;
use crate::store::Store;
use crate::vault::Vault;

/// How often a write gives way to a save that landed while it was planned before the
/// command leaves that file for its next write (the ledger already holds everything).
const MAX_REPLANS: u32 = 8;

/// A file kept changing while memloop tried to write it: nothing is lost (the ledger has
/// every fact, the file every save), and the next write catches up.
#[derive(Debug, thiserror::Error)]
#[error(
    "{0} kept changing while memloop tried to write it; it was left as it is and is written next time"
)]
struct Busy(String);

/// A file memloop renders: the memory file, or one vault's `CLAUDE.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    Memory,
    Vault(usize),
}

/// Where the files are and how they render.
pub struct Layout<'a> {
    pub memory_file: &'a Path,
    pub vaults: &'a [Vault],
    pub categories: &'a [String],
    pub memory_max: usize,
    pub insights_max: usize,
    pub insights_enabled: bool,
}

impl Layout<'_> {
    /// Every target that is written, the memory file first.
    pub fn targets(&self) -> impl Iterator<Item = Target> + use<'_> {
        std::iter::once(Target::Memory)
            .chain((0..self.vaults.len()).map(Target::Vault))
            .filter(|t| self.writes(*t))
    }

    /// Whether a target is written at all: insights may be turned off, and a Claude Code
    /// project's are written only where the user opted in.
    pub fn writes(&self, target: Target) -> bool {
        match target {
            Target::Memory => true,
            Target::Vault(vi) => self.insights_enabled && self.vaults[vi].writes_insights(),
        }
    }

    /// The file a target lives in.
    pub fn path(&self, target: Target) -> PathBuf {
        match target {
            Target::Memory => self.memory_file.to_path_buf(),
            Target::Vault(vi) => self.vaults[vi].claude_md(),
        }
    }

    /// The directory a target's file must stay inside once its symlinks are followed: its
    /// vault's root, or `None` for the memory file.
    pub fn confined_to(&self, target: Target) -> Option<&Path> {
        match target {
            Target::Memory => None,
            Target::Vault(vi) => Some(self.vaults[vi].insights_root()),
        }
    }

    /// Whether copies are kept beside the target's file before it is rewritten: not in a
    /// project's directory, where git would list them and a `git add .` commit them (the
    /// fence never touches the user's text there, and hand edits are read back first).
    pub fn keeps_backups(&self, target: Target) -> bool {
        match target {
            Target::Memory => true,
            Target::Vault(vi) => !self.vaults[vi].is_project(),
        }
    }

    /// The facts a target shows: global ones, or one vault's.
    pub fn scope(&self, target: Target) -> (Scope, Option<&str>) {
        match target {
            Target::Memory => (Scope::Global, None),
            Target::Vault(vi) => (Scope::Vault, Some(self.vaults[vi].name.as_str())),
        }
    }
}

/// What memloop recorded about a target: the text it last wrote, and a write it recorded
/// but may not have finished.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recorded {
    pub written: Option<String>,
    pub pending: Option<String>,
}

/// A target as read back: its bytes, and the text memloop owns in it (the whole memory
/// file, or the fence's inner text with `\n` line endings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnDisk {
    pub bytes: Option<Vec<u8>>,
    pub owned: Option<String>,
}

/// What applying changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The text memloop owns after the write (recorded as written).
    pub text: String,
    /// Facts the cap leaves out now, and capped facts that fit again.
    pub archive: Vec<i64>,
    pub restore: Vec<i64>,
    /// The new bytes, when they differ from the file's.
    pub write: Option<Vec<u8>>,
    pub backup: Option<Backup>,
    /// Nothing to write, but the file holds exactly the render memloop has not recorded.
    pub record: bool,
}

/// Reads a target back: its bytes and the part of it memloop owns.
///
/// Text memloop owns that is not valid UTF-8 is an error: rewriting it would replace the
/// user's letters, so the file is left untouched.
pub fn read_back(target: Target, bytes: Option<Vec<u8>>) -> Result<OnDisk> {
    let utf8 = |b: &[u8]| {
        std::str::from_utf8(b).map(str::to_owned).map_err(|e| {
            anyhow::anyhow!(
                "not valid UTF-8 at byte {}: the file was left untouched (save it as UTF-8)",
                e.valid_up_to()
            )
        })
    };
    let owned = match (target, &bytes) {
        (_, None) => None,
        (Target::Memory, Some(b)) => Some(utf8(b)?),
        (Target::Vault(_), Some(b)) => match fence::find(b).map_err(MalformedFence)? {
            Some(f) => Some(utf8(&b[f.inner])?.replace("\r\n", "\n")),
            None => None,
        },
    };
    Ok(OnDisk { bytes, owned })
}

/// Plans a target's new bytes from the facts it may show (active ones and those the cap
/// archived). Pure.
/// `shape`: the text whose non-bullet parts are kept in place (default: the file's own).
pub fn plan(
    target: Target,
    disk: &OnDisk,
    shape: Option<&str>,
    recorded: &Recorded,
    facts: &[Fact],
    layout: &Layout<'_>,
) -> Result<Plan> {
    let shape = shape.or(disk.owned.as_deref());
    let out: Rendered = match target {
        Target::Memory => render::memory(facts, layout.categories, layout.memory_max, shape),
        Target::Vault(_) => render::insights(
            facts,
            layout.insights_max,
            disk.bytes.as_deref().is_some_and(crlf),
            shape,
        ),
    };
    let left_out: HashSet<i64> = out.archived.iter().copied().collect();
    let mut archive = Vec::new();
    let mut restore = Vec::new();
    for f in facts {
        match (f.status, left_out.contains(&f.id)) {
            (Status::Active, true) => archive.push(f.id),
            (Status::Archived, false) => restore.push(f.id),
            _ => {}
        }
    }
    let write = match target {
        // No facts and no file yet: nothing worth creating.
        Target::Memory => {
            (disk.bytes.is_some() || !facts.is_empty()).then(|| out.text.clone().into_bytes())
        }
        Target::Vault(_) => {
            let block = (!out.text.is_empty()).then_some(out.text.as_str());
            fence::splice(disk.bytes.as_deref().unwrap_or_default(), block)
                .map_err(|e| anyhow::anyhow!("{e}; the file was left untouched"))?
        }
    }
    .filter(|new| disk.bytes.as_deref() != Some(new.as_slice()));
    let record = write.is_none()
        && disk.owned.as_deref() == Some(out.text.as_str())
        && recorded.written.as_deref() != Some(&out.text);
    let backup = match (&write, &disk.bytes) {
        (Some(_), Some(_)) => {
            let hand_edited = disk.owned != recorded.written && disk.owned != recorded.pending;
            if target == Target::Memory && recorded.written.is_none() && recorded.pending.is_none()
            {
                Some(Backup::BeforeMemloop)
            } else if hand_edited && (target == Target::Memory || recorded.written.is_some()) {
                Some(Backup::HandEdited)
            } else {
                None
            }
        }
        _ => None,
    };
    Ok(Plan {
        text: out.text,
        archive,
        restore,
        write,
        backup,
        record,
    })
}

/// A `CLAUDE.md` whose insights markers do not pair up: it is left untouched.
#[derive(Debug, thiserror::Error)]
#[error("{0}; the file was left untouched")]
struct MalformedFence(fence::FenceError);

/// A target memloop may not read or write as it is: a link out of its vault, a file it is
/// not allowed to read. Like a malformed fence, it is the user's to fix.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Unusable(String);

/// Applies plans: to the disk, or in a dry run to an overlay that later reads see.
#[derive(Default)]
pub struct Writer {
    dry_run: bool,
    overlay: HashMap<PathBuf, Vec<u8>>,
    /// In a dry run, each target's owned text before the command.
    originals: HashMap<PathBuf, Option<String>>,
    /// Targets that failed this command (a malformed fence): not touched again.
    failed: HashSet<Target>,
    /// A size cap left facts out: reinforcement can change what a file shows.
    pub cap_binds: bool,
    /// Files left unwritten because they kept changing (a save landing at every try).
    busy: Vec<PathBuf>,
    /// Targets written this command: only the first write keeps the text before it.
    written: HashSet<String>,
    /// Every renderable fact, as read when the ledger's change count was this: a sync of
    /// every file reads them once, not once a file, while nothing changes in between.
    renderable: Option<(u64, Vec<Fact>)>,
    /// Within [`Writer::sync_all`]: every file follows, so all facts are worth reading at once.
    syncing_all: bool,
}

impl Writer {
    /// A writer that writes (`dry_run` false) or only pretends to.
    #[must_use]
    pub fn new(dry_run: bool) -> Self {
        Self {
            dry_run,
            ..Self::default()
        }
    }

    /// Brings every target in step with the store.
    pub fn sync_all(
        &mut self,
        store: &mut Store,
        layout: &Layout<'_>,
        report: &mut Report,
        now: &str,
    ) -> Result<()> {
        self.syncing_all = true;
        let synced = layout
            .targets()
            .try_for_each(|target| self.sync(store, layout, target, report, now));
        self.syncing_all = false;
        synced
    }

    /// Reads a target back (recording hand edits), renders it and writes it if it changed.
    /// A vault that fails is reported and left alone; the memory file failing is an error.
    pub fn sync(
        &mut self,
        store: &mut Store,
        layout: &Layout<'_>,
        target: Target,
        report: &mut Report,
        now: &str,
    ) -> Result<()> {
        if self.failed.contains(&target) || !layout.writes(target) {
            return Ok(());
        }
        let path = layout.path(target);
        let result = self.sync_inner(store, layout, target, &path, report, now, None);
        if let Err(e) = &result
            && let Some(busy) = e.downcast_ref::<Busy>()
        {
            report.notice(busy.to_string());
            self.busy.push(path);
            return Ok(());
        }
        // One file that cannot be written fails alone: the facts are in the ledger, and the
        // file catches up at its next write.
        if let Err(e) = &result {
            self.failed.insert(target);
            let error = format!("{e:#}");
            if self.still_failing(store, &path, e, &error, now, report) {
                return Ok(());
            }
            report.failures.push(Failure {
                path: path.display().to_string(),
                error,
            });
            return Ok(());
        }
        result
    }

    /// Markers that do not pair up, a link out of the vault, a file memloop may not read and
    /// a file made read-only are the user's to fix: the failure is kept with the file's
    /// fingerprint (`scan::fingerprint_of`, the link's own when it is one), and while the file
    /// stays as it is the next runs list it as still failing instead of failing again. True
    /// when it is such a file, unchanged since it failed.
    fn still_failing(
        &self,
        store: &Store,
        path: &Path,
        e: &anyhow::Error,
        error: &str,
        now: &str,
        report: &mut Report,
    ) -> bool {
        let users_to_fix = e.chain().any(|cause| {
            cause.downcast_ref::<MalformedFence>().is_some()
                || cause.downcast_ref::<Unusable>().is_some()
                || cause
                    .downcast_ref::<std::io::Error>()
                    .and_then(std::io::Error::get_ref)
                    .is_some_and(|inner| inner.downcast_ref::<fsutil::Refusal>().is_some())
        });
        let Some(fingerprint) = users_to_fix.then(|| scan::fingerprint_of(path)).flatten() else {
            return false;
        };
        let key = path.display().to_string();
        if let Ok(Some(known)) = store.ledger.failed_input(&key)
            && known.fingerprint == fingerprint
        {
            report.still_failing.push(Failure {
                path: key,
                error: known.still_failing(),
            });
            return true;
        }
        if !self.dry_run {
            let kept = store.ledger.record_failed_input(&FailedInput {
                path: key,
                fingerprint,
                error: error.to_owned(),
                failed_at: now.to_owned(),
            });
            if let Err(e) = kept {
                tracing::warn!(path = %path.display(), "could not keep the failure: {e:#}");
            }
        }
        false
    }

    /// Writes the result of a `memory edit` session: the user's changes from `base` (the
    /// text they started from) to `edited` are theirs, whatever happened to the file
    /// meanwhile (a run that added facts keeps them), and `edited` decides where their own
    /// text stands.
    #[allow(clippy::too_many_arguments)]
    pub fn sync_edited(
        &mut self,
        store: &mut Store,
        layout: &Layout<'_>,
        target: Target,
        base: &str,
        edited: &str,
        report: &mut Report,
        now: &str,
    ) -> Result<()> {
        let path = layout.path(target);
        self.sync_inner(
            store,
            layout,
            target,
            &path,
            report,
            now,
            Some((base, edited)),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn sync_inner(
        &mut self,
        store: &mut Store,
        layout: &Layout<'_>,
        target: Target,
        path: &Path,
        report: &mut Report,
        now: &str,
        mut session: Option<(&str, &str)>,
    ) -> Result<()> {
        let key = path.display().to_string();
        let mut shape: Option<String> = None;
        for attempt in 0..MAX_REPLANS {
            if attempt > 0 {
                // Someone is saving: give their burst a moment to end.
                std::thread::sleep(std::time::Duration::from_millis(5 * u64::from(attempt)));
            }
            let disk = read_back(target, self.read(path, layout.confined_to(target))?)?;
            if self.dry_run {
                self.originals
                    .entry(path.to_path_buf())
                    .or_insert_with(|| disk.owned.clone());
            }
            let (written, pending) = store.ledger.rendered(&key)?;
            let recorded = Recorded { written, pending };
            self.read_edits(store, layout, target, path, &disk, &recorded, report, now)?;
            if let Some((base, edited)) = session.take() {
                let edits = edits::diff(Some(edited), Some(base), None);
                let (scope, vault) = layout.scope(target);
                let counts = store.apply_edits(
                    scope,
                    vault,
                    &edits,
                    default_category(layout, target),
                    now,
                )?;
                report.edits.add(counts);
                shape = Some(edited.to_owned());
            }
            let (scope, vault) = layout.scope(target);
            let facts = self.renderable(store, scope, vault)?;
            let mut plan = plan(target, &disk, shape.as_deref(), &recorded, &facts, layout)?;
            if !layout.keeps_backups(target) {
                plan.backup = None;
            }
            if let Target::Memory = target {
                report.memory.bytes = if plan.write.is_some() || disk.bytes.is_some() {
                    plan.text.len()
                } else {
                    0
                };
                // The render fits the cap unless the user's own text alone does not: then
                // every fact is left out, which the run must say, not only count.
                if plan.text.len() > layout.memory_max && !facts.is_empty() {
                    report.notice(format!(
                        "{}: the text you wrote in it (not its bullets) is over [memory] max_bytes ({} bytes) by itself, so it shows no fact: they wait in the ledger until you shorten that text or raise max_bytes",
                        path.display(),
                        layout.memory_max
                    ));
                }
            }
            let within = layout.confined_to(target);
            if self.apply(store, path, within, &key, &disk, plan, report)? {
                return Ok(());
            }
            tracing::info!(path = %path.display(), "changed while memloop was writing it: read again");
        }
        Err(Busy(path.display().to_string()).into())
    }

    /// The renderable facts a target shows: its scope's, and for a vault its own.
    fn renderable(
        &mut self,
        store: &Store,
        scope: Scope,
        vault: Option<&str>,
    ) -> Result<Vec<Fact>> {
        let shown =
            |f: &Fact| f.scope == scope && (scope == Scope::Global || f.vault.as_deref() == vault);
        let at = store.ledger.changes();
        if let Some((when, all)) = &self.renderable
            && *when == at
        {
            return Ok(all.iter().filter(|f| shown(f)).cloned().collect());
        }
        if self.syncing_all && scope == Scope::Global {
            // memory.md comes first in a sync of every file: read them all once for the
            // vaults after it.
            let all = store.ledger.renderable_facts()?;
            let facts = all.iter().filter(|f| shown(f)).cloned().collect();
            self.renderable = Some((at, all));
            return Ok(facts);
        }
        let filed_under = if scope == Scope::Global { None } else { vault };
        Ok(store
            .ledger
            .renderable_facts_in(filed_under)?
            .into_iter()
            .filter(shown)
            .collect())
    }

    /// Records what changed in the file since memloop wrote it. A file memloop never wrote
    /// is taken over (its bullets become the user's facts, its other text stays). A rewrite
    /// that makes many bullets vanish at once, or drops memloop's header, is another
    /// program's, not the user's deletion spree: nothing is forgotten, and it is reported
    /// (here and in `doctor`).
    #[allow(clippy::too_many_arguments)]
    fn read_edits(
        &mut self,
        store: &mut Store,
        layout: &Layout<'_>,
        target: Target,
        path: &Path,
        disk: &OnDisk,
        recorded: &Recorded,
        report: &mut Report,
        now: &str,
    ) -> Result<()> {
        let earlier = store.ledger.earlier(&path.display().to_string())?;
        let (mut edits, kept) = edits::diff_since_loaded(
            disk.owned.as_deref(),
            recorded.written.as_deref(),
            recorded.pending.as_deref(),
            &earlier,
        );
        let shown = path.display();
        if kept > 0 {
            report.notices.push(format!(
                "{shown} was saved from a copy older than memloop's last write (an editor open across a run?): the {kept} bullets memloop added since were kept, not forgotten; if you meant to delete them, use `memloop memory forget`"
            ));
        }
        if edits.is_empty() {
            return Ok(());
        }
        if let Some(why) = foreign_rewrite(target, disk, recorded, &edits) {
            let detail = format!(
                "{why}; memloop forgot none of them and writes them back. If you deleted them yourself, use `memloop memory edit` or `memloop memory forget`"
            );
            report.notices.push(format!("{shown}: {detail}"));
            if !self.dry_run {
                store
                    .ledger
                    .add_notice(now, &shown.to_string(), "rewritten", &detail)?;
            }
            edits.removed.clear();
        } else if recorded.written.is_none() && recorded.pending.is_none() {
            let blocks = disk
                .owned
                .as_deref()
                .map(|t| {
                    render::doc::parse(t, &render::is_header_line)
                        .blocks()
                        .count()
                })
                .unwrap_or_default();
            let saved = if layout.keeps_backups(target) {
                " (the file as it was is saved beside it as .before-memloop)"
            } else {
                ""
            };
            report.notices.push(format!(
                "took over {shown}: {} bullets adopted as your facts, {blocks} blocks of your own text kept where they are{saved}",
                edits.added.len()
            ));
        }
        let (scope, vault) = layout.scope(target);
        let counts =
            store.apply_edits(scope, vault, &edits, default_category(layout, target), now)?;
        report.edits.add(counts);
        Ok(())
    }

    /// Applies a plan. `false`: the file changed since it was read; nothing was written.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        store: &mut Store,
        path: &Path,
        within: Option<&Path>,
        key: &str,
        disk: &OnDisk,
        plan: Plan,
        report: &mut Report,
    ) -> Result<bool> {
        self.cap_binds |= !plan.archive.is_empty();
        store.ledger.transaction(|l| {
            for &id in &plan.archive {
                l.set_status(id, Status::Archived, Some(ArchiveReason::Cap))?;
            }
            for &id in &plan.restore {
                l.set_status(id, Status::Active, None)?;
            }
            Ok(())
        })?;
        report.facts.archived += plan.archive.len();
        let Some(bytes) = plan.write else {
            if plan.record {
                self.record_written(store, key, &plan.text)?;
            }
            return Ok(true);
        };
        if self.dry_run {
            self.overlay.insert(path.to_path_buf(), bytes);
            self.record_written(store, key, &plan.text)?;
            return Ok(true);
        }
        if let Some(kind) = plan.backup {
            backup::keep(path, kind)?;
        }
        // Recorded before the write, cleared after it: see `edits::diff`.
        store.ledger.set_pending(key, &plan.text)?;
        let expected = disk.bytes.as_deref();
        let replaced = match within {
            Some(root) => fsutil::replace_within(root, path, &bytes, expected),
            None => fsutil::replace_if_unchanged(path, &bytes, expected),
        }
        .with_context(|| format!("could not write {}", path.display()))?;
        if replaced == Replaced::Changed {
            return Ok(false);
        }
        self.record_written(store, key, &plan.text)?;
        Ok(true)
    }

    /// Records what `key` now holds; the first write of this command also keeps what it
    /// held before (see `Ledger::set_written`).
    fn record_written(&mut self, store: &Store, key: &str, text: &str) -> Result<()> {
        let first = self.written.insert(key.to_owned());
        store.ledger.set_written(key, text, first)
    }

    /// Files left unwritten this command because someone kept saving them.
    #[must_use]
    pub fn busy(&self) -> &[PathBuf] {
        &self.busy
    }

    /// A target's bytes (`None`: no file yet). Within `within`, when given, or refused.
    fn read(&self, path: &Path, within: Option<&Path>) -> Result<Option<Vec<u8>>> {
        if let Some(bytes) = self.overlay.get(path) {
            return Ok(Some(bytes.clone()));
        }
        if !self.dry_run {
            // A hard-linked file whose in-place write a crash cut short is finished first.
            fsutil::finish_in_place(path)
                .with_context(|| format!("could not finish writing {}", path.display()))?;
        }
        let read = match within {
            Some(root) => fsutil::read_within(root, path),
            None => fsutil::read_regular_file(path),
        };
        match read {
            Ok(b) => Ok(Some(b)),
            Err(Confined::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(Confined::Refused(refusal)) => {
                let wait = if within.is_some() {
                    "; its insights wait in the ledger until it is a regular file inside the vault"
                } else {
                    ""
                };
                Err(Unusable(format!("not read or written: {refusal}{wait}")).into())
            }
            Err(Confined::Io(e)) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                Err(Unusable(format!("could not read {}: {e}", path.display())).into())
            }
            Err(Confined::Io(e)) => {
                Err(e).with_context(|| format!("could not read {}", path.display()))
            }
        }
    }

    /// In a dry run, the bullets each file would gain and lose.
    #[must_use]
    pub fn changes(&self) -> Vec<Change> {
        let mut changes: Vec<Change> = self
            .overlay
            .iter()
            .map(|(path, bytes)| {
                let after = match fence::inner(bytes) {
                    Ok(Some(inner))
                        if path.file_name() == Some(crate::vault::MARKER_FILE.as_ref()) =>
                    {
                        inner
                    }
                    _ => String::from_utf8_lossy(bytes).into_owned(),
                };
                let before = self
                    .originals
                    .get(path)
                    .cloned()
                    .flatten()
                    .unwrap_or_default();
                bullet_change(path, &before, &after)
            })
            .filter(|c| !c.added.is_empty() || !c.removed.is_empty())
            .collect();
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        changes
    }
}

/// How many vanished bullets (and at least what share of them) read as another program's
/// rewrite rather than the user's deletions.
const FOREIGN_MIN_REMOVED: usize = 5;

/// Why an edit looks like another program rewrote the file, if it does.
fn foreign_rewrite(
    target: Target,
    disk: &OnDisk,
    recorded: &Recorded,
    edits: &edits::Edits,
) -> Option<String> {
    let written = recorded.written.as_deref()?;
    let current = disk.owned.as_deref()?;
    if edits.removed.is_empty() {
        return None;
    }
    let before = render::parse_bullets(written).len();
    let removed = edits.removed.len();
    if removed >= FOREIGN_MIN_REMOVED && removed * 2 >= before {
        return Some(format!(
            "{removed} of its {before} bullets vanished at once, as when another program rewrites it"
        ));
    }
    let header = |t: &str| t.lines().any(|l| l.starts_with("<!-- Managed by memloop"));
    // One bullet gone with the header is still a person editing by hand.
    if target == Target::Memory && removed >= 2 && header(written) && !header(current) {
        return Some(format!(
            "it was rewritten without memloop's header and {removed} bullets vanished, as when another program rewrites it"
        ));
    }
    None
}

fn default_category<'a>(layout: &'a Layout<'_>, target: Target) -> &'a str {
    match target {
        Target::Memory => layout.categories.first().map_or("", String::as_str),
        Target::Vault(_) => "Project Context",
    }
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

fn bullet_change(path: &Path, before: &str, after: &str) -> Change {
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
mod tests;
