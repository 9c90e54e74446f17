//! The ledger's schema, as steps from one `user_version` to the next. A fresh ledger runs
//! every step; an older one runs the steps it lacks, in one transaction, so a ledger is
//! always at exactly one known version. A ledger newer than this memloop is refused.
//!
//! Each step is plain SQL and is never edited once released: a change is a new step.

use anyhow::{Result, bail};
use rusqlite::Connection;

/// Step `i` takes the ledger from version `i` to version `i + 1`.
const STEPS: &[&str] = &[
    // 0 -> 1: transcripts, facts with provenance, runs, and what memloop last wrote.
    "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE transcripts (
    path TEXT PRIMARY KEY,
    vault TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    model TEXT NOT NULL,
    processed_at TEXT NOT NULL,
    fact_count INTEGER NOT NULL
);
CREATE TABLE facts (
    id INTEGER PRIMARY KEY,
    text TEXT NOT NULL,
    key TEXT NOT NULL,
    category TEXT NOT NULL,
    scope TEXT NOT NULL,
    vault TEXT,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    times_seen INTEGER NOT NULL,
    status TEXT NOT NULL,
    archived_reason TEXT,
    replaced_by INTEGER REFERENCES facts(id)
);
CREATE INDEX facts_key ON facts (key);
CREATE TABLE fact_sources (
    fact_id INTEGER NOT NULL REFERENCES facts(id),
    transcript TEXT NOT NULL,
    date TEXT NOT NULL,
    PRIMARY KEY (fact_id, transcript)
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    report TEXT NOT NULL
);
CREATE TABLE rendered (target TEXT PRIMARY KEY, content TEXT, pending TEXT);
",
    // 1 -> 2: who wrote a fact (the user or an extractor), the words a source gave for it,
    // the fact a pending fact would replace once accepted, and a history of what happened
    // to each fact (forgotten, restored, edited, accepted, rejected) and to each file
    // (another program rewrote it), for `memory why` and `doctor`.
    "
ALTER TABLE facts ADD COLUMN origin TEXT NOT NULL DEFAULT 'extracted';
UPDATE facts SET origin = 'user'
    WHERE id IN (SELECT fact_id FROM fact_sources WHERE transcript = '(edited by hand)');
ALTER TABLE facts ADD COLUMN supersedes INTEGER REFERENCES facts(id);
ALTER TABLE fact_sources ADD COLUMN evidence TEXT;
CREATE TABLE fact_events (
    id INTEGER PRIMARY KEY,
    fact_id INTEGER NOT NULL REFERENCES facts(id),
    at TEXT NOT NULL,
    event TEXT NOT NULL,
    detail TEXT
);
CREATE INDEX fact_events_fact ON fact_events (fact_id);
CREATE TABLE notices (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    target TEXT NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL
);
",
    // 2 -> 3: fingerprints of purged facts (a salted SHA-256 of the normalised text, never
    // the text), so a fact erased with `memory forget --purge` stays forgotten; and the
    // earlier wordings of each fact, so a purge can recognise and erase those too.
    "
CREATE TABLE purged (fingerprint TEXT PRIMARY KEY);
CREATE TABLE fact_wordings (
    fact_id INTEGER NOT NULL REFERENCES facts(id),
    key TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (fact_id, key)
);
",
    // 3 -> 4: answers paid for but not yet committed (they wait behind a slower transcript
    // when the run is killed), kept by the transcript's bytes, prompt and model so the next
    // run takes them instead of asking again; removed once committed.
    "
CREATE TABLE answers (
    sha256 TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    model TEXT NOT NULL,
    answer TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (sha256, prompt_hash, model)
);
",
    // 4 -> 5: inputs that failed for a reason only a change to them can fix (bytes that are
    // not text, a file that cannot be read, markers that do not pair up, an answer that
    // cannot be read for these bytes, prompt and model), by the path's size and mtime, so
    // the next run skips them while they stay as they are instead of failing every night.
    "
CREATE TABLE failed_inputs (
    path TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    error TEXT NOT NULL,
    failed_at TEXT NOT NULL
);
",
    // 5 -> 6: how far a Claude Code session was read (the byte just past its last record
    // extracted), so the next run sends only what was appended; NULL for a transcript read
    // whole. Its `sha256` is then the checksum of that part. And the typed turns of
    // sessions already sent, by record uuid, so a forked copy of a session does not send
    // them again.
    "
ALTER TABLE transcripts ADD COLUMN consumed INTEGER;
CREATE TABLE session_turns (uuid TEXT PRIMARY KEY, transcript TEXT NOT NULL);
",
    // 6 -> 7: the last day a fact holds (`valid_until`, YYYY-MM-DD), NULL for a fact with
    // no end; after it the fact is archived as expired.
    "
ALTER TABLE facts ADD COLUMN valid_until TEXT;
",
    // 7 -> 8: the texts memloop wrote to a target before its last write (a JSON list, the
    // newest first), so a file saved from an editor that loaded one of them is compared
    // with what the editor started from, not with the last write.
    "
ALTER TABLE rendered ADD COLUMN earlier TEXT;
",
    // 8 -> 9: how far a Memory Loop transcript longer than one run may send was read: the
    // turns read, their checksum, and about how many tokens are left (0: read to its end);
    // NULL for a transcript read whole.
    "
ALTER TABLE transcripts ADD COLUMN read_turns INTEGER;
ALTER TABLE transcripts ADD COLUMN read_digest TEXT;
ALTER TABLE transcripts ADD COLUMN unread INTEGER;
",
];

/// The version this memloop writes.
pub const VERSION: i64 = STEPS.len() as i64;

/// Brings the ledger on `conn` to [`VERSION`].
pub fn migrate(conn: &Connection) -> Result<()> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version > VERSION {
        bail!(
            "schema version {version} is newer than this memloop understands ({VERSION}): upgrade memloop"
        );
    }
    if version == VERSION {
        return Ok(());
    }
    let from = usize::try_from(version).unwrap_or(0);
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let stepped = STEPS[from..]
        .iter()
        .try_for_each(|step| conn.execute_batch(step))
        .and_then(|()| conn.pragma_update(None, "user_version", VERSION));
    match stepped {
        Ok(()) => Ok(conn.execute_batch("COMMIT")?),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(anyhow::Error::from(e).context(format!(
                "could not upgrade the ledger from schema version {version} to {VERSION}"
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ledger stopped at `version`, as an older memloop left it.
    fn at(version: usize) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        for step in &STEPS[..version] {
            conn.execute_batch(step).unwrap();
        }
        conn.pragma_update(None, "user_version", version as i64)
            .unwrap();
        conn
    }

    #[test]
    fn version_one_keeps_its_facts_and_gains_origin_and_history() {
        let conn = at(1);
        conn.execute_batch(
            "INSERT INTO facts (text, key, category, scope, first_seen, last_seen, times_seen, status)
             VALUES ('Prefers tea.', 'prefers tea', 'Preferences', 'global', '2025-01-01', '2025-01-01', 1, 'active');
             INSERT INTO fact_sources VALUES (1, '/v/a.md', '2025-01-01');
             INSERT INTO facts (text, key, category, scope, first_seen, last_seen, times_seen, status)
             VALUES ('Keeps a notebook.', 'keeps notebook', 'Patterns', 'global', '2025-01-02', '2025-01-02', 1, 'active');
             INSERT INTO fact_sources VALUES (2, '(edited by hand)', '2025-01-02');",
        )
        .unwrap();
        migrate(&conn).unwrap();
        let (text, origin): (String, String) = conn
            .query_row("SELECT text, origin FROM facts WHERE id = 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(
            (text.as_str(), origin.as_str()),
            ("Prefers tea.", "extracted")
        );
        let evidence: Option<String> = conn
            .query_row("SELECT evidence FROM fact_sources", [], |r| r.get(0))
            .unwrap();
        assert_eq!(evidence, None);
        conn.execute(
            "INSERT INTO fact_events (fact_id, at, event) VALUES (1, 'now', 'forgotten')",
            [],
        )
        .unwrap();
        let v: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, VERSION);
    }

    #[test]
    fn version_two_gains_the_purged_fingerprints() {
        let conn = at(2);
        migrate(&conn).unwrap();
        conn.execute("INSERT INTO purged VALUES ('ab')", [])
            .unwrap();
    }

    #[test]
    fn every_step_runs_from_the_one_before() {
        for version in 0..STEPS.len() {
            let conn = at(version);
            migrate(&conn).unwrap_or_else(|e| panic!("from {version}: {e:#}"));
            migrate(&conn).unwrap();
        }
    }

    #[test]
    fn a_newer_ledger_is_refused() {
        let conn = at(STEPS.len());
        conn.pragma_update(None, "user_version", VERSION + 1)
            .unwrap();
        let e = migrate(&conn).unwrap_err();
        assert!(e.to_string().contains("upgrade memloop"), "{e}");
    }
}
