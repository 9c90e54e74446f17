//! Each provider's response body parser: the first byte picks Anthropic's
//! `parse_response`, OpenAI's `parse_response`, or the Claude CLI's `parse_output` (with
//! the exit status from the same byte); the rest is the body. They may refuse, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memloop::llm::{anthropic, claude_cli, openai};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(body) = std::str::from_utf8(rest) else {
        return;
    };
    let _ = match pick % 4 {
        0 => anthropic::parse_response(body),
        1 => openai::parse_response(body),
        2 => claude_cli::parse_output(true, body, ""),
        _ => claude_cli::parse_output(false, body, "claude: error"),
    };
});
