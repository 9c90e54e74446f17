//! Arbitrary bytes through the Claude Code session parser (`claude_code::session::parse`).
//! The first two bytes pick `from`, as a share of the rest's length.
//!
//! Invariants checked besides "never panics":
//! - `end` is at most the length and sits at a line boundary, at or after `from`;
//! - every turn starts at a line start at or after `from`;
//! - a read from `end` finds no turn: what was consumed is not read twice;
//! - the scan's `records_end` stops where the parser does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memloop::claude_code::{project, session};

fuzz_target!(|data: &[u8]| {
    let Some((share, bytes)) = data.split_first_chunk::<2>() else {
        return;
    };
    let from = bytes.len() * usize::from(u16::from_le_bytes(*share)) / usize::from(u16::MAX);
    let at_line_start = |i: usize| i == 0 || i == bytes.len() || bytes[i - 1] == b'\n';

    let read = session::parse(bytes, from);
    assert!(read.end <= bytes.len());
    assert!(at_line_start(read.end), "end {} mid-line", read.end);
    for turn in &read.turns {
        assert!(turn.offset >= from && at_line_start(turn.offset));
        assert!(turn.offset < read.end.max(1) || read.end == bytes.len());
    }
    let again = session::parse(bytes, read.end);
    assert!(again.turns.is_empty(), "{:?}", again.turns);
    let whole = session::parse(bytes, 0);
    assert_eq!(whole.end, project::records_end(bytes));
});
