//! One place decides an error's exit status, where the error is born: the same bad input
//! gives the same code from every command that meets it.

use crate::support::TestEnv;
use crate::support::mock::Mock;

#[test]
fn a_prompt_without_categories_is_exit_2_from_every_command() {
    let env = TestEnv::with_fixtures();
    env.extract(&Mock::start(), &[], 0);
    let path = env.prompt("Extract what matters.\n");
    let runs: [&[&str]; 6] = [
        &["extract"],
        &["status"],
        &["prompt", "show"],
        &["memory", "remember", "Lives in Porto."],
        &["memory", "forget", "direct answers", "--yes"],
        &["memory", "edit"],
    ];
    for args in runs {
        let out = env.cmd().env("EDITOR", "true").args(args).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        assert!(
            stderr.contains(&path.display().to_string()) && stderr.contains("no categories"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_held_lock_is_exit_75_from_every_command_that_writes() {
    let env = TestEnv::with_fixtures();
    env.extract(&Mock::start(), &[], 0);
    let _lock = env.hold_lock();
    let runs: [&[&str]; 4] = [
        &["extract"],
        &["memory", "remember", "Lives in Porto."],
        &["memory", "forget", "direct answers", "--yes"],
        &["memory", "edit"],
    ];
    for args in runs {
        let out = env.cmd().env("EDITOR", "true").args(args).assert().code(75);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        assert!(stderr.contains("holds the lock"), "{args:?}: {stderr}");
    }
}

/// `--json` is a promise to scripts: one JSON object on stdout on every exit, the error
/// object `{"error": ..., "exit": N}` when the command could not do its work.
#[test]
fn json_commands_print_an_error_object_on_every_exit() {
    let env = TestEnv::with_fixtures();
    let cases: [(&[&str], i32, &str); 5] = [
        (
            &["extract", "--json", "--no-such-flag"],
            2,
            "--no-such-flag",
        ),
        (
            &["--config", "/nonexistent/memloop.toml", "extract", "--json"],
            2,
            "memloop.toml",
        ),
        (
            &["--config", "/nonexistent/memloop.toml", "status", "--json"],
            2,
            "memloop.toml",
        ),
        (
            &[
                "--config",
                "/nonexistent/memloop.toml",
                "memory",
                "show",
                "--json",
            ],
            2,
            "memloop.toml",
        ),
        (
            &["extract", "--json", "--vault", "/nonexistent/vault"],
            2,
            "/nonexistent/vault",
        ),
    ];
    for (args, code, names) in cases {
        let out = env.cmd().args(args).assert().code(code);
        let stdout = &out.get_output().stdout;
        let doc: serde_json::Value = serde_json::from_slice(stdout).unwrap_or_else(|e| {
            panic!(
                "{args:?}: stdout is not JSON ({e}): {}",
                String::from_utf8_lossy(stdout)
            )
        });
        assert_eq!(doc["exit"], code, "{args:?}: {doc}");
        assert!(
            doc["error"].as_str().is_some_and(|e| e.contains(names)),
            "{args:?}: {doc}"
        );
    }

    // Another run holds the lock: exit 75, and still an object.
    let _lock = env.hold_lock();
    let out = env
        .cmd()
        .env("MEMLOOP_PROVIDER", "builtin")
        .args(["extract", "--json"])
        .assert()
        .code(75);
    let doc: serde_json::Value =
        serde_json::from_slice(&out.get_output().stdout).expect("an object");
    assert_eq!(doc["exit"], 75, "{doc}");
}
