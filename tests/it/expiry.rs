//! Issue 18: a fact bound to a day (`valid_until`: an exam, a trip, a deadline) holds until
//! that day and leaves the files the day after, archived as expired: restorable, listed by
//! `memory show --archived` and explained by `memory why`. A fact whose day had passed when
//! its transcript was read never reaches a file. The run's clock is `MEMLOOP_NOW`.

use crate::support::mock::Mock;
use crate::support::{TestEnv, bullets, transcript};

const EXAM: &str = "Is preparing for the AWS exam on 2026-03-03.";
const REMOTE: &str = "Works remotely from Lisbon.";

fn extract_on(env: &TestEnv, mock: &Mock, day: &str) -> serde_json::Value {
    let assert = env
        .cmd()
        .envs(crate::support::anthropic(mock).iter().map(|(k, v)| (*k, v)))
        .env("MEMLOOP_NOW", format!("{day}T21:00:00Z"))
        .args(["extract", "--json"])
        .assert()
        .code(0);
    crate::support::report(assert.get_output())
}

fn memory_cmd(env: &TestEnv, args: &[&str]) -> String {
    let out = env.cmd().args(args).assert().code(0);
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

#[test]
fn a_fact_bound_to_a_day_leaves_the_files_the_day_after_and_can_be_restored() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.add_transcript(
        "gamma",
        "2026-02-20-0900-exam.md",
        &transcript(
            "2026-02-20",
            "09:00",
            "Exam",
            &format!(
                "remember: Goals | global | {EXAM} | valid_until: 2026-03-03\n\
                 remember: Identity | global | {REMOTE}"
            ),
        ),
    );
    let mock = Mock::start();

    extract_on(&env, &mock, "2026-02-21");
    let mut shown = bullets(&env.memory());
    shown.sort();
    assert_eq!(shown, [EXAM, REMOTE]);

    let on_the_day = extract_on(&env, &mock, "2026-03-03");
    assert!(on_the_day["facts"]["expired"].is_null(), "{on_the_day}");
    assert!(env.memory().contains(EXAM));

    let after = extract_on(&env, &mock, "2026-03-04");
    assert_eq!(after["facts"]["expired"], 1, "{after}");
    assert_eq!(bullets(&env.memory()), [REMOTE]);
    let archived = memory_cmd(&env, &["memory", "show", "--archived"]);
    assert!(
        archived.contains(&format!(
            "- {EXAM} [Goals] archived: expired (its last day was 2026-03-03)"
        )),
        "{archived}"
    );
    let why = memory_cmd(&env, &["memory", "why", "AWS exam"]);
    assert!(
        why.contains("expired (its last day was 2026-03-03)"),
        "{why}"
    );

    memory_cmd(&env, &["memory", "restore", "AWS exam"]);
    assert!(env.memory().contains(EXAM));
    let later = extract_on(&env, &mock, "2026-03-10");
    assert!(
        later["facts"]["expired"].is_null(),
        "restored, it holds: {later}"
    );
    assert!(env.memory().contains(EXAM));
}

#[test]
fn a_day_already_past_when_the_transcript_is_read_never_reaches_a_file() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.add_transcript(
        "gamma",
        "2026-02-20-0900-exam.md",
        &transcript(
            "2026-02-20",
            "09:00",
            "Exam",
            &format!(
                "remember: Goals | global | {EXAM} | valid_until: 2026-03-03\n\
                 remember: Identity | global | {REMOTE}"
            ),
        ),
    );
    let mock = Mock::start();

    let report = extract_on(&env, &mock, "2026-04-01");

    assert_eq!(report["facts"]["expired"], 1, "{report}");
    assert_eq!(bullets(&env.memory()), [REMOTE]);
}
