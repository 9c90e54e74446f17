//! What is installed for one service manager, read without changing anything: the files,
//! the binary they run, whether they are what `install` would write now, whether the
//! manager has them enabled and active, and the schedule the timer fires on. `service
//! status` prints it; `doctor` judges it.
//!
//! It asks `systemctl`/`launchctl` only questions, each bounded by
//! [`tool::QUERY_TIMEOUT`]; it never starts, stops or writes anything.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chrono::{DateTime, Local};

use super::tool::{self, Output, ToolError};
use super::{expected_files, gui_domain, this_binary, unit_dir};
use crate::config::Resolved;
use crate::paths::Env;
use crate::schedule::Schedule;
use crate::service::{self, Manager, Mode};

/// What is installed for one service manager.
#[derive(Debug, Clone)]
pub(crate) struct Inspection {
    pub manager: Manager,
    /// The installed mode and its main file, if any.
    pub installed: Option<(Mode, PathBuf)>,
    /// Every file of the installed mode that exists.
    pub files: Vec<PathBuf>,
    /// The binary the installed unit runs.
    pub binary: Option<PathBuf>,
    /// Whether that is the running binary.
    pub points_here: bool,
    /// Whether the installed files are what `install` would write now (binary, schedule,
    /// carried settings).
    pub current: bool,
    /// Enabled (systemd) or loaded (launchd); `None` when the manager could not be asked.
    pub enabled: Option<bool>,
    /// The timer waiting or the daemon running; `None` when the manager could not be
    /// asked or does not say.
    pub active: Option<bool>,
    /// Why `enabled` is unknown: what the manager said, or that it is missing.
    pub unreachable: Option<String>,
    /// The schedule the installed timer fires on, read back from its file; `None` for the
    /// daemon, which follows the config's.
    pub schedule: Option<Schedule>,
}

impl Inspection {
    /// When the installed service next runs an extraction after `now`: the installed
    /// timer's schedule, or the config's for the daemon (and for a timer whose schedule
    /// cannot be read back). `None` when nothing is installed or the schedule never fires.
    #[must_use]
    pub fn next_run(&self, cfg: &Resolved, now: &DateTime<Local>) -> Option<DateTime<Local>> {
        self.installed.as_ref()?;
        self.schedule
            .as_ref()
            .unwrap_or(&cfg.config.schedule.cron)
            .next_after(now)
    }
}

/// Looks at what is installed for `manager`. Runs `systemctl --user is-enabled` and
/// `is-active`, or `launchctl print`, each bounded in time; a manager that cannot be
/// reached leaves `enabled` and `active` unknown.
pub(crate) fn inspect(cfg: &Resolved, env: &Env, manager: Manager) -> Result<Inspection> {
    let dir = unit_dir(manager, env)?;
    // Any one file of a mode counts: a timer whose service file is gone is installed and
    // broken, not absent.
    let installed = [Mode::Timer, Mode::Daemon].into_iter().find_map(|mode| {
        let path = mode
            .files(manager)
            .iter()
            .map(|f| dir.join(f))
            .find(|p| p.exists())?;
        Some((mode, path))
    });
    let mut inspection = Inspection {
        manager,
        installed: installed.clone(),
        files: Vec::new(),
        binary: None,
        points_here: false,
        current: false,
        enabled: None,
        active: None,
        unreachable: None,
        schedule: None,
    };
    let Some((mode, _)) = installed else {
        return Ok(inspection);
    };
    inspection.files = mode
        .files(manager)
        .iter()
        .map(|f| dir.join(f))
        .filter(|p| p.exists())
        .collect();
    let (binary_file, schedule_file) = match (manager, mode) {
        (Manager::Systemd, Mode::Timer) => (
            dir.join("memloop-extract.service"),
            Some(dir.join("memloop-extract.timer")),
        ),
        (Manager::Launchd, Mode::Timer) => {
            let path = dir.join(mode.files(manager)[0]);
            (path.clone(), Some(path))
        }
        (_, Mode::Daemon) => (dir.join(mode.files(manager)[0]), None),
    };
    // A timer whose service file is gone names no binary: broken, not an error here.
    inspection.binary = read(&binary_file)
        .ok()
        .and_then(|text| service::installed_binary(manager, &text));
    inspection.points_here = inspection.binary.as_deref() == Some(this_binary()?.as_path());
    inspection.schedule = schedule_file
        .and_then(|p| read(&p).ok())
        .and_then(|text| service::installed_schedule(manager, &text));
    inspection.current = expected_files(cfg, env, manager, mode).is_some_and(|expected| {
        expected
            .iter()
            .all(|f| read(&f.path).is_ok_and(|t| t == f.text))
    });
    match manager {
        Manager::Systemd => ask_systemd(&mut inspection, mode.unit(manager)),
        Manager::Launchd => ask_launchd(&mut inspection, env, mode),
    }
    Ok(inspection)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("could not read {}", path.display()))
}

fn query(command: &[&str]) -> Result<Output, ToolError> {
    let command: Vec<String> = command.iter().map(|s| (*s).to_owned()).collect();
    tool::call(&command, tool::QUERY_TIMEOUT)
}

/// Why a question could not be answered, or `None` when it was.
fn unanswered(result: &Result<Output, ToolError>) -> Option<String> {
    match result {
        Ok(out) if out.unreachable() => Some(out.said()),
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    }
}

fn ask_systemd(inspection: &mut Inspection, unit: &str) {
    // `is-enabled` reads unit files and answers even without a running user instance;
    // `is-active` needs the instance.
    let enabled = query(&["systemctl", "--user", "is-enabled", unit]);
    let active = query(&["systemctl", "--user", "is-active", unit]);
    inspection.unreachable = unanswered(&enabled).or_else(|| unanswered(&active));
    if unanswered(&enabled).is_none()
        && let Ok(out) = &enabled
    {
        inspection.enabled = Some(out.success);
    }
    if unanswered(&active).is_none()
        && let Ok(out) = &active
    {
        inspection.active = Some(out.success);
    }
}

fn ask_launchd(inspection: &mut Inspection, env: &Env, mode: Mode) {
    let domain = match gui_domain(env) {
        Ok(domain) => domain,
        Err(e) => {
            inspection.unreachable = Some(format!("{e:#}"));
            return;
        }
    };
    let printed = query(&[
        "launchctl",
        "print",
        &format!("{domain}/{}", mode.unit(Manager::Launchd)),
    ]);
    if let Some(why) = unanswered(&printed) {
        inspection.unreachable = Some(why);
        return;
    }
    let Ok(out) = printed else { return };
    // Loaded is launchd's "enabled"; a timer agent is idle between runs, so only the
    // daemon's state says whether it runs.
    inspection.enabled = Some(out.success);
    inspection.active = match mode {
        Mode::Timer => Some(out.success),
        Mode::Daemon if !out.success => Some(false),
        Mode::Daemon => out
            .stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("state = "))
            .map(|state| state.trim() == "running"),
    };
}
