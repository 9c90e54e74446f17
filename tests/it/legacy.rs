//! Memory Loop's own record of what it extracted (`~/.config/memory-loop/extraction-state.json`)
//! is imported into an empty ledger: a transcript listed there with its real SHA-256 is not
//! sent again, while one whose checksum no longer matches is.

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::support::fixture::{ALPHA_1, ALPHA_2, DIRECT, LANTERNFISH, SEARCH_INFRA};
use crate::support::mock::Mock;
use crate::support::{TestEnv, read_bytes, sent_with, write_file};

#[test]
fn transcripts_memory_loop_already_extracted_are_not_sent() {
    let env = TestEnv::with_fixtures();
    let done = env.chats_dir("alpha").join(ALPHA_1);
    let changed = env.chats_dir("alpha").join(ALPHA_2);
    let state = json!({
        "version": 1,
        "processedFiles": {
            done.display().to_string(): hex::encode(Sha256::digest(read_bytes(&done))),
            // Memory Loop saw an older version of this one.
            changed.display().to_string(): hex::encode(Sha256::digest(b"an older version")),
        }
    });
    write_file(
        &env.config_dir().join("extraction-state.json"),
        state.to_string().as_bytes(),
    );
    let mock = Mock::start();

    let output = env
        .cmd()
        .envs(crate::support::anthropic(&mock))
        .args(["extract", "--json"])
        .assert()
        .code(0);

    let stderr = String::from_utf8_lossy(&output.get_output().stderr);
    assert!(stderr.contains("imported 2"), "{stderr}");
    let report = crate::support::report(output.get_output());
    assert_eq!(mock.count(), 2, "alpha's second transcript and beta's");
    assert_eq!(report["transcripts"]["unchanged"], 1);
    assert_eq!(report["transcripts"]["processed"], 2);
    assert_eq!(sent_with(&mock, LANTERNFISH), 0);
    assert_eq!(sent_with(&mock, DIRECT), 0);
    assert_eq!(
        sent_with(&mock, SEARCH_INFRA),
        1,
        "a changed checksum is sent"
    );

    let report = env.extract(&mock, &[], 0);

    assert_eq!(
        mock.count(),
        2,
        "the import is not repeated into a ledger in use"
    );
    assert_eq!(report["transcripts"]["unchanged"], 3);
}
