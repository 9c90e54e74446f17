//! A transcript far over `llm.max_input_tokens` (about 1 MB: many turns, and one huge
//! single turn) is sent in several requests, each within the budget, and still counts as
//! one transcript: every fact planted early, in the middle and late is remembered once,
//! and the transcript is marked done once.

use std::time::{Duration, Instant};

use crate::support::mock::Mock;
use crate::support::{TestEnv, bullets, sent_with};

const MAX_INPUT_TOKENS: usize = 24_000;

const EARLY: &str = "Keeps a paper notebook for every project.";
const MIDDLE_TURNS: &str = "Walks to the office on Mondays.";
const MIDDLE_HUGE: &str = "Bakes sourdough bread at the weekend.";
const LATE: &str = "Reads science fiction before bed.";

/// A paragraph of plain prose (no log lines, no code, no credentials keywords) that
/// names the turn it belongs to, so chunks can be told apart.
fn paragraph(tag: &str, n: usize) -> String {
    format!(
        "In part {n} of the {tag} discussion we went over the plan for the lighthouse \
         archive again, compared the three storage layouts, weighed how the readers would \
         browse old issues, and agreed that the summary should stay short and plain so \
         that nobody has to scroll through pages of detail to find the decision."
    )
}

fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// About 1 MB: 200 turn pairs of ~2 KB each around one ~300 KB user turn.
fn huge_transcript() -> String {
    let mut out = String::from(
        "---\ndate: 2025-07-10\ntime: \"08:00\"\nsession_id: it-huge\ntitle: Huge\n---\n\n\
         # Discussion - 2025-07-10 08:00\n\n",
    );
    // Minutes go on as the chat does, as Memory Loop writes them.
    let turn = |out: &mut String, role: &str, tag: &str, n: usize, extra: Option<&str>| {
        out.push_str(&format!("## [{:02}:{:02}] {role}\n\n", 8 + n / 60, n % 60));
        for p in 0..6 {
            out.push_str(&paragraph(tag, n * 10 + p));
            out.push_str("\n\n");
        }
        if let Some(line) = extra {
            out.push_str(line);
            out.push_str("\n\n");
        }
    };
    for n in 0..200 {
        let extra = match n {
            0 => Some(format!("remember: Patterns | global | {EARLY}")),
            60 => Some(format!("remember: Patterns | global | {MIDDLE_TURNS}")),
            _ => None,
        };
        turn(&mut out, "User", "turn", n, extra.as_deref());
        turn(&mut out, "Assistant", "answer", n, None);
        if n == 100 {
            out.push_str("## [09:40] User\n\n");
            for p in 0..1000 {
                if p == 500 {
                    out.push_str(&format!("remember: Patterns | global | {MIDDLE_HUGE}\n\n"));
                }
                out.push_str(&paragraph("monologue", p));
                out.push_str("\n\n");
            }
            out.push_str("## [09:40] Assistant\n\nThat is a lot to take in.\n\n");
        }
    }
    out.push_str(&format!(
        "## [11:30] User\n\nOne last thing.\n\nremember: Patterns | global | {LATE}\n\n\
         ## [11:31] Assistant\n\nNoted.\n"
    ));
    out
}

#[test]
fn a_megabyte_transcript_is_chunked_under_the_budget_and_marked_once() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    // No per-transcript cap: every part of the megabyte is sent.
    env.config(&format!(
        "[llm]\nmax_input_tokens = {MAX_INPUT_TOKENS}\nmax_transcript_tokens = 0\n"
    ));
    let text = huge_transcript();
    assert!(
        (900_000..1_300_000).contains(&text.len()),
        "about 1 MB: {}",
        text.len()
    );
    env.add_transcript("gamma", "2025-07-10-0800-huge.md", &text);
    let mock = Mock::start();
    let started = Instant::now();

    let report = env.extract(&mock, &[], 0);

    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(report["transcripts"]["processed"], 1, "{report}");
    assert_eq!(report["facts"]["new"], 4, "{report}");
    let requests = mock.requests();
    let floor = estimate_tokens(&text) / MAX_INPUT_TOKENS;
    assert!(
        requests.len() > floor && requests.len() >= 2,
        "{} requests for ~{} tokens",
        requests.len(),
        estimate_tokens(&text)
    );
    for (i, request) in requests.iter().enumerate() {
        let user = estimate_tokens(&request.user_text());
        let system = estimate_tokens(&request.system_prompt());
        assert!(
            user + system <= MAX_INPUT_TOKENS,
            "request {i}: {user} + {system} tokens"
        );
    }
    let monologue = requests
        .iter()
        .filter(|r| r.user_text().contains("monologue discussion"))
        .count();
    assert!(
        monologue >= 3,
        "the huge turn is split: {monologue} requests"
    );
    for fact in [EARLY, MIDDLE_TURNS, MIDDLE_HUGE, LATE] {
        assert_eq!(sent_with(&mock, fact), 1, "{fact} is sent exactly once");
    }
    let mut memory = bullets(&env.memory());
    memory.sort();
    let mut expected = [EARLY, MIDDLE_TURNS, MIDDLE_HUGE, LATE];
    expected.sort_unstable();
    assert_eq!(memory, expected);

    let sent = mock.count();
    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), sent, "the second run sends nothing");
    assert_eq!(report["transcripts"]["unchanged"], 1);
    assert_eq!(report["transcripts"]["processed"], 0);
}
