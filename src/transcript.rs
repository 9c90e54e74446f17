//! Memory Loop transcripts, from the bytes on disk to the text a model is sent.
//!
//! Owns decoding (BOM, NUL and UTF-8 checks), parsing (YAML frontmatter, `## [HH:MM] User`
//! turns, tool-call blockquotes, memloop's own insights block), noise trimming, rendering
//! and chunking to a token budget. Everything here is pure: it never reads a file, never
//! logs, and never decides whether a transcript is worth extracting; the caller does that.

use std::borrow::Cow;
use std::fmt;
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use crate::fence;

/// Fenced code blocks and log runs longer than this many lines are shortened by [`trim_noise`].
const NOISE_MAX_LINES: usize = 40;
/// Lines kept from the start of a shortened block.
const NOISE_HEAD: usize = 15;
/// Lines kept from the end of a shortened block.
const NOISE_TAIL: usize = 5;

/// Why a file's bytes are not a transcript's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// NUL bytes in a file that is not UTF-8, or so many of them that the file is not text
    /// (an image, a database, UTF-16): none of which Memory Loop writes.
    #[error("binary file (contains NUL bytes)")]
    Binary,
    /// Invalid UTF-8; `offset` counts bytes from the start of the file, BOM included.
    #[error("not valid UTF-8 at byte {offset}")]
    NotUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
}

/// A transcript's text as decoded by [`decode`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded<'a> {
    /// The text, without a UTF-8 BOM and without NUL characters.
    pub text: Cow<'a, str>,
    /// How many NUL characters were removed: Memory Loop writes a message's `\u0000` as is.
    pub nuls: usize,
    /// How many invalid UTF-8 sequences were read as U+FFFD (a byte damaged on disk or in a
    /// copy); too many of them make the file not UTF-8 (see [`decode`]).
    pub replaced: usize,
}

/// Up to one invalid UTF-8 sequence per this many bytes is damage in a UTF-8 file, read
/// with U+FFFD in its place; more (any in a shorter file) is another encoding.
const BYTES_PER_REPLACEMENT: usize = 4096;

impl Decoded<'_> {
    /// Nothing but whitespace (or nothing at all): Memory Loop leaves such files behind,
    /// and there is nothing in them to extract.
    #[must_use]
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

/// Checks that `bytes` are a text file and returns its text without a UTF-8 BOM and
/// without NUL characters (see [`Decoded`]); a blank file is text too.
///
/// A NUL is valid UTF-8, and Memory Loop writes one when a message (or the title taken
/// from it) holds `\u0000`, so NULs in UTF-8 text are removed. They make a file binary
/// when it is not UTF-8, when one sits on its first line (Memory Loop's first line is
/// always `---`; UTF-16 without a BOM and data files have theirs there), or when they make
/// up more than a quarter of it.
///
/// # Errors
///
/// [`DecodeError::Binary`] or [`DecodeError::NotUtf8`] (at the first invalid byte).
/// A few invalid sequences in a long UTF-8 file are damage, not another encoding: they are
/// read as U+FFFD and counted (`replaced`), so one bad byte does not lose a whole chat.
pub fn decode(bytes: &[u8]) -> Result<Decoded<'_>, DecodeError> {
    let (bom_len, body) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (3, rest),
        None => (0, bytes),
    };
    let nuls = body.iter().filter(|b| **b == 0).count();
    let text = match std::str::from_utf8(body) {
        Ok(text) => text,
        Err(_) if nuls > 0 => return Err(DecodeError::Binary),
        Err(e) => {
            let replaced = body
                .utf8_chunks()
                .filter(|c| !c.invalid().is_empty())
                .count();
            if replaced > body.len() / BYTES_PER_REPLACEMENT {
                return Err(DecodeError::NotUtf8 {
                    offset: bom_len + e.valid_up_to(),
                });
            }
            return Ok(Decoded {
                text: String::from_utf8_lossy(body),
                nuls,
                replaced,
            });
        }
    };
    if nuls == 0 {
        return Ok(Decoded {
            text: Cow::Borrowed(text),
            nuls,
            replaced: 0,
        });
    }
    let clean: String = text.chars().filter(|c| *c != '\0').collect();
    let first_line = text.split('\n').next().unwrap_or_default();
    if !clean.trim().is_empty() && (first_line.contains('\0') || nuls * 4 > body.len()) {
        return Err(DecodeError::Binary);
    }
    Ok(Decoded {
        text: Cow::Owned(clean),
        nuls,
        replaced: 0,
    })
}

/// The frontmatter fields memloop uses; every one is optional and other keys are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Meta {
    /// The chat's date as written (`2025-01-15`).
    pub date: Option<String>,
    /// The chat's start time as written (`14:30`).
    pub time: Option<String>,
    /// Memory Loop's session id.
    pub session_id: Option<String>,
    /// The chat's title, usually its first user line.
    pub title: Option<String>,
}

/// Who wrote a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The person.
    User,
    /// Claude.
    Assistant,
}

impl Role {
    /// The word used in turn headings.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "User",
            Role::Assistant => "Assistant",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One message of a chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// Who wrote it.
    pub role: Role,
    /// The `HH:MM` from its heading, as written; `None` when the heading had none.
    pub time: Option<String>,
    /// Its text, trimmed, without tool-call blockquotes or memloop's insights block.
    pub text: String,
    /// Why its `## User` heading may be text the assistant wrote rather than a message the
    /// person sent; `None` for every turn whose heading Memory Loop's framing vouches for.
    pub doubt: Option<Doubt>,
}

impl Turn {
    /// A turn nothing casts doubt on.
    #[must_use]
    pub fn new(role: Role, time: Option<String>, text: String) -> Self {
        Self {
            role,
            time,
            text,
            doubt: None,
        }
    }
}

/// Why a user turn's heading may not be a message boundary (see [`parse`]).
///
/// Memory Loop writes an assistant message raw, so the assistant (steered by a page it
/// fetched) can write a line `## [10:03] User` that reads like the next message. Such a
/// heading cannot be told from a real one by its bytes; these are the tells it leaves.
/// Facts quoted only from a doubted turn wait for `memloop memory review`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Doubt {
    /// No assistant message follows it: Memory Loop answers every message it sends, so a
    /// heading with none after it may sit inside the assistant message before it.
    Unanswered,
    /// Its time is earlier than the heading before it (by less than the twelve hours that
    /// would make it the next day).
    OutOfOrder,
    /// It has no time where the heading before it has one; Memory Loop always writes one.
    Untimed,
}

impl Doubt {
    /// What the doubt means, for a report.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Doubt::Unanswered => "no answer follows it",
            Doubt::OutOfOrder => "its time is earlier than the message before it",
            Doubt::Untimed => "its heading has no time",
        }
    }
}

/// A parsed transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    /// What the frontmatter said; all `None` without frontmatter.
    pub meta: Meta,
    /// The turns in file order.
    pub turns: Vec<Turn>,
    /// Why the frontmatter could not be read, for the caller to log; the turns are still good.
    pub meta_error: Option<String>,
}

static TURN_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^## +(?:\[(\d{1,2}:\d{2}(?::\d{2})?)\] +)?(User|Assistant)$")
        .expect("turn heading regex is valid")
});

static DISCUSSION_HEADING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^# Discussion\b").expect("discussion regex is valid"));

static TOOL_CALL: LazyLock<Regex> =
    // Any indentation: a turn's text is trimmed, so an indented tool call that was kept
    // would start the text and be dropped when the rendered turn is read again.
    LazyLock::new(|| Regex::new(r"^\s*> ?\*\*Tool:\*\*").expect("tool regex is valid"));

/// The last line of a tool call as Memory Loop writes it: complete (`✓`) or not (`…`).
static TOOL_STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ {0,3}> ?(?:✓|…)(?: Found \d+ files)?\s*$").expect("tool status regex is valid")
});

static LOG_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?x)
        ^\s*(?:
            \[?\d{4}-\d{2}-\d{2}[T\ ]\d{2}:\d{2}
          | \[?\d{2}:\d{2}:\d{2}
          | [A-Z][a-z]{2}\ [\ \d]\d\ \d{2}:\d{2}:\d{2}
          | \[?(?:ERROR|ERR|WARN|WARNING|INFO|DEBUG|TRACE|FATAL|CRITICAL|NOTICE)\b
          | Traceback\ \(most\ recent\ call\ last\)
          | File\ "[^"]*",\ line\ \d+
          | Caused\ by:
          | \.\.\.\ \d+\ more
          | \d+:\s+\S+::
          | (?:0x)?[0-9a-fA-F]{6,}:?\ +(?:[0-9a-fA-F]{2,4}\ +){3,}
        )
        | ^\s+at\ \S
        | [0-9a-fA-F]{32,}
        "#,
    )
    .expect("log line regex is valid")
});

/// Tracks whether lines are inside a fenced code block (backticks or tildes), as Markdown
/// defines it but at any indentation, since chat answers indent fences inside list items.
#[derive(Debug, Default)]
struct Fence {
    open: Option<(char, usize)>,
}

impl Fence {
    /// Feeds the next line; true when that line belongs to a code block, its fences included.
    fn feed(&mut self, line: &str) -> bool {
        let marker = fence_marker(line);
        match self.open {
            Some((ch, len)) => {
                if let Some((c, n, rest)) = marker
                    && c == ch
                    && n >= len
                    && rest.trim().is_empty()
                {
                    self.open = None;
                }
                true
            }
            None => match marker {
                Some(('`', _, rest)) if rest.contains('`') => false,
                Some((c, n, _)) => {
                    self.open = Some((c, n));
                    true
                }
                None => false,
            },
        }
    }

    fn is_open(&self) -> bool {
        self.open.is_some()
    }
}

/// The fence character, its run length and the rest of the line, when `line` is a fence.
fn fence_marker(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start();
    let ch = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = t.len() - t.trim_start_matches(ch).len();
    (len >= 3).then(|| (ch, len, &t[len..]))
}

/// Parses a transcript's text; never fails (see [`Transcript::meta_error`]).
///
/// Memory Loop appends each message as a `## [HH:MM] User` or `## [HH:MM] Assistant`
/// heading and the message raw, so a heading can also be text inside a message. What
/// decides which it is:
/// - a tool call at the start of an assistant message runs to its status line (`> ✓`),
///   whatever its inputs hold (a heredoc with a heading in it): it is never a turn;
/// - a heading inside a fenced code block is text, except that an `Assistant` heading ends
///   a code block the person left open in their message (Memory Loop shows each message on
///   its own, so their fence never reaches into the answer);
/// - a `User` heading after the assistant's words that no answer follows, whose time goes
///   back, or that has no time, is kept but marked with a [`Doubt`];
/// - memloop's own insights block is removed within a turn, never across turns.
#[must_use]
pub fn parse(text: &str) -> Transcript {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = strip_insights(text);
    // Trailing CRs are stripped one by one, not as CRLF pairs, so that a stray "\r\r\n"
    // parses the same after a render as before it.
    let lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let (meta, meta_error, body) = split_frontmatter(&lines);

    let mut fence = Fence::default();
    let mut preamble: Vec<&str> = Vec::new();
    let mut headed: Vec<(Role, Option<String>, Vec<&str>)> = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let line = body[i];
        let kept = headed.last().map_or(&preamble, |(_, _, lines)| lines);
        let role = headed.last().map(|(role, _, _)| *role);
        if !fence.is_open() && TOOL_CALL.is_match(line) {
            let end = match role {
                Some(Role::Assistant) if kept.iter().all(|l| l.trim().is_empty()) => {
                    app_tool_block(body, i)
                }
                // After the assistant's first words, a `> **Tool:**` line is its own prose:
                // Memory Loop writes tool calls before the message's text, never after.
                Some(Role::Assistant) => None,
                // Memory Loop never writes a tool call in a user turn: a tool-call blockquote
                // there was pasted, and is dropped whole, never sent as the user's words. It
                // ends before the next heading: a paste never swallows the answer.
                _ => Some(pasted_tool_block(body, i)),
            };
            if let Some(end) = end {
                // Avoid leaving two blank lines where the blockquote was.
                let after_blank = kept.last().is_none_or(|l| l.trim().is_empty());
                i = end;
                if after_blank && body.get(i).is_some_and(|l| l.trim().is_empty()) {
                    i += 1;
                }
                continue;
            }
        }
        i += 1;
        // The person's unclosed code block ends where the answer begins.
        if fence.is_open()
            && role != Some(Role::Assistant)
            && matches!(turn_heading(line), Some((Role::Assistant, _)))
        {
            fence = Fence::default();
        }
        let in_code = fence.feed(line);
        if !in_code && let Some((role, time)) = turn_heading(line) {
            headed.push((role, time, Vec::new()));
            continue;
        }
        match headed.last_mut() {
            Some((_, _, turn_lines)) => turn_lines.push(line),
            None if !in_code && DISCUSSION_HEADING.is_match(line) => {}
            None => preamble.push(line),
        }
    }

    let mut turns = Vec::with_capacity(headed.len() + 1);
    let preamble = turn_text(&preamble);
    if !preamble.is_empty() {
        turns.push(Turn::new(Role::User, None, preamble));
    }
    turns.extend(
        headed
            .into_iter()
            .map(|(role, time, lines)| Turn::new(role, time, turn_text(&lines))),
    );
    doubt(&mut turns);
    Transcript {
        meta,
        turns,
        meta_error,
    }
}

/// Marks the user turns whose heading may be the assistant's text (see [`Doubt`]): those
/// that follow an assistant turn, or a turn already in doubt.
fn doubt(turns: &mut [Turn]) {
    let mut last_time: Option<u32> = None;
    for i in 0..turns.len() {
        let time = turns[i].time.as_deref().and_then(minutes);
        let after_words =
            i > 0 && (turns[i - 1].role == Role::Assistant || turns[i - 1].doubt.is_some());
        if turns[i].role == Role::User && after_words {
            let answered = turns.get(i + 1).is_some_and(|t| t.role == Role::Assistant);
            turns[i].doubt = if !answered {
                Some(Doubt::Unanswered)
            } else {
                match (last_time, time) {
                    (Some(_), None) => Some(Doubt::Untimed),
                    // Back by twelve hours or more reads as the next day.
                    (Some(before), Some(now)) if now < before && before - now < 12 * 60 => {
                        Some(Doubt::OutOfOrder)
                    }
                    _ => None,
                }
            };
        }
        if time.is_some() {
            last_time = time;
        }
    }
}

/// `H:MM` or `HH:MM` (with or without seconds) as minutes after midnight.
fn minutes(time: &str) -> Option<u32> {
    let mut parts = time.split(':');
    let h: u32 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    (h < 24 && m < 60).then_some(h * 60 + m)
}

/// A heading in the shape of a turn's that Memory Loop does not write: a time (however
/// written) before any name but `User` (`## [10:01] assistant`, `## [10:01] Claude`,
/// `## 10:01 AM Assistant`, `##[10:1] System`), or a name for the assistant, a system
/// or a tool without a time (`## ASSISTANT`, `## Assistant:`). Such a line starts a turn
/// that is not the person's: what follows it must not be read as their words.
static OTHER_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^##[ \t]*(?:\[?[ \t]*\d{1,2}:\d{1,2}(?::\d{1,2})?(?:[ \t]*[AaPp]\.?[Mm]\.?)?[ \t]*\]?",
        r"[ \t]*(?:[-:|][ \t]*)?(?:[^\sU]|U[^s]|Us[^e]|Use[^r]|User\S)",
        r"|[ \t]+(?i:assistant|claude|system|tool)\b)",
    ))
    .expect("other heading regex is valid")
});

fn turn_heading(line: &str) -> Option<(Role, Option<String>)> {
    if !line.starts_with("##") {
        return None;
    }
    let Some(caps) = TURN_HEADING.captures(line.trim_end()) else {
        return OTHER_HEADING
            .is_match(line)
            .then_some((Role::Assistant, None));
    };
    let role = if &caps[2] == "User" {
        Role::User
    } else {
        Role::Assistant
    };
    Some((role, caps.get(1).map(|m| m.as_str().to_owned())))
}

/// Splits off the frontmatter: its meta, why it could not be read, and the body lines.
fn split_frontmatter<'a, 'b>(lines: &'b [&'a str]) -> (Meta, Option<String>, &'b [&'a str]) {
    if lines.first().is_none_or(|l| l.trim_end() != "---") {
        return (Meta::default(), None, lines);
    }
    let Some(close) = lines
        .iter()
        .skip(1)
        .position(|l| matches!(l.trim_end(), "---" | "..."))
        .map(|i| i + 1)
    else {
        let why = "frontmatter has no closing `---` line; read as text".to_owned();
        return (Meta::default(), Some(why), lines);
    };
    let yaml = lines[1..close].join("\n");
    let body = &lines[close + 1..];
    match serde_saphyr::from_str::<Option<Meta>>(&yaml) {
        Ok(meta) => (meta.map(normalise_meta).unwrap_or_default(), None, body),
        Err(e) => {
            let meta = normalise_meta(meta_by_lines(&lines[1..close]));
            let read = match &meta.date {
                Some(_) => "its fields were read line by line, as Memory Loop reads them",
                None => "read line by line, as Memory Loop reads it, it has no date either",
            };
            (
                meta,
                Some(format!("{}; {read}", describe_yaml_error(&e))),
                body,
            )
        }
    }
}

/// The frontmatter fields read the way Memory Loop's own reader does
/// (`parseTranscriptContent`): each line split at its first `:`, the value trimmed and
/// stripped of one pair of surrounding quotes. Memory Loop escapes only `"` in the titles it
/// writes (so a title with a `\` is not valid YAML); that escape is undone here.
fn meta_by_lines(lines: &[&str]) -> Meta {
    let mut meta = Meta::default();
    for line in lines {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let unquoted = [('"', '"'), ('\'', '\'')].iter().find_map(|(open, close)| {
            value
                .strip_prefix(*open)
                .and_then(|v| v.strip_suffix(*close))
        });
        let value = match unquoted {
            Some(v) if value.starts_with('"') => v.replace("\\\"", "\""),
            Some(v) => v.to_owned(),
            None => value.to_owned(),
        };
        let field = match key.trim() {
            "date" => &mut meta.date,
            "time" => &mut meta.time,
            "session_id" => &mut meta.session_id,
            "title" => &mut meta.title,
            _ => continue,
        };
        *field = Some(value);
    }
    meta
}

fn normalise_meta(meta: Meta) -> Meta {
    let clean = |v: Option<String>| {
        v.map(|s| s.trim().to_owned())
            .filter(|s: &String| !s.is_empty())
    };
    Meta {
        date: clean(meta.date),
        time: clean(meta.time),
        session_id: clean(meta.session_id),
        title: clean(meta.title),
    }
}

/// One line naming the file line (the YAML starts on line 2) and saphyr's reason.
fn describe_yaml_error(e: &serde_saphyr::Error) -> String {
    static PREFIX: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:error: )?(?:line \d+ column \d+: )?").expect("prefix regex is valid")
    });
    let shown = e.to_string();
    let first = shown.lines().next().unwrap_or_default();
    let reason = PREFIX.replace(first, "");
    match e.location() {
        Some(loc) => format!(
            "malformed frontmatter at line {} column {}: {reason}",
            loc.line() + 1,
            loc.column()
        ),
        None => format!("malformed frontmatter: {reason}"),
    }
}

/// Where the tool call that starts at `lines[start]` ends (the index after it), when it has
/// the shape Memory Loop writes (`formatToolInvocation` in its transcript manager): the
/// `> **Tool:** NAME` line, the inputs it shows (`> Pattern:`, `> File:`, `> Command:`),
/// each written raw, so that a multi-line command (a heredoc, `\` continuations, SQL) runs
/// on over lines without `>`, then a `> ✓` (or `> …`) status line, perhaps with
/// ` Found N files`. `None` without a status line.
///
/// Headings inside do not end it: an input may hold any line, `## [10:03] User` included.
/// Memory Loop cuts a command to 80 characters, so the status line after a command is the
/// last one within that reach: a status line the command itself holds comes before it.
fn app_tool_block(lines: &[&str], start: usize) -> Option<usize> {
    // Characters of the command read so far, once its line is reached.
    let mut command: Option<usize> = None;
    let mut last_in_reach = None;
    for (j, line) in lines.iter().enumerate().skip(start + 1) {
        let in_reach = command.is_some_and(|read| read <= COMMAND_REACH);
        if TOOL_STATUS.is_match(line) {
            if !in_reach {
                // Past the command's reach (or with no command), the first status line
                // ends it, unless one within reach already did.
                return Some(last_in_reach.unwrap_or(j) + 1);
            }
            last_in_reach = Some(j);
        } else if !in_reach && let Some(end) = last_in_reach {
            return Some(end + 1);
        }
        match command.as_mut() {
            Some(read) => *read += line.encode_utf16().count() + 1,
            None => {
                if let Some(rest) = line.strip_prefix("> Command: `") {
                    command = Some(rest.encode_utf16().count() + 1);
                }
            }
        }
    }
    last_in_reach.map(|end| end + 1)
}

/// How far after `> Command: `` ` the status line can be: 80 characters of command (Memory
/// Loop's cut, in UTF-16 units as JavaScript counts), the closing backtick and a line break.
const COMMAND_REACH: usize = 82;

/// Where a tool-call blockquote pasted into a user turn ends: at its status line, or at
/// the end of its `>` lines, and never past the next heading.
fn pasted_tool_block(lines: &[&str], start: usize) -> usize {
    for (j, line) in lines.iter().enumerate().skip(start + 1) {
        if TOOL_STATUS.is_match(line) {
            return j + 1;
        }
        if TOOL_CALL.is_match(line) || turn_heading(line).is_some() {
            break;
        }
    }
    quote_end(lines, start)
}

/// The index after the blockquote that starts at `lines[start]`: its `>` lines.
fn quote_end(lines: &[&str], start: usize) -> usize {
    let mut end = start + 1;
    while end < lines.len() && lines[end].trim_start().starts_with('>') {
        end += 1;
    }
    end
}

/// Joins a turn's lines (its tool calls already left out), trimmed.
fn turn_text(lines: &[&str]) -> String {
    lines.join("\n").trim().to_owned()
}

/// `text` without memloop's own insights blocks (quoted in a chat, they are never extracted
/// again), each looked for between two heading lines: memloop's block holds no turn
/// heading, so a begin marker in one message never pairs with an end marker in another and
/// takes the heading between them away.
fn strip_insights(text: &str) -> Cow<'_, str> {
    if !text.contains(fence::BEGIN) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut segment = String::new();
    for line in text.split_inclusive('\n') {
        if turn_heading(line.trim_end_matches(['\n', '\r'])).is_some() {
            out.push_str(&fence::strip(&segment));
            segment.clear();
            out.push_str(line);
        } else {
            segment.push_str(line);
        }
    }
    out.push_str(&fence::strip(&segment));
    Cow::Owned(out)
}

/// Renders turns as the text sent to a model, each through [`trim_noise`].
///
/// `parse(&render(turns)).turns == turns` for turns that came out of [`parse`] and that
/// `trim_noise` leaves alone.
#[must_use]
pub fn render(turns: &[Turn]) -> String {
    let mut out = String::new();
    for turn in turns {
        let text = trim_noise(&turn.text);
        // A turn's text is trimmed, so `\t## User` inside a turn comes out as `## User`:
        // indented by one space it stays text when the render is parsed again.
        let first = text.lines().next().unwrap_or_default();
        if TURN_HEADING.is_match(first) || DISCUSSION_HEADING.is_match(first) {
            push_turn(&mut out, &heading(turn), &format!(" {text}"));
        } else {
            push_turn(&mut out, &heading(turn), &text);
        }
    }
    out
}

fn heading(turn: &Turn) -> String {
    match &turn.time {
        Some(time) => format!("## [{time}] {}", turn.role),
        None => format!("## {}", turn.role),
    }
}

fn push_turn(out: &mut String, heading: &str, text: &str) {
    out.push_str(heading);
    out.push_str("\n\n");
    out.push_str(text);
    out.push_str("\n\n");
}

/// The lines of a turn the person wrote themselves: everything but fenced code blocks and
/// blockquotes, which hold what they pasted or quoted (a log, a page, another message).
/// Dropped lines leave an empty line, so lines stay apart.
#[must_use]
pub fn own_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (line, own) in own_lines(text) {
        if own {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The person's own words in a turn as passages: the runs of their lines between the blocks
/// they pasted or quoted (see [`own_words`]). A quote may run over a blank line within a
/// passage, never across a pasted block.
#[must_use]
pub fn own_passages(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for (line, own) in own_lines(text) {
        if own {
            current.push_str(line);
            current.push('\n');
        } else if !current.trim().is_empty() {
            out.push(std::mem::take(&mut current));
        } else {
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    out
}

/// The HTML elements that hold pasted or quoted text (`<blockquote>`, `<pre>`,
/// `<details>`, ...): a line opening one, with at most three spaces before it, starts a
/// block that runs to the line that closes it.
const PASTED_HTML: [&str; 8] = [
    "blockquote",
    "pre",
    "details",
    "code",
    "q",
    "script",
    "style",
    "textarea",
];

/// The pasted HTML element `line` opens, if it opens one.
fn opens_pasted_html(line: &str) -> Option<&'static str> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let tag = line
        .trim_start()
        .strip_prefix('<')
        .filter(|_| indent <= 3)?;
    let name_len = tag.bytes().take_while(u8::is_ascii_alphabetic).count();
    let after = tag.as_bytes().get(name_len).copied();
    if !matches!(after, Some(b'>' | b' ' | b'\t') | None) {
        return None;
    }
    PASTED_HTML
        .into_iter()
        .find(|name| name.eq_ignore_ascii_case(&tag[..name_len]))
}

/// Each line of a turn, with whether the person wrote it (not in a code block, blockquote,
/// indented block or pasted HTML block).
fn own_lines(text: &str) -> impl Iterator<Item = (&str, bool)> {
    let mut fence = Fence::default();
    // The pasted HTML element open, to the line that closes it.
    let mut html: Option<&'static str> = None;
    // Inside a blockquote, its unmarked lines go on quoting until a blank line; an
    // indented block after a blank line is code.
    let mut in_quote = false;
    let mut in_indented = false;
    let mut after_blank = true;
    text.split('\n').map(move |line| {
        let code = fence.feed(line);
        if !code && html.is_none() {
            html = opens_pasted_html(line);
        }
        if let Some(name) = html {
            let lower = line.to_ascii_lowercase();
            if lower.contains(&format!("</{name}>")) {
                html = None;
            }
            after_blank = false;
            return (line, false);
        }
        let blank = line.trim().is_empty();
        let indent = line.len() - line.trim_start_matches(' ').len();
        // A quote may sit in a list item (`- > …`, `1. > …`).
        let item = line
            .trim_start()
            .trim_start_matches(['-', '*', '+'])
            .trim_start();
        let item = item.trim_start_matches(|c: char| c.is_ascii_digit());
        let item = item.strip_prefix(['.', ')']).unwrap_or(item).trim_start();
        let marked = line.trim_start().starts_with('>') || item.starts_with('>');
        in_quote = !blank && (marked || in_quote);
        in_indented = !blank && !code && indent >= 4 && (after_blank || in_indented);
        let quoted = (indent <= 3 || marked) && in_quote;
        after_blank = blank;
        // A blank line belongs to the passage around it.
        (line, blank || (!code && !quoted && !in_indented))
    })
}

/// Shortens what costs tokens and carries no memory: long code blocks, long log runs and
/// overlong lines.
///
/// A fenced code block of more than 40 lines keeps its first 15 and last 5 lines around a
/// `[… N lines omitted …]` line; so does a run of more than 40 consecutive log-like lines
/// (timestamps, `ERROR`/`WARN`/`INFO` prefixes, stack frames, long hex) outside code blocks.
/// Any other line is kept as is, so prose is never cut. Idempotent.
#[must_use]
pub fn trim_noise(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<Cow<'_, str>> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let mut fence = Fence::default();
        if fence.feed(lines[i]) {
            let open = i;
            i += 1;
            while i < lines.len() && fence.is_open() {
                fence.feed(lines[i]);
                i += 1;
            }
            let close = (!fence.is_open()).then(|| i - 1);
            let body_end = close.unwrap_or(i);
            out.push(lines[open].into());
            keep_ends(&lines[open + 1..body_end], &mut out);
            if let Some(close) = close {
                out.push(lines[close].into());
            }
        } else if is_log_line(lines[i], i.checked_sub(1).map(|p| lines[p])) {
            let start = i;
            i += 1;
            while i < lines.len() && is_log_line(lines[i], Some(lines[i - 1])) {
                i += 1;
            }
            keep_ends(&lines[start..i], &mut out);
        } else {
            out.push(lines[i].into());
            i += 1;
        }
    }
    for line in &mut out {
        if let Some(cut) = cut_long_line(line) {
            *line = cut.into();
        }
    }
    out.join("\n")
}

/// A line longer than this many characters (a minified file, a one-line dump) keeps only
/// its ends: no person types it, and it would cost hundreds of requests.
const LONG_LINE_CHARS: usize = 8_000;
const LONG_LINE_HEAD: usize = 2_000;
const LONG_LINE_TAIL: usize = 500;

/// The ends of a line over [`LONG_LINE_CHARS`] around an omission mark; `None` for others.
fn cut_long_line(line: &str) -> Option<String> {
    let count = line.chars().count();
    if count <= LONG_LINE_CHARS {
        return None;
    }
    let head: String = line.chars().take(LONG_LINE_HEAD).collect();
    let tail: String = line.chars().skip(count - LONG_LINE_TAIL).collect();
    let omitted = count - LONG_LINE_HEAD - LONG_LINE_TAIL;
    Some(format!("{head} [… {omitted} characters omitted …] {tail}"))
}

/// Pushes `lines`, or only their ends around an omission line when there are too many.
fn keep_ends<'a>(lines: &[&'a str], out: &mut Vec<Cow<'a, str>>) {
    if lines.len() <= NOISE_MAX_LINES {
        out.extend(lines.iter().map(|l| Cow::Borrowed(*l)));
        return;
    }
    let omitted = lines.len() - NOISE_HEAD - NOISE_TAIL;
    out.extend(lines[..NOISE_HEAD].iter().map(|l| Cow::Borrowed(*l)));
    out.push(format!("[… {omitted} lines omitted …]").into());
    out.extend(
        lines[lines.len() - NOISE_TAIL..]
            .iter()
            .map(|l| Cow::Borrowed(*l)),
    );
}

/// A log-like line; the indented source line under a Python `File "…"` frame counts too.
fn is_log_line(line: &str, previous: Option<&str>) -> bool {
    if line.trim().is_empty() || fence_marker(line).is_some() {
        return false;
    }
    LOG_LINE.is_match(line)
        || (line.starts_with("    ")
            && previous.is_some_and(|p| p.trim_start().starts_with("File \"")))
}

/// Keeps the first turns of a transcript within `max_tokens` (by [`estimate_tokens`] of
/// their [`trim_noise`]d text); the turns after them are left for the next run
/// ([`Limited::read`]). Only a first turn over the limit on its own is cut, at a line (or,
/// in a single long line, a character), and the rest of it is never sent. `None` when it
/// all fits or `max_tokens` is 0. Linear in the input size.
pub fn limit(turns: &mut Vec<Turn>, max_tokens: usize) -> Option<Limited> {
    let limited = fit(turns, max_tokens)?;
    limited.apply(turns);
    Some(limited)
}

/// What [`limit`] would keep of `turns`, without changing them: for a caller that must see
/// the turns whole first (to take their [`digest`]).
#[must_use]
pub fn fit(turns: &[Turn], max_tokens: usize) -> Option<Limited> {
    if max_tokens == 0 {
        return None;
    }
    // One turn's trimmed text at a time, so a huge transcript is not held twice over; only
    // a first turn that crosses the limit keeps its trimmed text, to be cut.
    let mut total = 0;
    let mut kept = 0;
    let mut left = 0;
    let mut read = None;
    let mut cut = None;
    for (i, turn) in turns.iter().enumerate() {
        let trimmed = trim_noise(&turn.text);
        let size = estimate_tokens(&trimmed);
        total += size;
        if read.is_some() {
            left += size;
            continue;
        }
        if kept + size <= max_tokens {
            kept += size;
        } else if i > 0 {
            read = Some(i);
            left += size;
        } else {
            let room = max_tokens * 4;
            let at = trimmed
                .char_indices()
                .nth(room)
                .map_or(trimmed.len(), |(at, _)| at);
            let at = trimmed[..at].rfind('\n').filter(|&n| n > 0).unwrap_or(at);
            let text = trimmed[..at].trim_end().to_owned();
            kept = estimate_tokens(&text);
            cut = Some(text);
            read = Some(1);
        }
    }
    let read = read?;
    Some(Limited {
        total,
        kept,
        read,
        left,
        cut,
    })
}

/// How much of a transcript [`limit`] kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limited {
    /// Tokens of the whole transcript, as it would be sent.
    pub total: usize,
    /// Tokens kept.
    pub kept: usize,
    /// The turns kept, from the first; the next run goes on from the one after them.
    pub read: usize,
    /// Tokens of the turns after them, left for the next run.
    pub left: usize,
    /// The text the first turn is cut to, when it alone is over the limit.
    pub cut: Option<String>,
}

impl Limited {
    /// Cuts `turns` (those [`fit`] was given) to what is kept.
    pub fn apply(&self, turns: &mut Vec<Turn>) {
        turns.truncate(self.read);
        if let (Some(text), Some(first)) = (&self.cut, turns.first_mut()) {
            first.text.clone_from(text);
        }
    }
}

/// A checksum of turns as parsed (who wrote each, its time and its text): the same for a
/// transcript that only had turns appended after them, whatever else its file holds.
#[must_use]
pub fn digest<'a>(turns: impl IntoIterator<Item = &'a Turn>) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for turn in turns {
        let time = turn.time.as_deref().unwrap_or("");
        for part in [turn.role.as_str(), time, turn.text.as_str()] {
            hash.update(part.len().to_le_bytes());
            hash.update(part.as_bytes());
        }
    }
    hex::encode(hash.finalize())
}

/// Estimates tokens as characters / 4, rounded up.
///
/// Cheap and provider-neutral; English prose is about 4 characters a token, so this errs
/// a little high on prose and low on code or CJK, which the input budget's margin absorbs.
#[must_use]
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Renders `turns` as chunks of at most `max_tokens` (by [`estimate_tokens`]) each.
///
/// Chunks break only between turns, except that a turn too big for one chunk is split at
/// blank lines, then lines, then characters, each piece under the turn's own heading. Only
/// whitespace is lost at the cuts. When `max_tokens` cannot even hold a heading the chunks
/// exceed it, one small piece each, rather than loop forever. Linear in the input size.
#[must_use]
pub fn chunks(turns: &[Turn], max_tokens: usize) -> Vec<String> {
    let budget = max_tokens.saturating_mul(4);
    let mut packer = Packer {
        budget,
        chunks: Vec::new(),
        current: String::new(),
        current_chars: 0,
    };
    for turn in turns {
        let head = heading(turn);
        let text = trim_noise(&turn.text);
        let overhead = head.chars().count() + 4;
        let text_chars = text.chars().count();
        if overhead + text_chars <= budget {
            packer.push(&head, &text, overhead + text_chars);
            continue;
        }
        let whole = Span {
            start: 0,
            end: text.len(),
            chars: text_chars,
        };
        let mut pieces = Vec::new();
        split_paragraphs(
            &text,
            whole,
            budget.saturating_sub(overhead).max(1),
            &mut pieces,
        );
        for piece in pieces {
            let piece_text = &text[piece.start..piece.end];
            if !piece_text.trim().is_empty() {
                packer.push(&head, piece_text, overhead + piece.chars);
            }
        }
    }
    packer.finish()
}

/// Greedily fills chunks with rendered turns (or turn pieces).
struct Packer {
    budget: usize,
    chunks: Vec<String>,
    current: String,
    current_chars: usize,
}

impl Packer {
    fn push(&mut self, heading: &str, text: &str, chars: usize) {
        if self.current_chars > 0 && self.current_chars + chars > self.budget {
            self.chunks.push(std::mem::take(&mut self.current));
            self.current_chars = 0;
        }
        push_turn(&mut self.current, heading, text);
        self.current_chars += chars;
    }

    fn finish(mut self) -> Vec<String> {
        if !self.current.is_empty() {
            self.chunks.push(self.current);
        }
        self.chunks
    }
}

/// A byte range of a text with its length in chars, so sizes are counted once.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    chars: usize,
}

/// The lines of `span` as spans, each with whether it is blank.
fn line_spans(text: &str, span: Span) -> impl Iterator<Item = (Span, bool)> + '_ {
    let mut start = span.start;
    text[span.start..span.end].split('\n').map(move |line| {
        let s = Span {
            start,
            end: start + line.len(),
            chars: line.chars().count(),
        };
        start += line.len() + 1;
        (s, line.trim().is_empty())
    })
}

fn split_paragraphs(text: &str, span: Span, budget: usize, out: &mut Vec<Span>) {
    let mut paragraphs: Vec<Span> = Vec::new();
    let mut open = false;
    for (line, blank) in line_spans(text, span) {
        match paragraphs.last_mut() {
            Some(p) if open && !blank => {
                p.chars += 1 + line.chars;
                p.end = line.end;
            }
            _ if !blank => paragraphs.push(line),
            _ => {}
        }
        open = !blank;
    }
    pack(text, paragraphs, budget, out, &|p, out| {
        split_lines(text, p, budget, out);
    });
}

fn split_lines(text: &str, span: Span, budget: usize, out: &mut Vec<Span>) {
    let lines = line_spans(text, span).map(|(line, _)| line);
    pack(text, lines, budget, out, &|line, out| {
        split_chars(text, line, budget, out);
    });
}

fn split_chars(text: &str, span: Span, budget: usize, out: &mut Vec<Span>) {
    let mut piece = Span {
        start: span.start,
        end: span.start,
        chars: 0,
    };
    for (offset, ch) in text[span.start..span.end].char_indices() {
        if piece.chars == budget {
            out.push(piece);
            piece = Span {
                start: span.start + offset,
                end: span.start + offset,
                chars: 0,
            };
        }
        piece.end = span.start + offset + ch.len_utf8();
        piece.chars += 1;
    }
    if piece.chars > 0 {
        out.push(piece);
    }
}

/// Joins consecutive spans (with the text between them) while they fit in `budget`; a span
/// that alone exceeds it goes to `split` instead.
fn pack(
    text: &str,
    spans: impl IntoIterator<Item = Span>,
    budget: usize,
    out: &mut Vec<Span>,
    split: &dyn Fn(Span, &mut Vec<Span>),
) {
    let mut current: Option<Span> = None;
    for span in spans {
        if span.chars > budget {
            out.extend(current.take());
            split(span, out);
            continue;
        }
        if let Some(cur) = current.as_mut() {
            let gap = text[cur.end..span.start].chars().count();
            if cur.chars + gap + span.chars <= budget {
                cur.chars += gap + span.chars;
                cur.end = span.end;
                continue;
            }
            out.push(*cur);
        }
        current = Some(span);
    }
    out.extend(current);
}

pub mod record;

#[cfg(test)]
mod tests;
