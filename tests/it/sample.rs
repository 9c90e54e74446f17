//! The first run on a fresh machine, and `extract` unattended: `--sample` shows real facts
//! from the sample vault the binary carries without touching anything of the user's; with
//! no vault and no terminal, `extract` fails visibly (exit 2) instead of doing nothing every
//! night; `-q` is silent when all went well and still prints warnings.

use crate::support::mock::Mock;
use crate::support::{TestEnv, anthropic, set_age, transcript};

#[test]
fn the_sample_run_extracts_real_facts_offline_and_touches_nothing_of_yours() {
    let env = TestEnv::with_fixtures();
    let before = env.snapshot_tree();
    let out = env.cmd().args(["extract", "--sample"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("extracted with builtin"), "{stdout}");
    assert!(
        stdout.contains("- Is a marine biologist at a coastal research station."),
        "{stdout}"
    );
    assert!(
        stdout.contains("- Prefers short answers with a code example first."),
        "{stdout}"
    );
    assert!(
        stdout.contains("- Decided to use SQLite for the observations."),
        "a vault fact: {stdout}"
    );
    assert!(
        stdout.contains("VAULTS_DIR=~/vaults memloop extract"),
        "{stdout}"
    );
    assert!(stdout.contains("--vault"), "{stdout}");
    assert!(
        stderr.contains("ANTHROPIC_API_KEY"),
        "the offline warning: {stderr}"
    );
    env.snapshot_tree().assert_unchanged_since(&before);
    assert!(!env.memory_path().exists());
    assert!(!env.state_dir().exists());
}

#[test]
fn the_sample_uses_the_provider_the_environment_picks() {
    let env = TestEnv::new();
    let mock = Mock::start();
    let out = env
        .cmd()
        .envs(anthropic(&mock))
        .args(["extract", "--sample"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(mock.count(), 3, "one request per sample transcript");
    assert!(String::from_utf8_lossy(&out.stdout).contains("extracted with anthropic"));
}

#[test]
fn unattended_extract_with_no_vault_is_a_config_error_and_writes_nothing() {
    let env = TestEnv::new();
    let before = env.snapshot_tree();
    let out = env
        .cmd()
        .env_remove("VAULTS_DIR")
        .arg("extract")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no vaults configured: set VAULTS_DIR"),
        "{stderr}"
    );
    assert!(stderr.contains("--vault DIR"), "{stderr}");

    // A vaults directory with no vault in it is the same broken schedule.
    let out = env.cmd().arg("extract").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("no vault found in {}", env.vaults().display())),
        "{stderr}"
    );
    env.snapshot_tree().assert_unchanged_since(&before);
}

#[test]
fn quiet_prints_nothing_when_all_went_well_and_warnings_when_not() {
    let env = TestEnv::new();
    env.create_vault("eta");
    let path = env.add_transcript(
        "eta",
        "2025-09-01-0900-q.md",
        &transcript(
            "2025-09-01",
            "09:00",
            "Q",
            "remember: Patterns | global | Hikes every weekend.",
        ),
    );
    set_age(&path, std::time::Duration::from_secs(3600));
    let mock = Mock::start();
    let out = env
        .cmd()
        .envs(anthropic(&mock))
        .args(["extract", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "",
        "nothing on stdout"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "nothing on stderr"
    );

    // The offline fallback's warning is still said with -q.
    let out = env
        .cmd()
        .args(["extract", "-q", "--force"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning:") && stderr.contains("ANTHROPIC_API_KEY"),
        "{stderr}"
    );
}
