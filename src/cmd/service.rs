//! `memloop service install | uninstall | status`: the nightly job as systemd user units or
//! a launchd agent, for this user and this binary. Install and uninstall build a plan, a
//! list of [`Step`]s (run a command, remove a file, write a unit, create the environment
//! file); `--print` prints it, otherwise it is applied in order. Status prints what
//! [`inspect`] finds: what is installed, whether it is enabled and active, when it next
//! fires and whether it runs this binary.
//!
//! It never puts a key in a unit, and never overwrites the environment file. Rendering the
//! units is `crate::service`'s; running the tools, bounded in time, is [`tool`]'s.

mod inspect;
mod tool;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chrono::Local;

use super::{EXIT_FAILED, EXIT_OK, print, say};
use crate::cli::{Global, ServiceArgs, ServiceCommand};
use crate::config::{ProviderReason, Resolved};
use crate::error;
use crate::fsutil;
use crate::llm::ProviderKind;
use crate::paths::Env;
use crate::service::{self, Manager, Mode, Rendered, Spec};

pub(crate) use inspect::{Inspection, inspect};

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

/// The variables whose presence makes `provider = auto` pick an LLM.
const AUTO_VARS: [&str; 3] = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"];

const ENV_FILE_HEADER: &str = "\
# memloop's service reads this file: KEY=value lines, without `export` (systemd ignores
# such lines). Put your API key here, e.g.
#   ANTHROPIC_API_KEY=sk-ant-...
# or OPENAI_API_KEY=... . Keep this file private (mode 0600); memloop never writes to it
# after creating it.
";

/// Runs `memloop service install | uninstall | status`; its exit status.
pub fn run(global: &Global, env: &Env, cmd: &ServiceCommand) -> Result<u8> {
    let cfg = super::resolve(global, env)?;
    match cmd {
        ServiceCommand::Install(args) => install(&cfg, env, args),
        ServiceCommand::Uninstall(args) => uninstall(&cfg, env, args),
        ServiceCommand::Status(args) => status(&cfg, env, args),
    }
}

/// One change `install` or `uninstall` makes, in the order it is listed.
#[derive(Debug, Clone)]
enum Step {
    /// A service-manager command. `tolerate`: a failure means it was already so (not
    /// loaded, not enabled, no such unit), and the plan goes on.
    Run {
        command: Vec<String>,
        tolerate: bool,
    },
    Remove(PathBuf),
    /// The environment file, created empty and private unless it exists.
    EnvFile(PathBuf),
    Write(Rendered),
}

fn run_step(command: &[&str], tolerate: bool) -> Step {
    Step::Run {
        command: command.iter().map(|s| (*s).to_owned()).collect(),
        tolerate,
    }
}

fn manager_of(args: &ServiceArgs) -> Manager {
    match (args.systemd, args.launchd) {
        (true, _) => Manager::Systemd,
        (_, true) => Manager::Launchd,
        _ => Manager::native(),
    }
}

fn mode_of(args: &ServiceArgs) -> Mode {
    if args.daemon {
        Mode::Daemon
    } else {
        Mode::Timer
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

/// Everything `render` needs for this user, owned.
struct Inputs {
    binary: PathBuf,
    config: Option<PathBuf>,
    env_file: PathBuf,
    carried: Vec<(String, String)>,
    log: PathBuf,
}

impl Inputs {
    fn new(cfg: &Resolved, env: &Env) -> Result<Self> {
        Ok(Self {
            binary: this_binary()?,
            config: unit_config(cfg),
            env_file: env_file(cfg),
            carried: carried(cfg, env),
            log: env.home()?.join("Library/Logs/memloop.log"),
        })
    }

    fn spec<'a>(&'a self, cfg: &'a Resolved) -> Spec<'a> {
        Spec {
            binary: &self.binary,
            config: self.config.as_deref(),
            env_file: &self.env_file,
            environment: &self.carried,
            schedule: &cfg.config.schedule.cron,
            log: &self.log,
        }
    }
}

/// What `install` would write now for `mode`, to tell a stale unit from a current one.
fn expected_files(
    cfg: &Resolved,
    env: &Env,
    manager: Manager,
    mode: Mode,
) -> Option<Vec<Rendered>> {
    let inputs = Inputs::new(cfg, env).ok()?;
    let dir = unit_dir(manager, env).ok()?;
    service::render(manager, mode, &dir, &inputs.spec(cfg)).ok()
}

fn install(cfg: &Resolved, env: &Env, args: &ServiceArgs) -> Result<u8> {
    let manager = manager_of(args);
    let mode = mode_of(args);
    let inputs = Inputs::new(cfg, env)?;
    let dir = unit_dir(manager, env)?;
    let files = service::render(manager, mode, &dir, &inputs.spec(cfg))
        .map_err(|e| error::usage(e.to_string()))?;
    for warning in check_ready(cfg, env, &inputs)? {
        say(&format!("warning: {warning}"));
    }
    let installed = |mode: Mode| -> Vec<PathBuf> {
        mode.files(manager)
            .iter()
            .map(|f| dir.join(f))
            .filter(|p| p.exists())
            .collect()
    };
    let domain = match manager {
        Manager::Systemd => String::new(),
        Manager::Launchd => gui_domain(env)?,
    };
    let steps = install_plan(
        manager,
        mode,
        &domain,
        files,
        &installed(mode.other()),
        !installed(mode).is_empty(),
        &inputs.env_file,
    );
    if args.print {
        print(&render_plan(&steps))?;
        return Ok(EXIT_OK);
    }
    if looks_temporary(&inputs.binary) {
        say(&format!(
            "warning: the unit runs {}, which looks like a build or temporary directory that may go away; install memloop (cargo install --locked --path .) and run `memloop service install` again from there",
            inputs.binary.display()
        ));
    }
    reach(manager, &domain, &inputs.spec(cfg))?;
    apply(&steps, &inputs.spec(cfg))?;
    say(&format!(
        "{} enabled ({}): {}; your API key goes in {}",
        mode.unit(manager),
        manager.name(),
        match mode {
            Mode::Timer => format!(
                "memloop extract on \"{}\", local time",
                cfg.config.schedule.cron.expr()
            ),
            Mode::Daemon => "memloop daemon, kept running".to_owned(),
        },
        inputs.env_file.display()
    ));
    if manager == Manager::Systemd && !lingers(env) {
        say(
            "note: a user service runs only while you are logged in; `loginctl enable-linger` lets it run when you are not",
        );
    }
    Ok(EXIT_OK)
}

/// The steps that install `mode`: the other mode stopped and removed first (never a timer
/// and a daemon both running extractions), the environment file, the units, then the
/// manager told.
fn install_plan(
    manager: Manager,
    mode: Mode,
    domain: &str,
    files: Vec<Rendered>,
    other_installed: &[PathBuf],
    reinstall: bool,
    env_file: &Path,
) -> Vec<Step> {
    let mut steps = Vec::new();
    if !other_installed.is_empty() {
        steps.extend(stop_steps(manager, mode.other(), domain));
        steps.extend(other_installed.iter().cloned().map(Step::Remove));
    }
    steps.push(Step::EnvFile(env_file.to_path_buf()));
    let unit = mode.unit(manager);
    match manager {
        Manager::Systemd => {
            steps.extend(files.into_iter().map(Step::Write));
            steps.push(run_step(&["systemctl", "--user", "daemon-reload"], false));
            steps.push(run_step(
                &["systemctl", "--user", "enable", "--now", unit],
                false,
            ));
            // `enable --now` leaves a running daemon on its old binary and settings.
            if reinstall && mode == Mode::Daemon {
                steps.push(run_step(&["systemctl", "--user", "restart", unit], false));
            }
        }
        Manager::Launchd => {
            let target = format!("{domain}/{unit}");
            let plist = files[0].path.to_string_lossy().into_owned();
            // Loaded or not: launchd reads a plist only when it is bootstrapped.
            steps.push(run_step(&["launchctl", "bootout", &target], true));
            steps.extend(files.into_iter().map(Step::Write));
            // A `launchctl disable` left from before would make bootstrap fail.
            steps.push(run_step(&["launchctl", "enable", &target], false));
            steps.push(run_step(&["launchctl", "bootstrap", domain, &plist], false));
        }
    }
    steps
}

/// The steps that stop `mode` and keep it from starting again.
fn stop_steps(manager: Manager, mode: Mode, domain: &str) -> Vec<Step> {
    let unit = mode.unit(manager);
    match manager {
        Manager::Systemd => vec![run_step(
            &["systemctl", "--user", "disable", "--now", unit],
            true,
        )],
        Manager::Launchd => vec![run_step(
            &["launchctl", "bootout", &format!("{domain}/{unit}")],
            true,
        )],
    }
}

/// The plan as a script a reader can follow (and mostly paste): each file with its path
/// and text, each command as it would run.
fn render_plan(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Run { command, .. } => {
                let words: Vec<String> = command.iter().map(|w| shell_word(w)).collect();
                out.push_str(&words.join(" "));
                out.push('\n');
            }
            Step::Remove(path) => {
                out.push_str(&format!("rm {}\n", shell_word(&path.to_string_lossy())));
            }
            Step::EnvFile(path) => out.push_str(&format!(
                "# {}: created empty with mode 0600 if missing (your API key goes here; never overwritten)\n",
                path.display()
            )),
            Step::Write(file) => {
                out.push_str(&format!("# {}\n{}", file.path.display(), file.text));
                if !file.text.ends_with('\n') {
                    out.push('\n');
                }
                out.push('\n');
            }
        }
    }
    out
}

/// A word as a shell reads it: bare when plain, else single-quoted.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c));
    if plain {
        word.to_owned()
    } else {
        service::shell_quote(word)
    }
}

/// Applies the plan in order. A failing command that the plan does not tolerate stops it.
fn apply(steps: &[Step], spec: &Spec<'_>) -> Result<()> {
    for step in steps {
        match step {
            Step::Run { command, tolerate } => match tool::call(command, tool::APPLY_TIMEOUT) {
                Ok(out) if out.success => {}
                Ok(out) if out.unreachable() => {
                    return Err(no_manager(command, &out.said(), spec));
                }
                Ok(_) | Err(_) if *tolerate => {}
                Ok(out) => anyhow::bail!(
                    "`{}` failed ({}): {}",
                    command.join(" "),
                    out.code
                        .map_or_else(|| "killed".to_owned(), |c| format!("exit {c}")),
                    out.said()
                ),
                Err(tool::ToolError::Missing(program)) => {
                    return Err(no_manager(command, &format!("{program} not found"), spec));
                }
                Err(e) => return Err(e.into()),
            },
            Step::Remove(path) => {
                std::fs::remove_file(path)
                    .with_context(|| format!("could not remove {}", path.display()))?;
                say(&format!("removed {}", path.display()));
            }
            Step::EnvFile(path) => create_env_file(path)?,
            Step::Write(file) => {
                if let Some(parent) = file.path.parent() {
                    std::fs::create_dir_all(parent)
                        .with_context(|| format!("could not create {}", parent.display()))?;
                }
                fsutil::write_atomic(&file.path, file.text.as_bytes())
                    .with_context(|| format!("could not write {}", file.path.display()))?;
                say(&format!("wrote {}", file.path.display()));
            }
        }
    }
    Ok(())
}

/// Asks the manager a harmless question before anything is written, so a machine without
/// one (a container, WSL) gets the alternatives and an untouched home.
fn reach(manager: Manager, domain: &str, spec: &Spec<'_>) -> Result<()> {
    let probe: Vec<String> = match manager {
        Manager::Systemd => vec![
            "systemctl".into(),
            "--user".into(),
            "show".into(),
            "--property=Version".into(),
        ],
        Manager::Launchd => vec!["launchctl".into(), "print".into(), domain.to_owned()],
    };
    match tool::call(&probe, tool::QUERY_TIMEOUT) {
        Ok(out) if out.success => Ok(()),
        Ok(out) => Err(no_manager(&probe, &out.said(), spec)),
        Err(tool::ToolError::Missing(program)) => {
            Err(no_manager(&probe, &format!("{program} not found"), spec))
        }
        Err(e) => Err(no_manager(&probe, &e.to_string(), spec)),
    }
}

/// The usage error for a machine whose service manager cannot be used, with the two ways
/// that need none.
fn no_manager(command: &[String], said: &str, spec: &Spec<'_>) -> anyhow::Error {
    let manager = if command.first().is_some_and(|p| p == "launchctl") {
        "launchd's user agent domain"
    } else {
        "systemd's user instance"
    };
    error::usage(format!(
        "{manager} is not reachable (`{}`: {said}), as in a container or WSL without systemd; \
         run `memloop daemon` under a supervisor you have, or add this line with `crontab -e`:\n  {}",
        command.join(" "),
        service::crontab_line(spec)
    ))
}

/// Whether systemd keeps this user's services running after logout.
fn lingers(env: &Env) -> bool {
    let Some(user) = env.var("USER").or_else(|| env.var("LOGNAME")) else {
        return true;
    };
    Path::new("/var/lib/systemd/linger").join(user).exists()
}

/// Refuses an install that would run and fail every night, with the fix; the warnings for
/// one that would run, but not as the user may expect. Judged by the environment the
/// service will have: the carried settings and the environment file, not this shell.
fn check_ready(cfg: &Resolved, env: &Env, inputs: &Inputs) -> Result<Vec<String>> {
    if let Err(e) = super::require_vaults(cfg) {
        return Err(error::usage(format!(
            "the service would do nothing: {e}; then run this again"
        )));
    }
    let env_file = inputs.env_file.display();
    let home = env.home()?;
    let home = home.to_string_lossy();
    let (file_vars, exported) = std::fs::read_to_string(&inputs.env_file)
        .map(|text| parse_env_file(&text))
        .unwrap_or_default();
    let mut warnings: Vec<String> = exported
        .iter()
        .map(|k| {
            format!(
                "{env_file}: systemd ignores `export {k}=...`: write `{k}=...` without `export`"
            )
        })
        .collect();
    let service_env = Env::from_pairs(
        std::iter::once(("HOME", home.as_ref()))
            .chain(inputs.carried.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .chain(file_vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
    );
    let service = Resolved::new(cfg.config.clone(), cfg.paths.clone(), &service_env)
        .map_err(|e| error::usage(format!("{e}")))?;
    let key = match service.llm.kind {
        ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
        _ => "OPENAI_API_KEY",
    };
    if let Err(e) = service.require_credentials() {
        if exported.iter().any(|k| k == key) {
            return Err(error::usage(format!(
                "the service would fail every night: {e}: systemd ignores `export {key}=...` in {env_file}: write `{key}=...` without `export`, then run this again"
            )));
        }
        if env.var(key).is_none() {
            return Err(error::usage(format!(
                "the service would fail every night: {e}: put `{key}=...` in {env_file} (the service reads it from there), then run this again"
            )));
        }
        // It may reach the service another way (systemd's environment.d); say what to do.
        warnings.push(format!(
            "{key} is set in this shell but the service will not see it: add `{key}=...` to {env_file}, or each run fails"
        ));
    }
    if service.provider_reason == ProviderReason::Fallback {
        warnings.push(match AUTO_VARS.iter().find(|v| env.var(v).is_some()) {
            Some(var) => format!(
                "{var} is set in this shell but the service will not see it, so it would use the built-in offline extractor: add `{var}=...` to {env_file}"
            ),
            None => format!(
                "no LLM is configured (provider auto), so the service uses the built-in offline extractor; put ANTHROPIC_API_KEY=... (or OPENAI_API_KEY=...) in {env_file} for real extraction"
            ),
        });
    }
    Ok(warnings)
}

/// The `KEY=value` pairs of an environment file as systemd reads it (comments and blank
/// lines skipped, one pair of surrounding quotes dropped), and the keys of the lines that
/// start with `export `: `sh` (launchd's agent) takes them, systemd silently ignores them.
fn parse_env_file(text: &str) -> (Vec<(String, String)>, Vec<String>) {
    let mut pairs = Vec::new();
    let mut exported = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("export ") {
            if let Some((key, _)) = rest.split_once('=') {
                exported.push(key.trim().to_owned());
            }
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim();
        let value = ['"', '\'']
            .iter()
            .find_map(|q| value.strip_prefix(*q)?.strip_suffix(*q))
            .unwrap_or(value);
        pairs.push((key.trim().to_owned(), value.to_owned()));
    }
    (pairs, exported)
}

/// Creates the environment file empty (a comment) and private; an existing one is kept,
/// its mode tightened if others could read it.
fn create_env_file(path: &Path) -> Result<()> {
    if path.exists() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path)
                .with_context(|| format!("could not read {}", path.display()))?
                .permissions()
                .mode()
                & 0o777;
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

/// A binary in a cargo `target/` directory or the temp directory, which a unit would
/// outlive.
fn looks_temporary(binary: &Path) -> bool {
    let text = binary.to_string_lossy();
    text.contains("/target/debug/")
        || text.contains("/target/release/")
        || binary
            .ancestors()
            .any(|dir| dir.ends_with("target") && dir.join("CACHEDIR.TAG").exists())
        || binary.starts_with(std::env::temp_dir())
}

/// `gui/<uid>`, launchd's domain for the logged-in user.
fn gui_domain(env: &Env) -> Result<String> {
    if let Some(uid) = env.var("UID") {
        return Ok(format!("gui/{uid}"));
    }
    let out = tool::call(&["id".to_owned(), "-u".to_owned()], tool::QUERY_TIMEOUT)?;
    let uid = out.stdout.trim();
    anyhow::ensure!(
        out.success && !uid.is_empty() && uid.chars().all(|c| c.is_ascii_digit()),
        "could not find your user id (`id -u`: {})",
        out.said()
    );
    Ok(format!("gui/{uid}"))
}

fn uninstall(cfg: &Resolved, env: &Env, args: &ServiceArgs) -> Result<u8> {
    let manager = manager_of(args);
    let dir = unit_dir(manager, env)?;
    let installed: Vec<(Mode, Vec<PathBuf>)> = [Mode::Timer, Mode::Daemon]
        .into_iter()
        .map(|mode| {
            let paths = mode
                .files(manager)
                .iter()
                .map(|f| dir.join(f))
                .filter(|p| p.exists())
                .collect::<Vec<_>>();
            (mode, paths)
        })
        .filter(|(_, paths)| !paths.is_empty())
        .collect();
    let env_file = env_file(cfg);
    if installed.is_empty() {
        say(&format!(
            "no memloop {} service is installed in {}",
            manager.name(),
            dir.display()
        ));
        return Ok(EXIT_OK);
    }
    let domain = match manager {
        Manager::Systemd => String::new(),
        // Without a user id there is nothing loaded to boot out; the files still go.
        Manager::Launchd => gui_domain(env).unwrap_or_else(|_| "gui/$(id -u)".to_owned()),
    };
    let mut steps = Vec::new();
    for (mode, paths) in installed {
        steps.extend(stop_steps(manager, mode, &domain));
        steps.extend(paths.into_iter().map(Step::Remove));
    }
    if manager == Manager::Systemd {
        steps.push(run_step(&["systemctl", "--user", "daemon-reload"], true));
    }
    if args.print {
        print(&render_plan(&steps))?;
        return Ok(EXIT_OK);
    }
    for step in &steps {
        match step {
            // Already stopped, never loaded, or no manager at all: the files go either way.
            Step::Run { command, .. } => match tool::call(command, tool::APPLY_TIMEOUT) {
                Ok(out) if out.success => {}
                Ok(out) if out.unreachable() => {
                    say(&format!("warning: `{}`: {}", command.join(" "), out.said()));
                }
                Ok(_) => {}
                Err(e) => say(&format!("warning: {e}")),
            },
            Step::Remove(path) => {
                std::fs::remove_file(path)
                    .with_context(|| format!("could not remove {}", path.display()))?;
                say(&format!("removed {}", path.display()));
            }
            Step::EnvFile(_) | Step::Write(_) => {}
        }
    }
    if env_file.exists() {
        say(&format!(
            "kept {}: it holds your API key; delete it yourself if you no longer need it",
            env_file.display()
        ));
    }
    Ok(EXIT_OK)
}

fn status(cfg: &Resolved, env: &Env, args: &ServiceArgs) -> Result<u8> {
    let manager = manager_of(args);
    let i = inspect(cfg, env, manager)?;
    let (text, healthy) = describe(&i, cfg, &this_binary()?, &Local::now());
    print(&text)?;
    Ok(if healthy { EXIT_OK } else { EXIT_FAILED })
}

/// What `status` prints for an inspection, and whether all is well: installed, enabled,
/// active, running `here`, and what this config would install.
fn describe(
    i: &Inspection,
    cfg: &Resolved,
    here: &Path,
    now: &chrono::DateTime<Local>,
) -> (String, bool) {
    let manager = i.manager.name();
    let Some((mode, path)) = &i.installed else {
        return (
            format!(
                "not installed ({manager}): run `memloop service install` (or see README: Running it every night)\n"
            ),
            false,
        );
    };
    let unit = mode.unit(i.manager);
    let again = "run `memloop service install` again";
    let mut out = format!("installed: {} ({unit}, {manager})\n", path.display());
    for file in i.files.iter().filter(|f| *f != path) {
        out.push_str(&format!("  and {}\n", file.display()));
    }
    let mut healthy = true;
    if let Some(why) = &i.unreachable {
        healthy = false;
        out.push_str(&format!("{manager} could not be asked: {why}\n"));
    }
    match i.enabled {
        Some(true) => out.push_str("enabled: yes\n"),
        Some(false) => {
            healthy = false;
            out.push_str(&format!("enabled: no: {again} to enable {unit}\n"));
        }
        None => {
            healthy = false;
            out.push_str("enabled: unknown\n");
        }
    }
    match (i.active, mode) {
        (Some(true), Mode::Timer) => out.push_str("active: yes (waiting for the next run)\n"),
        (Some(true), Mode::Daemon) => out.push_str("active: yes (running)\n"),
        (Some(false), _) => {
            healthy = false;
            out.push_str(&format!("active: no: {again} to start {unit}\n"));
        }
        (None, _) => {}
    }
    let expr = i
        .schedule
        .as_ref()
        .unwrap_or(&cfg.config.schedule.cron)
        .expr();
    match i.next_run(cfg, now) {
        Some(next) => out.push_str(&format!(
            "next run: {} (\"{expr}\", local time)\n",
            next.format("%Y-%m-%d %H:%M")
        )),
        None => out.push_str(&format!("next run: never (\"{expr}\")\n")),
    }
    match (&i.binary, i.points_here) {
        (Some(b), true) => out.push_str(&format!("binary: {} (this one)\n", b.display())),
        (Some(b), false) => {
            healthy = false;
            out.push_str(&format!(
                "binary: {} is not this memloop ({}): {again}\n",
                b.display(),
                here.display()
            ));
        }
        (None, _) => {
            healthy = false;
            out.push_str(&format!("binary: the unit names none: {again}\n"));
        }
    }
    if !i.current && i.points_here {
        healthy = false;
        out.push_str(&format!(
            "stale: the unit differs from what this config would install (schedule or settings changed): {again}\n"
        ));
    }
    (out, healthy)
}

#[cfg(test)]
mod tests;
