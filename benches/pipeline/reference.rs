//! What a run decided, as text two binaries can be compared by: the ledger's facts, their
//! sources, wordings and events, the transcripts it marked done and what it rendered, then
//! memory.md and each vault's CLAUDE.md, byte for byte.
//!
//! Only what a decision shows is kept: clock readings (`processed_at`, an event's `at`,
//! the runs table) and file mtimes are left out, and the sandbox's own path becomes
//! `$SANDBOX`, so the same corpus in two sandboxes dumps to the same text. It runs nothing;
//! the bench runs the binaries.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OpenFlags, types::ValueRef};

/// The tables compared, each with the columns left out (clock readings and mtimes).
const TABLES: &[(&str, &[&str])] = &[
    ("facts", &[]),
    ("fact_sources", &[]),
    ("fact_wordings", &[]),
    ("fact_events", &["id", "at"]),
    ("transcripts", &["mtime_ns", "processed_at"]),
    ("rendered", &[]),
];

/// The decisions left in `root` (a sandbox holding `home/` and `vaults/`), as lines of text.
pub fn decisions(root: &Path, vaults: &[&str]) -> Result<String> {
    let ledger = root.join("home/.local/state/memory-loop/ledger.sqlite3");
    let conn = Connection::open_with_flags(&ledger, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("could not open {}", ledger.display()))?;
    let mut out = String::new();
    for (table, skip) in TABLES {
        dump_table(&conn, table, skip, &mut out)?;
    }
    let mut files = vec!["home/.claude/rules/memory.md".to_owned()];
    files.extend(vaults.iter().map(|v| format!("vaults/{v}/CLAUDE.md")));
    for file in files {
        let text = fs::read_to_string(root.join(&file)).unwrap_or_default();
        let _ = writeln!(out, "== {file}\n{text}");
    }
    let sandbox = root.to_string_lossy();
    Ok(out.replace(sandbox.as_ref(), "$SANDBOX"))
}

fn dump_table(conn: &Connection, table: &str, skip: &[&str], out: &mut String) -> Result<()> {
    let columns: Vec<String> = conn
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?
        .into_iter()
        .filter(|c| !skip.contains(&c.as_str()))
        .collect();
    let list = columns.join(", ");
    let mut stmt = conn.prepare(&format!("SELECT {list} FROM {table} ORDER BY {list}"))?;
    let mut rows = stmt.query([])?;
    let _ = writeln!(out, "== {table} ({list})");
    while let Some(row) = rows.next()? {
        let cells: Vec<String> = (0..columns.len())
            .map(|i| match row.get_ref(i) {
                Ok(ValueRef::Null) => "NULL".to_owned(),
                Ok(ValueRef::Integer(n)) => n.to_string(),
                Ok(ValueRef::Real(x)) => x.to_string(),
                Ok(ValueRef::Text(t) | ValueRef::Blob(t)) => {
                    format!("{:?}", String::from_utf8_lossy(t))
                }
                Err(err) => format!("<{err}>"),
            })
            .collect();
        let _ = writeln!(out, "{}", cells.join(" | "));
    }
    Ok(())
}

/// Fails, naming the first line that differs and where both dumps were saved, unless
/// `ours` and `theirs` are the same text.
pub fn same(what: &str, ours: &str, theirs: &str, keep: &Path) -> Result<()> {
    if ours == theirs {
        return Ok(());
    }
    let ours_path = keep.join(format!("{what}.ours.txt"));
    let theirs_path = keep.join(format!("{what}.reference.txt"));
    fs::write(&ours_path, ours)?;
    fs::write(&theirs_path, theirs)?;
    let (n, (a, b)) = ours
        .lines()
        .chain(std::iter::repeat("<end>"))
        .zip(theirs.lines().chain(std::iter::repeat("<end>")))
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .unwrap_or((0, ("?", "?")));
    bail!(
        "{what}: this binary decided differently from the reference, first at line {}:\n  ours:      {a}\n  reference: {b}\n(diff {} {})",
        n + 1,
        ours_path.display(),
        theirs_path.display()
    )
}
