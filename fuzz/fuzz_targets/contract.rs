//! The tolerant reader of a model's answer (`llm::contract::parse_facts`): bare JSON, JSON
//! in a code fence or in prose, or anything else. It may refuse, never panic, and whatever
//! it accepts has a text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memloop::llm::contract::parse_facts;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(facts) = parse_facts(text) {
        for fact in facts {
            assert!(
                !fact.text.trim().is_empty(),
                "a fact without text: {fact:?}"
            );
        }
    }
});
