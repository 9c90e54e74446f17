//! Where the value after a key starts and ends, for the assignment rules: past a chain of
//! labels (`password: home nas: <value>`), and through the symbols in a bare value
//! (`Tr0ub4dor&3`, `p4ss;word`) up to whitespace, but not into a URL's next parameter or
//! the punctuation that closes a sentence or a bracket around the value.
//!
//! It only moves a value's bounds; whether the value is a secret is `rules`' decision.

use std::ops::Range;

/// At most this many labels are skipped after a key.
const MAX_LABELS: usize = 3;
/// At most this many words make one label (`home nas:`).
const MAX_LABEL_WORDS: usize = 4;

/// Where the value after a chain of labels starts, when the text at `value` is one:
/// `nas: hunter2` after `password: ` is the label `nas` and the value `hunter2`. A label
/// is up to four words of letters, digits and `_.-/`, the last ending in `:` and a space or
/// tab, on the value's line. A quoted value after the labels comes back as the range
/// inside its quotes, with `true`; a bare one as where it starts (an empty range).
pub(super) fn after_labels(text: &str, value: &Range<usize>) -> Option<(Range<usize>, bool)> {
    let line_end = text[value.start..]
        .find(['\r', '\n'])
        .map_or(text.len(), |i| value.start + i);
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '/');
    let mut at = value.start;
    let mut labels = 0;
    'labels: while labels < MAX_LABELS {
        let mut word_start = at;
        for _ in 0..MAX_LABEL_WORDS {
            let word_len = text[word_start..line_end]
                .find(|c: char| !is_word(c))
                .unwrap_or(line_end - word_start);
            let after = &text[word_start + word_len..line_end];
            if word_len == 0 {
                break;
            }
            if let Some(gap) = after.strip_prefix(':') {
                if !gap.starts_with([' ', '\t']) {
                    break;
                }
                at = line_end - gap.trim_start().len();
                labels += 1;
                continue 'labels;
            }
            if !after.starts_with(' ') {
                break;
            }
            word_start += word_len + 1;
        }
        break;
    }
    if labels == 0 || at >= line_end {
        return None;
    }
    let rest = &text[at..line_end];
    if let Some(quote) = rest
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'))
    {
        let close = rest[1..].find(quote)?;
        return (close > 0).then(|| (at + 1..at + 1 + close, true));
    }
    Some((at..at, false))
}

/// A bare value grown from where its pattern stopped (at a symbol such as `&`, `;` or a
/// bracket) to the next whitespace, quote or backslash, then trimmed of what closes a
/// sentence (`.,;:`) or a bracket opened before it. It never ends before `value` does. In a URL (the value's word holds `?`,
/// `&` or `://` before it), and wherever `&name=` follows, `&` starts the next parameter.
/// Where `text` goes on after the last character `is` holds for (0 if none): past the
/// whole character, which may be more than one byte (a no-break space, an `é`).
pub(super) fn after_last(text: &str, is: impl Fn(char) -> bool) -> usize {
    text.char_indices()
        .rfind(|&(_, c)| is(c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

pub(super) fn whole_bare_value(text: &str, value: &Range<usize>) -> Range<usize> {
    let word_start = after_last(&text[..value.start], char::is_whitespace);
    let in_url = text[word_start..value.start].contains(['?', '&'])
        || text[word_start..value.start].contains("://");
    let mut end = value.start;
    for (offset, c) in text[value.start..].char_indices() {
        let at = value.start + offset;
        if c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '\\') {
            break;
        }
        if c == '&' && (in_url || next_parameter(&text[at + 1..])) {
            break;
        }
        if text[at..].starts_with("[REDACTED:") {
            break;
        }
        end = at + c.len_utf8();
    }
    let mut end = end.max(value.end);
    loop {
        let s = &text[value.start..end];
        let Some(last) = s.chars().next_back() else {
            break;
        };
        let unbalanced = |open: char| s.matches(open).count() < s.matches(last).count();
        let trim = match last {
            '.' | ',' | ';' | ':' => true,
            ')' => unbalanced('('),
            ']' => unbalanced('['),
            '}' => unbalanced('{'),
            '>' => unbalanced('<'),
            _ => false,
        };
        if !trim || end - 1 <= value.start {
            break;
        }
        end -= 1;
    }
    value.start..end
}

/// Whether `rest` (what follows an `&`) reads as another parameter: `name=`.
fn next_parameter(rest: &str) -> bool {
    let name = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'[' | b']'))
        .count();
    name > 0 && rest.as_bytes().get(name) == Some(&b'=')
}
