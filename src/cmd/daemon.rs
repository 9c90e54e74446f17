//! `memloop daemon`: a foreground process for a service manager that runs the same
//! pipeline as `extract` at the times `[schedule] cron` names, catching up at start when the
//! last successful run is too old. It owns the process's life: signals (SIGTERM/SIGINT stop
//! it after the run in progress commits what was answered, SIGHUP reloads), watching the
//! config file and prompt, the daemon lock, and one log line per event.
//!
//! When to run is decided by [`crate::daemon::Timetable`]; how a run goes is the pipeline's.
//! It never logs transcript text or keys: only paths, counts and error messages.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use chrono::{DateTime, Local};
use tokio::sync::{mpsc, watch};

use super::EXIT_OK;
use crate::cli::Global;
use crate::config::Resolved;
use crate::daemon::{Outcome, Timetable, Wake, Why};
use crate::error::{self, Kind};
use crate::fsutil;
use crate::ledger::Ledger;
use crate::paths::Env;
use crate::pipeline::{self, Options, Progress};

/// The longest sleep between two looks at the wall clock. Sleeps count monotonic time,
/// which stands still while a laptop is suspended: short steps notice on wake that a run
/// came due meanwhile.
const STEP: Duration = Duration::from_secs(30);
/// Editors save in several steps (truncate, write, rename): changes this close together
/// are read once.
const SETTLE: Duration = Duration::from_millis(300);

/// Runs the daemon until SIGTERM or SIGINT; exits 0 when stopped that way.
pub fn run(global: &Global, env: &Env) -> Result<u8> {
    // A config that cannot be read at start leaves nothing to run on: exit 2, so the
    // service manager shows it. Later, a broken config is logged and the old one kept.
    let cfg = super::resolve(global, env)?;
    cfg.require_credentials()?;
    super::require_vaults(&cfg)?;
    let _daemon = fsutil::try_lock_daemon(&cfg.paths.state_dir)
        .with_context(|| {
            format!(
                "could not take the daemon lock in {}",
                cfg.paths.state_dir.display()
            )
        })?
        .ok_or_else(|| {
            error::daemon_running(&cfg.paths.state_dir.join(fsutil::DAEMON_LOCK_FILE))
        })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let events = Events::install(&cfg)?;
        Daemon {
            global,
            env,
            cfg,
            events,
        }
        .serve()
        .await
    })
}

struct Daemon<'a> {
    global: &'a Global,
    env: &'a Env,
    cfg: Resolved,
    events: Events,
}

impl Daemon<'_> {
    async fn serve(mut self) -> Result<u8> {
        tracing::info!(
            "daemon started: schedule \"{}\" (local time), config {}",
            self.cfg.config.schedule.cron.expr(),
            self.cfg.paths.config_file.display()
        );
        let now = Local::now();
        let last = last_success(&self.cfg);
        let mut wake = self
            .timetable()
            .first(&self.cfg.config.schedule.cron, &now, last.as_ref());
        if let Some(Wake {
            why: Why::CatchUp, ..
        }) = wake
        {
            match last {
                Some(last) => tracing::info!(
                    "catching up: the last successful run finished {}",
                    last.to_rfc3339()
                ),
                None => tracing::info!("catching up: no successful run yet"),
            }
        }
        loop {
            announce(wake.as_ref());
            if let Some(stop) = self.wait(&mut wake).await {
                tracing::info!("stopped by {}: no run in progress", signal_name(stop));
                return Ok(EXIT_OK);
            }
            let Some(due) = wake.take() else { continue };
            let outcome = match self.run_once(due.why).await {
                Ran::Stopped(kind) => {
                    tracing::info!(
                        "stopped by {}: what was answered is committed, the rest waits for the next run",
                        signal_name(kind)
                    );
                    return Ok(EXIT_OK);
                }
                Ran::Ended(outcome) => outcome,
            };
            wake = self.timetable().after(
                &self.cfg.config.schedule.cron,
                &Local::now(),
                outcome,
                due.why,
            );
        }
    }

    fn timetable(&self) -> Timetable {
        let mut t = Timetable::new(self.cfg.config.schedule.catch_up_hours);
        if let Some(secs) = self
            .env
            .var(RETRY_BASE_ENV)
            .and_then(|s| s.parse::<i64>().ok())
        {
            t.retry_base = chrono::TimeDelta::seconds(secs);
        }
        t
    }

    /// Sleeps until `wake` is due, reloading the config on the way. Returns the signal
    /// that stopped the daemon, if one did.
    async fn wait(&mut self, wake: &mut Option<Wake<Local>>) -> Option<Kind> {
        loop {
            let now = Local::now();
            let step = match wake {
                Some(w) if w.at <= now => return None,
                Some(w) => (w.at - now).to_std().unwrap_or(Duration::ZERO).min(STEP),
                None => STEP,
            };
            let stop = wait_stop(self.events.stop.clone());
            tokio::select! {
                () = tokio::time::sleep(step) => {}
                kind = stop => return Some(kind),
                Some(source) = self.events.reload.recv() => {
                    if self.reload(source).await
                        && matches!(wake, Some(Wake { why: Why::Scheduled, .. }) | None)
                    {
                        *wake = self
                            .timetable()
                            .after(&self.cfg.config.schedule.cron, &Local::now(), Outcome::Done, Why::Scheduled);
                        announce(wake.as_ref());
                    }
                }
            }
        }
    }

    /// Reads the config again after a change or SIGHUP. Returns whether it changed; an
    /// invalid one is logged and the old one kept.
    async fn reload(&mut self, source: Reload) -> bool {
        // Let the rest of an editor's save land, and read it once.
        tokio::time::sleep(SETTLE).await;
        let mut prompt_touched = source == Reload::Prompt;
        while let Ok(more) = self.events.reload.try_recv() {
            prompt_touched |= more == Reload::Prompt;
        }
        if prompt_touched {
            match self.cfg.paths.prompt() {
                Ok(_) => tracing::info!("prompt changed: the next run uses it"),
                Err(e) => tracing::error!(
                    "prompt changed but cannot be used: {e:#}; the next run fails until it is fixed"
                ),
            }
        }
        if source == Reload::Prompt {
            return false;
        }
        match super::resolve(self.global, self.env) {
            Err(e) => {
                tracing::error!("config not reloaded, the previous one stays in use: {e:#}");
                false
            }
            Ok(new) if new.config == self.cfg.config => {
                if source == Reload::Hangup {
                    tracing::info!("SIGHUP: config unchanged");
                }
                false
            }
            Ok(new) => {
                tracing::info!(
                    "config reloaded from {}: schedule \"{}\"",
                    new.paths.config_file.display(),
                    new.config.schedule.cron.expr()
                );
                let schedule_changed = new.config.schedule != self.cfg.config.schedule;
                self.cfg = new;
                schedule_changed
            }
        }
    }

    async fn run_once(&mut self, why: Why) -> Ran {
        match why {
            Why::CatchUp => tracing::info!("run started (catch-up)"),
            Why::Scheduled => tracing::info!("run started (scheduled)"),
            Why::Retry { attempt } => tracing::info!("run started (retry {attempt})"),
        }
        // The vaults may have gone (an unmounted disk, a changed config): say so each
        // run instead of running on nothing.
        if let Err(e) = super::require_vaults(&self.cfg) {
            tracing::error!("run not started: {e:#}");
            return Ran::Ended(Outcome::NeedsUser);
        }
        let stop = self.events.stop.clone();
        let cancel = async move { wait_stop(stop).await };
        let result = pipeline::run(
            &self.cfg,
            &Options::default(),
            &LogProgress,
            cancel,
            Local::now(),
        )
        .await;
        match result {
            Err(e) => {
                let kind = error::kind_of(&e);
                tracing::error!("run failed: {e:#}");
                Ran::Ended(outcome_of(kind))
            }
            Ok((report, stopped)) => {
                for f in &report.failures {
                    tracing::warn!("failed: {}: {}", f.path, f.error);
                }
                let t = &report.transcripts;
                let facts = &report.facts;
                tracing::info!(
                    "run finished in {:.1} s: {} transcripts processed, {} failed, {} unchanged, {} waiting; {} new facts, {} replaced, {} refused",
                    report.elapsed_ms as f64 / 1000.0,
                    t.processed,
                    t.failed,
                    t.unchanged,
                    t.waiting + t.deferred,
                    facts.new,
                    facts.replaced,
                    facts.refused,
                );
                match stopped {
                    // Nothing went through and something failed: the provider or the
                    // network, most likely; worth another try soon.
                    None if t.processed == 0 && t.failed > 0 => Ran::Ended(Outcome::Failed),
                    None => Ran::Ended(Outcome::Done),
                    Some(e) => match error::kind_of(&e) {
                        kind @ (Kind::Interrupted | Kind::Terminated) => Ran::Stopped(kind),
                        kind => {
                            tracing::error!("run stopped early: {e:#}");
                            Ran::Ended(outcome_of(kind))
                        }
                    },
                }
            }
        }
    }
}

/// How a run came back.
enum Ran {
    /// A signal stopped it: the daemon exits.
    Stopped(Kind),
    Ended(Outcome),
}

/// A configuration error or a rejected key waits for the user; anything else may pass.
fn outcome_of(kind: Kind) -> Outcome {
    match kind {
        Kind::Usage => Outcome::NeedsUser,
        Kind::Runtime | Kind::Locked | Kind::Interrupted | Kind::Terminated => Outcome::Failed,
    }
}

/// Testing knob: replaces the 5-minute base of the retry back-off with this many seconds.
const RETRY_BASE_ENV: &str = "MEMLOOP_DAEMON_RETRY_BASE_SECS";

fn announce(wake: Option<&Wake<Local>>) {
    let at = |w: &Wake<Local>| w.at.format("%Y-%m-%d %H:%M %Z").to_string();
    match wake {
        Some(Wake {
            why: Why::CatchUp, ..
        }) => {}
        Some(
            w @ Wake {
                why: Why::Retry { attempt },
                ..
            },
        ) => {
            tracing::info!("next run at {} (retry {attempt})", at(w));
        }
        Some(w) => tracing::info!("next run at {}", at(w)),
        None => tracing::warn!("the schedule never fires: no run is planned"),
    }
}

fn signal_name(kind: Kind) -> &'static str {
    if kind == Kind::Terminated {
        "SIGTERM"
    } else {
        "SIGINT"
    }
}

/// When the newest successful run finished, from the ledger; none when there is no ledger
/// yet or it cannot be read (then a catch-up run says what is wrong).
fn last_success(cfg: &Resolved) -> Option<DateTime<Local>> {
    let path = cfg.paths.ledger();
    if !path.exists() {
        return None;
    }
    let finished = Ledger::open(&path).ok()?.last_successful_run().ok()??;
    DateTime::parse_from_rfc3339(&finished)
        .ok()
        .map(|t| t.with_timezone(&Local))
}

/// What asks the daemon to reload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reload {
    Hangup,
    Config,
    Prompt,
}

/// The daemon's inputs besides the clock: the stop signal (kept, so a run in progress and
/// the wait both see it) and reload requests.
struct Events {
    stop: watch::Receiver<Option<Kind>>,
    reload: mpsc::Receiver<Reload>,
    // Dropping the watcher stops it; it lives as long as the daemon.
    _watcher: Option<notify::RecommendedWatcher>,
}

impl Events {
    /// Installs the signal handlers and the file watcher. Must run inside the runtime.
    fn install(cfg: &Resolved) -> Result<Self> {
        let (stop_tx, stop) = watch::channel(None);
        let shutdown = pipeline::shutdown_signal();
        tokio::spawn(async move {
            let kind = shutdown.await;
            let _ = stop_tx.send(Some(kind));
        });
        let (reload_tx, reload) = mpsc::channel(16);
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let mut hup = signal(SignalKind::hangup()).context("could not install SIGHUP")?;
            let tx = reload_tx.clone();
            tokio::spawn(async move {
                while hup.recv().await.is_some() {
                    if tx.send(Reload::Hangup).await.is_err() {
                        break;
                    }
                }
            });
        }
        let watcher = watch_files(
            &cfg.paths.config_file,
            [&cfg.paths.prompt_file, &cfg.paths.app_prompt_file],
            reload_tx,
        );
        Ok(Self {
            stop,
            reload,
            _watcher: watcher,
        })
    }
}

async fn wait_stop(mut stop: watch::Receiver<Option<Kind>>) -> Kind {
    match stop.wait_for(Option::is_some).await {
        Ok(kind) => kind.unwrap_or(Kind::Terminated),
        // The signal task is gone: nothing can stop us any more but a kill.
        Err(_) => std::future::pending().await,
    }
}

/// Watches the directories holding the config file and the prompts (the override and
/// Memory Loop's) for changes to those files. A directory that does not exist is not watched (SIGHUP still reloads); a watcher
/// that cannot start is logged, not fatal.
fn watch_files(
    config: &Path,
    prompts: [&Path; 2],
    tx: mpsc::Sender<Reload>,
) -> Option<notify::RecommendedWatcher> {
    use notify::{RecursiveMode, Watcher};
    // Events name files under the directory as it was watched: canonical, so a relative
    // `--config` or a symlinked config directory still matches.
    let canonical = |file: &Path| -> Option<PathBuf> {
        let dir = file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Some(dir.canonicalize().ok()?.join(file.file_name()?))
    };
    let targets: Vec<(PathBuf, Reload)> = [
        (config, Reload::Config),
        (prompts[0], Reload::Prompt),
        (prompts[1], Reload::Prompt),
    ]
    .into_iter()
    .filter_map(|(file, reload)| Some((canonical(file)?, reload)))
    .collect();
    let watched = targets.clone();
    let handler = move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if event.kind.is_access() {
            return;
        }
        for (path, reload) in &watched {
            if event.paths.iter().any(|p| p == path) {
                // A full queue already holds a reload: nothing is lost by dropping this one.
                let _ = tx.try_send(*reload);
            }
        }
    };
    let mut watcher = match notify::recommended_watcher(handler) {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!("cannot watch the config for changes ({e}); send SIGHUP to reload");
            return None;
        }
    };
    let mut dirs: Vec<&Path> = targets.iter().filter_map(|(p, _)| p.parent()).collect();
    dirs.dedup();
    for dir in dirs {
        if let Err(e) = watcher.watch(dir, RecursiveMode::NonRecursive) {
            tracing::warn!(
                "cannot watch {} for changes ({e}); send SIGHUP to reload",
                dir.display()
            );
        }
    }
    Some(watcher)
}

/// The pipeline's progress, as log lines.
struct LogProgress;

impl Progress for LogProgress {
    fn warn(&self, message: &str) {
        tracing::warn!("{message}");
    }

    fn begin(&self, total: usize) {
        if total > 0 {
            tracing::info!("extracting {total} transcripts");
        }
    }

    fn advance(&self, path: &Path, ok: bool) {
        if ok {
            tracing::debug!("processed {}", path.display());
        } else {
            tracing::debug!("failed {}", path.display());
        }
    }

    fn finish(&self) {}
}
