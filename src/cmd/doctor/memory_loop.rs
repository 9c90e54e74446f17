//! Memory Loop's own nightly extraction, which rewrites `~/.claude/rules/memory.md` too.
//! As of rjroy/memory-loop at e70a27b (2026-03-22), its daemon always starts the
//! extraction scheduler (`daemon/src/index.ts`, `extraction/extraction-manager.ts`): a cron
//! job on `EXTRACTION_SCHEDULE` (default `0 3 * * *`) plus a catch-up run at start when
//! its last run is older than `EXTRACTION_CATCHUP_HOURS` (24), recorded as `lastRunAt` in
//! `~/.config/memory-loop/extraction-state.json`. It has no setting to turn it off; it is
//! configured only through its daemon's environment, which its docs put in a systemd user
//! unit, `~/.config/systemd/user/memory-loop.service` (`scripts/memory-loop.service.example`,
//! `docs/deployment/systemd.md`).
//!
//! So the evidence read here is: a `lastRunAt` in the last week, and that unit enabled
//! without the environment that stops it (`EXTRACTION_SCHEDULE` that `cron` cannot parse,
//! so its scheduler does not start, with a catch-up threshold too long to reach) or sends
//! it elsewhere (`MEMORY_FILE_PATH_OVERRIDE`). Drop-ins (`systemctl --user edit`) and
//! `EnvironmentFile=` are read like systemd reads them. It does not run `systemctl`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Local, TimeDelta};

use super::Check;
use crate::config::Resolved;
use crate::paths::Env;

/// How to stop Memory Loop's own extraction, or keep it off memloop's file.
pub(super) const TURN_OFF: &str = "give Memory Loop's daemon EXTRACTION_SCHEDULE=off (its scheduler then does not start) and EXTRACTION_CATCHUP_HOURS=100000 (no catch-up run at start), or MEMORY_FILE_PATH_OVERRIDE=<another file>: `systemctl --user edit memory-loop`, add `[Service]` and `Environment=EXTRACTION_SCHEDULE=off EXTRACTION_CATCHUP_HOURS=100000`, then `systemctl --user restart memory-loop` (elsewhere, set both where its daemon starts)";

/// Memory Loop's daemon records every run, an empty one too, and runs nightly: a run within
/// this long means it is still running.
const RECENT: TimeDelta = TimeDelta::days(7);

/// A catch-up threshold at least this long never triggers in practice.
const CATCH_UP_OFF_HOURS: u64 = 24 * 365;

/// The unit Memory Loop's docs install.
const UNIT: &str = "memory-loop.service";

/// Memory Loop's systemd unit as installed for this user.
#[derive(Debug, Clone, Default)]
struct Unit {
    path: PathBuf,
    /// Linked into a `.wants` directory (`systemctl --user enable`).
    enabled: bool,
    /// The newest change to the unit or its drop-ins.
    modified: Option<DateTime<Local>>,
    /// Its daemon's environment, as the unit sets it.
    env: HashMap<String, String>,
}

/// How the unit's environment leaves the extraction.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Setting {
    /// Runs on its schedule, into `~/.claude/rules/memory.md`.
    Running,
    /// No schedule, but a catch-up run at each start of the daemon after `hours`.
    CatchUpOnly { hours: u64 },
    /// Stopped: no schedule, no catch-up.
    Off,
    /// Writes to another file.
    Elsewhere(String),
}

pub(super) fn check(cfg: &Resolved, env: &Env, now: DateTime<Local>) -> Check {
    let last_run = last_run(&cfg.paths.legacy_state);
    let unit = env.home().ok().and_then(|home| {
        let config = env
            .var("XDG_CONFIG_HOME")
            .map_or_else(|| home.join(".config"), PathBuf::from);
        read_unit(&config.join("systemd/user"), &home)
    });
    judge(
        last_run,
        unit.as_ref(),
        &cfg.paths.legacy_state,
        &cfg.memory_file,
        now,
    )
}

/// `lastRunAt` from Memory Loop's `extraction-state.json`.
fn last_run(state: &Path) -> Option<DateTime<Local>> {
    let text = std::fs::read_to_string(state).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let at = value.get("lastRunAt")?.as_str()?;
    Some(DateTime::parse_from_rfc3339(at).ok()?.with_timezone(&Local))
}

/// The evidence, weighed: one line.
fn judge(
    last_run: Option<DateTime<Local>>,
    unit: Option<&Unit>,
    state: &Path,
    memory_file: &Path,
    now: DateTime<Local>,
) -> Check {
    const NAME: &str = "memory-loop";
    let recent = last_run.filter(|t| now.signed_duration_since(*t) < RECENT);
    let ran = |t: DateTime<Local>| {
        format!(
            "its last run was {} ({})",
            t.format("%Y-%m-%d %H:%M"),
            state.display()
        )
    };
    if let Some(u) = unit {
        let where_ = u.path.display();
        let setting = setting(&u.env, memory_file);
        let after_change = recent.filter(|t| u.modified.is_none_or(|changed| *t > changed));
        match setting {
            Setting::Running if u.enabled => {
                let schedule = u
                    .env
                    .get("EXTRACTION_SCHEDULE")
                    .map_or("0 3 * * *", String::as_str);
                return Check::warn(
                    NAME,
                    format!(
                        "Memory Loop's own nightly extraction is enabled ({where_}, schedule \"{schedule}\"): it rewrites ~/.claude/rules/memory.md too{}",
                        recent.map(|t| format!("; {}", ran(t))).unwrap_or_default()
                    ),
                )
                .fix(TURN_OFF);
            }
            Setting::CatchUpOnly { hours } if u.enabled => {
                return Check::warn(
                    NAME,
                    format!(
                        "Memory Loop's own extraction has no schedule in {where_}, but still runs at each start of its daemon when its last run is older than {hours} hours: it rewrites ~/.claude/rules/memory.md too"
                    ),
                )
                .fix("add EXTRACTION_CATCHUP_HOURS=100000 beside EXTRACTION_SCHEDULE=off (`systemctl --user edit memory-loop`), then `systemctl --user restart memory-loop`");
            }
            Setting::Off | Setting::Elsewhere(_) if after_change.is_some() => {
                let t = after_change.unwrap_or(now);
                return Check::warn(
                    NAME,
                    format!(
                        "Memory Loop's own extraction is turned off in {where_}, but ran after that change: {}",
                        ran(t)
                    ),
                )
                .fix("`systemctl --user daemon-reload && systemctl --user restart memory-loop`, so its daemon reads the change");
            }
            Setting::Off => {
                return Check::ok(
                    NAME,
                    format!(
                        "Memory Loop's own nightly extraction is off ({where_}: EXTRACTION_SCHEDULE=off, no catch-up)"
                    ),
                );
            }
            Setting::Elsewhere(file) => {
                return Check::ok(
                    NAME,
                    format!(
                        "Memory Loop's own nightly extraction writes to {file} ({where_}: MEMORY_FILE_PATH_OVERRIDE), not to memloop's memory file"
                    ),
                );
            }
            Setting::Running | Setting::CatchUpOnly { .. } => {}
        }
    }
    if let Some(t) = recent {
        return Check::warn(
            NAME,
            format!(
                "Memory Loop's own nightly extraction is still running ({}): it rewrites ~/.claude/rules/memory.md too",
                ran(t)
            ),
        )
        .fix(TURN_OFF);
    }
    let last = last_run.map_or_else(
        || "none recorded".to_owned(),
        |t| format!("the last on {}", t.format("%Y-%m-%d")),
    );
    Check::ok(
        NAME,
        format!(
            "Memory Loop's own nightly extraction is not running (no {UNIT} enabled; runs: {last})"
        ),
    )
}

/// What the daemon's environment does to the extraction.
fn setting(env: &HashMap<String, String>, memory_file: &Path) -> Setting {
    if let Some(file) = env
        .get("MEMORY_FILE_PATH_OVERRIDE")
        .filter(|f| !f.is_empty())
        && Path::new(file) != memory_file
    {
        return Setting::Elsewhere(file.clone());
    }
    let scheduled = env
        .get("EXTRACTION_SCHEDULE")
        .is_none_or(|s| cron_parses(s));
    if scheduled {
        return Setting::Running;
    }
    // Memory Loop ignores a value that is not a positive integer.
    let hours = env
        .get("EXTRACTION_CATCHUP_HOURS")
        .and_then(|h| h.trim().parse::<u64>().ok())
        .filter(|h| *h > 0)
        .unwrap_or(24);
    if hours >= CATCH_UP_OFF_HOURS {
        Setting::Off
    } else {
        Setting::CatchUpOnly { hours }
    }
}

/// Whether the `cron` package Memory Loop uses would accept `expr`: an `@` alias, or five
/// or six fields. A rough test: what matters is telling `off` from a schedule.
fn cron_parses(expr: &str) -> bool {
    let expr = expr.trim();
    expr.starts_with('@') || matches!(expr.split_whitespace().count(), 5 | 6)
}

/// Memory Loop's unit in `dir`, with its drop-ins, if installed.
fn read_unit(dir: &Path, home: &Path) -> Option<Unit> {
    let path = dir.join(UNIT);
    let text = std::fs::read_to_string(&path).ok()?;
    let mut files = vec![(path.clone(), text)];
    let mut dropins: Vec<PathBuf> = std::fs::read_dir(dir.join(format!("{UNIT}.d")))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "conf"))
        .collect();
    dropins.sort();
    for p in dropins {
        if let Ok(text) = std::fs::read_to_string(&p) {
            files.push((p, text));
        }
    }
    let modified = files
        .iter()
        .filter_map(|(p, _)| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max()
        .map(DateTime::<Local>::from);
    let texts: Vec<&str> = files.iter().map(|(_, t)| t.as_str()).collect();
    let (mut env, env_files) = unit_environment(&texts, home);
    // systemd: what an environment file sets wins over `Environment=`.
    // A `-` marks a file that may be missing; one that is missing sets nothing either way.
    for file in env_files {
        if let Ok(text) = std::fs::read_to_string(file.trim_start_matches('-')) {
            env.extend(env_file(&text));
        }
    }
    let enabled = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            e.file_name().to_string_lossy().ends_with(".wants")
                && std::fs::symlink_metadata(e.path().join(UNIT)).is_ok()
        });
    Some(Unit {
        path,
        enabled,
        modified,
        env,
    })
}

/// The variables `Environment=` lines set across a unit and its drop-ins (in order; an
/// empty assignment clears the list), and the `EnvironmentFile=` paths, `%h` expanded.
fn unit_environment(texts: &[&str], home: &Path) -> (HashMap<String, String>, Vec<String>) {
    let mut env = HashMap::new();
    let mut files = Vec::new();
    let home = home.display().to_string();
    for text in texts {
        for line in text.lines().map(str::trim) {
            if let Some(value) = line.strip_prefix("Environment=") {
                if value.trim().is_empty() {
                    env.clear();
                }
                for word in words(value) {
                    if let Some((k, v)) = word.split_once('=') {
                        env.insert(k.to_owned(), v.replace("%h", &home));
                    }
                }
            } else if let Some(value) = line.strip_prefix("EnvironmentFile=") {
                if value.trim().is_empty() {
                    files.clear();
                } else {
                    files.push(value.trim().replace("%h", &home));
                }
            }
        }
    }
    (env, files)
}

/// A systemd value split into words: whitespace separates, double or single quotes group.
fn words(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut started = false;
    for c in value.chars() {
        match (quote, c) {
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (_, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

/// `KEY=value` lines of an environment file; `#` and `;` lines are comments.
fn env_file(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(';'))
        .filter_map(|l| {
            let (k, v) = l.split_once('=')?;
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .unwrap_or(v);
            Some((k.trim().to_owned(), v.to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::Level;
    use super::*;

    fn at(rfc3339: &str) -> DateTime<Local> {
        DateTime::parse_from_rfc3339(rfc3339)
            .unwrap()
            .with_timezone(&Local)
    }

    fn unit(enabled: bool, env: &[(&str, &str)], modified: Option<&str>) -> Unit {
        Unit {
            path: "/h/.config/systemd/user/memory-loop.service".into(),
            enabled,
            modified: modified.map(at),
            env: env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        }
    }

    #[test]
    fn the_evidence_is_weighed_into_one_line() {
        let now = at("2026-03-10T12:00:00Z");
        let recent = Some(at("2026-03-10T03:00:12.345Z"));
        let old = Some(at("2026-01-02T03:00:00Z"));
        let off = [
            ("EXTRACTION_SCHEDULE", "off"),
            ("EXTRACTION_CATCHUP_HOURS", "100000"),
        ];
        type Case = (Option<DateTime<Local>>, Option<Unit>, Level, &'static str);
        let cases: [Case; 10] = [
            (None, None, Level::Ok, "is not running"),
            (old, None, Level::Ok, "the last on 2026-01-02"),
            (
                recent,
                None,
                Level::Warn,
                "is still running (its last run was",
            ),
            (
                None,
                Some(unit(true, &[], None)),
                Level::Warn,
                "is enabled (/h/.config/systemd/user/memory-loop.service, schedule \"0 3 * * *\")",
            ),
            (
                None,
                Some(unit(false, &[], None)),
                Level::Ok,
                "is not running",
            ),
            (
                recent,
                Some(unit(false, &[], None)),
                Level::Warn,
                "is still running",
            ),
            (
                None,
                Some(unit(true, &[("EXTRACTION_SCHEDULE", "off")], None)),
                Level::Warn,
                "older than 24 hours",
            ),
            (
                old,
                Some(unit(true, &off, Some("2026-03-09T00:00:00Z"))),
                Level::Ok,
                "is off",
            ),
            (
                recent,
                Some(unit(true, &off, Some("2026-03-09T00:00:00Z"))),
                Level::Warn,
                "ran after that change",
            ),
            (
                old,
                Some(unit(
                    true,
                    &[("MEMORY_FILE_PATH_OVERRIDE", "/h/ml.md")],
                    None,
                )),
                Level::Ok,
                "writes to /h/ml.md",
            ),
        ];
        for (last, unit, level, says) in cases {
            let check = judge(
                last,
                unit.as_ref(),
                Path::new("/h/.config/memory-loop/extraction-state.json"),
                Path::new("/h/.claude/rules/memory.md"),
                now,
            );
            assert_eq!(check.level, level, "{says}: {check:?}");
            assert!(check.message.contains(says), "{says}: {check:?}");
            if level == Level::Warn {
                assert!(check.fix.is_some(), "{check:?}");
            }
        }
    }

    #[test]
    fn an_override_naming_memloop_s_own_file_changes_nothing() {
        let env: HashMap<String, String> = [(
            "MEMORY_FILE_PATH_OVERRIDE".to_owned(),
            "/h/.claude/rules/memory.md".to_owned(),
        )]
        .into();
        assert_eq!(
            setting(&env, Path::new("/h/.claude/rules/memory.md")),
            Setting::Running
        );
    }

    #[test]
    fn schedules_that_cron_accepts_keep_it_running() {
        for (expr, parses) in [
            ("0 3 * * *", true),
            ("0 0 3 * * *", true),
            ("@daily", true),
            ("off", false),
            ("never", false),
            ("", false),
        ] {
            assert_eq!(cron_parses(expr), parses, "{expr:?}");
        }
    }

    #[test]
    fn unit_environment_is_read_as_systemd_reads_it() {
        let unit = "[Service]\nEnvironment=NODE_ENV=production\nEnvironment=\"VAULTS_DIR=/v/my vaults\" PORT=3000\n\
                    EnvironmentFile=-%h/.config/memory-loop.env\n";
        let dropin =
            "[Service]\nEnvironment=EXTRACTION_SCHEDULE=off 'EXTRACTION_CATCHUP_HOURS=100000'\n";
        let (env, files) = unit_environment(&[unit, dropin], Path::new("/h"));
        assert_eq!(env["NODE_ENV"], "production");
        assert_eq!(env["VAULTS_DIR"], "/v/my vaults");
        assert_eq!(env["PORT"], "3000");
        assert_eq!(env["EXTRACTION_SCHEDULE"], "off");
        assert_eq!(env["EXTRACTION_CATCHUP_HOURS"], "100000");
        assert_eq!(files, ["-/h/.config/memory-loop.env"]);
        let (cleared, _) = unit_environment(&[unit, "Environment=\n"], Path::new("/h"));
        assert!(cleared.is_empty());
        assert_eq!(
            env_file("# comment\nEXTRACTION_SCHEDULE=\"off\"\n\nPORT = 3000\n"),
            [
                ("EXTRACTION_SCHEDULE".to_owned(), "off".to_owned()),
                ("PORT".to_owned(), "3000".to_owned())
            ]
        );
    }

    #[test]
    fn the_fixture_unit_is_enabled_and_running_until_turned_off() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join(".config/systemd/user");
        std::fs::create_dir_all(dir.join("default.target.wants")).unwrap();
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/memory-loop/memory-loop.service");
        std::fs::copy(&fixture, dir.join(UNIT)).unwrap();
        let u = read_unit(&dir, home.path()).unwrap();
        assert!(!u.enabled);
        assert_eq!(setting(&u.env, Path::new("/m.md")), Setting::Running);
        std::os::unix::fs::symlink(dir.join(UNIT), dir.join("default.target.wants").join(UNIT))
            .unwrap();
        std::fs::create_dir_all(dir.join(format!("{UNIT}.d"))).unwrap();
        crate::fsutil::write_atomic(
            &dir.join(format!("{UNIT}.d/override.conf")),
            b"[Service]\nEnvironment=EXTRACTION_SCHEDULE=off EXTRACTION_CATCHUP_HOURS=100000\n",
        )
        .unwrap();
        let u = read_unit(&dir, home.path()).unwrap();
        assert!(u.enabled);
        assert_eq!(setting(&u.env, Path::new("/m.md")), Setting::Off);
    }
}
