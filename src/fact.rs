//! Facts: what an extractor proposes (`Candidate`), what the ledger keeps (`Fact`), the
//! normalised key that decides when two texts say the same thing, and the look-alike fold
//! (`fold_lookalikes`) that reads `Ignоrе` with Cyrillic letters as `ignore`. The policy filter that
//! refuses candidates which are instructions rather than facts lives in `policy` and is
//! re-exported here (`check`, `Refusal`, `MAX_FACT_CHARS`).
//!
//! Pure: no I/O, no clock. Merging against existing facts lives in `merge`.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

mod policy;

pub use policy::{Caution, MAX_FACT_CHARS, Refusal, caution, check, reads, risky};

/// A fact the model wrote over several lines, as one line: a list the person typed
/// (`Weekly:` then `- [ ] water the plants` ...) or a small table, its markers and pipes
/// dropped and its lines joined with `; ` (`Weekly: water the plants; ...`), so it can be
/// one bullet and be read by the policy like any other fact.
///
/// Only lists, tables and lines of prose are joined. A text with a heading (a forged
/// `## [10:03] User` among them), a fence, a quote or HTML comes back as it is, and
/// [`check`] refuses it for its line breaks, as it refuses any text it is given whole.
#[must_use]
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    let breaks = |c: char| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}');
    if !text.contains(breaks) {
        return text.into();
    }
    let lines: Vec<&str> = text
        .split(breaks)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let markup =
        |l: &str| l.starts_with(['#', '>', '<']) || l.starts_with("```") || l.starts_with("~~~");
    if lines.iter().any(|l| markup(l)) {
        return text.into();
    }
    let mut joined = String::with_capacity(text.len());
    for line in lines {
        let Some(line) = list_item(line) else {
            continue;
        };
        if !joined.is_empty() {
            joined.push_str(if joined.ends_with([':', '.', ';', '!', '?']) {
                " "
            } else {
                "; "
            });
        }
        joined.push_str(&line);
    }
    joined.into()
}

/// One line of a list or table with its marker or pipes dropped; `None` for a table's
/// separator row (`|---|:--|`).
fn list_item(line: &str) -> Option<std::borrow::Cow<'_, str>> {
    if let Some(row) = line.strip_prefix('|') {
        let row = row.strip_suffix('|').unwrap_or(row);
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if cells
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':')))
        {
            return None;
        }
        return Some(cells.join(", ").into());
    }
    let rest = line
        .strip_prefix(['-', '*', '+', '•'])
        .filter(|r| r.starts_with(' '))
        .map(str::trim_start)
        .map(|r| {
            ["[ ]", "[x]", "[X]"]
                .iter()
                .find_map(|b| r.strip_prefix(b))
                .map_or(r, str::trim_start)
        });
    let numbered = || {
        let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        (1..=3)
            .contains(&digits)
            .then(|| line[digits..].strip_prefix(['.', ')']))
            .flatten()
            .filter(|r| r.starts_with(' '))
            .map(str::trim_start)
    };
    Some(rest.or_else(numbered).unwrap_or(line).into())
}

/// The text as a reader sees it: format characters and other invisible marks gone, NFKC
/// (full-width and mathematical letters become plain ones), look-alike letters folded to
/// the ASCII letters they imitate, then lowercase.
///
/// A word (a run of non-whitespace) is folded only when every non-ASCII character in it has
/// an ASCII confusable skeleton (Unicode Technical Standard #39, through `unicode-security`),
/// so `Ignоrе` with Cyrillic `о`/`е`, `A\u{34f}lways` with a combining grapheme joiner and
/// `Dіѕаblе` written wholly in Cyrillic read as English, while `Москве`, `Zürich` or `東京`
/// keep their letters. ASCII is never mapped (the raw skeleton turns `I` into `l` and `rn`
/// into `m`), so plain English text comes out only lowercased.
///
/// Unlike [`normalize`], punctuation and wording stay: this is for matching text against
/// patterns or quotes, not a merge key. Idempotent.
#[must_use]
pub fn fold_lookalikes(text: &str) -> String {
    let visible = INVISIBLE.replace_all(text, "");
    let composed: String = visible.nfkc().collect();
    let folded = if composed.is_ascii() {
        composed
    } else {
        WORD.replace_all(&composed, |caps: &regex::Captures<'_>| fold_word(&caps[0]))
            .into_owned()
    };
    folded.to_lowercase()
}

static WORD: LazyLock<Regex> = LazyLock::new(|| regex(r"\S+"));

/// A word in ASCII look-alikes, or the word unchanged when any of its letters has none.
fn fold_word(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        let mut buf = [0; 4];
        let skeleton: String = unicode_security::skeleton(c.encode_utf8(&mut buf)).collect();
        if !skeleton.is_ascii() {
            return word.to_owned();
        }
        out.push_str(&skeleton);
    }
    out
}

/// Where a fact belongs: about the person (memory.md) or about one vault's work.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    #[default]
    Global,
    Vault,
}

/// Lifecycle of a stored fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Rendered into memory.md or a vault's insights.
    Active,
    /// Kept in the ledger but not rendered: replaced by a newer fact or pushed out by the cap.
    Archived,
    /// Deleted by the user; a candidate that matches it is dropped.
    Forgotten,
    /// Waiting for `memloop memory review` (only when `memory.review = true`).
    Pending,
}

impl Scope {
    /// The name the ledger and the JSON output use.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Vault => "vault",
        }
    }

    /// Parses [`Scope::as_str`]'s names.
    pub fn parse(s: &str) -> Option<Self> {
        [Scope::Global, Scope::Vault]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

impl Status {
    /// Every status, for queries that want all facts.
    pub const ALL: [Status; 4] = [
        Status::Active,
        Status::Archived,
        Status::Forgotten,
        Status::Pending,
    ];

    /// The name the ledger and the JSON output use.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Archived => "archived",
            Status::Forgotten => "forgotten",
            Status::Pending => "pending",
        }
    }

    /// Parses [`Status::as_str`]'s names.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// Why an archived fact is not rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArchiveReason {
    /// Pushed out by a file's size cap; it comes back when there is room.
    Cap,
    /// A newer fact replaced it.
    Replaced,
    /// The last day it held (`valid_until`) has passed.
    Expired,
}

impl ArchiveReason {
    /// The name the ledger and the JSON output use.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ArchiveReason::Cap => "cap",
            ArchiveReason::Replaced => "replaced",
            ArchiveReason::Expired => "expired",
        }
    }

    /// Parses [`ArchiveReason::as_str`]'s names.
    pub fn parse(s: &str) -> Option<Self> {
        [
            ArchiveReason::Cap,
            ArchiveReason::Replaced,
            ArchiveReason::Expired,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
    }
}

/// Who wrote a fact's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// An extractor drew it from a transcript.
    #[default]
    Extracted,
    /// The user wrote or changed it (an edit, `memory remember`, a file memloop took over):
    /// kept in their words and never pushed out by the cap before extracted facts.
    User,
}

impl Origin {
    /// The name the ledger and the JSON output use.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Extracted => "extracted",
            Origin::User => "user",
        }
    }

    /// Parses [`Origin::as_str`]'s names.
    pub fn parse(s: &str) -> Option<Self> {
        [Origin::Extracted, Origin::User]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

/// A fact as an extractor proposes it, before the policy filter and merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    pub category: String,
    pub text: String,
    #[serde(default)]
    pub scope: Scope,
    /// The text of an existing fact this one updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    /// The person's own words that state the fact, quoted from the transcript; checked
    /// against what they wrote (`ground`) before the fact may enter memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// The last day the fact holds (`YYYY-MM-DD`): an exam, a trip, a deadline. The day
    /// after, it leaves the files, archived as expired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<String>,
}

/// A fact as the ledger stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fact {
    pub id: i64,
    pub text: String,
    pub category: String,
    pub scope: Scope,
    /// The vault's name for `Scope::Vault`, `None` for global facts.
    pub vault: Option<String>,
    /// Date (YYYY-MM-DD) of the oldest transcript that mentions the fact.
    pub first_seen: String,
    /// Date (YYYY-MM-DD) of the newest transcript that mentions the fact.
    pub last_seen: String,
    /// How many extractions produced this fact (1 when first seen).
    pub times_seen: u32,
    pub status: Status,
    /// Why it is archived, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived_reason: Option<ArchiveReason>,
    /// Who wrote its words.
    pub origin: Origin,
}

/// The key that decides whether two texts say the same thing.
///
/// In order: format characters (zero-width joiners, soft hyphens) vanish; NFKC and full
/// Unicode lowercase (then NFKC again, since lowercasing can leave compatibility characters
/// behind); contractions spelled out (`don't` -> `do not`, `i'm` -> `i am`, `cannot` ->
/// `can not`) and apostrophes inside words dropped (`user's` -> `users`); `c++` -> `cpp` and
/// `c#`/`f#` -> `csharp`/`fsharp`, so that removing symbols cannot merge languages; every
/// punctuation, symbol, control and separator character becomes a space, while combining
/// marks stay because they are parts of letters; whitespace collapses.
///
/// Then two English-only wording rules, each skipped when it would leave nothing:
/// the articles `a`, `an`, `the` are dropped anywhere, and a leading subject is dropped so
/// that first-person, `the user ...` and bare third-person phrasings meet: `user`, `he`,
/// `she` go as they are, while `i` and `they` go and the verb after them (past any
/// frequency adverb) is put in the third person (`i prefer` -> `prefers`, `i am` -> `is`,
/// `i have` -> `has`, `they do not` -> `does not`). Every other word, in every script,
/// is kept, so two different non-English facts never share a key.
///
/// Idempotent: `normalize(&normalize(x)) == normalize(x)`.
pub fn normalize(text: &str) -> String {
    let visible = INVISIBLE.replace_all(text, "");
    let folded = if visible.is_ascii() {
        visible.to_ascii_lowercase()
    } else {
        visible
            .nfkc()
            .collect::<String>()
            .to_lowercase()
            .nfkc()
            .collect()
    };
    let spelled = spell_out(&folded);
    let spaced = SEPARATORS.replace_all(&spelled, " ");
    // Dropping an apostrophe can put two letters together that compose (Hangul jamo).
    let cleaned: String = if spaced.is_ascii() {
        spaced.into_owned()
    } else {
        spaced.nfkc().collect()
    };
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    let content: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !ARTICLES.contains(w))
        .collect();
    let content = if content.is_empty() { words } else { content };
    strip_subject(&content).join(" ")
}

/// `pattern` with each `\w` read as an ASCII letter, digit or `_`, or any character beyond
/// ASCII. Unicode's `\w` compiles to a large automaton wherever it stands, and the
/// policy's patterns hold hundreds: with it, a first run's peak memory was a third
/// compiled regexes. The difference, a non-ASCII symbol or punctuation mark read as part of
/// a word, changes no verdict over the evaluation sets (`cargo bench --bench eval`).
fn light_words(pattern: &str) -> String {
    pattern.replace(r"\w", r"[0-9A-Za-z_\x{80}-\x{10FFFF}]")
}

fn regex(pattern: &str) -> Regex {
    match Regex::new(&light_words(pattern)) {
        Ok(re) => re,
        Err(err) => panic!("built-in pattern {pattern:?} does not compile: {err}"),
    }
}

/// Patterns asked together whether any of them matches `text`, in one pass over it: a list
/// of regexes tried one by one read a fact once for each, which was most of the policy's
/// time.
pub(crate) struct AnyOf(regex::RegexSet);

impl AnyOf {
    /// The built-in patterns are constants: one that does not compile is a bug here.
    pub(crate) fn new<S: AsRef<str>>(patterns: impl IntoIterator<Item = S>) -> Self {
        let patterns: Vec<S> = patterns.into_iter().collect();
        match regex::RegexSet::new(patterns.iter().map(|p| light_words(p.as_ref()))) {
            Ok(set) => Self(set),
            Err(err) => {
                let names: Vec<&str> = patterns.iter().map(AsRef::as_ref).collect();
                panic!("built-in patterns {names:?} do not compile: {err}")
            }
        }
    }

    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

/// Whether `word` is one of the space-separated words of `list`.
///
/// The lists are constants of a few hundred words each, asked about every word of every
/// fact: each is split into a set once per thread, on first use.
fn listed(list: &'static str, word: &str) -> bool {
    use std::collections::{HashMap, HashSet};
    thread_local! {
        static SETS: std::cell::RefCell<HashMap<(usize, usize), HashSet<&'static str>>> =
            std::cell::RefCell::default();
    }
    SETS.with_borrow_mut(|sets| {
        sets.entry((list.as_ptr() as usize, list.len()))
            .or_insert_with(|| list.split_ascii_whitespace().collect())
            .contains(word)
    })
}

static SEPARATORS: LazyLock<Regex> = LazyLock::new(|| regex(r"[\p{P}\p{S}\p{Cc}\p{Z}]+"));

static INVISIBLE: LazyLock<Regex> = LazyLock::new(|| regex(r"\p{Cf}+"));

const ARTICLES: &[&str] = &["a", "an", "the"];

/// Rewrites applied before punctuation goes, in order; each output is out of reach of every
/// pattern, which keeps `normalize` idempotent.
static SPELLINGS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (r"\bcan['’]t\b", "can not"),
        (r"\bwon['’]t\b", "will not"),
        (r"\bshan['’]t\b", "shall not"),
        (r"\b(\p{L}+)n['’]t\b", "$1 not"),
        (r"\bi['’]m\b", "i am"),
        (r"\b(i|you|we|they)['’]ve\b", "$1 have"),
        (r"\b(i|you|we|they|he|she|it)['’]ll\b", "$1 will"),
        (r"\b(you|we|they)['’]re\b", "$1 are"),
        (r"(\p{L})['’](\p{L})", "$1$2"),
        (r"\bcannot\b", "can not"),
        (r"\b(\p{L}[\p{L}\p{N}]*)\+\+", "${1}pp"),
        (r"\b([cfj])#", "${1}sharp"),
    ]
    .into_iter()
    .map(|(pattern, with)| (regex(pattern), with))
    .collect()
});

fn spell_out(text: &str) -> String {
    if !text.contains(['\'', '’', '+', '#']) && !text.contains("cannot") {
        return text.to_owned();
    }
    let mut out = text.to_owned();
    for (re, with) in SPELLINGS.iter() {
        if re.is_match(&out) {
            out = re.replace_all(&out, *with).into_owned();
        }
    }
    out
}

/// Subjects dropped as they are: the verb after them is already third person.
const THIRD_PERSON: &[&str] = &["user", "he", "she"];

/// Subjects dropped with the verb after them moved to the third person.
const OTHER_PERSON: &[&str] = &["i", "they"];

/// Verb forms that are the same in every person.
const INVARIANT: &str = "\
    can could will would shall should may might must had did got went made wrote built ran \
    grew left spent taught took came became bought found knew thought felt lost said met sold \
    told sent began gave saw kept not used was is has does";

/// Adverbs that may sit before a verb: of a habit (`i usually prefer`), or of an order.
const ADVERBS: &str = "\
    always never usually often sometimes generally typically mostly mainly only just also \
    still first then now rarely seldom frequently occasionally normally ideally preferably \
    again ever really currently strongly definitely actually";

fn strip_subject(words: &[&str]) -> Vec<String> {
    let start = words
        .iter()
        .position(|w| !THIRD_PERSON.contains(w))
        .unwrap_or(words.len());
    let rest = &words[start..];
    let out: Vec<String> = match rest.split_first() {
        Some((first, tail)) if OTHER_PERSON.contains(first) => {
            let verb = tail
                .iter()
                .position(|w| !listed(ADVERBS, w))
                .unwrap_or(tail.len());
            tail.iter()
                .enumerate()
                .map(|(i, w)| {
                    if i == verb {
                        third_person(w)
                    } else {
                        (*w).to_owned()
                    }
                })
                .collect()
        }
        _ => rest.iter().map(|w| (*w).to_owned()).collect(),
    };
    if out.is_empty() {
        words.iter().map(|w| (*w).to_owned()).collect()
    } else {
        out
    }
}

/// `prefer` -> `prefers`, `watch` -> `watches`, `study` -> `studies`, `am` -> `is`.
fn third_person(verb: &str) -> String {
    if !verb.bytes().all(|b| b.is_ascii_lowercase()) {
        return verb.to_owned();
    }
    match verb {
        "am" | "are" => return "is".to_owned(),
        "were" => return "was".to_owned(),
        "have" => return "has".to_owned(),
        "do" => return "does".to_owned(),
        "go" => return "goes".to_owned(),
        _ => {}
    }
    if listed(INVARIANT, verb) || verb.ends_with("ed") {
        return verb.to_owned();
    }
    if let Some(stem) = verb.strip_suffix('y')
        && stem.ends_with(|c: char| !"aeiou".contains(c))
    {
        return format!("{stem}ies");
    }
    if ["s", "x", "z", "ch", "sh", "o"]
        .iter()
        .any(|end| verb.ends_with(end))
    {
        return format!("{verb}es");
    }
    format!("{verb}s")
}

#[cfg(test)]
mod tests;
