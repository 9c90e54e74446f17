//! The insights fence in a vault's `CLAUDE.md`: memloop owns the lines between its two
//! markers and not a byte outside them. Malformed markers fail that vault only.

use crate::support::fixture::{LANTERNFISH, POSTGRES};
use crate::support::mock::Mock;
use crate::support::{BEGIN, END, TestEnv, bullets, insights_block, read, read_bytes, write_file};

#[test]
fn malformed_markers_fail_that_vault_only_and_leave_its_file_alone() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let alpha_path = env.claude_md("alpha");
    let broken = format!(
        "{}\n{BEGIN}\n## Memory Loop Insights\n\n- An insight whose end marker was deleted.\n",
        read(&alpha_path)
    );
    write_file(&alpha_path, broken.as_bytes());
    let beta_before = read_bytes(&env.claude_md("beta"));

    let report = env.extract(&mock, &[], 1);

    assert_eq!(
        read(&alpha_path),
        broken,
        "alpha's CLAUDE.md is byte-identical"
    );
    let failures = report["failures"].as_array().expect("failures array");
    assert!(!failures.is_empty(), "{report}");
    for failure in failures {
        let failed = failure["path"].as_str().expect("failure path");
        assert!(failed.contains("alpha"), "only alpha fails: {report}");
    }

    let beta = read_bytes(&env.claude_md("beta"));
    assert!(
        beta.starts_with(&beta_before),
        "beta's CRLF text and unterminated last line are kept"
    );
    let beta = String::from_utf8(beta).expect("utf-8");
    assert_eq!(
        bullets(insights_block(&beta).expect("beta still updated")),
        [POSTGRES]
    );
}

#[test]
fn an_existing_block_is_replaced_in_place() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let alpha_path = env.claude_md("alpha");
    let head = "# Lanternfish\r\n\r\nText above the fence, CRLF.\r\n\r\n";
    let tail = "\r\n## Written after the fence\r\n\r\nThis stays where it is.";
    let old_block = format!("{BEGIN}\r\n## Memory Loop Insights\r\n\r\n- Old insight.\r\n{END}");
    let mut original = b"\xEF\xBB\xBF".to_vec();
    original.extend_from_slice(format!("{head}{old_block}{tail}").as_bytes());
    write_file(&alpha_path, &original);

    env.extract(&mock, &[], 0);

    let after = read_bytes(&alpha_path);
    let mut prefix = b"\xEF\xBB\xBF".to_vec();
    prefix.extend_from_slice(head.as_bytes());
    assert!(
        after.starts_with(&prefix),
        "BOM and text above the fence kept"
    );
    assert!(
        after.ends_with(tail.as_bytes()),
        "text below the fence kept, no final newline added"
    );
    let text = String::from_utf8_lossy(&after);
    let block = insights_block(&text).expect("block");
    assert_eq!(
        text.matches(BEGIN).count(),
        1,
        "replaced, not appended: {text}"
    );
    assert!(bullets(block).contains(&LANTERNFISH.to_owned()), "{block}");
    assert_eq!(
        after.len(),
        prefix.len() + block.len() + tail.len(),
        "nothing but the block changed"
    );
}
