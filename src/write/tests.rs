use super::*;
use crate::fact::{Origin, Scope};

fn fact(id: i64, text: &str, status: Status) -> Fact {
    Fact {
        id,
        text: text.into(),
        category: "Preferences".into(),
        scope: Scope::Global,
        vault: None,
        first_seen: "2025-01-01".into(),
        last_seen: "2025-01-01".into(),
        times_seen: 1,
        status,
        archived_reason: (status == Status::Archived).then_some(ArchiveReason::Cap),
        origin: Origin::Extracted,
    }
}

fn layout(max: usize) -> Layout<'static> {
    static CATEGORIES: std::sync::LazyLock<Vec<String>> =
        std::sync::LazyLock::new(|| vec!["Preferences".to_owned()]);
    Layout {
        memory_file: Path::new("/m/memory.md"),
        vaults: &[],
        categories: &CATEGORIES,
        memory_max: max,
        insights_max: 8192,
        insights_enabled: true,
    }
}

fn disk(text: Option<&str>) -> OnDisk {
    read_back(Target::Memory, text.map(|t| t.as_bytes().to_vec())).unwrap()
}

#[test]
fn the_fence_decides_its_line_endings() {
    let begin = fence::BEGIN;
    let end = fence::END;
    assert!(crlf(b"# T\r\nbody\n"));
    assert!(!crlf(b"# T\nbody\r\n"));
    assert!(crlf(format!("# T\n{begin}\r\n- a\r\n{end}\r\n").as_bytes()));
    assert!(!crlf(format!("# T\r\n{begin}\n- a\n{end}\n").as_bytes()));
    assert!(!crlf(b""));
}

#[test]
fn dry_run_changes_list_added_and_removed_bullets() {
    let c = bullet_change(
        Path::new("/m.md"),
        "## A\n\n- old\n- kept\n",
        "## A\n\n- kept\n- new\n",
    );
    assert_eq!(c.added, ["new"]);
    assert_eq!(c.removed, ["old"]);
}

#[test]
fn no_facts_and_no_file_plan_nothing() {
    let p = plan(
        Target::Memory,
        &disk(None),
        None,
        &Recorded::default(),
        &[],
        &layout(51_200),
    )
    .unwrap();
    assert_eq!((p.write, p.backup, p.record), (None, None, false));
}

#[test]
fn a_file_memloop_never_wrote_is_kept_once_before_the_first_write() {
    let facts = [fact(1, "Prefers tea.", Status::Active)];
    let p = plan(
        Target::Memory,
        &disk(Some("my own notes\n")),
        None,
        &Recorded::default(),
        &facts,
        &layout(51_200),
    )
    .unwrap();
    assert!(p.write.is_some());
    assert_eq!(p.backup, Some(Backup::BeforeMemloop));
}

#[test]
fn the_file_as_written_is_not_written_again() {
    let facts = [fact(1, "Prefers tea.", Status::Active)];
    let first = plan(
        Target::Memory,
        &disk(None),
        None,
        &Recorded::default(),
        &facts,
        &layout(51_200),
    )
    .unwrap();
    let text = first.text.clone();
    let recorded = Recorded {
        written: Some(text.clone()),
        pending: None,
    };
    let again = plan(
        Target::Memory,
        &disk(Some(&text)),
        None,
        &recorded,
        &facts,
        &layout(51_200),
    )
    .unwrap();
    assert_eq!(
        (again.write, again.backup, again.record),
        (None, None, false)
    );
    // The same bytes, never recorded (a crash after the write): recorded, not rewritten.
    let unrecorded = plan(
        Target::Memory,
        &disk(Some(&text)),
        None,
        &Recorded::default(),
        &facts,
        &layout(51_200),
    )
    .unwrap();
    assert!(unrecorded.write.is_none() && unrecorded.record);
}

#[test]
fn the_cap_archives_and_restores() {
    let facts = [
        fact(1, "Prefers tea.", Status::Active),
        fact(
            2,
            "Prefers long walks on the beach at dawn.",
            Status::Archived,
        ),
    ];
    let roomy = plan(
        Target::Memory,
        &disk(None),
        None,
        &Recorded::default(),
        &facts,
        &layout(51_200),
    )
    .unwrap();
    assert_eq!((roomy.archive, roomy.restore), (vec![], vec![2]));
    let one = [fact(1, "Prefers tea.", Status::Active)];
    let room = plan(
        Target::Memory,
        &disk(None),
        None,
        &Recorded::default(),
        &one,
        &layout(51_200),
    )
    .unwrap()
    .text
    .len();
    let tight = plan(
        Target::Memory,
        &disk(None),
        None,
        &Recorded::default(),
        &facts,
        &layout(room),
    )
    .unwrap();
    assert_eq!(
        (tight.archive, tight.restore),
        (vec![], vec![]),
        "the capped fact stays out"
    );
    assert_eq!(tight.text.len(), room);
}

#[test]
fn a_malformed_fence_is_an_error_naming_it() {
    let bytes = format!("# V\n{}\n- a\n", fence::BEGIN).into_bytes();
    let e = read_back(Target::Vault(0), Some(bytes)).unwrap_err();
    assert!(e.to_string().contains("left untouched"), "{e}");
}

fn bullets_text(n: usize) -> String {
    let mut s = format!("# Memory\n\n{}\n\n## Identity\n\n", render::MANAGED_COMMENT);
    for i in 0..n {
        s.push_str(&format!("- Fact number {i}.\n"));
    }
    s
}

fn foreign(written: &str, current: &str) -> Option<String> {
    let recorded = Recorded {
        written: Some(written.to_owned()),
        pending: None,
    };
    let d = disk(Some(current));
    let edits = edits::diff(d.owned.as_deref(), recorded.written.as_deref(), None);
    foreign_rewrite(Target::Memory, &d, &recorded, &edits)
}

#[test]
fn a_few_deletions_are_the_users_and_a_mass_rewrite_is_anothers() {
    let eight = bullets_text(8);
    let minus = |n: usize| {
        (0..n).fold(eight.clone(), |s, i| {
            s.replace(&format!("- Fact number {i}.\n"), "")
        })
    };
    assert_eq!(foreign(&eight, &minus(1)), None, "one deletion");
    assert_eq!(foreign(&eight, &minus(3)), None, "three of eight");
    assert_eq!(
        foreign(&eight, &minus(4)),
        None,
        "four at once is still a person"
    );
    assert!(
        foreign(&eight, &minus(5)).is_some(),
        "five of eight at once"
    );
    let five_of_twenty = (0..5).fold(bullets_text(20), |s, i| {
        s.replace(&format!("- Fact number {i}.\n"), "")
    });
    assert_eq!(
        foreign(&bullets_text(20), &five_of_twenty),
        None,
        "a quarter"
    );
    assert_eq!(
        foreign(&eight, &minus(1).replace(render::MANAGED_COMMENT, "")),
        None,
        "the header and one bullet deleted by hand"
    );
    let headerless = minus(2).replace(render::MANAGED_COMMENT, "");
    assert!(
        foreign(&eight, &headerless).unwrap().contains("header"),
        "memloop's header gone with two bullets"
    );
    assert_eq!(
        foreign(&eight, &eight.replace(render::MANAGED_COMMENT, "")),
        None,
        "no bullet lost: nothing to guard"
    );
}

#[cfg(unix)]
#[test]
fn a_vault_file_is_read_only_inside_its_vault_and_the_memory_file_anywhere() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let (alpha, beta) = (base.join("alpha"), base.join("beta"));
    std::fs::create_dir_all(&alpha).unwrap();
    std::fs::create_dir_all(&beta).unwrap();
    std::fs::write(alpha.join("CLAUDE.md"), "# alpha\n").unwrap();
    std::fs::write(alpha.join("notes.md"), "# notes\n").unwrap();
    // beta shares alpha's file; alpha's CLAUDE.md is one of its own notes.
    symlink(alpha.join("CLAUDE.md"), beta.join("CLAUDE.md")).unwrap();
    let writer = Writer::new(false);

    let shared = writer
        .read(&beta.join("CLAUDE.md"), Some(&beta))
        .unwrap_err();
    let msg = format!("{shared:#}");
    assert!(
        msg.starts_with(&format!(
            "not read or written: it resolves to {}, outside its vault {}",
            alpha.join("CLAUDE.md").display(),
            beta.display()
        )),
        "{msg}"
    );
    assert_eq!(
        writer.read(&alpha.join("CLAUDE.md"), Some(&alpha)).unwrap(),
        Some(b"# alpha\n".to_vec())
    );
    assert_eq!(
        writer.read(&beta.join("CLAUDE.md"), None).unwrap(),
        Some(b"# alpha\n".to_vec()),
        "the memory file follows its links wherever they lead"
    );
    assert_eq!(
        writer.read(&alpha.join("none.md"), Some(&alpha)).unwrap(),
        None
    );

    let fifo = alpha.join("pipe.md");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for within in [Some(alpha.as_path()), None] {
        let e = writer.read(&fifo, within).unwrap_err();
        assert!(format!("{e:#}").contains("FIFO"), "{e:#}");
    }
}

#[test]
fn only_vault_files_are_confined() {
    let vaults = [Vault {
        name: "v".into(),
        root: "/v".into(),
        content_root: "/v".into(),
        inbox: "00_Inbox".into(),
        warnings: Vec::new(),
        kind: crate::vault::Kind::MemoryLoop,
    }];
    let l = Layout {
        vaults: &vaults,
        ..layout(51_200)
    };
    assert_eq!(l.confined_to(Target::Memory), None);
    assert_eq!(l.confined_to(Target::Vault(0)), Some(Path::new("/v")));
}
