//! The Anthropic Messages API: the request body (forced use of a `record_facts` tool whose
//! input schema is the output contract), reading the answer, and mapping HTTP statuses to
//! `LlmError`. Building and parsing are pure and tested on recorded bodies; `send` is the
//! only network code and stays thin.
//!
//! Retries are not done here (see `retry`), nor is the prompt written here (see `mod.rs`).

use std::fmt;
use std::time::Duration;

use serde_json::{Value, json};

use super::{
    Answered, Ask, ExtractRequest, Extraction, LlmError, Said, Settings, Usage, http_client,
    post_json, secret_header, status_error,
};

/// The API version header memloop speaks.
pub const API_VERSION: &str = "2023-06-01";
/// The tool the model is made to call with the facts as its input.
pub const TOOL_NAME: &str = super::FACTS_TOOL;
const PROVIDER: &str = "anthropic";
const KEY_VARIABLE: &str = "ANTHROPIC_API_KEY";

/// The Messages endpoint under a base URL such as `https://api.anthropic.com`.
pub fn endpoint(base_url: &str) -> String {
    format!("{}/v1/messages", base_url.trim_end_matches('/'))
}

/// The JSON body of one extraction call.
pub fn build_request(settings: &Settings, req: &ExtractRequest) -> Value {
    build_ask(settings, &Ask::extract(req))
}

/// The JSON body of one request: forced use of the ask's tool, whose input schema is the
/// answer's.
pub fn build_ask(settings: &Settings, ask: &Ask) -> Value {
    // The tools, the system text and the known facts are the same for every request of a
    // run: each ends a prefix the API caches (a prefix under the model's minimum, 1,024 to
    // 4,096 tokens, is simply not cached).
    let cache = json!({"type": "ephemeral"});
    let content = if ask.cache_split > 0 && ask.cache_split < ask.user.len() {
        json!([
            {"type": "text", "text": &ask.user[..ask.cache_split], "cache_control": cache},
            {"type": "text", "text": &ask.user[ask.cache_split..]},
        ])
    } else {
        json!(ask.user)
    };
    json!({
        "model": settings.model,
        "max_tokens": settings.max_output_tokens,
        "system": [{"type": "text", "text": ask.system, "cache_control": cache}],
        "messages": [{"role": "user", "content": content}],
        "tools": [{
            "name": ask.tool,
            "description": ask.about,
            "input_schema": ask.schema,
        }],
        "tool_choice": {"type": "tool", "name": ask.tool},
    })
}

/// Reads a successful (HTTP 200) extraction response: the facts from the tool call's
/// input, or from the text blocks when the model answered in prose; the usage counts.
pub fn parse_response(body: &str) -> Result<Extraction, LlmError> {
    parse_answer(body)?.into_extraction()
}

/// Reads a successful (HTTP 200) response: the tool call's input, else the text blocks.
pub fn parse_answer(body: &str) -> Result<Answered, LlmError> {
    let response: Value =
        super::contract::from_json(body).map_err(|e| super::unreadable(body, Some(&e), ""))?;
    if !response.get("content").is_some_and(Value::is_array) {
        return Err(super::unreadable(body, None, "`content` list"));
    }
    let usage = usage(&response);
    let truncated = response.get("stop_reason").and_then(Value::as_str) == Some("max_tokens");
    let blocks = response
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let tool_input = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .find_map(|b| b.get("input"));
    let said = match tool_input {
        Some(input) => Said::Json(input.clone()),
        None => {
            let text: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            if text.is_empty() {
                return Err(LlmError::Parse(
                    "the answer held neither a tool call nor text".to_owned(),
                ));
            }
            Said::Text(text.join("\n"))
        }
    };
    Ok(Answered {
        said,
        usage,
        truncated,
    })
}

fn usage(response: &Value) -> Usage {
    let count = |name: &str| {
        response
            .pointer(&format!("/usage/{name}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Usage {
        // Cached prompt tokens are counted apart from `input_tokens`; all of them were read.
        input_tokens: count("input_tokens")
            + count("cache_creation_input_tokens")
            + count("cache_read_input_tokens"),
        output_tokens: count("output_tokens"),
        cache_write_tokens: count("cache_creation_input_tokens"),
        cache_read_tokens: count("cache_read_input_tokens"),
    }
}

/// Maps a non-success status: 401/403 are a rejected key (fatal), a 400 about the credit
/// balance is fatal too (every call would fail), anything else is `Http`.
pub fn error_for_status(
    status: u16,
    retry_after: Option<Duration>,
    body: &str,
    api_key: Option<&str>,
) -> LlmError {
    let err = status_error(PROVIDER, KEY_VARIABLE, status, retry_after, body, api_key);
    match err {
        LlmError::Http {
            status: 400, body, ..
        } if body.to_lowercase().contains("credit balance") => {
            LlmError::Config(format!("anthropic refused the request: {body}"))
        }
        other => other,
    }
}

/// An Anthropic client; cheap to share between concurrent extractions.
pub struct Client {
    http: reqwest::Client,
    settings: Settings,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("anthropic::Client")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client for these settings; fails without an API key.
    pub fn new(settings: &Settings) -> Result<Self, LlmError> {
        if settings.api_key.as_deref().is_none_or(str::is_empty) {
            return Err(LlmError::Config(format!(
                "the anthropic provider needs {KEY_VARIABLE} to be set"
            )));
        }
        Ok(Self {
            http: http_client(settings)?,
            settings: settings.clone(),
        })
    }

    /// The settings this client was built with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// One request, without retries.
    pub async fn ask(&self, ask: &Ask) -> Result<Answered, LlmError> {
        let key = self.settings.api_key.as_deref().unwrap_or_default();
        let request = self
            .http
            .post(endpoint(&self.settings.base_url))
            .header("x-api-key", secret_header(key, KEY_VARIABLE)?)
            .header("anthropic-version", API_VERSION);
        let reply = post_json(request, &build_ask(&self.settings, ask)).await?;
        if !(200..300).contains(&reply.status) {
            return Err(error_for_status(
                reply.status,
                reply.retry_after,
                &reply.body,
                Some(key),
            ));
        }
        parse_answer(&reply.body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fact::{Candidate, Scope};
    use crate::llm::ProviderKind;

    fn fixture(name: &str) -> String {
        let path = format!("{}/fixtures/anthropic/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
    }

    fn settings() -> Settings {
        Settings {
            kind: ProviderKind::Anthropic,
            model: "claude-haiku-4-5".into(),
            api_key: Some("sk-ant-test-key".into()),
            base_url: "https://api.anthropic.com/".into(),
            timeout: Duration::from_secs(120),
            max_retries: 4,
            max_output_tokens: 4096,
        }
    }

    fn request() -> ExtractRequest {
        ExtractRequest {
            system: "Extract facts.".into(),
            transcript: "## [09:00] User\nI use Neovim.\n".into(),
            categories: vec!["Preferences".into(), "Project Context".into()],
            known_facts: vec![],
            related: Vec::new(),
            vault: "work".into(),
            date: "2025-06-12".into(),
        }
    }

    #[test]
    fn endpoint_appends_the_messages_path_once() {
        for base in [
            "https://api.anthropic.com",
            "https://api.anthropic.com/",
            "http://127.0.0.1:9/",
        ] {
            let url = endpoint(base);
            assert!(
                url.ends_with("/v1/messages") && !url.contains("//v1"),
                "{url}"
            );
        }
    }

    /// Issue 18: the known facts end a prefix the API caches; the transcript comes after.
    #[test]
    fn known_facts_end_a_cached_prefix_and_the_transcript_follows() {
        let mut req = request();
        req.known_facts = vec!["Lives in Munich.".into()];
        req.related = vec!["Learned tonight.".into()];
        let body = build_request(&settings(), &req);
        let blocks = body["messages"][0]["content"].as_array().expect("blocks");
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0]["cache_control"], json!({"type": "ephemeral"}));
        let known = blocks[0]["text"].as_str().expect("text");
        assert!(
            known.contains("- Lives in Munich.\n") && !known.contains("tonight"),
            "{known}"
        );
        assert!(blocks[1]["cache_control"].is_null());
        let rest = blocks[1]["text"].as_str().expect("text");
        assert!(
            rest.contains("- Learned tonight.") && rest.contains("<transcript"),
            "{rest}"
        );
    }

    #[test]
    fn request_forces_the_record_facts_tool() {
        let body = build_request(&settings(), &request());
        assert_eq!(body["model"], "claude-haiku-4-5");
        assert_eq!(body["max_tokens"], 4096);
        assert_eq!(
            body["system"],
            json!([{"type": "text", "text": "Extract facts.", "cache_control": {"type": "ephemeral"}}])
        );
        assert_eq!(body["messages"][0]["role"], "user");
        let content = body["messages"][0]["content"]
            .as_str()
            .expect("string content: no known facts, nothing else to cache");
        assert!(content.contains("I use Neovim."));
        assert!(content.contains("<transcript vault=\"work\" untrusted=\"true\">"));
        assert_eq!(body["tools"][0]["name"], TOOL_NAME);
        assert_eq!(
            body["tools"][0]["input_schema"]["properties"]["facts"]["items"]["properties"]["category"]
                ["enum"],
            json!(["Preferences", "Project Context"])
        );
        assert_eq!(
            body["tool_choice"],
            json!({"type": "tool", "name": TOOL_NAME})
        );
        let keys: Vec<&String> = body.as_object().expect("object").keys().collect();
        assert_eq!(
            keys.len(),
            6,
            "only the documented fields are sent: {keys:?}"
        );
    }

    #[test]
    fn tool_use_response_yields_facts_and_usage() {
        let extraction = parse_response(&fixture("tool-use.json")).expect("parses");
        assert_eq!(
            extraction.facts,
            vec![
                Candidate {
                    category: "Preferences".into(),
                    text: "Prefers direct answers without hedging.".into(),
                    scope: Scope::Global,
                    replaces: None,
                    evidence: None,
                    valid_until: None,
                },
                Candidate {
                    category: "Project Context".into(),
                    text: "Lanternfish keeps its indexes in object storage, not on local disk."
                        .into(),
                    scope: Scope::Vault,
                    replaces: Some("Lanternfish keeps its indexes on local disk.".into()),
                    evidence: None,
                    valid_until: None,
                },
            ]
        );
        assert_eq!(
            extraction.usage,
            Usage {
                input_tokens: 2312,
                output_tokens: 141,
                ..Usage::default()
            }
        );
    }

    #[test]
    fn empty_tool_input_is_no_facts() {
        let extraction = parse_response(&fixture("tool-use-empty.json")).expect("parses");
        assert!(extraction.facts.is_empty());
        assert_eq!(extraction.usage.output_tokens, 38);
    }

    #[test]
    fn text_answer_is_parsed_tolerantly() {
        let extraction = parse_response(&fixture("text-fenced.json")).expect("parses");
        assert_eq!(extraction.facts.len(), 1);
        assert_eq!(extraction.facts[0].category, "Identity");
    }

    #[test]
    fn truncated_tool_call_is_a_parse_error() {
        let err = parse_response(&fixture("max-tokens.json")).expect_err("truncated");
        assert!(
            matches!(err, LlmError::Parse(ref m) if m.contains("max_tokens")),
            "{err}"
        );
    }

    #[test]
    fn a_body_that_is_not_a_response_is_the_providers_failure_and_an_empty_answer_the_models() {
        for body in [
            "<html>502 Bad Gateway</html>",
            "",
            "{\"content\": [{\"type\": \"te",
            "{\"status\": \"ok\"}",
        ] {
            assert!(
                matches!(parse_response(body), Err(LlmError::Unreadable(_))),
                "{body:?}"
            );
        }
        let page = parse_response("<html><title>Sign in</title></html>").expect_err("a page");
        assert!(
            page.to_string().contains("it began \"<html><title>Sign in"),
            "{page}"
        );
        for body in [
            "{\"content\": []}",
            r#"{"content": [{"type": "tool_use", "name": "record_facts", "input": {"note": 1}}]}"#,
        ] {
            assert!(
                matches!(parse_response(body), Err(LlmError::Parse(_))),
                "{body:?}"
            );
        }
    }

    #[test]
    fn statuses_map_to_errors() {
        let key = Some("sk-ant-test-key");
        let auth = error_for_status(401, None, &fixture("error-401.json"), key);
        assert!(auth.is_fatal());
        assert_eq!(
            auth.to_string(),
            "anthropic rejected the API key (HTTP 401): check ANTHROPIC_API_KEY"
        );
        assert!(matches!(
            error_for_status(403, None, "{}", key),
            LlmError::Auth { status: 403, .. }
        ));

        let limited = error_for_status(
            429,
            Some(Duration::from_secs(12)),
            &fixture("error-429.json"),
            key,
        );
        assert!(limited.is_retryable());
        match &limited {
            LlmError::Http {
                status: 429,
                retry_after: Some(wait),
                body,
            } => {
                assert_eq!(*wait, Duration::from_secs(12));
                assert!(body.starts_with("This request would exceed"), "{body}");
            }
            other => panic!("unexpected {other:?}"),
        }

        let overloaded = error_for_status(529, None, &fixture("error-529.json"), key);
        assert!(overloaded.is_retryable() && !overloaded.is_fatal());
        assert!(
            overloaded.to_string().contains("Overloaded"),
            "{overloaded}"
        );

        let bad = error_for_status(400, None, &fixture("error-400.json"), key);
        assert!(!bad.is_retryable() && !bad.is_fatal(), "{bad:?}");

        let broke = error_for_status(400, None, &fixture("error-400-credit.json"), key);
        assert!(broke.is_fatal(), "{broke:?}");
    }

    #[test]
    fn an_echoed_key_is_redacted_and_bodies_are_cut() {
        let body = format!("upstream said: sk-ant-test-key {}", "x".repeat(2000));
        let err = error_for_status(502, None, &body, Some("sk-ant-test-key"));
        let text = err.to_string();
        assert!(!text.contains("sk-ant-test-key"), "{text}");
        assert!(text.contains("[redacted]"));
        assert!(text.chars().count() < 400, "{}", text.len());
    }

    #[test]
    fn a_client_needs_a_key_and_never_shows_it() {
        let mut without = settings();
        without.api_key = None;
        let err = Client::new(&without).expect_err("no key");
        assert!(
            err.is_fatal() && err.to_string().contains(KEY_VARIABLE),
            "{err}"
        );

        let client = Client::new(&settings()).expect("client");
        let shown = format!("{client:?}");
        assert!(!shown.contains("sk-ant-test-key"), "{shown}");
    }
}
