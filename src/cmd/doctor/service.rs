//! The nightly service, as `memloop service status` sees it (`cmd::service::inspect`):
//! installed, enabled, running this binary, matching the config, and when it next fires.
//! Not installed is a warning (a manual or crontab setup is fine); installed but running
//! another binary, or disabled, is an error: the nightly run will not happen as expected.

use anyhow::Result;
use chrono::{DateTime, Local};

use super::{Check, Level};
use crate::cmd::service::Inspection;
use crate::config::Resolved;
use crate::paths::Env;
use crate::service::{Manager, Mode};

/// What is installed for this system's service manager.
pub(super) fn inspect(cfg: &Resolved, env: &Env) -> Result<Inspection> {
    crate::cmd::service::inspect(cfg, env, Manager::native())
}

/// Since when a service has been installed (its file's time), if one is.
pub(super) fn installed_at(inspection: &Result<Inspection>) -> Option<DateTime<Local>> {
    let (_, path) = inspection.as_ref().ok()?.installed.as_ref()?;
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    Some(modified.into())
}

/// The service's one line.
pub(super) fn check(
    inspection: &Result<Inspection>,
    cfg: &Resolved,
    now: DateTime<Local>,
) -> Check {
    let i = match inspection {
        Ok(i) => i,
        Err(e) => {
            return Check::warn("service", format!("could not look at the service: {e:#}"))
                .fix("`memloop service status` says more");
        }
    };
    let Some((mode, path)) = &i.installed else {
        return Check::warn(
            "service",
            format!("no nightly service installed ({})", i.manager.name()),
        )
        .fix("`memloop service install` (or see README: Running it every night, for the daemon or a crontab line)");
    };
    let unit = mode.unit(i.manager);
    let mut problems: Vec<(Level, String)> = Vec::new();
    match (&i.binary, i.points_here) {
        (_, true) => {}
        (Some(b), false) => problems.push((
            Level::Error,
            format!("it runs {}, not this memloop", b.display()),
        )),
        (None, false) => problems.push((Level::Error, "it names no memloop binary".to_owned())),
    }
    match i.enabled {
        Some(true) => {}
        Some(false) => problems.push((Level::Error, "it is not enabled".to_owned())),
        None => problems.push((
            Level::Warn,
            format!("{} did not say whether it is enabled", i.manager.name()),
        )),
    }
    // `is-enabled` reads unit files and answers even where no service manager runs: a
    // manager that cannot be asked, or a unit that is not active, will not fire.
    if let Some(why) = &i.unreachable {
        problems.push((
            Level::Error,
            format!(
                "{} cannot be reached, so nothing fires it: {why}",
                i.manager.name()
            ),
        ));
    } else if i.enabled == Some(true) && i.active == Some(false) {
        problems.push((Level::Error, "it is enabled but not active".to_owned()));
    }
    if i.points_here && !i.current {
        problems.push((
            Level::Warn,
            "it differs from what this config would install (schedule or settings changed)"
                .to_owned(),
        ));
    }
    let Some(level) = problems.iter().map(|(l, _)| *l).max() else {
        return Check::ok(
            "service",
            format!(
                "service {unit} installed and enabled, running this memloop{}; next run {}",
                if *mode == Mode::Daemon { " daemon" } else { "" },
                next_run(i, cfg, now)
            ),
        );
    };
    let text: Vec<&str> = problems.iter().map(|(_, t)| t.as_str()).collect();
    let fix = if problems
        .iter()
        .any(|(l, t)| *l == Level::Error || t.contains("differs"))
    {
        "`memloop service install` again: it rewrites the units for this binary and config and enables them".to_owned()
    } else {
        match i.manager {
            Manager::Systemd => format!("`systemctl --user status {unit}` says more"),
            Manager::Launchd => format!("`launchctl print gui/$(id -u)/{unit}` says more"),
        }
    };
    Check::new(
        level,
        "service",
        format!("service {unit} ({}): {}", path.display(), text.join("; ")),
    )
    .fix(fix)
}

/// When the installed service fires next (its own schedule, read back from the unit), in
/// local time, with the expression.
fn next_run(i: &Inspection, cfg: &Resolved, now: DateTime<Local>) -> String {
    let schedule = i.schedule.as_ref().unwrap_or(&cfg.config.schedule.cron);
    match i.next_run(cfg, &now) {
        Some(next) => format!(
            "{} (\"{}\", local time)",
            next.format("%Y-%m-%d %H:%M"),
            schedule.expr()
        ),
        None => format!("never (\"{}\")", schedule.expr()),
    }
}
