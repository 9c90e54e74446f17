//! The object of a builtin pattern: the words a rule captured after "I use", "I'm a",
//! "I work at"... It cuts them to the main clause, refuses what cannot stand on its own in a
//! memory file (pointers into the chat such as "this" or "your version", code, quotes, a
//! dangling end), checks proper names and roles, and puts what is left in the third person.
//!
//! It does not know which rule captured the words or which fact they end up in: `rules`
//! does.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::segment::ending;
use super::{MAX_WORDS, is_emoji, listed, regex, trim_tail};

/// A leading run of capitalised words, at most four, with nothing but a clause after it:
/// "Dana Scully", not "not important".
pub(super) fn proper_name(raw: &str) -> Option<String> {
    let head = trim_tail(raw.split([',', ';']).next().unwrap_or_default());
    let words: Vec<&str> = head.split_whitespace().collect();
    let taken = words
        .iter()
        .take_while(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && w.chars()
                    .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '.'))
        })
        .count();
    let rest_ok = words
        .get(taken)
        .is_none_or(|w| matches!(w.to_lowercase().as_str(), "and" | "but" | "though"));
    ((1..=4).contains(&taken) && rest_ok).then(|| words[..taken].join(" "))
}

/// Cuts, trims and checks a captured object, then turns it into third person.
pub(super) fn object(raw: &str) -> Option<String> {
    object_if(raw, |_| true)
}

pub(super) fn object_if(raw: &str, check: impl Fn(&str) -> bool) -> Option<String> {
    let obj = trim_tail(cut_clause(raw));
    (acceptable(obj) && check(obj)).then(|| third_person(obj))
}

/// Keeps the main clause: a fact is one statement, and what follows ", so", " because" or
/// a dash is usually a reason or an aside that belongs to the moment.
fn cut_clause(text: &str) -> &str {
    let mut end = CLAUSE.find(text).map_or(text.len(), |m| m.start());
    for (i, _) in text[..end].match_indices(',') {
        let next = text[i + 1..].split_whitespace().next().unwrap_or_default();
        let keeps = matches!(
            next.to_lowercase().as_str(),
            "not" | "never" | "rather" | "instead" | "over" | "a" | "an"
        );
        if !keeps {
            end = i;
            break;
        }
    }
    &text[..end]
}

/// Whether an object can stand on its own in a memory file: no pointers into the chat
/// ("this", "the second option", "your version"), no code or quotes, no dangling end.
pub(super) fn acceptable(obj: &str) -> bool {
    if !obj.chars().any(char::is_alphabetic)
        || obj.chars().any(|c| is_emoji(c) || c.is_control())
        || obj.contains([
            '"', '“', '”', '`', '|', '<', '>', '{', '}', '[', ']', '=', '~',
        ])
        || obj.contains(": ")
        || !is_one_sentence(obj)
    {
        return false;
    }
    let raw: Vec<&str> = obj.split_whitespace().collect();
    if raw.len() > MAX_WORDS || raw.iter().any(|w| trim_word(w) == "i") {
        return false;
    }
    let words = bare_words(obj);
    let Some(first) = words.first() else {
        return false;
    };
    // "B", "2": an option on the screen. C and R are languages.
    let opening = raw.first().map_or("", |w| trim_word(w));
    let lone_option = (raw.len() == 1 && opening.chars().all(|c| c.is_ascii_digit()))
        || (opening.chars().count() == 1
            && opening.chars().all(char::is_uppercase)
            && !matches!(opening, "C" | "R"));
    if lone_option
        || listed(DEICTIC_FIRST, first)
        || (first == "the" && words.get(1).is_some_and(|w| listed(THE_DEICTIC, w)))
    {
        return false;
    }
    let points_away = words.iter().enumerate().any(|(k, w)| {
        listed(DEICTIC, w)
            || listed(YOU, w)
            || (w == "this" && !words.get(k + 1).is_some_and(|n| listed(PERIODS, n)))
    });
    !points_away && !words.last().is_some_and(|w| listed(DANGLING, w))
}

/// No sentence break inside: "Acme.I prefer tabs" or "Acme Inc. I prefer" is two
/// statements glued together, while "Dr. Racket" and "3.11" are one.
fn is_one_sentence(obj: &str) -> bool {
    let chars: Vec<char> = obj.chars().collect();
    chars.iter().enumerate().all(|(i, &c)| {
        let (Some(&before), Some(&after)) = (
            i.checked_sub(1).and_then(|b| chars.get(b)),
            chars.get(i + 1),
        ) else {
            return true;
        };
        if c != '.' {
            return true;
        }
        if after.is_whitespace() {
            return ending(&chars, i, i + 1).is_none();
        }
        !(after.is_uppercase() && (before.is_lowercase() || before.is_ascii_digit()))
    })
}

/// Starts with a proper noun (or "the" and one): "Acme", "the Netherlands".
pub(super) fn is_proper(obj: &str) -> bool {
    let mut words = obj.split_whitespace();
    let mut first = words.next().unwrap_or_default();
    if first == "the" {
        first = words.next().unwrap_or_default();
    }
    let first = trim_word(first);
    let first = first.strip_suffix("'s").unwrap_or(first);
    first.chars().next().is_some_and(char::is_uppercase)
        && !listed(NOT_PROPER, &first.to_lowercase())
}

/// A role after "I'm a…": not a passing state ("a bit tired") or a put-down ("an idiot").
pub(super) fn is_role(obj: &str) -> bool {
    let words = bare_words(obj);
    let head = words.get(1).map_or("", String::as_str);
    let lone = words.len() == 2 && (listed(MACHINES, head) || listed(VAGUE_ROLES, head));
    !lone && !listed(NOT_ROLES, head) && !words.iter().any(|w| listed(PUT_DOWNS, w))
}

pub(super) fn first_word(obj: &str) -> String {
    bare_words(obj).into_iter().next().unwrap_or_default()
}

/// Words lowercased for the word lists; an all-caps acronym ("IT") keeps its case so it
/// is never mistaken for a pronoun.
pub(super) fn bare_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(trim_word)
        .filter(|w| !w.is_empty())
        .map(|w| {
            let acronym = w.chars().count() > 1 && !w.chars().any(char::is_lowercase);
            if acronym {
                w.to_owned()
            } else {
                w.to_lowercase()
            }
        })
        .collect()
}

fn trim_word(word: &str) -> &str {
    word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
}

/// "my coffee" becomes "their coffee", "before I code" becomes "before they code".
fn third_person(obj: &str) -> String {
    PRONOUN
        .replace_all(obj, |caps: &Captures<'_>| {
            match &caps[0] {
                "I'm" => "they're",
                "I've" => "they've",
                "I'll" => "they'll",
                "I am" => "they are",
                "I was" => "they were",
                "my" => "their",
                "My" => "Their",
                "myself" => "themselves",
                "mine" => "theirs",
                "me" => "them",
                _ => "they ",
            }
            .to_owned()
        })
        .into_owned()
}

const DEICTIC_FIRST: &str = "that they he she him her one ones either neither both whichever \
    whatever when how what where why who which option none all some any something anything \
    everything nothing such more less so too";

const THE_DEICTIC: &str = "first second third fourth last latter former above previous other \
    original new old one same rest idea approach plan suggestion solution answer option version \
    code fix change changes design way result results output current following";

const DEICTIC: &str = "it it's its these those here there above below earlier them that's this'll";

const YOU: &str = "you your yours yourself you're you've u ur y'all";

const PERIODS: &str = "year quarter summer spring fall autumn winter semester decade month season";

const DANGLING: &str = "a an the at in on of for to with by from over than and or but my their as \
    into about like via is are was be not so because very more less most that which who";

const NOT_PROPER: &str = "i it this that these those pr issue ticket bug task step part page line \
    chapter section monday tuesday wednesday thursday friday saturday sunday january february \
    march april may june july august september october november december night home";

const NOT_ROLES: &str = "bit little lot tad few couple while moment second minute hour day week \
    sec step bunch total complete real absolute bad terrible kind sort";

const PUT_DOWNS: &str = "idiot moron dummy fool loser mess wreck disaster failure genius liar \
    joke";

/// Roles that say nothing without a domain: "I'm an expert", "I'm a fan".
const VAGUE_ROLES: &str = "fan expert pro beginner newbie novice noob";

const MACHINES: &str = "ai AI bot robot chatbot llm LLM assistant";

static CLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i),\s*(?:and|but|so|because|since|which|who|though|although|while|as|then|plus|or|cause|if|unless|when|where)\b|\s(?:but|because|since|though|although|so|whereas|cause|except|unless)\s|\s(?:and|or)\s+(?:i|i'm|i've|im|we|we're|it|it's|that|this|they|my)\b|\s[-–—]+\s|\s*\(",
    )
});

static PRONOUN: LazyLock<Regex> =
    LazyLock::new(|| regex(r"\b(?:I'm|I've|I'll|I am\b|I was\b|I\s|my|My|myself|mine|me)\b"));
