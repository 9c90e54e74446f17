//! Issue 18: facts nobody has confirmed for `[memory] stale_after_days` wait in
//! `memory review --stale`, never vanishing by themselves: keep confirms them today,
//! forget forgets them; `status` counts them.

use crate::support::mock::Mock;
use crate::support::{TestEnv, bullets, transcript};

const OLD: &str = "Uses Vue for every frontend.";
const OLDER: &str = "Lives in Munich.";
const RECENT: &str = "Prefers concise answers.";

fn env_with_old_facts() -> TestEnv {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.add_transcript(
        "gamma",
        "2024-06-01-0900-old.md",
        &transcript(
            "2024-06-01",
            "09:00",
            "Old",
            &format!(
                "remember: Preferences | global | {OLD}\nremember: Identity | global | {OLDER}"
            ),
        ),
    );
    let recent = chrono::Local::now()
        .date_naive()
        .format("%Y-%m-%d")
        .to_string();
    env.add_transcript(
        "gamma",
        &format!("{recent}-0900-recent.md"),
        &transcript(
            &recent,
            "09:00",
            "Recent",
            &format!("remember: Preferences | global | {RECENT}"),
        ),
    );
    env.extract(&Mock::start(), &[], 0);
    env
}

fn run(env: &TestEnv, args: &[&str]) -> (String, String) {
    let out = env.cmd().args(args).assert().code(0);
    let out = out.get_output();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn stale_count(env: &TestEnv) -> serde_json::Value {
    let (json, _) = run(env, &["status", "--json"]);
    let status: serde_json::Value = serde_json::from_str(&json).expect("status JSON");
    status["facts"]["stale"].clone()
}

#[test]
fn unconfirmed_facts_are_listed_and_kept_ones_are_confirmed_today() {
    let env = env_with_old_facts();
    assert_eq!(stale_count(&env), 2);
    let (status, _) = run(&env, &["status"]);
    assert!(
        status.contains("2 facts not confirmed for 365 days"),
        "{status}"
    );

    let (listed, hint) = run(&env, &["memory", "review", "--stale"]);
    assert!(
        listed.contains(OLD) && listed.contains(OLDER) && !listed.contains(RECENT),
        "{listed}"
    );
    assert!(listed.contains("last confirmed 2024-06-01"), "{listed}");
    assert!(hint.contains("--stale --accept-all"), "{hint}");

    let (_, said) = run(&env, &["memory", "review", "--stale", "--accept-all"]);
    assert!(said.contains("kept 2 (confirmed today)"), "{said}");
    assert_eq!(stale_count(&env), 0);
    assert_eq!(
        bullets(&env.memory()).len(),
        3,
        "keeping changes no file's facts"
    );
    let (why, _) = run(&env, &["memory", "why", "Munich"]);
    assert!(why.contains("confirmed (memory review --stale)"), "{why}");
}

#[test]
fn forgotten_stale_facts_leave_and_zero_days_turns_the_review_off() {
    let env = env_with_old_facts();
    let (_, said) = run(&env, &["memory", "review", "--stale", "--reject-all"]);
    assert!(said.contains("forgot 2"), "{said}");
    assert_eq!(bullets(&env.memory()), [RECENT]);

    let env = env_with_old_facts();
    env.config("[memory]\nstale_after_days = 0\n");
    assert_eq!(stale_count(&env), 0);
    let (_, said) = run(&env, &["memory", "review", "--stale"]);
    assert!(said.contains("stale review is off"), "{said}");
}

/// Issue 18: memory.md tells Claude how recent a fact is only where it matters: a fact
/// last confirmed six months or more before the newest one says the month after its words
/// (Claude Code sends the file with today's date: `scripts/check-claude-memory.sh`). The
/// month is memloop's: a bullet copied whole names its fact, a hand edit that drops it
/// changes nothing, and a fact confirmed again loses it.
#[test]
fn an_old_fact_says_when_it_was_last_confirmed_until_it_is_confirmed_again() {
    let env = env_with_old_facts();
    let memory = env.memory();
    let marked = format!("{OLDER} (as of 2024-06)");
    assert!(memory.contains(&format!("- {marked}\n")), "{memory}");
    assert!(memory.contains(&format!("- {RECENT}\n")), "{memory}");

    let (why, _) = run(&env, &["memory", "why", &marked]);
    assert!(why.contains(OLDER), "{why}");
    // Dropping the month by hand is no edit: nothing forgotten, nothing added.
    std::fs::write(env.memory_path(), memory.replace(&marked, OLDER)).expect("edit");
    let report = env.extract(&Mock::start(), &[], 0);
    assert_eq!(report["edits"]["added"], 0, "{report}");
    assert_eq!(report["edits"]["forgotten"], 0, "{report}");
    assert!(env.memory().contains(&format!("- {marked}\n")));

    run(&env, &["memory", "review", "--stale", "--accept-all"]);
    let memory = env.memory();
    assert!(!memory.contains("(as of"), "{memory}");
    assert_eq!(bullets(&memory).len(), 3);
}

/// What the user types stays theirs: a bullet they add ending in `(as of …)` keeps those
/// words through every rewrite.
#[test]
fn a_month_the_user_types_after_a_bullet_stays_in_their_words() {
    let env = env_with_old_facts();
    let typed = "Moved to Lisbon. (as of 2024-01)";
    let memory = env.memory();
    std::fs::write(env.memory_path(), format!("{memory}- {typed}\n")).expect("type");
    let report = env.extract(&Mock::start(), &[], 0);
    assert_eq!(report["edits"]["added"], 1, "{report}");
    assert!(
        env.memory().contains(&format!("- {typed}\n")),
        "{}",
        env.memory()
    );
    let (shown, _) = run(&env, &["memory", "show"]);
    assert!(shown.contains(typed), "{shown}");
}
