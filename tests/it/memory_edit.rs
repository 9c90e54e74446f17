//! `memloop memory edit` with scripted editors, direct edits, a takeover of Memory Loop's
//! own memory.md, a mass rewrite by another program, and saves landing during a run:
//! nothing the user typed is lost, a deleted bullet stays forgotten, and the user's words
//! win.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::fixture::{CAFE, DIRECT, HERON_GOAL, LANTERNFISH, SEARCH_INFRA};
use crate::support::mock::Mock;
use crate::support::{TestEnv, bullets, read, report, section, transcript, write_file};

/// An `EDITOR` that runs `body` (Python, with the file's text in `s`) and saves `s` back.
fn editor(env: &TestEnv, name: &str, body: &str) -> PathBuf {
    let path = env.root().join(name);
    let script = format!(
        "#!/usr/bin/env python3\nimport sys\np = sys.argv[1]\ns = open(p, encoding='utf-8').read()\n{body}\nopen(p, 'w', encoding='utf-8').write(s)\n"
    );
    write_file(&path, script.as_bytes());
    make_executable(&path);
    path
}

fn make_executable(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod editor");
    }
}

fn edit_with(env: &TestEnv, editor: &Path, args: &[&str], code: i32) -> String {
    let out = env
        .cmd()
        .env("EDITOR", editor)
        .args(["memory", "edit"])
        .args(args)
        .assert()
        .code(code);
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

fn fact<'a>(show: &'a Value, text: &str) -> Option<&'a Value> {
    show["facts"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["text"] == text))
}

const NOTE: &str = "Note to self: I moved teams in May, older project facts may be stale.";
const CHANGED_CAFE: &str = "Drafts design notes in a paper notebook before standup.";
const ADDED: &str = "Plays chess on Sunday mornings.";

#[test]
fn an_edit_session_deletes_changes_adds_and_keeps_a_typed_paragraph_for_good() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let script = editor(
        &env,
        "edit.py",
        &format!(
            "s = s.replace('- {DIRECT}\\n', '')\n\
             s = s.replace('{CAFE}', '{CHANGED_CAFE}')\n\
             s = s.replace('- {SEARCH_INFRA}\\n', '- {SEARCH_INFRA}\\n- {ADDED}\\n\\n{NOTE}\\n')"
        ),
    );

    let said = edit_with(&env, &script, &[], 0);

    // A rewording this far from the old words reads as a new fact of theirs, and the old
    // wording is forgotten: extraction saying it again does not bring it back.
    assert!(said.contains("2 forgotten, 2 added"), "{said}");
    let memory = env.memory();
    assert!(!memory.contains(DIRECT), "{memory}");
    assert_eq!(section(&memory, "Patterns"), [CHANGED_CAFE]);
    assert_eq!(section(&memory, "Identity"), [SEARCH_INFRA, ADDED]);
    assert!(
        memory.contains(&format!("- {ADDED}\n\n{NOTE}\n\n## Goals")),
        "the note stays where it was typed: {memory}"
    );
    let facts = env.show_json(true);
    assert_eq!(
        fact(&facts, DIRECT).map(|f| &f["status"]),
        Some(&"forgotten".into())
    );
    assert_eq!(
        fact(&facts, ADDED).map(|f| &f["origin"]),
        Some(&"user".into())
    );
    assert_eq!(
        fact(&facts, CHANGED_CAFE).map(|f| &f["origin"]),
        Some(&"user".into())
    );

    // A new transcript says the deleted fact again, and the changed one in the old words.
    env.add_transcript(
        "alpha",
        "2025-07-01-0900-again.md",
        &transcript(
            "2025-07-01",
            "09:00",
            "Again",
            &format!(
                "remember: Preferences | global | {DIRECT}\n\nremember: Patterns | global | {CAFE}"
            ),
        ),
    );
    let run = env.extract(&mock, &[], 0);
    assert_eq!(
        run["facts"]["forgotten"], 2,
        "both old wordings stay out: {run}"
    );
    let forced = env.extract(&mock, &["--force"], 0);
    assert_eq!(forced["facts"]["new"], 0, "{forced}");
    let memory = env.memory();
    assert!(
        !memory.contains(DIRECT),
        "forgotten stays forgotten: {memory}"
    );
    assert_eq!(
        section(&memory, "Patterns"),
        [CHANGED_CAFE],
        "the user's words win"
    );
    assert!(memory.contains(NOTE), "{memory}");
}

#[test]
fn two_edit_sessions_in_a_row_keep_both_paragraphs() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let first = editor(
        &env,
        "first.py",
        "s = s.replace('## Goals', 'First note, typed in the first session.\\n\\n## Goals')",
    );
    let second = editor(
        &env,
        "second.py",
        "s = s.rstrip('\\n') + '\\n\\nSecond note, typed in the second session.\\n'",
    );

    edit_with(&env, &first, &[], 0);
    edit_with(&env, &second, &[], 0);
    env.extract(&mock, &["--force"], 0);

    let memory = env.memory();
    assert!(
        memory.contains("First note, typed in the first session."),
        "{memory}"
    );
    assert!(
        memory.contains("Second note, typed in the second session."),
        "{memory}"
    );
    assert_eq!(bullets(&memory).len(), 4, "{memory}");
}

#[test]
fn a_failing_editor_or_an_unusable_copy_changes_nothing_and_says_where_the_copy_is() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let before = env.memory();
    let failing = env.root().join("fail.sh");
    write_file(
        &failing,
        b"#!/bin/sh\necho '- Typed before the crash.' >> \"$1\"\nexit 3\n",
    );
    make_executable(&failing);

    let said = edit_with(&env, &failing, &[], 1);

    assert_eq!(env.memory(), before);
    let copy = kept_copy(&said);
    assert!(
        read(&copy).contains("Typed before the crash."),
        "the copy keeps the work"
    );

    let emptying = editor(&env, "empty.py", "s = ''");
    let said = edit_with(&env, &emptying, &[], 2);
    assert!(said.contains("empty"), "{said}");
    assert_eq!(env.memory(), before);
    assert!(kept_copy(&said).exists());
}

fn kept_copy(said: &str) -> PathBuf {
    let at = said.find("kept at ").expect("names the copy") + "kept at ".len();
    PathBuf::from(said[at..].trim())
}

#[test]
fn editing_a_vaults_insights_touches_nothing_outside_the_fence() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let path = env.claude_md("alpha");
    let before = read(&path);
    let added = "Lanternfish's ingest workers are written in Go.";
    let script = editor(&env, "vault.py", &format!("s = s + \"- {added}\\n\""));

    edit_with(
        &env,
        &script,
        &["--vault", &env.vaults().join("alpha").display().to_string()],
        0,
    );

    let after = read(&path);
    let block = crate::support::plain(crate::support::insights_block(&after).expect("fence"));
    assert!(
        block.contains(&format!("- {LANTERNFISH}\n- {added}\n")),
        "{block}"
    );
    let outside = |t: &str| {
        let b = crate::support::insights_block(t).unwrap_or_default();
        t.replace(b, "")
    };
    assert_eq!(
        outside(&after),
        outside(&before),
        "bytes outside the fence unchanged"
    );
    assert!(
        !env.memory().contains(added),
        "a vault fact stays in its vault"
    );
}

#[test]
fn a_paragraph_typed_directly_into_memory_md_survives_every_rewrite() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let typed = env
        .memory()
        .replace("## Goals", &format!("{NOTE}\n\n## Goals"));
    write_file(&env.memory_path(), typed.as_bytes());
    env.add_transcript(
        "beta",
        "2025-07-02-0900-more.md",
        &transcript(
            "2025-07-02",
            "09:00",
            "More",
            "remember: Goals | global | Wants to learn Zig.",
        ),
    );

    env.extract(&mock, &[], 0);
    env.extract(&mock, &["--force"], 0);

    let memory = env.memory();
    assert!(memory.contains(&format!("{NOTE}\n\n## Goals")), "{memory}");
    assert_eq!(
        section(&memory, "Goals"),
        [HERON_GOAL, "Wants to learn Zig."]
    );
}

#[test]
fn taking_over_memory_loops_own_memory_md_keeps_every_statement() {
    let env = TestEnv::with_fixtures();
    let theirs = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/memory-loop/memory.md"),
    )
    .expect("fixture");
    write_file(&env.memory_path(), theirs.as_bytes());
    let mock = Mock::start();

    let run = env.extract(&mock, &[], 0);

    let memory = env.memory();
    for line in theirs.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let statement = line.trim_start_matches("- ");
        assert!(memory.contains(statement), "lost {line:?} from\n{memory}");
    }
    let notices = run["notices"].to_string();
    assert!(
        notices.contains("took over"),
        "the run says what it adopted: {run}"
    );
    let adopted = bullets(&theirs).len();
    assert_eq!(run["edits"]["added"], adopted, "{run}");
    assert_eq!(
        read(&env.memory_path().with_file_name("memory.md.before-memloop")),
        theirs
    );
}

#[test]
fn a_mass_rewrite_by_another_program_forgets_nothing_and_doctor_says_so() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    let mock = Mock::start();
    let facts = [
        "Is a backend engineer.",
        "Lives in Porto.",
        "Prefers short answers.",
        "Runs every morning.",
        "Learns Japanese.",
        "Keeps a reading log.",
    ];
    let lines: Vec<String> = facts
        .iter()
        .map(|f| format!("remember: Identity | global | {f}"))
        .collect();
    env.add_transcript(
        "gamma",
        "2025-06-01-0900-me.md",
        &transcript("2025-06-01", "09:00", "Me", &lines.join("\n\n")),
    );
    env.extract(&mock, &[], 0);
    // What Memory Loop's nightly agent leaves: compressed prose, no header, no bullets.
    write_file(
        &env.memory_path(),
        b"# Memory\n\n## Identity\n\nBackend engineer in Porto; runs, reads, learns Japanese.\n",
    );

    let run = env.extract(&mock, &[], 0);

    let memory = env.memory();
    assert_eq!(bullets(&memory), facts, "{memory}");
    assert!(
        memory.contains("Backend engineer in Porto"),
        "its text is kept too"
    );
    assert_eq!(run["edits"]["forgotten"], 0, "{run}");
    assert!(run["notices"].to_string().contains("vanished"), "{run}");
    let doctor = env.cmd().arg("doctor").assert();
    let out = String::from_utf8_lossy(&doctor.get_output().stdout).into_owned();
    assert!(out.contains("rewr"), "{out}");
    assert!(out.contains("MEMORY_FILE_PATH_OVERRIDE"), "{out}");
}

#[test]
fn saves_landing_while_memloop_writes_are_never_lost() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    let mock = Mock::start();
    env.add_transcript(
        "gamma",
        "2025-05-01-0000-first.md",
        &transcript(
            "2025-05-01",
            "08:00",
            "First",
            "remember: Identity | global | Is a nurse.",
        ),
    );
    env.extract(&mock, &[], 0);
    for i in 0..40 {
        env.add_transcript(
            "gamma",
            &format!("2025-06-01-{i:04}-t.md"),
            &transcript(
                "2025-06-01",
                "09:00",
                "T",
                &format!("remember: Identity | global | Has hobby number {i}."),
            ),
        );
    }
    mock.set_latency(std::time::Duration::from_millis(15));
    let memory = env.memory_path();
    let mut child = env
        .process()
        .envs(
            crate::support::anthropic(&mock)
                .iter()
                .map(|(k, v)| (*k, v)),
        )
        .args(["extract", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start memloop");
    let mut saved = 0;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().expect("poll").is_none() && std::time::Instant::now() < deadline {
        // An editor's save: read, add a line, replace the file.
        let text = fs::read_to_string(&memory).unwrap_or_default();
        let tmp = memory.with_file_name(".editor-save.tmp");
        fs::write(&tmp, format!("{}\nEditor note {saved}.\n", text.trim_end())).expect("save");
        fs::rename(&tmp, &memory).expect("rename");
        saved += 1;
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("reap");
    assert!(output.status.success(), "{}", report(&output)["failures"]);
    env.extract(&mock, &[], 0);
    let after = env.memory();
    let lost: Vec<usize> = (0..saved)
        .filter(|i| !after.contains(&format!("Editor note {i}.")))
        .collect();
    assert!(saved > 5, "the test saved during the run: {saved}");
    assert!(
        lost.is_empty(),
        "{} of {saved} saves lost: {lost:?}\n{after}",
        lost.len()
    );
}

#[test]
fn an_editor_that_only_adds_a_bom_or_crlf_changes_nothing() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let before = env.memory();
    let bom = editor(&env, "bom.py", "s = '\\ufeff' + s.replace('\\n', '\\r\\n')");

    let said = edit_with(&env, &bom, &[], 0);

    assert!(said.contains("no changes"), "{said}");
    assert_eq!(env.memory(), before);
}
