use super::*;
use crate::fact::Origin;

const TEA: &str = "Prefers strong black tea every morning.";
const VIM: &str = "Uses Vim with a minimal configuration.";
const CAT: &str = "Has a grey cat named Miso.";
const JAZZ: &str = "Listens to modal jazz while coding.";
const WALK: &str = "Walks to the office along the canal.";
const SCIFI: &str = "Reads hard science fiction on weekends.";

fn fact(id: i64, text: &str, status: Status, reason: Option<ArchiveReason>) -> Fact {
    Fact {
        id,
        text: text.into(),
        category: "Preferences".into(),
        scope: Scope::Global,
        vault: None,
        first_seen: "2025-06-01".into(),
        last_seen: "2025-06-01".into(),
        times_seen: 1,
        status,
        archived_reason: reason,
        origin: Origin::Extracted,
    }
}

/// tea and Vim shown, the cat forgotten, jazz pushed out by the cap.
fn known() -> (FactIndex, Vec<Fact>) {
    let facts = vec![
        fact(1, TEA, Status::Active, None),
        fact(2, VIM, Status::Active, None),
        fact(3, CAT, Status::Forgotten, None),
        fact(4, JAZZ, Status::Archived, Some(ArchiveReason::Cap)),
    ];
    let mut index = FactIndex::new();
    for f in &facts {
        index.insert(f.id, &f.text, f.scope, None);
    }
    (index, facts)
}

fn bullets(texts: &[&str]) -> Vec<Bullet> {
    texts
        .iter()
        .map(|t| Bullet {
            category: Some("Preferences".into()),
            text: (*t).into(),
        })
        .collect()
}

const GLOBAL: (Scope, Option<&str>) = (Scope::Global, None);

fn keep(id: i64) -> Step {
    Step::Keep {
        id,
        text: None,
        category: None,
        activate: false,
    }
}

#[test]
fn without_a_record_the_file_decides_what_was_shown() {
    let (index, facts) = known();
    let steps = plan(&index, &facts, &bullets(&[TEA, WALK]), None, GLOBAL, false);
    assert_eq!(
        steps,
        [
            keep(1),
            Step::Adopt {
                text: WALK.into(),
                category: Some("Preferences".into()),
            },
            // Active and missing: the user deleted it. The capped one was never shown.
            Step::Forget(2),
        ]
    );
}

#[test]
fn with_a_record_deleted_bullets_are_forgotten_and_stay_so_without_their_fact() {
    let (index, facts) = known();
    let recorded = bullets(&[TEA, VIM, JAZZ, SCIFI]);
    let steps = plan(
        &index,
        &facts,
        &bullets(&[TEA]),
        Some(&recorded),
        GLOBAL,
        false,
    );
    assert_eq!(
        steps,
        [
            keep(1),
            Step::Forget(2),
            Step::Forget(4),
            Step::Tombstone {
                text: SCIFI.into(),
                category: Some("Preferences".into()),
            },
        ]
    );
}

#[test]
fn a_fact_memloop_never_showed_is_not_taken_as_deleted() {
    let (index, facts) = known();
    let recorded = bullets(&[TEA]);
    let steps = plan(
        &index,
        &facts,
        &bullets(&[TEA]),
        Some(&recorded),
        GLOBAL,
        false,
    );
    assert_eq!(steps, [keep(1)], "Vim was never written: it stays active");
}

#[test]
fn the_file_shows_a_forgotten_fact_again_and_its_words_win() {
    let (index, facts) = known();
    let reworded = "Prefers strong black tea every single morning.";
    let mut file = bullets(&[reworded, CAT, VIM]);
    file[2].category = Some("Patterns".into());
    let steps = plan(&index, &facts, &file, None, GLOBAL, false);
    assert_eq!(
        steps,
        [
            Step::Keep {
                id: 1,
                text: Some(reworded.into()),
                category: None,
                activate: false,
            },
            Step::Keep {
                id: 3,
                text: None,
                category: None,
                activate: true,
            },
            Step::Keep {
                id: 2,
                text: None,
                category: Some("Patterns".into()),
                activate: false,
            },
        ]
    );
}

#[test]
fn another_programs_file_forgets_nothing_and_duplicates_are_one_fact() {
    let (index, facts) = known();
    let steps = plan(
        &index,
        &facts,
        &bullets(&[WALK, WALK, TEA, TEA]),
        None,
        GLOBAL,
        true,
    );
    assert_eq!(
        steps,
        [
            Step::Adopt {
                text: WALK.into(),
                category: Some("Preferences".into()),
            },
            keep(1),
        ]
    );
}

#[test]
fn memloops_header_is_what_marks_its_files() {
    let header = format!("# Memory\n\n{}\n\n- x\n", render::MANAGED_COMMENT);
    assert!(memloops(Target::Memory, &header));
    assert!(!memloops(Target::Memory, "# Memory\n\n- x\n"));
    let fence = format!(
        "## Memory Loop Insights\n\n{}\n\n- x\n",
        render::INSIGHTS_LINE
    );
    assert!(memloops(Target::Vault(0), &fence));
    assert!(
        !memloops(Target::Vault(0), "## Memory Loop Insights\n\n- x\n"),
        "Memory Loop's own fence"
    );
}

/// The month memloop put after an old fact is not the fact's words: the bullet shows its
/// fact, and a bullet memloop wrote is adopted without it. One the user typed since the
/// record keeps it.
#[test]
fn the_month_after_a_bullet_is_memloops_where_memloop_wrote_it() {
    let (index, facts) = known();
    let marked = format!("{VIM} (as of 2024-11)");
    let steps = plan(
        &index,
        &facts,
        &bullets(&[TEA, &marked]),
        None,
        GLOBAL,
        false,
    );
    assert_eq!(steps, [keep(1), keep(2)]);

    let lost = FactIndex::new();
    let walk = format!("{WALK} (as of 2024-11)");
    let typed = format!("{SCIFI} (as of 2023-01)");
    let steps = plan(
        &lost,
        &[],
        &bullets(&[&walk, &typed]),
        Some(&bullets(&[&walk])),
        GLOBAL,
        false,
    );
    assert_eq!(
        steps,
        [
            Step::Adopt {
                text: WALK.into(),
                category: Some("Preferences".into())
            },
            Step::Adopt {
                text: typed.clone(),
                category: Some("Preferences".into())
            },
        ]
    );
}
