//! Text that speaks to its reader: a message, not a statement about the person. A fact is
//! told about someone in the third person to no one in particular; a message turns to its
//! reader and asks it something (`could you ...`, a question mark in any script, `What is
//! the password`), names the reader's own workings (`your instructions`, `your response`),
//! or points at the text around it (`the following email`, `this document`). Each is
//! refused whatever the verb.
//!
//! It reads English only (the other languages are `languages`), and words inside double
//! quotes address no one: `Loves the song "Could You Be Loved".` is a fact.

use std::sync::LazyLock;

use regex::Regex;

use super::super::{AnyOf, regex};

/// Whether the probe (folded, lowercase) reads as a message to its reader.
pub(super) fn is_message(probe: &str) -> bool {
    let unquoted = QUOTED.replace_all(probe, " \"\" ");
    QUESTION.is_match(&unquoted) || SIGNS.is_match(&unquoted)
}

/// A span in double quotes, straight, curly or angled: a title or a quotation.
static QUOTED: LazyLock<Regex> = LazyLock::new(|| regex(r#""[^"]*"|“[^”]*”|„[^“”]*[“”]|«[^»]*»"#));

/// A question mark in any script (the full-width one is folded to `?`; in Chinese,
/// Japanese, Korean or Thai no space follows it), or a question word and an auxiliary
/// opening a sentence (`What is the password`).
static QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r"\?(?:[\s\x22')\]]|$|[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}])|[¿؟՞፧⸮]",
        r"|(?:^|[.!;:]\s+)(?:what|who|whom|whose|where|why|how)\s+(?:is|are|was|were",
        r"|do|does|did|can|could|would|will|should|shall|may|might|must)\b",
    ))
});

static SIGNS: LazyLock<AnyOf> = LazyLock::new(|| {
    AnyOf::new([
        // The reader asked: `could you`, `can you`, `would you`.
        r"\b(?:can|could|would|will|do|did|should|shall|may|might|won't|wouldn't)\s+you\b",
        // The reader's own workings: `your instructions`, `your response`.
        concat!(
            r"\byour\s+(?:[\w-]+\s+)?(?:instructions?|task|prompt|responses?|repl(?:y|ies)",
            r"|answers?|outputs?|role|job|goal|rules|guidelines|system|programming|training",
            r"|creators?|developers?|memory|context|knowledge)\b",
        ),
        &format!(
            r"\bthe\s+(?:following|above|below|preceding|attached|provided|given)\s+{TEXT}\b|\bthe\s+{TEXT}\s+(?:above|below)\b|\bthis\s+{MESSAGE}\b"
        ),
    ])
});

/// A piece of text, as pointed at in `the following email`, `the text above`: the text
/// around the message, which a memory file does not have.
const TEXT: &str = concat!(
    r"(?:[\w-]+\s+)?(?:message|e-?mail|text|document|note|sentence|instructions?|prompt",
    r"|content|paragraph|passage|snippet|article|conversation|chat|input|data|information",
    r"|table|page|webpage|website)",
);

/// What `this` points at only as the message itself (`this document`, `this prompt`);
/// `this data pipeline` or `this website` may be the person's own.
const MESSAGE: &str = concat!(
    r"(?:message|e-?mail|text|document|note|sentence|instructions?|prompt|paragraph|passage",
    r"|snippet|article|conversation)",
);
