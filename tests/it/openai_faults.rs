//! What an OpenAI-compatible server can do wrong and what memloop does about it: the
//! fault matrix of `llm_faults` on the Chat Completions wire format, plus what only that
//! format has: stepping down from `response_format` to a forced tool call to plain JSON
//! when a server rejects the stronger form (and starting later transcripts at the form
//! that worked), and local servers that take no key.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::fixture::GLOBAL;
use crate::support::mock::{Mock, Recorded, Reply};
use crate::support::{TestEnv, bullets, openai, read, report};

/// One request at a time: each scripted fault hits exactly one transcript, in order.
const ONE_AT_A_TIME: &str = "[llm]\nconcurrency = 1\n";
/// One request at a time and no retries of transient failures.
const ONE_SHOT: &str = "[llm]\nconcurrency = 1\nmax_retries = 0\n";

/// An error body recorded from OpenAI (`fixtures/openai/NAME`).
fn recorded_error(name: &str) -> String {
    read(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/openai")
            .join(name),
    )
}

/// A status with an OpenAI-shaped error body.
fn openai_error(code: u16, kind: &str, message: &str) -> Reply {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": null}});
    Reply::status(code, body.to_string())
}

/// How the request asked for structured output.
fn mode(request: &Recorded) -> &'static str {
    let body = request.json();
    match (body.get("response_format"), body.get("tools")) {
        (Some(_), _) => "json_schema",
        (None, Some(_)) => "tool",
        (None, None) => "plain",
    }
}

fn sorted(mut items: Vec<String>) -> Vec<String> {
    items.sort();
    items
}

fn all_global_facts() -> Vec<String> {
    sorted(GLOBAL.iter().map(|(_, f)| (*f).to_owned()).collect())
}

fn assert_no_facts_written(env: &TestEnv) {
    if env.memory_path().exists() {
        let memory = env.memory();
        assert!(bullets(&memory).is_empty(), "{memory}");
    }
}

#[test]
fn a_429_is_retried_after_its_retry_after_delay() {
    let env = TestEnv::with_fixtures();
    env.config(ONE_AT_A_TIME);
    let mock = Mock::start();
    mock.push(Reply::Status {
        code: 429,
        headers: vec![("Retry-After".into(), "1".into())],
        body: recorded_error("error-429.json"),
    });
    let started = Instant::now();

    let report = env.extract_via(&openai(&mock), &[], 0);

    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 beats the 10 ms retry base"
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 4, "three transcripts, the first sent twice");
    assert_eq!(requests[0].body, requests[1].body, "the same request again");
    assert_eq!(report["transcripts"]["processed"], 3);
    assert_eq!(report["failures"], json!([]));
}

#[test]
fn overloaded_and_server_errors_are_retried() {
    let env = TestEnv::with_fixtures();
    env.config("[llm]\nconcurrency = 1\nmax_retries = 2\n");
    let mock = Mock::start();
    mock.push(openai_error(
        529,
        "server_error",
        "The server is overloaded.",
    ));
    mock.push(openai_error(
        500,
        "server_error",
        "The server had an error.",
    ));

    let report = env.extract_via(&openai(&mock), &[], 0);

    let requests = mock.requests();
    assert_eq!(requests.len(), 5, "the first transcript took three tries");
    assert_eq!(requests[0].body, requests[2].body);
    assert_eq!(report["transcripts"]["processed"], 3);
    assert_eq!(report["facts"]["new"], 6);
    assert_eq!(sorted(bullets(&env.memory())), all_global_facts());
}

#[test]
fn server_errors_past_max_retries_fail_the_transcript_until_the_next_run() {
    let env = TestEnv::with_fixtures();
    env.config("[llm]\nconcurrency = 1\nmax_retries = 1\n");
    let mock = Mock::start();
    mock.push(openai_error(
        500,
        "server_error",
        "The server had an error.",
    ));
    mock.push(openai_error(
        500,
        "server_error",
        "The server had an error.",
    ));

    let report = env.extract_via(&openai(&mock), &[], 1);

    assert_eq!(
        mock.count(),
        4,
        "one try and one retry, then two transcripts"
    );
    assert_eq!(report["transcripts"]["failed"], 1);
    assert_eq!(report["transcripts"]["processed"], 2);
    let error = report["failures"][0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("500"), "{report}");

    let report = env.extract_via(&openai(&mock), &[], 0);

    assert_eq!(mock.count(), 5, "only the failed transcript is sent again");
    assert_eq!(report["transcripts"]["processed"], 1);
    assert_eq!(report["transcripts"]["unchanged"], 2);
}

#[test]
fn a_hung_request_times_out_and_its_transcript_is_sent_next_run() {
    let env = TestEnv::with_fixtures();
    env.config(&format!("{ONE_SHOT}timeout_secs = 1\n"));
    let mock = Mock::start();
    mock.push(Reply::Hang(Duration::from_secs(30)));
    let started = Instant::now();

    let report = env.extract_via(&openai(&mock), &[], 1);

    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_secs(1) && elapsed < Duration::from_secs(10),
        "timeout_secs = 1 is honoured: {elapsed:?}"
    );
    assert_eq!(mock.count(), 3);
    assert_eq!(report["transcripts"]["failed"], 1);
    assert_eq!(report["transcripts"]["processed"], 2);
    let error = report["failures"][0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("timed out"), "{report}");

    let report = env.extract_via(&openai(&mock), &[], 0);

    assert_eq!(mock.count(), 4);
    assert_eq!(report["transcripts"]["processed"], 1);
}

#[test]
fn a_prose_answer_is_asked_for_once_more_then_fails_its_transcript() {
    // (prose answers queued, exit code, processed, failed)
    for (garbage, code, processed, failed) in [(1, 0, 3, 0), (2, 1, 2, 1)] {
        let env = TestEnv::with_fixtures();
        env.config(ONE_SHOT);
        let mock = Mock::start();
        for _ in 0..garbage {
            mock.push(Reply::Prose);
        }

        let report = env.extract_via(&openai(&mock), &[], code);

        let requests = mock.requests();
        assert_eq!(requests.len(), 4, "{garbage} garbage: asked twice, no more");
        assert_eq!(requests[0].body, requests[1].body);
        assert_eq!(report["transcripts"]["processed"], processed);
        assert_eq!(report["transcripts"]["failed"], failed);
        if failed > 0 {
            let error = report["failures"][0]["error"].as_str().unwrap_or_default();
            assert!(error.contains("could not read facts"), "{report}");
        }
    }
}

#[test]
fn a_rejected_key_is_exit_2_naming_openai_api_key_and_marks_nothing_done() {
    let env = TestEnv::with_fixtures();
    env.config(ONE_AT_A_TIME);
    let mock = Mock::start();
    mock.set_default(Reply::status(401, recorded_error("error-401.json")));

    let output = env
        .cmd()
        .envs(openai(&mock))
        .arg("extract")
        .assert()
        .code(2);

    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(stderr.contains("OPENAI_API_KEY"), "{stderr}");
    assert!(
        !stderr.contains("test-key"),
        "the key is never printed:\n{stderr}"
    );
    assert_eq!(
        mock.count(),
        1,
        "a 401 stops the run: no retry, no next transcript"
    );
    assert_no_facts_written(&env);

    mock.set_default(Reply::Echo);
    let report = env.extract_via(&openai(&mock), &[], 0);

    assert_eq!(mock.count(), 4, "nothing was marked processed");
    assert_eq!(report["transcripts"]["processed"], 3);
}

#[test]
fn a_rejected_response_format_falls_back_to_a_tool_call_which_later_transcripts_reuse() {
    let env = TestEnv::with_fixtures();
    env.config(ONE_AT_A_TIME);
    let mock = Mock::start();
    mock.when(
        |r| mode(r) == "json_schema",
        Reply::status(400, recorded_error("error-400-response-format.json")),
    );

    let report = env.extract_via(&openai(&mock), &[], 0);

    let modes: Vec<&str> = mock.requests().iter().map(mode).collect();
    assert_eq!(modes, ["json_schema", "tool", "tool", "tool"]);
    assert_eq!(report["transcripts"]["processed"], 3);
    assert_eq!(sorted(bullets(&env.memory())), all_global_facts());
}

#[test]
fn a_server_refusing_tools_too_gets_plain_json_from_then_on() {
    let env = TestEnv::with_fixtures();
    env.config(ONE_AT_A_TIME);
    let mock = Mock::start();
    mock.when(
        |r| mode(r) == "json_schema",
        Reply::status(400, recorded_error("error-400-response-format.json")),
    );
    mock.when(
        |r| mode(r) == "tool",
        Reply::openai_bad_request("tools is not supported in this model"),
    );

    let report = env.extract_via(&openai(&mock), &[], 0);

    let requests = mock.requests();
    let modes: Vec<&str> = requests.iter().map(mode).collect();
    assert_eq!(modes, ["json_schema", "tool", "plain", "plain", "plain"]);
    assert_eq!(
        requests[2].user_text(),
        requests[0].user_text(),
        "the same transcript, asked differently"
    );
    assert_eq!(report["transcripts"]["processed"], 3);
    assert_eq!(report["failures"], json!([]));
    assert_eq!(sorted(bullets(&env.memory())), all_global_facts());
}

#[test]
fn a_local_server_without_openai_api_key_gets_no_authorization_header() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();

    let report = env.extract_via(&[("OPENAI_BASE_URL", format!("{}/v1", mock.url()))], &[], 0);

    assert_eq!(report["provider"], "openai", "auto: OPENAI_BASE_URL is set");
    let requests = mock.requests();
    assert_eq!(requests.len(), 3);
    for request in &requests {
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(
            request.header("authorization"),
            None,
            "{:?}",
            request.headers
        );
    }
    assert_eq!(report["transcripts"]["processed"], 3);
    assert_eq!(sorted(bullets(&env.memory())), all_global_facts());
}

#[test]
fn memloop_model_is_the_model_sent_and_reported() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();

    let output = env
        .cmd()
        .envs(openai(&mock))
        .env("MEMLOOP_MODEL", "gpt-4o-mini")
        .args(["extract", "--json"])
        .assert()
        .code(0);

    let run = report(output.get_output());
    assert_eq!(run["provider"], "openai");
    assert_eq!(run["model"], "gpt-4o-mini");
    for request in mock.requests() {
        assert_eq!(request.json()["model"], "gpt-4o-mini");
    }
}
