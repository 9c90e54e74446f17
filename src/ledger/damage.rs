//! A ledger memloop cannot trust, and the one error that says so: a file that is not an
//! SQLite database (garbage, another program's file), one cut short, one whose pages fail
//! SQLite's own check, or one emptied while memloop's files show it wrote before. Every
//! command that meets one stops with [`LedgerDamaged`], naming the file and the way out
//! (`memloop ledger rebuild`, or a copy from a backup), with exit status 2: like a
//! configuration error, it waits for the user and no retry will fix it.
//!
//! It only recognises damage; `ledger::salvage` and `rebuild` repair it.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, ErrorCode};

/// The first 16 bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Size of an SQLite database header: a shorter non-empty file was cut short.
const HEADER_LEN: u64 = 100;

/// How many problems SQLite's check reports before it stops (the first one is shown).
const CHECK_LIMIT: u32 = 5;

/// What is wrong with a ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Damage {
    /// The file cannot be read as the ledger; why, in a few words.
    Unreadable(String),
    /// The ledger holds nothing, yet this file shows memloop wrote it before: a new ledger
    /// would extract every transcript again and bring back bullets the user deleted.
    Emptied { evidence: PathBuf },
}

/// The ledger at `path` is damaged: no command goes on with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct LedgerDamaged {
    pub path: PathBuf,
    pub damage: Damage,
}

impl std::fmt::Display for LedgerDamaged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        match &self.damage {
            Damage::Unreadable(why) => write!(
                f,
                "ledger {path} is damaged ({why}). Run `memloop ledger rebuild`: it keeps the damaged file beside the new one, salvages what can still be read and rebuilds the rest from memory.md and the vaults' CLAUDE.md; or put back a copy of the ledger from a backup"
            ),
            Damage::Emptied { evidence } => write!(
                f,
                "ledger {path} is empty, but {} shows memloop wrote it before: starting afresh would extract every transcript again and bring back bullets you deleted. Run `memloop ledger rebuild` to rebuild the ledger from memory.md and the vaults' CLAUDE.md (your transcripts are taken as processed), or put back a copy of the ledger from a backup",
                evidence.display()
            ),
        }
    }
}

impl LedgerDamaged {
    /// The ledger at `path` cannot be read: `why`.
    #[must_use]
    pub fn unreadable(path: &Path, why: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            damage: Damage::Unreadable(why.into()),
        }
    }
}

/// Whether SQLite says the database itself is broken (not a busy lock or a full disk).
#[must_use]
pub fn is_corruption(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

/// SQLite's verdict on broken data somewhere in `e`'s chain, in its own words.
#[must_use]
pub fn corruption_in(e: &anyhow::Error) -> Option<String> {
    e.chain()
        .filter_map(|c| c.downcast_ref::<rusqlite::Error>())
        .find(|e| is_corruption(e))
        .map(ToString::to_string)
}

/// Checks a ledger file's first bytes before SQLite opens it: missing or empty is a new
/// ledger; anything else must start with SQLite's header, whole.
///
/// # Errors
///
/// Why the file is not a ledger; an I/O error other than "not found" is not damage and
/// comes back as `Ok` for the open itself to report.
pub fn check_file(path: &Path) -> Result<(), String> {
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(());
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len == 0 {
        return Ok(());
    }
    let mut head = [0u8; 16];
    let read = file.read(&mut head).unwrap_or(0);
    if read < head.len() || &head != SQLITE_MAGIC {
        return Err("it is not an SQLite database".to_owned());
    }
    if len < HEADER_LEN {
        return Err(format!("it is cut short: {len} bytes"));
    }
    Ok(())
}

/// Runs SQLite's quick check over every page of `conn`'s database: `Some` complaint when
/// a page is broken.
///
/// # Errors
///
/// SQLite could not look (broken data it meets on the way is an error too: see
/// [`is_corruption`]).
pub fn check_pages(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA quick_check({CHECK_LIMIT})"))?;
    let lines = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    // SQLite heads its report with `*** in database main ***`: the first line after that
    // says enough.
    Ok(lines.iter().find(|l| *l != "ok").map(|report| {
        let first = report
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("***"))
            .unwrap_or(report);
        format!("SQLite's check fails: {first}")
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_judged_by_its_first_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.sqlite3");
        assert_eq!(check_file(&path), Ok(()), "missing: a new ledger");
        std::fs::write(&path, b"").unwrap();
        assert_eq!(check_file(&path), Ok(()), "empty: a new ledger");
        std::fs::write(&path, b"{\"not\": \"sqlite\"}").unwrap();
        assert_eq!(
            check_file(&path),
            Err("it is not an SQLite database".into())
        );
        std::fs::write(&path, b"SQLite").unwrap();
        assert!(check_file(&path).is_err(), "shorter than the magic");
        std::fs::write(&path, b"SQLite format 3\0 and then nothing").unwrap();
        assert_eq!(check_file(&path), Err("it is cut short: 33 bytes".into()));
        std::fs::remove_file(&path).unwrap();
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (x)").unwrap();
        drop(conn);
        assert_eq!(check_file(&path), Ok(()));
    }

    #[test]
    fn the_message_names_the_file_and_the_way_out() {
        let e = LedgerDamaged::unreadable(Path::new("/s/ledger.sqlite3"), "it is cut short");
        let text = e.to_string();
        for part in [
            "/s/ledger.sqlite3",
            "is damaged (it is cut short)",
            "memloop ledger rebuild",
            "backup",
        ] {
            assert!(text.contains(part), "{part}: {text}");
        }
        let e = LedgerDamaged {
            path: "/s/ledger.sqlite3".into(),
            damage: Damage::Emptied {
                evidence: "/h/memory.md".into(),
            },
        };
        let text = e.to_string();
        assert!(
            text.contains("/h/memory.md shows memloop wrote it before"),
            "{text}"
        );
        assert!(text.contains("memloop ledger rebuild"), "{text}");
    }

    #[test]
    fn only_broken_data_counts_as_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x");
        std::fs::write(&path, vec![7u8; 4096]).unwrap();
        let conn = Connection::open(&path).unwrap();
        let e = conn
            .query_row("SELECT 1 FROM sqlite_master", [], |_| Ok(()))
            .unwrap_err();
        assert!(is_corruption(&e), "{e}");
        let busy = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            None,
        );
        assert!(!is_corruption(&busy));
        let chained = anyhow::Error::from(e).context("could not read facts");
        assert!(corruption_in(&chained).is_some());
        assert!(corruption_in(&anyhow::anyhow!("disk full")).is_none());
    }
}
