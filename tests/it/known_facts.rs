//! Known facts travel with a transcript: the request for a later transcript lists every
//! fact known about the person and the transcript's vault (never another vault's), whether
//! or not it shares a word with the transcript, so the model can skip a repeat in other
//! words or name the fact its new one replaces. They come first, the same bytes for every
//! request of a run, so a provider caches them.

use serde_json::json;

use crate::support::mock::Mock;
use crate::support::{TestEnv, bullets, transcript};

const NEOVIM: &str = "Uses Neovim as the main editor.";
const HELIX: &str = "Uses Helix as the main editor.";
const MARATHON: &str = "Wants to finish a marathon in under four hours.";
const KNOWN_HEADER: &str = "Known facts, already remembered";

#[test]
fn a_later_transcript_is_sent_with_every_fact_it_may_replace() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.add_transcript(
        "gamma",
        "2025-07-01-0900-editor.md",
        &transcript(
            "2025-07-01",
            "09:00",
            "Editor",
            &format!(
                "I live in Neovim all day.\n\nremember: Preferences | global | {NEOVIM}\n\
                 remember: Goals | global | {MARATHON}"
            ),
        ),
    );
    let mock = Mock::start();

    env.extract(&mock, &[], 0);

    let first = mock.requests();
    assert_eq!(first.len(), 1);
    assert!(
        !first[0].user_text().contains(KNOWN_HEADER),
        "nothing is known yet"
    );

    env.add_transcript(
        "gamma",
        "2025-07-02-0900-switch.md",
        &transcript(
            "2025-07-02",
            "09:00",
            "Switch",
            &format!(
                "I moved from Neovim to Helix as my main editor this month.\n\n\
                 remember: Preferences | global | {HELIX} | replaces: {NEOVIM}"
            ),
        ),
    );

    let report = env.extract(&mock, &[], 0);

    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let text = requests[1].user_text();
    let (known, transcript) = text
        .split_once("<transcript")
        .expect("the transcript is fenced");
    assert!(known.contains(KNOWN_HEADER), "{known}");
    assert!(known.contains(&format!("- {NEOVIM}\n")), "{known}");
    assert!(
        known.contains(&format!("- {MARATHON}\n")),
        "a fact sharing no word travels too: {known}"
    );
    assert!(transcript.contains("moved from Neovim to Helix"));
    assert_eq!(report["facts"]["replaced"], 1, "{report}");
    assert_eq!(
        bullets(&env.memory()),
        [MARATHON, HELIX],
        "Goals come before Preferences"
    );
    let show = env
        .cmd()
        .args(["memory", "show", "--json"])
        .assert()
        .code(0);
    let show = crate::support::report(show.get_output());
    let texts: Vec<&serde_json::Value> = show["facts"]
        .as_array()
        .expect("facts")
        .iter()
        .map(|f| &f["text"])
        .collect();
    assert!(!texts.contains(&&json!(NEOVIM)), "{show}");
}

#[test]
fn another_vaults_fact_is_never_a_known_fact_even_when_it_shares_words() {
    use crate::support::fixture::LANTERNFISH;

    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    // Shares "indexes", "object storage", "local disk" and "Lanternfish" with alpha's fact.
    let shared = "Like Lanternfish, Heron keeps its indexes in object storage, not on local disk.";
    for (vault, date) in [("beta", "2025-06-22"), ("alpha", "2025-06-23")] {
        env.add_transcript(
            vault,
            &format!("{date}-0900-storage.md"),
            &transcript(
                date,
                "09:00",
                "Storage",
                &format!("{shared}\n\nremember: Goals | global | Wants {vault} backups tested."),
            ),
        );
        env.extract(&mock, &[], 0);
    }

    let requests = mock.requests();
    assert_eq!(requests.len(), 5);
    let known = |i: usize| -> String {
        let text = requests[i].user_text();
        let (known, transcript) = text.split_once("<transcript").expect("fenced");
        assert!(transcript.contains(shared), "{text}");
        known.to_owned()
    };
    let beta = known(3);
    assert!(
        !beta.contains(LANTERNFISH),
        "alpha's vault fact stays out of beta's request: {beta}"
    );
    let alpha = known(4);
    assert!(
        alpha.contains(&format!("- {LANTERNFISH}\n")),
        "in alpha's own request it is a known fact: {alpha}"
    );
}

/// Issue 18: "We finally moved to Berlin" shares no word with "Lives in Munich.": the old
/// fact still travels, so the model can name it, and it leaves memory.md.
#[test]
fn a_change_that_shares_no_word_with_the_old_fact_replaces_it() {
    const MUNICH: &str = "Lives in Munich.";
    const BERLIN: &str = "Lives in Berlin.";
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.add_transcript(
        "gamma",
        "2026-01-10-0900-home.md",
        &transcript(
            "2026-01-10",
            "09:00",
            "Home",
            &format!("remember: Identity | global | {MUNICH}"),
        ),
    );
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    env.add_transcript(
        "gamma",
        "2026-06-10-0900-move.md",
        &transcript(
            "2026-06-10",
            "09:00",
            "Move",
            &format!(
                "We finally moved last month.\n\nremember: Identity | global | {BERLIN} | evidence: We finally moved last month | replaces: {MUNICH}"
            ),
        ),
    );
    mock.when(
        |r| r.is_judge(),
        crate::support::mock::Reply::Raw(crate::support::mock::anthropic_tool_use(
            &json!({"verdicts": [{"n": 1, "states": true}]}),
            10,
            2,
        )),
    );

    let report = env.extract(&mock, &[], 0);

    assert_eq!(report["facts"]["replaced"], 1, "{report}");
    let asked = mock
        .requests()
        .into_iter()
        .filter(|r| !r.is_judge())
        .nth(1)
        .expect("the second transcript's request")
        .user_text();
    assert!(asked.contains(&format!("- {MUNICH}\n")), "{asked}");
    assert_eq!(bullets(&env.memory()), [BERLIN]);
}

/// Issue 18: the known facts are the same bytes for every request of a run, after the
/// system text and before the transcript, behind a cache breakpoint: the first request
/// writes them to the provider's cache, the others read them.
#[test]
fn a_night_pays_for_the_known_facts_about_once() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    // About 5,000 tokens of known facts: enough for the provider to cache them.
    let many: Vec<String> = (0..300)
        .map(|i| format!("remember: Project Context | global | Keeps project {i:03} notes in the archive drawer labelled {i:03}."))
        .collect();
    env.add_transcript(
        "gamma",
        "2026-01-10-0900-notes.md",
        &transcript("2026-01-10", "09:00", "Notes", &many.join("\n")),
    );
    env.config("[llm]\nconcurrency = 1\nmax_facts_per_answer = 0\n");
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    mock.cache_prompts();
    for day in 11..16 {
        env.add_transcript(
            "gamma",
            &format!("2026-01-{day}-0900-day.md"),
            &transcript(
                &format!("2026-01-{day}"),
                "09:00",
                "Day",
                &format!("remember: Goals | global | Wants to finish chapter {day}."),
            ),
        );
    }

    let report = env.extract(&mock, &[], 0);

    let tokens = &report["tokens"];
    let written = tokens["cache_write"].as_u64().unwrap_or_default();
    let read = tokens["cache_read"].as_u64().unwrap_or_default();
    assert!(written > 4_000, "{report}");
    assert_eq!(
        read,
        4 * written,
        "the other four read what the first wrote: {report}"
    );
    let requests = mock.requests();
    let last = requests.last().expect("a request").json();
    let blocks = last["messages"][0]["content"].as_array().expect("blocks");
    assert!(!blocks[0]["cache_control"].is_null(), "{last}");
    assert!(
        blocks[0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("archive drawer labelled 299"))
    );
    assert!(
        blocks[1]["text"]
            .as_str()
            .is_some_and(|t| t.contains("<transcript"))
    );
}

/// Issue 18: two chats of one night, extracted at the same time, each say the same thing in
/// their own words, or one changes what the other said: neither request could show the
/// other's fact, so the run asks once at its end how those facts link up.
#[test]
fn facts_learned_the_same_night_by_transcripts_that_could_not_see_each_other_are_linked() {
    let env = four_chats_of_one_night();
    let mock = Mock::start();
    mock.set_latency(std::time::Duration::from_millis(300));
    mock.when(
        |r| r.is_reconcile(),
        crate::support::mock::Reply::Raw(crate::support::mock::anthropic_tool_use(
            &json!({"links": [
                {"n": 1, "same_as": null, "replaces": null},
                {"n": 2, "same_as": 1, "replaces": null},
                {"n": 3, "same_as": null, "replaces": null},
                {"n": 4, "same_as": null, "replaces": 3},
            ]}),
            50,
            10,
        )),
    );

    let report = env.extract(&mock, &[], 0);

    let asked: Vec<String> = mock
        .requests()
        .into_iter()
        .filter(|r| r.is_reconcile())
        .map(|r| r.user_text())
        .collect();
    assert_eq!(asked.len(), 1, "one request at the end of the run");
    assert!(
        !asked[0].contains("<transcript"),
        "facts only: {}",
        asked[0]
    );
    assert_eq!(report["facts"]["same_night"], 1, "{report}");
    assert_eq!(report["facts"]["replaced"], 1, "{report}");
    let mut shown = bullets(&env.memory());
    shown.sort();
    assert_eq!(shown, ["Lives in Berlin.", "Works at Shopify in Berlin."]);
    let why = env
        .cmd()
        .args(["memory", "why", "based in Berlin"])
        .assert()
        .code(0);
    let why = String::from_utf8_lossy(&why.get_output().stdout).into_owned();
    assert!(
        why.contains("says the same as \u{201c}Lives in Berlin.\u{201d}"),
        "{why}"
    );
}

/// Four chats of two days whose facts share words: two say where the person lives, two
/// where they work.
fn four_chats_of_one_night() -> TestEnv {
    let env = TestEnv::new();
    env.create_vault("gamma");
    for (name, line) in [
        (
            "2026-06-01-0900-a.md",
            "remember: Identity | global | Lives in Berlin.",
        ),
        (
            "2026-06-01-1000-b.md",
            "remember: Identity | global | Is based in Berlin.",
        ),
        (
            "2026-06-01-1100-c.md",
            "remember: Identity | global | Works at Stripe in Berlin.",
        ),
        (
            "2026-06-02-0900-d.md",
            "remember: Identity | global | Works at Shopify in Berlin.",
        ),
    ] {
        env.add_transcript(
            "gamma",
            name,
            &transcript(&name[..10], "09:00", "Day", line),
        );
    }
    env
}

/// A reconcile answer that cannot be read leaves the night's facts as they are and says so;
/// the run still succeeds.
#[test]
fn an_unreadable_reconcile_answer_keeps_every_fact_and_is_a_notice() {
    let env = four_chats_of_one_night();
    let mock = Mock::start();
    mock.set_latency(std::time::Duration::from_millis(300));
    mock.when(
        |r| r.is_reconcile(),
        crate::support::mock::Reply::Raw(crate::support::mock::anthropic_tool_use(
            &json!({"answer": "I cannot tell."}),
            50,
            10,
        )),
    );

    let report = env.extract(&mock, &[], 0);

    assert!(mock.requests().iter().any(|r| r.is_reconcile()));
    assert_eq!(
        report["facts"]["same_night"].as_u64().unwrap_or(0),
        0,
        "{report}"
    );
    assert_eq!(bullets(&env.memory()).len(), 4);
    let notices = report["notices"].to_string();
    assert!(
        notices
            .contains("could not ask whether 4 facts learned tonight repeat or update each other"),
        "{notices}"
    );
}

/// A first run that learns more than a night's worth of facts links up only the latest
/// 200: the pairs grow with the square, and one request must stay of a sane size.
#[test]
fn the_end_of_run_link_request_holds_at_most_the_nights_latest_200_facts() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.config("[llm]\nconcurrency = 8\n");
    for i in 0..230 {
        env.add_transcript(
            "gamma",
            &format!("2026-06-01-0900-t{i:03}.md"),
            &transcript(
                "2026-06-01",
                "09:00",
                "Plants",
                &format!("remember: Patterns | global | Waters plant number {i} daily."),
            ),
        );
    }
    let mock = Mock::start();

    let report = env.extract(&mock, &[], 0);

    assert_eq!(report["transcripts"]["processed"], 230, "{report}");
    let asked: Vec<usize> = mock
        .requests()
        .iter()
        .filter(|r| r.is_reconcile())
        .map(|r| crate::support::mock::reconciled_items(&r.json()).len())
        .collect();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!((2..=200).contains(&asked[0]), "{asked:?}");
}
