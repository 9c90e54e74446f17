//! OpenAI Chat Completions, for OpenAI itself and for compatible local servers (Ollama,
//! llama.cpp, vLLM, LM Studio). Structured output is asked for in the strongest form the
//! server accepts: a strict `json_schema` response format, else a forced tool call, else
//! plain JSON described by the prompt. A server's 400/422 moves one step down that list,
//! and the client remembers what worked so later calls start there. Two OpenAI quirks are
//! handled the same way: reasoning models refuse `max_tokens` (they want
//! `max_completion_tokens`) and refuse `temperature: 0`.
//!
//! Building, parsing and the fallback decision are pure; `send` is the only network code.
//! Retries of transient failures are not done here (see `retry`).

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use super::{
    Answered, Ask, ExtractRequest, Extraction, LlmError, Said, Settings, Usage, http_client,
    post_json, secret_header, status_error,
};

const PROVIDER: &str = "openai";
const KEY_VARIABLE: &str = "OPENAI_API_KEY";
/// The function the model is made to call in `Mode::Tool`.
pub const TOOL_NAME: &str = super::FACTS_TOOL;
/// Each rejection changes one option, so this bounds the requests for one extraction.
const MAX_ATTEMPTS: usize = 6;

/// How the answer's shape is requested, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `response_format: {type: json_schema, strict: true}`.
    JsonSchema,
    /// A forced call of the `record_facts` function.
    Tool,
    /// No structured output: the contract in the system prompt is all there is.
    PlainJson,
}

/// The request options a server may reject and the client learns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub mode: Mode,
    /// Send the limit as `max_completion_tokens` instead of `max_tokens`.
    pub max_completion_tokens: bool,
    /// Send `temperature: 0`.
    pub temperature: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            mode: Mode::JsonSchema,
            max_completion_tokens: false,
            temperature: true,
        }
    }
}

impl Options {
    fn to_bits(self) -> u8 {
        let mode = match self.mode {
            Mode::JsonSchema => 0,
            Mode::Tool => 1,
            Mode::PlainJson => 2,
        };
        mode | u8::from(self.max_completion_tokens) << 2 | u8::from(!self.temperature) << 3
    }

    fn from_bits(bits: u8) -> Self {
        Self {
            mode: match bits & 0b11 {
                0 => Mode::JsonSchema,
                1 => Mode::Tool,
                _ => Mode::PlainJson,
            },
            max_completion_tokens: bits & 0b100 != 0,
            temperature: bits & 0b1000 == 0,
        }
    }
}

/// The Chat Completions endpoint under a base URL such as `https://api.openai.com/v1`.
pub fn endpoint(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim_end_matches('/'))
}

/// The JSON body of one extraction call with these options.
pub fn build_request(settings: &Settings, req: &ExtractRequest, options: &Options) -> Value {
    build_ask(settings, &Ask::extract(req), options)
}

/// The JSON body of one request with these options: the answer's schema as a JSON schema,
/// a forced tool call, or only asked for in the prompt.
pub fn build_ask(settings: &Settings, ask: &Ask, options: &Options) -> Value {
    let mut body = json!({
        "model": settings.model,
        "messages": [
            {"role": "system", "content": ask.system},
            {"role": "user", "content": ask.user},
        ],
    });
    let limit = if options.max_completion_tokens {
        "max_completion_tokens"
    } else {
        // Ollama and other compatible servers ignore `max_completion_tokens`.
        "max_tokens"
    };
    body[limit] = json!(settings.max_output_tokens);
    if options.temperature {
        body["temperature"] = json!(0);
    }
    match options.mode {
        Mode::JsonSchema => {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": ask.list, "strict": true, "schema": ask.schema},
            });
        }
        Mode::Tool => {
            body["tools"] = json!([{
                "type": "function",
                "function": {
                    "name": ask.tool,
                    "description": ask.about,
                    "parameters": ask.schema,
                },
            }]);
            body["tool_choice"] = json!({"type": "function", "function": {"name": ask.tool}});
        }
        Mode::PlainJson => {}
    }
    body
}

/// What to send instead after the server rejected `options` with a 400 or 422 saying
/// `body`; `None` when nothing is left to try.
pub fn after_rejection(options: &Options, status: u16, body: &str) -> Option<Options> {
    if !matches!(status, 400 | 422) {
        return None;
    }
    let said = body.to_lowercase();
    let unsupported = [
        "unsupported",
        "not supported",
        "does not support",
        "only the default",
    ]
    .iter()
    .any(|phrase| said.contains(phrase));
    if !options.max_completion_tokens
        && said.contains("max_tokens")
        && (said.contains("max_completion_tokens") || unsupported)
    {
        return Some(Options {
            max_completion_tokens: true,
            ..*options
        });
    }
    if options.temperature && said.contains("temperature") && unsupported {
        return Some(Options {
            temperature: false,
            ..*options
        });
    }
    let mode = match options.mode {
        Mode::JsonSchema => Mode::Tool,
        Mode::Tool => Mode::PlainJson,
        Mode::PlainJson => return None,
    };
    Some(Options { mode, ..*options })
}

/// Reads a successful extraction response: the facts from the tool call's arguments or
/// from the message content; the usage counts.
pub fn parse_response(body: &str) -> Result<Extraction, LlmError> {
    parse_answer(body)?.into_extraction()
}

/// Reads a successful response: the tool call's arguments, else the message content.
pub fn parse_answer(body: &str) -> Result<Answered, LlmError> {
    let response: Value =
        super::contract::from_json(body).map_err(|e| super::unreadable(body, Some(&e), ""))?;
    let count = |name: &str| {
        response
            .pointer(&format!("/usage/{name}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let usage = Usage {
        input_tokens: count("prompt_tokens"),
        output_tokens: count("completion_tokens"),
        // OpenAI caches a long prompt's prefix by itself and says how much it read.
        cache_read_tokens: count("prompt_tokens_details/cached_tokens"),
        cache_write_tokens: 0,
    };
    let choice = response
        .pointer("/choices/0")
        .ok_or_else(|| super::unreadable(body, None, "`choices`"))?;
    let message = choice.get("message").unwrap_or(&Value::Null);
    let arguments = message
        .pointer("/tool_calls/0/function/arguments")
        .and_then(Value::as_str);
    let content = message.get("content").and_then(Value::as_str);
    let text = match (arguments, content) {
        (Some(args), _) => args,
        (None, Some(text)) if !text.trim().is_empty() => text,
        _ => {
            let why = match message.get("refusal").and_then(Value::as_str) {
                Some(refusal) => format!("the model refused: {refusal}"),
                None => "the answer was empty".to_owned(),
            };
            return Err(LlmError::Parse(why));
        }
    };
    Ok(Answered {
        said: Said::Text(text.to_owned()),
        usage,
        truncated: choice.get("finish_reason").and_then(Value::as_str) == Some("length"),
    })
}

/// Maps a non-success status: 401/403 are a rejected key and an exhausted quota is
/// fatal (every call would fail); anything else is `Http`.
pub fn error_for_status(
    status: u16,
    retry_after: Option<Duration>,
    body: &str,
    api_key: Option<&str>,
) -> LlmError {
    let quota = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.pointer("/error/code")?.as_str().map(str::to_owned))
        .is_some_and(|code| code == "insufficient_quota");
    match status_error(PROVIDER, KEY_VARIABLE, status, retry_after, body, api_key) {
        LlmError::Http { body, .. } if quota => {
            LlmError::Config(format!("openai refused the request: {body}"))
        }
        other => other,
    }
}

/// A client for OpenAI or a compatible server; cheap to share between concurrent
/// extractions, which all learn from each other's rejections.
pub struct Client {
    http: reqwest::Client,
    settings: Settings,
    /// The `Options` that last worked, packed (see `Options::to_bits`).
    learned: AtomicU8,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("openai::Client")
            .field("settings", &self.settings)
            .field("options", &self.options())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client for these settings; the key is optional because local servers need none.
    pub fn new(settings: &Settings) -> Result<Self, LlmError> {
        Ok(Self {
            http: http_client(settings)?,
            settings: settings.clone(),
            learned: AtomicU8::new(Options::default().to_bits()),
        })
    }

    /// The settings this client was built with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The options the next call starts with.
    pub fn options(&self) -> Options {
        Options::from_bits(self.learned.load(Ordering::Relaxed))
    }

    /// One request without retries of transient failures, stepping down the
    /// structured-output modes as the server rejects them.
    pub async fn ask(&self, ask: &Ask) -> Result<Answered, LlmError> {
        let key = self.settings.api_key.as_deref().filter(|k| !k.is_empty());
        let authorization = key
            .map(|k| secret_header(&format!("Bearer {k}"), KEY_VARIABLE))
            .transpose()?;
        let mut options = self.options();
        let mut attempts = 0;
        loop {
            attempts += 1;
            let mut request = self.http.post(endpoint(&self.settings.base_url));
            if let Some(value) = &authorization {
                request = request.header(reqwest::header::AUTHORIZATION, value.clone());
            }
            let reply = post_json(request, &build_ask(&self.settings, ask, &options)).await?;
            if (200..300).contains(&reply.status) {
                self.learned.store(options.to_bits(), Ordering::Relaxed);
                return parse_answer(&reply.body);
            }
            match after_rejection(&options, reply.status, &reply.body) {
                Some(next) if attempts < MAX_ATTEMPTS => {
                    tracing::debug!(
                        ?options,
                        ?next,
                        status = reply.status,
                        "server rejected the request options"
                    );
                    options = next;
                }
                _ => {
                    return Err(error_for_status(
                        reply.status,
                        reply.retry_after,
                        &reply.body,
                        key,
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fact::{Candidate, Scope};
    use crate::llm::ProviderKind;

    fn fixture(name: &str) -> String {
        let path = format!("{}/fixtures/openai/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
    }

    fn settings() -> Settings {
        Settings {
            kind: ProviderKind::OpenAi,
            model: "gpt-4o-mini".into(),
            api_key: Some("sk-proj-test-key".into()),
            base_url: "https://api.openai.com/v1".into(),
            timeout: Duration::from_secs(120),
            max_retries: 4,
            max_output_tokens: 4096,
        }
    }

    fn request() -> ExtractRequest {
        ExtractRequest {
            system: "Extract facts.".into(),
            transcript: "## [09:00] User\nI use Neovim.\n".into(),
            categories: vec!["Preferences".into(), "Goals".into()],
            known_facts: vec!["Uses Vim.".into()],
            related: Vec::new(),
            vault: "notes".into(),
            date: "2025-06-12".into(),
        }
    }

    fn all_options() -> Vec<Options> {
        let mut all = Vec::new();
        for mode in [Mode::JsonSchema, Mode::Tool, Mode::PlainJson] {
            for max_completion_tokens in [false, true] {
                for temperature in [true, false] {
                    all.push(Options {
                        mode,
                        max_completion_tokens,
                        temperature,
                    });
                }
            }
        }
        all
    }

    #[test]
    fn options_survive_packing() {
        for options in all_options() {
            assert_eq!(Options::from_bits(options.to_bits()), options);
        }
    }

    #[test]
    fn request_modes_ask_for_structure_differently() {
        let json_schema = build_request(&settings(), &request(), &Options::default());
        assert_eq!(json_schema["response_format"]["type"], "json_schema");
        assert_eq!(
            json_schema["response_format"]["json_schema"]["strict"],
            true
        );
        assert_eq!(json_schema["max_tokens"], 4096);
        assert_eq!(json_schema["temperature"], 0);
        assert_eq!(json_schema["messages"][0]["role"], "system");
        assert_eq!(json_schema["messages"][1]["role"], "user");
        assert!(json_schema.get("tools").is_none());

        let tool = build_request(
            &settings(),
            &request(),
            &Options {
                mode: Mode::Tool,
                ..Options::default()
            },
        );
        assert!(tool.get("response_format").is_none());
        assert_eq!(tool["tools"][0]["function"]["name"], TOOL_NAME);
        assert_eq!(tool["tool_choice"]["function"]["name"], TOOL_NAME);

        let plain = build_request(
            &settings(),
            &request(),
            &Options {
                mode: Mode::PlainJson,
                max_completion_tokens: true,
                temperature: false,
            },
        );
        assert!(plain.get("response_format").is_none() && plain.get("tools").is_none());
        assert!(plain.get("max_tokens").is_none() && plain.get("temperature").is_none());
        assert_eq!(plain["max_completion_tokens"], 4096);
    }

    #[test]
    fn rejections_step_down_one_option_at_a_time() {
        let start = Options::default();
        let cases: &[(&str, u16, &str, Option<Options>)] = &[
            (
                "max_tokens refused by a reasoning model",
                400,
                &fixture("error-400-max-tokens.json"),
                Some(Options {
                    max_completion_tokens: true,
                    ..start
                }),
            ),
            (
                "temperature refused",
                400,
                &fixture("error-400-temperature.json"),
                Some(Options {
                    temperature: false,
                    ..start
                }),
            ),
            (
                "json_schema refused",
                400,
                &fixture("error-400-response-format.json"),
                Some(Options {
                    mode: Mode::Tool,
                    ..start
                }),
            ),
            (
                "422 from a validating server",
                422,
                r#"{"detail":[{"type":"extra_forbidden","loc":["body","response_format"]}]}"#,
                Some(Options {
                    mode: Mode::Tool,
                    ..start
                }),
            ),
            ("not a rejection of options", 500, "{}", None),
            ("not a rejection of options", 404, "model not found", None),
        ];
        for (why, status, body, want) in cases {
            assert_eq!(after_rejection(&start, *status, body), *want, "{why}");
        }
        let last = Options {
            mode: Mode::PlainJson,
            ..start
        };
        assert_eq!(after_rejection(&last, 400, "bad request"), None);
        let tool = Options {
            mode: Mode::Tool,
            ..start
        };
        assert_eq!(
            after_rejection(&tool, 400, "tools are not supported"),
            Some(last)
        );
    }

    #[test]
    fn the_fallback_chain_ends_within_the_attempt_bound() {
        // The longest chain a stubborn server can force, each step one change.
        let mut options = Options::default();
        let mut steps = 0;
        for body in [
            "unsupported parameter: 'max_tokens', use 'max_completion_tokens'",
            "unsupported value: 'temperature' does not support 0",
            "invalid response_format",
            "invalid tools",
        ] {
            options = after_rejection(&options, 400, body).expect("a next step");
            steps += 1;
        }
        assert_eq!(after_rejection(&options, 400, "still no"), None);
        assert!(steps < MAX_ATTEMPTS);
    }

    #[test]
    fn content_response_yields_facts_and_usage() {
        let extraction = parse_response(&fixture("content.json")).expect("parses");
        assert_eq!(
            extraction.facts,
            vec![Candidate {
                category: "Preferences".into(),
                text: "Uses Neovim with a minimal config.".into(),
                scope: Scope::Global,
                replaces: Some("Uses Vim.".into()),
                evidence: None,
                valid_until: None,
            }]
        );
        assert_eq!(
            extraction.usage,
            Usage {
                input_tokens: 1533,
                output_tokens: 52,
                ..Usage::default()
            }
        );
    }

    #[test]
    fn tool_call_response_yields_facts() {
        let extraction = parse_response(&fixture("tool-calls.json")).expect("parses");
        assert_eq!(extraction.facts.len(), 2);
        assert_eq!(extraction.facts[1].scope, Scope::Vault);
        assert_eq!(extraction.usage.output_tokens, 88);
    }

    #[test]
    fn local_server_prose_answer_is_parsed() {
        let extraction = parse_response(&fixture("ollama-prose.json")).expect("parses");
        assert_eq!(extraction.facts.len(), 1);
        assert_eq!(extraction.facts[0].category, "Goals");
    }

    #[test]
    fn cut_off_answer_is_a_parse_error() {
        let err = parse_response(&fixture("length.json")).expect_err("truncated");
        assert!(
            matches!(err, LlmError::Parse(ref m) if m.contains("max_tokens")),
            "{err}"
        );
    }

    #[test]
    fn refusal_and_empty_answers_are_parse_errors() {
        let refusal = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}"#;
        let err = parse_response(refusal).expect_err("refused");
        assert!(err.to_string().contains("refused"), "{err}");
        assert!(matches!(
            parse_response(r#"{"choices":[{"message":{"content":""}}]}"#),
            Err(LlmError::Parse(_))
        ));
        // Not a chat completion at all: the provider's failure, not the model's.
        for body in [r#"{"choices":[]}"#, "not json", "", "<html></html>"] {
            assert!(
                matches!(parse_response(body), Err(LlmError::Unreadable(_))),
                "{body}"
            );
        }
    }

    #[test]
    fn statuses_map_to_errors() {
        let key = Some("sk-proj-test-key");
        let auth = error_for_status(401, None, &fixture("error-401.json"), key);
        assert_eq!(
            auth.to_string(),
            "openai rejected the API key (HTTP 401): check OPENAI_API_KEY"
        );
        let limited = error_for_status(
            429,
            Some(Duration::from_secs(2)),
            &fixture("error-429.json"),
            key,
        );
        assert!(limited.is_retryable() && !limited.is_fatal(), "{limited:?}");
        let quota = error_for_status(429, None, &fixture("error-429-quota.json"), key);
        assert!(quota.is_fatal() && !quota.is_retryable(), "{quota:?}");
        for (status, retryable) in [
            (500, true),
            (502, true),
            (503, true),
            (408, true),
            (400, false),
            (404, false),
        ] {
            assert_eq!(
                error_for_status(status, None, "{}", key).is_retryable(),
                retryable,
                "HTTP {status}"
            );
        }
    }

    #[test]
    fn client_starts_strict_and_never_shows_the_key() {
        let client = Client::new(&settings()).expect("client");
        assert_eq!(client.options(), Options::default());
        let shown = format!("{client:?}");
        assert!(!shown.contains("sk-proj-test-key"), "{shown}");
        let mut local = settings();
        local.api_key = None;
        assert!(Client::new(&local).is_ok(), "local servers need no key");
    }

    /// A minimal walker over the OpenAPI excerpt: every key we send must be a declared
    /// property of its object, and every required key must be there.
    struct SpecCheck<'a> {
        root: &'a Value,
    }

    impl SpecCheck<'_> {
        fn resolve<'s>(&'s self, mut schema: &'s Value) -> &'s Value {
            while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
                let pointer = reference.trim_start_matches('#');
                schema = self
                    .root
                    .pointer(pointer)
                    .unwrap_or_else(|| panic!("dangling $ref {reference}"));
            }
            schema
        }

        /// Properties and required keys of an object schema, `allOf` merged; `None` for
        /// a free-form object.
        fn object_shape(
            &self,
            schema: &Value,
        ) -> Option<(serde_json::Map<String, Value>, Vec<String>)> {
            let schema = self.resolve(schema);
            let mut properties = serde_json::Map::new();
            let mut required = Vec::new();
            let mut declared = false;
            if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
                for part in parts {
                    if let Some((p, r)) = self.object_shape(part) {
                        properties.extend(p);
                        required.extend(r);
                        declared = true;
                    }
                }
            }
            if let Some(p) = schema.get("properties").and_then(Value::as_object) {
                properties.extend(p.clone());
                declared = true;
            }
            if let Some(r) = schema.get("required").and_then(Value::as_array) {
                required.extend(r.iter().filter_map(Value::as_str).map(str::to_owned));
            }
            declared.then_some((properties, required))
        }

        fn check(&self, value: &Value, schema: &Value, path: &str) -> Result<(), String> {
            let schema = self.resolve(schema);
            for key in ["oneOf", "anyOf"] {
                if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                    let errors: Vec<String> = branches
                        .iter()
                        .filter_map(|b| self.check(value, b, path).err())
                        .collect();
                    if errors.len() == branches.len() {
                        return Err(format!("{path}: no {key} branch fits: {errors:?}"));
                    }
                    return Ok(());
                }
            }
            if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
                && !allowed.contains(value)
            {
                return Err(format!("{path}: {value} not in {allowed:?}"));
            }
            if let Some(kind) = schema.get("type").and_then(Value::as_str) {
                let fits = match kind {
                    "object" => value.is_object(),
                    "array" => value.is_array(),
                    "string" => value.is_string(),
                    "integer" => value.is_u64() || value.is_i64(),
                    "number" => value.is_number(),
                    "boolean" => value.is_boolean(),
                    "null" => value.is_null(),
                    _ => true,
                };
                if !fits {
                    return Err(format!("{path}: {value} is not {kind}"));
                }
            }
            match value {
                Value::Object(map) => {
                    let Some((properties, required)) = self.object_shape(schema) else {
                        return Ok(());
                    };
                    for key in &required {
                        if !map.contains_key(key) {
                            return Err(format!("{path}: required key {key} missing"));
                        }
                    }
                    for (key, item) in map {
                        let declared = properties
                            .get(key)
                            .ok_or_else(|| format!("{path}: key {key} is not in the spec"))?;
                        self.check(item, declared, &format!("{path}.{key}"))?;
                    }
                    Ok(())
                }
                Value::Array(items) => match schema.get("items") {
                    Some(item_schema) => items.iter().enumerate().try_for_each(|(i, item)| {
                        self.check(item, item_schema, &format!("{path}[{i}]"))
                    }),
                    None => Ok(()),
                },
                _ => Ok(()),
            }
        }
    }

    #[test]
    fn every_request_body_matches_the_openai_spec() {
        let spec: Value = serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/openai/chat-completions-request.schema.json"
        )))
        .expect("schema fixture is JSON");
        let checker = SpecCheck { root: &spec };
        let request_schema = &spec["components"]["schemas"]["CreateChatCompletionRequest"];
        for options in all_options() {
            let body = build_request(&settings(), &request(), &options);
            checker
                .check(&body, request_schema, "body")
                .unwrap_or_else(|e| panic!("{options:?}: {e}"));
        }
        // The checker is not vacuous: it refuses what the spec does not declare.
        let mut bogus = build_request(&settings(), &request(), &Options::default());
        bogus["max_output_tokens"] = json!(10);
        assert!(checker.check(&bogus, request_schema, "body").is_err());
        let mut nameless = build_request(&settings(), &request(), &Options::default());
        nameless["response_format"]["json_schema"]
            .as_object_mut()
            .expect("object")
            .remove("name");
        assert!(checker.check(&nameless, request_schema, "body").is_err());
        let mut no_messages = build_request(&settings(), &request(), &Options::default());
        no_messages
            .as_object_mut()
            .expect("object")
            .remove("messages");
        assert!(checker.check(&no_messages, request_schema, "body").is_err());
    }
}
