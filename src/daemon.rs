//! The daemon's timetable: when the next run is due and why, from the schedule, the last
//! successful run and how the previous run ended. Pure: the clock is a parameter, so
//! catch-up, back-off and daylight-saving changes are tested with an injected time.
//!
//! It does not sleep, run anything or read the ledger: `cmd::daemon` does, and asks this
//! module what to do next.

use chrono::{DateTime, TimeDelta, TimeZone};

use crate::schedule::Schedule;

/// Why a run is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The last successful run is older than `catch_up_hours`, or there was none.
    CatchUp,
    /// The schedule names this time.
    Scheduled,
    /// The previous run failed; this is its `attempt`th retry.
    Retry { attempt: u32 },
}

/// The next run: when and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wake<Tz: TimeZone> {
    pub at: DateTime<Tz>,
    pub why: Why,
}

/// How a run ended, as far as the timetable cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It finished; transcripts that failed in it are retried by the next scheduled run.
    Done,
    /// Only the user can fix what stopped it (a rejected key, a bad prompt): trying again
    /// before the next scheduled run would only repeat the error.
    NeedsUser,
    /// It stopped on something that may pass (the provider unreachable, the lock held by
    /// a manual run): retried with back-off.
    Failed,
}

/// The daemon's timing settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timetable {
    /// A last successful run older than this is caught up at start; zero turns catch-up off.
    pub catch_up: TimeDelta,
    /// The first retry's delay; each further retry doubles it.
    pub retry_base: TimeDelta,
    /// No retry waits longer than this.
    pub retry_cap: TimeDelta,
    /// After this many retries the run waits for the schedule: a transcript that fails
    /// every time must not cost an LLM call every two hours.
    pub max_retries: u32,
}

impl Timetable {
    /// The timetable for `catch_up_hours` with the production back-off: 5 minutes, doubling,
    /// at most 2 hours, 5 retries (about two and a half hours in all).
    #[must_use]
    pub fn new(catch_up_hours: u64) -> Self {
        Self {
            catch_up: TimeDelta::hours(i64::try_from(catch_up_hours).unwrap_or(i64::MAX / 7200)),
            retry_base: TimeDelta::minutes(5),
            retry_cap: TimeDelta::hours(2),
            max_retries: 5,
        }
    }

    /// The first run after the daemon starts at `now`: at once when a catch-up is due,
    /// else the schedule's next time. `None` when the schedule never fires.
    pub fn first<Tz: TimeZone>(
        &self,
        schedule: &Schedule,
        now: &DateTime<Tz>,
        last_success: Option<&DateTime<Tz>>,
    ) -> Option<Wake<Tz>> {
        let stale = match last_success {
            _ if self.catch_up <= TimeDelta::zero() => false,
            None => true,
            Some(last) => now.clone().signed_duration_since(last.clone()) > self.catch_up,
        };
        if stale {
            return Some(Wake {
                at: now.clone(),
                why: Why::CatchUp,
            });
        }
        scheduled(schedule, now)
    }

    /// The run after one that ended at `now` with `outcome`; `previous` is why that run
    /// happened. A failed run is retried after a doubling delay, unless the schedule's
    /// next time comes first (which then counts as a fresh start) or the retries are spent.
    pub fn after<Tz: TimeZone>(
        &self,
        schedule: &Schedule,
        now: &DateTime<Tz>,
        outcome: Outcome,
        previous: Why,
    ) -> Option<Wake<Tz>> {
        let next = scheduled(schedule, now);
        if outcome != Outcome::Failed {
            return next;
        }
        let attempt = match previous {
            Why::Retry { attempt } => attempt.saturating_add(1),
            Why::CatchUp | Why::Scheduled => 1,
        };
        if attempt > self.max_retries {
            return next;
        }
        let retry = Wake {
            at: now.clone() + self.retry_delay(attempt),
            why: Why::Retry { attempt },
        };
        match next {
            Some(next) if next.at <= retry.at => Some(next),
            _ => Some(retry),
        }
    }

    /// The delay before the `attempt`th retry (1-based): the base, doubled each time, capped.
    #[must_use]
    pub fn retry_delay(&self, attempt: u32) -> TimeDelta {
        let doublings = attempt.saturating_sub(1).min(30);
        self.retry_base
            .checked_mul(1 << doublings)
            .map_or(self.retry_cap, |d| d.min(self.retry_cap))
    }
}

fn scheduled<Tz: TimeZone>(schedule: &Schedule, now: &DateTime<Tz>) -> Option<Wake<Tz>> {
    schedule.next_after(now).map(|at| Wake {
        at,
        why: Why::Scheduled,
    })
}

#[cfg(test)]
mod tests {
    use chrono::{FixedOffset, NaiveDate};

    use super::*;

    fn at(day: u32, hour: u32, minute: u32) -> DateTime<FixedOffset> {
        FixedOffset::east_opt(3600)
            .unwrap()
            .from_local_datetime(
                &NaiveDate::from_ymd_opt(2026, 11, day)
                    .unwrap()
                    .and_hms_opt(hour, minute, 0)
                    .unwrap(),
            )
            .unwrap()
    }

    fn nightly() -> Schedule {
        Schedule::parse("0 3 * * *").unwrap()
    }

    #[test]
    fn a_daemon_with_no_successful_run_catches_up_at_once() {
        let now = at(24, 14, 0);
        let wake = Timetable::new(24).first(&nightly(), &now, None).unwrap();
        assert_eq!(
            wake,
            Wake {
                at: now,
                why: Why::CatchUp
            }
        );
    }

    #[test]
    fn catch_up_depends_on_the_age_of_the_last_success() {
        let t = Timetable::new(24);
        let now = at(24, 14, 0);
        let recent = at(24, 3, 0);
        let old = at(23, 13, 59);
        assert_eq!(
            t.first(&nightly(), &now, Some(&recent)).unwrap(),
            Wake {
                at: at(25, 3, 0),
                why: Why::Scheduled
            }
        );
        assert_eq!(
            t.first(&nightly(), &now, Some(&old)).unwrap().why,
            Why::CatchUp
        );
        // A last run "in the future" (the clock was set back) is not stale.
        assert_eq!(
            t.first(&nightly(), &now, Some(&at(25, 0, 0))).unwrap().why,
            Why::Scheduled
        );
        // catch_up_hours = 0 turns catch-up off, even with no run at all.
        assert_eq!(
            Timetable::new(0).first(&nightly(), &now, None).unwrap().why,
            Why::Scheduled
        );
    }

    #[test]
    fn a_failed_run_is_retried_with_doubling_delays_never_in_a_loop() {
        let t = Timetable::new(24);
        let mut now = at(24, 3, 0);
        let mut why = Why::Scheduled;
        let mut delays = Vec::new();
        for _ in 0..8 {
            let wake = t.after(&nightly(), &now, Outcome::Failed, why).unwrap();
            delays.push((wake.at - now).num_minutes());
            now = wake.at;
            why = wake.why;
            if why == Why::Scheduled {
                break;
            }
        }
        // 5, 10, 20, 40, 80 minutes; then the retries are spent and the next night's run
        // takes over (and counts as a fresh start).
        assert_eq!(delays[..5], [5, 10, 20, 40, 80]);
        assert_eq!(why, Why::Scheduled);
        assert_eq!(now, at(25, 3, 0));
        // With more retries allowed, the delay stops growing at the cap, and the schedule
        // still wins when it comes first.
        let patient = Timetable {
            max_retries: 100,
            ..t
        };
        let late = at(25, 1, 30);
        let wake = patient
            .after(
                &nightly(),
                &late,
                Outcome::Failed,
                Why::Retry { attempt: 9 },
            )
            .unwrap();
        assert_eq!(
            wake,
            Wake {
                at: at(25, 3, 0),
                why: Why::Scheduled
            }
        );
        let wake = patient
            .after(
                &nightly(),
                &at(24, 12, 0),
                Outcome::Failed,
                Why::Retry { attempt: 9 },
            )
            .unwrap();
        assert_eq!(wake.at, at(24, 14, 0));
    }

    #[test]
    fn a_run_only_the_user_can_fix_waits_for_the_schedule() {
        let t = Timetable::new(24);
        let now = at(24, 3, 0);
        for previous in [Why::CatchUp, Why::Scheduled, Why::Retry { attempt: 3 }] {
            assert_eq!(
                t.after(&nightly(), &now, Outcome::NeedsUser, previous)
                    .unwrap(),
                Wake {
                    at: at(25, 3, 0),
                    why: Why::Scheduled
                }
            );
            assert_eq!(
                t.after(&nightly(), &now, Outcome::Done, previous)
                    .unwrap()
                    .why,
                Why::Scheduled
            );
        }
    }

    #[test]
    fn retry_delays_saturate_at_the_cap() {
        let t = Timetable::new(24);
        assert_eq!(t.retry_delay(1), TimeDelta::minutes(5));
        assert_eq!(t.retry_delay(2), TimeDelta::minutes(10));
        assert_eq!(t.retry_delay(40), TimeDelta::hours(2));
        assert_eq!(t.retry_delay(u32::MAX), TimeDelta::hours(2));
    }
}
