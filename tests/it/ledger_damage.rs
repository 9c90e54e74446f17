//! A damaged or emptied ledger: every command stops with an error naming the file and the
//! way out (`memloop ledger rebuild`, exit 2) instead of an SQLite message or a run that
//! extracts everything again; `status` and `doctor` say the same; and the rebuild keeps
//! the damaged file, loses nothing the files still show, and brings back nothing the user
//! deleted.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::fixture::{ALPHA_1, CAFE, DIRECT, LANTERNFISH, POSTGRES, SEARCH_INFRA};
use crate::support::mock::Mock;
use crate::support::{
    BEGIN, END, TestEnv, anthropic, bullets, extracted, find_fact, insights_block, read,
    read_bytes, report, write_file,
};

/// A bullet of the user's own, typed into memory.md by hand.
const MINE: &str = "Keeps a paper notebook for daily todo lists.";

fn ledger(env: &TestEnv) -> PathBuf {
    env.state_dir().join("ledger.sqlite3")
}

/// Bytes no SQLite would take for a database.
fn garbage() -> Vec<u8> {
    (0..8192u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}

/// Damages a ledger file in place.
type Damaging = fn(&Path);

/// The ways a ledger file gets damaged, each applied to a real ledger.
fn damages() -> Vec<(&'static str, Damaging)> {
    vec![
        ("garbage bytes", |p| write_file(p, &garbage())),
        ("another program's file", |p| {
            write_file(p, b"{\"memloop\": \"not a database\"}\n");
        }),
        ("cut short", |p| {
            let bytes = read_bytes(p);
            write_file(p, &bytes[..bytes.len() / 3]);
        }),
        ("a broken page", |p| {
            let mut bytes = read_bytes(p);
            let end = bytes.len().min(6 * 4096);
            for b in &mut bytes[2 * 4096..end] {
                *b = 0x5a;
            }
            write_file(p, &bytes);
        }),
    ]
}

/// Overwrites the page that holds `table`'s rows: the rest of the ledger stays readable.
fn break_table(path: &Path, table: &str) {
    let page: i64 = {
        let conn = rusqlite::Connection::open(path).expect("open ledger");
        conn.query_row(
            "SELECT rootpage FROM sqlite_master WHERE name = ?1",
            [table],
            |r| r.get(0),
        )
        .expect("root page")
    };
    let mut bytes = read_bytes(path);
    let start = usize::try_from(page - 1).expect("page") * 4096;
    for b in &mut bytes[start..start + 4096] {
        *b = 0xa5;
    }
    write_file(path, &bytes);
}

/// Deletes a bullet from memory.md by hand, adds one of the user's own, and lets a run read
/// the edit: `DIRECT` is forgotten, `MINE` is the user's.
fn hand_edit(env: &TestEnv, mock: &Mock) {
    let memory = env.memory();
    let edited = memory.replace(&format!("- {DIRECT}\n"), &format!("- {MINE}\n"));
    assert_ne!(memory, edited, "{memory}");
    write_file(&env.memory_path(), edited.as_bytes());
    let report = env.extract(mock, &[], 0);
    assert_eq!(report["edits"]["forgotten"], 1, "{report}");
}

fn assert_points_at_rebuild(stderr: &str, ledger: &Path) {
    assert!(stderr.contains(&ledger.display().to_string()), "{stderr}");
    assert!(stderr.contains("memloop ledger rebuild"), "{stderr}");
    assert!(stderr.contains("backup"), "{stderr}");
    assert!(
        !stderr.contains("Error code"),
        "no raw SQLite message: {stderr}"
    );
}

#[test]
fn a_damaged_ledger_is_a_clear_error_naming_the_file_and_the_way_out() {
    for (what, damage) in damages() {
        let (env, mock) = extracted();
        let path = ledger(&env);
        damage(&path);
        let damaged = read_bytes(&path);
        let memory = env.memory();
        let sent = mock.count();

        for args in [
            &["extract"][..],
            &["extract", "--dry-run"],
            &["memory", "forget", "Heron", "--yes"],
            &["memory", "show", "--json"],
        ] {
            let out = env.cmd().envs(anthropic(&mock)).args(args).assert().code(2);
            let stderr = String::from_utf8_lossy(&out.get_output().stderr);
            assert!(stderr.contains("is damaged"), "{what}, {args:?}: {stderr}");
            assert_points_at_rebuild(&stderr, &path);
        }

        assert_eq!(
            read_bytes(&path),
            damaged,
            "{what}: the ledger is not written"
        );
        assert_eq!(env.memory(), memory, "{what}: memory.md untouched");
        assert_eq!(mock.count(), sent, "{what}: nothing sent");
    }
}

#[test]
fn status_and_doctor_report_a_damaged_ledger_with_the_same_advice() {
    let (env, _mock) = extracted();
    let path = ledger(&env);
    write_file(&path, &garbage());

    let out = env.cmd().args(["status"]).assert().code(2);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout);
    assert!(stdout.contains("ledger"), "{stdout}");
    assert_points_at_rebuild(&stdout, &path);
    assert!(
        stdout.contains("memory"),
        "the rest is still shown: {stdout}"
    );
    assert_points_at_rebuild(&String::from_utf8_lossy(&out.get_output().stderr), &path);

    let out = env.cmd().args(["status", "--json"]).assert().code(2);
    let json = report(out.get_output());
    assert_points_at_rebuild(json["ledger_error"].as_str().expect("ledger_error"), &path);

    let out = env
        .cmd()
        .args(["doctor", "--offline", "--json"])
        .assert()
        .code(1);
    let json = report(out.get_output());
    let check = json["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == "ledger")
        .expect("a ledger check");
    assert_eq!(check["level"], "error", "{check}");
    assert_points_at_rebuild(check["message"].as_str().expect("message"), &path);
    assert!(
        check["fix"]
            .as_str()
            .is_some_and(|f| f.contains("memloop ledger rebuild")),
        "{check}"
    );
}

#[test]
fn rebuild_keeps_the_damaged_file_and_what_the_files_show_and_brings_back_nothing_deleted() {
    let (env, mock) = extracted();
    hand_edit(&env, &mock);
    let path = ledger(&env);
    write_file(&path, &garbage());
    let sent = mock.count();

    let out = env
        .cmd()
        .args(["ledger", "rebuild", "--json"])
        .assert()
        .code(0);
    let done = report(out.get_output());

    assert_eq!(done["rebuilt"], true, "{done}");
    let copy = PathBuf::from(done["damaged_copy"].as_str().expect("damaged_copy"));
    assert_eq!(copy.parent(), Some(env.state_dir().as_path()));
    assert!(
        copy.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("ledger.sqlite3.damaged-")),
        "{}",
        copy.display()
    );
    assert_eq!(
        read_bytes(&copy),
        garbage(),
        "the damaged file is kept as it was"
    );
    assert_eq!(done["transcripts"]["marked"], 3, "{done}");
    let memory_file = done["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"] == env.memory_path().display().to_string())
        .expect("memory.md read back");
    assert_eq!(memory_file["adopted"], 4, "{done}");

    // The next run sends nothing: every transcript was taken as processed.
    let memory_before = env.memory();
    let report = env.extract(&mock, &[], 0);
    assert_eq!(mock.count(), sent, "nothing extracted again: {report}");
    let memory = env.memory();
    assert!(
        !memory.contains(DIRECT),
        "the deleted bullet stays deleted:\n{memory}"
    );
    for kept in [SEARCH_INFRA, CAFE, MINE] {
        assert!(memory.contains(kept), "{kept} kept:\n{memory}");
    }
    // The facts were right; only the months memloop put after old facts go: facts adopted
    // from the file by a rebuild are dated the day of the rebuild.
    assert_eq!(
        crate::support::plain(&memory),
        crate::support::plain(&memory_before),
        "the files were already right"
    );
    let show = env.show_json(true);
    assert_eq!(find_fact(&show, MINE)["origin"], "user", "{show}");
    let alpha = read(&env.claude_md("alpha"));
    assert_eq!(
        bullets(insights_block(&alpha).expect("alpha's block")),
        [LANTERNFISH]
    );
    assert!(read(&env.claude_md("beta")).contains(POSTGRES));

    // A second rebuild has nothing to do.
    let out = env.cmd().args(["ledger", "rebuild"]).assert().code(0);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout);
    assert!(stdout.contains("nothing to rebuild"), "{stdout}");
}

#[test]
fn rebuild_salvages_what_the_damaged_file_still_holds_forgotten_facts_included() {
    let (env, mock) = extracted();
    hand_edit(&env, &mock);
    let path = ledger(&env);
    break_table(&path, "runs");
    env.cmd().args(["extract"]).assert().code(2);

    let out = env
        .cmd()
        .args(["ledger", "rebuild", "--json"])
        .assert()
        .code(0);
    let done = report(out.get_output());

    let tables = done["salvaged"]["tables"].as_array().expect("tables");
    let table = |name: &str| tables.iter().find(|t| t["table"] == name).expect(name);
    assert_eq!(table("facts")["complete"], true, "{done}");
    assert_eq!(table("runs")["complete"], false, "{done}");
    assert_eq!(
        done["transcripts"]["known"], 3,
        "the salvaged ledger knew them: {done}"
    );
    let show = env.show_json(true);
    assert_eq!(find_fact(&show, DIRECT)["status"], "forgotten", "{show}");
    assert_eq!(find_fact(&show, MINE)["origin"], "user");
    assert_eq!(find_fact(&show, SEARCH_INFRA)["origin"], "extracted");

    // Even extracting every transcript again does not bring the deleted bullet back.
    env.extract(&mock, &["--force"], 0);
    assert!(!env.memory().contains(DIRECT), "{}", env.memory());
    assert!(env.memory().contains(MINE));
}

#[test]
fn an_emptied_ledger_never_brings_back_a_deleted_bullet() {
    let empties: [(&str, Damaging); 3] = [
        ("0 bytes", |p| write_file(p, b"")),
        ("missing", |p| fs::remove_file(p).expect("remove ledger")),
        ("a new empty database", |p| {
            fs::remove_file(p).expect("remove ledger");
            let conn = rusqlite::Connection::open(p).expect("create");
            conn.execute_batch("CREATE TABLE t (x); DROP TABLE t;")
                .expect("empty database");
        }),
    ];
    for (what, empty) in empties {
        let (env, mock) = extracted();
        hand_edit(&env, &mock);
        let path = ledger(&env);
        empty(&path);
        let emptied = fs::metadata(&path).ok().map(|m| m.len());
        let memory = env.memory();
        let sent = mock.count();

        let out = env
            .cmd()
            .envs(anthropic(&mock))
            .args(["extract"])
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        assert!(stderr.contains("is empty"), "{what}: {stderr}");
        assert!(
            stderr.contains(&env.memory_path().display().to_string()),
            "{what}: names the file that shows memloop wrote before: {stderr}"
        );
        assert_points_at_rebuild(&stderr, &path);
        assert_eq!(mock.count(), sent, "{what}: nothing extracted again");
        assert_eq!(env.memory(), memory, "{what}");
        if emptied.is_none_or(|len| len == 0) {
            assert_eq!(
                fs::metadata(&path).ok().map(|m| m.len()),
                emptied,
                "{what}: no new ledger is created"
            );
        }
        let out = env.cmd().args(["status"]).assert().code(2);
        assert_points_at_rebuild(&String::from_utf8_lossy(&out.get_output().stdout), &path);

        env.cmd().args(["ledger", "rebuild"]).assert().code(0);
        env.extract(&mock, &[], 0);
        assert_eq!(
            mock.count(),
            sent,
            "{what}: nothing extracted after the rebuild"
        );
        assert!(!env.memory().contains(DIRECT), "{what}: {}", env.memory());
        assert!(env.memory().contains(MINE), "{what}");
    }
}

#[test]
fn a_vault_fence_memloop_wrote_is_evidence_too() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.config("[memory]\npath = \"~/elsewhere/memory.md\"\n");
    env.extract(&mock, &[], 0);
    // memory.md is gone (moved away by the user); alpha's fence still shows memloop's line.
    fs::remove_file(env.home().join("elsewhere/memory.md")).expect("remove memory.md");
    fs::remove_file(ledger(&env)).expect("remove ledger");

    let out = env
        .cmd()
        .envs(anthropic(&mock))
        .args(["extract"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(stderr.contains("CLAUDE.md"), "{stderr}");
    assert_points_at_rebuild(&stderr, &ledger(&env));
}

#[test]
fn a_genuine_first_run_still_works_with_memory_loops_own_files_and_state() {
    let env = TestEnv::with_fixtures();
    // What Memory Loop leaves behind: its fence in a CLAUDE.md, its memory file, its state.
    let alpha = env.claude_md("alpha");
    let fenced = format!(
        "{}\n{BEGIN}\n## Memory Loop Insights\n\n- An insight Memory Loop wrote.\n{END}\n",
        read(&alpha)
    );
    write_file(&alpha, fenced.as_bytes());
    write_file(
        &env.memory_path(),
        b"# Memory\n\n## Identity\n\n- Works nights at a bakery.\n",
    );
    let done = env.chats_dir("alpha").join(ALPHA_1);
    let state = json!({"processedFiles": {
        done.display().to_string(): hex::encode(Sha256::digest(read_bytes(&done))),
    }});
    write_file(
        &env.config_dir().join("extraction-state.json"),
        state.to_string().as_bytes(),
    );
    let mock = Mock::start();

    let report: Value = env.extract(&mock, &[], 0);

    assert_eq!(report["transcripts"]["unchanged"], 1, "imported: {report}");
    assert_eq!(report["transcripts"]["processed"], 2, "{report}");
    assert!(env.memory().contains("Works nights at a bakery."));
}

#[test]
fn rebuild_waits_for_a_run_in_progress() {
    let (env, _mock) = extracted();
    write_file(&ledger(&env), &garbage());
    let _held = env.hold_lock();

    env.cmd().args(["ledger", "rebuild"]).assert().code(75);

    assert_eq!(read_bytes(&ledger(&env)), garbage());
}
