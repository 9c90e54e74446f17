//! Arbitrary bytes through the transcript pipeline: `decode`, `parse`, `trim_noise`,
//! `own_words`, `render`, `limit` and `chunks`. The first byte picks the token budget.
//!
//! Invariants checked besides "never panics":
//! - a parse of a render gives the same turns back, when `trim_noise` leaves them alone
//!   (the round trip `render` documents);
//! - every chunk stays within the budget once the budget can hold a heading;
//! - `limit` keeps at most the budget.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memloop::transcript::{self, chunks, estimate_tokens, limit, parse, render, trim_noise};

fuzz_target!(|data: &[u8]| {
    let Some((&budget, bytes)) = data.split_first() else {
        return;
    };
    let max_tokens = usize::from(budget);
    let Ok(text) = transcript::decode(bytes) else {
        return;
    };
    let parsed = parse(&text.text);
    for turn in &parsed.turns {
        let _ = transcript::own_words(&turn.text);
    }

    let rendered = render(&parsed.turns);
    if parsed.turns.iter().all(|t| trim_noise(&t.text) == t.text) {
        assert_eq!(
            parse(&rendered).turns,
            parsed.turns,
            "a rendered transcript parses back to its turns"
        );
    }

    for chunk in chunks(&parsed.turns, max_tokens) {
        // "## [HH:MM:SS] Assistant" plus its blank lines is 27 characters: 10 tokens hold it.
        if max_tokens >= 10 {
            assert!(
                estimate_tokens(&chunk) <= max_tokens,
                "a chunk of {} tokens over a budget of {max_tokens}",
                estimate_tokens(&chunk)
            );
        }
    }

    let mut turns = parsed.turns.clone();
    if let Some(limited) = limit(&mut turns, max_tokens) {
        assert!(
            limited.kept <= max_tokens,
            "limit kept {} of {max_tokens}",
            limited.kept
        );
        assert!(turns.len() <= parsed.turns.len());
    }
});
