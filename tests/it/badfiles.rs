//! Transcripts memloop cannot read (not UTF-8, binary) fail one by one, named in the report
//! and on stderr; the rest of the run is committed. A bad file is reported once: while it
//! stays as it is, the next runs skip it without failing again (exit 0), and once it
//! changes, or with `--force`, it is read again. An empty file is no failure: Memory Loop
//! leaves them, and there is nothing in one to extract.

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
fn unreadable_transcripts_fail_once_and_are_skipped_until_they_change() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    add_bad_transcripts(&env);

    let report = env.extract(&mock, &[], 1);

    assert_eq!(
        report["transcripts"],
        json!({"found": 6, "unchanged": 0, "waiting": 0, "deferred": 0, "processed": 3, "failed": 2, "still_failing": 0, "empty": 1})
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

    // The next night: nothing new failed, so the run is a success; the bad files are
    // named once more as skipped, not as failures.
    let output = env
        .cmd()
        .envs(anthropic(&mock))
        .arg("extract")
        .assert()
        .code(0);
    let stdout = String::from_utf8_lossy(&output.get_output().stdout);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(
        !stderr.contains("failed") && !stderr.contains(EMPTY),
        "{stderr}"
    );
    assert!(
        stdout.contains("2 still failing (skipped)") && stdout.contains("skipped: "),
        "{stdout}"
    );
    let report = env.extract(&mock, &[], 0);
    assert_eq!(
        report["transcripts"],
        json!({"found": 6, "unchanged": 4, "waiting": 0, "deferred": 0, "processed": 0, "failed": 0, "still_failing": 2})
    );
    let skipped = report["still_failing"].as_array().expect("still_failing");
    assert!(
        skipped
            .iter()
            .all(|f| f["error"].as_str().is_some_and(|e| e.contains("since"))),
        "each says why and since when: {report}"
    );
    assert_eq!(mock.count(), 3, "nothing was read again");

    // The user fixes one: it is read and sent.
    env.add_transcript(
        "alpha",
        BAD[0],
        "---\ndate: 2025-06-15\n---\n\n## [10:00] User\n\nremember: Goals | global | Cafe every day.\n",
    );
    let report = env.extract(&mock, &[], 0);
    assert_eq!(report["transcripts"]["processed"], 1, "{report}");
    assert_eq!(report["transcripts"]["still_failing"], 1, "{report}");
    assert_eq!(mock.count(), 4);

    // `--force` reads the one still broken again, and it fails again.
    let report = env.extract(&mock, &["--force"], 1);
    assert_eq!(report["transcripts"]["failed"], 1, "{report}");
}

/// A long chat with one byte damaged (on disk, in a copy) is read with U+FFFD in its
/// place, and `-v` says so; only text in another encoding fails (see above).
#[test]
fn a_long_transcript_with_one_damaged_byte_is_read_and_says_so() {
    let env = TestEnv::new();
    env.create_vault("solo");
    let mut bytes = b"---\ndate: 2025-06-15\n---\n\n## [10:00] User\n\nremember: Goals | global | Runs a marathon in October.\n\n".to_vec();
    bytes.extend(
        "## [10:01] Assistant\n\nNoted, a long answer follows.\n\n"
            .repeat(200)
            .bytes(),
    );
    let damaged = bytes.len() - 10;
    bytes[damaged] = 0xFF;
    env.add_transcript_bytes("solo", "2025-06-15-1000-long.md", &bytes);
    let mock = Mock::start();

    let out = env
        .cmd()
        .envs(anthropic(&mock))
        .args(["extract", "-v"])
        .assert()
        .code(0);

    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("1 invalid UTF-8 sequence(s) replaced"),
        "{stderr}"
    );
    assert!(bullets(&env.memory()).contains(&"Runs a marathon in October.".to_owned()));
}
