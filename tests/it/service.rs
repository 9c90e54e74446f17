//! `memloop service install | uninstall | status`: the units carry this binary's absolute
//! path and the config's schedule, `--print` changes nothing, install writes the units and
//! a private empty environment file and enables them, uninstall keeps the key file, status
//! says whether the unit runs this binary. `systemctl` and `launchctl` are fakes on PATH
//! that record their arguments: no test touches the real service manager.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::{TestEnv, read, write_file};

/// The memloop binary the tests run, as `install` resolves it.
fn binary() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_memloop"))
        .canonicalize()
        .unwrap()
}

/// A directory of fake `systemctl`/`launchctl`/`id` scripts that append their arguments
/// to `calls.log` beside them; `is-enabled` answers per `enabled`.
fn fake_tools(env: &TestEnv, enabled: bool) -> PathBuf {
    let dir = env.root().join("fakebin");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("calls.log");
    for tool in ["systemctl", "launchctl"] {
        let script = format!(
            "#!/bin/sh\necho \"{tool} $*\" >> '{}'\ncase \"$*\" in *is-enabled*|print*) exit {} ;; esac\nexit 0\n",
            log.display(),
            if enabled { 0 } else { 1 }
        );
        let path = dir.join(tool);
        write_file(&path, script.as_bytes());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

fn path_with(dir: &Path) -> String {
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The binary with the fake tools first on PATH.
fn memloop(env: &TestEnv, tools: &Path) -> assert_cmd::Command {
    let mut cmd = env.cmd();
    cmd.env("PATH", path_with(tools));
    cmd
}

fn calls(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("calls.log")).unwrap_or_default()
}

fn units(env: &TestEnv) -> PathBuf {
    env.home().join(".config/systemd/user")
}

#[test]
fn install_print_shows_the_units_for_this_binary_and_changes_nothing() {
    let env = TestEnv::with_fixtures();
    env.config("[schedule]\ncron = \"15 4 * * 1-5\"\n");
    let tools = fake_tools(&env, true);
    let before = env.snapshot_tree();
    let out = memloop(&env, &tools)
        .args(["service", "install", "--systemd", "--print"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("ExecStart={} extract --quiet", binary().display())),
        "{stdout}"
    );
    assert!(
        stdout.contains("OnCalendar=Mon..Fri *-*-* 04:15:00"),
        "{stdout}"
    );
    assert!(stdout.contains("SuccessExitStatus=75 143"), "{stdout}");
    assert!(stdout.contains("Persistent=true"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "Environment=VAULTS_DIR={}",
            env.vaults().display()
        )),
        "the unit sees the vaults the shell named: {stdout}"
    );
    assert!(
        stdout.contains("systemctl --user enable --now memloop-extract.timer"),
        "{stdout}"
    );
    env.snapshot_tree().assert_unchanged_since(&before);
    assert_eq!(calls(&tools), "", "nothing was run");

    let out = memloop(&env, &tools)
        .args(["service", "install", "--launchd", "--daemon", "--print"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("<key>KeepAlive</key>"), "{stdout}");
    assert!(stdout.contains("daemon</string>"), "{stdout}");
    env.snapshot_tree().assert_unchanged_since(&before);
}

#[test]
fn install_writes_units_and_a_private_env_file_then_enables_the_timer() {
    let env = TestEnv::with_fixtures();
    let tools = fake_tools(&env, true);
    let out = memloop(&env, &tools)
        .env("ANTHROPIC_API_KEY", "sk-ant-secret-in-shell")
        .args(["service", "install", "--systemd"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let service = read(&units(&env).join("memloop-extract.service"));
    let timer = read(&units(&env).join("memloop-extract.timer"));
    assert!(service.contains(&format!("ExecStart={} extract --quiet", binary().display())));
    assert!(timer.contains("OnCalendar=*-*-* 03:00:00"), "{timer}");
    assert!(!service.contains("secret-in-shell"), "no key in a unit");
    assert!(
        stderr.contains("ANTHROPIC_API_KEY is set in this shell but the service will not see it"),
        "{stderr}"
    );

    let env_file = env.config_dir().join("env");
    let mode = std::fs::metadata(&env_file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(
        !read(&env_file).contains("secret-in-shell"),
        "created empty"
    );
    assert!(
        service.contains(&format!("EnvironmentFile=-{}", env_file.display())),
        "{service}"
    );
    assert_eq!(
        calls(&tools),
        "systemctl --user daemon-reload\nsystemctl --user enable --now memloop-extract.timer\n"
    );

    // An existing env file is never overwritten; a loose mode is tightened.
    write_file(&env_file, b"ANTHROPIC_API_KEY=sk-ant-mine\n");
    std::fs::set_permissions(&env_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = memloop(&env, &tools)
        .args(["service", "install", "--systemd", "--daemon"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read(&env_file), "ANTHROPIC_API_KEY=sk-ant-mine\n");
    let mode = std::fs::metadata(&env_file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // The daemon replaces the timer: never both.
    assert!(units(&env).join("memloop.service").exists());
    assert!(!units(&env).join("memloop-extract.timer").exists());
    assert!(!units(&env).join("memloop-extract.service").exists());
    assert!(
        calls(&tools).ends_with(
            "systemctl --user disable --now memloop-extract.timer\nsystemctl --user daemon-reload\nsystemctl --user enable --now memloop.service\n"
        ),
        "{}",
        calls(&tools)
    );

    let out = memloop(&env, &tools)
        .args(["service", "uninstall", "--systemd"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!units(&env).join("memloop.service").exists());
    assert!(env_file.exists(), "the key file stays");
    assert!(stderr.contains("kept"), "{stderr}");
    assert!(calls(&tools).contains("systemctl --user disable --now memloop.service"));
}

#[test]
fn install_refuses_without_a_vault_or_with_a_provider_that_has_no_key() {
    let env = TestEnv::new();
    let tools = fake_tools(&env, true);
    let out = memloop(&env, &tools)
        .args(["service", "install", "--systemd"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the service would do nothing: no vault found"),
        "{stderr}"
    );
    assert!(!units(&env).exists());

    let env = TestEnv::with_fixtures();
    let tools = fake_tools(&env, true);
    let out = memloop(&env, &tools)
        .env("MEMLOOP_PROVIDER", "anthropic")
        .env("ANTHROPIC_API_KEY", "sk-ant-x")
        .args(["service", "install", "--systemd"])
        .output()
        .unwrap();
    // The shell has the key, the service would not: a warning, not a refusal.
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let env = TestEnv::with_fixtures();
    env.config("[llm]\nprovider = \"anthropic\"\n");
    let out = memloop(&env, &tools)
        .args(["service", "install", "--systemd"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("ANTHROPIC_API_KEY=..."), "{stderr}");
    assert!(
        stderr.contains(&env.config_dir().join("env").display().to_string()),
        "{stderr}"
    );
}

#[test]
fn a_schedule_launchd_cannot_express_suggests_the_daemon() {
    let env = TestEnv::with_fixtures();
    env.config("[schedule]\ncron = \"*/5 9-17 * * 1-5\"\n");
    let out = env
        .cmd()
        .args(["service", "install", "--launchd", "--print"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--daemon"), "{stderr}");
}

#[test]
fn status_says_whether_the_unit_runs_this_binary() {
    let env = TestEnv::with_fixtures();
    let tools = fake_tools(&env, true);
    let status = |env: &TestEnv| {
        let out = memloop(env, &tools)
            .args(["service", "status", "--systemd"])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, text) = status(&env);
    assert_eq!(code, Some(1));
    assert!(text.contains("not installed"), "{text}");

    memloop(&env, &tools)
        .args(["service", "install", "--systemd"])
        .assert()
        .success();
    let (code, text) = status(&env);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("enabled: yes"), "{text}");
    assert!(text.contains("(this one)"), "{text}");
    assert!(text.contains("next run:"), "{text}");

    // A unit left by another memloop (an old install elsewhere) is named and fixed by
    // installing again.
    let path = units(&env).join("memloop-extract.service");
    let unit = read(&path).replace(&binary().display().to_string(), "/opt/old/memloop");
    write_file(&path, unit.as_bytes());
    let (code, text) = status(&env);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("/opt/old/memloop is not this memloop"),
        "{text}"
    );

    // A changed schedule makes the installed timer stale.
    memloop(&env, &tools)
        .args(["service", "install", "--systemd"])
        .assert()
        .success();
    env.config("[schedule]\ncron = \"0 5 * * *\"\n");
    let (code, text) = status(&env);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("stale"), "{text}");
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
    let tools = fake_tools(&env, true);
    for daemon in [false, true] {
        let mut args = vec!["service", "install", "--systemd"];
        if daemon {
            args.push("--daemon");
        }
        memloop(&env, &tools).args(&args).assert().success();
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
