//! `memloop ledger rebuild`: a new ledger from what a damaged (or emptied) one still holds
//! and from the files memloop wrote, so that nothing the files still show is lost and
//! nothing the user deleted comes back.
//!
//! In order, under the run lock: read what the damaged file still holds (`ledger::salvage`,
//! from a scratch copy); read memory.md and each vault's fence back, their bullets facts
//! again ([`plan`], pure, applied by `Store::apply_rebuild`); take the transcripts present
//! now as processed at their current checksums, unless the salvaged ledger says otherwise;
//! then put the new ledger in place, the damaged file kept beside it under a new name.
//! Until that last rename nothing on disk changes: a rebuild that fails leaves everything
//! as it was. It writes no memory file: the next run renders them from the new ledger.
//!
//! It also owns the question every command asks first: is an empty ledger a first run, or
//! one that lost its state while memloop's files remain ([`check_not_emptied`])?

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::config::Resolved;
use crate::error;
use crate::fact::{ArchiveReason, Fact, Scope, Status, normalize};
use crate::fence;
use crate::fsutil::{self, Confined};
use crate::ledger::{Damage, Ledger, LedgerDamaged, Salvaged, TranscriptRow};
use crate::merge::FactIndex;
use crate::prompt::Prompt;
use crate::render::{self, Bullet};
use crate::report::{Failure, RebuildCounts};
use crate::scan;
use crate::store::{REBUILT, Store};
use crate::vault::{self, Vault};
use crate::write::{self, Layout, Target};

/// What a rebuild did, for the user and `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Rebuilt {
    /// The ledger, rebuilt in place.
    pub ledger: String,
    /// What was wrong with it.
    pub damage: String,
    /// Where the damaged file now is (none when there was no file).
    pub damaged_copy: Option<String>,
    pub salvaged: Salvaged,
    pub files: Vec<FileRebuilt>,
    pub transcripts: Transcripts,
    pub facts: Facts,
    /// Files and transcripts that could not be read: `path: reason`.
    pub failures: Vec<Failure>,
}

/// One file read back.
#[derive(Debug, Clone, Serialize)]
pub struct FileRebuilt {
    pub path: String,
    /// Bullets in the file.
    pub bullets: usize,
    #[serde(flatten)]
    pub counts: RebuildCounts,
    /// Why nothing was read from it, or why nothing in it was taken as deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What became of the transcripts present now.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Transcripts {
    pub found: usize,
    /// Taken as processed at their current checksums: not extracted again.
    pub marked: usize,
    /// Known to the salvaged ledger with these bytes.
    pub known: usize,
    /// Left for the next `extract`: changed since the salvaged ledger saw them, or new to
    /// a salvaged ledger that is whole.
    pub waiting: usize,
    pub failed: usize,
}

/// The facts of the new ledger, by status.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Facts {
    pub active: usize,
    pub archived: usize,
    pub forgotten: usize,
    pub pending: usize,
}

/// Rebuilds the ledger of `cfg`, reading `vaults` (and any vault the salvaged ledger says
/// memloop wrote into). `None`: the ledger is sound and was left alone.
///
/// # Errors
///
/// The lock is held (exit 75), the prompt cannot be used, or the state directory cannot be
/// written; then nothing changed.
pub fn rebuild(
    cfg: &Resolved,
    vaults: Vec<Vault>,
    now: chrono::DateTime<chrono::Local>,
) -> Result<Option<Rebuilt>> {
    let state = &cfg.paths.state_dir;
    std::fs::create_dir_all(state)
        .with_context(|| format!("could not create state directory {}", state.display()))?;
    let _lock = fsutil::try_lock(state)
        .with_context(|| format!("could not take the run lock in {}", state.display()))?
        .ok_or_else(|| error::locked(&state.join(fsutil::LOCK_FILE)))?;
    let prompt = Prompt::load(&cfg.paths.prompt_file)?;
    let path = cfg.paths.ledger();
    let Some(damage) = assess(&path, &cfg.memory_file, &vaults)? else {
        return Ok(None);
    };
    let fresh = beside(&path, ".rebuilding");
    remove_database(&fresh)?;
    let mut ledger = Ledger::open(&fresh)?;
    let salvaged = salvage_file(&path, &mut ledger, state)?;
    let mut store = Store::new(ledger)?;
    let vaults = with_written_vaults(vaults, &store.ledger)?;
    let stamp = now.to_rfc3339();
    let layout = Layout {
        memory_file: &cfg.memory_file,
        vaults: &vaults,
        categories: &prompt.categories,
        memory_max: cfg.config.memory.max_bytes,
        insights_max: cfg.config.insights.max_bytes,
        insights_enabled: cfg.config.insights.enabled,
    };
    let mut files = Vec::new();
    let mut failures = Vec::new();
    for target in layout.targets() {
        match read_back(&mut store, &layout, target, &stamp) {
            Ok(file) => files.push(file),
            Err(e) => failures.push(Failure {
                path: layout.path(target).display().to_string(),
                error: format!("{e:#}; its bullets were not read"),
            }),
        }
    }
    // An emptied ledger's transcript table is empty, not whole.
    let trusted = matches!(damage, Damage::Unreadable(_))
        && salvaged.complete("transcripts")
        && salvaged.rows("transcripts") > 0;
    let transcripts = take_transcripts(&mut store.ledger, &vaults, trusted, &stamp, &mut failures)?;
    let facts = count_facts(&store.ledger)?;
    let Store { ledger, .. } = store;
    ledger
        .close()
        .with_context(|| format!("could not close the new ledger {}", fresh.display()))?;
    let damaged_copy = swap(&path, &fresh, now)?;
    Ok(Some(Rebuilt {
        ledger: path.display().to_string(),
        damage: match &damage {
            Damage::Unreadable(why) => why.clone(),
            Damage::Emptied { evidence } => format!(
                "it was empty, but {} shows memloop wrote before",
                evidence.display()
            ),
        },
        damaged_copy: damaged_copy.map(|p| p.display().to_string()),
        salvaged,
        files,
        transcripts,
        facts,
        failures,
    }))
}

/// What is wrong with the ledger at `path`, if anything.
fn assess(path: &Path, memory_file: &Path, vaults: &[Vault]) -> Result<Option<Damage>> {
    let ledger = match Ledger::scratch_copy(path) {
        Ok(l) => l,
        Err(e) => {
            return match e.downcast_ref::<LedgerDamaged>() {
                Some(d) => Ok(Some(d.damage.clone())),
                None => Err(e),
            };
        }
    };
    match check_not_emptied(&ledger, path, memory_file, vaults) {
        Ok(()) => Ok(None),
        Err(e) => match e.downcast_ref::<LedgerDamaged>() {
            Some(d) => Ok(Some(d.damage.clone())),
            None => Err(e),
        },
    }
}

/// An error when `ledger` knows nothing while a file shows memloop wrote before: a first
/// run from it would extract every transcript again and bring back what the user deleted.
/// A genuine first run (no file memloop wrote) passes.
///
/// # Errors
///
/// [`LedgerDamaged`] with [`Damage::Emptied`], or the ledger failing to answer.
pub fn check_not_emptied(
    ledger: &Ledger,
    path: &Path,
    memory_file: &Path,
    vaults: &[Vault],
) -> Result<()> {
    if !ledger.is_blank()? {
        return Ok(());
    }
    match written_before(memory_file, vaults) {
        Some(evidence) => Err(LedgerDamaged {
            path: path.to_path_buf(),
            damage: Damage::Emptied { evidence },
        }
        .into()),
        None => Ok(()),
    }
}

/// [`check_not_emptied`] before the ledger file is opened, for one that is missing or
/// 0 bytes: SQLite would create a new ledger there, and the error then leaves the state
/// directory as it was.
///
/// # Errors
///
/// [`LedgerDamaged`] with [`Damage::Emptied`].
pub fn check_file_not_emptied(path: &Path, memory_file: &Path, vaults: &[Vault]) -> Result<()> {
    let fresh = match std::fs::metadata(path) {
        Ok(m) => m.len() == 0,
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    };
    match written_before(memory_file, vaults).filter(|_| fresh) {
        Some(evidence) => Err(LedgerDamaged {
            path: path.to_path_buf(),
            damage: Damage::Emptied { evidence },
        }
        .into()),
        None => Ok(()),
    }
}

/// The first file that shows memloop wrote it: memory.md with memloop's managed header, or
/// a vault's fence with memloop's visible line (Memory Loop's own fences lack it: taking
/// one over is a first run).
#[must_use]
pub fn written_before(memory_file: &Path, vaults: &[Vault]) -> Option<PathBuf> {
    let memory = fsutil::read_regular_file(memory_file).ok();
    if memory.is_some_and(|b| memloops(Target::Memory, &String::from_utf8_lossy(&b))) {
        return Some(memory_file.to_path_buf());
    }
    vaults.iter().map(Vault::claude_md).find(|path| {
        let root = path.parent().unwrap_or(path);
        fsutil::read_within(root, path)
            .ok()
            .and_then(|b| fence::inner(&b).ok().flatten())
            .is_some_and(|inner| memloops(Target::Vault(0), &inner))
    })
}

/// Whether the text memloop owns in a target carries memloop's own header line.
fn memloops(target: Target, owned: &str) -> bool {
    owned.lines().any(|line| match target {
        Target::Memory => {
            line.starts_with("<!-- Managed by memloop") && render::is_header_line(line)
        }
        Target::Vault(_) => line.trim_end() == render::INSIGHTS_LINE,
    })
}

/// One step of reading a file back into a rebuilt ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A known fact whose bullet is in the file: shown, in the file's words and place.
    Keep {
        id: i64,
        /// The file's wording, when the user reworded it.
        text: Option<String>,
        /// The file's heading, when the bullet moved under another one.
        category: Option<String>,
        /// It was not active (forgotten, archived, waiting): the file shows it.
        activate: bool,
    },
    /// A bullet no fact knows any more: a fact again, and the user's (memloop renders
    /// the user's facts as it does its own, so who wrote it cannot be told; the user's
    /// words must never be taken for a model's to reword).
    Adopt {
        text: String,
        category: Option<String>,
    },
    /// A known fact memloop showed that the file no longer has: the user deleted it.
    Forget(i64),
    /// A bullet memloop wrote, gone from the file, that no fact knows any more: kept as a
    /// forgotten fact so that no transcript brings it back.
    Tombstone {
        text: String,
        category: Option<String>,
    },
}

/// What a file's bullets make of the facts of its scope. Pure.
///
/// `facts` are the salvaged facts of this scope (and vault); `recorded` the bullets of what
/// memloop last recorded writing there, when the salvage kept it. `foreign`: the file is
/// not memloop's output (another program rewrote it, or Memory Loop's fence): its bullets
/// are taken, and nothing missing from it counts as deleted.
#[must_use]
pub fn plan(
    index: &FactIndex,
    facts: &[Fact],
    file: &[Bullet],
    recorded: Option<&[Bullet]>,
    (scope, vault): (Scope, Option<&str>),
    foreign: bool,
) -> Vec<Step> {
    let by_id: HashMap<i64, &Fact> = facts.iter().map(|f| (f.id, f)).collect();
    let keys = |bullets: &[Bullet]| -> HashSet<String> {
        bullets.iter().map(|b| normalize(&b.text)).collect()
    };
    // A bullet shows a fact by its text, or by its words without the month memloop put
    // after it; a bullet that shows none is taken in its words, the month left out only
    // where memloop wrote it.
    let words = |text: &str| -> (Option<&Fact>, String) {
        let found = |t: &str| {
            index
                .find(t, scope, vault)
                .and_then(|id| by_id.get(&id).copied())
        };
        match found(text) {
            Some(f) => (Some(f), text.to_owned()),
            None => {
                let bare = render::without_as_of(text);
                (found(bare), bare.to_owned())
            }
        }
    };
    let file_keys: HashSet<String> = keys(file)
        .into_iter()
        .chain(
            file.iter()
                .map(|b| normalize(render::without_as_of(&b.text))),
        )
        .collect();
    let mut steps = Vec::new();
    let mut shown: HashSet<i64> = HashSet::new();
    let mut adopted: HashSet<String> = HashSet::new();
    for b in file {
        let (known, text) = match words(&b.text) {
            (Some(f), text) => (Some(f), text),
            // Memloop's month when memloop wrote the bullet so (or no record says otherwise).
            (None, bare)
                if !foreign && recorded.is_none_or(|r| r.iter().any(|r| r.text == b.text)) =>
            {
                (None, bare)
            }
            (None, _) => (None, b.text.clone()),
        };
        let key = normalize(&text);
        if key.is_empty() {
            continue;
        }
        match known {
            Some(f) if shown.insert(f.id) => steps.push(Step::Keep {
                id: f.id,
                text: (normalize(&f.text) != key).then(|| text.clone()),
                category: b
                    .category
                    .clone()
                    .filter(|c| scope == Scope::Global && *c != f.category),
                activate: f.status != Status::Active,
            }),
            // The same words twice in the file: one fact.
            Some(f) if normalize(&f.text) == key => {}
            // A close fact already shown beside it: the user wrote both.
            _ if adopted.insert(key.clone()) => steps.push(Step::Adopt {
                text: text.clone(),
                category: b.category.clone(),
            }),
            _ => {}
        }
    }
    if foreign {
        return steps;
    }
    let recorded_ids: HashSet<i64> = recorded
        .unwrap_or_default()
        .iter()
        .filter_map(|b| words(&b.text).0.map(|f| f.id))
        .collect();
    for f in facts.iter().filter(|f| !shown.contains(&f.id)) {
        // Without a record, an active fact missing from the file was shown and deleted;
        // a capped one was never shown.
        let was_shown = recorded.map(|_| recorded_ids.contains(&f.id));
        let deleted = match (f.status, f.archived_reason) {
            (Status::Active, _) => was_shown.unwrap_or(true),
            (Status::Archived, Some(ArchiveReason::Cap)) => was_shown.unwrap_or(false),
            _ => false,
        };
        if deleted {
            steps.push(Step::Forget(f.id));
        }
    }
    let mut buried: HashSet<String> = HashSet::new();
    for r in recorded.unwrap_or_default() {
        // What memloop wrote: the month after a bullet is its own.
        let text = render::without_as_of(&r.text);
        let key = normalize(text);
        if !key.is_empty()
            && !file_keys.contains(&key)
            && index.find(text, scope, vault).is_none()
            && buried.insert(key)
        {
            steps.push(Step::Tombstone {
                text: text.to_owned(),
                category: r.category.clone(),
            });
        }
    }
    steps
}

/// Reads one target back into the store (see [`plan`]) and records its text as what
/// memloop last wrote, so the next run reads no edit into it.
fn read_back(
    store: &mut Store,
    layout: &Layout<'_>,
    target: Target,
    now: &str,
) -> Result<FileRebuilt> {
    let path = layout.path(target);
    let mut file = FileRebuilt {
        path: path.display().to_string(),
        bullets: 0,
        counts: RebuildCounts::default(),
        note: None,
    };
    let read = match layout.confined_to(target) {
        Some(root) => fsutil::read_within(root, &path),
        None => fsutil::read_regular_file(&path),
    };
    let bytes = match read {
        Ok(b) => b,
        Err(Confined::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            file.note = Some("no such file: nothing read, nothing taken as deleted".into());
            return Ok(file);
        }
        Err(Confined::Refused(refusal)) => anyhow::bail!("not read: {refusal}"),
        Err(Confined::Io(e)) => return Err(e).context("could not read it"),
    };
    let Some(owned) = write::read_back(target, Some(bytes))?.owned else {
        file.note = Some("no insights fence: nothing read, nothing taken as deleted".into());
        return Ok(file);
    };
    let bullets = render::parse_bullets(&owned);
    file.bullets = bullets.len();
    let key = path.display().to_string();
    let (written, pending) = store.ledger.rendered(&key)?;
    let recorded: Option<Vec<Bullet>> = (written.is_some() || pending.is_some()).then(|| {
        [written, pending]
            .iter()
            .flatten()
            .flat_map(|t| render::parse_bullets(t))
            .collect()
    });
    let foreign = !memloops(target, &owned);
    if foreign {
        file.note = Some(
            "not memloop's output (no memloop header): its bullets were taken, and nothing missing from it counts as deleted"
                .into(),
        );
    }
    let (scope, vault) = layout.scope(target);
    let facts: Vec<Fact> = store
        .facts(&Status::ALL)?
        .into_iter()
        .filter(|f| f.scope == scope && (scope == Scope::Global || f.vault.as_deref() == vault))
        .collect();
    let steps = plan(
        store.index()?,
        &facts,
        &bullets,
        recorded.as_deref(),
        (scope, vault),
        foreign,
    );
    let default = match target {
        Target::Memory => layout.categories.first().map_or("", String::as_str),
        Target::Vault(_) => "Project Context",
    };
    file.counts = store.apply_rebuild(&steps, (scope, vault), default, now)?;
    store.ledger.set_written(&key, &owned, true)?;
    Ok(file)
}

/// The vaults to read: those given, and those the salvaged ledger says memloop wrote into
/// (named once with `extract --vault`, say).
fn with_written_vaults(mut vaults: Vec<Vault>, ledger: &Ledger) -> Result<Vec<Vault>> {
    for written in ledger.rendered_all()? {
        let path = PathBuf::from(written.target);
        if path.file_name() != Some(vault::MARKER_FILE.as_ref())
            || vaults.iter().any(|v| v.claude_md() == path)
        {
            continue;
        }
        if let Some(Ok(v)) = path.parent().map(vault::open)
            && !vaults.iter().any(|o| o.name == v.name)
        {
            vaults.push(v);
        }
    }
    Ok(vaults)
}

/// Takes the transcripts present now as processed at their current checksums, so that a
/// fact the user deleted, which the files no longer show, is not extracted again. A
/// transcript the salvaged ledger knows keeps its row (changed since: it waits for
/// `extract`); with a salvaged transcript table that is `trusted` whole, one it does not
/// know is new and waits too.
fn take_transcripts(
    ledger: &mut Ledger,
    vaults: &[Vault],
    trusted: bool,
    now: &str,
    failures: &mut Vec<Failure>,
) -> Result<Transcripts> {
    let at: SystemTime = chrono::DateTime::parse_from_rfc3339(now)
        .map(SystemTime::from)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let rules = scan::Rules {
        settle: Duration::ZERO,
        force: true,
        now: at,
        prompt_hash: None,
        answer: None,
    };
    let found = scan::scan(vaults, ledger, &rules)?;
    let mut out = Transcripts::default();
    for p in found.problems {
        out.failed += usize::from(p.transcript);
        failures.push(Failure {
            path: p.path.display().to_string(),
            error: p.error,
        });
    }
    ledger.transaction(|l| {
        for c in &found.changed {
            out.found += 1;
            let key = c.path.display().to_string();
            match l.transcript(&key)? {
                Some(row) if row.sha256 == c.sha256 => out.known += 1,
                Some(_) => out.waiting += 1,
                None if trusted => out.waiting += 1,
                None => {
                    let vault = vaults.get(c.vault);
                    l.mark_transcript(&TranscriptRow {
                        path: key,
                        vault: vault.map(|v| v.name.clone()).unwrap_or_default(),
                        size: c.size,
                        mtime_ns: c.mtime_ns,
                        sha256: c.sha256.clone(),
                        prompt_hash: String::new(),
                        model: REBUILT.into(),
                        processed_at: now.to_owned(),
                        fact_count: 0,
                        // A session is read up to its last whole record: the next run
                        // starts there.
                        consumed: vault
                            .filter(|v| v.is_project())
                            .map(|_| i64::try_from(c.end).unwrap_or(i64::MAX)),
                        read: None,
                    })?;
                    out.marked += 1;
                }
            }
        }
        Ok(())
    })?;
    Ok(out)
}

fn count_facts(ledger: &Ledger) -> Result<Facts> {
    let mut out = Facts::default();
    for f in ledger.facts(&Status::ALL)? {
        match f.status {
            Status::Active => out.active += 1,
            Status::Archived => out.archived += 1,
            Status::Forgotten => out.forgotten += 1,
            Status::Pending => out.pending += 1,
        }
    }
    Ok(out)
}

/// Reads what the damaged file (with its write-ahead log, which holds committed data) still
/// holds, through a scratch copy: the damaged file itself is never opened for writing.
fn salvage_file(path: &Path, ledger: &mut Ledger, state: &Path) -> Result<Salvaged> {
    if std::fs::metadata(path).map_or(true, |m| m.len() == 0) {
        return Ok(Salvaged::default());
    }
    let scratch = state.join("ledger.salvage");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)
        .with_context(|| format!("could not create {}", scratch.display()))?;
    let copy = scratch.join("ledger.sqlite3");
    let copied = std::fs::copy(path, &copy).map(|_| ()).and_then(|()| {
        let wal = beside(path, "-wal");
        if wal.exists() {
            std::fs::copy(&wal, beside(&copy, "-wal"))?;
        }
        Ok(())
    });
    copied.with_context(|| format!("could not copy {} to read it", path.display()))?;
    let salvaged = match rusqlite::Connection::open(&copy) {
        Ok(src) => ledger.salvage(&src),
        Err(e) => Ok(Salvaged::unreadable(&e.to_string())),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    salvaged
}

/// Puts the new ledger at `path`. The damaged file is first linked (or copied) to
/// `<ledger>.damaged-<time>`, its write-ahead log beside it, so that the one rename that
/// replaces it never leaves the state directory without a ledger. Returns where the
/// damaged file is.
fn swap(
    path: &Path,
    fresh: &Path,
    now: chrono::DateTime<chrono::Local>,
) -> Result<Option<PathBuf>> {
    let stamp = now.format("%Y%m%d-%H%M%S").to_string();
    let mut aside = beside(path, &format!(".damaged-{stamp}"));
    let mut n = 1;
    while aside.exists() {
        n += 1;
        aside = beside(path, &format!(".damaged-{stamp}-{n}"));
    }
    let kept = if path.exists() {
        std::fs::hard_link(path, &aside)
            .or_else(|_| std::fs::copy(path, &aside).map(|_| ()))
            .with_context(|| format!("could not keep {} as {}", path.display(), aside.display()))?;
        Some(aside.clone())
    } else {
        None
    };
    // The old log and index belong to the damaged file: beside the new one, SQLite would
    // replay them into it.
    for suffix in ["-wal", "-shm"] {
        let side = beside(path, suffix);
        if side.exists() {
            let to = beside(&aside, suffix);
            std::fs::rename(&side, &to).with_context(|| {
                format!("could not move {} to {}", side.display(), to.display())
            })?;
        }
    }
    std::fs::rename(fresh, path)
        .with_context(|| format!("could not put the new ledger {} in place", fresh.display()))?;
    if let Some(dir) = path.parent() {
        fsutil::sync_dir(dir).with_context(|| format!("could not sync {}", dir.display()))?;
    }
    Ok(kept)
}

/// Removes a leftover database (a rebuild that stopped half way) with its log and index.
fn remove_database(path: &Path) -> Result<()> {
    for p in [
        path.to_path_buf(),
        beside(path, "-wal"),
        beside(path, "-shm"),
    ] {
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("could not remove {}", p.display()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `path` with `suffix` added to its file name.
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

#[cfg(test)]
mod tests;
