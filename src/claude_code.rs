//! Claude Code sessions as a transcript source: the projects in
//! `$CLAUDE_CONFIG_DIR/projects` (or `~/.claude/projects`), read when the user enabled
//! `[sources.claude_code]` (`project`), and what a session file says (`session`).

pub mod project;
pub mod session;
