use chrono::{
    FixedOffset, LocalResult, MappedLocalTime, NaiveDate, NaiveDateTime, Offset, TimeDelta,
    TimeZone, Utc,
};

use super::*;

#[test]
fn what_is_not_a_5_field_expression_is_refused_saying_what_is_expected() {
    for (expr, says) in [
        ("every night", "not 5"),
        ("0 3 * *", "4 fields"),
        ("0 0 3 * * *", "6 fields"),
        ("0 0 3 * * * 2027", "7 fields"),
        ("@reboot", "@reboot is not supported"),
        ("61 * * * *", "minute 61 is outside 0-59"),
        ("0 24 * * *", "hour 24"),
        ("0 3 0 * *", "day-of-month 0"),
        ("0 3 L * *", "not a number"),
        ("0 3 ? * *", "not a number"),
        ("0 3 * * 1#2", "not a number"),
        ("0 3 15W * *", "not a number"),
        ("5-1 * * * *", "runs backwards"),
        ("*/0 * * * *", "step"),
        ("5/20 * * * *", "a step needs a range"),
        ("0 3 * * 8", "day-of-week 8"),
        ("", "0 fields"),
    ] {
        let err = Schedule::parse(expr).unwrap_err().to_string();
        assert!(err.contains(says), "{expr:?}: {err}");
        assert!(
            err.contains("\"0 3 * * *\""),
            "{expr:?}: the error shows an example"
        );
    }
}

#[test]
fn standard_expressions_are_accepted_as_written() {
    for expr in [
        "0 3 * * *",
        "30 2 * * 1-5",
        "*/15 * * * *",
        "0 9 1 * MON",
        "0 0 1 jan *",
        "0 8-18/2 * * *",
        "0 22 * * sun,7",
        "@daily",
        "@Weekly",
        " 0 3 * * * ",
    ] {
        let s = Schedule::parse(expr).unwrap_or_else(|e| panic!("{expr:?}: {e}"));
        assert_eq!(s.expr(), expr.trim());
    }
}

#[test]
fn cron_becomes_systemd_on_calendar() {
    for (expr, expected) in [
        ("0 3 * * *", vec!["*-*-* 03:00:00"]),
        ("30 2 * * 1-5", vec!["Mon..Fri *-*-* 02:30:00"]),
        ("*/15 * * * *", vec!["*-*-* *:00/15:00"]),
        ("0,15,30,45 * * * *", vec!["*-*-* *:00/15:00"]),
        ("*/30 * * * *", vec!["*-*-* *:00,30:00"]),
        ("5-59/20 3 * * *", vec!["*-*-* 03:05/20:00"]),
        ("0 */6 * * *", vec!["*-*-* 00/6:00:00"]),
        ("0 1-3 * * *", vec!["*-*-* 01..03:00:00"]),
        ("0 8-18/2 * * *", vec!["*-*-* 08,10,12,14,16,18:00:00"]),
        ("0 0 */2 * *", vec!["*-*-01/2 00:00:00"]),
        ("0 0 1 */3 *", vec!["*-01/3-01 00:00:00"]),
        ("0 0 1 JAN *", vec!["*-01-01 00:00:00"]),
        ("@weekly", vec!["Sun *-*-* 00:00:00"]),
        ("@hourly", vec!["*-*-* *:00:00"]),
        ("0 22 * * 0,6", vec!["Sun,Sat *-*-* 22:00:00"]),
        ("0 22 * * 5-7", vec!["Sun,Fri,Sat *-*-* 22:00:00"]),
        ("0 22 * * fri-sat", vec!["Fri,Sat *-*-* 22:00:00"]),
        ("0 3 * * 0-6", vec!["*-*-* 03:00:00"]),
        ("0 9 * JAN MON", vec!["Mon *-01-* 09:00:00"]),
        // Both day fields restricted: either matches a day (Vixie cron), two timer lines.
        (
            "0 9 1,15 * MON",
            vec!["*-*-01,15 09:00:00", "Mon *-*-* 09:00:00"],
        ),
        // ... and a restriction that allows every day makes every day match.
        ("0 9 1-31 * MON", vec!["*-*-* 09:00:00"]),
        ("0 9 1 * 0-6", vec!["*-*-* 09:00:00"]),
        // A field starting with `*` is no restriction: both must match.
        ("0 0 */2 * MON", vec!["Mon *-*-01/2 00:00:00"]),
        ("0 0 1 * */2", vec!["Sun,Tue,Thu,Sat *-*-01 00:00:00"]),
    ] {
        let s = Schedule::parse(expr).unwrap();
        assert_eq!(s.on_calendar().unwrap(), expected, "{expr}");
    }
}

#[test]
fn cron_becomes_launchd_intervals() {
    let any = CalendarInterval::default();
    for (expr, expected) in [
        (
            "0 3 * * *",
            vec![CalendarInterval {
                minute: Some(0),
                hour: Some(3),
                ..any
            }],
        ),
        (
            "*/20 * * * *",
            vec![
                CalendarInterval {
                    minute: Some(0),
                    ..any
                },
                CalendarInterval {
                    minute: Some(20),
                    ..any
                },
                CalendarInterval {
                    minute: Some(40),
                    ..any
                },
            ],
        ),
        (
            "30 2 * * 6,7",
            vec![
                CalendarInterval {
                    minute: Some(30),
                    hour: Some(2),
                    weekday: Some(0),
                    ..any
                },
                CalendarInterval {
                    minute: Some(30),
                    hour: Some(2),
                    weekday: Some(6),
                    ..any
                },
            ],
        ),
        (
            "0 9 1 * MON",
            vec![
                CalendarInterval {
                    minute: Some(0),
                    hour: Some(9),
                    day: Some(1),
                    ..any
                },
                CalendarInterval {
                    minute: Some(0),
                    hour: Some(9),
                    weekday: Some(1),
                    ..any
                },
            ],
        ),
        (
            "0 9 1-31 * MON",
            vec![CalendarInterval {
                minute: Some(0),
                hour: Some(9),
                ..any
            }],
        ),
        (
            "0 0 1 jan,jul *",
            vec![
                CalendarInterval {
                    minute: Some(0),
                    hour: Some(0),
                    day: Some(1),
                    month: Some(1),
                    ..any
                },
                CalendarInterval {
                    minute: Some(0),
                    hour: Some(0),
                    day: Some(1),
                    month: Some(7),
                    ..any
                },
            ],
        ),
    ] {
        let s = Schedule::parse(expr).unwrap();
        assert_eq!(s.calendar_intervals().unwrap(), expected, "{expr}");
    }
}

#[test]
fn a_schedule_launchd_cannot_hold_suggests_the_daemon() {
    for (expr, says) in [
        (
            "*/5 9-17 * * 1-5",
            "more than 100 StartCalendarInterval entries",
        ),
        // launchd fires on the Day or the Weekday of one dictionary, never on both.
        ("0 0 */2 * MON", "both the day of the month and the weekday"),
        // launchd ignores Month when Weekday is set.
        ("0 9 * JAN MON", "both the month and the weekday"),
        ("0 9 1 JAN MON", "both the month and the weekday"),
    ] {
        let s = Schedule::parse(expr).unwrap();
        let err = s.calendar_intervals().unwrap_err().to_string();
        assert!(err.contains("launchd"), "{err}");
        assert!(err.contains(says), "{expr}: {err}");
        assert!(err.contains(&format!("{expr:?}")), "{err}");
        assert!(err.contains("memloop service install --daemon"), "{err}");
        // systemd holds each of them.
        assert!(s.on_calendar().is_ok(), "{expr}");
    }
    assert_eq!(
        Schedule::parse("*/5 9-17 * * 1-5")
            .unwrap()
            .on_calendar()
            .unwrap(),
        ["Mon..Fri *-*-* 09..17:00/5:00"]
    );
    // 100 entries is still an agent.
    let hundred = Schedule::parse("*/15 0-4 1-5 * *").unwrap();
    assert_eq!(hundred.calendar_intervals().unwrap().len(), 100);
}

fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap()
}

#[test]
fn next_after_is_strictly_after_and_ors_day_of_month_with_day_of_week() {
    let s = Schedule::parse("0 3 * * *").unwrap();
    assert_eq!(
        s.next_after(&utc(2026, 11, 24, 3, 0)),
        Some(utc(2026, 11, 25, 3, 0))
    );
    assert_eq!(
        s.next_after(&utc(2026, 11, 24, 2, 59)),
        Some(utc(2026, 11, 24, 3, 0))
    );
    let a_moment_after = utc(2026, 11, 24, 3, 0) + TimeDelta::milliseconds(1);
    assert_eq!(s.next_after(&a_moment_after), Some(utc(2026, 11, 25, 3, 0)));
    let a_moment_before = utc(2026, 11, 24, 3, 0) - TimeDelta::milliseconds(1);
    assert_eq!(
        s.next_after(&a_moment_before),
        Some(utc(2026, 11, 24, 3, 0))
    );
    // 2026-11-24 is a Tuesday: "the 1st or a Monday" next matches Monday the 30th, then
    // Tuesday 1 December.
    let s = Schedule::parse("0 9 1 * MON").unwrap();
    let first = s.next_after(&utc(2026, 11, 24, 12, 0)).unwrap();
    assert_eq!(first, utc(2026, 11, 30, 9, 0));
    assert_eq!(s.next_after(&first), Some(utc(2026, 12, 1, 9, 0)));
    assert_eq!(
        Schedule::parse("0 0 30 2 *").unwrap().next_after(&first),
        None
    );
}

#[test]
fn a_day_field_starting_with_a_star_is_no_restriction_as_in_vixie_cron() {
    let times = |expr: &str, n: usize| {
        let s = Schedule::parse(expr).unwrap();
        let mut t = utc(2026, 11, 24, 12, 0);
        (0..n)
            .map(|_| {
                t = s.next_after(&t).unwrap();
                t.format("%a %m-%d").to_string()
            })
            .collect::<Vec<_>>()
    };
    // Odd days that are Mondays: both must match.
    assert_eq!(
        times("0 0 */2 * MON", 3),
        ["Mon 12-07", "Mon 12-21", "Mon 01-11"]
    );
    // Every day is one of the 1st-31st, so either matching is every day.
    assert_eq!(
        times("0 0 1-31 * MON", 3),
        ["Wed 11-25", "Thu 11-26", "Fri 11-27"]
    );
    assert_eq!(times("0 0 1 * 0-6", 2), ["Wed 11-25", "Thu 11-26"]);
    // The 1st, when it is a Sunday, Tuesday, Thursday or Saturday.
    assert_eq!(
        times("0 0 1 * */2", 3),
        ["Tue 12-01", "Thu 04-01", "Sat 05-01"]
    );
}

/// Central European time without a time-zone database: +01:00, and +02:00 from the last
/// Sunday of March 01:00 UTC to the last Sunday of October 01:00 UTC.
#[derive(Debug, Clone, Copy)]
struct Berlin;

impl Berlin {
    fn last_sunday(year: i32, month: u32) -> NaiveDate {
        let mut d = NaiveDate::from_ymd_opt(year, month, 31).unwrap();
        while d.format("%u").to_string() != "7" {
            d = d.pred_opt().unwrap();
        }
        d
    }

    fn offset_at_utc(utc: &NaiveDateTime) -> FixedOffset {
        let year = utc.date().format("%Y").to_string().parse().unwrap();
        let start = Self::last_sunday(year, 3).and_hms_opt(1, 0, 0).unwrap();
        let end = Self::last_sunday(year, 10).and_hms_opt(1, 0, 0).unwrap();
        let hours = if (start..end).contains(utc) { 2 } else { 1 };
        FixedOffset::east_opt(hours * 3600).unwrap()
    }
}

impl TimeZone for Berlin {
    type Offset = FixedOffset;

    fn from_offset(_: &FixedOffset) -> Self {
        Berlin
    }

    fn offset_from_local_date(&self, local: &NaiveDate) -> MappedLocalTime<FixedOffset> {
        self.offset_from_local_datetime(&local.and_hms_opt(12, 0, 0).unwrap())
    }

    fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> MappedLocalTime<FixedOffset> {
        let fits = |hours: i32| {
            let offset = FixedOffset::east_opt(hours * 3600).unwrap();
            let utc = *local - TimeDelta::hours(i64::from(hours));
            (Self::offset_at_utc(&utc) == offset).then_some(offset)
        };
        match (fits(1), fits(2)) {
            (Some(winter), Some(summer)) => LocalResult::Ambiguous(summer, winter),
            (Some(o), None) | (None, Some(o)) => LocalResult::Single(o),
            (None, None) => LocalResult::None,
        }
    }

    fn offset_from_utc_date(&self, utc: &NaiveDate) -> FixedOffset {
        Self::offset_at_utc(&utc.and_hms_opt(12, 0, 0).unwrap())
    }

    fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> FixedOffset {
        Self::offset_at_utc(utc)
    }
}

fn berlin(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Berlin> {
    Berlin
        .with_ymd_and_hms(y, mo, d, h, mi, 0)
        .earliest()
        .unwrap()
}

fn local_times(s: &Schedule, from: DateTime<Berlin>, n: usize) -> Vec<String> {
    let mut t = from;
    (0..n)
        .map(|_| {
            t = s.next_after(&t).unwrap();
            t.format("%m-%d %H:%M %:z").to_string()
        })
        .collect()
}

#[test]
fn a_3am_job_stays_at_3am_local_across_both_daylight_saving_changes() {
    let s = Schedule::parse("0 3 * * *").unwrap();
    // 2026: clocks go forward on 29 March, back on 25 October.
    assert_eq!(
        local_times(&s, berlin(2026, 3, 27, 12, 0), 4),
        [
            "03-28 03:00 +01:00",
            "03-29 03:00 +02:00",
            "03-30 03:00 +02:00",
            "03-31 03:00 +02:00"
        ]
    );
    assert_eq!(
        local_times(&s, berlin(2026, 10, 24, 12, 0), 3),
        [
            "10-25 03:00 +01:00",
            "10-26 03:00 +01:00",
            "10-27 03:00 +01:00"
        ]
    );
    // 23 and 25 hours apart: the wall clock, not a fixed interval, decides.
    let before = s.next_after(&berlin(2026, 3, 27, 12, 0)).unwrap();
    let after = s.next_after(&before).unwrap();
    assert_eq!((after - before).num_hours(), 23);
}

#[test]
fn a_job_inside_the_skipped_or_repeated_hour_runs_once() {
    // 02:30 does not exist on 29 March: it runs at the first time after the gap.
    let s = Schedule::parse("30 2 * * *").unwrap();
    assert_eq!(
        local_times(&s, berlin(2026, 3, 28, 12, 0), 2),
        ["03-29 03:00 +02:00", "03-30 02:30 +02:00"]
    );
    // 02:30 happens twice on 25 October: it runs once.
    assert_eq!(
        local_times(&s, berlin(2026, 10, 24, 12, 0), 3),
        [
            "10-25 02:30 +02:00",
            "10-26 02:30 +01:00",
            "10-27 02:30 +01:00"
        ]
    );
}

/// The next `n` elapses of each `OnCalendar=` line as `systemd-analyze calendar` computes
/// them in the zone `tz` (a POSIX TZ value, so no time-zone database is needed), merged, in
/// UTC. `None` where systemd-analyze is not installed (macOS, some CI images) or predates
/// `--base-time` (systemd 247).
fn systemd_elapses(lines: &[String], tz: &str, base: &str, n: usize) -> Option<Vec<DateTime<Utc>>> {
    let probe = std::process::Command::new("systemd-analyze")
        .args(["calendar", "--base-time=2026-01-01 00:00:00", "daily"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return None;
    }
    let mut out = Vec::new();
    for line in lines {
        let run = std::process::Command::new("systemd-analyze")
            .env_clear()
            .env("TZ", tz)
            .args([
                "calendar",
                &format!("--iterations={n}"),
                &format!("--base-time={base}"),
                line,
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{line}: {text}{}",
            String::from_utf8_lossy(&run.stderr)
        );
        // Each elapse is printed in local time, then "(in UTC): Thu 2026-11-26 03:00:00 UTC"
        // unless the zone is UTC itself.
        let utc_lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("(in UTC):"))
            .collect();
        let stamps: Vec<&str> = if utc_lines.is_empty() {
            text.lines()
                .map(str::trim)
                .filter(|l| l.starts_with("Next elapse:") || l.starts_with("Iter. #"))
                .collect()
        } else {
            utc_lines
        };
        for l in stamps {
            let value = l.split_once(": ").unwrap().1;
            let stamp = value
                .split_whitespace()
                .skip(1)
                .take(2)
                .collect::<Vec<_>>()
                .join(" ");
            let naive = NaiveDateTime::parse_from_str(&stamp, "%Y-%m-%d %H:%M:%S").unwrap();
            out.push(Utc.from_utc_datetime(&naive));
        }
    }
    out.sort();
    out.dedup();
    out.truncate(n);
    Some(out)
}

fn next_n<Tz: TimeZone>(s: &Schedule, from: DateTime<Tz>, n: usize) -> Vec<DateTime<Utc>> {
    let mut t = from;
    (0..n)
        .map(|_| {
            t = s.next_after(&t).unwrap();
            t.with_timezone(&Utc)
        })
        .collect()
}

/// `systemd-analyze calendar` reads every rendered `OnCalendar=` line the way the timer
/// will, and its next elapses match `next_after` (in UTC, so the machine's zone does not
/// matter).
#[test]
fn systemd_analyze_agrees_with_next_after() {
    const N: usize = 8;
    for expr in [
        "0 3 * * *",
        "30 2 * * 1-5",
        "*/15 * * * *",
        "*/30 * * * *",
        "0 */6 * * *",
        "0 8-18/2 * * *",
        "0 0 */2 * *",
        "0 0 1 */3 *",
        "0 0 1 JAN *",
        "0 22 * * 5-7",
        "0 9 * JAN MON",
        "0 9 1,15 * MON",
        "0 9 1-31 * MON",
        "0 0 */2 * MON",
        "0 0 1 * */2",
        "5-59/20 3 * * *",
        "@weekly",
    ] {
        let s = Schedule::parse(expr).unwrap();
        let lines = s.on_calendar().unwrap();
        let Some(systemd) = systemd_elapses(&lines, "UTC", "2026-11-24 12:00:00", N) else {
            eprintln!(
                "no systemd-analyze with --base-time: OnCalendar values not checked against systemd"
            );
            return;
        };
        assert_eq!(
            next_n(&s, utc(2026, 11, 24, 12, 0), N),
            systemd,
            "{expr}: {lines:?}"
        );
    }
}

/// The same, in Central European time across both changes of 2026 (the zone of the
/// `Berlin` test zone, as a POSIX TZ value). A fixed time agrees with systemd on both days;
/// a time inside the skipped hour does not: systemd skips it that day, `next_after` runs at
/// 03:00 as cron does, which the README says.
#[test]
fn systemd_analyze_agrees_with_next_after_across_daylight_saving_changes() {
    const CET: &str = "CET-1CEST,M3.5.0,M10.5.0/3";
    for (expr, base, from, only_ours) in [
        (
            "0 3 * * *",
            "2026-03-27 12:00:00",
            berlin(2026, 3, 27, 12, 0),
            None,
        ),
        (
            "0 3 * * *",
            "2026-10-23 12:00:00",
            berlin(2026, 10, 23, 12, 0),
            None,
        ),
        (
            "30 2 * * *",
            "2026-10-23 12:00:00",
            berlin(2026, 10, 23, 12, 0),
            None,
        ),
        (
            "0 2 * * 0",
            "2026-10-20 12:00:00",
            berlin(2026, 10, 20, 12, 0),
            None,
        ),
        (
            "30 2 * * *",
            "2026-03-27 12:00:00",
            berlin(2026, 3, 27, 12, 0),
            Some(utc(2026, 3, 29, 1, 0)),
        ),
    ] {
        let s = Schedule::parse(expr).unwrap();
        let lines = s.on_calendar().unwrap();
        let Some(mut systemd) = systemd_elapses(&lines, CET, base, 4) else {
            eprintln!(
                "no systemd-analyze with --base-time: OnCalendar values not checked against systemd"
            );
            return;
        };
        let mut ours = next_n(&s, from, 4);
        if let Some(gap_run) = only_ours {
            assert!(ours.contains(&gap_run), "{expr}: {ours:?}");
            assert!(!systemd.contains(&gap_run), "{expr}: {systemd:?}");
            ours.retain(|t| *t != gap_run);
            systemd.truncate(ours.len());
        }
        assert_eq!(ours, systemd, "{expr} from {base}: {lines:?}");
    }
}

#[test]
fn the_offset_helper_knows_its_own_gap() {
    // The test zone itself: 02:30 on 29 March does not exist, 02:30 on 25 October twice.
    assert!(matches!(
        Berlin.offset_from_local_datetime(
            &NaiveDate::from_ymd_opt(2026, 3, 29)
                .unwrap()
                .and_hms_opt(2, 30, 0)
                .unwrap()
        ),
        LocalResult::None
    ));
    assert!(matches!(
        Berlin.offset_from_local_datetime(
            &NaiveDate::from_ymd_opt(2026, 10, 25)
                .unwrap()
                .and_hms_opt(2, 30, 0)
                .unwrap()
        ),
        LocalResult::Ambiguous(..)
    ));
    assert_eq!(
        berlin(2026, 7, 1, 12, 0).offset().fix().local_minus_utc(),
        7200
    );
}
