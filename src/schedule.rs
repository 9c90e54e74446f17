//! `[schedule] cron`: a 5-field cron expression in local time, checked when the config is
//! read, turned into the next run time (croner, which keeps a 03:00 job at 03:00 local
//! across daylight-saving changes), into systemd `OnCalendar=` values and into launchd
//! `StartCalendarInterval` dictionaries.
//!
//! The expression is read once into the set of values each field allows; the two service
//! formats are rendered from those sets, so all three agree. Standard cron only: numbers,
//! `*`, ranges, steps, lists, month and weekday names and the `@daily` family. croner's
//! extensions (`L`, `W`, `#`, `?`, seconds, years) are refused, because neither service
//! manager could follow them. Days combine as in Vixie cron (and cronie, and crontab(5)):
//! when neither day-of-month nor day-of-week starts with `*`, a day matches if either does;
//! otherwise it must match both. The daemon, the timer and the agent all follow that rule.
//!
//! It does not sleep or read the clock: the daemon passes `now` in.

use std::fmt;

use chrono::{DateTime, TimeZone};
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

/// What a valid expression looks like, for error messages.
const EXPECTED: &str = "a 5-field cron expression (minute hour day-of-month month day-of-week, \
     local time), e.g. \"0 3 * * *\" for every day at 03:00";

/// More launchd dictionaries than this is a schedule the daemon should run instead.
const MAX_INTERVALS: usize = 100;

/// A validated 5-field cron expression (minute hour day-of-month month day-of-week), local
/// time.
#[derive(Clone)]
pub struct Schedule {
    expr: String,
    fields: Fields,
    cron: Cron,
}

impl fmt::Debug for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Schedule").field(&self.expr).finish()
    }
}

impl PartialEq for Schedule {
    fn eq(&self, other: &Self) -> bool {
        self.expr == other.expr
    }
}

/// Why an expression is not a schedule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid cron expression {expr:?}: {reason}; expected {EXPECTED}")]
pub struct ScheduleError {
    expr: String,
    reason: String,
}

/// A schedule a service manager cannot express.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{manager} cannot express the schedule {expr:?} ({reason}): run `memloop service install --daemon` instead, which follows any cron expression"
)]
pub struct Inexpressible {
    manager: &'static str,
    expr: String,
    reason: String,
}

/// One launchd `StartCalendarInterval` dictionary: `None` is any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CalendarInterval {
    pub minute: Option<u32>,
    pub hour: Option<u32>,
    pub day: Option<u32>,
    pub month: Option<u32>,
    /// 0 is Sunday, as launchd counts.
    pub weekday: Option<u32>,
}

impl Schedule {
    /// Reads a 5-field expression (or `@hourly`, `@daily`/`@midnight`, `@weekly`,
    /// `@monthly`, `@yearly`/`@annually`).
    pub fn parse(expr: &str) -> Result<Self, ScheduleError> {
        let error = |reason: String| ScheduleError {
            expr: expr.to_owned(),
            reason,
        };
        let trimmed = expr.trim();
        let expanded = match trimmed.to_ascii_lowercase().as_str() {
            "@hourly" => "0 * * * *",
            "@daily" | "@midnight" => "0 0 * * *",
            "@weekly" => "0 0 * * 0",
            "@monthly" => "0 0 1 * *",
            "@yearly" | "@annually" => "0 0 1 1 *",
            s if s.starts_with('@') => return Err(error(format!("{trimmed} is not supported"))),
            _ => trimmed,
        };
        let parts: Vec<&str> = expanded.split_whitespace().collect();
        if parts.len() != 5 {
            return Err(error(format!("it has {} fields, not 5", parts.len())));
        }
        let fields = Fields::parse(&parts).map_err(error)?;
        let cron = CronParser::builder()
            .seconds(Seconds::Disallowed)
            .year(Year::Disallowed)
            .dom_and_dow(!fields.either_day)
            .build()
            .parse(expanded)
            .map_err(|e| error(e.to_string()))?;
        Ok(Self {
            expr: trimmed.to_owned(),
            fields,
            cron,
        })
    }

    /// The expression as written.
    #[must_use]
    pub fn expr(&self) -> &str {
        &self.expr
    }

    /// The first occurrence strictly after `after`, in `after`'s time zone. `None` when it
    /// never comes (`0 0 30 2 *`).
    pub fn next_after<Tz: TimeZone>(&self, after: &DateTime<Tz>) -> Option<DateTime<Tz>> {
        self.cron.find_next_occurrence(after, false).ok()
    }

    /// systemd `OnCalendar=` values, one per line of the timer (systemd fires when any
    /// matches). Never inexpressible today, but a timer is one of several renderings.
    ///
    /// One difference systemd keeps: a time that a spring-forward change skips (02:30 in
    /// most of Europe) does not fire that day, where `next_after` (like cron) runs at the
    /// first time after the gap.
    pub fn on_calendar(&self) -> Result<Vec<String>, Inexpressible> {
        let f = &self.fields;
        let time = format!(
            "{}:{}:00",
            systemd_field(&f.hour, 23, 2),
            systemd_field(&f.minute, 59, 2)
        );
        Ok(f.day_groups()
            .into_iter()
            .map(|(day, weekday)| {
                let date = format!(
                    "*-{}-{}",
                    systemd_field(&f.month, 12, 2),
                    systemd_field(day, 31, 2)
                );
                match weekday.values() {
                    None => format!("{date} {time}"),
                    Some(_) => format!("{} {date} {time}", weekday_names(weekday)),
                }
            })
            .collect())
    }

    /// launchd `StartCalendarInterval` dictionaries (launchd fires when any matches; it has
    /// no ranges or steps, so they are spelled out, up to 100 dictionaries).
    ///
    /// Within one dictionary launchd fires on the `Day` or the `Weekday`, whichever comes
    /// first, and ignores `Month` when `Weekday` is set (its `cronemu_wday` takes no month):
    /// a schedule that needs either of those is refused.
    pub fn calendar_intervals(&self) -> Result<Vec<CalendarInterval>, Inexpressible> {
        let f = &self.fields;
        let refuse = |reason: String| Inexpressible {
            manager: "launchd",
            expr: self.expr.clone(),
            reason,
        };
        let groups = f.day_groups();
        for (day, weekday) in &groups {
            if !day.is_any() && !weekday.is_any() {
                return Err(refuse(
                    "a day must match both the day of the month and the weekday".to_owned(),
                ));
            }
            if !weekday.is_any() && !f.month.is_any() {
                return Err(refuse(
                    "it restricts both the month and the weekday".to_owned(),
                ));
            }
        }
        let mut out = Vec::new();
        for (day, weekday) in groups {
            let count = [&f.minute, &f.hour, day, &f.month, weekday]
                .iter()
                .map(|field| field.values().map_or(1, <[u32]>::len))
                .try_fold(1usize, usize::checked_mul)
                .unwrap_or(usize::MAX);
            if out.len().saturating_add(count) > MAX_INTERVALS {
                return Err(refuse(format!(
                    "it would take more than {MAX_INTERVALS} StartCalendarInterval entries"
                )));
            }
            for minute in f.minute.choices() {
                for hour in f.hour.choices() {
                    for d in day.choices() {
                        for month in f.month.choices() {
                            for w in weekday.choices() {
                                out.push(CalendarInterval {
                                    minute,
                                    hour,
                                    day: d,
                                    month,
                                    weekday: w,
                                });
                            }
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The values each field allows.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fields {
    minute: Field,
    hour: Field,
    day: Field,
    month: Field,
    /// 0 is Sunday (7 is read as 0).
    weekday: Field,
    /// Neither day field starts with `*`: a day matches if either matches (Vixie cron).
    /// Otherwise a day must match both. Decided by the text, not the values, as cron does:
    /// `1-31` is a restriction that happens to allow every day, `*/2` is not one.
    either_day: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Field {
    Any,
    /// Sorted, without duplicates, never empty.
    Values(Vec<u32>),
}

impl Field {
    fn is_any(&self) -> bool {
        matches!(self, Field::Any)
    }

    fn values(&self) -> Option<&[u32]> {
        match self {
            Field::Any => None,
            Field::Values(v) => Some(v),
        }
    }

    /// For spelling out combinations: `None` once for any, else each value.
    fn choices(&self) -> Vec<Option<u32>> {
        match self {
            Field::Any => vec![None],
            Field::Values(v) => v.iter().copied().map(Some).collect(),
        }
    }
}

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const WEEKDAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

impl Fields {
    fn parse(parts: &[&str]) -> Result<Self, String> {
        let weekday = match parse_field(parts[4], "day-of-week", 0, 7, &WEEKDAYS, 0)? {
            Field::Values(v) => {
                let mut days: Vec<u32> = v.into_iter().map(|d| d % 7).collect();
                days.sort_unstable();
                days.dedup();
                if days.len() == 7 {
                    Field::Any
                } else {
                    Field::Values(days)
                }
            }
            Field::Any => Field::Any,
        };
        Ok(Self {
            minute: parse_field(parts[0], "minute", 0, 59, &[], 0)?,
            hour: parse_field(parts[1], "hour", 0, 23, &[], 0)?,
            day: parse_field(parts[2], "day-of-month", 1, 31, &[], 0)?,
            month: parse_field(parts[3], "month", 1, 12, &MONTHS, 1)?,
            weekday,
            either_day: !parts[2].starts_with('*') && !parts[4].starts_with('*'),
        })
    }

    /// Pairs of (day-of-month, day-of-week) a day must both match; a day runs if any pair
    /// matches. Service formats AND the two within one entry, so "either" takes two.
    fn day_groups(&self) -> Vec<(&Field, &Field)> {
        if !self.either_day {
            return vec![(&self.day, &self.weekday)];
        }
        if self.day.is_any() || self.weekday.is_any() {
            return vec![(&Field::Any, &Field::Any)];
        }
        vec![(&self.day, &Field::Any), (&Field::Any, &self.weekday)]
    }
}

/// One field: `*`, `N`, `A-B`, each with an optional `/STEP`, joined by commas. `names`
/// are read case-insensitively as `first_name + index`.
fn parse_field(
    text: &str,
    what: &str,
    min: u32,
    max: u32,
    names: &[&str],
    first_name: u32,
) -> Result<Field, String> {
    let number = |s: &str| -> Result<u32, String> {
        let upper = s.to_ascii_uppercase();
        if let Some(i) = names.iter().position(|n| *n == upper) {
            return Ok(first_name + u32::try_from(i).unwrap_or(0));
        }
        let n: u32 = s
            .parse()
            .map_err(|_| format!("{what} {s:?} is not a number"))?;
        if (min..=max).contains(&n) {
            Ok(n)
        } else {
            Err(format!("{what} {n} is outside {min}-{max}"))
        }
    };
    if text == "*" {
        return Ok(Field::Any);
    }
    let mut values = Vec::new();
    for item in text.split(',') {
        let (range, step) = match item.split_once('/') {
            Some((range, step)) => {
                let step: u32 = step
                    .parse()
                    .ok()
                    .filter(|s| *s > 0)
                    .ok_or_else(|| format!("{what} step {step:?} is not a positive number"))?;
                (range, step)
            }
            None => (item, 1),
        };
        let (from, to) = match range {
            "*" => (min, max),
            _ => match range.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None if step > 1 => {
                    return Err(format!(
                        "{what} {item:?}: a step needs a range (\"*/{step}\" or \"{range}-{max}/{step}\")"
                    ));
                }
                None => {
                    let n = number(range)?;
                    (n, n)
                }
            },
        };
        if from > to {
            return Err(format!("{what} range {range} runs backwards"));
        }
        values.extend((from..=to).step_by(step as usize));
    }
    values.sort_unstable();
    values.dedup();
    Ok(if values.len() == (min..=max).count() {
        Field::Any
    } else {
        Field::Values(values)
    })
}

/// A field as systemd writes it: `*`; `a/step` when the values step from `a` to the end
/// of the field (`*/15` minutes: `00/15`); else values and `a..b` runs, zero-padded to
/// `width`.
fn systemd_field(field: &Field, max: u32, width: usize) -> String {
    let Some(values) = field.values() else {
        return "*".to_owned();
    };
    if let [first, second, .., last] = values {
        let step = second - first;
        if step > 1 && last + step > max && values.windows(2).all(|pair| pair[1] - pair[0] == step)
        {
            return format!("{first:0width$}/{step}");
        }
    }
    runs(values)
        .into_iter()
        .map(|(a, b)| match b - a {
            0 => format!("{a:0width$}"),
            1 => format!("{a:0width$},{b:0width$}"),
            _ => format!("{a:0width$}..{b:0width$}"),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Weekdays as systemd names them, with `Mon..Fri` runs.
fn weekday_names(field: &Field) -> String {
    const NAMES: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    let Some(values) = field.values() else {
        return String::new();
    };
    runs(values)
        .into_iter()
        .map(|(a, b)| {
            let (first, last) = (NAMES[a as usize], NAMES[b as usize]);
            match b - a {
                0 => first.to_owned(),
                1 => format!("{first},{last}"),
                _ => format!("{first}..{last}"),
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Sorted values as runs of consecutive numbers.
fn runs(values: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &v in values {
        match out.last_mut() {
            Some((_, end)) if *end + 1 == v => *end = v,
            _ => out.push((v, v)),
        }
    }
    out
}

#[cfg(test)]
mod tests;
