//! No API key and no provider set: memloop falls back to the builtin extractor, says so
//! once on stderr naming the variables that would enable an LLM, and still succeeds.

use crate::support::{TestEnv, bullets, report};

#[test]
fn without_keys_the_builtin_extractor_runs_and_warns() {
    let env = TestEnv::with_fixtures();

    let output = env.cmd().args(["extract", "--json"]).assert().code(0);

    let output = output.get_output();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("ANTHROPIC_API_KEY"), "{stderr}");
    assert!(stderr.contains("OPENAI_API_KEY"), "{stderr}");
    let report = report(output);
    assert_eq!(report["provider"], "builtin");
    assert_eq!(report["tokens"]["input"], 0);
    assert_eq!(report["transcripts"]["processed"], 3);
    let found: Vec<String> = bullets(&env.memory())
        .into_iter()
        .filter(|b| {
            b.to_lowercase()
                .contains("staff engineer with about fifteen years of backend work")
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one bullet from \"I'm a staff engineer ...\": {found:?}"
    );
}
