//! The nightly job as files a service manager reads: systemd user units (a timer firing
//! `memloop extract`, or a service running `memloop daemon`) and launchd agents, rendered
//! from the static templates in `systemd/` and `launchd/` for one user, one binary and one
//! schedule. Pure: values in, file texts out, every value escaped for its format.
//!
//! It does not write files or run `systemctl`/`launchctl`: `cmd::service` does.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::schedule::{CalendarInterval, Inexpressible, Schedule};

const EXTRACT_SERVICE: &str = include_str!("../systemd/memloop-extract.service");
const EXTRACT_TIMER: &str = include_str!("../systemd/memloop-extract.timer");
const DAEMON_SERVICE: &str = include_str!("../systemd/memloop.service");
const AGENT: &str = include_str!("../launchd/agent.plist");

/// The launchd label of the timer-style agent.
pub const EXTRACT_LABEL: &str = "io.github.memloop.extract";
/// The launchd label of the daemon agent.
pub const DAEMON_LABEL: &str = "io.github.memloop.daemon";

/// Which service manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manager {
    Systemd,
    Launchd,
}

impl Manager {
    /// systemd everywhere but macOS.
    #[must_use]
    pub fn native() -> Self {
        if cfg!(target_os = "macos") {
            Manager::Launchd
        } else {
            Manager::Systemd
        }
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Manager::Systemd => "systemd",
            Manager::Launchd => "launchd",
        }
    }
}

/// A timer that fires `memloop extract`, or `memloop daemon` kept running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Timer,
    Daemon,
}

impl Mode {
    /// The unit or agent that is enabled, for messages and `systemctl`/`launchctl`.
    #[must_use]
    pub fn unit(self, manager: Manager) -> &'static str {
        match (manager, self) {
            (Manager::Systemd, Mode::Timer) => "memloop-extract.timer",
            (Manager::Systemd, Mode::Daemon) => "memloop.service",
            (Manager::Launchd, Mode::Timer) => EXTRACT_LABEL,
            (Manager::Launchd, Mode::Daemon) => DAEMON_LABEL,
        }
    }

    /// The file names this mode installs in the manager's directory.
    #[must_use]
    pub fn files(self, manager: Manager) -> &'static [&'static str] {
        match (manager, self) {
            (Manager::Systemd, Mode::Timer) => {
                &["memloop-extract.service", "memloop-extract.timer"]
            }
            (Manager::Systemd, Mode::Daemon) => &["memloop.service"],
            (Manager::Launchd, Mode::Timer) => &["io.github.memloop.extract.plist"],
            (Manager::Launchd, Mode::Daemon) => &["io.github.memloop.daemon.plist"],
        }
    }

    #[must_use]
    pub fn other(self) -> Self {
        match self {
            Mode::Timer => Mode::Daemon,
            Mode::Daemon => Mode::Timer,
        }
    }
}

/// Everything a rendered unit depends on.
#[derive(Debug, Clone)]
pub struct Spec<'a> {
    /// The memloop binary, absolute.
    pub binary: &'a Path,
    /// `--config FILE` for the unit, when the config is not in its default place.
    pub config: Option<&'a Path>,
    /// The environment file holding the API key.
    pub env_file: &'a Path,
    /// Settings from the installing shell that the unit would not see otherwise
    /// (`VAULTS_DIR`, base URLs, ...), never keys.
    pub environment: &'a [(String, String)],
    pub schedule: &'a Schedule,
    /// launchd's log file.
    pub log: &'a Path,
}

/// A file to write: where, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub path: PathBuf,
    pub text: String,
}

/// The files of `mode` for `manager`, in `dir` (`~/.config/systemd/user` or
/// `~/Library/LaunchAgents`).
pub fn render(
    manager: Manager,
    mode: Mode,
    dir: &Path,
    spec: &Spec<'_>,
) -> Result<Vec<Rendered>, Inexpressible> {
    let texts = match manager {
        Manager::Systemd => systemd(mode, spec)?,
        Manager::Launchd => vec![launchd(mode, spec)?],
    };
    Ok(mode
        .files(manager)
        .iter()
        .zip(texts)
        .map(|(name, text)| Rendered {
            path: dir.join(name),
            text,
        })
        .collect())
}

fn systemd(mode: Mode, spec: &Spec<'_>) -> Result<Vec<String>, Inexpressible> {
    let mut exec = systemd_quote(&spec.binary.to_string_lossy(), true);
    if let Some(config) = spec.config {
        exec.push_str(" --config ");
        exec.push_str(&systemd_quote(&config.to_string_lossy(), true));
    }
    let mut environment = String::new();
    for (key, value) in spec.environment {
        let _ = writeln!(
            environment,
            "Environment={}",
            systemd_quote(&format!("{key}={value}"), false)
        );
    }
    let unit = |template: &str| {
        template
            .replace("{exec}", &exec)
            .replace(
                "{env_file}",
                &systemd_specifiers(&spec.env_file.to_string_lossy()),
            )
            .replace("{environment}", &environment)
    };
    Ok(match mode {
        Mode::Daemon => vec![unit(DAEMON_SERVICE)],
        Mode::Timer => {
            let mut calendar = String::new();
            for line in spec.schedule.on_calendar()? {
                let _ = writeln!(calendar, "OnCalendar={line}");
            }
            vec![
                unit(EXTRACT_SERVICE),
                EXTRACT_TIMER
                    .replace("{cron}", &systemd_specifiers(spec.schedule.expr()))
                    .replace("{on_calendar}", &calendar),
            ]
        }
    })
}

fn launchd(mode: Mode, spec: &Spec<'_>) -> Result<String, Inexpressible> {
    let env_file = shell_quote(&spec.env_file.to_string_lossy());
    let mut command = format!("exec {}", shell_quote(&spec.binary.to_string_lossy()));
    if let Some(config) = spec.config {
        command.push_str(" --config ");
        command.push_str(&shell_quote(&config.to_string_lossy()));
    }
    command.push_str(match mode {
        Mode::Timer => " extract --quiet",
        Mode::Daemon => " daemon",
    });
    let script = format!("set -a; if [ -r {env_file} ]; then . {env_file}; fi; set +a; {command}");
    let mut environment = String::new();
    if !spec.environment.is_empty() {
        environment.push_str("\t<key>EnvironmentVariables</key>\n\t<dict>\n");
        for (key, value) in spec.environment {
            let _ = writeln!(
                environment,
                "\t\t<key>{}</key>\n\t\t<string>{}</string>",
                xml_escape(key),
                xml_escape(value)
            );
        }
        environment.push_str("\t</dict>\n");
    }
    let schedule = match mode {
        Mode::Daemon => "\t<key>RunAtLoad</key>\n\t<true/>\n\t<key>KeepAlive</key>\n\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>\n\t<key>ThrottleInterval</key>\n\t<integer>300</integer>\n".to_owned(),
        Mode::Timer => {
            let mut out = schedule_comment(spec.schedule);
            out.push_str("\t<key>StartCalendarInterval</key>\n\t<array>\n");
            for interval in spec.schedule.calendar_intervals()? {
                out.push_str(&interval_dict(&interval));
            }
            out.push_str("\t</array>\n");
            out
        }
    };
    Ok(AGENT
        .replace("{label}", mode.unit(Manager::Launchd))
        .replace("{script}", &xml_escape(&script))
        .replace("{environment}", &environment)
        .replace("{schedule}", &schedule)
        .replace("{log}", &xml_escape(&spec.log.to_string_lossy())))
}

fn interval_dict(i: &CalendarInterval) -> String {
    let mut out = String::from("\t\t<dict>\n");
    for (key, value) in [
        ("Month", i.month),
        ("Day", i.day),
        ("Weekday", i.weekday),
        ("Hour", i.hour),
        ("Minute", i.minute),
    ] {
        if let Some(v) = value {
            let _ = writeln!(out, "\t\t\t<key>{key}</key>\n\t\t\t<integer>{v}</integer>");
        }
    }
    out.push_str("\t\t</dict>\n");
    out
}

/// The XML comment that records the cron expression in a timer agent, for `status` to read
/// back (launchd's dictionaries are the expression spelled out, not the expression). A
/// comment cannot hold `--`, which no valid expression has; should one, it is left out.
fn schedule_comment(schedule: &Schedule) -> String {
    let expr = schedule.expr();
    if expr.contains("--") {
        return String::new();
    }
    format!("\t<!-- {SCHEDULE_COMMENT}\"{}\" -->\n", xml_escape(expr))
}

/// How a timer agent's comment introduces its cron expression.
const SCHEDULE_COMMENT: &str = "[schedule] cron, local time: ";
/// How a timer unit's `Description=` carries its cron expression.
const SYSTEMD_DESCRIPTION: &str = "Description=memloop: nightly extraction (";

/// The schedule an installed timer unit or timer agent fires on, read back from the text
/// `render` wrote; `None` for a daemon (it reads the config itself) or a file edited by hand.
#[must_use]
pub fn installed_schedule(manager: Manager, text: &str) -> Option<Schedule> {
    let expr = match manager {
        Manager::Systemd => text
            .lines()
            .find_map(|l| l.strip_prefix(SYSTEMD_DESCRIPTION)?.strip_suffix(')'))?
            .replace("%%", "%"),
        Manager::Launchd => {
            let (_, rest) = text.split_once(SCHEDULE_COMMENT)?;
            let quoted = rest.strip_prefix('"')?;
            let (expr, _) = quoted.split_once("\" -->")?;
            xml_unescape(expr)
        }
    };
    Schedule::parse(&expr).ok()
}

/// A crontab line that does what the timer would, for a machine with neither service
/// manager: the environment file read the way launchd's shell reads it, `%` escaped (cron
/// turns a bare one into a newline).
#[must_use]
pub fn crontab_line(spec: &Spec<'_>) -> String {
    let env_file = shell_quote(&spec.env_file.to_string_lossy());
    let mut command = format!("exec {}", shell_quote(&spec.binary.to_string_lossy()));
    if let Some(config) = spec.config {
        command.push_str(" --config ");
        command.push_str(&shell_quote(&config.to_string_lossy()));
    }
    let line = format!(
        "{} set -a; [ -r {env_file} ] && . {env_file}; set +a; {command} extract -q",
        spec.schedule.expr()
    );
    line.replace('%', "\\%")
}

/// `%` starts a specifier in almost every systemd setting: `%%` is a literal one.
fn systemd_specifiers(value: &str) -> String {
    value.replace('%', "%%")
}

/// One word of a systemd command line (`exec`: `$` doubled, as `ExecStart=` expands
/// variables) or `Environment=` assignment: quoted when it holds anything but plain
/// characters, with `\` and `"` escaped, and `%` doubled.
#[must_use]
pub fn systemd_quote(value: &str, exec: bool) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c));
    let value = systemd_specifiers(value);
    if plain {
        return value;
    }
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '$' if exec => out.push_str("$$"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One word for `/bin/sh`: single-quoted, a `'` inside written `'\''`.
#[must_use]
pub fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', "'\\''"))
}

/// Text for a plist `<string>`.
#[must_use]
pub fn xml_escape(value: &str) -> String {
    value
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// The text `xml_escape` escaped.
fn xml_unescape(value: &str) -> String {
    value
        .replace("&apos;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The binary named by an installed unit's `ExecStart=` (systemd) or the agent's `exec`
/// (launchd), unquoted; `None` when the file names none.
#[must_use]
pub fn installed_binary(manager: Manager, text: &str) -> Option<PathBuf> {
    match manager {
        Manager::Systemd => {
            let line = text.lines().find_map(|l| l.strip_prefix("ExecStart="))?;
            Some(PathBuf::from(
                first_word(line, '"')?.replace("%%", "%").replace("$$", "$"),
            ))
        }
        Manager::Launchd => {
            let script = xml_unescape(text);
            let (_, rest) = script.split_once("; exec ")?;
            Some(PathBuf::from(
                first_word(&rest.replace("'\\''", "\u{0}"), '\'')?.replace('\u{0}', "'"),
            ))
        }
    }
}

/// The first word of a command line: up to the closing `quote` when it starts with one
/// (undoing `systemd_quote`'s escapes for double quotes), else up to the first space.
fn first_word(line: &str, quote: char) -> Option<String> {
    let line = line.trim_start();
    let Some(rest) = line.strip_prefix(quote) else {
        return line.split_whitespace().next().map(str::to_owned);
    };
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c == quote => return Some(out),
            '\\' if quote == '"' => out.push(match chars.next()? {
                'n' => '\n',
                't' => '\t',
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
                }
                c => c,
            }),
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests;
