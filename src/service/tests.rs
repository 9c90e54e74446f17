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
    let files = render(Manager::Systemd, Mode::Daemon, Path::new("/u"), &s).unwrap();
    insta::assert_snapshot!(texts(&files));
    let unit = &files[0].text;
    assert!(
        unit.contains(r#"ExecStart="/opt/my tools/100%%/mem\"loop" --config "/home/ada/my config/memloop.toml" daemon"#),
        "{unit}"
    );
    assert_eq!(
        installed_binary(Manager::Systemd, unit).as_deref(),
        Some(binary)
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
