//! A run killed mid-way keeps its finished work: each transcript's facts are written and
//! the transcript marked done as it finishes, so after a SIGKILL memory.md holds the
//! finished transcripts' facts, the next run sends only the unfinished ones, and in the end
//! every fact is in memory.md exactly once.

use std::process::Stdio;
use std::thread;
use std::time::{Duration, Instant};

use crate::support::mock::Mock;
use crate::support::{TestEnv, anthropic, bullets, set_age, transcript, transcript_sent_with};

/// One fact per transcript, oldest transcript first (the order a run takes them in).
const FACTS: [&str; 6] = [
    "Keeps bees on the allotment.",
    "Plays the cello on weekends.",
    "Reads Japanese at an intermediate level.",
    "Commutes by bicycle all year.",
    "Brews coffee with an AeroPress.",
    "Fires pottery in a small kiln at home.",
];

/// How many requests must have arrived before the kill: the ones before the last are
/// answered and committed, because with `concurrency = 1` the next request is only sent
/// after the previous transcript was committed.
const KILL_AT: usize = 3;
const LATENCY: Duration = Duration::from_millis(500);
const WAIT_LIMIT: Duration = Duration::from_secs(10);

fn six_transcripts() -> TestEnv {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.config("[llm]\nconcurrency = 1\n");
    for (i, fact) in FACTS.iter().enumerate() {
        let day = 11 + i;
        let path = env.add_transcript(
            "gamma",
            &format!("2025-07-{day}-0900-t{i}.md"),
            &transcript(
                &format!("2025-07-{day}"),
                "09:00",
                &format!("T{i}"),
                &format!("remember: Patterns | global | {fact}"),
            ),
        );
        set_age(&path, Duration::from_secs(3600 * (10 - i as u64)));
    }
    env
}

/// Starts `memloop extract --json` against `mock`, its output piped.
fn spawn_extract(env: &TestEnv, mock: &Mock) -> std::process::Child {
    env.process()
        .envs(anthropic(mock))
        .args(["extract", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn memloop")
}

/// Starts `memloop extract --json` against the slow mock and waits until `KILL_AT`
/// requests have arrived and memory.md exists.
fn start_and_wait(env: &TestEnv, mock: &Mock) -> std::process::Child {
    let mut child = spawn_extract(env, mock);
    let deadline = Instant::now() + WAIT_LIMIT;
    while mock.count() < KILL_AT || !env.memory_path().exists() {
        let exited = child.try_wait().expect("poll memloop");
        if exited.is_some() || Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "memloop {} before {KILL_AT} requests ({} seen)",
                if exited.is_some() {
                    "exited"
                } else {
                    "timed out"
                },
                mock.count()
            );
        }
        thread::sleep(Duration::from_millis(5));
    }
    child
}

#[test]
fn a_killed_run_keeps_its_finished_transcripts_and_the_next_run_does_the_rest() {
    let env = six_transcripts();
    let mock = Mock::start();
    mock.set_latency(LATENCY);
    let mut child = start_and_wait(&env, &mock);
    child.kill().expect("kill memloop");
    child.wait().expect("reap memloop");

    let finished = KILL_AT - 1;
    let mut kept = bullets(&env.memory());
    kept.sort();
    let mut expected: Vec<&str> = FACTS[..finished].to_vec();
    expected.sort_unstable();
    assert_eq!(kept, expected, "the finished transcripts' facts, no others");

    mock.set_latency(Duration::ZERO);
    let before = mock.count();
    let report = env.extract(&mock, &[], 0);

    assert_eq!(
        mock.count() - before,
        FACTS.len() - finished,
        "only the unfinished transcripts are sent"
    );
    assert_eq!(report["transcripts"]["unchanged"], finished);
    assert_eq!(report["transcripts"]["processed"], FACTS.len() - finished);
    for (i, fact) in FACTS.iter().enumerate() {
        // The transcript in flight at the kill was sent by both runs.
        let expected = if i == finished { 2 } else { 1 };
        assert_eq!(transcript_sent_with(&mock, fact), expected, "{fact}");
    }
    let mut memory = bullets(&env.memory());
    memory.sort();
    let mut all = FACTS.to_vec();
    all.sort_unstable();
    assert_eq!(memory, all, "every fact exactly once");
}

#[test]
fn sigterm_stops_the_run_cleanly_keeping_what_it_committed() {
    let env = six_transcripts();
    let mock = Mock::start();
    mock.set_latency(LATENCY);
    let child = start_and_wait(&env, &mock);
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let output = child.wait_with_output().expect("reap memloop");
    let stderr = String::from_utf8_lossy(&output.stderr);

    assert_eq!(
        output.status.code(),
        Some(143),
        "stopped by SIGTERM: exit 143 as the contract says: {stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the report is still printed");
    assert_eq!(report["interrupted"], true);
    assert!(stderr.contains("interrupted"), "{stderr}");
    // Under load the answer in flight may land before the signal is handled: what counts
    // is that the run stops asking and that the file holds exactly what it committed.
    let processed = report["transcripts"]["processed"].as_u64().unwrap_or(0) as usize;
    assert!(
        (KILL_AT - 1..=KILL_AT + 1).contains(&processed),
        "{processed} processed"
    );
    assert_eq!(bullets(&env.memory()).len(), processed);
    assert_eq!(
        report["transcripts"]["deferred"],
        FACTS.len() - processed,
        "what the signal stopped is counted as waiting for the next run"
    );
    // The request in flight when the signal came was paid for: it may answer within the
    // grace and is committed; nothing new is asked.
    let sent = mock.settled_count();
    assert_eq!(
        sent, processed,
        "every answer asked for is committed, nothing new is sent after the signal"
    );

    mock.set_latency(Duration::ZERO);
    let report = env.extract(&mock, &[], 0);
    assert_eq!(report["transcripts"]["processed"], FACTS.len() - processed);
    assert_eq!(bullets(&env.memory()).len(), FACTS.len());
}

#[test]
fn an_answer_paid_for_but_not_yet_committed_survives_a_kill() {
    let env = TestEnv::new();
    env.create_vault("delta");
    env.config("[llm]\nconcurrency = 2\n");
    let slow = "Keeps bees on the roof.";
    let fast = "Bakes sourdough every Sunday.";
    for (i, fact) in [slow, fast].iter().enumerate() {
        let path = env.add_transcript(
            "delta",
            &format!("2025-07-2{i}-0900-t.md"),
            &transcript(
                &format!("2025-07-2{i}"),
                "09:00",
                "T",
                &format!("remember: Patterns | global | {fact}"),
            ),
        );
        // The slow one is older: the fast answer waits behind it to be committed.
        set_age(&path, Duration::from_secs(3600 * (5 - i as u64)));
    }
    let mock = Mock::start();
    mock.when(
        move |r| r.user_text().contains(slow),
        crate::support::mock::Reply::SlowEcho(Duration::from_secs(30)),
    );
    let mut child = spawn_extract(&env, &mock);
    // Until the fast answer has arrived and been kept: it waits for its turn.
    let kept = || answers_kept(&env);
    let deadline = Instant::now() + WAIT_LIMIT;
    while !kept() {
        assert!(Instant::now() < deadline, "no answer was kept");
        thread::sleep(Duration::from_millis(10));
    }
    child.kill().expect("kill memloop");
    child.wait().expect("reap memloop");
    assert!(!env.memory_path().exists(), "nothing was committed");

    let mock = Mock::start();
    let report = env.extract(&mock, &[], 0);

    assert_eq!(transcript_sent_with(&mock, fast), 0, "its answer was kept");
    assert_eq!(transcript_sent_with(&mock, slow), 1);
    assert_eq!(report["transcripts"]["processed"], 2, "{report}");
    let mut memory = bullets(&env.memory());
    memory.sort();
    assert_eq!(memory, [fast, slow]);
    assert!(
        report["notices"]
            .to_string()
            .contains("answered in an interrupted run and kept"),
        "{report}"
    );
}

/// Whether the ledger keeps an answer not yet committed.
fn answers_kept(env: &TestEnv) -> bool {
    let ledger = env.state_dir().join("ledger.sqlite3");
    rusqlite::Connection::open_with_flags(&ledger, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.query_row("SELECT count(*) FROM answers", [], |r| r.get::<_, i64>(0)))
        .is_ok_and(|n| n > 0)
}

/// Whether this machine lets a test mount a small tmpfs in a user namespace.
fn can_mount_tmpfs() -> bool {
    std::process::Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg("d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs \"$d\"")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_full_state_disk_commits_what_was_paid_for_and_stops_asking() {
    if !can_mount_tmpfs() {
        eprintln!("skipped: this machine cannot mount a tmpfs in a user namespace");
        return;
    }
    let env = TestEnv::new();
    env.create_vault("delta");
    env.config("[llm]\nconcurrency = 1\n");
    const TRANSCRIPTS: usize = 30;
    for t in 0..TRANSCRIPTS {
        let lines: String = (0..40)
            .map(|f| {
                format!(
                    "remember: Patterns | global | Keeps notebook {t}-{f} about {}.\n",
                    "the long history of small tools and the people who wrote them ".repeat(3)
                )
            })
            .collect();
        let path = env.add_transcript(
            "delta",
            &format!("2025-07-01-{t:04}-t.md"),
            &transcript("2025-07-01", "09:00", "T", &lines),
        );
        set_age(
            &path,
            Duration::from_secs(3600 * 24 + 60 * (TRANSCRIPTS - t) as u64),
        );
    }
    let mock = Mock::start();
    // The state directory on a tmpfs just big enough for the ledger to start and the
    // reserve: the ledger fills it part way through the run.
    let state = env.root().join("state");
    let mut cmd = std::process::Command::new("unshare");
    cmd.args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg("mkdir -p \"$XDG_STATE_HOME\" && mount -t tmpfs -o size=1400k tmpfs \"$XDG_STATE_HOME\" && exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_memloop"))
        .args(["extract", "--json"]);
    let base = env.process();
    cmd.env_clear()
        .current_dir(env.root())
        .envs(base.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .env("XDG_STATE_HOME", &state)
        .envs(anthropic(&mock));
    let output = cmd.output().expect("run memloop in a namespace");
    let stderr = String::from_utf8_lossy(&output.stderr);

    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the report is printed");
    assert!(
        report["failures"]
            .to_string()
            .contains("the disk holding memloop's state is full"),
        "{report}"
    );
    let processed = report["transcripts"]["processed"].as_u64().unwrap_or(0) as usize;
    eprintln!(
        "full disk: {processed} of {TRANSCRIPTS} committed, {} asked, {} deferred",
        mock.count(),
        report["transcripts"]["deferred"]
    );
    assert!(processed > 0 && processed < TRANSCRIPTS, "{report}");
    assert_eq!(
        mock.count(),
        processed,
        "every answer asked for was committed, and nothing more was asked: {report}"
    );
}

#[test]
fn temp_files_a_killed_run_left_are_cleaned_up_by_the_next_run() {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    let rules = env.memory_path().parent().expect("rules dir").to_path_buf();
    let vault = env
        .claude_md("alpha")
        .parent()
        .expect("vault")
        .to_path_buf();
    // What a SIGKILL between writing and renaming leaves (pid 4242 is long gone).
    let left = [
        rules.join(".memory.md.4242.0.tmp"),
        rules.join(".memory.md.bak.4242.1.tmp"),
        vault.join(".CLAUDE.md.4242.2.tmp"),
    ];
    for path in &left {
        std::fs::write(path, "half a file").expect("write leftover");
    }
    let theirs = vault.join(".CLAUDE.md.swp");
    std::fs::write(&theirs, "an editor's").expect("write swap file");

    env.extract(&mock, &[], 0);

    for path in &left {
        assert!(!path.exists(), "{} was removed", path.display());
    }
    assert!(theirs.exists(), "other programs' files stay");
}

#[test]
fn an_answer_is_kept_as_it_arrives_not_once_its_facts_are_judged() {
    let env = TestEnv::new();
    env.create_vault("delta");
    let said = "JUDGE. I have written Go for six years and always format with tabs.";
    let path = env.add_transcript(
        "delta",
        "2025-08-04-0900-go.md",
        &transcript("2025-08-04", "09:00", "Go", said),
    );
    let fact = "Prefers tabs over spaces in Go code.";
    let answer = serde_json::json!({"facts": [{"category": "Preferences", "text": fact,
        "scope": "global", "evidence": "always format with tabs"}]});
    let extraction =
        crate::support::mock::Reply::Raw(crate::support::mock::anthropic_tool_use(&answer, 10, 10));
    let mock = Mock::start();
    mock.when(
        |r| r.user_text().contains("JUDGE.") && !r.is_judge(),
        extraction.clone(),
    );
    // The judge of its unsure fact never answers in this run.
    mock.when(
        |r| r.is_judge(),
        crate::support::mock::Reply::Hang(Duration::from_secs(60)),
    );
    let mut child = spawn_extract(&env, &mock);
    let kept = || answers_kept(&env);
    // The extraction's answer arrived (the judge was asked): it is kept while the judge waits.
    let deadline = Instant::now() + WAIT_LIMIT;
    while !(mock.requests().iter().any(|r| r.is_judge()) && kept()) {
        assert!(
            Instant::now() < deadline,
            "the answer was not kept while its facts were being judged"
        );
        thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("kill memloop");
    child.wait().expect("reap memloop");

    let mock = Mock::start();
    mock.when(
        |r| r.user_text().contains("JUDGE.") && !r.is_judge(),
        extraction,
    );
    mock.when(
        |r| r.is_judge(),
        crate::support::mock::Reply::Raw(crate::support::mock::anthropic_tool_use(
            &serde_json::json!({"verdicts": [{"n": 1, "states": true}]}),
            30,
            5,
        )),
    );
    let report = env.extract(&mock, &[], 0);
    assert_eq!(
        transcript_sent_with(&mock, "JUDGE."),
        0,
        "the extraction was not bought again: {report}"
    );
    assert_eq!(
        mock.requests().iter().filter(|r| r.is_judge()).count(),
        1,
        "its unsure fact is judged now"
    );
    assert!(
        bullets(&env.memory()).contains(&fact.to_owned()),
        "{report}"
    );
    assert!(path.exists());
}
