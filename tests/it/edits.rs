//! Hand edits to the files memloop writes, read back on the next run: a bullet deleted
//! right after memloop added it stays deleted, the user's wording (even a case-only fix)
//! wins over memloop's, prose typed into memory.md is kept in memory.md.bak, a memory.md
//! memloop never wrote is backed up before it is taken over, a secret in a hand-added
//! bullet is redacted like any other, and the same holds inside a vault's CRLF fence.

use std::fs;

use serde_json::Value;

use crate::support::fixture::{CAFE, DIRECT, HERON_GOAL, LANTERNFISH, POSTGRES, SEARCH_INFRA};
use crate::support::mock::Mock;
use crate::support::{
    BEGIN, END, TestEnv, bullets, find_fact, insights_block, read, read_bytes, report, section,
    transcript, write_file,
};

/// `memloop memory show --json` (active and pending facts).
fn show(env: &TestEnv) -> Value {
    let output = env
        .cmd()
        .args(["memory", "show", "--json"])
        .assert()
        .code(0);
    report(output.get_output())
}

/// The texts of the facts in a `memory show --json` answer.
fn fact_texts(show: &Value) -> Vec<String> {
    show["facts"]
        .as_array()
        .expect("facts array")
        .iter()
        .map(|f| f["text"].as_str().expect("fact text").to_owned())
        .collect()
}

/// `text` with `from` replaced by `to`, panicking when `from` is not there exactly once,
/// so a fixture edit can never silently do nothing.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "{from:?} once in:\n{text}");
    text.replacen(from, to, 1)
}

#[test]
fn deleting_the_bullet_the_last_run_added_is_a_deletion() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let first = env.memory();
    let notebook = "Keeps a paper notebook for half-formed ideas.";
    env.add_transcript(
        "alpha",
        "2025-06-22-0800-notebook.md",
        &transcript(
            "2025-06-22",
            "08:00",
            "Notebook",
            &format!("remember: Patterns | global | {notebook}"),
        ),
    );
    env.extract(&mock, &[], 0);
    let second = env.memory();
    assert_eq!(section(&second, "Patterns"), [CAFE, notebook]);

    // Undo memloop's last write by hand: the file is now exactly an older render.
    let edited = edit(&second, &format!("- {notebook}\n"), "");
    assert_eq!(edited, first, "the edit restores the first run's file");
    write_file(&env.memory_path(), edited.as_bytes());

    let nothing_new = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 4, "nothing was sent");
    assert_eq!(nothing_new["facts"]["forgotten"], 0);
    assert_eq!(env.memory(), edited, "the deleted bullet did not come back");
    assert!(!fact_texts(&show(&env)).contains(&notebook.to_owned()));

    env.add_transcript(
        "alpha",
        "2025-06-23-0800-notebook-again.md",
        &transcript(
            "2025-06-23",
            "08:00",
            "Notebook again",
            &format!("remember: Patterns | global | {notebook}"),
        ),
    );

    let repeated = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 5);
    assert_eq!(repeated["facts"]["extracted"], 1);
    assert_eq!(repeated["facts"]["forgotten"], 1, "{repeated}");
    assert_eq!(repeated["facts"]["new"], 0);
    assert_eq!(repeated["facts"]["reinforced"], 0);
    assert_eq!(
        env.memory(),
        edited,
        "a transcript saying it again does not bring it back"
    );
    assert!(!fact_texts(&show(&env)).contains(&notebook.to_owned()));
}

#[test]
fn the_users_wording_wins_for_rewordings_and_case_only_fixes() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let lower = "prefers tabs over spaces";
    let fixed = "Prefers tabs over spaces.";
    let reworded = "Wants to finish the Heron migration before the August code freeze.";
    env.add_transcript(
        "alpha",
        "2025-06-22-0900-tabs.md",
        &transcript(
            "2025-06-22",
            "09:00",
            "Tabs",
            &format!("remember: Preferences | global | {lower}"),
        ),
    );
    env.extract(&mock, &[], 0);
    let memory = env.memory();
    assert_eq!(section(&memory, "Preferences"), [DIRECT, lower]);
    assert_eq!(section(&memory, "Goals"), [HERON_GOAL]);

    let edited = edit(&memory, &format!("- {lower}\n"), &format!("- {fixed}\n"));
    let edited = edit(
        &edited,
        &format!("- {HERON_GOAL}\n"),
        &format!("- {reworded}\n"),
    );
    write_file(&env.memory_path(), edited.as_bytes());

    env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 4, "nothing was sent");
    assert_eq!(env.memory(), edited, "the user's words are kept as typed");
    let texts = fact_texts(&show(&env));
    assert!(texts.contains(&fixed.to_owned()), "{texts:?}");
    assert!(texts.contains(&reworded.to_owned()), "{texts:?}");
    assert!(!texts.contains(&lower.to_owned()), "{texts:?}");
    assert!(!texts.contains(&HERON_GOAL.to_owned()), "{texts:?}");

    // Transcripts saying the old wordings again reinforce the facts in the user's words.
    env.add_transcript(
        "beta",
        "2025-06-24-0900-again.md",
        &transcript(
            "2025-06-24",
            "09:00",
            "Again",
            &format!(
                "remember: Preferences | global | {lower}\n\n\
                 remember: Goals | global | {HERON_GOAL}"
            ),
        ),
    );

    let repeated = env.extract(&mock, &[], 0);

    assert_eq!(repeated["facts"]["reinforced"], 2, "{repeated}");
    assert_eq!(repeated["facts"]["new"], 0, "{repeated}");
    assert_eq!(env.memory(), edited, "the old wordings do not come back");
    let show = show(&env);
    assert!(
        !fact_texts(&show).contains(&HERON_GOAL.to_owned()),
        "{show}"
    );
    assert_eq!(find_fact(&show, reworded)["times_seen"], 2, "{show}");
    assert_eq!(find_fact(&show, fixed)["times_seen"], 2, "{show}");
}

/// Runs the fixtures, applies `change` to memory.md by hand, adds a transcript with a new
/// fact so the next run rewrites memory.md, runs, and returns the edited text.
fn edit_then_rewrite(env: &TestEnv, change: impl Fn(&str) -> String) -> String {
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let edited = change(&env.memory());
    write_file(&env.memory_path(), edited.as_bytes());
    assert!(!backup_path(env).exists(), "no backup before the edit");
    let talk = "Wants to give a talk on vector search this autumn.";
    env.add_transcript(
        "alpha",
        "2025-06-27-1500-talk.md",
        &transcript(
            "2025-06-27",
            "15:00",
            "Talk",
            &format!("remember: Goals | global | {talk}"),
        ),
    );

    env.extract(&mock, &[], 0);

    let memory = crate::support::plain(&env.memory());
    assert!(
        memory.contains(&format!("- {talk}\n")),
        "rewritten: {memory}"
    );
    assert_ne!(memory, edited, "memory.md was rewritten");
    edited
}

fn backup_path(env: &TestEnv) -> std::path::PathBuf {
    env.memory_path().with_file_name("memory.md.bak")
}

const PROSE: &str = "Note to self: I moved teams in May, older project facts may be stale.\n\n";

#[test]
fn prose_typed_beside_a_bullet_edit_stays_in_place_through_a_rewrite() {
    let env = TestEnv::with_fixtures();
    let hand_added = "Keeps a paper notebook for half-formed ideas.";

    let edited = edit_then_rewrite(&env, |memory| {
        let with_prose = edit(memory, "## Goals\n", &format!("{PROSE}## Goals\n"));
        edit(
            &with_prose,
            &format!("- {CAFE}\n"),
            &format!("- {CAFE}\n- {hand_added}\n"),
        )
    });

    let memory = crate::support::plain(&env.memory());
    assert!(
        memory.contains(&format!("{SEARCH_INFRA}\n\n{PROSE}## Goals\n")),
        "the note stays in the file, where it was typed: {memory}"
    );
    assert_ne!(memory, edited);
    assert_eq!(section(&memory, "Patterns"), [CAFE, hand_added]);
}

/// No bullet changed here, only prose: the rewrite keeps it in the file, where Claude
/// reads it, not only in a backup.
#[test]
fn prose_typed_alone_stays_in_place_through_a_rewrite() {
    let env = TestEnv::with_fixtures();

    edit_then_rewrite(&env, |memory| {
        edit(memory, "## Goals\n", &format!("{PROSE}## Goals\n"))
    });

    let memory = env.memory();
    assert!(
        memory.contains(&format!("{SEARCH_INFRA}\n\n{PROSE}## Goals\n")),
        "{memory}"
    );
}

#[test]
fn a_memory_md_memloop_never_wrote_is_backed_up_and_its_bullets_kept() {
    let env = TestEnv::new();
    let mock = Mock::start();

    let own = "# My notes\n\n\
               Things Claude should know about me.\n\n\
               ## Preferences\n\n\
               - Prefers green tea over coffee.\n\
               - Walks to work when it is not raining.\n\n\
               ## Identity\n\n\
               - Lives in Lisbon.\n";
    write_file(&env.memory_path(), own.as_bytes());
    env.create_vault("gamma");
    let goal = "Wants to learn Zig this year.";
    env.add_transcript(
        "gamma",
        "2025-06-26-0900-zig.md",
        &transcript(
            "2025-06-26",
            "09:00",
            "Zig",
            &format!("remember: Goals | global | {goal}"),
        ),
    );

    let run = env.extract(&mock, &[], 0);

    assert_eq!(run["facts"]["new"], 1, "{run}");
    let before = env.memory_path().with_file_name("memory.md.before-memloop");
    assert_eq!(read(&before), own, "the user's file is kept as it was");
    let memory = env.memory();
    assert_eq!(section(&memory, "Identity"), ["Lives in Lisbon."]);
    assert_eq!(section(&memory, "Goals"), [goal]);
    assert_eq!(
        section(&memory, "Preferences"),
        [
            "Prefers green tea over coffee.",
            "Walks to work when it is not raining."
        ]
    );
    assert_eq!(bullets(&memory).len(), 4, "{memory}");
}

/// `ghp_` and 36 alphanumerics, made at run time so no credential is in the source.
fn github_token() -> String {
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let core: String = (0..36)
        .map(|i| char::from(ALNUM[(i * 17 + 5) % ALNUM.len()]))
        .collect();
    format!("{}{core}", "ghp_")
}

#[test]
fn a_secret_in_a_hand_added_bullet_is_redacted_and_never_sent() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let token = github_token();
    let core = &token["ghp_".len()..];
    let hand_added = format!("Pushes the lanternfish mirror with {token} from the laptop.");
    let redacted = "Pushes the lanternfish mirror with [REDACTED:github-token] from the laptop.";
    let edited = edit(
        &env.memory(),
        &format!("- {DIRECT}\n"),
        &format!("- {DIRECT}\n- {hand_added}\n"),
    );
    write_file(&env.memory_path(), edited.as_bytes());
    let wish = "Wants a second lanternfish mirror on the laptop.";
    env.add_transcript(
        "alpha",
        "2025-06-23-0900-mirror.md",
        &transcript(
            "2025-06-23",
            "09:00",
            "Mirror",
            &format!(
                "I push the lanternfish mirror from the laptop every evening.\n\n\
                 remember: Goals | global | {wish}"
            ),
        ),
    );

    env.extract(&mock, &[], 0);

    let requests = mock.requests();
    assert_eq!(requests.len(), 4);
    let text = requests[3].user_text();
    let (known, _) = text.split_once("<transcript").expect("fenced transcript");
    assert!(
        known.contains(&format!("- {redacted}\n")),
        "the hand-added fact travels redacted: {known}"
    );
    for request in &requests {
        assert!(!request.body.contains(core), "{}", request.body);
    }
    let memory = crate::support::plain(&env.memory());
    assert_eq!(section(&memory, "Preferences"), [DIRECT, redacted]);
    assert!(memory.contains(&format!("- {wish}\n")), "{memory}");
    assert!(!memory.contains(core), "{memory}");
    let show = show(&env);
    assert!(!show.to_string().contains(core), "{show}");
}

/// The bytes of `doc` before the begin marker and after the end marker line.
fn outside_fence(doc: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let find = |needle: &str| {
        doc.windows(needle.len())
            .position(|w| w == needle.as_bytes())
            .unwrap_or_else(|| panic!("{needle} in {}", String::from_utf8_lossy(doc)))
    };
    let begin = find(BEGIN);
    let end = find(END) + END.len();
    (doc[..begin].to_vec(), doc[end..].to_vec())
}

#[test]
fn edits_inside_a_crlf_fence_are_kept_and_the_rest_of_the_file_untouched() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let path = env.claude_md("beta");
    let fixture = read_bytes(&path);
    env.extract(&mock, &[], 0);
    let scripts = "Heron's migration scripts live in the ops repository.";
    env.add_transcript(
        "beta",
        "2025-06-22-2100-scripts.md",
        &transcript(
            "2025-06-22",
            "21:00",
            "Scripts",
            &format!("remember: Project Context | vault | {scripts}"),
        ),
    );
    env.extract(&mock, &[], 0);
    let written = read_bytes(&path);
    assert!(written.starts_with(&fixture), "text above the fence kept");
    let (above, below) = outside_fence(&written);
    let text = String::from_utf8(written.clone()).expect("utf-8");
    assert_eq!(
        bullets(insights_block(&text).expect("block")),
        [POSTGRES, scripts]
    );
    assert!(
        text.contains(&format!("- {scripts}\r\n")),
        "CRLF fence: {text:?}"
    );

    // Delete the insight the last run added, and reword the other one.
    let reworded = "Heron's staging database runs Postgres 16 behind PgBouncer on Kubernetes.";
    let edited = edit(&text, &format!("- {scripts}\r\n"), "");
    let edited = edit(
        &edited,
        &format!("- {POSTGRES}\r\n"),
        &format!("- {reworded}\r\n"),
    );
    write_file(&path, edited.as_bytes());

    env.extract(&mock, &[], 0);

    assert_eq!(read(&path), edited, "the hand-edited fence is kept as is");

    env.add_transcript(
        "beta",
        "2025-06-23-2100-scripts-again.md",
        &transcript(
            "2025-06-23",
            "21:00",
            "Scripts again",
            &format!(
                "remember: Project Context | vault | {scripts}\n\n\
                 remember: Project Context | vault | {POSTGRES}"
            ),
        ),
    );

    let repeated = env.extract(&mock, &[], 0);

    assert_eq!(repeated["facts"]["forgotten"], 1, "{repeated}");
    assert_eq!(repeated["facts"]["reinforced"], 1, "{repeated}");
    let after = read_bytes(&path);
    assert_eq!(
        after,
        edited.as_bytes(),
        "deleted stays deleted, words kept"
    );
    assert_eq!(outside_fence(&after), (above, below), "outside the fence");
    let texts = fact_texts(&show(&env));
    assert!(!texts.contains(&scripts.to_owned()), "{texts:?}");
    assert!(!texts.contains(&POSTGRES.to_owned()), "{texts:?}");
    assert!(texts.contains(&reworded.to_owned()), "{texts:?}");
    assert!(
        texts.contains(&LANTERNFISH.to_owned()),
        "alpha untouched: {texts:?}"
    );
    assert!(
        !fs::read_to_string(env.claude_md("alpha"))
            .expect("alpha")
            .contains(reworded)
    );
}

#[test]
fn text_typed_inside_a_vault_fence_stays_in_the_fence() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let path = env.claude_md("alpha");
    let original = std::fs::read_to_string(&path).expect("alpha CLAUDE.md");
    let note = "My own note: DO NOT LOSE THIS paragraph.";
    let edited = original.replacen(
        "## Memory Loop Insights\n",
        &format!("## Memory Loop Insights\n\n{note}\n"),
        1,
    );
    assert_ne!(edited, original, "fixture edit applied");
    crate::support::write_file(&path, edited.as_bytes());
    env.add_transcript(
        "alpha",
        "2025-07-02-0900-more.md",
        &crate::support::transcript(
            "2025-07-02",
            "09:00",
            "More",
            "remember: Project Context | vault | Lanternfish shards by tenant.",
        ),
    );

    env.extract(&mock, &[], 0);

    let now = std::fs::read_to_string(&path).unwrap();
    assert!(now.contains("Lanternfish shards by tenant."), "{now}");
    let block = crate::support::insights_block(&now).expect("the fence");
    assert!(
        block.contains(&format!(
            "## Memory Loop Insights\n\n{}\n\n{note}\n",
            memloop::render::INSIGHTS_LINE
        )),
        "the note stays where it was typed: {block}"
    );
}
