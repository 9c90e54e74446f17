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
