//! Matching a candidate fact against the facts already known: an in-memory index that
//! answers "is this the same fact as one we have?" (exact normalised key, then a guarded
//! near-duplicate test) and "which known facts does this transcript touch?".
//!
//! What a match means (new, reinforce, replace, drop a forgotten fact...) is decided by the
//! pure [`decide`] over what the ledger knows of the matched facts; `store` applies it.
//!
//! Pure and deterministic: no I/O, no clock, no hashing order leaking into results.
//! Normalisation itself lives in `fact`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::LazyLock;

use crate::fact::{Scope, normalize};

mod decide;

pub use decide::{Context, Decision, Grounding, Held, Known, decide};

/// Near-duplicates need a token-set Jaccard of at least `NUM / DEN`. At 0.8, adding one
/// significant word to a fact of four or more still matches; swapping one does not (see
/// [`Shape::similarity`]), and stopword-only differences always do.
const JACCARD_NUM: usize = 4;
const JACCARD_DEN: usize = 5;

/// English function words: they never make two facts different, so they are left out of
/// the token sets (negations are tracked apart, in [`Shape::negations`]).
static STOPWORDS: LazyLock<HashSet<&str>> = LazyLock::new(|| {
    "a an the and or but so yet to of in on at by for from with within into onto over under \
    about as than then via per is are was were be been being am has have had having do does \
    did doing will would can could should shall may might must i me my mine myself we our \
    ours us you your yours he him his she her hers it its they them their theirs this that \
    these those there here who whom whose which what when where why how very really quite \
    rather pretty fairly somewhat just also too even still already always usually often \
    sometimes generally typically mostly mainly currently now actually strongly highly any \
    some all each every both either more most much many such own"
        .split_ascii_whitespace()
        .collect()
});

/// Words that negate a statement; they count as stopwords for the token sets.
static NEGATIONS: LazyLock<HashSet<&str>> = LazyLock::new(|| {
    "not no never nor neither without none nobody nothing nowhere dont doesnt didnt isnt arent \
    wasnt werent wont cant couldnt wouldnt shouldnt hasnt havent hadnt"
        .split_ascii_whitespace()
        .collect()
});

/// Negation inside unspaced scripts: Japanese `ない`/`ません`/`なかっ`, Chinese `不`/`没`,
/// Korean `않`/`못`. Occurring inside unrelated words only ever prevents a merge.
const CJK_NEGATIONS: &[&str] = &["ない", "ません", "なかっ", "不", "没", "沒", "않", "못"];

/// `zero`..`twenty`, each at the position of its value.
const NUMBER_WORDS: &str = "zero one two three four five six seven eight nine ten eleven twelve \
    thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty";

/// Which facts can match each other: global facts all together, vault facts per vault.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Partition {
    scope: Scope,
    vault: Option<String>,
}

impl Partition {
    fn new(scope: Scope, vault: Option<&str>) -> Self {
        let vault = match scope {
            Scope::Global => None,
            Scope::Vault => vault.map(str::to_owned),
        };
        Self { scope, vault }
    }
}

/// What near-duplicate matching compares, derived from a normalised key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Shape {
    /// Distinct tokens in order of first appearance.
    ordered: Vec<String>,
    /// The same tokens, sorted, for set arithmetic.
    sorted: Vec<String>,
    /// Every number, digits or `one`..`twenty`, as digits, sorted: a multiset.
    numbers: Vec<String>,
    /// How many negations occur: adding one to a fact that already holds one changes its
    /// meaning as surely as adding the first.
    negations: usize,
}

/// A token and whether it carries meaning (stopwords and all-hiragana bigrams do not).
struct Token {
    text: String,
    significant: bool,
}

impl Shape {
    /// The shape of a normalised key. The token set is its significant tokens, or all of
    /// them when it has none (a fact made only of stopwords still matches itself).
    fn of(key: &str) -> Self {
        let mut shape = Self::default();
        let tokens = tokens(key, &mut shape);
        let any_significant = tokens.iter().any(|t| t.significant);
        let mut seen = HashSet::new();
        for token in tokens {
            if (token.significant || !any_significant) && seen.insert(token.text.clone()) {
                shape.ordered.push(token.text);
            }
        }
        shape.sorted.clone_from(&shape.ordered);
        shape.sorted.sort_unstable();
        shape.numbers.sort_unstable();
        shape
    }

    /// `(shared, union)` token counts when `other` says the same thing, else `None`.
    ///
    /// Besides Jaccard >= 0.8, equal numbers and equal negation, two guards keep distinct
    /// facts apart that a long shared context would otherwise merge: one side may add
    /// tokens but both may not (`in Berlin` vs `in Munich` is a substitution, not a
    /// rewording), and the shared tokens come in the same order (`tabs over spaces` vs
    /// `spaces over tabs`).
    fn similarity(&self, other: &Self) -> Option<(usize, usize)> {
        if self.numbers != other.numbers || self.negations != other.negations {
            return None;
        }
        let shared = count_shared(&self.sorted, &other.sorted);
        let union = self.sorted.len() + other.sorted.len() - shared;
        if union == 0 || shared * JACCARD_DEN < union * JACCARD_NUM {
            return None;
        }
        if shared < self.sorted.len() && shared < other.sorted.len() {
            return None;
        }
        let mine: Vec<&String> = self.ordered.iter().filter(|t| other.has(t)).collect();
        let theirs: Vec<&String> = other.ordered.iter().filter(|t| self.has(t)).collect();
        (mine == theirs).then_some((shared, union))
    }

    fn has(&self, token: &str) -> bool {
        self.sorted
            .binary_search_by(|t| t.as_str().cmp(token))
            .is_ok()
    }
}

fn count_shared(a: &[String], b: &[String]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

/// Splits a normalised key into tokens, recording numbers and negation on `shape`.
///
/// Space-separated scripts give words (number words as digits, a light English plural and
/// third-person `-s` stemming); runs of Han, kana, Hangul, Thai, Lao, Khmer or Myanmar give
/// character bigrams, because those scripts do not separate words.
fn tokens(key: &str, shape: &mut Shape) -> Vec<Token> {
    let mut out = Vec::new();
    for word in key.split_whitespace() {
        for (unspaced, segment) in segments(word) {
            if unspaced {
                shape.negations += CJK_NEGATIONS
                    .iter()
                    .map(|n| segment.matches(n).count())
                    .sum::<usize>();
                push_bigrams(segment, &mut out);
            } else {
                push_word(segment, shape, &mut out);
            }
        }
    }
    out
}

fn push_word(word: &str, shape: &mut Shape, out: &mut Vec<Token>) {
    if NEGATIONS.contains(&word) {
        shape.negations += 1;
        return out.push(Token {
            text: word.to_owned(),
            significant: false,
        });
    }
    if let Some(n) = NUMBER_WORDS
        .split_ascii_whitespace()
        .position(|w| w == word)
    {
        shape.numbers.push(n.to_string());
        return out.push(Token {
            text: n.to_string(),
            significant: true,
        });
    }
    shape.numbers.extend(
        word.split(|c: char| !c.is_numeric())
            .filter(|run| !run.is_empty())
            .map(str::to_owned),
    );
    out.push(Token {
        text: stem(word),
        significant: !STOPWORDS.contains(&word),
    });
}

fn push_bigrams(run: &str, out: &mut Vec<Token>) {
    let chars: Vec<char> = run.chars().collect();
    if let [only] = chars.as_slice() {
        return out.push(Token {
            text: only.to_string(),
            significant: !is_hiragana(*only),
        });
    }
    for pair in chars.windows(2) {
        out.push(Token {
            text: pair.iter().collect(),
            significant: !pair.iter().all(|&c| is_hiragana(c)),
        });
    }
}

/// `answers` -> `answer`, `studies` -> `study`, `watches` -> `watch`; ASCII words only.
fn stem(word: &str) -> String {
    if word.len() <= 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_owned();
    }
    if let Some(base) = word.strip_suffix("ies") {
        return format!("{base}y");
    }
    for suffix in ["sses", "ches", "shes", "xes", "zzes"] {
        if word.ends_with(suffix) {
            return word[..word.len() - 2].to_owned();
        }
    }
    if ["ss", "us", "is"].iter().any(|end| word.ends_with(end)) {
        return word.to_owned();
    }
    word.strip_suffix('s').unwrap_or(word).to_owned()
}

/// Runs of a word that are, or are not, in a script written without spaces.
fn segments(word: &str) -> impl Iterator<Item = (bool, &str)> {
    let mut rest = word;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let unspaced = is_unspaced(first);
        let end = rest
            .char_indices()
            .find(|&(_, c)| is_unspaced(c) != unspaced)
            .map_or(rest.len(), |(i, _)| i);
        let (segment, tail) = rest.split_at(end);
        rest = tail;
        Some((unspaced, segment))
    })
}

fn is_hiragana(c: char) -> bool {
    ('\u{3040}'..='\u{309F}').contains(&c)
}

fn is_unspaced(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0EFF}'     // Thai, Lao
        | '\u{1000}'..='\u{109F}'   // Myanmar
        | '\u{1100}'..='\u{11FF}'   // Hangul Jamo
        | '\u{1780}'..='\u{17FF}'   // Khmer
        | '\u{3005}'                // the ideographic iteration mark
        | '\u{3040}'..='\u{30FF}'   // Hiragana, Katakana
        | '\u{3130}'..='\u{318F}'   // Hangul compatibility Jamo
        | '\u{31F0}'..='\u{31FF}'   // Katakana extensions
        | '\u{3400}'..='\u{4DBF}'   // Han extension A
        | '\u{4E00}'..='\u{9FFF}'   // Han
        | '\u{AC00}'..='\u{D7AF}'   // Hangul syllables
        | '\u{F900}'..='\u{FAFF}'   // Han compatibility
        | '\u{20000}'..='\u{3FFFF}' // Han supplementary planes
    )
}

#[derive(Debug, Clone)]
struct Entry {
    partition: Partition,
    key: String,
    shape: Shape,
}

/// Known facts, indexed for "does this say the same thing as one of them?".
///
/// Entries are `(id, text, scope, vault)`; the vault only counts for [`Scope::Vault`].
#[derive(Debug, Clone, Default)]
pub struct FactIndex {
    entries: HashMap<i64, Entry>,
    exact: HashMap<(Partition, String), BTreeSet<i64>>,
    /// Token -> ids whose token set holds it, across all partitions.
    postings: HashMap<String, BTreeSet<i64>>,
}

impl FactIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a fact; an id already present is replaced.
    pub fn insert(&mut self, id: i64, text: &str, scope: Scope, vault: Option<&str>) {
        self.remove(id);
        let key = normalize(text);
        let shape = Shape::of(&key);
        let partition = Partition::new(scope, vault);
        for token in &shape.sorted {
            self.postings.entry(token.clone()).or_default().insert(id);
        }
        self.exact
            .entry((partition.clone(), key.clone()))
            .or_default()
            .insert(id);
        self.entries.insert(
            id,
            Entry {
                partition,
                key,
                shape,
            },
        );
    }

    /// Drops a fact; an unknown id is ignored.
    pub fn remove(&mut self, id: i64) {
        let Some(entry) = self.entries.remove(&id) else {
            return;
        };
        for token in &entry.shape.sorted {
            if let Some(ids) = self.postings.get_mut(token) {
                ids.remove(&id);
                if ids.is_empty() {
                    self.postings.remove(token);
                }
            }
        }
        let slot = (entry.partition, entry.key);
        if let Some(ids) = self.exact.get_mut(&slot) {
            ids.remove(&id);
            if ids.is_empty() {
                self.exact.remove(&slot);
            }
        }
    }

    /// How many facts are indexed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no fact is indexed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The id of an indexed fact in the same scope (and vault, for [`Scope::Vault`]) that
    /// says the same thing as `text`, if any.
    ///
    /// An exact normalised-key match wins (the lowest id among several); otherwise the
    /// near-duplicate with the highest token-set Jaccard, then the lowest id. Candidates come
    /// from the inverted index by prefix filtering: a set within Jaccard 0.8 of the query
    /// must share one of the query's `n - ceil(0.8 n) + 1` rarest tokens, so only those
    /// tokens' postings are read. A text whose key is empty matches nothing.
    /// Whether `text` says everything fact `id` says and more (its tokens a strict superset):
    /// "Has a severe peanut and tree nut allergy." against "Has a severe tree nut allergy.".
    #[must_use]
    pub fn adds_detail(&self, id: i64, text: &str) -> bool {
        let Some(entry) = self.entries.get(&id) else {
            return false;
        };
        let shape = Shape::of(&normalize(text));
        shape.sorted.len() > entry.shape.sorted.len()
            && entry.shape.sorted.iter().all(|t| shape.has(t))
    }

    pub fn find(&self, text: &str, scope: Scope, vault: Option<&str>) -> Option<i64> {
        let key = normalize(text);
        if key.is_empty() {
            return None;
        }
        let partition = Partition::new(scope, vault);
        let slot = (partition, key);
        if let Some(&id) = self.exact.get(&slot).and_then(BTreeSet::first) {
            return Some(id);
        }
        let (partition, key) = slot;
        let shape = Shape::of(&key);
        let mut best: Option<((usize, usize), i64)> = None;
        let mut seen = HashSet::new();
        for token in self.probe(&shape.sorted) {
            for &id in self.postings.get(token).into_iter().flatten() {
                if !seen.insert(id) {
                    continue;
                }
                let Some(entry) = self.entries.get(&id) else {
                    continue;
                };
                if entry.partition != partition {
                    continue;
                }
                let Some(score) = shape.similarity(&entry.shape) else {
                    continue;
                };
                if best.is_none_or(|(top, top_id)| better(score, id, top, top_id)) {
                    best = Some((score, id));
                }
            }
        }
        best.map(|(_, id)| id)
    }

    /// The query tokens whose postings can hold every near-duplicate: the rarest ones.
    fn probe<'t>(&self, tokens: &'t [String]) -> Vec<&'t String> {
        let n = tokens.len();
        let needed = (n * JACCARD_NUM).div_ceil(JACCARD_DEN);
        let mut by_rarity: Vec<(usize, &String)> = tokens
            .iter()
            .map(|t| (self.postings.get(t).map_or(0, BTreeSet::len), t))
            .collect();
        by_rarity.sort_unstable();
        by_rarity
            .into_iter()
            .take(n + 1 - needed.max(1))
            .map(|(_, t)| t)
            .collect()
    }

    /// Up to `limit` ids of indexed facts, any scope, that share the most distinctive
    /// tokens with `text` (typically a whole transcript), best first.
    ///
    /// A fact scores the sum, over the distinct significant tokens it shares with `text`,
    /// of `ln(1 + N / df)`: a word every fact has counts for little, a rare name for much.
    /// Stopwords never count. A fact must share at least two of its tokens (all of them
    /// when it has fewer). Ties go to the lower id.
    pub fn related(&self, text: &str, limit: usize) -> Vec<i64> {
        if limit == 0 || self.entries.is_empty() {
            return Vec::new();
        }
        let mut scratch = Shape::default();
        let query: BTreeSet<String> = tokens(&normalize(text), &mut scratch)
            .into_iter()
            .filter(|t| t.significant)
            .map(|t| t.text)
            .collect();
        #[allow(clippy::cast_precision_loss)]
        let total = self.entries.len() as f64;
        let mut scores: HashMap<i64, (f64, usize)> = HashMap::new();
        // Sorted query tokens make each float sum add in the same order on every run.
        for token in &query {
            let Some(ids) = self.postings.get(token) else {
                continue;
            };
            #[allow(clippy::cast_precision_loss)]
            let weight = (1.0 + total / ids.len() as f64).ln();
            for &id in ids {
                let score = scores.entry(id).or_default();
                score.0 += weight;
                score.1 += 1;
            }
        }
        // One shared word is chance in a long transcript: a fact must share two of its
        // tokens (or all of them, when it has fewer) to be worth the tokens it costs.
        let mut ranked: Vec<(f64, i64)> = scores
            .into_iter()
            .filter(|(id, (_, shared))| {
                let own = self.entries.get(id).map_or(0, |e| e.shape.sorted.len());
                *shared >= own.min(2)
            })
            .map(|(id, (s, _))| (s, id))
            .collect();
        ranked.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        ranked.into_iter().take(limit).map(|(_, id)| id).collect()
    }
}

/// Higher Jaccard first (compared as fractions, no rounding), then the lower id.
fn better(score: (usize, usize), id: i64, top: (usize, usize), top_id: i64) -> bool {
    let (mine, theirs) = (score.0 * top.1, top.0 * score.1);
    mine > theirs || (mine == theirs && id < top_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn matches(known: &str, candidate: &str) -> bool {
        let mut index = FactIndex::new();
        index.insert(7, known, Scope::Global, None);
        index.find(candidate, Scope::Global, None) == Some(7)
    }

    #[test]
    fn rewordings_merge() {
        let pairs: &[(&str, &str)] = &[
            ("Prefers direct answers.", "prefers direct answers"),
            ("Prefers direct answers.", "PREFERS DIRECT ANSWERS!!!"),
            ("Prefers direct answers.", "Prefers   direct\tanswers ."),
            (
                "Prefers direct answers.",
                "The user prefers direct answers.",
            ),
            ("Prefers direct answers.", "I prefer direct answers."),
            (
                "Prefers direct answers.",
                "\u{ff30}\u{ff52}\u{ff45}\u{ff46}\u{ff45}\u{ff52}\u{ff53} direct answers",
            ),
            ("Owns a caf\u{e9} in Lyon.", "Owns a cafe\u{301} in Lyon."),
            ("Prefers direct answers.", "Prefers direct answer."),
            (
                "Prefers direct answers without hedging.",
                "Prefers direct answers, without any hedging.",
            ),
            ("Prefers concise answers.", "Prefers very concise answers."),
            ("Writes tests first.", "Always writes tests first."),
            ("Is learning Rust.", "Is currently learning Rust."),
            ("Has two kids.", "Has 2 kids."),
            ("Never drinks coffee.", "Does not drink coffee."),
            ("Doesn't like meetings.", "Does not like meetings."),
            (
                "Prefers TypeScript over JavaScript for new projects.",
                "Prefers TypeScript to JavaScript for new projects.",
            ),
            (
                "Lives in Berlin with two kids and a dog.",
                "Lives in Berlin with her two kids and a dog.",
            ),
            ("Uses Python 3.11 at work.", "Uses Python 3.11 at work"),
            ("毎朝コーヒーを飲んでいる", "毎朝コーヒーを飲んでいます"),
            ("東京に住んでいる。", "東京に住んでいる"),
            ("ｶﾀｶﾅで書く", "カタカナで書く"),
        ];
        for (known, candidate) in pairs {
            assert!(
                matches(known, candidate),
                "{known:?} should match {candidate:?}"
            );
        }
    }

    #[test]
    fn different_facts_stay_apart() {
        let pairs: &[(&str, &str)] = &[
            ("Uses Python 3.11", "Uses Python 3.12"),
            ("Has two kids", "Has three kids"),
            ("Has two kids", "Has 3 kids"),
            ("Runs 5 km every morning", "Runs 10 km every morning"),
            ("Likes spicy food", "Does not like spicy food"),
            ("Likes spicy food", "Doesn't like spicy food"),
            // A negation added to a fact that already holds one.
            (
                "Never skips breakfast and follows a strict vegan diet.",
                "Never skips breakfast and does not follow a strict vegan diet.",
            ),
            ("Doesn't drink coffee.", "Doesn't not drink coffee."),
            (
                "Prefers answers without hedging",
                "Prefers answers with hedging",
            ),
            ("東京に住んでいる", "大阪に住んでいる"),
            ("東京に住んでいる", "東京に住んでいない"),
            ("毎朝コーヒーを飲む", "毎朝紅茶を飲む"),
            ("喜欢喝咖啡", "不喜欢喝咖啡"),
            (
                "Works at a fintech startup in Berlin on the payments team",
                "Works at a fintech startup in Munich on the payments team",
            ),
            ("Prefers tabs over spaces", "Prefers spaces over tabs"),
            ("Uses Neovim as main editor", "Uses Emacs as main editor"),
            ("Dog is named Rex", "Cat is named Rex"),
            ("Writes C++ at work", "Writes C at work"),
            ("Живёт в Москве", "Живёт в Казани"),
            ("Prefers direct answers", "Prefers direct questions"),
            ("Prefers direct answers", ""),
        ];
        for (known, candidate) in pairs {
            assert!(
                !matches(known, candidate),
                "{known:?} must not match {candidate:?}"
            );
            assert!(
                !matches(candidate, known),
                "{candidate:?} must not match {known:?}"
            );
        }
    }

    #[test]
    fn a_more_detailed_wording_is_told_apart_from_a_shorter_one() {
        let mut index = FactIndex::new();
        index.insert(1, "Has a severe tree nut allergy.", Scope::Global, None);
        let detailed = "Has a severe peanut and tree nut allergy.";
        assert_eq!(index.find(detailed, Scope::Global, None), Some(1));
        assert!(index.adds_detail(1, detailed));
        assert!(!index.adds_detail(1, "has a severe tree nut allergy"));
        assert!(!index.adds_detail(1, "Has a tree nut allergy."));
    }

    #[test]
    fn scope_and_vault_partition_matches() {
        let mut index = FactIndex::new();
        index.insert(
            1,
            "Uses object storage for indexes",
            Scope::Vault,
            Some("lantern"),
        );
        index.insert(2, "Prefers direct answers", Scope::Global, None);
        let cases: &[(&str, Scope, Option<&str>, Option<i64>)] = &[
            (
                "Uses object storage for indexes",
                Scope::Vault,
                Some("lantern"),
                Some(1),
            ),
            (
                "Uses object storage for indexes",
                Scope::Vault,
                Some("other"),
                None,
            ),
            ("Uses object storage for indexes", Scope::Vault, None, None),
            ("Uses object storage for indexes", Scope::Global, None, None),
            (
                "Prefers direct answers",
                Scope::Global,
                Some("lantern"),
                Some(2),
            ),
            (
                "Prefers direct answers",
                Scope::Vault,
                Some("lantern"),
                None,
            ),
            (
                "Uses object storage for all indexes",
                Scope::Vault,
                Some("lantern"),
                Some(1),
            ),
        ];
        for (text, scope, vault, expect) in cases {
            assert_eq!(
                index.find(text, *scope, *vault),
                *expect,
                "{text:?} {scope:?} {vault:?}"
            );
        }
    }

    #[test]
    fn exact_key_beats_near_duplicate_and_lowest_id_breaks_ties() {
        let mut index = FactIndex::new();
        index.insert(5, "Prefers very concise answers", Scope::Global, None);
        index.insert(9, "Prefers concise answers", Scope::Global, None);
        index.insert(3, "prefers concise answers!", Scope::Global, None);
        assert_eq!(
            index.find("Prefers concise answers.", Scope::Global, None),
            Some(3)
        );
        index.remove(3);
        assert_eq!(
            index.find("Prefers concise answers.", Scope::Global, None),
            Some(9)
        );
        index.remove(9);
        assert_eq!(
            index.find("Prefers concise answers.", Scope::Global, None),
            Some(5)
        );
    }

    #[test]
    fn best_near_duplicate_wins_then_lowest_id() {
        let mut index = FactIndex::new();
        // Both add a word to the query: equal similarity, so the lower id wins.
        index.insert(
            20,
            "Reviews pull requests every morning at nine",
            Scope::Global,
            None,
        );
        index.insert(
            10,
            "Reviews pull requests every weekday morning",
            Scope::Global,
            None,
        );
        // Adds two words: less similar than either.
        index.insert(
            1,
            "Reviews open pull requests every weekday morning",
            Scope::Global,
            None,
        );
        let found = index.find("Reviews pull requests every morning", Scope::Global, None);
        assert_eq!(found, Some(10));
        // Differs only by a stopword: similarity 1 beats the lower ids.
        index.insert(
            30,
            "Reviews pull requests each morning",
            Scope::Global,
            None,
        );
        let found = index.find("Reviews pull requests every morning", Scope::Global, None);
        assert_eq!(found, Some(30));
        index.remove(30);
        index.remove(10);
        index.remove(20);
        assert_eq!(
            index.find("Reviews pull requests every morning", Scope::Global, None),
            None
        );
    }

    #[test]
    fn insert_replaces_and_remove_forgets() {
        let mut index = FactIndex::new();
        assert!(index.is_empty());
        index.insert(1, "Prefers tabs", Scope::Global, None);
        index.insert(2, "Runs Arch Linux", Scope::Global, None);
        assert_eq!(index.len(), 2);
        index.insert(1, "Prefers spaces", Scope::Global, None);
        assert_eq!(index.len(), 2);
        assert_eq!(index.find("Prefers tabs", Scope::Global, None), None);
        assert_eq!(index.find("Prefers spaces", Scope::Global, None), Some(1));
        index.remove(2);
        index.remove(42);
        assert_eq!(index.len(), 1);
        assert_eq!(index.find("Runs Arch Linux", Scope::Global, None), None);
        assert!(index.related("arch linux", 5).is_empty());
        assert!(index.postings.keys().all(|t| t != "arch"));
    }

    #[test]
    fn related_ranks_by_shared_rare_tokens() {
        let mut index = FactIndex::new();
        index.insert(1, "Prefers direct answers", Scope::Global, None);
        index.insert(
            2,
            "Lanternfish keeps its indexes in object storage",
            Scope::Vault,
            Some("l"),
        );
        index.insert(
            3,
            "Prefers Rust for command line tools",
            Scope::Global,
            None,
        );
        index.insert(4, "Prefers tabs", Scope::Global, None);
        index.insert(5, "Studies Japanese on weekends", Scope::Global, None);
        let transcript = "## [09:12] User\nThe lanternfish compaction job keeps failing: \
            the object storage bucket is full. I'd rather you gave direct answers here.\n\
            ## [09:13] Assistant\nThe indexes live in object storage, so ...";
        assert_eq!(index.related(transcript, 10), vec![2, 1]);
        assert_eq!(index.related(transcript, 1), vec![2]);
        assert!(index.related(transcript, 0).is_empty());
        assert!(index.related("the and of is was", 10).is_empty());
        // `prefers` is in three facts, `tabs` in one: the rare word decides.
        assert_eq!(index.related("prefers tabs", 10)[0], 4);
        // A single shared word does not make a fact related.
        assert!(index.related("I bought new command hooks", 10).is_empty());
        assert_eq!(index.related("command line tools in rust", 10), vec![3]);
    }

    #[test]
    fn related_is_deterministic_on_ties() {
        let mut index = FactIndex::new();
        for id in [9, 3, 7, 1] {
            index.insert(
                id,
                &format!("Uses tool number {id} for builds"),
                Scope::Global,
                None,
            );
        }
        assert_eq!(index.related("tool for builds", 10), vec![1, 3, 7, 9]);
        assert_eq!(index.related("tool for builds", 2), vec![1, 3]);
    }

    #[test]
    fn ten_thousand_facts_insert_and_find() {
        let topics = [
            "rust", "python", "go", "kotlin", "swift", "haskell", "ocaml", "zig",
        ];
        let texts: Vec<String> = (0..10_000)
            .map(|i| {
                format!(
                    "Uses {} for project {i} with {} reviewers on team {}",
                    topics[i % topics.len()],
                    i % 13,
                    i / 7
                )
            })
            .collect();
        let started = std::time::Instant::now();
        let mut index = FactIndex::new();
        for (id, text) in (0_i64..).zip(&texts) {
            index.insert(id, text, Scope::Global, None);
        }
        let inserted = started.elapsed();
        for (id, text) in (0_i64..).zip(&texts) {
            let reworded = format!(
                "The user uses {}",
                text.strip_prefix("Uses ").unwrap_or(text)
            );
            assert_eq!(index.find(&reworded, Scope::Global, None), Some(id));
            assert_eq!(
                index.find(&format!("{text} daily"), Scope::Global, None),
                Some(id)
            );
        }
        let found = started.elapsed() - inserted;
        // Distinct filler words the index has never seen, as in a real conversation.
        let filler: String = (0..4_000_u32)
            .map(|i| {
                let word: String = [i / 676, i / 26 % 26, i % 26]
                    .iter()
                    .filter_map(|&d| char::from_digit(d % 26 + 10, 36))
                    .collect();
                format!("{word}x ")
            })
            .collect();
        let transcript = format!(
            "## [10:00] User\nShould project 4242 move from kotlin to zig?\n{}",
            filler.repeat(5)
        );
        assert!(transcript.len() > 100_000);
        let before = std::time::Instant::now();
        let related = index.related(&transcript, 20);
        eprintln!(
            "10,000 facts: insert {inserted:?}, 20,000 finds {found:?}, related on {} KB {:?}",
            transcript.len() / 1024,
            before.elapsed()
        );
        assert_eq!(related.first(), Some(&4242));
        assert_eq!(related.len(), 20);
        assert_eq!(index.len(), texts.len());
    }

    fn fact_text() -> impl Strategy<Value = String> {
        let word = prop_oneof![
            "[a-z]{1,8}",
            "[0-9]{1,3}",
            "[\u{3041}-\u{3096}\u{30a1}-\u{30fa}\u{4e00}-\u{4e80}]{1,4}",
            "[\u{0430}-\u{044f}]{2,6}",
            Just("the".to_owned()),
            Just("not".to_owned()),
            Just("two".to_owned()),
            Just("User".to_owned()),
        ];
        proptest::collection::vec(word, 1..8).prop_map(|words| words.join(" "))
    }

    proptest! {
        #[test]
        fn an_inserted_text_is_found(
            texts in proptest::collection::vec(fact_text(), 1..20),
            pick in any::<proptest::sample::Index>(),
        ) {
            let mut index = FactIndex::new();
            for (id, text) in (0_i64..).zip(&texts) {
                index.insert(id, text, Scope::Vault, Some("v"));
            }
            let target = pick.index(texts.len());
            let key = normalize(&texts[target]);
            let first_with_key = (0_i64..)
                .zip(&texts)
                .find(|(_, t)| normalize(t) == key)
                .map(|(id, _)| id);
            prop_assert_eq!(index.find(&texts[target], Scope::Vault, Some("v")), first_with_key);
            prop_assert_eq!(index.find(&texts[target], Scope::Vault, Some("w")), None);
        }

        #[test]
        fn near_duplicate_search_matches_a_full_scan(
            texts in proptest::collection::vec(fact_text(), 1..30),
            query in fact_text(),
        ) {
            let mut index = FactIndex::new();
            for (id, text) in (0_i64..).zip(&texts) {
                index.insert(id, text, Scope::Global, None);
            }
            prop_assume!(!normalize(&query).is_empty());
            let shape = Shape::of(&normalize(&query));
            let mut expect: Option<((usize, usize), i64)> = None;
            for (id, text) in (0_i64..).zip(&texts) {
                if normalize(text) == normalize(&query) {
                    expect = Some(((1, 0), id));
                    break;
                }
                if let Some(score) = shape.similarity(&Shape::of(&normalize(text)))
                    && expect.is_none_or(|(top, top_id)| better(score, id, top, top_id))
                {
                    expect = Some((score, id));
                }
            }
            prop_assert_eq!(index.find(&query, Scope::Global, None), expect.map(|(_, id)| id));
        }
    }
}
