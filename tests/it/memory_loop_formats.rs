//! What Memory Loop really writes, read as Memory Loop means it (its sources at
//! rjroy/memory-loop e70a27b, some of them run under Bun): tool calls whose commands span
//! lines, titles that are not valid YAML, vault settings and old state it reads as empty,
//! an empty `inboxPath`, the prompt its settings save, and the blank or NUL-holding
//! transcripts it leaves behind.

use std::fs;

use serde_json::{Value, json};

use crate::support::mock::Mock;
use crate::support::{
    TestEnv, anthropic, bullets, read, transcript, transcript_sent_with, write_file,
};

/// Written by Memory Loop's own transcript manager (see fixtures/memory-loop/SOURCE.md).
const APP_TOOLS: &str = include_str!("../../fixtures/memory-loop/transcript-tools.md");

/// `memloop extract --json ARGS` against the mock; the report and stderr.
fn extract(env: &TestEnv, mock: &Mock, args: &[&str], code: i32) -> (Value, String) {
    let out = env
        .cmd()
        .envs(anthropic(mock))
        .args(["extract", "--json"])
        .args(args)
        .assert()
        .code(code);
    let output = out.get_output();
    (
        crate::support::report(output),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn tool_calls_memory_loop_writes_never_reach_the_model_as_anyones_words() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.add_transcript("gamma", "2026-03-21-2140-550e8.md", APP_TOOLS);
    let mock = Mock::start();

    extract(&env, &mock, &[], 0);

    assert_eq!(mock.count(), 1);
    // The heredoc's lines and the `\` continuation sit in the tool calls, without `>`.
    for inside_a_tool_call in [
        "I prefer small commits",
        "EOF",
        "'SELECT 1'",
        "Found 3 files",
    ] {
        assert_eq!(
            transcript_sent_with(&mock, inside_a_tool_call),
            0,
            "{inside_a_tool_call:?} was sent:\n{}",
            mock.requests()[0].user_text()
        );
    }
    for said in [
        "I always write commit messages in the imperative mood.",
        "Committed. The message uses the imperative mood as you prefer.",
        // The assistant's own words, though they begin like a tool call.
        "> **Tool:** is how the transcript marks a tool call, and this line is my own prose.",
    ] {
        assert_eq!(
            transcript_sent_with(&mock, said),
            1,
            "{said:?} was not sent"
        );
    }
}

#[test]
fn a_title_memory_loop_wrote_with_a_backslash_keeps_the_chats_date() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    // The frontmatter as Memory Loop writes it: only `"` escaped in the title.
    let text = "---\ndate: 2026-03-21\ntime: \"21:40\"\nsession_id: 550e8400\n\
                title: \"Match C:\\Users\\me with \\d+\"\n---\n\n# Discussion - 2026-03-21 21:40\n\n\
                ## [21:40] User\n\nremember: Preferences | global | Writes regexes with named groups.\n";
    let path = env.add_transcript("gamma", "2026-03-21-2140-550e8.md", text);
    let mock = Mock::start();

    let out = env
        .cmd()
        .envs(anthropic(&mock))
        .args(["-v", "extract", "--json"])
        .assert()
        .code(0);

    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.contains(&path.display().to_string())
                && l.contains("malformed frontmatter at line 5")
                && l.contains("read line by line")),
        "-v says how the frontmatter was read, naming the file:\n{stderr}"
    );
    let show = env.show_json(false);
    let fact = crate::support::find_fact(&show, "Writes regexes with named groups.");
    assert_eq!(fact["first_seen"], "2026-03-21", "{fact}");
}

#[test]
fn a_date_lost_with_the_frontmatter_is_said_without_verbose() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    let text = "---\ntitle: \"C:\\Temp\"\nsession_id: [x\n---\n\n## [21:40] User\n\nremember: Goals | global | Ships Tidepool in May.\n";
    let path = env.add_transcript("gamma", "lost-date.md", text);
    let mock = Mock::start();

    let (_, stderr) = extract(&env, &mock, &[], 0);

    assert!(
        stderr
            .lines()
            .any(|l| l.contains(&path.display().to_string())
                && l.contains("it has no date either")
                && l.contains("from the file's modification time")),
        "{stderr}"
    );
}

#[test]
fn vault_settings_memory_loop_reads_as_empty_mean_the_defaults_with_one_warning() {
    for body in [
        "{\"inboxPath\": \"Journal\",}",
        "[\"Journal\"]",
        "\"Journal\"",
        "null",
        "",
    ] {
        let env = TestEnv::new();
        let vault = env.create_vault("gamma");
        let settings = vault.join(".memory-loop.json");
        write_file(&settings, body.as_bytes());
        // Where Memory Loop writes with its defaults.
        env.add_transcript(
            "gamma",
            "2025-06-28-0700-a.md",
            &transcript(
                "2025-06-28",
                "07:00",
                "A",
                "remember: Goals | global | Runs a marathon in May.",
            ),
        );
        let mock = Mock::start();

        let (report, stderr) = extract(&env, &mock, &[], 0);

        assert_eq!(report["transcripts"]["processed"], 1, "{body:?}: {report}");
        assert_eq!(bullets(&env.memory()), ["Runs a marathon in May."]);
        let named = stderr.matches(&settings.display().to_string()).count();
        assert_eq!(named, 1, "{body:?}: one warning naming the file:\n{stderr}");
        assert!(
            stderr.contains("Memory Loop ignores it and uses its defaults"),
            "{stderr}"
        );
        assert!(
            report["failures"].as_array().is_some_and(Vec::is_empty),
            "{report}"
        );
    }
}

#[test]
fn an_empty_inbox_path_reads_the_chats_under_the_content_root() {
    let env = TestEnv::new();
    let vault = env.create_vault("gamma");
    write_file(
        &vault.join(".memory-loop.json"),
        br#"{"contentRoot": "notes", "inboxPath": ""}"#,
    );
    let chats = vault.join("notes/chats");
    fs::create_dir_all(&chats).unwrap();
    let there = "remember: Goals | global | Learns Portuguese this year.";
    env.add_transcript(
        "gamma",
        "2025-06-28-0700-a.md",
        &transcript("2025-06-28", "07:00", "A", there),
    );
    assert!(
        chats.join("2025-06-28-0700-a.md").exists(),
        "the helper joins as the app does"
    );
    // Not where memloop looked before.
    let elsewhere = vault.join("notes/00_Inbox/chats");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::write(
        elsewhere.join("b.md"),
        transcript(
            "2025-06-28",
            "08:00",
            "B",
            "remember: Goals | global | Not read.",
        ),
    )
    .unwrap();
    crate::support::set_age(
        &elsewhere.join("b.md"),
        std::time::Duration::from_secs(3600),
    );
    let mock = Mock::start();

    let (report, _) = extract(&env, &mock, &[], 0);

    assert_eq!(report["transcripts"]["found"], 1, "{report}");
    assert_eq!(bullets(&env.memory()), ["Learns Portuguese this year."]);
}

#[test]
fn an_old_state_memory_loop_reads_as_empty_is_a_warning_and_the_run_goes_on() {
    for body in ["", "{\"lastRunAt\": ", "null"] {
        let env = TestEnv::new();
        env.create_vault("gamma");
        env.add_transcript(
            "gamma",
            "2025-06-28-0700-a.md",
            &transcript(
                "2025-06-28",
                "07:00",
                "A",
                "remember: Goals | global | Runs a marathon in May.",
            ),
        );
        let state = env.config_dir().join("extraction-state.json");
        write_file(&state, body.as_bytes());
        let mock = Mock::start();

        let (report, stderr) = extract(&env, &mock, &[], 0);

        assert_eq!(report["transcripts"]["processed"], 1, "{body:?}: {report}");
        assert!(
            stderr
                .lines()
                .any(|l| l.contains(&state.display().to_string())
                    && l.contains("Memory Loop reads it as an empty state")),
            "{body:?}:\n{stderr}"
        );
    }
}

#[test]
fn old_records_of_one_relative_path_in_two_vaults_both_count() {
    let env = TestEnv::new();
    let name = "2026-03-21-2140-abcde.md";
    let mut records = Vec::new();
    for vault in ["work", "home"] {
        env.create_vault(vault);
        let text = transcript(
            "2026-03-21",
            "21:40",
            vault,
            &format!("remember: Goals | global | Plans {vault}."),
        );
        env.add_transcript(vault, name, &text);
        records.push(json!({
            "path": format!("00_Inbox/chats/{name}"), "vaultId": vault,
            "checksum": hex::encode(<sha2::Sha256 as sha2::Digest>::digest(text.as_bytes())),
            "processedAt": "2026-03-22T03:00:04.101Z",
        }));
    }
    let state = json!({"lastRunAt": "2026-03-22T03:00:04.512Z", "processedTranscripts": records});
    write_file(
        &env.config_dir().join("extraction-state.json"),
        state.to_string().as_bytes(),
    );
    let mock = Mock::start();

    let (report, stderr) = extract(&env, &mock, &[], 0);

    assert!(stderr.contains("imported 2"), "{stderr}");
    assert_eq!(mock.count(), 0, "Memory Loop extracted both");
    assert_eq!(report["transcripts"]["unchanged"], 2, "{report}");
}

const APP_PROMPT: &str = "# Durable Facts\n\n## Categories\n\n### Health\nSleep and exercise.\n\n### Work\nRole and team.\n";

#[test]
fn the_prompt_memory_loops_settings_saved_is_used_and_named() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    let app = env.config_dir().join("durable-facts.md");
    write_file(&app, APP_PROMPT.as_bytes());
    env.add_transcript(
        "gamma",
        "2025-06-28-0700-a.md",
        &transcript(
            "2025-06-28",
            "07:00",
            "A",
            "remember: Health | global | Sleeps eight hours.",
        ),
    );
    let mock = Mock::start();

    let (report, _) = extract(&env, &mock, &[], 0);

    assert_eq!(
        report["prompt"],
        json!({"path": app.display().to_string(), "custom": true, "source": "memory-loop"})
    );
    assert!(
        mock.requests()[0]
            .system_prompt()
            .contains("# Durable Facts")
    );
    assert_eq!(crate::support::sections(&env.memory())[0].0, "Health");

    let out = env.cmd().args(["prompt", "path"]).assert().code(0);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        format!("{}\n", app.display())
    );
    let out = env.cmd().args(["prompt", "show"]).assert().code(0);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        APP_PROMPT
    );
    let said = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        said.contains(&format!("Memory Loop's prompt {} is in use", app.display())),
        "{said}"
    );
    let out = env.cmd().args(["status", "--json"]).assert().code(0);
    let status: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(status["prompt"]["source"], "memory-loop", "{status}");
    assert_eq!(status["prompt"]["path"], app.display().to_string());
    let out = env.cmd().arg("status").assert().code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains(&format!("Memory Loop's {}", app.display())),
        "{text}"
    );
}

#[test]
fn the_override_wins_and_reset_leaves_memory_loops_prompt_alone_saying_so() {
    let env = TestEnv::new();
    let app = env.config_dir().join("durable-facts.md");
    write_file(&app, APP_PROMPT.as_bytes());
    let own = env.prompt("## Categories\n\n### Identity\nWho.\n");

    let out = env.cmd().args(["prompt", "path"]).assert().code(0);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        format!("{}\n", own.display())
    );

    let out = env
        .cmd()
        .args(["prompt", "reset", "--yes"])
        .assert()
        .code(0);
    let said = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(!own.exists());
    assert_eq!(
        read(&app),
        APP_PROMPT,
        "Memory Loop's file is Memory Loop's"
    );
    assert!(
        said.contains(&format!("Memory Loop's prompt {} is in use", app.display()))
            && said.contains("memloop leaves Memory Loop's file alone"),
        "{said}"
    );
    let out = env
        .cmd()
        .args(["prompt", "reset", "--yes"])
        .assert()
        .code(0);
    let said = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        said.contains("memloop leaves Memory Loop's file alone"),
        "{said}"
    );
    assert!(app.exists());
}

#[test]
fn memory_loops_prompt_without_categories_is_passed_over_with_a_warning() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    let app = env.config_dir().join("durable-facts.md");
    write_file(&app, b"Extract what matters about my health.\n");
    env.add_transcript(
        "gamma",
        "2025-06-28-0700-a.md",
        &transcript(
            "2025-06-28",
            "07:00",
            "A",
            "remember: Goals | global | Runs a marathon in May.",
        ),
    );
    let mock = Mock::start();

    let (report, stderr) = extract(&env, &mock, &[], 0);

    assert_eq!(report["prompt"]["source"], "builtin", "{report}");
    assert!(
        stderr
            .lines()
            .any(|l| l.contains(&app.display().to_string()) && l.contains("no categories")),
        "{stderr}"
    );
}

#[test]
fn blank_transcripts_are_done_without_the_model_and_nuls_are_removed() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.add_transcript_bytes("gamma", "blank.md", b"");
    env.add_transcript_bytes("gamma", "spaces.md", b" \n\n\t\n");
    env.add_transcript_bytes(
        "gamma",
        "nul.md",
        b"---\ndate: 2025-06-28\n---\n\n## [07:00] User\n\nremember: Goals | global | Ships the Tidepool sync\0 by May.\n",
    );
    let mock = Mock::start();

    let (report, stderr) = extract(&env, &mock, &[], 0);

    assert_eq!(
        report["transcripts"],
        json!({"found": 3, "unchanged": 0, "waiting": 0, "deferred": 0, "processed": 1, "failed": 0, "still_failing": 0, "empty": 2}),
        "{stderr}"
    );
    assert_eq!(mock.count(), 1, "only the transcript with words is sent");
    assert_eq!(bullets(&env.memory()), ["Ships the Tidepool sync by May."]);
    assert!(!mock.requests()[0].user_text().contains('\0'));

    let (report, _) = extract(&env, &mock, &[], 0);
    assert_eq!(
        report["transcripts"]["unchanged"], 3,
        "recorded as done: {report}"
    );
    assert_eq!(mock.count(), 1);
}

#[test]
fn the_first_edit_starts_from_memory_loops_prompt_and_the_override_then_wins() {
    let env = TestEnv::new();
    let app = env.config_dir().join("durable-facts.md");
    write_file(&app, APP_PROMPT.as_bytes());
    let editor = env.root().join("editor.sh");
    write_file(
        &editor,
        b"#!/bin/sh\nprintf '\\n### Pets\\nAnimals.\\n' >> \"$1\"\n",
    );
    let mut perms = fs::metadata(&editor).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&editor, perms).unwrap();

    let out = env
        .cmd()
        .env("EDITOR", &editor)
        .args(["prompt", "edit"])
        .assert()
        .code(0);

    let own = env.config_dir().join("extraction-prompt.md");
    assert_eq!(read(&own), format!("{APP_PROMPT}\n### Pets\nAnimals.\n"));
    assert_eq!(
        read(&app),
        APP_PROMPT,
        "Memory Loop's file is left as it was"
    );
    let said = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        said.contains(&format!("it wins over Memory Loop's {}", app.display())),
        "{said}"
    );
}

#[test]
fn doctor_warns_of_vault_settings_and_a_prompt_memory_loop_would_read_otherwise() {
    let env = TestEnv::new();
    let vault = env.create_vault("gamma");
    let settings = vault.join(".memory-loop.json");
    write_file(&settings, b"[]");
    let app = env.config_dir().join("durable-facts.md");
    write_file(&app, b"");

    let out = env
        .cmd()
        .env("MEMLOOP_PROVIDER", "builtin")
        .args(["doctor", "--json", "--offline"])
        .assert();
    let json: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let checks = json["checks"].as_array().unwrap();
    let warned = |name: &str, needle: &str| {
        checks.iter().any(|c| {
            c["name"] == name
                && c["level"] == "warn"
                && c["message"].as_str().is_some_and(|m| m.contains(needle))
        })
    };
    assert!(warned("vault", &settings.display().to_string()), "{json}");
    assert!(warned("prompt", &app.display().to_string()), "{json}");
}

/// An outer vault whose `.memory-loop.json` points its inbox into a vault nested inside it:
/// both list the same transcripts. Each is read once a run and filed in the inner vault,
/// whichever order the vaults are named in; only the inner vault's fence gets its insights.
#[test]
fn an_inbox_inside_a_nested_vault_is_read_once_and_filed_in_the_inner_vault() {
    for inner_first in [false, true] {
        let env = TestEnv::new();
        let outer = env.create_vault("outer");
        let inner = env.create_vault("outer/inner");
        write_file(
            &outer.join(".memory-loop.json"),
            br#"{"inboxPath": "inner/00_Inbox"}"#,
        );
        let fact = "Kestrel deploys its staging builds with Nomad.";
        env.add_transcript(
            "outer/inner",
            "2025-06-01-0900-nested.md",
            &transcript(
                "2025-06-01",
                "09:00",
                "Nested",
                &format!("remember: Project Context | vault | {fact}"),
            ),
        );
        let mock = Mock::start();
        let (outer, inner) = (outer.display().to_string(), inner.display().to_string());
        let order = if inner_first {
            ["--vault", &inner, "--vault", &outer]
        } else {
            ["--vault", &outer, "--vault", &inner]
        };

        let (report, _) = extract(&env, &mock, &order, 0);

        assert_eq!(mock.count(), 1, "sent once: {report}");
        assert_eq!(report["transcripts"]["found"], 1, "{report}");
        assert!(read(&env.claude_md("outer/inner")).contains(fact));
        assert!(!read(&env.claude_md("outer")).contains(fact));
    }
}
