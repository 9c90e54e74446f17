//! `memloop service install | uninstall | status`: the units carry this binary's absolute
//! path and the config's schedule, `--print` changes nothing, install writes the units and
//! a private empty environment file and enables them, uninstall keeps the key file, status
//! says whether the unit runs this binary, and a machine without a service manager gets
//! the alternatives and an untouched home.
//!
//! `systemctl`, `launchctl` and `id` are fakes on PATH that record their arguments and
//! answer the way the real ones do where it matters (disabling a unit whose file is gone
//! fails, booting out an agent that is not loaded fails, no user bus fails everything but
//! `is-enabled`): no test touches the real service manager.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::{TestEnv, read, write_file};

/// The memloop binary the tests run, as `install` resolves it.
fn binary() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_memloop"))
        .canonicalize()
        .unwrap()
}

fn units(env: &TestEnv) -> PathBuf {
    env.home().join(".config/systemd/user")
}

fn agents(env: &TestEnv) -> PathBuf {
    env.home().join("Library/LaunchAgents")
}

/// The fake tools' directory. Its marker files change their answers: `disabled` (the unit
/// is not enabled or active), `nobus` (no systemd user instance), `loaded-LABEL` (a
/// launchd agent is loaded).
struct Tools(PathBuf);

impl Tools {
    fn new(env: &TestEnv) -> Self {
        let dir = env.root().join("fakebin");
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("calls.log");
        let units = units(env);
        let (d, l, u) = (dir.display(), log.display(), units.display());
        let systemctl = format!(
            r#"#!/bin/sh
echo "systemctl $*" >> '{l}'
if [ -f '{d}/nobus' ] && [ "$2" != is-enabled ]; then echo 'Failed to connect to bus: No medium found' >&2; exit 1; fi
case "$2" in
  show) echo Version=252 ;;
  is-enabled) if [ -f '{d}/disabled' ]; then echo disabled; exit 1; fi; echo enabled ;;
  is-active) if [ -f '{d}/disabled' ]; then echo inactive; exit 3; fi; echo active ;;
  disable|enable) if [ ! -f '{u}/'"$4" ]; then echo "Failed to $2 unit: Unit file $4 does not exist." >&2; exit 1; fi ;;
esac
exit 0
"#
        );
        let launchctl = format!(
            r#"#!/bin/sh
echo "launchctl $*" >> '{l}'
case "$1" in
  print) case "$2" in
    */*/*) label="${{2##*/}}"; if [ -f '{d}/loaded-'"$label" ]; then echo 'state = running'; exit 0; fi
      echo "Could not find service \"$label\" in domain for user gui: 501" >&2; exit 113 ;;
    *) echo 'domain = gui/501' ;;
  esac ;;
  bootout) label="${{2##*/}}"; if [ ! -f '{d}/loaded-'"$label" ]; then echo 'Boot-out failed: 3: No such process' >&2; exit 3; fi
    rm '{d}/loaded-'"$label" ;;
  bootstrap) if [ ! -f "$3" ]; then exit 5; fi; touch '{d}/loaded-'"$(basename "$3" .plist)" ;;
esac
exit 0
"#
        );
        for (name, script) in [
            ("systemctl", systemctl),
            ("launchctl", launchctl),
            ("id", "#!/bin/sh\necho 501\n".to_owned()),
        ] {
            let path = dir.join(name);
            write_file(&path, script.as_bytes());
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Self(dir)
    }

    /// Creates or removes a marker file.
    fn set(&self, marker: &str, on: bool) {
        let path = self.0.join(marker);
        if on {
            write_file(&path, b"");
        } else {
            let _ = std::fs::remove_file(path);
        }
    }

    /// The recorded calls, one per line, and forgets them.
    fn take_calls(&self) -> String {
        let log = self.0.join("calls.log");
        let calls = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(log);
        calls
    }

    /// The binary with the fake tools first on PATH.
    fn cmd(&self, env: &TestEnv) -> assert_cmd::Command {
        let mut cmd = env.cmd();
        cmd.env(
            "PATH",
            format!(
                "{}:{}",
                self.0.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        );
        cmd
    }

    fn memloop(&self, env: &TestEnv, args: &[&str]) -> std::process::Output {
        self.cmd(env).args(args).output().unwrap()
    }
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn install_print_shows_the_units_for_this_binary_and_changes_nothing() {
    let env = TestEnv::with_fixtures();
    env.config("[schedule]\ncron = \"15 4 * * 1-5\"\n");
    let tools = Tools::new(&env);
    let before = env.snapshot_tree();
    let out = tools.memloop(&env, &["service", "install", "--systemd", "--print"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    let units = units(&env);
    assert!(
        text.contains(&format!(
            "# {}\n",
            units.join("memloop-extract.service").display()
        )),
        "every file with its path: {text}"
    );
    assert!(
        text.contains(&format!(
            "# {}\n",
            units.join("memloop-extract.timer").display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("ExecStart={} extract --quiet", binary().display())),
        "{text}"
    );
    assert!(
        text.contains("OnCalendar=Mon..Fri *-*-* 04:15:00"),
        "{text}"
    );
    assert!(text.contains("SuccessExitStatus=75 143"), "{text}");
    assert!(text.contains("Persistent=true"), "{text}");
    assert!(
        text.contains(&format!(
            "Environment=VAULTS_DIR={}",
            env.vaults().display()
        )),
        "the unit sees the vaults the shell named: {text}"
    );
    assert!(
        text.ends_with(
            "systemctl --user daemon-reload\nsystemctl --user enable --now memloop-extract.timer\n"
        ),
        "every command it would run: {text}"
    );
    env.snapshot_tree().assert_unchanged_since(&before);
    assert_eq!(tools.take_calls(), "", "nothing was run");

    let out = tools.memloop(
        &env,
        &["service", "install", "--launchd", "--daemon", "--print"],
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    let plist = agents(&env).join("io.github.memloop.daemon.plist");
    assert!(text.contains(&format!("# {}\n", plist.display())), "{text}");
    assert!(text.contains("<key>KeepAlive</key>"), "{text}");
    assert!(
        text.contains(&format!(
            "exec &apos;{}&apos; daemon</string>",
            binary().display()
        )),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            "launchctl enable gui/501/io.github.memloop.daemon\nlaunchctl bootstrap gui/501 {}\n",
            plist.display()
        )),
        "{text}"
    );
    env.snapshot_tree().assert_unchanged_since(&before);
    assert_eq!(tools.take_calls(), "", "nothing was run");
}

#[test]
fn install_writes_units_and_a_private_env_file_then_enables_the_timer() {
    let env = TestEnv::with_fixtures();
    let tools = Tools::new(&env);
    let out = tools
        .cmd(&env)
        .env("ANTHROPIC_API_KEY", "sk-ant-secret-in-shell")
        .args(["service", "install", "--systemd"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let service = read(&units(&env).join("memloop-extract.service"));
    let timer = read(&units(&env).join("memloop-extract.timer"));
    assert!(service.contains(&format!("ExecStart={} extract --quiet", binary().display())));
    assert!(timer.contains("OnCalendar=*-*-* 03:00:00"), "{timer}");
    assert!(!service.contains("secret-in-shell"), "no key in a unit");
    assert!(
        err.contains("ANTHROPIC_API_KEY is set in this shell but the service will not see it, so it would use the built-in offline extractor"),
        "{err}"
    );

    let env_file = env.config_dir().join("env");
    let mode = std::fs::metadata(&env_file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(read(&env_file).contains("#   ANTHROPIC_API_KEY=sk-ant-..."));
    assert!(
        !read(&env_file).contains("secret-in-shell"),
        "created empty"
    );
    assert!(
        service.contains(&format!("EnvironmentFile=-{}", env_file.display())),
        "{service}"
    );
    assert_eq!(
        tools.take_calls(),
        "systemctl --user show --property=Version\nsystemctl --user daemon-reload\nsystemctl --user enable --now memloop-extract.timer\n"
    );

    // An existing env file is never overwritten; a loose mode is tightened.
    write_file(&env_file, b"ANTHROPIC_API_KEY=sk-ant-mine\n");
    std::fs::set_permissions(&env_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = tools.memloop(&env, &["service", "install", "--systemd", "--daemon"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(read(&env_file), "ANTHROPIC_API_KEY=sk-ant-mine\n");
    let mode = std::fs::metadata(&env_file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(err.contains("made it 0600"), "{err}");
    assert!(
        !err.contains("will not see"),
        "the key is in the env file: {err}"
    );
    assert!(
        err.contains("looks like a build or temporary directory"),
        "a unit running a cargo target/ binary breaks with it: {err}"
    );
    // The daemon replaces the timer, stopped before its files go: never both.
    assert!(units(&env).join("memloop.service").exists());
    assert!(!units(&env).join("memloop-extract.timer").exists());
    assert!(!units(&env).join("memloop-extract.service").exists());
    assert_eq!(
        tools.take_calls(),
        "systemctl --user show --property=Version\nsystemctl --user disable --now memloop-extract.timer\nsystemctl --user daemon-reload\nsystemctl --user enable --now memloop.service\n"
    );

    // Installed again, the running daemon is restarted onto the new unit.
    let out = tools.memloop(&env, &["service", "install", "--systemd", "--daemon"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        tools
            .take_calls()
            .ends_with("enable --now memloop.service\nsystemctl --user restart memloop.service\n")
    );

    let out = tools.memloop(&env, &["service", "uninstall", "--systemd"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(!units(&env).join("memloop.service").exists());
    assert!(env_file.exists(), "the key file stays");
    assert!(
        err.contains(&format!("kept {}", env_file.display())),
        "{err}"
    );
    assert_eq!(
        tools.take_calls(),
        "systemctl --user disable --now memloop.service\nsystemctl --user daemon-reload\n"
    );
    let out = tools.memloop(&env, &["service", "uninstall", "--systemd"]);
    assert!(out.status.success());
    assert!(stderr(&out).contains("no memloop systemd service is installed"));
}

#[test]
fn install_loads_a_launchd_agent_and_uninstall_boots_it_out() {
    let env = TestEnv::with_fixtures();
    let tools = Tools::new(&env);
    let out = tools.memloop(&env, &["service", "install", "--launchd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let plist = agents(&env).join("io.github.memloop.extract.plist");
    let text = read(&plist);
    assert!(text.contains("<key>StartCalendarInterval</key>"), "{text}");
    assert!(
        text.contains(&format!(
            "exec &apos;{}&apos; extract --quiet",
            binary().display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "<string>{}</string>",
            env.home().join("Library/Logs/memloop.log").display()
        )),
        "{text}"
    );
    // Not loaded yet: the bootout fails and install goes on.
    assert_eq!(
        tools.take_calls(),
        format!(
            "launchctl print gui/501\nlaunchctl bootout gui/501/io.github.memloop.extract\nlaunchctl enable gui/501/io.github.memloop.extract\nlaunchctl bootstrap gui/501 {}\n",
            plist.display()
        )
    );

    let out = tools.memloop(&env, &["service", "status", "--launchd"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("enabled: yes"), "{text}");
    assert!(text.contains("(this one)"), "{text}");
    assert_eq!(
        tools.take_calls(),
        "launchctl print gui/501/io.github.memloop.extract\n"
    );

    let out = tools.memloop(&env, &["service", "uninstall", "--launchd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!plist.exists());
    assert!(env.config_dir().join("env").exists());
    assert_eq!(
        tools.take_calls(),
        "launchctl bootout gui/501/io.github.memloop.extract\n"
    );
    let out = tools.memloop(&env, &["service", "status", "--launchd"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with("not installed (launchd)"));
}

#[test]
fn install_refuses_without_a_vault_or_with_a_provider_that_has_no_key() {
    let env = TestEnv::new();
    let tools = Tools::new(&env);
    let out = tools.memloop(&env, &["service", "install", "--systemd"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the service would do nothing: no vault found"),
        "{err}"
    );
    assert!(!units(&env).exists());
    assert_eq!(tools.take_calls(), "");

    let env = TestEnv::with_fixtures();
    env.config("[llm]\nprovider = \"anthropic\"\n");
    let tools = Tools::new(&env);
    let out = tools.memloop(&env, &["service", "install", "--systemd"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the service would fail every night"), "{err}");
    assert!(err.contains("`ANTHROPIC_API_KEY=...`"), "{err}");
    assert!(
        err.contains(&env.config_dir().join("env").display().to_string()),
        "{err}"
    );
    assert!(!units(&env).exists());

    // systemd ignores an `export` line: the service would still have no key.
    write_file(
        &env.config_dir().join("env"),
        b"# mine\nexport ANTHROPIC_API_KEY=\"sk-ant-x\"\n",
    );
    let out = tools.memloop(&env, &["service", "install", "--systemd"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("systemd ignores `export ANTHROPIC_API_KEY=...`"),
        "{err}"
    );
    assert!(!units(&env).exists());

    // The key in the environment file is what the service will use: accepted.
    write_file(
        &env.config_dir().join("env"),
        b"# mine\nANTHROPIC_API_KEY=\"sk-ant-x\"\n",
    );
    let out = tools.memloop(&env, &["service", "install", "--systemd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("will not see"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("built-in"), "{}", stderr(&out));
}

#[test]
fn a_schedule_launchd_cannot_express_suggests_the_daemon() {
    let env = TestEnv::with_fixtures();
    env.config("[schedule]\ncron = \"*/5 9-17 * * 1-5\"\n");
    let tools = Tools::new(&env);
    let before = env.snapshot_tree();
    let out = tools.memloop(&env, &["service", "install", "--launchd"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("launchd cannot express the schedule \"*/5 9-17 * * 1-5\""),
        "{err}"
    );
    assert!(err.contains("memloop service install --daemon"), "{err}");
    env.snapshot_tree().assert_unchanged_since(&before);
    // The daemon follows any expression.
    let out = tools.memloop(&env, &["service", "install", "--launchd", "--daemon"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn no_systemd_here_is_a_clear_error_with_the_crontab_line_and_changes_nothing() {
    let env = TestEnv::with_fixtures();
    let tools = Tools::new(&env);
    let before = env.snapshot_tree();

    // A container whose systemctl cannot reach a user instance.
    tools.set("nobus", true);
    let out = tools.memloop(&env, &["service", "install", "--systemd"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("systemd's user instance is not reachable"),
        "{err}"
    );
    assert!(err.contains("Failed to connect to bus"), "{err}");
    assert!(err.contains("crontab -e"), "{err}");
    assert!(
        err.contains(&format!(
            "0 3 * * * set -a; [ -r '{0}' ] && . '{0}'; set +a; exec '{1}' extract -q",
            env.config_dir().join("env").display(),
            binary().display()
        )),
        "{err}"
    );
    env.snapshot_tree().assert_unchanged_since(&before);

    // No systemctl at all.
    let empty = env.root().join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let out = env
        .cmd()
        .env("PATH", &empty)
        .args(["service", "install", "--systemd"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("systemctl not found"), "{err}");
    assert!(err.contains("memloop daemon"), "{err}");
    env.snapshot_tree().assert_unchanged_since(&before);
}

#[test]
fn status_says_whether_the_unit_runs_this_binary() {
    let env = TestEnv::with_fixtures();
    env.config("[schedule]\ncron = \"15 4 * * *\"\n");
    let tools = Tools::new(&env);
    let status = || {
        let out = tools.memloop(&env, &["service", "status", "--systemd"]);
        (out.status.code(), stdout(&out))
    };
    let (code, text) = status();
    assert_eq!(code, Some(1));
    assert!(text.starts_with("not installed (systemd)"), "{text}");

    let out = tools.memloop(&env, &["service", "install", "--systemd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (code, text) = status();
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.starts_with(&format!(
            "installed: {} (memloop-extract.timer, systemd)\n  and {}\n",
            units(&env).join("memloop-extract.service").display(),
            units(&env).join("memloop-extract.timer").display()
        )),
        "{text}"
    );
    assert!(text.contains("enabled: yes"), "{text}");
    assert!(text.contains("active: yes"), "{text}");
    assert!(text.contains("(this one)"), "{text}");
    assert!(text.contains(":15 (\"15 4 * * *\", local time)"), "{text}");

    // Disabled by hand.
    tools.set("disabled", true);
    let (code, text) = status();
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("enabled: no"), "{text}");
    tools.set("disabled", false);

    // No user instance to ask (a container): not known to run, so not healthy.
    tools.set("nobus", true);
    let (code, text) = status();
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("systemd could not be asked: Failed to connect to bus"),
        "{text}"
    );
    tools.set("nobus", false);

    // A unit left by another memloop (an old install elsewhere) is named and fixed by
    // installing again.
    let path = units(&env).join("memloop-extract.service");
    let unit = read(&path).replace(&binary().display().to_string(), "/opt/old/memloop");
    write_file(&path, unit.as_bytes());
    let (code, text) = status();
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("binary: /opt/old/memloop is not this memloop"),
        "{text}"
    );
    assert!(
        text.contains("run `memloop service install` again"),
        "{text}"
    );

    // A timer whose service file is gone is installed and broken, not absent.
    std::fs::remove_file(&path).unwrap();
    let (code, text) = status();
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.starts_with(&format!(
            "installed: {} (memloop-extract.timer, systemd)\n",
            units(&env).join("memloop-extract.timer").display()
        )),
        "{text}"
    );
    assert!(text.contains("binary: the unit names none"), "{text}");

    // A changed schedule makes the installed timer stale; it still fires on its own.
    let out = tools.memloop(&env, &["service", "install", "--systemd"]);
    assert!(out.status.success());
    env.config("[schedule]\ncron = \"0 5 * * *\"\n");
    let (code, text) = status();
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("stale"), "{text}");
    assert!(text.contains(":15 (\"15 4 * * *\", local time)"), "{text}");
}

/// The rendered units pass `systemd-analyze verify` where it exists.
#[test]
fn systemd_analyze_verifies_the_rendered_units() {
    if !std::process::Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("systemd-analyze not found: units not verified");
        return;
    }
    let env = TestEnv::with_fixtures();
    let tools = Tools::new(&env);
    for daemon in [false, true] {
        let mut args = vec!["service", "install", "--systemd"];
        if daemon {
            args.push("--daemon");
        }
        let out = tools.memloop(&env, &args);
        assert!(out.status.success(), "{}", stderr(&out));
        let files: Vec<PathBuf> = std::fs::read_dir(units(&env))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        let out = std::process::Command::new("systemd-analyze")
            .arg("verify")
            .arg("--man=no")
            .args(&files)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{files:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A systemd user instance of the test's own, in the temp home, stopped when dropped.
struct UserSystemd {
    child: std::process::Child,
    runtime: PathBuf,
}

impl UserSystemd {
    /// `None` where systemd cannot run a user instance (not booted with systemd: most
    /// containers).
    fn start(env: &TestEnv) -> Option<Self> {
        if !Path::new("/run/systemd/system").is_dir() {
            return None;
        }
        let binary = ["/usr/lib/systemd/systemd", "/lib/systemd/systemd"]
            .into_iter()
            .find(|p| Path::new(p).exists())?;
        let runtime = env.root().join("run");
        std::fs::create_dir_all(&runtime).unwrap();
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
        let child = std::process::Command::new(binary)
            .arg("--user")
            .env_clear()
            .env("HOME", env.home())
            .env("XDG_CONFIG_HOME", env.home().join(".config"))
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()?;
        let systemd = Self { child, runtime };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !systemd.runtime.join("systemd/private").exists() {
            if std::time::Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Some(systemd)
    }

    fn systemctl(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("systemctl")
            .arg("--user")
            .args(args)
            .env("XDG_RUNTIME_DIR", &self.runtime)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for UserSystemd {
    fn drop(&mut self) {
        // SIGTERM lets it stop its units; then make sure.
        let _ = std::process::Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        std::thread::sleep(std::time::Duration::from_secs(1));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The proof that the installed units work: a real systemd user instance loads them, the
/// timer fires and the run it starts writes memory. Slow (up to a minute for the timer)
/// and only where systemd can run a user instance, so run on demand:
/// `cargo test --test it -- --ignored a_real_user_systemd`.
#[test]
#[ignore = "starts a real systemd --user and waits for the timer"]
fn a_real_user_systemd_fires_the_timer_and_the_run_writes_memory() {
    let env = TestEnv::with_fixtures();
    env.config("settle_minutes = 0\n[schedule]\ncron = \"* * * * *\"\n");
    let Some(systemd) = UserSystemd::start(&env) else {
        eprintln!("no systemd user instance can run here: timer not proven");
        return;
    };
    let claude = env.root().join("claude");
    let out = env
        .cmd()
        .env("XDG_RUNTIME_DIR", &systemd.runtime)
        // The memory file under the temp dir whatever HOME the manager gives the unit.
        .env("CLAUDE_CONFIG_DIR", &claude)
        .args(["service", "install", "--systemd"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // The randomized delay is the unit's; the test need not wait for it.
    write_file(
        &units(&env).join("memloop-extract.timer.d/now.conf"),
        b"[Timer]\nRandomizedDelaySec=0\n",
    );
    systemd.systemctl(&["daemon-reload"]);
    let memory = claude.join("rules/memory.md");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    while !memory.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the timer did not fire a run: {}",
            systemd.systemctl(&["list-timers", "--all", "--no-pager"])
        );
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert!(read(&memory).contains("## "), "{}", read(&memory));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let shown = systemd.systemctl(&[
            "show",
            "memloop-extract.service",
            "-p",
            "Result",
            "-p",
            "ExecMainStatus",
            "-p",
            "ActiveState",
        ]);
        if shown.contains("ActiveState=inactive") {
            assert!(shown.contains("Result=success"), "{shown}");
            assert!(shown.contains("ExecMainStatus=0"), "{shown}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{shown}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let out = env
        .cmd()
        .env("XDG_RUNTIME_DIR", &systemd.runtime)
        .env("CLAUDE_CONFIG_DIR", &claude)
        .args(["service", "status", "--systemd"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("active: yes"), "{}", stdout(&out));
}
