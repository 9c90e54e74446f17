//! The checks that tell a credential value from what only looks like one: a placeholder
//! (`changeme`, `<token>`), a reference (`$TOKEN`, `{{ x }}`), a path, a word of prose or
//! a piece of code. Each `Accept` of `rules` is one of these; it gets the whole text so it
//! can look around the value (a quote before it, the rest of its line).
//!
//! It does not find candidates (the patterns of `rules` do) and does not move a value's
//! bounds beyond trimming (`value` does).

use std::ops::Range;

use super::value::{after_labels, after_last, whole_bare_value};

pub(super) fn keep(_: &str, value: Range<usize>) -> Option<Range<usize>> {
    Some(value)
}

/// AWS documents its examples with keys ending in `EXAMPLE`; gitleaks allowlists them.
pub(super) fn not_documentation_example(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    (!text[value.clone()].ends_with("EXAMPLE")).then_some(value)
}

/// A bare `sk-` prefix is weak evidence, so the rest must look generated, not like a
/// kebab-case name.
pub(super) fn mixed_case_with_digits(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    let upper = s.bytes().any(|b| b.is_ascii_uppercase());
    let lower = s.bytes().any(|b| b.is_ascii_lowercase());
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    (upper && lower && digit).then_some(value)
}

/// Real Slack tokens carry numeric ids; `xoxb-your-token-here` does not.
pub(super) fn slack_token(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    (s.len() >= 15 && s.bytes().any(|b| b.is_ascii_digit())).then_some(value)
}

/// `Bearer` outside a header is often prose ("bearer authentication"), so the value must
/// hold both letters and digits.
pub(super) fn bare_bearer(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let value = token_value(text, value)?;
    let s = &text[value.clone()];
    let letter = s.bytes().any(|b| b.is_ascii_alphabetic());
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    (letter && digit).then_some(value)
}

pub(super) fn url_password(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    (!is_placeholder(s) && !is_reference(s)).then_some(value)
}

/// A password between a user and a host (`user:…@host`), unless the "user" is a scheme
/// that takes an address (`mailto:bob@example.com`, `sip:`, `xmpp:`); else as
/// `url_password`.
pub(super) fn user_password(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    const SCHEMES: &[&str] = &["mailto", "sip", "sips", "xmpp", "tel", "im", "acct", "git"];
    if let Some(before) = text[..value.start].strip_suffix(':') {
        let user = &before[after_last(before, |c| {
            !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        })..];
        if SCHEMES.contains(&user.to_ascii_lowercase().as_str()) {
            return None;
        }
    }
    url_password(text, value)
}

/// A quoted value after a name for a key or a password that reads as generated: 12
/// characters or more with no whitespace, letters and digits in no pattern (a hex key
/// counts), not a placeholder.
pub(super) fn generated_quoted(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    let hex = s.len() >= 32
        && s.bytes().all(|b| b.is_ascii_hexdigit())
        && s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes().any(|b| b.is_ascii_alphabetic());
    let ok = !s.contains(char::is_whitespace)
        && !is_placeholder(s)
        && !is_reference(s)
        && (hex
            || looks_random(s, 12, 0.3)
            || (reads_generated(s) && s.bytes().any(|b| !b.is_ascii_alphabetic())));
    ok.then_some(value)
}

/// A PIN's digits, not the start of a date, a version or a number (`2024-01-05`, `1234.5`).
pub(super) fn pin_digits(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let rest = &text.as_bytes()[value.end..];
    let continues =
        matches!(rest, [b'-' | b'.' | b'/' | b':' | b',', next, ..] if next.is_ascii_digit());
    (!continues).then_some(value)
}

/// A PIN's digits a few words after its name: as `pin_digits`, and not a year after a word
/// that says one (`the PIN diode's datasheet from 2019`).
pub(super) fn pin_digits_not_year(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    const BEFORE_A_YEAR: &[&str] = &[
        "from", "in", "since", "until", "till", "of", "by", "to", "at", "after", "before",
        "around", "circa", "year", "ca.", "c.",
    ];
    let s = &text[value.clone()];
    let word_before = text[..value.start]
        .split_whitespace()
        .next_back()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let year = s.len() == 4
        && (s.starts_with("19") || s.starts_with("20"))
        && BEFORE_A_YEAR.contains(&word_before.as_str());
    (!year).then(|| pin_digits(text, value)).flatten()
}

/// A URL's signature: long enough to sign (16 characters, `%3D` and the like counted), and
/// not a placeholder or a reference.
pub(super) fn url_signature(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    (s.len() >= 16 && !is_placeholder(s) && !is_reference(s)).then_some(value)
}

pub(super) fn password_value(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(text, value, &PASSWORD)
}

pub(super) fn token_value(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(text, value, &TOKEN)
}

/// After `pw:` or `pass:`, which are also words, a bare word must look generated even
/// alone on its line.
pub(super) fn short_password_value(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(
        text,
        value,
        &Shape {
            digits_only_ok: false,
            lone_word_ok: false,
            ..PASSWORD
        },
    )
}

/// gitleaks' entropy floor for keys with a short fixed prefix: `SK` and 32 zeros is no key.
pub(super) fn high_entropy(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    (shannon_entropy(&text[value.clone()]) >= 3.0).then_some(value)
}

/// Bits per character of `s`, as gitleaks computes it.
fn shannon_entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[usize::from(b)] += 1;
    }
    #[allow(clippy::cast_precision_loss)]
    let len = s.len() as f64;
    counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / len;
            -p * p.log2()
        })
        .sum()
}

/// After a flag that is a password only for some commands (`-p`, `-a`), a value that
/// reads as generated and holds no `/`, `:` or `\`: `ssh -p 2222`, `mkdir -p src/Foo2`,
/// `docker run -p 8080:80`, `ls -a Downloads2024` stay.
pub(super) fn generated_flag_value(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let value = password_flag(text, value)?;
    let s = &text[value.clone()];
    (!s.contains(['/', ':', '\\']) && looks_random(s, 8, 0.3)).then_some(value)
}

/// A password whose pattern knows where it ends (before the `@` of `user/…@db`, the `</`
/// of an XML element): kept as found unless it is a placeholder or a reference. One that
/// runs to whitespace or a quote is read as after a flag. A quoted string followed by `:`
/// is the next key of a JSON object (`"max_tokens", "code": …`), no value.
pub(super) fn delimited_password(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let quoted = text[..value.start].ends_with(['"', '\'', '`']);
    let after = text[value.end..].get(1..).unwrap_or_default();
    if quoted && after.trim_start_matches([' ', '\t']).starts_with(':') && !after.starts_with("::")
    {
        return None;
    }
    match text[value.end..].chars().next() {
        Some(c) if !c.is_whitespace() && !matches!(c, '"' | '\'' | '`') => {
            url_password(text, value)
        }
        _ => password_flag(text, value),
    }
}

/// After SQL's `IDENTIFIED BY` unquoted, a password, but not the keyword that says the hash
/// or the method follows (`IDENTIFIED BY PASSWORD '*…'`, `IDENTIFIED BY VALUES`); elsewhere
/// as `delimited_password`.
pub(super) fn sql_or_flag_password(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    const KEYWORDS: &[&str] = &["password", "values", "externally", "globally"];
    let s = &text[value.clone()];
    if KEYWORDS.iter().any(|k| s.eq_ignore_ascii_case(k)) {
        return None;
    }
    delimited_password(text, value)
}

/// What names a call for a login: one of these in its name, lower-cased (also the rule's
/// keywords).
pub(super) const LOGIN_CALLS: &[&str] = &[
    "auth",
    "login",
    "connect",
    "credential",
    "bind",
    "wifi",
    "smtp.start",
    "fernet",
    "set_password",
    "setpassword",
];

/// A quoted argument of a call named for a login (`PlainAuth`, `Connection`, `simple_bind_s`,
/// `login`, `Net::SMTP.start`, a `Fernet` key) that reads as generated: the call is the
/// innermost one still open on the line.
pub(super) fn login_call_argument(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let line_start = run_start(text, value.start, 512, |c| c == '\n');
    let before = &text.as_bytes()[line_start..value.start];
    let mut depth = 0usize;
    // A call's parentheses, or a C++ initialiser's braces (`cpr::Authentication{…}`).
    let open = before.iter().rposition(|&b| match b {
        b')' | b'}' => {
            depth += 1;
            false
        }
        b'(' | b'{' if depth == 0 => true,
        b'(' | b'{' => {
            depth -= 1;
            false
        }
        _ => false,
    })?;
    let name_start = before[..open]
        .iter()
        .rposition(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':')))
        .map_or(0, |i| i + 1);
    let name = String::from_utf8_lossy(&before[name_start..open]).to_ascii_lowercase();
    let s = &text[value.clone()];
    let lower_random =
        s.len() >= 12 && s.bytes().all(|b| b.is_ascii_lowercase()) && vowel_share(s) < 0.3;
    // The argument right after the user's address (`"bob@example.com", "…"`) is the
    // password whatever its letters.
    let after_address = {
        let before = text[..value.start]
            .trim_end_matches(['"', '\'', '`'])
            .trim_end();
        let before = before.strip_suffix(',').map(str::trim_end);
        before
            .and_then(|b| b.strip_suffix(['"', '\'']))
            .and_then(|b| b.rsplit(['"', '\'']).next())
            .is_some_and(is_address)
            && s.len() >= 8
            && !s.contains(char::is_whitespace)
            && !is_placeholder(s)
            && !is_reference(s)
    };
    (LOGIN_CALLS.iter().any(|n| name.contains(n))
        && (reads_generated(s) || reads_typed(s) || lower_random || after_address))
        .then_some(value)
}

/// A value of a shell array named for secrets: the nearest `NAME=(` before it names a
/// password, a secret, a token or a key, and no `)` closes it in between.
pub(super) fn in_secret_array(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let before = &text[..value.start];
    let open = before.rfind("=(")?;
    if before[open..].contains(')') {
        return None;
    }
    let name_start = after_last(&before[..open], |c| {
        !(c.is_ascii_alphanumeric() || c == '_')
    });
    let name = before[name_start..open].to_ascii_lowercase();
    if !["pass", "pwd", "secret", "token", "key"]
        .iter()
        .any(|w| name.contains(w))
    {
        return None;
    }
    password_value(text, value)
}

/// A password told in pieces "without the spaces": the pieces joined must read as typed
/// or generated, so words of prose (`in the manager`) stay.
pub(super) fn spaced_password(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let joined: String = text[value.clone()].split_whitespace().collect();
    (reads_typed(&joined) || reads_generated(&joined)).then_some(value)
}

/// Letters and digits both, and nothing else.
fn letters_and_digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric())
        && s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes().any(|b| b.is_ascii_alphabetic())
}

/// A value named as a password by its place (a config line `KEY VALUE`, `-p` after `-u
/// NAME`) but not a word of prose (`password protected`, `mysql -u root -p shop`): eight
/// characters or more that read as typed or generated, hold letters and digits, or are
/// twelve lower-case letters (an app password) that no English ending marks as a word.
pub(super) fn typed_value(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    let lower_letters = s.len() >= 12
        && s.bytes().all(|b| b.is_ascii_lowercase())
        && ![
            "ing", "tion", "ed", "ly", "ment", "ness", "able", "ible", "ies", "ers",
        ]
        .iter()
        .any(|end| s.ends_with(end));
    (s.len() >= 8
        && !is_placeholder(s)
        && !is_reference(s)
        && !is_path(s)
        && (reads_typed(s) || reads_generated(s) || lower_letters || letters_and_digits(s)))
    .then_some(value)
}

/// A cell of a markdown table whose header names a password, a secret, a token or a PIN
/// (`| Service | Username | Password |`): the row's cell in that column, one word of four
/// characters or more and no placeholder ("see vault", `—`, `****` stay). `row` is the
/// whole row, from its first `|` to its last.
pub(super) fn secret_table_cell(text: &str, row: Range<usize>) -> Option<Range<usize>> {
    // Whole words, so `Passed`, `Shipping` and `Tokens` name no secret.
    const NAMES: &[&str] = &[
        "password",
        "passwords",
        "passwd",
        "pass",
        "pwd",
        "pw",
        "passcode",
        "passphrase",
        "secret",
        "pin",
        "passwort",
        "kennwort",
        "contraseña",
        "contrasena",
        "senha",
        "heslo",
        "hasło",
        "haslo",
        "parola",
        "пароль",
        "パスワード",
        "密码",
        "密碼",
        "비밀번호",
    ];
    // The table's lines above this row, up to its header.
    let mut header = None;
    let mut separator = None;
    let mut end = text[..row.start].rfind('\n')?;
    for _ in 0..200 {
        let start = text[..end].rfind('\n').map_or(0, |i| i + 1);
        let line = text[start..end].trim();
        if !line.starts_with('|') {
            // The header may follow words on its line (`- Keeps | Service | … |`).
            if let Some(first) = line.find('|').filter(|_| line.ends_with('|')) {
                (separator, header) = (header, Some(&line[first..]));
            }
            break;
        }
        (separator, header) = (header, Some(line));
        if start == 0 {
            break;
        }
        end = start - 1;
    }
    let (header, separator) = (header?, separator.unwrap_or(text[row.clone()].trim()));
    let is_separator = |line: &str| line.bytes().all(|b| b"|-: \t".contains(&b));
    if !is_separator(separator) || is_separator(&text[row.clone()]) {
        return None;
    }
    let column = header.trim_matches('|').split('|').position(|name| {
        name.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| NAMES.contains(&word))
    })?;
    // The row's cell in that column.
    let inner = row.start + 1..row.end - 1;
    let mut at = inner.start;
    for (n, cell) in text[inner].split('|').enumerate() {
        if n == column {
            let value = cell.trim();
            let start = at + cell.find(value).unwrap_or(0);
            let ok = value.chars().count() >= 4
                && !value.contains(char::is_whitespace)
                && !is_placeholder(value)
                && !is_reference(value);
            return ok.then_some(start..start + value.len());
        }
        at += cell.len() + 1;
    }
    None
}

/// A word that reads as typed (`reads_typed`), punctuation around it aside.
pub(super) fn typed_word(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let (offset, trimmed) = trim_word(&text[value.clone()]);
    let start = value.start + offset;
    reads_typed(trimmed).then(|| start..start + trimmed.len())
}

/// A base64-encoded JSON object standing alone (`eyJ…`, a Cloudflare tunnel's token): not
/// the payload of a `data:` URL (`;base64,eyJ…`, a source map).
pub(super) fn encoded_json_token(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    (!text[..value.start].ends_with("base64,") && shannon_entropy(&text[value.clone()]) >= 4.0)
        .then_some(value)
}

/// A value of a block or section named for secrets: the nearest line before it indented
/// less (or, for a line not indented, the section header `[…]` above it) names tokens,
/// secrets, credentials or passwords; the value is then read as a password's, and a word
/// or anything under six characters is none.
pub(super) fn in_secret_block(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    const NAMES: &[&str] = &[
        "tokens",
        "secrets",
        "credentials",
        "passwords",
        "token",
        "secret",
        "oauth",
        "password",
    ];
    let indent = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
    let line_start = text[..value.start].rfind('\n').map_or(0, |i| i + 1);
    let own = indent(&text[line_start..value.start]);
    let parent = if own == 0 {
        section_header(&text[..line_start], 200)
    } else {
        lines_back(&text[..line_start])
            .take(200)
            .filter(|l| !l.trim().is_empty())
            .find(|l| indent(l) < own)
    }?;
    let header = parent
        .trim()
        .trim_start_matches(['[', '"', '\''])
        .trim_end_matches(['{', ':', '=', ']', '"', '\'', ' ', '\t'])
        .trim_end_matches(['"', '\'', ' ', '\t'])
        .to_ascii_lowercase();
    let name = header
        .rsplit(['.', ' ', '_', '-'])
        .next()
        .unwrap_or(&header);
    if !NAMES.contains(&name) {
        return None;
    }
    // Such a block also says where secrets come from (`backend = "vault"`): a word is no
    // secret here.
    let value = password_value(text, value)?;
    let s = &text[value.clone()];
    let word = s
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || matches!(b, b'-' | b'_' | b'.'))
        && !random_letters(s);
    // A number is a time or a count there (`expires_at: 1234567890`).
    let number = s.bytes().all(|b| b.is_ascii_digit());
    (s.len() >= 6 && !word && !number).then_some(value)
}

/// The nearest of the last `lines` lines of `before` (text that ends where a line starts)
/// that starts with `[`, blank lines counted, as `lines` gives it: what `lines_back` would
/// find, for a fraction of the instructions. A value outside any block walks all 200 lines
/// back, most often to find no header (prose has none); here their newlines are counted a
/// block of bytes at a time, and only the `[`s among them are looked at.
fn section_header(before: &str, lines: usize) -> Option<&str> {
    debug_assert!(before.is_empty() || before.ends_with('\n'));
    let bytes = before.as_bytes();
    // The lines start after the `lines + 1`th newline back (the last one ends the last line).
    let first = nth_back(bytes, b'\n', lines).map_or(0, |i| i + 1);
    let at = memchr::memrchr_iter(b'[', &bytes[first..])
        .map(|i| first + i)
        .find(|&i| i == 0 || bytes[i - 1] == b'\n')?;
    // Every line of `before` ends with a newline, so the `\r` before it goes, as in `lines`.
    let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
    let line = &before[at..end];
    Some(line.strip_suffix('\r').unwrap_or(line))
}

/// Where the `n`th `needle` from the end of `haystack` is (the last is the 0th).
fn nth_back(haystack: &[u8], needle: u8, n: usize) -> Option<usize> {
    // Large enough for the vectorised count to pay off, small enough that the block holding
    // the answer is not much searched past.
    const BLOCK: usize = 1024;
    let mut left = n;
    let mut end = haystack.len();
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        let block = &haystack[start..end];
        let count = memchr::memchr_iter(needle, block).count();
        if count > left {
            return memchr::memrchr_iter(needle, block)
                .nth(left)
                .map(|i| start + i);
        }
        left -= count;
        end = start;
    }
    None
}

/// The lines of `text` last first: `text.lines().rev()`, each line found with `memchr`'s
/// vectorised `memrchr`, which costs about half as many instructions per line as the
/// searcher `lines().rev()` uses; `in_secret_block` walks up to 200 lines back with it for
/// every candidate value on an indented line.
fn lines_back(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        // As `lines`: a line ends at `\n` or `\r\n`, and the last may end at neither.
        let (body, ended) = match rest.strip_suffix('\n') {
            Some(body) => (body, true),
            None => (rest, false),
        };
        let start = memchr::memrchr(b'\n', body.as_bytes()).map_or(0, |i| i + 1);
        let line = &body[start..];
        rest = &rest[..start];
        Some(if ended {
            line.strip_suffix('\r').unwrap_or(line)
        } else {
            line
        })
    })
}

/// The answer to a security question: quoted, anything; bare, a word of three letters or
/// more (a word of prose is the secret here), not a placeholder or a reference.
pub(super) fn answer_value(text: &str, mut value: Range<usize>) -> Option<Range<usize>> {
    let trimmed = text[value.clone()].trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    value.end = value.start + trimmed.len();
    let s = &text[value.clone()];
    let rejected = s.chars().count() < 3 || is_placeholder(s) || is_reference(s);
    (!rejected).then_some(value)
}

/// After `--password`, a bare word is the password: code does not pass flags identifiers.
pub(super) fn password_flag(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(
        text,
        value,
        &Shape {
            bare_word_ok: true,
            ..PASSWORD
        },
    )
}

pub(super) fn token_flag(text: &str, value: Range<usize>) -> Option<Range<usize>> {
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
    /// Whether such a value can be a secret when it stands alone after its key on an
    /// `.env` or YAML line, or after an upper-case environment variable.
    lone_word_ok: bool,
}

const PASSWORD: Shape = Shape {
    min_chars: 4,
    digits_only_ok: true,
    bare_word_ok: false,
    lone_word_ok: true,
};

const TOKEN: Shape = Shape {
    min_chars: 8,
    digits_only_ok: false,
    bare_word_ok: false,
    lone_word_ok: true,
};

/// The filters of gitleaks' `generic-api-key` allowlist, applied to the value of a
/// `key = value` assignment, a flag or a header. A bare value is taken whole, up to
/// whitespace (`value::whole_bare_value`); when it is a label (`password: nas: hunter2`),
/// the value after the labels is tried first.
fn credential_value(text: &str, value: Range<usize>, shape: &Shape) -> Option<Range<usize>> {
    if text[..value.start].ends_with(['"', '\'', '`']) {
        return checked_value(text, value, true, shape);
    }
    let after = after_labels(text, &value).and_then(|(after, quoted)| {
        let after = if quoted {
            after
        } else {
            whole_bare_value(text, &after)
        };
        checked_value(text, after, quoted, shape)
    });
    after.or_else(|| checked_value(text, whole_bare_value(text, &value), false, shape))
}

fn checked_value(
    text: &str,
    value: Range<usize>,
    quoted: bool,
    shape: &Shape,
) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    let rejected = s.chars().count() < shape.min_chars
        || s.contains("://")
        || s.starts_with('-')
        || is_placeholder(s)
        || is_reference(s)
        || is_path(s)
        || (!shape.digits_only_ok && s.bytes().all(|b| b.is_ascii_digit()))
        || (!quoted
            && !shape.bare_word_ok
            && is_identifier(s)
            && !random_letters(s)
            && !(shape.lone_word_ok
                && (whole_line_assignment(text, &value) || env_assignment(text, &value))))
        || (!quoted && is_code(text, &value));
    (!rejected).then_some(value)
}

/// An unquoted value that reads as code rather than data: `token::Paren`,
/// `self.dot2_token` (not `G.Oayb2xq0yc`, whose parts read as generated), `parenthesized!(…)`, `localStorage.getItem(…)`, `Option<String>`,
/// `vec![…]`, `__u32`. A `!` ending a value followed by nothing is a password's.
fn is_code(text: &str, value: &Range<usize>) -> bool {
    let s = &text[value.clone()];
    let identifier = |part: &str| {
        part.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let name = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(s.len());
    let called = name > 0
        && s[..name].split('.').all(identifier)
        && s[name..]
            .trim_start_matches('!')
            .starts_with(['(', '<', '[', '{']);
    let primitive = s
        .trim_start_matches('_')
        .strip_prefix(['i', 'u', 'f'])
        .is_some_and(|bits| {
            bits == "size" || (!bits.is_empty() && bits.bytes().all(|b| b.is_ascii_digit()))
        });
    // A path (`token::Paren`), not a token joined by `::` (a k3s node token's
    // `K10…::server:…`).
    (s.contains("::")
        && !s
            .split(':')
            .any(|part| part.len() >= 16 && class_changes(part) >= 0.5))
        || text[value.end..].starts_with('(')
        || called
        || (s.strip_suffix('!').is_some_and(identifier)
            && text[value.end..].starts_with(['(', '[', '{']))
        || (s.contains('.')
            && s.split('.').all(identifier)
            && !s
                .split('.')
                .any(|part| part.len() >= 6 && class_changes(part) >= 0.5))
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
    !generated(s) && looks_like_path(s)
}

fn looks_like_path(s: &str) -> bool {
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

/// Letters that read as generated rather than as a word: a capital after a small letter
/// (`LrmhVTng`), or eight or more capitals; with `-` or `_` among them, two such capitals
/// (`KMZK-IeWZeclmH`, not `my_getToken`). Dotted or slashed names stay code.
fn random_letters(s: &str) -> bool {
    let bytes = s.as_bytes();
    let letters_only = bytes.iter().all(u8::is_ascii_alphabetic);
    let humps = bytes
        .windows(2)
        .filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        .count();
    let joined_letters = bytes
        .iter()
        .all(|&b| b.is_ascii_alphabetic() || b == b'-' || b == b'_');
    (letters_only
        && (humps > 0
            || s.len() >= 16
            || (s.len() >= 8 && bytes.iter().all(u8::is_ascii_uppercase))))
        || (joined_letters && humps >= 2)
}

/// `SMTP_PASSWORD=value`: an environment variable's value is data whatever its letters.
fn env_assignment(text: &str, value: &Range<usize>) -> bool {
    let Some(before) = text[..value.start].strip_suffix('=') else {
        return false;
    };
    let key = &before[after_last(before, |c| {
        !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    })..];
    key.len() >= 3 && key.bytes().any(|b| b.is_ascii_uppercase())
}

/// Letters, digits and symbols in no pattern, too long for a word: `/` or `~` at the
/// start of a base64 key does not make it a path.
fn generated(s: &str) -> bool {
    s.len() >= 20
        && s.bytes().any(|b| b.is_ascii_uppercase())
        && s.bytes().any(|b| b.is_ascii_lowercase())
        && s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes().filter(|&b| b == b'/').count() <= 2
}

/// `KEY=value` or `key: value` as the whole line (an `.env` or YAML line, maybe after
/// `export `): there the value is data whatever its letters, unless it is a dotted name.
fn whole_line_assignment(text: &str, value: &Range<usize>) -> bool {
    let line_start = text[..value.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[value.end..]
        .find('\n')
        .map_or(text.len(), |i| value.end + i);
    let before = text[line_start..value.start].trim_start();
    let before = before
        .strip_prefix("export ")
        .unwrap_or(before)
        .trim_start();
    let key_len = before
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        .count();
    let separator = &before[key_len..];
    key_len > 0
        && separator.contains([':', '='])
        && separator
            .bytes()
            .all(|b| matches!(b, b' ' | b'\t' | b':' | b'='))
        && text[value.end..line_end].trim().is_empty()
        && !text[value.clone()].contains(['.', '/'])
}

/// A passphrase: any words, but not a placeholder, a reference, or a word or two of prose.
pub(super) fn passphrase_value(text: &str, mut value: Range<usize>) -> Option<Range<usize>> {
    let quoted = text[..value.start].ends_with(['"', '\'', '`']);
    if !quoted {
        let trimmed = text[value.clone()].trim_end_matches(|c: char| c.is_whitespace() || c == '.');
        value.end = value.start + trimmed.len();
    }
    let s = &text[value.clone()];
    let words = s.split_whitespace().count();
    let rejected = s.chars().count() < 8
        || is_placeholder(s)
        || is_reference(s)
        || is_path(s)
        || (!quoted && words < 3 && is_code(text, &value));
    (!rejected).then_some(value)
}

/// Words joined by hyphens the way a passphrase is (`correct-horse-battery-staple`,
/// `Blue-Otter-Lamp-88`): three parts or more, each three letters or more (the last may be
/// digits). `state-of-the-art` and `read-only` are not.
fn is_passphrase(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let (last, words) = parts.split_last().unwrap_or((&"", &[]));
    let word = |p: &&str| p.len() >= 3 && p.bytes().all(|b| b.is_ascii_alphabetic());
    parts.len() >= 3
        && words.iter().all(word)
        && (word(last) || (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit())))
}

/// The value right after the word that names it (`the password hunter2`, `my bank
/// password Tulip1987`, `the passphrase purple-monkey-dishwasher`): read as
/// [`prose_value`] reads one, and not a cipher's or a hash's name (`SHA-256`, `AES128`).
pub(super) fn named_value(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let value = prose_value(text, value)?;
    let s = &text[value.clone()];
    let letters = s.bytes().take_while(u8::is_ascii_uppercase).count();
    let rest = s[letters..].trim_start_matches('-');
    let algorithm =
        (2..=5).contains(&letters) && !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    (!algorithm).then_some(value)
}

/// A value named in a sentence: quoted, anything; bare, not a word of prose.
pub(super) fn prose_value(text: &str, mut value: Range<usize>) -> Option<Range<usize>> {
    let quoted = text[..value.start].ends_with(['"', '\'', '`']);
    if quoted {
        return credential_value(text, value, &PASSWORD);
    }
    let trimmed = text[value.clone()].trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    value.end = value.start + trimmed.len();
    let s = trimmed;
    let plain_word = s
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'\'')
        && !random_letters(s)
        && !is_passphrase(s);
    let rejected = s.chars().count() < 6
        || plain_word
        || s.bytes().all(|b| b.is_ascii_digit())
        || s.contains("://")
        || is_placeholder(s)
        || is_reference(s)
        || is_path(s)
        || is_code(text, &value);
    (!rejected).then_some(value)
}

/// A token as a URL's user part must look generated: letters and digits both.
pub(super) fn random_looking(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    let letter = s.bytes().any(|b| b.is_ascii_alphabetic());
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    (letter && digit && !is_placeholder(s)).then_some(value)
}

/// The `sk-` key of a service other than OpenAI or Anthropic: its tail (after the last
/// `-`) holds letters and digits in no pattern, so `sk-` and a kebab-case name stay.
pub(super) fn sk_key(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    let tail = s.rsplit('-').next().unwrap_or(s);
    let letter = tail.bytes().any(|b| b.is_ascii_alphabetic());
    let digit = tail.bytes().any(|b| b.is_ascii_digit());
    (tail.len() >= 32 && letter && digit && class_changes(tail) >= 0.2).then_some(value)
}

/// A prefix, `_` or `-`, and a tail that reads as generated: not an identifier
/// (`test_ParseHttpHeader2WithUnicode`), a UUID or a hash (no upper case), nor an OpenAI
/// completion id (`chatcmpl-…`, which names a response, not a credential).
pub(super) fn prefixed_random_token(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    let (prefix, tail) = s.split_at(s.find(['_', '-'])?);
    let tail = &tail[1..];
    (prefix != "chatcmpl" && (looks_random(tail, 28, 0.4) || upper_and_digits(tail)))
        .then_some(value)
}

/// Upper-case letters and digits in no pattern (a base32 or upper-case token), 28 or more
/// of them, four digits or more, the kind changing at 15 places in 100 or more (a base32
/// string: 30 on average): not `SNAKE_CASE_NAME_2`, whose separators this excludes.
fn upper_and_digits(s: &str) -> bool {
    let kept: String = s.chars().filter(|&c| c != '_' && c != '-').collect();
    kept.len() >= 28
        && (s.len() - kept.len()) * 6 <= s.len()
        && kept
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        && kept.bytes().filter(u8::is_ascii_digit).count() >= 4
        && kept.bytes().filter(u8::is_ascii_uppercase).count() >= 4
        && class_changes(&kept) >= 0.15
}

/// A token named by its context (a cookie, a webhook, a prefix before hex digits): not a
/// hash or an id named as one (`sha256_…`, `commit_…`), nor a placeholder or reference.
pub(super) fn keyed_token(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    if is_dotted_hex_key(&text[value.clone()]) {
        // `main.<hash>.js` is a bundle's name.
        let extension = text[value.end..]
            .strip_prefix('.')
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic()));
        return (!extension).then_some(value);
    }
    if is_bootstrap_token(&text[value.clone()]) {
        return Some(value);
    }
    let s = text[value.clone()].to_ascii_lowercase();
    let hash = [
        "sha", "md5", "hash", "commit", "build", "blob", "tree", "rev", "git", "id_",
    ]
    .iter()
    .any(|p| s.starts_with(p));
    (!hash).then_some(value).and_then(|v| token_value(text, v))
}

/// A run of letters, digits and `_.=-` that reads as generated (dots and `=` aside), with
/// a digit in it; not a piece of a path or of base64 text (a public key's lines), an SSH
/// public key, a response's id (`chatcmpl-…`, `msg_…`) or hex digits after a short
/// prefix (a Twilio account SID, a hash). A full stop after it ends the sentence.
pub(super) fn generated_token(text: &str, mut value: Range<usize>) -> Option<Range<usize>> {
    const IDS: &[&str] = &[
        "chatcmpl",
        "msg_",
        "toolu_",
        "srvtoolu_",
        "req_",
        "call_",
        "resp_",
        "run_",
        "thread_",
        "asst_",
        "file-",
        "file_",
        "batch_",
        "step_",
        "AAAAB3Nza",
        "AAAAC3Nza",
        "AAAAE2VjZHNh",
    ];
    let raw = text[value.clone()].trim_end_matches(['.', '_', '-']);
    value.end = value.start + raw.len();
    let s: String = raw.chars().filter(|&c| c != '.' && c != '=').collect();
    let in_path = text[..value.start].ends_with(['/', '\\', '.', '@', '#', '+'])
        || text[value.end..].starts_with(['/', '+', '\\'])
        || text[value.end..]
            .trim_start_matches(['.', '_'])
            .starts_with("--");
    let hex = s
        .trim_start_matches(|c: char| c.is_ascii_uppercase())
        .bytes()
        .all(|b| b.is_ascii_hexdigit());
    (!in_path
        && !hex
        && !IDS.iter().any(|id| raw.starts_with(id))
        && s.bytes().any(|b| b.is_ascii_digit())
        && looks_random(&s, 32, 0.4))
    .then_some(value)
}

/// Recovery codes: two or more, most of them holding a digit.
pub(super) fn recovery_codes(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let codes: Vec<&str> = text[value.clone()]
        .split([' ', '\t', ','])
        .filter(|c| !c.is_empty())
        .collect();
    let with_digit = codes
        .iter()
        .filter(|c| c.bytes().any(|b| b.is_ascii_digit()))
        .count();
    (codes.len() >= 2 && with_digit * 2 > codes.len()).then_some(value)
}

/// A token whose parts, dots aside, read as generated.
pub(super) fn random_token(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s: String = text[value.clone()].chars().filter(|&c| c != '.').collect();
    looks_random(&s, 28, 0.4).then_some(value)
}

/// At least `min_len` characters that read as generated: upper and lower case, few `_`
/// or `-` (a snake_case name has one every few letters), a kind of character (upper,
/// lower, digit, symbol) that changes at `min_changes` of the places or more (a random
/// string: about six in ten; a `CamelCase2Name`: two or three), and under half of it in
/// runs of three or more lower-case letters (the words of `SetExcFromWindowsErr`).
fn looks_random(s: &str, min_len: usize, min_changes: f64) -> bool {
    let kept: String = s.chars().filter(|&c| c != '_' && c != '-').collect();
    let separators = s.len() - kept.len();
    let mut in_words = 0;
    let mut run = 0;
    for b in kept.bytes().chain([b' ']) {
        if b.is_ascii_lowercase() {
            run += 1;
        } else {
            if run >= 3 {
                in_words += run;
            }
            run = 0;
        }
    }
    s.len() >= min_len
        && separators * 6 <= s.len()
        && kept.bytes().any(|b| b.is_ascii_uppercase())
        && kept.bytes().any(|b| b.is_ascii_lowercase())
        && class_changes(&kept) >= min_changes
        && in_words * 2 < kept.len()
}

/// How often the kind of character (upper case, lower case, digit, other) changes from one
/// character to the next, from 0 to 1.
fn class_changes(s: &str) -> f64 {
    let class = |b: &u8| {
        if b.is_ascii_uppercase() {
            0
        } else if b.is_ascii_lowercase() {
            1
        } else if b.is_ascii_digit() {
            2
        } else {
            3
        }
    };
    let bytes = s.as_bytes();
    if bytes.len() < 2 {
        return 0.0;
    }
    let changes = bytes
        .windows(2)
        .filter(|w| class(&w[0]) != class(&w[1]))
        .count();
    #[allow(clippy::cast_precision_loss)]
    let ratio = changes as f64 / (bytes.len() - 1) as f64;
    ratio
}

/// A service's prefix, a dot and 40 hex digits or more (`mlsn.…`): `a.b` reads as code to
/// `is_code`, but no name runs to 40 hex digits.
fn is_dotted_hex_key(s: &str) -> bool {
    s.split_once('.').is_some_and(|(prefix, hex)| {
        prefix
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            && hex.len() >= 40
            && hex.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// A word that reads as a generated password, wherever it stands: 10 to 64 characters,
/// upper and lower case, digits and a symbol (`!#$%^&*+=?@~`, not first), the kind of
/// character changing at 45 places in 100 or more and few vowels among its letters; the
/// whole whitespace-delimited token holds no `/` or `\` (a path, a URL) and is no line of
/// base64 (a public key's body), it is no address (`bob@Mail2.example`), and no operator
/// of code (`==`, `+=`, `->`, `&&`) is in it. A full stop, comma or `!`/`?` ending a
/// sentence after it is not part of it, nor a key before `=`, nor a query string's next
/// `&name=…`; a version (`v2.3.1-rc1+Build7`) is none.
pub(super) fn generated_password(text: &str, mut value: Range<usize>) -> Option<Range<usize>> {
    const SYMBOLS: &[u8] = b"!#$%^&*+=?@~";
    const OPERATORS: &[&str] = &[
        "==", "!=", "+=", "-=", "*=", "=>", "->", "&&", "||", "::", "<=", ">=", "..",
    ];
    let token_end = run_end(text, value.end, 256, char::is_whitespace);
    let token_start = run_start(text, value.start, 256, char::is_whitespace);
    let token = &text[token_start..token_end];
    // A line of base64 (a public key's body) is no password.
    let base64 = token.len() >= 40
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    if token.contains(['/', '\\']) || base64 {
        return None;
    }
    let next = text[value.end..].chars().next();
    if next.is_some_and(|c| !c.is_whitespace() && !"\"'`),;]}>:".contains(c)) {
        return None;
    }
    let trimmed = text[value.clone()].trim_end_matches(['.', ',', '!', '?']);
    value.end = value.start + trimmed.len();
    // `KEY=value`: the value alone (the assignment rules name it).
    if let Some(eq) = trimmed.find('=') {
        let key = &trimmed[..eq];
        if key.len() >= 2
            && key.starts_with(|c: char| c.is_ascii_alphabetic())
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        {
            value.start += eq + 1;
        }
    }
    // `…&page=2`: a query string's next parameter is not part of it.
    if let Some(amp) = text[value.clone()].find('&') {
        let rest = &text[value.start + amp + 1..value.end];
        let key = rest.find('=').map_or("", |eq| &rest[..eq]);
        if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            value.end = value.start + amp;
        }
    }
    let s = &text[value.clone()];
    let bytes = s.as_bytes();
    let address = s.split_once('@').is_some_and(|(_, host)| {
        host.rsplit_once('.')
            .is_some_and(|(_, tld)| tld.len() >= 2 && tld.bytes().all(|b| b.is_ascii_alphabetic()))
    });
    let shaped = (10..=64).contains(&s.len())
        && bytes.iter().any(u8::is_ascii_uppercase)
        && bytes.iter().any(u8::is_ascii_lowercase)
        && bytes.iter().any(u8::is_ascii_digit)
        && bytes[1..].iter().any(|b| SYMBOLS.contains(b))
        && class_changes(s) >= 0.45
        && vowel_share(s) < 0.4;
    // `v2.3.1-rc1+Build7`: two numbers between dots are a version.
    let version = s
        .split(['.', '-', '+'])
        .filter(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
        .count()
        >= 2;
    (shaped
        && !address
        && !version
        && !OPERATORS.iter().any(|op| s.contains(op))
        && !is_placeholder(s)
        && !is_reference(s))
    .then_some(value)
}

/// Where the run of characters ending at `at` starts: after the last `stop` before it, but
/// at most `limit` bytes back, so a check made at every find of a long line (a minified
/// file) stays linear.
fn run_start(text: &str, at: usize, limit: usize, stop: impl Fn(char) -> bool) -> usize {
    let mut from = at.saturating_sub(limit);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    text[from..at]
        .char_indices()
        .rev()
        .find(|&(_, c)| stop(c))
        .map_or(from, |(i, c)| from + i + c.len_utf8())
}

/// Where the run of characters starting at `at` ends: at the first `stop`, but at most
/// `limit` bytes on.
fn run_end(text: &str, at: usize, limit: usize, stop: impl Fn(char) -> bool) -> usize {
    let mut to = (at + limit).min(text.len());
    while !text.is_char_boundary(to) {
        to -= 1;
    }
    text[at..to].find(stop).map_or(to, |i| at + i)
}

/// A Kubernetes bootstrap token: six and sixteen lower-case letters or digits, joined by a
/// dot (`abcdef.0123456789abcdef`).
fn is_bootstrap_token(s: &str) -> bool {
    let token = |part: &str, len: usize| {
        part.len() == len
            && part
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    };
    s.split_once('.')
        .is_some_and(|(id, secret)| token(id, 6) && token(secret, 16))
}

/// The first word of the 60 characters after `label` (a word naming a password, a token
/// or a login), on its line, that reads as generated: eight characters or more, upper and
/// lower case and digits mixed, or letters with digits and symbols, or letters in no pattern
/// of words; never an address, a path, a number or a placeholder. Punctuation around the
/// word is not part of it. When the line asks for the value (it ends in `?`), the next line
/// is read too ("Can you confirm the password?" / "Sure, it's …"); when nothing after the
/// label reads as generated, the 60 characters before it on its line are read back from
/// the label, strictly ("… is my actual password", "… ← the old one got rotated").
pub(super) fn generated_word_in(text: &str, label: Range<usize>) -> Option<Range<usize>> {
    // The kind named in one of redact's own markers is no label.
    if text[..label.start].ends_with("[REDACTED:") {
        return None;
    }
    let label_word = text[label.clone()].to_lowercase();
    let mut window = label.end..line_window_end(text, label.end);
    let asks = text[label.end..]
        .split(['\r', '\n'])
        .next()
        .is_some_and(|rest| rest.trim_end().ends_with('?'));
    if asks {
        // The answer on the next line.
        let next = text[window.end..]
            .find('\n')
            .map(|at| window.end + at + 1)
            .filter(|&at| at < text.len());
        if let Some(next) = next {
            let answer = next..line_window_end(text, next);
            if let Some(found) = value_after(text, answer, &label_word, false) {
                return Some(found);
            }
        }
    }
    // A value glued to the label (`password=…`) is an assignment's, not this rule's.
    let glued = text[window.clone()]
        .chars()
        .next()
        .is_some_and(|c| !c.is_whitespace());
    if let Some(found) = value_after(text, window.clone(), &label_word, glued) {
        return Some(found);
    }
    // Else a value alone on the line right below ("sending the password in its own
    // message", then it): letters and digits, and neither an address, a path nor code.
    let rest = &text[window.end..];
    if let Some(below) = rest
        .strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))
    {
        let line = below.split(['\r', '\n']).next().unwrap_or_default();
        let at = text.len() - below.len();
        let mut words = line.split_whitespace();
        if let (Some(word), None) = (words.next(), words.next()) {
            let at = at + (word.as_ptr() as usize - line.as_ptr() as usize);
            let lone_value = word.len() >= 8
                && word.bytes().any(|b| b.is_ascii_alphabetic())
                && word
                    .bytes()
                    .any(|b| b.is_ascii_digit() || b"!#$%^&*+=?~".contains(&b))
                && !word.contains(['/', '\\', ':', '(', ')', '<', '>', '"', '\'', '`'])
                && !word
                    .split_once('@')
                    .is_some_and(|(_, host)| host.contains('.'))
                && !is_placeholder(word)
                && !is_reference(word);
            if lone_value {
                return Some(at..at + word.len());
            }
        }
    }
    // Back from the label only a word with digits or symbols among its letters: capitals
    // alone are a shout (`IGNORE PREVIOUS INSTRUCTIONS`), not a password.
    window = line_window_start(text, label.start)..label.start;
    words_of(&text[window.clone()])
        .rev()
        .find_map(|(from, word)| {
            let (offset, trimmed) = trim_word(word);
            let at = window.start + from + offset;
            // Nor a name (`ConvertTo-SecureString`), an assignment (`timeout=1) except:
            // pass`) or a key: a digit or a symbol, and no `=` or `:`.
            let not_letters = trimmed
                .bytes()
                .any(|b| b.is_ascii_digit() || b"!@#$%^&*+?~".contains(&b))
                && !trimmed.contains(['=', ':']);
            (foreign_value(&label_word, trimmed)
                || (not_letters && reads_generated(trimmed))
                || mixed_value(trimmed))
            .then(|| at..at + trimmed.len())
        })
}

/// Where the 60 characters after `at` on its line end, the word they end in read whole.
fn line_window_end(text: &str, at: usize) -> usize {
    let rest = &text[at..];
    rest.char_indices()
        .enumerate()
        .find(|&(n, (_, c))| n == 60 || c == '\r' || c == '\n')
        .map_or(text.len(), |(n, (i, _))| {
            if n == 60 {
                run_end(text, at + i, 256, char::is_whitespace)
            } else {
                at + i
            }
        })
}

/// Where the 60 characters before `at` on its line start, the word they start in read
/// whole.
fn line_window_start(text: &str, at: usize) -> usize {
    let before = &text[..at];
    before
        .char_indices()
        .rev()
        .enumerate()
        .find(|&(n, (_, c))| n == 60 || c == '\r' || c == '\n')
        .map_or(0, |(n, (i, c))| {
            if n == 60 {
                run_start(text, i, 256, char::is_whitespace)
            } else {
                i + c.len_utf8()
            }
        })
}

/// The words of `s` split at whitespace, with their byte offsets.
fn words_of(s: &str) -> impl DoubleEndedIterator<Item = (usize, &str)> {
    s.split_whitespace()
        .map(move |word| (word.as_ptr() as usize - s.as_ptr() as usize, word))
}

/// A word without the punctuation and quote marks around it, and where it starts in it.
fn trim_word(word: &str) -> (usize, &str) {
    let trimmed = word
        .trim_start_matches(['(', '[', '{', '<', '"', '\'', '`', '«', '“', '„', '‚', '‘'])
        .trim_end_matches([
            '.', ',', ';', ':', '!', '?', ')', ']', '}', '>', '"', '\'', '`', '»', '”', '“', '’',
        ]);
    (word.find(trimmed).unwrap_or(0), trimmed)
}

/// After a label in another script (`رمز عبور مودم … هست`), a word in Latin letters among
/// that script's words is the value wherever it stands.
fn foreign_value(label_word: &str, word: &str) -> bool {
    !label_word.is_ascii()
        && word.len() >= 8
        && word.bytes().all(|b| b.is_ascii_alphanumeric())
        && (word.bytes().any(|b| b.is_ascii_digit())
            || (word.bytes().any(|b| b.is_ascii_uppercase())
                && word.bytes().any(|b| b.is_ascii_lowercase())))
}

/// Near a label, a word of letters of both cases and two digits or more whose kind changes
/// at more than half its places (`a0IIxx2ElDbf`, not `iPhone15Pro`), or a long token of
/// letters and digits joined by `.`, `-`, `_`, `!`, `~`, `+`, `/` or `=` (a Zoho or
/// Salesforce token, a base64 key): generated, whatever share of its letters are vowels.
fn mixed_value(word: &str) -> bool {
    let bytes = word.as_bytes();
    let digits = bytes.iter().filter(|b| b.is_ascii_digit()).count();
    let letters = bytes.iter().filter(|b| b.is_ascii_alphabetic()).count();
    let mixed = word.len() >= 10
        && bytes.iter().all(u8::is_ascii_alphanumeric)
        && bytes.iter().any(u8::is_ascii_uppercase)
        && bytes.iter().any(u8::is_ascii_lowercase)
        && digits >= 2
        && class_changes(word) > 0.55;
    let long = word.len() >= 24
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"._-!~+/=".contains(b))
        && digits >= 4
        && letters >= 4
        && !word.starts_with(['/', '.', '~'])
        && !word.contains("//")
        && class_changes(word) >= 0.3;
    mixed || long
}

/// Six characters or more that no word is spelled as: not lower case, `Capitalised` or
/// upper case letters alone (`ImaUaJlwKX`, `1HOLNnjenj`; not `Excel`, `PDF`, `acrobat`).
fn unusual_word(s: &str) -> bool {
    let bytes = s.as_bytes();
    let tail = bytes.get(1..).unwrap_or_default();
    let spelled = bytes.iter().all(u8::is_ascii_alphabetic)
        && (tail.iter().all(u8::is_ascii_lowercase) || bytes.iter().all(u8::is_ascii_uppercase));
    s.len() >= 6 && s.is_ascii() && !spelled && !is_placeholder(s) && !is_reference(s)
}

/// The first word of `window` that reads as a value: where a value is said (right after
/// the label or its inflection, after `:`, `=`, a copula, "from" or "to") a word need only
/// look typed ("wifi ka password Xk2pq9wb hai", "mdp du compte : …", "jelszava …", "είναι
/// …", "login from … to …"); elsewhere it must read as generated. After a PIN or a
/// network's name it must always. `glued`: the window starts inside the label's word.
fn value_after(
    text: &str,
    window: Range<usize>,
    label_word: &str,
    glued: bool,
) -> Option<Range<usize>> {
    let line = &text[window.clone()];
    let strict_label = ["pin", "wi"].iter().any(|w| label_word.starts_with(w));
    // "(an encrypted file) opens with …": what follows is the password if it is no word.
    let with_label = label_word.ends_with("with");
    let inflected = glued
        && line
            .split(char::is_whitespace)
            .next()
            .is_some_and(|suffix| {
                suffix
                    .chars()
                    .all(|c| c.is_alphabetic() || c == '\'' || c == '’')
            });
    let mut next_is_value = !strict_label && (!glued || inflected);
    // Whether the word before said a value follows (`is`, `:`), not only the label.
    // `password’s …` says it too.
    let mut introduced = glued && inflected && line.starts_with(['\'', '’']);
    let mut skip = glued;
    for (from, word) in words_of(line) {
        if std::mem::take(&mut skip) && from == 0 {
            continue;
        }
        let (offset, trimmed) = trim_word(word);
        let said_next = std::mem::take(&mut next_is_value);
        let loose = foreign_value(label_word, trimmed)
            || (said_next
                && (reads_typed(trimmed)
                    || (std::mem::take(&mut introduced) && made_up_word(trimmed))
                    || (with_label && unusual_word(trimmed))));
        if loose || reads_generated(trimmed) || mixed_value(trimmed) {
            let at = window.start + from + offset;
            return Some(at..at + trimmed.len());
        }
        next_is_value = !strict_label && introduces_value(word);
        introduced = next_is_value;
    }
    None
}

/// Lower-case letters no language spells, long enough for a made-up word (`dcdsamga`): said
/// after its label and a word that introduces a value (`is`, `:`), such a word is the value.
fn made_up_word(s: &str) -> bool {
    s.len() >= 6 && s.bytes().all(|b| b.is_ascii_lowercase()) && unspelled(s)
}

/// How a lower-case word is spelled: whether it has a vowel (`y` counted), its longest run
/// of consonants, and whether it begins with two consonants that begin no English word.
struct Spelling {
    vowel: bool,
    run: usize,
    odd_onset: bool,
}

fn spelling(s: &str) -> Spelling {
    const ONSETS: &[&str] = &[
        "bl", "br", "ch", "cl", "cr", "dr", "dw", "fl", "fr", "gh", "gl", "gn", "gr", "kh", "kn",
        "ph", "pl", "pn", "pr", "ps", "sc", "sh", "sk", "sl", "sm", "sn", "sp", "sq", "st", "sv",
        "sw", "th", "tr", "ts", "tw", "wh", "wr", "kr", "kl", "zw", "sz", "pf",
    ];
    let vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
    let onset = s.split(vowel).next().unwrap_or_default();
    Spelling {
        vowel: s.contains(vowel),
        run: s.split(vowel).map(str::len).max().unwrap_or(0),
        odd_onset: onset.len() >= 2 && !ONSETS.contains(&&onset[..2]),
    }
}

/// A lower-case word no language spells: no vowel, four consonants in a row, or few vowels
/// with three in a row or two at the start that begin no English word (`gsimhefx`).
fn unspelled(s: &str) -> bool {
    let Spelling {
        vowel,
        run,
        odd_onset,
    } = spelling(s);
    !vowel || run >= 4 || (vowel_share(s) < 0.3 && ((s.len() >= 8 && run >= 3) || odd_onset))
}

/// A word of a made-up phrase: no vowel, three consonants in a row, two at the start that
/// begin no English word, or a `q` without `u`.
fn odd_word(s: &str) -> bool {
    let Spelling {
        vowel,
        run,
        odd_onset,
    } = spelling(s);
    !vowel || run >= 3 || odd_onset || (s.contains('q') && !s.contains("qu"))
}

/// A word after which a value is said: `:`, `=`, a dash, a word ending in `:`, a copula
/// (in the languages `redact` reads), "from", "to".
fn introduces_value(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "is",
        "was",
        "are",
        "from",
        "to",
        "est",
        "ist",
        "lautet",
        "era",
        "fue",
        "è",
        "é",
        "foi",
        "jest",
        "är",
        "adalah",
        "là",
        "είναι",
        "ήταν",
        "hai",
        "e",
        "este",
        "és",
        "er",
        "ialah",
        "ni",
        "היא",
        "הוא",
        "it's",
        "it’s",
        "with",
    ];
    matches!(word, ":" | "=" | "-" | "–" | "—")
        || word.ends_with(':')
        || WORDS.contains(&word.to_lowercase().as_str())
}

/// A word typed as a value: eight characters or more, letters with digits or symbols (or
/// mixed-case letters in no pattern, or joined by `_`, `-`, `.` in no pattern), and not an
/// address, a host name, a version or a dotted name (`process.env.API_KEY`), code, a
/// placeholder or a reference.
fn reads_typed(s: &str) -> bool {
    let letters = s.bytes().any(|b| b.is_ascii_alphabetic());
    // Two digits, or one among letters that change case (not `1Password`).
    let digits = match s.bytes().filter(u8::is_ascii_digit).count() {
        0 => false,
        1 => class_changes(s) >= 0.3,
        _ => true,
    };
    // `_`, `-` and `.` join words and names too (`e-mail_address`, `process.env.KEY`).
    let symbol = s.len() > 2
        && s.as_bytes()[1..s.len() - 1]
            .iter()
            .any(|b| b"!@#$%^&*+=?~".contains(b));
    // Each part a name: lower case (with digits, `_`, `-`), upper case, or a capital and
    // lower case.
    let name = |part: &str| {
        let bytes = part.as_bytes();
        let tail = bytes.get(1..).unwrap_or_default();
        !part.is_empty()
            && (bytes.iter().all(|&b| !b.is_ascii_uppercase())
                || bytes.iter().all(|&b| !b.is_ascii_lowercase())
                || tail.iter().all(|&b| !b.is_ascii_uppercase()))
            && bytes
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    let dotted = s.contains('.') && s.split('.').all(name);
    let mixed_case =
        s.bytes().any(|b| b.is_ascii_uppercase()) && s.bytes().any(|b| b.is_ascii_lowercase());
    let joined = mixed_case
        && s.len() > 2
        && s.as_bytes()[1..s.len() - 1]
            .iter()
            .any(|b| b"_-.".contains(b))
        && class_changes(s) >= 0.3;
    // Letters alone, a symbol or two at an end aside (`XJmmhFwIlId~`), in no pattern of
    // words: not `PlainAuth`.
    let core = s.trim_matches(|c: char| "!@#$%^&*+=?~".contains(c));
    let unspelled_letters = random_letters(core) && vowel_share(core) < 0.35;
    s.len() >= 8
        && s.is_ascii()
        && letters
        && (digits || symbol || joined || unspelled_letters)
        && !is_address(s)
        && !dotted
        && !s.contains("://")
        && !s.starts_with(['/', '~', '.'])
        && !s.contains([
            '(', ')', '[', ']', '{', '}', '<', '>', '"', '\'', ',', ';', '\\',
        ])
        && !is_placeholder(s)
        && !is_reference(s)
}

/// Whether `s` reads as an e-mail address: a user, an `@` and a host whose last part is
/// two letters or more of one case (`.com`, `.COM`; not `F@D1Y.vtpeZI`).
fn is_address(s: &str) -> bool {
    s.split_once('@').is_some_and(|(user, host)| {
        !user.is_empty()
            && host.rsplit_once('.').is_some_and(|(_, tld)| {
                tld.len() >= 2
                    && (tld.bytes().all(|b| b.is_ascii_lowercase())
                        || tld.bytes().all(|b| b.is_ascii_uppercase()))
            })
    })
}

fn reads_generated(s: &str) -> bool {
    if s.len() < 8 || !s.is_ascii() || s.bytes().all(|b| b.is_ascii_lowercase()) {
        return false;
    }
    let name = |part: &str| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    let address = s.contains("://")
        || s.starts_with(['/', '~', '.', '\\'])
        || s.split_once('@').is_some_and(|(user, host)| {
            host.contains('.')
                || (name(user) && name(host) && !s.bytes().any(|b| b.is_ascii_uppercase()))
        });
    // Code, not a password: `input("Password: ")`, an escaped line break.
    let code = s.contains([
        '(', ')', '[', ']', '{', '}', '<', '>', '"', '\'', ',', ';', '\\',
    ]);
    if address || code || is_placeholder(s) || is_reference(s) {
        return false;
    }
    let letters = s.bytes().any(|b| b.is_ascii_alphabetic());
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    // A symbol between letters or digits (not a full stop or a dash ending the word).
    let inner = &s.as_bytes()[1..s.len() - 1];
    let symbol = inner.iter().any(|b| b"!@#$%^&*+=?~".contains(b));
    // Words are spelled with vowels (`iPhone15Pro`, `Settings2`); generated letters draw
    // one in five, and change between upper case, lower case and digits at every other
    // character.
    let unspelled = vowel_share(s) < 0.35;
    letters
        && (symbol
            || (digit && unspelled && class_changes(s) >= 0.3)
            || (!digit && unspelled && random_letters(s)))
}

/// The share of a text's letters that are vowels (`a e i o u`, either case).
fn vowel_share(s: &str) -> f64 {
    let letters = s.bytes().filter(u8::is_ascii_alphabetic).count();
    let vowels = s.bytes().filter(|b| b"aeiouAEIOU".contains(b)).count();
    #[allow(clippy::cast_precision_loss)]
    let share = vowels as f64 / letters.max(1) as f64;
    share
}

/// Words typed as a passphrase that no language spells (under three letters in ten are
/// vowels, where a sentence has about four), or an app password: four groups of four
/// letters named as one.
pub(super) fn made_up_words(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let words: Vec<&str> = text[value.clone()].split_whitespace().collect();
    let near = |range: Range<usize>| {
        let (mut start, mut end) = (range.start, range.end);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        while !text.is_char_boundary(end) {
            end += 1;
        }
        text[start..end]
            .to_ascii_lowercase()
            .contains("app password")
    };
    let app_password = near(value.start.saturating_sub(80)..value.start)
        || near(value.end..(value.end + 80).min(text.len()));
    let four_by_four = words.len() == 4 && words.iter().all(|w| w.len() == 4);
    // Few vowels in all, or half the words or more spelled by no language.
    let made_up = vowel_share(&text[value.clone()]) < 0.3
        || words.iter().filter(|w| odd_word(w)).count() * 2 >= words.len();
    ((app_password && four_by_four) || made_up).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `in_secret_block` as it was before the lines were walked with `lines_back`, kept to
    /// show the faster walk decides alike.
    fn in_secret_block_before(text: &str, value: Range<usize>) -> Option<Range<usize>> {
        const NAMES: &[&str] = &[
            "tokens",
            "secrets",
            "credentials",
            "passwords",
            "token",
            "secret",
            "oauth",
        ];
        let indent = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
        let line_start = text[..value.start].rfind('\n').map_or(0, |i| i + 1);
        let own = indent(&text[line_start..value.start]);
        let parent = text[..line_start]
            .lines()
            .rev()
            .take(200)
            .filter(|l| !l.trim().is_empty())
            .find(|l| {
                if own == 0 {
                    l.starts_with('[')
                } else {
                    indent(l) < own
                }
            })?;
        let header = parent
            .trim()
            .trim_start_matches(['[', '"', '\''])
            .trim_end_matches(['{', ':', '=', ']', '"', '\'', ' ', '\t'])
            .trim_end_matches(['"', '\'', ' ', '\t'])
            .to_ascii_lowercase();
        let name = header
            .rsplit(['.', ' ', '_', '-'])
            .next()
            .unwrap_or(&header);
        if !NAMES.contains(&name) {
            return None;
        }
        let value = password_value(text, value)?;
        let s = &text[value.clone()];
        let word = s
            .bytes()
            .all(|b| b.is_ascii_alphabetic() || matches!(b, b'-' | b'_' | b'.'))
            && !random_letters(s);
        let number = s.bytes().all(|b| b.is_ascii_digit());
        (s.len() >= 6 && !word && !number).then_some(value)
    }

    /// Lines of config and prose: section headers, keys naming secrets or not, indented
    /// values, blank lines (Unicode spaces and `\r` too) and anything printable.
    fn line() -> impl Strategy<Value = String> {
        let fixed: &[&str] = &[
            "[secrets]",
            "[server]",
            "[app.tokens]",
            "  [oauth]",
            "[\"credentials\"]",
            "",
            "   ",
            "\t",
            "\u{3000}",
            " \u{a0}",
            "\r",
            "secrets:",
            "  tokens:",
            "server:",
            "\tpasswords = {",
            "  github: Xk39fQ2mZp71Lw",
            "    api = \"b7Gq2LmZp0aT\"",
            "mailer = \"Xk39fQ2mZp71Lw\"",
            "  backend = vault",
            "expires_at: 1234567890",
            "- [ ] a task",
        ];
        prop_oneof![
            4 => proptest::sample::select(fixed).prop_map(str::to_owned),
            1 => "[ -~\t]{0,16}",
            1 => "[ \t\u{a0}é\\[a-z0-9:=\"]{0,10}",
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        let short = proptest::collection::vec(line(), 0..24);
        // A header about 200 lines above the values, with nothing between that could be a
        // parent (blank or deeply indented lines), so the limit decides.
        let filler: &[&str] = &["", "  ", "\u{3000}", "        deep = 1", "\t\t- item"];
        let long = (
            line(),
            proptest::collection::vec(
                proptest::sample::select(filler).prop_map(str::to_owned),
                196..204,
            ),
            proptest::collection::vec(line(), 1..3),
        )
            .prop_map(|(header, filler, tail)| {
                let mut lines = vec![header];
                lines.extend(filler);
                lines.extend(tail);
                lines
            });
        (prop_oneof![short, long], any::<bool>())
            .prop_map(|(lines, crlf)| lines.join(if crlf { "\r\n" } else { "\n" }))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Every value of the text, from each of the last characters of each line to the
        /// whitespace after it, is decided as before.
        #[test]
        fn in_secret_block_decides_as_before(text in text(), pick in any::<prop::sample::Index>()) {
            let starts: Vec<usize> = text
                .char_indices()
                .filter(|&(i, c)| {
                    !c.is_whitespace()
                        && (i == 0 || text[..i].ends_with([' ', '\t', '=', ':', '"', '\n']))
                })
                .map(|(i, _)| i)
                .collect();
            prop_assume!(!starts.is_empty());
            // The last few values and one anywhere: the last lines are the ones that sit
            // 200 lines below a header.
            let mut tried: Vec<usize> = starts.iter().rev().take(4).copied().collect();
            tried.push(starts[pick.index(starts.len())]);
            for start in tried {
                let end = text[start..]
                    .find(char::is_whitespace)
                    .map_or(text.len(), |i| start + i);
                prop_assert_eq!(
                    in_secret_block(&text, start..end),
                    in_secret_block_before(&text, start..end),
                    "{:?} at {}..{}", text, start, end
                );
            }
        }

        /// `section_header` finds what the walk over `lines_back` finds, for any text, with
        /// lines long and short around the 1,024-byte blocks it counts newlines in.
        #[test]
        fn section_header_is_the_nearest_bracketed_line(
            lines in proptest::collection::vec("\\[?[a\r \u{3000}]{0,3}|x{0,1500}", 0..60),
            limit in 0usize..60,
        ) {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let want = lines_back(&text)
                .take(limit)
                .filter(|l| !l.trim().is_empty())
                .find(|l| l.starts_with('['));
            prop_assert_eq!(section_header(&text, limit), want);
        }

        /// `lines_back` is `lines().rev()`, for any text.
        #[test]
        fn lines_back_reads_the_lines_last_first(text in "[a\n\r \u{3000}é]{0,24}") {
            let want: Vec<&str> = text.lines().rev().collect();
            prop_assert_eq!(lines_back(&text).collect::<Vec<_>>(), want);
        }
    }
}
