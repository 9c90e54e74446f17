//! The words grounding compares, and the forms under which two spellings of one word are
//! the same word: Unicode-normalised, case-folded, look-alike letters folded; contractions
//! spelled out (`I'm` is `i am`, `don't` is `do not`), numbers written one way (`three`,
//! `3`, `third` and `3rd` are all `3`; `1,000` is `1000`), British spellings read as
//! American ones (`colour`, `organise`, `centre`, `travelled`).
//!
//! Pure and table-driven; what counts as a content word, a filler or a negation is here
//! too, so the matcher (`ground`) and the relation check (`ground::relate`) read words one
//! way. It does not decide anything about a quote.

use std::borrow::Cow;

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

/// The words of `text` in their compared form (see the module documentation).
#[must_use]
pub fn words(text: &str) -> Vec<String> {
    let mut words = canonical(raw_words(text));
    words.retain(|w| !w.is_empty());
    words
}

/// The words of `text` as [`words`] reads them, with an empty word where a sentence ends
/// (`.`, `!`, `?`, `;`, a line break): a quote runs over it, but what comes before a
/// sentence does not bear on the next ("Not quite. I'm leaving from Paris").
#[must_use]
pub fn passage_words(text: &str) -> Vec<String> {
    canonical(raw_words(text))
}

/// The word [`passage_words`] puts where a sentence ends.
#[must_use]
pub fn is_boundary(word: &str) -> bool {
    word.is_empty()
}

/// The words of `text`: NFKC, look-alike letters folded, lowercase; runs of letters and
/// digits (a `,` or `.` between digits that groups thousands joins them), each ideograph or
/// kana a word of its own.
fn raw_words(text: &str) -> Vec<String> {
    let folded: std::borrow::Cow<'_, str> = if text.is_ascii() {
        std::borrow::Cow::Owned(text.to_ascii_lowercase())
    } else if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        std::borrow::Cow::Owned(text.to_lowercase())
    } else {
        std::borrow::Cow::Owned(text.nfkc().collect::<String>().to_lowercase())
    };
    let chars: Vec<char> = folded.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if is_ideograph(c) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(c.to_string());
        } else if c.is_alphanumeric() || is_mark(c) {
            cur.push(c);
        } else if is_invisible(c) {
        } else if groups_thousands(&chars, i, &cur) {
            // `1,000` and `1.000` are one number.
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if matches!(c, '.' | '!' | '?' | ';' | '\n' | '。' | '！' | '？' | '；')
                && out.last().is_some_and(|w| !w.is_empty())
            {
                out.push(String::new());
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    if text.is_ascii() {
        return out;
    }
    // Each word on its own, so a quote mark glued to it (`«воск»`) never stops the fold.
    out.iter()
        .map(|w| {
            if w.is_ascii() {
                w.clone()
            } else {
                crate::fact::fold_lookalikes(w)
            }
        })
        .collect()
}

/// A `,` or `.` at `chars[i]` between a number and exactly three more digits.
fn groups_thousands(chars: &[char], i: usize, cur: &str) -> bool {
    matches!(chars[i], ',' | '.')
        && !cur.is_empty()
        && cur.chars().all(|c| c.is_ascii_digit())
        && chars.len() >= i + 4
        && chars[i + 1..i + 4].iter().all(char::is_ascii_digit)
        && chars.get(i + 4).is_none_or(|c| !c.is_ascii_digit())
}

/// Han, kana: scripts written without spaces between words.
#[must_use]
pub fn is_ideograph(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}' | '\u{20000}'..='\u{2ffff}')
}

/// A Hangul syllable: Korean puts spaces between words, and one syllable holds two or three
/// letters.
#[must_use]
pub fn is_hangul(c: char) -> bool {
    matches!(c, '\u{ac00}'..='\u{d7a3}')
}

/// Combining marks stay in their word (Devanagari vowel signs, for one).
fn is_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036f}' | '\u{0900}'..='\u{0dff}')
}

/// Zero-width and direction marks join nothing and split nothing.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{00ad}')
}

/// Spells out contractions, writes numbers as digits and folds British spellings, over the
/// raw words in order.
fn canonical(mut raw: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let w = raw[i].as_str();
        if let Some(n) = number_at(&raw, i, &mut out) {
            i = n;
            continue;
        }
        if let Some(whole) = spelled_out(w) {
            out.extend(whole.iter().map(|s| (*s).to_owned()));
            i += 1;
            continue;
        }
        if let Some(prev) = out.last_mut()
            && let Some(expanded) = contraction(prev, w)
        {
            match expanded {
                Contraction::Not(base) => {
                    *prev = base.to_owned();
                    out.push("not".to_owned());
                }
                Contraction::Word(word) => out.push(word.to_owned()),
            }
            i += 1;
            continue;
        }
        // Moved, not copied: the rules above only read this word and the ones after it.
        out.push(std::mem::take(&mut raw[i]));
        i += 1;
    }
    // Spellings last, so that the contractions above read the words as written.
    for w in &mut out {
        if let Some(us) = respelled(w) {
            *w = us;
        }
    }
    out
}

enum Contraction {
    /// `don` + `t`: the base verb, then `not`.
    Not(&'static str),
    /// `i` + `m`: the word the ending stands for.
    Word(&'static str),
}

/// What `word` stands for after `prev` when the two were one contraction (`don't`, `I'm`).
fn contraction(prev: &str, word: &str) -> Option<Contraction> {
    const NOT: &[(&str, &str)] = &[
        ("don", "do"),
        ("doesn", "does"),
        ("didn", "did"),
        ("isn", "is"),
        ("aren", "are"),
        ("wasn", "was"),
        ("weren", "were"),
        ("haven", "have"),
        ("hasn", "has"),
        ("hadn", "had"),
        ("won", "will"),
        ("wouldn", "would"),
        ("can", "can"),
        ("couldn", "could"),
        ("shouldn", "should"),
        ("mustn", "must"),
        ("needn", "need"),
        ("ain", "am"),
        ("shan", "shall"),
        ("mightn", "might"),
    ];
    const IS_AFTER: &[&str] = &[
        "it",
        "he",
        "she",
        "that",
        "there",
        "here",
        "what",
        "who",
        "where",
        "how",
        "when",
        "why",
        "this",
        "everything",
        "everyone",
        "nothing",
        "something",
        "someone",
        "nobody",
    ];
    match word {
        "t" => NOT
            .iter()
            .find(|(n, _)| *n == prev)
            .map(|(_, base)| Contraction::Not(base)),
        "m" if prev == "i" => Some(Contraction::Word("am")),
        "re" => Some(Contraction::Word("are")),
        "ve" => Some(Contraction::Word("have")),
        "ll" => Some(Contraction::Word("will")),
        "d" => Some(Contraction::Word("would")),
        "s" if prev == "let" => Some(Contraction::Word("us")),
        "s" if IS_AFTER.contains(&prev) => Some(Contraction::Word("is")),
        _ => None,
    }
}

/// Words that are contractions written as one word.
fn spelled_out(word: &str) -> Option<&'static [&'static str]> {
    Some(match word {
        "cannot" => &["can", "not"],
        "gonna" => &["going", "to"],
        "wanna" => &["want", "to"],
        "gotta" => &["got", "to"],
        "lemme" => &["let", "me"],
        "dunno" => &["do", "not", "know"],
        "kinda" => &["kind", "of"],
        "sorta" => &["sort", "of"],
        "okay" | "k" => &["ok"],
        _ => return None,
    })
}

const UNITS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

const ORDINALS: [&str; 20] = [
    "zeroth",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
];

const TENTHS: [&str; 8] = [
    "twentieth",
    "thirtieth",
    "fortieth",
    "fiftieth",
    "sixtieth",
    "seventieth",
    "eightieth",
    "ninetieth",
];

/// The value of a number word below a hundred (`seven`, `twenty`, `third`, `3rd`, `42`).
fn small_number(word: &str) -> Option<u64> {
    if let Some(i) = UNITS.iter().position(|u| *u == word) {
        return u64::try_from(i).ok();
    }
    if let Some(i) = TENS.iter().position(|u| *u == word) {
        return u64::try_from(i * 10 + 20).ok();
    }
    if let Some(i) = ORDINALS.iter().position(|u| *u == word) {
        return u64::try_from(i).ok();
    }
    if let Some(i) = TENTHS.iter().position(|u| *u == word) {
        return u64::try_from(i * 10 + 20).ok();
    }
    let digits = word
        .strip_suffix("st")
        .or_else(|| word.strip_suffix("nd"))
        .or_else(|| word.strip_suffix("rd"))
        .or_else(|| word.strip_suffix("th"))
        .unwrap_or(word);
    (!digits.is_empty() && digits.len() <= 15 && digits.chars().all(|c| c.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// A number written in words or digits starting at `raw[i]` (`twenty five`, `a hundred`,
/// `3rd`, `two thousand`): pushes it as digits and returns the index after it.
fn number_at(raw: &[String], i: usize, out: &mut Vec<String>) -> Option<usize> {
    let mut j = i;
    // `a hundred`, `a dozen`: the article is part of the number.
    let article = matches!(raw[j].as_str(), "a" | "an")
        && raw
            .get(j + 1)
            .is_some_and(|w| matches!(w.as_str(), "hundred" | "thousand" | "dozen"));
    if article {
        j += 1;
    }
    let mut value = match raw[j].as_str() {
        "hundred" | "thousand" | "dozen" if article || j == i => 1,
        w => {
            let v = small_number(w)?;
            j += 1;
            // `twenty five`: tens then units.
            if (20..100).contains(&v)
                && v % 10 == 0
                && let Some(unit) = raw
                    .get(j)
                    .and_then(|w| small_number(w))
                    .filter(|u| (1..10).contains(u))
            {
                j += 1;
                v + unit
            } else {
                v
            }
        }
    };
    while let Some(scale) = raw.get(j).and_then(|w| match w.as_str() {
        "hundred" => Some(100),
        "thousand" => Some(1000),
        "million" => Some(1_000_000),
        "dozen" => Some(12),
        _ => None,
    }) {
        value = value.saturating_mul(scale);
        j += 1;
    }
    out.push(value.to_string());
    Some(j)
}

/// The American spelling of a British one (`colour` is `color`, `organise` is `organize`,
/// `centre` is `center`, `travelled` is `traveled`); other words as they are. Both sides of
/// a comparison are folded alike, so a fold that also changes an unrelated word (`hours`
/// reads `hors`) never makes two different words of a quote and its turn equal.
#[must_use]
pub fn american(word: &str) -> String {
    respelled(word).unwrap_or_else(|| word.to_owned())
}

/// [`american`], `None` for a word spelled the American way already: most words are, and
/// each of a transcript's words is looked at, so the common case (a word no rule changes)
/// allocates nothing and compares few bytes.
fn respelled(word: &str) -> Option<String> {
    if word.len() < 4 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    if let Some(us) = respelled_word(word) {
        return Some(us.to_owned());
    }
    // `travelled`, `cancelling`, `counsellor`: the doubled l before a suffix.
    let doubled_l = |w: &str| {
        w.as_bytes()
            .windows(3)
            .any(|three| matches!(three, [b'l', b'l', b'e' | b'i']))
    };
    let mut w = if word.len() >= 7 && doubled_l(word) {
        Cow::Owned(word.replace("lle", "le").replace("lli", "li"))
    } else {
        Cow::Borrowed(word)
    };
    if w.len() >= 5
        && let Some(at) = w.as_bytes()[1..]
            .windows(3)
            .position(|three| matches!(three, [b'o', b'u', b'r']))
    {
        w.to_mut().replace_range(at + 1..at + 4, "or");
    }
    // A word whose last letter ends no ending is compared with none, and the others only
    // with the endings of their last letter.
    if let Some(&last) = w.as_bytes().last()
        && SUFFIX_LAST_BYTES[usize::from(last)]
    {
        for &(uk, us) in SUFFIXES {
            if uk.as_bytes().last() == Some(&last)
                && w.len() >= uk.len() + 2
                && let Some(stem) = w.strip_suffix(uk)
            {
                w = Cow::Owned(format!("{stem}{us}"));
                break;
            }
        }
    }
    match w {
        Cow::Owned(us) if us != word => Some(us),
        _ => None,
    }
}

/// The American spelling of a British word that the rules of [`respelled`] do not make.
fn respelled_word(word: &str) -> Option<&'static str> {
    Some(match word {
        "grey" => "gray",
        "mum" => "mom",
        "programme" => "program",
        "programmes" => "programs",
        "cheque" => "check",
        "tyre" => "tire",
        "tyres" => "tires",
        "aluminium" => "aluminum",
        "plough" => "plow",
        "sceptical" => "skeptical",
        "mould" => "mold",
        "pyjamas" => "pajamas",
        "draught" => "draft",
        "kerb" => "curb",
        "jewellery" => "jewelry",
        "manoeuvre" => "maneuver",
        "whilst" => "while",
        "amongst" => "among",
        "learnt" => "learned",
        "spelt" => "spelled",
        "burnt" => "burned",
        "dreamt" => "dreamed",
        "practise" => "practice",
        "practised" => "practiced",
        "practising" => "practicing",
        "ageing" => "aging",
        "judgement" => "judgment",
        "acknowledgement" => "acknowledgment",
        "storey" => "story",
        "artefact" => "artifact",
        "cosy" => "cozy",
        "moustache" => "mustache",
        "doughnut" => "donut",
        "axe" => "ax",
        "paediatric" => "pediatric",
        "paediatrician" => "pediatrician",
        "anaesthetic" => "anesthetic",
        "anaesthesia" => "anesthesia",
        "encyclopaedia" => "encyclopedia",
        "archaeology" => "archeology",
        "oestrogen" => "estrogen",
        "fulfil" => "fulfill",
        "fulfilment" => "fulfillment",
        "enrol" => "enroll",
        "enrolment" => "enrollment",
        "instal" => "install",
        "instalment" => "installment",
        "skilful" => "skillful",
        "wilful" => "willful",
        "foetus" => "fetus",
        _ => return None,
    })
}

/// British endings and their American spellings, tried in this order (a longer ending before
/// one it ends with); a word keeps two letters before its ending.
const SUFFIXES: &[(&str, &str)] = &[
    ("isations", "izations"),
    ("isation", "ization"),
    ("ising", "izing"),
    ("ised", "ized"),
    ("ises", "izes"),
    ("isers", "izers"),
    ("iser", "izer"),
    ("ise", "ize"),
    ("ysing", "yzing"),
    ("ysed", "yzed"),
    ("yses", "yzes"),
    ("yse", "yze"),
    ("ogues", "ogs"),
    ("ogue", "og"),
    ("ences", "enses"),
    ("ence", "ense"),
    ("tres", "ters"),
    ("tre", "ter"),
    ("bres", "bers"),
    ("bre", "ber"),
];

/// The last bytes of the [`SUFFIXES`]' British endings.
const SUFFIX_LAST_BYTES: [bool; 256] = {
    let mut set = [false; 256];
    let mut i = 0;
    while i < SUFFIXES.len() {
        let uk = SUFFIXES[i].0.as_bytes();
        set[uk[uk.len() - 1] as usize] = true;
        i += 1;
    }
    set
};

/// Words that add emphasis and nothing else: a model quoting the person may leave one out.
pub const FILLERS: &[&str] = &[
    "really",
    "very",
    "so",
    "actually",
    "just",
    "quite",
    "pretty",
    "totally",
    "basically",
    "literally",
    "honestly",
    "definitely",
    "absolutely",
    "truly",
    "super",
    "extremely",
    "incredibly",
    "seriously",
    "certainly",
    "simply",
    "rather",
    "fairly",
    "somewhat",
    "um",
    "uh",
    "oh",
    "well",
];

/// Words that turn a statement around; an ellipsis never skips one.
pub const NEGATIONS: &[&str] = &[
    "not",
    "never",
    "no",
    "nor",
    "none",
    "nothing",
    "nobody",
    "neither",
    "without",
    "hardly",
    "barely",
    "nowhere",
    "nein",
    "nicht",
    "kein",
    "keine",
    "keinen",
    "keinem",
    "keiner",
    "nie",
    "niemals",
    "ne",
    "pas",
    "jamais",
    "aucun",
    "aucune",
    "nunca",
    "ningún",
    "ninguna",
    "ninguno",
    "nada",
    "nadie",
    "non",
    "mai",
    "nessuno",
    "nessuna",
    "niente",
    "não",
    "nao",
    "nenhum",
    "nenhuma",
    "niet",
    "nooit",
    "geen",
    "не",
    "нет",
    "никогда",
    "ни",
    "нельзя",
    "不",
    "没",
    "沒",
    "别",
    "別",
    "無",
    "无",
    "未",
    "ない",
    "ません",
    "아니",
    "안",
    "못",
    "않",
];

/// Whether `word` (in compared form) turns a statement around.
#[must_use]
pub fn is_negation(word: &str) -> bool {
    static SET: std::sync::LazyLock<std::collections::HashSet<String>> =
        std::sync::LazyLock::new(|| NEGATIONS.iter().map(|w| american(w)).collect());
    SET.contains(word)
}

/// Whether `word` (in compared form) is one of the [`FILLERS`].
#[must_use]
pub fn is_filler(word: &str) -> bool {
    static SET: std::sync::LazyLock<std::collections::HashSet<String>> =
        std::sync::LazyLock::new(|| FILLERS.iter().map(|w| american(w)).collect());
    SET.contains(word)
}

/// Whether two words in compared form are the same word with one slip of the keyboard: both
/// at least five letters, one letter added, dropped, changed, or two neighbours swapped.
/// Numbers and negations are never slips.
#[must_use]
pub fn one_slip(a: &str, b: &str) -> bool {
    let digits = |s: &str| s.bytes().any(|c| c.is_ascii_digit());
    // Compared byte for byte when both are ASCII, as most words are: it is called for many
    // pairs of words, and collecting their letters cost more than the comparison.
    if a.is_ascii() && b.is_ascii() {
        return one_edit(a.as_bytes(), b.as_bytes()) && !digits(a) && !digits(b);
    }
    let (letters_a, letters_b) = (a.chars().count(), b.chars().count());
    if letters_a < 5 || letters_b < 5 || letters_a.abs_diff(letters_b) > 1 {
        return false;
    }
    let (a_chars, b_chars): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    one_edit(&a_chars, &b_chars) && !digits(a) && !digits(b)
}

/// Whether `a` and `b`, both five items long or more, differ by one item added, dropped or
/// changed, or two neighbours swapped: [`one_slip`] over letters.
fn one_edit<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    if a.len() < 5 || b.len() < 5 || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let start = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    if short.len() == long.len() {
        if start == short.len() {
            return true;
        }
        let end = short
            .iter()
            .rev()
            .zip(long.iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        // One letter changed, or two neighbours swapped.
        start + end + 1 == short.len()
            || (start + end + 2 == short.len()
                && short[start] == long[start + 1]
                && short[start + 1] == long[start])
    } else {
        short[start..] == long[start + 1..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `one_slip` as it was before it compared bytes, kept to show it decides alike.
    fn one_slip_before(a: &str, b: &str) -> bool {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        if a.len() < 5 || b.len() < 5 || a.len().abs_diff(b.len()) > 1 {
            return false;
        }
        if a.iter().chain(&b).any(char::is_ascii_digit) {
            return false;
        }
        let (short, long) = if a.len() <= b.len() {
            (&a, &b)
        } else {
            (&b, &a)
        };
        let start = short
            .iter()
            .zip(long.iter())
            .take_while(|(x, y)| x == y)
            .count();
        if short.len() == long.len() {
            if start == short.len() {
                return true;
            }
            let end = short
                .iter()
                .rev()
                .zip(long.iter().rev())
                .take_while(|(x, y)| x == y)
                .count();
            start + end + 1 == short.len()
                || (start + end + 2 == short.len()
                    && short[start] == long[start + 1]
                    && short[start + 1] == long[start])
        } else {
            short[start..] == long[start + 1..]
        }
    }

    /// `respelled` as it was before it matched its words and endings without a hash map or
    /// allocation, kept to show it decides alike.
    fn respelled_before(word: &str) -> Option<String> {
        const WORDS: &[(&str, &str)] = &[
            ("grey", "gray"),
            ("mum", "mom"),
            ("programme", "program"),
            ("programmes", "programs"),
            ("cheque", "check"),
            ("tyre", "tire"),
            ("tyres", "tires"),
            ("aluminium", "aluminum"),
            ("plough", "plow"),
            ("sceptical", "skeptical"),
            ("mould", "mold"),
            ("pyjamas", "pajamas"),
            ("draught", "draft"),
            ("kerb", "curb"),
            ("jewellery", "jewelry"),
            ("manoeuvre", "maneuver"),
            ("whilst", "while"),
            ("amongst", "among"),
            ("learnt", "learned"),
            ("spelt", "spelled"),
            ("burnt", "burned"),
            ("dreamt", "dreamed"),
            ("practise", "practice"),
            ("practised", "practiced"),
            ("practising", "practicing"),
            ("ageing", "aging"),
            ("judgement", "judgment"),
            ("acknowledgement", "acknowledgment"),
            ("storey", "story"),
            ("artefact", "artifact"),
            ("cosy", "cozy"),
            ("moustache", "mustache"),
            ("doughnut", "donut"),
            ("axe", "ax"),
            ("paediatric", "pediatric"),
            ("paediatrician", "pediatrician"),
            ("anaesthetic", "anesthetic"),
            ("anaesthesia", "anesthesia"),
            ("encyclopaedia", "encyclopedia"),
            ("archaeology", "archeology"),
            ("oestrogen", "estrogen"),
            ("fulfil", "fulfill"),
            ("fulfilment", "fulfillment"),
            ("enrol", "enroll"),
            ("enrolment", "enrollment"),
            ("instal", "install"),
            ("instalment", "installment"),
            ("skilful", "skillful"),
            ("wilful", "willful"),
            ("foetus", "fetus"),
        ];
        if word.len() < 4 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
            return None;
        }
        static BY_WORD: std::sync::LazyLock<std::collections::HashMap<&str, &str>> =
            std::sync::LazyLock::new(|| WORDS.iter().copied().collect());
        if let Some(us) = BY_WORD.get(word) {
            return Some((*us).to_owned());
        }
        // `travelled`, `cancelling`, `counsellor`: the doubled l before a suffix.
        let mut w = if word.len() >= 7 && (word.contains("lle") || word.contains("lli")) {
            Cow::Owned(word.replace("lle", "le").replace("lli", "li"))
        } else {
            Cow::Borrowed(word)
        };
        if w.len() >= 5
            && let Some(at) = w[1..].find("our")
        {
            w.to_mut().replace_range(at + 1..at + 4, "or");
        }
        for (uk, us) in [
            ("isations", "izations"),
            ("isation", "ization"),
            ("ising", "izing"),
            ("ised", "ized"),
            ("ises", "izes"),
            ("isers", "izers"),
            ("iser", "izer"),
            ("ise", "ize"),
            ("ysing", "yzing"),
            ("ysed", "yzed"),
            ("yses", "yzes"),
            ("yse", "yze"),
            ("ogues", "ogs"),
            ("ogue", "og"),
            ("ences", "enses"),
            ("ence", "ense"),
            ("tres", "ters"),
            ("tre", "ter"),
            ("bres", "bers"),
            ("bre", "ber"),
        ] {
            if w.len() >= uk.len() + 2
                && let Some(stem) = w.strip_suffix(uk)
            {
                w = Cow::Owned(format!("{stem}{us}"));
                break;
            }
        }
        match w {
            Cow::Owned(us) if us != word => Some(us),
            _ => None,
        }
    }

    /// A word and the same word after one edit of any kind (or none, or two), so that slips
    /// and near-slips are both common: ASCII and not, letters and digits.
    fn word_pair() -> impl Strategy<Value = (String, String)> {
        let letter = proptest::sample::select(vec!['a', 'b', 'e', 'é', 'ß', 'ж', '7', '0', 'z']);
        (
            proptest::collection::vec(letter.clone(), 0..9),
            proptest::collection::vec((0usize..4, any::<prop::sample::Index>(), letter), 0..3),
        )
            .prop_map(|(word, edits)| {
                let mut other = word.clone();
                for (kind, at, c) in edits {
                    let i = at.index(other.len() + 1);
                    match kind {
                        0 => other.insert(i, c),
                        1 if i < other.len() => drop(other.remove(i)),
                        2 if i < other.len() => other[i] = c,
                        3 if i + 1 < other.len() => other.swap(i, i + 1),
                        _ => {}
                    }
                }
                (word.into_iter().collect(), other.into_iter().collect())
            })
    }

    /// What `respelled` looks for: its words, the doubled l, `our`, its endings and what
    /// comes before them.
    const RESPELLING_PIECES: &[&str] = &[
        "grey",
        "mum",
        "programme",
        "tyre",
        "practis",
        "ageing",
        "axe",
        "fulfil",
        "enrol",
        "instal",
        "skilful",
        "foetus",
        "l",
        "ll",
        "lle",
        "lli",
        "e",
        "i",
        "our",
        "o",
        "u",
        "r",
        "s",
        "ed",
        "ing",
        "ation",
        "ations",
        "er",
        "ers",
        "is",
        "ys",
        "og",
        "ogue",
        "ogues",
        "en",
        "ence",
        "ences",
        "t",
        "tr",
        "tre",
        "tres",
        "b",
        "bre",
        "bres",
        "col",
        "trave",
        "organ",
        "anal",
        "cent",
        "h",
        "a",
    ];

    /// Every word of the table, its American spelling, and words with each of the rules'
    /// pieces are respelled as before.
    #[test]
    fn respelled_decides_as_before_on_real_words() {
        let mut words: Vec<String> = [
            "grey",
            "gray",
            "mum",
            "mom",
            "programme",
            "programmes",
            "program",
            "cheque",
            "tyre",
            "tyres",
            "aluminium",
            "plough",
            "sceptical",
            "mould",
            "pyjamas",
            "draught",
            "kerb",
            "jewellery",
            "jewelry",
            "manoeuvre",
            "whilst",
            "amongst",
            "learnt",
            "spelt",
            "burnt",
            "dreamt",
            "practise",
            "practised",
            "practising",
            "ageing",
            "judgement",
            "acknowledgement",
            "storey",
            "artefact",
            "cosy",
            "moustache",
            "doughnut",
            "axe",
            "paediatric",
            "paediatrician",
            "anaesthetic",
            "anaesthesia",
            "encyclopaedia",
            "archaeology",
            "oestrogen",
            "fulfil",
            "fulfilment",
            "enrol",
            "enrolment",
            "instal",
            "instalment",
            "installment",
            "skilful",
            "wilful",
            "foetus",
            "travelled",
            "travelling",
            "traveller",
            "cancelled",
            "counsellor",
            "modelling",
            "labelled",
            "fuelled",
            "jewellers",
            "williams",
            "hello",
            "allies",
            "colour",
            "colours",
            "favourite",
            "behaviour",
            "honourable",
            "hours",
            "your",
            "four",
            "our",
            "ours",
            "tour",
            "journey",
            "flourish",
            "course",
            "pour",
            "analyse",
            "paralysed",
            "catalogue",
            "dialogues",
            "licence",
            "defences",
            "centre",
            "centres",
            "theatre",
            "metre",
            "fibre",
            "sabres",
            "organise",
            "organisations",
            "realising",
            "criticised",
            "advertisers",
            "rise",
            "wise",
            "these",
            "ise",
            "tre",
            "bre",
            "fence",
            "science",
            "rogue",
            "vogue",
            "hence",
            "entre",
            "lustre",
            "ogre",
            "zebre",
            "tellers",
            "install",
            "color",
            "center",
        ]
        .map(str::to_owned)
        .to_vec();
        for stem in ["", "a", "ab", "org", "colour", "travell"] {
            for piece in RESPELLING_PIECES {
                words.push(format!("{stem}{piece}"));
            }
        }
        for word in &words {
            assert_eq!(respelled(word), respelled_before(word), "{word}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        #[test]
        fn one_slip_decides_as_before((a, b) in word_pair()) {
            prop_assert_eq!(one_slip(&a, &b), one_slip_before(&a, &b), "{} {}", a, b);
            prop_assert_eq!(one_slip(&b, &a), one_slip_before(&b, &a), "{} {}", b, a);
        }

        #[test]
        fn respelled_decides_as_before_on_any_words(word in "[a-z]{0,14}|[a-zA-Z0-9é]{0,8}") {
            prop_assert_eq!(respelled(&word), respelled_before(&word), "{}", word);
        }

        /// Words made of the pieces the rules look for, so that they meet often.
        #[test]
        fn respelled_decides_as_before_on_words_of_its_pieces(
            pieces in proptest::collection::vec(proptest::sample::select(RESPELLING_PIECES), 0..5),
        ) {
            let word = pieces.concat();
            prop_assert_eq!(respelled(&word), respelled_before(&word), "{}", word);
        }

        #[test]
        fn one_slip_decides_as_before_on_any_words(a in "[a-cé1]{0,7}", b in "[a-cé1]{0,7}") {
            prop_assert_eq!(one_slip(&a, &b), one_slip_before(&a, &b), "{} {}", a, b);
        }
    }

    #[test]
    fn contractions_numbers_and_spellings_are_compared_in_one_form() {
        let cases = [
            ("I'm 17 and I don't drive", "i am 17 and i do not drive"),
            (
                "I am seventeen and I do not drive",
                "i am 17 and i do not drive",
            ),
            ("We can't, it's twenty-five", "we can not it is 25"),
            ("a hundred people, 1,000 tickets", "100 people 1000 tickets"),
            ("on the 3rd, the third time", "on the 3 the 3 time"),
            (
                "My favourite colour, organised centre",
                "my favorite color organized center",
            ),
            ("I travelled; I traveled", "i traveled i traveled"),
            ("gonna wanna", "going to want to"),
            ("Let's go, that's it", "let us go that is it"),
            ("John's car", "john s car"),
            ("東京に住む", "東 京 に 住 む"),
        ];
        for (text, want) in cases {
            assert_eq!(words(text).join(" "), want, "{text}");
        }
    }

    #[test]
    fn a_word_is_respelled_only_when_its_american_spelling_differs() {
        for (word, want) in [
            ("grey", Some("gray")),
            ("travelled", Some("traveled")),
            ("cancelling", Some("canceling")),
            ("colour", Some("color")),
            ("hours", Some("hors")),
            ("organisations", Some("organizations")),
            ("analysed", Some("analyzed")),
            ("catalogue", Some("catalog")),
            ("licence", Some("license")),
            ("centres", Some("centers")),
            ("sabre", Some("saber")),
            ("color", None),
            ("install", None),
            ("tellers", Some("telers")),
            ("hello", None),
            ("rise", None),
            ("Colour", None),
            ("our", None),
            ("café", None),
        ] {
            assert_eq!(respelled(word).as_deref(), want, "{word}");
            assert_eq!(american(word), want.unwrap_or(word), "{word}");
        }
    }

    #[test]
    fn a_slip_is_one_edit_in_a_long_word() {
        for (a, b, want) in [
            ("property", "proprety", true),
            ("recieve", "receive", true),
            ("definately", "definitely", true),
            ("typescript", "typescrpt", true),
            ("typescript", "typescripts", true),
            ("rust", "rest", false),
            ("2025", "2026", false),
            ("install", "uninstall", false),
            ("same", "same", false),
        ] {
            assert_eq!(one_slip(a, b), want, "{a} {b}");
        }
    }
}
