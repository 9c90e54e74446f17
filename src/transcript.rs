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

use crate::fence::{BEGIN, END};

/// Fenced code blocks and log runs longer than this many lines are shortened by [`trim_noise`].
const NOISE_MAX_LINES: usize = 40;
/// Lines kept from the start of a shortened block.
const NOISE_HEAD: usize = 15;
/// Lines kept from the end of a shortened block.
const NOISE_TAIL: usize = 5;

/// Why a file's bytes are not a transcript's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Nothing but whitespace (or nothing at all).
    #[error("empty file")]
    Empty,
    /// A NUL byte: an image, a database, or UTF-16, none of which Memory Loop writes.
    #[error("binary file (contains NUL bytes)")]
    Binary,
    /// Invalid UTF-8; `offset` counts bytes from the start of the file, BOM included.
    #[error("not valid UTF-8 at byte {offset}")]
    NotUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
}

/// Checks that `bytes` are a text file and returns its text without a UTF-8 BOM.
///
/// # Errors
///
/// [`DecodeError::Binary`] when a NUL byte is present, [`DecodeError::NotUtf8`] at the first
/// invalid byte, [`DecodeError::Empty`] when the text is empty or only whitespace.
pub fn decode(bytes: &[u8]) -> Result<&str, DecodeError> {
    let (bom_len, body) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (3, rest),
        None => (0, bytes),
    };
    // NUL is valid UTF-8, so it has to be looked for first to call a binary file binary.
    if body.contains(&0) {
        return Err(DecodeError::Binary);
    }
    let text = std::str::from_utf8(body).map_err(|e| DecodeError::NotUtf8 {
        offset: bom_len + e.valid_up_to(),
    })?;
    if text.trim().is_empty() {
        return Err(DecodeError::Empty);
    }
    Ok(text)
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
    LazyLock::new(|| Regex::new(r"^ {0,3}> ?\*\*Tool:\*\*").expect("tool regex is valid"));

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
#[must_use]
pub fn parse(text: &str) -> Transcript {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Trailing CRs are stripped one by one, not as CRLF pairs, so that a stray "\r\r\n"
    // parses the same after a render as before it.
    let lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let (meta, meta_error, body) = split_frontmatter(&lines);
    let body = strip_insights(body);

    let mut fence = Fence::default();
    let mut preamble: Vec<&str> = Vec::new();
    let mut headed: Vec<(Role, Option<String>, Vec<&str>)> = Vec::new();
    for line in body {
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
        turns.push(Turn {
            role: Role::User,
            time: None,
            text: preamble,
        });
    }
    turns.extend(headed.into_iter().map(|(role, time, lines)| Turn {
        role,
        time,
        text: turn_text(&lines),
    }));
    Transcript {
        meta,
        turns,
        meta_error,
    }
}

fn turn_heading(line: &str) -> Option<(Role, Option<String>)> {
    let caps = TURN_HEADING.captures(line.trim_end())?;
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
        Err(e) => (Meta::default(), Some(describe_yaml_error(&e)), body),
    }
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

/// Drops every `BEGIN`..`END` block (marker lines included); a `BEGIN` with no `END`
/// after it is kept, since cutting to the end would lose the conversation.
fn strip_insights<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let is = |line: &str, marker: &str| line.trim() == marker;
    let last_end = lines.iter().rposition(|l| is(l, END));
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        if is(lines[i], BEGIN) && last_end.is_some_and(|e| e > i) {
            while !is(lines[i], END) {
                i += 1;
            }
        } else {
            out.push(lines[i]);
        }
        i += 1;
    }
    out
}

/// Joins a turn's lines without its tool-call blockquotes, trimmed.
fn turn_text(lines: &[&str]) -> String {
    let mut kept: Vec<&str> = Vec::with_capacity(lines.len());
    let mut fence = Fence::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if !fence.feed(line) && TOOL_CALL.is_match(line) {
            i += 1;
            while i < lines.len() && lines[i].trim_start().starts_with('>') {
                i += 1;
            }
            // Avoid leaving two blank lines where the blockquote was.
            let after_blank = kept.last().is_none_or(|l| l.trim().is_empty());
            if after_blank && lines.get(i).is_some_and(|l| l.trim().is_empty()) {
                i += 1;
            }
            continue;
        }
        kept.push(line);
        i += 1;
    }
    kept.join("\n").trim().to_owned()
}

/// Renders turns as the text sent to a model, each through [`trim_noise`].
///
/// `parse(&render(turns)).turns == turns` for turns that came out of [`parse`] and that
/// `trim_noise` leaves alone.
#[must_use]
pub fn render(turns: &[Turn]) -> String {
    let mut out = String::new();
    for turn in turns {
        push_turn(&mut out, &heading(turn), &trim_noise(&turn.text));
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

/// Shortens what costs tokens and carries no memory: long code blocks and long log runs.
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
    out.join("\n")
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const REALISTIC: &str = r#"---
date: 2026-01-16
time: "14:30"
session_id: 550e8400-e29b-41d4-a716-446655440000
title: "Help me plan the Lanternfish index migration"
tags: [chat]
---

# Discussion - 2026-01-16 14:30

## [14:30] User

Help me plan the Lanternfish index migration. I prefer short answers.

## [14:31] Assistant

> **Tool:** Read
> File: `/vault/projects/lanternfish.md`
> ✓

Here is a plan:

1. Snapshot the indexes to object storage.
2. Switch readers.

```markdown
## [09:00] User
this heading is inside a code block
```

## [14:35] User

Thanks, that works.
"#;

    fn turn(role: Role, time: Option<&str>, text: &str) -> Turn {
        Turn {
            role,
            time: time.map(str::to_owned),
            text: text.to_owned(),
        }
    }

    #[test]
    fn decode_cases() {
        let cases: &[(&[u8], Result<&str, DecodeError>)] = &[
            (b"hello", Ok("hello")),
            (b"\xEF\xBB\xBFhello", Ok("hello")),
            (b"", Err(DecodeError::Empty)),
            (b" \n\t\r\n", Err(DecodeError::Empty)),
            (b"\xEF\xBB\xBF", Err(DecodeError::Empty)),
            (b"ab\0cd", Err(DecodeError::Binary)),
            (b"abc\xFFdef", Err(DecodeError::NotUtf8 { offset: 3 })),
            (
                b"\xEF\xBB\xBFab\xC3",
                Err(DecodeError::NotUtf8 { offset: 5 }),
            ),
        ];
        for (bytes, want) in cases {
            assert_eq!(decode(bytes), *want, "input {bytes:?}");
        }
    }

    #[test]
    fn decode_error_messages() {
        assert_eq!(
            DecodeError::NotUtf8 { offset: 1234 }.to_string(),
            "not valid UTF-8 at byte 1234"
        );
        assert_eq!(
            DecodeError::Binary.to_string(),
            "binary file (contains NUL bytes)"
        );
        assert_eq!(DecodeError::Empty.to_string(), "empty file");
    }

    #[test]
    fn parses_a_realistic_transcript() {
        let t = parse(REALISTIC);
        assert_eq!(t.meta_error, None);
        assert_eq!(
            t.meta,
            Meta {
                date: Some("2026-01-16".into()),
                time: Some("14:30".into()),
                session_id: Some("550e8400-e29b-41d4-a716-446655440000".into()),
                title: Some("Help me plan the Lanternfish index migration".into()),
            }
        );
        let want = vec![
            turn(
                Role::User,
                Some("14:30"),
                "Help me plan the Lanternfish index migration. I prefer short answers.",
            ),
            turn(
                Role::Assistant,
                Some("14:31"),
                "Here is a plan:\n\n1. Snapshot the indexes to object storage.\n2. Switch readers.\n\n```markdown\n## [09:00] User\nthis heading is inside a code block\n```",
            ),
            turn(Role::User, Some("14:35"), "Thanks, that works."),
        ];
        assert_eq!(t.turns, want);
    }

    #[test]
    fn crlf_and_bom_parse_like_lf() {
        let crlf = format!("\u{feff}{}", REALISTIC.replace('\n', "\r\n"));
        assert_eq!(parse(&crlf), parse(REALISTIC));
    }

    #[test]
    fn no_frontmatter_no_headings_is_one_user_turn() {
        let t = parse("\n  Just some notes\nabout my week.\n\n");
        assert_eq!(t.meta, Meta::default());
        assert_eq!(t.meta_error, None);
        assert_eq!(
            t.turns,
            vec![turn(Role::User, None, "Just some notes\nabout my week.")]
        );
    }

    #[test]
    fn headings_without_frontmatter() {
        let t = parse("## User\nhi\n## [9:05] Assistant\nhello");
        assert_eq!(
            t.turns,
            vec![
                turn(Role::User, None, "hi"),
                turn(Role::Assistant, Some("9:05"), "hello"),
            ]
        );
    }

    #[test]
    fn unquoted_scalars_and_unknown_keys_are_read() {
        let t = parse(
            "---\ndate: 2025-01-15\ntime: 09:05\nsession_id: 12345\nmodel: {name: x}\n---\nhi",
        );
        assert_eq!(t.meta_error, None);
        assert_eq!(t.meta.date.as_deref(), Some("2025-01-15"));
        assert_eq!(t.meta.time.as_deref(), Some("09:05"));
        assert_eq!(t.meta.session_id.as_deref(), Some("12345"));
        assert_eq!(t.meta.title, None);
    }

    #[test]
    fn bad_yaml_is_stripped_and_described() {
        let t = parse("---\ntitle: [unclosed\ndate: x\n---\n## [10:00] User\nhello");
        assert_eq!(t.meta, Meta::default());
        let err = t.meta_error.expect("bad yaml is reported");
        assert!(err.starts_with("malformed frontmatter at line 2"), "{err}");
        assert!(!err.contains('\n'), "one line: {err}");
        assert_eq!(t.turns, vec![turn(Role::User, Some("10:00"), "hello")]);
    }

    #[test]
    fn non_mapping_frontmatter_is_reported() {
        let t = parse("---\n- a\n- b\n---\nhello");
        assert!(t.meta_error.is_some());
        assert_eq!(t.turns, vec![turn(Role::User, None, "hello")]);
    }

    #[test]
    fn unclosed_frontmatter_is_kept_as_text() {
        let t = parse("---\nsome text\n");
        assert!(t.meta_error.is_some_and(|e| e.contains("no closing")));
        assert_eq!(t.turns, vec![turn(Role::User, None, "---\nsome text")]);
    }

    #[test]
    fn empty_frontmatter_is_fine() {
        let t = parse("---\n---\nhello");
        assert_eq!((t.meta, t.meta_error), (Meta::default(), None));
        assert_eq!(t.turns, vec![turn(Role::User, None, "hello")]);
    }

    #[test]
    fn discussion_heading_is_not_a_turn() {
        let t = parse("# Discussion - 2026-01-16 14:30\n\n## [14:30] User\nhi");
        assert_eq!(t.turns, vec![turn(Role::User, Some("14:30"), "hi")]);
        let only = parse("# Discussion - 2026-01-16 14:30\n");
        assert!(only.turns.is_empty());
    }

    #[test]
    fn preamble_text_becomes_a_user_turn() {
        let t = parse("# Discussion\nsome context\n## [14:30] Assistant\nhi");
        assert_eq!(
            t.turns,
            vec![
                turn(Role::User, None, "some context"),
                turn(Role::Assistant, Some("14:30"), "hi"),
            ]
        );
    }

    #[test]
    fn near_miss_headings_are_text() {
        for line in [
            "### [14:30] User",
            "## [14:30] user",
            "## [14:30] User said",
            " ## [14:30] User",
            "## [1430] User",
        ] {
            let t = parse(&format!("## Assistant\n{line}"));
            assert_eq!(t.turns.len(), 1, "{line}");
            assert_eq!(t.turns[0].text, line.trim());
        }
    }

    #[test]
    fn tool_blockquotes_are_removed() {
        let text = "## [14:31] Assistant\n\nLet me look.\n\n> **Tool:** Glob\n> Pattern: `**/*.md`\n> Found 12 files\n\n> **Tool:** Read\n> ✓\n\nI found it.\n\n> A normal quote stays.\n\n```\n> **Tool:** in code stays\n```";
        let t = parse(text);
        assert_eq!(
            t.turns[0].text,
            "Let me look.\n\nI found it.\n\n> A normal quote stays.\n\n```\n> **Tool:** in code stays\n```"
        );
    }

    #[test]
    fn turn_of_only_tool_calls_is_empty() {
        let t = parse("## [1:00] Assistant\n> **Tool:** Bash\n> Command: ls\n## [1:01] User\nok");
        assert_eq!(
            t.turns,
            vec![
                turn(Role::Assistant, Some("1:00"), ""),
                turn(Role::User, Some("1:01"), "ok"),
            ]
        );
    }

    #[test]
    fn insights_block_is_never_reingested() {
        let text = format!(
            "## User\nshow my CLAUDE.md\n## Assistant\nHere:\n{BEGIN}\n## Memory Loop Insights\n\n- A fact.\n{END}\nDone."
        );
        let t = parse(&text);
        assert_eq!(t.turns[1].text, "Here:\nDone.");
        assert!(!t.turns.iter().any(|x| x.text.contains("A fact")));
    }

    #[test]
    fn insights_begin_without_end_keeps_the_text() {
        let text = format!("## User\n{BEGIN}\nstill my words");
        assert_eq!(
            parse(&text).turns[0].text,
            format!("{BEGIN}\nstill my words")
        );
    }

    #[test]
    fn fences_hide_headings_and_tilde_fences_count() {
        let cases = [
            ("```\n## User\n```", 1),
            ("~~~\n## User\n~~~", 1),
            ("````\n```\n## User\n````", 1),
            ("  ```rust\n## User\n  ```", 1),
            ("``` not `a` fence\n## User", 2),
            ("~~~\n## User\n```\n## User\n~~~\n## User", 2),
            ("```\nunclosed\n## User\nstill code", 1),
        ];
        for (body, want) in cases {
            let t = parse(&format!("## Assistant\n{body}"));
            assert_eq!(t.turns.len(), want, "{body:?}");
        }
    }

    #[test]
    fn render_format() {
        let turns = vec![
            turn(Role::User, Some("14:30"), "hi"),
            turn(Role::Assistant, None, "hello\n\nthere"),
        ];
        assert_eq!(
            render(&turns),
            "## [14:30] User\n\nhi\n\n## Assistant\n\nhello\n\nthere\n\n"
        );
        assert_eq!(render(&[]), "");
    }

    #[test]
    fn render_roundtrips_the_realistic_transcript() {
        let t = parse(REALISTIC);
        assert_eq!(parse(&render(&t.turns)).turns, t.turns);
    }

    fn code_block(n: usize) -> String {
        let body: Vec<String> = (1..=n).map(|i| format!("let x{i} = {i};")).collect();
        format!("```rust\n{}\n```", body.join("\n"))
    }

    #[test]
    fn trim_noise_code_blocks() {
        let short = code_block(40);
        assert_eq!(trim_noise(&short), short);

        let long = format!("Before.\n{}\nAfter.", code_block(100));
        let trimmed = trim_noise(&long);
        let lines: Vec<&str> = trimmed.lines().collect();
        assert_eq!(lines.len(), 1 + 1 + 15 + 1 + 5 + 1 + 1);
        assert_eq!(lines[1], "```rust");
        assert_eq!(lines[2], "let x1 = 1;");
        assert_eq!(lines[16], "let x15 = 15;");
        assert_eq!(lines[17], "[… 80 lines omitted …]");
        assert_eq!(lines[18], "let x96 = 96;");
        assert_eq!(lines[22], "let x100 = 100;");
        assert_eq!(lines[23], "```");
        assert_eq!(lines[24], "After.");
    }

    #[test]
    fn trim_noise_unclosed_code_block() {
        let text = code_block(50);
        let text = text.strip_suffix("\n```").expect("has a closing fence");
        let trimmed = trim_noise(text);
        assert!(trimmed.contains("[… 30 lines omitted …]"));
        assert!(trimmed.ends_with("let x50 = 50;"));
    }

    #[test]
    fn trim_noise_log_runs() {
        let kinds = [
            "2026-01-16T14:30:00Z INFO server started",
            "[2026-01-16 14:30:00] ERROR connection refused",
            "WARN: disk almost full",
            "    at com.example.Foo.bar(Foo.java:42)",
            "  File \"/app/main.py\", line 12, in <module>",
            "deadbeefdeadbeefdeadbeefdeadbeefdeadbeef",
            "Jan  5 12:00:01 host sshd[1]: accepted",
        ];
        for kind in kinds {
            let run = vec![kind; 41].join("\n");
            let text = format!("Here is the log:\n{run}\nWhat is wrong?");
            let trimmed = trim_noise(&text);
            assert!(trimmed.contains("[… 21 lines omitted …]"), "{kind}");
            assert!(trimmed.starts_with("Here is the log:\n"));
            assert!(trimmed.ends_with("\nWhat is wrong?"));
            let short = format!("Here:\n{}", vec![kind; 40].join("\n"));
            assert_eq!(trim_noise(&short), short, "{kind}");
        }
    }

    #[test]
    fn trim_noise_python_traceback_counts_source_lines() {
        let frame = "  File \"/app/x.py\", line 3, in f\n    return g()";
        let text = vec![frame; 25].join("\n");
        assert!(trim_noise(&text).contains("lines omitted"));
    }

    #[test]
    fn trim_noise_never_cuts_prose() {
        let prose = vec!["I like my coffee black and my code reviewed."; 200].join("\n");
        assert_eq!(trim_noise(&prose), prose);
        let at_prose = vec!["at the end of the day it works"; 60].join("\n");
        assert_eq!(trim_noise(&at_prose), at_prose);
    }

    #[test]
    fn render_trims_noise() {
        let turns = vec![turn(Role::Assistant, None, &code_block(60))];
        assert!(render(&turns).contains("[… 40 lines omitted …]"));
    }

    #[test]
    fn estimate_tokens_rounds_up_on_chars() {
        for (text, want) in [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("ééééé", 2)] {
            assert_eq!(estimate_tokens(text), want, "{text}");
        }
    }

    #[test]
    fn chunks_break_between_turns_when_turns_fit() {
        let turns: Vec<Turn> = (0..10)
            .map(|i| turn(Role::User, Some("10:00"), &format!("message number {i}")))
            .collect();
        let each = estimate_tokens(&render(&turns[..1]));
        let got = chunks(&turns, each * 3);
        assert_eq!(got.len(), 4);
        assert_eq!(got.concat(), render(&turns));
        assert!(got.iter().all(|c| c.starts_with("## [10:00] User\n\n")));
        assert_eq!(chunks(&turns, 1_000_000), vec![render(&turns)]);
        assert!(chunks(&[], 100).is_empty());
    }

    #[test]
    fn big_turn_is_split_at_paragraphs_with_its_heading() {
        let para = "word ".repeat(30).trim_end().to_owned();
        let text = [para.as_str(); 6].join("\n\n");
        let turns = vec![turn(Role::Assistant, Some("11:00"), &text)];
        let got = chunks(&turns, 100);
        assert!(got.len() > 1);
        for c in &got {
            assert!(estimate_tokens(c) <= 100);
            let t = parse(c);
            assert!(t.turns.iter().all(|x| x.role == Role::Assistant));
            // Paragraph splits keep every paragraph whole.
            for x in &t.turns {
                assert!(x.text.split("\n\n").all(|p| p == para));
            }
        }
    }

    #[test]
    fn chunks_one_megabyte_quickly() {
        let line = "2026-01-16 INFO nothing much happened here at all, really\n";
        let mut turns = Vec::new();
        for i in 0..200 {
            let mut text = format!("Turn {i} talks about things.\n\n");
            while text.len() < 5_000 {
                text.push_str("some prose that keeps going ");
            }
            turns.push(turn(Role::User, Some("10:00"), &text));
        }
        // One huge single line and one huge log: the character and trim paths.
        turns.push(turn(Role::Assistant, None, &"x".repeat(100_000)));
        turns.push(turn(Role::Assistant, None, &line.repeat(2_000)));
        let text = render(&turns);
        assert!(text.len() > 1_000_000);
        let started = std::time::Instant::now();
        let parsed = parse(&text);
        let got = chunks(&parsed.turns, 24_000);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "took {:?}",
            started.elapsed()
        );
        assert!(got.iter().all(|c| estimate_tokens(c) <= 24_000));
        let xs: usize = got.iter().map(|c| c.matches('x').count()).sum();
        assert_eq!(xs, 100_000);
    }

    fn line_strategy() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => "[a-z ]{0,20}",
            1 => Just(String::new()),
            1 => Just("```".to_owned()),
            1 => Just("~~~~".to_owned()),
            1 => "## (\\[[0-9]{2}:[0-9]{2}\\] )?(User|Assistant)",
            1 => Just("# Discussion - 2026-01-16 14:30".to_owned()),
            1 => Just("> **Tool:** Read".to_owned()),
            1 => "> [a-z]{0,5}",
            1 => Just(BEGIN.to_owned()),
            1 => Just(END.to_owned()),
            1 => Just("---".to_owned()),
            1 => Just("  \r".to_owned()),
        ]
    }

    fn text_strategy() -> impl Strategy<Value = String> {
        prop::collection::vec("[a-z]{1,30}( [a-z]{1,12}){0,8}", 1..8).prop_map(|words| {
            words
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    if i % 3 == 2 {
                        format!("{w}\n")
                    } else {
                        w.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    fn turns_strategy() -> impl Strategy<Value = Vec<Turn>> {
        let role = prop_oneof![Just(Role::User), Just(Role::Assistant)];
        let time = prop::option::of("[0-2][0-9]:[0-5][0-9]");
        prop::collection::vec((role, time, text_strategy()), 0..12).prop_map(|v| {
            v.into_iter()
                .map(|(role, time, text)| Turn {
                    role,
                    time,
                    text: text.trim().to_owned(),
                })
                .collect()
        })
    }

    fn strip_for_compare(s: &str) -> String {
        s.lines()
            .filter(|l| !l.starts_with("## "))
            .flat_map(|l| l.chars().filter(|c| !c.is_whitespace()))
            .collect()
    }

    proptest! {
        #[test]
        fn parse_render_roundtrip(turns in turns_strategy()) {
            prop_assert_eq!(parse(&render(&turns)).turns, turns);
        }

        #[test]
        fn parsed_documents_roundtrip(lines in prop::collection::vec(line_strategy(), 0..40)) {
            let first = parse(&lines.join("\n"));
            let again = parse(&render(&first.turns));
            prop_assert_eq!(again.turns, first.turns);
        }

        #[test]
        fn trim_noise_is_idempotent(lines in prop::collection::vec(
            prop_oneof![Just("INFO x".to_owned()), Just("```".to_owned()), "[a-z ]{0,10}"], 0..200)
        ) {
            let text = lines.join("\n");
            let once = trim_noise(&text);
            prop_assert_eq!(trim_noise(&once), once.clone());
            prop_assert!(once.lines().count() <= text.lines().count().max(1));
        }

        #[test]
        fn chunks_fit_and_lose_no_text(turns in turns_strategy(), max_tokens in 7usize..120) {
            let got = chunks(&turns, max_tokens);
            for c in &got {
                prop_assert!(estimate_tokens(c) <= max_tokens, "{} > {}", estimate_tokens(c), max_tokens);
                prop_assert!(c.starts_with("## "));
            }
            let want: String = turns.iter().map(|t| strip_for_compare(&t.text)).collect();
            prop_assert_eq!(strip_for_compare(&got.concat()), want);
        }
    }
}
