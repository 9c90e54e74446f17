//! A crash harness: `memloop extract` SIGKILLed at seeded random moments, again and again,
//! against a slow mock LLM, with transcripts added between runs.
//!
//! After every kill, every version that memory.md and each CLAUDE.md took while the run was
//! alive (polled as fast as the test can) is a whole rendering: memloop's header, every
//! bullet a fact some transcript asked for, both fence markers with the user's text around
//! them byte for byte. No transcript whose commit the ledger recorded is asked for again.
//! At the end the files hold exactly what one uninterrupted run over the same transcripts
//! writes. It counts the answers the mock had written out in full before a kill that were
//! asked for again (bought twice); one written out a second or more before it
//! (`KEPT_WITHIN`) never is: it was kept as it arrived, even while the run was busy writing
//! files. (Under a loaded machine a process can take tens of milliseconds to read and keep
//! an answer: the figure below that is reported, not asserted.) The seed is fixed, so a failure replays; `MEMLOOP_CRASH_SEED` picks another.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::thread;
use std::time::{Duration, Instant};

use crate::support::mock::Mock;
use crate::support::{BEGIN, END, TestEnv, anthropic, bullets, set_age, transcript};

/// Kills that hit a live run, at the least.
const MIN_KILLS: usize = 50;
/// Rounds at the most, whether or not their kill hit a live run.
const MAX_ROUNDS: usize = 120;
const SEED: u64 = 0x6d65_6d6c_6f6f_7033;
/// An answer written out this long before a kill has been received and kept by then.
const KEPT_WITHIN: Duration = Duration::from_secs(1);
/// The figure reported beside it: answers written out at least this long before a kill.
const REPORTED_AFTER: Duration = Duration::from_millis(20);
/// A run still going after this long is killed whatever it was aimed at.
const RUN_LIMIT: Duration = Duration::from_secs(10);

/// When a round's kill comes.
#[derive(Clone, Copy)]
enum Aim {
    /// This long after the start.
    After(Duration),
    /// This long after the run's `n`th request reached the mock.
    Request(usize, Duration),
    /// This long after the run's `n`th new file version was seen.
    Write(usize, Duration),
}

/// Everything a transcript asks the mock to extract (see `support::mock::remembered`).
const GLOBAL: [&str; 30] = [
    "Keeps bees on the allotment.",
    "Plays the cello in a community orchestra.",
    "Reads Japanese at an intermediate level.",
    "Commutes by bicycle all year.",
    "Brews coffee with an AeroPress.",
    "Fires pottery in a small kiln at home.",
    "Sails a wooden dinghy on the estuary.",
    "Grows chillies on a south-facing windowsill.",
    "Restores valve radios from the fifties.",
    "Runs trail marathons in the Alps.",
    "Speaks Portuguese with a Brazilian accent.",
    "Bakes sourdough every Sunday morning.",
    "Prefers direct answers without hedging.",
    "Volunteers at a repair cafe monthly.",
    "Owns a retired racing greyhound.",
    "Writes letters with a fountain pen.",
    "Climbs at an indoor bouldering gym.",
    "Studies medieval maps for fun.",
    "Knits socks during long meetings.",
    "Collects vinyl records of Ethiopian jazz.",
    "Lives on a narrowboat in Oxford.",
    "Teaches chess to primary school pupils.",
    "Roasts green coffee beans at home.",
    "Swims in the sea through winter.",
    "Builds mechanical keyboards from kits.",
    "Photographs lichens with a macro lens.",
    "Cooks Sichuan food with homemade chilli oil.",
    "Rings church bells on Thursday evenings.",
    "Translates poetry from Polish.",
    "Forages mushrooms in autumn woods.",
];
const VAULT: [&str; 15] = [
    "The index stores postings in sorted runs.",
    "Releases are cut from the main branch on Fridays.",
    "The parser rejects tabs in YAML frontmatter.",
    "Benchmarks run on a pinned CPU core.",
    "Errors carry the path of the file they concern.",
    "The cache is keyed by content hash.",
    "Migrations are written as plain SQL files.",
    "The CLI prints JSON when given the json flag.",
    "Integration tests use a loopback mock server.",
    "Logs go to stderr and never to stdout.",
    "The daemon reloads its config on SIGHUP.",
    "Docs are built with mdBook on every push.",
    "The wire format is versioned with a one-byte tag.",
    "Vendored crates are checked by cargo-deny.",
    "Snapshots are reviewed with cargo insta.",
];
/// A later transcript restating an earlier fact (a reinforcement, merged, never a second
/// bullet): (transcript, index into `GLOBAL`).
const RESTATED: [(usize, usize); 4] = [(9, 2), (17, 5), (26, 11), (33, 0)];
/// At most this many transcripts, one or two added each round: every run has work. More
/// transcripts than facts: the later ones restate earlier facts, so merges happen too.
const TRANSCRIPTS: usize = 120;
const VAULTS: [&str; 2] = ["alpha", "beta"];

/// What the user wrote in alpha's CLAUDE.md around the fence, which is there from the start.
const ALPHA_BEFORE: &str = "# alpha\r\n\r\nHand-written notes, CRLF endings.\r\n\r\n";
const ALPHA_AFTER: &str = "\r\n## After the fence\r\n\r\nStill mine, byte for byte.\r\n";
/// Beta's CLAUDE.md has no fence: memloop appends one after this text.
const BETA_ORIGINAL: &str = "# beta\n\nNo fence here yet; memloop adds one after this line.";

/// A tiny seeded xorshift64*: enough randomness for kill moments, and replayable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform-ish in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
}

/// Transcript `i`: its file name, vault (every third one is beta's) and text. Its `tx-NNN` tag tells which transcript a
/// request carries.
fn transcript_file(i: usize) -> (String, &'static str, String) {
    let vault = VAULTS[i % 3 / 2];
    let mut lines = vec![
        format!("This is chat tx-{i:03}."),
        format!("remember: Patterns | global | {}", GLOBAL[i % GLOBAL.len()]),
    ];
    if i.is_multiple_of(2) {
        lines.push(format!(
            "remember: Project Context | vault | {}",
            VAULT[(i / 2) % VAULT.len()]
        ));
    }
    for (at, fact) in RESTATED {
        if at == i {
            lines.push(format!("remember: Patterns | global | {}", GLOBAL[fact]));
        }
    }
    let day = 1 + i % 28;
    let text = transcript(
        &format!("2025-08-{day:02}"),
        "10:00",
        &format!("Chat {i}"),
        &lines.join("\n\n"),
    );
    (format!("2025-08-{day:02}-1000-tx{i:03}.md"), vault, text)
}

/// Sets up the vaults: alpha with a fence between the user's own text, beta without.
fn vaults(env: &TestEnv) {
    for vault in VAULTS {
        env.create_vault(vault);
    }
    crate::support::write_file(
        &env.claude_md("alpha"),
        format!("{ALPHA_BEFORE}{BEGIN}\r\n{END}\r\n{ALPHA_AFTER}").as_bytes(),
    );
    crate::support::write_file(&env.claude_md("beta"), BETA_ORIGINAL.as_bytes());
    env.config("[llm]\nconcurrency = 2\n");
}

fn add(env: &TestEnv, i: usize) {
    let (name, vault, text) = transcript_file(i);
    let path = env.add_transcript(vault, &name, &text);
    // Oldest first: a run takes them in the order they were added.
    set_age(&path, Duration::from_secs(3600 * 24 * 30 - 60 * i as u64));
}

/// The files a run writes, with what each may hold.
fn watched(env: &TestEnv) -> Vec<(PathBuf, Kind)> {
    vec![
        (env.memory_path(), Kind::Memory),
        (env.claude_md("alpha"), Kind::Fenced),
        (env.claude_md("beta"), Kind::Appended),
    ]
}

#[derive(Clone, Copy)]
enum Kind {
    Memory,
    Fenced,
    Appended,
}

/// Panics unless `bytes` are one whole rendering of the file `kind` names.
fn check_whole(kind: Kind, path: &Path, bytes: &[u8]) {
    let text = std::str::from_utf8(bytes)
        .unwrap_or_else(|e| panic!("{} is not UTF-8: {e}", path.display()));
    let known_global: BTreeSet<&str> = GLOBAL.into_iter().collect();
    let known_vault: BTreeSet<&str> = VAULT.into_iter().collect();
    let fail =
        |why: &str| -> ! { panic!("{} holds a broken version ({why}):\n{text}", path.display()) };
    match kind {
        Kind::Memory => {
            if !text.starts_with("# Memory\n\n<!-- Managed by memloop") {
                fail("no header");
            }
            if !text.ends_with('\n') {
                fail("cut off");
            }
            for bullet in bullets(text) {
                if !known_global.contains(bullet.as_str()) {
                    fail(&format!("unknown bullet {bullet:?}"));
                }
            }
        }
        Kind::Fenced | Kind::Appended => {
            let (before, after) = match kind {
                Kind::Fenced => (ALPHA_BEFORE.to_owned(), ALPHA_AFTER),
                _ => {
                    if text == BETA_ORIGINAL {
                        return;
                    }
                    (format!("{BETA_ORIGINAL}\n\n"), "")
                }
            };
            let Some(rest) = text.strip_prefix(before.as_str()) else {
                fail("the user's text before the fence changed");
            };
            let Some(inner) = rest.strip_suffix(after) else {
                fail("the user's text after the fence changed");
            };
            let eol = if matches!(kind, Kind::Fenced) {
                "\r\n"
            } else {
                "\n"
            };
            let Some(inner) = inner
                .strip_prefix(&format!("{BEGIN}{eol}"))
                .and_then(|i| i.strip_suffix(&format!("{END}{eol}")))
            else {
                fail("a fence marker is missing");
            };
            if inner.contains(BEGIN) || inner.contains(END) {
                fail("a third marker");
            }
            if !inner.is_empty() && !inner.starts_with("## Memory Loop Insights") {
                fail("the insights heading is missing");
            }
            for bullet in bullets(&inner.replace("\r\n", "\n")) {
                if !known_vault.contains(bullet.as_str()) {
                    fail(&format!("unknown bullet {bullet:?}"));
                }
            }
        }
    }
}

/// Every distinct version each watched file took, checked as it is first seen.
#[derive(Default)]
struct Versions(BTreeMap<PathBuf, BTreeSet<Vec<u8>>>);

impl Versions {
    /// Reads each file once; returns how many new versions it saw.
    fn observe(&mut self, files: &[(PathBuf, Kind)]) -> usize {
        let mut new = 0;
        for (path, kind) in files {
            let Ok(bytes) = std::fs::read(path) else {
                continue;
            };
            let seen = self.0.entry(path.clone()).or_default();
            if !seen.contains(&bytes) {
                check_whole(*kind, path, &bytes);
                seen.insert(bytes);
                new += 1;
            }
        }
        new
    }

    fn count(&self) -> usize {
        self.0.values().map(BTreeSet::len).sum()
    }
}

/// The transcripts (by index) the ledger records as committed.
fn committed(env: &TestEnv) -> BTreeSet<usize> {
    let ledger = env.state_dir().join("ledger.sqlite3");
    if !ledger.exists() {
        return BTreeSet::new();
    }
    let conn =
        rusqlite::Connection::open_with_flags(&ledger, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("open the ledger");
    // A run killed while creating the ledger leaves it without tables (its migration is
    // one transaction): nothing is committed.
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'transcripts'",
            [],
            |r| r.get(0),
        )
        .expect("read the ledger's schema");
    if tables == 0 {
        return BTreeSet::new();
    }
    let mut stmt = conn
        .prepare("SELECT path FROM transcripts")
        .expect("query the ledger");
    stmt.query_map([], |r| r.get::<_, String>(0))
        .expect("read the ledger")
        .map(|path| {
            let path = path.expect("a path");
            let name = Path::new(&path)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            tag(&name.unwrap_or_default()).expect("a committed transcript of this test")
        })
        .collect()
}

/// The `NNN` of the first `tx-NNN` / `txNNN` in `text`.
fn tag(text: &str) -> Option<usize> {
    let at = text
        .find("tx-")
        .map(|i| i + 3)
        .or_else(|| text.find("-tx").map(|i| i + 3))?;
    text.get(at..at + 3)?.parse().ok()
}

/// The transcript each request from `from` on carried.
fn requested_since(mock: &Mock, from: usize) -> Vec<usize> {
    mock.requests()[from..]
        .iter()
        .filter_map(|r| {
            r.user_text()
                .split_once("<transcript")
                .and_then(|(_, fenced)| tag(fenced))
        })
        .collect()
}

/// Files a killed run left behind: `.<name>.<pid>.<n>.tmp` next to the files it writes.
fn temp_files(env: &TestEnv) -> Vec<PathBuf> {
    let mut dirs = vec![env.memory_path().parent().map(Path::to_path_buf)];
    dirs.extend(VAULTS.iter().map(|v| Some(env.vaults().join(v))));
    dirs.into_iter()
        .flatten()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with('.') && name.ends_with(".tmp")
        })
        .map(|e| e.path())
        .collect()
}

/// The count once no request has arrived for a moment: a killed client's last request may
/// still be on the wire.
fn quiet_count(mock: &Mock) -> usize {
    let mut last = mock.count();
    loop {
        thread::sleep(Duration::from_millis(20));
        let now = mock.count();
        if now == last {
            return now;
        }
        last = now;
    }
}

#[test]
fn sigkill_at_random_moments_never_leaves_a_half_written_file_or_repeats_a_commit() {
    let started = Instant::now();
    let seed = std::env::var("MEMLOOP_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SEED);
    let mut rng = Rng(seed);
    let env = TestEnv::new();
    vaults(&env);
    let files = watched(&env);
    let mock = Mock::start();
    let mut versions = Versions::default();
    let mut added = 0;
    let mut kills = 0;
    let mut finished_runs = 0;
    let mut left_temp = BTreeSet::new();
    // About how long a run takes here: timed kills spread up to it. It grows while they
    // keep landing before the end and is set by each run that finishes first, so the
    // moments cover the whole run however fast the machine is.
    let mut span = Duration::from_millis(200);
    // Transcripts committed so far: none of them may be asked for again.
    let mut done: BTreeSet<usize> = BTreeSet::new();
    let mut kill_moments = Vec::new();
    // Where the kills landed: before the run's first request, after it had written a file.
    let (mut before_requests, mut after_writes) = (0, 0);
    // Answers the mock wrote out in full before a kill, not committed by then: how long
    // before it, by transcript. And how long before the kill each one asked for again had
    // arrived: bought twice.
    let mut arrived: BTreeMap<usize, Duration> = BTreeMap::new();
    let (mut arrivals, mut bought_twice) = (Vec::new(), Vec::new());

    let mut round = 0;
    while kills < MIN_KILLS && round < MAX_ROUNDS {
        round += 1;
        for _ in 0..rng.range(1, 2) {
            if added < TRANSCRIPTS {
                add(&env, added);
                added += 1;
            }
        }
        let latency = rng.range(0, 30);
        // What this run has to do: what was added and is not committed yet.
        let pending = (added - done.len()) as u64;
        mock.set_latency(Duration::from_millis(latency));
        let from = mock.count();
        let versions_before = versions.count();
        let aim = match rng.range(0, 7) {
            // At the start: before the ledger is open or a request is sent.
            0 => Aim::After(Duration::from_millis(rng.range(2, 60))),
            // While a request is in flight.
            1 | 2 => Aim::Request(
                rng.range(1, pending.clamp(1, 3)) as usize,
                Duration::from_millis(rng.range(0, latency)),
            ),
            // In the middle of a commit: between the files and the ledger, or between files.
            3 | 4 => Aim::Write(
                rng.range(1, pending.clamp(1, 2)) as usize,
                Duration::from_micros(rng.range(0, 3000)),
            ),
            // Anywhere in the run.
            _ => Aim::After(Duration::from_millis(
                rng.range(2, span.as_millis() as u64 + 20),
            )),
        };
        let mut child = env
            .process()
            .envs(anthropic(&mock))
            .args(["extract", "--json"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn memloop");
        let spawned = Instant::now();
        let mut exited = false;
        let mut killed_at = None;
        let mut fire_at = match aim {
            Aim::After(delay) => Some(spawned + delay),
            _ => None,
        };
        while fire_at.is_none_or(|at| Instant::now() < at) && spawned.elapsed() < RUN_LIMIT {
            let new_versions = versions.observe(&files);
            if child.try_wait().expect("poll memloop").is_some() {
                exited = true;
                break;
            }
            if fire_at.is_none() {
                fire_at = match aim {
                    Aim::Request(n, extra) if mock.count() >= from + n => {
                        Some(Instant::now() + extra)
                    }
                    Aim::Write(n, extra)
                        if versions.count() - versions_before >= n && new_versions > 0 =>
                    {
                        Some(Instant::now() + extra)
                    }
                    _ => None,
                };
            }
            thread::sleep(Duration::from_micros(200));
        }
        if exited {
            finished_runs += 1;
            span = spawned.elapsed().max(Duration::from_millis(100));
        } else if child.try_wait().expect("poll memloop").is_some() {
            finished_runs += 1;
        } else {
            child.kill().expect("SIGKILL memloop");
            killed_at = Some(Instant::now());
            kills += 1;
            before_requests += usize::from(mock.count() == from);
            after_writes += usize::from(versions.count() > versions_before);
            kill_moments.push(spawned.elapsed().as_millis());
            if matches!(aim, Aim::After(_)) {
                span = (span * 5 / 4).min(Duration::from_secs(5));
            }
        }
        child.wait().expect("reap memloop");
        let _ = versions.observe(&files);
        left_temp.extend(temp_files(&env));

        quiet_count(&mock);
        for t in requested_since(&mock, from) {
            assert!(
                !done.contains(&t),
                "round {round}: transcript tx-{t:03} was asked for again after its commit"
            );
            if let Some(before_kill) = arrived.remove(&t) {
                bought_twice.push(before_kill);
            }
        }
        done = committed(&env);
        if let Some(killed_at) = killed_at {
            let requests = mock.requests();
            for (place, at) in mock.answered() {
                let t = requests[place]
                    .user_text()
                    .split_once("<transcript")
                    .and_then(|(_, fenced)| tag(fenced));
                if let Some(t) = t.filter(|t| place >= from && at < killed_at && !done.contains(t))
                {
                    arrived.insert(t, killed_at - at);
                    arrivals.push(killed_at - at);
                }
            }
        }
    }
    assert!(
        kills >= MIN_KILLS,
        "only {kills} kills hit a live run in {round} rounds"
    );

    let committed_by_killed_runs = done.len();
    // One last run finishes whatever the kills left.
    mock.set_latency(Duration::ZERO);
    let from = mock.count();
    let report = env.extract(&mock, &[], 0);
    versions.observe(&files);
    for t in requested_since(&mock, from) {
        assert!(
            !done.contains(&t),
            "tx-{t:03} was asked for again after its commit"
        );
        if let Some(before_kill) = arrived.remove(&t) {
            bought_twice.push(before_kill);
        }
    }
    let late = |d: &&Duration| **d >= KEPT_WITHIN;
    let reported = |d: &&Duration| **d >= REPORTED_AFTER;
    let ms = |d: &Duration| d.as_millis();
    eprintln!(
        "answers arrived before a kill, not committed by it: {} ({} at least {} ms before); \
         asked for again: {} ({} of those), arrived {:?} ms before the kill",
        arrivals.len(),
        arrivals.iter().filter(reported).count(),
        REPORTED_AFTER.as_millis(),
        bought_twice.len(),
        bought_twice.iter().filter(reported).count(),
        bought_twice.iter().map(ms).collect::<Vec<_>>()
    );
    assert_eq!(
        bought_twice.iter().filter(late).count(),
        0,
        "answers bought twice, arrived {:?} ms before a kill",
        bought_twice.iter().map(ms).collect::<Vec<_>>()
    );
    assert_eq!(committed(&env), (0..added).collect(), "{report}");

    // The same transcripts in one uninterrupted run.
    let reference = TestEnv::new();
    vaults(&reference);
    for i in 0..added {
        add(&reference, i);
    }
    let reference_mock = Mock::start();
    reference.extract(&reference_mock, &[], 0);
    let mut asked = requested_since(&reference_mock, 0);
    asked.sort_unstable();
    assert_eq!(
        asked,
        (0..added).collect::<Vec<_>>(),
        "each transcript asked for once"
    );
    let facts = |env: &TestEnv| -> Vec<(PathBuf, BTreeSet<String>)> {
        watched(env)
            .into_iter()
            .map(|(path, _)| {
                let text = String::from_utf8(std::fs::read(&path).expect("a written file"))
                    .expect("UTF-8");
                let rel = path
                    .strip_prefix(env.root())
                    .expect("in the sandbox")
                    .to_owned();
                (
                    rel,
                    bullets(&text.replace("\r\n", "\n")).into_iter().collect(),
                )
            })
            .collect()
    };
    let expected = facts(&reference);
    assert_eq!(facts(&env), expected, "the facts of an uninterrupted run");
    for ((path, _), (reference_path, _)) in watched(&env).iter().zip(watched(&reference)) {
        assert_eq!(
            std::fs::read(path).expect("a written file"),
            std::fs::read(&reference_path).expect("a written file"),
            "{} differs from an uninterrupted run's",
            path.display()
        );
    }
    let total: usize = expected.iter().map(|(_, f)| f.len()).sum();
    assert!(
        total >= GLOBAL.len(),
        "the reference run kept {total} facts"
    );

    kill_moments.sort_unstable();
    eprintln!(
        "crash harness (seed {seed:#x}): {kills} kills in {round} rounds ({finished_runs} runs \
         finished first; {before_requests} before the run's first request, {after_writes} after it \
         wrote a file), kill moments {}..{} ms (median {} ms), {} file versions checked, \
         {} requests, {committed_by_killed_runs} of {added} transcripts committed by \
         killed or early-finished runs, {} temp files left by killed runs, {:.1} s",
        kill_moments.first().unwrap_or(&0),
        kill_moments.last().unwrap_or(&0),
        kill_moments.get(kill_moments.len() / 2).unwrap_or(&0),
        versions.count(),
        mock.count(),
        left_temp.len(),
        started.elapsed().as_secs_f64()
    );
}
