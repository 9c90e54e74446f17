//! The builtin extractor: the offline, deterministic fallback memloop uses when no LLM is
//! configured. It reads only the user's own turns, keeps the few first-person statements
//! whose meaning does not depend on the conversation around them ("I'm a staff engineer at
//! Acme.", "We decided to use SQLite.") and rewrites each as a short third-person fact in
//! the user's own words. It is tuned for precision, because a wrong fact is loaded into
//! every later session: a sentence that is quoted, hedged, hypothetical, reported, sarcastic,
//! transient, a question, or that points at something in the chat ("this", "your version")
//! yields nothing, and so does a whole turn that frames its text as role-play or as text to
//! translate or proofread.
//!
//! Judgement calls: "I'm working on X" and "I'm learning X" count (as goals) only when X is
//! a proper name ("Lanternfish", "Japanese"), never "this bug"; "I'm building a/an X" only
//! when X names a product (an app, an engine, a CLI...); "I want to X" only for lasting aims
//! (learn, become) or with a horizon ("by March", "this year").
//!
//! It does not decide whether a fact is already known, worth keeping, or an instruction in
//! disguise: `fact`'s policy filter and `merge` do that for every provider alike. No I/O,
//! no clock, no network.
//!
//! The work is split by stage: `segment` cuts a turn into sentences, this module drops the
//! sentences that are not firm statements, `rules` holds the first-person patterns and what
//! each one builds, and `object` checks and rewords the words a pattern captured.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use crate::fact::{AnyOf, Candidate, Scope, normalize};

mod object;
mod rules;
mod segment;

use segment::{End, Sentence, paragraphs, sentences};

/// Longer sentences are rambles or pasted prose, not statements about the person.
const MAX_WORDS: usize = 40;

/// Extracts facts from the user's turns of one transcript chunk.
///
/// `categories` are the prompt's categories in order; each fact gets the closest one (see
/// the module doc). The result is deterministic, holds no two facts with the same
/// [`normalize`] key, and is in the order the statements appear.
#[must_use]
pub fn extract(user_turns: &[&str], categories: &[String]) -> Vec<Candidate> {
    let mut seen = HashSet::new();
    let mut facts = Vec::new();
    for turn in user_turns {
        let paragraphs = paragraphs(turn);
        if paragraphs.iter().any(|p| FRAMED.is_match(p)) {
            continue;
        }
        for sentence in paragraphs.iter().flat_map(|p| sentences(p)) {
            let Some(found) = read(&sentence) else {
                continue;
            };
            // The merge key, so two wordings merge would fold into one are not both proposed.
            if seen.insert(normalize(&found.text)) {
                facts.push(Candidate {
                    category: category(found.slot, categories),
                    text: found.text,
                    scope: found.slot.scope(),
                    replaces: None,
                    evidence: Some(sentence.text.trim().to_owned()),
                    valid_until: None,
                });
            }
        }
    }
    facts
}

/// What a fact is about, before it is mapped onto the prompt's own category names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Identity,
    /// Diet, allergies, conditions: Identity unless the prompt has a closer category.
    Health,
    Goals,
    Preferences,
    ProjectContext,
    Patterns,
}

impl Slot {
    fn default_name(self) -> &'static str {
        match self {
            Slot::Identity | Slot::Health => "Identity",
            Slot::Goals => "Goals",
            Slot::Preferences => "Preferences",
            Slot::ProjectContext => "Project Context",
            Slot::Patterns => "Patterns",
        }
    }

    fn scope(self) -> Scope {
        match self {
            Slot::ProjectContext => Scope::Vault,
            _ => Scope::Global,
        }
    }

    /// Category names this slot matches whole, `|`-separated, then single words a longer
    /// name may contain ("Dietary Restrictions"); both in order of preference.
    fn synonyms(self) -> (&'static str, &'static str) {
        match self {
            Slot::Identity => (
                "identity|about me|about|background|personal|personal info|personal details|\
                    profile|bio|who i am|person|people|user",
                "identity background personal profile bio",
            ),
            Slot::Health => (
                "health|diet|dietary|dietary restrictions|food|allergies|medical|accessibility",
                "health diet dietary food allergies medical",
            ),
            Slot::Goals => (
                "goals|goal|objectives|aims|ambitions|aspirations|plans|priorities|focus|\
                    current focus|projects",
                "goals goal objectives plans aspirations",
            ),
            Slot::Preferences => (
                "preferences|preference|likes|tastes|style|tools|tooling|communication|\
                    communication style|opinions",
                "preferences preference likes tools",
            ),
            Slot::ProjectContext => (
                "project context|project|projects|context|decisions|architecture|\
                    technical context|tech stack|stack|codebase|work",
                "project projects decisions architecture codebase",
            ),
            Slot::Patterns => (
                "patterns|habits|routines|routine|behavior|behaviour|workflow|working style|\
                    tendencies",
                "patterns habits routines workflow behavior behaviour",
            ),
        }
    }

    /// The slot to try when the prompt has nothing close to this one.
    fn fallback(self) -> Option<Slot> {
        match self {
            Slot::Health => Some(Slot::Identity),
            Slot::Patterns => Some(Slot::Preferences),
            _ => None,
        }
    }
}

/// The prompt's category for a fact stated in the third person, by its first words
/// ("Prefers …" is a preference, "Wants to …" a goal, "Usually …" a pattern), when they
/// say; `None` when they do not (the caller's default then holds).
#[must_use]
pub fn category_of(fact: &str, categories: &[String]) -> Option<String> {
    let first = fact
        .split_whitespace()
        .next()?
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let slot = match first.as_str() {
        "prefers" | "likes" | "loves" | "enjoys" | "dislikes" | "hates" | "favours" | "favors"
        | "avoids" | "uses" | "prefer" => Slot::Preferences,
        "wants" | "plans" | "aims" | "hopes" | "intends" | "aspires" => Slot::Goals,
        "usually" | "always" | "often" | "tends" | "never" | "typically" | "habitually" => {
            Slot::Patterns
        }
        _ => return None,
    };
    Some(category(slot, categories))
}

/// The prompt's name for `slot`: its own spelling of the closest category, else its first.
fn category(slot: Slot, categories: &[String]) -> String {
    let Some(first) = categories.first() else {
        return slot.default_name().to_owned();
    };
    let mut next = Some(slot);
    while let Some(slot) = next {
        if let Some(name) = closest(slot, categories) {
            return name.clone();
        }
        next = slot.fallback();
    }
    first.clone()
}

fn closest(slot: Slot, categories: &[String]) -> Option<&String> {
    let (whole, words) = slot.synonyms();
    let lowered: Vec<String> = categories.iter().map(|c| c.trim().to_lowercase()).collect();
    let by_whole = whole
        .split('|')
        .find_map(|syn| lowered.iter().position(|c| c == syn));
    let by_word = || {
        words.split_whitespace().find_map(|syn| {
            lowered
                .iter()
                .position(|c| c.split(|ch: char| !ch.is_alphanumeric()).any(|w| w == syn))
        })
    };
    by_whole.or_else(by_word).map(|i| &categories[i])
}

/// One fact the rules produced, before it gets a category name.
#[derive(Debug)]
struct Finding {
    slot: Slot,
    text: String,
}

/// Reads one sentence: the skip rules, then the first rule whose pattern matches decides.
fn read(sentence: &Sentence) -> Option<Finding> {
    if sentence.quoted || matches!(sentence.end, End::Question | End::Trail) {
        return None;
    }
    let text = normalise(&sentence.text);
    if text.split_whitespace().count() > MAX_WORDS || text.contains(['?', '`']) {
        return None;
    }
    if SKIP.is_match(&text) || reported(&text) {
        return None;
    }
    let text = LEADING_FILLER.replace(&text, "");
    let text = trim_tail(&text);
    rules::apply(text)
}

/// Straightens apostrophes, unwraps Markdown links and emphasis, collapses whitespace.
fn normalise(text: &str) -> String {
    let text = text.replace(['’', '‘', 'ʼ'], "'");
    let text = LINK.replace_all(&text, "$1");
    let text = text.replace('*', "");
    let text = UNDERSCORED.replace_all(&text, "$1$2");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Someone else's words: "my boss said I'm...". "As I said" is the user's own.
fn reported(text: &str) -> bool {
    REPORTING
        .captures_iter(text)
        .any(|caps| !caps["who"].eq_ignore_ascii_case("i"))
}

/// Strips trailing punctuation, emoji and filler words ("though", "btw", "lol").
fn trim_tail(text: &str) -> &str {
    let mut text = text;
    loop {
        let trimmed = text.trim_end_matches(|c: char| {
            c.is_whitespace()
                || matches!(c, '.' | '!' | ';' | ',' | ':' | '-' | '–' | '—')
                || is_emoji(c)
        });
        let trimmed = TAIL_FILLER
            .find(trimmed)
            .map_or(trimmed, |m| &trimmed[..m.start()]);
        if trimmed.len() == text.len() {
            return trimmed;
        }
        text = trimmed;
    }
}

fn is_emoji(c: char) -> bool {
    matches!(c,
        '\u{1F000}'..='\u{1FAFF}'
        | '\u{2600}'..='\u{27BF}'
        | '\u{2B00}'..='\u{2BFF}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{200D}'
        | '\u{E0020}'..='\u{E007F}')
}

/// Whether `word` is one of the space-separated words of `list`.
fn listed(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|w| w == word)
}

fn regex(pattern: &str) -> Regex {
    // Every pattern is a literal in this module and its children, so this only fails on a
    // typo the tests catch.
    Regex::new(pattern).unwrap_or_else(|e| panic!("builtin extractor pattern {pattern:?}: {e}"))
}

static LINK: LazyLock<Regex> = LazyLock::new(|| regex(r"\[([^\]]*)\]\([^)]*\)"));

static UNDERSCORED: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(^|[\s(])_{1,2}([^_\s](?:[^_]*[^_\s])?)_{1,2}"));

static LEADING_FILLER: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)^(?:(?:also|and|but|oh|ok|okay|so|well|btw|by the way|fwiw|fyi|for context|for the record|for reference|just so you know|just fyi|heads up|honestly|personally|tbh|actually|anyway|anyways|hi|hey|hello|yes|yeah|yep|no|nope|right|ah|um|uh|hmm+|note|quick note|side note|ps)\b[\s,:;!.\-–—]*|p\.s\.\s*)+",
    )
});

static TAIL_FILLER: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?:^|[\s,]+)(?:though|tho|btw|lol+|haha+|hah|heh|hehe|tbh|fwiw|honestly|anyway|anyways|fyi|too|as well|mostly|mainly|basically|really|:-?\)|:-?d|xd|<3)$",
    )
});

/// A whole turn that frames its text as fiction or as text to work on: first-person
/// sentences in it are not about the user.
static FRAMED: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:pretend|role-?play|role play|act as|in character|hypothetical(?:ly)?|fictional|imagine|let's say|suppose|translate|translation|proofread|rephrase|paraphrase|reword|grammar|cover letter|job (?:description|posting|ad)|forwarded|write (?:a|an|my) (?:bio|story|poem|dialogue|script|scene|email|letter|post|tweet))\b",
    )
});

static REPORTING: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?P<who>[\w']+)\s+(?:said|says|saying|told|tells|asked|asks|claims|claimed|insists|insisted|mentioned|mentions|thinks|thought|wrote|writes|believes|believed)\b",
    )
});

/// Sentences that are not firm statements about now and always: hypotheticals, hedges,
/// transient states, sarcasm, examples, hearsay, struck-through text.
static SKIP: LazyLock<AnyOf> = LazyLock::new(|| {
    AnyOf::new([
        r"(?i)\b(?:if|unless|would|wouldn't|could|couldn't|might|maybe|perhaps|suppose|supposing|imagine|pretend|hypothetically|assuming|whether|wish|hope|hoping|probably|possibly|should|shouldn't|i'd|let's say|what if|in case|going to|gonna|trying|thinking|wondering|used to)\b",
        r"(?i)\b(?:i think|i guess|i suppose|i believe|i feel like|kind of|sort of|kinda|sorta|not sure|unsure|idk|dunno|i mean)\b",
        r"(?i)\b(?:right now|at the moment|for now|atm|rn|today|tonight|tomorrow|yesterday|this (?:morning|afternoon|evening|week|weekend)|just now)\b",
        r"(?i)(?:/s\b|/j\b|\bjk\b|\bj/k\b|\bjust kidding\b|\bkidding\b|\bjoking\b|\byeah,? right\b|\bas if\b|\bsarcas|\bnot!|\boh,? great\b|\boh,? joy\b|\blmf?ao\b|\brofl\b|;-?\)|:-?p\b|🙄|😒|😏|🙃|😜|😉|🤪|😂|🤣)",
        r"(?i)\b(?:for example|for instance|according to|apparently|supposedly|allegedly|reportedly)\b",
        r"~~",
    ])
});

#[cfg(test)]
mod tests;
