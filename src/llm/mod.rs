//! The provider boundary: one request type, one result type, one error type, and a
//! `Provider` enum that dispatches to the Anthropic, OpenAI-compatible, `claude` CLI and
//! builtin extractors. Request building and response parsing are pure functions in each
//! provider's module; only their `send` touches the network or a process.
//!
//! Retries live in `retry`; what the model is told and must answer (the output contract,
//! the user message, the answer's JSON schema and its parser) lives in `contract`, whose
//! functions are re-exported here.

use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::fact::Candidate;

/// Which extractor to use, after `auto` has been resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    Anthropic,
    OpenAi,
    ClaudeCli,
    Builtin,
}

/// Everything a provider needs, resolved from flags, environment and config.
///
/// `Debug` is written by hand so that the API key never reaches a log.
#[derive(Clone)]
pub struct Settings {
    pub kind: ProviderKind,
    /// Never empty: the provider's default when the user set none.
    pub model: String,
    /// From the environment only; never logged.
    pub api_key: Option<String>,
    /// Anthropic: without `/v1/messages`; OpenAI: without `/chat/completions`.
    pub base_url: String,
    /// Total time one request may take.
    pub timeout: Duration,
    pub max_retries: u32,
    /// Upper bound on the model's answer.
    pub max_output_tokens: u32,
}

/// One extraction call: a chunk of one transcript.
#[derive(Debug, Clone)]
pub struct ExtractRequest {
    /// The prompt in use with the output contract appended (`system_prompt`).
    pub system: String,
    /// The chunk as it will be sent: redacted, turns kept under their
    /// `## [HH:MM] User` / `## [HH:MM] Assistant` headings.
    pub transcript: String,
    /// The prompt's categories, in order.
    pub categories: Vec<String>,
    /// The facts known when the run began that this transcript could repeat or update
    /// (`known`): the same for every transcript of a run and vault, so a provider caches
    /// them.
    pub known_facts: Vec<String>,
    /// Facts learned since the run began that share words with this transcript.
    pub related: Vec<String>,
    /// The vault the transcript belongs to (for the prompt's wording only).
    pub vault: String,
    /// The day the conversation took place (`YYYY-MM-DD`), so the model can write relative
    /// times ("last week") as absolute dates.
    pub date: String,
}

/// One request to a model, whatever it asks for: what it is told, what it is given, and
/// the JSON its answer must hold (through a tool, a JSON schema, or plain JSON).
#[derive(Debug, Clone)]
pub struct Ask {
    pub system: String,
    pub user: String,
    /// The tool the model is made to call (Anthropic, OpenAI's tool mode), and the schema's
    /// name.
    /// Where the user message's part the provider may cache ends (0: none): the known
    /// facts, the same bytes for every request of a run.
    pub cache_split: usize,
    pub tool: &'static str,
    /// What the tool does, as its description.
    pub about: &'static str,
    pub schema: Value,
    /// The key of the answer's list (`facts`, `verdicts`): a tool call cut off at
    /// `max_tokens` arrives without it.
    pub list: &'static str,
}

impl Ask {
    /// The extraction of one chunk.
    #[must_use]
    pub fn extract(req: &ExtractRequest) -> Self {
        let (known, rest) = contract::user_message_parts(req);
        Self {
            system: req.system.clone(),
            cache_split: known.len(),
            user: known + &rest,
            tool: FACTS_TOOL,
            about: "Record the durable facts found in the transcript; an empty list when there are none.",
            schema: fact_schema(&req.categories),
            list: "facts",
        }
    }
}

/// The tool the model is made to call with the facts as its input.
pub const FACTS_TOOL: &str = "record_facts";

/// What a model answered, before it is read as facts or verdicts.
#[derive(Debug, Clone)]
pub enum Said {
    /// A tool call's input (or a JSON answer the wire format already parsed).
    Json(Value),
    /// Text, which may hold JSON among prose or in a code fence.
    Text(String),
}

/// A model's answer: what it said, the usage, and whether it was cut off at `max_tokens`.
#[derive(Debug, Clone)]
pub struct Answered {
    pub said: Said,
    pub usage: Usage,
    pub truncated: bool,
}

impl Answered {
    /// The facts of an extraction's answer.
    ///
    /// # Errors
    ///
    /// No facts could be read (see `contract::parse_facts`), or the answer was cut off.
    pub fn into_extraction(self) -> Result<Extraction, LlmError> {
        let cut_off = || {
            LlmError::Parse(
                "the answer was cut off at max_tokens before the facts were complete".to_owned(),
            )
        };
        let facts = match self.said {
            Said::Json(Value::String(text)) | Said::Text(text) => {
                parse_facts(&text).map_err(|err| if self.truncated { cut_off() } else { err })?
            }
            Said::Json(input) => {
                // A tool call cut off by max_tokens arrives with whatever input was
                // complete, often `{}`: that is not an empty answer.
                if self.truncated && !input.get("facts").is_some_and(Value::is_array) {
                    return Err(cut_off());
                }
                facts_from_value(&input).ok_or_else(|| {
                    LlmError::Parse("the tool input held no list of facts".to_owned())
                })?
            }
        };
        Ok(Extraction {
            facts,
            usage: self.usage,
            judged: Vec::new(),
        })
    }
}

/// Token counts as the provider reported them (zero for builtin).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    /// Every input token, those written to and read from the provider's prompt cache
    /// included.
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of `input_tokens`, written to the prompt cache (billed above the input price).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    /// Of `input_tokens`, read from the prompt cache (billed at a tenth of it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Self) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
    }
}

/// What one extraction call returned.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Extraction {
    pub facts: Vec<Candidate>,
    pub usage: Usage,
    /// What the model, asked apart, said of the facts whose quotes' words could not tell
    /// whether they state them, parallel to `facts` (empty when none was asked; see
    /// `store::Answer::judged`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judged: Vec<Option<bool>>,
}

pub mod anthropic;
pub mod builtin;
pub mod claude_cli;
#[doc(hidden)]
pub mod contract; // public for the fuzz targets (fuzz/), not an API
pub mod cost;
pub mod judge;
pub mod openai;
pub mod reconcile;
pub mod retry;

use contract::facts_from_value;
pub use contract::{fact_schema, parse_facts, system_prompt, user_message};

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("kind", &self.kind)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[set]"))
            .field("base_url", &self.base_url)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("max_output_tokens", &self.max_output_tokens)
            .finish()
    }
}

/// Why an extraction call failed. Callers branch on `is_fatal` (stop the run) and
/// `is_retryable` (try again later); no variant ever carries an API key.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The provider refused the credentials: fatal for the whole run.
    #[error("{provider} rejected the API key (HTTP {status}): check {variable}")]
    Auth {
        provider: &'static str,
        status: u16,
        /// The environment variable the key comes from.
        variable: &'static str,
    },
    /// The provider cannot be used as configured: fatal for the whole run.
    #[error("{0}")]
    Config(String),
    /// Any other non-success HTTP status.
    #[error("the provider answered HTTP {status}: {body}")]
    Http {
        status: u16,
        /// How long the server asked us to wait, if it said.
        retry_after: Option<Duration>,
        /// The start of the error message or body.
        body: String,
    },
    /// The request took longer than the configured timeout.
    #[error("the request timed out")]
    Timeout,
    /// The connection broke before an answer (dropped, reset).
    #[error("could not reach the provider: {0}")]
    Connect(String),
    /// No connection could be made at all (refused, unknown host): the server is not there.
    #[error("could not connect: {0}")]
    Unreachable(String),
    /// The provider answered, but no facts could be read from the model's answer.
    #[error("could not read facts from the answer: {0}")]
    Parse(String),
    /// A success status whose body is not the provider's response at all (an HTML page
    /// from a proxy or a captive portal, an empty or cut-off body): the provider's
    /// failure, not the transcript's, so it is retried like a server error.
    #[error("the provider's response could not be read: {0}")]
    Unreadable(String),
    /// The `claude` CLI ran and failed.
    #[error("the claude CLI failed: {0}")]
    Process(String),
}

impl LlmError {
    /// Whether the same request may succeed when sent again later.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Http { status, .. } => matches!(status, 408 | 429 | 500..=599),
            Self::Timeout | Self::Connect(_) | Self::Unreachable(_) | Self::Unreadable(_) => true,
            Self::Auth { .. } | Self::Config(_) | Self::Parse(_) | Self::Process(_) => false,
        }
    }

    /// Whether every other call would fail the same way, so the run should stop.
    pub fn is_fatal(&self) -> bool {
        matches!(self, Self::Auth { .. } | Self::Config(_))
    }
}

/// How many characters of a response body or of stderr an error keeps.
const EXCERPT_CHARS: usize = 300;

/// Why a success body is not a response: not JSON (with how it starts, whitespace
/// collapsed, so an HTML page names itself), or JSON without `what`.
fn unreadable(body: &str, not_json: Option<&serde_json::Error>, what: &str) -> LlmError {
    const START: usize = 80;
    let start: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let start: String = start.chars().take(START).collect();
    LlmError::Unreadable(match (not_json, start.is_empty()) {
        (_, true) => "the body was empty".to_owned(),
        (Some(e), false) => format!("it was not JSON ({e}), it began {start:?}"),
        (None, false) => format!("it held no {what}"),
    })
}

/// `lead`, then `items` as pretty JSON inside `<tag untrusted="true">`: JSON escapes every
/// quote mark and line break and `<` is escaped too, so no item can close the fence.
fn untrusted_items(lead: &str, tag: &str, items: &[Value]) -> String {
    format!(
        "{lead}\n<{tag} untrusted=\"true\">\n{}\n</{tag}>\n",
        serde_json::to_string_pretty(items)
            .unwrap_or_default()
            .replace('<', "\\u003c")
    )
}

/// The first JSON object with a list under `key` in a model's text (bare, fenced or among
/// prose): how the judge's verdicts and the reconcile links are read from a plain answer.
fn object_with_list(text: &str, key: &str) -> Option<Value> {
    let mut from = 0;
    while let Some(offset) = text[from..].find('{') {
        let start = from + offset;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        if let Some(Ok(value)) = stream.next()
            && value.get(key).is_some_and(Value::is_array)
        {
            return Some(value);
        }
        from = start + 1;
    }
    None
}

/// The start of `text` on one line, cut at a character boundary.
fn excerpt(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

/// The human part of an error body: `error.message` when both APIs' JSON shape is there.
fn error_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.pointer("/error/message")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| body.to_owned())
}

/// Maps a non-success HTTP status to an error. The key is scrubbed from the body in case
/// a server echoes it back.
fn status_error(
    provider: &'static str,
    variable: &'static str,
    status: u16,
    retry_after: Option<Duration>,
    body: &str,
    secret: Option<&str>,
) -> LlmError {
    if matches!(status, 401 | 403) {
        return LlmError::Auth {
            provider,
            status,
            variable,
        };
    }
    let mut message = error_message(body);
    if let Some(key) = secret.filter(|k| !k.is_empty()) {
        message = message.replace(key, "[redacted]");
    }
    LlmError::Http {
        status,
        retry_after,
        body: excerpt(&message),
    }
}

/// Maps a transport failure. The URL is left out because a base URL may embed credentials.
fn transport_error(err: reqwest::Error) -> LlmError {
    if err.is_timeout() {
        return LlmError::Timeout;
    }
    let builder = err.is_builder();
    let unreachable = err.is_connect();
    let err = err.without_url();
    let mut message = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    if builder {
        LlmError::Config(format!("could not build the provider request: {message}"))
    } else if unreachable {
        LlmError::Unreachable(message)
    } else {
        LlmError::Connect(message)
    }
}

/// The HTTP client shared by the API providers: the whole-request timeout comes from
/// the settings.
fn http_client(settings: &Settings) -> Result<reqwest::Client, LlmError> {
    reqwest::Client::builder()
        .timeout(settings.timeout)
        .connect_timeout(settings.timeout.min(Duration::from_secs(15)))
        .user_agent(concat!("memloop/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(transport_error)
}

/// A header value that holds a secret: rejected with a message naming the variable (never
/// the value) and marked sensitive so that it is never printed.
fn secret_header(value: &str, variable: &str) -> Result<reqwest::header::HeaderValue, LlmError> {
    let mut header = reqwest::header::HeaderValue::from_str(value).map_err(|_| {
        LlmError::Config(format!(
            "{variable} holds characters that cannot be sent in an HTTP header"
        ))
    })?;
    header.set_sensitive(true);
    Ok(header)
}

/// What one HTTP exchange returned, before the provider interprets it.
struct Reply {
    status: u16,
    retry_after: Option<Duration>,
    body: String,
}

/// POSTs `body` as JSON and reads the whole answer; only transport failures are errors here.
async fn post_json(request: reqwest::RequestBuilder, body: &Value) -> Result<Reply, LlmError> {
    let response = request.json(body).send().await.map_err(transport_error)?;
    let status = response.status().as_u16();
    let retry_after = retry::retry_after_from_headers(response.headers(), chrono::Utc::now());
    let body = response.text().await.map_err(transport_error)?;
    Ok(Reply {
        status,
        retry_after,
        body,
    })
}

/// The extractor in use, ready to be shared by concurrent extractions.
#[derive(Debug)]
pub enum Provider {
    Anthropic(anthropic::Client),
    OpenAi(openai::Client),
    ClaudeCli(claude_cli::Client),
    Builtin,
}

impl Provider {
    /// Builds the provider the settings name. Fails when it cannot work at all: a missing
    /// Anthropic key, a `claude` CLI that is not on PATH.
    pub fn new(settings: &Settings) -> Result<Self, LlmError> {
        Ok(match settings.kind {
            ProviderKind::Anthropic => Self::Anthropic(anthropic::Client::new(settings)?),
            ProviderKind::OpenAi => Self::OpenAi(openai::Client::new(settings)?),
            ProviderKind::ClaudeCli => Self::ClaudeCli(claude_cli::Client::new(settings)?),
            ProviderKind::Builtin => Self::Builtin,
        })
    }

    /// Which extractor this is.
    pub fn kind(&self) -> ProviderKind {
        match self {
            Self::Anthropic(_) => ProviderKind::Anthropic,
            Self::OpenAi(_) => ProviderKind::OpenAi,
            Self::ClaudeCli(_) => ProviderKind::ClaudeCli,
            Self::Builtin => ProviderKind::Builtin,
        }
    }

    /// Extracts facts from one chunk, retrying transient failures (see `retry`) and an
    /// unparseable answer once.
    pub async fn extract(&self, req: &ExtractRequest) -> Result<Extraction, LlmError> {
        if let Self::Builtin = self {
            return Ok(extract_builtin(req));
        }
        self.ask(&Ask::extract(req), Answered::into_extraction)
            .await
    }

    /// Whether [`Provider::judge`] has a model to ask: every provider but the builtin
    /// extractor.
    #[must_use]
    pub fn judges(&self) -> bool {
        !matches!(self, Self::Builtin)
    }

    /// Asks whether each quote states its fact (see `judge`): the verdicts in order, `None`
    /// for an item the answer left out, and the usage. `None` for the builtin extractor,
    /// which has no model to ask.
    ///
    /// # Errors
    ///
    /// The request failed after its retries, or its answer held no verdicts.
    pub async fn judge(
        &self,
        pairs: &[(String, String)],
    ) -> Option<Result<(Vec<Option<bool>>, Usage), LlmError>> {
        if !self.judges() {
            return None;
        }
        let n = pairs.len();
        Some(
            self.ask(&judge::ask(pairs), |answered| {
                Ok((judge::verdicts(&answered.said, n)?, answered.usage))
            })
            .await,
        )
    }

    /// Asks how facts learned in one run from transcripts that could not see each other
    /// link up (see `reconcile`): one link per fact, in order, and the usage. `None` for the
    /// builtin extractor.
    ///
    /// # Errors
    ///
    /// The request failed after its retries, or its answer held no links.
    pub async fn reconcile(
        &self,
        facts: &[reconcile::Learned],
    ) -> Option<Result<(Vec<reconcile::Link>, Usage), LlmError>> {
        if let Self::Builtin = self {
            return None;
        }
        let n = facts.len();
        Some(
            self.ask(&reconcile::ask(facts), |answered| {
                Ok((reconcile::links(&answered.said, n)?, answered.usage))
            })
            .await,
        )
    }

    /// Sends one request through the provider in use, retrying transient failures and an
    /// answer `read` cannot read (see `retry`).
    async fn ask<T>(
        &self,
        ask: &Ask,
        read: impl Fn(Answered) -> Result<T, LlmError>,
    ) -> Result<T, LlmError> {
        let read = &read;
        match self {
            Self::Anthropic(client) => {
                let policy = retry::Policy::from_env(client.settings().max_retries);
                retry::run(&policy, || async move { read(client.ask(ask).await?) }).await
            }
            Self::OpenAi(client) => {
                let policy = retry::Policy::from_env(client.settings().max_retries);
                retry::run(&policy, || async move { read(client.ask(ask).await?) }).await
            }
            Self::ClaudeCli(client) => {
                let policy = retry::Policy::from_env(client.settings().max_retries);
                retry::run(&policy, || async move { read(client.ask(ask).await?) }).await
            }
            Self::Builtin => Err(LlmError::Config(
                "the builtin extractor asks no model".to_owned(),
            )),
        }
    }
}

/// The builtin extractor reads only what the person typed: the assistant's words are not
/// facts about them.
fn extract_builtin(req: &ExtractRequest) -> Extraction {
    let transcript = crate::transcript::parse(&req.transcript);
    let turns: Vec<&str> = transcript
        .turns
        .iter()
        .filter(|turn| matches!(turn.role, crate::transcript::Role::User))
        .map(|turn| turn.text.as_str())
        .collect();
    Extraction {
        facts: builtin::extract(&turns, &req.categories),
        usage: Usage::default(),
        judged: Vec::new(),
    }
}

#[cfg(test)]
mod tests;
