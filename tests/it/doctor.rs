//! `memloop doctor`: one line per check with its fix, `--json` with each check's name,
//! level, message and fix, exit 1 when something will fail and 0 when only warnings are
//! left. A healthy home is all `ok` (offline, and with the mock answering the one test
//! request in both wire formats); each broken home names what is wrong, with the fix.
//! `systemctl` is a fake on PATH: no test touches the real service manager.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::support::mock::{Mock, Reply};
use crate::support::{TestEnv, anthropic, openai, set_age, write_file};

/// Runs `memloop doctor ARGS` with these variables; exit code and stdout.
fn doctor(env: &TestEnv, vars: &[(&str, String)], args: &[&str]) -> (i32, String) {
    let out = env
        .cmd()
        .envs(vars.iter().map(|(k, v)| (*k, v.as_str())))
        .arg("doctor")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// `memloop doctor --json ARGS`, parsed; exit code and the checks.
fn doctor_json(env: &TestEnv, vars: &[(&str, String)], args: &[&str]) -> (i32, Vec<Value>) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let (code, text) = doctor(env, vars, &all);
    let json: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (code, json["checks"].as_array().unwrap().clone())
}

/// The one line containing `needle`; panics when there is none or more than one.
fn line<'a>(text: &'a str, needle: &str) -> &'a str {
    let found: Vec<&str> = text.lines().filter(|l| l.contains(needle)).collect();
    assert_eq!(found.len(), 1, "one line with {needle:?}:\n{text}");
    found[0]
}

/// The checks of this name.
fn named<'a>(checks: &'a [Value], name: &str) -> Vec<&'a Value> {
    checks.iter().filter(|c| c["name"] == name).collect()
}

/// A `systemctl` that records nothing and answers `is-enabled` with `enabled`; the PATH
/// that finds it first.
fn fake_systemctl(env: &TestEnv, enabled: bool) -> String {
    let dir = env.root().join("fakebin");
    let script = format!(
        "#!/bin/sh\ncase \"$*\" in *is-enabled*) exit {} ;; esac\nexit 0\n",
        if enabled { 0 } else { 1 }
    );
    let path = dir.join("systemctl");
    write_file(&path, script.as_bytes());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The mock's Anthropic variables plus a PATH with the fake `systemctl`.
fn with_path(vars: &[(&'static str, String)], path: &str) -> Vec<(&'static str, String)> {
    let mut all = vars.to_vec();
    all.push(("PATH", path.to_owned()));
    all
}

/// `memloop service install --systemd` with these variables.
fn install_service(env: &TestEnv, vars: &[(&str, String)]) {
    let out = env
        .cmd()
        .envs(vars.iter().map(|(k, v)| (*k, v.as_str())))
        .args(["service", "install", "--systemd"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn units(env: &TestEnv) -> PathBuf {
    env.home().join(".config/systemd/user")
}

/// A home with nothing wrong: the fixture vaults without `not-a-vault/`, the mock as
/// provider, and the nightly service installed for this binary.
fn healthy(mock: &Mock) -> (TestEnv, Vec<(&'static str, String)>) {
    let env = TestEnv::with_fixtures();
    std::fs::remove_dir_all(env.vaults().join("not-a-vault")).unwrap();
    let vars = with_path(&anthropic(mock), &fake_systemctl(&env, true));
    install_service(&env, &vars);
    (env, vars)
}

#[test]
fn a_healthy_home_is_all_ok_offline_and_with_the_provider_answering() {
    let mock = Mock::start();
    let (env, vars) = healthy(&mock);

    let (code, text) = doctor(&env, &vars, &["--offline"]);
    assert_eq!(code, 0, "{text}");
    let (last, lines) = text
        .trim_end()
        .lines()
        .collect::<Vec<_>>()
        .split_last()
        .map(|(l, r)| (*l, r.to_vec()))
        .unwrap();
    assert_eq!(last, "0 errors, 0 warnings", "{text}");
    for l in &lines {
        assert!(l.starts_with("ok    "), "every line ok: {l}\n{text}");
    }
    assert!(
        line(&text, "endpoint").contains("not asked: --offline"),
        "{text}"
    );
    assert!(
        line(&text, "vault alpha").contains("vault alpha: 2 transcripts, 2 pending"),
        "{text}"
    );
    assert!(
        line(&text, "memloop-extract.timer").contains(
            "memloop-extract.timer installed and enabled, running this memloop; next run"
        ),
        "{text}"
    );
    assert_eq!(mock.count(), 0, "--offline sends nothing");

    let (code, text) = doctor(&env, &vars, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(
        line(&text, "endpoint").starts_with(&format!(
            "ok    endpoint {} answered a test request in",
            mock.url()
        )),
        "{text}"
    );
    assert_eq!(mock.count(), 1, "one cheap request");
    assert_eq!(mock.requests()[0].path, "/v1/messages");

    let (code, checks) = doctor_json(
        &env,
        &with_path(&openai(&mock), &fake_systemctl(&env, true)),
        &[],
    );
    let endpoint = named(&checks, "endpoint");
    assert_eq!(endpoint.len(), 1, "{checks:?}");
    assert_eq!(endpoint[0]["level"], "ok", "{checks:?}");
    assert_eq!(mock.requests()[1].path, "/v1/chat/completions");
    // Another provider than the installed unit carries: the service is stale, a warning.
    assert_eq!(code, 0);

    let (code, checks) = doctor_json(&env, &vars, &["--offline"]);
    assert_eq!(code, 0);
    for c in &checks {
        assert_eq!(c["level"], "ok", "{c}");
        assert_eq!(c["fix"], Value::Null, "{c}");
        assert!(c["message"].as_str().is_some_and(|m| !m.is_empty()), "{c}");
    }
    let names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "config",
            "provider",
            "endpoint",
            "vault",
            "vault",
            "prompt",
            "memory",
            "ledger",
            "lock",
            "last-run",
            "service",
            "memory-loop",
            "mcp"
        ],
        "every check, in reading order"
    );
}

#[test]
fn a_rejected_key_and_an_unreachable_server_are_one_error_each() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    mock.set_default(Reply::unauthorized());
    let (code, text) = doctor(&env, &anthropic(&mock), &[]);
    assert_eq!(code, 1, "{text}");
    let rejected = line(&text, "endpoint");
    assert!(rejected.starts_with("error"), "{text}");
    assert!(
        rejected.contains(&format!(
            "endpoint {} rejected the key (HTTP 401); fix: check ANTHROPIC_API_KEY",
            mock.url()
        )),
        "{text}"
    );
    assert!(!text.contains("test-key"), "a key is never printed");
    assert_eq!(mock.count(), 1, "no retry");

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let (code, checks) = doctor_json(
        &env,
        &[
            ("ANTHROPIC_API_KEY", "test-key".into()),
            ("ANTHROPIC_BASE_URL", url.clone()),
        ],
        &[],
    );
    assert_eq!(code, 1);
    let endpoint = named(&checks, "endpoint");
    assert_eq!(endpoint.len(), 1, "{checks:?}");
    assert_eq!(endpoint[0]["level"], "error");
    let message = endpoint[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("cannot reach endpoint {url}: ")),
        "{message}"
    );
    assert!(
        endpoint[0]["fix"]
            .as_str()
            .unwrap()
            .contains("ANTHROPIC_BASE_URL"),
        "{checks:?}"
    );
}

#[test]
fn the_test_request_is_bounded_in_time() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    mock.set_default(Reply::Hang(Duration::from_secs(30)));
    let started = std::time::Instant::now();
    let (code, text) = doctor(&env, &anthropic(&mock), &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        line(&text, "endpoint").contains("did not answer a test request within 10 s"),
        "{text}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn base_urls_that_cannot_work_are_named_with_the_url_that_does() {
    let env = TestEnv::with_fixtures();
    let (code, text) = doctor(
        &env,
        &[
            ("MEMLOOP_PROVIDER", "openai".into()),
            ("OPENAI_BASE_URL", "localhost:11434".into()),
        ],
        &[],
    );
    assert_eq!(code, 1, "{text}");
    assert_eq!(
        line(&text, "OPENAI_BASE_URL"),
        "error OPENAI_BASE_URL=localhost:11434 has no http:// or https:// scheme: no request can be sent; fix: OPENAI_BASE_URL=http://localhost:11434/v1"
    );

    let mock = Mock::start();
    let url = format!("{}/v1/chat/completions", mock.url());
    let (code, text) = doctor(
        &env,
        &[
            ("OPENAI_API_KEY", "k".into()),
            ("OPENAI_BASE_URL", url.clone()),
        ],
        &["--offline"],
    );
    assert_eq!(code, 0, "a warning only: {text}");
    let warning = line(&text, "already ends in /chat/completions");
    assert!(warning.starts_with("warn"), "{text}");
    assert!(
        warning.ends_with(&format!("fix: OPENAI_BASE_URL={}/v1", mock.url())),
        "{text}"
    );
    assert_eq!(mock.count(), 0);
}

#[test]
fn a_provider_without_its_key_is_one_error_line() {
    let env = TestEnv::with_fixtures();
    let (code, checks) = doctor_json(&env, &[("MEMLOOP_PROVIDER", "openai".into())], &[]);
    assert_eq!(code, 1);
    let about: Vec<&Value> = checks
        .iter()
        .filter(|c| c["name"] == "provider" || c["name"] == "endpoint")
        .collect();
    assert_eq!(about.len(), 1, "one line, not ok + error + ok: {about:?}");
    assert_eq!(about[0]["level"], "error");
    assert!(
        about[0]["message"]
            .as_str()
            .unwrap()
            .contains("OPENAI_API_KEY")
    );
    assert!(
        about[0]["fix"]
            .as_str()
            .unwrap()
            .contains("OPENAI_BASE_URL=http://localhost:11434/v1"),
        "{about:?}"
    );
}

#[test]
fn a_config_that_cannot_be_used_is_a_line_and_the_rest_is_still_checked() {
    let env = TestEnv::with_fixtures();
    env.config("[schedule]\ncron = \"every night\"\n");
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 1, "{text}");
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("error "), "{text}");
    assert!(first.contains("config.toml:2:"), "{text}");
    assert!(first.contains("[schedule] cron"), "{text}");
    assert!(first.contains("; fix: correct "), "{text}");
    assert!(
        text.contains("vault alpha: 2 transcripts"),
        "the vaults are still checked: {text}"
    );
    assert!(
        text.contains("provider builtin"),
        "with the defaults: {text}"
    );

    env.config("[llm]\nprovider = \"gpt\"\n");
    let (code, checks) = doctor_json(&env, &[], &["--offline"]);
    assert_eq!(code, 1);
    let config = named(&checks, "config");
    assert_eq!(config.len(), 1, "{checks:?}");
    assert!(
        config[0]["message"]
            .as_str()
            .unwrap()
            .contains("unknown provider `gpt`")
    );
    assert!(
        named(&checks, "provider").is_empty(),
        "no provider line to contradict it: {checks:?}"
    );
    assert_eq!(
        named(&checks, "vault").len(),
        3,
        "alpha, beta, not-a-vault: {checks:?}"
    );
}

#[test]
fn vaults_are_counted_with_what_is_pending_and_their_problems_named() {
    let env = TestEnv::with_fixtures();
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 0, "warnings only: {text}");
    let not_a_vault = env.vaults().join("not-a-vault");
    assert_eq!(
        line(&text, "not-a-vault"),
        format!(
            "warn  {} holds 1 chat but no CLAUDE.md: it is not a vault, so memloop does not read its chats; fix: add a CLAUDE.md to {} to make it a vault",
            not_a_vault.display(),
            not_a_vault.display()
        )
    );
    assert!(!text.contains(".hidden-vault"), "{text}");

    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    env.add_transcript("beta", "2025-07-01-0900-new.md", "## [09:00] User\n\nhi\n");
    let (_, text) = doctor(&env, &[], &["--offline"]);
    assert!(
        line(&text, "vault alpha").contains("2 transcripts, 0 pending"),
        "{text}"
    );
    assert!(
        line(&text, "vault beta").contains("2 transcripts, 1 pending"),
        "{text}"
    );

    // Two vaults of one name.
    let other = env.root().join("elsewhere/alpha");
    write_file(&other.join("CLAUDE.md"), b"# Other\n");
    env.config(&format!("vaults = [\"{}\"]\n", other.display()));
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 1, "{text}");
    let twice = line(&text, "two vaults are named alpha");
    assert!(twice.starts_with("error"), "{text}");
    assert!(
        twice.contains("fix: rename one of the two directories"),
        "{text}"
    );

    // No vault at all.
    env.config("");
    let out = env
        .cmd()
        .env_remove("VAULTS_DIR")
        .args(["doctor", "--offline"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        line(&text, "no vaults configured").contains("fix: set VAULTS_DIR"),
        "{text}"
    );
}

#[test]
fn the_prompt_in_use_is_named_and_one_without_categories_is_an_error() {
    let env = TestEnv::with_fixtures();
    let path = env.prompt("# Mine\n\n## Categories\n\n### Hobbies\n\nWhat they do for fun.\n");
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!(
            "ok    custom prompt {}, categories: Hobbies",
            path.display()
        )),
        "{text}"
    );

    env.prompt("# My prompt\n\nExtract facts.\n");
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 1, "{text}");
    let error = line(&text, "no categories");
    assert!(
        error.starts_with(&format!("error prompt file {}", path.display())),
        "{text}"
    );
    assert!(error.contains("fix: `memloop prompt edit`"), "{text}");
}

#[test]
fn a_memory_file_that_cannot_be_written_is_an_error() {
    let env = TestEnv::with_fixtures();
    let blocker = env.root().join("blocker");
    write_file(&blocker, b"a file where a directory should be\n");
    env.config(&format!(
        "[memory]\npath = \"{}/rules/memory.md\"\n",
        blocker.display()
    ));
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 1, "{text}");
    let error = line(&text, "cannot be written");
    assert!(
        error.contains(&format!("{} is not a directory", blocker.display())),
        "{text}"
    );
    assert!(error.contains("fix: "), "{text}");
}

#[test]
fn a_held_lock_names_the_process_that_holds_it() {
    let env = TestEnv::with_fixtures();
    let (_, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(line(&text, "run lock"), "ok    run lock free");

    let _held = env.hold_lock();
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 0, "a run in progress is not a problem: {text}");
    let held = line(&text, "run lock");
    assert!(
        held.contains("a run is in progress, and one started now would exit 75"),
        "{text}"
    );
    if cfg!(target_os = "linux") {
        assert!(
            held.contains(&format!("held by pid {} (", std::process::id())),
            "{text}"
        );
    }
}

#[test]
fn the_last_run_and_a_silent_service_are_reported() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let (_, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(line(&text, "run yet"), "ok    no run yet");

    env.add_transcript_bytes("alpha", "2025-07-02-0900-bad.md", b"\xff\xfe not text");
    env.extract(&mock, &[], 1);
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 0, "a warning: {text}");
    let last = line(&text, "last run");
    assert!(last.starts_with("warn"), "{text}");
    assert!(
        last.contains("3 transcripts processed, 1 failed, first"),
        "{text}"
    );
    assert!(last.contains("2025-07-02-0900-bad.md"), "{text}");

    // A service installed days ago that never ran.
    let fresh = TestEnv::with_fixtures();
    let vars = with_path(&anthropic(&mock), &fake_systemctl(&fresh, true));
    install_service(&fresh, &vars);
    set_age(
        &units(&fresh).join("memloop-extract.service"),
        Duration::from_secs(3 * 24 * 3600),
    );
    let (code, text) = doctor(&fresh, &vars, &["--offline"]);
    assert_eq!(code, 0, "{text}");
    let silent = line(&text, "no run yet");
    assert!(
        silent.starts_with("warn  no run yet, although a service was installed on"),
        "{text}"
    );
    assert!(silent.contains("fix: `memloop service status`"), "{text}");
}

#[test]
fn the_service_is_installed_enabled_and_running_this_binary() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        line(&text, "nightly service").starts_with(
            "warn  no nightly service installed (systemd); fix: `memloop service install`"
        ),
        "{text}"
    );

    let vars = with_path(&anthropic(&mock), &fake_systemctl(&env, false));
    install_service(&env, &vars);
    let (code, text) = doctor(&env, &vars, &["--offline"]);
    assert_eq!(code, 1, "{text}");
    let disabled = line(&text, "memloop-extract.timer");
    assert!(disabled.starts_with("error"), "{text}");
    assert!(disabled.contains("it is not enabled"), "{text}");

    let unit = units(&env).join("memloop-extract.service");
    let here = Path::new(env!("CARGO_BIN_EXE_memloop"))
        .canonicalize()
        .unwrap();
    let text_of_unit = std::fs::read_to_string(&unit).unwrap();
    write_file(
        &unit,
        text_of_unit
            .replace(&here.display().to_string(), "/opt/old/memloop")
            .as_bytes(),
    );
    let vars = with_path(&anthropic(&mock), &fake_systemctl(&env, true));
    let (code, text) = doctor(&env, &vars, &["--offline"]);
    assert_eq!(code, 1, "{text}");
    let elsewhere = line(&text, "memloop-extract.timer");
    assert!(
        elsewhere.contains("it runs /opt/old/memloop, not this memloop"),
        "{text}"
    );
    assert!(
        elsewhere.contains("fix: `memloop service install` again"),
        "{text}"
    );
}

#[test]
fn memory_loop_s_own_nightly_extraction_is_found_and_how_to_turn_it_off_said() {
    let env = TestEnv::with_fixtures();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/memory-loop");
    let (_, text) = doctor(&env, &[], &["--offline"]);
    assert!(
        line(&text, "Memory Loop")
            .starts_with("ok    Memory Loop's own nightly extraction is not running"),
        "{text}"
    );

    // Its state file says it ran last night.
    let state = std::fs::read_to_string(fixtures.join("extraction-state.json")).unwrap();
    let now = chrono_now();
    write_file(
        &env.config_dir().join("extraction-state.json"),
        state.replace("2026-03-22T03:00:04.512Z", &now).as_bytes(),
    );
    let (code, text) = doctor(&env, &[], &["--offline"]);
    assert_eq!(code, 0, "a warning: {text}");
    let running = line(&text, "Memory Loop's own");
    assert!(
        running.starts_with("warn  Memory Loop's own nightly extraction is still running"),
        "{text}"
    );
    assert!(running.contains("EXTRACTION_SCHEDULE=off"), "{text}");
    assert!(
        running.contains("EXTRACTION_CATCHUP_HOURS=100000"),
        "{text}"
    );
    assert!(
        running.contains("systemctl --user edit memory-loop"),
        "{text}"
    );

    // Its unit, installed and enabled as its docs say.
    let other = TestEnv::with_fixtures();
    let dir = units(&other);
    write_file(
        &dir.join("memory-loop.service"),
        &std::fs::read(fixtures.join("memory-loop.service")).unwrap(),
    );
    std::fs::create_dir_all(dir.join("default.target.wants")).unwrap();
    std::os::unix::fs::symlink(
        dir.join("memory-loop.service"),
        dir.join("default.target.wants/memory-loop.service"),
    )
    .unwrap();
    let (code, text) = doctor(&other, &[], &["--offline"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        line(&text, "Memory Loop's own").contains("is enabled (")
            && text.contains("schedule \"0 3 * * *\""),
        "{text}"
    );

    // Turned off the way the fix says.
    write_file(
        &dir.join("memory-loop.service.d/override.conf"),
        b"[Service]\nEnvironment=EXTRACTION_SCHEDULE=off EXTRACTION_CATCHUP_HOURS=100000\n",
    );
    let (_, checks) = doctor_json(&other, &[], &["--offline"]);
    let memory_loop = named(&checks, "memory-loop");
    assert_eq!(memory_loop.len(), 1);
    assert_eq!(memory_loop[0]["level"], "ok", "{checks:?}");
    assert!(
        memory_loop[0]["message"]
            .as_str()
            .unwrap()
            .contains("is off"),
        "{checks:?}"
    );
}

/// Now as RFC 3339, from the test process's clock.
fn chrono_now() -> String {
    let out = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn an_enabled_unit_that_is_not_active_will_not_fire_and_is_an_error() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let vars = with_path(&anthropic(&mock), &fake_systemctl(&env, true));
    install_service(&env, &vars);
    let (code, text) = doctor(&env, &vars, &["--offline"]);
    assert_eq!(code, 0, "{text}");
    // Enabled on disk, but the manager says it is not running: nothing fires it.
    write_file(
        &env.root().join("fakebin/systemctl"),
        b"#!/bin/sh\ncase \"$*\" in *is-active*) echo inactive; exit 3 ;; esac\nexit 0\n",
    );
    let (code, text) = doctor(&env, &vars, &["--offline"]);
    assert_eq!(code, 1, "{text}");
    let service = line(&text, "memloop-extract.timer");
    assert!(service.contains("enabled but not active"), "{text}");
}

#[test]
fn a_vault_whose_inbox_does_not_exist_is_a_warning_naming_inbox_path() {
    let env = TestEnv::new();
    let vault = env.create_vault("solo");
    // Read as Memory Loop reads it: inside the vault, `solo/home/u/chats-inbox/chats`.
    std::fs::write(
        vault.join(".memory-loop.json"),
        r#"{"inboxPath": "/home/u/chats-inbox"}"#,
    )
    .unwrap();

    let (_, text) = doctor(&env, &[], &["--offline"]);

    let vault_line = line(&text, "vault solo:");
    assert!(
        vault_line.contains("0 transcripts") && vault_line.contains("does not exist"),
        "{text}"
    );
    assert!(text.contains("check inboxPath"), "{text}");
}

#[cfg(unix)]
#[test]
fn a_hard_linked_memory_md_is_said_to_be_written_in_place() {
    let env = TestEnv::with_fixtures();
    let memory = env.memory_path();
    std::fs::create_dir_all(memory.parent().unwrap()).unwrap();
    std::fs::write(&memory, "# Memory\n").unwrap();
    std::fs::hard_link(&memory, env.root().join("dotfiles-memory.md")).unwrap();

    let (_, text) = doctor(&env, &[], &["--offline"]);

    assert!(
        line(&text, "memory file").contains("2 names (hard links), so memloop writes it in place"),
        "{text}"
    );
}

#[test]
fn a_read_only_memory_md_is_an_error_that_says_how_to_make_it_writable() {
    let env = TestEnv::with_fixtures();
    let memory = env.memory_path();
    std::fs::create_dir_all(memory.parent().unwrap()).unwrap();
    std::fs::write(&memory, "# Memory\n").unwrap();
    let mut perms = std::fs::metadata(&memory).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&memory, perms).unwrap();

    let (code, text) = doctor(&env, &[], &["--offline"]);

    assert_eq!(code, 1, "{text}");
    let error = line(&text, "is read-only");
    assert!(error.starts_with("error memory"), "{text}");
    assert!(error.contains("fix: make it writable"), "{text}");
}
