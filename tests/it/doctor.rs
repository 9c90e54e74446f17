//! `memloop doctor`: one line per check with its fix, `--json`, exit 1 when something will
//! fail. A healthy home passes (offline, and with the mock answering the one test request);
//! each broken home names what is wrong.

use serde_json::Value;

use crate::support::mock::{Mock, Reply};
use crate::support::{TestEnv, anthropic, openai, write_file};

fn doctor(env: &TestEnv, vars: &[(&str, String)], args: &[&str]) -> (i32, String) {
    let out = env
        .cmd()
        .envs(vars.iter().map(|(k, v)| (*k, v.as_str())))
        .arg("doctor")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn lines_with<'a>(text: &'a str, level: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.starts_with(level)).collect()
}

#[test]
fn a_healthy_home_passes_offline_and_with_the_provider_answering() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let (code, text) = doctor(&env, &anthropic(&mock), &["--offline"]);
    assert_eq!(code, 0, "{text}");
    assert!(lines_with(&text, "error").is_empty(), "{text}");
    assert!(text.contains("not asked: --offline"), "{text}");
    assert_eq!(mock.count(), 0);

    let (code, text) = doctor(&env, &anthropic(&mock), &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("answered"), "{text}");
    assert_eq!(mock.count(), 1, "one cheap request");

    let (code, json) = doctor(&env, &anthropic(&mock), &["--offline", "--json"]);
    assert_eq!(code, 0);
    let json: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["errors"], 0);
    let checks = json["checks"].as_array().unwrap();
    for topic in [
        "config", "provider", "vaults", "prompt", "memory", "service",
    ] {
        assert!(
            checks.iter().any(|c| c["check"] == topic),
            "{topic} checked: {json}"
        );
    }
}

#[test]
fn a_rejected_key_and_an_unreachable_url_are_errors() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    mock.set_default(Reply::unauthorized());
    let (code, text) = doctor(&env, &anthropic(&mock), &[]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("did not answer a test request"), "{text}");

    let (code, text) = doctor(
        &env,
        &[
            ("MEMLOOP_PROVIDER", "openai".into()),
            ("OPENAI_BASE_URL", "localhost:11434".into()),
        ],
        &[],
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("has no scheme: write http://localhost:11434"),
        "{text}"
    );

    let (code, text) = doctor(
        &env,
        &[
            ("MEMLOOP_PROVIDER", "openai".into()),
            (
                "OPENAI_BASE_URL",
                format!("{}/v1/chat/completions", mock.url()),
            ),
        ],
        &["--offline"],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("already ends in /chat/completions"), "{text}");
    let _ = openai(&mock);
}

#[test]
fn a_provider_without_its_key_is_one_error_line() {
    let env = TestEnv::with_fixtures();
    let (code, text) = doctor(
        &env,
        &[("MEMLOOP_PROVIDER", "openai".into())],
        &["--offline"],
    );
    assert_eq!(code, 1, "{text}");
    let provider: Vec<&str> = text.lines().filter(|l| l.contains("provider")).collect();
    assert_eq!(provider.len(), 1, "one line, not ok + error + ok: {text}");
    assert!(provider[0].starts_with("error"), "{text}");
}

#[test]
fn a_config_that_does_not_parse_is_a_line_and_the_rest_is_still_checked() {
    let env = TestEnv::with_fixtures();
    env.config("[schedule]\ncron = \"every night\"\n");
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.starts_with("error"), "{text}");
    assert!(text.contains("config.toml:2:"), "{text}");
    assert!(
        text.contains("vault alpha"),
        "the vaults are still checked: {text}"
    );
}

#[test]
fn vault_problems_are_named_with_their_fix() {
    let env = TestEnv::with_fixtures();
    // Chats in a directory that is not a vault.
    write_file(
        &env.vaults()
            .join("gamma/00_Inbox/chats/2025-01-01-0900-x.md"),
        b"## [09:00] User\n\nhi\n",
    );
    // Two vaults of one name.
    let other = env.root().join("elsewhere/alpha");
    write_file(&other.join("CLAUDE.md"), b"# Other\n");
    env.config(&format!("vaults = [\"{}\"]\n", other.display()));
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("two vaults are named alpha"), "{text}");
    assert!(
        text.contains("holds chats but its vault has no CLAUDE.md"),
        "{text}"
    );
    assert!(text.contains("gamma"), "{text}");
}

#[test]
fn the_lock_the_service_and_memory_loop_s_own_extraction_are_reported() {
    let env = TestEnv::with_fixtures();
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("no nightly service installed"), "{text}");
    assert!(text.contains("memloop service install"), "{text}");

    let _held = env.hold_lock();
    let (_, text) = doctor(&env, &[], &["--offline"]);
    assert!(text.contains("a memloop run is in progress"), "{text}");

    let now = chrono_like_now();
    write_file(
        &env.home().join(".config/memory-loop/extraction-state.json"),
        format!("{{\"version\":1,\"lastRunAt\":\"{now}\",\"processedTranscripts\":[]}}").as_bytes(),
    );
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 0, "a warning: {text}");
    assert!(
        text.contains("Memory Loop's own nightly extraction is still running"),
        "{text}"
    );
    assert!(text.contains("MEMORY_FILE_PATH_OVERRIDE"), "{text}");
}

#[test]
fn a_prompt_without_categories_is_an_error_naming_the_file() {
    let env = TestEnv::with_fixtures();
    let path = env.prompt("# My prompt\n\nExtract facts.\n");
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("no categories"), "{text}");
}

/// Now as RFC 3339, from the test process's clock.
fn chrono_like_now() -> String {
    let out = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}
