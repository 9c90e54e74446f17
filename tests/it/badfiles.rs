//! Transcripts memloop cannot read (not UTF-8, binary) fail one by one, named in the
//! report and on stderr; the rest of the run is committed, and the bad ones are tried
//! again on the next run because nothing marked them done. An empty file is no failure:
//! Memory Loop leaves them, and there is nothing in one to extract.

use serde_json::json;

use crate::support::fixture::GLOBAL;
use crate::support::mock::Mock;
use crate::support::{TestEnv, anthropic, bullets};

const BAD: [&str; 2] = ["latin1.md", "binary.md"];
const EMPTY: &str = "empty.md";

fn add_bad_transcripts(env: &TestEnv) {
    env.add_transcript_bytes(
        "alpha",
        BAD[0],
        b"---\ndate: 2025-06-15\n---\n\n## [10:00] User\n\nremember: Goals | global | Caf\xE9 every day.\n",
    );
    env.add_transcript_bytes("alpha", EMPTY, b"");
    env.add_transcript_bytes(
        "alpha",
        BAD[1],
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00",
    );
}

#[test]
fn unreadable_transcripts_fail_alone_and_are_retried_next_run() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    add_bad_transcripts(&env);

    let report = env.extract(&mock, &[], 1);

    assert_eq!(
        report["transcripts"],
        json!({"found": 6, "unchanged": 0, "waiting": 0, "deferred": 0, "processed": 3, "failed": 2, "empty": 1})
    );
    let failures = report["failures"].as_array().expect("failures array");
    assert_eq!(failures.len(), 2, "{report}");
    for name in BAD {
        assert!(
            failures
                .iter()
                .any(|f| f["path"].as_str().is_some_and(|p| p.ends_with(name))
                    && f["error"].as_str().is_some_and(|e| !e.is_empty())),
            "{name} is reported with a reason: {report}"
        );
    }
    assert_eq!(mock.count(), 3, "only the good transcripts reach the LLM");
    let mut memory = bullets(&env.memory());
    memory.sort();
    let mut expected: Vec<&str> = GLOBAL.iter().map(|(_, f)| *f).collect();
    expected.sort_unstable();
    assert_eq!(memory, expected, "the good transcripts were committed");

    let output = env
        .cmd()
        .envs(anthropic(&mock))
        .arg("extract")
        .assert()
        .code(1);

    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    for name in BAD {
        assert!(stderr.contains(name), "stderr names {name}:\n{stderr}");
    }
    assert!(!stderr.contains(EMPTY), "{stderr}");
    assert_eq!(
        mock.count(),
        3,
        "good transcripts are unchanged, bad ones fail before the LLM"
    );

    let report = env.extract(&mock, &[], 1);
    assert_eq!(
        report["transcripts"],
        json!({"found": 6, "unchanged": 4, "waiting": 0, "deferred": 0, "processed": 0, "failed": 2})
    );
}
