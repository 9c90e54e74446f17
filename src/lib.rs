//! memloop turns the chat transcripts Memory Loop writes into note vaults into durable
//! memory for Claude: `~/.claude/rules/memory.md` for facts about the person, a fenced
//! section of each vault's `CLAUDE.md` for facts about its work.
//!
//! The pipeline (`pipeline::run`) reads top to bottom:
//! discover (`vault`) -> fingerprint/skip (`scan`, `ledger`) -> read + parse (`transcript`) ->
//! redact (`redact`) -> extract (`llm`) -> filter + merge (`fact`, `merge`) ->
//! render (`render`, `fence`) -> write (`fsutil`).

#![forbid(unsafe_code)]
// Tests set up their sandboxes with plain writes and read the real clock.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

pub mod backup;
pub mod claude_code;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod daemon;
pub mod edits;
pub mod engine;
pub mod error;
pub mod executor;
pub mod fact;
pub mod fence;
pub mod fsutil;
pub mod ground;
pub mod known;
pub mod ledger;
pub mod llm;
pub mod logged;
pub mod merge;
pub mod paths;
pub mod pipeline;
pub mod prompt;
pub mod queued;
pub mod rebuild;
pub mod redact;
pub mod render;
pub mod report;
pub mod scan;
pub mod schedule;
pub mod service;
pub mod store;
pub mod transcript;
pub mod vault;
pub mod write;
