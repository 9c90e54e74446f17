//! `memloop memory forget QUERY [--yes] [--purge]`: the fact the query names is shown,
//! and once the user agrees it is forgotten: it leaves memory.md (or its vault's insights)
//! at once and a transcript stating it again never brings it back. `--purge` also erases
//! its words from the ledger, its sources and history, and from every backup memloop keeps
//! beside the files it writes.
//!
//! It does not touch transcripts (they are the user's notes, not memloop's), and a purged
//! fact leaves no trace to recognise it by: a transcript stating it again can bring it back.
//! A query naming several different facts forgets none of them.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use super::find::{self, Found};
use crate::backup::{self, Backup};
use crate::cmd::{EXIT_FAILED, EXIT_OK, editor, print, say};
use crate::config::Resolved;
use crate::engine::Engine;
use crate::fact::{Fact, Status, normalize};
use crate::fsutil;
use crate::write::Target;

/// `memory forget` options.
#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// Words or a substring of the fact
    pub query: String,
    /// Do not ask before forgetting
    #[arg(long)]
    pub yes: bool,
    /// Also erase the text from the ledger, its sources and every backup memloop keeps
    #[arg(long)]
    pub purge: bool,
}

/// Forgets (and with `--purge` erases) the fact the query names.
///
/// Exit 0: forgotten, already forgotten, or the user answered no. Exit 1: no fact matches,
/// several do, there was no answer to read and no `--yes`, or a file could not be written.
pub fn run(cfg: &Resolved, args: &ForgetArgs) -> Result<u8> {
    let query = find::query(&args.query)?;
    let Some(find::Session {
        mut engine,
        mut report,
        now,
        all,
    }) = find::open(cfg, query, "nothing was forgotten")?
    else {
        return Ok(EXIT_FAILED);
    };
    let searched: Vec<Fact> = all
        .iter()
        .filter(|f| args.purge || f.status != Status::Forgotten)
        .cloned()
        .collect();
    let chosen: Vec<Fact> = match find::search(query, &searched) {
        Found::Named(facts) => facts.into_iter().cloned().collect(),
        Found::Several(facts) => {
            print(&find::numbered(&facts))?;
            say(&format!(
                "{} facts match \"{query}\": nothing was forgotten; give more of the words of the one to forget",
                facts.len()
            ));
            return Ok(EXIT_FAILED);
        }
        Found::Nothing => {
            if let Found::Named(facts) | Found::Several(facts) = find::search(query, &all) {
                print(&find::numbered(&facts))?;
                say("already forgotten (to erase its words too, add --purge)");
                return Ok(EXIT_OK);
            }
            say(&format!(
                "no fact matches \"{query}\": nothing was forgotten (see `memloop memory show --archived`)"
            ));
            return Ok(EXIT_FAILED);
        }
    };

    let verb = if args.purge {
        "forget and erase"
    } else {
        "forget"
    };
    print(&find::numbered(&chosen.iter().collect::<Vec<_>>()))?;
    if !args.yes {
        let question = if chosen.len() == 1 {
            format!("{verb} this fact?")
        } else {
            format!("{verb} these {} copies of the fact?", chosen.len())
        };
        match editor::ask(&question)? {
            Some(true) => {}
            Some(false) => {
                say("nothing was forgotten");
                return Ok(EXIT_OK);
            }
            None => {
                say(
                    "nothing was forgotten: no answer to read (pass --yes to forget without asking)",
                );
                return Ok(EXIT_FAILED);
            }
        }
    }

    let ids: Vec<i64> = chosen
        .iter()
        .filter(|f| f.status != Status::Forgotten)
        .map(|f| f.id)
        .collect();
    engine.store.set_status(
        &ids,
        Status::Forgotten,
        "forgotten",
        Some("memory forget"),
        &now,
    )?;
    engine.sync_all(&mut report, &now)?;
    for path in engine.writer.busy() {
        report.failures.push(crate::report::Failure {
            path: path.display().to_string(),
            error: "kept changing while memloop tried to write it".into(),
        });
    }
    if !report.failures.is_empty() {
        for f in &report.failures {
            say(&format!("{}: {}", f.path, f.error));
        }
        say(if args.purge {
            "forgotten, but not erased: a file above could not be rewritten and may still hold it; fix it and run this again"
        } else {
            "forgotten, but a file above could not be rewritten and may still show it until the next run"
        });
        return Ok(EXIT_FAILED);
    }
    if !args.purge {
        print(&format!(
            "forgotten: it is gone from {} and stays forgotten (undo: memloop memory restore \"{query}\")\n",
            places(&chosen)
        ))?;
        return Ok(EXIT_OK);
    }

    let all_ids: Vec<i64> = chosen.iter().map(|f| f.id).collect();
    // Every wording the facts have had: a backup or an old render may hold any of them.
    let mut wordings: Vec<String> = Vec::new();
    for &id in &all_ids {
        wordings.extend(engine.store.ledger.wordings(id)?);
    }
    // And the wording a backup holds of one of them with a word or two changed: a rebuilt
    // ledger no longer knows what the fact said before the person reworded it.
    wordings.extend(earlier_wordings(&engine, &wordings)?);
    let texts: Vec<&str> = wordings.iter().map(String::as_str).collect();
    // Files this command did not rewrite (insights turned off since, a vault named only by
    // `extract --vault`) may still hold the words, and so may memloop's record of them.
    let mut scrubbed = scrub_rendered(&engine, &texts)?;
    engine.store.purge(&all_ids)?;
    scrubbed.extend(scrub_backups(&engine, &texts)?);
    scrubbed.extend(scrub_damaged_ledgers(&engine, &texts)?);
    scrubbed.extend(scrub_queued(&engine, &texts)?);
    print(&format!(
        "erased: gone from {}, the ledger and {} backup file{} (damaged ledgers included); memloop keeps only a one-way fingerprint of its words, so it stays forgotten (`memloop memory remember` lets it back in)\n",
        places(&chosen),
        scrubbed.len(),
        if scrubbed.len() == 1 { "" } else { "s" }
    ))?;
    for path in scrubbed {
        print(&format!("  scrubbed {}\n", path.display()))?;
    }
    Ok(EXIT_OK)
}

/// The places facts were shown, for one sentence.
fn places(facts: &[Fact]) -> String {
    let mut places: Vec<String> = facts.iter().map(find::place).collect();
    places.dedup();
    places.join(" and ")
}

/// The bullets of the backups ([`backups`]) that say one of `wordings` with a word or two
/// changed ([`crate::edits::a_word_changed`]), and are no fact memloop still keeps.
fn earlier_wordings(engine: &Engine<'_>, wordings: &[String]) -> Result<Vec<String>> {
    let kept: std::collections::HashSet<String> = engine
        .store
        .facts(&[Status::Active, Status::Archived, Status::Pending])?
        .iter()
        .map(|f| normalize(&f.text))
        .chain(wordings.iter().map(|w| normalize(w)))
        .collect();
    let mut found = Vec::new();
    for path in backups(engine) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for line in text.lines() {
            let Some(bullet) = line.trim_start().strip_prefix("- ").map(str::trim) else {
                continue;
            };
            if !kept.contains(&normalize(bullet))
                && wordings
                    .iter()
                    .any(|w| crate::edits::a_word_changed(w, bullet))
                && !found.iter().any(|f| f == bullet)
            {
                found.push(bullet.to_owned());
            }
        }
    }
    Ok(found)
}

/// Every backup beside memory.md and each vault's CLAUDE.md, and the copies a `memory
/// edit` kept in the state directory, whether or not they exist.
fn backups(engine: &Engine<'_>) -> Vec<PathBuf> {
    let files = std::iter::once(Target::Memory)
        .chain((0..engine.vaults.len()).map(Target::Vault))
        .map(|t| engine.path(t));
    let backups = files.flat_map(|file| Backup::ALL.map(|kind| backup::path_of(&file, kind)));
    let edits_dir = engine.cfg.paths.state_dir.join("edits");
    let copies: Vec<PathBuf> = match std::fs::read_dir(&edits_dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect(),
        Err(_) => Vec::new(),
    };
    backups.chain(copies).collect()
}

/// Removes the lines holding any of `texts` from every backup ([`backups`]); returns the
/// files it rewrote.
fn scrub_backups(engine: &Engine<'_>, texts: &[&str]) -> Result<Vec<PathBuf>> {
    let mut scrubbed = Vec::new();
    for path in backups(engine) {
        {
            let bytes = match std::fs::read(&path) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    return Err(e)
                        .with_context(|| format!("could not read backup {}", path.display()));
                }
            };
            if let Some(kept) = without_lines(&bytes, texts) {
                fsutil::write_atomic(&path, &kept)
                    .with_context(|| format!("could not scrub backup {}", path.display()))?;
                scrubbed.push(path);
            }
        }
    }
    Ok(scrubbed)
}

/// Removes the facts a session asked `memloop mcp` to keep that say one of `texts` and
/// wait for the lock (`queued`); returns their files.
fn scrub_queued(engine: &Engine<'_>, texts: &[&str]) -> Result<Vec<PathBuf>> {
    let keys: Vec<String> = texts.iter().map(|t| normalize(t)).collect();
    let mut removed = Vec::new();
    for (path, fact) in crate::queued::waiting(&engine.cfg.paths.state_dir) {
        if keys.contains(&normalize(&fact.text)) || texts.iter().any(|t| fact.text.contains(t)) {
            std::fs::remove_file(&path)
                .with_context(|| format!("could not remove {}", path.display()))?;
            removed.push(path);
        }
    }
    Ok(removed)
}

/// Overwrites the words, byte for byte, in the damaged ledgers `ledger rebuild` kept
/// beside the ledger (`ledger.sqlite3.damaged-*`, with their logs): a damaged file cannot
/// be rewritten by SQLite, so each occurrence becomes as many `*`; returns the files it
/// rewrote.
fn scrub_damaged_ledgers(engine: &Engine<'_>, texts: &[&str]) -> Result<Vec<PathBuf>> {
    let dir = &engine.cfg.paths.state_dir;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut damaged: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("ledger.sqlite3.damaged-"))
        })
        .collect();
    damaged.sort();
    let mut scrubbed = Vec::new();
    for path in damaged {
        let mut bytes = std::fs::read(&path)
            .with_context(|| format!("could not read the damaged ledger {}", path.display()))?;
        let mut found = false;
        for text in texts.iter().filter(|t| !t.is_empty()) {
            let needle = text.as_bytes();
            let mut at = 0;
            while let Some(i) = bytes[at..].windows(needle.len()).position(|w| w == needle) {
                let start = at + i;
                bytes[start..start + needle.len()].fill(b'*');
                at = start + needle.len();
                found = true;
            }
        }
        if found {
            fsutil::write_atomic(&path, &bytes)
                .with_context(|| format!("could not scrub {}", path.display()))?;
            scrubbed.push(path);
        }
    }
    Ok(scrubbed)
}

/// Removes the words from every file memloop recorded writing and from that record: for a
/// `CLAUDE.md` only inside its fence, never a byte outside it. Returns the files rewritten.
fn scrub_rendered(engine: &Engine<'_>, texts: &[&str]) -> Result<Vec<PathBuf>> {
    let ledger = &engine.store.ledger;
    let scrub = |t: Option<String>| -> Option<String> {
        t.map(|t| match without_lines(t.as_bytes(), texts) {
            Some(kept) => String::from_utf8_lossy(&kept).into_owned(),
            None => t,
        })
    };
    let mut scrubbed = Vec::new();
    for crate::ledger::Written {
        target,
        content,
        pending,
        earlier,
    } in ledger.rendered_all()?
    {
        let holds = |t: &Option<String>| {
            t.as_deref()
                .is_some_and(|t| without_lines(t.as_bytes(), texts).is_some())
        };
        if !holds(&content) && !holds(&pending) && !earlier.iter().any(|e| holds(&Some(e.clone())))
        {
            continue;
        }
        let path = PathBuf::from(&target);
        if let Ok(bytes) = std::fs::read(&path) {
            let kept = if path.file_name() == Some(crate::vault::MARKER_FILE.as_ref()) {
                match crate::fence::find(&bytes) {
                    Ok(Some(f)) => without_lines(&bytes[f.inner.clone()], texts).map(|inner| {
                        [&bytes[..f.inner.start], &inner, &bytes[f.inner.end..]].concat()
                    }),
                    _ => None,
                }
            } else {
                without_lines(&bytes, texts)
            };
            if let Some(kept) = kept {
                fsutil::write_atomic(&path, &kept)
                    .with_context(|| format!("could not scrub {}", path.display()))?;
                scrubbed.push(path);
            }
        }
        let earlier: Vec<String> = earlier.into_iter().filter_map(|e| scrub(Some(e))).collect();
        ledger.set_rendered(
            &target,
            scrub(content).as_deref(),
            scrub(pending).as_deref(),
            &earlier,
        )?;
    }
    Ok(scrubbed)
}

/// `bytes` without the lines that hold one of `texts`, or a bullet saying the same thing
/// (equal normalised text); `None` when no line does. Other lines keep their bytes.
fn without_lines(bytes: &[u8], texts: &[&str]) -> Option<Vec<u8>> {
    let keys: Vec<String> = texts.iter().map(|t| normalize(t)).collect();
    let holds = |line: &[u8]| {
        texts
            .iter()
            .any(|t| !t.is_empty() && line.windows(t.len()).any(|w| w == t.as_bytes()))
            || std::str::from_utf8(line).is_ok_and(|l| {
                l.trim_start()
                    .strip_prefix("- ")
                    .is_some_and(|b| keys.contains(&normalize(b)))
            })
    };
    let mut kept = Vec::with_capacity(bytes.len());
    let mut dropped = false;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if holds(line) {
            dropped = true;
        } else {
            kept.extend_from_slice(line);
        }
    }
    dropped.then_some(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrubbing_drops_only_the_lines_holding_the_fact() {
        let fact = "Prefers direct answers without hedging.";
        let cases: &[(&[u8], Option<&[u8]>)] = &[
            (
                b"# Memory\r\n\r\n- Prefers direct answers without hedging.\r\n- Tea.\r\n",
                Some(b"# Memory\r\n\r\n- Tea.\r\n"),
            ),
            (
                b"- I prefer direct answers without hedging\n- Tea.",
                Some(b"- Tea."),
            ),
            (
                b"note: Prefers direct answers without hedging. (said twice)\n\xff\n",
                Some(b"\xff\n"),
            ),
            (b"- Tea.\n- Prefers direct answers.\n", None),
        ];
        for (before, after) in cases {
            assert_eq!(
                without_lines(before, &[fact]).as_deref(),
                *after,
                "{}",
                String::from_utf8_lossy(before)
            );
        }
    }
}
