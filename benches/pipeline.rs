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
//! `cargo bench --bench pipeline` takes about three minutes on two cores. Without `--bench`
//! (as `cargo test --all-targets` runs it) every corpus has 20 transcripts: a smoke test of
//! the bench in seconds. `MEMLOOP_BENCH_TRANSCRIPTS=N` sets the builtin corpus size, and
//! `MEMLOOP_BENCH_KEEP=1` keeps each sandbox (its path goes to stderr) so a run can be
//! repeated by hand under a profiler.

#[allow(dead_code)]
#[path = "../tests/it/support/mock.rs"]
mod mock;

use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};
use chrono::{Days, NaiveDate};
use serde_json::Value;
use tempfile::TempDir;

use mock::Mock;

/// Vaults in every generated corpus.
const VAULTS: usize = 10;
/// Transcripts in the builtin corpus unless `MEMLOOP_BENCH_TRANSCRIPTS` says otherwise.
const BUILTIN_TRANSCRIPTS: usize = 2_000;
/// Transcripts sent to the mock LLM (the issue-3 figure).
const LLM_TRANSCRIPTS: usize = 200;
/// Corpus sizes when the binary runs without `--bench` (`cargo test --all-targets`): a
/// smoke test of the bench itself, done in seconds.
const SMOKE_TRANSCRIPTS: usize = 20;
/// The mock's answer latency in the concurrency runs.
const LATENCY: Duration = Duration::from_millis(100);
/// Runs of the no-op extract whose median is reported.
const NOOP_RUNS: usize = 5;
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
        .max(VAULTS);
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
    let corpus = generate(
        &sandbox.vaults(),
        &Spec {
            vaults: VAULTS,
            transcripts: builtin_n,
            seed: SEED,
            remember_lines: false,
        },
    )?;
    emit("1. generated corpus (builtin runs)", |out| {
        corpus_table(out, &corpus);
        Ok(())
    })?;
    emit(
        &format!("2. builtin provider, {builtin_n} transcripts"),
        |out| builtin_figures(out, &sandbox),
    )?;
    drop(sandbox);

    let mut trimmed = None;
    emit(
        &format!(
            "3. {llm_n} transcripts against the mock (Anthropic format), {} ms latency",
            LATENCY.as_millis()
        ),
        |out| {
            trimmed = Some(concurrency_figures(out, llm_n)?);
            Ok(())
        },
    )?;
    emit(
        "4. noise trimming: characters that reach the model",
        |out| {
            let sample = sample_trimming()?;
            trimming_table(
                out,
                &[trimmed.take().context("no trimming figures")?, sample],
            );
            Ok(())
        },
    )?;
    println!("\nload average at the end: {}", load_average());
    Ok(())
}

/// Prints one titled section as soon as it is measured, so a failure later keeps it.
fn emit(title: &str, body: impl FnOnce(&mut String) -> Result<()>) -> Result<()> {
    let mut out = format!("\n{title}\n{}\n", "=".repeat(title.chars().count()));
    body(&mut out)?;
    print!("{out}");
    std::io::Write::flush(&mut std::io::stdout())?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The scenarios
// ---------------------------------------------------------------------------------------

fn builtin_figures(out: &mut String, sandbox: &Sandbox) -> Result<()> {
    let first = sandbox.extract(&[], &[])?;
    let show = sandbox.json(&["memory", "show", "--json", "--archived"])?;
    let facts = show["facts"].as_array().map_or(&[][..], Vec::as_slice);
    let count = |status: &str| facts.iter().filter(|f| f["status"] == status).count();
    let memory = file_len(&sandbox.home().join(".claude/rules/memory.md"));
    let ledger = dir_len_matching(&sandbox.state_dir(), "ledger.sqlite3");
    let insights: u64 = (0..VAULTS)
        .map(|v| file_len(&sandbox.vaults().join(vault_name(v)).join("CLAUDE.md")))
        .sum();

    let mut noop = Vec::with_capacity(NOOP_RUNS);
    let mut noop_rss = 0;
    for _ in 0..NOOP_RUNS {
        let run = sandbox.extract(&[], &[])?;
        if run.report["transcripts"]["processed"] != 0 {
            bail!("the no-op run processed transcripts: {}", run.report);
        }
        noop_rss = noop_rss.max(run.peak_rss_kb);
        noop.push(run.wall);
    }
    noop.sort();
    let force = sandbox.extract(&["--force"], &[])?;

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
                "{} active, {} pending, {} archived (report: {} extracted, {} new, {} merged, {} refused)",
                count("active"),
                count("pending"),
                count("archived"),
                first.report["facts"]["extracted"],
                first.report["facts"]["new"],
                first.report["facts"]["merged"],
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
            format!(
                "{} (min {}, max {}; peak RSS {} MiB)",
                secs(noop[noop.len() / 2]),
                secs(noop[0]),
                secs(noop[noop.len() - 1]),
                mib(noop_rss)
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
    ];
    table(out, &["figure", "value"], &rows.map(|(a, b)| vec![a, b]));
    Ok(())
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
        Ok(Self { dir })
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
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_memloop"));
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

// ---------------------------------------------------------------------------------------
// The corpus generator
// ---------------------------------------------------------------------------------------

/// xorshift64*: small, seeded, good enough to pick words.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next_u64() % items.len() as u64) as usize]
    }
}

struct Spec {
    vaults: usize,
    transcripts: usize,
    seed: u64,
    /// Append the mock's `remember:` lines for the facts a user turn states, so the echo
    /// LLM returns them.
    remember_lines: bool,
}

/// What bytes of a transcript are, for the composition figures.
#[derive(Clone, Copy)]
enum Kind {
    Structure,
    Tool,
    Code,
    Log,
    Prose,
}

#[derive(Default)]
struct Corpus {
    vaults: usize,
    files: usize,
    bytes: u64,
    chars: u64,
    largest: u64,
    by_kind: [u64; 5],
}

/// Writes `spec.transcripts` transcripts round-robin over `spec.vaults` vaults under `root`;
/// the newest is dated [`BACKDATE`] ago and each older one a minute before it.
fn generate(root: &Path, spec: &Spec) -> Result<Corpus> {
    let mut rng = Rng::new(spec.seed);
    let mut corpus = Corpus {
        vaults: spec.vaults,
        ..Corpus::default()
    };
    for v in 0..spec.vaults {
        let vault = root.join(vault_name(v));
        fs::create_dir_all(vault.join("00_Inbox/chats"))?;
        fs::write(
            vault.join("CLAUDE.md"),
            format!(
                "# {}\n\nNotes and decisions for the {} project.\n\n## Working here\n\n- Keep changes small.\n",
                title_case(vault_name(v)),
                title_case(vault_name(v))
            ),
        )?;
    }
    let start = NaiveDate::from_ymd_opt(2024, 3, 1).context("start date")?;
    let newest = SystemTime::now() - BACKDATE;
    for g in 0..spec.transcripts {
        let v = g % spec.vaults;
        let date = start
            .checked_add_days(Days::new((g / 5) as u64))
            .context("date overflow")?;
        let mut t = Writer::new(&mut rng, vault_name(v), spec.remember_lines);
        let (name, text) = t.transcript(&date.format("%Y-%m-%d").to_string());
        for (kind, bytes) in t.by_kind.iter().enumerate() {
            corpus.by_kind[kind] += bytes;
        }
        let path = root.join(vault_name(v)).join("00_Inbox/chats").join(name);
        fs::write(&path, &text)?;
        let age = Duration::from_secs(60 * (spec.transcripts - g) as u64);
        backdate(&path, newest - age)?;
        corpus.files += 1;
        corpus.bytes += text.len() as u64;
        corpus.chars += text.chars().count() as u64;
        corpus.largest = corpus.largest.max(text.len() as u64);
    }
    Ok(corpus)
}

const VAULT_NAMES: [&str; 12] = [
    "lanternfish",
    "heron",
    "kestrel",
    "marmot",
    "osprey",
    "quokka",
    "tern",
    "wombat",
    "ibis",
    "puffin",
    "gannet",
    "shrike",
];

fn vault_name(v: usize) -> &'static str {
    VAULT_NAMES[v % VAULT_NAMES.len()]
}

fn title_case(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

const COMPONENTS: &[&str] = &[
    "ingest worker",
    "billing export",
    "auth middleware",
    "search indexer",
    "nightly backup job",
    "webhook relay",
    "rate limiter",
    "admin CLI",
    "PDF renderer",
    "feature flag service",
    "session store",
    "metrics pipeline",
];
const TECHS: &[&str] = &[
    "Postgres",
    "SQLite",
    "Redis",
    "Kafka",
    "NATS",
    "Tokio",
    "Axum",
    "FastAPI",
    "Terraform",
    "Nomad",
    "DuckDB",
    "ClickHouse",
    "MinIO",
    "gRPC",
    "OpenTelemetry",
    "Sentry",
];
const LANGUAGES: &[&str] = &[
    "Japanese",
    "Portuguese",
    "Rust",
    "Haskell",
    "Elixir",
    "Zig",
    "Mandarin",
    "German",
    "OCaml",
    "Kotlin",
];

const PERSONAL_TOOLS: &[&str] = &[
    "Obsidian",
    "Neovim",
    "Zed",
    "Linear",
    "Todoist",
    "Anki",
    "Excalidraw",
    "Tailscale",
    "Fastmail",
    "Raycast",
    "Zotero",
    "Bitwarden",
];
const PURPOSES: &[&str] = &[
    "meeting notes",
    "spaced repetition",
    "quick diagrams",
    "task tracking",
    "reading notes",
    "home network access",
    "writing drafts",
    "reviewing pull requests",
];

/// First-person statements about the person the builtin extractor keeps, with the fact the
/// mock should echo for them: `(sentence, category, fact)`.
const PERSON: &[(&str, &str, &str)] = &[
    (
        "I'm a staff engineer on the platform team.",
        "Identity",
        "Is a staff engineer on the platform team.",
    ),
    (
        "I work at Fernwood Analytics.",
        "Identity",
        "Works at Fernwood Analytics.",
    ),
    ("I live in Lisbon.", "Identity", "Lives in Lisbon."),
    ("I have two kids.", "Identity", "Has two kids."),
    (
        "I've been a backend developer for about twelve years.",
        "Identity",
        "Has been a backend developer for about twelve years.",
    ),
    ("I'm vegetarian.", "Identity", "Is vegetarian."),
    (
        "I'm allergic to peanuts.",
        "Identity",
        "Is allergic to peanuts.",
    ),
    (
        "I want to learn Rust properly this year.",
        "Goals",
        "Wants to learn Rust properly this year.",
    ),
    (
        "My goal this quarter is to cut the cloud bill by a third.",
        "Goals",
        "Goal this quarter is to cut the cloud bill by a third.",
    ),
    (
        "I'm building a budgeting app for my parents.",
        "Goals",
        "Is building a budgeting app for their parents.",
    ),
    (
        "I prefer short answers with the code first.",
        "Preferences",
        "Prefers short answers with the code first.",
    ),
    (
        "I prefer Postgres over MySQL for side projects.",
        "Preferences",
        "Prefers Postgres over MySQL for side projects.",
    ),
    (
        "I use Neovim with a minimal config.",
        "Preferences",
        "Uses Neovim with a minimal config.",
    ),
    (
        "I like small pull requests.",
        "Preferences",
        "Likes small pull requests.",
    ),
    (
        "I don't like ORMs that hide the SQL.",
        "Preferences",
        "Does not like ORMs that hide the SQL.",
    ),
    (
        "I usually write the tests before the fix.",
        "Patterns",
        "Usually writes the tests before the fix.",
    ),
    (
        "I always run the linters before pushing.",
        "Patterns",
        "Always runs the linters before pushing.",
    ),
    (
        "I never deploy on Fridays.",
        "Patterns",
        "Never deploys on Fridays.",
    ),
];

const USER_ASKS: &[&str] = &[
    "Can you look at why the {c} is slow after the last deploy?",
    "The {c} keeps timing out when the queue backs up.",
    "Could we make the {c} retry with backoff instead of failing the whole batch?",
    "What would you change in the schema for the {c}?",
    "Let's keep the current API and only change the internals of the {c}.",
    "Is there a way to test the {c} without spinning up {t}?",
    "That worked, thanks. Next thing: the {c} logs are far too noisy.",
    "Hmm, that didn't fix it. Same error, same place.",
    "OK, ship it. Can you also write the migration note?",
    "Walk me through what happens when the {c} loses its connection to {t}.",
    "Here is what I see when it fails:",
    "Can you review this before I open the PR?",
];
const ASSISTANT_SAYS: &[&str] = &[
    "Let me look at the {c} first.",
    "The problem is that the {c} holds a lock across an await point, so every request waits for the slowest one.",
    "Here is a smaller version that keeps the same behaviour and drops the shared state.",
    "I'd keep the retry in the caller: the {c} should stay simple and fail fast.",
    "This should fix it. If it still times out, the next thing to check is the connection pool size for {t}.",
    "The trace shows the {c} waiting on {t} for most of the request, not doing work.",
    "There are three ways to go, in order of effort: tune the timeout, batch the writes, or move the {c} behind a queue.",
    "I updated the note in the vault with the decision and the reasons for it.",
    "Good call. The migration is reversible, so it is safe to try on staging first.",
    "Two things stand out: the {c} opens a new connection per request, and nothing bounds the retries.",
];
const TOOLS: &[&str] = &["Read", "Grep", "Glob", "Bash", "Edit", "Write", "WebSearch"];
const IDENTS: &[&str] = &[
    "batch", "client", "config", "cursor", "deadline", "entry", "handle", "index", "job", "limit",
    "offset", "pool", "queue", "record", "retry", "row", "shard", "token", "writer",
];

/// Writes one transcript in Memory Loop's format, tallying its bytes by [`Kind`].
struct Writer<'a> {
    rng: &'a mut Rng,
    vault: &'static str,
    remember_lines: bool,
    text: String,
    by_kind: [u64; 5],
    minute: usize,
}

impl<'a> Writer<'a> {
    fn new(rng: &'a mut Rng, vault: &'static str, remember_lines: bool) -> Self {
        Self {
            rng,
            vault,
            remember_lines,
            text: String::new(),
            by_kind: [0; 5],
            minute: 0,
        }
    }

    fn push(&mut self, kind: Kind, s: &str) {
        self.text.push_str(s);
        self.by_kind[kind as usize] += s.len() as u64;
    }

    fn fill(&mut self, template: &str) -> String {
        let c = self.rng.pick(COMPONENTS);
        let t = self.rng.pick(TECHS);
        template.replace("{c}", c).replace("{t}", t)
    }

    fn clock(&self) -> String {
        format!("{:02}:{:02}", 8 + self.minute / 60 % 14, self.minute % 60)
    }

    /// The file name and text of one transcript dated `date`.
    fn transcript(&mut self, date: &str) -> (String, String) {
        self.minute = self.rng.range(0, 12 * 60);
        let session = format!(
            "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
            self.rng.next_u64() as u32,
            self.rng.next_u64() as u16,
            self.rng.next_u64() % 0x1000,
            self.rng.next_u64() % 0x1000,
            self.rng.next_u64() % 0x1_0000_0000_0000
        );
        let start = self.clock();
        let ask = self.rng.pick(USER_ASKS);
        let first_ask = self.fill(ask);
        let title: String = first_ask.chars().take(60).collect();
        let front = format!(
            "---\ndate: {date}\ntime: \"{start}\"\nsession_id: {session}\ntitle: \"{}\"\n---\n\n# Discussion - {date} {start}\n\n",
            title.replace('"', "\\\"")
        );
        self.push(Kind::Structure, &front);
        // Most chats are short; a few go on for an hour.
        let exchanges = if self.rng.chance(10) {
            self.rng.range(10, 24)
        } else {
            self.rng.range(2, 8)
        };
        for i in 0..exchanges {
            self.user_turn(if i == 0 { Some(&first_ask) } else { None });
            self.assistant_turn();
        }
        let name = format!(
            "{date}-{}-{}.md",
            start.replace(':', ""),
            &session[..5].to_lowercase()
        );
        (name, std::mem::take(&mut self.text))
    }

    fn heading(&mut self, role: &str) {
        self.minute += self.rng.range(1, 4);
        let h = format!("## [{}] {role}\n\n", self.clock());
        self.push(Kind::Structure, &h);
    }

    fn user_turn(&mut self, first: Option<&str>) {
        self.heading("User");
        let mut said = Vec::new();
        let ask = first.map_or_else(
            || {
                let t = self.rng.pick(USER_ASKS);
                self.fill(t)
            },
            str::to_owned,
        );
        let mut prose = ask;
        // About one turn in four says something lasting about the person or the work.
        if self.rng.chance(25) {
            let (sentence, fact) = self.statement();
            prose = format!("{sentence} {prose}");
            said.push(fact);
        }
        prose.push_str("\n\n");
        self.push(Kind::Prose, &prose);
        if self.rng.chance(8) {
            self.log_block();
        } else if self.rng.chance(6) {
            self.code_block();
        }
        if self.remember_lines {
            for (category, scope, fact) in said {
                let line = format!("remember: {category} | {scope} | {fact}\n\n");
                self.push(Kind::Prose, &line);
            }
        }
    }

    /// A first-person sentence and the fact it states: `(category, scope, text)`.
    fn statement(&mut self) -> (String, (&'static str, &'static str, String)) {
        match self.rng.range(0, 9) {
            0..=3 => {
                let (sentence, category, fact) = PERSON[self.rng.range(0, PERSON.len() - 1)];
                (sentence.to_owned(), (category, "global", fact.to_owned()))
            }
            4 => {
                let tool = self.rng.pick(PERSONAL_TOOLS);
                let purpose = self.rng.pick(PURPOSES);
                (
                    format!("I use {tool} for {purpose}."),
                    (
                        "Preferences",
                        "global",
                        format!("Uses {tool} for {purpose}."),
                    ),
                )
            }
            5 => {
                let a = self.rng.pick(TECHS);
                let mut b = self.rng.pick(TECHS);
                while b == a {
                    b = self.rng.pick(TECHS);
                }
                let component = self.rng.pick(COMPONENTS);
                (
                    format!("I prefer {a} over {b} for the {component}."),
                    (
                        "Preferences",
                        "global",
                        format!("Prefers {a} over {b} for the {component}."),
                    ),
                )
            }
            6 => {
                let lang = self.rng.pick(LANGUAGES);
                (
                    format!("I'm learning {lang}."),
                    ("Goals", "global", format!("Is learning {lang}.")),
                )
            }
            _ => {
                let tech = self.rng.pick(TECHS);
                let component = self.rng.pick(COMPONENTS);
                (
                    format!("We decided to use {tech} for the {component}."),
                    (
                        "Project Context",
                        "vault",
                        format!("Decided to use {tech} for the {component}."),
                    ),
                )
            }
        }
    }

    fn assistant_turn(&mut self) {
        self.heading("Assistant");
        for _ in 0..self.rng.range(0, 4) {
            self.tool_call();
        }
        for _ in 0..self.rng.range(1, 3) {
            let mut p = String::new();
            for _ in 0..self.rng.range(1, 4) {
                let s = self.rng.pick(ASSISTANT_SAYS);
                p.push_str(&self.fill(s));
                p.push(' ');
            }
            p.pop();
            p.push_str("\n\n");
            self.push(Kind::Prose, &p);
        }
        if self.rng.chance(30) {
            self.code_block();
            self.push(
                Kind::Prose,
                "Run the tests again after this change; the failing case should pass.\n\n",
            );
        }
    }

    /// A tool call the way Memory Loop's transcript manager writes it.
    fn tool_call(&mut self) {
        let tool = self.rng.pick(TOOLS);
        let mut s = format!("> **Tool:** {tool}\n");
        let ident = self.rng.pick(IDENTS);
        match tool {
            "Read" | "Edit" | "Write" => {
                let _ = writeln!(s, "> File: `/vaults/{}/Projects/{ident}.md`", self.vault);
            }
            "Grep" => {
                let _ = writeln!(s, "> Pattern: `{ident}_timeout`");
            }
            "Glob" => s.push_str("> Pattern: `**/*.md`\n"),
            "Bash" => {
                let _ = writeln!(s, "> Command: `cargo test -p {} {ident}`", self.vault);
            }
            _ => {}
        }
        if matches!(tool, "Grep" | "Glob") {
            let _ = writeln!(s, "> ✓ Found {} files", self.rng.range(1, 40));
        } else {
            s.push_str("> ✓\n");
        }
        s.push('\n');
        self.push(Kind::Tool, &s);
    }

    fn code_block(&mut self) {
        // Mostly snippets; now and then a whole file pasted.
        let lines = if self.rng.chance(15) {
            self.rng.range(45, 120)
        } else {
            self.rng.range(4, 25)
        };
        let mut s = String::from("```rust\n");
        let mut depth = 1;
        for _ in 0..lines {
            let a = self.rng.pick(IDENTS);
            let b = self.rng.pick(IDENTS);
            let indent = "    ".repeat(depth);
            let line = match self.rng.range(0, 6) {
                0 => format!("fn load_{a}({b}: &Config) -> Result<{}> {{", title_case(a)),
                1 => format!("{indent}let {a} = {b}.{a}().await?;"),
                2 => format!("{indent}if {a}.len() > {b}_limit {{ return Err(Error::Full); }}"),
                3 => format!("{indent}// keep the {a} until the {b} is flushed"),
                4 => format!("{indent}{a}.push({b}.clone());"),
                5 => format!("{indent}tracing::debug!(?{a}, \"{b} ready\");"),
                _ => format!("{indent}}}"),
            };
            depth = match line.chars().last() {
                Some('{') => (depth + 1).min(4),
                Some('}') if line.trim() == "}" => depth.saturating_sub(1).max(1),
                _ => depth,
            };
            s.push_str(&line);
            s.push('\n');
        }
        s.push_str("```\n\n");
        self.push(Kind::Code, &s);
    }

    /// A pasted log run or stack trace, unfenced, the way people paste them.
    fn log_block(&mut self) {
        let lines = if self.rng.chance(30) {
            self.rng.range(50, 250)
        } else {
            self.rng.range(5, 30)
        };
        let mut s = String::new();
        let component = self.rng.pick(COMPONENTS).replace(' ', "_");
        let mut ms = self.rng.range(0, 59_000);
        if self.rng.chance(25) {
            s.push_str("Traceback (most recent call last):\n");
            for i in 0..lines.min(60) {
                let _ = writeln!(
                    s,
                    "  File \"/srv/app/{component}/{}.py\", line {}, in {}\n    {} = self.{}({})",
                    self.rng.pick(IDENTS),
                    10 + i * 7,
                    self.rng.pick(IDENTS),
                    self.rng.pick(IDENTS),
                    self.rng.pick(IDENTS),
                    self.rng.pick(IDENTS)
                );
            }
            s.push_str("TimeoutError: pool exhausted after 30.0s\n");
        } else {
            for _ in 0..lines {
                ms += self.rng.range(1, 900);
                let level = match self.rng.range(0, 9) {
                    0 => "ERROR",
                    1 | 2 => "WARN ",
                    3 => "DEBUG",
                    _ => "INFO ",
                };
                let _ = writeln!(
                    s,
                    "2025-06-12T09:{:02}:{:02}.{:03}Z {level} {component}{{shard={}}}: {} {} n={} elapsed_ms={}",
                    ms / 60_000 % 60,
                    ms / 1000 % 60,
                    ms % 1000,
                    self.rng.range(0, 15),
                    self.rng.pick(IDENTS),
                    self.rng
                        .pick(&["flushed", "retrying", "timed out", "queued", "dropped"]),
                    self.rng.range(1, 5000),
                    self.rng.range(1, 30_000)
                );
            }
        }
        s.push('\n');
        self.push(Kind::Log, &s);
    }
}
