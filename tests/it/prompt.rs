//! A custom extraction prompt (`<config dir>/extraction-prompt.md`): it is sent as the
//! system prompt, the run reports it, and its `## Categories` decide memory.md's headings.

use serde_json::json;

use crate::support::mock::Mock;
use crate::support::{TestEnv, sections, transcript};

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
        json!({"path": prompt.display().to_string(), "custom": true})
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

    env.cmd().args(["prompt", "reset"]).assert().code(0);
    assert!(!path.exists(), "the override is removed");
    let out = env.cmd().args(["prompt", "show"]).assert().code(0);
    assert_eq!(String::from_utf8_lossy(&out.get_output().stdout), shown);
    // Resetting again is not an error.
    env.cmd().args(["prompt", "reset"]).assert().code(0);
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
