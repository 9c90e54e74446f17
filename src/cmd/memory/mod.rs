//! `memloop memory`: see, correct and prune the memory memloop keeps. One file per
//! subcommand, each holding its arguments beside its behaviour; every command that changes
//! facts goes through `Engine` (the run lock, the store, the one write path).

pub mod edit;
mod find;
pub mod forget;
pub mod remember;
pub mod restore;
pub mod review;
pub mod show;
pub mod stale;
pub mod why;

use anyhow::Result;

use crate::cli::MemoryCommand;
use crate::config::Resolved;
use crate::paths::Env;

pub fn run(cfg: &Resolved, env: &Env, cmd: &MemoryCommand) -> Result<u8> {
    match cmd {
        MemoryCommand::Show(args) => show::run(cfg, args),
        MemoryCommand::Edit(args) => edit::run(cfg, env, args),
        MemoryCommand::Forget(args) => forget::run(cfg, args),
        MemoryCommand::Restore(args) => restore::run(cfg, args),
        MemoryCommand::Remember(args) => remember::run(cfg, args),
        MemoryCommand::Why(args) => why::run(cfg, args),
        MemoryCommand::Review(args) => review::run(cfg, env, args),
    }
}
