//! Inputs the machine refuses: files and directories memloop may not read, a symlink loop,
//! a read-only `~/.claude/rules`, a full disk under memory.md. Each is reported with its
//! path and reason, the rest of the run goes on, and nothing is lost: what could not be
//! written is written by the next run, without asking the LLM again.
//!
//! Permissions mean nothing to root, and these tests often run as root (CI containers):
//! there the binary runs in a user namespace as an ordinary user (`unshare --map-user`),
//! owning the sandbox but without root's power to read what it may not. Mounts (a
//! read-only bind, a tiny tmpfs) are made in a user and mount namespace of their own. A
//! machine that allows neither skips the test and says so.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::fixture::{ALPHA_1, GLOBAL, LANTERNFISH};
use crate::support::mock::Mock;
use crate::support::{TestEnv, anthropic, bullets, insights_block, read};

fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// Whether `unshare` can run a command with these arguments here.
fn unshare_works(args: &[&str]) -> bool {
    Command::new("unshare")
        .args(args)
        .args(["sh", "-c", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

const AS_USER: [&str; 3] = ["--user", "--map-user=1000", "--map-group=1000"];
const WITH_MOUNTS: [&str; 3] = ["--user", "--map-root-user", "--mount"];

/// `memloop ARGS` in the sandbox against the mock, as an ordinary user.
fn run_as_user(env: &TestEnv, mock: &Mock, args: &[&str]) -> Output {
    let base = env.process();
    let mut cmd = if is_root() {
        let mut cmd = Command::new("unshare");
        cmd.args(AS_USER).arg("--").arg(base.get_program());
        cmd
    } else {
        Command::new(base.get_program())
    };
    cmd.args(args)
        .env_clear()
        .current_dir(env.root())
        .envs(base.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .envs(anthropic(mock))
        .output()
        .expect("run memloop")
}

/// `memloop ARGS` after `setup` (a shell line that may use "$RULES") ran in a mount
/// namespace of its own.
fn run_with_mount(env: &TestEnv, mock: &Mock, setup: &str, args: &[&str]) -> Output {
    let base = env.process();
    let rules = env.memory_path().parent().expect("rules dir").to_path_buf();
    let mut cmd = Command::new("unshare");
    cmd.args(WITH_MOUNTS)
        .args(["sh", "-c"])
        .arg(format!("{setup} && exec \"$@\""))
        .arg("sh")
        .arg(base.get_program())
        .args(args)
        .env_clear()
        .current_dir(env.root())
        .envs(base.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .env("RULES", &rules)
        .envs(anthropic(mock));
    cmd.output().expect("run memloop in a namespace")
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not a report ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn failed_paths(report: &Value, key: &str) -> Vec<String> {
    report[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f["path"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn unreadable_files_directories_and_vaults_are_reported_once_and_read_once_allowed() {
    if is_root() && !unshare_works(&AS_USER) {
        eprintln!("skipped: running as root and no user namespace to drop it in");
        return;
    }
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let file = env.chats_dir("alpha").join(ALPHA_1);
    let dir = env.chats_dir("beta");
    let vault = env.create_vault("gamma");
    for (path, mode) in [(&file, 0o000), (&dir, 0o000), (&vault, 0o000)] {
        chmod(path, mode);
    }

    let first = run_as_user(&env, &mock, &["extract", "--json"]);

    // Put things back whatever happens, so the sandbox can be removed.
    let restore = || {
        chmod(&file, 0o644);
        chmod(&dir, 0o755);
        chmod(&vault, 0o755);
    };
    let report = json(&first);
    assert_eq!(first.status.code(), Some(1), "{report}");
    let failed = failed_paths(&report, "failures");
    for path in [&file, &dir, &vault] {
        assert!(
            failed.iter().any(|f| Path::new(f).starts_with(path)),
            "{} is reported: {report}",
            path.display()
        );
    }
    assert!(
        report["failures"].to_string().contains("ermission denied"),
        "the reason is given: {report}"
    );
    assert_eq!(mock.count(), 1, "alpha's other transcript went on");

    // Unchanged: the next run is a success that lists them as still failing.
    let second = run_as_user(&env, &mock, &["extract", "--json"]);
    let report = json(&second);
    assert_eq!(second.status.code(), Some(0), "{report}");
    assert_eq!(failed_paths(&report, "still_failing").len(), 3, "{report}");
    assert_eq!(mock.count(), 1);

    // Allowed again: read at once, not skipped.
    restore();
    let third = run_as_user(&env, &mock, &["extract", "--json"]);
    let report = json(&third);
    assert_eq!(third.status.code(), Some(0), "{report}");
    assert_eq!(report["transcripts"]["processed"], 2, "{report}");
    assert_eq!(mock.count(), 3);
    let mut memory = bullets(&env.memory());
    memory.sort();
    let mut expected: Vec<&str> = GLOBAL.iter().map(|(_, f)| *f).collect();
    expected.sort_unstable();
    assert_eq!(memory, expected, "every fact arrived in the end");
}

#[test]
fn a_symlink_loop_is_reported_once_and_the_rest_goes_on() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let chats = env.chats_dir("alpha");
    symlink("loop-b.md", chats.join("loop-a.md")).expect("link");
    symlink("loop-a.md", chats.join("loop-b.md")).expect("link");
    symlink("cycle", env.vaults().join("cycle")).expect("link");

    let report = env.extract(&mock, &[], 1);

    let failed = failed_paths(&report, "failures");
    assert!(
        failed.iter().any(|f| f.ends_with("loop-a.md"))
            && failed.iter().any(|f| f.ends_with("loop-b.md")),
        "{report}"
    );
    assert_eq!(report["transcripts"]["processed"], 3, "{report}");

    let report = env.extract(&mock, &[], 0);
    assert_eq!(report["transcripts"]["still_failing"], 2, "{report}");
}

/// `~/.claude/rules` made unwritable by `setup` (run in a mount namespace) for one run:
/// memory.md fails alone, named, the vaults are written, and the next run, with the
/// directory back, writes memory.md from the ledger without asking the model again.
fn memory_md_unwritable_then_caught_up(setup: &str) {
    if !unshare_works(&WITH_MOUNTS) {
        eprintln!("skipped: no user and mount namespace here");
        return;
    }
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    std::fs::create_dir_all(env.memory_path().parent().expect("rules")).expect("mkdir rules");

    let output = run_with_mount(&env, &mock, setup, &["extract", "--json"]);

    let report = json(&output);
    assert_eq!(output.status.code(), Some(1), "{report}");
    let memory = env.memory_path().display().to_string();
    assert!(
        report["failures"].to_string().contains(&memory),
        "memory.md is named: {report}"
    );
    assert!(!env.memory_path().exists());
    assert!(
        insights_block(&read(&env.claude_md("alpha")))
            .is_some_and(|b| bullets(b).iter().any(|x| x == LANTERNFISH)),
        "the vaults were written"
    );
    let asked = mock.count();

    let report = env.extract(&mock, &[], 0);
    assert_eq!(
        mock.count(),
        asked,
        "the facts were kept: nothing is asked again"
    );
    assert_eq!(report["transcripts"]["unchanged"], 3, "{report}");
    assert_eq!(
        bullets(&env.memory()).len(),
        GLOBAL.len(),
        "memory.md caught up"
    );
}

#[test]
fn a_read_only_rules_directory_fails_memory_md_alone_and_the_next_run_catches_up() {
    memory_md_unwritable_then_caught_up(
        r#"mount --bind "$RULES" "$RULES" && mount -o remount,bind,ro "$RULES""#,
    );
}

#[test]
fn a_full_disk_under_memory_md_fails_it_alone_and_the_next_run_catches_up() {
    // A tmpfs of 64 KiB, filled up before memloop starts.
    memory_md_unwritable_then_caught_up(
        r#"mount -t tmpfs -o size=64k tmpfs "$RULES" && (head -c 1048576 /dev/zero > "$RULES/filler" 2>/dev/null; true)"#,
    );
}

#[test]
fn an_unreadable_claude_code_project_is_named_and_the_others_are_read() {
    if is_root() && !unshare_works(&AS_USER) {
        eprintln!("skipped: running as root and no user namespace to drop it in");
        return;
    }
    let env = TestEnv::new();
    let session = |cwd: &str, text: &str| {
        format!(
            "{}\n",
            serde_json::json!({"type": "user", "uuid": format!("{cwd}-1"), "parentUuid": null,
                "cwd": cwd, "sessionId": "s", "timestamp": "2026-11-20T10:00:00Z",
                "message": {"role": "user", "content": text}})
        )
    };
    let open = env.add_session(
        Path::new("/home/u/open"),
        "11111111-0000-4000-8000-000000000001",
        &session(
            "/home/u/open",
            "remember: Identity | global | Writes Go at work.",
        ),
    );
    let shut = env.add_session(
        Path::new("/home/u/shut"),
        "22222222-0000-4000-8000-000000000002",
        &session("/home/u/shut", "remember: Identity | global | Hidden away."),
    );
    env.config("[sources.claude_code]\nenabled = true\n");
    let shut_dir = shut.parent().unwrap().to_path_buf();
    chmod(&shut_dir, 0o000);
    let mock = Mock::start();

    let out = run_as_user(&env, &mock, &["extract", "--json"]);
    chmod(&shut_dir, 0o755);

    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("report");
    let failure = report["failures"]
        .as_array()
        .and_then(|f| {
            f.iter()
                .find(|f| f["path"] == shut_dir.display().to_string())
        })
        .unwrap_or_else(|| panic!("the unreadable project is named: {report}"));
    assert!(
        failure["error"]
            .as_str()
            .unwrap()
            .contains("could not list"),
        "{failure}"
    );
    assert_eq!(report["transcripts"]["processed"], 1, "{report}");
    assert!(open.exists());
    assert_eq!(mock.count(), 1);
}

/// A `CLAUDE.md` memloop may not use as it is fails its first run, and then, like a
/// malformed fence, waits quietly while it stays as it is (exit 0, nothing on `-q`), until
/// it is mended. `break_it` makes alpha's `CLAUDE.md` unusable, `mend` puts it right.
fn an_unusable_claude_md_fails_once(
    run: &dyn Fn(&TestEnv, &Mock, &[&str]) -> Output,
    break_it: &dyn Fn(&TestEnv),
    mend: &dyn Fn(&TestEnv),
) {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    break_it(&env);
    let path = env.claude_md("alpha").display().to_string();

    let first = run(&env, &mock, &["extract", "--json"]);
    let report = json(&first);
    assert_eq!(first.status.code(), Some(1), "{report}");
    assert_eq!(
        failed_paths(&report, "failures"),
        std::slice::from_ref(&path),
        "{report}"
    );

    let second = run(&env, &mock, &["extract", "--json"]);
    let report = json(&second);
    assert_eq!(second.status.code(), Some(0), "{report}");
    assert_eq!(
        failed_paths(&report, "still_failing"),
        std::slice::from_ref(&path),
        "{report}"
    );
    let quiet = run(&env, &mock, &["extract", "-q"]);
    assert_eq!(quiet.status.code(), Some(0));
    assert!(
        quiet.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stdout)
    );

    mend(&env);
    let mended = run(&env, &mock, &["extract", "--json"]);
    let report = json(&mended);
    assert_eq!(mended.status.code(), Some(0), "{report}");
    assert!(
        failed_paths(&report, "still_failing").is_empty(),
        "{report}"
    );
    assert!(
        insights_block(&read(&env.claude_md("alpha")))
            .is_some_and(|b| bullets(b).iter().any(|x| x == LANTERNFISH)),
        "the insights that waited are written"
    );
}

#[test]
fn a_claude_md_linked_out_of_its_vault_fails_once_then_waits_quietly_until_it_is_mended() {
    let outside = |env: &TestEnv| env.root().join("dotfiles-CLAUDE.md");
    an_unusable_claude_md_fails_once(
        &|env, mock, args| {
            env.process()
                .args(args)
                .envs(anthropic(mock))
                .output()
                .expect("run memloop")
        },
        &|env| {
            std::fs::write(outside(env), "# mine\n").expect("write");
            let link = env.claude_md("alpha");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(outside(env), &link).expect("symlink");
        },
        &|env| {
            let link = env.claude_md("alpha");
            std::fs::remove_file(&link).expect("unlink");
            std::fs::copy(outside(env), &link).expect("copy");
        },
    );
}

#[test]
fn an_unreadable_claude_md_fails_once_then_waits_quietly_until_it_is_mended() {
    if is_root() && !unshare_works(&AS_USER) {
        eprintln!("skipped: running as root and no user namespace to drop it in");
        return;
    }
    an_unusable_claude_md_fails_once(
        &|env, mock, args| run_as_user(env, mock, args),
        &|env| {
            std::fs::write(env.claude_md("alpha"), "# mine\n").expect("write");
            chmod(&env.claude_md("alpha"), 0o000);
        },
        &|env| chmod(&env.claude_md("alpha"), 0o644),
    );
}

/// A `CLAUDE.md` its owner made read-only is not replaced by a rename, which the
/// directory's permission would allow (and root's would whatever the file's): it fails
/// once, named, waits quietly while it stays read-only, and is written once it is made
/// writable again.
#[test]
fn a_read_only_claude_md_is_left_as_it_is_until_it_is_made_writable() {
    let kept = b"# mine\n\nRead-only on purpose.\n";
    an_unusable_claude_md_fails_once(
        &|env, mock, args| {
            let out = env
                .process()
                .args(args)
                .envs(anthropic(mock))
                .output()
                .expect("run memloop");
            if std::fs::metadata(env.claude_md("alpha")).is_ok_and(|m| m.permissions().readonly()) {
                assert_eq!(std::fs::read(env.claude_md("alpha")).unwrap(), kept);
            }
            out
        },
        &|env| {
            std::fs::write(env.claude_md("alpha"), kept).expect("write");
            chmod(&env.claude_md("alpha"), 0o444);
        },
        &|env| chmod(&env.claude_md("alpha"), 0o644),
    );
}

/// memory.md made read-only is left byte for byte, and the run names it and says why.
#[test]
fn a_read_only_memory_md_is_left_as_it_is_and_named() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let path = env.memory_path();
    std::fs::create_dir_all(path.parent().expect("rules")).expect("mkdir rules");
    let mine = "# Memory\n\nMine, read-only on purpose.\n\n## Identity\n\n- Has two cats.\n";
    std::fs::write(&path, mine).expect("write");
    chmod(&path, 0o444);

    let report = env.extract(&mock, &[], 1);

    assert_eq!(read(&path), mine);
    let failure = report["failures"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["path"] == path.display().to_string()))
        .unwrap_or_else(|| panic!("memory.md is named: {report}"));
    assert!(
        failure["error"].as_str().unwrap().contains("read-only"),
        "{failure}"
    );
    chmod(&path, 0o644);
    env.extract(&mock, &[], 0);
    assert_eq!(bullets(&env.memory()).len(), GLOBAL.len() + 1, "caught up");
}
