//! The facts a transcript travels with, so that the model can name the one a transcript
//! updates (`replaces`) and leave out the ones it only repeats, in any words: everything
//! memloop knows about the person, then everything about the transcript's vault (never
//! another vault's). Words shared with the transcript do not choose them: "We finally moved
//! to Berlin" shares none with "Lives in Munich."
//!
//! The run takes the facts once, when it begins, and every request of the night carries
//! them as the same bytes, in a stable order (the prompt's categories, then the order they
//! were learned), ahead of anything that changes, so a provider caches them and a night of
//! many transcripts pays for them about once. Past a token budget, the facts worth most stay:
//! the most often confirmed, then the most recently seen.
//!
//! Pure: it reads facts, it does not fetch them.

use crate::fact::{Fact, Scope};
use crate::transcript::estimate_tokens;

/// How many tokens of known facts a request carries at most: memory.md's cap (50 KB, about
/// 13,000 tokens) nearly whole, and a vault's insights.
pub const BUDGET_TOKENS: usize = 14_000;

/// The known facts of one request: the person's, then the vault's, each list in a stable
/// order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    pub global: Vec<String>,
    pub vault: Vec<String>,
}

impl Known {
    /// The facts of `vault` (its name) and the person's among `facts` (the active ones), in
    /// the order of `categories`, within `budget` tokens.
    #[must_use]
    pub fn of(facts: &[Fact], vault: &str, categories: &[String], budget: usize) -> Self {
        let ours = |f: &&Fact| match f.scope {
            Scope::Global => true,
            Scope::Vault => f.vault.as_deref() == Some(vault),
        };
        let mut kept: Vec<&Fact> = facts.iter().filter(ours).collect();
        let cost = |f: &Fact| estimate_tokens(&f.text) + 2;
        if kept.iter().map(|f| cost(f)).sum::<usize>() > budget {
            kept.sort_by(|a, b| {
                b.times_seen
                    .cmp(&a.times_seen)
                    .then_with(|| b.last_seen.cmp(&a.last_seen))
                    .then_with(|| a.id.cmp(&b.id))
            });
            let mut used = 0;
            kept.retain(|f| {
                used += cost(f);
                used <= budget
            });
        }
        let rank = |f: &Fact| {
            categories
                .iter()
                .position(|c| c.eq_ignore_ascii_case(&f.category))
                .unwrap_or(categories.len())
        };
        kept.sort_by(|a, b| {
            rank(a)
                .cmp(&rank(b))
                .then_with(|| a.category.cmp(&b.category))
                .then_with(|| a.id.cmp(&b.id))
        });
        let (global, vault): (Vec<&Fact>, Vec<&Fact>) =
            kept.into_iter().partition(|f| f.scope == Scope::Global);
        let texts = |facts: Vec<&Fact>| facts.into_iter().map(|f| f.text.clone()).collect();
        Self {
            global: texts(global),
            vault: texts(vault),
        }
    }

    /// Whether `text` is among them.
    #[must_use]
    pub fn contains(&self, text: &str) -> bool {
        self.global.iter().chain(&self.vault).any(|t| t == text)
    }

    /// Their tokens, as a request carries them.
    #[must_use]
    pub fn tokens(&self) -> usize {
        self.global
            .iter()
            .chain(&self.vault)
            .map(|t| estimate_tokens(t) + 2)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fact::{Origin, Status};

    fn fact(id: i64, text: &str, category: &str, vault: Option<&str>, seen: u32) -> Fact {
        Fact {
            id,
            text: text.to_owned(),
            category: category.to_owned(),
            scope: if vault.is_some() {
                Scope::Vault
            } else {
                Scope::Global
            },
            vault: vault.map(str::to_owned),
            first_seen: "2026-01-01".to_owned(),
            last_seen: format!("2026-01-{:02}", id.clamp(1, 28)),
            times_seen: seen,
            status: Status::Active,
            archived_reason: None,
            origin: Origin::Extracted,
        }
    }

    #[test]
    fn the_persons_and_the_vaults_facts_travel_in_a_stable_order_others_vaults_never() {
        let categories = vec!["Identity".to_owned(), "Preferences".to_owned()];
        let facts = vec![
            fact(1, "Prefers tabs.", "Preferences", None, 1),
            fact(2, "Lives in Munich.", "Identity", None, 1),
            fact(
                3,
                "Lanternfish uses S3.",
                "Project Context",
                Some("work"),
                1,
            ),
            fact(
                4,
                "Garden has tomatoes.",
                "Project Context",
                Some("home"),
                1,
            ),
            fact(5, "Speaks German.", "Identity", None, 1),
        ];
        let known = Known::of(&facts, "work", &categories, BUDGET_TOKENS);
        assert_eq!(
            known,
            Known {
                global: vec![
                    "Lives in Munich.".into(),
                    "Speaks German.".into(),
                    "Prefers tabs.".into()
                ],
                vault: vec!["Lanternfish uses S3.".into()],
            }
        );
        // The same facts in another order give the same bytes.
        let mut shuffled = facts.clone();
        shuffled.reverse();
        assert_eq!(
            Known::of(&shuffled, "work", &categories, BUDGET_TOKENS),
            known
        );
    }

    #[test]
    fn past_the_budget_the_most_confirmed_then_the_most_recent_stay() {
        let facts = vec![
            fact(1, "Old fact said once.", "Identity", None, 1),
            fact(2, "Said many times over.", "Identity", None, 9),
            fact(3, "Said once, but lately.", "Identity", None, 1),
        ];
        let two = facts[1..]
            .iter()
            .map(|f| estimate_tokens(&f.text) + 2)
            .sum();
        let known = Known::of(&facts, "v", &[], two);
        assert_eq!(
            known.global,
            ["Said many times over.", "Said once, but lately."]
        );
    }
}
