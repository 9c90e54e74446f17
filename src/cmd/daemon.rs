//! `memloop daemon`: runs extractions on the configured schedule.

use anyhow::Result;

use crate::cli::Global;
use crate::paths::Env;

pub fn run(_global: &Global, _env: &Env) -> Result<u8> {
    anyhow::bail!("memloop daemon is not built yet")
}
