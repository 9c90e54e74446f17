//! What to do with one candidate fact, decided from what the ledger already knows about the
//! fact it matches and the fact it says it replaces. Pure: the caller looks the facts up
//! (through `FactIndex` and the ledger) and applies the decision in a transaction.

use crate::fact::{ArchiveReason, Caution, Origin, Refusal, Status};
use crate::ground::Ungrounded;
use crate::transcript::Doubt;

/// What the ledger knows of a fact a candidate was matched to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    pub id: i64,
    pub status: Status,
    pub archived_reason: Option<ArchiveReason>,
    pub origin: Origin,
}

impl Known {
    /// Still counts: shown, waiting for review, or only pushed out by the size cap.
    fn in_force(&self) -> bool {
        match self.status {
            Status::Active | Status::Pending => true,
            Status::Archived => self.archived_reason == Some(ArchiveReason::Cap),
            Status::Forgotten => false,
        }
    }
}

/// Everything a decision depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context {
    /// Whether the person's own words state the candidate (`ground`).
    pub grounding: Grounding,
    /// The policy filter's verdict on the candidate's text.
    pub policy: Result<(), Refusal>,
    /// The known fact that says the same thing, if any.
    pub matched: Option<Known>,
    /// The known fact the candidate says it replaces, if it names one that exists.
    pub replaces: Option<Known>,
    /// The matched fact already came up earlier in the same answer.
    pub seen_in_answer: bool,
    /// Nothing matched, but the user erased a fact with these words (`forget --purge`).
    pub purged: bool,
    /// The candidate says all the matched fact says, and more.
    pub more_specific: bool,
    /// New facts wait for `memory review`.
    pub review: bool,
}

/// What the candidate's evidence showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grounding {
    /// Quoted from the person's own words, or nothing to check (a command of the user's).
    Grounded,
    /// The evidence does not ground it.
    Refused(Ungrounded),
    /// The model quoted nothing for any fact of its answer: it ignores the field, so its
    /// facts cannot be checked and wait for the user's review instead.
    Unverified,
    /// Quoted from the person's words, but memloop cannot vouch for them or for what they
    /// say: it waits for the user's review, like an unverified fact.
    Held(Held),
}

/// Why a quoted fact waits for review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Held {
    /// Quoted from a message whose heading may be the assistant's text.
    Doubted(Doubt),
    /// Its quote's words cannot tell whether it states the fact, and the model could not be
    /// asked.
    Unjudged,
    /// Accepted by the policy filter, which still cannot vouch for it (`fact::caution`):
    /// written in a language it does not read, or it would let the assistant take a risky
    /// step unchecked.
    Caution(Caution),
}

impl std::fmt::Display for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Held::Doubted(doubt) => write!(
                f,
                "quoted from a message that may be the assistant's text ({})",
                doubt.describe()
            ),
            Held::Unjudged => {
                f.write_str("the model could not be asked whether the quote states the fact")
            }
            Held::Caution(caution) => caution.fmt(f),
        }
    }
}

/// What happens to one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Not grounded in the person's own words: never stored.
    Ungrounded(Ungrounded),
    /// An instruction, a command, a secret request...: never stored.
    Refuse(Refusal),
    /// A fact memloop did not know: stored and shown.
    New,
    /// A fact memloop did not know, waiting for review; accepting it archives `replaces`.
    Pending { replaces: Option<i64> },
    /// Said again: one more source.
    Reinforce(i64),
    /// Said again with more detail: one more source, and the more specific wording (a more
    /// specific fact is never swallowed by a less specific one).
    Refine(i64),
    /// An update close enough to read as the same fact: it takes the new wording.
    Rewrite(i64),
    /// A changed fact: `old` is archived as replaced, by a new fact (`by: None`) or by the
    /// known fact the candidate matched.
    Replace { old: i64, by: Option<i64> },
    /// A value that was replaced comes back, explicitly replacing the one in force ("moved
    /// back to Berlin"); an old transcript merely saying it again does not do this.
    Resurrect { id: i64, old: i64 },
    /// The user forgot this fact: it stays forgotten.
    DropForgotten(i64),
    /// The user erased this fact (`forget --purge`): it stays forgotten, though memloop
    /// kept no more than a fingerprint of it.
    DropPurged,
    /// The same fact came earlier in this answer.
    Duplicate(i64),
    /// A known fact said again by an answer that quoted nothing: it changes nothing, not
    /// even how often the fact was seen (which orders the size cap).
    Unchecked(i64),
}

/// Decides what happens to one candidate.
#[must_use]
pub fn decide(cx: &Context) -> Decision {
    if let Grounding::Refused(why) = cx.grounding {
        return Decision::Ungrounded(why);
    }
    if let Err(reason) = cx.policy {
        return Decision::Refuse(reason);
    }
    if matches!(cx.grounding, Grounding::Held(Held::Caution(_))) {
        return cautious(cx);
    }
    if matches!(cx.grounding, Grounding::Unverified | Grounding::Held(_)) {
        return unverified(cx);
    }
    let replaces = replaces(cx);
    let Some(matched) = cx.matched else {
        if cx.purged {
            return Decision::DropPurged;
        }
        return match (cx.review, replaces) {
            (true, r) => Decision::Pending {
                replaces: r.map(|r| r.id),
            },
            // A fact the user wrote is never replaced by extraction alone: the new one
            // waits for review beside it.
            (false, Some(old)) if old.origin == Origin::User => Decision::Pending {
                replaces: Some(old.id),
            },
            (false, Some(old)) => Decision::Replace {
                old: old.id,
                by: None,
            },
            (false, None) => Decision::New,
        };
    };
    if cx.seen_in_answer {
        return Decision::Duplicate(matched.id);
    }
    match (matched.status, replaces) {
        (Status::Forgotten, _) => Decision::DropForgotten(matched.id),
        // Said again while it waits for review: what it replaces stays until the user
        // accepts it.
        (Status::Pending, _) => Decision::Reinforce(matched.id),
        // Rewording a fact the user wrote would overwrite their words: it is said again.
        (_, Some(old)) if old.id == matched.id && matched.origin == Origin::User => {
            Decision::Reinforce(matched.id)
        }
        (_, Some(old)) if old.id == matched.id => Decision::Rewrite(matched.id),
        (Status::Archived, Some(old)) if !matched.in_force() => Decision::Resurrect {
            id: matched.id,
            old: old.id,
        },
        (_, Some(old)) => Decision::Replace {
            old: old.id,
            by: Some(matched.id),
        },
        (_, None) if cx.more_specific && matched.origin == Origin::Extracted => {
            Decision::Refine(matched.id)
        }
        (_, None) => Decision::Reinforce(matched.id),
    }
}

/// The fact in force that a candidate replaces, if any.
fn replaces(cx: &Context) -> Option<Known> {
    cx.replaces
        .filter(|r| r.in_force() && r.status != Status::Pending)
}

/// A fact the policy filter cannot vouch for waits for the person: a new one waits with
/// what it replaces (shown in the review, archived once accepted), and one already in force
/// in memory is said again as any fact is. It rewords and replaces nothing by itself.
fn cautious(cx: &Context) -> Decision {
    match cx.matched {
        None if !cx.purged => Decision::Pending {
            replaces: replaces(cx).map(|r| r.id),
        },
        Some(m) if !cx.seen_in_answer && m.status == Status::Active => Decision::Reinforce(m.id),
        _ => unverified(cx),
    }
}

/// An unchecked fact waits for review when it is new, and changes nothing the ledger
/// already holds: it neither rewords, replaces nor reinforces a known fact.
fn unverified(cx: &Context) -> Decision {
    match cx.matched {
        None if cx.purged => Decision::DropPurged,
        None => Decision::Pending { replaces: None },
        Some(m) if cx.seen_in_answer => Decision::Duplicate(m.id),
        Some(m) if m.status == Status::Forgotten => Decision::DropForgotten(m.id),
        Some(m) => Decision::Unchecked(m.id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fact::Refusal;

    const fn known(id: i64, status: Status, reason: Option<ArchiveReason>) -> Known {
        Known {
            id,
            status,
            archived_reason: reason,
            origin: Origin::Extracted,
        }
    }
    const ACTIVE: Known = known(1, Status::Active, None);
    const OTHER: Known = known(2, Status::Active, None);
    const CAPPED: Known = known(1, Status::Archived, Some(ArchiveReason::Cap));
    const REPLACED: Known = known(1, Status::Archived, Some(ArchiveReason::Replaced));
    const FORGOTTEN: Known = known(1, Status::Forgotten, None);
    const PENDING: Known = known(1, Status::Pending, None);
    const USERS: Known = Known {
        origin: Origin::User,
        ..ACTIVE
    };

    fn cx(matched: Option<Known>, replaces: Option<Known>) -> Context {
        Context {
            grounding: Grounding::Grounded,
            policy: Ok(()),
            matched,
            replaces,
            seen_in_answer: false,
            purged: false,
            more_specific: false,
            review: false,
        }
    }

    #[test]
    fn decisions() {
        let refused = Context {
            policy: Err(Refusal::Instruction),
            ..cx(Some(ACTIVE), None)
        };
        let review = |m, r| Context {
            review: true,
            ..cx(m, r)
        };
        let purged = Context {
            purged: true,
            review: true,
            ..cx(None, Some(OTHER))
        };
        let detailed = |m| Context {
            more_specific: true,
            ..cx(Some(m), None)
        };
        let again = Context {
            seen_in_answer: true,
            ..cx(Some(ACTIVE), None)
        };
        let ungrounded = Context {
            grounding: Grounding::Refused(Ungrounded::NotUsersWords),
            ..refused
        };
        let unread = |m, r| Context {
            grounding: Grounding::Held(Held::Caution(Caution::Unread)),
            ..cx(m, r)
        };
        let unverified = |m, r| Context {
            grounding: Grounding::Unverified,
            ..cx(m, r)
        };
        let table: Vec<(&str, Context, Decision)> = vec![
            (
                "ungrounded before anything",
                ungrounded,
                Decision::Ungrounded(Ungrounded::NotUsersWords),
            ),
            (
                "refused first",
                refused,
                Decision::Refuse(Refusal::Instruction),
            ),
            (
                "unverified and refused",
                Context {
                    grounding: Grounding::Unverified,
                    ..refused
                },
                Decision::Refuse(Refusal::Instruction),
            ),
            (
                "unverified, new: waits for review, replacing nothing",
                unverified(None, Some(OTHER)),
                Decision::Pending { replaces: None },
            ),
            (
                "unverified, known: changes nothing, never replaces",
                unverified(Some(ACTIVE), Some(OTHER)),
                Decision::Unchecked(1),
            ),
            (
                "unverified, updating itself: not reworded",
                unverified(Some(ACTIVE), Some(ACTIVE)),
                Decision::Unchecked(1),
            ),
            (
                "unverified, forgotten",
                unverified(Some(FORGOTTEN), None),
                Decision::DropForgotten(1),
            ),
            (
                "unread, new: waits for review with what it replaces",
                unread(None, Some(OTHER)),
                Decision::Pending { replaces: Some(2) },
            ),
            (
                "unread, in memory already: said again",
                unread(Some(ACTIVE), Some(OTHER)),
                Decision::Reinforce(1),
            ),
            (
                "unread, waiting already: changes nothing",
                unread(Some(PENDING), None),
                Decision::Unchecked(1),
            ),
            (
                "unread, forgotten",
                unread(Some(FORGOTTEN), None),
                Decision::DropForgotten(1),
            ),
            (
                "unread and refused",
                Context {
                    grounding: Grounding::Held(Held::Caution(Caution::Unread)),
                    ..refused
                },
                Decision::Refuse(Refusal::Instruction),
            ),
            ("unknown", cx(None, None), Decision::New),
            (
                "unknown, review",
                review(None, None),
                Decision::Pending { replaces: None },
            ),
            (
                "unknown, replacing, review",
                review(None, Some(OTHER)),
                Decision::Pending { replaces: Some(2) },
            ),
            (
                "unknown, replacing a fact the user wrote: waits beside it",
                cx(None, Some(USERS)),
                Decision::Pending { replaces: Some(1) },
            ),
            ("known", cx(Some(ACTIVE), None), Decision::Reinforce(1)),
            (
                "known, pending",
                cx(Some(PENDING), None),
                Decision::Reinforce(1),
            ),
            (
                "said with more detail",
                detailed(ACTIVE),
                Decision::Refine(1),
            ),
            (
                "the user's words, said with more detail",
                detailed(USERS),
                Decision::Reinforce(1),
            ),
            (
                "pending, replacing again",
                cx(Some(PENDING), Some(OTHER)),
                Decision::Reinforce(1),
            ),
            (
                "known, capped",
                cx(Some(CAPPED), None),
                Decision::Reinforce(1),
            ),
            (
                "an old value said again",
                cx(Some(REPLACED), None),
                Decision::Reinforce(1),
            ),
            ("known twice in one answer", again, Decision::Duplicate(1)),
            (
                "forgotten",
                cx(Some(FORGOTTEN), None),
                Decision::DropForgotten(1),
            ),
            (
                "erased, even when replacing and reviewing",
                purged,
                Decision::DropPurged,
            ),
            (
                "forgotten even when replacing",
                cx(Some(FORGOTTEN), Some(OTHER)),
                Decision::DropForgotten(1),
            ),
            (
                "unknown replacing",
                cx(None, Some(OTHER)),
                Decision::Replace { old: 2, by: None },
            ),
            (
                "updating itself",
                cx(Some(ACTIVE), Some(ACTIVE)),
                Decision::Rewrite(1),
            ),
            (
                "updating the user's words",
                cx(Some(USERS), Some(USERS)),
                Decision::Reinforce(1),
            ),
            (
                "known replacing another",
                cx(Some(ACTIVE), Some(OTHER)),
                Decision::Replace {
                    old: 2,
                    by: Some(1),
                },
            ),
            (
                "an old value replacing the current one",
                cx(Some(REPLACED), Some(OTHER)),
                Decision::Resurrect { id: 1, old: 2 },
            ),
            (
                "replacing what is no longer in force",
                cx(
                    None,
                    Some(known(2, Status::Archived, Some(ArchiveReason::Replaced))),
                ),
                Decision::New,
            ),
            (
                "replacing a forgotten fact",
                cx(None, Some(known(2, Status::Forgotten, None))),
                Decision::New,
            ),
            (
                "replacing a capped fact",
                cx(
                    None,
                    Some(known(2, Status::Archived, Some(ArchiveReason::Cap))),
                ),
                Decision::Replace { old: 2, by: None },
            ),
            (
                "replacing a pending fact",
                cx(None, Some(known(2, Status::Pending, None))),
                Decision::New,
            ),
        ];
        for (name, context, want) in table {
            assert_eq!(decide(&context), want, "{name}");
        }
    }
}
