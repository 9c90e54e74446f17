//! Runs jobs concurrently, up to a limit, and commits their answers in queue order, so an
//! outcome never depends on which answer arrived first and a run stopped after N jobs keeps
//! exactly the first N it committed.
//!
//! It knows nothing of transcripts or LLMs: a [`Work`] starts a job, hears each answer as it
//! arrives (and may stop the run), and commits answers in order. The cancel signal is a
//! future passed in, so a daemon or a test drives a run without signal handlers of its own.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;

use tokio::task::JoinSet;

/// A job's answer, computed on the runtime.
pub type Answering<A> = Pin<Box<dyn Future<Output = A> + Send>>;

/// Answers by queue position; `None`: settled with nothing to commit.
type Ready<W> = BTreeMap<usize, Option<(<W as Work>::Job, <W as Work>::Answer)>>;

/// Whether the run goes on after an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Go,
    /// Start nothing more; abandon what is in flight; commit what is answered.
    Stop,
}

/// What the executor runs.
pub trait Work {
    type Job;
    type Answer: Send + 'static;
    /// Starts a job. `None`: the job settled without an answer (it could not be prepared;
    /// `start` has said why).
    fn start(&mut self, job: &Self::Job) -> Option<Answering<Self::Answer>>;
    /// An answer arrived, in whatever order answers arrive.
    fn answered(&mut self, job: &Self::Job, answer: &Self::Answer) -> Flow;
    /// Commits an answer, in queue order (past a gap only once the run stopped).
    fn commit(&mut self, job: Self::Job, answer: Self::Answer);
    /// A job's answer panicked (`message`): it settles with nothing to commit, so the jobs
    /// after it go on, and the work says where it failed.
    fn panicked(&mut self, job: Self::Job, message: String);
}

/// What a panic said, as far as it said it in text.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".to_owned())
}

/// How a run of the executor ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome<C> {
    /// The cancel future resolved, with this value.
    pub cancelled: Option<C>,
    /// [`Work::answered`] stopped the run.
    pub stopped: bool,
    /// Jobs never started or abandoned in flight: they wait for the next run.
    pub abandoned: usize,
}

/// Records a cancel; returns when the jobs in flight are abandoned.
fn cancelled<C>(
    outcome: &mut Outcome<C>,
    value: C,
    grace: std::time::Duration,
) -> tokio::time::Instant {
    outcome.cancelled = Some(value);
    outcome.stopped = true;
    tokio::time::Instant::now() + grace
}

/// Sleeps until `deadline`, or forever without one.
async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Runs `jobs` with at most `limit` in flight. Answers that wait behind a slow older job
/// count against the limit too (twice over), so a stuck job cannot pile up paid,
/// uncommitted work.
///
/// When `cancel` resolves, nothing more starts, and the jobs in flight (already asked for,
/// so paid for) have `grace` to answer; those that do are committed, the others abandoned.
pub async fn run<W, C>(
    work: &mut W,
    jobs: impl IntoIterator<Item = W::Job>,
    limit: usize,
    cancel: impl Future<Output = C>,
    grace: std::time::Duration,
) -> Outcome<C>
where
    W: Work,
{
    let limit = limit.max(1);
    let mut queue = jobs.into_iter().enumerate();
    let mut flying: HashMap<usize, W::Job> = HashMap::new();
    // Each task's queue position, to know which job a panic was.
    let mut tasks: HashMap<tokio::task::Id, usize> = HashMap::new();
    let mut ready: Ready<W> = BTreeMap::new();
    let mut next = 0;
    let mut set: JoinSet<(usize, W::Answer)> = JoinSet::new();
    let mut outcome = Outcome {
        cancelled: None,
        stopped: false,
        abandoned: 0,
    };
    tokio::pin!(cancel);
    // Set when the cancel arrives: in-flight jobs are abandoned past it.
    let mut deadline: Option<tokio::time::Instant> = None;
    loop {
        // Commit first: jobs started next then see what was committed.
        while let Some(entry) = ready.remove(&next) {
            if let Some((job, answer)) = entry {
                work.commit(job, answer);
            }
            next += 1;
        }
        // A stop that has come already starts nothing more.
        if outcome.cancelled.is_none() {
            let early = tokio::select! {
                biased;
                value = &mut cancel => Some(value),
                () = std::future::ready(()) => None,
            };
            if let Some(value) = early {
                deadline = Some(cancelled(&mut outcome, value, grace));
            }
        }
        while !outcome.stopped && set.len() < limit && set.len() + ready.len() < 2 * limit {
            let Some((n, job)) = queue.next() else { break };
            match work.start(&job) {
                Some(answering) => {
                    let task = set.spawn(async move { (n, answering.await) });
                    tasks.insert(task.id(), n);
                    flying.insert(n, job);
                }
                None => {
                    ready.insert(n, None);
                }
            }
            if !ready.is_empty() && ready.contains_key(&next) {
                break;
            }
        }
        if ready.contains_key(&next) {
            continue;
        }
        let joined = tokio::select! {
            biased;
            value = &mut cancel, if outcome.cancelled.is_none() => {
                deadline = Some(cancelled(&mut outcome, value, grace));
                continue;
            }
            () = sleep_until(deadline) => {
                set.abort_all();
                deadline = None;
                continue;
            }
            joined = set.join_next_with_id() => joined,
        };
        let Some(joined) = joined else { break };
        let (n, answer) = match joined {
            Ok((task, (n, answer))) => {
                tasks.remove(&task);
                (n, answer)
            }
            // A panic is the job's alone: it settles, and the queue goes on past it.
            Err(e) if e.is_panic() => {
                if let Some(n) = tasks.remove(&e.id())
                    && let Some(job) = flying.remove(&n)
                {
                    work.panicked(job, panic_message(e.into_panic().as_ref()));
                    ready.insert(n, None);
                }
                continue;
            }
            // Aborted (the run stopped): that job waits for the next run.
            Err(e) => {
                tasks.remove(&e.id());
                continue;
            }
        };
        let Some(job) = flying.remove(&n) else {
            continue;
        };
        if outcome.stopped {
            // Answered while the run was stopping: it was paid for, so it is kept.
            ready.insert(n, Some((job, answer)));
            continue;
        }
        if work.answered(&job, &answer) == Flow::Stop {
            outcome.stopped = true;
            set.abort_all();
        }
        ready.insert(n, Some((job, answer)));
    }
    // What finished is committed in order, even past a job that was stopped: it was paid for.
    for (job, answer) in ready.into_values().flatten() {
        work.commit(job, answer);
    }
    outcome.abandoned = flying.len() + queue.count();
    outcome
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    const NO_GRACE: Duration = Duration::ZERO;

    /// Jobs are (id, delay in ms); the answer is the id. Records commit order and the most
    /// jobs ever in flight.
    #[derive(Default)]
    struct Recorder {
        committed: Vec<u32>,
        stop_at: Option<u32>,
        flying: Arc<AtomicUsize>,
        most: Arc<AtomicUsize>,
        unprepared: Vec<u32>,
        panic_at: Option<u32>,
        panicked: Vec<(u32, String)>,
    }

    impl Work for Recorder {
        type Job = (u32, u64);
        type Answer = u32;

        fn start(&mut self, &(id, delay): &(u32, u64)) -> Option<Answering<u32>> {
            if self.unprepared.contains(&id) {
                return None;
            }
            let (flying, most) = (Arc::clone(&self.flying), Arc::clone(&self.most));
            let panics = self.panic_at == Some(id);
            Some(Box::pin(async move {
                let now = flying.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(delay)).await;
                flying.fetch_sub(1, Ordering::SeqCst);
                assert!(!panics, "job {id} broke");
                id
            }))
        }

        fn answered(&mut self, _: &(u32, u64), answer: &u32) -> Flow {
            if Some(*answer) == self.stop_at {
                Flow::Stop
            } else {
                Flow::Go
            }
        }

        fn commit(&mut self, _: (u32, u64), answer: u32) {
            self.committed.push(answer);
        }

        fn panicked(&mut self, (id, _): (u32, u64), message: String) {
            self.panicked.push((id, message));
        }
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn answers_commit_in_queue_order_whatever_order_they_arrive_in() {
        let mut work = Recorder::default();
        let jobs = [(1, 40), (2, 5), (3, 20), (4, 1), (5, 1)];
        let out = block_on(run(
            &mut work,
            jobs,
            3,
            std::future::pending::<()>(),
            NO_GRACE,
        ));
        assert_eq!(work.committed, [1, 2, 3, 4, 5]);
        assert_eq!(out.abandoned, 0);
        assert!(!out.stopped && out.cancelled.is_none());
        assert!(work.most.load(Ordering::SeqCst) <= 3);
    }

    #[test]
    fn at_most_the_limit_is_in_flight() {
        let mut work = Recorder::default();
        let jobs: Vec<_> = (1..=12).map(|i| (i, 5)).collect();
        block_on(run(
            &mut work,
            jobs,
            2,
            std::future::pending::<()>(),
            NO_GRACE,
        ));
        assert_eq!(work.most.load(Ordering::SeqCst), 2);
        assert_eq!(work.committed.len(), 12);
    }

    #[test]
    fn a_job_that_panics_settles_and_the_queue_goes_on_past_it() {
        let mut work = Recorder {
            panic_at: Some(1),
            ..Recorder::default()
        };
        // With a limit of 2, the jobs after a stuck first one would fill the answers
        // waiting behind it and start nothing more.
        let jobs: Vec<_> = (1..=8).map(|i| (i, 1)).collect();
        let out = block_on(run(
            &mut work,
            jobs,
            2,
            std::future::pending::<()>(),
            NO_GRACE,
        ));
        assert_eq!(work.committed, [2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(work.panicked, [(1, "job 1 broke".to_owned())]);
        assert_eq!(out.abandoned, 0);
    }

    #[test]
    fn a_job_that_cannot_start_is_skipped_in_order() {
        let mut work = Recorder {
            unprepared: vec![2],
            ..Recorder::default()
        };
        block_on(run(
            &mut work,
            [(1, 10), (2, 0), (3, 0)],
            2,
            std::future::pending::<()>(),
            NO_GRACE,
        ));
        assert_eq!(work.committed, [1, 3]);
    }

    #[test]
    fn stopping_keeps_what_was_answered_and_abandons_the_rest() {
        let mut work = Recorder {
            stop_at: Some(2),
            ..Recorder::default()
        };
        // 2 answers first and stops the run; 1 is still in flight, 3.. never start.
        let jobs = [(1, 500), (2, 1), (3, 1), (4, 1)];
        let out = block_on(run(
            &mut work,
            jobs,
            2,
            std::future::pending::<()>(),
            NO_GRACE,
        ));
        assert!(out.stopped);
        assert_eq!(work.committed, [2], "the answer that arrived is kept");
        assert_eq!(out.abandoned, 3);
    }

    #[test]
    fn cancelling_stops_asking_and_commits_what_finished() {
        let mut work = Recorder::default();
        let jobs = [(1, 1), (2, 1), (3, 10_000), (4, 1), (5, 1)];
        let cancel = async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            "term"
        };
        let out = block_on(run(&mut work, jobs, 2, cancel, NO_GRACE));
        assert_eq!(out.cancelled, Some("term"));
        assert_eq!(work.committed[..2], [1, 2]);
        assert!(!work.committed.contains(&3));
        assert_eq!(out.abandoned + work.committed.len(), 5);
    }

    #[test]
    fn answers_asked_for_before_a_cancel_get_the_grace_to_arrive_and_are_kept() {
        let mut work = Recorder::default();
        // 3 and 4 are in flight when the cancel comes; 3 answers within the grace, 4 not.
        let jobs = [(1, 1), (2, 1), (3, 300), (4, 10_000), (5, 1)];
        let cancel = async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            "term"
        };
        let started = std::time::Instant::now();
        let out = block_on(run(&mut work, jobs, 2, cancel, Duration::from_secs(1)));
        assert_eq!(out.cancelled, Some("term"));
        assert_eq!(work.committed, [1, 2, 3], "paid for, so kept");
        assert_eq!(
            out.abandoned, 2,
            "4 abandoned at the deadline, 5 never started"
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
    }
}
