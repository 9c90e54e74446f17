//! One Claude Code session file (`~/.claude/projects/<encoded-cwd>/<session-id>.jsonl`), from
//! its bytes to the conversation the person had.
//!
//! Owns reading the JSON lines (one record each, a half-written last line left for the next
//! read), following the `parentUuid` chain to the active branch (rewound branches left out,
//! compactions and resumed files read through), and keeping only what the person typed and
//! the text Claude answered: hook output, command wrappers, reminders, tool traffic,
//! thinking, API errors and sidechains stay out. Pure: it never reads a file, never logs,
//! never turns a timestamp into local time and never decides whether a session is worth
//! extracting; discovery, scanning and the pipeline do that.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::marker::PhantomData;
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use regex::Regex;
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::transcript::{Role, Turn};

/// What a session file holds from byte `from` on, read as the conversation the person had.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Session {
    /// The working directory of the first record that carries one (`cwd`).
    pub cwd: Option<String>,
    /// The `sessionId` of the first record that carries one.
    pub session_id: Option<String>,
    /// The turns of the active branch whose records start at or after `from`, in
    /// conversation order; user turns are only what the person typed, assistant turns only
    /// text blocks.
    pub turns: Vec<SessionTurn>,
    /// The last assistant turn of the active branch before `from` (context for a
    /// continuation), if any.
    pub context: Option<Turn>,
    /// Byte offset just past the last record consumed: after the last '\n'-terminated line;
    /// an unterminated final line is consumed only if it parses as a complete JSON object
    /// (a file still being written ends with half a line: it is left for the next read).
    pub end: usize,
    /// What was left out and why (counts of records at or after `from`), for a `-v` line
    /// and tests.
    pub skipped: Skipped,
    /// Lines (1-based, counted from the start of the file) at or after `from` that are not
    /// a JSON record, other than an unterminated final line.
    pub bad_lines: Vec<usize>,
}

/// One turn of a session, with where it starts in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionTurn {
    /// The turn; `turn.time` stays `None`: the caller fills it from `timestamp` in local time.
    pub turn: Turn,
    /// Byte offset of the line of the turn's first record.
    pub offset: usize,
    /// The `timestamp` of the turn's first record, when it has a valid RFC 3339 one.
    pub timestamp: Option<DateTime<Utc>>,
    /// The `uuid` of the turn's first record: a session forked with `--fork-session`
    /// copies its records, uuids and all, into a new file.
    pub uuid: Option<String>,
}

/// How many records at or after `from` were left out, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    /// User records Claude Code wrote itself (`isMeta`): hook feedback, caveats, skill text.
    pub meta: usize,
    /// The model's summary written after a compaction (`isCompactSummary`).
    pub compact_summary: usize,
    /// Subagent records (`isSidechain`).
    pub sidechain: usize,
    /// Tool results, and assistant records that hold tool calls but no text.
    pub tool: usize,
    /// User records that were nothing but command wrappers, command output or reminders.
    pub wrapped: usize,
    /// User records that were nothing but "[Request interrupted by user…]".
    pub interrupted: usize,
    /// Prompts a program sent through `claude -p` or the SDK (`entrypoint: sdk-…`,
    /// `promptSource: sdk`): no one typed them at the keyboard.
    pub scripted: usize,
    /// API errors and other `<synthetic>` assistant records.
    pub api_error: usize,
    /// Records with nothing to keep otherwise: an image alone, blank text, thinking alone.
    pub no_text: usize,
    /// User or assistant text on a branch the person rewound away from.
    pub rewound: usize,
    /// Records that are not messages: system, progress, snapshots, summaries, unknown types.
    pub other: usize,
}

impl Skipped {
    /// All records left out.
    #[must_use]
    pub fn total(&self) -> usize {
        self.counts().iter().map(|(_, n)| n).sum()
    }

    fn counts(&self) -> [(&'static str, usize); 11] {
        [
            ("meta", self.meta),
            ("compact summary", self.compact_summary),
            ("sidechain", self.sidechain),
            ("tool", self.tool),
            ("wrapped", self.wrapped),
            ("interrupted", self.interrupted),
            ("scripted", self.scripted),
            ("api error", self.api_error),
            ("no text", self.no_text),
            ("rewound", self.rewound),
            ("other", self.other),
        ]
    }

    fn count(&mut self, reason: Reason) {
        let n = match reason {
            Reason::Meta => &mut self.meta,
            Reason::CompactSummary => &mut self.compact_summary,
            Reason::Sidechain => &mut self.sidechain,
            Reason::Tool => &mut self.tool,
            Reason::Wrapped => &mut self.wrapped,
            Reason::Interrupted => &mut self.interrupted,
            Reason::Scripted => &mut self.scripted,
            Reason::ApiError => &mut self.api_error,
            Reason::NoText => &mut self.no_text,
            Reason::Other => &mut self.other,
        };
        *n += 1;
    }
}

/// The non-zero counts, as `tool 3, meta 1`, or `nothing`.
impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (name, n) in self.counts() {
            if n > 0 {
                if !first {
                    f.write_str(", ")?;
                }
                write!(f, "{name} {n}")?;
                first = false;
            }
        }
        if first {
            f.write_str("nothing")?;
        }
        Ok(())
    }
}

/// Why a record yields no turn (rewinds are decided later, from the chain).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    Meta,
    CompactSummary,
    Sidechain,
    Tool,
    Wrapped,
    Interrupted,
    Scripted,
    ApiError,
    NoText,
    Other,
}

/// What one record contributes to the conversation.
#[derive(Debug)]
enum Class {
    /// Text the person typed.
    Typed(String),
    /// Text Claude answered.
    Answer(String),
    Skip(Reason),
}

/// One consumed line, reduced to what the chain walk and the turns need.
#[derive(Debug)]
struct Record {
    offset: usize,
    uuid: Option<String>,
    /// `parentUuid`, else `logicalParentUuid` (a compaction boundary's link across it).
    parent: Option<String>,
    sidechain: bool,
    timestamp: Option<DateTime<Utc>>,
    class: Class,
}

/// Reads `bytes` (a whole session file) as the conversation from byte `from` on.
///
/// The whole file is read so that the active branch and the `context` are known; only
/// turns, counts and bad lines from `from` on are reported. A `from` past the end or inside
/// a line is moved to the next line start. Never panics, whatever the bytes.
#[must_use]
pub fn parse(bytes: &[u8], from: usize) -> Session {
    let from = next_line_start(bytes, from);
    let mut session = Session::default();
    let mut records = Vec::new();
    let mut offset = 0;
    let mut line_no = 0;
    while offset < bytes.len() {
        line_no += 1;
        let (line, next, terminated) = match bytes[offset..].iter().position(|b| *b == b'\n') {
            Some(i) => (&bytes[offset..offset + i], offset + i + 1, true),
            None => (&bytes[offset..], bytes.len(), false),
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            if terminated {
                session.end = next;
            }
        } else if let Some((raw, fields)) = read_line(line) {
            session.end = next;
            session.cwd = session.cwd.or(fields.cwd);
            session.session_id = session.session_id.or(fields.session_id);
            records.push(Record { offset, ..raw });
        } else if terminated {
            session.end = next;
            if offset >= from {
                session.bad_lines.push(line_no);
            }
        }
        offset = next;
    }
    session.end = session.end.max(from);

    let branch = active_branch(&records);
    let mut on_branch = vec![false; records.len()];
    for &i in &branch {
        on_branch[i] = true;
    }
    let visited: HashSet<&str> = branch
        .iter()
        .filter_map(|&i| records[i].uuid.as_deref())
        .collect();
    for (i, record) in records.iter().enumerate() {
        if record.offset < from {
            continue;
        }
        match (&record.class, on_branch[i]) {
            (Class::Skip(reason), _) => session.skipped.count(*reason),
            (_, true) => {}
            // A second copy of a record that is on the branch is no rewind.
            (_, false) if record.uuid.as_deref().is_some_and(|u| visited.contains(u)) => {}
            (_, false) => session.skipped.rewound += 1,
        }
    }

    let (before, after): (Vec<&Record>, Vec<&Record>) = branch
        .iter()
        .map(|&i| &records[i])
        .partition(|r| r.offset < from);
    session.context = group(before)
        .into_iter()
        .rev()
        .find(|t| t.turn.role == Role::Assistant)
        .map(|t| t.turn);
    session.turns = group(after);
    session
}

/// `from`, or the start of the line after it when it falls inside a line; at most the length.
fn next_line_start(bytes: &[u8], from: usize) -> usize {
    if from == 0 {
        return 0;
    }
    if from >= bytes.len() {
        return bytes.len();
    }
    if bytes[from - 1] == b'\n' {
        return from;
    }
    bytes[from..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(bytes.len(), |i| from + i + 1)
}

/// The fields read once per file rather than per record.
struct FileFields {
    cwd: Option<String>,
    session_id: Option<String>,
}

/// Whether a line is a whole record (what the scan's `project::records_end` asks of a
/// session's unterminated last line, so that both stop at the same byte).
#[must_use]
pub fn is_record(line: &[u8]) -> bool {
    read_line(line).is_some()
}

/// A line as a record, or `None` when it is not a JSON record. A line that is not UTF-8 is
/// read again lossily, so one bad byte in a tool result costs nothing.
fn read_line(line: &[u8]) -> Option<(Record, FileFields)> {
    match serde_json::from_slice::<RawRecord>(line) {
        Ok(raw) => Some(reduce(raw)),
        Err(_) if std::str::from_utf8(line).is_err() => {
            let text = String::from_utf8_lossy(line);
            serde_json::from_str::<RawRecord>(&text).ok().map(reduce)
        }
        Err(_) => None,
    }
}

fn reduce(raw: RawRecord<'_>) -> (Record, FileFields) {
    let class = classify(&raw);
    let record = Record {
        offset: 0,
        uuid: raw.uuid.map(Cow::into_owned),
        parent: raw
            .parent_uuid
            .or(raw.logical_parent_uuid)
            .map(Cow::into_owned),
        sidechain: raw.is_sidechain == Some(true),
        timestamp: raw
            .timestamp
            .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
            .map(|t| t.with_timezone(&Utc)),
        class,
    };
    let fields = FileFields {
        cwd: raw.cwd.map(Cow::into_owned),
        session_id: raw.session_id.map(Cow::into_owned),
    };
    (record, fields)
}

fn classify(raw: &RawRecord<'_>) -> Class {
    let is = |flag: Option<bool>| flag == Some(true);
    let kind = raw.kind.as_deref();
    if !matches!(kind, Some("user" | "assistant")) {
        return Class::Skip(Reason::Other);
    }
    if is(raw.is_sidechain) {
        return Class::Skip(Reason::Sidechain);
    }
    let content = raw.message.as_ref().and_then(|m| m.content.as_ref());
    if kind == Some("user") {
        if is(raw.is_compact_summary) {
            return Class::Skip(Reason::CompactSummary);
        }
        if is(raw.is_meta) || is(raw.is_visible_in_transcript_only) {
            return Class::Skip(Reason::Meta);
        }
        if raw
            .entrypoint
            .as_deref()
            .is_some_and(|e| e.starts_with("sdk"))
            || raw.prompt_source.as_deref() == Some("sdk")
        {
            return Class::Skip(Reason::Scripted);
        }
        let has_tool_result = matches!(content, Some(RawContent::Blocks(blocks))
            if blocks.iter().any(|b| b.kind.as_deref() == Some("tool_result")));
        if raw.tool_use_result.is_some() || has_tool_result {
            return Class::Skip(Reason::Tool);
        }
        return match typed_text(&texts(content).join("\n\n")) {
            Ok(text) => Class::Typed(text),
            Err(reason) => Class::Skip(reason),
        };
    }
    let model = raw.message.as_ref().and_then(|m| m.model.as_deref());
    if is(raw.is_api_error_message) || model == Some("<synthetic>") {
        return Class::Skip(Reason::ApiError);
    }
    let text = texts(content)
        .iter()
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    if !text.is_empty() {
        return Class::Answer(text);
    }
    let has_tool_use = matches!(content, Some(RawContent::Blocks(blocks))
        if blocks.iter().any(|b| b.kind.as_deref() == Some("tool_use")));
    Class::Skip(if has_tool_use {
        Reason::Tool
    } else {
        Reason::NoText
    })
}

/// The text of a message's content: the string itself, or its `text` blocks (images,
/// thinking, tool calls and every other block left out).
fn texts<'a>(content: Option<&'a RawContent<'_>>) -> Vec<&'a str> {
    match content {
        Some(RawContent::Text(text)) => vec![text],
        Some(RawContent::Blocks(blocks)) => blocks
            .iter()
            .filter(|b| b.kind.as_deref() == Some("text"))
            .filter_map(|b| b.text.as_deref())
            .collect(),
        Some(RawContent::Other) | None => Vec::new(),
    }
}

/// The tags Claude Code wraps around text the person did not type: slash commands and
/// their output, `!` shell commands and their output, hook output and reminders.
const WRAPPER_TAGS: [&str; 12] = [
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "system-reminder",
    "task-notification",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "user-prompt-submit-hook",
];

static WRAPPED: LazyLock<Regex> = LazyLock::new(|| {
    // Only closed spans: Claude Code always closes its tags, and a lone `<bash-input>` is
    // more likely the person writing about one than a wrapper to drop the rest of the text for.
    let spans: Vec<String> = WRAPPER_TAGS
        .iter()
        .map(|tag| format!("<{tag}>(?s:.*?)</{tag}>"))
        .collect();
    Regex::new(&spans.join("|")).expect("wrapper regex is valid")
});

static INTERRUPTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*\[Request interrupted by user[^\n]*$")
        .expect("interrupt regex is valid")
});

/// Claude Code's own test for a user text that is not a prompt the person typed (its
/// `Occ`, Claude Code 2.1.197): one that starts with a lowercase tag, which covers the
/// wrappers of messages from teammates, channels, other sessions and agents that this
/// list does not name.
static NOT_A_PROMPT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*<[a-z][\w-]*[\s>]").expect("tag regex is valid"));

/// Blank lines left behind where a wrapped span was removed.
static BLANK_RUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\n[ \t]*\n(?:[ \t]*\n)+").expect("blank run regex is valid"));

/// What the person typed in a user text, or why nothing of it is kept.
fn typed_text(raw: &str) -> Result<String, Reason> {
    let unwrapped = WRAPPED.replace_all(raw, "");
    let wrapped = matches!(unwrapped, Cow::Owned(_));
    let kept = INTERRUPTED.replace_all(&unwrapped, "");
    let interrupted = matches!(kept, Cow::Owned(_));
    let text = kept.trim();
    if NOT_A_PROMPT.is_match(text) {
        return Err(Reason::Wrapped);
    }
    if text.is_empty() {
        return Err(if interrupted {
            Reason::Interrupted
        } else if wrapped {
            Reason::Wrapped
        } else {
            Reason::NoText
        });
    }
    if wrapped || interrupted {
        Ok(BLANK_RUN.replace_all(text, "\n\n").into_owned())
    } else {
        Ok(text.to_owned())
    }
}

/// The records of the active branch, as indices into `records` in conversation order.
///
/// Walks `parentUuid` back from the last non-sidechain record. At a root (or a parent that
/// is not in the file, or a cycle) it goes on from the last unvisited record before that
/// root in file order, so a resumed or disconnected file reads as one conversation; records
/// never reached were rewound. Iterative, with a visited set: no chain is too deep or loops.
fn active_branch(records: &[Record]) -> Vec<usize> {
    let mut by_uuid: HashMap<&str, usize> = HashMap::new();
    for (i, record) in records.iter().enumerate() {
        if let Some(uuid) = &record.uuid {
            by_uuid.entry(uuid).or_insert(i);
        }
    }
    let mut visited: HashSet<&str> = HashSet::new();
    let mut order = Vec::new();
    // Only ever moves down, so finding the next place to start costs O(n) in all.
    let mut cursor = records.len();
    loop {
        while cursor > 0 {
            let record = &records[cursor - 1];
            match &record.uuid {
                Some(uuid) if !record.sidechain && !visited.contains(uuid.as_str()) => break,
                _ => cursor -= 1,
            }
        }
        if cursor == 0 {
            break;
        }
        let mut current = cursor - 1;
        let mut root = current;
        while let Some(uuid) = records[current].uuid.as_deref()
            && visited.insert(uuid)
        {
            order.push(current);
            root = current;
            match records[current]
                .parent
                .as_deref()
                .and_then(|p| by_uuid.get(p))
            {
                Some(&parent) => current = parent,
                None => break,
            }
        }
        cursor = cursor.min(root);
    }
    order.reverse();
    order
}

/// Turns from branch records in conversation order: each typed text is its own turn (the
/// person sent them one by one); answers with no typed text between them (tool calls,
/// hook output, one message split over lines) are one assistant turn, joined by a blank line.
fn group(records: Vec<&Record>) -> Vec<SessionTurn> {
    let mut turns: Vec<SessionTurn> = Vec::new();
    for record in records {
        let (role, text) = match &record.class {
            Class::Typed(text) => (Role::User, text),
            Class::Answer(text) => (Role::Assistant, text),
            Class::Skip(_) => continue,
        };
        if role == Role::Assistant
            && let Some(last) = turns.last_mut()
            && last.turn.role == Role::Assistant
        {
            last.turn.text.push_str("\n\n");
            last.turn.text.push_str(text);
            continue;
        }
        turns.push(SessionTurn {
            turn: Turn::new(role, None, text.clone()),
            offset: record.offset,
            timestamp: record.timestamp,
            uuid: record.uuid.clone(),
        });
    }
    turns
}

/// The fields of a record line that memloop reads; everything else (`toolUseResult`'s
/// body, `snapshot`, `data`, usage) is skipped by the deserializer without being built.
#[derive(Deserialize)]
struct RawRecord<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    uuid: Option<Cow<'a, str>>,
    #[serde(rename = "parentUuid", borrow)]
    parent_uuid: Option<Cow<'a, str>>,
    #[serde(rename = "logicalParentUuid", borrow)]
    logical_parent_uuid: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain")]
    is_sidechain: Option<bool>,
    #[serde(rename = "isMeta")]
    is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: Option<bool>,
    #[serde(rename = "isApiErrorMessage")]
    is_api_error_message: Option<bool>,
    #[serde(rename = "isVisibleInTranscriptOnly")]
    is_visible_in_transcript_only: Option<bool>,
    /// `cli` for a session at the keyboard, `sdk-cli` / `sdk-ts` / `sdk-py` for one a
    /// program drives (Claude Code 2.1.197).
    #[serde(borrow)]
    entrypoint: Option<Cow<'a, str>>,
    /// `typed`, or `sdk` for a prompt a program sent.
    #[serde(rename = "promptSource", borrow)]
    prompt_source: Option<Cow<'a, str>>,
    #[serde(rename = "toolUseResult")]
    tool_use_result: Option<IgnoredAny>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<RawMessage<'a>>,
}

#[derive(Deserialize)]
struct RawMessage<'a> {
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Option<RawContent<'a>>,
}

/// `message.content`: a string or a list of blocks. Read by hand rather than as an
/// untagged enum, which would buffer a whole tool result before choosing.
enum RawContent<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<RawBlock<'a>>),
    /// Any other shape, ignored.
    Other,
}

#[derive(Deserialize)]
struct RawBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for RawContent<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ContentVisitor(PhantomData))
    }
}

struct ContentVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ContentVisitor<'a> {
    type Value = RawContent<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or a list of content blocks")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(RawContent::Text(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(RawContent::Text(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(RawContent::Text(Cow::Owned(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut blocks = Vec::new();
        while let Some(block) = seq.next_element::<RawBlock<'a>>()? {
            blocks.push(block);
        }
        Ok(RawContent::Blocks(blocks))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(RawContent::Other)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(RawContent::Other)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(RawContent::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(RawContent::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(RawContent::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(RawContent::Other)
    }
}

#[cfg(test)]
mod tests;
