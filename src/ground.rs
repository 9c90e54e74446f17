//! Grounding: a fact enters memory only if the person said it. The model quotes, with each
//! fact, the person's own words that state it (`evidence`); this module checks the quote
//! against the text memloop sent, then checks that the quote states the fact.
//!
//! **Whose words.** The person's own words are their turns without the code blocks and
//! blockquotes they pasted (`transcript::own_passages`); a quote may run over a blank line
//! inside one passage, never across a pasted block or into another turn. A turn whose
//! heading may be the assistant's text (`transcript::Doubt`) is searched after the others:
//! a fact quoted only from it is [`Grounded::Doubted`] and waits for review. Text planted in
//! a tool result, a fetched page or an assistant turn cannot be quoted from the person's own
//! words, and neither can a fact the model made up.
//!
//! **Faithful, not letter for letter.** Quotes are compared as words (see `words`):
//! case, punctuation, quote marks and Unicode forms do not matter, contractions, numbers and
//! British spellings are read one way, a slip in a long word (one letter) and a left-out
//! "really" are allowed. The whole quote is looked for first (the person's own `...` is
//! punctuation); then its pieces around an ellipsis, in order, each gap at most
//! [`MAX_GAP`] words and never skipping a negation. A quote whose words are in one passage
//! but not as a quote is refused as [`Ungrounded::LooselyQuoted`], apart from one that is
//! nowhere ([`Ungrounded::NotInTranscript`]), so a model that paraphrases is told from one
//! that makes things up.
//!
//! **Stating the fact** (`relate`): acknowledgements ("thanks", "sounds good", "perfect,
//! merged") ground nothing; the fact's content words must be in the quote. When the words
//! cannot tell (a translation, a paraphrase, a negation on one side only) the fact is
//! [`Grounded::Unsure`], and the caller asks a reader that sees only the quote and the fact,
//! or refuses it.
//!
//! It does not judge what the fact says (`fact::check` does) or whether it is new (`merge`).

mod relate;
pub mod words;

pub use relate::{Relation, content_stems, fact_words};

use crate::transcript::{Doubt, Role, Turn, own_passages};
use words::{is_boundary, is_filler, is_negation, one_slip};

/// The longest quote, in characters, the contract asks for; a longer one is still checked
/// but only this much is kept.
pub const MAX_EVIDENCE_CHARS: usize = 200;

/// The most words an ellipsis in a quote may stand for.
pub const MAX_GAP: usize = 6;

/// Why a fact's evidence does not ground it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum Ungrounded {
    /// The model quoted nothing.
    #[error("no evidence quoted")]
    Missing,
    /// A word or two, which could come from anywhere.
    #[error("evidence too short")]
    TooShort,
    /// Nothing but an acknowledgement ("thanks", "sounds good", "perfect, merged").
    #[error("evidence is only an acknowledgement")]
    Acknowledgement,
    /// The quote is the person's, but says nothing the fact says.
    #[error("evidence unrelated to the fact")]
    Unrelated,
    /// The quote is the person's, and a reader that saw only it and the fact said it does
    /// not state the fact.
    #[error("evidence does not state the fact")]
    NotStated,
    /// Found only in an assistant turn, or in a block the person pasted or quoted.
    #[error("evidence not in the user's own words")]
    NotUsersWords,
    /// Its words are in one of the person's passages, but not as a quote (reworded,
    /// reordered, or an ellipsis that skips a negation or too many words).
    #[error("evidence quoted loosely")]
    LooselyQuoted,
    /// Found nowhere in the transcript: made up.
    #[error("evidence not in the transcript")]
    NotInTranscript,
}

/// How a fact's evidence grounds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grounded {
    /// The person's own words state it.
    Stated,
    /// Quoted from a turn whose heading may be the assistant's text: held for review.
    Doubted(Doubt),
    /// The quote is the person's, but its words cannot tell whether it states the fact.
    Unsure,
}

/// A run of words that cannot be quoted across: one passage of a turn.
#[derive(Debug, Clone)]
struct Passage {
    words: Vec<String>,
    doubt: Option<Doubt>,
}

/// The words of one transcript, split by who wrote them.
#[derive(Debug, Clone, Default)]
pub struct Grounds {
    /// The person's own words, passage by passage.
    own: Vec<Passage>,
    /// Everything that was sent, as text: its words are read only for a quote not found in
    /// the person's own, to tell whose words it quotes (most transcripts never need them).
    sent: Vec<String>,
    /// The words of `sent`, once a quote needed them.
    other: std::sync::OnceLock<Vec<Passage>>,
}

impl Grounds {
    /// The grounds of the turns sent to the model (after redaction, as sent).
    #[must_use]
    pub fn new(turns: &[Turn]) -> Self {
        let mut own = Vec::new();
        for turn in turns.iter().filter(|t| t.role == Role::User) {
            own.extend(own_passages(&turn.text).iter().map(|p| Passage {
                words: words::passage_words(p),
                doubt: turn.doubt,
            }));
        }
        // The turns nothing casts doubt on are searched first.
        own.sort_by_key(|p| p.doubt.is_some());
        Self {
            own,
            sent: turns.iter().map(|t| t.text.clone()).collect(),
            other: std::sync::OnceLock::new(),
        }
    }

    /// Every turn's words, read on first use.
    fn other(&self) -> &[Passage] {
        self.other.get_or_init(|| {
            self.sent
                .iter()
                .map(|text| Passage {
                    words: words::passage_words(text),
                    doubt: None,
                })
                .collect()
        })
    }

    /// Whether `evidence` grounds the fact `text`.
    ///
    /// # Errors
    ///
    /// The first reason that applies: missing, too short or only an acknowledgement, not the
    /// person's own words (or loosely quoted, or not in the transcript at all).
    pub fn check(&self, text: &str, evidence: Option<&str>) -> Result<Grounded, Ungrounded> {
        let found = self.locate(evidence)?;
        // What the person wrote from the quote's first word to its last: the words an
        // ellipsis stood for are theirs too, and bear on what the quote says.
        let span: Vec<String> = self.own[found.passage].words[found.start..found.end]
            .iter()
            .filter(|w| !is_boundary(w))
            .cloned()
            .collect();
        Ok(
            match (found.doubt, relate::relate(&words::words(text), &span)) {
                (Some(doubt), _) => Grounded::Doubted(doubt),
                (None, Relation::Stated) => Grounded::Stated,
                (None, Relation::Unsure) => Grounded::Unsure,
            },
        )
    }

    /// The person's own words that `evidence` quotes, as whole sentences, in the compared
    /// form (lowercase, contractions spelled out): what a reader asked whether the quote
    /// states its fact is shown, rather than the model's quote with its ellipses. `None`
    /// when the quote is not theirs.
    #[must_use]
    pub fn said(&self, evidence: Option<&str>) -> Option<String> {
        let found = self.locate(evidence).ok()?;
        let words = &self.own[found.passage].words;
        let start = words[..found.start]
            .iter()
            .rposition(|w| is_boundary(w))
            .map_or(0, |b| b + 1);
        let end = words[found.end..]
            .iter()
            .position(|w| is_boundary(w))
            .map_or(words.len(), |b| found.end + b);
        let said: Vec<&str> = words[start..end]
            .iter()
            .filter(|w| !is_boundary(w))
            .map(String::as_str)
            .collect();
        Some(kept(&said.join(" ")))
    }

    /// Where the person's own words hold the quote.
    fn locate(&self, evidence: Option<&str>) -> Result<Found, Ungrounded> {
        let quote = evidence.map(str::trim).filter(|e| !e.is_empty());
        let Some(quote) = quote else {
            return Err(Ungrounded::Missing);
        };
        let all = words::words(quote);
        says_something(quote, &all)?;
        let pieces: Vec<Vec<String>> = split_ellipsis(quote)
            .map(words::words)
            .filter(|w| !w.is_empty())
            .collect();
        // Each piece says something itself: scattered single words are no quote.
        let pieces = if pieces.iter().all(|p| weight(p) >= 4) {
            pieces
        } else {
            Vec::new()
        };
        let cut = Cut {
            before: starts_with_ellipsis(quote),
            after: ends_with_ellipsis(quote),
            negated: all.iter().any(|w| is_negation(w)),
        };
        let find = |passages: &[Passage]| {
            passages.iter().enumerate().find_map(|(i, p)| {
                quoted(&all, &pieces, &p.words, cut).map(|(start, end)| Found {
                    passage: i,
                    start,
                    end,
                    doubt: p.doubt,
                })
            })
        };
        find(&self.own).ok_or_else(|| {
            if find(self.other()).is_some() {
                Ungrounded::NotUsersWords
            } else if self.own.iter().any(|p| loosely(&all, &p.words)) {
                Ungrounded::LooselyQuoted
            } else {
                Ungrounded::NotInTranscript
            }
        })
    }
}

/// Where a quote is in the person's own words: a passage and a span of its words.
struct Found {
    passage: usize,
    start: usize,
    end: usize,
    doubt: Option<Doubt>,
}

/// The quote as kept in the ledger: trimmed, whitespace collapsed, at most
/// [`MAX_EVIDENCE_CHARS`] characters (cut at a word, with `…`).
#[must_use]
pub fn kept(evidence: &str) -> String {
    let collapsed = evidence.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= MAX_EVIDENCE_CHARS {
        return collapsed;
    }
    let cut: String = collapsed.chars().take(MAX_EVIDENCE_CHARS - 1).collect();
    let at_word = cut.rfind(' ').filter(|&i| i > MAX_EVIDENCE_CHARS / 2);
    format!("{}…", &cut[..at_word.unwrap_or(cut.len())])
}

/// The pieces of a quote the model shortened with an ellipsis (`...`, `…`, `. . .`,
/// `[...]`).
fn split_ellipsis(quote: &str) -> impl Iterator<Item = &str> {
    quote
        .split('…')
        .flat_map(|p| p.split("..."))
        .flat_map(|p| p.split(". . ."))
}

/// What a quote's ends say about the words around it.
#[derive(Debug, Clone, Copy)]
struct Cut {
    /// It starts with an ellipsis: the words before it were left out.
    before: bool,
    /// It ends with an ellipsis: the words after it were left out.
    after: bool,
    /// It holds a negation itself.
    negated: bool,
}

fn starts_with_ellipsis(quote: &str) -> bool {
    let q = quote.trim_start_matches(|c: char| c.is_whitespace() || "\"'“‘([".contains(c));
    q.starts_with("...") || q.starts_with('…') || q.starts_with(". . .")
}

fn ends_with_ellipsis(quote: &str) -> bool {
    let q = quote.trim_end_matches(|c: char| c.is_whitespace() || "\"'”’)]".contains(c));
    q.ends_with("...") || q.ends_with('…') || q.ends_with(". . .")
}

/// Where the quote is in `passage`: whole, or (when it has an ellipsis) piece by piece,
/// without leaving out a negation around it (see [`Cut`]).
fn quoted(
    whole: &[String],
    pieces: &[Vec<String>],
    passage: &[String],
    cut: Cut,
) -> Option<(usize, usize)> {
    let keeps_sense = |(start, end): (usize, usize)| {
        // The words of the same sentence next to the quote.
        let reach = if cut.before { MAX_GAP } else { 2 };
        let before = passage[..start]
            .iter()
            .rev()
            .take_while(|w| !is_boundary(w))
            .take(reach);
        let after = passage[end..]
            .iter()
            .take_while(|w| !is_boundary(w))
            .take(MAX_GAP);
        // Words right before the quote that turn it around ("I would never [use Windows]")
        // must be in it; an ellipsis at either end stands for words that must not.
        let before: Vec<&String> = before.collect();
        cut.negated
            || !(before.iter().any(|w| strong_negation(w))
                || (cut.before && before.iter().any(|w| turns_around(w)))
                || (cut.after && after.into_iter().any(|w| turns_around(w))))
    };
    matches(whole, passage)
        .find(|&m| keeps_sense(m))
        .or_else(|| {
            (pieces.len() > 1)
                .then(|| piece_matches(pieces, passage).find(|&m| keeps_sense(m)))
                .flatten()
        })
}

/// Every place `quote` is in `passage`, as (start, end) in words, allowing a slip in a long
/// word and a left-out filler (see the module documentation).
fn matches<'a>(
    quote: &'a [String],
    passage: &'a [String],
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let first = quote.first();
    (0..passage.len())
        .filter(move |&j| {
            first.is_some_and(|f| passage[j] == *f || is_filler(f) || one_slip(f, &passage[j]))
        })
        .filter_map(move |start| matches_at(quote, passage, start).map(|end| (start, end)))
}

/// Words that turn a statement around when a quote leaves them out before it.
fn strong_negation(word: &str) -> bool {
    is_negation(word) && !matches!(word, "no" | "non" | "nein" | "ne" | "не" | "нет")
}

/// Words an ellipsis must not stand for: negations, and the particles that reverse what
/// follows them ("keep the key [out of] the logs").
fn turns_around(word: &str) -> bool {
    is_negation(word)
        || matches!(
            word,
            "out"
                | "away"
                | "off"
                | "except"
                | "unless"
                | "instead"
                | "but"
                | "only"
                | "stop"
                | "avoid"
                | "against"
                | "less"
                | "fewer"
        )
}

/// The end of `quote` matched from `passage[start]`, greedily.
fn matches_at(quote: &[String], passage: &[String], start: usize) -> Option<usize> {
    let max_skips = 1 + quote.len() / 8;
    let max_slips = 1.max(quote.len() / 6);
    let (mut i, mut j, mut skips, mut slips) = (0, start, 0, 0);
    while i < quote.len() {
        let here = passage.get(j);
        if here.is_some_and(|w| is_boundary(w)) {
            j += 1;
        } else if here == Some(&quote[i]) {
            i += 1;
            j += 1;
        } else if here.is_some_and(|w| one_slip(&quote[i], w)) && slips < max_slips {
            i += 1;
            j += 1;
            slips += 1;
        } else if here.is_some_and(|w| is_filler(w)) && skips < max_skips {
            j += 1;
            skips += 1;
        } else if is_filler(&quote[i]) && skips < max_skips {
            i += 1;
            skips += 1;
        } else {
            return None;
        }
    }
    Some(j)
}

/// Every place the pieces of a quote are in `passage` in order, each gap at most
/// [`MAX_GAP`] words that do not turn the statement around, as (start, end) in words.
fn piece_matches<'a>(
    pieces: &'a [Vec<String>],
    passage: &'a [String],
) -> impl Iterator<Item = (usize, usize)> + 'a {
    fn rest(pieces: &[Vec<String>], passage: &[String], from: usize) -> Option<usize> {
        let Some((piece, more)) = pieces.split_first() else {
            return Some(from);
        };
        (from..passage.len().min(from + MAX_GAP + 1))
            .take_while(|&k| k == from || !turns_around(&passage[k - 1]))
            .find_map(|start| {
                matches_at(piece, passage, start).and_then(|end| rest(more, passage, end))
            })
    }
    matches(&pieces[0], passage)
        .filter_map(move |(start, end)| rest(&pieces[1..], passage, end).map(|e| (start, e)))
}

/// Most of the quote's words (three in five, two at least) are in the passage, in any order.
fn loosely(quote: &[String], passage: &[String]) -> bool {
    let found = quote.iter().filter(|w| passage.contains(w)).count();
    found >= 2 && found * 5 >= quote.len() * 3
}

/// Refuses a quote that says nothing: a single word (or under four ideographs), or nothing
/// but acknowledgements, fillers and glue ("ok, thanks", "sounds good", "perfect, merged",
/// "好的，谢谢").
fn says_something(quote: &str, words: &[String]) -> Result<(), Ungrounded> {
    if weight(words) < 4 {
        return Err(Ungrounded::TooShort);
    }
    if acknowledges(quote, words) {
        return Err(Ungrounded::Acknowledgement);
    }
    Ok(())
}

/// How much a run of words can say: two for a word, one for an ideograph (a word of
/// scripts written without spaces is two or three of them); four says something.
fn weight(words: &[String]) -> usize {
    words
        .iter()
        .map(|w| {
            if w.chars().next().is_some_and(words::is_ideograph) {
                1
            } else {
                2
            }
        })
        .sum()
}

/// Whether every word of the quote is an acknowledgement, a filler or glue.
fn acknowledges(quote: &str, words: &[String]) -> bool {
    let spaced: String = quote.chars().filter(|c| !words::is_ideograph(*c)).collect();
    let mut joined: String = quote.chars().filter(|c| words::is_ideograph(*c)).collect();
    for phrase in ACK_PHRASES {
        joined = joined.replace(phrase, "");
    }
    let rest = words::words(&spaced);
    joined.is_empty()
        && !words.is_empty()
        && rest.iter().all(|w| is_ack(w) || is_filler(w) || is_glue(w))
}

fn is_glue(word: &str) -> bool {
    matches!(
        word,
        "i" | "it"
            | "that"
            | "this"
            | "me"
            | "you"
            | "we"
            | "the"
            | "a"
            | "an"
            | "is"
            | "am"
            | "are"
            | "was"
            | "to"
            | "for"
            | "and"
            | "so"
            | "all"
            | "very"
            | "much"
            | "lot"
            | "too"
            | "now"
            | "then"
            | "will"
            | "would"
            | "can"
            | "let"
            | "us"
            | "do"
            | "does"
            | "did"
            | "not"
            | "have"
            | "has"
            | "be"
            | "of"
            | "with"
            | "just"
            | "also"
            | "s"
            | "re"
            | "ll"
            | "d"
            | "m"
            | "t"
    )
}

fn is_ack(word: &str) -> bool {
    static SET: std::sync::LazyLock<std::collections::HashSet<String>> =
        std::sync::LazyLock::new(|| ACK_WORDS.iter().flat_map(|w| words::words(w)).collect());
    SET.contains(word)
}

/// Words that acknowledge, agree, thank or greet, and nothing more, in the languages
/// memloop's users write in most.
const ACK_WORDS: &[&str] = &[
    "thanks",
    "thank",
    "thx",
    "ty",
    "cheers",
    "ok",
    "okay",
    "yes",
    "yeah",
    "yep",
    "yup",
    "sure",
    "great",
    "perfect",
    "cool",
    "nice",
    "awesome",
    "good",
    "fine",
    "sounds",
    "looks",
    "look",
    "lgtm",
    "merged",
    "done",
    "right",
    "correct",
    "exactly",
    "agreed",
    "agree",
    "please",
    "alright",
    "excellent",
    "wonderful",
    "brilliant",
    "amazing",
    "fantastic",
    "go",
    "ahead",
    "works",
    "worked",
    "working",
    "got",
    "gotcha",
    "noted",
    "understood",
    "lol",
    "haha",
    "wow",
    "hi",
    "hello",
    "hey",
    "bye",
    "welcome",
    "np",
    "sorry",
    "makes",
    "sense",
    "true",
    "indeed",
    "love",
    "like",
    "nope",
    "no",
    "fixed",
    "shipped",
    "deployed",
    "pushed",
    "thumbs",
    "up",
    "yay",
    "neat",
    "sweet",
    "super",
    "top",
    "ta",
    "much",
    "appreciated",
    "appreciate",
    "danke",
    "dankeschön",
    "ja",
    "gut",
    "genau",
    "prima",
    "klar",
    "toll",
    "perfekt",
    "passt",
    "stimmt",
    "richtig",
    "bitte",
    "gerne",
    "schön",
    "alles",
    "super",
    "merci",
    "oui",
    "parfait",
    "accord",
    "bien",
    "très",
    "génial",
    "exactement",
    "bon",
    "volontiers",
    "voilà",
    "gracias",
    "sí",
    "si",
    "vale",
    "perfecto",
    "claro",
    "genial",
    "bueno",
    "exacto",
    "listo",
    "dale",
    "acuerdo",
    "grazie",
    "perfetto",
    "bene",
    "benissimo",
    "certo",
    "esatto",
    "ottimo",
    "obrigado",
    "obrigada",
    "sim",
    "perfeito",
    "ótimo",
    "beleza",
    "valeu",
    "bom",
    "legal",
    "dank",
    "bedankt",
    "goed",
    "precies",
    "oké",
    "спасибо",
    "да",
    "хорошо",
    "отлично",
    "ладно",
    "понял",
    "поняла",
    "супер",
    "конечно",
    "ок",
    "окей",
    "네",
    "예",
    "감사합니다",
    "고마워요",
    "고마워",
    "좋아요",
    "좋아",
    "알겠습니다",
    "알겠어요",
    "완벽해요",
    "최고",
];

/// Acknowledgements in scripts written without spaces, removed from the quote's ideographs.
const ACK_PHRASES: &[&str] = &[
    "ありがとうございます",
    "ありがとう",
    "了解です",
    "了解",
    "わかりました",
    "分かりました",
    "大丈夫",
    "お願いします",
    "いいね",
    "はい",
    "完璧",
    "谢谢你",
    "谢谢",
    "謝謝",
    "好的",
    "是的",
    "没问题",
    "沒問題",
    "收到",
    "可以",
    "完美",
    "太好了",
    "好",
    "对",
    "對",
    "行",
];

#[cfg(test)]
mod tests;
