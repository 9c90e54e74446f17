//! Hand edits to the files memloop writes. memloop remembers the text it last rendered into
//! each target (memory.md, a vault's fence); when the file on disk differs, the bullets the
//! user deleted become forgotten facts and the bullets they added or changed become facts of
//! their own. Pure: comparing texts; the pipeline applies the result to the ledger.

use std::collections::HashMap;

use crate::fact::normalize;
use crate::render::{Bullet, parse_bullets};

/// What the user changed by hand since memloop last wrote a file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Edits {
    /// Bullets memloop wrote that are gone from the file.
    pub removed: Vec<Bullet>,
    /// Bullets in the file that memloop did not write (new, or changed wording).
    pub added: Vec<Bullet>,
    /// Bullets memloop wrote that the user moved under another heading.
    pub moved: Vec<Bullet>,
}

impl Edits {
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.added.is_empty() && self.moved.is_empty()
    }
}

/// Compares the file as it is (`current`) with what memloop wrote last (`rendered`) and the
/// time before (`previous`). A file equal to either carries no edits: equal to `previous`
/// means a run stopped between recording its render and writing the file. With no record
/// at all, every bullet in an existing file counts as the user's own.
pub fn diff(current: Option<&str>, rendered: Option<&str>, previous: Option<&str>) -> Edits {
    let Some(current) = current else {
        // A deleted file is not a request to forget everything: it is simply written again.
        return Edits::default();
    };
    if Some(current) == rendered || Some(current) == previous {
        return Edits::default();
    }
    let now = parse_bullets(current);
    let before = rendered.map(parse_bullets).unwrap_or_default();
    let categories = |bullets: &[Bullet]| -> HashMap<String, Option<String>> {
        bullets
            .iter()
            .map(|b| (normalize(&b.text), b.category.clone()))
            .collect()
    };
    let (now_keys, before_keys) = (categories(&now), categories(&before));
    let mut edits = Edits::default();
    for b in before {
        if !now_keys.contains_key(&normalize(&b.text)) {
            edits.removed.push(b);
        }
    }
    for b in now {
        match before_keys.get(&normalize(&b.text)) {
            None => edits.added.push(b),
            Some(category) if *category != b.category && b.category.is_some() => {
                edits.moved.push(b)
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
    fn unchanged_or_previous_file_has_no_edits() {
        assert!(diff(Some(WRITTEN), Some(WRITTEN), None).is_empty());
        assert!(diff(Some("old"), Some(WRITTEN), Some("old")).is_empty());
        assert!(diff(None, Some(WRITTEN), None).is_empty());
    }

    #[test]
    fn deleted_added_and_changed_bullets() {
        let edited = "# Memory\n\n## Preferences\n\n- Prefers green tea.\n\n## Identity\n\n- Lives in Lisbon.\n";
        let e = diff(Some(edited), Some(WRITTEN), None);
        assert_eq!(texts(&e.removed), ["Prefers tea.", "Uses Vim."]);
        assert_eq!(texts(&e.added), ["Prefers green tea.", "Lives in Lisbon."]);
        assert_eq!(e.added[1].category.as_deref(), Some("Identity"));
    }

    #[test]
    fn reformatting_alone_is_not_an_edit() {
        let e = diff(
            Some("# Memory\n\n## Preferences\n\n* prefers tea\n* Uses  vim\n"),
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
    fn a_file_memloop_never_wrote_is_all_the_users() {
        let e = diff(Some("## Identity\n\n- Is a nurse.\n"), None, None);
        assert_eq!(texts(&e.added), ["Is a nurse."]);
        assert!(e.removed.is_empty());
    }
}
