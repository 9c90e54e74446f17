//! The files a run reads and writes besides the ledger: the prompt in use (the override
//! named, or the built-in one) and whether it declares categories; the memory file, whose
//! directory must be writable (every write is a temp file there and a rename) or creatable,
//! with its size against the cap and frontmatter that would make Claude Code skip it.
//!
//! Writability is asked of the system (`access`), never tried: doctor writes nothing.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::Check;
use crate::config::Resolved;
use crate::prompt::Prompt;

/// The prompt's line: which file is in use and its categories, or why it cannot be used.
pub(super) fn prompt(prompt: &Result<Prompt>) -> Check {
    match prompt {
        Ok(Prompt {
            notice: Some(notice),
            ..
        }) => Check::warn("prompt", notice.clone()).fix(
            "fix it in Memory Loop's settings (or delete it), or write your own with `memloop prompt edit`",
        ),
        Ok(p) => Check::ok(
            "prompt",
            format!("{}, categories: {}", p.describe(), p.categories.join(", ")),
        ),
        Err(e) => Check::error("prompt", format!("{e:#}")).fix(
            "`memloop prompt edit` to correct it, or `memloop prompt reset` for the built-in one; until then every run exits 2",
        ),
    }
}

/// How many names (hard links) the file at `path` has; 1 when that cannot be read.
fn links(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(1, |m| crate::fsutil::names(&m))
}

/// The memory file's lines: where it is and whether a run can write it, then what Claude
/// Code would make of it.
pub(super) fn memory(cfg: &Resolved) -> Vec<Check> {
    let path = &cfg.memory_file;
    let max = cfg.config.memory.max_bytes;
    // A link is written through: the directory that matters is the target's.
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
    if let Err(problem) = writable_dir(target.parent().unwrap_or(Path::new("."))) {
        return vec![
            Check::error(
                "memory",
                format!("memory file {} cannot be written: {problem}", path.display()),
            )
            .fix(format!(
                "let this user write there, or set [memory] path in {} to a file in a writable directory",
                cfg.paths.config_file.display()
            )),
        ];
    }
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return vec![Check::ok(
                "memory",
                format!(
                    "memory file {} (not written yet; its directory is writable or can be created)",
                    path.display()
                ),
            )];
        }
        Err(e) => {
            return vec![
                Check::error("memory", format!("memory file {}: {e}", path.display()))
                    .fix("let this user read it: memloop reads your edits back before each write"),
            ];
        }
    };
    if std::fs::metadata(&target).is_ok_and(|m| m.permissions().readonly()) {
        return vec![
            Check::error(
                "memory",
                format!(
                    "memory file {} is read-only: runs leave it as it is and fail it",
                    path.display()
                ),
            )
            .fix(format!("make it writable: chmod u+w {}", path.display())),
        ];
    }
    let mut out = Vec::new();
    let mut line = format!(
        "memory file {} ({} of {max} bytes)",
        path.display(),
        text.len()
    );
    let names = links(&target);
    if names > 1 {
        line.push_str(&format!(
            "; it has {names} names (hard links), so memloop writes it in place and every name sees the same file"
        ));
    }
    out.push(if text.len() > max {
        // What is left with no fact at all: the header and the user's own text.
        let own = crate::render::memory(&[], &[], max, Some(&text)).text.len();
        if own > max {
            Check::warn(
                "memory",
                format!("{line}; the text you wrote in it (not its bullets) is {own} bytes by itself"),
            )
            .fix(
                "runs show no fact while that text alone is over the cap: shorten it, or raise [memory] max_bytes",
            )
        } else {
            Check::warn("memory", line).fix(
                "the next run archives the least reinforced facts to fit; raise [memory] max_bytes to keep more",
            )
        }
    } else {
        Check::ok("memory", line)
    });
    if text.starts_with("---") {
        out.push(
            Check::warn(
                "memory",
                format!(
                    "{} starts with YAML frontmatter: Claude Code skips a rule file with `paths:`",
                    path.display()
                ),
            )
            .fix("remove the frontmatter block at the top of the file"),
        );
    }
    out
}

/// Whether files can be created in `dir`, or in the directories a write would create on the
/// way to it; the reason when not.
pub(super) fn writable_dir(dir: &Path) -> Result<(), String> {
    let mut existing: PathBuf = dir.to_path_buf();
    while !existing.exists() {
        match existing.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => existing = parent.to_path_buf(),
            _ => return Err(format!("no directory of {} exists", dir.display())),
        }
    }
    if !existing.is_dir() {
        return Err(format!("{} is not a directory", existing.display()));
    }
    rustix::fs::access(
        &existing,
        rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK,
    )
    .map_err(|e| {
        format!(
            "{} is not writable by this user ({})",
            existing.display(),
            std::io::Error::from(e)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_writable_or_creatable_under_a_writable_one() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(writable_dir(dir.path()), Ok(()));
        assert_eq!(writable_dir(&dir.path().join("a/b/c")), Ok(()));
        let file = dir.path().join("f");
        std::fs::File::create(&file).unwrap();
        let err = writable_dir(&file.join("rules")).unwrap_err();
        assert!(err.ends_with("is not a directory"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_directory_is_not_writable() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let locked = dir.path().join("locked");
        std::fs::create_dir(&locked).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).unwrap();
        // root writes anywhere: nothing to check then.
        if std::fs::File::create(locked.join("probe")).is_ok() {
            return;
        }
        let err = writable_dir(&locked.join("rules")).unwrap_err();
        assert!(err.contains("is not writable by this user"), "{err}");
    }
}
