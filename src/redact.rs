//! Secret redaction: finds credentials in transcript text and replaces each with
//! `[REDACTED:<kind>]` before the text reaches an LLM or a memory file.
//!
//! This module owns the patterns, the keyword prefilter that keeps clean text fast, and the
//! rule for overlapping finds. It does not decide whether to redact (the pipeline always
//! does), it does not read files, and it is not a general secret scanner: it covers the
//! credentials that turn up in chats with a coding assistant, and where a pattern is
//! ambiguous it leaves prose alone rather than mangle it.
//!
//! Patterns adapted from gitleaks (<https://github.com/gitleaks/gitleaks>, commit
//! b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b, `config/gitleaks.toml`), MIT licence,
//! Copyright (c) 2019 Zachary Rice; the licence text is in `LICENSES/gitleaks-MIT.txt`.
//! Which gitleaks rules each kind comes from: `anthropic-api-key` from `anthropic-api-key`
//! and `anthropic-admin-api-key`; `openai-api-key` from `openai-api-key`; `aws-access-key`
//! from `aws-access-token` (with its `EXAMPLE` allowlist); `github-token` from `github-pat`,
//! `github-oauth`, `github-app-token`, `github-refresh-token` and `github-fine-grained-pat`;
//! `gitlab-token` from the `gitlab-*` token rules and `gitlab-rrt`; `slack-token` from the
//! `slack-*-token` rules; `slack-webhook` from `slack-webhook-url`; `stripe-key` from
//! `stripe-access-token`; `google-api-key` from `gcp-api-key`; `private-key` from
//! `private-key`; `jwt` from `jwt`; `bearer-token` from `curl-auth-header`; `password` from
//! `curl-auth-user`, `generic-api-key` and `hashicorp-tf-password`; `token` from
//! `generic-api-key`; the placeholder and identifier filters from those rules' allowlists.
//! `aws-secret-key` and `url-password` are our own. The prefixes are loosened where
//! gitleaks pins exact lengths, because a transcript often holds a key the user truncated
//! or a newer format, and a prefix such as `ghp_` is evidence enough.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// Decides what part of a candidate value is a secret, or that it is not one. It gets
/// the whole text so it can look at the characters around the value (a quote before it).
type Accept = fn(&str, Range<usize>) -> Option<Range<usize>>;

/// How a rule finds its candidates.
enum Pattern {
    /// A regex; the secret is the first capture group that took part, else the whole match.
    Regex(&'static str),
    /// A `-----BEGIN … PRIVATE KEY-----` block, which needs more than a regex when the
    /// `END` line is missing.
    PemBlock,
}

/// One rule as written: its kind, the lowercase keywords one of which every match
/// contains, its pattern and its acceptance check.
struct Spec {
    kind: &'static str,
    keywords: &'static [&'static str],
    pattern: Pattern,
    accept: Accept,
}

/// A quoted value without whitespace; the optional backslashes cover JSON that was
/// escaped once more (`\"password\": \"…\"`).
macro_rules! quoted_value {
    () => {
        r#"(?:\\?"([^"\\\s]+)\\?"|'([^'\s]+)'|`([^`\s]+)`)"#
    };
}

/// A quoted value, or a bare one that stops at whitespace, quotes, brackets, `,;&` and
/// backslashes (so `?token=…&page=2` keeps its next parameter).
macro_rules! value {
    () => {
        concat!("(?:", quoted_value!(), r#"|([^\s"'`,;&()\[\]{}<>\\]+))"#)
    };
}

/// `KEY = value`, `KEY: value`, `"KEY": "value"` (also `:=`, `=>`, `?=`, markdown bold).
/// Keys are spelled out as `lower`, `Capitalised` and `UPPER` rather than with `(?i)`:
/// that keeps the regex's literal prefilter and makes these rules about eight times faster.
/// A colon needs a space or a quote after it, as in YAML and JSON, so `user:pass@host`
/// and `x-access-token:…@github.com` are left to the URL rule.
macro_rules! assignment {
    ($keys:literal) => {
        concat!(
            "(?:",
            $keys,
            r#")\\?["']?\*{0,2}(?:[ \t]*(?::=|=>|\?=|=)[ \t]*"#,
            value!(),
            r"|[ \t]*:(?:\*\*)?[ \t]+",
            value!(),
            r"|[ \t]*:",
            quoted_value!(),
            ")"
        )
    };
}

/// The rules, most specific first: when two finds overlap, the earlier rule names the kind.
const SPECS: &[Spec] = &[
    Spec {
        kind: "private-key",
        keywords: &["private key"],
        pattern: Pattern::PemBlock,
        accept: keep,
    },
    Spec {
        kind: "anthropic-api-key",
        keywords: &["sk-ant-"],
        pattern: Pattern::Regex(r"(?-u:\b)sk-ant-[a-z]{2,10}[0-9]{2}-[A-Za-z0-9_-]{20,}"),
        accept: keep,
    },
    Spec {
        kind: "openai-api-key",
        keywords: &["sk-"],
        pattern: Pattern::Regex(
            r"(?-u:\b)sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{32,})",
        ),
        accept: mixed_case_with_digits,
    },
    Spec {
        kind: "aws-access-key",
        keywords: &["akia", "asia", "abia", "acca", "a3t"],
        pattern: Pattern::Regex(r"(?-u:\b)(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?-u:\b)"),
        accept: not_documentation_example,
    },
    Spec {
        kind: "aws-secret-key",
        keywords: &["secret"],
        pattern: Pattern::Regex(
            r#"(?:[Aa]ws_?[Ss]ecret_?(?:[Aa]ccess_?)?[Kk]ey|AWS_?SECRET_?(?:ACCESS_?)?KEY|[Ss]ecret_?[Aa]ccess_?[Kk]ey|SECRET_?ACCESS_?KEY)\\?["']?[ \t]*(?::=|=>|=|:)[ \t]*\\?["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        ),
        accept: keep,
    },
    Spec {
        kind: "github-token",
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        pattern: Pattern::Regex(
            r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        ),
        accept: keep,
    },
    Spec {
        kind: "gitlab-token",
        keywords: &[
            "glpat-",
            "gldt-",
            "glft-",
            "glrt-",
            "glsoat-",
            "glffct-",
            "glimt-",
            "glptt-",
            "gloas-",
            "glagent-",
            "glcbt-",
            "gr1348941",
        ],
        pattern: Pattern::Regex(
            r"(?-u:\b)(?:(?:glpat|gldt|glft|glrt|glsoat|glffct|glimt|glptt|gloas|glagent|glcbt)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*|GR1348941[A-Za-z0-9_-]{20,})",
        ),
        accept: keep,
    },
    Spec {
        kind: "slack-webhook",
        keywords: &["hooks.slack.com"],
        pattern: Pattern::Regex(
            r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}",
        ),
        accept: keep,
    },
    Spec {
        kind: "slack-token",
        keywords: &["xox", "xapp-"],
        pattern: Pattern::Regex(
            r"(?-u:\b)(?:xoxe\.xox[bp]-[0-9]-[A-Za-z0-9]+|(?:xox[abposre]|xapp)-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)",
        ),
        accept: slack_token,
    },
    Spec {
        kind: "stripe-key",
        keywords: &["k_live_", "k_test_", "k_prod_"],
        pattern: Pattern::Regex(r"(?-u:\b)[rs]k_(?:live|test|prod)_[A-Za-z0-9]{10,}"),
        accept: keep,
    },
    Spec {
        kind: "google-api-key",
        keywords: &["aiza"],
        pattern: Pattern::Regex(r"(?-u:\b)(AIza[A-Za-z0-9_-]{35})(?:[^A-Za-z0-9_-]|$)"),
        accept: keep,
    },
    Spec {
        kind: "jwt",
        keywords: &["eyj"],
        pattern: Pattern::Regex(
            r"(?-u:\b)eyJ[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*",
        ),
        accept: keep,
    },
    Spec {
        kind: "url-password",
        keywords: &["://"],
        // The password runs to the last `@` of the authority, as URL parsers read it.
        pattern: Pattern::Regex(
            r#"(?-u:\b)[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/?#@"'<>\[\]]*:([^\s/?#"'<>]+)@"#,
        ),
        accept: url_password,
    },
    Spec {
        kind: "bearer-token",
        keywords: &["authorization"],
        pattern: Pattern::Regex(
            r#"(?-u:\b)(?:[Pp]roxy-|PROXY-)?(?:[Aa]uthorization|AUTHORIZATION)\\?["']?[ \t]*[:=][ \t]*\\?["']?(?:(?i:bearer|token|basic|bot|apikey)[ \t]+)?([A-Za-z0-9._~+/=@-]+)"#,
        ),
        accept: token_value,
    },
    Spec {
        kind: "bearer-token",
        keywords: &["bearer"],
        pattern: Pattern::Regex(r"(?-u:\b)(?:[Bb]earer|BEARER)[ \t]+([A-Za-z0-9._~+/=-]{16,})"),
        accept: bare_bearer,
    },
    Spec {
        kind: "password",
        keywords: &["curl"],
        pattern: Pattern::Regex(
            r#"(?-u:\b)curl(?-u:\b)[^\r\n]*?[ \t](?:-u|--user)(?:=|[ \t]+)["']?[^\s:"']+:([^\s"']+)"#,
        ),
        accept: url_password,
    },
    Spec {
        kind: "password",
        keywords: &["pass", "pwd"],
        pattern: Pattern::Regex(
            r#"(?i)(?:(?m:^)|[ \t])--?(?:[a-z0-9]+-)*(?:password|passwd|pass|pwd)(?:=|[ \t]+)(?:"([^"\s]+)"|'([^'\s]+)'|([^\s"'`]+))"#,
        ),
        accept: password_flag,
    },
    Spec {
        kind: "token",
        keywords: &["token", "secret", "key"],
        pattern: Pattern::Regex(
            r#"(?i)(?:(?m:^)|[ \t])--?(?:[a-z0-9]+-)*(?:token|secret|api-?key|access-key|secret-key)(?:=|[ \t]+)(?:"([^"\s]+)"|'([^'\s]+)'|([^\s"'`]+))"#,
        ),
        accept: token_flag,
    },
    Spec {
        kind: "password",
        keywords: &["pass", "pwd"],
        pattern: Pattern::Regex(assignment!(
            "[Pp]ass(?:wd|word|phrase)|PASS(?:WD|WORD|PHRASE)|[Pp]wd|PWD|[_.-](?:[Pp]ass|PASS)"
        )),
        accept: password_value,
    },
    Spec {
        kind: "token",
        keywords: &["token", "secret", "key"],
        pattern: Pattern::Regex(assignment!(
            "[Tt]oken|TOKEN|[Ss]ecret|SECRET|(?:[Aa]pi|API|[Aa]ccess|ACCESS|[Ss]ecret|SECRET|[Pp]rivate|PRIVATE|[Aa]uth|AUTH|[Ee]ncryption|ENCRYPTION|[Ss]igning|SIGNING|[Mm]aster|MASTER|[Ll]icense|LICENSE|[Cc]lient|CLIENT|[Aa]pp|APP|[Ss]ervice|SERVICE)[_-]?(?:[Kk]ey|KEY)"
        )),
        accept: token_value,
    },
];

/// The compiled `SPECS`, index for index; `None` is the private-key block finder.
static RULES: LazyLock<Vec<Option<Regex>>> = LazyLock::new(|| {
    SPECS
        .iter()
        .map(|spec| match spec.pattern {
            Pattern::Regex(pattern) => Some(compile(pattern)),
            Pattern::PemBlock => None,
        })
        .collect()
});

/// Which rules can match at all, found in one cheap pass (gitleaks' `keywords`); rules
/// whose keywords never occur are not run.
struct Prefilter {
    /// Keywords common in prose, each found with `contains`, which stops at the first hit.
    frequent: Vec<(&'static str, u32)>,
    /// The distinctive keywords in one alternation, which clean text rarely hits at all.
    rare: Regex,
    /// For each rare keyword, the rules it wakes: one bit per index into `SPECS`.
    rules_by_rare: HashMap<&'static str, u32>,
}

const FREQUENT_KEYWORDS: &[&str] = &[
    "key",
    "token",
    "secret",
    "pass",
    "pwd",
    "authorization",
    "bearer",
    "curl",
    "://",
    "private key",
    "sk-",
];

const _: () = assert!(
    SPECS.len() <= 32,
    "the prefilter keeps one bit per rule in a u32"
);

static PREFILTER: LazyLock<Prefilter> = LazyLock::new(|| {
    // A hit reports only the longest keyword at its position, so it also wakes the rules
    // of every keyword inside it; keywords starting later are found by resuming one byte on.
    let rules_containing = |hit: &str| {
        SPECS
            .iter()
            .enumerate()
            .filter(|(_, spec)| spec.keywords.iter().any(|k| hit.contains(k)))
            .fold(0, |mask, (index, _)| mask | 1 << index)
    };
    let mut rare: Vec<&'static str> = SPECS
        .iter()
        .flat_map(|spec| spec.keywords)
        .copied()
        .filter(|k| !FREQUENT_KEYWORDS.contains(k))
        .collect();
    rare.sort_by_key(|k| std::cmp::Reverse(k.len()));
    rare.dedup();
    let alternation: Vec<String> = rare.iter().map(|k| regex::escape(k)).collect();
    Prefilter {
        frequent: FREQUENT_KEYWORDS
            .iter()
            .map(|&k| (k, rules_containing(k)))
            .collect(),
        rare: compile(&alternation.join("|")),
        rules_by_rare: rare.iter().map(|&k| (k, rules_containing(k))).collect(),
    }
});

/// The rules whose keywords occur in `text`, one bit per index into `SPECS`.
fn active_rules(text: &str) -> u32 {
    const ALL: u32 = u32::MAX >> (32 - SPECS.len());
    // Lowercasing a copy once lets the keyword searches be plain literal searches, several
    // times faster than case-insensitive ones; ASCII lowercasing keeps every offset.
    let lower = text.to_ascii_lowercase();
    let mut active = 0;
    for &(keyword, rules) in &PREFILTER.frequent {
        if active & rules != rules && lower.contains(keyword) {
            active |= rules;
        }
    }
    let mut at = 0;
    while active != ALL {
        let Some(hit) = PREFILTER.rare.find_at(&lower, at) else {
            break;
        };
        active |= PREFILTER
            .rules_by_rare
            .get(hit.as_str())
            .copied()
            .unwrap_or(0);
        // Keywords are ASCII, so the byte after a hit's start is a char boundary.
        at = hit.start() + 1;
    }
    active
}

/// What `redact` writes; never matched again.
static MARKER: LazyLock<Regex> = LazyLock::new(|| compile(r"\[REDACTED:[a-z0-9-]+\]"));

/// gitleaks allows `-` anywhere in the key type, which lets an `END` line run on through
/// a following `-----BEGIN …` header; here a hyphen must be followed by a letter or digit.
static PEM_BEGIN: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)-----BEGIN(?:[ A-Z0-9_]|-[A-Z0-9]){0,100}PRIVATE KEY(?: BLOCK)?-----")
});
static PEM_END: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)-----END(?:[ A-Z0-9_]|-[A-Z0-9]){0,100}PRIVATE KEY(?: BLOCK)?-----")
});

/// Fewer base64 characters than this between the armour lines is an example, not a key.
const MIN_KEY_BODY: usize = 32;

/// The patterns are constants checked by the tests, so a failure here is a bug in this file.
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

/// One round: the rules the prefilter lets through, over `text` as it is.
fn scan_once(text: &str) -> Vec<(&'static str, Range<usize>)> {
    let active = active_rules(text);
    if active == 0 {
        return Vec::new();
    }
    scan_rules(text, |index| active & 1 << index != 0)
}

fn scan_rules(text: &str, active: impl Fn(usize) -> bool) -> Vec<(&'static str, Range<usize>)> {
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
    merge(found)
}

/// `sorted` must be sorted and non-overlapping, as `find_iter` yields them.
fn overlaps_any(sorted: &[Range<usize>], range: &Range<usize>) -> bool {
    let first_ending_after = sorted.partition_point(|m| m.end <= range.start);
    sorted
        .get(first_ending_after)
        .is_some_and(|m| m.start < range.end)
}

fn merge(mut found: Vec<(usize, Range<usize>)>) -> Vec<(&'static str, Range<usize>)> {
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
                at = secret.end;
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

fn keep(_: &str, value: Range<usize>) -> Option<Range<usize>> {
    Some(value)
}

/// AWS documents its examples with keys ending in `EXAMPLE`; gitleaks allowlists them.
fn not_documentation_example(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    (!text[value.clone()].ends_with("EXAMPLE")).then_some(value)
}

/// A bare `sk-` prefix is weak evidence, so the rest must look generated, not like a
/// kebab-case name.
fn mixed_case_with_digits(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    let upper = s.bytes().any(|b| b.is_ascii_uppercase());
    let lower = s.bytes().any(|b| b.is_ascii_lowercase());
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    (upper && lower && digit).then_some(value)
}

/// Real Slack tokens carry numeric ids; `xoxb-your-token-here` does not.
fn slack_token(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    (s.len() >= 15 && s.bytes().any(|b| b.is_ascii_digit())).then_some(value)
}

/// `Bearer` outside a header is often prose ("bearer authentication"), so the value must
/// hold both letters and digits.
fn bare_bearer(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let value = token_value(text, value)?;
    let s = &text[value.clone()];
    let letter = s.bytes().any(|b| b.is_ascii_alphabetic());
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    (letter && digit).then_some(value)
}

fn url_password(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    (!is_placeholder(s) && !is_reference(s)).then_some(value)
}

fn password_value(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(text, value, &PASSWORD)
}

fn token_value(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(text, value, &TOKEN)
}

/// After `--password`, a bare word is the password: code does not pass flags identifiers.
fn password_flag(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(
        text,
        value,
        &Shape {
            bare_word_ok: true,
            ..PASSWORD
        },
    )
}

fn token_flag(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(
        text,
        value,
        &Shape {
            bare_word_ok: true,
            ..TOKEN
        },
    )
}

/// What a credential value must look like beyond not being a placeholder.
struct Shape {
    min_chars: usize,
    /// A PIN is a password; an all-digit "token" is a count or an id.
    digits_only_ok: bool,
    /// Whether an unquoted value of only letters, `_`, `.` and `-` can be a secret.
    bare_word_ok: bool,
}

const PASSWORD: Shape = Shape {
    min_chars: 4,
    digits_only_ok: true,
    bare_word_ok: false,
};

const TOKEN: Shape = Shape {
    min_chars: 8,
    digits_only_ok: false,
    bare_word_ok: false,
};

/// The filters of gitleaks' `generic-api-key` allowlist, applied to the value of a
/// `key = value` assignment, a flag or a header.
fn credential_value(text: &str, mut value: Range<usize>, shape: &Shape) -> Option<Range<usize>> {
    let quoted = text[..value.start].ends_with(['"', '\'', '`']);
    if !quoted {
        // A bare value at the end of a sentence keeps its full stop.
        while value.end > value.start && text.as_bytes()[value.end - 1] == b'.' {
            value.end -= 1;
        }
    }
    let s = &text[value.clone()];
    let rejected = s.chars().count() < shape.min_chars
        || s.starts_with('-')
        || is_placeholder(s)
        || is_reference(s)
        || is_path(s)
        || (!shape.digits_only_ok && s.bytes().all(|b| b.is_ascii_digit()))
        || (!quoted && !shape.bare_word_ok && is_identifier(s))
        || (!quoted && is_code(text, &value));
    (!rejected).then_some(value)
}

/// An unquoted value that reads as code rather than data: `token::Paren`,
/// `self.dot2_token`, `parenthesized!`, `localStorage.getItem(…)`, `__u32`.
fn is_code(text: &str, value: &Range<usize>) -> bool {
    let s = &text[value.clone()];
    let identifier = |part: &str| {
        part.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let primitive = s
        .trim_start_matches('_')
        .strip_prefix(['i', 'u', 'f'])
        .is_some_and(|bits| {
            bits == "size" || (!bits.is_empty() && bits.bytes().all(|b| b.is_ascii_digit()))
        });
    s.contains("::")
        || text[value.end..].starts_with('(')
        || s.strip_suffix('!').is_some_and(identifier)
        || (s.contains('.') && s.split('.').all(identifier))
        || primitive
}

/// Words and shapes that stand in for a secret in docs and examples.
fn is_placeholder(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "changeme",
        "changeit",
        "example",
        "test",
        "dummy",
        "fake",
        "sample",
        "placeholder",
        "redacted",
        "hidden",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "undefined",
        "string",
        "str",
        "required",
        "optional",
    ];
    let lower = s.to_ascii_lowercase();
    let mut chars = s.chars();
    let first = chars.next();
    WORDS.contains(&lower.as_str())
        || chars.all(|c| Some(c) == first)
        || lower.starts_with("your")
        || lower.contains("example")
        || lower.contains("placeholder")
        || lower.contains("xxxx")
}

/// A variable or template reference (`$TOKEN`, `${X}`, `$(cat f)`, `%X%`, `{{ x }}`,
/// `<token>`), which names a secret without holding it.
fn is_reference(s: &str) -> bool {
    let bytes = s.as_bytes();
    match bytes {
        [b'$', next, ..] => next.is_ascii_alphabetic() || matches!(next, b'_' | b'{' | b'('),
        [b'%', .., b'%'] | [b'<', .., b'>'] => true,
        _ => s.starts_with("{{"),
    }
}

fn is_path(s: &str) -> bool {
    s.starts_with('/')
        || s.starts_with("~/")
        || s.starts_with("./")
        || s.starts_with("../")
        || matches!(s.as_bytes(), [drive, b':', b'\\', ..] if drive.is_ascii_alphabetic())
}

/// `self.token`, `None`, `os.environ`, `true/false`: words, not a secret (gitleaks:
/// `^[a-zA-Z_.-]+$`, plus `/`).
fn is_identifier(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'.' | b'-' | b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Deterministic pseudo-random characters, so planted secrets look generated without
    /// any literal secret in the source.
    fn chars_from(alphabet: &str, seed: u64, n: usize) -> String {
        let alphabet = alphabet.as_bytes();
        let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let index = usize::try_from(state >> 33).unwrap_or(0) % alphabet.len();
                char::from(alphabet[index])
            })
            .collect()
    }

    const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const UPPER32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    const HEX: &str = "0123456789abcdef";

    fn alnum(seed: u64, n: usize) -> String {
        chars_from(ALNUM, seed, n)
    }

    fn pem_body(seed: u64) -> String {
        (0..4)
            .map(|line| chars_from(BASE64, seed + line, 64))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn jwt(seed: u64) -> String {
        format!(
            "{}{}.{}{}.{}",
            "eyJ",
            chars_from(URLSAFE, seed, 30),
            "eyJ",
            chars_from(URLSAFE, seed + 1, 60),
            chars_from(URLSAFE, seed + 2, 43)
        )
    }

    /// A planted secret: the text before it, the secret, the text after it, its kind.
    struct Plant {
        before: String,
        secret: String,
        after: String,
        kind: &'static str,
    }

    fn plant(before: &str, secret: String, after: &str, kind: &'static str) -> Plant {
        Plant {
            before: before.to_owned(),
            secret,
            after: after.to_owned(),
            kind,
        }
    }

    fn plants() -> Vec<Plant> {
        let private_key_kind = format!("{} {}", "RSA PRIVATE", "KEY");
        let openssh_kind = format!("{} {}", "OPENSSH PRIVATE", "KEY");
        vec![
            plant(
                "export ANTHROPIC_API_KEY=",
                format!("{}{}{}", "sk-ant-api03-", chars_from(URLSAFE, 1, 93), "AA"),
                "\nthen run it",
                "anthropic-api-key",
            ),
            plant(
                "the admin key ",
                format!(
                    "{}{}{}",
                    "sk-ant-admin01-",
                    chars_from(URLSAFE, 2, 93),
                    "AA"
                ),
                " was rotated.",
                "anthropic-api-key",
            ),
            plant(
                "OPENAI_API_KEY=",
                format!("{}{}{}{}", "sk-", alnum(3, 20), "T3BlbkFJ", alnum(4, 20)),
                " in .env",
                "openai-api-key",
            ),
            plant(
                "key: ",
                format!(
                    "{}{}{}{}",
                    "sk-proj-",
                    chars_from(URLSAFE, 5, 74),
                    "T3BlbkFJ",
                    chars_from(URLSAFE, 6, 74)
                ),
                " (project key)",
                "openai-api-key",
            ),
            plant(
                "use ",
                format!("{}{}", "sk-svcacct-", chars_from(URLSAFE, 7, 120)),
                " for the bot",
                "openai-api-key",
            ),
            plant(
                "aws_access_key_id = ",
                format!("{}{}", "AKIA", chars_from(UPPER32, 8, 16)),
                "\n",
                "aws-access-key",
            ),
            plant(
                "temporary creds ",
                format!("{}{}", "ASIA", chars_from(UPPER32, 9, 16)),
                ", expires soon",
                "aws-access-key",
            ),
            plant(
                "aws_secret_access_key = ",
                chars_from(BASE64, 10, 40),
                "\nregion = eu-west-1",
                "aws-secret-key",
            ),
            plant(
                "{\"SecretAccessKey\": \"",
                chars_from(BASE64, 11, 40),
                "\", \"Expiration\": \"2026-01-01\"}",
                "aws-secret-key",
            ),
            plant(
                "GITHUB_TOKEN=",
                format!("{}{}", "ghp_", "A".repeat(36)),
                " gh pr list",
                "github-token",
            ),
            plant(
                "(",
                format!("{}{}", "gho_", alnum(12, 36)),
                ")",
                "github-token",
            ),
            plant(
                "`",
                format!("{}{}", "ghu_", alnum(13, 36)),
                "`",
                "github-token",
            ),
            plant(
                "token ",
                format!("{}{}", "ghs_", alnum(14, 36)),
                ".",
                "github-token",
            ),
            plant(
                "refresh ",
                format!("{}{}", "ghr_", alnum(15, 36)),
                "\n",
                "github-token",
            ),
            plant(
                "fine-grained: ",
                format!(
                    "{}{}",
                    "github_pat_",
                    chars_from(URLSAFE, 16, 82).replace('-', "_")
                ),
                " done",
                "github-token",
            ),
            plant(
                "PRIVATE-TOKEN: ",
                format!("{}{}", "glpat-", chars_from(URLSAFE, 17, 20)),
                ".",
                "gitlab-token",
            ),
            plant(
                "deploy with ",
                format!("{}{}", "gldt-", chars_from(URLSAFE, 18, 20)),
                " now",
                "gitlab-token",
            ),
            plant(
                "runner ",
                format!("{}{}", "glrt-", chars_from(URLSAFE, 19, 20)),
                " registered",
                "gitlab-token",
            ),
            plant(
                "SLACK_BOT_TOKEN=",
                format!(
                    "{}{}-{}-{}",
                    "xoxb-",
                    chars_from("0123456789", 20, 12),
                    chars_from("0123456789", 21, 13),
                    alnum(22, 24)
                ),
                "\n",
                "slack-token",
            ),
            plant(
                "user token ",
                format!(
                    "{}{}-{}-{}-{}",
                    "xoxp-",
                    chars_from("0123456789", 23, 11),
                    chars_from("0123456789", 24, 11),
                    chars_from("0123456789", 25, 12),
                    chars_from(HEX, 26, 32)
                ),
                " expired",
                "slack-token",
            ),
            plant(
                "POST to ",
                format!(
                    "{}{}/{}/{}",
                    "https://hooks.slack",
                    ".com/services/T",
                    alnum(27, 10),
                    alnum(28, 32)
                ),
                " with the payload",
                "slack-webhook",
            ),
            plant(
                "stripe.api_key = '",
                format!("{}{}", "sk_live_", alnum(29, 24)),
                "'",
                "stripe-key",
            ),
            plant(
                "restricted ",
                format!("{}{}", "rk_live_", alnum(30, 24)),
                " only",
                "stripe-key",
            ),
            plant(
                "test mode uses ",
                format!("{}{}", "sk_test_", alnum(31, 24)),
                "\n",
                "stripe-key",
            ),
            plant(
                "?key=",
                format!("{}{}", "AIza", chars_from(URLSAFE, 32, 35)),
                "&libraries=places",
                "google-api-key",
            ),
            plant(
                "Here is the key:\n\n",
                format!(
                    "-----BEGIN {private_key_kind}-----\n{}\n-----END {private_key_kind}-----",
                    pem_body(33)
                ),
                "\n\nKeep it safe.",
                "private-key",
            ),
            plant(
                "```\n",
                format!(
                    "-----BEGIN {openssh_kind}-----\r\n{}\r\n-----END {openssh_kind}-----",
                    pem_body(34).replace('\n', "\r\n")
                ),
                "\r\n```",
                "private-key",
            ),
            plant(
                "it was cut off:\n",
                format!("-----BEGIN {private_key_kind}-----\n{}", pem_body(35)),
                "\n\nwhat is wrong with it?",
                "private-key",
            ),
            plant("id_token: ", jwt(36), "\nexpires_in: 3600", "jwt"),
            plant("the cookie was ", jwt(37), "; path=/", "jwt"),
            plant(
                "postgres://app:",
                alnum(38, 16),
                "@db.internal:5432/app",
                "url-password",
            ),
            plant(
                "git clone https://bob:",
                format!("{}@{}", alnum(39, 6), alnum(40, 6)),
                "@git.example.org/repo.git",
                "url-password",
            ),
            plant("redis://:", alnum(41, 20), "@cache:6379/0", "url-password"),
            plant(
                "DB_PASSWORD=",
                format!("hunter2{}", alnum(42, 4)),
                "\n",
                "password",
            ),
            plant(
                "password: \"",
                "correct-horse-9".to_owned(),
                "\"",
                "password",
            ),
            plant("{\"passwd\": \"", alnum(43, 12), "\"}", "password"),
            plant("mysql --password=", alnum(44, 10), " -h db", "password"),
            plant(
                "curl -u admin:",
                alnum(45, 12),
                " https://api.internal/",
                "password",
            ),
            plant(
                "Password: ",
                "Tr0ub4dor#3".to_owned(),
                "\nUsername: bob",
                "password",
            ),
            plant("token=", alnum(46, 32), "&page=2", "token"),
            plant("client_secret: '", alnum(47, 24), "'", "token"),
            plant("api_key: \"", chars_from(HEX, 48, 32), "\"", "token"),
            plant(
                "SECRET_KEY = ",
                chars_from(URLSAFE, 49, 50),
                "\nDEBUG = False",
                "token",
            ),
            plant("app --api-key ", alnum(50, 24), " --verbose", "token"),
            plant(
                "curl -H \"Authorization: Bearer ",
                chars_from(URLSAFE, 51, 40),
                "\" https://api.example.org/v1",
                "bearer-token",
            ),
            plant(
                "Authorization: token ",
                chars_from(HEX, 52, 40),
                "\n",
                "bearer-token",
            ),
            plant(
                "curl --header 'Authorization: Basic ",
                chars_from(BASE64, 53, 24),
                "' https://x.test/",
                "bearer-token",
            ),
            plant(
                "send it as Bearer ",
                chars_from(ALNUM, 54, 32),
                " in the header",
                "bearer-token",
            ),
        ]
    }

    #[test]
    fn every_planted_secret_is_redacted_with_its_kind_and_context_intact() {
        for p in plants() {
            let text = format!("{}{}{}", p.before, p.secret, p.after);
            let want = format!("{}[REDACTED:{}]{}", p.before, p.kind, p.after);
            assert_eq!(redact(&text), want, "secret {:?}", p.secret);
            let start = p.before.len();
            assert_eq!(
                scan(&text),
                vec![(p.kind, start..start + p.secret.len())],
                "secret {:?}",
                p.secret
            );
        }
    }

    #[test]
    fn secrets_in_one_text_are_all_found_in_order() {
        let plants = plants();
        let mut text = String::new();
        let mut want = String::new();
        for p in &plants {
            text.push_str(&format!("{}{}{}\n\n", p.before, p.secret, p.after));
            want.push_str(&format!("{}[REDACTED:{}]{}\n\n", p.before, p.kind, p.after));
        }
        assert_eq!(redact(&text), want);
        assert_eq!(scan(&text).len(), plants.len());
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        let sha256 = chars_from(HEX, 60, 64);
        let commit = chars_from(HEX, 61, 40);
        let cases: Vec<String> = vec![
            "I reset my password yesterday and the token expired.".into(),
            "Password: the one I always use".into(),
            "The password is stored in the keychain; the token: see below.".into(),
            "Use bearer authentication with a short-lived token.".into(),
            format!("sha256: {sha256}"),
            format!("commit {commit}\nAuthor: Bob <bob@example.org>"),
            format!("git checkout {}", &commit[..12]),
            "session_id: 550e8400-e29b-41d4-a716-446655440000".into(),
            "uuid 123e4567-e89b-12d3-a456-426614174000 was created".into(),
            "/home/bob/projects/memloop/src/redact.rs:42".into(),
            "C:\\Users\\bob\\AppData\\Roaming\\secrets.toml".into(),
            "the task-force asked for a risk-free disk-based plan".into(),
            "pip install scikit-learn; import sk-learn-ish; sk-lab-results".into(),
            "sk-this-is-a-very-long-kebab-case-identifier-for-tests".into(),
            "max_tokens: 4096\ninput_tokens: 1200".into(),
            "token_count = 512".into(),
            "password = input(\"Password: \")".into(),
            "token = self.token".into(),
            "api_key: str = Field(...)".into(),
            "token: Option<String>,".into(),
            "password: &str,".into(),
            "secret: [u8; 32],".into(),
            "export GITHUB_TOKEN=$(gh auth token)".into(),
            "curl -H \"Authorization: Bearer $ANTHROPIC_API_KEY\" https://x.test".into(),
            "password: ${DB_PASSWORD}".into(),
            "token: \"{{ secrets.TOKEN }}\"".into(),
            "password=changeme".into(),
            "password: '********'".into(),
            "api_key = \"your-api-key-here\"".into(),
            "https://user:password@example.org/".into(),
            "postgres://app:${PGPASSWORD}@db/app".into(),
            "Visit https://example.org:8080/path?q=1 and mail bob@example.org".into(),
            "ssh://git@github.com:22/org/repo.git".into(),
            "xoxb-your-token-here".into(),
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE".into(),
            "PWD=/home/bob/projects\nOLDPWD=/tmp".into(),
            "pwd: /Users/bob/work".into(),
            "The -----BEGIN RSA PRIVATE KEY----- line starts the file.".into(),
            "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----".into(),
            "git push -u origin main; docker run -u 1000:1000 img".into(),
            "He said they key everything to the money they eye.".into(),
            "Tests pass: 42 of 50".into(),
            "The Asia region and the ACCA exam".into(),
            "Already clean: token=[REDACTED:token] and [REDACTED:jwt]".into(),
            "{\"input_tokens\": 1234, \"cache_read_input_tokens\": 98765}".into(),
            "{\"apiKeySource\": \"none\", \"requestId\": \"req_011CSabc123\"}".into(),
            "### Secret: managing state without globals".into(),
            "const token = await getToken();\nconst apiKey = process.env.API_KEY;".into(),
            "pub paren_token: token::Paren,\nlet bracket_token = bracketed!(content in input);"
                .into(),
            "dot2_token: self.dot2_token.clone(),\nor1_token: node.or1_token,".into(),
            "pub log_passwd: __u32,\nconst FLAGS_PASS = sys::IORING_MSG_RING_FLAGS_PASS;".into(),
            "token: localStorage.getItem2('t'), force_pass: true/false".into(),
            format!(
                "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----",
                pem_body(62)
            ),
        ];
        for case in cases {
            assert_eq!(scan(&case), vec![], "{case:?}");
            assert!(matches!(redact(&case), Cow::Borrowed(_)), "{case:?}");
        }
    }

    #[test]
    fn overlapping_finds_merge_under_the_most_specific_kind() {
        let token = format!("{}{}", "ghp_", alnum(70, 36));
        let text = format!("password={token} and https://x-access-token:{token}@github.com/o/r");
        assert_eq!(
            redact(&text),
            "password=[REDACTED:github-token] and \
             https://x-access-token:[REDACTED:github-token]@github.com/o/r"
        );
        // The AWS pattern stops at the hyphen; the password runs on and takes it along.
        let key = format!("{}{}", "AKIA", chars_from(UPPER32, 73, 16));
        let text = format!("password={key}-b7 done");
        assert_eq!(redact(&text), "password=[REDACTED:aws-access-key] done");
    }

    #[test]
    fn a_secret_hidden_by_its_neighbour_is_found_in_the_same_call() {
        // `AIza…` needs a non-key character after it, which it only gets once the private
        // key that follows has been replaced.
        let google = format!("{}{}", "AIza", chars_from(URLSAFE, 74, 35));
        let header = format!("-----BEGIN {} {}-----", "RSA PRIVATE", "KEY");
        let footer = header.replace("BEGIN", "END");
        let text = format!(
            "DB_PASSWORD=hunter22x then {google}{header}\n{}\n{footer} and token={} end",
            pem_body(75),
            alnum(76, 20)
        );
        let want = "DB_PASSWORD=[REDACTED:password] then \
                    [REDACTED:google-api-key][REDACTED:private-key] and token=[REDACTED:token] end";
        assert_eq!(redact(&text), want);
        assert_eq!(redact(want), want);
        let kinds: Vec<&str> = scan(&text).into_iter().map(|(kind, _)| kind).collect();
        assert_eq!(
            kinds,
            ["password", "google-api-key", "private-key", "token"]
        );
    }

    #[test]
    fn only_the_password_of_a_url_is_redacted() {
        let text = format!(
            "DATABASE_URL=mysql://root:{}@127.0.0.1:3306/shop",
            alnum(71, 14)
        );
        assert_eq!(
            redact(&text),
            "DATABASE_URL=mysql://root:[REDACTED:url-password]@127.0.0.1:3306/shop"
        );
    }

    #[test]
    fn a_quoted_password_keeps_its_quotes_and_a_bare_one_its_full_stop() {
        let cases = [
            ("pwd = 'ab.cd.'", "pwd = '[REDACTED:password]'"),
            ("my password: s3cr3t.", "my password: [REDACTED:password]."),
            (
                "\\\"password\\\": \\\"p4ss\\\"",
                "\\\"password\\\": \\\"[REDACTED:password]\\\"",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(redact(text), want, "{text:?}");
        }
    }

    #[test]
    fn a_private_key_without_an_end_line_stops_at_its_last_base64_line() {
        let header = format!("-----BEGIN {} {}-----", "EC PRIVATE", "KEY");
        let text = format!(
            "{header}\nProc-Type: 4,ENCRYPTED\n{}\nthat was all of it",
            pem_body(72)
        );
        assert_eq!(redact(&text), "[REDACTED:private-key]\nthat was all of it");
    }

    #[test]
    fn keywords_cover_every_rule() {
        for spec in SPECS {
            assert!(!spec.keywords.is_empty(), "{}", spec.kind);
            for keyword in spec.keywords {
                assert_eq!(keyword.to_ascii_lowercase(), *keyword, "{}", spec.kind);
            }
        }
        assert_eq!(RULES.len(), SPECS.len());
        for spec in SPECS {
            for keyword in spec.keywords {
                let frequent = PREFILTER.frequent.iter().find(|(k, _)| k == keyword);
                let mask = frequent
                    .map(|(_, mask)| *mask)
                    .or_else(|| PREFILTER.rules_by_rare.get(keyword).copied());
                assert!(mask.is_some_and(|m| m != 0), "{keyword}");
            }
        }
    }

    /// Text built from pieces that come near the patterns: prose, keys, separators,
    /// quotes, URL parts, markers and real-looking secrets.
    fn fragment() -> impl Strategy<Value = String> {
        let fixed: Vec<String> = vec![
            "password".into(),
            "token".into(),
            "api_key".into(),
            "secret".into(),
            "Authorization: ".into(),
            "Bearer ".into(),
            "curl -u ".into(),
            " --password ".into(),
            "=".into(),
            ": ".into(),
            "\"".into(),
            "'".into(),
            " ".into(),
            "\n".into(),
            ".".into(),
            "@".into(),
            ":".into(),
            "/".into(),
            "https://".into(),
            "bob".into(),
            "hunter2".into(),
            "[REDACTED:token]".into(),
            "[REDACTED:".into(),
            "]".into(),
            "$HOME".into(),
            "-----BEGIN RSA PRIVATE KEY-----".into(),
            "-----END RSA PRIVATE KEY-----".into(),
            pem_body(80),
            format!("{}{}", "ghp_", alnum(81, 36)),
            format!("{}{}", "sk-ant-api03-", chars_from(URLSAFE, 82, 95)),
            format!("{}{}", "AKIA", chars_from(UPPER32, 83, 16)),
            format!("{}{}", "xoxb-", "1234567890-1234567890-abcdef"),
            jwt(84),
            alnum(85, 40),
            "I reset my password yesterday".into(),
            "é✓".into(),
            "-----".into(),
            "**Password:** ".into(),
            "x-access-token".into(),
            "&".into(),
            "`".into(),
            "\\\"".into(),
            format!("{}{}", "AIza", chars_from(URLSAFE, 86, 35)),
            format!("{}{}", "sk-proj-", chars_from(URLSAFE, 87, 60)),
        ];
        prop_oneof![
            4 => proptest::sample::select(fixed),
            1 => "[ -~]{0,12}",
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(fragment(), 0..16).prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn redaction_is_idempotent(text in text()) {
            let once = redact(&text).into_owned();
            let twice = redact(&once).into_owned();
            prop_assert_eq!(twice, once);
        }

        #[test]
        fn prefilter_never_hides_a_match(text in text()) {
            prop_assert_eq!(scan_once(&text), scan_rules(&text, |_| true));
        }

        #[test]
        fn ranges_are_ordered_disjoint_and_on_char_boundaries(text in text()) {
            let found = scan(&text);
            for (_, range) in &found {
                prop_assert!(range.start < range.end);
                prop_assert!(text.is_char_boundary(range.start));
                prop_assert!(text.is_char_boundary(range.end));
            }
            for pair in found.windows(2) {
                prop_assert!(pair[0].1.end <= pair[1].1.start);
            }
        }

        #[test]
        fn prose_around_a_secret_survives(
            before in "[a-z ,]{0,40}",
            after in "[a-z ,]{0,40}",
            pick in 0..usize::MAX,
        ) {
            let plants = plants();
            let p = &plants[pick % plants.len()];
            let before = format!("{before}\n{}", p.before);
            let after = format!("{}\n{after}", p.after);
            let text = format!("{before}{}{after}", p.secret);
            prop_assert_eq!(
                redact(&text).into_owned(),
                format!("{before}[REDACTED:{}]{after}", p.kind)
            );
        }
    }

    #[test]
    #[ignore = "throughput figure, run with --ignored --nocapture"]
    fn throughput() {
        use std::time::Instant;
        let prose = "The migration finished overnight. We talked about the deploy key \
                     rotation, the token budget and why the password reset flow sends two \
                     emails; Bob prefers small pull requests and reviews them in the morning. ";
        let clean = prose.repeat((1 << 20) / prose.len());
        let plain = clean
            .replace("key", "door")
            .replace("token", "time")
            .replace("password", "login");
        let mut dense = String::new();
        let mut seed = 0;
        while dense.len() < 1 << 20 {
            for p in plants() {
                dense.push_str(&format!("{}{}{} {prose}", p.before, p.secret, p.after));
            }
            seed += 1;
            dense.push_str(&alnum(seed, 8));
        }
        let texts = [
            ("prose that says key, token, password", &clean),
            ("prose without any keyword", &plain),
            ("secret-dense", &dense),
        ];
        for (name, text) in texts {
            let rounds = 5;
            let start = Instant::now();
            let mut found = 0;
            for _ in 0..rounds {
                found += scan(text).len();
            }
            let secs = start.elapsed().as_secs_f64();
            #[allow(clippy::cast_precision_loss)]
            let mb = (text.len() * rounds) as f64 / 1e6;
            println!(
                "{name}: {:.0} MB/s ({} finds per pass)",
                mb / secs,
                found / rounds
            );
        }
    }
}
