//! Frontmatter-shaped input: the fuzzer's bytes become the YAML between `---` lines of an
//! otherwise ordinary transcript.
//!
//! Invariants: whatever the YAML, the turns after it are read the same as without it (a
//! broken frontmatter is reported in `meta_error`, never fatal), and the fields kept are
//! trimmed and non-empty.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memloop::transcript::parse;

const BODY: &str = "# Discussion - 2025-01-15 14:30\n\n## [14:30] User\n\nI keep bees.\n\n## [14:31] Assistant\n\nNoted.\n";

fuzz_target!(|data: &[u8]| {
    let Ok(yaml) = std::str::from_utf8(data) else {
        return;
    };
    // A line that closes the frontmatter early, or memloop's own markers (stripped as a
    // span wherever they are), change what the body is; those are other targets' business.
    let closes = yaml
        .split('\n')
        .any(|l| matches!(l.trim_end_matches('\r').trim_end(), "---" | "..."));
    if closes || yaml.contains("memory-loop:insights") || yaml.starts_with('\u{feff}') {
        return;
    }
    let text = format!("---\n{yaml}\n---\n{BODY}");
    let parsed = parse(&text);
    assert_eq!(
        parsed.turns,
        parse(BODY).turns,
        "the frontmatter changed the turns"
    );
    let meta = &parsed.meta;
    for field in [&meta.date, &meta.time, &meta.session_id, &meta.title]
        .into_iter()
        .flatten()
    {
        assert!(
            !field.is_empty() && field.trim() == field,
            "{field:?} kept untrimmed"
        );
    }
    // A broken frontmatter is read line by line, as Memory Loop's own reader does: its
    // fields may be recovered, so there is nothing more to check about them here.
});
