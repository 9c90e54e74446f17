//! The keyword prefilter: one cheap pass over a text that says which redaction rules can
//! match at all (gitleaks' `keywords`), so a text without any rule's keyword runs no rule.
//!
//! It only narrows the rules to run; it never finds a secret itself, and a rule it wakes
//! may still find nothing (`redact` runs them).

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};

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
    }
});

/// The rules whose keywords occur in `text`, one bit per index into `SPECS`.
pub(super) fn active_rules(text: &str) -> Rules {
    const ALL: Rules = Rules::MAX >> (Rules::BITS as usize - SPECS.len());
    // Lowercasing a copy once lets the keyword searches be plain literal searches, several
    // times faster than case-insensitive ones; ASCII lowercasing keeps every offset.
    let lower = text.to_ascii_lowercase();
    let mut active = 0;
    for &(keyword, rules) in &PREFILTER.frequent {
        if active & rules != rules && lower.contains(keyword) {
            active |= rules;
        }
    }
    for hit in PREFILTER.rare.find_overlapping_iter(&lower) {
        active |= PREFILTER.rules_by_rare[hit.pattern().as_usize()];
        if active == ALL {
            break;
        }
    }
    active
}
