//! The exit kind of an error, decided where the error is born, and the one mapping from kinds
//! to the contract's exit codes. Code that knows an error is the user's to fix (a flag, a
//! config value, the prompt file) or that the lock is taken wraps it with [`usage`] or
//! [`locked`]; everything else is a runtime failure. `cmd::main` asks [`kind_of`] once.
//!
//! It does not print anything or decide wording: messages stay with the code that fails.

use std::fmt;

use crate::config::ConfigError;
use crate::ledger::{LedgerDamaged, is_corruption};
use crate::llm::LlmError;

/// What kind of failure ended a command, and so its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Some transcripts failed, or another runtime error (1).
    Runtime,
    /// A usage or configuration error, a rejected API key and a damaged ledger included
    /// (2): it waits for the user.
    Usage,
    /// Another memloop run holds the lock; nothing was read or written (75).
    Locked,
    /// Stopped by SIGINT after committing what was answered (130).
    Interrupted,
    /// Stopped by SIGTERM after committing what was answered (143).
    Terminated,
}

impl Kind {
    /// The contract's exit status for this kind.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            Kind::Runtime => 1,
            Kind::Usage => 2,
            Kind::Locked => 75,
            Kind::Interrupted => 130,
            Kind::Terminated => 143,
        }
    }
}

/// An error that carries its kind. Built by [`usage`] and [`locked`]; found again anywhere
/// in an `anyhow` chain by [`kind_of`], so context added on the way up does not hide it.
#[derive(Debug)]
pub struct Classified {
    pub kind: Kind,
    message: String,
}

impl fmt::Display for Classified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Classified {}

/// A usage or configuration error (exit 2) with this message.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    Classified {
        kind: Kind::Usage,
        message: message.into(),
    }
    .into()
}

/// The run lock at `path` is held by another run (exit 75).
pub fn locked(path: &std::path::Path) -> anyhow::Error {
    Classified {
        kind: Kind::Locked,
        message: format!(
            "another memloop run holds the lock {}; nothing was read or written",
            path.display()
        ),
    }
    .into()
}

/// Another daemon holds the daemon lock at `path` (exit 75).
pub fn daemon_running(path: &std::path::Path) -> anyhow::Error {
    Classified {
        kind: Kind::Locked,
        message: format!(
            "another memloop daemon is running (it holds {}); this one does not start",
            path.display()
        ),
    }
    .into()
}

/// A run that a signal stopped after committing what was answered.
pub fn stopped(kind: Kind) -> anyhow::Error {
    let signal = if kind == Kind::Terminated {
        "SIGTERM"
    } else {
        "SIGINT"
    };
    Classified {
        kind,
        message: format!(
            "stopped by {signal}: what was answered is committed, the rest waits for the next run"
        ),
    }
    .into()
}

/// The exit kind of an error: the first classified cause in its chain; a configuration
/// error, a provider that rejects the key or a damaged ledger is a usage error (no retry
/// fixes it); anything else is runtime.
#[must_use]
pub fn kind_of(e: &anyhow::Error) -> Kind {
    for cause in e.chain() {
        if let Some(c) = cause.downcast_ref::<Classified>() {
            return c.kind;
        }
        if cause.downcast_ref::<ConfigError>().is_some()
            || cause.downcast_ref::<LedgerDamaged>().is_some()
            || cause
                .downcast_ref::<rusqlite::Error>()
                .is_some_and(is_corruption)
        {
            return Kind::Usage;
        }
        if let Some(l) = cause.downcast_ref::<LlmError>() {
            return if l.is_fatal() {
                Kind::Usage
            } else {
                Kind::Runtime
            };
        }
    }
    Kind::Runtime
}

/// Whether an error comes from a full disk (the OS's, or SQLite's own word for it).
#[must_use]
pub fn is_disk_full(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::StorageFull)
            || cause
                .downcast_ref::<rusqlite::Error>()
                .is_some_and(|sql| sql.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull))
    })
}

/// Whether an error comes from the disk holding `dir` being full: [`is_disk_full`], or an
/// I/O error SQLite gives there while that disk has no room left (it says "disk I/O error"
/// when it cannot grow the ledger's shared-memory file).
#[must_use]
pub fn is_disk_full_at(e: &anyhow::Error, dir: &std::path::Path) -> bool {
    let io_error = || {
        e.chain().any(|cause| {
            cause.downcast_ref::<rusqlite::Error>().is_some_and(|sql| {
                sql.sqlite_error_code() == Some(rusqlite::ErrorCode::SystemIoFailure)
            })
        })
    };
    let no_room = || {
        dir.ancestors()
            .find_map(|d| rustix::fs::statvfs(d).ok())
            .is_some_and(|s| s.f_bavail == 0)
    };
    is_disk_full(e) || (io_error() && no_room())
}

#[cfg(test)]
mod tests {
    use anyhow::Context;

    use super::*;

    #[test]
    fn the_kind_survives_context_added_on_the_way_up() {
        let e = Err::<(), _>(usage("bad prompt"))
            .context("while editing")
            .unwrap_err();
        assert_eq!(kind_of(&e), Kind::Usage);
        assert_eq!(kind_of(&locked(std::path::Path::new("/l"))), Kind::Locked);
        assert_eq!(kind_of(&anyhow::anyhow!("disk full")), Kind::Runtime);
        assert_eq!(kind_of(&stopped(Kind::Terminated)), Kind::Terminated);
        let damaged = LedgerDamaged::unreadable(std::path::Path::new("/l"), "garbage");
        let e = anyhow::Error::from(damaged).context("could not open the engine");
        assert_eq!(
            kind_of(&e),
            Kind::Usage,
            "a damaged ledger waits for the user"
        );
    }

    #[test]
    fn a_full_disk_is_told_from_other_errors() {
        let full = |e: anyhow::Error| is_disk_full(&e);
        let io = std::io::Error::from(std::io::ErrorKind::StorageFull);
        assert!(full(anyhow::Error::from(io).context("writing memory.md")));
        let sqlite = |code| rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None);
        assert!(full(
            anyhow::Error::from(sqlite(rusqlite::ffi::SQLITE_FULL)).context("committing facts")
        ));
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(!full(anyhow::Error::from(denied)));
        assert!(!full(anyhow::anyhow!("disk full, said in words only")));
        // An I/O error is a full disk only where there is no room.
        let here = std::env::temp_dir();
        let ioerr = anyhow::Error::from(sqlite(rusqlite::ffi::SQLITE_IOERR));
        assert!(
            !is_disk_full_at(&ioerr, &here),
            "{} has room",
            here.display()
        );
    }

    #[test]
    fn codes_follow_the_contract() {
        let codes: Vec<u8> = [
            Kind::Runtime,
            Kind::Usage,
            Kind::Locked,
            Kind::Interrupted,
            Kind::Terminated,
        ]
        .into_iter()
        .map(Kind::code)
        .collect();
        assert_eq!(codes, [1, 2, 75, 130, 143]);
    }
}
