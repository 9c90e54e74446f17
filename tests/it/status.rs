//! `memloop status`: the last run and its failures, a run in progress, the transcripts
//! waiting per vault and those processed with an older prompt, the files against their
//! caps, the facts waiting for review, the provider and the prompt. Read-only: it creates
//! nothing on a fresh home and changes nothing on a used one.

use std::fs;

use serde_json::Value;

use crate::support::mock::Mock;
use crate::support::{TestEnv, anthropic, report, transcript};

/// `memloop status` (text), with `MEMLOOP_PROVIDER=anthropic` and a key so the provider
/// line does not depend on the machine.
fn status(env: &TestEnv) -> String {
    let out = env
        .cmd()
        .env("MEMLOOP_PROVIDER", "anthropic")
        .env("ANTHROPIC_API_KEY", "test-key")
        .arg("status")
        .assert()
        .code(0);
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

/// `memloop status --json`.
fn status_json(env: &TestEnv) -> Value {
    report(
        env.cmd()
            .args(["status", "--json"])
            .assert()
            .code(0)
            .get_output(),
    )
}

/// The text with the sandbox's path as `[ROOT]`, times as `[TIME]`, durations as `[SECS]`.
fn filtered(env: &TestEnv, text: &str) -> String {
    let text = text.replace(&env.root().display().to_string(), "[ROOT]");
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d").expect("time pattern");
    let secs = regex::Regex::new(r"in \d+\.\ds").expect("duration pattern");
    let text = time.replace_all(&text, "[TIME]");
    secs.replace_all(&text, "in [SECS]").into_owned()
}

#[test]
fn on_a_fresh_home_status_says_never_run_shows_what_waits_and_creates_nothing() {
    let env = TestEnv::with_fixtures();
    let before = env.snapshot_tree();

    let text = status(&env);

    insta::assert_snapshot!("fresh_home", filtered(&env, &text));
    assert_eq!(status_json(&env)["last_run"], Value::Null);
    env.snapshot_tree().assert_unchanged_since(&before);
    assert!(!env.state_dir().exists(), "no state directory is created");
}

#[test]
fn on_a_used_home_status_shows_the_last_run_its_failures_and_what_waits() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let broken = env.add_transcript_bytes("alpha", "2025-06-15-0800-broken.md", b"\0binary");
    env.extract(&mock, &[], 1);
    env.config("[memory]\nreview = true\n");
    env.add_transcript(
        "beta",
        "2025-06-21-0900-tea.md",
        &transcript(
            "2025-06-21",
            "09:00",
            "Tea",
            "remember: Preferences | global | Drinks green tea in the morning.",
        ),
    );
    // The broken transcript failed once; unchanged, it no longer fails a run.
    env.extract(&mock, &[], 0);
    env.add_transcript(
        "alpha",
        "2025-06-22-0900-later.md",
        &transcript("2025-06-22", "09:00", "Later", "Nothing to remember."),
    );
    env.add_fresh_transcript("beta", "2025-06-23-0900-now.md", b"still talking");
    let before = env.snapshot_tree();

    let text = status(&env);

    insta::assert_snapshot!("used_home", filtered(&env, &text));
    assert!(
        text.contains(&format!("unreadable: {}: binary file", broken.display())),
        "{text}"
    );
    env.snapshot_tree().assert_unchanged_since(&before);
}

#[test]
fn status_json_carries_the_same_facts_for_scripts() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    env.add_fresh_transcript("alpha", "2025-06-23-0900-now.md", b"still talking");

    let s = status_json(&env);

    let run = &s["last_run"];
    assert_eq!(run["outcome"], "ok", "{s}");
    assert_eq!(run["report"]["transcripts"]["processed"], 3, "{s}");
    assert!(run["finished_at"].is_string(), "{s}");
    assert_eq!(s["in_progress"], false);
    assert_eq!(s["transcripts"]["processed"], 3);
    assert_eq!(s["transcripts"]["waiting"], 0);
    assert_eq!(s["transcripts"]["settling"], 1);
    let alpha = &s["transcripts"]["vaults"][0];
    assert_eq!(
        (&alpha["name"], &alpha["unchanged"], &alpha["settling"]),
        (&"alpha".into(), &2.into(), &1.into()),
        "{s}"
    );
    let bytes = fs::metadata(env.memory_path()).expect("memory.md").len();
    assert_eq!(s["memory"]["bytes"], bytes);
    assert_eq!(s["memory"]["max_bytes"], 51_200);
    assert_eq!(s["insights"][0]["vault"], "alpha");
    assert_eq!(s["insights"][0]["bullets"], 1);
    let claude = fs::read_to_string(env.claude_md("alpha")).expect("CLAUDE.md");
    let block = crate::support::insights_block(&claude).expect("block");
    assert_eq!(
        s["insights"][0]["bytes"],
        block.len() + 1,
        "with its last newline"
    );
    assert_eq!(s["facts"]["active"], 6);
    assert_eq!(s["facts"]["pending"], 0);
}

#[test]
fn a_run_holding_the_lock_shows_as_in_progress_and_status_does_not_wait_for_it() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let lock = env.hold_lock();

    assert_eq!(status_json(&env)["in_progress"], true);
    assert!(
        status(&env).contains("in progress  yes: a memloop run holds the lock"),
        "{}",
        status(&env)
    );
    lock.unlock().expect("release the lock");
    assert_eq!(status_json(&env)["in_progress"], false);
}

#[test]
fn transcripts_processed_with_an_older_prompt_are_counted_until_a_forced_extract() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    assert_eq!(status_json(&env)["transcripts"]["older_prompt"], 0);

    let prompt = env.prompt("# Mine\n\n## Categories\n\n### Identity\n\n### Preferences\n");
    let s = status_json(&env);
    assert_eq!(s["transcripts"]["older_prompt"], 3, "{s}");
    let text = status(&env);
    assert!(
        text.contains(
            "3 transcripts processed with another prompt: `memloop extract --force` would process them again"
        ),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "prompt       your override {}\n",
            prompt.display()
        )),
        "{text}"
    );

    env.extract(&mock, &["--force"], 0);
    assert_eq!(status_json(&env)["transcripts"]["older_prompt"], 0);
}

#[test]
fn pending_facts_and_the_provider_auto_picks_are_shown_with_why() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.config("[memory]\nreview = true\n");
    env.extract(&mock, &[], 0);

    let out = env
        .cmd()
        .envs(anthropic(&mock))
        .env_remove("MEMLOOP_PROVIDER")
        .arg("status")
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();

    assert!(
        text.contains("review       6 facts waiting: `memloop memory review`"),
        "{text}"
    );
    assert!(
        text.contains(
            "provider     anthropic, model claude-haiku-4-5 (auto: ANTHROPIC_API_KEY is set)"
        ),
        "{text}"
    );
    assert!(!text.contains("test-key"), "a key is never shown");
}

#[test]
fn a_prompt_override_that_cannot_be_used_is_exit_2_once_the_rest_is_shown() {
    let env = TestEnv::with_fixtures();
    let path = env.prompt("Extract facts.\n");

    let out = env.cmd().arg("status").assert().code(2);

    let text = String::from_utf8_lossy(&out.get_output().stdout);
    let said = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        text.contains("transcripts  3 waiting"),
        "the rest is shown: {text}"
    );
    assert!(
        text.contains(&format!(
            "prompt       cannot be used: prompt file {}",
            path.display()
        )),
        "{text}"
    );
    assert!(said.contains("no categories"), "{said}");
    let out = env.cmd().args(["status", "--json"]).assert().code(2);
    let s = report(out.get_output());
    assert_eq!(s["prompt"]["path"], path.display().to_string());
    assert!(
        s["prompt"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("no categories")),
        "{s}"
    );
}

#[test]
fn a_transcript_that_failed_to_read_is_named_with_its_path() {
    let env = TestEnv::with_fixtures();
    let broken = env.add_transcript_bytes("alpha", "2025-06-15-0800-broken.md", b"\0binary");

    let s = status_json(&env);

    let problems = s["transcripts"]["problems"].as_array().expect("problems");
    assert_eq!(problems.len(), 1, "{s}");
    assert_eq!(problems[0]["path"], broken.display().to_string());
    assert_eq!(s["transcripts"]["vaults"][0]["failed"], 1);
    assert!(status(&env).contains(&format!("unreadable: {}: binary file", broken.display())));
}
