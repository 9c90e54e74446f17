use std::path::Path;

use super::*;

fn spec<'a>(
    binary: &'a Path,
    schedule: &'a Schedule,
    environment: &'a [(String, String)],
) -> Spec<'a> {
    Spec {
        binary,
        config: None,
        env_file: Path::new("/home/ada/.config/memory-loop/env"),
        environment,
        schedule,
        log: Path::new("/home/ada/Library/Logs/memloop.log"),
    }
}

fn texts(files: &[Rendered]) -> String {
    files
        .iter()
        .map(|f| format!("==> {} <==\n{}", f.path.display(), f.text))
        .collect()
}

#[test]
fn systemd_timer_units_for_the_nightly_schedule() {
    let schedule = Schedule::parse("0 3 * * *").unwrap();
    let env = [("VAULTS_DIR".to_owned(), "/home/ada/vaults".to_owned())];
    let files = render(
        Manager::Systemd,
        Mode::Timer,
        Path::new("/home/ada/.config/systemd/user"),
        &spec(Path::new("/home/ada/.cargo/bin/memloop"), &schedule, &env),
    )
    .unwrap();
    insta::assert_snapshot!(texts(&files));
}

#[test]
fn systemd_daemon_unit_with_an_awkward_path_and_config() {
    let schedule = Schedule::parse("30 2 * * 1-5").unwrap();
    let binary = Path::new("/opt/my tools/100%/mem\"loop");
    let mut s = spec(binary, &schedule, &[]);
    let config = Path::new("/home/ada/my config/memloop.toml");
    s.config = Some(config);
    s.env_file = Path::new("/home/ada/my config/50% off/env");
    let files = render(Manager::Systemd, Mode::Daemon, Path::new("/u"), &s).unwrap();
    insta::assert_snapshot!(texts(&files));
    let unit = &files[0].text;
    assert!(
        unit.contains(r#"ExecStart="/opt/my tools/100%%/mem\"loop" --config "/home/ada/my config/memloop.toml" daemon"#),
        "{unit}"
    );
    assert!(
        unit.contains("EnvironmentFile=-/home/ada/my config/50%% off/env\n"),
        "{unit}"
    );
    assert_eq!(
        installed_binary(Manager::Systemd, unit).as_deref(),
        Some(binary)
    );
}

#[test]
fn systemd_timer_units_for_a_path_with_a_space_and_a_percent() {
    let schedule = Schedule::parse("0 3 * * *").unwrap();
    let env = [(
        "VAULTS_DIR".to_owned(),
        "/home/ada/my vaults/100%".to_owned(),
    )];
    let mut s = spec(Path::new("/home/ada/my bin/100% memloop"), &schedule, &env);
    s.env_file = Path::new("/home/ada/.config/memory loop/%h/env");
    let files = render(Manager::Systemd, Mode::Timer, Path::new("/u"), &s).unwrap();
    insta::assert_snapshot!(texts(&files));
    assert!(
        files[0]
            .text
            .contains("ExecStart=\"/home/ada/my bin/100%% memloop\" extract --quiet\n"),
        "{}",
        files[0].text
    );
    assert!(
        files[0]
            .text
            .contains("EnvironmentFile=-/home/ada/.config/memory loop/%%h/env\n"),
        "{}",
        files[0].text
    );
    assert!(
        files[0]
            .text
            .contains("Environment=\"VAULTS_DIR=/home/ada/my vaults/100%%\"\n"),
        "{}",
        files[0].text
    );
}

#[test]
fn the_installed_schedule_is_read_back_from_the_timer_or_agent() {
    for expr in ["0 3 * * *", "15 4 * * 1-5", "0 9 1 * *", "@daily"] {
        let schedule = Schedule::parse(expr).unwrap();
        let s = spec(Path::new("/bin/memloop"), &schedule, &[]);
        for manager in [Manager::Systemd, Manager::Launchd] {
            let files = render(manager, Mode::Timer, Path::new("/u"), &s).unwrap();
            let read = files
                .iter()
                .find_map(|f| installed_schedule(manager, &f.text));
            assert_eq!(read.as_ref().map(Schedule::expr), Some(expr), "{manager:?}");
            let daemon = render(manager, Mode::Daemon, Path::new("/u"), &s).unwrap();
            assert_eq!(installed_schedule(manager, &daemon[0].text), None);
        }
    }
}

#[test]
fn the_crontab_line_reads_the_env_file_and_escapes_percent() {
    let schedule = Schedule::parse("30 2 * * 1-5").unwrap();
    let mut s = spec(Path::new("/opt/it's/memloop"), &schedule, &[]);
    s.env_file = Path::new("/home/ada/100%/env");
    assert_eq!(
        crontab_line(&s),
        r"30 2 * * 1-5 set -a; [ -r '/home/ada/100\%/env' ] && . '/home/ada/100\%/env'; set +a; exec '/opt/it'\''s/memloop' extract -q"
    );
}

#[test]
fn launchd_agents_for_timer_and_daemon() {
    let schedule = Schedule::parse("0 9 1 * MON").unwrap();
    let env = [(
        "OPENAI_BASE_URL".to_owned(),
        "http://localhost:11434/v1?a=1&b=2".to_owned(),
    )];
    let binary = Path::new("/Users/ada/bin/it's <mem>loop");
    let s = spec(binary, &schedule, &env);
    let timer = render(
        Manager::Launchd,
        Mode::Timer,
        Path::new("/Users/ada/Library/LaunchAgents"),
        &s,
    )
    .unwrap();
    let daemon = render(
        Manager::Launchd,
        Mode::Daemon,
        Path::new("/Users/ada/Library/LaunchAgents"),
        &s,
    )
    .unwrap();
    insta::assert_snapshot!(texts(&timer) + &texts(&daemon));
    for files in [&timer, &daemon] {
        assert_eq!(
            installed_binary(Manager::Launchd, &files[0].text).as_deref(),
            Some(binary)
        );
    }
}

#[test]
fn a_schedule_launchd_cannot_express_is_refused() {
    let schedule = Schedule::parse("*/5 9-17 * * 1-5").unwrap();
    let s = spec(Path::new("/bin/memloop"), &schedule, &[]);
    let err = render(Manager::Launchd, Mode::Timer, Path::new("/a"), &s).unwrap_err();
    assert!(err.to_string().contains("--daemon"), "{err}");
    // The daemon agent does not need the schedule expressed.
    assert!(render(Manager::Launchd, Mode::Daemon, Path::new("/a"), &s).is_ok());
}

#[test]
fn quoting_round_trips_for_each_format() {
    for value in [
        "/usr/bin/memloop",
        "/a b/c",
        "/x/\"q\"/y",
        "/p/100%",
        "/d/$HOME",
        "/e/back\\slash",
        "/f/new\nline\ttab\u{7}bell",
    ] {
        let unit = format!("ExecStart={} extract\n", systemd_quote(value, true));
        assert_eq!(
            installed_binary(Manager::Systemd, &unit).as_deref(),
            Some(Path::new(value)),
            "{unit}"
        );
    }
    assert_eq!(shell_quote("it's"), r"'it'\''s'");
    assert_eq!(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
    assert_eq!(systemd_quote("/plain/path", true), "/plain/path");
}

/// The agent's `/bin/sh -c` script, run for real with an awkward binary and env file path:
/// the key from the env file (with `export` too, which sh takes) reaches the binary, and the
/// arguments arrive as written.
#[cfg(unix)]
#[test]
fn the_launchd_script_sources_the_env_file_and_runs_the_binary() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let bin_dir = dir.path().join("it's 100% \"mine\"");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let binary = bin_dir.join("mem loop");
    let out = dir.path().join("out");
    let script = format!(
        "#!/bin/sh\nprintf '%s|' \"$@\" \"$ANTHROPIC_API_KEY\" \"$OPENAI_API_KEY\" > '{}'\n",
        out.display()
    );
    std::fs::write(&binary, script).unwrap();
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
    let env_file = bin_dir.join("env & co");
    std::fs::write(
        &env_file,
        "# key\nANTHROPIC_API_KEY=\"sk-ant-1\"\nexport OPENAI_API_KEY=sk-2\n",
    )
    .unwrap();
    let config = bin_dir.join("my config.toml");
    let schedule = Schedule::parse("0 3 * * *").unwrap();
    let mut s = spec(&binary, &schedule, &[]);
    s.env_file = &env_file;
    s.config = Some(&config);
    for (mode, args) in [(Mode::Timer, "extract|--quiet|"), (Mode::Daemon, "daemon|")] {
        let plist = &render(Manager::Launchd, mode, Path::new("/a"), &s).unwrap()[0].text;
        let (_, rest) = plist
            .split_once("<string>-c</string>\n\t\t<string>")
            .unwrap();
        let (script, _) = rest.split_once("</string>").unwrap();
        let status = std::process::Command::new("/bin/sh")
            .args(["-c", &xml_unescape(script)])
            .env_clear()
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            format!("--config|{}|{args}sk-ant-1|sk-2|", config.display())
        );
    }
    // A missing env file is no error: the service runs without a key.
    std::fs::remove_file(&env_file).unwrap();
    let plist = &render(Manager::Launchd, Mode::Daemon, Path::new("/a"), &s).unwrap()[0].text;
    let (_, rest) = plist
        .split_once("<string>-c</string>\n\t\t<string>")
        .unwrap();
    let (script, _) = rest.split_once("</string>").unwrap();
    let status = std::process::Command::new("/bin/sh")
        .args(["-c", &xml_unescape(script)])
        .env_clear()
        .status()
        .unwrap();
    assert!(status.success());
}
