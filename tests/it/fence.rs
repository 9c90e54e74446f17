//! The insights fence in a vault's `CLAUDE.md`: memloop owns the lines between its two
//! markers and not a byte outside them. Malformed markers fail that vault only.

use crate::support::fixture::{LANTERNFISH, POSTGRES};
use crate::support::mock::Mock;
use crate::support::{BEGIN, END, TestEnv, bullets, insights_block, read, read_bytes, write_file};

#[test]
fn malformed_markers_fail_that_vault_only_once_and_leave_its_file_alone() {
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

    // The next night, the file as it was: reported as still failing, not failed again.
    let report = env.extract(&mock, &[], 0);
    assert_eq!(report["failures"], serde_json::json!([]), "{report}");
    let skipped = report["still_failing"].as_array().expect("still_failing");
    assert_eq!(skipped.len(), 1, "{report}");
    assert_eq!(skipped[0]["path"], alpha_path.display().to_string());
    assert_eq!(read(&alpha_path), broken, "still untouched");

    // The user mends it: the insights are written.
    let mended = format!("{broken}{END}\n");
    write_file(&alpha_path, mended.as_bytes());
    let report = env.extract(&mock, &[], 0);
    assert_eq!(report["still_failing"], serde_json::Value::Null, "{report}");
    assert!(
        insights_block(&read(&alpha_path))
            .is_some_and(|b| bullets(b).iter().any(|x| x == LANTERNFISH)),
        "{}",
        read(&alpha_path)
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

/// The fenced block's size as written: from the begin marker through the end marker's
/// line ending, CRLF bytes included; `None` when the file has no block.
fn fenced_bytes(doc: &[u8]) -> Option<usize> {
    let find = |needle: &[u8]| doc.windows(needle.len()).position(|w| w == needle);
    let begin = find(BEGIN.as_bytes())?;
    let end = find(END.as_bytes())? + END.len();
    let eol = if doc[end..].starts_with(b"\r\n") {
        2
    } else {
        usize::from(doc[end..].starts_with(b"\n"))
    };
    Some(end + eol - begin)
}

#[test]
fn the_insights_cap_counts_the_crlf_bytes_of_the_fence() {
    use crate::support::fixture::BETA_1;
    use crate::support::{set_age, transcript};
    use std::time::Duration;

    // The visible line and the blank line after it, with LF line endings.
    let line = memloop::render::INSIGHTS_LINE.len() + 2;
    let cap = 128 + line;
    // 27 bytes: its block is 125 + line bytes with LF line endings and 132 + line with CRLF.
    let fact = "Heron cutover runs Sundays.";
    let env = TestEnv::with_fixtures();
    env.config(&format!("[insights]\nmax_bytes = {cap}\n"));
    std::fs::remove_file(env.chats_dir("beta").join(BETA_1)).expect("remove beta's fixture");
    let remember = format!("remember: Project Context | vault | {fact}");
    env.add_transcript(
        "beta",
        "2025-06-21-0900-cutover-day.md",
        &transcript("2025-06-21", "09:00", "Cutover day", &remember),
    );
    // The same fact in an LF vault fits: the cap is not simply too small for it.
    let gamma = env.create_vault("gamma");
    let chat = gamma.join("00_Inbox/chats/2025-06-21-0900-cutover-day.md");
    write_file(
        &chat,
        transcript("2025-06-21", "09:00", "Cutover day", &remember).as_bytes(),
    );
    set_age(&chat, Duration::from_secs(3600));
    let beta_before = read_bytes(&env.claude_md("beta"));
    let mock = Mock::start();

    let report = env.extract(&mock, &[], 0);

    let gamma_md = read_bytes(&env.claude_md("gamma"));
    assert_eq!(fenced_bytes(&gamma_md), Some(125 + line));
    let gamma_md = String::from_utf8(gamma_md).expect("utf-8");
    assert_eq!(bullets(insights_block(&gamma_md).expect("block")), [fact]);
    let beta = read_bytes(&env.claude_md("beta"));
    if let Some(size) = fenced_bytes(&beta) {
        assert!(
            size <= cap,
            "{size} bytes: {}",
            String::from_utf8_lossy(&beta)
        );
    }
    assert_eq!(
        beta, beta_before,
        "the fact does not fit in CRLF: no block at all"
    );
    assert_eq!(
        report["facts"]["archived"], 2,
        "beta's fact and alpha's (too long for the cap either way): {report}"
    );
}

#[test]
fn markers_shown_in_a_code_example_are_not_the_fence() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let alpha_path = env.claude_md("alpha");
    // Docs about memloop: the markers, and a bullet, inside ``` and ~~~ examples.
    let original = format!(
        "{}\n## How the insights look\n\n```markdown\n{BEGIN}\n## Memory Loop Insights\n\n- An example insight.\n{END}\n```\n\n   ~~~~\n{BEGIN}\n{END}\n   ~~~~\n",
        read(&alpha_path)
    );
    write_file(&alpha_path, original.as_bytes());

    env.extract(&mock, &[], 0);

    let after = read(&alpha_path);
    assert!(
        after.starts_with(&original),
        "the examples are kept byte for byte:\n{after}"
    );
    let added = &after[original.len()..];
    let block = insights_block(added).expect("the real block is appended after the examples");
    assert_eq!(bullets(block), [LANTERNFISH]);

    // The next run finds the real block again: nothing is appended twice.
    env.extract(&mock, &["--force"], 0);
    assert_eq!(read(&alpha_path), after);
}
