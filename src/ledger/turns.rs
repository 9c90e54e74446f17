//! The turns of Claude Code sessions already sent, by their record's `uuid`. Claude Code's
//! `--fork-session` copies a conversation, uuids and all, into a new session file: what
//! was sent from the first file is not sent again from the copy.
//!
//! Only typed turns are kept (one short row each); answers follow the turns they answer.

use std::collections::HashSet;

use anyhow::Result;
use rusqlite::params;

use super::Ledger;

impl Ledger {
    /// Of `uuids`, those already sent from a session file other than `transcript`.
    pub fn turns_sent_elsewhere(
        &self,
        uuids: &[&str],
        transcript: &str,
    ) -> Result<HashSet<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT transcript FROM session_turns WHERE uuid = ?1")?;
        let mut seen = HashSet::new();
        for uuid in uuids {
            let mut rows = stmt.query(params![uuid])?;
            if let Some(row) = rows.next()? {
                let from: String = row.get(0)?;
                if from != transcript {
                    seen.insert((*uuid).to_owned());
                }
            }
        }
        Ok(seen)
    }

    /// Records the typed turns sent from `transcript`; a turn already recorded keeps the
    /// file it was first sent from.
    pub fn record_turns_sent(&self, uuids: &[String], transcript: &str) -> Result<()> {
        let mut stmt = self.conn.prepare_cached(
            "INSERT INTO session_turns (uuid, transcript) VALUES (?1, ?2) ON CONFLICT (uuid) DO NOTHING",
        )?;
        for uuid in uuids {
            stmt.execute(params![uuid, transcript])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_sent_from_one_file_is_known_to_every_other() -> Result<()> {
        let ledger = Ledger::scratch_copy(std::path::Path::new("/nonexistent/ledger.db"))?;
        ledger.record_turns_sent(&["a".into(), "b".into()], "/p/one.jsonl")?;
        ledger.record_turns_sent(&["b".into(), "c".into()], "/p/fork.jsonl")?;
        let seen = ledger.turns_sent_elsewhere(&["a", "b", "c", "d"], "/p/fork.jsonl")?;
        assert_eq!(seen, HashSet::from(["a".to_owned(), "b".to_owned()]));
        let seen = ledger.turns_sent_elsewhere(&["a", "b", "c"], "/p/one.jsonl")?;
        assert_eq!(
            seen,
            HashSet::from(["c".to_owned()]),
            "b stays with its first file"
        );
        Ok(())
    }
}
