//! Whether a quote states a fact, read from their words alone: the fact's content words
//! (stemmed with Snowball, irregular forms and a few synonyms folded, numbers as digits)
//! must be in the quote. A fact made mostly of the person's words, with a negation where
//! the quote has one, is stated. Words cannot refuse a fact: a translation, or a fact that
//! names what the quote describes ("Is looking for a doctor" from "find me a dentist"),
//! shares no word with its quote. Anything else needs a reader (`ground`'s caller asks the
//! model, apart, or refuses when there is none).
//!
//! The lists here are tuned on the `tune` part of `eval/grounding/` only; the held-out part
//! is reported, never read while writing them (see `benches/eval.rs`).

use std::collections::HashSet;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use super::words::{american, is_filler, is_ideograph, is_negation, one_slip};

/// What the words of a quote show about a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// Most of what the fact says is in the quote.
    Stated,
    /// The words cannot tell: a paraphrase, a translation, an unrelated sentence, a negation
    /// on one side only.
    Unsure,
}

/// How many of a fact's content words a quote that states it may lack (a word the fact
/// adds to name what the quote says: "Enjoys *hiking*", "Is *looking* for a dentist"), and
/// never more than it holds.
const MISSING: usize = 1;

/// How a quote (in compared form, see `words`) relates to a fact (likewise).
#[must_use]
pub fn relate(fact: &[String], quote: &[String]) -> Relation {
    let mut wanted: Vec<String> = content(fact).collect();
    // A fact made only of framing words ("Is a personal assistant.") is compared by them.
    if wanted.is_empty() {
        wanted = stems(fact).collect();
    }
    if wanted.is_empty() {
        return Relation::Unsure;
    }
    let have: HashSet<String> = stems(quote).collect();
    let covered = wanted.iter().filter(|w| holds(&have, w)).count();
    let missing = wanted.len() - covered;
    let fact_negated = fact.iter().any(|w| is_negation(w));
    if missing <= MISSING && covered >= missing && fact_negated == negates(quote, &wanted) {
        Relation::Stated
    } else {
        Relation::Unsure
    }
}

/// Whether the quote negates what it shares with the fact: a negation before one of the
/// fact's words in the same clause ("I would *never* use Windows"), not one in another
/// clause ("I like the beach, but I *don't* play video games").
fn negates(quote: &[String], wanted: &[String]) -> bool {
    let shared = |w: &String| {
        let one: HashSet<String> = std::iter::once(class(&stem(w))).collect();
        wanted.iter().any(|f| holds(&one, f))
    };
    quote.iter().enumerate().any(|(i, w)| {
        is_negation(w)
            && quote[i + 1..]
                .iter()
                .take_while(|w| !CLAUSE.contains(&w.as_str()))
                .any(shared)
    })
}

/// Words that start a clause of its own: a negation before one does not reach past it.
const CLAUSE: &[&str] = &["but", "although", "though", "whereas", "however", "yet"];

/// Whether `have` holds `word` (a stem or its synonym class), or a stem one of them starts
/// (five letters at least: `allergi`, `allerg`), or one a slip away from it.
fn holds(have: &HashSet<String>, word: &str) -> bool {
    have.contains(word)
        || have.iter().any(|h| {
            let (short, long) = if h.len() <= word.len() {
                (h.as_str(), word)
            } else {
                (word, h.as_str())
            };
            (short.chars().count() >= 5 && long.starts_with(short)) || one_slip(h, word)
        })
}

/// The content words of `words`, each as its stem's synonym class: no glue words, no words
/// that only frame a fact (`wants`, `prefers`, `user`), no fillers, no negations.
fn content(words: &[String]) -> impl Iterator<Item = String> + '_ {
    stems(words).filter(|s| !is_frame(s))
}

/// The words of `words` that are not glue, fillers or negations, as synonym classes of
/// their stems.
fn stems(words: &[String]) -> impl Iterator<Item = String> + '_ {
    words
        .iter()
        .filter(|w| !is_stop(w) && !is_filler(w) && !is_negation(w))
        .map(|w| class(&stem(w)))
}

/// What a fact says, as words: its content words stemmed, without glue or the words that
/// only frame it (`wants`, `prefers`, `user`).
#[must_use]
pub fn fact_words(text: &str) -> Vec<String> {
    content(&super::words::words(text)).collect()
}

/// The words of `text` (as `words` reads it) that are not glue, stemmed: what a category's
/// name and description share with a fact.
#[must_use]
pub fn content_stems(text: &str) -> Vec<String> {
    stems(&super::words::words(text)).collect()
}

/// A word's Snowball stem (English, for words in Latin letters), after its irregular forms.
fn stem(word: &str) -> String {
    static EN: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));
    if let Some((_, base)) = IRREGULAR.iter().find(|(form, _)| *form == word) {
        return (*base).to_owned();
    }
    if word.chars().all(|c| c.is_ascii_lowercase()) && word.len() > 3 {
        EN.stem(word).into_owned()
    } else {
        word.to_owned()
    }
}

/// Forms the stemmer cannot reach.
const IRREGULAR: &[(&str, &str)] = &[
    ("went", "go"),
    ("gone", "go"),
    ("bought", "buy"),
    ("children", "child"),
    ("kids", "kid"),
    ("people", "person"),
    ("men", "man"),
    ("women", "woman"),
    ("ran", "run"),
    ("wrote", "write"),
    ("written", "write"),
    ("spoke", "speak"),
    ("spoken", "speak"),
    ("taught", "teach"),
    ("thought", "think"),
    ("took", "take"),
    ("taken", "take"),
    ("felt", "feel"),
    ("met", "meet"),
    ("brought", "bring"),
    ("built", "build"),
    ("drove", "drive"),
    ("driven", "drive"),
    ("ate", "eat"),
    ("eaten", "eat"),
    ("flew", "fly"),
    ("flown", "fly"),
    ("flight", "fly"),
    ("flights", "fly"),
    ("grew", "grow"),
    ("grown", "grow"),
    ("knew", "know"),
    ("known", "know"),
    ("began", "begin"),
    ("begun", "begin"),
    ("lost", "lose"),
    ("paid", "pay"),
    ("sold", "sell"),
    ("sent", "send"),
    ("spent", "spend"),
    ("told", "tell"),
    ("wore", "wear"),
    ("worn", "wear"),
    ("held", "hold"),
    ("kept", "keep"),
    ("left", "leave"),
    ("chose", "choose"),
    ("chosen", "choose"),
    ("born", "bear"),
    ("lives", "live"),
    ("wives", "wife"),
    ("feet", "foot"),
    ("teeth", "tooth"),
    ("mice", "mouse"),
];

/// A few words that mean the same to a fact: each maps to its class's first word.
fn class(stem: &str) -> String {
    SYNONYMS
        .iter()
        .find(|set| set.contains(&stem))
        .map_or_else(|| stem.to_owned(), |set| set[0].to_owned())
}

/// Stems (as [`stem`] gives them) that a fact and the words it came from use for one thing.
const SYNONYMS: &[&[&str]] = &[&["kid", "child"], &["movi", "film"], &["car", "vehicl"]];

/// Whether a stem only frames a fact ("wants", "prefers", "the user") rather than says it.
fn is_frame(stem: &str) -> bool {
    FRAMES.contains(&stem)
}

const FRAMES: &[&str] = &[
    "want", "prefer", "like", "love", "enjoy", "need", "wish", "hope", "user", "person", "assist",
    "claud",
];

/// Whether a word (in compared form) is glue: it relates a quote to nothing.
fn is_stop(word: &str) -> bool {
    static SET: LazyLock<HashSet<String>> =
        LazyLock::new(|| STOP.iter().map(|w| american(w)).collect());
    word.chars().count() < 2 && !word.chars().all(|c| c.is_ascii_digit() || is_ideograph(c))
        || SET.contains(word)
}

const STOP: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "to",
    "in",
    "on",
    "at",
    "for",
    "with",
    "by",
    "from",
    "about",
    "as",
    "into",
    "onto",
    "and",
    "or",
    "but",
    "if",
    "so",
    "that",
    "this",
    "these",
    "those",
    "it",
    "its",
    "i",
    "me",
    "my",
    "mine",
    "myself",
    "we",
    "us",
    "our",
    "ours",
    "you",
    "your",
    "yours",
    "he",
    "him",
    "his",
    "she",
    "her",
    "hers",
    "they",
    "them",
    "their",
    "theirs",
    "themselves",
    "is",
    "am",
    "are",
    "be",
    "been",
    "being",
    "was",
    "were",
    "do",
    "does",
    "did",
    "done",
    "have",
    "has",
    "had",
    "having",
    "will",
    "would",
    "can",
    "could",
    "should",
    "may",
    "might",
    "must",
    "shall",
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "when",
    "where",
    "why",
    "how",
    "there",
    "here",
    "then",
    "than",
    "too",
    "also",
    "up",
    "out",
    "off",
    "over",
    "again",
    "more",
    "most",
    "some",
    "any",
    "all",
    "each",
    "such",
    "only",
    "own",
    "same",
    "other",
    "get",
    "gets",
    "got",
    "make",
    "makes",
    "made",
    "thing",
    "things",
    "one",
    "ones",
    "please",
    "yes",
    "ok",
    "now",
    "still",
    "always",
    "usually",
    "often",
    "currently",
    "s",
    "t",
    "re",
    "ve",
    "ll",
    "d",
    "m",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::words::words;

    fn relation(fact: &str, quote: &str) -> Relation {
        relate(&words(fact), &words(quote))
    }

    #[test]
    fn a_quote_states_a_fact_made_mostly_of_its_words() {
        assert_eq!(
            relation("Enjoys hiking.", "I love to hike."),
            Relation::Stated
        );
        assert_eq!(relation("Never votes.", "I never vote."), Relation::Stated);
        assert_eq!(
            relation("Is 17 years old.", "I am seventeen"),
            Relation::Unsure
        );
        assert_eq!(relation("Is 17.", "I am seventeen"), Relation::Stated);
        assert_eq!(
            relation(
                "Wants the deploy script run on every session start without review.",
                "Can you check the deploy script in my notes?"
            ),
            Relation::Unsure
        );
        assert_eq!(
            relation(
                "Wants commands run as root by default.",
                "Can you check the deploy script in my notes?"
            ),
            Relation::Unsure
        );
        // A negation on one side only, another language: the words cannot tell.
        assert_eq!(
            relation("Uses Windows at work.", "I would never use Windows at work"),
            Relation::Unsure
        );
        assert_eq!(
            relation(
                "Wants commands run as root by default.",
                "Kannst du mir bitte bei meinen Notizen helfen?"
            ),
            Relation::Unsure
        );
    }
}
