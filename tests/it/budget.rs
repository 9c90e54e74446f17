//! What one run or one transcript may cost. `[llm] max_transcripts_per_run`: a run sends at
//! most that many transcripts, the oldest (by mtime, not by name) first; the rest are
//! reported as deferred and go first next run. `[llm] max_transcript_tokens`: a run
//! sends at most that many tokens of a transcript in one run, in whole turns; the next runs
//! read on from there, and the run says what is left.
//! `[llm] max_facts_per_answer`: the facts past that many in one answer are refused.

use std::time::Duration;

use serde_json::json;

use crate::support::mock::Mock;
use crate::support::{TestEnv, set_age, transcript, transcript_sent_with};

/// (file name, hours old, fact): names sort differently from ages on purpose.
const TRANSCRIPTS: [(&str, u64, &str); 5] = [
    ("2025-07-01-0900-a.md", 4, "Grows tomatoes on the balcony."),
    ("2025-07-02-0900-b.md", 2, "Sings in a community choir."),
    ("2025-07-03-0900-c.md", 5, "Collects vintage fountain pens."),
    (
        "2025-07-04-0900-d.md",
        1,
        "Swims in the lake every morning.",
    ),
    ("2025-07-05-0900-e.md", 3, "Repairs old radios as a hobby."),
];

fn fact(name_letter: char) -> &'static str {
    TRANSCRIPTS
        .iter()
        .find(|(name, _, _)| name.ends_with(&format!("-{name_letter}.md")))
        .map(|(_, _, fact)| *fact)
        .expect("a known transcript")
}

/// How many of `facts` the mock has been sent, each at most once.
fn sent(mock: &Mock, facts: &[&str]) -> Vec<usize> {
    facts
        .iter()
        .map(|f| transcript_sent_with(mock, f))
        .collect()
}

#[test]
fn the_per_run_budget_takes_the_oldest_first_and_defers_the_rest() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.config("[llm]\nmax_transcripts_per_run = 2\n");
    for (name, hours, fact) in TRANSCRIPTS {
        let path = env.add_transcript(
            "gamma",
            name,
            &transcript(
                "2025-07-01",
                "09:00",
                name,
                &format!("remember: Patterns | global | {fact}"),
            ),
        );
        set_age(&path, Duration::from_secs(hours * 3600));
    }
    let mock = Mock::start();
    // Oldest first: c (5 h), a (4 h), e (3 h), b (2 h), d (1 h).
    let order = [fact('c'), fact('a'), fact('e'), fact('b'), fact('d')];

    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 2);
    assert_eq!(
        report["transcripts"],
        json!({"found": 5, "unchanged": 0, "waiting": 0, "deferred": 3, "processed": 2, "failed": 0, "still_failing": 0})
    );
    assert_eq!(sent(&mock, &order), [1, 1, 0, 0, 0]);

    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 4);
    assert_eq!(
        report["transcripts"],
        json!({"found": 5, "unchanged": 2, "waiting": 0, "deferred": 1, "processed": 2, "failed": 0, "still_failing": 0})
    );
    assert_eq!(sent(&mock, &order), [1, 1, 1, 1, 0]);

    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 5);
    assert_eq!(report["transcripts"]["deferred"], 0);
    assert_eq!(report["transcripts"]["processed"], 1);
    assert_eq!(sent(&mock, &order), [1, 1, 1, 1, 1]);
}

#[test]
fn a_file_that_always_fails_does_not_take_a_place_in_the_budget() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.config("[llm]\nmax_transcripts_per_run = 2\n");
    let bad = env.add_transcript_bytes("gamma", "0000-bad.md", b"\x00\x01binary\x00");
    set_age(&bad, Duration::from_secs(3 * 24 * 3600));
    for (i, name) in ["a.md", "b.md", "c.md"].iter().enumerate() {
        let path = env.add_transcript(
            "gamma",
            name,
            &transcript(
                "2025-07-01",
                "09:00",
                name,
                &format!("remember: Patterns | global | Keeps {i} plants."),
            ),
        );
        set_age(&path, Duration::from_secs(3600 * (5 - i as u64)));
    }
    let mock = Mock::start();

    let report = env.extract(&mock, &[], 1);

    assert_eq!(report["transcripts"]["processed"], 2, "{report}");
    assert_eq!(report["transcripts"]["failed"], 1);
    assert_eq!(report["transcripts"]["deferred"], 1);
    assert_eq!(mock.extractions(), 2);
}

#[test]
fn a_huge_paste_is_capped_per_transcript_and_the_skipped_part_is_named() {
    let env = TestEnv::new();
    env.create_vault("delta");
    env.config("[llm]\nmax_input_tokens = 1000\nmax_transcript_tokens = 2500\n");
    // Rows of a CSV export: not log lines, so only the cap stops them.
    let rows: String = (0..2_000)
        .map(|i| format!("{i},widget-{i},in stock,{}\n", i * 7))
        .collect();
    let user = format!("remember: Identity | global | Exports inventory as CSV.\n\n{rows}");
    let path = env.add_transcript(
        "delta",
        "2025-08-06-0900-paste.md",
        &transcript("2025-08-06", "09:00", "Paste", &user),
    );
    let mock = Mock::start();

    let out = env
        .cmd()
        .envs(crate::support::anthropic(&mock))
        .args(["extract", "--json"])
        .assert()
        .code(0);

    let report = crate::support::report(out.get_output());
    // Parts are at least 500 tokens (the prompt takes most of 1,000), cut at turns and
    // lines: a handful, where the whole paste (about 60,000 tokens) would be over a hundred.
    let requests = mock.requests().len();
    assert!((1..=8).contains(&requests), "{requests} requests");
    assert_eq!(crate::support::sent_with(&mock, "1999,widget-1999"), 0);
    let notices = report["notices"].to_string();
    assert!(
        notices.contains(&path.display().to_string())
            && notices.contains("over the cap of 2500 per transcript")
            && notices.contains("skipped the rest"),
        "{notices}"
    );
    assert_eq!(report["transcripts"]["processed"], 1, "{report}");
    assert_eq!(
        crate::support::bullets(&env.memory()),
        ["Exports inventory as CSV."]
    );
}

#[test]
fn an_answer_of_thousands_of_facts_is_capped() {
    let env = TestEnv::new();
    env.create_vault("delta");
    env.config("[llm]\nmax_facts_per_answer = 5\n");
    let lines: String = (0..8)
        .map(|i| format!("remember: Preferences | global | Likes dish number {i} a lot.\n"))
        .collect();
    env.add_transcript(
        "delta",
        "2025-08-07-0900-many.md",
        &transcript("2025-08-07", "09:00", "Many", &lines),
    );
    let mock = Mock::start();

    let report = env.extract(&mock, &[], 0);

    assert_eq!(report["facts"]["extracted"], 8, "{report}");
    assert_eq!(report["facts"]["new"], 5, "{report}");
    assert_eq!(
        report["facts"]["refused_by"],
        json!({"over 5 facts in one answer": 3}),
        "{report}"
    );
    assert_eq!(crate::support::bullets(&env.memory()).len(), 5);
}

/// A chat of `pairs` exchanges, each user turn about 100 tokens and naming its city.
fn long_chat(pairs: usize) -> String {
    let mut text =
        "---\ndate: 2025-08-08\ntime: \"09:00\"\nsession_id: it-long\ntitle: Long\n---\n\n\
                    # Discussion - 2025-08-08 09:00\n\n"
            .to_owned();
    for i in 0..pairs {
        text.push_str(&city_turn(i));
    }
    text
}

fn city_turn(i: usize) -> String {
    format!(
        "## [09:{i:02}] User\n\nremember: Identity | global | Visited city number {i:02}.\n\n{}\n\n\
         ## [09:{i:02}] Assistant\n\nNoted, city {i:02}.\n\n",
        "We walked along the river and talked about the old bridges there. ".repeat(5)
    )
}

#[test]
fn a_chat_longer_than_the_cap_is_read_on_over_the_next_runs_and_never_sent_twice() {
    let env = TestEnv::new();
    env.create_vault("delta");
    env.config("[llm]\nmax_input_tokens = 1000\nmax_transcript_tokens = 600\n");
    let path = env.add_transcript("delta", "2025-08-08-0900-long.md", &long_chat(12));
    let mock = Mock::start();
    let city = |i: usize| format!("Visited city number {i:02}.");
    let sent = |i: usize| transcript_sent_with(&mock, &city(i));

    // The first run reads up to the cap and says the rest comes next.
    let report = env.extract(&mock, &[], 0);
    let notices = report["notices"].to_string();
    assert!(
        notices.contains("the next run goes on from there"),
        "{notices}"
    );
    assert_eq!((sent(0), sent(11)), (1, 0));
    let first = (0..12).filter(|&i| sent(i) == 1).count();
    assert!((2..12).contains(&first), "{first} turns in the first run");

    // The file is unchanged, and the next runs read on from there until its end; then
    // nothing more until it changes.
    let mut runs = 1;
    loop {
        let before = mock.extractions();
        let report = env.extract(&mock, &[], 0);
        if report["transcripts"]["unchanged"] == 1 {
            assert_eq!(mock.extractions(), before);
            break;
        }
        assert_eq!(report["transcripts"]["processed"], 1, "{report}");
        runs += 1;
        assert!(runs <= 6, "read on in at most 6 runs");
    }
    assert!(runs >= 3, "{runs} runs");
    assert_eq!(
        (0..12).map(sent).collect::<Vec<_>>(),
        vec![1; 12],
        "each turn once"
    );
    let facts = crate::support::bullets(&env.memory());
    assert!((0..12).all(|i| facts.contains(&city(i))), "{facts:?}");

    // An appended turn is sent, with the answer before it for context; nothing read before.
    let mut grown = std::fs::read_to_string(&path).unwrap();
    grown.push_str(&city_turn(12));
    std::fs::write(&path, &grown).unwrap();
    set_age(&path, Duration::from_secs(3600));
    env.extract(&mock, &[], 0);
    let last = mock.requests().pop().expect("a request").user_text();
    assert!(
        last.contains(&city(12)) && last.contains("Noted, city 11."),
        "{last}"
    );
    assert_eq!((0..12).map(sent).collect::<Vec<_>>(), vec![1; 12]);

    // A chat changed before where the runs stopped is read from its start again.
    std::fs::write(&path, grown.replace("city number 00", "city number 99")).unwrap();
    set_age(&path, Duration::from_secs(3600));
    env.extract(&mock, &[], 0);
    assert_eq!(transcript_sent_with(&mock, "Visited city number 99."), 1);
}
