//! Answers that hold something broken. A lone surrogate (half an emoji) and one malformed
//! entry among good ones are read, not failed; a model's answer that cannot be read at all
//! fails its transcript and is asked again on the next runs, and only after three runs in a
//! row is the unchanged transcript not sent again every night until it, the prompt or the
//! model changes.

use serde_json::json;

use crate::support::mock::{Mock, Reply, anthropic_tool_use};
use crate::support::{TestEnv, anthropic, bullets};

const TRANSCRIPT: &str = "---\ndate: 2025-06-01\n---\n\n## [09:00] User\n\nI keep bees on the allotment. I play the cello on weekends.\n";

fn one_transcript() -> TestEnv {
    let env = TestEnv::new();
    env.create_vault("solo");
    env.add_transcript("solo", "2025-06-01-a.md", TRANSCRIPT);
    env
}

/// A record_facts answer as the API sends it, with `\ud83d` (a high surrogate without its
/// pair) in the first fact's text: serde_json refuses such a body outright.
fn answer_with_lone_surrogate() -> String {
    let body = anthropic_tool_use(
        &json!({"facts": [
            {"category": "Identity", "text": "Keeps bees on the allotment SURROGATE.", "scope": "global",
             "evidence": "I keep bees on the allotment", "replaces": null},
            {"category": "Identity", "text": "Plays the cello on weekends.", "scope": "global",
             "evidence": "I play the cello on weekends", "replaces": null}
        ]}),
        100,
        20,
    );
    body.replace("SURROGATE", "\\ud83d")
}

#[test]
fn a_lone_surrogate_in_an_answer_is_read_once_not_failed_every_night() {
    let env = one_transcript();
    let mock = Mock::start();
    mock.set_default(Reply::Raw(answer_with_lone_surrogate()));

    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 1, "read the first time, not asked again");
    assert_eq!(report["transcripts"]["processed"], 1, "{report}");
    assert_eq!(
        bullets(&env.memory()),
        [
            "Keeps bees on the allotment \u{fffd}.",
            "Plays the cello on weekends."
        ]
    );
    env.extract(&mock, &[], 0);
    assert_eq!(mock.count(), 1, "done: not sent again");
}

#[test]
fn one_malformed_entry_keeps_the_well_formed_ones() {
    let env = one_transcript();
    let mock = Mock::start();
    // The tool input arrives as a string (some proxies do that) whose middle entry has an
    // unescaped quote.
    let broken = r#"{"facts": [{"category": "Identity", "text": "Keeps bees on the allotment.", "scope": "global", "evidence": "I keep bees on the allotment", "replaces": null}, {"category": "Identity", "text": "Says "hello".", "scope": "global", "evidence": "x", "replaces": null}, {"category": "Identity", "text": "Plays the cello on weekends.", "scope": "global", "evidence": "I play the cello on weekends", "replaces": null}]}"#;
    mock.set_default(Reply::Raw(anthropic_tool_use(&json!(broken), 100, 20)));

    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 1);
    assert_eq!(report["facts"]["new"], 2, "{report}");
    env.extract(&mock, &[], 0);
    assert_eq!(mock.count(), 1, "done: not sent again");
}

#[test]
fn an_answer_that_cannot_be_read_is_asked_again_then_waits_for_a_change() {
    let env = one_transcript();
    let mock = Mock::start();
    mock.set_default(Reply::Prose);

    // One bad night is the model's: the next runs ask again, and say so.
    for run in 1..=3 {
        let before = mock.count();
        let report = env.extract(&mock, &[], 1);
        assert_eq!(report["transcripts"]["failed"], 1, "run {run}: {report}");
        assert!(mock.count() > before, "run {run}: asked");
        let error = report["failures"][0]["error"].as_str().unwrap_or_default();
        let said = if run < 3 {
            format!("run {run} of 3: asked again next run")
        } else {
            "on 3 runs in a row".to_owned()
        };
        assert!(error.contains(&said), "run {run}: {error}");
    }
    let asked = mock.count();

    // Three runs in a row: the same bytes, prompt and model would get the same answer.
    let report = env.extract(&mock, &[], 0);
    assert_eq!(mock.count(), asked, "not sent again");
    assert_eq!(report["transcripts"]["still_failing"], 1, "{report}");
    assert!(
        report["still_failing"][0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("could not read facts")),
        "{report}"
    );

    // Another model is worth asking.
    mock.set_default(Reply::Echo);
    let output = env
        .cmd()
        .envs(anthropic(&mock))
        .env("MEMLOOP_MODEL", "claude-sonnet-4-5")
        .args(["extract", "--json"])
        .assert()
        .code(0);
    let report: serde_json::Value = serde_json::from_slice(&output.get_output().stdout).unwrap();
    assert_eq!(report["transcripts"]["processed"], 1, "{report}");
    assert_eq!(mock.count(), asked + 1);

    // And once read, the old failure is gone: with the first model again, nothing is skipped.
    let report = env.extract(&mock, &[], 0);
    assert_eq!(report["transcripts"]["still_failing"], 0, "{report}");
}
