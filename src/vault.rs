//! Vault discovery, following Memory Loop's layout: which directories are vaults, where
//! their content root and inbox are (`.memory-loop.json`), and which transcripts sit in
//! `{contentRoot}/{inbox}/chats`.
//!
//! It only looks at directories and reads `.memory-loop.json`. It does not read or parse
//! transcripts (see `transcript`), decide which ones are new or settled (the pipeline and
//! the ledger), or touch `CLAUDE.md` (see `fence`).
//!
//! The vault directory itself is canonicalized when it is opened: `alpha`, `./alpha/`,
//! `/vaults/alpha` and a path through a symlink all name the same vault, with the same
//! absolute root and transcript paths, because the ledger keys transcripts by path.
//!
//! Reads stay inside the vault: a content root, inbox, chats directory, transcript or
//! `.memory-loop.json` whose symlinks lead out of the canonical root is refused, and so is
//! a special file (a FIFO, a socket, a device), each named with why (`fsutil::Refusal`).
//! A symlink that stays inside the vault is followed, and its path inside the vault is
//! the one kept.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::fsutil::{self, Confined, Refusal};

/// The per-vault settings file Memory Loop reads.
pub const SETTINGS_FILE: &str = ".memory-loop.json";

/// The file that makes a directory under the vaults directory a vault.
pub const MARKER_FILE: &str = "CLAUDE.md";

/// Inbox directories Memory Loop looks for, in order, when `inboxPath` is not set.
pub const INBOX_CANDIDATES: [&str; 6] = [
    "00_Inbox", "00-Inbox", "Inbox", "inbox", "_Inbox", "0-Inbox",
];

/// The inbox when `inboxPath` is not set and no candidate exists yet.
const DEFAULT_INBOX: &str = "00_Inbox";

/// A vault, with its paths resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vault {
    /// The name of the canonical vault directory: for a symlinked vault, the target's name.
    pub name: String,
    /// The vault directory, canonical: absolute, with symlinks and `.`/`..` resolved.
    pub root: PathBuf,
    /// Where the notes live: `root` or `root/{contentRoot}`, joined lexically.
    pub content_root: PathBuf,
    /// The inbox directory, relative to `content_root` (empty: the content root itself).
    pub inbox: PathBuf,
    /// What the user should hear about this vault that does not stop it from being read:
    /// a `.memory-loop.json` that Memory Loop ignores, and memloop with it.
    pub warnings: Vec<String>,
    /// Where its transcripts come from.
    pub kind: Kind,
}

/// Where a vault's transcripts come from, and where its insights go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A Memory Loop vault: `*.md` chats in its inbox, insights in its `CLAUDE.md`.
    MemoryLoop,
    /// A Claude Code project (`claude_code::project`): `*.jsonl` sessions directly in
    /// `root`, Claude Code's directory for the project; the vault's name is the project's
    /// working directory.
    ClaudeCode {
        /// The project's working directory, where its `CLAUDE.local.md` is.
        project: PathBuf,
        /// The user opted this project in to insights in its `CLAUDE.local.md`, and git
        /// ignores that file: without both, its facts stay in the ledger, unwritten.
        insights: bool,
    },
}

impl Vault {
    /// The directory its transcripts are in: `{content_root}/{inbox}/chats` for a Memory
    /// Loop vault, Claude Code's session directory for a project.
    #[must_use]
    pub fn chats_dir(&self) -> PathBuf {
        match self.kind {
            Kind::MemoryLoop => self.content_root.join(&self.inbox).join("chats"),
            Kind::ClaudeCode { .. } => self.root.clone(),
        }
    }

    /// The file its insights fence lives in: the vault's `CLAUDE.md`, or a project's
    /// `CLAUDE.local.md`.
    #[must_use]
    pub fn claude_md(&self) -> PathBuf {
        match &self.kind {
            Kind::MemoryLoop => self.root.join(MARKER_FILE),
            Kind::ClaudeCode { project, .. } => project.join(LOCAL_FILE),
        }
    }

    /// Whether its insights are written at all (`insights.enabled` aside): always for a
    /// vault, only when opted in for a project.
    #[must_use]
    pub fn writes_insights(&self) -> bool {
        match self.kind {
            Kind::MemoryLoop => true,
            Kind::ClaudeCode { insights, .. } => insights,
        }
    }

    /// The directory its insights file must stay inside once symlinks are followed.
    #[must_use]
    pub fn insights_root(&self) -> &Path {
        match &self.kind {
            Kind::MemoryLoop => &self.root,
            Kind::ClaudeCode { project, .. } => project,
        }
    }

    /// Whether it is a Claude Code project rather than a Memory Loop vault.
    #[must_use]
    pub fn is_project(&self) -> bool {
        matches!(self.kind, Kind::ClaudeCode { .. })
    }

    /// The file name its transcripts end with.
    fn extension(&self) -> &'static [u8] {
        match self.kind {
            Kind::MemoryLoop => b".md",
            Kind::ClaudeCode { .. } => b".jsonl",
        }
    }
}

/// The git-ignored file Claude Code loads as the user's own instructions for a project:
/// where a project's insights go when the user opts in.
pub const LOCAL_FILE: &str = "CLAUDE.local.md";

/// Why a directory could not be used as a vault; every message names the path.
///
/// Messages are complete on their own (the I/O reason is part of them), so they can be
/// reported as `path: reason` without walking an error chain.
#[derive(Debug, thiserror::Error)]
pub enum VaultError {
    /// The vaults directory does not exist.
    #[error("vaults directory {} does not exist", path.display())]
    VaultsDirMissing {
        /// The vaults directory.
        path: PathBuf,
    },
    /// A vault directory (given with `--vault` or `vaults = [...]`) does not exist.
    #[error("vault directory {} does not exist", path.display())]
    Missing {
        /// The vault directory.
        path: PathBuf,
    },
    /// The vault path exists but is not a directory.
    #[error("vault {} is not a directory", path.display())]
    NotADirectory {
        /// The vault path.
        path: PathBuf,
    },
    /// A directory or `.memory-loop.json` could not be read.
    #[error("could not read {}: {reason}", path.display())]
    Unreadable {
        /// What could not be read.
        path: PathBuf,
        /// The I/O error.
        reason: io::Error,
    },
    /// `inboxPath` is absolute or climbs out of the content root.
    #[error("{}: inboxPath {inbox:?} escapes the content root", path.display())]
    InboxEscapes {
        /// The settings file.
        path: PathBuf,
        /// The offending `inboxPath`.
        inbox: String,
    },
    /// A directory or file of the vault leads out of it, or is a special file: not read.
    #[error("{} was not read: {refusal}", path.display())]
    Refused {
        /// The path as it is spelled inside the vault.
        path: PathBuf,
        /// Why.
        refusal: Refusal,
    },
}

impl VaultError {
    /// The path the error is about.
    #[must_use]
    pub fn path(&self) -> &Path {
        match self {
            VaultError::VaultsDirMissing { path }
            | VaultError::Missing { path }
            | VaultError::NotADirectory { path }
            | VaultError::Unreadable { path, .. }
            | VaultError::InboxEscapes { path, .. }
            | VaultError::Refused { path, .. } => path,
        }
    }
}

/// What memloop reads from `.memory-loop.json`; Memory Loop writes many other keys.
#[derive(Debug, Default)]
struct Settings {
    content_root: Option<String>,
    inbox_path: Option<String>,
}

/// Opens the vault at `dir`, resolving its canonical root, content root and inbox.
///
/// `dir` needs no `CLAUDE.md`: that test belongs to [`discover`]. However `dir` is spelled
/// (relative, with `.`/`..` or a trailing slash, through a symlink), the same directory
/// gives the same [`Vault`].
///
/// # Errors
///
/// The directory is missing, not a directory or cannot be canonicalized;
/// `.memory-loop.json` cannot be read; its `inboxPath` escapes the content root. One that
/// Memory Loop would ignore (not JSON, not an object) means the defaults, as it does
/// there, with a warning in [`Vault::warnings`].
pub fn open(dir: &Path) -> Result<Vault, VaultError> {
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(VaultError::NotADirectory {
                path: dir.to_path_buf(),
            });
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(VaultError::Missing {
                path: dir.to_path_buf(),
            });
        }
        Err(reason) => {
            return Err(VaultError::Unreadable {
                path: dir.to_path_buf(),
                reason,
            });
        }
    }
    let name = given_name(dir);
    let dir = fs::canonicalize(dir).map_err(|reason| VaultError::Unreadable {
        path: dir.to_path_buf(),
        reason,
    })?;
    let settings_path = dir.join(SETTINGS_FILE);
    let (settings, warnings) = match read_settings(&dir, &settings_path)? {
        Ok(settings) => (settings, Vec::new()),
        Err(why) => (
            Settings::default(),
            vec![format!(
                "{}: {why}: Memory Loop ignores it and uses its defaults, and so does memloop",
                settings_path.display()
            )],
        ),
    };

    // Memory Loop ignores an unusable contentRoot, so transcripts are then at the root.
    let content_root = match settings.content_root.as_deref().and_then(inside) {
        Some(rel) if !rel.as_os_str().is_empty() => dir.join(rel),
        _ => dir.to_path_buf(),
    };
    // Memory Loop writes to `${contentRoot}/${inboxPath}/chats`, a string joined as is: ""
    // and "." are the content root, a leading `/` only doubles a separator, and blanks are
    // a directory's name like any other.
    let inbox = match settings.inbox_path {
        Some(raw) => inside(raw.trim_start_matches('/')).ok_or(VaultError::InboxEscapes {
            path: settings_path,
            inbox: raw,
        })?,
        None => detect_inbox(&content_root),
    };
    Ok(Vault {
        name: name.unwrap_or_else(|| vault_name(&dir)),
        root: dir,
        content_root,
        inbox,
        warnings,
        kind: Kind::MemoryLoop,
    })
}

/// The settings, or why Memory Loop would ignore the file (it then uses its defaults,
/// `loadVaultConfig` in its vault config); `Err` only when the file cannot be read.
fn read_settings(root: &Path, path: &Path) -> Result<Result<Settings, String>, VaultError> {
    let unreadable = |reason| VaultError::Unreadable {
        path: path.to_path_buf(),
        reason,
    };
    let bytes = match fsutil::read_within(root, path) {
        Ok(bytes) => bytes,
        Err(Confined::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Ok(Settings::default()));
        }
        Err(Confined::Io(e)) => return Err(unreadable(e)),
        Err(Confined::Refused(refusal)) => {
            return Err(VaultError::Refused {
                path: path.to_path_buf(),
                refusal,
            });
        }
    };
    // Read as Memory Loop reads it: invalid UTF-8 becomes U+FFFD, and a byte-order mark
    // is not skipped, so JSON.parse refuses the file.
    let text = String::from_utf8_lossy(&bytes);
    if text.starts_with('\u{feff}') {
        return Ok(Err(
            "it starts with a byte-order mark, which Memory Loop cannot parse".to_owned(),
        ));
    }
    let value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => return Ok(Err(format!("not valid JSON ({e})"))),
    };
    let Some(object) = value.as_object() else {
        return Ok(Err(format!("not a JSON object ({})", json_kind(&value))));
    };
    // Memory Loop skips known keys whose value is not a string; so must we, to look where
    // it writes.
    let string = |key: &str| object.get(key).and_then(|v| v.as_str()).map(str::to_owned);
    Ok(Ok(Settings {
        content_root: string("contentRoot"),
        inbox_path: string("inboxPath"),
    }))
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// `raw` as a normalised relative path, or `None` when it is absolute or climbs above
/// its base with `..`.
fn inside(raw: &str) -> Option<PathBuf> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in Path::new(raw).components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

fn detect_inbox(content_root: &Path) -> PathBuf {
    let found = INBOX_CANDIDATES
        .iter()
        .find(|name| content_root.join(name).is_dir());
    PathBuf::from(found.copied().unwrap_or(DEFAULT_INBOX))
}

/// The directory's own name; for `.` or `..` the name of what they resolve to.
/// The vault's name as the user spelled its path (`./work/`, `notes/../work` and a symlink
/// called `work` are all "work"); `None` when the spelling has no last name (`.`).
fn given_name(dir: &Path) -> Option<String> {
    let mut names: Vec<&std::ffi::OsStr> = Vec::new();
    for component in dir.components() {
        match component {
            Component::Normal(name) => names.push(name),
            Component::ParentDir => {
                names.pop()?;
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    names.last().map(|n| n.to_string_lossy().into_owned())
}

fn vault_name(dir: &Path) -> String {
    if let Some(name) = dir.file_name() {
        return name.to_string_lossy().into_owned();
    }
    let resolved = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    resolved.file_name().map_or_else(
        || resolved.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// Finds the vaults: each non-hidden subdirectory of `vaults_dir` holding a `CLAUDE.md`,
/// plus every `extra` directory (which needs none).
///
/// One entry per vault, deduplicated by canonical path (the root [`open`] gives) and
/// sorted by name then path; a symlinked vault is named after its target, so it sorts and
/// dedups as the directory it points to. A vault that cannot be opened is an `Err` entry
/// so that the others still run. A missing or unreadable `vaults_dir` is an `Err` entry
/// too.
#[must_use]
pub fn discover(vaults_dir: Option<&Path>, extra: &[PathBuf]) -> Vec<Result<Vault, VaultError>> {
    let mut found: Vec<Result<Vault, VaultError>> = Vec::new();
    if let Some(dir) = vaults_dir {
        match candidates(dir) {
            Ok(dirs) => found.extend(dirs.iter().map(|d| open(d))),
            Err(e) => found.push(Err(e)),
        }
    }
    found.extend(extra.iter().map(|d| open(d)));

    // The error sorts after a vault of the same path, so dedup keeps the vault.
    found.sort_by_cached_key(|entry| match entry {
        Ok(vault) => (vault.name.clone(), vault.root.clone(), false),
        Err(e) => (vault_name(e.path()), e.path().to_path_buf(), true),
    });
    let mut seen = HashSet::new();
    found.retain(|entry| {
        let path = match entry {
            Ok(vault) => &vault.root,
            Err(e) => e.path(),
        };
        seen.insert(fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    });
    found
}

/// The non-hidden subdirectories of `dir` that contain a `CLAUDE.md` file.
fn candidates(dir: &Path) -> Result<Vec<PathBuf>, VaultError> {
    let unreadable = |reason| VaultError::Unreadable {
        path: dir.to_path_buf(),
        reason,
    };
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(VaultError::VaultsDirMissing {
                path: dir.to_path_buf(),
            });
        }
        Err(e) => return Err(unreadable(e)),
    };
    let mut dirs = Vec::new();
    for entry in entries {
        let entry = entry.map_err(unreadable)?;
        if is_hidden(&entry.file_name()) {
            continue;
        }
        let path = entry.path();
        // fs::metadata follows symlinks: a symlinked vault or CLAUDE.md counts.
        // A directory memloop may not look into could be a vault: `open` reports it rather
        // than the run passing it over in silence.
        let is_vault = path.is_dir()
            && match fs::metadata(path.join(MARKER_FILE)) {
                Ok(m) => m.is_file(),
                Err(e) => e.kind() == io::ErrorKind::PermissionDenied,
            };
        if is_vault {
            dirs.push(path);
        }
    }
    Ok(dirs)
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b".")
}

/// What a vault's chats directory holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chats {
    /// The transcripts: regular, non-hidden `*.md` files directly in the chats directory
    /// (symlinks to files inside the vault count), sorted by path.
    pub transcripts: Vec<PathBuf>,
    /// Each transcript's size and mtime as listed, parallel to `transcripts`: the scan
    /// compares them with the ledger without a second stat of every file. `None`: it could
    /// not be looked at (a link loop, no permission), and the scan says why.
    pub stamps: Vec<Option<Stamp>>,
    /// `*.md` entries that are not read, with why: links out of the vault, special files.
    /// Sorted by path.
    pub refused: Vec<(PathBuf, Refusal)>,
}

/// A listed transcript's size, modification time and permissions (of the file a link
/// leads to): what the ledger and a kept failure's fingerprint compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub len: u64,
    pub modified: std::time::SystemTime,
    /// The permission bits on Unix; elsewhere 1 for read-only, 0 otherwise.
    pub mode: u32,
}

impl Stamp {
    /// The stamp of what `meta` describes.
    #[must_use]
    pub fn of(meta: &fs::Metadata) -> Self {
        #[cfg(unix)]
        let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions());
        #[cfg(not(unix))]
        let mode = u32::from(meta.permissions().readonly());
        Self {
            len: meta.len(),
            modified: meta.modified().unwrap_or(std::time::UNIX_EPOCH),
            mode,
        }
    }
}

/// Lists the vault's chats directory without opening a file in it.
///
/// # Errors
///
/// The content root, inbox or chats directory leads out of the vault
/// ([`VaultError::Refused`], naming the outermost one that does), or the chats directory
/// exists but cannot be listed. A missing one is an empty listing.
pub fn chats(vault: &Vault) -> Result<Chats, VaultError> {
    let dir = vault.chats_dir();
    let on_the_way = [
        vault.content_root.clone(),
        vault.content_root.join(&vault.inbox),
        dir.clone(),
    ];
    let mut real = PathBuf::new();
    for path in on_the_way {
        match fsutil::resolve_within(&vault.root, &path) {
            Ok(r) => real = r,
            Err(Confined::Refused(refusal)) => return Err(VaultError::Refused { path, refusal }),
            Err(Confined::Io(reason)) => return Err(VaultError::Unreadable { path, reason }),
        }
    }
    let unreadable = |reason| VaultError::Unreadable {
        path: dir.clone(),
        reason,
    };
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Chats::default()),
        Err(e) => return Err(unreadable(e)),
    };
    let confined = fsutil::ConfinedDir::new(&real).map_err(unreadable)?;
    let mut listed = Vec::new();
    let mut chats = Chats::default();
    for entry in entries {
        let entry = entry.map_err(unreadable)?;
        let name = entry.file_name();
        // `*.md`, by the name's bytes: what `Path::extension` says of a name that is not
        // hidden, without parsing a path for each of thousands of entries.
        let is_md = name.as_encoded_bytes().ends_with(vault.extension());
        // A subagent's session (`agent-*.jsonl`) is the model talking to itself.
        let sidechain = vault.is_project() && name.as_encoded_bytes().starts_with(b"agent-");
        if !is_md || sidechain || is_hidden(&name) {
            continue;
        }
        let path = entry.path();
        match confined.stat(&vault.root, &entry) {
            Ok(meta) => listed.push((name, path, Some(Stamp::of(&meta)))),
            Err(Confined::Refused(refusal)) => chats.refused.push((path, refusal)),
            // Directories and dangling links: not transcripts, as Memory Loop sees them.
            Err(Confined::Io(e))
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::IsADirectory
                ) => {}
            // A link loop or a file that may not be looked at: the scan reports why.
            Err(Confined::Io(_)) => listed.push((name, path, None)),
        }
    }
    // All in one directory: by file name, bytewise, which is the order of the paths, and
    // far cheaper than comparing paths component by component.
    listed.sort_unstable_by(|a, b| a.0.as_encoded_bytes().cmp(b.0.as_encoded_bytes()));
    (chats.transcripts, chats.stamps) = listed.into_iter().map(|(_, p, s)| (p, s)).unzip();
    chats.refused.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(chats)
}

/// The vault's transcripts: [`chats`] without what it refused.
///
/// # Errors
///
/// As [`chats`].
pub fn transcripts(vault: &Vault) -> Result<Vec<PathBuf>, VaultError> {
    chats(vault).map(|c| c.transcripts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tempfile::TempDir;

    /// A temporary directory seen through its canonical path, the one [`open`] reports
    /// (a temp dir may sit behind a symlink, as `/var` -> `/private/var` on macOS).
    struct Tmp {
        _dir: TempDir,
        path: PathBuf,
    }

    impl Tmp {
        fn new() -> Tmp {
            let dir = TempDir::new().expect("tempdir");
            let path = fs::canonicalize(dir.path()).expect("canonical tempdir");
            Tmp { _dir: dir, path }
        }

        fn path(&self) -> &Path {
            &self.path
        }
    }

    fn mkdirs(base: &Path, dirs: &[&str]) {
        for d in dirs {
            fs::create_dir_all(base.join(d)).expect("create dir");
        }
    }

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create parent");
        }
        fs::write(path, text).expect("write file");
    }

    fn vault_dir(base: &Path, name: &str) -> PathBuf {
        let dir = base.join(name);
        write(&dir.join(MARKER_FILE), "# Vault\n");
        dir
    }

    #[test]
    fn defaults_without_settings() {
        let tmp = Tmp::new();
        let dir = vault_dir(tmp.path(), "notes");
        let vault = open(&dir).expect("opens");
        assert_eq!(
            vault,
            Vault {
                name: "notes".into(),
                root: dir.clone(),
                content_root: dir.clone(),
                inbox: "00_Inbox".into(),
                warnings: Vec::new(),
                kind: crate::vault::Kind::MemoryLoop,
            }
        );
        assert_eq!(vault.chats_dir(), dir.join("00_Inbox").join("chats"));
    }

    #[test]
    fn inbox_fallback_order() {
        let cases: &[(&[&str], &str)] = &[
            (&[], "00_Inbox"),
            (&["0-Inbox"], "0-Inbox"),
            (&["_Inbox", "0-Inbox"], "_Inbox"),
            (&["inbox", "_Inbox"], "inbox"),
            (&["Inbox", "inbox"], "Inbox"),
            (&["00-Inbox", "Inbox"], "00-Inbox"),
            (&["00_Inbox", "00-Inbox"], "00_Inbox"),
        ];
        for (dirs, want) in cases {
            let tmp = Tmp::new();
            mkdirs(tmp.path(), dirs);
            let vault = open(tmp.path()).expect("opens");
            assert_eq!(vault.inbox, PathBuf::from(want), "dirs {dirs:?}");
        }
    }

    #[test]
    fn inbox_fallback_skips_files() {
        let tmp = Tmp::new();
        write(&tmp.path().join("00_Inbox"), "not a dir");
        mkdirs(tmp.path(), &["Inbox"]);
        assert_eq!(
            open(tmp.path()).expect("opens").inbox,
            PathBuf::from("Inbox")
        );
    }

    #[test]
    fn content_root_cases() {
        let cases = [
            (r#"{"contentRoot": "content"}"#, "content"),
            (r#"{"contentRoot": "./content/"}"#, "content"),
            (r#"{"contentRoot": "a/../content"}"#, "content"),
            (r#"{"contentRoot": "site/content"}"#, "site/content"),
            (r#"{"contentRoot": ""}"#, ""),
            (r#"{"contentRoot": "."}"#, ""),
            (r#"{"contentRoot": "/etc"}"#, ""),
            (r#"{"contentRoot": "../outside"}"#, ""),
            (r#"{"contentRoot": "content/../../outside"}"#, ""),
            (r#"{"contentRoot": 42}"#, ""),
            (
                r#"{"title": "x", "metadataPath": "meta", "badges": []}"#,
                "",
            ),
        ];
        for (json, want) in cases {
            let tmp = Tmp::new();
            write(&tmp.path().join(SETTINGS_FILE), json);
            let vault = open(tmp.path()).expect("opens");
            let want = if want.is_empty() {
                tmp.path().to_path_buf()
            } else {
                tmp.path().join(want)
            };
            assert_eq!(vault.content_root, want, "{json}");
        }
    }

    #[test]
    fn inbox_is_relative_to_content_root() {
        let tmp = Tmp::new();
        write(
            &tmp.path().join(SETTINGS_FILE),
            r#"{"contentRoot": "content", "inboxPath": "journal/./daily"}"#,
        );
        let vault = open(tmp.path()).expect("opens");
        assert_eq!(vault.inbox, PathBuf::from("journal/daily"));
        assert_eq!(
            vault.chats_dir(),
            tmp.path().join("content/journal/daily/chats")
        );
    }

    #[test]
    fn fallback_inbox_is_looked_for_under_content_root() {
        let tmp = Tmp::new();
        mkdirs(tmp.path(), &["Inbox", "content/inbox"]);
        write(
            &tmp.path().join(SETTINGS_FILE),
            r#"{"contentRoot": "content"}"#,
        );
        assert_eq!(
            open(tmp.path()).expect("opens").inbox,
            PathBuf::from("inbox")
        );
    }

    #[test]
    fn escaping_inbox_is_an_error() {
        for inbox in ["../elsewhere", "/../abs/inbox", "a/../../b"] {
            let tmp = Tmp::new();
            let settings = tmp.path().join(SETTINGS_FILE);
            write(&settings, &format!(r#"{{"inboxPath": "{inbox}"}}"#));
            let err = open(tmp.path()).expect_err("escaping inbox");
            assert!(
                matches!(&err, VaultError::InboxEscapes { inbox: i, .. } if i == inbox),
                "{err:?}"
            );
            let msg = err.to_string();
            assert!(msg.contains(&settings.display().to_string()), "{msg}");
            assert!(msg.contains("escapes the content root"), "{msg}");
        }
    }

    /// Where Memory Loop writes transcripts for these `inboxPath`s, as its own
    /// `getTranscriptsDirectory` gives them under Bun (`${contentRoot}/${inboxPath}/chats`).
    #[test]
    fn inbox_paths_lead_where_memory_loop_writes() {
        for (inbox, chats) in [
            ("", "chats"),
            (".", "chats"),
            ("./", "chats"),
            ("  ", "  /chats"),
            (" Inbox", " Inbox/chats"),
            ("/Abs", "Abs/chats"),
            ("In/", "In/chats"),
            ("a/../b", "b/chats"),
        ] {
            let tmp = Tmp::new();
            mkdirs(tmp.path(), &["Inbox"]);
            let settings = serde_json::json!({ "inboxPath": inbox }).to_string();
            write(&tmp.path().join(SETTINGS_FILE), &settings);
            let vault = open(tmp.path()).expect("opens");
            let root = fs::canonicalize(tmp.path()).unwrap();
            assert_eq!(vault.chats_dir(), root.join(chats), "inboxPath {inbox:?}");
            assert!(vault.warnings.is_empty());
        }
    }

    /// Memory Loop reads `.memory-loop.json` as `{}` unless it parses to a JSON object
    /// (`loadVaultConfig`); a byte-order mark makes its JSON.parse fail too (run under Bun).
    #[test]
    fn settings_memory_loop_ignores_mean_the_defaults_with_a_warning() {
        for (body, why) in [
            (
                "{\n  \"inboxPath\": \"x\"\n  \"contentRoot\": \"y\"\n}",
                "not valid JSON (expected `,` or `}` at line 3 column 3)",
            ),
            (
                "",
                "not valid JSON (EOF while parsing a value at line 1 column 0)",
            ),
            ("[1, 2]", "not a JSON object (an array)"),
            ("\"in\"", "not a JSON object (a string)"),
            ("null", "not a JSON object (null)"),
            (
                "\u{feff}{\"inboxPath\": \"in\"}",
                "it starts with a byte-order mark, which Memory Loop cannot parse",
            ),
        ] {
            let tmp = Tmp::new();
            mkdirs(tmp.path(), &["Inbox", "in", "y"]);
            let settings = tmp.path().join(SETTINGS_FILE);
            write(&settings, body);
            let vault = open(tmp.path()).expect("opens with the defaults");
            assert_eq!(vault.inbox, PathBuf::from("Inbox"), "{body:?}");
            assert_eq!(vault.content_root, vault.root, "{body:?}");
            let root = fs::canonicalize(tmp.path()).unwrap();
            assert_eq!(
                vault.warnings,
                [format!(
                    "{}: {why}: Memory Loop ignores it and uses its defaults, and so does memloop",
                    root.join(SETTINGS_FILE).display()
                )],
                "{body:?}"
            );
        }
    }

    #[test]
    fn settings_not_in_utf8_are_read_as_memory_loop_reads_them() {
        let tmp = Tmp::new();
        fs::write(
            tmp.path().join(SETTINGS_FILE),
            b"{\"title\": \"Caf\xe9\", \"inboxPath\": \"in\"}",
        )
        .unwrap();
        let vault = open(tmp.path()).expect("opens");
        assert_eq!(vault.inbox, PathBuf::from("in"));
        assert!(vault.warnings.is_empty());
    }

    #[test]
    fn unreadable_settings_is_an_error() {
        let tmp = Tmp::new();
        mkdirs(tmp.path(), &[SETTINGS_FILE]);
        let err = open(tmp.path()).expect_err("a directory is not readable as a file");
        assert!(matches!(err, VaultError::Unreadable { .. }), "{err:?}");
        assert!(err.to_string().contains(SETTINGS_FILE));
    }

    #[test]
    fn missing_and_non_directory_vaults() {
        let tmp = Tmp::new();
        let missing = tmp.path().join("gone");
        let err = open(&missing).expect_err("missing");
        assert!(matches!(err, VaultError::Missing { .. }));
        assert_eq!(
            err.to_string(),
            format!("vault directory {} does not exist", missing.display())
        );
        let file = tmp.path().join("file");
        write(&file, "x");
        assert!(matches!(open(&file), Err(VaultError::NotADirectory { .. })));
    }

    #[test]
    fn name_of_dot_is_the_real_directory_name() {
        let tmp = Tmp::new();
        let dir = vault_dir(tmp.path(), "dotted");
        let vault = open(&dir.join(".")).expect("opens");
        assert_eq!(vault.name, "dotted");
    }

    fn names(found: &[Result<Vault, VaultError>]) -> Vec<String> {
        found
            .iter()
            .map(|r| match r {
                Ok(v) => v.name.clone(),
                Err(e) => format!("error: {e}"),
            })
            .collect()
    }

    #[test]
    fn discover_finds_vaults_and_extras() {
        let tmp = Tmp::new();
        let vaults = tmp.path().join("vaults");
        vault_dir(&vaults, "zeta");
        let alpha = vault_dir(&vaults, "alpha");
        vault_dir(&vaults, ".hidden");
        mkdirs(&vaults, &["no-claude", "dir-claude/CLAUDE.md"]);
        write(&vaults.join("loose.md"), "not a vault");
        let outside = tmp.path().join("outside");
        mkdirs(tmp.path(), &["outside"]);
        let missing = tmp.path().join("missing");

        let extra = vec![
            outside.clone(),
            vaults.join("./alpha"),
            alpha.clone(),
            missing.clone(),
        ];
        let found = discover(Some(&vaults), &extra);
        assert_eq!(
            names(&found),
            vec![
                "alpha".to_owned(),
                format!(
                    "error: vault directory {} does not exist",
                    missing.display()
                ),
                "outside".to_owned(),
                "zeta".to_owned(),
            ]
        );
        let alpha_vault = found[0].as_ref().expect("alpha opens");
        assert_eq!(alpha_vault.root, alpha);
    }

    #[test]
    fn discover_dedups_symlinked_vaults() {
        let tmp = Tmp::new();
        let real = vault_dir(tmp.path(), "real");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        let found = discover(Some(tmp.path()), &[]);
        // One vault, found twice: the first name in sort order is kept, the root is canonical.
        assert_eq!(names(&found), vec!["link".to_owned()]);
        assert_eq!(found[0].as_ref().expect("opens").root, real);
    }

    #[test]
    fn a_symlinked_vault_keeps_the_name_it_is_found_by() {
        let tmp = Tmp::new();
        let real = vault_dir(tmp.path(), "real");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        let vault = open(&link).expect("opens");
        assert_eq!(vault.name, "link", "the name the user sees");
        assert_eq!(vault.root, real);
        assert_eq!(
            given_name(Path::new("notes/../work/")).as_deref(),
            Some("work")
        );
        assert_eq!(given_name(Path::new(".")), None);
    }

    /// `path` spelled relative to the current directory, with `..` up to the root.
    fn relative_to_cwd(path: &Path) -> PathBuf {
        let cwd = fs::canonicalize(std::env::current_dir().expect("cwd")).expect("canonical cwd");
        let up = cwd.components().skip(1).map(|_| Component::ParentDir);
        let rel: PathBuf = up.chain(path.components().skip(1)).collect();
        assert!(rel.is_relative(), "{}", rel.display());
        rel
    }

    #[test]
    fn every_spelling_of_a_vault_opens_the_same_vault() {
        let tmp = Tmp::new();
        let vaults = tmp.path().join("vaults");
        let alpha = vault_dir(&vaults, "alpha");
        vault_dir(&vaults, "zeta");
        write(&alpha.join("00_Inbox/chats/b.md"), "## User\nhi\n");
        write(&alpha.join("00_Inbox/chats/a.md"), "## User\nhi\n");
        let linked = tmp.path().join("linked");
        std::os::unix::fs::symlink(&vaults, &linked).expect("symlink");

        let want = open(&alpha).expect("opens");
        assert_eq!(want.root, alpha);
        let want_transcripts = transcripts(&want).expect("lists");
        assert_eq!(
            want_transcripts,
            vec![
                alpha.join("00_Inbox/chats/a.md"),
                alpha.join("00_Inbox/chats/b.md")
            ]
        );

        let relative = relative_to_cwd(&alpha);
        let spellings = [
            relative.clone(),
            PathBuf::from(format!("./{}/", relative.display())),
            PathBuf::from(format!("{}/", alpha.display())),
            vaults.join("./alpha/."),
            vaults.join("zeta/../alpha"),
            linked.join("alpha"),
            linked.join("./alpha/"),
        ];
        for dir in &spellings {
            let vault = open(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            assert_eq!(vault, want, "{}", dir.display());
            assert_eq!(
                transcripts(&vault).expect("lists"),
                want_transcripts,
                "{}",
                dir.display()
            );
        }

        for vaults_dir in [&vaults, &linked, &relative_to_cwd(&linked)] {
            let found = discover(Some(vaults_dir), &spellings);
            assert_eq!(names(&found), ["alpha", "zeta"], "{}", vaults_dir.display());
            assert_eq!(found[0].as_ref().expect("opens"), &want);
            let zeta = found[1].as_ref().expect("opens");
            assert_eq!(zeta.root, vaults.join("zeta"));
        }
    }

    #[test]
    fn discover_keeps_broken_vaults_as_errors() {
        let tmp = Tmp::new();
        let good = vault_dir(tmp.path(), "good");
        let bad = vault_dir(tmp.path(), "bad");
        write(&bad.join(SETTINGS_FILE), r#"{"inboxPath": "../../etc"}"#);
        let found = discover(Some(tmp.path()), &[]);
        assert_eq!(found.len(), 2);
        assert!(matches!(found[0], Err(VaultError::InboxEscapes { .. })));
        assert_eq!(found[1].as_ref().expect("good opens").root, good);
    }

    #[test]
    fn discover_without_or_with_missing_vaults_dir() {
        assert!(discover(None, &[]).is_empty());
        let tmp = Tmp::new();
        let gone = tmp.path().join("gone");
        let found = discover(Some(&gone), &[]);
        assert_eq!(found.len(), 1);
        let err = found[0].as_ref().expect_err("missing vaults dir");
        assert!(matches!(err, VaultError::VaultsDirMissing { .. }));
        assert!(err.to_string().contains(&gone.display().to_string()));
    }

    #[test]
    fn transcripts_lists_markdown_files_only() {
        let tmp = Tmp::new();
        let vault = open(&vault_dir(tmp.path(), "v")).expect("opens");
        assert!(transcripts(&vault).expect("missing chats dir").is_empty());

        let chats = vault.chats_dir();
        for name in [
            "b.md",
            "a.md",
            ".hidden.md",
            "notes.txt",
            "md",
            "nested/c.md",
        ] {
            write(&chats.join(name), "## User\nhi\n");
        }
        mkdirs(&chats, &["dir.md"]);
        std::os::unix::fs::symlink(chats.join("a.md"), chats.join("linked.md")).expect("symlink");
        std::os::unix::fs::symlink(chats.join("gone"), chats.join("dangling.md")).expect("symlink");
        assert_eq!(
            transcripts(&vault).expect("lists"),
            vec![
                chats.join("a.md"),
                chats.join("b.md"),
                chats.join("linked.md")
            ]
        );
    }

    #[test]
    fn transcripts_follow_content_root_and_inbox() {
        let tmp = Tmp::new();
        let dir = vault_dir(tmp.path(), "v");
        write(
            &dir.join(SETTINGS_FILE),
            r#"{"contentRoot": "content", "inboxPath": "journal"}"#,
        );
        write(&dir.join("content/journal/chats/t.md"), "hi");
        write(&dir.join("00_Inbox/chats/wrong.md"), "hi");
        let vault = open(&dir).expect("opens");
        assert_eq!(
            transcripts(&vault).expect("lists"),
            vec![dir.join("content/journal/chats/t.md")]
        );
    }

    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("run mkfifo");
        assert!(status.success(), "mkfifo {}", path.display());
    }

    #[test]
    fn chats_refuse_links_out_of_the_vault_and_special_files_and_keep_links_inside() {
        let tmp = Tmp::new();
        let vault = open(&vault_dir(tmp.path(), "v")).expect("opens");
        let chats = vault.chats_dir();
        write(&chats.join("a.md"), "## User\nhi\n");
        write(&vault.root.join("archive/old.md"), "## User\nold\n");
        let secret = tmp.path().join("outside/secret.md");
        write(&secret, "secret");
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, chats.join(name)).expect("symlink");
        };
        link(&vault.root.join("archive/old.md"), "from-archive.md");
        link(&secret, "leak.md");
        link(Path::new("/proc/self/status"), "status.md");
        mkfifo(&chats.join("pipe.md"));

        let found = chats_of(&vault);
        assert_eq!(
            found.transcripts,
            [chats.join("a.md"), chats.join("from-archive.md")]
        );
        // A link's stamp is its target's, as a scan compares it with the ledger.
        let stamp = |p: &Path| Stamp::of(&fs::metadata(p).expect("stat"));
        assert_eq!(
            found.stamps,
            [
                Some(stamp(&chats.join("a.md"))),
                Some(stamp(&vault.root.join("archive/old.md")))
            ]
        );
        let refused: Vec<(String, String)> = found
            .refused
            .iter()
            .map(|(p, r)| {
                (
                    p.file_name().unwrap().to_string_lossy().into(),
                    r.to_string(),
                )
            })
            .collect();
        assert_eq!(refused.len(), 3, "{refused:?}");
        assert_eq!(refused[0].0, "leak.md");
        assert_eq!(
            refused[0].1,
            format!(
                "it resolves to {}, outside its vault {}",
                secret.display(),
                vault.root.display()
            )
        );
        assert_eq!(
            refused[1],
            (
                "pipe.md".into(),
                "it is a FIFO (named pipe), not a regular file".into()
            )
        );
        assert_eq!(refused[2].0, "status.md");
        assert!(refused[2].1.contains("outside its vault"), "{refused:?}");
        assert_eq!(transcripts(&vault).expect("lists"), found.transcripts);
    }

    fn chats_of(vault: &Vault) -> Chats {
        chats(vault).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_content_root_inbox_or_chats_dir_leading_out_of_the_vault_is_not_listed() {
        let cases: &[(&str, &str, &str)] = &[
            // (settings, the link inside the vault, the path the refusal names)
            (r#"{"contentRoot": "content"}"#, "content", "content"),
            (r#"{"inboxPath": "in"}"#, "in", "in"),
            (r#"{"contentRoot": "c", "inboxPath": "in"}"#, "c/in", "c/in"),
            ("{}", "00_Inbox/chats", "00_Inbox/chats"),
            ("{}", "00_Inbox", "00_Inbox"),
        ];
        for (settings, linked, named) in cases {
            let tmp = Tmp::new();
            let dir = vault_dir(tmp.path(), "v");
            write(&dir.join(SETTINGS_FILE), settings);
            let outside = tmp.path().join("outside");
            write(&outside.join("chats/secret.md"), "secret");
            write(&outside.join("secret.md"), "secret");
            let link = dir.join(linked);
            fs::create_dir_all(link.parent().unwrap()).expect("parent");
            // A chats link points at a chats-like directory; the others above one.
            let target = if linked.ends_with("chats") {
                outside.join("chats")
            } else {
                outside.clone()
            };
            std::os::unix::fs::symlink(&target, &link).expect("symlink");
            let vault = open(&dir).expect("opens");
            let err = chats(&vault).expect_err(linked);
            match &err {
                VaultError::Refused {
                    path,
                    refusal: Refusal::Outside { target: t, .. },
                } => {
                    assert_eq!(path, &dir.join(named), "{settings}");
                    assert_eq!(t, &target, "{settings}");
                }
                other => panic!("{settings}: {other:?}"),
            }
            assert!(
                err.to_string().contains("was not read: it resolves to"),
                "{err}"
            );
            assert_eq!(err.path(), dir.join(named));
        }
    }

    #[test]
    fn directories_linked_inside_the_vault_keep_working() {
        let tmp = Tmp::new();
        let dir = vault_dir(tmp.path(), "v");
        write(&dir.join(SETTINGS_FILE), r#"{"contentRoot": "content"}"#);
        write(&dir.join("real/00_Inbox/chats/t.md"), "hi");
        std::os::unix::fs::symlink(dir.join("real"), dir.join("content")).expect("symlink");
        let vault = open(&dir).expect("opens");
        assert_eq!(
            transcripts(&vault).expect("lists"),
            [dir.join("content/00_Inbox/chats/t.md")],
            "the path inside the vault is kept"
        );
    }

    #[test]
    fn settings_leading_out_of_the_vault_or_special_are_not_read() {
        let tmp = Tmp::new();
        let dir = vault_dir(tmp.path(), "v");
        let outside = tmp.path().join("shared.json");
        write(&outside, r#"{"inboxPath": "x"}"#);
        std::os::unix::fs::symlink(&outside, dir.join(SETTINGS_FILE)).expect("symlink");
        let err = open(&dir).expect_err("refused");
        assert!(
            matches!(
                &err,
                VaultError::Refused {
                    refusal: Refusal::Outside { .. },
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(err.path(), dir.join(SETTINGS_FILE));

        fs::remove_file(dir.join(SETTINGS_FILE)).expect("remove");
        mkfifo(&dir.join(SETTINGS_FILE));
        let err = open(&dir).expect_err("a FIFO is not read");
        assert!(
            matches!(
                &err,
                VaultError::Refused {
                    refusal: Refusal::Special(_),
                    ..
                }
            ),
            "{err:?}"
        );
    }
}
