//! The only place that writes user files: atomic replacement (temp file, `sync_all`, rename,
//! directory fsync), write-only-if-changed, and the run lock that keeps two memloop runs
//! from interleaving. Also the confined reads of files in a vault: a path whose symlinks
//! lead out of its vault, or a special file (FIFO, socket, device, `/proc` or `/sys`
//! file), is refused without being opened, and a read never blocks.
//!
//! This module knows nothing about what it writes; deciding the bytes (rendering, fence
//! splicing) happens elsewhere. It never deletes a user file and never replaces a symlink:
//! writes go through the link to the file it points at (for a vault's files, only while
//! that file is inside the vault).

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Mode for files memloop creates: they hold personal facts.
#[cfg(unix)]
const NEW_FILE_MODE: u32 = 0o600;
/// Mode for the state directory memloop creates.
#[cfg(unix)]
const NEW_DIR_MODE: u32 = 0o700;
/// Symlink hops followed before giving up, as the kernel's own `ELOOP` limit does.
const MAX_SYMLINK_HOPS: usize = 40;
/// The lock file inside the state directory.
/// The run lock's file name in the state directory.
pub const LOCK_FILE: &str = "memloop.lock";
/// The daemon's own lock beside the run lock: held for the daemon's whole life, so a second
/// daemon refuses to start while a manual run between scheduled runs still works.
pub const DAEMON_LOCK_FILE: &str = "daemon.lock";

/// Distinguishes temp files of concurrent writes from the same process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces `path` with `bytes` atomically: readers see the old file or the new one, never
/// a mix.
///
/// Parent directories are created. An existing file keeps its permissions; a new one is
/// created `0600`. A symlink at `path` stays in place and the file it points at is replaced.
/// A read-only file is refused ([`Refusal::ReadOnly`]), even where the directory would let a
/// rename replace it.
/// On error the temporary file is removed and the target is left as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, None, None).map(|_| ())
}

/// What [`replace_if_unchanged`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replaced {
    /// The file held what was expected and now holds the new bytes.
    Done,
    /// Someone else wrote the file since it was read: nothing was replaced.
    Changed,
}

/// [`write_atomic`], but only while `path` still holds `expected` (`None`: no file), checked
/// after the new bytes are on disk and just before the rename, so an editor's save that
/// lands while memloop plans its write is seen and not overwritten.
pub fn replace_if_unchanged(
    path: &Path,
    bytes: &[u8],
    expected: Option<&[u8]>,
) -> io::Result<Replaced> {
    replace(path, bytes, Some(expected), None)
}

/// [`replace_if_unchanged`] for a file of the vault at `root` (canonical): a `path` whose
/// symlinks lead out of the vault is refused before anything is created or written.
///
/// # Errors
///
/// As [`replace_if_unchanged`]; a refusal is an error whose source is the [`Refusal`].
pub fn replace_within(
    root: &Path,
    path: &Path,
    bytes: &[u8],
    expected: Option<&[u8]>,
) -> io::Result<Replaced> {
    replace(path, bytes, Some(expected), Some(root))
}

fn replace(
    path: &Path,
    bytes: &[u8],
    expected: Option<Option<&[u8]>>,
    within: Option<&Path>,
) -> io::Result<Replaced> {
    let target = match within {
        // Judged before any directory is created: a refused path leaves no trace.
        Some(root) => resolve_within(root, path).map_err(io::Error::from)?,
        None => {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                fs::create_dir_all(parent)?;
            }
            resolve_symlinks(path)?
        }
    };
    let dir = match target.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => {
            fs::create_dir_all(dir)?;
            dir.to_path_buf()
        }
        None => PathBuf::from("."),
    };
    let existing = match fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if existing
        .as_ref()
        .is_some_and(|meta| meta.permissions().readonly())
    {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            Refusal::ReadOnly,
        ));
    }
    finish_in_place(&target)?;

    let (mut file, temp) = create_temp(&dir, &target)?;
    file.write_all(bytes)?;
    if let Some(meta) = &existing {
        file.set_permissions(meta.permissions())?;
    }
    file.sync_all()?;
    drop(file);
    if existing.as_ref().is_some_and(has_other_links) {
        return write_in_place(temp, &target, &dir, bytes, expected.flatten());
    }
    if let Some(expected) = expected {
        let replaced = swap_if_unchanged(&temp.path, &target, bytes, expected)?;
        if replaced == Replaced::Changed {
            return Ok(Replaced::Changed);
        }
    } else {
        fs::rename(&temp.path, &target)?;
    }
    temp.disarm();
    sync_dir(&dir)?;
    Ok(Replaced::Done)
}

/// Puts `new` at `target` if `target` still holds `expected`. On Linux `target` is checked,
/// then the two files are exchanged atomically and what was at `target` is checked again; a
/// save that landed in between is exchanged back, so it is never replaced, whatever the
/// timing.
/// Elsewhere the check comes just before the rename, leaving a window of microseconds.
/// On `Changed`, `new` (the temp file) is left for the caller's guard to remove.
fn swap_if_unchanged(
    new: &Path,
    target: &Path,
    ours: &[u8],
    expected: Option<&[u8]>,
) -> io::Result<Replaced> {
    swap_stepwise(new, target, ours, expected, &mut |_| Ok(()))
}

/// The points inside [`swap_stepwise`] where another program's save may land; a test lands
/// its saves there to play each interleaving deterministically.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// `target` was found holding `expected`; nothing is exchanged yet.
    Checked,
    /// Our bytes are at `target`; what they displaced is not checked yet.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Exchanged,
    /// A displaced save was exchanged back; whether another one landed is not checked yet.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    ExchangedBack,
}

/// [`swap_if_unchanged`], calling `step` at each [`Step`].
fn swap_stepwise(
    new: &Path,
    target: &Path,
    ours: &[u8],
    expected: Option<&[u8]>,
    step: &mut dyn FnMut(Step) -> io::Result<()>,
) -> io::Result<Replaced> {
    let read = |p: &Path| match fs::read(p) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    };
    #[cfg(target_os = "linux")]
    if expected.is_some() {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        // Checked before exchanging too, not only after: for the instant between the
        // exchange and the exchange back, our bytes are in the file's place, and a program
        // that reads the file then (an editor reloading it, a sync client) builds its next
        // save on text that lacks the save which had landed, and that next save erases it
        // for good. Saves land while the plan is made and the temp file written and synced
        // (milliseconds, far more on a loaded machine); this check leaves them only the
        // microseconds up to the exchange.
        if read(target)?.as_deref() != expected {
            return Ok(Replaced::Changed);
        }
        step(Step::Checked)?;
        match renameat_with(CWD, new, CWD, target, RenameFlags::EXCHANGE) {
            Ok(()) => {
                step(Step::Exchanged)?;
                // `new` now holds what was at `target` the instant before.
                if read(new)?.as_deref() == expected {
                    fs::remove_file(new)?;
                    return Ok(Replaced::Done);
                }
                // A save landed: give it back its place.
                renameat_with(CWD, new, CWD, target, RenameFlags::EXCHANGE)?;
                step(Step::ExchangedBack)?;
                // Yet another save landed in between: `new` holds it, the newest, and
                // `target` the one before it. The newest takes the place.
                if read(new)?.as_deref() != Some(ours) {
                    renameat_with(CWD, new, CWD, target, RenameFlags::EXCHANGE)?;
                }
                return Ok(Replaced::Changed);
            }
            // No such file any more, or a filesystem without exchange: check and rename.
            Err(e) if e == rustix::io::Errno::NOENT || e == rustix::io::Errno::INVAL => {}
            Err(e) => return Err(e.into()),
        }
    }
    if read(target)?.as_deref() != expected {
        return Ok(Replaced::Changed);
    }
    step(Step::Checked)?;
    fs::rename(new, target)?;
    Ok(Replaced::Done)
}

/// An exclusive lock on the state directory's `memloop.lock`, held until dropped.
#[derive(Debug)]
pub struct RunLock {
    // Closing the file releases the lock; the field only has to live as long as the guard.
    _file: File,
    path: PathBuf,
}

impl RunLock {
    /// The lock file's path, for messages.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Takes the run lock without waiting; `Ok(None)` when another run holds it.
///
/// Creates `state_dir` (`0700` for directories it creates) and the lock file. The lock is
/// advisory (`flock`-style) and released when the returned guard is dropped or the process
/// dies, so a crashed run never leaves a stale lock behind.
pub fn try_lock(state_dir: &Path) -> io::Result<Option<RunLock>> {
    lock_file(state_dir, LOCK_FILE)
}

/// Takes the daemon's lock without waiting; `Ok(None)` when another daemon holds it. Like
/// [`try_lock`], released when the guard is dropped or the process dies.
pub fn try_lock_daemon(state_dir: &Path) -> io::Result<Option<RunLock>> {
    lock_file(state_dir, DAEMON_LOCK_FILE)
}

fn lock_file(state_dir: &Path, name: &str) -> io::Result<Option<RunLock>> {
    create_private_dir(state_dir)?;
    let path = state_dir.join(name);
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, NEW_FILE_MODE);
    let file = options.open(&path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(RunLock { _file: file, path })),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(e),
    }
}

/// Follows symlinks at `path` to the file they name, which may not exist yet.
fn resolve_symlinks(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_SYMLINK_HOPS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(too_many_links(path))
}

/// Why a path in a vault is not read or written through.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Its symlinks lead out of the vault.
    #[error("it resolves to {}, outside its vault {}", target.display(), root.display())]
    Outside {
        /// Where the path leads.
        target: PathBuf,
        /// The vault's canonical root.
        root: PathBuf,
    },
    /// A FIFO, socket, device or kernel file: reading it could block, or never end, or
    /// hand the machine's state to the model.
    #[error("it is {0}, not a regular file")]
    Special(&'static str),
    /// The file has no write permission: its owner made it read-only, and replacing it by a
    /// rename (which the directory's permission allows) would go around that.
    #[error(
        "it is read-only: memloop leaves it as it is (make it writable to let memloop write it)"
    )]
    ReadOnly,
}

/// A confined lookup or read that did not happen: refused, or failed.
#[derive(Debug, thiserror::Error)]
pub enum Confined {
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl From<Confined> for io::Error {
    fn from(e: Confined) -> Self {
        match e {
            Confined::Refused(r) => io::Error::new(io::ErrorKind::PermissionDenied, r),
            Confined::Io(e) => e,
        }
    }
}

/// Where `path` leads once every symlink on the way is followed, when that is inside
/// `root` (which must be canonical). The path need not exist: a file about to be created
/// is judged by where it would land, a dangling symlink by where it points.
///
/// # Errors
///
/// [`Refusal::Outside`], or an I/O error (a symlink loop, a directory that cannot be
/// searched).
pub fn resolve_within(root: &Path, path: &Path) -> Result<PathBuf, Confined> {
    let mut hops = 0;
    let target = resolve(path, &mut hops)?;
    if target.starts_with(root) {
        Ok(target)
    } else {
        Err(Refusal::Outside {
            target,
            root: root.to_path_buf(),
        }
        .into())
    }
}

/// `path` canonical, with a missing tail joined as it is spelled and dangling symlinks
/// followed to where they point.
fn resolve(path: &Path, hops: &mut usize) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    loop {
        match fs::canonicalize(&current) {
            Ok(real) => return Ok(real),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                *hops += 1;
                if *hops > MAX_SYMLINK_HOPS {
                    return Err(too_many_links(path));
                }
                let link = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            // The last name does not exist: where its directory leads, then the name.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let (Some(parent), Some(name)) = (current.parent(), current.file_name()) else {
                    return Err(e);
                };
                let parent = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
                return Ok(resolve(parent, hops)?.join(name));
            }
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("{} cannot be resolved", current.display()),
                ));
            }
            Err(e) => return Err(e),
        }
    }
}

fn too_many_links(path: &Path) -> io::Error {
    io::Error::other(format!(
        "too many levels of symbolic links at {}",
        path.display()
    ))
}

/// The metadata of the regular file `path` leads to inside `root`, found without opening
/// it (opening a FIFO blocks).
///
/// # Errors
///
/// A [`Refusal`]; an I/O error when there is no such file or it is a directory.
pub fn stat_within(root: &Path, path: &Path) -> Result<fs::Metadata, Confined> {
    let real = resolve_within(root, path)?;
    let meta = fs::metadata(&real)?;
    check_regular(&meta)?;
    #[cfg(target_os = "linux")]
    if is_kernel_fs(&rustix::fs::statfs(&real).map_err(io::Error::from)?) {
        return Err(Refusal::Special("a kernel file (/proc or /sys)").into());
    }
    Ok(meta)
}

/// A directory already resolved inside its root, for judging its entries cheaply.
///
/// A scan stats thousands of files in one chats directory. Resolving each one's path
/// component by component (`stat_within`) costs a dozen system calls a file; an entry that
/// is a plain regular file (not a link) directly in this directory, on the directory's own
/// file system, cannot lead anywhere else, so one `fstatat` of it settles it. Anything
/// else (a symlink, a special file, a mount point) takes the full `stat_within` road.
pub struct ConfinedDir {
    /// The directory's device, when it is not a kernel file system; `None`: no shortcut.
    #[cfg(unix)]
    dev: Option<u64>,
}

impl ConfinedDir {
    /// `real` is the directory as [`resolve_within`] returned it.
    ///
    /// # Errors
    ///
    /// The directory cannot be stat'ed.
    pub fn new(real: &Path) -> io::Result<Self> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let dev = fs::metadata(real)?.dev();
            #[cfg(target_os = "linux")]
            if is_kernel_fs(&rustix::fs::statfs(real).map_err(io::Error::from)?) {
                return Ok(Self { dev: None });
            }
            Ok(Self { dev: Some(dev) })
        }
        #[cfg(not(unix))]
        {
            fs::metadata(real)?;
            Ok(Self {})
        }
    }

    /// What [`stat_within`]`(root, &entry.path())` says, for an entry of this directory.
    ///
    /// # Errors
    ///
    /// As [`stat_within`].
    pub fn stat(&self, root: &Path, entry: &fs::DirEntry) -> Result<fs::Metadata, Confined> {
        #[cfg(unix)]
        if let Some(dev) = self.dev {
            use std::os::unix::fs::MetadataExt;
            // `DirEntry::metadata` does not follow a link: a link is not `is_file`.
            if let Ok(meta) = entry.metadata()
                && meta.is_file()
                && meta.dev() == dev
            {
                return Ok(meta);
            }
        }
        stat_within(root, &entry.path())
    }
}

/// Reads the regular file `path` leads to inside `root`. The file is opened without
/// following a last symlink and without blocking, and checked again once open, so a file
/// swapped for a link or a FIFO since it was judged is refused too.
///
/// # Errors
///
/// A [`Refusal`]; an I/O error (`NotFound` when there is no file).
pub fn read_within(root: &Path, path: &Path) -> Result<Vec<u8>, Confined> {
    read_within_stat(root, path).map(|(bytes, _)| bytes)
}

/// [`read_within`], with the metadata of the file read (taken once it was open), so a
/// caller can tell whether it is still the file it judged before.
///
/// # Errors
///
/// As [`read_within`].
pub fn read_within_stat(root: &Path, path: &Path) -> Result<(Vec<u8>, fs::Metadata), Confined> {
    let real = resolve_within(root, path)?;
    read_regular(&real, false)
}

/// Reads the regular file at `path`, following symlinks wherever they lead (the memory
/// file's place is the user's choice), refusing special files without blocking on them.
///
/// # Errors
///
/// [`Refusal::Special`]; an I/O error (`NotFound` when there is no file).
pub fn read_regular_file(path: &Path) -> Result<Vec<u8>, Confined> {
    read_regular(path, true).map(|(bytes, _)| bytes)
}

fn read_regular(path: &Path, follow: bool) -> Result<(Vec<u8>, fs::Metadata), Confined> {
    use std::io::Read;
    let mut file = open_nonblocking(path, follow)?;
    let meta = file.metadata()?;
    check_regular(&meta)?;
    #[cfg(target_os = "linux")]
    if is_kernel_fs(&rustix::fs::fstatfs(&file).map_err(io::Error::from)?) {
        return Err(Refusal::Special("a kernel file (/proc or /sys)").into());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok((bytes, meta))
}

#[cfg(target_os = "linux")]
fn open_nonblocking(path: &Path, follow: bool) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
    if !follow {
        flags |= OFlags::NOFOLLOW;
    }
    Ok(File::from(rustix::fs::open(path, flags, Mode::empty())?))
}

/// Without `O_NONBLOCK` at hand, the type is checked before the open (a narrow window).
#[cfg(not(target_os = "linux"))]
fn open_nonblocking(path: &Path, follow: bool) -> io::Result<File> {
    let meta = if follow {
        fs::metadata(path)?
    } else {
        fs::symlink_metadata(path)?
    };
    if meta.file_type().is_symlink() {
        return Err(io::Error::other(format!(
            "{} became a symbolic link",
            path.display()
        )));
    }
    check_regular(&meta).map_err(|r| io::Error::new(io::ErrorKind::PermissionDenied, r))?;
    File::open(path)
}

/// `Ok` for a regular file; a [`Refusal`] for a special one; an I/O error otherwise.
fn check_regular(meta: &fs::Metadata) -> Result<(), Confined> {
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    if kind.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory").into());
    }
    Err(Refusal::Special(special_kind(&kind)).into())
}

#[cfg(unix)]
fn special_kind(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &fs::FileType) -> &'static str {
    "a special file"
}

/// `/proc` and `/sys` files look regular, but they describe the running machine.
#[cfg(target_os = "linux")]
fn is_kernel_fs(fs: &rustix::fs::StatFs) -> bool {
    const SYSFS_MAGIC: rustix::fs::FsWord = 0x6265_6572;
    fs.f_type == rustix::fs::PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC
}

/// Removes the temp file on drop unless the rename succeeded.
struct TempGuard {
    path: PathBuf,
    armed: bool,
}

impl TempGuard {
    fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        if self.armed {
            // Best effort: the original error is the one worth reporting.
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Removes the temp files a killed memloop left next to `target` (`.<name>.<pid>.<n>.tmp`,
/// for the file and its `.bak` / `.before-memloop` copies). Call it only under the run lock,
/// when no other memloop can be half way through a write. Returns how many it removed; a
/// directory that cannot be listed only leaves them.
pub fn remove_stale_temps(target: &Path) -> usize {
    // A link is written through: its target's directory holds the temp files.
    let real = fs::canonicalize(target).ok().filter(|r| r != target);
    remove_temps_beside(target) + real.map_or(0, |r| remove_temps_beside(&r))
}

fn remove_temps_beside(target: &Path) -> usize {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return 0;
    };
    let name = name.to_string_lossy();
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let file = entry.file_name();
        let file = file.to_string_lossy();
        let Some(rest) = file
            .strip_prefix('.')
            .and_then(|f| f.strip_prefix(name.as_ref()))
            .and_then(|f| f.strip_suffix(".tmp"))
        else {
            continue;
        };
        let rest = rest
            .strip_prefix(".bak")
            .or_else(|| rest.strip_prefix(".before-memloop"))
            .unwrap_or(rest);
        let numbers: Vec<&str> = rest.split('.').skip(1).collect();
        let ours = rest.starts_with('.')
            && numbers.len() == 2
            && numbers
                .iter()
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if ours
            && entry.file_type().is_ok_and(|t| t.is_file())
            && fs::remove_file(entry.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// Whether another name shares the file (a hard link: a `CLAUDE.md` shared by two vaults,
/// a memory.md linked into a dotfiles directory). A rename would leave the other names on
/// the old bytes, so such a file is written in place.
fn has_other_links(meta: &fs::Metadata) -> bool {
    names(meta) > 1
}

/// How many names (hard links) a file has; 1 where the platform does not say.
#[must_use]
pub fn names(meta: &fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
    }
}

/// The journal of an in-place write: the whole new text, beside the file, synced before
/// the file is touched and removed once it is written.
fn in_place_journal(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map_or_else(|| "memloop".into(), |n| n.to_string_lossy());
    target.with_file_name(format!(".{name}.memloop-journal"))
}

/// Writes a file that has other names in place, keeping its inode: the new bytes (`temp`,
/// complete and synced) become its journal, then the file is rewritten and synced, then
/// the journal goes. A crash in between leaves the journal, which the next write or read
/// of the file finishes first ([`finish_in_place`]).
fn write_in_place(
    temp: TempGuard,
    target: &Path,
    dir: &Path,
    bytes: &[u8],
    expected: Option<&[u8]>,
) -> io::Result<Replaced> {
    let current = fs::read(target)?;
    if expected.is_some_and(|e| e != current.as_slice()) {
        return Ok(Replaced::Changed);
    }
    let journal = in_place_journal(target);
    fs::rename(&temp.path, &journal)?;
    temp.disarm();
    sync_dir(dir)?;
    rewrite(target, bytes)?;
    fs::remove_file(&journal)?;
    sync_dir(dir)?;
    Ok(Replaced::Done)
}

fn rewrite(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).truncate(true).open(target)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Finishes an in-place write a crash interrupted: the journal beside the file `path`
/// names (through its symlinks) holds the whole text that was being written. The file is
/// rewritten from it only when it holds a start of that text (cut short); otherwise it
/// holds the old text or a save made since, which stays. Nothing to do when there is none.
///
/// # Errors
///
/// The journal or the file cannot be read or written.
pub fn finish_in_place(path: &Path) -> io::Result<()> {
    let target = resolve_symlinks(path).unwrap_or_else(|_| path.to_path_buf());
    let journal = in_place_journal(&target);
    match fs::read(&journal) {
        Ok(bytes) => {
            // Only as the crash left it (a start of the new text): a file that holds
            // anything else is the old text, kept whole, or a save of the user's.
            if fs::read(&target).is_ok_and(|now| bytes.starts_with(&now)) {
                rewrite(&target, &bytes)?;
            }
            fs::remove_file(&journal)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates a hidden temp file next to `target` so the rename stays on one filesystem.
fn create_temp(dir: &Path, target: &Path) -> io::Result<(File, TempGuard)> {
    let name = target
        .file_name()
        .map_or_else(|| "memloop".into(), |n| n.to_string_lossy());
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, NEW_FILE_MODE);
    loop {
        let unique = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".{name}.{}.{unique}.tmp", std::process::id()));
        match options.open(&path) {
            Ok(file) => return Ok((file, TempGuard { path, armed: true })),
            // A leftover from a crashed run with a recycled pid: pick the next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
}

/// Makes the rename durable. Some filesystems cannot fsync a directory; the rename has
/// already happened there, so that is not an error.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    match File::open(dir).and_then(|d| d.sync_all()) {
        Ok(()) => {}
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::InvalidInput | io::ErrorKind::Unsupported
            ) => {}
        Err(e) => return Err(e),
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, NEW_DIR_MODE);
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_hard_linked_file_is_written_in_place_and_every_name_sees_it() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.md");
        let other = dir.path().join("dotfiles-memory.md");
        fs::write(&path, "old").unwrap();
        fs::hard_link(&path, &other).unwrap();
        let inode = fs::metadata(&path).unwrap().ino();

        assert_eq!(
            replace_if_unchanged(&path, b"mine", Some(b"not what is there")).unwrap(),
            Replaced::Changed
        );
        assert_eq!(fs::read(&other).unwrap(), b"old");
        assert_eq!(
            replace_if_unchanged(&path, b"new text", Some(b"old")).unwrap(),
            Replaced::Done
        );
        assert_eq!(fs::read(&other).unwrap(), b"new text");
        assert_eq!(fs::metadata(&path).unwrap().ino(), inode);
        assert_eq!(
            entries(dir.path()),
            ["dotfiles-memory.md", "memory.md"],
            "no journal left"
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_in_place_write_a_crash_cut_short_is_finished_from_its_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.md");
        fs::write(&path, "half wri").unwrap();
        fs::write(in_place_journal(&path), "half written no more").unwrap();
        finish_in_place(&path).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"half written no more");
        assert_eq!(entries(dir.path()), ["memory.md"]);
        finish_in_place(&path).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"half written no more");
        // The old text (the crash came before the rewrite) or a save since: it stays.
        for kept in ["the old text", "the user's save"] {
            fs::write(&path, kept).unwrap();
            fs::write(in_place_journal(&path), "the new text").unwrap();
            finish_in_place(&path).unwrap();
            assert_eq!(fs::read(&path).unwrap(), kept.as_bytes());
            assert_eq!(entries(dir.path()), ["memory.md"]);
        }
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.md");
        fs::write(&path, "user's save").unwrap();
        let r = replace_if_unchanged(&path, b"ours", Some(b"what we read")).unwrap();
        assert_eq!(r, Replaced::Changed);
        assert_eq!(fs::read(&path).unwrap(), b"user's save");
        assert_eq!(entries(dir.path()), ["memory.md"], "no temp file left");
        let r = replace_if_unchanged(&path, b"ours", Some(b"user's save")).unwrap();
        assert_eq!(r, Replaced::Done);
        assert_eq!(fs::read(&path).unwrap(), b"ours");
        let new = dir.path().join("new.md");
        assert_eq!(
            replace_if_unchanged(&new, b"x", Some(b"y")).unwrap(),
            Replaced::Changed
        );
        assert_eq!(
            replace_if_unchanged(&new, b"x", None).unwrap(),
            Replaced::Done
        );
    }

    /// A save as an editor that reloads the file makes it: read the file, add a line,
    /// rename a temp file over it.
    #[cfg(target_os = "linux")]
    fn reload_and_save(path: &Path, line: &str) -> io::Result<()> {
        let text = fs::read_to_string(path)?;
        save(path, &format!("{text}{line}\n"))
    }

    /// A save of `text` from an editor's buffer, renamed over the file.
    #[cfg(target_os = "linux")]
    fn save(path: &Path, text: &str) -> io::Result<()> {
        let tmp = path.with_file_name(".editor.tmp");
        fs::write(&tmp, text)?;
        fs::rename(&tmp, path)
    }

    /// memory.md holding `base`, and memloop's temp file beside it holding `ours`.
    #[cfg(target_os = "linux")]
    fn memory_and_temp(base: &str, ours: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.md");
        fs::write(&path, base).unwrap();
        let temp = dir.path().join(".memory.md.1.0.tmp");
        fs::write(&temp, ours).unwrap();
        (dir, path, temp)
    }

    /// The save lost under load: memloop planned from `base`, the user's save landed while
    /// the temp file was written and synced, and the editor reloads the file and saves
    /// again at every point of the swap. Exchanging first put memloop's stale bytes in the
    /// file's place for an instant; the editor built its next save on them and that save
    /// erased "note 1".
    #[cfg(target_os = "linux")]
    #[test]
    fn a_save_that_landed_before_the_swap_never_sees_the_stale_bytes_in_its_place() {
        let (_dir, path, temp) = memory_and_temp("base\n", "base\n- fact\n");
        reload_and_save(&path, "note 1").unwrap();
        let mut saves = 1;
        let mut shown = Vec::new();
        let replaced = swap_stepwise(
            &temp,
            &path,
            b"base\n- fact\n",
            Some(b"base\n"),
            &mut |step| {
                shown.push((step, fs::read_to_string(&path)?));
                saves += 1;
                reload_and_save(&path, &format!("note {saves}"))
            },
        )
        .unwrap();
        assert_eq!(replaced, Replaced::Changed);
        let after = fs::read_to_string(&path).unwrap();
        for i in 1..=saves {
            assert!(
                after.contains(&format!("note {i}\n")),
                "note {i} lost: {after:?}"
            );
        }
        assert!(
            shown.iter().all(|(_, text)| !text.contains("- fact")),
            "memloop's stale bytes were in the file's place: {shown:?}"
        );
    }

    /// A save landing in the microseconds between the check and the exchange is exchanged
    /// back, and one landing after that (from the editor's buffer) takes the place as the
    /// newest: no save is replaced, and the file is memloop's only when it was unchanged.
    #[cfg(target_os = "linux")]
    #[test]
    fn saves_landing_between_the_check_and_the_exchanges_keep_the_newest_in_place() {
        let ours = "base\n- fact\n";
        // (step, text saved there) for each interleaving; the last save must win.
        let cases: [&[(Step, &str)]; 4] = [
            &[],
            &[(Step::Checked, "base\nnote 1\n")],
            &[
                (Step::Checked, "base\nnote 1\n"),
                (Step::Exchanged, "base\nnote 1\nnote 2\n"),
            ],
            &[
                (Step::Checked, "base\nnote 1\n"),
                (Step::ExchangedBack, "base\nnote 1\nnote 2\n"),
            ],
        ];
        for saves in cases {
            let (dir, path, temp) = memory_and_temp("base\n", ours);
            let replaced = swap_stepwise(
                &temp,
                &path,
                ours.as_bytes(),
                Some(b"base\n"),
                &mut |step| match saves.iter().find(|(s, _)| *s == step) {
                    Some((_, text)) => save(&path, text),
                    None => Ok(()),
                },
            )
            .unwrap();
            let after = fs::read_to_string(&path).unwrap();
            match saves.last() {
                None => {
                    assert_eq!(replaced, Replaced::Done);
                    assert_eq!(after, ours);
                    assert_eq!(entries(dir.path()), ["memory.md"]);
                }
                Some((_, newest)) => {
                    assert_eq!(replaced, Replaced::Changed, "{saves:?}");
                    assert_eq!(after, *newest, "{saves:?}");
                }
            }
        }
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn temp_files_a_killed_run_left_are_removed_and_nothing_else() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("memory.md");
        let left = [
            ".memory.md.4242.0.tmp",
            ".memory.md.bak.4242.3.tmp",
            ".memory.md.before-memloop.17.1.tmp",
        ];
        let kept = [
            "memory.md",
            ".memory.md.swp",
            ".memory.md.x.1.tmp",
            ".memory.md.1.tmp",
            ".other.md.4242.0.tmp",
            "memory.md.4242.0.tmp",
        ];
        for name in left.iter().chain(&kept) {
            fs::write(tmp.path().join(name), "x").unwrap();
        }
        assert_eq!(remove_stale_temps(&target), left.len());
        let mut want: Vec<&str> = kept.to_vec();
        want.sort_unstable();
        assert_eq!(entries(tmp.path()), want);
    }

    #[test]
    fn write_atomic_creates_parents_and_leaves_no_temp_file() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a/b/memory.md");
        write_atomic(&path, b"hello\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"hello\n");
        write_atomic(&path, b"again\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"again\n");
        assert_eq!(entries(&tmp.path().join("a/b")), ["memory.md"]);
    }

    #[cfg(unix)]
    #[test]
    fn new_files_are_private_and_existing_files_keep_their_mode() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let fresh = tmp.path().join("fresh.md");
        write_atomic(&fresh, b"x").unwrap();
        assert_eq!(
            fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
            0o600
        );

        let shared = tmp.path().join("CLAUDE.md");
        fs::write(&shared, b"old").unwrap();
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o644)).unwrap();
        write_atomic(&shared, b"new").unwrap();
        assert_eq!(
            fs::metadata(&shared).unwrap().permissions().mode() & 0o777,
            0o644
        );
        assert_eq!(fs::read(&shared).unwrap(), b"new");
    }

    #[test]
    fn a_read_only_file_is_refused_and_left_as_it_is_even_where_a_rename_would_replace_it() {
        let tmp = tempfile::tempdir().unwrap();
        let mine = tmp.path().join("CLAUDE.md");
        fs::write(&mine, b"mine").unwrap();
        let mut perms = fs::metadata(&mine).unwrap().permissions();
        perms.set_readonly(true);
        fs::set_permissions(&mine, perms).unwrap();

        for result in [
            write_atomic(&mine, b"new").map(|()| Replaced::Done),
            replace_if_unchanged(&mine, b"new", Some(b"mine")),
            replace_within(tmp.path(), &mine, b"new", Some(b"mine")),
        ] {
            let e = result.expect_err("refused");
            assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
            assert!(e.to_string().contains("read-only"), "{e}");
        }
        assert_eq!(fs::read(&mine).unwrap(), b"mine");
        assert_eq!(entries(tmp.path()), ["CLAUDE.md"], "no temp file left");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_stay_and_their_target_is_written() {
        let tmp = tempfile::tempdir().unwrap();
        let dotfiles = tmp.path().join("dotfiles");
        fs::create_dir(&dotfiles).unwrap();
        let real = dotfiles.join("memory.md");
        fs::write(&real, b"old").unwrap();
        let rules = tmp.path().join("rules");
        fs::create_dir(&rules).unwrap();
        let link = rules.join("memory.md");
        std::os::unix::fs::symlink("../dotfiles/memory.md", &link).unwrap();
        let chained = rules.join("alias.md");
        std::os::unix::fs::symlink("memory.md", &chained).unwrap();

        write_atomic(&chained, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(
            fs::symlink_metadata(&chained)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert_eq!(entries(&rules), ["alias.md", "memory.md"]);
        assert_eq!(entries(&dotfiles), ["memory.md"]);
    }

    #[cfg(unix)]
    #[test]
    fn dangling_symlink_creates_its_target() {
        let tmp = tempfile::tempdir().unwrap();
        let link = tmp.path().join("memory.md");
        let real = tmp.path().join("store/memory.md");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"x").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"x");
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_are_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a");
        std::os::unix::fs::symlink("b", &a).unwrap();
        std::os::unix::fs::symlink("a", tmp.path().join("b")).unwrap();
        assert!(write_atomic(&a, b"x").is_err());
        assert_eq!(entries(tmp.path()), ["a", "b"]);
    }

    #[test]
    fn failed_write_removes_the_temp_file_and_leaves_the_target() {
        let tmp = tempfile::tempdir().unwrap();
        // Renaming a file over a non-empty directory fails on every platform.
        let target = tmp.path().join("CLAUDE.md");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("keep"), b"kept").unwrap();
        assert!(write_atomic(&target, b"new").is_err());
        assert_eq!(entries(tmp.path()), ["CLAUDE.md"]);
        assert_eq!(fs::read(target.join("keep")).unwrap(), b"kept");
    }

    #[test]
    fn second_lock_is_refused_until_the_first_is_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let state = tmp.path().join("state/memory-loop");
        let first = try_lock(&state).unwrap().expect("first lock");
        assert_eq!(first.path(), state.join("memloop.lock"));
        assert!(try_lock(&state).unwrap().is_none());
        drop(first);
        assert!(try_lock(&state).unwrap().is_some());
    }

    #[cfg(unix)]
    #[test]
    fn lock_creates_a_private_state_dir() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let state = tmp.path().join("state/memory-loop");
        let _lock = try_lock(&state).unwrap().expect("lock");
        for dir in [tmp.path().join("state"), state.clone()] {
            assert_eq!(
                fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
                0o700,
                "{}",
                dir.display()
            );
        }
        assert_eq!(
            fs::metadata(state.join("memloop.lock"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
    }

    /// A vault with a note, a directory outside it with a secret, canonical paths.
    #[cfg(unix)]
    fn vault_and_outside() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("vault");
        let outside = base.join("outside");
        fs::create_dir_all(root.join("notes")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(root.join("notes/note.md"), b"inside").unwrap();
        fs::write(outside.join("secret.md"), b"secret").unwrap();
        (tmp, root, outside)
    }

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success(), "mkfifo {}", path.display());
    }

    #[cfg(unix)]
    #[test]
    fn paths_are_judged_by_where_their_symlinks_lead() {
        use std::os::unix::fs::symlink;
        let (_tmp, root, outside) = vault_and_outside();
        symlink("../notes/note.md", root.join("notes/alias.md")).unwrap();
        symlink(outside.join("secret.md"), root.join("notes/leak.md")).unwrap();
        symlink("../../outside/gone.md", root.join("notes/dangling-out.md")).unwrap();
        symlink("missing/new.md", root.join("notes/dangling-in.md")).unwrap();
        symlink(&outside, root.join("out")).unwrap();

        let inside = |p: &str| resolve_within(&root, &root.join(p)).unwrap();
        assert_eq!(inside("notes/note.md"), root.join("notes/note.md"));
        assert_eq!(inside("notes/alias.md"), root.join("notes/note.md"));
        assert_eq!(
            inside("notes/dangling-in.md"),
            root.join("notes/missing/new.md")
        );
        assert_eq!(inside("not/yet/there.md"), root.join("not/yet/there.md"));
        assert_eq!(inside("notes/../notes/note.md"), root.join("notes/note.md"));

        let outside_of = |p: &str| match resolve_within(&root, &root.join(p)) {
            Err(Confined::Refused(Refusal::Outside { target, root: r })) => {
                assert_eq!(r, root);
                target
            }
            other => panic!("{p}: {other:?}"),
        };
        assert_eq!(outside_of("notes/leak.md"), outside.join("secret.md"));
        assert_eq!(outside_of("notes/dangling-out.md"), outside.join("gone.md"));
        assert_eq!(outside_of("out/secret.md"), outside.join("secret.md"));
        assert_eq!(outside_of("out/new/file.md"), outside.join("new/file.md"));
        assert_eq!(
            outside_of("../outside/secret.md"),
            outside.join("secret.md")
        );
    }

    #[cfg(unix)]
    #[test]
    fn reads_inside_a_vault_refuse_links_out_and_special_files_without_blocking() {
        use std::os::unix::fs::symlink;
        let (_tmp, root, outside) = vault_and_outside();
        symlink(outside.join("secret.md"), root.join("notes/leak.md")).unwrap();
        symlink("note.md", root.join("notes/alias.md")).unwrap();
        mkfifo(&root.join("notes/pipe.md"));

        assert_eq!(
            read_within(&root, &root.join("notes/note.md")).unwrap(),
            b"inside"
        );
        assert_eq!(
            read_within(&root, &root.join("notes/alias.md")).unwrap(),
            b"inside"
        );
        assert!(
            stat_within(&root, &root.join("notes/alias.md"))
                .unwrap()
                .is_file()
        );
        for read in [read_within, |r: &Path, p: &Path| {
            stat_within(r, p).map(|_| Vec::new())
        }] {
            assert!(matches!(
                read(&root, &root.join("notes/leak.md")),
                Err(Confined::Refused(Refusal::Outside { .. }))
            ));
            // A FIFO opened for reading would block here until a writer came.
            let fifo = read(&root, &root.join("notes/pipe.md")).unwrap_err();
            assert!(
                matches!(&fifo, Confined::Refused(Refusal::Special(k)) if k.contains("FIFO")),
                "{fifo:?}"
            );
            assert!(matches!(
                read(&root, &root.join("notes")),
                Err(Confined::Io(e)) if e.kind() == io::ErrorKind::IsADirectory
            ));
            assert!(matches!(
                read(&root, &root.join("notes/none.md")),
                Err(Confined::Io(e)) if e.kind() == io::ErrorKind::NotFound
            ));
        }
        assert_eq!(
            read_regular_file(&root.join("notes/leak.md")).unwrap(),
            b"secret",
            "unconfined reads follow links anywhere"
        );
        assert!(matches!(
            read_regular_file(&root.join("notes/pipe.md")),
            Err(Confined::Refused(Refusal::Special(_)))
        ));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn kernel_files_are_refused_even_where_links_may_lead() {
        let proc_status = Path::new("/proc/self/status");
        let refused = read_regular_file(proc_status).unwrap_err();
        assert!(
            matches!(&refused, Confined::Refused(Refusal::Special(k)) if k.contains("/proc")),
            "{refused:?}"
        );
        assert!(matches!(
            stat_within(Path::new("/proc"), proc_status),
            Err(Confined::Refused(Refusal::Special(_)))
        ));
        assert!(matches!(
            read_within(Path::new("/proc"), proc_status),
            Err(Confined::Refused(Refusal::Special(_)))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn writes_inside_a_vault_go_through_links_that_stay_inside_and_no_others() {
        use std::os::unix::fs::symlink;
        let (_tmp, root, outside) = vault_and_outside();
        symlink(outside.join("secret.md"), root.join("CLAUDE.md")).unwrap();
        let err =
            replace_within(&root, &root.join("CLAUDE.md"), b"ours", Some(b"secret")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert!(err.to_string().contains("outside its vault"), "{err}");
        assert_eq!(fs::read(outside.join("secret.md")).unwrap(), b"secret");
        assert_eq!(
            entries(&outside),
            ["secret.md"],
            "no temp file left outside"
        );

        symlink(outside.join("new"), root.join("elsewhere")).unwrap();
        assert!(replace_within(&root, &root.join("elsewhere/CLAUDE.md"), b"x", None).is_err());
        assert_eq!(
            entries(&outside),
            ["secret.md"],
            "no directory created outside"
        );

        fs::remove_file(root.join("CLAUDE.md")).unwrap();
        symlink("notes/note.md", root.join("CLAUDE.md")).unwrap();
        let done = replace_within(&root, &root.join("CLAUDE.md"), b"ours", Some(b"inside"));
        assert_eq!(done.unwrap(), Replaced::Done);
        assert!(
            fs::symlink_metadata(root.join("CLAUDE.md"))
                .unwrap()
                .is_symlink()
        );
        assert_eq!(fs::read(root.join("notes/note.md")).unwrap(), b"ours");
    }
}
