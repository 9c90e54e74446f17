//! Facts: what an extractor proposes (`Candidate`), what the ledger keeps (`Fact`), the
//! normalised key that decides when two texts say the same thing, and the policy filter
//! that refuses candidates which are instructions rather than facts.
//!
//! Pure: no I/O, no clock. Merging against existing facts lives in `merge`.

use serde::{Deserialize, Serialize};

/// Where a fact belongs: about the person (memory.md) or about one vault's work.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    #[default]
    Global,
    Vault,
}

/// Lifecycle of a stored fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Rendered into memory.md or a vault's insights.
    Active,
    /// Kept in the ledger but not rendered: replaced by a newer fact or pushed out by the cap.
    Archived,
    /// Deleted by the user; a candidate that matches it is dropped.
    Forgotten,
    /// Waiting for `memloop memory review` (only when `memory.review = true`).
    Pending,
}

/// A fact as an extractor proposes it, before the policy filter and merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    pub category: String,
    pub text: String,
    #[serde(default)]
    pub scope: Scope,
    /// The text of an existing fact this one updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
}

/// A fact as the ledger stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fact {
    pub id: i64,
    pub text: String,
    pub category: String,
    pub scope: Scope,
    /// The vault's name for `Scope::Vault`, `None` for global facts.
    pub vault: Option<String>,
    /// Date (YYYY-MM-DD) of the oldest transcript that mentions the fact.
    pub first_seen: String,
    /// Date (YYYY-MM-DD) of the newest transcript that mentions the fact.
    pub last_seen: String,
    /// How many extractions produced this fact (1 when first seen).
    pub times_seen: u32,
    pub status: Status,
}
