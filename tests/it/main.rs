//! The one integration test binary: every module runs the real `memloop` binary in a
//! sandboxed HOME (`support::TestEnv`) against copies of `fixtures/vaults` and a loopback
//! mock LLM (`support::mock`). Unit-level behaviour is tested in the modules themselves;
//! these tests pin what a user and their scripts see: files, exit codes, the JSON report.

// The sandbox is built with plain writes; the binary under test is what uses fsutil.
#![allow(clippy::disallowed_methods)]

mod bad_answers;
mod bad_inputs;
mod badfiles;
mod budget;
mod builtin;
mod cap;
mod chunking;
mod claude_cli;
mod claude_code;
mod completions;
mod config;
mod crash;
mod curation;
mod daemon;
mod docs;
mod doctor;
mod dry_run;
mod edits;
mod errors;
mod expiry;
mod extract;
mod fence;
mod grounding;
mod injection;
mod kill;
mod known_facts;
mod ledger_damage;
mod legacy;
mod llm_faults;
mod lock;
mod mcp;
mod memory_edit;
mod memory_loop_formats;
mod memory_show;
mod merge;
mod openai;
mod openai_faults;
mod planted;
mod prompt;
mod reference;
mod report;
mod review;
mod sample;
mod sandbox;
mod secrets;
mod service;
mod stale;
mod status;
mod support;
mod trust;
mod updates;
mod year;

/// Every file in tests/it/ is a module of this binary: a test file nobody declared would
/// never run.
#[test]
fn every_test_module_is_declared() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let main = std::fs::read_to_string(dir.join("main.rs")).expect("main.rs");
    for entry in std::fs::read_dir(&dir).expect("tests/it") {
        let path = entry.expect("entry").path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let module = path.extension().is_some_and(|e| e == "rs") || path.join("mod.rs").exists();
        if module && stem != "main" {
            assert!(
                main.contains(&format!("mod {stem};")),
                "tests/it/{stem} is not declared in tests/it/main.rs"
            );
        }
    }
}
