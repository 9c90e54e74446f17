use super::*;

fn rendered(path: &str) -> Rendered {
    Rendered {
        path: PathBuf::from(path),
        text: format!("text of {path}\n"),
    }
}

/// A plan as the lines `--print` shows, files by path only.
fn lines(steps: &[Step]) -> Vec<String> {
    steps
        .iter()
        .map(|step| match step {
            Step::Run { command, tolerate } => {
                format!(
                    "{}{}",
                    command.join(" "),
                    if *tolerate { " || true" } else { "" }
                )
            }
            Step::Remove(p) => format!("rm {}", p.display()),
            Step::EnvFile(p) => format!("env {}", p.display()),
            Step::Write(f) => format!("write {}", f.path.display()),
        })
        .collect()
}

#[test]
fn install_plans_stop_the_other_mode_before_its_files_go_and_enable_last() {
    let env = Path::new("/h/.config/memory-loop/env");
    let u = "/h/.config/systemd/user";
    let cases: [(&str, Vec<Step>, &[&str]); 4] = [
        (
            "systemd timer, fresh",
            install_plan(
                Manager::Systemd,
                Mode::Timer,
                "",
                vec![
                    rendered(&format!("{u}/memloop-extract.service")),
                    rendered(&format!("{u}/memloop-extract.timer")),
                ],
                &[],
                false,
                env,
            ),
            &[
                "env /h/.config/memory-loop/env",
                "write /h/.config/systemd/user/memloop-extract.service",
                "write /h/.config/systemd/user/memloop-extract.timer",
                "systemctl --user daemon-reload",
                "systemctl --user enable --now memloop-extract.timer",
            ],
        ),
        (
            "systemd daemon replacing the timer",
            install_plan(
                Manager::Systemd,
                Mode::Daemon,
                "",
                vec![rendered(&format!("{u}/memloop.service"))],
                &[
                    PathBuf::from(format!("{u}/memloop-extract.service")),
                    PathBuf::from(format!("{u}/memloop-extract.timer")),
                ],
                false,
                env,
            ),
            &[
                "systemctl --user disable --now memloop-extract.timer || true",
                "rm /h/.config/systemd/user/memloop-extract.service",
                "rm /h/.config/systemd/user/memloop-extract.timer",
                "env /h/.config/memory-loop/env",
                "write /h/.config/systemd/user/memloop.service",
                "systemctl --user daemon-reload",
                "systemctl --user enable --now memloop.service",
            ],
        ),
        (
            "systemd daemon installed again",
            install_plan(
                Manager::Systemd,
                Mode::Daemon,
                "",
                vec![rendered(&format!("{u}/memloop.service"))],
                &[],
                true,
                env,
            ),
            &[
                "env /h/.config/memory-loop/env",
                "write /h/.config/systemd/user/memloop.service",
                "systemctl --user daemon-reload",
                "systemctl --user enable --now memloop.service",
                "systemctl --user restart memloop.service",
            ],
        ),
        (
            "launchd timer replacing the daemon",
            install_plan(
                Manager::Launchd,
                Mode::Timer,
                "gui/501",
                vec![rendered("/h/L/io.github.memloop.extract.plist")],
                &[PathBuf::from("/h/L/io.github.memloop.daemon.plist")],
                false,
                env,
            ),
            &[
                "launchctl bootout gui/501/io.github.memloop.daemon || true",
                "rm /h/L/io.github.memloop.daemon.plist",
                "env /h/.config/memory-loop/env",
                "launchctl bootout gui/501/io.github.memloop.extract || true",
                "write /h/L/io.github.memloop.extract.plist",
                "launchctl enable gui/501/io.github.memloop.extract",
                "launchctl bootstrap gui/501 /h/L/io.github.memloop.extract.plist",
            ],
        ),
    ];
    for (name, steps, expected) in cases {
        assert_eq!(lines(&steps), expected, "{name}");
    }
}

#[test]
fn the_printed_plan_shows_each_file_with_its_path_and_each_command() {
    let steps = vec![
        Step::Remove(PathBuf::from("/h/old unit")),
        Step::EnvFile(PathBuf::from("/h/env")),
        Step::Write(rendered("/h/a.service")),
        run_step(
            &["launchctl", "bootstrap", "gui/501", "/h/my agents/x.plist"],
            false,
        ),
    ];
    assert_eq!(
        render_plan(&steps),
        "rm '/h/old unit'\n\
         # /h/env: created empty with mode 0600 if missing (your API key goes here; never overwritten)\n\
         # /h/a.service\ntext of /h/a.service\n\n\
         launchctl bootstrap gui/501 '/h/my agents/x.plist'\n"
    );
}

#[test]
fn env_files_are_read_as_systemd_and_sh_read_them() {
    let text = "# comment\n\n  ANTHROPIC_API_KEY=sk-ant-1\nexport OPENAI_API_KEY=\"sk 2\"\nMEMLOOP_MODEL='m'\nEMPTY=\nnot a pair\n; also a comment\n";
    let (pairs, exported) = parse_env_file(text);
    assert_eq!(
        pairs,
        [
            ("ANTHROPIC_API_KEY", "sk-ant-1"),
            ("MEMLOOP_MODEL", "m"),
            ("EMPTY", ""),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
    // systemd 252 leaves a variable set with `export` unset (checked against a real user
    // instance): it is named so the user can fix the line.
    assert_eq!(exported, ["OPENAI_API_KEY"]);
}

#[test]
fn binaries_a_unit_would_outlive_are_noticed() {
    for (path, temporary) in [
        ("/home/ada/src/memloop/target/release/memloop", true),
        ("/home/ada/src/memloop/target/debug/memloop", true),
        ("/home/ada/.cargo/bin/memloop", false),
        ("/usr/local/bin/memloop", false),
    ] {
        assert_eq!(looks_temporary(Path::new(path)), temporary, "{path}");
    }
    assert!(looks_temporary(&std::env::temp_dir().join("memloop")));
}

fn resolved(cron: &str) -> Resolved {
    let env = Env::from_pairs([("HOME", "/h")]);
    let paths = crate::paths::Paths::resolve(&env, None).unwrap();
    let mut config = crate::config::Config::default();
    config.schedule.cron = crate::schedule::Schedule::parse(cron).unwrap();
    Resolved::new(config, paths, &env).unwrap()
}

fn installed_timer() -> Inspection {
    Inspection {
        manager: Manager::Systemd,
        installed: Some((Mode::Timer, PathBuf::from("/u/memloop-extract.service"))),
        files: vec![
            PathBuf::from("/u/memloop-extract.service"),
            PathBuf::from("/u/memloop-extract.timer"),
        ],
        binary: Some(PathBuf::from("/bin/memloop")),
        points_here: true,
        current: true,
        enabled: Some(true),
        active: Some(true),
        unreachable: None,
        schedule: Some(crate::schedule::Schedule::parse("0 3 * * *").unwrap()),
    }
}

#[test]
fn status_is_healthy_only_when_installed_enabled_active_here_and_current() {
    let cfg = resolved("0 3 * * *");
    let now = Local::now();
    let here = Path::new("/bin/memloop");
    let (text, healthy) = describe(&installed_timer(), &cfg, here, &now);
    assert!(healthy, "{text}");
    assert!(
        text.starts_with(
            "installed: /u/memloop-extract.service (memloop-extract.timer, systemd)\n  and /u/memloop-extract.timer\nenabled: yes\nactive: yes (waiting for the next run)\nnext run: "
        ),
        "{text}"
    );
    assert!(
        text.ends_with(":00 (\"0 3 * * *\", local time)\nbinary: /bin/memloop (this one)\n"),
        "{text}"
    );

    type Break = fn(&mut Inspection);
    let broken: [(&str, Break, &str); 6] = [
        (
            "not installed",
            |i| i.installed = None,
            "not installed (systemd)",
        ),
        ("disabled", |i| i.enabled = Some(false), "enabled: no"),
        ("inactive", |i| i.active = Some(false), "active: no"),
        (
            "no manager",
            |i| {
                i.enabled = None;
                i.active = None;
                i.unreachable = Some("Failed to connect to bus".into());
            },
            "systemd could not be asked: Failed to connect to bus",
        ),
        (
            "elsewhere",
            |i| {
                i.binary = Some(PathBuf::from("/old/memloop"));
                i.points_here = false;
            },
            "binary: /old/memloop is not this memloop (/bin/memloop): run `memloop service install` again",
        ),
        ("stale", |i| i.current = false, "stale: "),
    ];
    for (name, breaks, says) in broken {
        let mut i = installed_timer();
        breaks(&mut i);
        let (text, healthy) = describe(&i, &cfg, here, &now);
        assert!(!healthy, "{name}: {text}");
        assert!(text.contains(says), "{name}: {text}");
    }
}

#[test]
fn the_next_run_follows_the_installed_timer_and_the_config_for_the_daemon() {
    use chrono::TimeZone;
    let cfg = resolved("30 5 * * *");
    let now = Local.with_ymd_and_hms(2026, 7, 1, 12, 0, 0).unwrap();
    let timer = installed_timer();
    let next = timer.next_run(&cfg, &now).unwrap();
    assert_eq!(next.format("%d %H:%M").to_string(), "02 03:00");
    let daemon = Inspection {
        installed: Some((Mode::Daemon, PathBuf::from("/u/memloop.service"))),
        schedule: None,
        ..installed_timer()
    };
    let next = daemon.next_run(&cfg, &now).unwrap();
    assert_eq!(next.format("%d %H:%M").to_string(), "02 05:30");
    let none = Inspection {
        installed: None,
        ..installed_timer()
    };
    assert_eq!(none.next_run(&cfg, &now), None);
}
