//! Extraction through the `claude` CLI (Claude Code), for people with a Claude
//! subscription and no API key. One call is one sealed, non-interactive run:
//!
//! ```text
//! claude -p --output-format json --model MODEL --no-session-persistence --tools ""
//!        --system-prompt SYSTEM --setting-sources "" --strict-mcp-config
//!        --mcp-config '{"mcpServers":{}}' --settings '{"disableAllHooks":true}'
//!        (user message on stdin; environment: see `SEAL_ENV`)
//! ```
//!
//! Sealed means the CLI brings nothing of its own into the call and leaves nothing
//! behind: memloop's prompt replaces Claude Code's agent prompt (about 13 KB, 26 KB with
//! auto-memory); no setting file is read, so none of the user's hooks, MCP servers,
//! plugins, CLAUDE.md or rules (memloop's own memory.md among them) come in; hooks and MCP
//! servers are also switched off by flag, CLAUDE.md loading and auto-memory by environment,
//! so that each stays off if another layer changes; no thinking; no session title request
//! (which would send the transcript a second time) and no telemetry; and none of the
//! CLI's own retries, which would spend minutes on a rejected key or an overloaded API
//! behind memloop's timeout: memloop's retry policy (see `retry`) applies instead. The
//! login is untouched: `HOME` and `CLAUDE_CONFIG_DIR` stay the user's, where a
//! subscription login keeps its credentials, and `ANTHROPIC_API_KEY` passes through.
//! A login kept only in a settings file (`apiKeyHelper`, an `env` block) is not read.
//! Checked against Claude Code 2.1.197 (`scripts/check-claude-cli.sh`).
//!
//! The system text goes in an argument (it is a few kilobytes, far below the argument
//! limit) and the user message, which holds the transcript, on stdin, so no transcript
//! ever shows in `ps`. `--tools ""` takes every tool away: the transcript is untrusted
//! and must not be able to make the model read files or run commands. The process runs
//! in a fresh, private (0700), empty directory, removed afterwards, so that no project's
//! CLAUDE.md, nor one any local user left in the shared temp directory, is pulled into
//! the context. It runs in its own process group, and on timeout the whole group is
//! killed, so that nothing it started outlives it.
//!
//! This module finds the binary, runs it under the timeout and reads its JSON, the API
//! status the CLI reports included; it does not retry (see `retry`).

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

use super::{Answered, Ask, Extraction, LlmError, Said, Settings, Usage, excerpt};

/// The binary's name on PATH.
pub const PROGRAM: &str = "claude";

/// The first executable file called `name` in the directories of `path` (a PATH value).
pub fn find_program(name: &str, path: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// The environment each run gets on top of memloop's own, all read by Claude Code
/// 2.1.197: no retries of its own, no thinking, no auto-memory directory, no CLAUDE.md
/// (a managed one included), no title request, telemetry or update check.
pub const SEAL_ENV: [(&str, &str); 5] = [
    ("CLAUDE_CODE_MAX_RETRIES", "0"),
    ("MAX_THINKING_TOKENS", "0"),
    ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1"),
    ("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "1"),
    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
];

/// The settings passed on the command line, which outrank the user's: no hooks.
const SEAL_SETTINGS: &str = r#"{"disableAllHooks":true}"#;

/// No MCP server at all, with `--strict-mcp-config`.
const NO_MCP_SERVERS: &str = r#"{"mcpServers":{}}"#;

/// The arguments of one run, the system text included.
pub fn args(model: &str, system: &str) -> Vec<OsString> {
    [
        "-p",
        "--output-format",
        "json",
        "--model",
        model,
        "--no-session-persistence",
        "--tools",
        "",
        "--system-prompt",
        system,
        "--setting-sources",
        "",
        "--strict-mcp-config",
        "--mcp-config",
        NO_MCP_SERVERS,
        "--settings",
        SEAL_SETTINGS,
    ]
    .into_iter()
    .map(OsString::from)
    .collect()
}

/// The environment of one run: `SEAL_ENV` and the answer's length cap.
pub fn env(settings: &Settings) -> Vec<(&'static str, String)> {
    SEAL_ENV
        .iter()
        .map(|(name, value)| (*name, (*value).to_owned()))
        .chain([(
            "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
            settings.max_output_tokens.to_string(),
        )])
        .collect()
}

/// Reads an extraction from what the CLI printed on stdout with `--output-format json`,
/// given how it exited.
pub fn parse_output(success: bool, stdout: &str, stderr: &str) -> Result<Extraction, LlmError> {
    parse_answer(success, stdout, stderr)?.into_extraction()
}

/// Reads what the CLI printed on stdout with `--output-format json`, given how it exited:
/// the model's text.
pub fn parse_answer(success: bool, stdout: &str, stderr: &str) -> Result<Answered, LlmError> {
    let Ok(output) = super::contract::from_json::<Value>(stdout.trim()) else {
        let said = if stderr.trim().is_empty() {
            stdout
        } else {
            stderr
        };
        return Err(failure(said));
    };
    let result = output
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let is_error = output
        .get("is_error")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let subtype = output
        .get("subtype")
        .and_then(Value::as_str)
        .unwrap_or("success");
    if is_error || !success || subtype != "success" {
        let said = [result, stderr, subtype]
            .into_iter()
            .find(|s| !s.trim().is_empty())
            .unwrap_or("no output");
        let status = output
            .get("api_error_status")
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok());
        return Err(match status {
            Some(status) => api_failure(status, said),
            None => failure(said),
        });
    }
    let count = |name: &str| {
        output
            .pointer(&format!("/usage/{name}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let usage = Usage {
        input_tokens: count("input_tokens")
            + count("cache_creation_input_tokens")
            + count("cache_read_input_tokens"),
        output_tokens: count("output_tokens"),
        cache_write_tokens: count("cache_creation_input_tokens"),
        cache_read_tokens: count("cache_read_input_tokens"),
    };
    Ok(Answered {
        said: Said::Text(result.to_owned()),
        usage,
        truncated: false,
    })
}

/// A failed API call the CLI reported with its status: a rejected login is fatal, any
/// other status means what it means from the API itself (529 and 5xx are retried, a 404
/// stops the run).
fn api_failure(status: u16, said: &str) -> LlmError {
    if matches!(status, 401 | 403) {
        return LlmError::Config(format!(
            "the claude CLI's login was rejected (HTTP {status}): run `claude` and log in \
             again with /login, or check ANTHROPIC_API_KEY if you use one ({})",
            excerpt(said)
        ));
    }
    super::anthropic::error_for_status(status, None, said, None)
}

/// A failed run without an API status: a login problem or a CLI too old for memloop's
/// flags is fatal configuration, anything else a process error.
fn failure(said: &str) -> LlmError {
    let lower = said.to_lowercase();
    let login = [
        "not logged in",
        "/login",
        "invalid api key",
        "authentication_error",
        "oauth token has expired",
    ]
    .iter()
    .any(|phrase| lower.contains(phrase));
    if login {
        LlmError::Config(format!(
            "the claude CLI is not logged in: run `claude` once and log in ({})",
            excerpt(said)
        ))
    } else if lower.contains("unknown option") {
        LlmError::Config(format!(
            "the claude CLI is too old for memloop, which needs the flags of Claude Code \
             2.1.197 or newer: update it with `claude update` ({})",
            excerpt(said)
        ))
    } else {
        LlmError::Process(excerpt(said))
    }
}

/// Runs extractions through the `claude` binary.
pub struct Client {
    program: PathBuf,
    settings: Settings,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("claude_cli::Client")
            .field("program", &self.program)
            .field("settings", &self.settings)
            .finish()
    }
}

impl Client {
    /// A client for the `claude` found on this process's PATH.
    #[allow(
        clippy::disallowed_methods,
        reason = "the child inherits this process's PATH: look the binary up where it will run"
    )]
    pub fn new(settings: &Settings) -> Result<Self, LlmError> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        Self::from_path(settings, &path)
    }

    /// A client for the `claude` found on `path`, a PATH-style list of directories.
    pub fn from_path(settings: &Settings, path: &OsStr) -> Result<Self, LlmError> {
        let program = find_program(PROGRAM, path).ok_or_else(|| {
            LlmError::Config(
                "the claude CLI was not found on PATH; install Claude Code or choose another provider"
                    .to_owned(),
            )
        })?;
        Ok(Self {
            program,
            settings: settings.clone(),
        })
    }

    /// The settings this client was built with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// One extraction call, without retries.
    pub async fn send(&self, req: &super::ExtractRequest) -> Result<Extraction, LlmError> {
        self.ask(&Ask::extract(req)).await?.into_extraction()
    }

    /// One run of the CLI in a private empty directory, killed with everything it
    /// started when the timeout passes.
    pub async fn ask(&self, ask: &Ask) -> Result<Answered, LlmError> {
        let workdir = PrivateDir::create(&std::env::temp_dir()).map_err(|e| {
            LlmError::Process(format!("could not create a private working directory: {e}"))
        })?;
        let mut command = Command::new(&self.program);
        command
            .args(args(&self.settings.model, &ask.system))
            .envs(env(&self.settings))
            .current_dir(workdir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // Its own group, whose id is its pid, so that a timeout can kill its children too.
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|e| {
            LlmError::Config(format!("could not start {}: {e}", self.program.display()))
        })?;
        let group = child.id();
        let mut stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let message = ask.user.clone();
        let feed = async move {
            if let Some(stdin) = stdin.as_mut() {
                // A CLI that exits early closes the pipe; its exit status tells why.
                let _ = stdin.write_all(message.as_bytes()).await;
                let _ = stdin.shutdown().await;
            }
            drop(stdin);
        };
        let run = async {
            let (status, stdout, stderr, ()) =
                tokio::join!(child.wait(), read_all(stdout), read_all(stderr), feed);
            Ok::<_, io::Error>((status?, stdout?, stderr?))
        };
        let Ok(output) = tokio::time::timeout(self.settings.timeout, run).await else {
            // A group id is not reused while any member lives, so this still names ours.
            kill_tree(&mut child, group).await;
            return Err(LlmError::Timeout);
        };
        let (status, stdout, stderr) =
            output.map_err(|e| LlmError::Process(format!("could not read its output: {e}")))?;
        parse_answer(
            status.success(),
            &String::from_utf8_lossy(&stdout),
            &String::from_utf8_lossy(&stderr),
        )
    }
}

async fn read_all(pipe: Option<impl AsyncRead + Unpin>) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if let Some(mut pipe) = pipe {
        pipe.read_to_end(&mut bytes).await?;
    }
    Ok(bytes)
}

/// Kills the child's process group, then the child itself in case that failed (or on a
/// platform without groups). memloop forbids `unsafe` and has no libc or nix dependency,
/// so the group is signalled through the `kill` utility, which takes a negative pid.
async fn kill_tree(child: &mut Child, group: Option<u32>) {
    #[cfg(unix)]
    if let Some(group) = group {
        let killed = Command::new("kill")
            .args(["-KILL", "--", &format!("-{group}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await;
        if !killed.is_ok_and(|status| status.success()) {
            tracing::debug!(group, "could not kill the claude process group");
        }
    }
    #[cfg(not(unix))]
    let _ = group;
    // Also reaps it; an error means it is gone already.
    let _ = child.kill().await;
}

/// A fresh directory only this user can enter, removed with everything in it on drop.
struct PrivateDir(PathBuf);

impl PrivateDir {
    /// Creates `memloop-claude-…` under `parent` with a name no one else holds; an
    /// existing entry of that name (anyone's) is never reused.
    #[allow(
        clippy::disallowed_methods,
        reason = "the clock only seeds a unique name here"
    )]
    fn create(parent: &Path) -> io::Result<Self> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut last = None;
        for _ in 0..16 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = parent.join(format!(
                "memloop-claude-{}-{n}-{nanos:08x}",
                std::process::id()
            ));
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            match builder.create(&path) {
                Ok(()) => return Ok(Self(path)),
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => last = Some(err),
                Err(err) => return Err(err),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free name")))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        if let Err(err) = std::fs::remove_dir_all(&self.0) {
            tracing::debug!("could not remove {}: {err}", self.0.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::llm::{ExtractRequest, ProviderKind};

    const SUCCESS: &str = r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":4210,"duration_api_ms":3987,"num_turns":1,"result":"```json\n{\"facts\": [{\"category\": \"Preferences\", \"text\": \"Prefers tabs over spaces.\", \"scope\": \"global\", \"replaces\": null}]}\n```","session_id":"6a1f3c2e-9b7d-4e0a-8c5f-2d4b6e8a0c1f","total_cost_usd":0.0042,"usage":{"input_tokens":812,"cache_creation_input_tokens":1200,"cache_read_input_tokens":3000,"output_tokens":61,"server_tool_use":{"web_search_requests":0},"service_tier":"standard"},"permission_denials":[]}"#;

    fn settings(timeout: Duration) -> Settings {
        Settings {
            kind: ProviderKind::ClaudeCli,
            model: "haiku".into(),
            api_key: None,
            base_url: String::new(),
            timeout,
            max_retries: 0,
            max_output_tokens: 4096,
        }
    }

    fn request() -> ExtractRequest {
        ExtractRequest {
            system: "Extract facts.".into(),
            transcript: "## [09:00] User\nI always indent with tabs.\n".into(),
            categories: vec!["Preferences".into()],
            known_facts: vec![],
            related: Vec::new(),
            vault: "notes".into(),
            date: "2025-06-12".into(),
        }
    }

    #[test]
    fn output_success_yields_facts_and_usage() {
        let extraction = parse_output(true, SUCCESS, "").expect("parses");
        assert_eq!(extraction.facts.len(), 1);
        assert_eq!(extraction.facts[0].text, "Prefers tabs over spaces.");
        assert_eq!(
            extraction.usage,
            Usage {
                input_tokens: 5012,
                output_tokens: 61,
                cache_write_tokens: 1200,
                cache_read_tokens: 3000,
            }
        );
    }

    #[test]
    fn output_failures_map_to_errors() {
        let not_logged_in = r#"{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login","session_id":"x","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0}}"#;
        let err = parse_output(false, not_logged_in, "").expect_err("auth");
        assert!(err.is_fatal(), "{err:?}");

        let max_turns =
            r#"{"type":"result","subtype":"error_max_turns","is_error":false,"session_id":"x"}"#;
        let err = parse_output(true, max_turns, "").expect_err("max turns");
        assert!(
            matches!(err, LlmError::Process(ref m) if m.contains("error_max_turns")),
            "{err:?}"
        );

        let err = parse_output(false, "", "error: something else went wrong").expect_err("crash");
        assert!(
            matches!(err, LlmError::Process(ref m) if m.contains("went wrong")),
            "{err:?}"
        );

        let err = parse_output(
            true,
            r#"{"type":"result","subtype":"success","is_error":false,"result":"I found nothing."}"#,
            "",
        )
        .expect_err("no JSON");
        assert!(matches!(err, LlmError::Parse(_)), "{err:?}");
    }

    #[test]
    fn args_carry_model_and_system_and_seal_the_run() {
        let args = args("haiku", "SYSTEM TEXT");
        let value = |flag: &str| {
            let at = args.iter().position(|a| a == flag)?;
            args.get(at + 1).and_then(|v| v.to_str())
        };
        assert_eq!(value("--model"), Some("haiku"));
        assert_eq!(value("--tools"), Some(""));
        assert_eq!(value("--system-prompt"), Some("SYSTEM TEXT"));
        assert_eq!(value("--setting-sources"), Some(""));
        assert_eq!(value("--mcp-config"), Some(r#"{"mcpServers":{}}"#));
        let settings: Value =
            serde_json::from_str(value("--settings").expect("--settings")).expect("JSON");
        assert_eq!(settings["disableAllHooks"], true);
        for flag in ["-p", "--no-session-persistence", "--strict-mcp-config"] {
            assert!(args.iter().any(|a| a == flag), "{flag} in {args:?}");
        }
        assert!(
            !args.iter().any(|a| a == "--append-system-prompt"),
            "memloop's prompt replaces Claude Code's: {args:?}"
        );
    }

    #[test]
    fn env_turns_off_retries_thinking_memory_and_side_requests() {
        let env = env(&settings(Duration::from_secs(5)));
        let get = |name: &str| {
            env.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.as_str())
        };
        let cases = [
            ("CLAUDE_CODE_MAX_RETRIES", "0"),
            ("MAX_THINKING_TOKENS", "0"),
            ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1"),
            ("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "1"),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "4096"),
        ];
        for (name, want) in cases {
            assert_eq!(get(name), Some(want), "{name}");
        }
        assert!(
            !env.iter()
                .any(|(n, _)| n.contains("CONFIG_DIR") || *n == "HOME"),
            "the login stays where the user keeps it: {env:?}"
        );
    }

    /// What Claude Code 2.1.197 prints for a failed API call, with the status it saw.
    fn api_error(status: u16, message: &str) -> String {
        serde_json::json!({"type": "result", "subtype": "success", "is_error": true,
            "api_error_status": status, "duration_ms": 95, "num_turns": 1,
            "result": message, "stop_reason": "stop_sequence", "session_id": "x",
            "total_cost_usd": 0, "usage": {"input_tokens": 0, "output_tokens": 0}})
        .to_string()
    }

    #[test]
    fn api_statuses_the_cli_reports_map_like_the_api_s_own() {
        let rejected = parse_output(
            false,
            &api_error(401, "Invalid API key · Fix external API key"),
            "",
        )
        .expect_err("401");
        assert!(rejected.is_fatal(), "{rejected:?}");
        assert!(rejected.to_string().contains("/login"), "{rejected}");
        assert!(rejected.to_string().contains("HTTP 401"), "{rejected}");

        let overloaded = parse_output(
            false,
            &api_error(
                529,
                "API Error: 529 Overloaded. This is a server-side issue",
            ),
            "",
        )
        .expect_err("529");
        assert!(
            matches!(overloaded, LlmError::Http { status: 529, .. }),
            "{overloaded:?}"
        );
        assert!(overloaded.is_retryable() && !overloaded.is_fatal());

        let unknown_model = parse_output(
            false,
            &api_error(
                404,
                "There's an issue with the selected model (claude-nonexistent-9). It may not \
                 exist or you may not have access to it.",
            ),
            "",
        )
        .expect_err("404");
        assert!(
            matches!(unknown_model, LlmError::Http { status: 404, ref body, .. }
                if body.contains("claude-nonexistent-9")),
            "{unknown_model:?}"
        );
        assert!(!unknown_model.is_retryable());

        let broke = parse_output(false, &api_error(500, "API Error: 500"), "").expect_err("500");
        assert!(broke.is_retryable(), "{broke:?}");
    }

    #[test]
    fn a_cli_without_memloop_s_flags_is_a_configuration_error() {
        let err = parse_output(false, "", "error: unknown option '--setting-sources'")
            .expect_err("old CLI");
        assert!(err.is_fatal(), "{err:?}");
        assert!(err.to_string().contains("claude update"), "{err}");
    }

    #[cfg(unix)]
    fn fake_claude(dir: &Path, script: &str) {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(PROGRAM);
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).expect("write fake claude");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[cfg(unix)]
    #[test]
    fn lookup_walks_path_and_skips_non_executables() {
        use std::os::unix::fs::PermissionsExt;
        let first = tempfile::tempdir().expect("tempdir");
        let second = tempfile::tempdir().expect("tempdir");
        let plain = first.path().join(PROGRAM);
        std::fs::write(&plain, "not executable").expect("write");
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        fake_claude(second.path(), "exit 0");
        let path = std::env::join_paths([first.path(), second.path()]).expect("join");
        assert_eq!(
            find_program(PROGRAM, &path),
            Some(second.path().join(PROGRAM))
        );

        let empty = tempfile::tempdir().expect("tempdir");
        let err = Client::from_path(&settings(Duration::from_secs(5)), empty.path().as_os_str())
            .expect_err("not found");
        assert!(err.is_fatal());
        assert!(err.to_string().contains("not found on PATH"), "{err}");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn fake_cli_receives_the_message_on_stdin_and_answers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let seen = dir.path().join("stdin.txt");
        let argv = dir.path().join("argv.txt");
        fake_claude(
            dir.path(),
            &format!(
                "printf '%s\\n' \"$@\" > '{}'\ncat > '{}'\nprintf '%s' '{}'",
                argv.display(),
                seen.display(),
                SUCCESS.replace('\'', r"'\''")
            ),
        );
        let client = Client::from_path(&settings(Duration::from_secs(20)), dir.path().as_os_str())
            .expect("found");
        let extraction = client.send(&request()).await.expect("extracts");
        assert_eq!(extraction.facts[0].category, "Preferences");
        let stdin = std::fs::read_to_string(&seen).expect("stdin captured");
        assert!(stdin.contains("I always indent with tabs."), "{stdin}");
        assert!(stdin.contains("untrusted=\"true\""));
        let argv = std::fs::read_to_string(&argv).expect("argv captured");
        assert!(argv.contains("--system-prompt\nExtract facts.\n"), "{argv}");
        assert!(
            !argv.contains("indent with tabs"),
            "the transcript stays off argv"
        );
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn fake_cli_failures_map_to_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        fake_claude(
            dir.path(),
            "cat >/dev/null\necho 'boom: something broke' >&2\nexit 3",
        );
        let client = Client::from_path(&settings(Duration::from_secs(20)), dir.path().as_os_str())
            .expect("found");
        let err = client.send(&request()).await.expect_err("fails");
        assert!(
            matches!(err, LlmError::Process(ref m) if m.contains("boom")),
            "{err:?}"
        );

        let dir = tempfile::tempdir().expect("tempdir");
        fake_claude(
            dir.path(),
            "echo 'Error: not logged in. Please run /login' >&2\nexit 1",
        );
        let client = Client::from_path(&settings(Duration::from_secs(20)), dir.path().as_os_str())
            .expect("found");
        let err = client.send(&request()).await.expect_err("fails");
        assert!(err.is_fatal(), "{err:?}");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_hanging_cli_is_killed_at_the_timeout() {
        let dir = tempfile::tempdir().expect("tempdir");
        fake_claude(dir.path(), "exec sleep 30");
        let client = Client::from_path(
            &settings(Duration::from_millis(300)),
            dir.path().as_os_str(),
        )
        .expect("found");
        let started = Instant::now();
        let err = client.send(&request()).await.expect_err("times out");
        assert!(matches!(err, LlmError::Timeout), "{err:?}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    /// Whether `pid` runs: a zombie, killed and waiting for its reaper, does not.
    #[cfg(target_os = "linux")]
    fn running(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
        })
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_timeout_kills_the_processes_the_cli_started() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pids = dir.path().join("pids");
        fake_claude(
            dir.path(),
            &format!(
                "sleep 300 &\necho $! > '{0}'\nsleep 300 &\necho $! >> '{0}'\nwait",
                pids.display()
            ),
        );
        let client = Client::from_path(&settings(Duration::from_secs(2)), dir.path().as_os_str())
            .expect("found");
        let err = client.send(&request()).await.expect_err("times out");
        assert!(matches!(err, LlmError::Timeout), "{err:?}");
        let pids = std::fs::read_to_string(&pids).expect("the script recorded its children");
        let pids: Vec<&str> = pids.split_whitespace().collect();
        assert_eq!(pids.len(), 2, "{pids:?}");
        let deadline = Instant::now() + Duration::from_secs(5);
        while pids.iter().any(|pid| running(pid)) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let survivors: Vec<&str> = pids.into_iter().filter(|pid| running(pid)).collect();
        for pid in &survivors {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", pid])
                .status();
        }
        assert!(survivors.is_empty(), "still running: {survivors:?}");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn the_cli_runs_in_a_private_empty_directory_removed_afterwards() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cwd = dir.path().join("cwd");
        let listing = dir.path().join("listing");
        let mode = dir.path().join("mode");
        fake_claude(
            dir.path(),
            &format!(
                "pwd -P > '{}'\nls -A > '{}'\nls -ld . > '{}'\ncat >/dev/null\nprintf '%s' '{}'",
                cwd.display(),
                listing.display(),
                mode.display(),
                SUCCESS.replace('\'', r"'\''")
            ),
        );
        let client = Client::from_path(&settings(Duration::from_secs(20)), dir.path().as_os_str())
            .expect("found");
        client.send(&request()).await.expect("extracts");

        let cwd = PathBuf::from(std::fs::read_to_string(&cwd).expect("pwd captured").trim());
        let temp = std::env::temp_dir().canonicalize().expect("temp dir");
        assert_eq!(cwd.parent(), Some(temp.as_path()), "{}", cwd.display());
        let name = cwd.file_name().expect("name").to_string_lossy();
        assert!(name.starts_with("memloop-claude-"), "{name}");
        assert_eq!(std::fs::read_to_string(&listing).expect("listing"), "");
        let mode = std::fs::read_to_string(&mode).expect("mode");
        assert!(mode.starts_with("drwx------"), "{mode}");
        assert!(!cwd.exists(), "{} was not removed", cwd.display());
    }

    #[cfg(unix)]
    #[test]
    fn private_dirs_are_fresh_owner_only_and_removed_on_drop() {
        use std::os::unix::fs::PermissionsExt;
        let parent = tempfile::tempdir().expect("tempdir");
        let first = PrivateDir::create(parent.path()).expect("created");
        let second = PrivateDir::create(parent.path()).expect("created");
        assert_ne!(first.path(), second.path());
        let mode = first
            .path()
            .metadata()
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "{mode:o}");
        std::fs::write(first.path().join("left-behind"), "x").expect("write");
        let path = first.path().to_owned();
        drop(first);
        assert!(!path.exists());
        assert!(second.path().is_dir());
    }
}
