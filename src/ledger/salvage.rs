//! Reading what can still be read out of a damaged ledger into a new one: table by table,
//! row by row, the columns both schemas share, until SQLite meets a broken page. A row
//! that no longer fits (a broken value, a fact whose status this memloop does not know, a
//! source whose fact is gone) is left out and counted. What comes back says, per table,
//! how many rows were kept and whether the table was read to its end: `rebuild` trusts a
//! table only when it was.
//!
//! It never writes to the damaged database; it does not look at memory files.

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params_from_iter};
use serde::Serialize;

use super::Ledger;
use crate::fact::{ArchiveReason, Origin, Scope, Status};

/// The tables worth saving, each before those that point into it.
const TABLES: [&str; 12] = [
    "meta",
    "transcripts",
    "facts",
    "fact_sources",
    "fact_wordings",
    "fact_events",
    "purged",
    "rendered",
    "runs",
    "notices",
    "answers",
    "session_turns",
];

/// What was read out of one table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TableSalvage {
    pub table: String,
    /// Rows copied into the new ledger.
    pub rows: usize,
    /// Rows read but left out (broken or pointing at nothing).
    pub dropped: usize,
    /// Read to its end (a table the damaged ledger never had counts as read).
    pub complete: bool,
    /// Why reading stopped, when it stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What was read out of a damaged ledger.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Salvaged {
    pub tables: Vec<TableSalvage>,
}

impl Salvaged {
    /// Nothing could be read: every table stopped at once, for this reason.
    #[must_use]
    pub fn unreadable(why: &str) -> Self {
        Self {
            tables: TABLES
                .iter()
                .map(|t| TableSalvage {
                    table: (*t).to_owned(),
                    error: Some(why.to_owned()),
                    ..TableSalvage::default()
                })
                .collect(),
        }
    }

    /// Whether `table` was read to its end.
    #[must_use]
    pub fn complete(&self, table: &str) -> bool {
        self.tables.iter().any(|t| t.table == table && t.complete)
    }

    /// Rows kept from `table`.
    #[must_use]
    pub fn rows(&self, table: &str) -> usize {
        self.tables
            .iter()
            .filter(|t| t.table == table)
            .map(|t| t.rows)
            .sum()
    }
}

impl Ledger {
    /// Copies what `src` (a damaged ledger, opened on a scratch copy) still holds into this
    /// ledger, which must be new. Facts keep their ids, so their sources and history stay
    /// theirs.
    ///
    /// # Errors
    ///
    /// Only this ledger failing; `src` failing is what the counts report.
    pub fn salvage(&mut self, src: &Connection) -> anyhow::Result<Salvaged> {
        // Rows arrive in table order, a fact before the fact that replaced it perhaps:
        // links are checked once everything is in.
        self.conn.pragma_update(None, "foreign_keys", false)?;
        let copied = self.transaction(|l| {
            let mut out = Salvaged::default();
            for table in TABLES {
                out.tables.push(copy_table(src, &l.conn, table)?);
            }
            let dropped = drop_broken(&l.conn)?;
            for (table, n) in dropped {
                if let Some(t) = out.tables.iter_mut().find(|t| t.table == table) {
                    t.rows -= n.min(t.rows);
                    t.dropped += n;
                }
            }
            Ok(out)
        });
        self.conn.pragma_update(None, "foreign_keys", true)?;
        copied
    }
}

/// Copies one table's shared columns row by row; stops at the first row SQLite cannot read.
fn copy_table(src: &Connection, dst: &Connection, table: &str) -> anyhow::Result<TableSalvage> {
    let mut out = TableSalvage {
        table: table.to_owned(),
        ..TableSalvage::default()
    };
    let stop = |mut out: TableSalvage, e: rusqlite::Error| {
        out.error = Some(e.to_string());
        out
    };
    let exists = src
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [table],
            |_| Ok(()),
        )
        .optional();
    match exists {
        Ok(Some(())) => {}
        Ok(None) => {
            out.complete = true;
            return Ok(out);
        }
        Err(e) => return Ok(stop(out, e)),
    }
    let theirs = match columns(src, table) {
        Ok(c) => c,
        Err(e) => return Ok(stop(out, e)),
    };
    let shared: Vec<String> = columns(dst, table)?
        .into_iter()
        .filter(|c| theirs.contains(c))
        .collect();
    if shared.is_empty() {
        out.complete = true;
        return Ok(out);
    }
    let list = shared.join(", ");
    let marks = vec!["?"; shared.len()].join(", ");
    let mut insert = dst.prepare(&format!(
        "INSERT OR IGNORE INTO {table} ({list}) VALUES ({marks})"
    ))?;
    let mut select = match src.prepare(&format!("SELECT {list} FROM {table}")) {
        Ok(s) => s,
        Err(e) => return Ok(stop(out, e)),
    };
    let mut rows = match select.query([]) {
        Ok(r) => r,
        Err(e) => return Ok(stop(out, e)),
    };
    loop {
        let row = match rows.next() {
            Ok(Some(row)) => row,
            Ok(None) => break,
            Err(e) => return Ok(stop(out, e)),
        };
        let values: Result<Vec<Value>, _> = (0..shared.len()).map(|i| row.get(i)).collect();
        match values.map(|v| insert.execute(params_from_iter(v))) {
            Ok(Ok(1)) => out.rows += 1,
            _ => out.dropped += 1,
        }
    }
    out.complete = true;
    Ok(out)
}

fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})"))?;
    let names = stmt.query_map([], |r| r.get::<_, String>(1))?;
    names.collect()
}

/// Removes rows the ledger could not use (a fact with a status this memloop does not know
/// makes every read of the facts fail) and links to facts that did not survive. Returns
/// how many rows left each table.
fn drop_broken(conn: &Connection) -> rusqlite::Result<Vec<(&'static str, usize)>> {
    let names = |all: &[&str]| {
        all.iter()
            .map(|s| format!("'{s}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let statuses = names(&Status::ALL.map(Status::as_str));
    let scopes = names(&[Scope::Global.as_str(), Scope::Vault.as_str()]);
    let origins = names(&[Origin::Extracted.as_str(), Origin::User.as_str()]);
    let reasons = names(&[
        ArchiveReason::Cap.as_str(),
        ArchiveReason::Replaced.as_str(),
    ]);
    let facts = conn.execute(
        &format!(
            "DELETE FROM facts WHERE status NOT IN ({statuses}) OR scope NOT IN ({scopes})
                 OR origin NOT IN ({origins})
                 OR (archived_reason IS NOT NULL AND archived_reason NOT IN ({reasons}))"
        ),
        [],
    )?;
    let mut dropped = vec![("facts", facts)];
    for table in ["fact_sources", "fact_wordings", "fact_events"] {
        let n = conn.execute(
            &format!("DELETE FROM {table} WHERE fact_id NOT IN (SELECT id FROM facts)"),
            [],
        )?;
        dropped.push((table, n));
    }
    for column in ["replaced_by", "supersedes"] {
        conn.execute(
            &format!(
                "UPDATE facts SET {column} = NULL
                 WHERE {column} IS NOT NULL AND {column} NOT IN (SELECT id FROM facts)"
            ),
            [],
        )?;
    }
    Ok(dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fact::Status;
    use crate::ledger::{NewFact, Source};

    fn ledger() -> Ledger {
        Ledger::init(Connection::open_in_memory().unwrap()).unwrap()
    }

    fn fact(l: &Ledger, text: &str, status: Status) -> i64 {
        let source = Source {
            transcript: "/v/a.md".into(),
            date: "2025-06-01".into(),
            evidence: None,
        };
        l.insert_fact(&NewFact {
            text,
            key: text,
            category: "Preferences",
            scope: Scope::Global,
            vault: None,
            status,
            origin: Origin::Extracted,
            source: &source,
        })
        .unwrap()
    }

    #[test]
    fn a_whole_ledger_is_copied_with_its_ids_and_links() {
        let mut old = ledger();
        let tea = fact(&old, "Prefers tea.", Status::Active);
        let gone = fact(&old, "Has a cat.", Status::Forgotten);
        old.add_event(gone, "now", "forgotten", None).unwrap();
        old.set_written("/h/memory.md", "- Prefers tea.\n", true)
            .unwrap();
        let secret = fact(&old, "Has a secret.", Status::Active);
        old.purge(&[secret]).unwrap();
        let mut new = ledger();
        let salvaged = new.salvage(&old.conn).unwrap();
        assert!(salvaged.tables.iter().all(|t| t.complete), "{salvaged:?}");
        assert_eq!(salvaged.rows("facts"), 2);
        assert_eq!(new.fact(gone).unwrap().unwrap().status, Status::Forgotten);
        assert_eq!(new.sources(tea).unwrap().len(), 1);
        assert_eq!(new.events(gone).unwrap().len(), 1);
        assert_eq!(
            new.rendered("/h/memory.md").unwrap().0.as_deref(),
            Some("- Prefers tea.\n")
        );
        assert!(
            new.is_purged("Has a secret.").unwrap(),
            "the salt came along"
        );
    }

    #[test]
    fn rows_this_memloop_cannot_use_are_dropped_and_counted() {
        let old = ledger();
        let kept = fact(&old, "Prefers tea.", Status::Active);
        let odd = fact(&old, "Snoozes.", Status::Active);
        old.conn
            .execute("UPDATE facts SET status = 'snoozed' WHERE id = ?1", [odd])
            .unwrap();
        old.conn
            .execute(
                "UPDATE facts SET replaced_by = ?1 WHERE id = ?2",
                [odd, kept],
            )
            .unwrap();
        let mut new = ledger();
        let salvaged = new.salvage(&old.conn).unwrap();
        let facts = salvaged.tables.iter().find(|t| t.table == "facts").unwrap();
        assert_eq!((facts.rows, facts.dropped), (1, 1));
        assert_eq!(salvaged.rows("fact_sources"), 1);
        assert_eq!(new.facts(&Status::ALL).unwrap().len(), 1);
        assert_eq!(new.replaced_by(kept).unwrap(), None);
    }

    #[test]
    fn an_older_schema_gives_the_columns_it_has() {
        let old = Connection::open_in_memory().unwrap();
        old.execute_batch(
            "CREATE TABLE facts (id INTEGER PRIMARY KEY, text TEXT, key TEXT, category TEXT,
                 scope TEXT, vault TEXT, first_seen TEXT, last_seen TEXT, times_seen INTEGER,
                 status TEXT, archived_reason TEXT, replaced_by INTEGER);
             INSERT INTO facts VALUES (4, 'Prefers tea.', 'prefers tea', 'Preferences',
                 'global', NULL, '2025-01-01', '2025-01-01', 1, 'active', NULL, NULL);",
        )
        .unwrap();
        let mut new = ledger();
        let salvaged = new.salvage(&old).unwrap();
        assert!(
            salvaged.complete("transcripts"),
            "never there: nothing lost"
        );
        let f = new.fact(4).unwrap().unwrap();
        assert_eq!(
            (f.text.as_str(), f.origin),
            ("Prefers tea.", Origin::Extracted)
        );
    }

    #[test]
    fn a_file_that_is_no_database_gives_nothing_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.sqlite3");
        std::fs::write(&path, vec![0x5au8; 8192]).unwrap();
        let src = Connection::open(&path).unwrap();
        let mut new = ledger();
        let salvaged = new.salvage(&src).unwrap();
        assert!(salvaged.tables.iter().all(|t| !t.complete && t.rows == 0));
        assert!(salvaged.tables[0].error.is_some());
    }
}
