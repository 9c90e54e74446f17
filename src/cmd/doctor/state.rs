//! memloop's own state: the state directory (writable), the ledger (readable, with what it
//! has to say: another program rewriting memory.md, a model that does not quote its
//! evidence), the run lock (free, or which process holds it) and the daemon, and the last
//! run with its result.
//!
//! The lock is probed the way `status` probes it (taken and released at once); the holder
//! is read from `/proc/locks` on Linux, so no pid has to be written into the lock file.

use std::path::Path;

use anyhow::Result;
use chrono::{DateTime, Local, TimeDelta};

use super::{Check, Level, files, memory_loop, plural};
use crate::config::Resolved;
use crate::fsutil::{self, DAEMON_LOCK_FILE, LOCK_FILE};
use crate::ledger::{Ledger, LedgerDamaged, Notice};
use crate::report::Report;

/// A run older than this while a service is installed means the service is not running it.
const SILENT_SERVICE: TimeDelta = TimeDelta::days(2);

/// The state directory, the ledger and what it noticed, the lock and the daemon.
pub(super) fn check(cfg: &Resolved, ledger: &Result<Ledger>) -> Vec<Check> {
    let dir = &cfg.paths.state_dir;
    if let Err(problem) = files::writable_dir(dir) {
        return vec![
            Check::error(
                "state",
                format!(
                    "state directory {} cannot be written: {problem}",
                    dir.display()
                ),
            )
            .fix("let this user write there, or point XDG_STATE_HOME at a writable directory"),
        ];
    }
    let path = cfg.paths.ledger();
    let mut out = Vec::new();
    out.extend(room(dir));
    match ledger {
        Err(e) if e.downcast_ref::<LedgerDamaged>().is_some() => out.push(
            Check::error("ledger", format!("{e:#}")).fix(
                "run `memloop ledger rebuild` (the damaged file is kept beside the new one), or put back a copy of the ledger from a backup",
            ),
        ),
        Err(e) => out.push(
            Check::error("ledger", format!("{e:#}"))
                .fix("let this user read and write it and its directory"),
        ),
        Ok(_) if !path.exists() => out.push(Check::ok(
            "ledger",
            format!("ledger {} (created by the first run)", path.display()),
        )),
        Ok(l) => {
            match l.transcript_count() {
                Ok(n) => out.push(Check::ok(
                    "ledger",
                    format!("ledger {}: {n} transcripts processed", path.display()),
                )),
                Err(e) => out.push(Check::error("ledger", format!("ledger {}: {e:#}", path.display()))),
            }
            out.extend(l.notices(5).ok().and_then(|n| rewrites(&n)));
            out.extend(stale(cfg, l));
            if let Ok(Some((_, report))) = l.last_run() {
                out.extend(evidence(&report));
            }
        }
    }
    out.push(lock(dir));
    out.extend(daemon(dir));
    out
}

/// Free space under this much on the state disk is an error: a run needs room to keep its
/// ledger and the answers it pays for.
const LOW_ROOM: u64 = 1 << 20;

/// An error when the disk holding the state directory is (nearly) full; nothing otherwise.
fn room(dir: &Path) -> Option<Check> {
    let s = rustix::fs::statvfs(dir).ok()?;
    let free = s.f_bavail.saturating_mul(s.f_frsize);
    (free < LOW_ROOM).then(|| {
        Check::error(
            "state",
            format!(
                "the disk holding the state directory {} is full ({} KiB free): a run cannot keep its ledger or the answers it pays for",
                dir.display(),
                free / 1024
            ),
        )
        .fix("free some space on that disk, or point XDG_STATE_HOME at another one")
    })
}

/// The run lock: free, or who holds it.
fn lock(dir: &Path) -> Check {
    let path = dir.join(LOCK_FILE);
    if !path.exists() {
        return Check::ok("lock", "run lock free");
    }
    match fsutil::try_lock(dir) {
        Ok(Some(_)) => Check::ok("lock", "run lock free"),
        Ok(None) => Check::ok(
            "lock",
            format!(
                "run lock {} held by {}: a run is in progress, and one started now would exit 75",
                path.display(),
                holder(&path)
            ),
        ),
        Err(e) => Check::error("lock", format!("run lock {}: {e}", path.display()))
            .fix("let this user open it: every run takes it"),
    }
}

/// A line when the daemon is running; nothing otherwise (the service line says how runs
/// are scheduled).
fn daemon(dir: &Path) -> Option<Check> {
    let path = dir.join(DAEMON_LOCK_FILE);
    if !path.exists() || !matches!(fsutil::try_lock_daemon(dir), Ok(None)) {
        return None;
    }
    Some(Check::ok(
        "daemon",
        format!("memloop daemon running ({})", holder(&path)),
    ))
}

/// Who holds the lock on `path`: `pid N (command)` where the system says, else "another
/// memloop run".
fn holder(path: &Path) -> String {
    let pid = lock_pid(path);
    match pid {
        Some(pid) => match command_of(pid) {
            Some(cmd) => format!("pid {pid} ({cmd})"),
            None => format!("pid {pid}"),
        },
        None => "another memloop run".to_owned(),
    }
}

#[cfg(target_os = "linux")]
fn lock_pid(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    flock_pid(&locks, dev_numbers(meta.dev()), meta.ino())
}

#[cfg(not(target_os = "linux"))]
fn lock_pid(_path: &Path) -> Option<u32> {
    None
}

/// A device number split as the kernel prints it in `/proc/locks` (glibc's encoding).
fn dev_numbers(dev: u64) -> (u64, u64) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major, minor & 0xffff_ffff)
}

/// The pid holding a `flock` on the file `(major, minor)`/`ino`, from the text of
/// `/proc/locks`. Some filesystems (overlays) show another device than `stat` does: then a
/// single lock on that inode is taken to be it.
fn flock_pid(locks: &str, (major, minor): (u64, u64), ino: u64) -> Option<u32> {
    let held: Vec<(u32, u64, u64, u64)> = locks
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace().skip(1);
            // `->` marks a process waiting for the lock, not holding it.
            if fields.next()? != "FLOCK" {
                return None;
            }
            let pid = fields.nth(2)?.parse().ok()?;
            let mut id = fields.next()?.split(':');
            let maj = u64::from_str_radix(id.next()?, 16).ok()?;
            let min = u64::from_str_radix(id.next()?, 16).ok()?;
            let inode = id.next()?.parse().ok()?;
            Some((pid, maj, min, inode))
        })
        .filter(|&(pid, .., inode)| inode == ino && pid > 0)
        .collect();
    held.iter()
        .find(|&&(_, maj, min, _)| (maj, min) == (major, minor))
        .or_else(|| (held.len() == 1).then(|| &held[0]))
        .map(|&(pid, ..)| pid)
}

/// The process's command line, short: `memloop extract`.
fn command_of(pid: u32) -> Option<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let mut args = raw
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned());
    let program = args.next()?;
    let program = Path::new(&program)
        .file_name()
        .map_or(program.clone(), |n| n.to_string_lossy().into_owned());
    let mut line = std::iter::once(program)
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ");
    if line.chars().count() > 60 {
        line = line.chars().take(59).collect::<String>() + "…";
    }
    Some(line)
}

/// The last run and its result. A run that failed or stopped early warns; so does none in
/// more than two days while a service is installed (`service_since`: since when).
pub(super) fn last_run(
    ledger: &Result<Ledger>,
    service_since: Option<DateTime<Local>>,
    now: DateTime<Local>,
) -> Check {
    let last = ledger
        .as_ref()
        .ok()
        .and_then(|l| l.last_run().ok().flatten());
    let silent_fix = "`memloop service status`, and the service's log (journalctl --user -u memloop-extract, or ~/Library/Logs/memloop.log)";
    let Some((at, report)) = last else {
        return match service_since {
            Some(since) if now.signed_duration_since(since) > SILENT_SERVICE => Check::warn(
                "last-run",
                format!(
                    "no run yet, although a service was installed on {}",
                    since.format("%Y-%m-%d")
                ),
            )
            .fix(silent_fix),
            _ => Check::ok("last-run", "no run yet"),
        };
    };
    let report: Report = serde_json::from_str(&report).unwrap_or_default();
    let when = local(&at);
    let mut check = outcome(&when, &report);
    let age = DateTime::parse_from_rfc3339(&at).map(|t| now.signed_duration_since(t));
    if service_since.is_some() && age.is_ok_and(|age| age > SILENT_SERVICE) {
        check
            .message
            .push_str(", more than 2 days ago although a service is installed");
        check.level = check.level.max(Level::Warn);
        check.fix = Some(silent_fix.to_owned());
    }
    check
}

/// How the run that finished `when` ended.
fn outcome(when: &str, r: &Report) -> Check {
    let processed = plural(r.transcripts.processed, "transcript");
    if r.interrupted {
        return Check::ok(
            "last-run",
            format!(
                "last run {when}: stopped by a signal after {processed}; the rest waits for the next run"
            ),
        );
    }
    if let Some(reason) = &r.stopped {
        return Check::warn(
            "last-run",
            format!("last run {when} stopped early after {processed}: {reason}"),
        )
        .fix("fix what it names; the next run takes the rest");
    }
    if let Some(first) = r.failures.first() {
        return Check::warn(
            "last-run",
            format!(
                "last run {when}: {processed} processed, {} failed, first {}: {}",
                r.failures.len(),
                first.path,
                first.error
            ),
        )
        .fix("`memloop status` lists them; a failed transcript is tried again by the next run");
    }
    Check::ok(
        "last-run",
        format!("last run {when}: {processed} processed"),
    )
}

/// An RFC 3339 time from the ledger in local time, to the second.
fn local(rfc3339: &str) -> String {
    DateTime::parse_from_rfc3339(rfc3339).map_or_else(
        |_| rfc3339.to_owned(),
        |t| {
            t.with_timezone(&Local)
                .format("%Y-%m-%d %H:%M:%S")
                .to_string()
        },
    )
}

/// A model that ignores the `evidence` field, or paraphrases instead of quoting, loses facts
/// (held for review, or refused): say so, with what to do about it.
fn evidence(report: &str) -> Vec<Check> {
    let Ok(report) = serde_json::from_str::<Report>(report) else {
        return Vec::new();
    };
    let f = &report.facts;
    let model = format!("{} ({})", report.model, report.provider);
    let mut out = Vec::new();
    if f.unverified > 0 {
        out.push(
            Check::warn(
                "evidence",
                format!(
                    "the last run's model, {model}, quoted no evidence for its facts: {} wait in \
                     `memloop memory review`, since memloop cannot check that you said them",
                    f.unverified
                ),
            )
            .fix("use a model that follows the output contract (JSON schema or tool use), or review after each run"),
        );
    }
    let refused = |why: crate::ground::Ungrounded| {
        f.refused_by
            .get(&why.to_string())
            .copied()
            .unwrap_or_default()
    };
    let loose = refused(crate::ground::Ungrounded::LooselyQuoted);
    let unfound = refused(crate::ground::Ungrounded::NotInTranscript);
    if f.extracted >= 4 && loose * 2 >= f.extracted {
        out.push(
            Check::warn(
                "evidence",
                format!(
                    "the last run refused {loose} of {} facts because their evidence was quoted \
                     loosely (the person's words, reworded or reordered): {model} seems to \
                     paraphrase instead of quoting",
                    f.extracted
                ),
            )
            .fix("a stronger model, or a prompt that insists on exact quotes, keeps them"),
        );
    }
    if f.extracted >= 4 && unfound * 2 >= f.extracted {
        out.push(
            Check::warn(
                "evidence",
                format!(
                    "the last run refused {unfound} of {} facts because their evidence was \
                     nowhere in the transcript: {model} quotes words the person never wrote",
                    f.extracted
                ),
            )
            .fix("a model that follows the output contract; check the prompt asks for the person's own words"),
        );
    }
    out
}

/// The facts nobody confirmed for `stale_after_days`: a nudge, never a fault.
fn stale(cfg: &Resolved, ledger: &Ledger) -> Option<Check> {
    let days = cfg.config.memory.stale_after_days;
    let cutoff = crate::cmd::memory::stale::cutoff(chrono::Local::now().date_naive(), days)?;
    let n = crate::cmd::memory::stale::stale(ledger, &cutoff)
        .ok()?
        .len();
    (n > 0).then(|| {
        Check::ok(
            "stale",
            format!(
                "{n} facts not confirmed for {days} days wait in `memloop memory review --stale`"
            ),
        )
    })
}

/// Another program rewrote a file memloop writes (Memory Loop's own nightly extraction
/// rewrites memory.md while it is enabled): say when, what memloop did, and how to stop it.
fn rewrites(notices: &[Notice]) -> Option<Check> {
    let newest = notices.iter().find(|n| n.kind == "rewritten")?;
    let times = notices.iter().filter(|n| n.kind == "rewritten").count();
    Some(
        Check::warn(
            "rewrites",
            format!(
                "{} was rewritten by another program ({times} time{} recently, last {}): {}",
                newest.target,
                if times == 1 { "" } else { "s" },
                local(&newest.at),
                newest.detail
            ),
        )
        .fix(format!(
            "when that is Memory Loop's own nightly extraction: {}",
            memory_loop::TURN_OFF
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_holder_is_found_by_device_and_inode() {
        let locks = "1: POSIX  ADVISORY  WRITE 300 fe:00:77 0 EOF\n\
                     2: FLOCK  ADVISORY  WRITE 19248 fe:00:10011120 0 EOF\n\
                     2: -> FLOCK  ADVISORY  WRITE 19300 fe:00:10011120 0 EOF\n\
                     3: FLOCK  ADVISORY  WRITE 500 08:01:10011120 0 EOF\n";
        assert_eq!(flock_pid(locks, (0xfe, 0), 10_011_120), Some(19248));
        assert_eq!(flock_pid(locks, (8, 1), 10_011_120), Some(500));
        assert_eq!(
            flock_pid(locks, (9, 9), 10_011_120),
            None,
            "two candidates on other devices: unknown"
        );
        assert_eq!(
            flock_pid(locks, (0, 50), 77),
            None,
            "a POSIX lock is not the run lock"
        );
        let overlay = "1: FLOCK  ADVISORY  WRITE 42 00:3a:1234 0 EOF\n";
        assert_eq!(flock_pid(overlay, (0, 0x2c), 1234), Some(42));
        assert_eq!(flock_pid("", (0, 0), 1), None);
    }

    #[test]
    fn device_numbers_split_as_the_kernel_prints_them() {
        assert_eq!(dev_numbers(0xfe00), (0xfe, 0));
        assert_eq!(dev_numbers(0x0801), (8, 1));
        assert_eq!(dev_numbers((259 << 8) | 3), (259, 3));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_held_lock_names_its_process() {
        let dir = tempfile::tempdir().unwrap();
        let guard = fsutil::try_lock(dir.path()).unwrap().unwrap();
        let named = holder(guard.path());
        assert!(
            named.starts_with(&format!("pid {} (", std::process::id())),
            "{named}"
        );
    }

    fn at(rfc3339: &str) -> DateTime<Local> {
        DateTime::parse_from_rfc3339(rfc3339)
            .unwrap()
            .with_timezone(&Local)
    }

    #[test]
    fn the_last_run_warns_when_it_failed_or_the_service_went_silent() {
        let now = at("2026-03-10T12:00:00Z");
        let report = |json: &str| format!("{{\"transcripts\":{{\"processed\":3}}{json}}}");
        let cases: [(&str, String, Option<&str>, Level, &str); 6] = [
            (
                "2026-03-10T03:00:00Z",
                report(""),
                None,
                Level::Ok,
                "3 transcripts processed",
            ),
            (
                "2026-03-10T03:00:00Z",
                report(",\"failures\":[{\"path\":\"/v/a.md\",\"error\":\"not UTF-8\"}]"),
                None,
                Level::Warn,
                "1 failed, first /v/a.md: not UTF-8",
            ),
            (
                "2026-03-10T03:00:00Z",
                report(",\"stopped\":\"the provider rejected the key\""),
                None,
                Level::Warn,
                "stopped early after 3 transcripts: the provider rejected the key",
            ),
            (
                "2026-03-10T03:00:00Z",
                report(",\"interrupted\":true,\"stopped\":\"SIGTERM\""),
                None,
                Level::Ok,
                "stopped by a signal",
            ),
            (
                "2026-03-05T03:00:00Z",
                report(""),
                Some("2026-03-01T00:00:00Z"),
                Level::Warn,
                "more than 2 days ago although a service is installed",
            ),
            (
                "2026-03-05T03:00:00Z",
                report(""),
                None,
                Level::Ok,
                "3 transcripts processed",
            ),
        ];
        for (finished, json, service, level, says) in cases {
            let ledger = Ledger::scratch_copy(Path::new("/nonexistent/ledger")).unwrap();
            ledger.record_run(finished, finished, &json).unwrap();
            let check = last_run(&Ok(ledger), service.map(at), now);
            assert_eq!(check.level, level, "{check:?}");
            assert!(check.message.contains(says), "{says}: {check:?}");
        }
    }

    #[test]
    fn no_run_yet_warns_only_for_a_service_installed_days_ago() {
        let now = at("2026-03-10T12:00:00Z");
        let empty = || Ok(Ledger::scratch_copy(Path::new("/nonexistent/ledger")).unwrap());
        assert_eq!(last_run(&empty(), None, now).level, Level::Ok);
        assert_eq!(
            last_run(&empty(), Some(at("2026-03-10T08:00:00Z")), now).level,
            Level::Ok,
            "installed this morning: its first night is still to come"
        );
        let silent = last_run(&empty(), Some(at("2026-03-01T08:00:00Z")), now);
        assert_eq!(silent.level, Level::Warn);
        assert!(
            silent.message.contains("installed on 2026-03-01"),
            "{silent:?}"
        );
    }

    #[test]
    fn a_model_that_does_not_quote_is_named() {
        let report = |facts: serde_json::Value| {
            serde_json::json!({"provider": "openai", "model": "llama3", "facts": facts}).to_string()
        };
        let cases = [
            (serde_json::json!({"extracted": 3, "new": 3}), 0),
            (
                serde_json::json!({"extracted": 3, "new": 3, "pending": 3, "unverified": 3}),
                1,
            ),
            (
                serde_json::json!({"extracted": 6, "new": 2, "refused": 4,
                    "refused_by": {"evidence not in the transcript": 3, "carries a URL": 1}}),
                1,
            ),
            (
                serde_json::json!({"extracted": 8, "new": 6, "refused": 2,
                    "refused_by": {"evidence not in the transcript": 2}}),
                0,
            ),
            // Quoted loosely is a paraphrasing model; nowhere in the transcript, made up.
            (
                serde_json::json!({"extracted": 6, "new": 2, "refused": 4,
                    "refused_by": {"evidence quoted loosely": 3, "evidence not in the transcript": 1}}),
                1,
            ),
        ];
        for (facts, warnings) in cases {
            let checks = evidence(&report(facts.clone()));
            assert_eq!(checks.len(), warnings, "{facts}: {checks:?}");
            let loose = facts.to_string().contains("loosely");
            assert!(
                checks
                    .iter()
                    .all(|c| c.message.contains("paraphrase") == loose),
                "{facts}: {checks:?}"
            );
            assert!(
                checks
                    .iter()
                    .all(|c| c.level == Level::Warn && c.message.contains("llama3 (openai)"))
            );
        }
    }
}
