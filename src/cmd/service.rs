//! `memloop service install | uninstall | status`: the nightly job as systemd user units or
//! a launchd agent, for this user and this binary. Install renders the units
//! (`crate::service`), writes them and the empty environment file for the API key, and
//! enables them; `--print` only shows what it would write and run. Status says what is
//! installed, whether it is enabled, when it next fires and whether it runs this binary.
//!
//! It never puts a key in a unit, and never overwrites the environment file.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::{EXIT_FAILED, EXIT_OK, print, say};
use crate::cli::{Global, ServiceArgs, ServiceCommand};
use crate::config::{Resolved, provider_name};
use crate::error;
use crate::fsutil;
use crate::llm::ProviderKind;
use crate::paths::Env;
use crate::service::{self, Manager, Mode, Rendered, Spec};

/// No `systemctl` or `launchctl` call may hang a command.
const TOOL_TIMEOUT: Duration = Duration::from_secs(30);

/// Settings from the installing shell a unit would not see, carried into it. Keys are not
/// among them: they go in the environment file.
const CARRIED: [&str; 8] = [
    "VAULTS_DIR",
    "MEMLOOP_PROVIDER",
    "MEMLOOP_MODEL",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "CLAUDE_CONFIG_DIR",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
];

const ENV_FILE_HEADER: &str = "\
# memloop's service reads this file (KEY=value lines). Put your API key here, e.g.
#   ANTHROPIC_API_KEY=sk-ant-...
# or OPENAI_API_KEY=... ; keep this file private (mode 0600). memloop never writes to it
# after creating it.
";

pub fn run(global: &Global, env: &Env, cmd: &ServiceCommand) -> Result<u8> {
    let cfg = super::resolve(global, env)?;
    match cmd {
        ServiceCommand::Install(args) => install(&cfg, env, args),
        ServiceCommand::Uninstall(args) => uninstall(&cfg, env, args),
        ServiceCommand::Status(args) => status(&cfg, env, args),
    }
}

fn manager_of(args: &ServiceArgs) -> Manager {
    match (args.systemd, args.launchd) {
        (true, _) => Manager::Systemd,
        (_, true) => Manager::Launchd,
        _ => Manager::native(),
    }
}

/// Where `manager` keeps a user's units.
fn unit_dir(manager: Manager, env: &Env) -> Result<PathBuf> {
    let home = env.home()?;
    Ok(match manager {
        Manager::Systemd => env
            .var("XDG_CONFIG_HOME")
            .map_or_else(|| home.join(".config"), PathBuf::from)
            .join("systemd/user"),
        Manager::Launchd => home.join("Library/LaunchAgents"),
    })
}

/// The environment file beside the config file: `~/.config/memory-loop/env`.
pub(crate) fn env_file(cfg: &Resolved) -> PathBuf {
    cfg.paths
        .config_file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join("env")
}

/// `--config FILE` for the unit when the config is not in its default place.
fn unit_config(cfg: &Resolved) -> Option<PathBuf> {
    cfg.paths
        .config_explicit
        .then(|| std::path::absolute(&cfg.paths.config_file).ok())
        .flatten()
}

/// The settings from this shell the unit gets ([`CARRIED`], and `PATH` for the claude
/// CLI, which a service manager sets much shorter).
fn carried(cfg: &Resolved, env: &Env) -> Vec<(String, String)> {
    let mut carried: Vec<(String, String)> = CARRIED
        .iter()
        .filter_map(|k| Some(((*k).to_owned(), env.var(k)?.to_owned())))
        .collect();
    if cfg.llm.kind == ProviderKind::ClaudeCli
        && let Some(path) = env.var("PATH")
    {
        carried.push(("PATH".into(), path.to_owned()));
    }
    carried
}

/// The running binary, absolute.
fn this_binary() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("could not find the memloop binary's path")?;
    Ok(exe.canonicalize().unwrap_or(exe))
}

fn install(cfg: &Resolved, env: &Env, args: &ServiceArgs) -> Result<u8> {
    let manager = manager_of(args);
    let mode = if args.daemon {
        Mode::Daemon
    } else {
        Mode::Timer
    };
    let binary = this_binary()?;
    let env_file = env_file(cfg);
    check_ready(cfg, env, &env_file, args.print)?;
    let config = unit_config(cfg);
    let carried = carried(cfg, env);
    let dir = unit_dir(manager, env)?;
    let log = env.home()?.join("Library/Logs/memloop.log");
    let spec = Spec {
        binary: &binary,
        config: config.as_deref(),
        env_file: &env_file,
        environment: &carried,
        schedule: &cfg.config.schedule.cron,
        log: &log,
    };
    let files =
        service::render(manager, mode, &dir, &spec).map_err(|e| error::usage(e.to_string()))?;
    let stale: Vec<PathBuf> = mode
        .other()
        .files(manager)
        .iter()
        .map(|f| dir.join(f))
        .filter(|p| p.exists())
        .collect();
    let commands = enable_commands(manager, mode, &files, !stale.is_empty(), env)?;
    if args.print {
        return print_plan(&files, &env_file, &commands);
    }
    if looks_temporary(&binary) {
        say(&format!(
            "warning: the unit runs {}, which looks like a build or temporary directory; install memloop (cargo install --path .) and run this again from there",
            binary.display()
        ));
    }
    if !stale.is_empty() {
        // One mode at a time: never a timer and a daemon both running extractions.
        for command in disable_commands(manager, mode.other(), env)? {
            let _ = run_tool(&command);
        }
        for path in &stale {
            std::fs::remove_file(path)
                .with_context(|| format!("could not remove {}", path.display()))?;
        }
    }
    create_env_file(&env_file)?;
    for file in &files {
        if let Some(parent) = file.path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
        }
        fsutil::write_atomic(&file.path, file.text.as_bytes())
            .with_context(|| format!("could not write {}", file.path.display()))?;
        say(&format!("wrote {}", file.path.display()));
    }
    for command in &commands {
        run_tool(command)?;
    }
    say(&format!(
        "{} enabled: {} ({}); your API key goes in {}",
        mode.unit(manager),
        match mode {
            Mode::Timer => format!("extraction on \"{}\"", cfg.config.schedule.cron.expr()),
            Mode::Daemon => "memloop daemon".to_owned(),
        },
        manager.name(),
        env_file.display()
    ));
    Ok(EXIT_OK)
}

/// Refuses an install that would run and fail every night, with the fix.
fn check_ready(cfg: &Resolved, env: &Env, env_file: &Path, quiet: bool) -> Result<()> {
    if let Err(e) = super::require_vaults(cfg) {
        return Err(error::usage(format!(
            "the service would do nothing: {e}; then run this again"
        )));
    }
    let file_keys = read_env_keys(env_file);
    let key = match cfg.llm.kind {
        ProviderKind::Anthropic => Some("ANTHROPIC_API_KEY"),
        ProviderKind::OpenAi if cfg.llm.base_url == crate::config::OPENAI_DEFAULT_URL => {
            Some("OPENAI_API_KEY")
        }
        _ => None,
    };
    if let Some(key) = key {
        let in_file = file_keys.iter().any(|k| k == key);
        if !in_file && env.var(key).is_none() {
            return Err(error::usage(format!(
                "provider {} needs {key}: put `{key}=...` in {} (the service reads it from there), then run this again",
                provider_name(cfg.llm.kind),
                env_file.display()
            )));
        }
        if !in_file && !quiet {
            say(&format!(
                "warning: {key} is set in this shell but the service will not see it: add `{key}=...` to {}",
                env_file.display()
            ));
        }
    }
    if cfg.llm.kind == ProviderKind::Builtin && !quiet {
        say(
            "warning: no LLM is configured, so the service uses the built-in offline extractor; put ANTHROPIC_API_KEY=... (or OPENAI_API_KEY) in the environment file for real extraction",
        );
    }
    Ok(())
}

/// The variable names an environment file sets.
fn read_env_keys(path: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (key, value) = l.strip_prefix("export ").unwrap_or(l).split_once('=')?;
            (!value.trim().is_empty()).then(|| key.trim().to_owned())
        })
        .collect()
}

/// Creates the environment file empty (a comment) and private; an existing one is kept,
/// its mode tightened if others could read it.
fn create_env_file(path: &Path) -> Result<()> {
    if path.exists() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path)?.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                    .with_context(|| format!("could not make {} private", path.display()))?;
                say(&format!(
                    "{} could be read by others (mode {mode:o}): made it 0600",
                    path.display()
                ));
            }
        }
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("could not create {}", parent.display()))?;
    }
    // write_atomic creates files 0600.
    fsutil::write_atomic(path, ENV_FILE_HEADER.as_bytes())
        .with_context(|| format!("could not create {}", path.display()))?;
    say(&format!(
        "created {} (mode 0600) for your API key",
        path.display()
    ));
    Ok(())
}

fn looks_temporary(binary: &Path) -> bool {
    let text = binary.to_string_lossy();
    text.contains("/target/debug/")
        || text.contains("/target/release/")
        || binary.starts_with(std::env::temp_dir())
}

/// The commands that load and start what was written.
fn enable_commands(
    manager: Manager,
    mode: Mode,
    files: &[Rendered],
    replacing: bool,
    env: &Env,
) -> Result<Vec<Vec<String>>> {
    let strings = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    Ok(match manager {
        Manager::Systemd => {
            let mut out = Vec::new();
            if replacing {
                out.push(strings(&[
                    "systemctl",
                    "--user",
                    "disable",
                    "--now",
                    mode.other().unit(manager),
                ]));
            }
            out.push(strings(&["systemctl", "--user", "daemon-reload"]));
            out.push(strings(&[
                "systemctl",
                "--user",
                "enable",
                "--now",
                mode.unit(manager),
            ]));
            out
        }
        Manager::Launchd => {
            let domain = gui_domain(env)?;
            let plist = files[0].path.to_string_lossy().into_owned();
            vec![
                strings(&[
                    "launchctl",
                    "bootout",
                    &format!("{domain}/{}", mode.unit(manager)),
                ]),
                vec!["launchctl".into(), "bootstrap".into(), domain, plist],
            ]
        }
    })
}

fn disable_commands(manager: Manager, mode: Mode, env: &Env) -> Result<Vec<Vec<String>>> {
    let strings = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    Ok(match manager {
        Manager::Systemd => vec![strings(&[
            "systemctl",
            "--user",
            "disable",
            "--now",
            mode.unit(manager),
        ])],
        Manager::Launchd => vec![strings(&[
            "launchctl",
            "bootout",
            &format!("{}/{}", gui_domain(env)?, mode.unit(manager)),
        ])],
    })
}

/// `gui/<uid>`, launchd's domain for the logged-in user.
fn gui_domain(env: &Env) -> Result<String> {
    if let Some(uid) = env.var("UID") {
        return Ok(format!("gui/{uid}"));
    }
    let out = run_tool(&["id".to_owned(), "-u".to_owned()])?;
    Ok(format!("gui/{}", out.trim()))
}

fn print_plan(files: &[Rendered], env_file: &Path, commands: &[Vec<String>]) -> Result<u8> {
    let mut out = String::new();
    for file in files {
        out.push_str(&format!("# {}\n{}\n", file.path.display(), file.text));
    }
    out.push_str(&format!(
        "# {} (created empty, mode 0600, if missing: your API key goes here)\n",
        env_file.display()
    ));
    out.push_str("# then:\n");
    for command in commands {
        out.push_str(&command.join(" "));
        out.push('\n');
    }
    print(&out)?;
    Ok(EXIT_OK)
}

fn uninstall(cfg: &Resolved, env: &Env, args: &ServiceArgs) -> Result<u8> {
    let manager = manager_of(args);
    let dir = unit_dir(manager, env)?;
    let mut removed = 0;
    for mode in [Mode::Timer, Mode::Daemon] {
        let paths: Vec<PathBuf> = mode
            .files(manager)
            .iter()
            .map(|f| dir.join(f))
            .filter(|p| p.exists())
            .collect();
        if paths.is_empty() {
            continue;
        }
        let commands = disable_commands(manager, mode, env)?;
        if args.print {
            for command in &commands {
                print(&format!("{}\n", command.join(" ")))?;
            }
            for path in &paths {
                print(&format!("rm {}\n", path.display()))?;
            }
            continue;
        }
        for command in &commands {
            // Already stopped or never loaded is fine: the files go either way.
            if let Err(e) = run_tool(command) {
                say(&format!("warning: {e:#}"));
            }
        }
        for path in &paths {
            std::fs::remove_file(path)
                .with_context(|| format!("could not remove {}", path.display()))?;
            say(&format!("removed {}", path.display()));
            removed += 1;
        }
    }
    if manager == Manager::Systemd && removed > 0 && !args.print {
        let _ = run_tool(&["systemctl".into(), "--user".into(), "daemon-reload".into()]);
    }
    if removed == 0 && !args.print {
        say(&format!(
            "no memloop {} service is installed",
            manager.name()
        ));
    }
    let env_file = env_file(cfg);
    if env_file.exists() && !args.print {
        say(&format!(
            "kept {}: it holds your API key; delete it yourself if you no longer need it",
            env_file.display()
        ));
    }
    Ok(EXIT_OK)
}

/// What is installed for one service manager, read without changing anything.
#[derive(Debug, Clone)]
pub(crate) struct Inspection {
    pub manager: Manager,
    /// The installed mode and its main file, if any.
    pub installed: Option<(Mode, PathBuf)>,
    /// The binary the installed unit runs.
    pub binary: Option<PathBuf>,
    /// Whether that is the running binary.
    pub points_here: bool,
    /// Whether the installed files are what `install` would write now (binary, schedule,
    /// carried settings).
    pub current: bool,
    /// Enabled (systemd) or loaded (launchd); `None` when the manager could not be asked.
    pub enabled: Option<bool>,
}

/// Looks at what is installed for the native service manager. Runs `systemctl --user
/// is-enabled` or `launchctl print`, bounded in time.
pub(crate) fn inspect(cfg: &Resolved, env: &Env, manager: Manager) -> Result<Inspection> {
    let dir = unit_dir(manager, env)?;
    let installed = [Mode::Timer, Mode::Daemon].into_iter().find_map(|mode| {
        let path = dir.join(mode.files(manager)[0]);
        path.exists().then_some((mode, path))
    });
    let mut inspection = Inspection {
        manager,
        installed: installed.clone(),
        binary: None,
        points_here: false,
        current: false,
        enabled: None,
    };
    let Some((mode, path)) = installed else {
        return Ok(inspection);
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("could not read {}", path.display()))?;
    let here = this_binary()?;
    inspection.binary = service::installed_binary(manager, &text);
    inspection.points_here = inspection.binary.as_deref() == Some(here.as_path());
    inspection.current = expected_texts(cfg, env, manager, mode, &dir).is_some_and(|expected| {
        expected
            .iter()
            .all(|f| std::fs::read_to_string(&f.path).is_ok_and(|t| t == f.text))
    });
    inspection.enabled = match manager {
        Manager::Systemd => {
            run_tool_status(&["systemctl", "--user", "is-enabled", mode.unit(manager)])
        }
        Manager::Launchd => gui_domain(env).ok().and_then(|domain| {
            run_tool_status(&[
                "launchctl",
                "print",
                &format!("{domain}/{}", mode.unit(manager)),
            ])
        }),
    };
    Ok(inspection)
}

/// What `install` would write now, to tell a stale unit from a current one.
fn expected_texts(
    cfg: &Resolved,
    env: &Env,
    manager: Manager,
    mode: Mode,
    dir: &Path,
) -> Option<Vec<Rendered>> {
    let binary = this_binary().ok()?;
    let env_file = env_file(cfg);
    let config = unit_config(cfg);
    let carried = carried(cfg, env);
    let log = env.home().ok()?.join("Library/Logs/memloop.log");
    service::render(
        manager,
        mode,
        dir,
        &Spec {
            binary: &binary,
            config: config.as_deref(),
            env_file: &env_file,
            environment: &carried,
            schedule: &cfg.config.schedule.cron,
            log: &log,
        },
    )
    .ok()
}

fn status(cfg: &Resolved, env: &Env, args: &ServiceArgs) -> Result<u8> {
    let manager = manager_of(args);
    let i = inspect(cfg, env, manager)?;
    let Some((mode, path)) = &i.installed else {
        print(&format!(
            "not installed ({}): run `memloop service install` (or see README: Running it every night)\n",
            manager.name()
        ))?;
        return Ok(EXIT_FAILED);
    };
    let mut out = format!("installed: {} ({})\n", path.display(), mode.unit(manager));
    let mut healthy = true;
    match i.enabled {
        Some(true) => out.push_str("enabled: yes\n"),
        Some(false) => {
            healthy = false;
            out.push_str(&format!(
                "enabled: no: run `memloop service install` again to enable {}\n",
                mode.unit(manager)
            ));
        }
        None => out.push_str(&format!(
            "enabled: unknown ({} did not answer)\n",
            manager.name()
        )),
    }
    if *mode == Mode::Timer || *mode == Mode::Daemon {
        let schedule = &cfg.config.schedule.cron;
        match schedule.next_after(&chrono::Local::now()) {
            Some(next) => out.push_str(&format!(
                "next run: {} (\"{}\", local time)\n",
                next.format("%Y-%m-%d %H:%M"),
                schedule.expr()
            )),
            None => out.push_str(&format!("next run: never (\"{}\")\n", schedule.expr())),
        }
    }
    match (&i.binary, i.points_here) {
        (Some(b), true) => out.push_str(&format!("binary: {} (this one)\n", b.display())),
        (Some(b), false) => {
            healthy = false;
            out.push_str(&format!(
                "binary: {} is not this memloop ({}): run `memloop service install` again\n",
                b.display(),
                this_binary()?.display()
            ));
        }
        (None, _) => {
            healthy = false;
            out.push_str("binary: the unit names none: run `memloop service install` again\n");
        }
    }
    if !i.current && i.points_here {
        healthy = false;
        out.push_str("stale: the unit differs from what this config would install (schedule or settings changed): run `memloop service install` again\n");
    }
    print(&out)?;
    Ok(if healthy { EXIT_OK } else { EXIT_FAILED })
}

/// Runs a service-manager command, bounded in time; its stdout on success, an error with
/// its stderr otherwise. A missing tool names the alternative.
fn run_tool(command: &[String]) -> Result<String> {
    let (program, args) = command.split_first().context("empty command")?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                error::usage(format!(
                    "{program} not found: this machine has no {} user session; run `memloop service install --print` to see the units, use `memloop daemon` under another supervisor, or add a crontab line (see README: Running it every night)",
                    if program == "launchctl" { "launchd" } else { "systemd" }
                ))
            } else {
                anyhow::Error::new(e).context(format!("could not run {program}"))
            }
        })?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > TOOL_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            anyhow::bail!(
                "{} did not answer within {} s",
                command.join(" "),
                TOOL_TIMEOUT.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut s) = child.stdout.take() {
        let _ = s.read_to_string(&mut stdout);
    }
    if let Some(mut s) = child.stderr.take() {
        let _ = s.read_to_string(&mut stderr);
    }
    if status.success() {
        Ok(stdout)
    } else {
        anyhow::bail!("{} failed ({status}): {}", command.join(" "), stderr.trim())
    }
}

/// Whether a query command succeeds; `None` when it cannot be run at all.
fn run_tool_status(command: &[&str]) -> Option<bool> {
    let command: Vec<String> = command.iter().map(|s| (*s).to_owned()).collect();
    match run_tool(&command) {
        Ok(_) => Some(true),
        Err(e) if error::kind_of(&e) == error::Kind::Usage => None,
        Err(e) if e.to_string().contains("did not answer") => None,
        Err(_) => Some(false),
    }
}
