//! `memloop extract`: run the pipeline once and report. With no vault, a terminal gets a
//! run on the sample vault the binary carries (`sample`); a schedule gets exit 2.

mod sample;

use std::io::IsTerminal;
use std::path::Path;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{EXIT_FAILED, EXIT_OK, print, say};
use crate::cli::{ExtractArgs, Global};
use crate::config::Resolved;
use crate::paths::Env;
use crate::pipeline::{self, Options, Progress};

pub fn run(cfg: &Resolved, env: &Env, global: &Global, args: &ExtractArgs) -> Result<u8> {
    if args.sample {
        return sample::run(env, global);
    }
    if args.vaults.is_empty()
        && args.projects.is_empty()
        && let Err(e) = super::require_vaults(cfg)
    {
        // On a terminal a newcomer sees memloop work on the sample and how to go on; a
        // schedule (no terminal) fails visibly instead of doing nothing every night.
        if std::io::stderr().is_terminal() && !args.json {
            say(&e.to_string());
            say("here is what memloop does, on the sample vault it ships:");
            return sample::run(env, global);
        }
        return Err(e);
    }
    cfg.require_credentials()?;
    let opts = Options {
        force: args.force,
        dry_run: args.dry_run,
        vaults: args.vaults.clone(),
        projects: args.projects.clone(),
    };
    let progress = Reporter::new(global.quiet, args.json);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let now = clock(env)?;
    let (report, stopped) = runtime.block_on(async {
        let cancel = pipeline::shutdown_signal();
        pipeline::run(cfg, &opts, &progress, cancel, now).await
    })?;
    let clean = report.failures.is_empty() && !report.interrupted && stopped.is_none();
    if args.json {
        super::print_json(&report)?;
    } else if !(global.quiet && clean) {
        // `-q` (cron, a service): nothing at all when the run went well.
        print(&report.to_text())?;
    }
    if let Some(reason) = stopped {
        return Err(reason);
    }
    Ok(if report.failures.is_empty() && !report.interrupted {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

/// The run's clock: now, or `MEMLOOP_NOW` (RFC 3339) for a simulation that plays months
/// of nights in minutes (which facts expire, which wait as stale).
fn clock(env: &Env) -> Result<chrono::DateTime<chrono::Local>> {
    match env.var("MEMLOOP_NOW") {
        None => Ok(chrono::Local::now()),
        Some(at) => chrono::DateTime::parse_from_rfc3339(at)
            .map(|at| at.with_timezone(&chrono::Local))
            .map_err(|e| {
                crate::error::usage(format!("MEMLOOP_NOW={at:?}: not an RFC 3339 time: {e}"))
            }),
    }
}

/// A progress bar on a terminal, plain lines on stderr otherwise, nothing with `--quiet`.
struct Reporter {
    bar: Option<ProgressBar>,
    quiet: bool,
}

impl Reporter {
    fn new(quiet: bool, json: bool) -> Self {
        let bar = (!quiet && !json && std::io::stderr().is_terminal()).then(|| {
            // Hidden until the number of transcripts is known.
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
            if let Ok(style) =
                ProgressStyle::with_template("{bar:30} {pos}/{len} transcripts {msg}")
            {
                bar.set_style(style);
            }
            bar
        });
        Self { bar, quiet }
    }
}

impl Progress for Reporter {
    fn warn(&self, message: &str) {
        // Even with `-q`: a warning is what an unattended run must not swallow.
        match &self.bar {
            Some(bar) => bar.suspend(|| say(&format!("warning: {message}"))),
            None => say(&format!("warning: {message}")),
        }
    }

    fn begin(&self, total: usize) {
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_draw_target(ProgressDrawTarget::stderr());
        } else if !self.quiet && total > 0 {
            say(&format!("extracting {total} transcripts"));
        }
    }

    fn advance(&self, path: &Path, ok: bool) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        match &self.bar {
            Some(bar) => {
                bar.set_message(name.into_owned());
                bar.inc(1);
            }
            None if !self.quiet => {
                say(&format!(
                    "{} {}",
                    if ok { "processed" } else { "failed" },
                    path.display()
                ));
            }
            None => {}
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
