//! A custom extraction prompt (`<config dir>/extraction-prompt.md`): it is sent as the
//! system prompt, the run reports it, and its `## Categories` decide memory.md's headings.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::support::mock::Mock;
use crate::support::{TestEnv, read, sections, transcript, write_file};

const PROMPT: &str = "# Extraction prompt\n\n\
Extract only durable facts about the person's health and work. Ignore everything else.\n\n\
## Categories\n\n\
### Health\n\nExercise, sleep, diet and medical facts the person states about themselves.\n\n\
### Work\n\nRole, team, employer and working habits.\n";

#[test]
fn a_custom_prompt_is_sent_reported_and_sets_the_categories() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    let prompt = env.prompt(PROMPT);
    let mock = Mock::start();
    let work = "Leads the search infrastructure team.";
    let health = "Runs five kilometres three times a week.";
    // Work first: the headings must follow the prompt's order, not the transcript's.
    env.add_transcript(
        "gamma",
        "2025-06-28-0700-routine.md",
        &transcript(
            "2025-06-28",
            "07:00",
            "Routine",
            &format!("remember: Work | global | {work}\n\nremember: Health | global | {health}"),
        ),
    );

    let report = env.extract(&mock, &[], 0);

    assert_eq!(
        report["prompt"],
        json!({"path": prompt.display().to_string(), "custom": true, "source": "override"})
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    let system = requests[0].system_prompt();
    assert!(
        system.contains("Extract only durable facts about the person's health and work."),
        "{system}"
    );
    assert!(system.contains("### Health"), "{system}");
    assert_eq!(
        sections(&env.memory()),
        [
            ("Health".to_owned(), vec![health.to_owned()]),
            ("Work".to_owned(), vec![work.to_owned()]),
        ]
    );
}

#[test]
fn prompt_show_path_and_reset() {
    let env = TestEnv::new();
    let path = env.config_dir().join("extraction-prompt.md");

    let out = env.cmd().args(["prompt", "path"]).assert().code(0);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        format!("{}\n", path.display())
    );
    let out = env.cmd().args(["prompt", "show"]).assert().code(0);
    let shown = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        shown.contains("## Categories\n\n### Identity"),
        "the built-in prompt:\n{shown}"
    );

    env.prompt(PROMPT);
    let out = env.cmd().args(["prompt", "show"]).assert().code(0);
    assert_eq!(String::from_utf8_lossy(&out.get_output().stdout), PROMPT);

    env.cmd()
        .args(["prompt", "reset", "--yes"])
        .assert()
        .code(0);
    assert!(!path.exists(), "the override is removed");
    let out = env.cmd().args(["prompt", "show"]).assert().code(0);
    assert_eq!(String::from_utf8_lossy(&out.get_output().stdout), shown);
    // Resetting again is not an error.
    env.cmd()
        .args(["prompt", "reset", "--yes"])
        .assert()
        .code(0);
}

/// Writes an executable `sh` script into the sandbox, for `EDITOR`.
fn editor(env: &TestEnv, name: &str, body: &str) -> PathBuf {
    let path = env.root().join(name);
    write_file(&path, format!("#!/bin/sh\n{body}\n").as_bytes());
    let mut perms = fs::metadata(&path).expect("stat editor").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&path, perms).expect("chmod editor");
    path
}

/// `memloop prompt ARGS` with `EDITOR` set; returns stderr.
fn prompt_cmd(env: &TestEnv, editor: Option<&Path>, args: &[&str], code: i32) -> String {
    let mut cmd = env.cmd();
    if let Some(e) = editor {
        cmd.env("EDITOR", e);
    }
    let out = cmd.arg("prompt").args(args).assert().code(code);
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

/// The files in the config directory other than `config.toml`, by name.
fn config_files(env: &TestEnv) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(env.config_dir())
        .map(|d| {
            d.map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The one edited copy the command kept beside the override, named in `said`.
fn kept_copy(env: &TestEnv, said: &str) -> PathBuf {
    let copies: Vec<String> = config_files(env)
        .into_iter()
        .filter(|n| n.starts_with("extraction-prompt.edit-"))
        .collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
    let copy = env.config_dir().join(&copies[0]);
    assert!(
        said.contains(&copy.display().to_string()),
        "says where: {said}"
    );
    copy
}

#[test]
fn prompt_show_says_on_stderr_which_prompt_is_in_use() {
    let env = TestEnv::new();
    let path = env.config_dir().join("extraction-prompt.md");

    let said = prompt_cmd(&env, None, &["show"], 0);
    assert!(said.contains("the built-in prompt is in use"), "{said}");
    assert!(said.contains(&path.display().to_string()), "{said}");

    env.prompt(PROMPT);
    let said = prompt_cmd(&env, None, &["show"], 0);
    assert!(
        said.contains(&format!("your override {} is in use", path.display())),
        "{said}"
    );
}

#[test]
fn the_first_edit_starts_from_the_default_and_a_usable_result_becomes_the_override() {
    let env = TestEnv::new();
    let path = env.config_dir().join("extraction-prompt.md");
    let append = editor(
        &env,
        "append.sh",
        "printf '\\n### Health\\n\\nExercise and sleep.\\n' >> \"$1\"",
    );
    let default = String::from_utf8_lossy(
        &env.cmd()
            .args(["prompt", "show"])
            .assert()
            .code(0)
            .get_output()
            .stdout,
    )
    .into_owned();

    let said = prompt_cmd(&env, Some(&append), &["edit"], 0);

    assert_eq!(
        read(&path),
        format!("{default}\n### Health\n\nExercise and sleep.\n")
    );
    assert!(
        said.contains("Patterns, Health"),
        "names the categories: {said}"
    );
    assert!(said.contains("extract --force"), "{said}");
    assert_eq!(
        config_files(&env),
        ["extraction-prompt.md"],
        "no copy is left"
    );

    // The next edit starts from the override.
    prompt_cmd(&env, Some(&append), &["edit"], 0);
    assert_eq!(read(&path).matches("### Health").count(), 2);
}

#[test]
fn an_edit_left_as_it_was_creates_no_override() {
    let env = TestEnv::new();
    let untouched = editor(&env, "true.sh", "true");

    let said = prompt_cmd(&env, Some(&untouched), &["edit"], 0);

    assert!(said.contains("no changes"), "{said}");
    assert!(config_files(&env).is_empty(), "{:?}", config_files(&env));
}

#[test]
fn an_edit_without_categories_keeps_the_old_override_exits_2_and_keeps_the_copy() {
    let env = TestEnv::new();
    let path = env.prompt(PROMPT);
    let wipe = editor(&env, "wipe.sh", "printf 'Just extract facts.\\n' > \"$1\"");

    let said = prompt_cmd(&env, Some(&wipe), &["edit"], 2);

    assert!(said.contains("no categories"), "{said}");
    assert_eq!(read(&path), PROMPT, "the old override stays");
    assert_eq!(read(&kept_copy(&env, &said)), "Just extract facts.\n");
}

#[test]
fn an_editor_that_fails_keeps_the_old_override_exits_1_and_keeps_the_copy() {
    let env = TestEnv::new();
    let path = env.prompt(PROMPT);
    let crash = editor(&env, "crash.sh", "printf 'half' >> \"$1\"\nexit 3");

    let said = prompt_cmd(&env, Some(&crash), &["edit"], 1);

    assert!(said.contains("the editor exited with an error"), "{said}");
    assert_eq!(read(&path), PROMPT, "the old override stays");
    assert_eq!(read(&kept_copy(&env, &said)), format!("{PROMPT}half"));
}

#[test]
fn prompt_edit_without_an_editor_is_a_usage_error_that_leaves_nothing_behind() {
    let env = TestEnv::new();

    let said = prompt_cmd(&env, None, &["edit"], 2);

    assert!(said.contains("EDITOR"), "{said}");
    assert!(config_files(&env).is_empty(), "{:?}", config_files(&env));
}

#[test]
fn reset_asks_first_and_removes_nothing_without_a_yes() {
    let env = TestEnv::new();
    let path = env.prompt(PROMPT);

    let said = prompt_cmd(&env, None, &["reset"], 0);
    assert!(said.contains("nothing removed"), "no answer is no: {said}");
    assert!(path.exists());

    let out = env
        .cmd()
        .args(["prompt", "reset"])
        .write_stdin("n\n")
        .assert()
        .code(0);
    let said = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(said.contains("[y/N]"), "asks: {said}");
    assert!(path.exists(), "no is no");

    env.cmd()
        .args(["prompt", "reset"])
        .write_stdin("y\n")
        .assert()
        .code(0);
    assert!(!path.exists(), "yes removes it");
}

#[test]
fn a_prompt_that_is_not_utf8_is_a_config_error_naming_the_file() {
    let env = TestEnv::with_fixtures();
    let path = env.config_dir().join("extraction-prompt.md");
    crate::support::write_file(&path, b"\xff\xfe broken");
    let before = env.snapshot_tree();

    let out = env.cmd().arg("extract").assert().code(2);

    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(stderr.contains("not valid UTF-8"), "{stderr}");
    env.snapshot_tree().assert_unchanged_since(&before);
}
