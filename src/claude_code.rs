//! Claude Code sessions as a transcript source.

pub mod session;
