//! Configuration errors are exit 2 with the file, the line and the key named, and
//! nothing is read or written.

use crate::support::mock::Mock;
use crate::support::{TestEnv, anthropic, write_file};

fn assert_names_line(stderr: &str, line: u32) {
    assert!(
        stderr.contains(&format!("line {line}")) || stderr.contains(&format!(":{line}")),
        "stderr names line {line}:\n{stderr}"
    );
}

#[test]
fn an_unknown_key_is_a_config_error_naming_file_line_and_key() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let path = env.config("settle_minutes = 10\n\n[llm]\nprovder = \"anthropic\"\n");
    let before = env.snapshot_tree();

    let output = env
        .cmd()
        .envs(anthropic(&mock))
        .arg("extract")
        .assert()
        .code(2);

    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(stderr.contains("provder"), "{stderr}");
    assert_names_line(&stderr, 4);
    assert_eq!(mock.count(), 0);
    env.snapshot_tree().assert_unchanged_since(&before);
}

#[test]
fn a_malformed_file_given_with_config_flag_is_a_config_error() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let path = env.root().join("elsewhere.toml");
    write_file(
        &path,
        b"[memory]\nmax_bytes = 600\nsettle_minutes = \"ten\n",
    );

    let output = env
        .cmd()
        .envs(anthropic(&mock))
        .arg("--config")
        .arg(&path)
        .arg("extract")
        .assert()
        .code(2);

    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert_names_line(&stderr, 3);
    assert_eq!(mock.count(), 0);
    assert!(!env.memory_path().exists());
}

#[test]
fn a_vault_that_does_not_exist_is_a_usage_error_before_anything_is_read() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let before = env.snapshot_tree();
    let missing = env.root().join("no-such-vault");

    let output = env
        .cmd()
        .envs(anthropic(&mock))
        .args(["extract", "--vault"])
        .arg(&missing)
        .assert()
        .code(2);

    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(stderr.contains(&missing.display().to_string()), "{stderr}");
    assert_eq!(mock.count(), 0);
    env.snapshot_tree().assert_unchanged_since(&before);

    let output = env
        .cmd()
        .envs(anthropic(&mock))
        .env("VAULTS_DIR", &missing)
        .arg("extract")
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(stderr.contains("vaults directory"), "{stderr}");
    assert_eq!(mock.count(), 0);
}

#[test]
fn with_no_vaults_configured_extract_says_what_to_set_and_succeeds() {
    let env = TestEnv::new();
    let output = env
        .cmd()
        .env_remove("VAULTS_DIR")
        .arg("extract")
        .assert()
        .code(0);

    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(
        stderr.contains("no vaults configured: set VAULTS_DIR"),
        "{stderr}"
    );
    assert!(!env.memory_path().exists(), "no facts, no memory file");
}

#[test]
fn doctor_explains_the_provider_choice_and_finds_the_vaults() {
    let env = TestEnv::with_fixtures();
    let output = env.cmd().arg("doctor").assert().code(0);
    let stdout = String::from_utf8_lossy(&output.get_output().stdout);
    assert!(stdout.contains("provider builtin"), "{stdout}");
    assert!(
        stdout.contains("ANTHROPIC_API_KEY"),
        "says why builtin: {stdout}"
    );
    assert!(stdout.contains("vault alpha: 2 transcripts"), "{stdout}");
    assert!(stdout.contains("vault beta: 1 transcript"), "{stdout}");

    let output = env
        .cmd()
        .env("MEMLOOP_PROVIDER", "claude-cli")
        .env("PATH", env.root())
        .arg("doctor")
        .assert()
        .code(1);
    let stdout = String::from_utf8_lossy(&output.get_output().stdout);
    assert!(
        stdout.contains("error the claude CLI was not found on PATH"),
        "{stdout}"
    );

    let output = env
        .cmd()
        .env("ANTHROPIC_API_KEY", "sk-ant-test-secret-value")
        .arg("doctor")
        .assert()
        .code(0);
    let stdout = String::from_utf8_lossy(&output.get_output().stdout);
    assert!(
        stdout.contains(
            "provider anthropic, model claude-haiku-4-5 (auto: ANTHROPIC_API_KEY is set)"
        ),
        "{stdout}"
    );
    assert!(
        !stdout.contains("sk-ant-test-secret-value"),
        "a key is never printed"
    );
}
