//! The SQLite ledger: which transcripts were processed (size, mtime, SHA-256), every fact
//! with its provenance and status, the runs and their reports, and the exact text memloop
//! last wrote into each memory file (so hand edits can be told apart from our own output).
//!
//! It owns the schema and its version; it does not decide merges or render anything.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use rusqlite::{Connection, OptionalExtension, params};

use crate::fact::{ArchiveReason, Fact, Origin, Scope, Status};

mod damage;
mod failures;
mod migrate;
mod salvage;
mod turns;

pub use damage::{Damage, LedgerDamaged, corruption_in, is_corruption};
pub use salvage::{Salvaged, TableSalvage};

pub use failures::FailedInput;

/// What the ledger remembers of one processed transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptRow {
    pub path: String,
    pub vault: String,
    /// -1 when unknown (imported from Memory Loop's state): then only the checksum counts.
    pub size: i64,
    pub mtime_ns: i64,
    pub sha256: String,
    pub prompt_hash: String,
    pub model: String,
    pub processed_at: String,
    pub fact_count: i64,
    /// A Claude Code session: the byte just past the last record extracted, and `sha256`
    /// is the checksum of the bytes before it. `None`: the whole file was read.
    pub consumed: Option<i64>,
    /// A Memory Loop transcript once longer than `[llm] max_transcript_tokens`: how far it
    /// was read, so the next run goes on from there. `None`: it was read whole each time.
    pub read: Option<ReadTo>,
}

/// How far a transcript too long for one run was read (see [`TranscriptRow::read`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadTo {
    /// The turns read, from its first.
    pub turns: i64,
    /// The checksum of those turns as parsed (`transcript::digest`): the next run goes on
    /// only when the file still begins with them, and reads it anew from the start when not.
    pub digest: String,
    /// About how many tokens of it are still to read (0: read to its end, so the next run
    /// reads it only when something is appended).
    pub unread: i64,
}

/// What a scan needs of a processed transcript's row to call it unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownStamp {
    pub size: i64,
    pub mtime_ns: i64,
    /// Processed with a prompt other than the one in use.
    pub other_prompt: bool,
    /// Read in part (too long for one run): the next run goes on, changed or not.
    pub unread: bool,
}

/// Where a fact came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Source {
    pub transcript: String,
    pub date: String,
    /// The words the fact was drawn from, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

/// What an answer is kept by: the transcript's bytes, the prompt and the model it was
/// asked with. Another prompt or model asks again.
#[derive(Debug, Clone, Copy)]
pub struct AnswerKey<'a> {
    pub sha256: &'a str,
    pub prompt_hash: &'a str,
    pub model: &'a str,
}

/// What memloop recorded writing into one target (a memory file, a vault's fence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The file's path.
    pub target: String,
    /// The text memloop last wrote.
    pub content: Option<String>,
    /// A write it recorded but may not have finished.
    pub pending: Option<String>,
    /// The texts it wrote before `content`, the newest first.
    pub earlier: Vec<String>,
}

/// How many texts memloop keeps of what it wrote to a target before its last write.
pub const EARLIER_KEPT: usize = 4;

/// How many prepared statements the connection keeps (rusqlite keeps 16 unless told): more
/// than the ledger has, so none is parsed twice in a run.
const STATEMENTS: usize = 128;

fn earlier_from(json: Option<String>) -> Vec<String> {
    json.and_then(|j| serde_json::from_str(&j).ok())
        .unwrap_or_default()
}

/// One entry in a fact's history.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Event {
    pub at: String,
    pub event: String,
    pub detail: Option<String>,
}

/// Something `doctor` reports: a file another program rewrote, say.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Notice {
    pub at: String,
    pub target: String,
    pub kind: String,
    pub detail: String,
}

/// A new fact to insert.
#[derive(Debug, Clone)]
pub struct NewFact<'a> {
    pub text: &'a str,
    pub key: &'a str,
    pub category: &'a str,
    pub scope: Scope,
    pub vault: Option<&'a str>,
    pub status: Status,
    pub origin: Origin,
    pub source: &'a Source,
}

fn keep_answer(conn: &Connection, key: &AnswerKey<'_>, answer: &str, at: &str) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO answers (sha256, prompt_hash, model, answer, at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![key.sha256, key.prompt_hash, key.model, answer, at])?;
    Ok(())
}

/// Keeps answers the moment they arrive, from the tasks that receive them, on a connection
/// of its own: the run's connection may be busy committing another transcript (writing its
/// files), and an answer waiting for it is lost to a kill meanwhile.
pub struct AnswerKeeper {
    conn: std::sync::Mutex<Connection>,
}

impl AnswerKeeper {
    /// [`Ledger::keep_answer`], from any thread.
    pub fn keep(&self, key: &AnswerKey<'_>, answer: &str, at: &str) -> Result<()> {
        let conn = self
            .conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        keep_answer(&conn, key, answer, at)
    }
}

/// The SQLite ledger.
pub struct Ledger {
    conn: Connection,
}

impl Ledger {
    /// Opens (creating if needed) the ledger at `path`. A file that is not a ledger, or
    /// whose pages are broken, is [`LedgerDamaged`]: nothing is written to it.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("could not create state directory {}", dir.display()))?;
        }
        damage::check_file(path).map_err(|why| LedgerDamaged::unreadable(path, why))?;
        let conn = Connection::open(path).map_err(|e| explain(path, e, "could not open ledger"))?;
        // Checked before anything is written: a damaged file is kept as it is.
        if let Some(why) =
            damage::check_pages(&conn).map_err(|e| explain(path, e, "could not read ledger"))?
        {
            return Err(LedgerDamaged::unreadable(path, why).into());
        }
        // WAL with NORMAL sync: a power cut can lose the last commits but never corrupts;
        // a lost commit only means a transcript is extracted again, which merge absorbs.
        conn.pragma_update(None, "journal_mode", "WAL")
            .and_then(|()| conn.pragma_update(None, "synchronous", "NORMAL"))
            .map_err(|e| explain(path, e, "could not configure ledger"))?;
        Self::init(conn).map_err(|e| explain(path, e, "ledger"))
    }

    /// A private in-memory copy of the ledger at `path` (or an empty one when it does not
    /// exist), for `--dry-run`: the run goes through the same code and nothing reaches disk.
    pub fn scratch_copy(path: &Path) -> Result<Self> {
        let mut conn = Connection::open_in_memory()?;
        // An unreadable state directory is an error, not an empty ledger.
        let exists = path
            .try_exists()
            .with_context(|| format!("could not read ledger {}", path.display()))?;
        if exists {
            damage::check_file(path).map_err(|why| LedgerDamaged::unreadable(path, why))?;
            let src =
                open_read_only(path).map_err(|e| explain(path, e, "could not open ledger"))?;
            let backup = rusqlite::backup::Backup::new(&src, &mut conn)
                .map_err(|e| explain(path, e, "could not read ledger"))?;
            backup
                .run_to_completion(256, std::time::Duration::ZERO, None)
                .map_err(|e| explain(path, e, "could not read ledger"))?;
            drop(backup);
            if let Some(why) =
                damage::check_pages(&conn).map_err(|e| explain(path, e, "could not read ledger"))?
            {
                return Err(LedgerDamaged::unreadable(path, why).into());
            }
        }
        Self::init(conn).map_err(|e| explain(path, e, "ledger"))
    }

    /// An empty ledger in memory, for a command that shows what it can without the real
    /// one.
    pub fn in_memory() -> Result<Self> {
        Self::init(Connection::open_in_memory()?)
    }

    /// Closes the ledger, folding its write-ahead log into the file (a ledger about to be
    /// renamed must be whole in one file).
    pub fn close(self) -> Result<()> {
        self.conn.close().map_err(|(_, e)| e)?;
        Ok(())
    }

    /// Whether the ledger knows nothing at all: no fact, no transcript, no file written.
    /// A first run starts from such a ledger; so does one that was emptied.
    pub fn is_blank(&self) -> Result<bool> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT NOT EXISTS (SELECT 1 FROM facts) AND NOT EXISTS (SELECT 1 FROM transcripts)
                 AND NOT EXISTS (SELECT 1 FROM rendered)",
            )?
            .query_row([], |r| r.get(0))?)
    }

    fn init(conn: Connection) -> Result<Self> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "foreign_keys", true)?;
        // Deleted text is overwritten, not left in free pages: `memory forget --purge`
        // promises no trace of it in the state directory.
        conn.pragma_update(None, "secure_delete", true)?;
        migrate::migrate(&conn)?;
        // A run asks the same few dozen statements thousands of times: each is parsed once.
        conn.set_prepared_statement_cache_capacity(STATEMENTS);
        Ok(Self { conn })
    }

    /// Runs `f` in one transaction: all of it lands, or none.
    pub fn transaction<T>(&mut self, f: impl FnOnce(&Ledger) -> Result<T>) -> Result<T> {
        self.conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        match f(self) {
            Ok(v) => {
                self.conn.prepare_cached("COMMIT")?.execute([])?;
                Ok(v)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// The ledger's row for a transcript.
    pub fn transcript(&self, path: &str) -> Result<Option<TranscriptRow>> {
        self.query_transcript("path = ?1", path)
    }

    /// The size and mtime of every transcript row directly in one of `dirs` (spelled as
    /// the rows spell paths), one map a directory, by file name: what a scan compares its
    /// files with. `other_prompt` judges each row's prompt hash.
    ///
    /// One pass over the table, in the table's order: a query a file (or a directory, by
    /// the path index) visits the table's pages in path order, which is not the order the
    /// rows were written in, and rereads each page many times over once the ledger
    /// outgrows SQLite's page cache.
    pub fn transcript_stamps(
        &self,
        dirs: &[String],
        other_prompt: impl Fn(&str) -> bool,
    ) -> Result<Vec<std::collections::HashMap<String, KnownStamp>>> {
        let index: std::collections::HashMap<&str, usize> = dirs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.as_str(), i))
            .collect();
        let mut out = vec![std::collections::HashMap::new(); dirs.len()];
        let mut stmt = self.conn.prepare_cached(
            "SELECT path, size, mtime_ns, prompt_hash, COALESCE(unread, 0) > 0 FROM transcripts",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let path = r.get_ref(0)?.as_str()?;
            let Some((dir, name)) = path.rsplit_once('/') else {
                continue;
            };
            let Some(&i) = index.get(dir) else {
                continue;
            };
            let stamp = KnownStamp {
                size: r.get(1)?,
                mtime_ns: r.get(2)?,
                other_prompt: other_prompt(r.get_ref(3)?.as_str()?),
                unread: r.get(4)?,
            };
            out[i].insert(name.to_owned(), stamp);
        }
        Ok(out)
    }

    /// The row of an already processed transcript with these exact bytes, wherever it was.
    pub fn transcript_by_checksum(&self, sha256: &str) -> Result<Option<TranscriptRow>> {
        self.query_transcript("sha256 = ?1 ORDER BY processed_at LIMIT 1", sha256)
    }

    fn query_transcript(&self, filter: &str, value: &str) -> Result<Option<TranscriptRow>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT path, vault, size, mtime_ns, sha256, prompt_hash, model, processed_at, fact_count, consumed,
                 read_turns, read_digest, unread
             FROM transcripts WHERE {filter}"
        ))?;
        Ok(stmt
            .query_row([value], |r| {
                Ok(TranscriptRow {
                    path: r.get(0)?,
                    vault: r.get(1)?,
                    size: r.get(2)?,
                    mtime_ns: r.get(3)?,
                    sha256: r.get(4)?,
                    prompt_hash: r.get(5)?,
                    model: r.get(6)?,
                    processed_at: r.get(7)?,
                    fact_count: r.get(8)?,
                    consumed: r.get(9)?,
                    read: match (r.get(10)?, r.get(11)?) {
                        (Some(turns), Some(digest)) => Some(ReadTo {
                            turns,
                            digest,
                            unread: r.get::<_, Option<i64>>(12)?.unwrap_or(0),
                        }),
                        _ => None,
                    },
                })
            })
            .optional()?)
    }

    /// Records a transcript as processed (or refreshes its size and mtime).
    pub fn mark_transcript(&self, row: &TranscriptRow) -> Result<()> {
        self.conn.prepare_cached(
            "INSERT INTO transcripts (path, vault, size, mtime_ns, sha256, prompt_hash, model, processed_at, fact_count, consumed,
                 read_turns, read_digest, unread)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
             ON CONFLICT (path) DO UPDATE SET vault = ?2, size = ?3, mtime_ns = ?4, sha256 = ?5,
                 prompt_hash = ?6, model = ?7, processed_at = ?8, fact_count = ?9, consumed = ?10,
                 read_turns = ?11, read_digest = ?12, unread = ?13")?.execute(
            params![
                row.path,
                row.vault,
                row.size,
                row.mtime_ns,
                row.sha256,
                row.prompt_hash,
                row.model,
                row.processed_at,
                row.fact_count,
                row.consumed,
                row.read.as_ref().map(|r| r.turns),
                row.read.as_ref().map(|r| r.digest.as_str()),
                row.read.as_ref().map(|r| r.unread),
            ],
        )?;
        Ok(())
    }

    /// Keeps an answer paid for until it is committed (see [`AnswerKey`]).
    pub fn keep_answer(&self, key: &AnswerKey<'_>, answer: &str, at: &str) -> Result<()> {
        keep_answer(&self.conn, key, answer, at)
    }

    /// A second connection to this ledger that keeps answers ([`AnswerKeeper`]); `None`
    /// for a ledger in memory (a dry run keeps nothing).
    pub fn answer_keeper(&self) -> Result<Option<AnswerKeeper>> {
        let Some(path) = self.conn.path().filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "secure_delete", true)?;
        Ok(Some(AnswerKeeper {
            conn: std::sync::Mutex::new(conn),
        }))
    }

    /// The answer kept for these bytes, prompt and model, if one waits.
    pub fn kept_answer(&self, key: &AnswerKey<'_>) -> Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT answer FROM answers WHERE sha256 = ?1 AND prompt_hash = ?2 AND model = ?3",
            )?
            .query_row(params![key.sha256, key.prompt_hash, key.model], |r| {
                r.get(0)
            })
            .optional()?)
    }

    /// Drops a kept answer once it is committed.
    pub fn drop_answer(&self, key: &AnswerKey<'_>) -> Result<()> {
        self.conn
            .prepare_cached(
                "DELETE FROM answers WHERE sha256 = ?1 AND prompt_hash = ?2 AND model = ?3",
            )?
            .execute(params![key.sha256, key.prompt_hash, key.model])?;
        Ok(())
    }

    /// Updates only the stat fields of a known transcript whose bytes did not change.
    pub fn touch_transcript(&self, path: &str, size: i64, mtime_ns: i64) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE transcripts SET size = ?2, mtime_ns = ?3 WHERE path = ?1")?
            .execute(params![path, size, mtime_ns])?;
        Ok(())
    }

    /// Whether no transcript has ever been recorded.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.transcript_count()? == 0)
    }

    /// How many transcripts are recorded.
    pub fn transcript_count(&self) -> Result<i64> {
        Ok(self
            .conn
            .prepare_cached("SELECT COUNT(*) FROM transcripts")?
            .query_row([], |r| r.get(0))?)
    }

    /// Every fact with the given statuses, ordered by id.
    pub fn facts(&self, statuses: &[Status]) -> Result<Vec<Fact>> {
        let all = self.query_facts("1 = 1", [])?;
        Ok(all
            .into_iter()
            .filter(|f| statuses.contains(&f.status))
            .collect())
    }

    /// The facts a render chooses from: the active ones and those the size cap archived
    /// (they come back when there is room again).
    pub fn renderable_facts(&self) -> Result<Vec<Fact>> {
        self.query_facts(
            "status = 'active' OR (status = 'archived' AND archived_reason = 'cap')",
            [],
        )
    }

    /// Rows this connection has inserted, updated or deleted so far: unchanged, nothing it
    /// read before has changed (the run lock keeps other writers out).
    #[must_use]
    pub fn changes(&self) -> u64 {
        self.conn.total_changes()
    }

    /// The [`Ledger::renderable_facts`] a file may show: the global ones for memory.md
    /// (`vault` `None`), those filed under a vault for its insights. Reading every fact
    /// for each file, twice a run and after each transcript, cost more than the rest of a
    /// run with nothing new, and most of a long first run.
    pub fn renderable_facts_in(&self, vault: Option<&str>) -> Result<Vec<Fact>> {
        const RENDERABLE: &str =
            "(status = 'active' OR (status = 'archived' AND archived_reason = 'cap'))";
        match vault {
            None => self.query_facts(&format!("{RENDERABLE} AND scope = 'global'"), []),
            Some(vault) => self.query_facts(&format!("{RENDERABLE} AND vault = ?1"), [vault]),
        }
    }

    /// One fact by id.
    pub fn fact(&self, id: i64) -> Result<Option<Fact>> {
        Ok(self.query_facts("id = ?1", [id])?.pop())
    }

    fn query_facts(&self, filter: &str, params: impl rusqlite::Params) -> Result<Vec<Fact>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT id, text, category, scope, vault, first_seen, last_seen, times_seen, status,
                    archived_reason, origin
             FROM facts WHERE {filter} ORDER BY id"
        ))?;
        let rows = stmt.query_map(params, |r| {
            Ok((
                Fact {
                    id: r.get(0)?,
                    text: r.get(1)?,
                    category: r.get(2)?,
                    scope: Scope::Global,
                    vault: r.get(4)?,
                    first_seen: r.get(5)?,
                    last_seen: r.get(6)?,
                    times_seen: r.get(7)?,
                    status: Status::Active,
                    archived_reason: None,
                    origin: Origin::Extracted,
                },
                [
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(8)?,
                    r.get::<_, Option<String>>(9)?.unwrap_or_default(),
                    r.get::<_, String>(10)?,
                ],
            ))
        })?;
        rows.map(|row| {
            let (mut fact, [scope, status, reason, origin]) = row?;
            // An unknown name is a ledger this memloop does not understand: an error, never
            // silently an active fact.
            let unknown = |what: &str, value: &str| {
                anyhow!(
                    "fact {} has an unknown {what} `{value}` in the ledger",
                    fact.id
                )
            };
            fact.scope = Scope::parse(&scope).ok_or_else(|| unknown("scope", &scope))?;
            fact.status = Status::parse(&status).ok_or_else(|| unknown("status", &status))?;
            fact.origin = Origin::parse(&origin).ok_or_else(|| unknown("origin", &origin))?;
            fact.archived_reason = match reason.as_str() {
                "" => None,
                r => Some(ArchiveReason::parse(r).ok_or_else(|| unknown("archive reason", r))?),
            };
            Ok(fact)
        })
        .collect()
    }

    /// Inserts a new fact with its first source and returns its id.
    pub fn insert_fact(&self, f: &NewFact<'_>) -> Result<i64> {
        self.conn.prepare_cached(
            "INSERT INTO facts (text, key, category, scope, vault, first_seen, last_seen, times_seen, status, origin)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, 1, ?7, ?8)")?.execute(
            params![
                f.text,
                f.key,
                f.category,
                f.scope.as_str(),
                f.vault,
                f.source.date,
                f.status.as_str(),
                f.origin.as_str()
            ],
        )?;
        let id = self.conn.last_insert_rowid();
        self.add_source(id, f.source)?;
        Ok(id)
    }

    /// Counts a fact as confirmed on `day`: its last sighting moves up to it.
    pub fn confirm(&self, id: i64, day: &str) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE facts SET last_seen = max(last_seen, ?2) WHERE id = ?1")?
            .execute(params![id, day])?;
        Ok(())
    }

    /// Sets the last day a fact holds (`None`: no end).
    pub fn set_valid_until(&self, id: i64, day: Option<&str>) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE facts SET valid_until = ?2 WHERE id = ?1")?
            .execute(params![id, day])?;
        Ok(())
    }

    /// The last day a fact holds, when it has one.
    pub fn valid_until(&self, id: i64) -> Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached("SELECT valid_until FROM facts WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?
            .flatten())
    }

    /// The facts shown or waiting for review whose last day is before `today`
    /// (`YYYY-MM-DD`), with that day.
    pub fn past_their_day(&self, today: &str) -> Result<Vec<(i64, String)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, valid_until FROM facts
             WHERE valid_until IS NOT NULL AND valid_until < ?1
               AND (status IN ('active', 'pending')
                    OR (status = 'archived' AND archived_reason = 'cap'))
             ORDER BY id",
        )?;
        let rows = stmt.query_map([today], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Counts a fact as seen again in `source`. A transcript seen before (a `--force` run)
    /// does not reinforce twice. Returns whether it was reinforced.
    pub fn reinforce(&self, id: i64, source: &Source) -> Result<bool> {
        if !self.add_source(id, source)? {
            return Ok(false);
        }
        self.conn
            .prepare_cached(
                "UPDATE facts SET times_seen = times_seen + 1,
                 first_seen = min(first_seen, ?2), last_seen = max(last_seen, ?2)
             WHERE id = ?1",
            )?
            .execute(params![id, source.date])?;
        Ok(true)
    }

    fn add_source(&self, id: i64, source: &Source) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO fact_sources (fact_id, transcript, date, evidence)
             VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, source.transcript, source.date, source.evidence])?;
        Ok(n == 1)
    }

    /// A fact's sources, oldest first.
    pub fn sources(&self, id: i64) -> Result<Vec<Source>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT transcript, date, evidence FROM fact_sources WHERE fact_id = ?1
             ORDER BY date, transcript",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok(Source {
                transcript: r.get(0)?,
                date: r.get(1)?,
                evidence: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Sets a fact's status; `reason` says why it was archived.
    pub fn set_status(&self, id: i64, status: Status, reason: Option<ArchiveReason>) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE facts SET status = ?2, archived_reason = ?3 WHERE id = ?1")?
            .execute(params![
                id,
                status.as_str(),
                reason.map(ArchiveReason::as_str)
            ])?;
        Ok(())
    }

    /// Moves a fact under another category (the user moved its bullet).
    pub fn set_category(&self, id: i64, category: &str) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE facts SET category = ?2 WHERE id = ?1")?
            .execute(params![id, category])?;
        Ok(())
    }

    /// Archives `old` as replaced by `new`.
    pub fn replace(&self, old: i64, new: i64) -> Result<()> {
        self.conn.prepare_cached(
            "UPDATE facts SET status = 'archived', archived_reason = 'replaced', replaced_by = ?2 WHERE id = ?1")?.execute(
            params![old, new],
        )?;
        Ok(())
    }

    /// What memloop knows it wrote to `target` (a memory file or a vault's fence), and the
    /// text of a write it recorded but may not have finished (set only between
    /// `set_pending` and `set_written`).
    pub fn rendered(&self, target: &str) -> Result<(Option<String>, Option<String>)> {
        Ok(self
            .conn
            .prepare_cached("SELECT content, pending FROM rendered WHERE target = ?1")?
            .query_row([target], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?
            .unwrap_or((None, None)))
    }

    /// Records, before writing `target`, the text about to be written.
    pub fn set_pending(&self, target: &str, text: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO rendered (target, pending) VALUES (?1, ?2)
             ON CONFLICT (target) DO UPDATE SET pending = ?2",
            )?
            .execute(params![target, text])?;
        Ok(())
    }

    /// Records that `target` now holds `text` as memloop wrote it. With `keep_previous`
    /// (the first write of a command), the text it held before joins the earlier ones (the
    /// last [`EARLIER_KEPT`]): what a file held between commands is what an editor loads.
    pub fn set_written(&self, target: &str, text: &str, keep_previous: bool) -> Result<()> {
        let (content, _) = self.rendered(target)?;
        let mut earlier = self.earlier(target)?;
        if let Some(old) = content.filter(|c| keep_previous && c != text) {
            earlier.retain(|e| *e != old);
            earlier.insert(0, old);
            earlier.truncate(EARLIER_KEPT);
        }
        self.conn
            .prepare_cached(
                "INSERT INTO rendered (target, content, earlier) VALUES (?1, ?2, ?3)
             ON CONFLICT (target) DO UPDATE SET content = ?2, pending = NULL, earlier = ?3",
            )?
            .execute(params![target, text, serde_json::to_string(&earlier)?])?;
        Ok(())
    }

    /// What memloop wrote to `target` before its last write, the newest first.
    pub fn earlier(&self, target: &str) -> Result<Vec<String>> {
        Ok(earlier_from(
            self.conn
                .prepare_cached("SELECT earlier FROM rendered WHERE target = ?1")?
                .query_row([target], |r| r.get(0))
                .optional()?
                .flatten(),
        ))
    }

    /// Replaces a fact's wording (the user reworded its bullet, or a model updated it).
    /// The wording it had before is kept (for a purge to find it again).
    pub fn set_text(&self, id: i64, text: &str, key: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR IGNORE INTO fact_wordings (fact_id, key, text)
             SELECT id, key, text FROM facts WHERE id = ?1 AND key != ?2",
            )?
            .execute(params![id, key])?;
        self.conn
            .prepare_cached("UPDATE facts SET text = ?2, key = ?3 WHERE id = ?1")?
            .execute(params![id, text, key])?;
        Ok(())
    }

    /// Every wording a fact has had, the current one first.
    pub fn wordings(&self, id: i64) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT text FROM facts WHERE id = ?1
             UNION ALL SELECT text FROM fact_wordings WHERE fact_id = ?1",
        )?;
        let rows = stmt.query_map([id], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every target memloop recorded writing.
    pub fn rendered_all(&self) -> Result<Vec<Written>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT target, content, pending, earlier FROM rendered ORDER BY target",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(Written {
                target: r.get(0)?,
                content: r.get(1)?,
                pending: r.get(2)?,
                earlier: earlier_from(r.get(3)?),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Replaces what memloop recorded for a target (a purge scrubbing its words out).
    pub fn set_rendered(
        &self,
        target: &str,
        content: Option<&str>,
        pending: Option<&str>,
        earlier: &[String],
    ) -> Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE rendered SET content = ?2, pending = ?3, earlier = ?4 WHERE target = ?1",
            )?
            .execute(params![
                target,
                content,
                pending,
                serde_json::to_string(earlier)?
            ])?;
        Ok(())
    }

    /// Marks whose words a fact holds.
    pub fn set_origin(&self, id: i64, origin: Origin) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE facts SET origin = ?2 WHERE id = ?1")?
            .execute(params![id, origin.as_str()])?;
        Ok(())
    }

    /// Records that pending fact `id`, once accepted, replaces `old`.
    pub fn set_supersedes(&self, id: i64, old: Option<i64>) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE facts SET supersedes = ?2 WHERE id = ?1")?
            .execute(params![id, old])?;
        Ok(())
    }

    /// The fact a pending fact replaces once accepted.
    pub fn supersedes(&self, id: i64) -> Result<Option<i64>> {
        self.id_column("supersedes", "id", id)
    }

    /// The fact that replaced `id`, if one did.
    pub fn replaced_by(&self, id: i64) -> Result<Option<i64>> {
        self.id_column("replaced_by", "id", id)
    }

    /// The facts `id` replaced, oldest first.
    pub fn replaced(&self, id: i64) -> Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id FROM facts WHERE replaced_by = ?1 ORDER BY id")?;
        let rows = stmt.query_map([id], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn id_column(&self, column: &str, key: &str, id: i64) -> Result<Option<i64>> {
        Ok(self
            .conn
            .query_row(
                &format!("SELECT {column} FROM facts WHERE {key} = ?1"),
                [id],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }

    /// Adds to a fact's history (`forgotten`, `restored`, `edited`, ...). `detail` says
    /// how, never the fact's text: a purge must leave no copy behind.
    pub fn add_event(&self, id: i64, at: &str, event: &str, detail: Option<&str>) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO fact_events (fact_id, at, event, detail) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, at, event, detail])?;
        Ok(())
    }

    /// A fact's history, oldest first.
    pub fn events(&self, id: i64) -> Result<Vec<Event>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT at, event, detail FROM fact_events WHERE fact_id = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok(Event {
                at: r.get(0)?,
                event: r.get(1)?,
                detail: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Records something a user should hear about from `doctor` (another program rewrote
    /// a file memloop writes, say).
    pub fn add_notice(&self, at: &str, target: &str, kind: &str, detail: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO notices (at, target, kind, detail) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![at, target, kind, detail])?;
        Ok(())
    }

    /// The newest notices, newest first.
    pub fn notices(&self, limit: usize) -> Result<Vec<Notice>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT at, target, kind, detail FROM notices ORDER BY id DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
            Ok(Notice {
                at: r.get(0)?,
                target: r.get(1)?,
                kind: r.get(2)?,
                detail: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Erases facts and everything that holds their text (sources, history, links), then
    /// compacts the file so no deleted page keeps a copy. Files memloop rendered are
    /// re-recorded by the next write.
    pub fn purge(&mut self, ids: &[i64]) -> Result<()> {
        self.transaction(|l| {
            for &id in ids {
                let keys: Vec<String> = l
                    .conn
                    .prepare_cached(
                        "SELECT key FROM facts WHERE id = ?1
                         UNION SELECT key FROM fact_wordings WHERE fact_id = ?1",
                    )?
                    .query_map([id], |r| r.get(0))?
                    .collect::<Result<_, _>>()?;
                for key in keys {
                    let fingerprint = l.fingerprint(&key)?;
                    l.conn.prepare_cached(
                        "INSERT OR IGNORE INTO purged (fingerprint) VALUES (?1)")?.execute(
                        [fingerprint],
                    )?;
                }
                // An answer kept for a later commit holds the words too: it is asked again.
                for text in l.wordings(id)? {
                    let escaped = serde_json::to_string(&text)?;
                    let escaped = escaped.trim_matches('"').to_owned();
                    l.conn.prepare_cached(
                        "DELETE FROM answers WHERE instr(answer, ?1) > 0 OR instr(answer, ?2) > 0")?.execute(
                        params![text, escaped],
                    )?;
                }
                l.conn
                    .prepare_cached("DELETE FROM fact_wordings WHERE fact_id = ?1")?
                    .execute( [id])?;
                l.conn
                    .prepare_cached("DELETE FROM fact_sources WHERE fact_id = ?1")?
                    .execute( [id])?;
                l.conn
                    .prepare_cached("DELETE FROM fact_events WHERE fact_id = ?1")?
                    .execute( [id])?;
                l.conn.prepare_cached(
                    "UPDATE facts SET replaced_by = NULL WHERE replaced_by = ?1")?.execute(
                    [id],
                )?;
                l.conn.prepare_cached(
                    "UPDATE facts SET supersedes = NULL WHERE supersedes = ?1")?.execute(
                    [id],
                )?;
                l.conn.prepare_cached("DELETE FROM facts WHERE id = ?1")?.execute( [id])?;
            }
            Ok(())
        })
    }

    /// Whether a fact with this normalised key was purged (it stays forgotten).
    pub fn is_purged(&self, key: &str) -> Result<bool> {
        let fingerprint = self.fingerprint(key)?;
        Ok(self
            .conn
            .prepare_cached("SELECT 1 FROM purged WHERE fingerprint = ?1")?
            .query_row([fingerprint], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// Lets a purged fact back in (the user remembers it again).
    pub fn unpurge(&self, key: &str) -> Result<()> {
        let fingerprint = self.fingerprint(key)?;
        self.conn
            .prepare_cached("DELETE FROM purged WHERE fingerprint = ?1")?
            .execute([fingerprint])?;
        Ok(())
    }

    /// A salted SHA-256 of a normalised key: enough to recognise the fact again, never
    /// its words. The salt is made once per ledger.
    fn fingerprint(&self, key: &str) -> Result<String> {
        use sha2::{Digest, Sha256};
        let salt: Option<String> = self
            .conn
            .prepare_cached("SELECT value FROM meta WHERE key = 'purge_salt'")?
            .query_row([], |r| r.get(0))
            .optional()?;
        let salt = match salt {
            Some(s) => s,
            None => {
                let seed = format!(
                    "{}:{:?}:{:p}",
                    std::process::id(),
                    std::time::Instant::now(),
                    &self.conn
                );
                let salt = hex::encode(Sha256::digest(seed.as_bytes()));
                self.conn
                    .prepare_cached("INSERT INTO meta (key, value) VALUES ('purge_salt', ?1)")?
                    .execute([&salt])?;
                salt
            }
        };
        Ok(hex::encode(Sha256::digest(
            format!("{salt}\n{key}").as_bytes(),
        )))
    }

    /// Rewrites the database file without free pages and empties the write-ahead log, so
    /// deleted text is gone from the disk too.
    pub fn compact(&self) -> Result<()> {
        self.conn.execute_batch("VACUUM")?;
        // A ledger in memory (a dry run) has no log to empty.
        let _ = self
            .conn
            .prepare_cached("PRAGMA wal_checkpoint(TRUNCATE)")?
            .query_row([], |_| Ok(()));
        Ok(())
    }

    /// Stores a finished run's report.
    pub fn record_run(&self, started_at: &str, finished_at: &str, report: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO runs (started_at, finished_at, report) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![started_at, finished_at, report])?;
        Ok(())
    }

    /// The newest run's (finished_at, report JSON).
    pub fn last_run(&self) -> Result<Option<(String, String)>> {
        Ok(self
            .conn
            .prepare_cached("SELECT finished_at, report FROM runs ORDER BY id DESC LIMIT 1")?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?)
    }

    /// When the newest successful run finished: one that was neither interrupted nor
    /// stopped early (transcripts that failed in it do not count against it; they are
    /// retried by the next run anyway).
    pub fn last_successful_run(&self) -> Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT finished_at FROM runs
                 WHERE coalesce(json_extract(report, '$.interrupted'), 0) = 0
                   AND json_extract(report, '$.stopped') IS NULL
                 ORDER BY id DESC LIMIT 1",
            )?
            .query_row([], |r| r.get(0))
            .optional()?)
    }

    /// Imports Memory Loop's `extraction-state.json` checksums into an empty ledger, once.
    /// Returns how many transcripts were imported, and what the user should hear about a
    /// state file that is not what Memory Loop writes.
    ///
    /// Memory Loop reads a state file that is empty, not JSON or not an object as an empty
    /// state (`readExtractionState`), so such a file imports nothing, with a warning, and
    /// the run goes on. Its records are keyed by vault and path (`isTranscriptProcessed`):
    /// the same relative path in two vaults is two transcripts, kept apart here as
    /// `{vaultId}/{path}`; a transcript is matched to its record by checksum.
    pub fn import_legacy(&self, state_file: &Path) -> Result<Legacy> {
        let done: Option<String> = self
            .conn
            .prepare_cached("SELECT value FROM meta WHERE key = 'legacy_import'")?
            .query_row([], |r| r.get(0))
            .optional()?;
        if done.is_some() || !self.is_empty()? {
            return Ok(Legacy::default());
        }
        let mut warning = None;
        let ignored = |why: String| {
            Some(format!(
                "{}: {why}: Memory Loop reads it as an empty state, so nothing was imported from it",
                state_file.display()
            ))
        };
        let pairs = match std::fs::read(state_file) {
            Ok(bytes) => match serde_json::from_slice::<serde_json::Value>(&bytes) {
                Ok(value) if value.is_object() => legacy_checksums(&value),
                Ok(_) => {
                    warning = ignored("not a JSON object".to_owned());
                    Vec::new()
                }
                Err(_) if bytes.trim_ascii().is_empty() => {
                    warning = ignored("empty".to_owned());
                    Vec::new()
                }
                Err(e) => {
                    warning = ignored(format!("not valid JSON ({e})"));
                    Vec::new()
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                return Err(e).with_context(|| {
                    format!("could not read Memory Loop state {}", state_file.display())
                });
            }
        };
        for (path, vault, sha) in &pairs {
            self.mark_transcript(&TranscriptRow {
                path: path.clone(),
                vault: vault.clone(),
                size: -1,
                mtime_ns: -1,
                sha256: sha.clone(),
                prompt_hash: String::new(),
                model: "memory-loop".into(),
                processed_at: "imported".into(),
                fact_count: 0,
                consumed: None,
                read: None,
            })?;
        }
        self.conn
            .prepare_cached("INSERT INTO meta (key, value) VALUES ('legacy_import', ?1)")?
            .execute([pairs.len().to_string()])?;
        Ok(Legacy {
            imported: pairs.len(),
            warning,
        })
    }
}

/// `e` as a user reads it: broken data is [`LedgerDamaged`] (the way out included); any
/// other error says what was being done to which ledger.
fn explain(path: &Path, e: impl Into<anyhow::Error>, doing: &str) -> anyhow::Error {
    let e = e.into();
    match damage::corruption_in(&e) {
        Some(why) => LedgerDamaged::unreadable(path, why).into(),
        None => e.context(format!("{doing} {}", path.display())),
    }
}

/// What [`Ledger::import_legacy`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Legacy {
    /// How many transcripts it imported.
    pub imported: usize,
    /// Why the state file was passed over, naming it.
    pub warning: Option<String>,
}

/// Opens a ledger for reading without writing a byte beside it. A ledger closed cleanly
/// has no write-ahead log left, and SQLite's `immutable` mode then reads it without
/// creating `-shm`/`-wal` files; a log left behind (a crash, a run in progress) holds
/// committed data, so then it is opened the ordinary read-only way.
fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    use rusqlite::OpenFlags;
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let mode = if Path::new(&wal).exists() {
        "mode=ro"
    } else {
        "immutable=1"
    };
    let escaped: String = path
        .to_string_lossy()
        .chars()
        .map(|c| match c {
            '%' => "%25".to_owned(),
            '?' => "%3f".to_owned(),
            '#' => "%23".to_owned(),
            c => c.to_string(),
        })
        .collect();
    Connection::open_with_flags(
        format!("file:{escaped}?{mode}"),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
    )
}

/// Finds (transcript path, vault, SHA-256) in Memory Loop's state, whatever its nesting:
/// `{"<path>.md": "<sha>"}`, `{"<path>.md": {"checksum": "<sha>", ...}}`, or objects with
/// `path` and `checksum`/`hash`/`sha256` fields, and `vaultId` (then the path is
/// `{vaultId}/{path}`, as Memory Loop tells its records apart by both).
fn legacy_checksums(value: &serde_json::Value) -> Vec<(String, String, String)> {
    use serde_json::Value;
    fn is_sha(s: &str) -> bool {
        s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
    }
    fn sha_field(map: &serde_json::Map<String, Value>) -> Option<String> {
        ["checksum", "sha256", "hash", "contentHash"]
            .iter()
            .filter_map(|k| map.get(*k)?.as_str())
            .find(|s| is_sha(s))
            .map(str::to_ascii_lowercase)
    }
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if let (Some(path), Some(sha)) =
                    (map.get("path").and_then(Value::as_str), sha_field(map))
                {
                    match map.get("vaultId").and_then(Value::as_str) {
                        Some(vault) if !vault.is_empty() => {
                            out.push((format!("{vault}/{path}"), vault.to_owned(), sha));
                        }
                        _ => out.push((path.to_owned(), String::new(), sha)),
                    }
                    continue;
                }
                for (k, child) in map {
                    match child {
                        Value::String(s) if k.ends_with(".md") && is_sha(s) => {
                            out.push((k.clone(), String::new(), s.to_ascii_lowercase()));
                        }
                        Value::Object(inner) if k.ends_with(".md") => match sha_field(inner) {
                            Some(sha) => out.push((k.clone(), String::new(), sha)),
                            None => stack.push(child),
                        },
                        _ => stack.push(child),
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger() -> Ledger {
        Ledger::init(Connection::open_in_memory().unwrap()).unwrap()
    }

    fn src(t: &str, d: &str) -> Source {
        Source {
            transcript: t.into(),
            date: d.into(),
            evidence: None,
        }
    }

    fn insert(l: &Ledger, text: &str, s: &Source) -> i64 {
        l.insert_fact(&NewFact {
            text,
            key: text,
            category: "Preferences",
            scope: Scope::Global,
            vault: None,
            status: Status::Active,
            origin: Origin::Extracted,
            source: s,
        })
        .unwrap()
    }

    #[test]
    fn transcript_stamps_are_the_rows_directly_in_each_directory_by_file_name() {
        let l = ledger();
        let row = |path: &str, size: i64, prompt: &str| TranscriptRow {
            path: path.into(),
            vault: "v".into(),
            size,
            mtime_ns: 7,
            sha256: format!("sha of {path}"),
            prompt_hash: prompt.into(),
            model: "m".into(),
            processed_at: "2025-06-01T00:00:00+00:00".into(),
            fact_count: 0,
            consumed: None,
            read: None,
        };
        for r in [
            row("/v/a/chats/one.md", 1, "p1"),
            row("/v/a/chats/two.md", 2, "p2"),
            row("/v/a/chats/old/three.md", 3, "p1"),
            row("/v/a/chats2/four.md", 4, "p1"),
            row("/v/b/chats/five.md", 5, ""),
            row("/v/c/chats/six.md", 6, "p2"),
        ] {
            l.mark_transcript(&r).unwrap();
        }
        let dirs = ["/v/a/chats".to_owned(), "/v/b/chats".to_owned()];

        let found = l.transcript_stamps(&dirs, |p| p == "p2").unwrap();

        let names = |i: usize| {
            let mut n: Vec<_> = found[i]
                .iter()
                .map(|(k, v)| (k.clone(), v.size, v.other_prompt))
                .collect();
            n.sort();
            n
        };
        assert_eq!(
            names(0),
            [("one.md".into(), 1, false), ("two.md".into(), 2, true)],
            "not a subdirectory's rows, nor a sibling directory's that starts alike"
        );
        assert_eq!(names(1), [("five.md".into(), 5, false)]);
        assert_eq!(found[0]["one.md"].mtime_ns, 7);
    }

    #[test]
    fn reinforcing_counts_each_transcript_once_and_widens_dates() {
        let l = ledger();
        let id = insert(&l, "Prefers tea.", &src("/a.md", "2025-06-10"));
        assert!(l.reinforce(id, &src("/b.md", "2025-06-12")).unwrap());
        assert!(
            !l.reinforce(id, &src("/b.md", "2025-06-12")).unwrap(),
            "same transcript twice"
        );
        assert!(l.reinforce(id, &src("/c.md", "2025-06-01")).unwrap());
        let f = l.fact(id).unwrap().unwrap();
        assert_eq!(
            (f.times_seen, f.first_seen.as_str(), f.last_seen.as_str()),
            (3, "2025-06-01", "2025-06-12")
        );
        assert_eq!(l.sources(id).unwrap().len(), 3);
    }

    #[test]
    fn replace_archives_the_old_fact() {
        let l = ledger();
        let old = insert(&l, "Uses Python 3.11.", &src("/a.md", "2025-01-01"));
        let new = insert(&l, "Uses Python 3.12.", &src("/b.md", "2025-02-01"));
        l.replace(old, new).unwrap();
        let active: Vec<_> = l
            .facts(&[Status::Active])
            .unwrap()
            .into_iter()
            .map(|f| f.id)
            .collect();
        assert_eq!(active, vec![new]);
        assert_eq!(
            l.fact(old).unwrap().unwrap().archived_reason,
            Some(ArchiveReason::Replaced)
        );
    }

    #[test]
    fn an_answer_is_kept_by_bytes_prompt_and_model_until_dropped() {
        let l = ledger();
        let key = AnswerKey {
            sha256: "s",
            prompt_hash: "p",
            model: "m",
        };
        assert_eq!(l.kept_answer(&key).unwrap(), None);
        l.keep_answer(&key, "{\"facts\":[]}", "now").unwrap();
        assert_eq!(
            l.kept_answer(&key).unwrap().as_deref(),
            Some("{\"facts\":[]}")
        );
        let other_model = AnswerKey { model: "n", ..key };
        assert_eq!(
            l.kept_answer(&other_model).unwrap(),
            None,
            "another model asks again"
        );
        l.drop_answer(&key).unwrap();
        assert_eq!(l.kept_answer(&key).unwrap(), None);
    }

    #[test]
    fn transaction_rolls_back_on_error() {
        let mut l = ledger();
        let r: Result<()> = l.transaction(|l| {
            insert(l, "Kept?", &src("/a.md", "2025-01-01"));
            anyhow::bail!("boom")
        });
        assert!(r.is_err());
        assert!(l.facts(&Status::ALL).unwrap().is_empty());
    }

    #[test]
    fn legacy_state_shapes_are_imported_once() {
        let sha = "ab".repeat(32);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("extraction-state.json");
        let json = serde_json::json!({
            "version": 1,
            "processedFiles": {
                "/v/a/00_Inbox/chats/one.md": sha,
                "/v/a/00_Inbox/chats/two.md": {"checksum": sha.to_uppercase(), "processedAt": "x"}
            },
            "history": [{"path": "/v/b/chats/three.md", "hash": sha}]
        });
        std::fs::write(&file, json.to_string()).unwrap();
        let l = ledger();
        assert_eq!(l.import_legacy(&file).unwrap().imported, 3);
        let row = l.transcript("/v/a/00_Inbox/chats/two.md").unwrap().unwrap();
        assert_eq!(row.sha256, sha);
        assert_eq!(row.size, -1);
        assert_eq!(
            l.import_legacy(&file).unwrap(),
            Legacy::default(),
            "only into an empty ledger, once"
        );
    }

    /// Memory Loop reads these as an empty state (`readExtractionState`, run under Bun).
    #[test]
    fn a_legacy_state_memory_loop_would_not_read_imports_nothing_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("extraction-state.json");
        for (body, why) in [
            ("", "empty"),
            ("  \n", "empty"),
            (
                "{\"lastRunAt\": ",
                "not valid JSON (EOF while parsing a value at line 1 column 14)",
            ),
            ("[]", "not a JSON object"),
            ("null", "not a JSON object"),
            ("\"x\"", "not a JSON object"),
        ] {
            std::fs::write(&file, body).unwrap();
            let l = ledger();
            let got = l.import_legacy(&file).unwrap();
            assert_eq!(got.imported, 0, "{body:?}");
            assert_eq!(
                got.warning.as_deref(),
                Some(
                    format!(
                        "{}: {why}: Memory Loop reads it as an empty state, so nothing was imported from it",
                        file.display()
                    )
                    .as_str()
                ),
                "{body:?}"
            );
            assert_eq!(l.import_legacy(&file).unwrap(), Legacy::default(), "once");
        }
    }

    #[test]
    fn the_same_relative_path_in_two_vaults_is_two_records() {
        let (a, b) = ("a".repeat(64), "b".repeat(64));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("extraction-state.json");
        let record = |vault: &str, sha: &str| {
            serde_json::json!({"path": "00_Inbox/chats/2026-03-21-2140-abcde.md", "vaultId": vault,
                               "checksum": sha, "processedAt": "2026-03-22T03:00:04.101Z"})
        };
        let json = serde_json::json!({"lastRunAt": null,
            "processedTranscripts": [record("work", &a), record("home", &b)]});
        std::fs::write(&file, json.to_string()).unwrap();
        let l = ledger();
        assert_eq!(l.import_legacy(&file).unwrap().imported, 2);
        for (vault, sha) in [("work", &a), ("home", &b)] {
            let row = l.transcript_by_checksum(sha).unwrap().expect("imported");
            assert_eq!(
                row.path,
                format!("{vault}/00_Inbox/chats/2026-03-21-2140-abcde.md")
            );
            assert_eq!(row.vault, vault);
        }
    }

    #[test]
    fn an_unknown_status_in_the_ledger_is_an_error_never_an_active_fact() {
        let l = ledger();
        let id = insert(&l, "Prefers tea.", &src("/a.md", "2025-01-01"));
        l.conn
            .execute("UPDATE facts SET status = 'snoozed' WHERE id = ?1", [id])
            .unwrap();
        let e = l.facts(&Status::ALL).unwrap_err();
        assert!(e.to_string().contains("unknown status `snoozed`"), "{e}");
        assert!(l.fact(id).is_err());
    }

    #[test]
    fn a_purged_fact_leaves_a_fingerprint_and_not_its_words() {
        let mut l = ledger();
        let id = insert(&l, "Has a secret hobby.", &src("/a.md", "2025-01-01"));
        l.purge(&[id]).unwrap();
        assert!(l.fact(id).unwrap().is_none());
        assert!(l.is_purged("Has a secret hobby.").unwrap());
        assert!(!l.is_purged("Has a public hobby.").unwrap());
        let stored: String = l
            .conn
            .query_row("SELECT fingerprint FROM purged", [], |r| r.get(0))
            .unwrap();
        assert!(!stored.contains("hobby"));
        l.unpurge("Has a secret hobby.").unwrap();
        assert!(!l.is_purged("Has a secret hobby.").unwrap());
    }

    #[test]
    fn a_purge_drops_the_kept_answers_that_hold_the_words() {
        let mut l = ledger();
        let said = "Sees \"Dr\" Smith on Tuesdays.";
        let id = insert(&l, said, &src("/a.md", "2025-01-01"));
        let key = |sha256| AnswerKey {
            sha256,
            prompt_hash: "p",
            model: "m",
        };
        let holding = serde_json::json!({"facts": [{"text": said}]}).to_string();
        l.keep_answer(&key("a"), &holding, "now").unwrap();
        l.keep_answer(&key("b"), r#"{"facts": [{"text": "Likes tea."}]}"#, "now")
            .unwrap();
        l.purge(&[id]).unwrap();
        assert_eq!(l.kept_answer(&key("a")).unwrap(), None);
        assert!(l.kept_answer(&key("b")).unwrap().is_some());
    }

    #[test]
    fn rendered_text_round_trips() {
        let l = ledger();
        assert_eq!(l.rendered("m").unwrap(), (None, None));
        l.set_pending("m", "one").unwrap();
        assert_eq!(l.rendered("m").unwrap(), (None, Some("one".into())));
        l.set_written("m", "one", true).unwrap();
        l.set_pending("m", "two").unwrap();
        assert_eq!(
            l.rendered("m").unwrap(),
            (Some("one".into()), Some("two".into()))
        );
        l.set_written("m", "two", true).unwrap();
        assert_eq!(l.rendered("m").unwrap(), (Some("two".into()), None));
    }

    #[test]
    fn a_write_keeps_the_texts_written_before_it_newest_first() {
        let l = ledger();
        assert!(l.earlier("m").unwrap().is_empty());
        for text in ["one", "two", "two", "three", "four", "five", "six"] {
            l.set_written("m", text, true).unwrap();
        }
        assert_eq!(l.rendered("m").unwrap().0.as_deref(), Some("six"));
        assert_eq!(l.earlier("m").unwrap(), ["five", "four", "three", "two"]);
        l.set_rendered("m", Some("six"), None, &["four".to_owned()])
            .unwrap();
        assert_eq!(l.rendered_all().unwrap()[0].earlier, ["four"]);
    }

    #[test]
    fn the_last_successful_run_skips_interrupted_and_stopped_runs() {
        let l = ledger();
        assert_eq!(l.last_successful_run().unwrap(), None);
        l.record_run(
            "s1",
            "f1",
            r#"{"interrupted":false,"failures":[{"path":"a"}]}"#,
        )
        .unwrap();
        l.record_run("s2", "f2", r#"{"interrupted":true}"#).unwrap();
        l.record_run(
            "s3",
            "f3",
            r#"{"interrupted":false,"stopped":"key rejected"}"#,
        )
        .unwrap();
        assert_eq!(l.last_successful_run().unwrap().as_deref(), Some("f1"));
        l.record_run("s4", "f4", "{}").unwrap();
        assert_eq!(l.last_successful_run().unwrap().as_deref(), Some("f4"));
    }
}
