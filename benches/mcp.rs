//! Figures for `memloop mcp` (issue 20): how long the release binary takes from its start to
//! the answer to `initialize`, and how long a `search` takes over a ledger of 10,000 facts
//! (the first, asked at once or half a second after the handshake, while the server reads
//! the ledger in the background, and the later ones), each a round trip over its stdin and
//! stdout as a client sees it.
//!
//! The ledger is written through the library (`Ledger::insert_fact`), with generated facts
//! about the person and about 20 vaults (deterministic words from a seeded xorshift), a
//! tenth of them archived and each with a source quoting the person's words. Queries are
//! phrased the way people ask. Nothing leaves the machine: there is no LLM here.
//!
//! `cargo bench --bench mcp` takes under a minute; without `--bench` (as `cargo test
//! --all-targets` runs it) the ledger holds 200 facts: a smoke test. Prints a table; checks
//! only that every answer came and that searches found something.

#![allow(clippy::disallowed_methods)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use memloop::fact::{Origin, Scope, Status};
use memloop::ledger::{Ledger, NewFact, Source};

const WORDS: [&str; 40] = [
    "editor",
    "Neovim",
    "storage",
    "Lanternfish",
    "SQLite",
    "garden",
    "bicycle",
    "cello",
    "Rust",
    "Python",
    "deploy",
    "Fly",
    "Kubernetes",
    "tea",
    "coffee",
    "Berlin",
    "Lisbon",
    "marathon",
    "sourdough",
    "chess",
    "review",
    "tests",
    "tabs",
    "spaces",
    "Postgres",
    "Grafana",
    "invoice",
    "Stripe",
    "podcast",
    "camera",
    "piano",
    "hiking",
    "Debian",
    "laptop",
    "keyboard",
    "standup",
    "roadmap",
    "Figma",
    "typescript",
    "compiler",
];
const QUERIES: [&str; 6] = [
    "what editor do I use",
    "Lanternfish storage",
    "how do we deploy",
    "does the person drink tea or coffee",
    "Kubernetes Grafana",
    "piano",
];

#[path = "pipeline/rng.rs"]
mod rng;
use rng::Rng;

fn word(rng: &mut Rng) -> &'static str {
    WORDS[rng.below(WORDS.len())]
}

fn main() -> Result<()> {
    let full = std::env::args().any(|a| a == "--bench");
    let facts = if full { 10_000 } else { 200 };
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let state = home.join(".local/state");
    let ledger_path = state.join("memory-loop/ledger.sqlite3");
    write_ledger(&ledger_path, facts)?;
    std::fs::create_dir_all(dir.path().join("vaults"))?;
    let bytes = std::fs::metadata(&ledger_path)?.len();

    let mut starts = Vec::new();
    let mut firsts = Vec::new();
    let mut firsts_later = Vec::new();
    let mut searches = Vec::new();
    for run in 0..if full { 10 } else { 2 } {
        // Every other server is asked its first search half a second after it said hello,
        // as a session asks once the model has read the prompt.
        let wait = run % 2 == 1;
        let spawned = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_memloop"))
            .arg("mcp")
            .env_clear()
            .env("HOME", &home)
            .env("XDG_STATE_HOME", &state)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("VAULTS_DIR", dir.path().join("vaults"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("spawn memloop mcp")?;
        let mut stdin = child.stdin.take().context("stdin")?;
        let mut stdout = BufReader::new(child.stdout.take().context("stdout")?);
        let mut call = |id: u64, method: &str, params: Value| -> Result<Value> {
            writeln!(
                stdin,
                "{}",
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            )?;
            stdin.flush()?;
            let mut line = String::new();
            if stdout.read_line(&mut line)? == 0 {
                bail!("memloop mcp closed stdout");
            }
            Ok(serde_json::from_str(&line)?)
        };
        call(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}),
        )?;
        starts.push(spawned.elapsed());
        if wait {
            std::thread::sleep(Duration::from_millis(500));
        }
        for (i, query) in QUERIES.iter().enumerate() {
            let asked = Instant::now();
            let answer = call(
                1 + i as u64,
                "tools/call",
                json!({"name": "search", "arguments": {"query": query}}),
            )?;
            if i == 0 && wait {
                firsts_later.push(asked.elapsed());
            } else if i == 0 {
                firsts.push(asked.elapsed());
            } else {
                searches.push(asked.elapsed());
            }
            let text = answer["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or("");
            if !text.starts_with('[') {
                bail!("search for {query:?} found nothing: {answer}");
            }
        }
        drop(stdin);
        child.wait()?;
    }
    println!(
        "memloop mcp over {facts} facts (ledger {} KB)",
        bytes / 1024
    );
    println!("| figure | median | slowest |");
    println!("|---|---|---|");
    for (name, mut times) in [
        ("start to `initialize` answered", starts),
        (
            "first `search` at once (waits for the ledger to be read)",
            firsts,
        ),
        ("first `search` 0.5 s after `initialize`", firsts_later),
        ("later `search` round trip", searches),
    ] {
        times.sort();
        println!(
            "| {name} | {} | {} |",
            ms(times[times.len() / 2]),
            ms(*times.last().unwrap())
        );
    }
    Ok(())
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// A ledger of `n` facts: a third about the person, the rest about 20 vaults' work; every
/// tenth archived.
fn write_ledger(path: &std::path::Path, n: usize) -> Result<()> {
    let mut ledger = Ledger::open(path)?;
    let mut rng = Rng(0x6d63_7062_656e_6368);
    ledger.transaction(|l| {
        for i in 0..n {
            let text = format!(
                "Works with {} and {} on the {} {} ({i}).",
                word(&mut rng),
                word(&mut rng),
                word(&mut rng),
                word(&mut rng)
            );
            let vault = format!("vault-{:02}", i % 20);
            let global = i % 3 == 0;
            let source = Source {
                transcript: format!(
                    "/vaults/{vault}/00_Inbox/chats/2025-06-{:02}-{i}.md",
                    1 + i % 28
                ),
                date: format!("2025-06-{:02}", 1 + i % 28),
                evidence: Some(format!("I said so: {text}")),
            };
            l.insert_fact(&NewFact {
                text: &text,
                key: &memloop::fact::normalize(&text),
                category: if global {
                    "Preferences"
                } else {
                    "Project Context"
                },
                scope: if global { Scope::Global } else { Scope::Vault },
                vault: (!global).then_some(vault.as_str()),
                status: if i % 10 == 0 {
                    Status::Archived
                } else {
                    Status::Active
                },
                origin: Origin::Extracted,
                source: &source,
            })?;
        }
        Ok(())
    })?;
    ledger.close()
}
