//! Reads stay inside the vaults: a transcript, chats directory, inbox or content root whose
//! symlinks lead out of its vault is not read, a `CLAUDE.md` that leads out is not written
//! through, and special files (FIFOs, `/proc` files) are never read and never block. Each
//! refusal is one failure naming its path; the rest of the run goes on and exits 1. Links
//! that stay inside a vault, and a vault that is itself a symlink, keep working.

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::support::fixture::{ALPHA_1, LANTERNFISH, POSTGRES};
use crate::support::mock::Mock;
use crate::support::{
    TestEnv, anthropic, find_fact, insights_block, read, read_bytes, report, transcript, write_file,
};

/// In files outside every vault only: must never reach the model.
const OUTSIDE: &str = "OUTSIDE-THE-VAULT";

/// A transcript outside the vaults that would be extracted if it were read.
fn outside_transcript(env: &TestEnv, rel: &str) -> PathBuf {
    let path = env.root().join("outside").join(rel);
    let text = transcript(
        "2025-06-21",
        "10:00",
        "Outside",
        &format!(
            "My bank PIN hint is {OUTSIDE}.\n\nremember: Identity | global | Keeps {OUTSIDE} notes."
        ),
    );
    write_file(&path, text.as_bytes());
    crate::support::set_age(&path, Duration::from_secs(3600));
    path
}

/// Requests whose body mentions `needle` anywhere.
fn sent(mock: &Mock, needle: &str) -> usize {
    mock.requests()
        .iter()
        .filter(|r| r.body.contains(needle))
        .count()
}

/// The failures of a report as `(path, error)`.
fn failures(report: &Value) -> Vec<(String, String)> {
    report["failures"]
        .as_array()
        .expect("failures array")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().expect("path").to_owned(),
                f["error"].as_str().expect("error").to_owned(),
            )
        })
        .collect()
}

/// Asserts the report has exactly one failure, for `path`, saying why; returns its error.
fn refused_once(report: &Value, path: &Path, why: &str) -> String {
    let all = failures(report);
    let path = path.display().to_string();
    let matching: Vec<&(String, String)> = all.iter().filter(|(p, _)| *p == path).collect();
    assert_eq!(matching.len(), 1, "{path} reported once: {all:?}");
    assert!(matching[0].1.contains(why), "{path}: {all:?}");
    assert_eq!(all.len(), 1, "nothing else failed: {all:?}");
    matching[0].1.clone()
}

#[test]
fn a_transcript_linked_out_of_its_vault_is_not_read() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let secret = outside_transcript(&env, "secret.md");
    let link = env.chats_dir("alpha").join("leak.md");
    symlink(&secret, &link).expect("symlink");

    let report = env.extract(&mock, &[], 1);

    let error = refused_once(&report, &link, "not read: it resolves to");
    assert!(error.contains(&secret.display().to_string()), "{error}");
    assert_eq!(
        sent(&mock, OUTSIDE),
        0,
        "the outside file reached the model"
    );
    assert_eq!(report["transcripts"]["processed"], 3, "{report}");
    assert_eq!(report["transcripts"]["failed"], 1, "{report}");
    assert!(!env.memory().contains(OUTSIDE));
}

#[cfg(target_os = "linux")]
#[test]
fn force_does_not_read_a_link_to_proc_self_status() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let link = env.chats_dir("alpha").join("status.md");
    symlink("/proc/self/status", &link).expect("symlink");

    let report = env.extract(&mock, &["--force"], 1);

    refused_once(&report, &link, "not read: it resolves to /proc/");
    for needle in ["VmRSS", "TracerPid", "Cpus_allowed"] {
        assert_eq!(sent(&mock, needle), 0, "{needle} reached the model");
    }
    assert_eq!(report["transcripts"]["processed"], 3, "{report}");
}

#[test]
fn an_inbox_chats_directory_or_content_root_linked_out_is_not_read() {
    let cases = [
        // (.memory-loop.json, the link in the vault, its target and the transcript below
        // the sandbox's outside/)
        (
            r#"{"inboxPath": "Journal"}"#,
            "Journal",
            "journal",
            "journal/chats/secret.md",
        ),
        (
            r#"{"contentRoot": "site", "inboxPath": "in"}"#,
            "site/in",
            "in",
            "in/chats/secret.md",
        ),
        ("{}", "00_Inbox/chats", "chats", "chats/secret.md"),
        ("{}", "00_Inbox", "inbox", "inbox/chats/secret.md"),
        (
            r#"{"contentRoot": "content"}"#,
            "content",
            "root",
            "root/00_Inbox/chats/secret.md",
        ),
    ];
    for (settings, linked, target, secret) in cases {
        let env = TestEnv::with_fixtures();
        let vault = env.create_vault("gamma");
        write_file(&vault.join(".memory-loop.json"), settings.as_bytes());
        outside_transcript(&env, secret);
        let link = vault.join(linked);
        std::fs::create_dir_all(link.parent().expect("parent")).expect("create parent");
        symlink(env.root().join("outside").join(target), &link).expect("symlink");
        let mock = Mock::start();

        let report = env.extract(&mock, &[], 1);

        refused_once(&report, &link, "not read: it resolves to");
        assert_eq!(sent(&mock, OUTSIDE), 0, "{linked}: reached the model");
        assert_eq!(report["transcripts"]["processed"], 3, "{linked}: {report}");
    }
}

#[test]
fn a_fifo_in_the_chats_directory_is_reported_and_never_blocks() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let fifo = env.chats_dir("alpha").join("pipe.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(made.success());

    for force in [false, true] {
        let mut cmd = env.cmd();
        cmd.timeout(Duration::from_secs(20))
            .envs(anthropic(&mock))
            .args(["extract", "--json"]);
        if force {
            cmd.arg("--force");
        }
        let output = cmd.assert().code(1);
        let report = report(output.get_output());
        refused_once(
            &report,
            &fifo,
            "it is a FIFO (named pipe), not a regular file",
        );
    }
}

#[test]
fn a_claude_md_linked_out_of_its_vault_is_not_written_through() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    let outside = env.root().join("outside/CLAUDE.md");
    write_file(&outside, b"# Someone else's file\n");
    let link = env.claude_md("alpha");
    std::fs::remove_file(&link).expect("remove CLAUDE.md");
    symlink(&outside, &link).expect("symlink");

    let report = env.extract(&mock, &[], 1);

    let error = refused_once(&report, &link, "not read or written: it resolves to");
    assert!(error.contains("outside its vault"), "{error}");
    assert_eq!(read_bytes(&outside), b"# Someone else's file\n");
    assert!(std::fs::symlink_metadata(&link).expect("link").is_symlink());
    let beta = read(&env.claude_md("beta"));
    assert!(
        insights_block(&beta).is_some_and(|b| b.contains(POSTGRES)),
        "{beta}"
    );
    assert_eq!(
        report["transcripts"]["processed"], 3,
        "the transcripts are committed"
    );
    let show = env.show_json(false);
    assert_eq!(
        find_fact(&show, LANTERNFISH)["vault"],
        "alpha",
        "kept in the ledger"
    );
}

#[test]
fn two_vaults_sharing_one_claude_md_do_not_get_each_others_insights() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    // beta's CLAUDE.md is alpha's.
    let beta_md = env.claude_md("beta");
    std::fs::remove_file(&beta_md).expect("remove CLAUDE.md");
    symlink("../alpha/CLAUDE.md", &beta_md).expect("symlink");

    for run in 0..2 {
        // Reported once; the next run lists it as still failing and exits 0.
        let report = env.extract(&mock, &[], if run == 0 { 1 } else { 0 });
        if run == 0 {
            refused_once(&report, &beta_md, "outside its vault");
        } else {
            let waiting = report["still_failing"].to_string();
            assert!(
                waiting.contains(&beta_md.display().to_string())
                    && waiting.contains("outside its vault"),
                "{report}"
            );
        }
        let alpha = read(&env.claude_md("alpha"));
        let block = insights_block(&alpha).unwrap_or_else(|| panic!("run {run}: {alpha}"));
        assert!(block.contains(LANTERNFISH), "{block}");
        assert!(
            !block.contains(POSTGRES),
            "run {run}: beta's insight in alpha's file"
        );
        let show = env.show_json(false);
        assert_eq!(find_fact(&show, LANTERNFISH)["vault"], "alpha", "run {run}");
        assert_eq!(find_fact(&show, POSTGRES)["vault"], "beta", "run {run}");
    }

    // Both vaults pointing at one file outside them both: neither writes it.
    let env = TestEnv::with_fixtures();
    let shared = env.root().join("shared/CLAUDE.md");
    write_file(&shared, b"# Shared\n");
    for vault in ["alpha", "beta"] {
        let md = env.claude_md(vault);
        std::fs::remove_file(&md).expect("remove CLAUDE.md");
        symlink(&shared, &md).expect("symlink");
    }
    let report = env.extract(&mock, &[], 1);
    let all = failures(&report);
    assert_eq!(all.len(), 2, "{all:?}");
    for vault in ["alpha", "beta"] {
        let path = env.claude_md(vault).display().to_string();
        assert!(
            all.iter()
                .any(|(p, e)| *p == path && e.contains("outside its vault")),
            "{vault}: {all:?}"
        );
    }
    assert_eq!(read_bytes(&shared), b"# Shared\n");
}

#[test]
fn links_that_stay_inside_a_vault_keep_working() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    // A vault that is itself a symlink, from a directory outside VAULTS_DIR.
    let real = env.root().join("elsewhere/gamma");
    write_file(&real.join("docs/CLAUDE.md"), b"# gamma\n");
    symlink("docs/CLAUDE.md", real.join("CLAUDE.md")).expect("symlink CLAUDE.md");
    let archived = real.join("archive/2025-06-22-notes.md");
    let text = transcript(
        "2025-06-22",
        "11:00",
        "Gamma",
        "remember: Project Context | vault | Gamma deploys from the main branch.",
    );
    write_file(&archived, text.as_bytes());
    crate::support::set_age(&archived, Duration::from_secs(3600));
    std::fs::create_dir_all(real.join("00_Inbox/chats")).expect("chats");
    symlink(
        "../../archive/2025-06-22-notes.md",
        real.join("00_Inbox/chats/linked.md"),
    )
    .expect("symlink transcript");
    symlink(&real, env.vaults().join("gamma")).expect("symlink vault");
    // And a transcript in alpha linked from another of alpha's folders.
    let alpha = env.vaults().join("alpha");
    let moved = alpha.join("Archive").join(ALPHA_1);
    std::fs::create_dir_all(moved.parent().expect("parent")).expect("archive");
    std::fs::rename(env.chats_dir("alpha").join(ALPHA_1), &moved).expect("move");
    symlink(&moved, env.chats_dir("alpha").join(ALPHA_1)).expect("symlink");

    let report = env.extract(&mock, &[], 0);

    assert_eq!(failures(&report), [], "{report}");
    assert_eq!(report["transcripts"]["processed"], 4, "{report}");
    let docs = read(&real.join("docs/CLAUDE.md"));
    assert!(
        insights_block(&docs).is_some_and(|b| b.contains("Gamma deploys from the main branch.")),
        "{docs}"
    );
    assert!(
        std::fs::symlink_metadata(real.join("CLAUDE.md"))
            .expect("link")
            .is_symlink()
    );
    let alpha_md = read(&env.claude_md("alpha"));
    assert!(
        insights_block(&alpha_md).is_some_and(|b| b.contains(LANTERNFISH)),
        "{alpha_md}"
    );
}

#[test]
fn status_never_reads_a_claude_md_that_leads_out_of_its_vault() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    // beta's CLAUDE.md becomes a link to alpha's, which holds insights.
    let beta = env.claude_md("beta");
    std::fs::remove_file(&beta).expect("remove beta's CLAUDE.md");
    symlink(env.claude_md("alpha"), &beta).expect("link");

    let out = env.cmd().args(["status", "--json"]).assert();
    let status: Value = serde_json::from_slice(&out.get_output().stdout).expect("status is JSON");

    let beta = status["insights"]
        .as_array()
        .expect("insights")
        .iter()
        .find(|i| i["vault"] == "beta")
        .expect("beta")
        .clone();
    assert_eq!(beta["bullets"], 0, "alpha's bullets are not beta's: {beta}");
    assert!(
        beta["error"]
            .as_str()
            .is_some_and(|e| e.contains("outside its vault")),
        "{beta}"
    );
}

#[test]
fn curation_never_blocks_on_a_claude_md_that_is_a_fifo() {
    let env = TestEnv::with_fixtures();
    let beta = env.claude_md("beta");
    std::fs::remove_file(&beta).expect("remove beta's CLAUDE.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&beta)
        .status()
        .expect("run mkfifo");
    assert!(made.success());
    // Named in the config, beta is a vault though its CLAUDE.md is no regular file.
    env.config(&format!("vaults = [{:?}]\n", env.vaults().join("beta")));
    let mock = Mock::start();
    let output = env
        .cmd()
        .timeout(Duration::from_secs(20))
        .envs(anthropic(&mock))
        .args(["extract", "--json"])
        .assert()
        .code(1);
    assert!(
        report(output.get_output())["failures"]
            .to_string()
            .contains("FIFO")
    );

    // No fact matches: the search reads every file memloop writes, beta's included.
    env.cmd()
        .timeout(Duration::from_secs(20))
        .args(["memory", "forget", "zebra-unmatched-words", "--yes"])
        .assert()
        .code(1);
    env.cmd()
        .timeout(Duration::from_secs(20))
        .args(["status"])
        .assert()
        .code(0);
}
