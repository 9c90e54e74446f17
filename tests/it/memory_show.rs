//! `memloop memory show`: prints memory.md as it is on disk, and `--json` gives every
//! fact with its provenance.

use serde_json::json;

use crate::support::fixture::{ALPHA_1, BETA_1, DIRECT, LANTERNFISH};
use crate::support::mock::Mock;
use crate::support::{TestEnv, find_fact, report};

#[test]
fn memory_show_prints_the_file_byte_for_byte() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);

    let output = env.cmd().args(["memory", "show"]).assert().code(0);

    assert_eq!(
        String::from_utf8_lossy(&output.get_output().stdout),
        env.memory()
    );
}

#[test]
fn memory_show_json_lists_facts_with_their_sources() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);

    let output = env
        .cmd()
        .args(["memory", "show", "--json"])
        .assert()
        .code(0);

    let show = report(output.get_output());
    assert_eq!(show["path"], env.memory_path().display().to_string());
    let source = env.chats_dir("alpha").join(ALPHA_1).display().to_string();
    let mut fact = find_fact(&show, DIRECT).clone();
    assert!(fact["id"].is_i64(), "facts carry their ledger id: {fact}");
    fact.as_object_mut().map(|f| f.remove("id"));
    assert_eq!(
        fact,
        json!({
            "text": DIRECT, "category": "Preferences", "scope": "global", "vault": null,
            "status": "active", "origin": "extracted", "times_seen": 1, "first_seen": "2025-06-12",
            "last_seen": "2025-06-12",
            "sources": [{"transcript": source, "date": "2025-06-12", "evidence": DIRECT}],
        })
    );
    let vault_fact = find_fact(&show, LANTERNFISH);
    assert_eq!(vault_fact["scope"], "vault");
    assert_eq!(vault_fact["vault"], "alpha");
    assert_eq!(vault_fact["category"], "Project Context");
    let facts = show["facts"].as_array().expect("facts array");
    assert_eq!(facts.len(), 6, "{show}");
    for fact in facts {
        assert_eq!(fact["status"], "active");
        let sources = fact["sources"].as_array().expect("sources array");
        assert_eq!(sources.len(), 1, "{fact}");
    }
    let beta_sources = facts
        .iter()
        .filter(|f| {
            f["sources"][0]["transcript"]
                .as_str()
                .is_some_and(|t| t.ends_with(BETA_1))
        })
        .count();
    assert_eq!(beta_sources, 2);
}

#[test]
fn memory_show_before_any_run_does_not_fail() {
    let env = TestEnv::new();

    let output = env
        .cmd()
        .args(["memory", "show", "--json"])
        .assert()
        .code(0);

    let show = report(output.get_output());
    assert_eq!(show["facts"], json!([]));
    assert!(
        !env.memory_path().exists(),
        "show never creates the memory file"
    );
}

#[test]
fn memory_show_into_a_closed_pipe_is_not_an_error() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);

    let mut child = env
        .process()
        .args(["memory", "show"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn memloop");
    // Like `memloop memory show | head -0`: the reader is gone before memloop writes.
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("reap memloop");

    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "{stderr}"
    );
}

#[test]
fn quiet_prints_nothing_on_success_and_the_report_on_failure() {
    let env = TestEnv::with_fixtures();
    let output = env.cmd().args(["extract", "-q"]).assert().code(0);
    let out = output.get_output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "memloop: warning: no LLM configured (set ANTHROPIC_API_KEY, or OPENAI_API_KEY / OPENAI_BASE_URL): using the offline builtin extractor"
        ],
        "the warning, and no progress lines"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "",
        "cron mails nothing"
    );

    let output = env.cmd().args(["extract", "--force"]).assert().code(0);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(stderr.contains("warning: no LLM configured"), "{stderr}");
    assert!(
        stderr.contains("memloop: processed "),
        "plain progress lines off a terminal: {stderr}"
    );

    let bad = env.add_transcript_bytes("alpha", "2025-07-01-0900-bad.md", b"\xff\xfe\x00bad");
    let output = env.cmd().args(["extract", "-q"]).assert().code(1);
    let stdout = String::from_utf8_lossy(&output.get_output().stdout);
    assert!(
        stdout.contains(&bad.display().to_string()),
        "a failure is reported: {stdout}"
    );
}
