//! `memory.max_bytes`: memory.md never grows past it; the least reinforced, then the
//! least recently seen facts are archived (not deleted) and the run says how many.

use crate::support::mock::Mock;
use crate::support::{TestEnv, bullets, report, transcript};

const CAP: usize = 722;
const SHARED: &str = "Writes the tests before touching a legacy module.";
const OLD: [&str; 6] = [
    "Keeps a running changelog in every repository.",
    "Reviews dependency updates every Monday morning.",
    "Names branches after the ticket they close.",
    "Writes commit messages in the imperative mood.",
    "Prefers squash merges for feature branches.",
    "Deletes stale branches at the end of each sprint.",
];
const NEW: [&str; 6] = [
    "Profiles before optimising anything in the hot path.",
    "Pairs with new hires during their first week.",
    "Turns recurring review comments into lint rules.",
    "Keeps incident notes in a shared runbook.",
    "Timeboxes spikes to a single afternoon.",
    "Writes a design note before any schema change.",
];

fn remember_all(facts: &[&str]) -> String {
    facts
        .iter()
        .chain([&SHARED])
        .map(|f| format!("remember: Patterns | global | {f}"))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A vault under the cap, with the old habits (`old`, and `SHARED`) in its first transcript.
fn capped_with_old_habits(old: &[&str]) -> (TestEnv, Mock) {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.config(&format!("[memory]\nmax_bytes = {CAP}\n"));
    env.add_transcript(
        "gamma",
        "2025-05-01-0900-old-habits.md",
        &transcript("2025-05-01", "09:00", "Old habits", &remember_all(old)),
    );
    (env, Mock::start())
}

#[test]
fn over_the_cap_the_weakest_facts_are_archived_not_deleted() {
    let (env, mock) = capped_with_old_habits(&OLD);
    env.add_transcript(
        "gamma",
        "2025-06-20-0900-new-habits.md",
        &transcript("2025-06-20", "09:00", "New habits", &remember_all(&NEW)),
    );

    let run = env.extract(&mock, &[], 0);

    let memory = env.memory();
    assert!(memory.len() <= CAP, "{} bytes:\n{memory}", memory.len());
    assert_eq!(run["memory"]["max_bytes"], CAP);
    assert_eq!(run["memory"]["bytes"], memory.len());
    let archived = run["facts"]["archived"].as_u64().expect("archived count");
    assert!(archived > 0, "{run}");
    let kept = bullets(&memory);
    assert!(
        kept.contains(&SHARED.to_owned()),
        "the reinforced fact is kept: {kept:?}"
    );
    let old_kept = OLD
        .iter()
        .filter(|f| kept.contains(&(**f).to_owned()))
        .count();
    let new_kept = NEW
        .iter()
        .filter(|f| kept.contains(&(**f).to_owned()))
        .count();
    assert!(
        old_kept == 0 || new_kept == NEW.len(),
        "older facts are archived before newer ones: kept {old_kept} old, {new_kept} new"
    );

    let output = env
        .cmd()
        .args(["memory", "show", "--json", "--archived"])
        .assert()
        .code(0);

    let show = report(output.get_output());
    let listed: Vec<&str> = show["facts"]
        .as_array()
        .expect("facts array")
        .iter()
        .filter(|f| f["status"] == "archived")
        .filter_map(|f| f["text"].as_str())
        .collect();
    assert_eq!(listed.len() as u64, archived, "{show}");
    for text in OLD.iter().chain(&NEW).chain([&SHARED]) {
        let in_memory = kept.contains(&(*text).to_owned());
        let in_archive = listed.contains(text);
        assert!(
            in_memory != in_archive,
            "{text:?} is either kept or archived, never lost"
        );
    }

    let output = env
        .cmd()
        .args(["memory", "show", "--archived"])
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&output.get_output().stdout);
    assert!(text.starts_with(&memory), "the file first, as it is");
    let tail = &text[memory.len()..];
    assert!(
        tail.contains("## Archived (not loaded by Claude)"),
        "{tail}"
    );
    for archived in &listed {
        assert!(
            tail.contains(&format!("- {archived} [")),
            "{archived:?} listed:\n{tail}"
        );
    }
}

/// The user's own text in memory.md (not bullets), over the cap by itself: every fact is
/// left out, and the run and `doctor` say so and what to do, instead of only counting
/// archived facts or promising that a run will make it fit. Shortening the text brings the
/// facts back.
#[test]
fn own_text_over_the_cap_by_itself_is_said_and_the_facts_come_back_once_it_is_shortened() {
    let (env, mock) = capped_with_old_habits(&OLD[..2]);
    env.extract(&mock, &[], 0);
    let essay = "My long personal essay paragraph, kept on purpose. ".repeat(20);
    let with_essay = format!("{}\n{essay}\n", env.memory());
    std::fs::write(env.memory_path(), &with_essay).expect("write");
    env.add_transcript(
        "gamma",
        "2025-06-20-0900-new-habits.md",
        &transcript(
            "2025-06-20",
            "09:00",
            "New habits",
            &remember_all(&NEW[..1]),
        ),
    );

    let run = env.extract(&mock, &[], 0);

    let memory = env.memory();
    assert!(memory.contains(&essay), "the user's text stays");
    assert!(bullets(&memory).is_empty(), "{memory}");
    let notices = run["notices"].to_string();
    assert!(
        notices.contains("over [memory] max_bytes") && notices.contains("shorten"),
        "{run}"
    );
    let doctor = env
        .cmd()
        .args(["doctor", "--offline"])
        .output()
        .expect("doctor");
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(text.contains("by itself; fix: runs show no fact"), "{text}");

    std::fs::write(env.memory_path(), memory.replace(&essay, "Short now.")).expect("write");
    let run = env.extract(&mock, &[], 0);
    assert_eq!(bullets(&env.memory()).len(), 4, "{run}\n{}", env.memory());
    assert_eq!(run["notices"].as_array().map_or(0, Vec::len), 0, "{run}");
}
