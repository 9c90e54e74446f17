//! Inputs that failed for a reason only a change to them can fix: a transcript whose bytes
//! are not text or cannot be read, a `CLAUDE.md` whose markers do not pair up, answers
//! that could not be read for these bytes with this prompt and model on
//! `scan::ANSWER_ATTEMPTS` runs in a row. Each is kept by its path with a fingerprint of
//! what failed (see `scan::fingerprint`), so a run reports it once and the next runs skip
//! it, without failing again, for as long as it stays as it is. An answer that failed on
//! fewer runs is kept under a fingerprint that only counts them (the next run asks again).

use anyhow::Result;
use rusqlite::{OptionalExtension, params};

use super::Ledger;

/// An input that failed, as the ledger keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedInput {
    pub path: String,
    /// What the input was when it failed (its size and mtime, and for an answer the prompt
    /// and model): the same fingerprint later means the same failure.
    pub fingerprint: String,
    pub error: String,
    /// RFC 3339, when it first failed this way.
    pub failed_at: String,
}

impl FailedInput {
    /// Why it failed and since when, as a run lists it among the inputs still failing.
    #[must_use]
    pub fn still_failing(&self) -> String {
        format!("{} (since {})", self.error, self.failed_at)
    }
}

impl Ledger {
    /// Records that `path` failed with this fingerprint (replacing an older record).
    pub fn record_failed_input(&self, input: &FailedInput) -> Result<()> {
        self.conn.prepare_cached(
            "INSERT INTO failed_inputs (path, fingerprint, error, failed_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (path) DO UPDATE SET fingerprint = ?2, error = ?3, failed_at = ?4
             WHERE fingerprint <> ?2")?.execute(
            params![input.path, input.fingerprint, input.error, input.failed_at],
        )?;
        Ok(())
    }

    /// The failure recorded for `path`, if any.
    pub fn failed_input(&self, path: &str) -> Result<Option<FailedInput>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT path, fingerprint, error, failed_at FROM failed_inputs WHERE path = ?1",
            )?
            .query_row(params![path], row)
            .optional()?)
    }

    /// Every recorded failure, by path.
    pub fn failed_inputs(&self) -> Result<Vec<FailedInput>> {
        let mut stmt = self.conn.prepare(
            "SELECT path, fingerprint, error, failed_at FROM failed_inputs ORDER BY path",
        )?;
        let rows = stmt.query_map([], row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Forgets the failure of `path`: it was read, or it is gone.
    pub fn clear_failed_input(&self, path: &str) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM failed_inputs WHERE path = ?1")?
            .execute(params![path])?;
        Ok(())
    }
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<FailedInput> {
    Ok(FailedInput {
        path: r.get(0)?,
        fingerprint: r.get(1)?,
        error: r.get(2)?,
        failed_at: r.get(3)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(path: &str, fingerprint: &str, at: &str) -> FailedInput {
        FailedInput {
            path: path.into(),
            fingerprint: fingerprint.into(),
            error: "not UTF-8".into(),
            failed_at: at.into(),
        }
    }

    #[test]
    fn a_failure_is_kept_by_path_until_cleared_and_keeps_its_first_date() {
        let l = Ledger::init(rusqlite::Connection::open_in_memory().unwrap()).unwrap();
        l.record_failed_input(&failed("/v/a.md", "10:1", "day 1"))
            .unwrap();
        l.record_failed_input(&failed("/v/a.md", "10:1", "day 2"))
            .unwrap();
        assert_eq!(
            l.failed_input("/v/a.md").unwrap().unwrap().failed_at,
            "day 1"
        );
        l.record_failed_input(&failed("/v/a.md", "12:2", "day 3"))
            .unwrap();
        let again = l.failed_input("/v/a.md").unwrap().unwrap();
        assert_eq!(
            (again.fingerprint.as_str(), again.failed_at.as_str()),
            ("12:2", "day 3")
        );
        assert_eq!(l.failed_inputs().unwrap().len(), 1);
        l.clear_failed_input("/v/a.md").unwrap();
        assert_eq!(l.failed_input("/v/a.md").unwrap(), None);
    }
}
