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
