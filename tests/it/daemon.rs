//! `memloop daemon`: catches up at start against the mock LLM, stops cleanly (exit 0) on
//! SIGTERM mid-run leaving consistent files, reloads a changed config and keeps the old one
//! when the new one is invalid, refuses a second daemon, holds the run lock only while it
//! runs, and retries a failing run with back-off instead of in a loop.
//!
//! Each test reads the daemon's log (stderr, sent to a file) while it runs; every wait is
//! bounded.

use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::support::mock::{Mock, Reply};
use crate::support::{TestEnv, anthropic, bullets, read, set_age, transcript};

const WAIT: Duration = Duration::from_secs(20);

/// A running daemon whose stderr goes to a file; killed if a test fails before stopping it.
struct Daemon {
    child: Option<Child>,
    log: PathBuf,
}

impl Daemon {
    fn start(env: &TestEnv, mock: &Mock) -> Self {
        Self::start_with(env, &anthropic(mock), &[])
    }

    fn start_with(env: &TestEnv, provider: &[(&str, String)], extra: &[(&str, &str)]) -> Self {
        let log = env.root().join(format!("daemon-{}.log", unique()));
        let child = env
            .process()
            .envs(provider.iter().map(|(k, v)| (*k, v.as_str())))
            .envs(extra.iter().copied())
            .arg("daemon")
            .stdout(Stdio::null())
            .stderr(File::create(&log).expect("create log"))
            .spawn()
            .expect("spawn memloop daemon");
        Self {
            child: Some(child),
            log,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the log holds `needle` `times` times; panics with the log after WAIT.
    fn wait_for(&self, needle: &str, times: usize) -> String {
        let start = Instant::now();
        loop {
            let log = self.log();
            if log.matches(needle).count() >= times {
                return log;
            }
            assert!(
                start.elapsed() < WAIT,
                "no {times} × {needle:?} in the daemon's log:\n{log}"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn signal(&self, signal: &str) {
        let pid = self.child.as_ref().expect("running").id().to_string();
        let status = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// Sends SIGTERM and returns the exit code and the whole log.
    fn stop(mut self) -> (Option<i32>, String) {
        self.signal("TERM");
        let mut child = self.child.take().expect("running");
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if start.elapsed() > WAIT {
                let _ = child.kill();
                panic!("the daemon did not stop on SIGTERM:\n{}", self.log());
            }
            thread::sleep(Duration::from_millis(20));
        };
        (status.code(), self.log())
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// A vault with `facts.len()` settled transcripts, one fact each, oldest first.
fn vault_with(env: &TestEnv, facts: &[&str]) {
    env.create_vault("delta");
    for (i, fact) in facts.iter().enumerate() {
        let day = 10 + i;
        let path = env.add_transcript(
            "delta",
            &format!("2025-08-{day}-0900-d{i}.md"),
            &transcript(
                &format!("2025-08-{day}"),
                "09:00",
                &format!("D{i}"),
                &format!("remember: Patterns | global | {fact}"),
            ),
        );
        set_age(&path, Duration::from_secs(3600 * (20 - i as u64)));
    }
}

const FACTS: [&str; 5] = [
    "Grows tomatoes on the balcony.",
    "Swims in the lake every morning.",
    "Collects vintage fountain pens.",
    "Restores old wooden sailboats.",
    "Bakes sourdough bread on Sundays.",
];

#[test]
fn the_daemon_catches_up_at_start_then_waits_for_the_schedule_and_stops_with_0() {
    let env = TestEnv::new();
    vault_with(&env, &FACTS[..2]);
    let mock = Mock::start();
    let daemon = Daemon::start(&env, &mock);

    let log = daemon.wait_for("next run at", 1);
    assert!(log.contains("catching up: no successful run yet"), "{log}");
    assert!(log.contains("run started (catch-up)"), "{log}");
    assert!(log.contains("2 transcripts processed"), "{log}");
    assert_eq!(mock.count(), 2);
    let mut memory = bullets(&env.memory());
    memory.sort();
    assert_eq!(memory, [FACTS[0], FACTS[1]]);

    let (code, log) = daemon.stop();
    assert_eq!(
        code,
        Some(0),
        "a clean stop is success for a service: {log}"
    );
    assert!(
        log.contains("stopped by SIGTERM: no run in progress"),
        "{log}"
    );
    assert!(
        !log.contains("remember:"),
        "no transcript text in the log: {log}"
    );

    // Started again within catch_up_hours of that run: no catch-up, only the schedule.
    let daemon = Daemon::start(&env, &mock);
    let log = daemon.wait_for("next run at", 1);
    assert!(!log.contains("catching up"), "{log}");
    thread::sleep(Duration::from_millis(300));
    assert_eq!(mock.count(), 2, "nothing was sent again");
    assert_eq!(daemon.stop().0, Some(0));
}

#[test]
fn sigterm_mid_run_commits_what_was_answered_and_exits_0() {
    let env = TestEnv::new();
    env.config("[llm]\nconcurrency = 1\n");
    vault_with(&env, &FACTS);
    let mock = Mock::start();
    mock.set_latency(Duration::from_millis(400));
    let daemon = Daemon::start(&env, &mock);
    let start = Instant::now();
    while mock.count() < 3 {
        assert!(start.elapsed() < WAIT, "{}", daemon.log());
        thread::sleep(Duration::from_millis(10));
    }
    let (code, log) = daemon.stop();

    assert_eq!(code, Some(0), "{log}");
    assert!(
        log.contains("stopped by SIGTERM: what was answered is committed"),
        "{log}"
    );
    let kept = bullets(&env.memory());
    assert!(
        (2..FACTS.len()).contains(&kept.len()),
        "the answered transcripts, not all: {kept:?}"
    );
    // Consistent: the next run sends only what was not committed and ends with every
    // fact exactly once.
    mock.set_latency(Duration::ZERO);
    let report = env.extract(&mock, &[], 0);
    assert_eq!(report["transcripts"]["unchanged"], kept.len());
    let mut all = bullets(&env.memory());
    all.sort();
    let mut expected = FACTS.to_vec();
    expected.sort_unstable();
    assert_eq!(all, expected);
}

#[test]
fn a_second_daemon_refuses_to_start_and_a_manual_run_between_runs_works() {
    let env = TestEnv::new();
    env.config("[schedule]\ncatch_up_hours = 0\n");
    vault_with(&env, &FACTS[..1]);
    let mock = Mock::start();
    let daemon = Daemon::start(&env, &mock);
    daemon.wait_for("next run at", 1);

    let second = env
        .cmd()
        .envs(anthropic(&mock))
        .arg("daemon")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(75), "{stderr}");
    assert!(
        stderr.contains("another memloop daemon is running"),
        "{stderr}"
    );

    // The daemon holds the run lock only while it runs: a manual run now works.
    let report = env.extract(&mock, &[], 0);
    assert_eq!(report["transcripts"]["processed"], 1);
    assert_eq!(daemon.stop().0, Some(0));
}

#[test]
fn a_manual_run_while_the_daemon_runs_exits_75() {
    let env = TestEnv::new();
    env.config("[llm]\nconcurrency = 1\n");
    vault_with(&env, &FACTS);
    let mock = Mock::start();
    mock.set_latency(Duration::from_millis(500));
    let daemon = Daemon::start(&env, &mock);
    daemon.wait_for("run started", 1);
    while mock.count() < 1 {
        thread::sleep(Duration::from_millis(10));
    }
    env.cmd()
        .envs(anthropic(&mock))
        .arg("extract")
        .assert()
        .code(75);
    assert_eq!(daemon.stop().0, Some(0));
}

#[test]
fn a_changed_config_is_picked_up_and_an_invalid_one_is_logged_and_ignored() {
    let env = TestEnv::new();
    env.config("[schedule]\ncron = \"0 3 * * *\"\ncatch_up_hours = 0\n");
    vault_with(&env, &FACTS[..1]);
    let mock = Mock::start();
    let daemon = Daemon::start(&env, &mock);
    daemon.wait_for("next run at", 1);

    env.config("[schedule]\ncron = \"30 4 * * *\"\ncatch_up_hours = 0\n");
    let log = daemon.wait_for("config reloaded", 1);
    assert!(log.contains("schedule \"30 4 * * *\""), "{log}");
    let log = daemon.wait_for("next run at", 2);
    assert!(
        log.lines()
            .rfind(|l| l.contains("next run at"))
            .unwrap()
            .contains("04:30"),
        "{log}"
    );

    env.config("[schedule]\ncron = \"every night\"\ncatch_up_hours = 0\n");
    let log = daemon.wait_for("config not reloaded", 1);
    assert!(
        log.contains("config.toml"),
        "the error names the file: {log}"
    );

    // SIGHUP reads it again: still invalid, still the old schedule.
    daemon.signal("HUP");
    daemon.wait_for("config not reloaded", 2);
    env.config("[schedule]\ncron = \"30 4 * * *\"\ncatch_up_hours = 0\n");
    thread::sleep(Duration::from_millis(500));
    daemon.signal("HUP");
    let log = daemon.wait_for("SIGHUP: config unchanged", 1);
    assert_eq!(mock.count(), 0, "no run was due: {log}");

    let (code, log) = daemon.stop();
    assert_eq!(code, Some(0), "{log}");
}

#[test]
fn a_failing_run_is_retried_with_back_off_not_in_a_loop() {
    let env = TestEnv::new();
    env.config("[llm]\nmax_retries = 0\n");
    vault_with(&env, &FACTS[..1]);
    let mock = Mock::start();
    mock.set_default(Reply::server_error());
    let daemon = Daemon::start_with(
        &env,
        &anthropic(&mock),
        &[("MEMLOOP_DAEMON_RETRY_BASE_SECS", "1")],
    );
    // Retries after 1 s, then 2 s: three runs in about 3 s.
    let log = daemon.wait_for("run started (retry 2)", 1);
    thread::sleep(Duration::from_millis(500));
    assert!(
        log.contains("next run at") && log.contains("(retry 1)"),
        "{log}"
    );
    assert!(log.contains("HTTP 500"), "the failure says why: {log}");
    let runs = daemon.log().matches("run started").count();
    assert_eq!(runs, 3, "{}", daemon.log());
    assert_eq!(mock.count(), 3, "one request per run, no hot loop");
    assert_eq!(daemon.stop().0, Some(0));
}

#[test]
fn a_rejected_key_is_logged_once_and_waits_for_the_schedule() {
    let env = TestEnv::new();
    vault_with(&env, &FACTS[..2]);
    let mock = Mock::start();
    mock.set_default(Reply::unauthorized());
    let daemon = Daemon::start_with(
        &env,
        &anthropic(&mock),
        &[("MEMLOOP_DAEMON_RETRY_BASE_SECS", "1")],
    );
    daemon.wait_for("next run at", 1);
    thread::sleep(Duration::from_millis(1500));
    let log = daemon.log();
    // The two transcripts go out together, so the second request may reach
    // the mock after the first 401 stopped the run; a retry would be a
    // second run and a third request.
    assert!(
        mock.count() <= 2,
        "the key is not tried again before the schedule: {log}"
    );
    assert_eq!(log.matches("run started").count(), 1, "{log}");
    assert_eq!(log.matches("run stopped early").count(), 1, "{log}");
    assert!(!log.contains("retry"), "{log}");
    assert!(!log.contains("test-key"), "no key in the log: {log}");
    assert_eq!(daemon.stop().0, Some(0));
}

#[test]
fn an_invalid_config_at_start_is_exit_2() {
    let env = TestEnv::new();
    vault_with(&env, &FACTS[..1]);
    let config = env.config("[schedule]\ncron = \"every night\"\n");
    let out = env.cmd().arg("daemon").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&config.display().to_string()), "{stderr}");
    assert!(read(&config).contains("every night"));
}

#[test]
fn a_daemon_with_no_vault_refuses_to_start() {
    let env = TestEnv::new();
    let out = env.cmd().arg("daemon").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no vault found in"), "{stderr}");
}
