//! The `claude` CLI provider, against a fake `claude` script on PATH that records its
//! arguments, environment and stdin and prints the CLI's `--output-format json` result:
//! memloop runs it sealed (no tools, no saved session, its own system prompt, no setting
//! files, hooks, MCP servers, CLAUDE.md, auto-memory, thinking, side requests or retries of
//! the CLI's own) with the user's login left where it is, sends the transcript on stdin
//! (never in argv, where `ps` would show it), and writes the facts it answers. A rejected
//! login or an unknown model the CLI reports stops the run at once with exit 2; an
//! overloaded API is retried by memloop's own policy. Without a `claude` on PATH the run
//! is a configuration error naming the CLI.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::support::{TestEnv, bullets, report, transcript, write_file};

const FACT: &str = "Always formats Go code with tabs.";
/// A sentence of the transcript that must go to stdin and never to argv.
const SAID: &str = "I have written Go for six years and always format with tabs.";

/// Writes an executable `claude` into `dir` that records argv (NUL-separated), its
/// environment and stdin next to itself, counts its calls, and prints `result` as the CLI
/// would.
fn fake_claude(dir: &Path, result: &serde_json::Value) -> PathBuf {
    fake_claude_exiting(dir, result, 0)
}

/// [`fake_claude`] that exits with `code`, as the CLI does after a failed API call.
fn fake_claude_exiting(dir: &Path, result: &serde_json::Value, code: i32) -> PathBuf {
    let script = dir.join("claude");
    write_file(
        &script,
        format!(
            "#!/bin/sh\ndir=$(dirname \"$0\")\nprintf '%s\\0' \"$@\" > \"$dir/argv\"\n\
             env > \"$dir/env\"\necho call >> \"$dir/calls\"\n\
             cat > \"$dir/stdin\"\ncat <<'JSON'\n{result}\nJSON\nexit {code}\n"
        )
        .as_bytes(),
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod claude");
    }
    script
}

fn path_with(dir: &Path) -> String {
    let inherited = std::env::var("PATH").unwrap_or_default();
    format!("{}:{inherited}", dir.display())
}

#[test]
fn the_claude_cli_is_run_headless_with_the_transcript_on_stdin() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.add_transcript(
        "gamma",
        "2025-07-07-0900-go.md",
        &transcript("2025-07-07", "09:00", "Go", SAID),
    );
    let bin = env.root().join("bin");
    let answer = json!({"facts": [{"category": "Preferences", "text": FACT, "scope": "global",
                                   "evidence": "I have written Go for six years and always format with tabs"}]});
    fake_claude(
        &bin,
        &json!({
            "type": "result", "subtype": "success", "is_error": false, "duration_ms": 1200,
            "num_turns": 1, "result": answer.to_string(), "session_id": "fake",
            "total_cost_usd": 0.001,
            "usage": {"input_tokens": 1500, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 200, "output_tokens": 40},
        }),
    );

    let output = env
        .cmd()
        .env("PATH", path_with(&bin))
        .env("MEMLOOP_PROVIDER", "claude-cli")
        .args(["extract", "--json"])
        .assert()
        .code(0);

    let run = report(output.get_output());
    assert_eq!(run["provider"], "claude-cli");
    assert_eq!(run["transcripts"]["processed"], 1);
    assert_eq!(
        run["tokens"],
        json!({"input": 1700, "output": 40, "cache_read": 200})
    );
    assert_eq!(bullets(&env.memory()), [FACT]);

    let argv = recorded_argv(&bin);
    let after = |flag: &str| {
        argv.iter()
            .position(|a| a == flag)
            .and_then(|i| argv.get(i + 1))
            .map(String::as_str)
    };
    for flag in ["-p", "--no-session-persistence", "--strict-mcp-config"] {
        assert!(argv.iter().any(|a| a == flag), "{flag}: {argv:?}");
    }
    assert_eq!(after("--output-format"), Some("json"), "{argv:?}");
    assert_eq!(after("--model"), Some("claude-haiku-4-5"), "{argv:?}");
    assert_eq!(
        after("--tools"),
        Some(""),
        "no tools for untrusted text: {argv:?}"
    );
    assert!(
        after("--system-prompt").is_some_and(|s| s.contains("Output contract")),
        "memloop's prompt in place of Claude Code's: {argv:?}"
    );
    assert!(
        !argv.iter().any(|a| a == "--append-system-prompt"),
        "{argv:?}"
    );
    assert_eq!(
        after("--setting-sources"),
        Some(""),
        "no user, project or local settings (hooks, MCP servers, CLAUDE.md): {argv:?}"
    );
    assert_eq!(
        after("--mcp-config"),
        Some(r#"{"mcpServers":{}}"#),
        "{argv:?}"
    );
    let settings: serde_json::Value =
        serde_json::from_str(after("--settings").expect("--settings")).expect("settings JSON");
    assert_eq!(settings["disableAllHooks"], true, "{settings}");
    assert!(
        !argv.iter().any(|a| a.contains(SAID)),
        "the transcript is not in argv"
    );
    let stdin = fs::read_to_string(bin.join("stdin")).expect("stdin was recorded");
    assert!(stdin.contains(SAID), "{stdin}");
    assert!(stdin.contains("untrusted=\"true\""), "{stdin}");

    let vars = recorded_env(&bin);
    let var = |name: &str| {
        vars.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let sealed = [
        ("CLAUDE_CODE_MAX_RETRIES", "0"),
        ("MAX_THINKING_TOKENS", "0"),
        ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1"),
        ("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "1"),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
    ];
    for (name, want) in sealed {
        assert_eq!(var(name), Some(want), "{name}");
    }
    assert!(
        var("CLAUDE_CODE_MAX_OUTPUT_TOKENS").is_some_and(|v| v.parse::<u32>().is_ok()),
        "{vars:?}"
    );
    let home = env.home();
    assert_eq!(
        var("HOME"),
        home.to_str(),
        "the login in ~/.claude stays reachable"
    );
    assert_eq!(var("CLAUDE_CONFIG_DIR"), None, "{vars:?}");
}

/// The arguments the fake `claude` was last called with.
fn recorded_argv(bin: &Path) -> Vec<String> {
    let bytes = fs::read(bin.join("argv")).expect("the fake claude ran");
    let mut argv: Vec<String> = bytes
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    // printf ends each argument with a NUL, so the last piece is empty.
    argv.pop();
    argv
}

/// The environment the fake `claude` last ran with, as `NAME=value` lines split once.
fn recorded_env(bin: &Path) -> Vec<(String, String)> {
    fs::read_to_string(bin.join("env"))
        .expect("the fake claude recorded its environment")
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect()
}

/// How many times the fake `claude` ran.
fn calls(bin: &Path) -> usize {
    fs::read_to_string(bin.join("calls")).map_or(0, |c| c.lines().count())
}

#[test]
fn a_login_kept_in_claude_config_dir_is_left_where_it_is() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.add_transcript(
        "gamma",
        "2025-07-07-0900-go.md",
        &transcript("2025-07-07", "09:00", "Go", SAID),
    );
    let bin = env.root().join("bin");
    fake_claude(&bin, &success(&json!({"facts": []})));
    let config_dir = env.root().join("claude-config");

    env.cmd()
        .env("PATH", path_with(&bin))
        .env("MEMLOOP_PROVIDER", "claude-cli")
        .env("CLAUDE_CONFIG_DIR", &config_dir)
        .env("ANTHROPIC_API_KEY", "sk-test-passed-through")
        .args(["extract", "--json"])
        .assert()
        .code(0);

    let vars = recorded_env(&bin);
    let var = |name: &str| {
        vars.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(var("CLAUDE_CONFIG_DIR"), config_dir.to_str());
    assert_eq!(var("ANTHROPIC_API_KEY"), Some("sk-test-passed-through"));
}

/// The CLI's `--output-format json` result for a successful call answering `answer`.
fn success(answer: &serde_json::Value) -> serde_json::Value {
    json!({
        "type": "result", "subtype": "success", "is_error": false, "duration_ms": 1200,
        "num_turns": 1, "result": answer.to_string(), "session_id": "fake",
        "usage": {"input_tokens": 1500, "output_tokens": 40},
    })
}

/// What Claude Code 2.1.197 prints, and exits 1 after, when the API answered `status`
/// (its own retries turned off).
fn api_error(status: u16, message: &str) -> serde_json::Value {
    json!({
        "type": "result", "subtype": "success", "is_error": true, "api_error_status": status,
        "duration_ms": 95, "duration_api_ms": 0, "num_turns": 1, "result": message,
        "stop_reason": "stop_sequence", "session_id": "fake", "total_cost_usd": 0,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    })
}

/// An environment with three transcripts in one vault and a fake `claude` that fails
/// with `status`; returns the env and the fake's directory.
fn failing_cli(status: u16, message: &str) -> (TestEnv, PathBuf) {
    let env = TestEnv::new();
    env.create_vault("gamma");
    for hour in ["09", "10", "11"] {
        env.add_transcript(
            "gamma",
            &format!("2025-07-07-{hour}00-go.md"),
            &transcript("2025-07-07", &format!("{hour}:00"), "Go", SAID),
        );
    }
    let bin = env.root().join("bin");
    fake_claude_exiting(&bin, &api_error(status, message), 1);
    (env, bin)
}

#[test]
fn a_rejected_login_stops_the_run_at_once_with_exit_2() {
    let (env, bin) = failing_cli(401, "Invalid API key · Fix external API key");
    env.config("[llm]\nconcurrency = 1\nmax_retries = 4\n");

    let started = std::time::Instant::now();
    let output = env
        .cmd()
        .env("PATH", path_with(&bin))
        .env("MEMLOOP_PROVIDER", "claude-cli")
        .args(["extract", "--json"])
        .assert()
        .code(2);

    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(calls(&bin), 1, "not retried, and no other transcript tried");
    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(
        stderr.contains("login was rejected") && stderr.contains("/login"),
        "{stderr}"
    );
    assert_eq!(report(output.get_output())["transcripts"]["processed"], 0);
    assert!(!env.memory_path().exists(), "nothing was written");
}

#[test]
fn an_unknown_model_stops_the_run_at_once_with_exit_2() {
    let (env, bin) = failing_cli(
        404,
        "There's an issue with the selected model (claude-nonexistent-9). It may not exist or \
         you may not have access to it. Run --model to pick a different model.",
    );
    env.config("[llm]\nconcurrency = 1\nmax_retries = 4\n");

    let output = env
        .cmd()
        .env("PATH", path_with(&bin))
        .env("MEMLOOP_PROVIDER", "claude-cli")
        .env("MEMLOOP_MODEL", "claude-nonexistent-9")
        .args(["extract", "--json"])
        .assert()
        .code(2);

    assert_eq!(calls(&bin), 1, "one 404 is enough to know");
    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(stderr.contains("claude-nonexistent-9"), "{stderr}");
    assert_eq!(report(output.get_output())["transcripts"]["processed"], 0);
}

#[test]
fn an_overloaded_api_is_retried_by_memloop_s_policy_not_the_cli_s() {
    let (env, bin) = failing_cli(
        529,
        "API Error: 529 Overloaded. This is a server-side issue, usually temporary",
    );
    env.config("[llm]\nconcurrency = 1\nmax_retries = 2\n");

    let output = env
        .cmd()
        .env("PATH", path_with(&bin))
        .env("MEMLOOP_PROVIDER", "claude-cli")
        .args(["extract", "--json"])
        .assert()
        .code(1);

    assert_eq!(
        calls(&bin),
        9,
        "three transcripts, each tried once and retried twice"
    );
    let run = report(output.get_output());
    assert_eq!(run["transcripts"]["failed"], 3, "{run}");
    let vars = recorded_env(&bin);
    assert!(
        vars.iter()
            .any(|(n, v)| n == "CLAUDE_CODE_MAX_RETRIES" && v == "0"),
        "{vars:?}"
    );
}

#[test]
fn without_claude_on_path_the_run_is_a_configuration_error() {
    let env = TestEnv::with_fixtures();
    let empty = env.root().join("empty-bin");
    fs::create_dir_all(&empty).expect("create empty bin dir");

    let output = env
        .cmd()
        .env("PATH", &empty)
        .env("MEMLOOP_PROVIDER", "claude-cli")
        .arg("extract")
        .assert()
        .code(2);

    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(stderr.contains("claude CLI"), "{stderr}");
    assert!(!env.memory_path().exists(), "nothing was written");
}

#[cfg(target_os = "linux")]
#[test]
fn doctor_warns_when_concurrent_clis_would_not_fit_in_memory() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    let bin = env.root().join("bin");
    fake_claude(&bin, &success(&json!({"facts": []})));
    // A million CLIs at a few hundred MB each fit on no machine; one fits on any.
    let doctor = |provider: &str, concurrency: u32| {
        env.config(&format!("[llm]\nconcurrency = {concurrency}\n"));
        let output = env
            .cmd()
            .env("PATH", path_with(&bin))
            .env("MEMLOOP_PROVIDER", provider)
            .env("ANTHROPIC_API_KEY", "sk-test")
            .args(["doctor", "--offline"])
            .assert()
            .get_output()
            .clone();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };

    let crowded = doctor("claude-cli", 1_000_000);
    let warning = crowded
        .lines()
        .find(|l| l.contains("claude CLIs at once"))
        .unwrap_or_else(|| panic!("no memory warning: {crowded}"));
    assert!(warning.starts_with("warn"), "{warning}");
    assert!(
        warning.contains("MB this machine has available"),
        "{warning}"
    );

    let alone = doctor("claude-cli", 1);
    assert!(!alone.contains("claude CLIs at once"), "{alone}");
    let api = doctor("anthropic", 1_000_000);
    assert!(
        !api.contains("claude CLIs at once"),
        "only the CLI provider starts processes: {api}"
    );
}
