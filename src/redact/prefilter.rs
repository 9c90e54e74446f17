//! The keyword prefilter: one cheap pass over a text that says which redaction rules can
//! match at all (gitleaks' `keywords`), so a text without any rule's keyword runs no rule.
//!
//! It only narrows the rules to run; it never finds a secret itself, and a rule it wakes
//! may still find nothing (`redact` runs them).

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::compile;
use super::rules::SPECS;

/// Which rules can match at all, found in one cheap pass (gitleaks' `keywords`); rules
/// whose keywords never occur are not run.
pub(super) struct Prefilter {
    /// Keywords common in prose, each found with `contains`, which stops at the first hit.
    pub(super) frequent: Vec<(&'static str, u64)>,
    /// The distinctive keywords in one alternation, which clean text rarely hits at all.
    rare: Regex,
    /// For each rare keyword, the rules it wakes: one bit per index into `SPECS`.
    pub(super) rules_by_rare: HashMap<&'static str, u64>,
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
    SPECS.len() <= 64,
    "the prefilter keeps one bit per rule in a u64"
);

pub(super) static PREFILTER: LazyLock<Prefilter> = LazyLock::new(|| {
    // A hit reports only the longest keyword at its position, so it also wakes the rules
    // of every keyword inside it; keywords starting later are found by resuming one byte on.
    let rules_containing = |hit: &str| {
        SPECS
            .iter()
            .enumerate()
            .filter(|(_, spec)| spec.keywords.iter().any(|k| hit.contains(k)))
            .fold(0, |mask, (index, _)| mask | 1 << index)
    };
    let mut rare: Vec<&'static str> = SPECS
        .iter()
        .flat_map(|spec| spec.keywords)
        .copied()
        .filter(|k| !FREQUENT_KEYWORDS.contains(k))
        .collect();
    rare.sort_by_key(|k| std::cmp::Reverse(k.len()));
    rare.dedup();
    let alternation: Vec<String> = rare.iter().map(|k| regex::escape(k)).collect();
    Prefilter {
        frequent: FREQUENT_KEYWORDS
            .iter()
            .map(|&k| (k, rules_containing(k)))
            .collect(),
        rare: compile(&alternation.join("|")),
        rules_by_rare: rare.iter().map(|&k| (k, rules_containing(k))).collect(),
    }
});

/// The rules whose keywords occur in `text`, one bit per index into `SPECS`.
pub(super) fn active_rules(text: &str) -> u64 {
    const ALL: u64 = u64::MAX >> (64 - SPECS.len());
    // Lowercasing a copy once lets the keyword searches be plain literal searches, several
    // times faster than case-insensitive ones; ASCII lowercasing keeps every offset.
    let lower = text.to_ascii_lowercase();
    let mut active = 0;
    for &(keyword, rules) in &PREFILTER.frequent {
        if active & rules != rules && lower.contains(keyword) {
            active |= rules;
        }
    }
    let mut at = 0;
    while active != ALL {
        let Some(hit) = PREFILTER.rare.find_at(&lower, at) else {
            break;
        };
        active |= PREFILTER
            .rules_by_rare
            .get(hit.as_str())
            .copied()
            .unwrap_or(0);
        // Keywords are ASCII, so the byte after a hit's start is a char boundary.
        at = hit.start() + 1;
    }
    active
}
