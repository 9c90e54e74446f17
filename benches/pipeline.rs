//! End-to-end figures for `memloop extract`: the real release binary in a temp HOME against
//! a generated corpus of Memory Loop transcripts, printed as tables.
//!
//! It owns the corpus generator (deterministic: a seeded xorshift, mtimes backdated past the
//! settle time), the sandbox each run gets (cleared environment, temp HOME and XDG
//! directories, `VAULTS_DIR`), and the measurements: wall time, peak RSS (polled from
//! `/proc/<pid>/status`), what the run left on disk, and, through the loopback mock LLM of
//! the integration tests, how concurrency and noise trimming play out on the wire. It checks
//! only that each run succeeded, and never reaches the network: every LLM call goes to
//! 127.0.0.1.
//!
//! `cargo bench --bench pipeline` takes about four minutes on two cores (longer while other
//! work runs: the first run over 10,000 transcripts is most of it). Without `--bench`
//! (as `cargo test --all-targets` runs it) every corpus has 20 transcripts and the long one
//! is 200 KB: a smoke test of the bench in seconds. `MEMLOOP_BENCH_TRANSCRIPTS=N` sets the
//! builtin corpus size, and
//! `MEMLOOP_BENCH_ONLY=6` runs only section 6 (the corpus of section 1 is still generated),
//! `MEMLOOP_BENCH_KEEP=1` keeps each sandbox (its path goes to stderr) so a run can be
//! repeated by hand under a profiler, and `MEMLOOP_BENCH_REFERENCE=/path/to/memloop` runs
//! an older binary over the same builtin corpus too and fails unless both decided the same
//! after the first run and after `--force` (`pipeline/reference.rs` says what is compared;
//! the two dumps are kept for a diff when they differ).

// A bench builds its corpus with plain writes and reads its own settings from the
// environment; the binary it measures is what uses fsutil and paths::Env.
#![allow(clippy::disallowed_methods)]

#[allow(dead_code)]
#[path = "../tests/it/support/mock.rs"]
mod mock;

#[path = "pipeline/corpus.rs"]
mod corpus;

#[path = "pipeline/sessions.rs"]
mod sessions;

#[path = "pipeline/rng.rs"]
mod rng;

#[path = "pipeline/reference.rs"]
mod reference;

use corpus::{Corpus, Kind, Spec, generate, vault_name};

use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};

use serde_json::Value;
use tempfile::TempDir;

use mock::Mock;

/// Claude Code projects, and sessions in each, in the session corpus (the issue-12
/// figure: a no-op run over 1,000 session files).
const SESSION_PROJECTS: usize = 50;
const SESSIONS_PER_PROJECT: usize = 20;

/// Vaults in the corpora sent to the mock.
const VAULTS: usize = 10;
/// Vaults in the builtin corpus (the issue-11 figures: 10,000 transcripts in 20 vaults).
const BUILTIN_VAULTS: usize = 20;
/// Transcripts in the builtin corpus unless `MEMLOOP_BENCH_TRANSCRIPTS` says otherwise.
const BUILTIN_TRANSCRIPTS: usize = 10_000;
/// The one long transcript's size (a chat that went on for days), and in smoke mode.
const LONG_BYTES: usize = 50_000_000;
const SMOKE_LONG_BYTES: usize = 200_000;
/// Transcripts sent to the mock LLM (the issue-3 figure).
const LLM_TRANSCRIPTS: usize = 200;
/// Corpus sizes when the binary runs without `--bench` (`cargo test --all-targets`): a
/// smoke test of the bench itself, done in seconds.
const SMOKE_TRANSCRIPTS: usize = 20;
/// The mock's answer latency in the concurrency runs.
const LATENCY: Duration = Duration::from_millis(100);
/// Runs of the no-op extract (and of the `find` baseline beside it) whose median is
/// reported.
const NOOP_RUNS: usize = 9;
const SEED: u64 = 0x6d65_6d6c_6f6f_7021;
/// How far past the default 10-minute settle time the newest transcript is dated.
const BACKDATE: Duration = Duration::from_secs(60 * 60);
/// Linux's `USER_HZ`, the unit of `/proc/<pid>/stat` times: 100 on every mainstream arch.
const USER_HZ: u64 = 100;
/// How often the peak-RSS poller looks at `/proc`.
const POLL: Duration = Duration::from_millis(5);
/// No single run may hang the bench.
const RUN_TIMEOUT: Duration = Duration::from_secs(600);

fn main() -> Result<()> {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this binary without it.
    let full = std::env::args().any(|a| a == "--bench");
    let builtin_n = std::env::var("MEMLOOP_BENCH_TRANSCRIPTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if full {
            BUILTIN_TRANSCRIPTS
        } else {
            SMOKE_TRANSCRIPTS
        })
        .max(BUILTIN_VAULTS);
    let llm_n = if full {
        LLM_TRANSCRIPTS
    } else {
        SMOKE_TRANSCRIPTS
    };
    println!(
        "memloop {} ({}), load average at start: {}",
        env!("CARGO_PKG_VERSION"),
        env!("CARGO_BIN_EXE_memloop"),
        load_average()
    );

    let sandbox = Sandbox::new()?;
    let spec = Spec {
        vaults: BUILTIN_VAULTS,
        transcripts: builtin_n,
        seed: SEED,
        remember_lines: false,
    };
    let corpus = generate(&sandbox.vaults(), &spec)?;
    emit("1. generated corpus (builtin runs)", |out| {
        corpus_table(out, &corpus);
        Ok(())
    })?;
    emit(
        &format!("2. builtin provider, {builtin_n} transcripts"),
        |out| builtin_figures(out, &sandbox, &spec),
    )?;
    drop(sandbox);
    let long = if full { LONG_BYTES } else { SMOKE_LONG_BYTES };
    emit(
        &format!(
            "3. one transcript of {:.1} MB, builtin provider",
            long as f64 / 1e6
        ),
        |out| long_figures(out, long),
    )?;

    let mut trimmed = None;
    emit(
        &format!(
            "4. {llm_n} transcripts against the mock (Anthropic format), {} ms latency",
            LATENCY.as_millis()
        ),
        |out| {
            trimmed = Some(concurrency_figures(out, llm_n)?);
            Ok(())
        },
    )?;
    emit(
        "5. noise trimming: characters that reach the model",
        |out| {
            let sample = sample_trimming()?;
            trimming_table(
                out,
                &[trimmed.take().context("no trimming figures")?, sample],
            );
            Ok(())
        },
    )?;
    let (projects, per_project) = if full {
        (SESSION_PROJECTS, SESSIONS_PER_PROJECT)
    } else {
        (2, 5)
    };
    emit(
        &format!(
            "6. Claude Code sessions: {} in {projects} projects",
            projects * per_project
        ),
        |out| session_figures(out, projects, per_project),
    )?;
    println!("\nload average at the end: {}", load_average());
    Ok(())
}

/// Prints one titled section as soon as it is measured, so a failure later keeps it.
/// `MEMLOOP_BENCH_ONLY=6` measures only the sections whose title starts with it.
fn emit(title: &str, body: impl FnOnce(&mut String) -> Result<()>) -> Result<()> {
    if let Ok(only) = std::env::var("MEMLOOP_BENCH_ONLY")
        && !title.starts_with(&only)
    {
        return Ok(());
    }
    let mut out = format!("\n{title}\n{}\n", "=".repeat(title.chars().count()));
    body(&mut out)?;
    print!("{out}");
    std::io::Write::flush(&mut std::io::stdout())?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The scenarios
// ---------------------------------------------------------------------------------------

fn builtin_figures(out: &mut String, sandbox: &Sandbox, spec: &Spec) -> Result<()> {
    let first = sandbox.extract(&[], &[])?;
    let vault_names: Vec<&str> = (0..BUILTIN_VAULTS).map(vault_name).collect();
    let first_decisions = reference::decisions(sandbox.dir.path(), &vault_names)?;
    let show = sandbox.json(&["memory", "show", "--json", "--archived"])?;
    let facts = show["facts"].as_array().map_or(&[][..], Vec::as_slice);
    let count = |status: &str| facts.iter().filter(|f| f["status"] == status).count();
    let memory = file_len(&sandbox.home().join(".claude/rules/memory.md"));
    let ledger = dir_len_matching(&sandbox.state_dir(), "ledger.sqlite3");
    let insights: u64 = (0..BUILTIN_VAULTS)
        .map(|v| file_len(&sandbox.vaults().join(vault_name(v)).join("CLAUDE.md")))
        .sum();

    let noop_rss = {
        let run = sandbox.extract(&[], &[])?;
        if run.report["transcripts"]["processed"] != 0 {
            bail!("the no-op run processed transcripts: {}", run.report);
        }
        run.peak_rss_kb
    };
    // Wall times by a blocking wait (the polling of `measure` would add up to a poll
    // interval), each no-op run beside a `find` over the same files, so both see the same
    // load and the same warm cache.
    let (noop, walk) = noop_beside(sandbox, || stat_walk(&sandbox.vaults()))?;
    let median = |d: &[Duration]| d[d.len() / 2];
    let force = sandbox.extract(&["--force"], &[])?;
    let force_decisions = reference::decisions(sandbox.dir.path(), &vault_names)?;
    let compared = match std::env::var_os("MEMLOOP_BENCH_REFERENCE") {
        Some(binary) => {
            let theirs = Sandbox::new()?.with_binary(binary.into());
            generate(&theirs.vaults(), spec)?;
            theirs.extract(&[], &[])?;
            let keep = tempfile::Builder::new()
                .prefix("memloop-bench-reference-")
                .tempdir()?
                .keep();
            let their_first = reference::decisions(theirs.dir.path(), &vault_names)?;
            reference::same("first-run", &first_decisions, &their_first, &keep)?;
            theirs.extract(&["--force"], &[])?;
            let their_force = reference::decisions(theirs.dir.path(), &vault_names)?;
            reference::same("force-run", &force_decisions, &their_force, &keep)?;
            fs::remove_dir_all(&keep)?;
            format!(
                "identical after the first run and --force ({} lines each: ledger, memory.md, CLAUDE.md)",
                first_decisions.lines().count()
            )
        }
        None => "- (set MEMLOOP_BENCH_REFERENCE to an older memloop)".to_owned(),
    };

    let rows = [
        ("first run: wall (cpu)".to_owned(), timing(&first)),
        (
            "first run: ms per transcript, first -> last tenth".to_owned(),
            pace(&first),
        ),
        (
            "first run: peak RSS".to_owned(),
            format!("{} MiB", mib(first.peak_rss_kb)),
        ),
        (
            "facts (memory show --json --archived)".to_owned(),
            format!(
                "{} active, {} pending, {} archived (report: {} extracted, {} new, {} reinforced, {} refused)",
                count("active"),
                count("pending"),
                count("archived"),
                first.report["facts"]["extracted"],
                first.report["facts"]["new"],
                first.report["facts"]["reinforced"],
                first.report["facts"]["refused"],
            ),
        ),
        (
            "memory.md".to_owned(),
            format!(
                "{memory} bytes (cap {})",
                first.report["memory"]["max_bytes"]
            ),
        ),
        (
            "CLAUDE.md files, all vaults".to_owned(),
            format!("{insights} bytes"),
        ),
        (
            "ledger (sqlite + wal)".to_owned(),
            format!("{ledger} bytes"),
        ),
        (
            format!("no-op run: wall, median of {NOOP_RUNS}"),
            spread(&noop, noop_rss),
        ),
        (
            format!("`{STAT_WALK}`: wall, median of {NOOP_RUNS}"),
            walk.as_ref().map_or_else(
                || "- (find is not there, or has no -printf)".to_owned(),
                |w| {
                    format!(
                        "{} (min {}, max {}); the no-op run takes {:.1}x as long",
                        secs(median(w)),
                        secs(w[0]),
                        secs(w[w.len() - 1]),
                        median(&noop).as_secs_f64() / median(w).as_secs_f64()
                    )
                },
            ),
        ),
        ("--force run: wall (cpu)".to_owned(), timing(&force)),
        (
            "--force run: ms per transcript, first -> last tenth".to_owned(),
            pace(&force),
        ),
        (
            "--force run: peak RSS".to_owned(),
            format!("{} MiB", mib(force.peak_rss_kb)),
        ),
        (
            "decisions against the reference binary".to_owned(),
            compared,
        ),
    ];
    table(out, &["figure", "value"], &rows.map(|(a, b)| vec![a, b]));
    Ok(())
}

/// The first run over one long transcript: how much memory one big file costs.
fn long_figures(out: &mut String, bytes: usize) -> Result<()> {
    let sandbox = Sandbox::new()?;
    let size = corpus::generate_long(&sandbox.vaults(), bytes, SEED ^ 0x50)?;
    let run = sandbox.extract(&[], &[])?;
    if run.report["transcripts"]["processed"] != 1 {
        bail!("the long transcript was not processed: {}", run.report);
    }
    let rows = [
        vec![
            "transcript".to_owned(),
            format!("{size} bytes ({:.1} MiB)", size as f64 / 1_048_576.0),
        ],
        vec!["first run: wall (cpu)".to_owned(), timing(&run)],
        vec![
            "first run: peak RSS".to_owned(),
            format!(
                "{} MiB ({:.1}x the file)",
                mib(run.peak_rss_kb),
                run.peak_rss_kb as f64 * 1024.0 / size as f64
            ),
        ],
    ];
    table(out, &["figure", "value"], &rows);
    Ok(())
}

/// The baseline for the no-op run: a bare stat of every file under the vaults.
const STAT_WALK: &str = "find VAULTS_DIR -name '*.md' -printf '%s %T@\\n'";

/// [`STAT_WALK`] as a command, its output thrown away.
fn stat_walk(vaults: &Path) -> Command {
    stat_walk_of(vaults, "*.md")
}

/// A bare stat of every file named like `pattern` under `dir`, its output thrown away.
fn stat_walk_of(dir: &Path, pattern: &str) -> Command {
    let mut cmd = Command::new("find");
    cmd.arg(dir)
        .args(["-name", pattern, "-printf", "%s %T@\\n"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// [`NOOP_RUNS`] no-op runs (`extract -q`), each beside the baseline `walk`, so both see the
/// same load and the same warm cache: their wall times, sorted; the baseline's `None` when
/// it could not run (no `find`, or one without `-printf`).
fn noop_beside(
    sandbox: &Sandbox,
    walk: impl Fn() -> Command,
) -> Result<(Vec<Duration>, Option<Vec<Duration>>)> {
    let mut noop = Vec::with_capacity(NOOP_RUNS);
    let mut walks = Vec::with_capacity(NOOP_RUNS);
    for _ in 0..NOOP_RUNS {
        let mut cmd = sandbox.command(&["extract", "-q"], &[]);
        noop.push(wall_of(&mut cmd)?);
        walks.push(wall_of(&mut walk()).ok());
    }
    noop.sort();
    let walks: Option<Vec<Duration>> = walks.into_iter().collect();
    Ok((
        noop,
        walks.map(|mut w| {
            w.sort();
            w
        }),
    ))
}

/// Sorted wall times as their median, min and max, with a peak RSS.
fn spread(sorted: &[Duration], peak_rss_kb: u64) -> String {
    format!(
        "{} (min {}, max {}; peak RSS {} MiB)",
        secs(sorted[sorted.len() / 2]),
        secs(sorted[0]),
        secs(sorted[sorted.len() - 1]),
        mib(peak_rss_kb)
    )
}

/// The wall time of `cmd` from spawn to exit; fails unless it exits 0.
fn wall_of(cmd: &mut Command) -> Result<Duration> {
    let started = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context("could not start the command")?;
    let wall = started.elapsed();
    if !status.success() {
        bail!("{cmd:?} exited with {status}");
    }
    Ok(wall)
}

/// Runs the LLM corpus at concurrency 1, 4 and 8; returns the trimming figures of the
/// concurrency-8 run.
fn concurrency_figures(out: &mut String, transcripts: usize) -> Result<Trimming> {
    let spec = Spec {
        vaults: VAULTS,
        transcripts,
        seed: SEED ^ 0x11,
        remember_lines: true,
    };
    let mut rows = Vec::new();
    let mut trimming = None;
    for concurrency in [1_usize, 4, 8] {
        let sandbox = Sandbox::new()?;
        let corpus = generate(&sandbox.vaults(), &spec)?;
        sandbox.config(&format!("[llm]\nconcurrency = {concurrency}\n"))?;
        let mock = Mock::start();
        mock.set_latency(LATENCY);
        let run = sandbox.extract(&[], &anthropic(&mock))?;
        let requests = mock.requests();
        let processed = run.report["transcripts"]["processed"].as_u64().unwrap_or(0);
        let ideal = LATENCY.mul_f64(requests.len() as f64 / concurrency as f64);
        rows.push(vec![
            concurrency.to_string(),
            format!("{processed}/{}", corpus.files),
            requests.len().to_string(),
            secs(run.wall),
            secs(run.cpu),
            secs(ideal),
            format!("{:.2}x", run.wall.as_secs_f64() / ideal.as_secs_f64()),
            format!("{} MiB", mib(run.peak_rss_kb)),
        ]);
        if concurrency == 8 {
            trimming = Some(Trimming::measure(
                format!("generated, {} transcripts", corpus.files),
                corpus.chars,
                &requests,
            ));
        }
    }
    table(
        out,
        &[
            "concurrency",
            "processed",
            "requests",
            "wall",
            "cpu",
            "ideal (requests/conc x latency)",
            "ratio",
            "peak RSS",
        ],
        &rows,
    );
    out.push_str(
        "  wall is the whole `memloop extract` process: start-up, scan, extraction, merge, writes.\n",
    );
    trimming.context("the concurrency-8 run did not run")
}

/// The hand-written sample in `fixtures/corpus` and the fixture vaults, through the mock.
fn sample_trimming() -> Result<Trimming> {
    let sandbox = Sandbox::new()?;
    let chats = sandbox.vaults().join("sample/00_Inbox/chats");
    fs::create_dir_all(&chats)?;
    fs::write(
        sandbox.vaults().join("sample/CLAUDE.md"),
        "# Sample\n\nReal-shaped transcripts for the bench.\n",
    )?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut sources: Vec<PathBuf> = md_files(&root.join("corpus"))?;
    for vault in ["alpha/00_Inbox/chats", "beta/notes/Inbox/chats"] {
        sources.extend(md_files(&root.join("vaults").join(vault))?);
    }
    let mut chars = 0;
    let old = SystemTime::now() - BACKDATE;
    for source in &sources {
        let text = fs::read_to_string(source)
            .with_context(|| format!("could not read {}", source.display()))?;
        chars += text.chars().count() as u64;
        let target = chats.join(source.file_name().context("file name")?);
        fs::write(&target, &text)?;
        backdate(&target, old)?;
    }
    let mock = Mock::start();
    let run = sandbox.extract(&[], &anthropic(&mock))?;
    let processed = run.report["transcripts"]["processed"].as_u64().unwrap_or(0);
    if processed != sources.len() as u64 {
        bail!("the sample run processed {processed} of {}", sources.len());
    }
    Ok(Trimming::measure(
        format!(
            "fixtures/corpus + fixture vaults, {} transcripts",
            sources.len()
        ),
        chars,
        &mock.requests(),
    ))
}

/// Claude Code sessions: a first run and the no-op run over the generated corpus (builtin
/// provider), then what reaches the model (the mock): the whole corpus, one exchange
/// appended to a session of each project, and the two real sessions of the fixtures.
fn session_figures(out: &mut String, projects: usize, per_project: usize) -> Result<()> {
    let sandbox = Sandbox::new()?;
    let projects_dir = sandbox.home().join(".claude/projects");
    let corpus = sessions::generate(&projects_dir, projects, per_project, SEED ^ 0xc1)?;
    let enabled = "[sources.claude_code]\nenabled = true\n";
    sandbox.config(enabled)?;
    let n = corpus.files.len();
    let first = sandbox.extract(&[], &[])?;
    if first.report["transcripts"]["processed"] != n {
        bail!(
            "the first session run did not process {n}: {}",
            first.report
        );
    }
    let (noop, walk) = noop_beside(&sandbox, || stat_walk_of(&projects_dir, "*.jsonl"))?;
    let median = |d: &[Duration]| d[d.len() / 2];
    let noop_run = sandbox.extract(&[], &[])?;
    if noop_run.report["transcripts"]["processed"] != 0 {
        bail!(
            "the no-op session run processed sessions: {}",
            noop_run.report
        );
    }
    let rows = vec![
        vec![
            "corpus".to_owned(),
            format!(
                "{n} sessions in {} projects, {:.1} MB",
                corpus.projects,
                corpus.bytes as f64 / 1e6
            ),
        ],
        vec!["first run (builtin): wall (cpu)".to_owned(), timing(&first)],
        vec![
            "first run: peak RSS".to_owned(),
            format!("{} MiB", mib(first.peak_rss_kb)),
        ],
        vec![
            format!("no-op run: wall, median of {NOOP_RUNS}"),
            spread(&noop, noop_run.peak_rss_kb),
        ],
        vec![
            format!("`find PROJECTS -name '*.jsonl' -printf ...`: median of {NOOP_RUNS}"),
            walk.map_or_else(
                || "-".to_owned(),
                |w| {
                    format!(
                        "{}; the no-op run takes {:.1}x as long",
                        secs(median(&w)),
                        median(&noop).as_secs_f64() / median(&w).as_secs_f64()
                    )
                },
            ),
        ],
    ];
    table(out, &["figure", "value"], &rows);

    // What reaches the model.
    let mock = Mock::start();
    let whole = Sandbox::new()?;
    let whole_corpus = sessions::generate(
        &whole.home().join(".claude/projects"),
        projects,
        per_project,
        SEED ^ 0xc1,
    )?;
    whole.config(enabled)?;
    whole.extract(&[], &anthropic(&mock))?;
    let mut rows = vec![Trimming::measure(
        format!("generated sessions, first run ({n} files)"),
        whole_corpus.bytes,
        &mock.requests(),
    )];
    let mock = Mock::start();
    let mut appended = 0;
    let mut grown = 0;
    for (i, file) in whole_corpus.files.iter().step_by(per_project).enumerate() {
        appended += sessions::append_exchange(file, SEED ^ i as u64)?;
        grown += file_len(file);
    }
    let again = whole.extract(&[], &anthropic(&mock))?;
    let mut appended_row = Trimming::measure(
        format!(
            "one exchange appended to {projects} sessions ({:.1} MB in all after it)",
            grown as f64 / 1e6
        ),
        appended,
        &mock.requests(),
    );
    appended_row.label.push_str(&format!(
        "; processed {}",
        again.report["transcripts"]["processed"]
    ));
    rows.push(appended_row);
    let real = Sandbox::new()?;
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/claude-code");
    let mut raw = 0;
    for (file, cwd) in [
        (
            "claude-code-session-sample.jsonl",
            "/home/marco/projects/spotter",
        ),
        ("claude-code-session-sample-2.jsonl", "/tmp/tmp74wiyiny"),
    ] {
        let text = fs::read_to_string(fixtures.join(file))?;
        raw += text.len() as u64;
        let dir = real
            .home()
            .join(".claude/projects")
            .join(sessions::encode(Path::new(cwd)));
        fs::create_dir_all(&dir)?;
        fs::write(dir.join(file), &text)?;
        backdate(&dir.join(file), SystemTime::now() - BACKDATE)?;
    }
    real.config(enabled)?;
    let mock = Mock::start();
    real.extract(&[], &anthropic(&mock))?;
    rows.push(Trimming::measure(
        "the two real sessions (fixtures/claude-code)".to_owned(),
        raw,
        &mock.requests(),
    ));
    trimming_table(out, &rows);
    out.push_str(
        "  raw chars here = bytes of the session files (JSON lines), or of what was appended.\n",
    );
    Ok(())
}

fn md_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("could not list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        // Transcripts are named by date; SOURCE.md and READMEs are not.
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// What trimming kept of a set of transcripts, from the mock's request log.
struct Trimming {
    label: String,
    raw_chars: u64,
    requests: usize,
    transcript_chars: u64,
    message_chars: u64,
}

impl Trimming {
    fn measure(label: String, raw_chars: u64, requests: &[mock::Recorded]) -> Self {
        let mut transcript_chars = 0;
        let mut message_chars = 0;
        for r in requests {
            let text = r.user_text();
            message_chars += text.chars().count() as u64;
            transcript_chars += fenced_transcript(&text).chars().count() as u64;
        }
        Self {
            label,
            raw_chars,
            requests: requests.len(),
            transcript_chars,
            message_chars,
        }
    }
}

/// The part of a user message between memloop's `<transcript …>` fence lines.
fn fenced_transcript(message: &str) -> &str {
    let start = message
        .find("untrusted=\"true\">\n")
        .map_or(0, |i| i + "untrusted=\"true\">\n".len());
    let end = message.rfind("</transcript>").unwrap_or(message.len());
    message.get(start..end).unwrap_or_default()
}

fn trimming_table(out: &mut String, rows: &[Trimming]) {
    let pct = |part: u64, whole: u64| format!("{:.1}%", 100.0 * part as f64 / whole.max(1) as f64);
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|t| {
            vec![
                t.label.clone(),
                t.raw_chars.to_string(),
                t.requests.to_string(),
                format!(
                    "{} ({})",
                    t.transcript_chars,
                    pct(t.transcript_chars, t.raw_chars)
                ),
                format!(
                    "{} ({})",
                    t.message_chars,
                    pct(t.message_chars, t.raw_chars)
                ),
            ]
        })
        .collect();
    table(
        out,
        &[
            "corpus",
            "raw chars",
            "requests",
            "transcript chars sent",
            "user-message chars sent",
        ],
        &rows,
    );
    out.push_str(
        "  user message = the transcript plus memloop's wrapper and the known facts it sends along.\n",
    );
}

// ---------------------------------------------------------------------------------------
// The sandbox and the runs
// ---------------------------------------------------------------------------------------

/// A temp directory with `home/` and `vaults/`, removed when dropped.
struct Sandbox {
    dir: TempDir,
    /// The memloop binary it runs: this build's, or a reference to compare against.
    binary: PathBuf,
}

/// One finished `memloop extract --json`.
struct Run {
    wall: Duration,
    cpu: Duration,
    peak_rss_kb: u64,
    /// When each transcript finished, from the start of the process.
    processed_at: Vec<Duration>,
    report: Value,
}

impl Run {
    /// Milliseconds per transcript over the first and the last tenth of the transcripts
    /// processed: a rise means the per-transcript work grows with what the ledger holds.
    fn pace(&self) -> Option<(f64, f64)> {
        let t = &self.processed_at;
        let tenth = t.len() / 10;
        if tenth < 5 {
            return None;
        }
        let ms = |a: Duration, b: Duration| (b - a).as_secs_f64() * 1000.0 / (tenth - 1) as f64;
        Some((
            ms(t[0], t[tenth - 1]),
            ms(t[t.len() - tenth], t[t.len() - 1]),
        ))
    }
}

impl Sandbox {
    fn new() -> Result<Self> {
        let mut dir = tempfile::Builder::new()
            .prefix("memloop-bench-")
            .tempdir()
            .context("could not create a temp dir")?;
        if std::env::var_os("MEMLOOP_BENCH_KEEP").is_some() {
            dir.disable_cleanup(true);
            eprintln!("keeping {}", dir.path().display());
        }
        fs::create_dir_all(dir.path().join("home"))?;
        fs::create_dir_all(dir.path().join("vaults"))?;
        Ok(Self {
            dir,
            binary: PathBuf::from(env!("CARGO_BIN_EXE_memloop")),
        })
    }

    /// The same sandbox running another memloop binary.
    fn with_binary(self, binary: PathBuf) -> Self {
        Self { binary, ..self }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn vaults(&self) -> PathBuf {
        self.dir.path().join("vaults")
    }

    fn state_dir(&self) -> PathBuf {
        self.home().join(".local/state/memory-loop")
    }

    fn config(&self, toml: &str) -> Result<()> {
        let dir = self.home().join(".config/memory-loop");
        fs::create_dir_all(&dir)?;
        fs::write(dir.join("config.toml"), toml).context("could not write the config")
    }

    /// The release binary with nothing of this machine's environment but PATH.
    fn command(&self, args: &[&str], env: &[(&str, String)]) -> Command {
        let mut cmd = Command::new(&self.binary);
        cmd.env_clear()
            .current_dir(self.dir.path())
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .env("XDG_STATE_HOME", self.home().join(".local/state"))
            .env("VAULTS_DIR", self.vaults())
            .env("NO_COLOR", "1")
            .env("MEMLOOP_RETRY_BASE_MS", "10")
            .env("MEMLOOP_PROVIDER", "builtin")
            .args(args)
            .stdin(Stdio::null());
        if let Some(path) = std::env::var_os("PATH") {
            cmd.env("PATH", path);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    /// `memloop extract --json ARGS`, timed, its peak RSS polled; fails unless it exits 0.
    fn extract(&self, args: &[&str], env: &[(&str, String)]) -> Result<Run> {
        let mut all = vec!["extract", "--json"];
        all.extend_from_slice(args);
        let stdout = self.dir.path().join("stdout.json");
        let mut cmd = self.command(&all, env);
        cmd.stdout(fs::File::create(&stdout)?);
        let m = measure(cmd)?;
        if !m.status.success() {
            bail!(
                "memloop {} exited with {}:\n{}",
                all.join(" "),
                m.status,
                m.stderr
            );
        }
        let report = serde_json::from_slice(&fs::read(&stdout)?)
            .context("extract --json did not print one JSON object")?;
        Ok(Run {
            wall: m.wall,
            cpu: m.cpu,
            peak_rss_kb: m.peak_rss_kb,
            processed_at: m.processed_at,
            report,
        })
    }

    /// A command's stdout as JSON; fails unless it exits 0.
    fn json(&self, args: &[&str]) -> Result<Value> {
        let output = self.command(args, &[]).output()?;
        if !output.status.success() {
            bail!(
                "memloop {} exited with {}:\n{}",
                args.join(" "),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        serde_json::from_slice(&output.stdout).context("stdout is not JSON")
    }
}

/// The env pairs that point memloop at the mock's Anthropic endpoint.
fn anthropic(mock: &Mock) -> [(&'static str, String); 3] {
    [
        ("ANTHROPIC_BASE_URL", mock.url()),
        ("ANTHROPIC_API_KEY", "bench-key".to_owned()),
        ("MEMLOOP_PROVIDER", "anthropic".to_owned()),
    ]
}

/// What [`measure`] saw of one process.
struct Measured {
    wall: Duration,
    /// User + system time of the whole process, from its last `/proc/<pid>/stat` reading.
    cpu: Duration,
    peak_rss_kb: u64,
    status: ExitStatus,
    /// When each `memloop: processed` line reached stderr, from the start.
    processed_at: Vec<Duration>,
    stderr: String,
}

/// Runs `cmd` to the end, its stderr piped: wall time, CPU time, the highest `VmHWM` seen,
/// the exit status, and the arrival time of each per-transcript progress line.
fn measure(mut cmd: Command) -> Result<Measured> {
    let started = Instant::now();
    let mut child = cmd
        .stderr(Stdio::piped())
        .spawn()
        .context("could not start memloop")?;
    let pipe = child.stderr.take().context("stderr is piped")?;
    let reader = std::thread::spawn(move || {
        let mut processed_at = Vec::new();
        let mut text = String::new();
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if line.starts_with("memloop: processed ") {
                processed_at.push(started.elapsed());
            }
            text.push_str(&line);
            text.push('\n');
        }
        (processed_at, text)
    });
    let proc_dir = PathBuf::from(format!("/proc/{}", child.id()));
    let (mut peak, mut ticks) = (0, 0);
    let status = loop {
        // Read before checking for exit: once reaped, the numbers are gone.
        if let Some(kb) = fs::read_to_string(proc_dir.join("status"))
            .ok()
            .and_then(|s| vm_hwm_kb(&s))
        {
            peak = peak.max(kb);
        }
        if let Some(t) = fs::read_to_string(proc_dir.join("stat"))
            .ok()
            .and_then(|s| cpu_ticks(&s))
        {
            ticks = ticks.max(t);
        }
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > RUN_TIMEOUT {
            child.kill()?;
            child.wait()?;
            bail!("memloop ran longer than {RUN_TIMEOUT:?}");
        }
        std::thread::sleep(POLL);
    };
    let wall = started.elapsed();
    let (processed_at, stderr) = reader
        .join()
        .map_err(|_| anyhow::anyhow!("the stderr reader panicked"))?;
    Ok(Measured {
        wall,
        cpu: Duration::from_millis(ticks * 1000 / USER_HZ),
        peak_rss_kb: peak,
        status,
        processed_at,
        stderr,
    })
}

/// `utime + stime` from `/proc/<pid>/stat`, in clock ticks; the fields after the command
/// name, which may itself hold spaces and parentheses, so it is skipped by its last `)`.
fn cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state); utime and stime are fields 14 and 15.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

fn vm_hwm_kb(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

fn file_len(path: &Path) -> u64 {
    fs::metadata(path).map_or(0, |m| m.len())
}

/// The total size of the files in `dir` whose name starts with `prefix` (a database and
/// its `-wal`/`-shm`).
fn dir_len_matching(dir: &Path, prefix: &str) -> u64 {
    fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum()
    })
}

fn backdate(path: &Path, when: SystemTime) -> Result<()> {
    fs::File::options()
        .write(true)
        .open(path)?
        .set_modified(when)
        .with_context(|| format!("could not backdate {}", path.display()))
}

// ---------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------

/// A left-aligned plain-text table.
fn table(out: &mut String, headers: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |out: &mut String, cells: &mut dyn Iterator<Item = &str>| {
        let mut text = String::from(" ");
        for (cell, w) in cells.zip(&widths) {
            let _ = write!(text, " {cell:<w$} |");
        }
        text.pop();
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(out, &mut headers.iter().copied());
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    line(out, &mut rule.iter().map(String::as_str));
    for row in rows {
        line(out, &mut row.iter().map(String::as_str));
    }
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// Wall and CPU time, and the wall time per transcript processed.
fn timing(run: &Run) -> String {
    let n = run.report["transcripts"]["processed"].as_u64().unwrap_or(0);
    let each = if n == 0 {
        "-".to_owned()
    } else {
        format!("{:.2} ms", run.wall.as_secs_f64() * 1000.0 / n as f64)
    };
    format!(
        "{} (cpu {}); {n} processed, {each} each",
        secs(run.wall),
        secs(run.cpu)
    )
}

fn pace(run: &Run) -> String {
    run.pace().map_or_else(
        || "-".to_owned(),
        |(first, last)| format!("{first:.2} -> {last:.2}"),
    )
}

/// `/proc/loadavg`'s three averages: the machine is shared, so contention is worth printing.
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "unknown".to_owned(),
        |s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    )
}

fn mib(kb: u64) -> String {
    format!("{:.1}", kb as f64 / 1024.0)
}

fn corpus_table(out: &mut String, c: &Corpus) {
    let kinds = [
        (
            "frontmatter + headings",
            c.by_kind[Kind::Structure as usize],
        ),
        ("tool-call blockquotes", c.by_kind[Kind::Tool as usize]),
        ("fenced code", c.by_kind[Kind::Code as usize]),
        ("pasted logs / traces", c.by_kind[Kind::Log as usize]),
        ("prose", c.by_kind[Kind::Prose as usize]),
    ];
    let mut rows = vec![
        vec!["vaults".to_owned(), c.vaults.to_string()],
        vec!["files".to_owned(), c.files.to_string()],
        vec![
            "total bytes".to_owned(),
            format!(
                "{} ({:.1} MiB; mean {} B, largest {} B)",
                c.bytes,
                c.bytes as f64 / 1_048_576.0,
                c.bytes / c.files.max(1) as u64,
                c.largest
            ),
        ],
    ];
    for (name, bytes) in kinds {
        rows.push(vec![
            format!("  of which {name}"),
            format!("{:.1}%", 100.0 * bytes as f64 / c.bytes.max(1) as f64),
        ]);
    }
    table(out, &["corpus", "value"], &rows);
}
