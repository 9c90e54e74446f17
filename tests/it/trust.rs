//! What users must be able to trust, pinned by an adversarial review of the curation work:
//! each test is something a user does to memory.md or a vault's `CLAUDE.md` by hand (or
//! with `memloop memory ...`), followed by an ordinary run, and each once found a bug.

use std::fs;
use std::path::PathBuf;

use crate::support::fixture::{DIRECT, GLOBAL, LANTERNFISH, SEARCH_INFRA};
use crate::support::mock::Mock;
use crate::support::{
    TestEnv, bullets, extracted, holding, read, read_bytes, report, set_age, transcript, write_file,
};

/// (text, status) of every fact the ledger knows.
fn facts(env: &TestEnv) -> Vec<(String, String)> {
    env.show_json(true)["facts"]
        .as_array()
        .expect("facts array")
        .iter()
        .map(|f| {
            (
                f["text"].as_str().unwrap_or_default().to_owned(),
                f["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn status_of(env: &TestEnv, text: &str) -> Vec<String> {
    facts(env)
        .into_iter()
        .filter(|(t, _)| t == text)
        .map(|(_, s)| s)
        .collect()
}

/// Rewrites memory.md by hand (an editor, no `memory edit`).
fn hand_edit(env: &TestEnv, from: &str, to: &str) -> String {
    let before = env.memory();
    assert!(before.contains(from), "{from:?} not in\n{before}");
    let edited = before.replacen(from, to, 1);
    write_file(&env.memory_path(), edited.as_bytes());
    edited
}

// ---------------------------------------------------------------------------------------
// Text the user typed that is not a bullet, read wrongly.

/// render::parse_bullets joins an indented `  - item` under a bullet into that bullet, while
/// render::doc::parse keeps it as a nested block: the parent fact is "deleted" (forgotten),
/// a new fact "parent - item" is adopted, and the nested item is moved away from its bullet.
#[test]
fn a_nested_list_item_under_a_bullet_forgets_nothing_and_stays_under_it() {
    let (env, mock) = extracted();
    let edited = hand_edit(
        &env,
        &format!("- {DIRECT}\n"),
        &format!("- {DIRECT}\n  - mostly in code review\n"),
    );
    env.extract(&mock, &[], 0);
    assert_eq!(status_of(&env, DIRECT), ["active"], "{:?}", facts(&env));
    assert!(
        !facts(&env).iter().any(|(t, _)| t.contains("code review")),
        "a nested item became (part of) a fact: {:?}",
        facts(&env)
    );
    assert_eq!(
        env.memory(),
        edited,
        "the file was already in memloop's shape"
    );
}

/// The same at takeover: Memory Loop writes nested bullets.
#[test]
fn a_taken_over_file_with_nested_bullets_keeps_them_once_and_in_place() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let original = "# Memory\n\n## Preferences\n\n- Coding style:\n  - Prefers tabs.\n  - Prefers short functions.\n- Likes tea.\n";
    write_file(&env.memory_path(), original.as_bytes());
    env.extract(&mock, &[], 0);
    let after = env.memory();
    assert_eq!(
        after.matches("Prefers tabs.").count(),
        1,
        "nested text duplicated:\n{after}"
    );
    assert!(
        after.contains("- Coding style:\n  - Prefers tabs.\n  - Prefers short functions.\n"),
        "nested list moved away from its bullet:\n{after}"
    );
}

/// A bullet typed above the first `## ` heading is kept as user text by doc::parse AND
/// adopted as a fact by parse_bullets: it shows twice, and `memory forget` says "gone from
/// memory.md" while it stays in the file Claude loads.
#[test]
fn a_bullet_above_the_first_heading_is_shown_once_and_forget_removes_it() {
    let (env, mock) = extracted();
    hand_edit(
        &env,
        "\n## Identity\n",
        "\n- Keeps a cat named Miso.\n\n## Identity\n",
    );
    env.extract(&mock, &[], 0);
    let after = env.memory();
    assert_eq!(after.matches("Miso").count(), 1, "shown twice:\n{after}");
    env.cmd()
        .args(["memory", "forget", "--yes", "Miso"])
        .assert()
        .code(0);
    let after = env.memory();
    assert!(
        !after.contains("Miso"),
        "forget said it is gone, yet Claude still loads it:\n{after}"
    );
}

/// One line starting with ``` that does not open a real fence (an inline code span, or a
/// fence left unclosed) swallows the rest of the file in both parsers: every bullet below it
/// is forgotten as "deleted from the file", and each later run appends the whole body again
/// (the file grows without bound). An unclosed `<!--` line does the same.
#[test]
fn a_stray_backtick_fence_line_forgets_nothing_and_the_file_stops_changing() {
    let (env, mock) = extracted();
    hand_edit(
        &env,
        "\n## Identity\n",
        "\nI run the tests with:\n\n```npm test``` (always).\n\n## Identity\n",
    );
    env.extract(&mock, &[], 0);
    for (_, text) in GLOBAL {
        assert_eq!(
            status_of(&env, text),
            ["active"],
            "{text}: {:?}",
            facts(&env)
        );
    }
    let once = env.memory();
    env.extract(&mock, &[], 0);
    env.extract(&mock, &[], 0);
    let thrice = env.memory();
    assert_eq!(thrice, once, "each run rewrote (and grew) the file");
    assert_eq!(thrice.matches(SEARCH_INFRA).count(), 1, "{thrice}");
}

/// CommonMark closes a ```` fence only with ```` or longer; both parsers close it at the
/// first ``` line, so a `- ` line inside the user's code block becomes a fact and memloop's
/// bullets are then rendered inside the code block.
#[test]
fn a_dash_line_inside_a_four_backtick_code_block_is_not_a_fact() {
    let (env, mock) = extracted();
    let block = "My note template:\n\n````md\n```\n- TODO fill in\n```\n````\n\n";
    hand_edit(
        &env,
        &format!("## Preferences\n\n- {DIRECT}\n"),
        &format!("## Preferences\n\n{block}- {DIRECT}\n"),
    );
    env.extract(&mock, &[], 0);
    assert!(
        !facts(&env).iter().any(|(t, _)| t.contains("TODO")),
        "code became a fact: {:?}",
        facts(&env)
    );
    let after = env.memory();
    assert!(
        after.contains(block),
        "the code block was changed:\n{after}"
    );
}

/// An HTML comment indented under a bullet (hidden from Claude) is joined into the bullet:
/// the fact is forgotten, and the comment text becomes a visible bullet Claude loads.
#[test]
fn an_indented_comment_under_a_bullet_stays_a_hidden_comment() {
    let (env, mock) = extracted();
    let edited = hand_edit(
        &env,
        &format!("- {DIRECT}\n"),
        &format!("- {DIRECT}\n  <!-- private: ask about coffee -->\n"),
    );
    env.extract(&mock, &[], 0);
    assert_eq!(status_of(&env, DIRECT), ["active"], "{:?}", facts(&env));
    let after = env.memory();
    assert!(
        !bullets(&after).iter().any(|b| b.contains("private")),
        "a hidden comment became a loaded bullet:\n{after}"
    );
    assert_eq!(after, edited);
}

/// render::insights keeps only the blocks under `## Memory Loop Insights`: text the user
/// typed inside the fence before that heading, or under a heading of their own, is deleted
/// from CLAUDE.md (only `.bak` keeps it, and the next hand edit overwrites that).
#[test]
fn user_text_inside_the_fence_outside_the_insights_heading_is_kept() {
    let (env, mock) = extracted();
    let path = env.claude_md("alpha");
    let text = read(&path)
        .replace(
            "<!-- memory-loop:insights:begin -->\n",
            "<!-- memory-loop:insights:begin -->\nMy own note before the heading.\n\n",
        )
        .replace(
            &format!("- {LANTERNFISH}\n"),
            &format!("- {LANTERNFISH}\n\n## Deploy notes\n\nDeploy only on Fridays.\n"),
        );
    write_file(&path, text.as_bytes());
    env.extract(&mock, &[], 0);
    let after = read(&path);
    assert!(after.contains("My own note before the heading."), "{after}");
    assert!(after.contains("Deploy only on Fridays."), "{after}");
}

/// The same through `memory edit --vault`: the user drops the heading and types a note.
#[test]
fn memory_edit_vault_keeps_a_note_typed_without_the_heading() {
    let (env, _mock) = extracted();
    let editor = env.root().join("editor.py");
    write_file(
        &editor,
        b"#!/usr/bin/env python3\nimport sys\np = sys.argv[1]\ns = open(p).read()\ns = s.replace('## Memory Loop Insights\\n', 'Ask Dana before reindexing.\\n')\nopen(p, 'w').write(s)\n",
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&editor, fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    env.cmd()
        .env("EDITOR", &editor)
        .args(["memory", "edit", "--vault"])
        .arg(env.vaults().join("alpha"))
        .assert()
        .code(0);
    let after = read(&env.claude_md("alpha"));
    assert!(after.contains("Ask Dana before reindexing."), "{after}");
}

/// memory.md holding a non-UTF-8 byte (a Latin-1 editor) is read lossily and rewritten:
/// the user's own words get U+FFFD in place of their letters.
#[test]
fn non_utf8_user_text_in_memory_md_is_not_mangled() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let latin1: &[u8] = b"# Memory\n\n## Preferences\n\n- Likes tea.\n\nMy na\xefve note.\n";
    write_file(&env.memory_path(), latin1);
    // The file is left as it is and named; the transcripts are still committed.
    let run = env.extract(&mock, &[], 1);
    assert_eq!(read_bytes(&env.memory_path()), latin1);
    let failures = run["failures"].to_string();
    assert!(
        failures.contains("memory.md") && failures.contains("UTF-8"),
        "{run}"
    );
    assert_eq!(run["transcripts"]["processed"], 3, "{run}");
}

// ---------------------------------------------------------------------------------------
// A fact the user forgot coming back.

/// `memory remember` of other words that fuzzily match a forgotten fact brings the
/// forgotten fact back in its old words and drops the user's (Store::remember).
#[test]
fn remembering_other_words_does_not_bring_back_a_forgotten_fact() {
    let env = TestEnv::with_fixtures();
    let old = "Works at Acme Corp on backend billing.";
    let new = "Works at Acme Corp on backend.";
    env.cmd().args(["memory", "remember", old]).assert().code(0);
    env.cmd()
        .args(["memory", "forget", "--yes", "billing"])
        .assert()
        .code(0);
    env.cmd().args(["memory", "remember", new]).assert().code(0);
    let after = env.memory();
    assert!(
        !after.contains(old),
        "the forgotten fact came back:\n{after}"
    );
    assert!(
        after.contains(new),
        "the user's words were dropped:\n{after}"
    );
}

/// A global fact the user forgot comes back in a vault's CLAUDE.md (also loaded by Claude)
/// when a transcript states it with scope `vault`: forgotten facts only match within their
/// own partition (store::merge_one / FactIndex::find).
#[test]
fn a_forgotten_global_fact_does_not_come_back_as_a_vault_insight() {
    let (env, mock) = extracted();
    env.cmd()
        .args(["memory", "forget", "--yes", DIRECT])
        .assert()
        .code(0);
    env.add_transcript(
        "alpha",
        "2025-07-01-1000-again.md",
        &transcript(
            "2025-07-01",
            "10:00",
            "Again",
            &format!("remember: Preferences | vault | {DIRECT}"),
        ),
    );
    env.extract(&mock, &[], 0);
    let alpha = read(&env.claude_md("alpha"));
    assert!(!alpha.contains(DIRECT), "forgotten fact is back:\n{alpha}");
}

/// Adding a more specific bullet beside an existing one (keeping it) overwrites the existing
/// fact's words (Store::apply_edits: `added` fuzzily matched an active fact): the bullet the
/// user kept disappears from memory.md without a word.
#[test]
fn adding_a_similar_bullet_keeps_the_one_beside_it() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let kept = "Works at Acme Corp on backend.";
    env.cmd()
        .args(["memory", "remember", kept])
        .assert()
        .code(0);
    hand_edit(
        &env,
        &format!("- {kept}\n"),
        &format!("- {kept}\n- Works at Acme Corp on backend billing.\n"),
    );
    env.extract(&mock, &[], 0);
    let after = env.memory();
    assert!(after.contains(&format!("- {kept}\n")), "{after}");
}

// ---------------------------------------------------------------------------------------
// Purge leaving the text behind, while saying it is erased.

/// A purged fact is remembered by the fingerprint of its current words only (exact key),
/// while forget matches fuzzily: after the user lightly rewords a bullet (same fact, new
/// words) and purges it, `extract --force` brings the transcript's wording back.
#[test]
fn a_purged_fact_stays_forgotten_after_the_user_reworded_it() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let said = "Sees Dr Smith for therapy every Tuesday.";
    env.add_transcript(
        "alpha",
        "2025-07-01-1000-therapy.md",
        &transcript(
            "2025-07-01",
            "10:00",
            "T",
            &format!("remember: Identity | global | {said}"),
        ),
    );
    env.extract(&mock, &[], 0);
    hand_edit(
        &env,
        said,
        "Sees Dr Smith for therapy every Tuesday evening.",
    );
    env.cmd()
        .args(["memory", "forget", "--yes", "--purge", "Dr Smith"])
        .assert()
        .code(0);
    assert!(!env.memory().contains("Smith"));
    env.extract(&mock, &["--force"], 0);
    let after = env.memory();
    assert!(
        !after.contains("Smith"),
        "the purged fact is back:\n{after}"
    );
}

/// Purge scrubs backups for the fact's current words only: an earlier wording of the same
/// fact stays in `memory.md.before-memloop` although the command says it was erased.
#[test]
fn purge_scrubs_earlier_wordings_of_the_fact_from_backups() {
    let env = TestEnv::with_fixtures();
    write_file(
        &env.memory_path(),
        b"# Memory\n\n## Identity\n\n- Sees Dr Smith for therapy every Tuesday.\n- Likes tea.\n",
    );
    env.cmd()
        .args(["memory", "remember", "Likes coffee."])
        .assert()
        .code(0);
    hand_edit(&env, "every Tuesday.", "every Tuesday evening.");
    env.cmd()
        .args(["memory", "forget", "--yes", "--purge", "Dr Smith"])
        .assert()
        .code(0);
    assert_eq!(holding(&env.home(), "Smith"), Vec::<PathBuf>::new());
    assert_eq!(holding(&env.state_dir(), "Smith"), Vec::<PathBuf>::new());
}

/// A ledger rebuilt after the person reworded a fact no longer knows the first wording;
/// `memory.md.before-memloop` and the damaged ledger still held it after a purge (issue 19
/// point 3). The purge finds it there as the same fact with a word changed.
#[test]
fn purge_after_a_rebuild_scrubs_the_wording_the_fact_had_before_it_was_reworded() {
    let env = TestEnv::with_fixtures();
    write_file(
        &env.memory_path(),
        b"# Memory\n\n## Identity\n\n- Uses Vim at work every single day.\n- Likes green tea.\n",
    );
    env.cmd()
        .args(["memory", "remember", "Likes coffee."])
        .assert()
        .code(0);
    hand_edit(&env, "Uses Vim at work", "Uses Neovim at work");
    env.cmd()
        .args(["memory", "remember", "Likes jazz."])
        .assert()
        .code(0);
    let ledger = env.state_dir().join("ledger.sqlite3");
    for log in ["-wal", "-shm"] {
        let _ = fs::remove_file(env.state_dir().join(format!("ledger.sqlite3{log}")));
    }
    let mut bytes = read_bytes(&ledger);
    bytes[100..140].fill(b'!');
    write_file(&ledger, &bytes);
    env.cmd().args(["ledger", "rebuild"]).assert().code(0);

    env.cmd()
        .args(["memory", "forget", "--yes", "--purge", "Neovim"])
        .assert()
        .code(0);

    assert_eq!(holding(&env.home(), "Vim at work"), Vec::<PathBuf>::new());
    assert_eq!(
        holding(&env.state_dir(), "Vim at work"),
        Vec::<PathBuf>::new()
    );
    // Another fact that shares words with it stays in the backup.
    let backup = env
        .root()
        .join("home/.claude/rules/memory.md.before-memloop");
    assert!(String::from_utf8_lossy(&read_bytes(&backup)).contains("Likes green tea."));
}

/// With `[insights] enabled = false`, sync skips vault targets: forget --purge says "gone
/// from vault alpha, the ledger" (exit 0), yet CLAUDE.md still shows it and the ledger's
/// `rendered` row still holds it.
#[test]
fn purge_with_insights_disabled_leaves_no_trace() {
    let (env, mock) = extracted();
    env.config("[insights]\nenabled = false\n");
    env.cmd()
        .args(["memory", "forget", "--yes", "--purge", LANTERNFISH])
        .assert()
        .code(0);
    let _ = mock;
    let needle = "object storage";
    assert_eq!(
        holding(&env.vaults().join("alpha"), needle),
        Vec::<PathBuf>::new()
    );
    assert_eq!(holding(&env.state_dir(), needle), Vec::<PathBuf>::new());
}

/// A vault used with `extract --vault DIR` outside VAULTS_DIR is not among the curation
/// commands' vaults (Engine::for_curation): its CLAUDE.md and the ledger keep a purged fact.
#[test]
fn purge_reaches_a_vault_named_with_extract_vault() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let gamma = env.root().join("elsewhere/gamma");
    let chats = gamma.join("00_Inbox/chats");
    fs::create_dir_all(&chats).expect("mkdir");
    let t = chats.join("2025-07-01-1000-gamma.md");
    write_file(
        &t,
        transcript(
            "2025-07-01",
            "10:00",
            "Gamma",
            "remember: Project Context | vault | Gamma signs releases with the quux key.",
        )
        .as_bytes(),
    );
    set_age(&t, std::time::Duration::from_secs(3600));
    env.extract(&mock, &["--vault", gamma.to_str().expect("utf-8 path")], 0);
    assert!(read(&gamma.join("CLAUDE.md")).contains("quux"));
    env.cmd()
        .args(["memory", "forget", "--yes", "--purge", "quux"])
        .assert()
        .code(0);
    assert_eq!(holding(&gamma, "quux"), Vec::<PathBuf>::new());
    assert_eq!(holding(&env.state_dir(), "quux"), Vec::<PathBuf>::new());
}

// ---------------------------------------------------------------------------------------
// "No match changes no byte".

/// find::anything_matches scans every `- ` line, code blocks and nested lists included, so
/// a query matching only such text takes the lock and rewrites the files (a pending hand
/// edit, here CRLF line endings, is applied and `.bak` written) before saying that no fact
/// matches and nothing was forgotten (exit 1).
#[test]
fn forget_matching_no_fact_changes_no_byte_even_when_code_holds_the_words() {
    let (env, _mock) = extracted();
    let text =
        format!("{}\n```\n- zebra crossing example\n```\n", env.memory()).replace('\n', "\r\n");
    write_file(&env.memory_path(), text.as_bytes());
    let before = env.snapshot_tree();
    env.cmd()
        .args(["memory", "forget", "--yes", "zebra"])
        .assert()
        .code(1);
    env.snapshot_tree().assert_unchanged_since(&before);
}

// ---------------------------------------------------------------------------------------
// review = true: nothing changes in memory.md before the user accepts.

/// merge::decide: a candidate that matches a *pending* fact and names an active fact in
/// `replaces` is `Replace { old, by: Some(pending) }`; store::merge_one then archives the
/// active fact as replaced while its replacement is still pending. The second transcript
/// saying "moved to Porto" silently removes "Lives in Berlin." from memory.md, and nothing
/// replaces it there until (unless) the user accepts: a rejection leaves the user with
/// neither fact.
#[test]
fn a_pending_replacement_said_twice_does_not_remove_the_fact_before_review() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let berlin = "Lives in Berlin.";
    let porto = "Lives in Porto.";
    env.add_transcript(
        "alpha",
        "2025-06-01-0900-berlin.md",
        &transcript(
            "2025-06-01",
            "09:00",
            "Berlin",
            &format!("remember: Identity | global | {berlin}"),
        ),
    );
    env.extract(&mock, &[], 0);
    assert!(bullets(&env.memory()).contains(&berlin.to_owned()));

    env.config("[memory]\nreview = true\n");
    let moved = format!("remember: Identity | global | {porto} | replaces: {berlin}");
    env.add_transcript(
        "alpha",
        "2025-07-01-0900-porto.md",
        &transcript("2025-07-01", "09:00", "Porto", &moved),
    );
    env.extract(&mock, &[], 0);
    assert!(
        bullets(&env.memory()).contains(&berlin.to_owned()),
        "first mention: the replacement waits, the old fact stays\n{}",
        env.memory()
    );
    env.add_transcript(
        "alpha",
        "2025-07-02-0900-porto-again.md",
        &transcript("2025-07-02", "09:00", "Porto again", &moved),
    );
    env.extract(&mock, &[], 0);
    let memory = env.memory();
    assert!(
        bullets(&memory).contains(&berlin.to_owned()),
        "a second mention of a pending replacement archived the fact it replaces before review:\n{memory}"
    );
    assert!(!memory.contains(porto), "pending fact shown:\n{memory}");
}

// ---------------------------------------------------------------------------------------
// (b)/(a) the report of hand edits.

/// store::apply_edits counts every `removed` bullet as forgotten (and writes a "forgotten:
/// deleted from the file" event) before it sees that an added bullet is the same fact
/// reworded: a user who only reworded one bullet is told "1 forgotten, 1 changed" by
/// `extract` (and `memory edit` says the same), and `memory why` shows the fact as deleted.
/// Changing one word of a bullet ("hedging" to "waffling") is a rewording too, though the
/// new words read as another fact to deduplication: it read as "1 forgotten, 1 added" and
/// the fact lost its sources and history.
#[test]
fn changing_one_word_of_a_bullet_keeps_the_facts_history() {
    let (env, mock) = extracted();
    let changed = "Prefers direct answers without waffling.";
    hand_edit(&env, DIRECT, changed);

    let report = env.extract(&mock, &[], 0);

    assert_eq!(
        (
            report["edits"]["changed"].as_u64(),
            report["edits"]["forgotten"].as_u64()
        ),
        (Some(1), Some(0)),
        "{}",
        report["edits"]
    );
    let out = env.cmd().args(["memory", "why", changed]).assert().code(0);
    let why = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        why.contains("changed in the file") && why.contains(".md"),
        "{why}"
    );
    assert!(!why.contains("deleted from the file"), "{why}");
}

#[test]
fn rewording_a_bullet_is_reported_as_changed_not_forgotten() {
    let (env, mock) = extracted();
    let reworded = "Prefers direct answers without any hedging.";
    hand_edit(&env, DIRECT, reworded);
    let report = env.extract(&mock, &[], 0);
    assert_eq!(report["edits"]["changed"], 1, "{}", report["edits"]);
    assert_eq!(
        report["edits"]["forgotten"], 0,
        "nothing was forgotten: {}",
        report["edits"]
    );
    let why = env
        .cmd()
        .args(["memory", "why", reworded])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let why = String::from_utf8_lossy(&why);
    assert!(
        !why.contains("deleted from the file"),
        "a reworded fact's history says it was deleted:\n{why}"
    );
    // Every global fact is still active.
    let show = env.show_json(false);
    let active = show["facts"]
        .as_array()
        .expect("facts")
        .iter()
        .filter(|f| f["status"] == "active" && f["scope"] == "global")
        .count();
    assert_eq!(active, GLOBAL.len());
}

// ---------------------------------------------------------------------------------------
// (d)/(f) status after upgrading from the previous release.

/// The previous release (8128520) recorded its run reports in the version-1 shape
/// (`facts.merged`, no `edits`, `notices`, `changes`, ...). cmd::status::last_run parses
/// them as today's `Report` (no `#[serde(default)]`), so the first `status` after an
/// upgrade says "its report could not be read" (outcome `unknown`) and drops the last
/// run's failures, although the migration kept the row.
#[test]
fn status_reads_the_last_run_recorded_by_the_previous_release() {
    let (env, _mock) = extracted();
    let ledger = env.state_dir().join("ledger.sqlite3");
    // A report exactly as the previous release wrote it, with one failure.
    let v1 = r#"{"vaults":2,"transcripts":{"found":3,"unchanged":2,"waiting":0,"deferred":0,"processed":0,"failed":1},"facts":{"extracted":0,"new":0,"merged":0,"replaced":0,"refused":0,"archived":0,"forgotten":0},"memory":{"path":"/x/memory.md","bytes":238,"max_bytes":51200},"tokens":{"input":0,"output":0},"cost_usd":null,"provider":"builtin","model":"builtin","prompt":{"path":null,"custom":false},"failures":[{"path":"/v/alpha/00_Inbox/chats/broken.md","error":"not UTF-8"}],"dry_run":false,"interrupted":false,"elapsed_ms":4}"#;
    let conn = rusqlite::Connection::open(&ledger).expect("open ledger");
    conn.execute("UPDATE runs SET report = ?1", [v1])
        .expect("write a v1 report");
    drop(conn);
    let status = report(
        env.cmd()
            .args(["status", "--json"])
            .assert()
            .code(0)
            .get_output(),
    );
    assert_eq!(
        status["last_run"]["outcome"], "failures",
        "{}",
        status["last_run"]
    );
    let text = env
        .cmd()
        .arg("status")
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&text);
    assert!(text.contains("broken.md"), "{text}");
}

// ---------------------------------------------------------------------------------------
// Nothing in a bullet is read by Claude Code as structure.

/// Claude Code 2.1.197 expands `@~/path` in memory.md into the file's contents (checked
/// against the CLI with a loopback mock), but not after a backslash; a bullet starting
/// with `- ` would render as a nested list. Text that is not a bullet is the user's own and
/// stays verbatim, imports included.
#[test]
fn a_bullet_never_imports_a_file_nests_a_list_or_hides_characters() {
    let (env, mock) = extracted();
    hand_edit(
        &env,
        &format!("- {DIRECT}\n"),
        &format!(
            "- {DIRECT}\n- Keeps the team token in @~/.config/gh/hosts.yml for scripts.\n- - Reads A\u{200d}lways.\n\nSee @~/notes/me.md for more.\n"
        ),
    );

    env.extract(&mock, &[], 0);

    let memory = env.memory();
    assert!(
        memory.contains("- Keeps the team token in \\@~/.config/gh/hosts.yml for scripts.\n"),
        "{memory}"
    );
    assert!(memory.contains("- \\- Reads Always.\n"), "{memory}");
    assert!(!memory.contains('\u{200d}'), "{memory}");
    assert!(
        memory.contains("\nSee @~/notes/me.md for more.\n"),
        "the user's own paragraph is theirs, import and all: {memory}"
    );
    // Stable: the next run reads its own bullets back as they are.
    let once = env.memory();
    env.extract(&mock, &["--force"], 0);
    assert_eq!(env.memory(), once);
}

// ---------------------------------------------------------------------------------------
// An editor open across a run (issue 19 point 1).

/// The user opens memory.md (or a vault's CLAUDE.md) in an editor, a run adds bullets, and
/// the user saves the editor's older copy with one line of their own added: only that
/// line is their edit. Compared with the last write alone, the run's bullets read as
/// deleted and were forgotten for good. (One missing bullet stays a deletion: see
/// `edits::deleting_the_bullet_the_last_run_added_is_a_deletion`.)
#[test]
fn saving_an_editor_copy_older_than_the_last_run_forgets_nothing_the_run_added() {
    let (env, mock) = extracted();
    let memory_path = env.memory_path();
    let claude_md = env.claude_md("alpha");
    let (memory_buffer, fence_buffer) = (read(&memory_path), read(&claude_md));

    // The run while the editor is open: new global and vault facts.
    let new_global = [
        "Plays the cello on weekends.",
        "Keeps bees on the allotment.",
        "Swims in the lake every morning.",
        "Collects vintage fountain pens.",
        "Bakes sourdough on Sundays.",
        "Volunteers at the food bank.",
    ];
    let new_vault = [
        "Alpha ships its releases on Thursdays.",
        "Alpha's index rebuilds run at night.",
    ];
    let lines: Vec<String> = new_global
        .iter()
        .map(|f| format!("remember: Identity | global | {f}"))
        .chain(
            new_vault
                .iter()
                .map(|f| format!("remember: Project Context | vault | {f}")),
        )
        .collect();
    // One transcript a fact: the run writes the files several times over.
    for (i, line) in lines.iter().enumerate() {
        env.add_transcript(
            "alpha",
            &format!("2025-08-{:02}-0900-more.md", i + 1),
            &transcript(&format!("2025-08-{:02}", i + 1), "09:00", "More", line),
        );
    }
    env.extract(&mock, &[], 0);
    for fact in new_global {
        assert!(bullets(&env.memory()).contains(&fact.to_owned()));
    }
    assert!(new_vault.iter().all(|f| read(&claude_md).contains(*f)));

    // The editor saves its copy, with one line typed into each.
    let typed = "Drinks oat milk.";
    write_file(
        &memory_path,
        format!("{memory_buffer}- {typed}\n").as_bytes(),
    );
    let typed_vault = "Alpha's staging box is called kestrel.";
    write_file(
        &claude_md,
        fence_buffer
            .replace(
                "<!-- memory-loop:insights:end -->",
                &format!("- {typed_vault}\n<!-- memory-loop:insights:end -->"),
            )
            .as_bytes(),
    );
    let report = env.extract(&mock, &[], 0);

    assert_eq!(report["edits"]["forgotten"], 0, "{report}");
    assert_eq!(report["edits"]["added"], 2, "{report}");
    let memory = env.memory();
    for fact in new_global.iter().chain([&typed]) {
        assert!(
            bullets(&memory).contains(&(*fact).to_owned()),
            "{fact}:\n{memory}"
        );
    }
    let fence = read(&claude_md);
    assert!(
        new_vault.iter().all(|f| fence.contains(*f)) && fence.contains(typed_vault),
        "{fence}"
    );
    assert!(
        report["notices"]
            .to_string()
            .contains("older than memloop's last write"),
        "{report}"
    );

    // A bullet deleted from the up-to-date file is still the user's deletion.
    let gone = new_global[0];
    let kept: String = env
        .memory()
        .lines()
        .filter(|l| !l.starts_with(&format!("- {gone}")))
        .map(|l| format!("{l}\n"))
        .collect();
    write_file(&memory_path, kept.as_bytes());
    let report = env.extract(&mock, &[], 0);
    assert_eq!(report["edits"]["forgotten"], 1, "{report}");
    assert!(!env.memory().contains(gone));
}

/// `ledger rebuild` keeps the damaged ledger beside the new one; a purge afterwards left the
/// words in that copy (and its log).
#[test]
fn purge_reaches_the_damaged_ledgers_a_rebuild_kept() {
    let (env, _mock) = extracted();
    let state = env.state_dir();
    let damaged = state.join("ledger.sqlite3.damaged-20260101-000000");
    let log = state.join("ledger.sqlite3.damaged-20260101-000000-wal");
    // As a damaged ledger holds a fact: its words among the bytes of a page.
    let page = |filler: u8| {
        let mut bytes = vec![filler; 512];
        bytes.extend_from_slice(DIRECT.as_bytes());
        bytes.extend(vec![filler; 512]);
        bytes
    };
    write_file(&damaged, &page(0));
    write_file(&log, &page(7));

    let out = env
        .cmd()
        .args(["memory", "forget", "--yes", "--purge", DIRECT])
        .assert()
        .code(0);

    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    for file in [&damaged, &log] {
        let bytes = read_bytes(file);
        assert_eq!(bytes.len(), 512 * 2 + DIRECT.len(), "same size");
        assert!(
            !String::from_utf8_lossy(&bytes).contains(DIRECT),
            "{}",
            file.display()
        );
        assert!(said.contains(&file.display().to_string()), "{said}");
    }
    assert_eq!(
        holding(&env.home(), "without hedging"),
        Vec::<PathBuf>::new()
    );
}

/// memory.md hard-linked into a dotfiles directory (issue 19 point 5): a write by rename
/// made the two names two files at the first run, silently. It is written in place.
#[cfg(unix)]
#[test]
fn a_hard_linked_memory_md_stays_one_file() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let memory = env.memory_path();
    fs::create_dir_all(memory.parent().unwrap()).unwrap();
    write_file(&memory, b"# Memory\n\n## Identity\n\n- Likes tea.\n");
    let dotfiles = env.root().join("dotfiles");
    fs::create_dir_all(&dotfiles).unwrap();
    let linked = dotfiles.join("memory.md");
    fs::hard_link(&memory, &linked).unwrap();

    env.extract(&mock, &[], 0);
    env.cmd()
        .args(["memory", "remember", "Keeps bees."])
        .assert()
        .code(0);

    let (here, there) = (read(&memory), read(&linked));
    assert_eq!(here, there, "one file under two names");
    assert!(here.contains(DIRECT) && here.contains("Keeps bees.") && here.contains("Likes tea."));
    let left: Vec<PathBuf> = crate::support::files_under(memory.parent().unwrap())
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("memloop-journal"))
        .collect();
    assert_eq!(left, Vec::<PathBuf>::new(), "no journal left");
}
