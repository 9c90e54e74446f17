//! The provider a run would use: which one `auto` picked and why, on one line (an error
//! when it cannot work: a key it needs is missing); then for the API providers the base URL
//! (no scheme, or a path the client appends again) and one cheap request to see it answer,
//! with a short timeout and no retry (not with `--offline`); for `claude-cli` the program on
//! PATH and whether this machine has memory for `llm.concurrency` of them.
//!
//! Nothing is asked of `builtin`. The request goes through the providers' own clients, so
//! what doctor sees is what a run would see.

use std::time::{Duration, Instant};

use super::Check;
use crate::config::{ProviderReason, Resolved, provider_name};
use crate::llm::{self, LlmError, Provider, ProviderKind, Settings, claude_cli};
use crate::paths::Env;

/// How long the test request may take, connection included.
const PING_TIMEOUT: Duration = Duration::from_secs(10);

/// The provider's lines, in order: the provider, then its endpoint or program.
pub(super) fn check(cfg: &Resolved, env: &Env, offline: bool) -> Vec<Check> {
    let llm = &cfg.llm;
    let name = provider_name(llm.kind);
    // One line when it cannot work at all: nothing after it would be true.
    if let Err(e) = cfg.require_credentials() {
        return vec![
            Check::error("provider", format!("{e} ({})", cfg.provider_reason))
                .fix(credentials_fix(cfg)),
        ];
    }
    let line = format!(
        "provider {name}, model {} ({})",
        llm.model, cfg.provider_reason
    );
    let mut out = vec![if llm.kind == ProviderKind::Builtin
        && cfg.provider_reason == ProviderReason::Fallback
    {
        Check::warn("provider", line).fix(
                "builtin keeps only plain first-person statements; for an LLM set ANTHROPIC_API_KEY, or OPENAI_API_KEY or OPENAI_BASE_URL (a local server)",
            )
    } else {
        Check::ok("provider", line)
    }];
    match llm.kind {
        ProviderKind::Anthropic | ProviderKind::OpenAi => {
            match base_url_problem(llm.kind, &llm.base_url) {
                Some(problem) if problem.level == super::Level::Error => out.push(problem),
                // A warning about the URL stands; the request says whether it works anyway.
                Some(problem) => {
                    out.push(problem);
                    out.push(endpoint(cfg, offline));
                }
                None => out.push(endpoint(cfg, offline)),
            }
        }
        ProviderKind::ClaudeCli => {
            let path = env.var("PATH").unwrap_or_default();
            out.push(match claude_cli::find_program("claude", path.as_ref()) {
                Some(p) => Check::ok("claude-cli", format!("claude CLI {}", p.display())),
                None => Check::error("claude-cli", "the claude CLI was not found on PATH").fix(
                    "install Claude Code (https://claude.com/claude-code), or choose another provider with MEMLOOP_PROVIDER or [llm] provider",
                ),
            });
            if let Some(available) = available_memory() {
                out.extend(cli_memory(cfg.config.llm.concurrency, available));
            }
        }
        ProviderKind::Builtin => {}
    }
    out
}

/// Where a key goes: the shell for a manual run, the service's environment file for the
/// nightly one.
fn credentials_fix(cfg: &Resolved) -> String {
    let env_file = crate::cmd::service::env_file(cfg);
    match cfg.llm.kind {
        ProviderKind::OpenAi => format!(
            "export OPENAI_API_KEY=... (the service reads it from {}), or OPENAI_BASE_URL=http://localhost:11434/v1 for a local server, or choose another provider with MEMLOOP_PROVIDER or [llm] provider",
            env_file.display()
        ),
        _ => format!(
            "export ANTHROPIC_API_KEY=... (the service reads it from {}), or choose another provider with MEMLOOP_PROVIDER or [llm] provider",
            env_file.display()
        ),
    }
}

/// The variable a provider's base URL comes from, and the path its client appends.
fn url_source(kind: ProviderKind) -> (&'static str, &'static str) {
    match kind {
        ProviderKind::Anthropic => ("ANTHROPIC_BASE_URL", "/v1/messages"),
        _ => ("OPENAI_BASE_URL", "/chat/completions"),
    }
}

/// A base URL the client cannot use as given, with the URL that works. No scheme is an
/// error (no request can be sent); a path the client appends again is a warning.
fn base_url_problem(kind: ProviderKind, url: &str) -> Option<Check> {
    let (var, suffix) = url_source(kind);
    let url = url.trim_end_matches('/');
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Some(
            Check::error(
                "endpoint",
                format!("{var}={url} has no http:// or https:// scheme: no request can be sent"),
            )
            .fix(format!("{var}={}", with_scheme(kind, url))),
        );
    }
    let path = url.splitn(4, '/').nth(3).unwrap_or("");
    if let Some(base) = url.strip_suffix(suffix) {
        return Some(
            Check::warn(
                "endpoint",
                format!("{var}={url} already ends in {suffix}, which memloop appends: requests would go to {url}{suffix}"),
            )
            .fix(format!("{var}={base}")),
        );
    }
    if kind == ProviderKind::Anthropic && url.ends_with("/v1") {
        let base = &url[..url.len() - 3];
        return Some(
            Check::warn(
                "endpoint",
                format!("{var}={url} ends in /v1, and memloop appends {suffix}: requests would go to {url}{suffix}"),
            )
            .fix(format!("{var}={base}")),
        );
    }
    if kind == ProviderKind::OpenAi && path.is_empty() {
        return Some(
            Check::warn(
                "endpoint",
                format!("{var}={url} has no path: memloop posts to {url}{suffix}, and OpenAI-compatible servers (Ollama, vLLM, LM Studio) serve /v1{suffix}"),
            )
            .fix(format!("{var}={url}/v1")),
        );
    }
    None
}

/// `url` (which has no scheme) as it was most likely meant: `http://` for this machine or
/// an explicit port other than 443 (a local server), else `https://`; an OpenAI-compatible
/// URL without a path gets the `/v1` those servers use.
fn with_scheme(kind: ProviderKind, url: &str) -> String {
    let url = url.trim_start_matches('/');
    let (authority, path) = url.split_once('/').unwrap_or((url, ""));
    let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
    let port = authority
        .rsplit_once(':')
        .map(|(_, p)| p)
        .filter(|p| p.chars().all(|c| c.is_ascii_digit()));
    let local = matches!(
        host,
        "localhost" | "0.0.0.0" | "[::1]" | "host.docker.internal"
    ) || host.starts_with("127.")
        || host.ends_with(".local");
    let scheme = if local || port.is_some_and(|p| p != "443") {
        "http"
    } else {
        "https"
    };
    let path = match (kind, path) {
        (ProviderKind::OpenAi, "") => "/v1".to_owned(),
        (_, "") => String::new(),
        (_, p) => format!("/{p}"),
    };
    format!("{scheme}://{authority}{path}")
}

/// The endpoint line: asked once, or not asked with `--offline`.
fn endpoint(cfg: &Resolved, offline: bool) -> Check {
    let url = shown(&cfg.llm.base_url);
    if offline {
        return Check::ok("endpoint", format!("endpoint {url} (not asked: --offline)"));
    }
    let started = Instant::now();
    let answer = ping(&cfg.llm);
    judge(
        cfg.llm.kind,
        &url,
        &cfg.llm.model,
        started.elapsed(),
        answer,
    )
}

/// One extraction request on a two-line chat, without retries, bounded by
/// [`PING_TIMEOUT`].
fn ping(settings: &Settings) -> Result<llm::Extraction, LlmError> {
    let mut settings = settings.clone();
    settings.timeout = PING_TIMEOUT;
    settings.max_retries = 0;
    settings.max_output_tokens = settings.max_output_tokens.min(256);
    let categories = vec!["Preferences".to_owned()];
    let request = llm::ExtractRequest {
        system: llm::system_prompt("Extract durable facts about the user.", &categories),
        transcript: "## [09:00] User\n\nHello.\n\n## [09:00] Assistant\n\nHi.\n".to_owned(),
        categories,
        known_facts: Vec::new(),
        related: Vec::new(),
        vault: "doctor".to_owned(),
        date: "2026-01-01".to_owned(),
    };
    let provider = Provider::new(&settings)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| LlmError::Config(format!("could not start the test request: {e}")))?;
    // The clients' own `ask`: one request, none of `Provider::extract`'s retries.
    let ask = llm::Ask::extract(&request);
    runtime.block_on(async {
        match &provider {
            Provider::Anthropic(client) => client.ask(&ask).await?.into_extraction(),
            Provider::OpenAi(client) => client.ask(&ask).await?.into_extraction(),
            Provider::ClaudeCli(_) | Provider::Builtin => Ok(llm::Extraction::default()),
        }
    })
}

/// What the answer to the test request says about the provider.
fn judge(
    kind: ProviderKind,
    url: &str,
    model: &str,
    took: Duration,
    answer: Result<llm::Extraction, LlmError>,
) -> Check {
    let (var, suffix) = url_source(kind);
    let e = match answer {
        Ok(_) => {
            return Check::ok(
                "endpoint",
                format!(
                    "endpoint {url} answered a test request in {:.1} s (model {model})",
                    took.as_secs_f64()
                ),
            );
        }
        Err(e) => e,
    };
    match e {
        LlmError::Auth {
            status, variable, ..
        } => Check::error(
            "endpoint",
            format!("endpoint {url} rejected the key (HTTP {status})"),
        )
        .fix(format!(
            "check {variable}: a key for this provider, not revoked, without quotes or spaces"
        )),
        LlmError::Unreachable(why) | LlmError::Connect(why) => {
            // The chain's last link says it ("Connection refused (os error 111)").
            let why = why.rsplit(": ").next().unwrap_or(&why).to_owned();
            Check::error("endpoint", format!("cannot reach endpoint {url}: {why}")).fix(format!(
                "start the server or correct {var}; `memloop doctor --offline` skips this request"
            ))
        }
        LlmError::Timeout => Check::error(
            "endpoint",
            format!(
                "endpoint {url} did not answer a test request within {} s",
                PING_TIMEOUT.as_secs()
            ),
        )
        .fix(format!("check that the server is up and {var} names it")),
        LlmError::Http {
            status: 404, body, ..
        } => Check::error(
            "endpoint",
            format!("endpoint {url} answered HTTP 404 to POST {url}{suffix}: {body}"),
        )
        .fix(format!(
            "correct {var} (memloop appends {suffix}), or the model name (MEMLOOP_MODEL or [llm] model)"
        )),
        LlmError::Http { status, body, .. } if status == 429 || status >= 500 => Check::warn(
            "endpoint",
            format!("endpoint {url} is busy or failing (HTTP {status}): {body}"),
        )
        .fix("nothing if it passes: a run retries with back-off; try `memloop doctor` again later"),
        LlmError::Http { status, body, .. } => Check::error(
            "endpoint",
            format!("endpoint {url} refused a test request (HTTP {status}): {body}"),
        )
        .fix("check the model name (MEMLOOP_MODEL or [llm] model) and the account"),
        LlmError::Parse(why) => Check::warn(
            "endpoint",
            format!("endpoint {url} answered, but not with the facts JSON memloop asks for: {why}"),
        )
        .fix("use a model that follows a JSON schema or tool use (MEMLOOP_MODEL or [llm] model)"),
        LlmError::Unreadable(why) => Check::error(
            "endpoint",
            format!("endpoint {url} answered with something other than the provider's response: {why}"),
        )
        .fix(format!(
            "a proxy or a captive portal may be answering in its place: sign in to the network, or correct {var}"
        )),
        e @ (LlmError::Config(_) | LlmError::Process(_)) => {
            Check::error("endpoint", format!("endpoint {url}: {e}"))
        }
    }
}

/// A URL as it may be printed: credentials in it (`https://user:secret@host`) are hidden.
fn shown(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    match authority.rsplit_once('@') {
        Some((_, host)) => {
            let sep = if path.is_empty() { "" } else { "/" };
            format!("{scheme}://***@{host}{sep}{path}")
        }
        None => url.to_owned(),
    }
}

const MB: u64 = 1024 * 1024;

/// What one `claude` CLI process takes at its peak: 290 MB measured with Claude Code
/// 2.1.197 run as memloop runs it, rounded up.
const CLI_BYTES: u64 = 300 * 1024 * 1024;

/// A warning when `concurrency` CLIs at once would take more than the `available` bytes.
fn cli_memory(concurrency: usize, available: u64) -> Option<Check> {
    let runs = u64::try_from(concurrency).unwrap_or(u64::MAX);
    let needed = runs.saturating_mul(CLI_BYTES);
    if needed <= available {
        return None;
    }
    let fits = (available / CLI_BYTES).max(1);
    Some(
        Check::warn(
            "cli-memory",
            format!(
                "llm.concurrency = {concurrency} runs up to {concurrency} claude CLIs at once, \
                 about {} MB at {} MB each, more than the {} MB this machine has available",
                needed / MB,
                CLI_BYTES / MB,
                available / MB
            ),
        )
        .fix(format!("set concurrency = {fits} under [llm]")),
    )
}

/// The memory available for new processes, where the system says (Linux's
/// `MemAvailable`); `None` elsewhere, and the check is skipped.
fn available_memory() -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `MemAvailable` from the text of `/proc/meminfo`, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib = line.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::super::Level;
    use super::*;

    #[test]
    fn base_urls_that_cannot_work_are_named_with_the_url_that_does() {
        let a = ProviderKind::Anthropic;
        let o = ProviderKind::OpenAi;
        type Case<'a> = (ProviderKind, &'a str, Option<(Level, &'a str)>);
        let cases: [Case<'_>; 12] = [
            (o, "https://api.openai.com/v1", None),
            (o, "http://localhost:11434/v1", None),
            (a, "https://api.anthropic.com", None),
            (a, "http://127.0.0.1:8080/proxy", None),
            (
                o,
                "localhost:11434",
                Some((Level::Error, "OPENAI_BASE_URL=http://localhost:11434/v1")),
            ),
            (
                o,
                "gpu-box:8000/v1",
                Some((Level::Error, "OPENAI_BASE_URL=http://gpu-box:8000/v1")),
            ),
            (
                o,
                "api.together.xyz/v1",
                Some((Level::Error, "OPENAI_BASE_URL=https://api.together.xyz/v1")),
            ),
            (
                a,
                "api.anthropic.com",
                Some((Level::Error, "ANTHROPIC_BASE_URL=https://api.anthropic.com")),
            ),
            (
                o,
                "http://localhost:11434/v1/chat/completions",
                Some((Level::Warn, "OPENAI_BASE_URL=http://localhost:11434/v1")),
            ),
            (
                a,
                "https://api.anthropic.com/v1/messages",
                Some((Level::Warn, "ANTHROPIC_BASE_URL=https://api.anthropic.com")),
            ),
            (
                a,
                "https://api.anthropic.com/v1",
                Some((Level::Warn, "ANTHROPIC_BASE_URL=https://api.anthropic.com")),
            ),
            (
                o,
                "http://localhost:11434",
                Some((Level::Warn, "OPENAI_BASE_URL=http://localhost:11434/v1")),
            ),
        ];
        for (kind, url, expected) in cases {
            let got = base_url_problem(kind, url);
            match (expected, got) {
                (None, None) => {}
                (Some((level, fix)), Some(check)) => {
                    assert_eq!(check.level, level, "{url}: {check:?}");
                    assert_eq!(check.fix.as_deref(), Some(fix), "{url}");
                    assert!(check.message.contains(url), "{url}: {check:?}");
                }
                (expected, got) => panic!("{url}: expected {expected:?}, got {got:?}"),
            }
        }
    }

    #[test]
    fn each_answer_to_the_test_request_is_one_line_that_says_what_to_do() {
        let url = "http://127.0.0.1:9";
        let judged = |kind, e| judge(kind, url, "m", Duration::from_millis(300), Err(e));
        let cases = [
            (
                judged(
                    ProviderKind::Anthropic,
                    LlmError::Auth {
                        provider: "anthropic",
                        status: 401,
                        variable: "ANTHROPIC_API_KEY",
                    },
                ),
                Level::Error,
                "rejected the key (HTTP 401)",
                "ANTHROPIC_API_KEY",
            ),
            (
                judged(
                    ProviderKind::OpenAi,
                    LlmError::Unreachable("connection refused".into()),
                ),
                Level::Error,
                "cannot reach endpoint http://127.0.0.1:9: connection refused",
                "OPENAI_BASE_URL",
            ),
            (
                judged(ProviderKind::OpenAi, LlmError::Timeout),
                Level::Error,
                "within 10 s",
                "OPENAI_BASE_URL",
            ),
            (
                judged(
                    ProviderKind::OpenAi,
                    LlmError::Http {
                        status: 404,
                        retry_after: None,
                        body: "not found".into(),
                    },
                ),
                Level::Error,
                "HTTP 404 to POST http://127.0.0.1:9/chat/completions",
                "memloop appends /chat/completions",
            ),
            (
                judged(
                    ProviderKind::Anthropic,
                    LlmError::Http {
                        status: 529,
                        retry_after: None,
                        body: "overloaded".into(),
                    },
                ),
                Level::Warn,
                "busy or failing (HTTP 529)",
                "retries",
            ),
            (
                judged(ProviderKind::OpenAi, LlmError::Parse("no JSON".into())),
                Level::Warn,
                "not with the facts JSON",
                "MEMLOOP_MODEL",
            ),
        ];
        for (check, level, message, fix) in cases {
            assert_eq!(check.name, "endpoint");
            assert_eq!(check.level, level, "{check:?}");
            assert!(check.message.contains(message), "{check:?}");
            assert!(
                check.fix.as_deref().unwrap_or("").contains(fix),
                "{check:?}"
            );
        }
        let ok = judge(
            ProviderKind::Anthropic,
            url,
            "claude-haiku-4-5",
            Duration::from_millis(420),
            Ok(llm::Extraction::default()),
        );
        assert_eq!(ok.level, Level::Ok);
        assert_eq!(
            ok.message,
            "endpoint http://127.0.0.1:9 answered a test request in 0.4 s (model claude-haiku-4-5)"
        );
    }

    #[test]
    fn credentials_in_a_url_are_never_shown() {
        assert_eq!(
            shown("https://me:s3cret@proxy.example/v1"),
            "https://***@proxy.example/v1"
        );
        assert_eq!(shown("https://proxy.example"), "https://proxy.example");
        assert_eq!(shown("http://u:p@h:1"), "http://***@h:1");
    }

    #[test]
    fn mem_available_is_read_from_meminfo_in_bytes() {
        let meminfo = "MemTotal:       24684544 kB\nMemFree:        18657280 kB\n\
                       MemAvailable:   24196096 kB\nBuffers:          123456 kB\n";
        assert_eq!(mem_available(meminfo), Some(24_196_096 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None, "an old kernel");
        assert_eq!(mem_available("MemAvailable: lots\n"), None);
    }

    #[test]
    fn too_many_clis_for_the_memory_available_warn() {
        let cases = [
            (4, 2048 * MB, None),
            (4, 1200 * MB, None),
            (4, 1199 * MB, Some("concurrency = 3 ")),
            (4, 700 * MB, Some("concurrency = 2 ")),
            (2, 100 * MB, Some("concurrency = 1 ")),
        ];
        for (concurrency, available, advice) in cases {
            let got = cli_memory(concurrency, available);
            match advice {
                None => assert!(got.is_none(), "{concurrency} {available}: {got:?}"),
                Some(advice) => {
                    let check = got.expect("a warning");
                    assert_eq!(check.level, Level::Warn);
                    assert!(
                        check.fix.as_deref().unwrap_or("").contains(advice),
                        "{check:?}"
                    );
                    assert!(
                        check
                            .message
                            .contains(&format!("{} MB this machine", available / MB)),
                        "{check:?}"
                    );
                }
            }
        }
    }
}
