//! Which transcripts a run would send: the vaults' transcripts compared with the ledger by
//! size and mtime, then by SHA-256, with those modified within the settle time left for a
//! later run. `extract` scans before it extracts; `status` scans to say what is waiting.
//!
//! It reads transcripts and the ledger and writes neither, and it reads only inside the
//! vaults: a transcript or directory that leads out of its vault, or a special file, is a
//! [`Problem`] and is never opened (`vault::chats`, `fsutil::read_within`). What the ledger should learn
//! on the way (a transcript touched but unchanged, the same bytes under a new name) comes
//! back as [`Update`]s for the caller to apply, so `status` can scan a read-only copy. It
//! calls no LLM and parses nothing beyond checking that a file can be decoded.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Result;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::fsutil::{self, Confined};
use crate::ledger::{KnownStamp, Ledger, TranscriptRow};
use crate::transcript;
use crate::vault::{self, Stamp, Vault};

/// How to judge the transcripts found.
#[derive(Debug, Clone, Copy)]
pub struct Rules<'a> {
    /// Files modified less than this long ago may still be written to: they wait.
    pub settle: Duration,
    /// Every transcript is sent again, settled or not, known or not.
    pub force: bool,
    /// The clock the settle time is measured against.
    pub now: SystemTime,
    /// The prompt in use, to count unchanged transcripts processed with another one.
    pub prompt_hash: Option<&'a str>,
    /// The prompt and model in use (`answer_key`): an answer that could not be read is
    /// asked for again once either changes.
    pub answer: Option<&'a str>,
}

/// What a failed input was when it failed: its size, mtime and permissions. A file
/// changed since (written, replaced, touched, made readable) is tried again.
#[must_use]
pub fn fingerprint(meta: &std::fs::Metadata) -> String {
    stamp_fingerprint(Stamp::of(meta))
}

/// [`fingerprint`] of a file as it was listed.
fn stamp_fingerprint(stamp: Stamp) -> String {
    let (size, mtime_ns) = stamp_numbers(stamp);
    format!("{size}:{mtime_ns}:{:o}", stamp.mode)
}

/// The fingerprint of a path as it is now (not followed if a link), or `None` when even
/// that cannot be read.
#[must_use]
pub fn fingerprint_of(path: &std::path::Path) -> Option<String> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| fingerprint(&m))
}

/// The fingerprint of a vault that could not be used: its directory, its
/// `.memory-loop.json` and its `CLAUDE.md`, so mending any of them tries it again.
#[must_use]
pub fn vault_fingerprint(root: &std::path::Path) -> Option<String> {
    let dir = fingerprint_of(root)?;
    let part = |name: &str| fingerprint_of(&root.join(name)).unwrap_or_else(|| "-".into());
    Some(format!(
        "{dir};{};{}",
        part(vault::SETTINGS_FILE),
        part(vault::MARKER_FILE)
    ))
}

/// The fingerprint of an answer that could not be read: the transcript's, with the prompt
/// and model that were asked.
#[must_use]
pub fn answer_fingerprint(transcript: &str, answer: &str) -> String {
    format!("{transcript}|{answer}")
}

/// How many runs in a row the answers to the same bytes, prompt and model may fail to be
/// read before the transcript waits for one of them to change: a model's bad night is
/// asked again, a transcript that makes every answer unreadable is not paid for nightly.
pub const ANSWER_ATTEMPTS: u32 = 3;

/// The fingerprint an unreadable answer is kept under after `attempt` runs in a row: below
/// [`ANSWER_ATTEMPTS`] it only counts them (the next run asks again), from then on it is
/// [`answer_fingerprint`], which the next runs skip.
#[must_use]
pub fn answer_attempt_fingerprint(transcript: &str, answer: &str, attempt: u32) -> String {
    if attempt >= ANSWER_ATTEMPTS {
        answer_fingerprint(transcript, answer)
    } else {
        format!("{transcript}|{answer}|{attempt}")
    }
}

/// How many runs in a row the answers to `transcript` with `answer` have failed to be
/// read, by the fingerprint kept for it (0 when it is another input's or another answer's).
#[must_use]
pub fn answer_attempts(kept: &str, transcript: &str, answer: &str) -> u32 {
    let counted = format!("{transcript}|{answer}|");
    if kept == answer_fingerprint(transcript, answer) {
        ANSWER_ATTEMPTS
    } else {
        kept.strip_prefix(&counted)
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }
}

/// The prompt and model an answer was asked with, as [`Rules::answer`] takes them.
#[must_use]
pub fn answer_key(prompt_hash: &str, model: &str) -> String {
    format!("{prompt_hash}:{model}")
}

/// A transcript's size and mtime as the ledger keeps them.
fn stat_fields(meta: &std::fs::Metadata) -> (i64, i64) {
    stamp_numbers(Stamp::of(meta))
}

/// A transcript new or changed since the ledger, ready to extract.
///
/// Its bytes are not kept: a first run over thousands of transcripts would hold them all
/// at once. The pipeline reads each again when its turn comes and checks that its size
/// and mtime are still these ([`Changed::is_still`]).
#[derive(Debug, Clone)]
pub struct Changed {
    /// Index of its vault in the scanned slice.
    pub vault: usize,
    pub path: PathBuf,
    pub size: i64,
    pub mtime_ns: i64,
    pub sha256: String,
    /// What it was when it was listed (`fingerprint`), for keeping a failure under.
    pub fingerprint: String,
    /// The ledger has a row for this path (its bytes changed since); `false`: new.
    pub known: bool,
    /// Where extraction starts: 0, or for a Claude Code session appended to since it was
    /// last read, the byte just past what was read then.
    pub from: usize,
    /// Where extraction ends, and what `sha256` covers: the whole file, or for a session
    /// the byte just past its last complete record.
    pub end: usize,
    /// A Memory Loop transcript too long for one run: how far the runs before read it
    /// (`None` with `--force`, which reads from the start).
    pub read: Option<crate::ledger::ReadTo>,
}

/// What one vault's scan found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct VaultCounts {
    /// Transcripts in the vault's chats directory.
    pub found: usize,
    /// Modified within the settle time: the chat may still be going.
    pub settling: usize,
    /// Already processed with these bytes.
    pub unchanged: usize,
    /// Of `unchanged`, processed with a prompt other than the one in use.
    pub older_prompt: usize,
    /// Never processed.
    pub new: usize,
    /// Processed before, changed since.
    pub changed: usize,
    /// Could not be read or decoded.
    pub failed: usize,
    /// Failed in an earlier run and unchanged since: skipped, not failed again.
    pub still_failing: usize,
    /// Blank (Memory Loop leaves such files): recorded as done, nothing to send.
    #[serde(skip_serializing_if = "is_zero")]
    pub empty: usize,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A change the ledger should record, found while scanning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    /// A known transcript with the same bytes and a new size or mtime.
    Touch {
        path: String,
        size: i64,
        mtime_ns: i64,
    },
    /// Already processed bytes under a new path (a renamed file, a moved vault).
    Moved(TranscriptRow),
    /// A blank transcript, done without an LLM: looked at again only once it changes.
    Blank(TranscriptRow),
}

/// Something that went wrong for one path; the scan goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: PathBuf,
    pub error: String,
    /// A transcript that failed (`true`), or a chats directory that could not be listed.
    pub transcript: bool,
    /// What the path was when it failed (`fingerprint`), when that could be read: the
    /// failure is kept in the ledger under it, so an unchanged path is not failed again.
    pub fingerprint: Option<String>,
}

/// The outcome of a scan.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// New or changed transcripts, oldest first (by mtime, then path).
    pub changed: Vec<Changed>,
    /// Counts per vault, in the order of the scanned slice.
    pub vaults: Vec<VaultCounts>,
    /// What the ledger should record, in the order found.
    pub updates: Vec<Update>,
    /// Failures, in the order found.
    pub problems: Vec<Problem>,
    /// Paths that failed in an earlier run and are unchanged since: not read again.
    pub still_failing: Vec<PathBuf>,
}

impl Scan {
    /// The counts of every vault added up.
    #[must_use]
    pub fn total(&self) -> VaultCounts {
        let mut t = VaultCounts::default();
        for v in &self.vaults {
            t.found += v.found;
            t.settling += v.settling;
            t.unchanged += v.unchanged;
            t.older_prompt += v.older_prompt;
            t.new += v.new;
            t.changed += v.changed;
            t.failed += v.failed;
            t.still_failing += v.still_failing;
            t.empty += v.empty;
        }
        t
    }
}

/// Scans the vaults' transcripts against `ledger` (which is only read).
///
/// # Errors
///
/// Only a ledger that cannot be queried; a file or directory that cannot be read is a
/// [`Problem`] and the scan goes on.
pub fn scan(vaults: &[Vault], ledger: &Ledger, rules: &Rules<'_>) -> Result<Scan> {
    let mut out = Scan {
        vaults: vec![VaultCounts::default(); vaults.len()],
        ..Scan::default()
    };
    let failed = Failed::load(ledger, rules)?;
    let dirs: Vec<String> = vaults
        .iter()
        .map(|v| v.chats_dir().display().to_string())
        .collect();
    let known = ledger.transcript_stamps(&dirs, |hash| another_prompt(hash, rules))?;
    let elsewhere = listed_elsewhere(vaults, &dirs);
    for ((vi, v), known) in vaults.iter().enumerate().zip(&known) {
        if elsewhere[vi] {
            continue;
        }
        let chats = match vault::chats(v) {
            Ok(c) => c,
            Err(e) => {
                let (path, error) = match e {
                    vault::VaultError::Refused { path, refusal } => {
                        (path, format!("not read: {refusal}"))
                    }
                    e => (v.chats_dir(), format!("could not list transcripts: {e}")),
                };
                let fingerprint = fingerprint_of(&path);
                if failed.is_known(&path, fingerprint.as_deref()) {
                    out.still_failing.push(path);
                } else {
                    out.problems.push(Problem {
                        path,
                        error,
                        transcript: false,
                        fingerprint,
                    });
                }
                continue;
            }
        };
        for (path, refusal) in chats.refused {
            let counts = &mut out.vaults[vi];
            counts.found += 1;
            let fingerprint = fingerprint_of(&path);
            if failed.is_known(&path, fingerprint.as_deref()) {
                counts.still_failing += 1;
                out.still_failing.push(path);
                continue;
            }
            counts.failed += 1;
            out.problems.push(Problem {
                path,
                error: format!("not read: {refusal}"),
                transcript: true,
                fingerprint,
            });
        }
        for (path, stamp) in chats.transcripts.into_iter().zip(chats.stamps) {
            let counts = &mut out.vaults[vi];
            counts.found += 1;
            match look(vi, v, (&path, stamp), known, ledger, rules, &failed)? {
                Seen::Settling => counts.settling += 1,
                Seen::StillFailing => {
                    counts.still_failing += 1;
                    out.still_failing.push(path);
                }
                Seen::Unchanged { older, update } => {
                    counts.unchanged += 1;
                    counts.older_prompt += usize::from(older);
                    out.updates.extend(update);
                }
                Seen::Changed(c) => {
                    if c.known {
                        counts.changed += 1;
                    } else {
                        counts.new += 1;
                    }
                    out.changed.push(c);
                }
                Seen::Blank(row) => {
                    counts.empty += 1;
                    out.updates.push(Update::Blank(row));
                }
                Seen::Failed { error, fingerprint } => {
                    counts.failed += 1;
                    out.problems.push(Problem {
                        path,
                        error,
                        transcript: true,
                        fingerprint,
                    });
                }
            }
        }
    }
    // The oldest wait longest: they go first, and first within a per-run budget.
    out.changed.sort_by(|a, b| {
        a.mtime_ns
            .cmp(&b.mtime_ns)
            .then_with(|| a.path.cmp(&b.path))
    });
    Ok(out)
}

/// For each vault, whether its transcripts are another vault's: an inbox inside a nested
/// vault (the outer vault's `.memory-loop.json` pointing into the inner one's) makes two
/// vaults list one chats directory. Its transcripts are read once a run, as the innermost
/// vault's (the deepest root; among equals, the first named).
fn listed_elsewhere(vaults: &[Vault], dirs: &[String]) -> Vec<bool> {
    let depth = |vi: usize| vaults[vi].root.components().count();
    let mut owner: HashMap<&str, usize> = HashMap::new();
    for (vi, dir) in dirs.iter().enumerate() {
        let o = owner.entry(dir).or_insert(vi);
        if depth(vi) > depth(*o) {
            *o = vi;
        }
    }
    dirs.iter()
        .enumerate()
        .map(|(vi, dir)| owner[dir.as_str()] != vi)
        .collect()
}

/// The failures the ledger keeps that still count for this run: an input failure always,
/// an answer's only for the prompt and model in use.
struct Failed(std::collections::HashMap<PathBuf, String>);

impl Failed {
    fn load(ledger: &Ledger, rules: &Rules<'_>) -> Result<Self> {
        if rules.force {
            return Ok(Self(std::collections::HashMap::new()));
        }
        let mut known = std::collections::HashMap::new();
        for f in ledger.failed_inputs()? {
            let fingerprint = match f.fingerprint.split_once('|') {
                None => f.fingerprint,
                Some((base, answer)) if rules.answer == Some(answer) => base.to_owned(),
                Some(_) => continue,
            };
            known.insert(PathBuf::from(f.path), fingerprint);
        }
        Ok(Self(known))
    }

    /// [`Failed::is_known`] for a file as it was listed; free when nothing failed.
    fn is_known_stamp(&self, path: &std::path::Path, stamp: Stamp) -> bool {
        !self.0.is_empty() && self.is_known(path, Some(&stamp_fingerprint(stamp)))
    }

    /// Whether `path` failed before and is as it was then.
    fn is_known(&self, path: &std::path::Path, fingerprint: Option<&str>) -> bool {
        fingerprint.is_some_and(|fp| self.0.get(path).is_some_and(|known| known == fp))
    }
}

/// What [`look`] made of one transcript.
enum Seen {
    Settling,
    /// It failed in an earlier run and is unchanged since.
    StillFailing,
    Unchanged {
        /// Processed with a prompt other than the one in use.
        older: bool,
        update: Option<Update>,
    },
    Changed(Changed),
    /// Blank: to be recorded as done, with this row.
    Blank(TranscriptRow),
    Failed {
        error: String,
        fingerprint: Option<String>,
    },
}

/// Judges one listed transcript: `known` holds the ledger's stamps of its directory by
/// file name, so a file that has not changed costs no query and no read.
fn look(
    vi: usize,
    v: &Vault,
    (path, stamp): (&std::path::Path, Option<Stamp>),
    known: &HashMap<String, KnownStamp>,
    ledger: &Ledger,
    rules: &Rules<'_>,
    known_failures: &Failed,
) -> Result<Seen> {
    // Not stat'ed when listed (a link loop, no permission): once more, to say why.
    let stamp = match stamp {
        Some(stamp) => stamp,
        None => match fsutil::stat_within(&v.root, path) {
            Ok(meta) => Stamp::of(&meta),
            Err(e) => {
                let fingerprint = fingerprint_of(path);
                if known_failures.is_known(path, fingerprint.as_deref()) {
                    return Ok(Seen::StillFailing);
                }
                return Ok(Seen::Failed {
                    error: read_error(e),
                    fingerprint,
                });
            }
        },
    };
    let mtime = stamp.modified;
    if !rules.force
        && rules
            .now
            .duration_since(mtime)
            .is_ok_and(|age| age < rules.settle)
    {
        return Ok(Seen::Settling);
    }
    let (size, mtime_ns) = stamp_numbers(stamp);
    if known_failures.is_known_stamp(path, stamp) {
        return Ok(Seen::StillFailing);
    }
    // A name that is not UTF-8 has its row under its lossy spelling: not in `known`.
    let listed = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| known.get(n));
    // A transcript read in part is read on, changed or not.
    if !rules.force
        && let Some(k) = listed
        && k.size == size
        && k.mtime_ns == mtime_ns
        && !k.unread
    {
        return Ok(Seen::Unchanged {
            older: k.other_prompt,
            update: None,
        });
    }
    let key = path.display().to_string();
    let failed = |error: String| Seen::Failed {
        error,
        fingerprint: Some(stamp_fingerprint(stamp)),
    };
    let unchanged = |row: &TranscriptRow, update: Option<Update>| Seen::Unchanged {
        older: processed_with_another_prompt(row, rules),
        update,
    };
    let row = if listed.is_some() || path.to_str().is_none() {
        ledger.transcript(&key)?
    } else {
        None
    };
    let unread = |r: &TranscriptRow| r.read.as_ref().is_some_and(|r| r.unread > 0);
    if !rules.force
        && let Some(row) = row
            .as_ref()
            .filter(|r| r.size == size && r.mtime_ns == mtime_ns && !unread(r))
    {
        return Ok(unchanged(row, None));
    }
    let bytes = match fsutil::read_within(&v.root, path) {
        Ok(b) => b,
        Err(e) => return Ok(failed(read_error(e))),
    };
    if v.is_project() {
        return Ok(look_at_session(
            vi,
            v,
            path,
            &bytes,
            (size, mtime_ns, stamp),
            row,
            rules,
        ));
    }
    // A file that cannot be a transcript fails here, before it takes a place in the
    // per-run budget; it is looked at again next run.
    let blank = match transcript::decode(&bytes) {
        Ok(decoded) => decoded.is_blank(),
        Err(e) => return Ok(failed(e.to_string())),
    };
    let sha256 = hex::encode(Sha256::digest(&bytes));
    // Checked and hashed: let go, to be read again when its turn to be extracted comes.
    drop(bytes);
    if !rules.force
        && let Some(row) = row.as_ref().filter(|r| r.sha256 == sha256 && !unread(r))
    {
        let touch = Update::Touch {
            path: key,
            size,
            mtime_ns,
        };
        return Ok(unchanged(row, Some(touch)));
    }
    // Nothing to extract, so nothing to pay for: done, until the chat is written to.
    if blank {
        return Ok(Seen::Blank(blank_row(
            v,
            key,
            (size, mtime_ns),
            sha256,
            None,
            rules,
        )));
    }
    // The same bytes under another name (a renamed file, a moved vault): already paid for.
    // (Not the row of this very path, read in part and read on.)
    if !rules.force
        && let Some(known) = ledger
            .transcript_by_checksum(&sha256)?
            .filter(|k| k.path != key)
    {
        let older = processed_with_another_prompt(&known, rules);
        let moved = Update::Moved(TranscriptRow {
            path: key,
            vault: v.name.clone(),
            size,
            mtime_ns,
            ..known
        });
        return Ok(Seen::Unchanged {
            older,
            update: Some(moved),
        });
    }
    let whole = 0..usize::try_from(size).unwrap_or(usize::MAX);
    let mut changed = Changed::listed(vi, path, stamp, sha256, row.is_some(), whole);
    changed.read = row.and_then(|r| r.read).filter(|_| !rules.force);
    Ok(Seen::Changed(changed))
}

/// Judges a Claude Code session that changed on disk. A session grows while it goes on:
/// when the part read last time is still its beginning, only what was appended after it
/// is sent; a file rewritten in between is read whole. Half a record at the end (the
/// session is being written) waits for the next run.
fn look_at_session(
    vi: usize,
    v: &Vault,
    path: &std::path::Path,
    bytes: &[u8],
    (size, mtime_ns, stamp): (i64, i64, Stamp),
    row: Option<TranscriptRow>,
    rules: &Rules<'_>,
) -> Seen {
    let end = crate::claude_code::project::records_end(bytes);
    let key = path.display().to_string();
    let read = row
        .as_ref()
        .filter(|_| !rules.force)
        .and_then(|r| Some((r, usize::try_from(r.consumed?).ok()?)))
        .filter(|(r, consumed)| {
            *consumed <= end && hex::encode(Sha256::digest(&bytes[..*consumed])) == r.sha256
        });
    if let Some((r, consumed)) = read
        && consumed == end
    {
        let touch = Update::Touch {
            path: key,
            size,
            mtime_ns,
        };
        return Seen::Unchanged {
            older: processed_with_another_prompt(r, rules),
            update: Some(touch),
        };
    }
    let from = read.map_or(0, |(_, consumed)| consumed);
    let sha256 = hex::encode(Sha256::digest(&bytes[..end]));
    // No record at all yet (a session just opened): nothing to pay for until one lands.
    if bytes[..end].iter().all(u8::is_ascii_whitespace) {
        let consumed = Some(i64::try_from(end).unwrap_or(i64::MAX));
        return Seen::Blank(blank_row(v, key, (size, mtime_ns), sha256, consumed, rules));
    }
    Seen::Changed(Changed::listed(
        vi,
        path,
        stamp,
        sha256,
        row.is_some(),
        from..end,
    ))
}

/// The row of a transcript with nothing to send, recorded as done without an LLM.
fn blank_row(
    v: &Vault,
    path: String,
    (size, mtime_ns): (i64, i64),
    sha256: String,
    consumed: Option<i64>,
    rules: &Rules<'_>,
) -> TranscriptRow {
    let at: chrono::DateTime<chrono::Local> = rules.now.into();
    TranscriptRow {
        path,
        vault: v.name.clone(),
        size,
        mtime_ns,
        sha256,
        prompt_hash: String::new(),
        model: String::new(),
        processed_at: at.to_rfc3339(),
        fact_count: 0,
        consumed,
        read: None,
    }
}

/// A stamp as the ledger records it: size and mtime in nanoseconds since the epoch.
fn stamp_numbers(stamp: Stamp) -> (i64, i64) {
    let size = i64::try_from(stamp.len).unwrap_or(i64::MAX);
    let mtime_ns = stamp
        .modified
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    (size, mtime_ns)
}

impl Changed {
    /// A file as listed (`stamp`), to be extracted over `part` of its bytes, which
    /// `sha256` is the checksum of.
    fn listed(
        vault: usize,
        path: &std::path::Path,
        stamp: Stamp,
        sha256: String,
        known: bool,
        part: std::ops::Range<usize>,
    ) -> Self {
        let (size, mtime_ns) = stamp_numbers(stamp);
        Self {
            vault,
            path: path.to_path_buf(),
            size,
            mtime_ns,
            sha256,
            fingerprint: stamp_fingerprint(stamp),
            known,
            from: part.start,
            end: part.end,
            read: None,
        }
    }

    /// Whether the file read now (`meta` of what was read) is the one scanned: the same
    /// size and mtime, the test the ledger itself trusts.
    #[must_use]
    pub fn is_still(&self, meta: &std::fs::Metadata) -> bool {
        stat_fields(meta) == (self.size, self.mtime_ns)
    }
}

fn read_error(e: Confined) -> String {
    match e {
        Confined::Refused(refusal) => format!("not read: {refusal}"),
        Confined::Io(e) => format!("could not read transcript: {e}"),
    }
}

/// Whether `row` was processed with a prompt other than the one in use. Rows imported from
/// Memory Loop carry no prompt hash: what prompt they saw is unknown, so they do not count.
fn processed_with_another_prompt(row: &TranscriptRow, rules: &Rules<'_>) -> bool {
    another_prompt(&row.prompt_hash, rules)
}

fn another_prompt(prompt_hash: &str, rules: &Rules<'_>) -> bool {
    rules
        .prompt_hash
        .is_some_and(|h| !prompt_hash.is_empty() && prompt_hash != h)
}

/// Records in the ledger what a scan found on the way.
///
/// # Errors
///
/// The ledger could not be written.
pub fn apply(ledger: &Ledger, updates: &[Update]) -> Result<()> {
    for u in updates {
        match u {
            Update::Touch {
                path,
                size,
                mtime_ns,
            } => ledger.touch_transcript(path, *size, *mtime_ns)?,
            Update::Moved(row) | Update::Blank(row) => ledger.mark_transcript(row)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::fs::{self, File};

    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn an_unreadable_answer_is_counted_for_its_bytes_prompt_and_model_then_parked() {
        let (t, a) = ("120:17", "p1:model");
        assert_eq!(answer_attempts("", t, a), 0);
        let mut kept = String::new();
        for attempt in 1..ANSWER_ATTEMPTS {
            assert_eq!(answer_attempts(&kept, t, a) + 1, attempt);
            kept = answer_attempt_fingerprint(t, a, attempt);
            assert_ne!(kept, answer_fingerprint(t, a), "counted, not parked");
        }
        kept = answer_attempt_fingerprint(t, a, answer_attempts(&kept, t, a) + 1);
        assert_eq!(kept, answer_fingerprint(t, a), "parked on the last attempt");
        assert_eq!(answer_attempts(&kept, t, a), ANSWER_ATTEMPTS);
        // Another size or mtime, or another prompt or model, starts again.
        assert_eq!(answer_attempts(&kept, "121:17", a), 0);
        assert_eq!(
            answer_attempts(&answer_attempt_fingerprint(t, a, 1), t, "p2:model"),
            0
        );
    }

    /// A vault in a temp dir, and a way to write transcripts dated `age` ago.
    struct World {
        _dir: tempfile::TempDir,
        vault: Vault,
    }

    impl World {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("alpha");
            fs::create_dir_all(root.join("00_Inbox/chats")).unwrap();
            fs::write(root.join("CLAUDE.md"), "# alpha\n").unwrap();
            let vault = vault::open(&root).unwrap();
            Self { _dir: dir, vault }
        }

        fn write(&self, name: &str, bytes: &[u8], age: Duration) -> PathBuf {
            let path = self.vault.chats_dir().join(name);
            fs::write(&path, bytes).unwrap();
            File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(SystemTime::now() - age))
                .unwrap();
            path
        }

        fn scan(&self, ledger: &Ledger, force: bool, prompt_hash: Option<&str>) -> Scan {
            let rules = Rules {
                settle: Duration::from_secs(600),
                force,
                now: SystemTime::now(),
                prompt_hash,
                answer: None,
            };
            scan(std::slice::from_ref(&self.vault), ledger, &rules).unwrap()
        }
    }

    fn empty_ledger() -> Ledger {
        Ledger::scratch_copy(std::path::Path::new("/nonexistent/memloop/ledger.sqlite3")).unwrap()
    }

    /// A Claude Code project in a temp dir, as a vault of kind `ClaudeCode`.
    fn project() -> (tempfile::TempDir, Vault) {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("-home-u-app");
        fs::create_dir_all(&sessions).unwrap();
        let p = crate::claude_code::project::Project {
            sessions_dir: sessions,
            cwd: PathBuf::from("/home/u/app"),
            cwd_known: true,
            sessions: Ok(Vec::new()),
        };
        let vault = crate::claude_code::project::to_vault(&p, false).unwrap();
        (dir, vault)
    }

    /// Marks every changed session of `scan` read up to where the scan said it ends.
    fn read_sessions(ledger: &Ledger, scan: &Scan) {
        for c in &scan.changed {
            ledger
                .mark_transcript(&TranscriptRow {
                    path: c.path.display().to_string(),
                    vault: "/home/u/app".into(),
                    size: c.size,
                    mtime_ns: c.mtime_ns,
                    sha256: c.sha256.clone(),
                    prompt_hash: "p".into(),
                    model: "m".into(),
                    processed_at: "2025-06-01T00:00:00+00:00".into(),
                    fact_count: 0,
                    consumed: Some(i64::try_from(c.end).unwrap()),
                    read: None,
                })
                .unwrap();
        }
    }

    #[test]
    fn a_grown_session_is_read_from_where_the_last_run_stopped_and_a_rewritten_one_whole() {
        let (_dir, v) = project();
        let world = |bytes: &[u8]| {
            let path = v.chats_dir().join("s1.jsonl");
            fs::write(&path, bytes).unwrap();
            File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(SystemTime::now() - HOUR))
                .unwrap();
        };
        let rules = Rules {
            settle: Duration::from_secs(600),
            force: false,
            now: SystemTime::now(),
            prompt_hash: None,
            answer: None,
        };
        let ledger = empty_ledger();
        let first = b"{\"n\":1}\n{\"n\":2}\n";
        world(first);
        let s = scan(std::slice::from_ref(&v), &ledger, &rules).unwrap();
        assert_eq!((s.changed[0].from, s.changed[0].end), (0, first.len()));
        read_sessions(&ledger, &s);

        // Half a record appended: nothing new to read, the row only touched.
        let mut grown = first.to_vec();
        grown.extend_from_slice(b"{\"n\":");
        world(&grown);
        let s = scan(std::slice::from_ref(&v), &ledger, &rules).unwrap();
        assert!(s.changed.is_empty(), "{:?}", s.changed);
        assert_eq!(s.vaults[0].unchanged, 1);
        apply(&ledger, &s.updates).unwrap();

        // The record completed, and another: read from the end of the first part.
        grown.extend_from_slice(b"3}\n{\"n\":4}\n");
        world(&grown);
        let s = scan(std::slice::from_ref(&v), &ledger, &rules).unwrap();
        assert_eq!(s.vaults[0].changed, 1);
        assert_eq!(
            (s.changed[0].from, s.changed[0].end),
            (first.len(), grown.len())
        );
        read_sessions(&ledger, &s);

        // Rewritten (a record in the part read before changed): read whole.
        let mut rewritten = grown.clone();
        rewritten[5] = b'9';
        world(&rewritten);
        let s = scan(std::slice::from_ref(&v), &ledger, &rules).unwrap();
        assert_eq!((s.changed[0].from, s.changed[0].end), (0, rewritten.len()));

        // Forced: whole, whatever was read.
        let forced = Rules {
            force: true,
            ..rules
        };
        let s = scan(std::slice::from_ref(&v), &ledger, &forced).unwrap();
        assert_eq!(s.changed[0].from, 0);
    }

    /// Marks every changed transcript of `scan` processed with `prompt_hash`.
    fn process(ledger: &Ledger, scan: &Scan, prompt_hash: &str) {
        process_read(ledger, scan, prompt_hash, None);
    }

    /// [`process`], read as far as `read` says.
    fn process_read(
        ledger: &Ledger,
        scan: &Scan,
        prompt_hash: &str,
        read: Option<crate::ledger::ReadTo>,
    ) {
        for c in &scan.changed {
            ledger
                .mark_transcript(&TranscriptRow {
                    path: c.path.display().to_string(),
                    vault: "alpha".into(),
                    size: c.size,
                    mtime_ns: c.mtime_ns,
                    sha256: c.sha256.clone(),
                    prompt_hash: prompt_hash.into(),
                    model: "m".into(),
                    processed_at: "2025-06-01T00:00:00+00:00".into(),
                    fact_count: 0,
                    consumed: None,
                    read: read.clone(),
                })
                .unwrap();
        }
    }

    #[test]
    fn new_transcripts_are_found_oldest_first_and_fresh_ones_settle() {
        let w = World::new();
        w.write("b.md", b"older", 2 * HOUR);
        w.write("a.md", b"newer", HOUR);
        w.write("fresh.md", b"still talking", Duration::ZERO);

        let s = w.scan(&empty_ledger(), false, None);

        let names: Vec<_> = s
            .changed
            .iter()
            .map(|c| c.path.file_name().unwrap())
            .collect();
        assert_eq!(names, ["b.md", "a.md"]);
        assert_eq!(
            s.vaults,
            [VaultCounts {
                found: 3,
                settling: 1,
                new: 2,
                ..VaultCounts::default()
            }]
        );
        assert!(s.changed.iter().all(|c| !c.known));
    }

    #[test]
    fn a_transcript_read_in_part_is_read_on_unchanged_until_its_end_and_force_starts_over() {
        let w = World::new();
        w.write(
            "long.md",
            b"---\ndate: 2025-06-01\n---\n\n## [09:00] User\n\nHi.\n",
            HOUR,
        );
        let ledger = empty_ledger();
        let read = |unread| crate::ledger::ReadTo {
            turns: 1,
            digest: "d".into(),
            unread,
        };
        process_read(&ledger, &w.scan(&ledger, false, None), "p", Some(read(500)));
        let again = w.scan(&ledger, false, None);
        assert_eq!(again.changed.len(), 1, "read on though unchanged");
        assert_eq!(again.changed[0].read, Some(read(500)));
        assert_eq!(w.scan(&ledger, true, None).changed[0].read, None, "--force");
        process_read(&ledger, &again, "p", Some(read(0)));
        let done = w.scan(&ledger, false, None);
        assert!(done.changed.is_empty(), "read to its end");
        assert_eq!(done.total().unchanged, 1);
    }

    #[test]
    fn processed_transcripts_are_unchanged_until_their_bytes_change() {
        let w = World::new();
        let ledger = empty_ledger();
        let a = w.write("a.md", b"one", HOUR);
        w.write("b.md", b"two", HOUR);
        process(&ledger, &w.scan(&ledger, false, None), "p1");

        let again = w.scan(&ledger, false, None);
        assert!(again.changed.is_empty());
        assert_eq!(again.vaults[0].unchanged, 2);
        assert!(
            again.updates.is_empty(),
            "same size and mtime: nothing to record"
        );

        w.write("a.md", b"one, longer now", HOUR / 2);
        let changed = w.scan(&ledger, false, None);
        assert_eq!(changed.changed.len(), 1);
        assert_eq!(changed.changed[0].path, a);
        assert!(changed.changed[0].known);
        assert_eq!((changed.vaults[0].changed, changed.vaults[0].new), (1, 0));
    }

    #[test]
    fn touched_and_renamed_transcripts_come_back_as_updates_and_the_ledger_is_only_read() {
        let w = World::new();
        let ledger = empty_ledger();
        let a = w.write("a.md", b"same bytes", 2 * HOUR);
        process(&ledger, &w.scan(&ledger, false, None), "p1");
        let row = ledger
            .transcript(&a.display().to_string())
            .unwrap()
            .unwrap();

        w.write("a.md", b"same bytes", HOUR);
        let renamed = w.write("renamed.md", b"same bytes", HOUR);
        let s = w.scan(&ledger, false, None);

        assert!(s.changed.is_empty(), "nothing to send: {:?}", s.changed);
        assert_eq!(s.vaults[0].unchanged, 2);
        assert!(
            matches!(&s.updates[0], Update::Touch { path, .. } if *path == a.display().to_string())
        );
        assert!(
            matches!(&s.updates[1], Update::Moved(r) if r.path == renamed.display().to_string() && r.vault == "alpha" && r.sha256 == row.sha256)
        );
        assert_eq!(
            ledger.transcript(&a.display().to_string()).unwrap(),
            Some(row),
            "the scan itself wrote nothing"
        );
        assert_eq!(ledger.transcript_count().unwrap(), 1);

        apply(&ledger, &s.updates).unwrap();
        assert_eq!(ledger.transcript_count().unwrap(), 2);
        assert!(w.scan(&ledger, false, None).updates.is_empty());
    }

    #[test]
    fn force_sends_everything_again_settled_or_not() {
        let w = World::new();
        let ledger = empty_ledger();
        w.write("a.md", b"one", HOUR);
        process(&ledger, &w.scan(&ledger, false, None), "p1");
        w.write("fresh.md", b"still talking", Duration::ZERO);

        let s = w.scan(&ledger, true, None);

        assert_eq!(s.changed.len(), 2);
        assert_eq!((s.vaults[0].settling, s.vaults[0].unchanged), (0, 0));
    }

    #[test]
    fn transcripts_processed_with_another_prompt_are_counted_but_imported_ones_are_not() {
        let w = World::new();
        let ledger = empty_ledger();
        w.write("a.md", b"one", HOUR);
        process(&ledger, &w.scan(&ledger, false, None), "old");
        w.write("b.md", b"two", HOUR);
        process(&ledger, &w.scan(&ledger, false, None), "");
        w.write("c.md", b"three", HOUR);
        process(&ledger, &w.scan(&ledger, false, None), "new");

        let s = w.scan(&ledger, false, Some("new"));

        assert_eq!(s.vaults[0].unchanged, 3);
        assert_eq!(s.vaults[0].older_prompt, 1);
        assert_eq!(w.scan(&ledger, false, None).vaults[0].older_prompt, 0);
    }

    #[test]
    fn a_file_that_is_not_text_is_a_problem_and_the_scan_goes_on() {
        let w = World::new();
        let bad = w.write("bad.md", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", HOUR);
        w.write("good.md", b"fine", HOUR);

        let s = w.scan(&empty_ledger(), false, None);

        assert_eq!(s.changed.len(), 1);
        assert_eq!(s.vaults[0].failed, 1);
        let meta = fs::metadata(&bad).unwrap();
        assert_eq!(
            s.problems,
            [Problem {
                path: bad,
                error: "binary file (contains NUL bytes)".into(),
                transcript: true,
                fingerprint: Some(fingerprint(&meta)),
            }]
        );
        assert_eq!(s.total().found, 2);
    }

    #[test]
    fn a_blank_file_is_no_problem_and_is_recorded_as_done() {
        let w = World::new();
        let blank = w.write("blank.md", b" \n\n", HOUR);
        w.write("good.md", b"fine", HOUR);
        let ledger = empty_ledger();

        let s = w.scan(&ledger, false, None);

        assert_eq!(s.changed.len(), 1);
        assert!(s.problems.is_empty(), "{:?}", s.problems);
        assert_eq!((s.vaults[0].empty, s.vaults[0].failed), (1, 0));
        let [Update::Blank(row)] = s.updates.as_slice() else {
            panic!("{:?}", s.updates)
        };
        assert_eq!(row.path, blank.display().to_string());
        assert_eq!(row.fact_count, 0);
        apply(&ledger, &s.updates).unwrap();
        let again = w.scan(&ledger, false, None);
        assert_eq!((again.vaults[0].unchanged, again.vaults[0].empty), (1, 0));
    }

    #[test]
    fn links_out_of_the_vault_and_fifos_are_problems_and_never_read() {
        let w = World::new();
        w.write("good.md", b"fine", HOUR);
        let outside = w._dir.path().join("secret.md");
        fs::write(&outside, b"secret").unwrap();
        let chats = w.vault.chats_dir();
        std::os::unix::fs::symlink(&outside, chats.join("leak.md")).unwrap();
        std::os::unix::fs::symlink("/proc/self/status", chats.join("status.md")).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(chats.join("pipe.md"))
            .status()
            .unwrap();
        assert!(status.success());

        for force in [false, true] {
            let s = w.scan(&empty_ledger(), force, None);
            let sent: Vec<_> = s.changed.iter().map(|c| c.path.clone()).collect();
            assert_eq!(sent, [chats.join("good.md")], "force {force}");
            assert_eq!((s.vaults[0].found, s.vaults[0].failed), (4, 3));
            let named: Vec<_> = s
                .problems
                .iter()
                .map(|p| (p.path.file_name().unwrap().to_owned(), p.transcript))
                .collect();
            assert_eq!(
                named,
                [
                    ("leak.md".into(), true),
                    ("pipe.md".into(), true),
                    ("status.md".into(), true)
                ]
            );
            assert!(
                s.problems
                    .iter()
                    .all(|p| p.error.starts_with("not read: it "))
            );
        }
    }

    #[test]
    fn a_chats_directory_leading_out_of_the_vault_is_one_problem() {
        let w = World::new();
        let outside = w._dir.path().join("elsewhere");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.md"), b"secret").unwrap();
        let chats = w.vault.chats_dir();
        fs::remove_dir(&chats).unwrap();
        std::os::unix::fs::symlink(&outside, &chats).unwrap();

        let s = w.scan(&empty_ledger(), true, None);

        assert!(s.changed.is_empty());
        assert_eq!(s.vaults[0], VaultCounts::default());
        assert_eq!(s.problems.len(), 1);
        assert_eq!(s.problems[0].path, chats);
        assert!(!s.problems[0].transcript);
        assert!(
            s.problems[0].error.contains("outside its vault"),
            "{:?}",
            s.problems[0]
        );
    }
}
