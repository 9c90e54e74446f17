//! A loopback mock of the two LLM wire formats memloop speaks: Anthropic's
//! `POST /v1/messages` and OpenAI's `POST /v1/chat/completions`. A test scripts what the
//! "model" answers (standing rules keyed on the request, then a FIFO of [`Reply`] values,
//! then a default) and reads back every request it received.
//!
//! By default it echoes: the facts it returns are the transcript's own
//! `remember: <Category> | <global|vault> | <text> [| replaces: <old>] [| evidence: <quote>]
//! [| valid_until: <YYYY-MM-DD>]` lines, so a fixture controls what gets extracted. The evidence is the fact's own text
//! unless the line says otherwise (`| evidence: -` leaves it out). It is built on `std::net` and threads only, so faults can
//! be played byte-exactly. It is deliberately not a general HTTP server: one request per
//! connection, bodies framed by `Content-Length` (or chunked), always `Connection: close`.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// `input_tokens` / `prompt_tokens` reported by every echo answer.
pub const ECHO_INPUT_TOKENS: u64 = 100;
/// `output_tokens` / `completion_tokens` reported by every echo answer.
pub const ECHO_OUTPUT_TOKENS: u64 = 20;
/// The tool name the echo uses when the request names none.
pub const DEFAULT_TOOL: &str = "record_facts";

/// A stuck client must not pin a handler thread (and so a test) forever.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// How often the accept loop and long sleeps look at the stop flag.
const POLL: Duration = Duration::from_millis(5);

/// What the mock answers to one request on a known endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A well-formed success in the endpoint's format carrying the transcript's
    /// `remember:` lines as facts.
    Echo,
    /// Any status with any headers and body.
    Status {
        code: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Read the request, then say nothing for this long and close.
    Hang(Duration),
    /// [`Reply::Echo`], after this long: a slow but healthy answer.
    SlowEcho(Duration),
    /// 200 whose body is prose, not JSON.
    Garbage,
    /// 200 with a well-formed envelope whose model answer is prose with no JSON in it.
    Prose,
    /// 200 whose body is the echo answer cut off halfway.
    Truncated,
    /// Close the connection without a byte of answer.
    Drop,
    /// 200 in the endpoint's format whose answer (tool input or content) is this JSON, with
    /// usage counted from the request's size (four characters a token) and the prompt
    /// cache applied when it is on: for a responder playing a model over many requests.
    Answer(Value),
    /// 200 with exactly this body.
    Raw(String),
}

impl Reply {
    /// A status with a body and no extra headers.
    pub fn status(code: u16, body: impl Into<String>) -> Self {
        Self::Status {
            code,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// 429 with `Retry-After: secs`, as Anthropic sends it.
    pub fn rate_limited(secs: u64) -> Self {
        Self::Status {
            code: 429,
            headers: vec![("Retry-After".into(), secs.to_string())],
            body: anthropic_error(
                "rate_limit_error",
                "Number of request tokens has exceeded your per-minute rate limit",
            ),
        }
    }

    /// 529 `overloaded_error`, Anthropic's "try again later".
    pub fn overloaded() -> Self {
        Self::status(529, anthropic_error("overloaded_error", "Overloaded"))
    }

    /// 500 `api_error`.
    pub fn server_error() -> Self {
        Self::status(500, anthropic_error("api_error", "Internal server error"))
    }

    /// 401 `authentication_error`: the key was rejected.
    pub fn unauthorized() -> Self {
        Self::status(
            401,
            anthropic_error("authentication_error", "invalid x-api-key"),
        )
    }

    /// 400 with an OpenAI-style error body.
    pub fn openai_bad_request(message: &str) -> Self {
        let body = json!({"error": {"message": message, "type": "invalid_request_error",
                                    "param": null, "code": null}});
        Self::status(400, body.to_string())
    }
}

/// One request as the mock received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    /// The first header with this (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON, `Value::Null` when it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The system prompt in either wire format (Anthropic `system`, OpenAI system or
    /// developer messages), text blocks joined by newlines.
    pub fn system_prompt(&self) -> String {
        let body = self.json();
        let mut out = Vec::new();
        collect_text(&body["system"], &mut out);
        for message in messages(&body) {
            if matches!(message["role"].as_str(), Some("system" | "developer")) {
                collect_text(&message["content"], &mut out);
            }
        }
        out.join("\n")
    }

    /// Whether this request asks whether quotes state their facts (`llm::judge`).
    pub fn is_judge(&self) -> bool {
        is_judge(&self.json())
    }

    /// Whether this request asks how facts learned the same night link up.
    pub fn is_reconcile(&self) -> bool {
        is_reconcile(&self.json())
    }

    /// Every piece of text in the user messages, JSON-decoded, joined by newlines.
    pub fn user_text(&self) -> String {
        let body = self.json();
        let mut out = Vec::new();
        for message in messages(&body) {
            if message["role"] == "user" {
                collect_text(&message["content"], &mut out);
            }
        }
        out.join("\n")
    }
}

/// A running mock server on 127.0.0.1; stops when dropped.
pub struct Mock {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

struct Shared {
    script: Mutex<Script>,
    log: Mutex<Vec<Recorded>>,
    /// When each answer was written out in full, by the request's place in `log`.
    answered: Mutex<Vec<(usize, Instant)>>,
    stopping: AtomicBool,
    serial: AtomicU64,
    /// Prompt caching as the APIs do it (see [`Mock::cache_prompts`]); `None`: off.
    cache: Mutex<Option<PromptCache>>,
}

/// The prefixes a provider would hold in its prompt cache, and how it counts them.
#[derive(Default)]
struct PromptCache {
    /// Anthropic: each prefix up to a `cache_control` breakpoint once written.
    written: std::collections::HashSet<String>,
    /// OpenAI: every prompt seen, whose prefixes it caches by itself.
    prompts: Vec<String>,
}

/// The shortest prefix Anthropic caches for a model: 4,096 tokens for Claude Haiku 4.5 and
/// Opus 4.5 and later, 2,048 for the older Haikus, 1,024 for the Sonnets and older Opus.
fn anthropic_cache_min(model: &str) -> usize {
    if ["haiku-4-5", "opus-4-5", "opus-4-6"]
        .iter()
        .any(|m| model.contains(m))
    {
        4096
    } else if model.contains("haiku") {
        2048
    } else {
        1024
    }
}

/// OpenAI caches nothing under 1,024 tokens, and counts what it reads in blocks of 128.
const OPENAI_CACHE_MIN_TOKENS: usize = 1024;

/// Tokens as the mock counts them: four characters each, rounded up.
fn mock_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

impl PromptCache {
    /// (written, read) for an Anthropic request: the longest prefix up to a breakpoint
    /// written before is read; what lies between it and the last breakpoint is written.
    fn anthropic(&mut self, request: &Value) -> (u64, u64) {
        let mut prefix = request["tools"].to_string();
        let mut breakpoints = Vec::new();
        let blocks =
            request["system"].as_array().into_iter().flatten().chain(
                messages(request).flat_map(|m| m["content"].as_array().into_iter().flatten()),
            );
        for block in blocks {
            prefix.push_str(block["text"].as_str().unwrap_or_default());
            if !block["cache_control"].is_null() {
                breakpoints.push(prefix.clone());
            }
        }
        let min = anthropic_cache_min(request["model"].as_str().unwrap_or_default());
        let eligible: Vec<&String> = breakpoints
            .iter()
            .filter(|p| mock_tokens(p) >= min)
            .collect();
        let read = eligible
            .iter()
            .rev()
            .find(|p| self.written.contains(**p))
            .map_or(0, |p| mock_tokens(p));
        let written = match eligible.last() {
            Some(last) if !self.written.contains(*last) => mock_tokens(last) - read,
            _ => 0,
        };
        self.written.extend(eligible.into_iter().cloned());
        (written as u64, read as u64)
    }

    /// Tokens an OpenAI request reads from its cache: the longest prefix shared with a
    /// prompt seen before, in blocks of 128 tokens, once it reaches 1,024.
    fn openai(&mut self, request: &Value) -> u64 {
        let prompt: String = messages(request)
            .map(|m| m["content"].as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        let shared = self
            .prompts
            .iter()
            .map(|seen| {
                seen.chars()
                    .zip(prompt.chars())
                    .take_while(|(a, b)| a == b)
                    .count()
            })
            .max()
            .unwrap_or(0);
        self.prompts.push(prompt);
        let tokens = shared / 4;
        if tokens < OPENAI_CACHE_MIN_TOKENS {
            0
        } else {
            (tokens / 128 * 128) as u64
        }
    }
}

/// A test's predicate over a received request, for [`Mock::when`].
type Matcher = Box<dyn Fn(&Recorded) -> bool + Send>;

/// A test's answer built from a received request, for [`Mock::answer_with`].
type Responder = Box<dyn Fn(&Recorded) -> Option<Reply> + Send>;

struct Script {
    /// Tried first, in order; never used up.
    responders: Vec<Responder>,
    /// Tried in order before the queue; never used up.
    rules: Vec<(Matcher, Reply)>,
    queue: VecDeque<Reply>,
    default: Reply,
    latency: Duration,
}

impl Mock {
    /// Binds an ephemeral loopback port and starts serving.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the mock to a loopback port");
        // Non-blocking accept lets the thread notice `stopping` without a wake-up connection.
        listener
            .set_nonblocking(true)
            .expect("make the mock listener non-blocking");
        let addr = listener.local_addr().expect("mock listener address");
        let shared = Arc::new(Shared {
            script: Mutex::new(Script {
                responders: Vec::new(),
                rules: Vec::new(),
                queue: VecDeque::new(),
                default: Reply::Echo,
                latency: Duration::ZERO,
            }),
            log: Mutex::new(Vec::new()),
            answered: Mutex::new(Vec::new()),
            stopping: AtomicBool::new(false),
            serial: AtomicU64::new(0),
            cache: Mutex::new(None),
        });
        let acceptor = {
            let shared = Arc::clone(&shared);
            thread::spawn(move || accept_loop(&listener, &shared))
        };
        Self {
            addr,
            shared,
            acceptor: Some(acceptor),
        }
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Queues a reply; queued replies are used in order before the default.
    pub fn push(&self, reply: Reply) {
        lock(&self.shared.script).queue.push_back(reply);
    }

    /// Answers every request that `matches` with `reply`, ahead of the queue and the
    /// default, for as long as the mock runs; rules are tried in the order they were added.
    /// For a server whose answer depends on what was sent (a 400 to any request that
    /// carries `response_format`). A matched request leaves the queue as it was.
    pub fn when(&self, matches: impl Fn(&Recorded) -> bool + Send + 'static, reply: Reply) {
        lock(&self.shared.script)
            .rules
            .push((Box::new(matches), reply));
    }

    /// Answers a request with what `respond` makes of it, when it makes anything, ahead of
    /// every rule: for thousands of scripted transcripts, each answered its own way.
    pub fn answer_with(&self, respond: impl Fn(&Recorded) -> Option<Reply> + Send + 'static) {
        lock(&self.shared.script).responders.push(Box::new(respond));
    }

    /// Caches prompts from now on as the APIs do, and says so in each echo answer's usage:
    /// Anthropic (`cache_creation_input_tokens`, `cache_read_input_tokens`) for prefixes up
    /// to a `cache_control` breakpoint of the model's minimum (4,096 tokens for Claude Haiku
    /// 4.5, 1,024 for Sonnet), OpenAI
    /// (`prompt_tokens_details.cached_tokens`) for any prefix of 1,024 tokens shared with
    /// an earlier prompt. Off by default, so token counts stay what older tests expect.
    pub fn cache_prompts(&self) {
        *lock(&self.shared.cache) = Some(PromptCache::default());
    }

    /// The reply used once the queue is empty (initially [`Reply::Echo`]).
    pub fn set_default(&self, reply: Reply) {
        lock(&self.shared.script).default = reply;
    }

    /// Sleep this long before every answer.
    pub fn set_latency(&self, latency: Duration) {
        lock(&self.shared.script).latency = latency;
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.shared.log).clone()
    }

    /// When each answer was written out in full (whatever its status), by the request's
    /// place in [`Mock::requests`], in the order they were written.
    pub fn answered(&self) -> Vec<(usize, Instant)> {
        lock(&self.shared.answered).clone()
    }

    /// How many requests were received so far.
    pub fn count(&self) -> usize {
        lock(&self.shared.log).len()
    }

    /// How many transcripts were asked about: the requests that are neither a judge's
    /// nor the end of run's reconcile.
    pub fn extractions(&self) -> usize {
        lock(&self.shared.log)
            .iter()
            .filter(|r| !r.is_judge() && !r.is_reconcile())
            .count()
    }

    /// The request count once it has stopped changing for 200 ms (at most 5 s): a client
    /// that aborted mid-request may still have bytes on the wire when it exits.
    pub fn settled_count(&self) -> usize {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut last = self.count();
        loop {
            thread::sleep(Duration::from_millis(200));
            let now = self.count();
            if now == last || Instant::now() > deadline {
                return now;
            }
            last = now;
        }
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// A panicking test thread must not turn every later lock into a second panic.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    while !shared.stopping.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let shared = Arc::clone(shared);
                thread::spawn(move || handle(stream, &shared));
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => thread::sleep(POLL),
            Err(_) => thread::sleep(POLL),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Endpoint {
    Anthropic,
    OpenAi,
}

fn handle(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let Ok(request) = read_request(&stream) else {
        return;
    };
    let endpoint = match (request.method.as_str(), request.path.as_str()) {
        ("POST", "/v1/messages") => Some(Endpoint::Anthropic),
        ("POST", "/v1/chat/completions") => Some(Endpoint::OpenAi),
        _ => None,
    };
    let body = request.json();
    let scripted = endpoint.map(|_| {
        let mut script = lock(&shared.script);
        let ruled = script
            .responders
            .iter()
            .find_map(|respond| respond(&request))
            .or_else(|| {
                script
                    .rules
                    .iter()
                    .find(|(matches, _)| matches(&request))
                    .map(|(_, reply)| reply.clone())
            });
        let reply = ruled
            .or_else(|| script.queue.pop_front())
            .unwrap_or_else(|| script.default.clone());
        (reply, script.latency)
    });
    // Logged after taking the reply (so a test that waits on `count()` knows the script
    // moved on) and before answering (so `count()` is exact once the client has an answer).
    let place = {
        let mut log = lock(&shared.log);
        log.push(request);
        log.len() - 1
    };
    let (Some(endpoint), Some((reply, latency))) = (endpoint, scripted) else {
        let _ = respond(&stream, 404, &[], "text/plain", "not found");
        return;
    };
    sleep_unless_stopped(latency, shared);
    let serial = shared.serial.fetch_add(1, Ordering::SeqCst);
    if answer(&stream, endpoint, &body, reply, serial, shared).is_ok() {
        lock(&shared.answered).push((place, Instant::now()));
    }
}

fn answer(
    stream: &TcpStream,
    endpoint: Endpoint,
    request: &Value,
    reply: Reply,
    serial: u64,
    shared: &Shared,
) -> io::Result<()> {
    const JSON: &str = "application/json";
    match reply {
        Reply::Echo => respond(
            stream,
            200,
            &[],
            JSON,
            &success(endpoint, request, serial, shared),
        ),
        Reply::Status {
            code,
            headers,
            body,
        } => respond(stream, code, &headers, JSON, &body),
        Reply::Hang(duration) => {
            sleep_unless_stopped(duration, shared);
            Ok(())
        }
        Reply::SlowEcho(duration) => {
            sleep_unless_stopped(duration, shared);
            respond(
                stream,
                200,
                &[],
                JSON,
                &success(endpoint, request, serial, shared),
            )
        }
        Reply::Garbage => respond(
            stream,
            200,
            &[],
            JSON,
            "I'm sorry, I can't help with that right now. Please try again later.",
        ),
        Reply::Prose => respond(stream, 200, &[], JSON, &prose(endpoint, request, serial)),
        Reply::Truncated => {
            let full = success(endpoint, request, serial, shared);
            let mut cut = full.len() / 2;
            while !full.is_char_boundary(cut) {
                cut -= 1;
            }
            respond(stream, 200, &[], JSON, &full[..cut])
        }
        Reply::Drop => Ok(()),
        Reply::Raw(body) => respond(stream, 200, &[], JSON, &body),
        Reply::Answer(answer) => respond(
            stream,
            200,
            &[],
            JSON,
            &answered(endpoint, request, serial, shared, &answer),
        ),
    }
}

fn sleep_unless_stopped(duration: Duration, shared: &Shared) {
    let end = Instant::now() + duration;
    while !shared.stopping.load(Ordering::SeqCst) {
        let now = Instant::now();
        if now >= end {
            return;
        }
        thread::sleep((end - now).min(POLL * 4));
    }
}

fn respond(
    mut stream: &TcpStream,
    code: u16,
    headers: &[(String, String)],
    content_type: &str,
    body: &str,
) -> io::Result<()> {
    let reason = match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    };
    let mut head = format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()?;
    stream.shutdown(std::net::Shutdown::Write)
}

fn read_request(stream: &TcpStream) -> io::Result<Recorded> {
    let mut reader = BufReader::new(stream);
    let mut head_bytes = 0;
    let mut line = String::new();
    let mut read_line = |reader: &mut BufReader<&TcpStream>, line: &mut String| {
        line.clear();
        let n = reader.read_line(line)?;
        head_bytes += n;
        if n == 0 || head_bytes > MAX_HEAD_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "bad request head",
            ));
        }
        Ok(line.trim_end_matches(['\r', '\n']).to_owned())
    };
    let request_line = read_line(&mut reader, &mut line)?;
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "bad request line",
        ));
    };
    let (method, path) = (method.to_owned(), path.to_owned());
    let mut headers = Vec::new();
    loop {
        let header = read_line(&mut reader, &mut line)?;
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let body = if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        read_chunked(&mut reader)?
    } else {
        let length = find("content-length")
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        body
    };
    Ok(Recorded {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size_line = String::new();
        reader.read_line(&mut size_line)?;
        let size_hex = size_line.trim().split(';').next().unwrap_or("");
        let size = usize::from_str_radix(size_hex, 16)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad chunk size"))?;
        if size == 0 {
            let mut trailer = String::new();
            while reader.read_line(&mut trailer)? > 2 {
                trailer.clear();
            }
            return Ok(body);
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0; 2];
        reader.read_exact(&mut crlf)?;
    }
}

fn messages(body: &Value) -> impl Iterator<Item = &Value> {
    body["messages"].as_array().into_iter().flatten()
}

/// Strings anywhere under `value`; a string that is itself JSON is searched too, so a
/// transcript wrapped in a JSON document still yields its lines.
fn collect_text(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => {
            out.push(s.clone());
            if let Ok(inner @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str(s) {
                collect_text(&inner, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_text(v, out)),
        // Block tags (`"type": "text"`) are structure, not text.
        Value::Object(map) => map
            .iter()
            .filter(|(key, _)| key.as_str() != "type")
            .for_each(|(_, v)| collect_text(v, out)),
        _ => {}
    }
}

/// The facts a transcript asks the mock to "extract", in order, duplicates dropped.
pub fn remembered(text: &str) -> Vec<Value> {
    let mut facts: Vec<Value> = Vec::new();
    for fact in text.lines().filter_map(parse_remember) {
        if !facts.contains(&fact) {
            facts.push(fact);
        }
    }
    facts
}

fn parse_remember(line: &str) -> Option<Value> {
    let line = line.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '>' | '-' | '*'));
    let rest = line.strip_prefix("remember:")?;
    let mut fields = rest.splitn(3, '|');
    let category = fields.next()?.trim();
    let scope = fields.next()?.trim();
    let rest = fields.next()?;
    // A blank category is passed on, as a model may send one.
    if !matches!(scope, "global" | "vault") {
        return None;
    }
    // Split from the right so a `|` inside the fact text (a shell pipe) survives.
    let mut text = rest;
    let mut replaces = None;
    let mut evidence = None;
    let mut valid_until = None;
    loop {
        if let Some((before, old)) = text.rsplit_once("| replaces:") {
            replaces = Some(old.trim());
            text = before;
        } else if let Some((before, quote)) = text.rsplit_once("| evidence:") {
            evidence = Some(quote.trim());
            text = before;
        } else if let Some((before, day)) = text.rsplit_once("| valid_until:") {
            valid_until = Some(day.trim());
            text = before;
        } else {
            break;
        }
    }
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    // Like a model that follows the contract, the mock quotes the line it read the fact
    // from: the fact's own words. `| evidence: -` leaves the field out.
    let mut fact = json!({"category": category, "text": text, "scope": scope});
    match evidence {
        Some("-") => {}
        Some(quote) => fact["evidence"] = json!(quote),
        None => fact["evidence"] = json!(text),
    }
    if let Some(old) = replaces {
        fact["replaces"] = json!(old);
    }
    if let Some(day) = valid_until {
        fact["valid_until"] = json!(day);
    }
    Some(fact)
}

fn request_facts(request: &Value) -> Value {
    let mut text = Vec::new();
    for message in messages(request) {
        if message["role"] == "user" {
            collect_text(&message["content"], &mut text);
        }
    }
    json!({"facts": remembered(&text.join("\n"))})
}

fn model(request: &Value) -> &str {
    request["model"].as_str().unwrap_or("mock-model")
}

fn tool_name(request: &Value) -> Option<&str> {
    request["tool_choice"]["name"]
        .as_str()
        .or_else(|| request["tool_choice"]["function"]["name"].as_str())
        .or_else(|| request["tools"][0]["name"].as_str())
        .or_else(|| request["tools"][0]["function"]["name"].as_str())
}

/// Whether the request asks whether quotes state their facts (`llm::judge`), not for facts.
pub fn is_judge(request: &Value) -> bool {
    tool_name(request) == Some(JUDGE_TOOL)
        || request["response_format"]["json_schema"]["name"] == "verdicts"
        || request_text(request).contains("<items untrusted=\"true\">")
}

/// The tool a judging request names.
pub const JUDGE_TOOL: &str = "record_verdicts";

/// The tool a reconciling request (`llm::reconcile`) names.
pub const RECONCILE_TOOL: &str = "record_links";

/// Whether the request asks how facts learned the same night link up, not for facts.
pub fn is_reconcile(request: &Value) -> bool {
    tool_name(request) == Some(RECONCILE_TOOL)
        || request["response_format"]["json_schema"]["name"] == "links"
        || request_text(request).contains("<facts untrusted=\"true\">")
}

/// The facts of a reconciling request, in order.
pub fn reconciled_items(request: &Value) -> Vec<String> {
    let text = request_text(request);
    let Some(start) = text.find("<facts untrusted=\"true\">\n") else {
        return Vec::new();
    };
    let rest = &text[start + "<facts untrusted=\"true\">\n".len()..];
    let end = rest.find("\n</facts>").unwrap_or(rest.len());
    let items: Vec<Value> = serde_json::from_str(&rest[..end]).unwrap_or_default();
    items
        .iter()
        .map(|i| i["fact"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The user text of a request.
fn request_text(request: &Value) -> String {
    let mut text = Vec::new();
    for message in messages(request) {
        if message["role"] == "user" {
            collect_text(&message["content"], &mut text);
        }
    }
    text.join("\n")
}

/// The items of a judging request: (quote, fact), in order.
pub fn judged_items(request: &Value) -> Vec<(String, String)> {
    let text = request_text(request);
    let Some(start) = text.find("<items untrusted=\"true\">\n") else {
        return Vec::new();
    };
    let rest = &text[start + "<items untrusted=\"true\">\n".len()..];
    let end = rest.find("\n</items>").unwrap_or(rest.len());
    let items: Vec<Value> = serde_json::from_str(&rest[..end]).unwrap_or_default();
    items
        .iter()
        .map(|i| {
            (
                i["quote"].as_str().unwrap_or_default().to_owned(),
                i["fact"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// An honest reader's verdict, roughly: half the fact's longer words (by their first four
/// letters) are in the quote.
pub fn honest_verdict(quote: &str, fact: &str) -> bool {
    const FRAMING: &[&str] = &[
        "want", "pref", "like", "love", "enjo", "that", "with", "thei", "them", "they", "abou",
    ];
    let stems = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 4)
            .map(|w| w.to_lowercase().chars().take(4).collect::<String>())
            .filter(|w| !FRAMING.contains(&w.as_str()))
            .collect()
    };
    let said = stems(quote);
    let wanted = stems(fact);
    let found = wanted.iter().filter(|w| said.contains(w)).count();
    !wanted.is_empty() && found * 2 >= wanted.len()
}

/// A judging request's answer as an honest reader gives it.
fn request_verdicts(request: &Value) -> Value {
    let verdicts: Vec<Value> = judged_items(request)
        .iter()
        .enumerate()
        .map(|(i, (quote, fact))| json!({"n": i + 1, "states": honest_verdict(quote, fact)}))
        .collect();
    json!({"verdicts": verdicts})
}

/// [`Reply::Answer`]'s body: `answer` as the model's, every input token counted.
fn answered(
    endpoint: Endpoint,
    request: &Value,
    serial: u64,
    shared: &Shared,
    answer: &Value,
) -> String {
    let mut cache = lock(&shared.cache);
    let prompt = mock_tokens(&request["tools"].to_string())
        + mock_tokens(&request["system"].to_string())
        + messages(request)
            .map(|m| mock_tokens(&m["content"].to_string()))
            .sum::<usize>();
    let output = mock_tokens(&answer.to_string()) as u64;
    match endpoint {
        Endpoint::Anthropic => {
            let (written, read) = cache.as_mut().map_or((0, 0), |c| c.anthropic(request));
            let mut body: Value =
                serde_json::from_str(&anthropic_echo(request, serial, answer, written, read))
                    .expect("the echo is JSON");
            body["usage"]["input_tokens"] = json!((prompt as u64).saturating_sub(written + read));
            body["usage"]["output_tokens"] = json!(output);
            body.to_string()
        }
        Endpoint::OpenAi => {
            let cached = cache.as_mut().map_or(0, |c| c.openai(request));
            let mut body: Value =
                serde_json::from_str(&openai_echo(request, serial, answer, cached))
                    .expect("the echo is JSON");
            body["usage"]["prompt_tokens"] = json!(prompt as u64);
            body["usage"]["completion_tokens"] = json!(output);
            body.to_string()
        }
    }
}

fn success(endpoint: Endpoint, request: &Value, serial: u64, shared: &Shared) -> String {
    let facts = if is_judge(request) {
        request_verdicts(request)
    } else if is_reconcile(request) {
        json!({"links": []})
    } else {
        request_facts(request)
    };
    let mut cache = lock(&shared.cache);
    match endpoint {
        Endpoint::Anthropic => {
            let (written, read) = cache.as_mut().map_or((0, 0), |c| c.anthropic(request));
            anthropic_echo(request, serial, &facts, written, read)
        }
        Endpoint::OpenAi => {
            let cached = cache.as_mut().map_or(0, |c| c.openai(request));
            openai_echo(request, serial, &facts, cached)
        }
    }
}

fn anthropic_echo(request: &Value, serial: u64, facts: &Value, written: u64, read: u64) -> String {
    json!({
        "id": format!("msg_mock_{serial}"),
        "type": "message",
        "role": "assistant",
        "model": model(request),
        "content": [{
            "type": "tool_use",
            "id": format!("toolu_mock_{serial}"),
            "name": tool_name(request).unwrap_or(DEFAULT_TOOL),
            "input": facts,
        }],
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "usage": {"input_tokens": ECHO_INPUT_TOKENS, "output_tokens": ECHO_OUTPUT_TOKENS,
                  "cache_creation_input_tokens": written, "cache_read_input_tokens": read},
    })
    .to_string()
}

fn openai_echo(request: &Value, serial: u64, facts: &Value, cached: u64) -> String {
    let envelope = |message: &Value, finish: &str| {
        let mut body: Value =
            serde_json::from_str(&openai_envelope(request, serial, message, finish))
                .expect("the envelope is JSON");
        if cached > 0 {
            body["usage"]["prompt_tokens"] = json!(ECHO_INPUT_TOKENS + cached);
            body["usage"]["prompt_tokens_details"] = json!({"cached_tokens": cached});
        }
        body.to_string()
    };
    match () {
        // A request that offers tools without a response format wants a tool call back.
        () if request["response_format"].is_null() && !request["tools"].is_null() => {
            let message = json!({
                "role": "assistant",
                "content": null,
                "tool_calls": [{
                    "id": format!("call_mock_{serial}"),
                    "type": "function",
                    "function": {
                        "name": tool_name(request).unwrap_or(DEFAULT_TOOL),
                        "arguments": facts.to_string(),
                    },
                }],
            });
            envelope(&message, "tool_calls")
        }
        () => {
            let message =
                json!({"role": "assistant", "content": facts.to_string(), "refusal": null});
            envelope(&message, "stop")
        }
    }
}

fn prose(endpoint: Endpoint, request: &Value, serial: u64) -> String {
    const TEXT: &str = "I read the conversation but there is nothing worth remembering in it.";
    match endpoint {
        Endpoint::Anthropic => json!({
            "id": format!("msg_mock_{serial}"),
            "type": "message",
            "role": "assistant",
            "model": model(request),
            "content": [{"type": "text", "text": TEXT}],
            "stop_reason": "end_turn",
            "stop_sequence": null,
            "usage": {"input_tokens": ECHO_INPUT_TOKENS, "output_tokens": ECHO_OUTPUT_TOKENS},
        })
        .to_string(),
        Endpoint::OpenAi => {
            let message = json!({"role": "assistant", "content": TEXT, "refusal": null});
            openai_envelope(request, serial, &message, "stop")
        }
    }
}

fn openai_envelope(request: &Value, serial: u64, message: &Value, finish: &str) -> String {
    json!({
        "id": format!("chatcmpl-mock-{serial}"),
        "object": "chat.completion",
        "created": 1_750_000_000,
        "model": model(request),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": null}],
        "usage": {
            "prompt_tokens": ECHO_INPUT_TOKENS,
            "completion_tokens": ECHO_OUTPUT_TOKENS,
            "total_tokens": ECHO_INPUT_TOKENS + ECHO_OUTPUT_TOKENS,
        },
    })
    .to_string()
}

/// A `chat.completion` body whose assistant message content is exactly `content`, for
/// [`Reply::Raw`] answers such as JSON wrapped in a code fence.
pub fn openai_completion(content: &str) -> String {
    let message = json!({"role": "assistant", "content": content, "refusal": null});
    openai_envelope(&json!({"model": "mock-model"}), 0, &message, "stop")
}

/// An Anthropic `message` body whose forced tool call carries `input` (such as
/// `{"facts": [...]}`) and whose usage reports these token counts, for [`Reply::Raw`].
pub fn anthropic_tool_use(input: &Value, input_tokens: u64, output_tokens: u64) -> String {
    json!({
        "id": "msg_mock_raw",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [{"type": "tool_use", "id": "toolu_mock_raw", "name": DEFAULT_TOOL,
                     "input": input}],
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    })
    .to_string()
}

fn anthropic_error(kind: &str, message: &str) -> String {
    json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends one HTTP/1.1 request and returns (status, headers, body); an empty status
    /// line means the server closed without answering.
    fn send(mock: &Mock, path: &str, body: &str) -> (String, String, String) {
        let mut stream = TcpStream::connect(mock.addr).expect("connect to mock");
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("set timeout");
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nX-Api-Key: test-key\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            mock.addr,
            body.len()
        );
        stream.write_all(request.as_bytes()).expect("send request");
        let mut raw = String::new();
        let _ = stream.read_to_string(&mut raw);
        let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
        let (status, headers) = head.split_once("\r\n").unwrap_or((head, ""));
        (status.to_owned(), headers.to_owned(), body.to_owned())
    }

    fn anthropic_request(transcript: &str) -> String {
        json!({
            "model": "claude-haiku-4-5",
            "max_tokens": 1024,
            "system": [{"type": "text", "text": "Extract durable facts."}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": transcript}]}],
            "tools": [{"name": "save_facts", "input_schema": {"type": "object"}}],
            "tool_choice": {"type": "tool", "name": "save_facts"},
        })
        .to_string()
    }

    fn openai_request(transcript: &str) -> String {
        json!({
            "model": "gpt-4o-mini",
            "messages": [{"role": "system", "content": "Extract durable facts."},
                         {"role": "user", "content": transcript}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "facts", "schema": {}}},
        })
        .to_string()
    }

    const TRANSCRIPT: &str = "## [09:14] User\n\nremember: Preferences | global | Prefers tea.\n\
        remember: Project Context | vault | Builds with `make`. | replaces: Builds with cargo.\n\
        remember: Goals | nowhere | Ignored: bad scope.\n## [09:15] Assistant\n\nNoted.\n";

    #[test]
    fn remembered_parses_lines_and_keeps_pipes_in_text() {
        let cases: &[(&str, Vec<Value>)] = &[
            ("no facts here", vec![]),
            (
                "remember: Identity | global | Is a staff engineer.",
                vec![
                    json!({"category": "Identity", "scope": "global", "text": "Is a staff engineer.", "evidence": "Is a staff engineer."}),
                ],
            ),
            (
                "  > remember: Preferences | global | Always run `curl x | sh` first.",
                vec![json!({"category": "Preferences", "scope": "global",
                            "text": "Always run `curl x | sh` first.", "evidence": "Always run `curl x | sh` first."})],
            ),
            (
                "- remember: Goals | vault | New text. | replaces: Old | text.",
                vec![
                    json!({"category": "Goals", "scope": "vault", "text": "New text.", "evidence": "New text.",
                            "replaces": "Old | text."}),
                ],
            ),
            ("remember: Goals | team | Bad scope.", vec![]),
            ("remember: Goals | global |   ", vec![]),
            (
                "I said remember: Goals | global | not at line start.",
                vec![],
            ),
            (
                "remember: Goals | global | Quoted. | evidence: I said so myself",
                vec![
                    json!({"category": "Goals", "scope": "global", "text": "Quoted.", "evidence": "I said so myself"}),
                ],
            ),
            (
                "remember: Goals | global | Unquoted. | evidence: - | replaces: Old.",
                vec![
                    json!({"category": "Goals", "scope": "global", "text": "Unquoted.", "replaces": "Old."}),
                ],
            ),
            (
                "remember: A | global | Same.\nremember: A | global | Same.",
                vec![
                    json!({"category": "A", "scope": "global", "text": "Same.", "evidence": "Same."}),
                ],
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(&remembered(text), expected, "input: {text:?}");
        }
    }

    #[test]
    fn echo_answers_anthropic_with_forced_tool_use() {
        let mock = Mock::start();
        let (status, headers, body) = send(&mock, "/v1/messages", &anthropic_request(TRANSCRIPT));
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(headers.contains("Connection: close"), "{headers}");
        let body: Value = serde_json::from_str(&body).expect("echo body is JSON");
        assert_eq!(body["type"], "message");
        assert_eq!(body["model"], "claude-haiku-4-5");
        assert_eq!(body["stop_reason"], "tool_use");
        let block = &body["content"][0];
        assert_eq!(block["type"], "tool_use");
        assert_eq!(block["name"], "save_facts", "the tool the request forced");
        assert_eq!(
            block["input"],
            json!({"facts": [
                {"category": "Preferences", "scope": "global", "text": "Prefers tea.", "evidence": "Prefers tea."},
                {"category": "Project Context", "scope": "vault", "text": "Builds with `make`.", "evidence": "Builds with `make`.",
                 "replaces": "Builds with cargo."},
            ]})
        );
        assert_eq!(body["usage"]["input_tokens"], ECHO_INPUT_TOKENS);
        assert_eq!(body["usage"]["output_tokens"], ECHO_OUTPUT_TOKENS);

        let requests = mock.requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].method, "POST");
        assert_eq!(requests[0].path, "/v1/messages");
        assert_eq!(requests[0].header("x-api-key"), Some("test-key"));
        assert_eq!(requests[0].system_prompt(), "Extract durable facts.");
        assert!(requests[0].user_text().contains("Prefers tea."));
    }

    #[test]
    fn echo_answers_openai_with_content_or_tool_call() {
        let mock = Mock::start();
        let (status, _, body) = send(&mock, "/v1/chat/completions", &openai_request(TRANSCRIPT));
        assert_eq!(status, "HTTP/1.1 200 OK");
        let body: Value = serde_json::from_str(&body).expect("echo body is JSON");
        assert_eq!(body["object"], "chat.completion");
        assert_eq!(body["usage"]["prompt_tokens"], ECHO_INPUT_TOKENS);
        let content: Value = serde_json::from_str(
            body["choices"][0]["message"]["content"]
                .as_str()
                .expect("content is a string"),
        )
        .expect("content is JSON");
        assert_eq!(content["facts"].as_array().map(Vec::len), Some(2));
        assert_eq!(content["facts"][0]["text"], "Prefers tea.");

        let tools = json!({
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": TRANSCRIPT}],
            "tools": [{"type": "function", "function": {"name": "record_facts", "parameters": {}}}],
        });
        let (_, _, body) = send(&mock, "/v1/chat/completions", &tools.to_string());
        let body: Value = serde_json::from_str(&body).expect("echo body is JSON");
        let call = &body["choices"][0]["message"]["tool_calls"][0]["function"];
        assert_eq!(call["name"], "record_facts");
        let arguments: Value =
            serde_json::from_str(call["arguments"].as_str().expect("arguments string"))
                .expect("JSON");
        assert_eq!(arguments["facts"][1]["replaces"], "Builds with cargo.");
        assert_eq!(mock.count(), 2);
    }

    #[test]
    fn finds_lines_in_a_transcript_wrapped_in_json() {
        let wrapped = json!({"transcript": TRANSCRIPT}).to_string();
        let mock = Mock::start();
        let (_, _, body) = send(&mock, "/v1/messages", &anthropic_request(&wrapped));
        let body: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(
            body["content"][0]["input"]["facts"][0]["text"],
            "Prefers tea."
        );
    }

    #[test]
    fn scripted_replies_come_first_then_the_default() {
        let mock = Mock::start();
        mock.push(Reply::rate_limited(1));
        mock.push(Reply::overloaded());
        mock.push(Reply::Raw("{\"raw\":true}".into()));
        let request = anthropic_request(TRANSCRIPT);

        let (status, headers, body) = send(&mock, "/v1/messages", &request);
        assert_eq!(status, "HTTP/1.1 429 Too Many Requests");
        assert!(headers.contains("Retry-After: 1"), "{headers}");
        assert!(body.contains("rate_limit_error"));
        let (status, _, body) = send(&mock, "/v1/messages", &request);
        assert_eq!(status, "HTTP/1.1 529 Overloaded");
        assert!(body.contains("overloaded_error"));
        let (status, _, body) = send(&mock, "/v1/messages", &request);
        assert_eq!(
            (status.as_str(), body.as_str()),
            ("HTTP/1.1 200 OK", "{\"raw\":true}")
        );
        let (_, _, body) = send(&mock, "/v1/messages", &request);
        assert!(body.contains("tool_use"), "queue drained: back to echo");

        mock.set_default(Reply::unauthorized());
        let (status, _, body) = send(&mock, "/v1/messages", &request);
        assert_eq!(status, "HTTP/1.1 401 Unauthorized");
        assert!(body.contains("authentication_error"));
        mock.set_default(Reply::server_error());
        let (status, _, _) = send(&mock, "/v1/messages", &request);
        assert_eq!(status, "HTTP/1.1 500 Internal Server Error");
        mock.set_default(Reply::openai_bad_request("bad model"));
        let (status, _, body) = send(&mock, "/v1/chat/completions", &openai_request(TRANSCRIPT));
        assert_eq!(status, "HTTP/1.1 400 Bad Request");
        let body: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(body["error"]["message"], "bad model");
        assert_eq!(mock.count(), 7);
    }

    #[test]
    fn malformed_replies_are_what_they_say() {
        let mock = Mock::start();
        let request = anthropic_request(TRANSCRIPT);

        mock.push(Reply::Garbage);
        let (status, _, body) = send(&mock, "/v1/messages", &request);
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(serde_json::from_str::<Value>(&body).is_err(), "{body}");

        mock.push(Reply::Truncated);
        let (status, headers, body) = send(&mock, "/v1/messages", &request);
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(
            headers.contains(&format!("Content-Length: {}", body.len())),
            "framing intact"
        );
        assert!(body.starts_with('{'), "{body}");
        assert!(serde_json::from_str::<Value>(&body).is_err(), "{body}");

        mock.push(Reply::Prose);
        let (_, _, body) = send(&mock, "/v1/messages", &request);
        let body: Value = serde_json::from_str(&body).expect("envelope is JSON");
        assert_eq!(body["content"][0]["type"], "text");

        mock.push(Reply::Drop);
        let (status, _, _) = send(&mock, "/v1/messages", &request);
        assert_eq!(status, "", "closed without an answer");

        let fenced = openai_completion("Sure:\n```json\n{\"facts\": []}\n```");
        let fenced: Value = serde_json::from_str(&fenced).expect("JSON");
        assert!(
            fenced["choices"][0]["message"]["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("Sure:\n```json"))
        );
        assert_eq!(mock.count(), 4);
    }

    #[test]
    fn hang_and_latency_delay_the_answer() {
        let mock = Mock::start();
        mock.push(Reply::Hang(Duration::from_millis(300)));
        let started = Instant::now();
        let (status, _, _) = send(&mock, "/v1/messages", &anthropic_request(TRANSCRIPT));
        assert_eq!(status, "");
        assert!(started.elapsed() >= Duration::from_millis(300));

        mock.set_latency(Duration::from_millis(200));
        let started = Instant::now();
        let (status, _, _) = send(&mock, "/v1/messages", &anthropic_request(TRANSCRIPT));
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(started.elapsed() >= Duration::from_millis(200));
    }

    #[test]
    fn rules_answer_matching_requests_before_the_queue_and_stay() {
        let mock = Mock::start();
        mock.when(
            |r| !r.json()["response_format"].is_null(),
            Reply::openai_bad_request("response_format is not supported"),
        );
        mock.when(|r| r.user_text().contains("tea"), Reply::server_error());
        mock.push(Reply::overloaded());
        let tools = json!({
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "nothing"}],
            "tools": [{"type": "function", "function": {"name": "record_facts", "parameters": {}}}],
        })
        .to_string();

        for _ in 0..2 {
            let (status, _, _) = send(&mock, "/v1/chat/completions", &openai_request(TRANSCRIPT));
            assert_eq!(status, "HTTP/1.1 400 Bad Request", "the first rule wins");
        }
        let (status, _, _) = send(&mock, "/v1/messages", &anthropic_request(TRANSCRIPT));
        assert_eq!(status, "HTTP/1.1 500 Internal Server Error");
        let (status, _, _) = send(&mock, "/v1/chat/completions", &tools);
        assert_eq!(
            status, "HTTP/1.1 529 Overloaded",
            "the queue was left alone"
        );
        let (status, _, _) = send(&mock, "/v1/chat/completions", &tools);
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(mock.count(), 5);
    }

    #[test]
    fn unknown_paths_are_404_and_do_not_consume_the_script() {
        let mock = Mock::start();
        mock.push(Reply::overloaded());
        let (status, _, _) = send(&mock, "/v1/complete", "{}");
        assert_eq!(status, "HTTP/1.1 404 Not Found");
        let (status, _, _) = send(&mock, "/v1/messages", &anthropic_request(TRANSCRIPT));
        assert_eq!(status, "HTTP/1.1 529 Overloaded");
        let paths: Vec<String> = mock.requests().into_iter().map(|r| r.path).collect();
        assert_eq!(paths, ["/v1/complete", "/v1/messages"]);
    }

    #[test]
    fn reads_a_chunked_body() {
        let mock = Mock::start();
        let body = anthropic_request(TRANSCRIPT);
        let (first, second) = body.split_at(body.len() / 2);
        let mut stream = TcpStream::connect(mock.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        let request = format!(
            "POST /v1/messages HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{first}\r\n{:x}\r\n{second}\r\n0\r\n\r\n",
            first.len(),
            second.len()
        );
        stream.write_all(request.as_bytes()).expect("send");
        let mut raw = String::new();
        let _ = stream.read_to_string(&mut raw);
        assert!(raw.starts_with("HTTP/1.1 200 OK"), "{raw}");
        assert_eq!(mock.requests()[0].body, body);
    }

    #[test]
    fn a_silent_client_does_not_stop_the_mock_from_serving_or_stopping() {
        let mock = Mock::start();
        let _idle = TcpStream::connect(mock.addr).expect("connect an idle client");
        mock.push(Reply::Hang(Duration::from_secs(60)));
        let mut hung = TcpStream::connect(mock.addr).expect("connect");
        let request = anthropic_request(TRANSCRIPT);
        let head = format!(
            "POST /v1/messages HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            request.len()
        );
        hung.write_all(head.as_bytes()).expect("send head");
        hung.write_all(request.as_bytes()).expect("send body");
        let deadline = Instant::now() + Duration::from_secs(5);
        while mock.count() == 0 && Instant::now() < deadline {
            thread::sleep(POLL);
        }
        let (status, _, _) = send(&mock, "/v1/messages", &request);
        assert_eq!(status, "HTTP/1.1 200 OK");
        let started = Instant::now();
        drop(mock);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "drop returns promptly"
        );
    }
}
