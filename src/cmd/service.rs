//! `memloop service install | uninstall | status`: the nightly job as a systemd user unit or
//! a launchd agent.

use anyhow::Result;

use crate::cli::{Global, ServiceCommand};
use crate::paths::Env;

pub fn run(_global: &Global, _env: &Env, _cmd: &ServiceCommand) -> Result<u8> {
    anyhow::bail!("memloop service is not built yet")
}
