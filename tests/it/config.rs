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
fn with_no_vaults_configured_an_unattended_extract_says_what_to_set_and_fails() {
    let env = TestEnv::new();
    let output = env
        .cmd()
        .env_remove("VAULTS_DIR")
        .arg("extract")
        .assert()
        .code(2);

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
        .args(["doctor", "--offline"])
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

#[test]
fn without_an_anthropic_key_only_extract_stops() {
    use crate::support::report;

    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    env.config("[llm]\nprovider = \"anthropic\"\n");
    let memory = env.memory();

    let output = env.cmd().args(["memory", "show"]).assert().code(0);
    assert_eq!(String::from_utf8_lossy(&output.get_output().stdout), memory);
    let output = env
        .cmd()
        .args(["memory", "show", "--json"])
        .assert()
        .code(0);
    let show = report(output.get_output());
    assert_eq!(show["facts"].as_array().map(Vec::len), Some(6), "{show}");
    let output = env.cmd().args(["status", "--json"]).assert().code(0);
    report(output.get_output());
    env.cmd().arg("status").assert().code(0);

    let output = env.cmd().arg("doctor").assert().code(1);
    let stdout = String::from_utf8_lossy(&output.get_output().stdout);
    let errors: Vec<&str> = stdout.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{stdout}");
    assert!(
        errors[0].starts_with(
            "error provider anthropic needs ANTHROPIC_API_KEY in the environment (chosen by the config file); fix: export ANTHROPIC_API_KEY="
        ),
        "{stdout}"
    );

    let before = env.snapshot_tree();
    let output = env
        .cmd()
        .env("ANTHROPIC_BASE_URL", mock.url())
        .arg("extract")
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
    assert_eq!(mock.count(), 3, "nothing sent");
    env.snapshot_tree().assert_unchanged_since(&before);
}

#[test]
fn memory_review_true_is_accepted_and_new_facts_wait_instead_of_entering_the_files() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.config("[memory]\nreview = true\n");
    let claude_md = env.snapshot_tree().only("vaults");

    let report = env.extract(&mock, &[], 0);

    assert_eq!(report["facts"]["new"], 6, "{report}");
    assert_eq!(report["facts"]["pending"], 6, "{report}");
    assert!(
        !env.memory_path().exists(),
        "nothing is shown before review"
    );
    env.snapshot_tree()
        .only("vaults")
        .assert_unchanged_since(&claude_md);
}

#[test]
fn a_second_vault_with_the_same_name_is_refused_and_shares_nothing() {
    use crate::support::fixture::LANTERNFISH;
    use crate::support::{
        bullets, insights_block, read, read_bytes, sent_with, set_age, transcript,
    };
    use std::time::Duration;

    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let other = env.root().join("work/alpha");
    let other_claude = b"# Another alpha\n\nA second vault that is also called alpha.\n";
    write_file(&other.join("CLAUDE.md"), other_claude);
    let other_fact = "The other alpha deploys with Nomad on bare metal.";
    let other_global = "Plays the cello on weekends.";
    let chat = other.join("00_Inbox/chats/2025-06-25-1000-nomad.md");
    write_file(
        &chat,
        transcript(
            "2025-06-25",
            "10:00",
            "Nomad",
            &format!(
                "remember: Project Context | vault | {other_fact}\n\n\
                 remember: Patterns | global | {other_global}"
            ),
        )
        .as_bytes(),
    );
    set_age(&chat, Duration::from_secs(3600));
    env.config(&format!("vaults = [\"{}\"]\n", other.display()));

    let report = env.extract(&mock, &[], 1);

    let alpha = env.vaults().join("alpha");
    assert_eq!(report["vaults"], 2, "{report}");
    let failures = report["failures"].as_array().expect("failures");
    assert_eq!(failures.len(), 1, "{report}");
    assert_eq!(failures[0]["path"], other.display().to_string(), "{report}");
    let error = failures[0]["error"].as_str().expect("error");
    assert!(
        error.contains("another vault is also named alpha")
            && error.contains(&alpha.display().to_string()),
        "{error}"
    );
    assert_eq!(mock.count(), 3, "the fixtures only");
    assert_eq!(sent_with(&mock, other_fact), 0);
    assert_eq!(
        read_bytes(&other.join("CLAUDE.md")),
        other_claude,
        "the refused vault's CLAUDE.md is untouched"
    );
    let alpha_md = read(&env.claude_md("alpha"));
    assert_eq!(
        bullets(insights_block(&alpha_md).expect("block")),
        [LANTERNFISH]
    );
    assert!(!env.memory().contains(other_global));
}

#[test]
fn the_same_transcript_under_another_path_is_not_sent_again() {
    use crate::support::fixture::{ALPHA_1, DIRECT, LANTERNFISH, SEARCH_INFRA};
    use crate::support::{read_bytes, report};

    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    assert_eq!(mock.count(), 3);
    let times_seen = |env: &TestEnv| -> Vec<(String, u64)> {
        let output = env
            .cmd()
            .args(["memory", "show", "--json"])
            .assert()
            .code(0);
        let show = report(output.get_output());
        show["facts"]
            .as_array()
            .expect("facts")
            .iter()
            .map(|f| {
                (
                    f["text"].as_str().expect("text").to_owned(),
                    f["times_seen"].as_u64().expect("times_seen"),
                )
            })
            .collect()
    };
    let seen = times_seen(&env);
    assert_eq!(seen.len(), 6, "{seen:?}");
    assert!(seen.iter().all(|(_, n)| *n == 1), "{seen:?}");
    let memory = env.memory();
    let alpha_md = read_bytes(&env.claude_md("alpha"));

    for spelling in ["alpha", "./alpha/"] {
        let output = env
            .cmd()
            .current_dir(env.vaults())
            .envs(anthropic(&mock))
            .args(["extract", "--json", "--vault", spelling])
            .assert()
            .code(0);
        let report = report(output.get_output());
        assert_eq!(mock.count(), 3, "--vault {spelling}: nothing sent");
        assert_eq!(
            report["transcripts"]["unchanged"], 2,
            "{spelling}: {report}"
        );
        assert_eq!(
            report["transcripts"]["processed"], 0,
            "{spelling}: {report}"
        );
        assert_eq!(times_seen(&env), seen, "--vault {spelling}");
        assert_eq!(env.memory(), memory, "--vault {spelling}");
        assert_eq!(
            read_bytes(&env.claude_md("alpha")),
            alpha_md,
            "--vault {spelling}"
        );
    }

    let chats = env.chats_dir("alpha");
    std::fs::rename(
        chats.join(ALPHA_1),
        chats.join("2025-06-12-0914-renamed.md"),
    )
    .expect("rename");

    let report = env.extract(&mock, &[], 0);

    assert_eq!(mock.count(), 3, "a renamed transcript is not sent again");
    assert_eq!(report["transcripts"]["unchanged"], 3, "{report}");
    assert_eq!(report["transcripts"]["processed"], 0, "{report}");
    assert_eq!(times_seen(&env), seen);
    for fact in [DIRECT, LANTERNFISH, SEARCH_INFRA] {
        assert!(seen.iter().any(|(t, _)| t == fact), "{fact}");
    }
}

#[test]
fn openai_without_a_key_or_a_local_url_is_a_config_error() {
    let env = TestEnv::with_fixtures();
    let before = env.snapshot_tree();
    let output = env
        .cmd()
        .env("MEMLOOP_PROVIDER", "openai")
        .arg("extract")
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(
        stderr.contains("OPENAI_API_KEY") && stderr.contains("OPENAI_BASE_URL"),
        "{stderr}"
    );
    env.snapshot_tree().assert_unchanged_since(&before);
}

#[test]
fn a_schedule_that_is_not_cron_is_a_config_error_naming_file_line_and_key() {
    let env = TestEnv::with_fixtures();
    let path = env.config("settle_minutes = 10\n\n[schedule]\ncron = \"every night\"\n");
    let before = env.snapshot_tree();
    for command in [&["extract"][..], &["status"], &["daemon"]] {
        let output = env.cmd().args(command).assert().code(2);
        let stderr = String::from_utf8_lossy(&output.get_output().stderr);
        assert!(
            stderr.contains(&format!("{}:4:", path.display())),
            "{command:?}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("{}:4:8: [schedule] cron: ", path.display())),
            "{command:?}: {stderr}"
        );
        assert!(stderr.contains("\"every night\""), "{command:?}: {stderr}");
        assert!(stderr.contains("\"0 3 * * *\""), "{command:?}: {stderr}");
    }
    env.snapshot_tree().assert_unchanged_since(&before);
}

/// A key pasted into the wrong setting is a config error that names the setting, but the key
/// itself is not echoed, on stderr or in the JSON error (under a service, stderr goes to a
/// log; found by an adversarial pass from the binary).
#[test]
fn a_key_pasted_into_the_wrong_setting_is_not_echoed() {
    const KEY: &str = "sk-ant-api03-Qm7xT2vK9pL4sW8nR3yH6jB1cF5gD0aZeU-AbCdEfAA";
    let env = TestEnv::with_fixtures();
    env.config(&format!(
        "settle_minutes = 0\n\n[llm]\nprovider = \"{KEY}\"\n"
    ));

    let output = env
        .cmd()
        .env_remove("MEMLOOP_PROVIDER")
        .args(["extract", "--json"])
        .assert()
        .code(2);

    let out = output.get_output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stderr.contains("provider"), "{stderr}");
    assert!(!stderr.contains("Qm7xT2vK9pL4sW8n"), "{stderr}");
    assert!(!stdout.contains("Qm7xT2vK9pL4sW8n"), "{stdout}");
    assert!(stdout.contains("\"exit\": 2"), "{stdout}");
}
