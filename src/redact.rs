//! Secret redaction: finds credentials in transcript text and replaces each with
//! `[REDACTED:<kind>]` before the text reaches an LLM or a memory file.
//!
//! This module owns the scan: it runs the rules (`rules`, adapted from gitleaks) that the
//! keyword prefilter (`prefilter`) lets through, finds private-key blocks, and applies the
//! rule for overlapping finds. It does not decide whether to redact (the pipeline always
//! does), it does not read files, and it is not a general secret scanner: it covers the
//! credentials that turn up in chats with a coding assistant, and where a pattern is
//! ambiguous it leaves prose alone rather than mangle it.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

mod check;
mod prefilter;
mod rules;
mod services;
mod value;

use prefilter::active_rules;
use rules::{Accept, FALLBACK, RULES, SPECS};

/// What `redact` writes; never matched again.
static MARKER: LazyLock<Regex> = LazyLock::new(|| compile(r"\[REDACTED:[a-z0-9-]+\]"));

/// gitleaks allows `-` anywhere in the key type, which lets an `END` line run on through
/// a following `-----BEGIN …` header; here a hyphen must be followed by a letter or digit.
/// A private key, and a shared one (OpenVPN's `Static key V1`, a `SECRET KEY` block); a
/// public key or a certificate is no secret.
static PEM_BEGIN: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)-----BEGIN(?:[ A-Z0-9_]|-[A-Z0-9]){0,100}(?:PRIVATE|STATIC|SECRET) KEY(?: BLOCK| V[0-9]+)?-----",
    )
});

static PEM_END: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)-----END(?:[ A-Z0-9_]|-[A-Z0-9]){0,100}(?:PRIVATE|STATIC|SECRET) KEY(?: BLOCK| V[0-9]+)?-----",
    )
});

/// Fewer base64 characters than this between the armour lines is an example, not a key.
const MIN_KEY_BODY: usize = 32;

/// The patterns are constants checked by the tests, so a failure here is a bug in this module.
/// The prefilter reads the same patterns with `regex-syntax`'s defaults to know the run of
/// non-blank bytes each needs (`prefilter::needed_run`): a setting given here (case, ignored
/// whitespace) must be given there too, or it may set aside a rule that would match.
fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|err| panic!("redact pattern {pattern:?}: {err}"))
}

/// Replaces every secret in `text` with `[REDACTED:<kind>]`, leaving everything else as it
/// was; borrows when nothing was found.
///
/// Idempotent: the markers it writes (and any `[REDACTED:…]` already in the text) are
/// never matched again, and nothing its markers expose is left for a second call.
#[must_use]
pub fn redact(text: &str) -> Cow<'_, str> {
    let found = scan(text);
    if found.is_empty() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(apply(text, &found))
    }
}

/// Finds the secrets in `text`: their kinds and byte ranges, in order and non-overlapping.
///
/// Finds that overlap are merged into one range named by the most specific rule, so a
/// GitHub token that is also a `password=` value comes out whole as `github-token`.
#[must_use]
pub fn scan(text: &str) -> Vec<(&'static str, Range<usize>)> {
    let mut found = scan_once(text);
    // A secret can hide its neighbour: `AIza…` directly followed by another key fails the
    // boundary check until that key has become `[REDACTED:…]`. So scan the redacted text
    // again until it yields nothing new; each round only adds ranges, so this ends.
    while !found.is_empty() {
        let more = scan_once(&apply(text, &found));
        if more.is_empty() {
            break;
        }
        found = merge_rounds(&found, more);
    }
    found
}

/// Writes a marker over each range of `found`.
fn apply(text: &str, found: &[(&'static str, Range<usize>)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (kind, range) in found {
        out.push_str(&text[copied..range.start]);
        out.push_str("[REDACTED:");
        out.push_str(kind);
        out.push(']');
        copied = range.end;
    }
    out.push_str(&text[copied..]);
    out
}

/// Adds the finds of a later round, whose ranges are in the redacted text, to `found`,
/// whose ranges are in the original. A later find never overlaps a marker, so it maps
/// back by the size difference of the markers before it.
fn merge_rounds(
    found: &[(&'static str, Range<usize>)],
    more: Vec<(&'static str, Range<usize>)>,
) -> Vec<(&'static str, Range<usize>)> {
    let mut merged = Vec::with_capacity(found.len() + more.len());
    let mut earlier = found.iter().peekable();
    // Bytes of secrets and of markers before the current position.
    let (mut secret_bytes, mut marker_bytes) = (0, 0);
    for (kind, range) in more {
        while let Some((earlier_kind, earlier_range)) =
            earlier.next_if(|(_, r)| r.start + marker_bytes - secret_bytes < range.start)
        {
            secret_bytes += earlier_range.len();
            marker_bytes += "[REDACTED:]".len() + earlier_kind.len();
            merged.push((*earlier_kind, earlier_range.clone()));
        }
        let start = range.start + secret_bytes - marker_bytes;
        merged.push((kind, start..start + range.len()));
    }
    merged.extend(earlier.cloned());
    merged
}

/// One round: the rules the prefilter lets through, over `text` with its wide spaces read
/// as plain ones ([`plain_spaces`]).
fn scan_once(text: &str) -> Vec<(&'static str, Range<usize>)> {
    let plain = plain_spaces(text);
    let active = active_rules(&plain);
    let mut found = scan_rules(&plain, |index| active & 1 << index != 0);
    if let Cow::Owned(_) = plain {
        // A find bounded inside a wide space is widened to take the whole character.
        for (_, range) in &mut found {
            while !text.is_char_boundary(range.start) {
                range.start -= 1;
            }
            while !text.is_char_boundary(range.end) {
                range.end += 1;
            }
        }
    }
    found
}

/// `text` with each space wider than ASCII's (a no-break space, an ideographic space, an
/// em space: Unicode's space separators) written as as many ASCII spaces as it has bytes,
/// so the rules, which read `[ \t]` between a key and its value, read `KEY=\u{a0}value` as
/// `KEY= value`, and every byte offset stays the original's. Borrows when there is none.
fn plain_spaces(text: &str) -> Cow<'_, str> {
    let wide = |c: char| {
        !c.is_ascii() && c.is_whitespace() && !matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
    };
    if text.is_ascii() || !text.chars().any(wide) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if wide(c) {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn scan_rules(text: &str, active: impl Fn(usize) -> bool) -> Vec<(&'static str, Range<usize>)> {
    let mut found = find_rules(text, active);
    found.extend(find_split(text));
    found.extend(find_continued(text));
    merge(found)
}

/// Lines joined by a trailing backslash (a shell line, an `export KEY=…\` whose key goes
/// on below): each run of them is scanned as the one line the shell reads, and a secret
/// found across a join is taken whole, backslashes and line breaks included.
fn find_continued(text: &str) -> Vec<(usize, Range<usize>)> {
    let mut found = Vec::new();
    if !text.contains("\\\n") && !text.contains("\\\r\n") {
        return found;
    }
    // Each line of the current run: its text without the backslash, and where it starts
    // in `joined`.
    let mut segments: Vec<(Range<usize>, usize)> = Vec::new();
    let mut joined = String::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let start = line_start;
        line_start += line.len();
        let content = line.strip_suffix('\n').unwrap_or(line);
        let content = content.strip_suffix('\r').unwrap_or(content);
        let backslashes = content.bytes().rev().take_while(|&b| b == b'\\').count();
        let continued = backslashes % 2 == 1 && line.ends_with('\n');
        let kept = start..start + content.len() - usize::from(continued);
        segments.push((kept.clone(), joined.len()));
        joined.push_str(&text[kept]);
        if continued {
            continue;
        }
        if segments.len() > 1 {
            found.extend(finds_across_joins(&joined, &segments));
        }
        segments.clear();
        joined.clear();
    }
    if segments.len() > 1 {
        found.extend(finds_across_joins(&joined, &segments));
    }
    found
}

/// The finds in `joined` that cross a join of `segments`, mapped back to the original text.
fn finds_across_joins(
    joined: &str,
    segments: &[(Range<usize>, usize)],
) -> Vec<(usize, Range<usize>)> {
    let segment_of = |at: usize| segments.partition_point(|(_, from)| *from <= at) - 1;
    // A position maps back through the segment holding the byte at (or just before) it.
    let original = |at: usize, segment: usize| {
        let (kept, from) = &segments[segment];
        kept.start + (at - from)
    };
    let active = prefilter::active_rules(joined);
    find_rules(joined, |index| active & 1 << index != 0)
        .into_iter()
        .filter_map(|(rule, range)| {
            let (first, last) = (segment_of(range.start), segment_of(range.end - 1));
            (first != last).then(|| {
                (
                    rule,
                    original(range.start, first)..original(range.end, last),
                )
            })
        })
        .collect()
}

/// A key longer than a line that wrapped (pasted from a terminal or a narrow window): each
/// line break between two runs of key characters is tried without the break, with the
/// end of its line before it, and a secret found across the join is taken whole. Only
/// runs that look generated on both sides are tried, so prose costs nothing.
fn find_split(text: &str) -> Vec<(usize, Range<usize>)> {
    /// How much of the first line is read back for a key's context (`password: `).
    const CONTEXT: usize = 200;
    let bytes = text.as_bytes();
    let is_key =
        |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'/' | b'=' | b'.');
    let generated = |run: &[u8]| {
        run.len() >= 4
            && (run.iter().any(u8::is_ascii_digit)
                || run
                    .windows(2)
                    .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase()))
    };
    let mut found = Vec::new();
    let mut candidate = String::new();
    for (newline, _) in text.match_indices('\n') {
        let line_end = if newline > 0 && bytes[newline - 1] == b'\r' {
            newline - 1
        } else {
            newline
        };
        let run1 = bytes[..line_end]
            .iter()
            .rev()
            .take_while(|b| is_key(**b))
            .count();
        let run2_start = newline + 1;
        let run2 = bytes[run2_start..]
            .iter()
            .take_while(|b| is_key(**b))
            .count();
        if run1 + run2 < 16
            || !generated(&bytes[line_end - run1..line_end])
            || !generated(&bytes[run2_start..run2_start + run2])
        {
            continue;
        }
        let line_start = text[..line_end].rfind('\n').map_or(0, |i| i + 1);
        let mut from = line_start.max(line_end.saturating_sub(CONTEXT));
        while !text.is_char_boundary(from) {
            from += 1;
        }
        candidate.clear();
        candidate.push_str(&text[from..line_end]);
        let join = candidate.len();
        candidate.push_str(&text[run2_start..run2_start + run2]);
        let active = prefilter::active_rules(&candidate);
        for (rule, range) in find_rules(&candidate, |index| active & 1 << index != 0) {
            if range.start < join && range.end > join {
                found.push((rule, from + range.start..run2_start + (range.end - join)));
            }
        }
    }
    found
}

fn find_rules(text: &str, active: impl Fn(usize) -> bool) -> Vec<(usize, Range<usize>)> {
    let markers: Vec<Range<usize>> = if text.contains("[REDACTED:") {
        MARKER.find_iter(text).map(|m| m.range()).collect()
    } else {
        Vec::new()
    };
    let mut found = Vec::new();
    for (index, (spec, rule)) in SPECS.iter().zip(RULES.iter()).enumerate() {
        if !active(index) {
            continue;
        }
        let mut push = |range: Range<usize>| {
            if !overlaps_any(&markers, &range) {
                found.push((index, range));
            }
        };
        match rule {
            Some(regex) => find_regex(regex, spec.accept, text, &mut push),
            None => find_pem_blocks(text, &mut push),
        }
    }
    found
}

/// `sorted` must be sorted and non-overlapping, as `find_iter` yields them.
fn overlaps_any(sorted: &[Range<usize>], range: &Range<usize>) -> bool {
    let first_ending_after = sorted.partition_point(|m| m.end <= range.start);
    sorted
        .get(first_ending_after)
        .is_some_and(|m| m.start < range.end)
}

fn merge(found: Vec<(usize, Range<usize>)>) -> Vec<(&'static str, Range<usize>)> {
    // The fallback's finds count only where no other rule found anything.
    let (fallback, mut found): (Vec<_>, Vec<_>) =
        found.into_iter().partition(|(rule, _)| *rule == FALLBACK);
    let mut covered: Vec<Range<usize>> = found.iter().map(|(_, range)| range.clone()).collect();
    covered.sort_by_key(|range| range.start);
    let mut union: Vec<Range<usize>> = Vec::with_capacity(covered.len());
    for range in covered {
        match union.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => union.push(range),
        }
    }
    for (rule, range) in fallback {
        let next = union.partition_point(|covered| covered.end <= range.start);
        if union
            .get(next)
            .is_none_or(|covered| covered.start >= range.end)
        {
            found.push((rule, range));
        }
    }
    found.sort_by_key(|(rule, range)| (range.start, *rule));
    let mut merged: Vec<(usize, Range<usize>)> = Vec::with_capacity(found.len());
    for (rule, range) in found {
        match merged.last_mut() {
            Some((kept, last)) if range.start < last.end => {
                last.end = last.end.max(range.end);
                *kept = (*kept).min(rule);
            }
            _ => merged.push((rule, range)),
        }
    }
    merged
        .into_iter()
        .map(|(rule, range)| (SPECS[rule].kind, range))
        .collect()
}

fn find_regex(regex: &Regex, accept: Accept, text: &str, out: &mut impl FnMut(Range<usize>)) {
    let mut locations = regex.capture_locations();
    let mut at = 0;
    while at <= text.len() {
        let Some(whole) = regex.captures_read_at(&mut locations, text, at) else {
            break;
        };
        let value = (1..locations.len())
            .find_map(|group| locations.get(group))
            .map_or(whole.range(), |(start, end)| start..end);
        match accept(text, value.clone()).filter(|secret| !secret.is_empty()) {
            Some(secret) => {
                // A value found before its label (`… is my password`) is behind the match:
                // go on after the match, not back to it.
                at = if secret.end > whole.start() {
                    secret.end
                } else {
                    whole.end().max(next_char(text, whole.start()))
                };
                out(secret);
            }
            // A rejected value can hold the start of a real match (`token=password=hunter2`),
            // so look again from the value rather than after it.
            None if value.start > whole.start() => at = value.start,
            None => at = next_char(text, whole.start()),
        }
    }
}

fn next_char(text: &str, at: usize) -> usize {
    at + text[at..].chars().next().map_or(1, char::len_utf8)
}

fn find_pem_blocks(text: &str, out: &mut impl FnMut(Range<usize>)) {
    let mut from = 0;
    while let Some(begin) = PEM_BEGIN.find_at(text, from) {
        // The END must come before the next BEGIN; bounding the search there also keeps
        // a text full of headers without END lines linear.
        let next_begin = PEM_BEGIN
            .find_at(text, begin.end())
            .map_or(text.len(), |m| m.start());
        let end = PEM_END.find_at(&text[..next_begin], begin.end());
        let (body_end, block_end) = match end {
            Some(end) => (end.start(), end.end()),
            None => {
                let body_end = unterminated_body_end(text, begin.end());
                (body_end, body_end)
            }
        };
        let body = &text[begin.end()..body_end];
        if body.bytes().filter(|b| is_base64(*b)).count() >= MIN_KEY_BODY {
            out(begin.start()..block_end);
        }
        from = block_end.max(begin.end());
    }
}

/// Where a key body without an `END` line stops: after the last line that is all base64
/// (or an RFC 1421 header such as `Proc-Type:` before the first base64 line).
fn unterminated_body_end(text: &str, start: usize) -> usize {
    let mut end = start;
    let mut line_start = start;
    let mut seen_base64 = false;
    for (number, line) in text[start..].split_inclusive('\n').enumerate() {
        let content = line.trim();
        let this_start = line_start;
        line_start += line.len();
        if content.is_empty() {
            // The rest of the header line is usually empty; a blank line later ends the body.
            if number == 0 {
                continue;
            }
            break;
        }
        let is_body = content.bytes().all(is_base64);
        let is_header = !seen_base64
            && content.split_once(": ").is_some_and(|(name, _)| {
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        if !is_body && !is_header {
            break;
        }
        seen_base64 |= is_body;
        end = this_start + line.trim_end().len();
    }
    end
}

fn is_base64(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'=')
}

#[cfg(test)]
mod tests;
