//! The keyword prefilter: one cheap pass over a text that says which redaction rules can
//! match at all (gitleaks' `keywords`), so a text without any rule's keyword runs no rule.
//!
//! It also sets aside the rules whose every match holds a longer run of non-blank bytes
//! than the text has (a token of 32 characters in a text of short words), read off each
//! rule's pattern once (`needed_run`).
//!
//! It only narrows the rules to run; it never finds a secret itself, and a rule it wakes
//! may still find nothing (`redact` runs them).

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex_syntax::hir::{Class, Hir, HirKind};

use super::rules::SPECS;

/// A set of rules: one bit per index into `SPECS`.
pub(super) type Rules = u128;

/// Which rules can match at all, found in one cheap pass (gitleaks' `keywords`); rules
/// whose keywords never occur are not run.
pub(super) struct Prefilter {
    /// Keywords common in prose, each found with `contains`, which stops at the first hit.
    pub(super) frequent: Vec<(&'static str, Rules)>,
    /// The other keywords, found together in one pass, every occurrence (overlapping
    /// ones too): some are common (digits, `#`, `user`), and a search started again after
    /// each hit cost a fifth of a first run.
    rare: AhoCorasick,
    /// For each rare keyword, by its pattern index, the rules it wakes: one bit per index
    /// into `SPECS`.
    pub(super) rules_by_rare: Vec<Rules>,
    /// For each run length, the rules a text whose longest run of non-blank bytes is that
    /// long can wake (`needed_run`): index `n` holds the rules needing `n` or fewer, and
    /// the last index all of them.
    rules_by_run: Vec<Rules>,
}

const FREQUENT_KEYWORDS: &[&str] = &[
    "key",
    "token",
    "secret",
    "pass",
    "pwd",
    "authorization",
    "bearer",
    "curl",
    "://",
    "private key",
    "sk-",
    "sk",
    "auth",
    "key-",
    "_",
    "-",
    ".",
    ":",
];

const _: () = assert!(
    SPECS.len() <= Rules::BITS as usize,
    "the prefilter keeps one bit per rule"
);

pub(super) static PREFILTER: LazyLock<Prefilter> = LazyLock::new(|| {
    // A keyword holding another (`private key` holds `key`) wakes the other's rules too,
    // as the text holds both.
    let rules_containing = |hit: &str| {
        SPECS
            .iter()
            .enumerate()
            .filter(|(_, spec)| spec.keywords.iter().any(|k| hit.contains(k)))
            .fold(0, |mask: Rules, (index, _)| mask | 1 << index)
    };
    let mut rare: Vec<&'static str> = SPECS
        .iter()
        .flat_map(|spec| spec.keywords)
        .copied()
        .filter(|k| !FREQUENT_KEYWORDS.contains(k))
        .collect();
    rare.sort_unstable();
    rare.dedup();
    Prefilter {
        frequent: FREQUENT_KEYWORDS
            .iter()
            .map(|&k| (k, rules_containing(k)))
            .collect(),
        // A DFA: a few hundred keywords make a small one, and it reads a byte in one step.
        rare: AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .build(&rare)
            .unwrap_or_else(|e| panic!("redaction keywords: {e}")),
        rules_by_rare: rare.iter().map(|&k| rules_containing(k)).collect(),
        rules_by_run: rules_by_run(),
    }
});

/// `Prefilter::rules_by_run`: one entry per run length up to the longest any rule needs.
fn rules_by_run() -> Vec<Rules> {
    let needed: Vec<usize> = SPECS
        .iter()
        .map(|spec| {
            spec.regex().map_or(0, |pattern| {
                let hir = regex_syntax::parse(pattern)
                    .unwrap_or_else(|e| panic!("redaction rule {}: {e}", spec.kind));
                needed_run(&hir)
            })
        })
        .collect();
    let longest = needed.iter().copied().max().unwrap_or(0);
    (0..=longest)
        .map(|run| {
            needed
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n <= run)
                .fold(0, |mask: Rules, (index, _)| mask | 1 << index)
        })
        .collect()
}

/// The bytes that end a run: a text's runs are what lies between them.
const BLANKS: [u8; 4] = [b' ', b'\t', b'\n', b'\r'];

/// The length of the longest run of bytes in `text` that are not `BLANKS`.
fn longest_run(text: &str) -> usize {
    text.as_bytes()
        .split(|b| BLANKS.contains(b))
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0)
}

/// What a pattern's matches must hold of runs without `BLANKS`, each a lower bound in
/// bytes: `whole` when no match holds a blank (its shortest length), else the run every
/// match starts with, ends with, and holds somewhere.
#[derive(Clone, Copy)]
struct Runs {
    whole: Option<usize>,
    first: usize,
    last: usize,
    inside: usize,
}

impl Runs {
    /// Matches of `n` bytes or more, none blank.
    fn unbroken(n: usize) -> Self {
        Self {
            whole: Some(n),
            first: n,
            last: n,
            inside: n,
        }
    }

    /// Matches that may hold a blank anywhere.
    const BROKEN: Self = Self {
        whole: None,
        first: 0,
        last: 0,
        inside: 0,
    };

    /// A match of `self` followed by one of `next`.
    fn then(self, next: Self) -> Self {
        let joined = self.last + next.first;
        Self {
            whole: self.whole.zip(next.whole).map(|(a, b)| a + b),
            first: self.whole.map_or(self.first, |a| a + next.first),
            last: next.whole.map_or(next.last, |b| self.last + b),
            inside: self.inside.max(next.inside).max(joined),
        }
    }

    /// A match of `self` or one of `other`.
    fn or(self, other: Self) -> Self {
        Self {
            whole: self.whole.zip(other.whole).map(|(a, b)| a.min(b)),
            first: self.first.min(other.first),
            last: self.last.min(other.last),
            inside: self.inside.min(other.inside),
        }
    }
}

/// The longest run without `BLANKS` that every match of `hir` holds, in bytes (a lower
/// bound): a text with no run that long cannot match.
fn needed_run(hir: &Hir) -> usize {
    let runs = runs(hir);
    runs.whole.unwrap_or(runs.inside)
}

fn runs(hir: &Hir) -> Runs {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Runs::unbroken(0),
        HirKind::Literal(literal) => {
            let pieces: Vec<usize> = literal
                .0
                .split(|b| BLANKS.contains(b))
                .map(<[u8]>::len)
                .collect();
            match pieces[..] {
                [one] => Runs::unbroken(one),
                _ => Runs {
                    whole: None,
                    first: pieces[0],
                    last: pieces[pieces.len() - 1],
                    inside: pieces.iter().copied().max().unwrap_or(0),
                },
            }
        }
        HirKind::Class(class) => {
            let holds = |start: u32, end: u32| {
                BLANKS
                    .iter()
                    .any(|&b| (start..=end).contains(&u32::from(b)))
            };
            let holds_blank = match class {
                Class::Unicode(set) => set
                    .ranges()
                    .iter()
                    .any(|r| holds(r.start().into(), r.end().into())),
                Class::Bytes(set) => set
                    .ranges()
                    .iter()
                    .any(|r| holds(r.start().into(), r.end().into())),
            };
            if holds_blank {
                Runs::BROKEN
            } else {
                Runs::unbroken(1)
            }
        }
        HirKind::Repetition(repetition) => {
            let once = runs(&repetition.sub);
            match (repetition.min, once.whole) {
                (0, Some(_)) => Runs::unbroken(0),
                (0, None) => Runs::BROKEN,
                (min, Some(n)) => Runs::unbroken(n.saturating_mul(min as usize)),
                (1, None) => once,
                (_, None) => Runs {
                    inside: once.inside.max(once.last + once.first),
                    ..once
                },
            }
        }
        HirKind::Capture(capture) => runs(&capture.sub),
        HirKind::Concat(parts) => parts
            .iter()
            .map(runs)
            .reduce(Runs::then)
            .unwrap_or(Runs::unbroken(0)),
        HirKind::Alternation(branches) => branches
            .iter()
            .map(runs)
            .reduce(Runs::or)
            .unwrap_or(Runs::unbroken(0)),
    }
}

/// The rules whose keywords occur in `text`, one bit per index into `SPECS`.
pub(super) fn active_rules(text: &str) -> Rules {
    const ALL: Rules = Rules::MAX >> (Rules::BITS as usize - SPECS.len());
    // Lowercasing a copy once lets the keyword searches be plain literal searches, several
    // times faster than case-insensitive ones; ASCII lowercasing keeps every offset.
    let lower = text.to_ascii_lowercase();
    let run = longest_run(text).min(PREFILTER.rules_by_run.len() - 1);
    let possible = PREFILTER.rules_by_run[run];
    let mut active = 0;
    for &(keyword, rules) in &PREFILTER.frequent {
        if active & rules & possible != rules & possible && lower.contains(keyword) {
            active |= rules;
        }
    }
    for hit in PREFILTER.rare.find_overlapping_iter(&lower) {
        active |= PREFILTER.rules_by_rare[hit.pattern().as_usize()] & possible;
        if active == ALL & possible {
            break;
        }
    }
    active & possible
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needed(pattern: &str) -> usize {
        needed_run(&regex_syntax::parse(pattern).unwrap())
    }

    #[test]
    fn the_run_a_pattern_needs_is_its_longest_stretch_without_a_blank() {
        assert_eq!(needed(r"ghp_[A-Za-z0-9]{36}"), 40);
        assert_eq!(needed(r"(?-u:\b)sk-[a-z0-9]{20,}(?-u:\b)"), 23);
        // A blank anywhere, even one that may be left out, ends a run.
        assert_eq!(needed(r"privkey[ \t]*=[ \t]*([0-9a-f]{64})"), 64);
        assert_eq!(needed(r"pass[ \t]*=([^\s]{3,})"), 4);
        assert_eq!(needed(r"kata sandi:[a-z]{2}"), 8);
        assert_eq!(needed(r"[^'\r\n]{40}"), 0);
        // Each branch and each repetition at its fewest.
        assert_eq!(needed(r"(?:ab{5}|c{3})d?"), 3);
        assert_eq!(needed(r"(?:x[ ]y){3}"), 2);
        assert_eq!(needed(r"(?:key)*[0-9]"), 1);
    }

    /// A tiny xorshift, so the generated texts are the same on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            if n == 0 { 0 } else { self.0 % n }
        }
    }

    /// A text `hir` matches, each class's blanks and each repetition's fewest favoured:
    /// the texts most likely to break a bound that is too high.
    fn sample(hir: &Hir, rng: &mut Rng, out: &mut String) {
        let pick = |rng: &mut Rng, start: u32, end: u32| {
            let blank = BLANKS
                .iter()
                .map(|&b| u32::from(b))
                .find(|b| (start..=end).contains(b));
            match blank {
                Some(b) if rng.below(2) == 0 => b,
                _ => start + u32::try_from(rng.below(u64::from(end - start).min(200) + 1)).unwrap(),
            }
        };
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(literal) => out.push_str(std::str::from_utf8(&literal.0).unwrap()),
            HirKind::Class(Class::Unicode(set)) => {
                let range =
                    set.ranges()[usize::try_from(rng.below(set.ranges().len() as u64)).unwrap()];
                let c = pick(rng, range.start().into(), range.end().into());
                out.push(char::from_u32(c).unwrap_or(range.start()));
            }
            HirKind::Class(Class::Bytes(set)) => {
                let range =
                    set.ranges()[usize::try_from(rng.below(set.ranges().len() as u64)).unwrap()];
                let c = pick(
                    rng,
                    range.start().into(),
                    range.end().min(0x7f).max(range.start()).into(),
                );
                out.push(char::from_u32(c).unwrap());
            }
            HirKind::Repetition(repetition) => {
                let extra = repetition
                    .max
                    .map_or(3, |max| (max - repetition.min).min(3));
                let times = repetition.min
                    + u32::try_from(rng.below(u64::from(extra) + 1)).unwrap()
                        * u32::from(rng.below(2) == 0);
                for _ in 0..times {
                    sample(&repetition.sub, rng, out);
                }
            }
            HirKind::Capture(capture) => sample(&capture.sub, rng, out),
            HirKind::Concat(parts) => parts.iter().for_each(|part| sample(part, rng, out)),
            HirKind::Alternation(branches) => {
                sample(
                    &branches[usize::try_from(rng.below(branches.len() as u64)).unwrap()],
                    rng,
                    out,
                );
            }
        }
    }

    #[test]
    fn no_rule_is_set_aside_on_a_text_it_matches() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for spec in SPECS {
            let Some(pattern) = spec.regex() else {
                continue;
            };
            let needed = needed(pattern);
            // The regex as `redact` compiles it, so a setting added there shows here.
            let regex = super::super::compile(pattern);
            let hir = regex_syntax::parse(pattern).unwrap();
            for _ in 0..500 {
                let mut text =
                    String::from(["", " ", "\n", "x "][usize::try_from(rng.below(4)).unwrap()]);
                sample(&hir, &mut rng, &mut text);
                text.push_str(["", " ", "\t", " x"][usize::try_from(rng.below(4)).unwrap()]);
                if regex.is_match(&text) {
                    assert!(
                        longest_run(&text) >= needed,
                        "{} needs {needed} in {text:?}",
                        spec.kind
                    );
                }
            }
        }
    }

    #[test]
    fn a_text_of_short_words_wakes_no_rule_that_needs_a_long_run() {
        let token = format!("ghp_{}", "a1B2".repeat(9));
        let github = SPECS.iter().position(|s| s.kind == "github-token").unwrap();
        assert_eq!(
            active_rules("the ghp_ prefix names a github token") & 1 << github,
            0
        );
        assert_ne!(active_rules(&format!("token {token}")) & 1 << github, 0);
        assert_eq!(longest_run("a  bb\tccc\r\n"), 3);
        assert_eq!(longest_run(""), 0);
    }
}
