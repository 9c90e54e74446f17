//! `memloop extract` end to end against the fixture vaults and the echoing mock: what the
//! first run writes, that later runs send only what changed, `--force`, `--vault`, the
//! settle window and the model setting. Merge semantics (duplicates, replaces, policy,
//! user edits) live in `merge`.

use serde_json::json;

use crate::support::fixture::{
    ALPHA_1, ALPHA_2, BETA_1, CAFE, DIRECT, GLOBAL, HERON_GOAL, HIDDEN_VAULT, LANTERNFISH,
    NOT_A_VAULT, POSTGRES, SEARCH_INFRA,
};
use crate::support::mock::{ECHO_INPUT_TOKENS, ECHO_OUTPUT_TOKENS, Mock};
use crate::support::{
    DEFAULT_MAX_BYTES, END, TestEnv, anthropic, bullets, insights_block, read, read_bytes, section,
    sections, sent_with, transcript,
};

fn zero_facts() -> serde_json::Value {
    json!({"extracted": 0, "new": 0, "reinforced": 0, "already_known": 0, "replaced": 0,
           "refused": 0, "forgotten": 0, "duplicates": 0, "pending": 0, "unverified": 0, "judged": 0, "held": 0, "archived": 0})
}

#[test]
fn first_run_writes_memory_and_insights_from_every_vault() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let alpha_before = read(&env.claude_md("alpha"));
    let beta_before = read_bytes(&env.claude_md("beta"));
    assert!(
        beta_before.windows(2).any(|w| w == b"\r\n") && !beta_before.ends_with(b"\n"),
        "fixture beta/CLAUDE.md must keep CRLF and no final newline (check .gitattributes)"
    );
    let before = env.snapshot_tree();

    let report = env.extract(&mock, &[], 0);

    assert_eq!(report["vaults"], 2, "alpha and beta only: {report}");
    assert_eq!(
        report["transcripts"],
        json!({"found": 3, "unchanged": 0, "waiting": 0, "deferred": 0, "processed": 3, "failed": 0, "still_failing": 0})
    );
    assert_eq!(
        report["facts"],
        json!({"extracted": 6, "new": 6, "reinforced": 0, "already_known": 0, "replaced": 0,
               "refused": 0, "forgotten": 0, "duplicates": 0, "pending": 0, "unverified": 0, "judged": 0, "held": 0, "archived": 0})
    );
    let memory = env.memory();
    assert_eq!(
        report["memory"],
        json!({"path": env.memory_path().display().to_string(), "bytes": memory.len(),
               "max_bytes": DEFAULT_MAX_BYTES})
    );
    assert_eq!(
        report["tokens"],
        json!({"input": 3 * ECHO_INPUT_TOKENS, "output": 3 * ECHO_OUTPUT_TOKENS})
    );
    assert_eq!(report["provider"], "anthropic");
    assert_eq!(report["model"], "claude-haiku-4-5");
    assert_eq!(
        report["prompt"],
        json!({"path": null, "custom": false, "source": "builtin"})
    );
    assert_eq!(report["failures"], json!([]));
    assert_eq!(report["dry_run"], false);

    let expected: Vec<(String, Vec<String>)> = GLOBAL
        .iter()
        .map(|(category, fact)| ((*category).to_owned(), vec![(*fact).to_owned()]))
        .collect();
    assert_eq!(sections(&memory), expected);
    assert!(!memory.starts_with("---"), "no YAML frontmatter");
    insta::assert_snapshot!("memory_after_first_run", env.redact(&memory));

    let alpha = read(&env.claude_md("alpha"));
    let appended = alpha
        .strip_prefix(&alpha_before)
        .expect("alpha's own text is kept byte for byte");
    let block = insights_block(&alpha).expect("alpha gains an insights block");
    assert!(
        appended.starts_with(&format!("\n{block}")),
        "the block follows a blank line: {appended:?}"
    );
    assert!(
        matches!(&appended[1 + block.len()..], "" | "\n"),
        "{appended:?}"
    );
    insta::assert_snapshot!("alpha_insights_after_first_run", block);

    let beta = read_bytes(&env.claude_md("beta"));
    let appended = String::from_utf8(
        beta.strip_prefix(beta_before.as_slice())
            .expect("beta's CRLF text and unterminated last line are kept byte for byte")
            .to_vec(),
    )
    .expect("utf-8");
    let block = insights_block(&appended).expect("beta gains an insights block");
    let gap = &appended[..appended.find(block).expect("block position")];
    assert!(
        gap.chars().all(|c| c == '\r' || c == '\n') && gap.matches('\n').count() == 2,
        "the last line is ended and a blank line follows: {gap:?}"
    );
    assert_eq!(bullets(block), [POSTGRES]);
    assert!(appended.trim_end().ends_with(END));

    let after = env.snapshot_tree();
    for ignored in ["vaults/not-a-vault", "vaults/.hidden-vault"] {
        after
            .only(ignored)
            .assert_unchanged_since(&before.only(ignored));
    }
    let requests = mock.requests();
    assert_eq!(requests.len(), 3, "one request per transcript");
    for request in &requests {
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(request.header("x-api-key"), Some("test-key"));
        assert!(request.header("anthropic-version").is_some());
        assert_eq!(request.json()["model"], "claude-haiku-4-5");
    }
    for fact in [DIRECT, SEARCH_INFRA, HERON_GOAL] {
        assert_eq!(sent_with(&mock, fact), 1, "{fact}");
    }
    assert_eq!(sent_with(&mock, NOT_A_VAULT), 0);
    assert_eq!(sent_with(&mock, HIDDEN_VAULT), 0);
}

#[test]
fn second_run_sends_nothing_and_writes_nothing() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    // The ledger may record the run itself; everything a user owns must stay untouched.
    let before = env.snapshot_tree().without("home/.local/state");

    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 3, "no request on the second run");
    assert_eq!(
        report["transcripts"],
        json!({"found": 3, "unchanged": 3, "waiting": 0, "deferred": 0, "processed": 0, "failed": 0, "still_failing": 0})
    );
    assert_eq!(report["facts"], zero_facts());
    assert_eq!(report["tokens"], json!({"input": 0, "output": 0}));
    env.snapshot_tree()
        .without("home/.local/state")
        .assert_unchanged_since(&before);
}

#[test]
fn only_new_transcripts_are_sent() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let goal = "Wants to publish the Lanternfish benchmark suite.";
    let morning = "Prefers reviewing pull requests in the morning.";
    env.add_transcript(
        "alpha",
        "2025-06-22-1000-benchmarks.md",
        &transcript(
            "2025-06-22",
            "10:00",
            "Benchmarks",
            &format!("remember: Goals | global | {goal}"),
        ),
    );
    env.add_transcript(
        "beta",
        "2025-06-23-0800-reviews.md",
        &transcript(
            "2025-06-23",
            "08:00",
            "Reviews",
            &format!("remember: Preferences | global | {morning}"),
        ),
    );

    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 5, "exactly the two new transcripts were sent");
    assert_eq!(sent_with(&mock, goal), 1);
    assert_eq!(sent_with(&mock, morning), 1);
    assert_eq!(
        report["transcripts"],
        json!({"found": 5, "unchanged": 3, "waiting": 0, "deferred": 0, "processed": 2, "failed": 0, "still_failing": 0})
    );
    assert_eq!(report["facts"]["new"], 2);
    let mut all = bullets(&env.memory());
    all.sort();
    let mut expected: Vec<String> = GLOBAL.iter().map(|(_, f)| (*f).to_owned()).collect();
    expected.extend([goal.to_owned(), morning.to_owned()]);
    expected.sort();
    assert_eq!(all, expected, "older facts are kept next to the new ones");
}

#[test]
fn force_sends_every_transcript_again_without_duplicating_facts() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let memory_before = env.memory();

    let report = env.extract(&mock, &["--force"], 0);

    assert_eq!(mock.count(), 6, "all three transcripts were sent again");
    assert_eq!(report["transcripts"]["processed"], 3);
    assert_eq!(report["facts"]["new"], 0);
    let memory = env.memory();
    let mut after = bullets(&memory);
    let mut before = bullets(&memory_before);
    after.sort();
    before.sort();
    assert_eq!(after, before, "no duplicate bullet, nothing lost");
    assert_eq!(
        bullets(insights_block(&read(&env.claude_md("alpha"))).expect("block")),
        [LANTERNFISH]
    );
}

#[test]
fn vault_flag_restricts_the_run_to_that_vault() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let beta_before = env.snapshot_tree().only("vaults/beta");
    let alpha = env.vaults().join("alpha");

    let report = env.extract(&mock, &["--vault", &alpha.display().to_string()], 0);

    assert_eq!(report["vaults"], 1);
    assert_eq!(report["transcripts"]["found"], 2);
    assert_eq!(mock.count(), 2);
    assert_eq!(sent_with(&mock, HERON_GOAL), 0);
    env.snapshot_tree()
        .only("vaults/beta")
        .assert_unchanged_since(&beta_before);
    let memory = env.memory();
    assert!(memory.contains(&format!("- {DIRECT}\n")));
    assert!(!memory.contains(HERON_GOAL));
}

/// One vault named twice on the command line, once with a trailing slash and once through
/// a link, is one vault, not two of the same name.
#[test]
fn a_vault_named_twice_on_the_command_line_is_one_vault() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let alpha = env.vaults().join("alpha");
    let link = env.root().join("alpha-link");
    std::os::unix::fs::symlink(&alpha, &link).expect("symlink");
    let slash = format!("{}/", alpha.display());
    let alpha = alpha.display().to_string();
    let link = link.display().to_string();

    let report = env.extract(
        &mock,
        &["--vault", &alpha, "--vault", &slash, "--vault", &link],
        0,
    );

    assert_eq!(report["vaults"], 1, "{report}");
    assert_eq!(report["failures"], serde_json::json!([]), "{report}");
    assert_eq!(report["transcripts"]["found"], 2, "{report}");
}

#[test]
fn a_transcript_inside_the_settle_window_waits_until_forced() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let fresh = "Is drafting the Lanternfish sharding RFC right now.";
    env.add_fresh_transcript(
        "alpha",
        "2025-06-25-2300-still-talking.md",
        transcript(
            "2025-06-25",
            "23:00",
            "Still talking",
            &format!("remember: Goals | global | {fresh}"),
        )
        .as_bytes(),
    );

    let report = env.extract(&mock, &[], 0);

    assert_eq!(
        report["transcripts"],
        json!({"found": 4, "unchanged": 0, "waiting": 1, "deferred": 0, "processed": 3, "failed": 0, "still_failing": 0})
    );
    assert_eq!(mock.count(), 3);
    assert_eq!(
        sent_with(&mock, fresh),
        0,
        "a chat that may still be going is not sent"
    );
    assert!(!env.memory().contains(fresh));

    let report = env.extract(&mock, &["--force"], 0);

    assert_eq!(report["transcripts"]["waiting"], 0);
    assert_eq!(report["transcripts"]["processed"], 4);
    assert_eq!(mock.count(), 7, "--force sends all four");
    assert_eq!(sent_with(&mock, fresh), 1);
    let goals = section(&env.memory(), "Goals");
    assert_eq!(goals.len(), 2, "{goals:?}");
    assert!(goals.iter().any(|g| g == fresh) && goals.iter().any(|g| g == HERON_GOAL));
}

#[test]
fn the_model_comes_from_memloop_model() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();

    let output = env
        .cmd()
        .envs(anthropic(&mock))
        .env("MEMLOOP_MODEL", "claude-sonnet-4-5")
        .args(["extract", "--json", "--vault"])
        .arg(env.vaults().join("beta"))
        .assert()
        .code(0);

    assert_eq!(
        crate::support::report(output.get_output())["model"],
        "claude-sonnet-4-5"
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].json()["model"], "claude-sonnet-4-5");
}

#[test]
fn the_fixture_transcripts_each_carry_their_facts() {
    let env = TestEnv::with_fixtures();
    for (vault, name, facts) in [
        ("alpha", ALPHA_1, [DIRECT, LANTERNFISH]),
        ("alpha", ALPHA_2, [SEARCH_INFRA, CAFE]),
        ("beta", BETA_1, [HERON_GOAL, POSTGRES]),
    ] {
        let text = read(&env.chats_dir(vault).join(name));
        for fact in facts {
            assert!(text.contains(&format!("| {fact}\n")), "{name} lacks {fact}");
        }
    }
}

#[test]
fn a_closed_stderr_does_not_stop_a_run() {
    let env = TestEnv::with_fixtures();
    let mut child = env
        .process()
        .arg("extract")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn memloop");
    // Like `memloop extract 2>&1 | head -1`: nobody reads the warnings and progress lines.
    drop(child.stderr.take());
    let status = child.wait().expect("reap memloop");

    assert_eq!(status.code(), Some(0));
    assert!(env.memory_path().exists(), "the run went to the end");
}

#[test]
fn each_request_says_the_day_the_conversation_took_place() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();

    env.extract(&mock, &[], 0);

    // The fixtures' frontmatter dates: relative times can be written as absolute dates.
    for date in ["2025-06-12", "2025-06-14", "2025-06-20"] {
        let said = format!("The conversation took place on {date}.");
        assert_eq!(sent_with(&mock, &said), 1, "{said}");
    }
    assert!(
        mock.requests().iter().all(|r| r
            .system_prompt()
            .contains("as absolute dates counted from the day")),
        "the contract asks for absolute dates"
    );
}
