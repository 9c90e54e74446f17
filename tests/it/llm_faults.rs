//! What the LLM can do wrong and what memloop does about it: retryable statuses are
//! retried (honouring `Retry-After`), a rejected key stops the run with exit 2, anything
//! else fails that transcript only, and a failed transcript is never marked done.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::fixture::{ALPHA_1, ALPHA_2, BETA_1};
use crate::support::mock::{Mock, Reply};
use crate::support::{TestEnv, anthropic, bullets};

/// One request at a time and no retries: each scripted fault hits exactly one transcript.
const ONE_SHOT: &str = "[llm]\nconcurrency = 1\nmax_retries = 0\n";

#[test]
fn server_errors_fail_every_transcript_and_leave_them_for_the_next_run() {
    let env = TestEnv::with_fixtures();
    env.config("[llm]\nmax_retries = 1\n");
    let mock = Mock::start();
    mock.set_default(Reply::server_error());

    let report = env.extract(&mock, &[], 1);

    assert_eq!(
        mock.count(),
        6,
        "each transcript: one try and max_retries = 1 retry"
    );
    assert_eq!(report["transcripts"]["failed"], 3);
    assert_eq!(report["transcripts"]["processed"], 0);
    let failures = report["failures"].as_array().expect("failures array");
    for name in [ALPHA_1, ALPHA_2, BETA_1] {
        assert!(
            failures
                .iter()
                .any(|f| f["path"].as_str().is_some_and(|p| p.ends_with(name))),
            "{name} is named: {report}"
        );
    }
    assert_no_facts_written(&env);

    mock.set_default(Reply::Echo);
    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 9, "all three are sent again");
    assert_eq!(report["transcripts"]["processed"], 3);
    assert_eq!(report["facts"]["new"], 6);
}

#[test]
fn a_rejected_key_is_exit_2_and_marks_nothing_done() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    mock.set_default(Reply::unauthorized());

    let output = env
        .cmd()
        .envs(anthropic(&mock))
        .arg("extract")
        .assert()
        .code(2);

    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
    assert!(
        !stderr.contains("test-key"),
        "the key itself is never printed:\n{stderr}"
    );
    assert_no_facts_written(&env);
    let sent = mock.settled_count();
    assert!(
        (1..=3).contains(&sent),
        "a 401 is not retried: {sent} requests"
    );

    mock.set_default(Reply::Echo);
    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count() - sent, 3, "nothing was marked processed");
    assert_eq!(report["transcripts"]["processed"], 3);
}

#[test]
fn a_429_is_retried_after_the_retry_after_delay() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    mock.push(Reply::rate_limited(1));
    let started = Instant::now();

    let report = env.extract(&mock, &[], 0);

    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 beats the 10 ms retry base"
    );
    assert_eq!(mock.count(), 4);
    assert_eq!(report["transcripts"]["processed"], 3);
    assert_eq!(report["failures"], json!([]));
}

#[test]
fn overloaded_529s_are_retried() {
    let env = TestEnv::with_fixtures();
    env.config("[llm]\nconcurrency = 1\nmax_retries = 2\n");
    let mock = Mock::start();
    mock.push(Reply::overloaded());
    mock.push(Reply::overloaded());

    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 5);
    assert_eq!(report["transcripts"]["processed"], 3);
    assert_eq!(report["facts"]["new"], 6);
}

#[test]
fn a_malformed_answer_fails_only_its_transcript() {
    // A model's answer with no parseable facts is asked for once more before the
    // transcript fails; a dropped connection is a transport fault, governed by max_retries
    // (0 here).
    for (fault, times, requests) in [(Reply::Prose, 2, 4), (Reply::Drop, 1, 3)] {
        let env = TestEnv::with_fixtures();
        env.config(ONE_SHOT);
        let mock = Mock::start();
        for _ in 0..times {
            mock.push(fault.clone());
        }

        let report = env.extract(&mock, &[], 1);

        assert_eq!(mock.count(), requests, "{fault:?}");
        assert_eq!(
            report["transcripts"],
            json!({"found": 3, "unchanged": 0, "waiting": 0, "deferred": 0, "processed": 2, "failed": 1, "still_failing": 0}),
            "{fault:?}"
        );
        assert_eq!(
            report["failures"].as_array().map(Vec::len),
            Some(1),
            "{fault:?}"
        );
        assert!(
            env.memory_path().exists(),
            "{fault:?}: the other transcripts were committed"
        );
    }
}

#[test]
fn an_answer_without_facts_is_asked_for_once_more() {
    let env = TestEnv::with_fixtures();
    env.config(ONE_SHOT);
    let mock = Mock::start();
    mock.push(Reply::Prose);

    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 4, "three transcripts, one asked twice");
    assert_eq!(report["transcripts"]["processed"], 3);
}

/// A 200 whose body is not the provider's response: a captive portal's page, prose, an
/// empty body, JSON cut off halfway, JSON of another shape.
fn not_the_providers_response() -> [Reply; 5] {
    [
        Reply::Raw(
            "<!DOCTYPE html><html><head><title>Sign in to CoffeeShop Wi-Fi</title></head></html>"
                .to_owned(),
        ),
        Reply::Garbage,
        Reply::Raw(String::new()),
        Reply::Truncated,
        Reply::Raw("{\"status\": \"ok\"}".to_owned()),
    ]
}

#[test]
fn a_response_that_is_not_the_providers_is_retried_like_a_server_error() {
    for fault in not_the_providers_response() {
        let env = TestEnv::with_fixtures();
        env.config("[llm]\nconcurrency = 1\nmax_retries = 2\n");
        let mock = Mock::start();
        mock.push(fault.clone());

        let report = env.extract(&mock, &[], 0);

        assert_eq!(mock.count(), 4, "{fault:?}: asked again, then the others");
        assert_eq!(report["transcripts"]["processed"], 3, "{fault:?}");
    }
}

#[test]
fn a_night_of_responses_that_are_not_the_providers_stops_the_run_and_parks_nothing() {
    for fault in not_the_providers_response() {
        let env = TestEnv::with_fixtures();
        env.config("[llm]\nconcurrency = 1\nmax_retries = 1\n");
        let mock = Mock::start();
        mock.set_default(fault.clone());

        let report = env.extract(&mock, &[], 1);

        assert_eq!(
            mock.count(),
            2,
            "{fault:?}: one transcript, retried once, then the run stops"
        );
        assert_eq!(report["transcripts"]["processed"], 0, "{fault:?}");
        let failures = report["failures"].to_string();
        assert!(
            failures.contains("the provider's response could not be read")
                && failures.contains("the remaining transcripts wait for the next run"),
            "{fault:?}: {report}"
        );

        // The provider is back: every transcript is asked, none skipped as failing.
        mock.set_default(Reply::Echo);
        let report = env.extract(&mock, &[], 0);
        assert_eq!(report["transcripts"]["processed"], 3, "{fault:?}: {report}");
        assert_eq!(report["transcripts"]["still_failing"], 0, "{fault:?}");
    }
}

#[test]
fn a_hung_request_times_out_and_fails_its_transcript() {
    let env = TestEnv::with_fixtures();
    env.config(&format!("{ONE_SHOT}timeout_secs = 1\n"));
    let mock = Mock::start();
    mock.push(Reply::Hang(Duration::from_secs(30)));
    let started = Instant::now();

    let report = env.extract(&mock, &[], 1);

    assert!(
        started.elapsed() < Duration::from_secs(10),
        "timeout_secs is honoured"
    );
    assert_eq!(report["transcripts"]["failed"], 1);
    assert_eq!(report["transcripts"]["processed"], 2);
}

#[test]
fn slow_answers_within_the_timeout_are_fine() {
    let env = TestEnv::with_fixtures();
    env.config("[llm]\ntimeout_secs = 5\n");
    let mock = Mock::start();
    mock.set_latency(Duration::from_millis(300));

    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 3);
    assert_eq!(report["transcripts"]["processed"], 3);
}

/// A run that committed nothing may still have written an empty skeleton, never a fact.
fn assert_no_facts_written(env: &TestEnv) {
    if env.memory_path().exists() {
        let memory = env.memory();
        assert!(bullets(&memory).is_empty(), "{memory}");
    }
}

#[test]
fn an_unknown_model_stops_the_run_with_exit_2_and_still_reports() {
    let env = TestEnv::with_fixtures();
    env.config(ONE_SHOT);
    let mock = Mock::start();
    mock.set_default(Reply::status(
        404,
        r#"{"type":"error","error":{"type":"not_found_error","message":"model: claude-haiku-4.5"}}"#,
    ));

    let output = env
        .cmd()
        .envs(anthropic(&mock))
        .env("MEMLOOP_MODEL", "claude-haiku-4.5")
        .args(["extract", "--json"])
        .assert()
        .code(2);

    assert_eq!(mock.settled_count(), 1, "one 404 is enough to know");
    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(
        stderr.contains("MEMLOOP_MODEL") && stderr.contains("claude-haiku-4.5"),
        "{stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&output.get_output().stdout).expect("the report is printed");
    assert_eq!(report["transcripts"]["processed"], 0);
}

#[test]
fn a_fatal_error_mid_run_still_prints_the_report_of_what_was_committed() {
    let env = TestEnv::with_fixtures();
    env.config(ONE_SHOT);
    let mock = Mock::start();
    mock.push(Reply::Echo);
    mock.set_default(Reply::unauthorized());

    let output = env
        .cmd()
        .envs(anthropic(&mock))
        .args(["extract", "--json"])
        .assert()
        .code(2);

    let report: serde_json::Value =
        serde_json::from_slice(&output.get_output().stdout).expect("the report is printed");
    assert_eq!(report["transcripts"]["processed"], 1);
    assert!(
        env.memory_path().exists(),
        "the first transcript was committed"
    );
}

#[test]
fn a_server_that_is_not_there_stops_the_run_after_one_transcript() {
    let env = TestEnv::with_fixtures();
    env.config(ONE_SHOT);
    let url = closed_port_url();

    let output = env
        .cmd()
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("ANTHROPIC_BASE_URL", &url)
        .args(["extract", "--json"])
        .assert()
        .code(1);

    let report: serde_json::Value =
        serde_json::from_slice(&output.get_output().stdout).expect("report");
    assert_eq!(
        report["transcripts"]["failed"], 1,
        "the others were not tried: {report}"
    );
    assert_eq!(report["transcripts"]["processed"], 0);
    let failures = report["failures"].to_string();
    assert!(
        failures.contains(&url) && failures.contains("next run"),
        "{failures}"
    );
}

#[test]
fn an_unreachable_server_is_one_failure_whatever_was_in_flight() {
    let env = TestEnv::with_fixtures();
    env.config("[llm]\nconcurrency = 4\nmax_retries = 0\n");

    let output = env
        .cmd()
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("ANTHROPIC_BASE_URL", closed_port_url())
        .args(["extract", "--json"])
        .assert()
        .code(1);

    let report: serde_json::Value =
        serde_json::from_slice(&output.get_output().stdout).expect("report");
    assert_eq!(report["transcripts"]["failed"], 1, "{report}");
    assert_eq!(report["transcripts"]["deferred"], 2, "{report}");
    let unreachable = report["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .filter(|f| {
            f["error"]
                .as_str()
                .is_some_and(|e| e.contains("could not be reached"))
        })
        .count();
    assert_eq!(unreachable, 1, "{report}");
}

#[test]
fn a_slow_old_transcript_does_not_pile_up_uncommitted_answers() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.config("[llm]\nconcurrency = 2\n");
    for i in 0..8u64 {
        let path = env.add_transcript(
            "gamma",
            &format!("t{i}.md"),
            &crate::support::transcript(
                "2025-07-01",
                "09:00",
                &format!("T{i}"),
                &format!("remember: Patterns | global | Waters plant number {i} daily."),
            ),
        );
        crate::support::set_age(&path, Duration::from_secs(3600 * (20 - i)));
    }
    let mock = Mock::start();
    mock.when(
        |r| r.user_text().contains("plant number 0 "),
        Reply::SlowEcho(Duration::from_millis(1500)),
    );

    let child = env
        .process()
        .envs(anthropic(&mock))
        .arg("extract")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn memloop");
    std::thread::sleep(Duration::from_millis(900));
    let while_waiting = mock.count();
    let status = child.wait_with_output().expect("reap memloop").status;

    assert!(
        while_waiting <= 4,
        "at most twice the concurrency is asked for while the oldest is slow: {while_waiting}"
    );
    assert_eq!(status.code(), Some(0));
    assert_eq!(mock.extractions(), 8);
    assert_eq!(bullets(&env.memory()).len(), 8);
}

/// A loopback URL nothing listens on: the port of a listener that was just closed.
fn closed_port_url() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    format!("http://127.0.0.1:{port}")
}
