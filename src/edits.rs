//! Hand edits to the files memloop writes. memloop remembers the text it last wrote into
//! each target (memory.md, a vault's fence); when the file on disk differs, the bullets the
//! user deleted become forgotten facts, the bullets they added or reworded become facts in
//! their words, and bullets moved under another heading change category. Pure: comparing
//! texts; the pipeline applies the result to the ledger.

use std::collections::{HashMap, HashSet};

use crate::fact::normalize;
use crate::render::{Bullet, clean, parse_bullets, without_as_of};

/// What the user changed by hand since memloop last wrote a file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Edits {
    /// Bullets memloop wrote whose meaning is gone from the file.
    pub removed: Vec<Bullet>,
    /// Bullets in the file in words memloop did not write: new facts, or rewordings
    /// (even of case or punctuation only) of known ones.
    pub added: Vec<Bullet>,
    /// Bullets memloop wrote, word for word, that the user moved under another heading.
    pub moved: Vec<Bullet>,
}

impl Edits {
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.added.is_empty() && self.moved.is_empty()
    }
}

/// Compares the file as it is (`current`) with what memloop wrote last (`written`).
///
/// `pending` is a write memloop recorded but may not have finished (a run stopped between
/// the two). A file equal to either carries no edits. When a write was pending and the file
/// matches neither, only what differs from both counts, so a crash can never turn facts
/// that were about to be written into deletions. With no record at all, every bullet in an
/// existing file counts as the user's own.
pub fn diff(current: Option<&str>, written: Option<&str>, pending: Option<&str>) -> Edits {
    let Some(current) = current else {
        // A deleted file is not a request to forget everything: it is simply written again.
        return Edits::default();
    };
    if Some(current) == written || Some(current) == pending {
        return Edits::default();
    }
    let now = parse_bullets(current);
    let against = |base: Option<&str>| compare(&now, &base.map(parse_bullets).unwrap_or_default());
    let mut edits = against(written);
    if pending.is_some() {
        let other = against(pending);
        let keys = |bullets: &[Bullet]| -> HashSet<String> {
            bullets.iter().map(|b| clean(&b.text)).collect()
        };
        let (removed, added, moved) =
            (keys(&other.removed), keys(&other.added), keys(&other.moved));
        edits.removed.retain(|b| removed.contains(&clean(&b.text)));
        edits.added.retain(|b| added.contains(&clean(&b.text)));
        edits.moved.retain(|b| moved.contains(&clean(&b.text)));
    }
    edits
}

/// How many bullets written since an earlier version a file must lack before it is read
/// as an editor's older copy: one missing bullet is more likely the user deleting what the
/// last run added.
const STALE_MIN_KEPT: usize = 2;

/// [`diff`], for a file that may have been saved from an editor that loaded an earlier
/// version memloop wrote (`earlier`, the newest first): the bullets memloop added since that
/// version are not in the editor's copy, and their absence is not the user's deletion.
/// When the file lacks every bullet written since an earlier version, and the edits
/// against that version remove fewer bullets, add none the last write would not count as
/// added and reword none of those it lacks, they are taken against the closest such version;
/// with them, how many bullets memloop wrote since that the file lacks (kept, not
/// forgotten). A file that is exactly an earlier version is the last write undone by hand:
/// its deletions are the user's.
pub fn diff_since_loaded(
    current: Option<&str>,
    written: Option<&str>,
    pending: Option<&str>,
    earlier: &[String],
) -> (Edits, usize) {
    let last = diff(current, written, pending);
    // A file that is exactly an earlier write is memloop's last write undone by hand.
    if last.removed.is_empty() || current.is_some_and(|c| earlier.iter().any(|e| e == c)) {
        return (last, 0);
    }
    let keys = |bullets: &[Bullet]| -> HashSet<String> {
        bullets.iter().map(|b| clean(&b.text)).collect()
    };
    let added_last = keys(&last.added);
    let removed_last = keys(&last.removed);
    let written_keys = written.map(|w| keys(&parse_bullets(w))).unwrap_or_default();
    let best = earlier
        .iter()
        .map(|e| (keys(&parse_bullets(e)), diff(current, Some(e), None)))
        .filter(|(loaded, e)| {
            let removed = keys(&e.removed);
            // The editor's copy lacks every bullet written since, and only those.
            let since: Vec<&String> = written_keys.difference(loaded).collect();
            let kept: Vec<&String> = removed_last.difference(&removed).collect();
            kept.len() >= STALE_MIN_KEPT
                && e.removed.len() < last.removed.len()
                && e.added.iter().all(|b| added_last.contains(&clean(&b.text)))
                && since.iter().all(|k| removed_last.contains(*k))
                // A bullet reworded is not one the editor never saw.
                && !kept.iter().any(|k| e.added.iter().any(|b| reworded(k, &clean(&b.text))))
        })
        .map(|(_, e)| e)
        .min_by_key(|e| e.removed.len() + e.added.len() + e.moved.len());
    match best {
        Some(edits) => {
            let kept = last.removed.len() - edits.removed.len();
            (edits, kept)
        }
        None => (last, 0),
    }
}

/// A bullet's words, lower-cased, as rewordings are told by.
#[must_use]
pub fn words(s: &str) -> HashSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether two bullets are one fact with a word or two changed: three or more words
/// shared, at most two differing on each side.
#[must_use]
pub fn a_word_changed(a: &str, b: &str) -> bool {
    let (a, b) = (words(a), words(b));
    a.intersection(&b).count() >= 3
        && a.difference(&b).count() <= 2
        && b.difference(&a).count() <= 2
}

/// Whether two bullets (cleaned) share most of their words: one reworded into the other.
fn reworded(a: &str, b: &str) -> bool {
    let (a, b) = (words(a), words(b));
    let shared = a.intersection(&b).count();
    shared * 2 >= a.len().min(b.len()).max(1)
}

fn compare(now: &[Bullet], before: &[Bullet]) -> Edits {
    // Bullets meet by their words: the month memloop puts after an old fact comes and goes
    // with the facts beside it, and deleting it by hand changes nothing.
    let words = |b: &Bullet| without_as_of(&b.text).to_owned();
    let now_keys: HashSet<String> = now.iter().map(|b| normalize(&words(b))).collect();
    let before_words: HashMap<String, Option<&str>> = before
        .iter()
        .map(|b| (clean(&words(b)), b.category.as_deref()))
        .collect();
    let mut edits = Edits::default();
    for b in before {
        if !now_keys.contains(&normalize(&words(b))) {
            edits.removed.push(b.clone());
        }
    }
    for b in now {
        match before_words.get(&clean(&words(b))) {
            None => edits.added.push(b.clone()),
            Some(category) if b.category.is_some() && *category != b.category.as_deref() => {
                edits.moved.push(b.clone());
            }
            Some(_) => {}
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRITTEN: &str = "# Memory\n\n## Preferences\n\n- Prefers tea.\n- Uses Vim.\n";

    fn texts(b: &[Bullet]) -> Vec<&str> {
        b.iter().map(|b| b.text.as_str()).collect()
    }

    #[test]
    fn the_file_as_written_or_as_pending_has_no_edits() {
        assert!(diff(Some(WRITTEN), Some(WRITTEN), None).is_empty());
        assert!(diff(Some("new"), Some(WRITTEN), Some("new")).is_empty());
        assert!(diff(None, Some(WRITTEN), None).is_empty());
    }

    #[test]
    fn deleting_the_newest_bullet_is_a_deletion() {
        // The file now equals an older render: that is the user undoing our last write.
        let older = "# Memory\n\n## Preferences\n\n- Prefers tea.\n";
        let e = diff(Some(older), Some(WRITTEN), None);
        assert_eq!(texts(&e.removed), ["Uses Vim."]);
        assert!(e.added.is_empty());
    }

    #[test]
    fn an_editors_older_copy_is_compared_with_the_version_it_loaded() {
        let loaded = "# Memory\n\n## Preferences\n\n- Prefers tea.\n";
        let written = "# Memory\n\n## Preferences\n\n- Prefers tea.\n- Uses Vim.\n- Runs Arch.\n";
        let earlier = [loaded.to_owned()];
        // The editor's copy, with a line typed: only that line is an edit, and the two
        // bullets written since are kept.
        let saved = format!("{loaded}- Drinks oat milk.\n");
        let (e, kept) = diff_since_loaded(Some(&saved), Some(written), None, &earlier);
        assert_eq!(
            (texts(&e.removed), texts(&e.added), kept),
            (vec![], vec!["Drinks oat milk."], 2)
        );
        // Exactly the version loaded: the last write undone by hand.
        let (e, kept) = diff_since_loaded(Some(loaded), Some(written), None, &earlier);
        assert_eq!((e.removed.len(), kept), (2, 0));
        // One bullet written since and missing is the user's deletion.
        let one = "# Memory\n\n## Preferences\n\n- Prefers tea.\n- Uses Vim.\n";
        let (e, kept) = diff_since_loaded(Some(&saved), Some(one), None, &[loaded.to_owned()]);
        assert_eq!((texts(&e.removed), kept), (vec!["Uses Vim."], 0));
        // A file that keeps one of the bullets written since is up to date: a deletion.
        let partly = format!("{loaded}- Uses Vim.\n- Drinks oat milk.\n");
        let (e, kept) = diff_since_loaded(Some(&partly), Some(written), None, &earlier);
        assert_eq!((texts(&e.removed), kept), (vec!["Runs Arch."], 0));
        // Bullets written since and reworded are the user's rewording.
        let reworded = format!("{loaded}- Uses Vim daily.\n- Runs Arch Linux.\n");
        let (e, kept) = diff_since_loaded(Some(&reworded), Some(written), None, &earlier);
        assert_eq!((e.removed.len(), kept), (2, 0));
    }

    #[test]
    fn deleted_added_and_reworded_bullets() {
        let edited = "# Memory\n\n## Preferences\n\n- Prefers green tea.\n- uses vim\n\n## Identity\n\n- Lives in Lisbon.\n";
        let e = diff(Some(edited), Some(WRITTEN), None);
        assert_eq!(texts(&e.removed), ["Prefers tea."]);
        assert_eq!(
            texts(&e.added),
            ["Prefers green tea.", "uses vim", "Lives in Lisbon."]
        );
        assert_eq!(e.added[2].category.as_deref(), Some("Identity"));
    }

    #[test]
    fn bullet_markers_and_spacing_alone_are_not_edits() {
        let e = diff(
            Some("# Memory\n\n## Preferences\n\n* Prefers tea.\n*   Uses  Vim.\n"),
            Some(WRITTEN),
            None,
        );
        assert!(e.is_empty(), "{e:?}");
    }

    #[test]
    fn a_bullet_moved_under_another_heading_is_a_change() {
        let edited = "# Memory\n\n## Preferences\n\n- Prefers tea.\n\n## Patterns\n\n- Uses Vim.\n";
        let e = diff(Some(edited), Some(WRITTEN), None);
        assert!(e.added.is_empty() && e.removed.is_empty(), "{e:?}");
        assert_eq!(texts(&e.moved), ["Uses Vim."]);
        assert_eq!(e.moved[0].category.as_deref(), Some("Patterns"));
    }

    #[test]
    fn a_pending_write_never_turns_its_new_facts_into_deletions() {
        // A run recorded "tea, Vim, cats" and stopped; did the write happen? Either way the
        // user then deleted tea and added dogs.
        let pending = "# Memory\n\n## Preferences\n\n- Prefers tea.\n- Uses Vim.\n- Likes cats.\n";
        let written = "# Memory\n\n## Preferences\n\n- Prefers tea.\n- Uses Vim.\n";
        for on_disk_before_edit in [written, pending] {
            let edited = on_disk_before_edit.replace("- Prefers tea.\n", "") + "- Likes dogs.\n";
            let e = diff(Some(&edited), Some(written), Some(pending));
            assert_eq!(texts(&e.removed), ["Prefers tea."], "{on_disk_before_edit}");
            assert_eq!(texts(&e.added), ["Likes dogs."]);
        }
    }

    #[test]
    fn a_file_memloop_never_wrote_is_all_the_users() {
        let e = diff(Some("## Identity\n\n- Is a nurse.\n"), None, None);
        assert_eq!(texts(&e.added), ["Is a nurse."]);
        assert!(e.removed.is_empty());
    }

    #[test]
    fn the_month_after_an_old_fact_is_no_edit_and_a_typed_one_is_kept() {
        let written =
            "# Memory\n\n## Identity\n\n- Lives in Munich. (as of 2025-03)\n- Uses Vim.\n";
        // Gone by hand, or gone because memloop confirmed the fact again: no edit.
        let dropped = written.replace(" (as of 2025-03)", "");
        assert!(diff(Some(&dropped), Some(written), None).is_empty());
        assert!(diff(Some(written), Some(&dropped), None).is_empty());
        // A bullet the user types with such an ending keeps it: those are their words.
        let typed = format!("{written}- Moved to Lisbon. (as of 2024-01)\n");
        let e = diff(Some(&typed), Some(written), None);
        assert_eq!(texts(&e.added), ["Moved to Lisbon. (as of 2024-01)"]);
        assert!(e.removed.is_empty());
    }
}
