//! One extraction run, top to bottom:
//!
//! ```text
//! discover -> fingerprint/skip -> read + parse -> redact -> extract (LLM) -> filter + merge -> render -> write
//! ```
//!
//! Extraction runs concurrently (`executor`: up to `llm.concurrency` transcripts in flight,
//! committed in queue order, oldest first), so a run stopped after N transcripts keeps
//! those N and no outcome depends on which answer arrived first. For each one: its facts
//! are merged in one transaction (`store`), then the transcript is marked done. The files
//! follow the ledger (`write`): those its facts changed are written after it unless the
//! last write was so recent that writing again would spend more than a tenth of the run
//! writing (`WRITE_SHARE`), and never later than `STALE_AFTER` past it; every file is
//! written at the end of the run. With a model each answer takes long enough for a write
//! after each transcript; offline, a first run over thousands of transcripts renders
//! memory.md a few times a second, not once a transcript (each write renders every fact it
//! shows). A crash between any two steps leaves a state that the next run repairs: a
//! transcript not marked is extracted again and merge makes it harmless; facts the files
//! do not show yet are written by the next run's first step, which brings every file in
//! step with the ledger (a fact memloop never wrote cannot look deleted by hand: hand edits
//! are read against what memloop last wrote, not against the ledger).

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result};

use crate::config::{Resolved, provider_name};
use crate::engine::Engine;
use crate::error;
use crate::executor::{self, Answering, Flow, Work};
use crate::fact::{Scope, Status};
use crate::fsutil;
use crate::ground::Grounds;
use crate::known::{self, Known};
use crate::ledger::{AnswerKey, FailedInput, Source, TranscriptRow};
use crate::llm::{self, ExtractRequest, Extraction, LlmError, Provider};
use crate::redact;
use crate::report::{Failure, Report};
use crate::scan;
use crate::store::{self, Answer};
use crate::transcript;
use crate::vault::{self, Vault};
use crate::write::Target;

/// How much of a run may go to keeping the files in step as it goes: after a transcript
/// that changes what a file shows, the files are written once the time since the last
/// write is this many times what that write took (and always at the end of the run).
/// Writing after every transcript was most of an offline first run: each write renders
/// every fact the file shows, so its cost grows with the ledger.
const WRITE_SHARE: u32 = 9;

/// However long writes take (a slow disk, a loaded machine), the files are written after a
/// change once this long has passed since the last write: with a model, after each answer.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_millis(250);

/// How long answers already asked for (so paid for) may take to arrive once a stop comes;
/// they are committed, the rest wait for the next run. Well under systemd's 90 s.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(15);

/// The most facts learned during a run that travel with a later transcript of the run.
const LEARNED_TONIGHT: usize = 200;

/// What the user asked of this run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Process every transcript again, ignoring the ledger and the settle time.
    pub force: bool,
    /// Extract, but write nothing at all.
    pub dry_run: bool,
    /// Only these vaults.
    pub vaults: Vec<PathBuf>,
    /// Only the Claude Code projects with these working directories (read even when the
    /// source is not enabled).
    pub projects: Vec<PathBuf>,
}

/// Where the run says what it is doing (a progress bar, plain lines, or nothing).
pub trait Progress {
    /// A warning for the user (stderr).
    fn warn(&self, message: &str);
    /// Extraction of `total` transcripts begins.
    fn begin(&self, total: usize);
    /// One transcript finished (`ok` false when it failed).
    fn advance(&self, path: &Path, ok: bool);
    /// All transcripts finished.
    fn finish(&self);
}

/// A transcript that needs extracting.
pub struct Job {
    file: scan::Changed,
    /// The transcript's date, known once it is parsed (`Run::requests`).
    date: std::cell::OnceCell<String>,
    /// The words it holds, by who wrote them, to check the facts' evidence against; known
    /// once its requests are made ([`Pending::finish`], off the run's thread), before its
    /// answer is committed.
    grounds: Arc<std::sync::OnceLock<Grounds>>,
    /// Its answer's candidates checked against those grounds, where the answer was
    /// awaited (`store::precheck`).
    prechecked: Arc<std::sync::OnceLock<Vec<store::Prechecked>>>,
    /// A Claude Code session's typed turns sent, by record uuid (`ledger::turns`).
    sent_turns: std::cell::OnceCell<Vec<String>>,
    /// How far this run reads a transcript too long for one run (`read_on`).
    read_to: std::cell::OnceCell<crate::ledger::ReadTo>,
}

/// What [`Run::requests`] made of a transcript.
enum Prepared {
    /// The turns to make requests of, and what the cap left out, if it did.
    Ready(Box<Pending>, Option<String>),
    /// The file is not the one scanned any more, or is gone.
    Changed,
    /// Nothing the person typed: done without asking (a session's new part that holds
    /// only the assistant's work).
    Nothing,
}

/// A transcript's turns, read and capped, and what its requests carry besides: the rest of
/// the work on them (redaction, chunking, the grounds) is the CPU's alone, so it is done
/// where the answer is awaited, beside the run's thread, which goes on reading the next
/// transcripts and committing answers.
struct Pending {
    turns: Vec<transcript::Turn>,
    system: String,
    categories: Vec<String>,
    known_facts: Vec<String>,
    related: Vec<String>,
    vault: String,
    date: String,
    /// Tokens a chunk may hold.
    budget: usize,
}

impl Pending {
    /// Redacts the turns, cuts them into requests, and reads the grounds from what the
    /// requests will carry.
    fn finish(mut self) -> (Vec<ExtractRequest>, Grounds) {
        for turn in &mut self.turns {
            if let std::borrow::Cow::Owned(clean) = redact::redact(&turn.text) {
                turn.text = clean;
            }
        }
        let requests = transcript::chunks(&self.turns, self.budget)
            .into_iter()
            .map(|chunk| ExtractRequest {
                system: self.system.clone(),
                transcript: chunk,
                categories: self.categories.clone(),
                known_facts: self.known_facts.clone(),
                related: self.related.clone(),
                vault: self.vault.clone(),
                date: self.date.clone(),
            })
            .collect();
        (requests, Grounds::new(&self.turns))
    }
}

/// Transcripts in flight with the builtin extractor, whatever `llm.concurrency` says: it
/// costs no request, and enough of them keep every core busy while answers are committed
/// in order.
const BUILTIN_IN_FLIGHT: usize = 32;

/// Runs one extraction over the configured vaults.
///
/// An error before anything was read (configuration, the lock) is `Err`. Once the run has
/// started, its report comes back even when it stopped early (a rejected key, a missing
/// model, a signal), with the reason beside it: the transcripts it committed are in the
/// report. `cancel` stops the run (a signal, a daemon shutting down); `now` is the clock.
pub async fn run(
    cfg: &Resolved,
    opts: &Options,
    progress: &dyn Progress,
    cancel: impl Future<Output = error::Kind>,
    now: chrono::DateTime<chrono::Local>,
) -> Result<(Report, Option<anyhow::Error>)> {
    let started = Instant::now();
    // Everything a configuration error can come from is checked before the lock and the
    // ledger, so such a run writes nothing at all.
    let prompt = cfg.paths.prompt()?;
    let provider = Arc::new(Provider::new(&cfg.llm)?);
    let mut report = Report::default();
    let mut vaults = select_vaults(cfg, opts, &mut report, progress)?;
    vaults.extend(select_projects(cfg, opts, &mut report, progress)?);
    let engine = Engine::open(cfg, prompt, vaults, opts.dry_run)?;
    if !opts.dry_run {
        make_reserve(cfg);
    }
    let mut run = Run::new(engine, opts, report, progress, now);
    run.settle_vault_failures()?;
    run.import_legacy()?;
    let jobs = run.scan(now.into())?;
    run.expire()?;
    // Hand edits are read back before any new fact arrives, so a bullet the user deleted
    // is already forgotten when a transcript says it again.
    run.sync_all()?;
    if !opts.dry_run {
        run.merge_queued()?;
    }
    let stopped = run.extract_all(jobs, &provider, cancel).await;
    if stopped.is_none() {
        run.reconcile(&provider).await?;
    }
    run.report.stopped = stopped.as_ref().map(|e| format!("{e:#}"));
    // The transcripts are committed; a file that cannot be written now is reported with
    // them rather than losing the report.
    // Nothing reached the ledger since the files were brought in step before extracting
    // (no answer, no hand edit read back, no file left busy): they are in step already,
    // and rendering every file again was most of a run with nothing new.
    if run.touched_facts || run.report.edits.any() || !run.engine.writer.busy().is_empty() {
        run.engine.sync_or_report(&mut run.report, &run.now);
    }
    run.finish(started)?;
    Ok((run.report, stopped))
}

/// The vaults of this run. A directory the user named that does not exist is a usage
/// error before anything is read; a vault with a broken `.memory-loop.json` fails alone.
fn select_vaults(
    cfg: &Resolved,
    opts: &Options,
    report: &mut Report,
    progress: &dyn Progress,
) -> Result<Vec<Vault>> {
    // Projects named alone: the run reads only them.
    if opts.vaults.is_empty() && !opts.projects.is_empty() {
        return Ok(Vec::new());
    }
    let found = if opts.vaults.is_empty() {
        if cfg.vaults_dir.is_none() && cfg.vaults.is_empty() && !cfg.claude_code.enabled {
            progress.warn(
                "no vaults configured: set VAULTS_DIR, or vaults_dir / vaults in the config file",
            );
        }
        vault::discover(cfg.vaults_dir.as_deref(), &cfg.vaults)
    } else {
        opts.vaults.iter().map(|dir| vault::open(dir)).collect()
    };
    let mut vaults: Vec<Vault> = Vec::new();
    for v in found {
        match v {
            // The same vault named twice (`--vault v --vault v/`, or through a link) is one.
            Ok(v) if vaults.iter().any(|other| other.root == v.root) => {}
            // Vault facts are filed by the vault's name: two vaults of one name would share
            // their insights, so the second is refused until one is renamed.
            Ok(v) if vaults.iter().any(|other| other.name == v.name) => {
                let other = vaults
                    .iter()
                    .find(|o| o.name == v.name)
                    .map(|o| o.root.display().to_string());
                report.failures.push(Failure {
                    path: v.root.display().to_string(),
                    error: format!(
                        "another vault is also named {} ({}): rename one of them",
                        v.name,
                        other.unwrap_or_default()
                    ),
                });
            }
            Ok(v) => {
                for warning in &v.warnings {
                    progress.warn(warning);
                    report.notices.push(warning.clone());
                }
                vaults.push(v);
            }
            Err(
                e
                @ (vault::VaultError::VaultsDirMissing { .. } | vault::VaultError::Missing { .. }),
            ) => return Err(error::usage(e.to_string())),
            Err(e) => report.still_failing.push(Failure {
                path: e.path().display().to_string(),
                error: e.to_string(),
            }),
        }
    }
    if vaults.is_empty() && (cfg.vaults_dir.is_some() || !opts.vaults.is_empty()) {
        progress.warn("no vaults found: a vault is a directory with a CLAUDE.md");
    }
    report.vaults = vaults.len();
    Ok(vaults)
}

/// The Claude Code projects of this run, as vaults (`project::select`); none when the
/// source is off and none is named (then a word on what was found), or when the run
/// names only vaults.
fn select_projects(
    cfg: &Resolved,
    opts: &Options,
    report: &mut Report,
    progress: &dyn Progress,
) -> Result<Vec<Vault>> {
    use crate::claude_code::project;
    let selection = &cfg.claude_code;
    if opts.projects.is_empty() && (!selection.enabled || !opts.vaults.is_empty()) {
        // In the report, not a warning: someone who reads only vaults on purpose hears of
        // it in each report, and a `-q` run that went well stays silent.
        if !selection.enabled
            && opts.vaults.is_empty()
            && let Some(hint) = project::hint(selection, &cfg.paths.config_file)
        {
            report.notices.push(hint);
        }
        return Ok(Vec::new());
    }
    let listing = project::select(selection, &opts.projects).map_err(error::usage)?;
    for notice in listing.notices {
        progress.warn(&notice);
        report.notices.push(notice);
    }
    for (path, error) in listing.failures {
        report.failures.push(Failure {
            path: path.display().to_string(),
            error,
        });
    }
    report.projects = listing.vaults.len();
    Ok(listing.vaults)
}

struct Run<'a> {
    engine: Engine<'a>,
    opts: &'a Options,
    report: Report,
    progress: &'a dyn Progress,
    /// The run's clock: RFC 3339, local time.
    now: String,
    started_at: String,
    provider: Option<Arc<Provider>>,
    /// Keeps each answer as it arrives (`keep_answer`); `None` where answers are not kept
    /// or it could not be opened, and then the run keeps them as it takes them.
    keeper: Option<Arc<crate::ledger::AnswerKeeper>>,
    /// Why the run stopped asking: a provider that cannot serve any transcript.
    halt: Option<Halt>,
    /// An answer was merged into the ledger (or tried to be): the files may be behind.
    touched_facts: bool,
    /// Files whose facts changed since they were last written in this run.
    behind: Vec<Target>,
    /// When the files are next written during the run.
    pace: Pace,
    /// The typed turns of sessions asked about in this run, by record uuid: a fork and
    /// its original, both new, send their shared turns once (from the older file, which
    /// starts first).
    claimed: std::cell::RefCell<std::collections::HashSet<String>>,
    /// The active facts when the first request was built: what every request of the run
    /// carries as known (`known`).
    known: std::cell::OnceCell<Vec<crate::fact::Fact>>,
    /// The facts learned during the run that each transcript's request carried, by path:
    /// two transcripts that did not see each other's facts are reconciled at the end.
    seen: std::cell::RefCell<std::collections::HashMap<String, std::collections::HashSet<i64>>>,
}

/// When the files are written during a run: once the time since the last write is
/// [`WRITE_SHARE`] times what that write took, so writing takes at most a tenth of the run,
/// or [`STALE_AFTER`], whichever comes first.
#[derive(Debug, Clone, Copy, Default)]
struct Pace {
    /// When the last write ended and how long it took (`None`: nothing written yet).
    last: Option<(Instant, std::time::Duration)>,
}

impl Pace {
    fn due(&self, now: Instant) -> bool {
        self.last.is_none_or(|(ended, took)| {
            now.duration_since(ended) >= (took * WRITE_SHARE).min(STALE_AFTER)
        })
    }

    fn wrote(&mut self, started: Instant, ended: Instant) {
        self.last = Some((ended, ended.duration_since(started)));
    }
}

/// What stops a run before its end.
enum Halt {
    /// A rejected key, a missing `claude` binary, an unknown model or endpoint.
    Fatal(LlmError),
    /// The server is not there: the others would wait through the same retries.
    Unreachable,
    /// The disk holding the ledger is full: an answer asked for now could not be kept.
    DiskFull,
}

impl<'a> Run<'a> {
    fn new(
        engine: Engine<'a>,
        opts: &'a Options,
        early: Report,
        progress: &'a dyn Progress,
        now: chrono::DateTime<chrono::Local>,
    ) -> Self {
        let cfg = engine.cfg;
        let mut report = Report {
            dry_run: opts.dry_run,
            vaults: early.vaults,
            projects: early.projects,
            failures: early.failures,
            // Vaults that could not be used, settled by `settle_vault_failures`.
            still_failing: early.still_failing,
            notices: early.notices,
            provider: provider_name(cfg.llm.kind).to_owned(),
            model: cfg.llm.model.clone(),
            ..Report::default()
        };
        report.memory.path = cfg.memory_file.display().to_string();
        report.memory.max_bytes = cfg.config.memory.max_bytes;
        report.prompt.custom = engine.prompt.path.is_some();
        report.prompt.path = engine.prompt.path.as_ref().map(|p| p.display().to_string());
        report.prompt.source = engine.prompt.source.as_str().to_owned();
        let now = now.to_rfc3339();
        Self {
            engine,
            opts,
            report,
            progress,
            started_at: now.clone(),
            now,
            provider: None,
            keeper: None,
            halt: None,
            touched_facts: false,
            behind: Vec::new(),
            pace: Pace::default(),
            claimed: std::cell::RefCell::default(),
            known: std::cell::OnceCell::new(),
            seen: std::cell::RefCell::default(),
        }
    }

    /// The vaults that could not be used (`select_vaults` left them in `still_failing`): one
    /// that failed the same way before and is unchanged since stays there, any other
    /// becomes a failure of this run and is kept for the next.
    fn settle_vault_failures(&mut self) -> Result<()> {
        for failure in std::mem::take(&mut self.report.still_failing) {
            let path = PathBuf::from(&failure.path);
            let root = if path.is_dir() {
                path.as_path()
            } else {
                path.parent().unwrap_or(&path)
            };
            let fingerprint = scan::vault_fingerprint(root);
            let known = self.engine.store.ledger.failed_input(&failure.path)?;
            match known {
                Some(k) if Some(&k.fingerprint) == fingerprint.as_ref() => {
                    self.report.still_failing.push(Failure {
                        path: failure.path,
                        error: k.still_failing(),
                    });
                }
                _ => {
                    self.remember_failure(&path, &failure.error, fingerprint);
                    self.report.failures.push(failure);
                }
            }
        }
        Ok(())
    }

    /// Memory Loop's own record of processed transcripts, once, into an empty ledger.
    fn import_legacy(&mut self) -> Result<()> {
        let cfg = self.engine.cfg;
        let legacy = self
            .engine
            .store
            .ledger
            .import_legacy(&cfg.paths.legacy_state)?;
        if let Some(notice) = self.engine.prompt.notice.clone() {
            self.progress.warn(&notice);
            self.report.notices.push(notice);
        }
        if let Some(warning) = legacy.warning {
            self.progress.warn(&warning);
            self.report.notices.push(warning);
        }
        let imported = legacy.imported;
        if imported > 0 {
            self.progress.warn(&format!(
                "imported {imported} transcript checksums from Memory Loop's {}",
                cfg.paths.legacy_state.display()
            ));
        }
        if cfg.provider_reason == crate::config::ProviderReason::Fallback {
            self.progress.warn(
                "no LLM configured (set ANTHROPIC_API_KEY, or OPENAI_API_KEY / OPENAI_BASE_URL): using the offline builtin extractor",
            );
        }
        for failure in &self.report.failures {
            self.progress
                .warn(&format!("{}: {}", failure.path, failure.error));
        }
        Ok(())
    }

    fn sync_all(&mut self) -> Result<()> {
        self.engine.sync_all(&mut self.report, &self.now)
    }

    /// Takes in the facts sessions asked `memloop mcp` to keep while a run held the lock
    /// (`queued`); the run's writes put them in the files.
    fn merge_queued(&mut self) -> Result<()> {
        let merged = crate::queued::merge(self.engine.cfg, &mut self.engine.store)?;
        if merged > 0 {
            self.touched_facts = true;
            self.report.notices.push(format!(
                "took in {merged} fact{} a session asked `memloop mcp` to keep while memory was busy",
                if merged == 1 { "" } else { "s" }
            ));
        }
        Ok(())
    }

    /// Finds the transcripts that are new or changed (`scan`); counts the rest, records
    /// in the ledger what the scan learnt, and keeps the per-run budget.
    fn scan(&mut self, now: SystemTime) -> Result<Vec<Job>> {
        let answer = self.answer_key();
        let rules = scan::Rules {
            settle: std::time::Duration::from_secs(self.engine.cfg.config.settle_minutes * 60),
            force: self.opts.force,
            now,
            prompt_hash: None,
            answer: Some(&answer),
        };
        let found = scan::scan(&self.engine.vaults, &self.engine.store.ledger, &rules)?;
        let total = found.total();
        let t = &mut self.report.transcripts;
        t.found += total.found;
        t.waiting += total.settling;
        t.unchanged += total.unchanged;
        t.still_failing += total.still_failing;
        t.empty += total.empty;
        for p in found.problems {
            self.remember_failure(&p.path, &p.error, p.fingerprint);
            if p.transcript {
                self.fail(&p.path, p.error);
            } else {
                self.report.failures.push(Failure {
                    path: p.path.display().to_string(),
                    error: p.error,
                });
            }
        }
        self.note_still_failing(&found.still_failing)?;
        scan::apply(&self.engine.store.ledger, &found.updates)?;
        let mut jobs: Vec<Job> = found
            .changed
            .into_iter()
            .map(|file| Job {
                file,
                date: std::cell::OnceCell::new(),
                grounds: Arc::default(),
                prechecked: Arc::default(),
                sent_turns: std::cell::OnceCell::new(),
                read_to: std::cell::OnceCell::new(),
            })
            .collect();
        let budget = self.engine.cfg.config.llm.max_transcripts_per_run;
        if budget > 0 && jobs.len() > budget {
            self.report.transcripts.deferred = jobs.len() - budget;
            jobs.truncate(budget);
        }
        Ok(jobs)
    }

    /// The prompt and model in use, as failed answers are kept under them.
    fn answer_key(&self) -> String {
        scan::answer_key(&self.engine.prompt.hash(), &self.engine.cfg.llm.model)
    }

    /// Keeps a failure only a change to the input can fix, so that the next runs skip the
    /// input while it stays as it is (a dry run keeps nothing). A ledger that cannot keep
    /// it only means the input fails again next time.
    fn remember_failure(&self, path: &Path, error: &str, fingerprint: Option<String>) {
        let Some(fingerprint) = fingerprint.filter(|_| !self.opts.dry_run) else {
            return;
        };
        let kept = self.engine.store.ledger.record_failed_input(&FailedInput {
            path: path.display().to_string(),
            fingerprint,
            error: error.to_owned(),
            failed_at: self.now.clone(),
        });
        if let Err(e) = kept {
            tracing::warn!(path = %path.display(), "could not keep the failure: {e:#}");
        }
    }

    /// Lists the inputs skipped because they failed before and have not changed, with the
    /// reason they failed then; they are not failures of this run.
    fn note_still_failing(&mut self, paths: &[PathBuf]) -> Result<()> {
        for path in paths {
            let key = path.display().to_string();
            let error = self
                .engine
                .store
                .ledger
                .failed_input(&key)?
                .map(|f| f.still_failing())
                .unwrap_or_default();
            tracing::info!(path = %key, "skipped, unchanged since it failed: {error}");
            self.report.still_failing.push(Failure { path: key, error });
        }
        Ok(())
    }

    fn fail(&mut self, path: &Path, error: String) {
        self.report.transcripts.failed += 1;
        self.report.failures.push(Failure {
            path: path.display().to_string(),
            error,
        });
        self.progress.advance(path, false);
    }

    /// Reads one transcript for its requests: read, parse, cap, and what the requests carry
    /// besides the turns ([`Pending::finish`] redacts and chunks them). With it, what the
    /// cap left out, if it did.
    fn requests(&self, job: &Job) -> Result<Prepared, String> {
        let root = &self.engine.vaults[job.file.vault].root;
        let (bytes, meta) = match fsutil::read_within_stat(root, &job.file.path) {
            Ok(read) => read,
            // Removed (or renamed) since the scan: the next run sees where it went.
            Err(fsutil::Confined::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Prepared::Changed);
            }
            Err(fsutil::Confined::Refused(refusal)) => return Err(format!("not read: {refusal}")),
            Err(fsutil::Confined::Io(e)) => return Err(format!("could not read transcript: {e}")),
        };
        // Written to since the scan: these are not the bytes the scan's checksum vouches
        // for. The next run sees the file anew.
        if !job.file.is_still(&meta) {
            return Ok(Prepared::Changed);
        }
        let vault = &self.engine.vaults[job.file.vault];
        let Some((mut turns, date)) = (if vault.is_project() {
            let admits = |cwd: &Path| self.engine.cfg.claude_code.admits(cwd, &self.opts.projects);
            session_turns(
                job,
                &bytes,
                &self.engine.store.ledger,
                &self.claimed,
                admits,
            )
        } else {
            Some(transcript_turns(job, &bytes, root)?)
        }) else {
            return Ok(Prepared::Nothing);
        };
        drop(bytes);
        let cap = self.engine.cfg.config.llm.max_transcript_tokens;
        let skipped = if vault.is_project() {
            // (A session is read on by bytes, past all its records read now: what the cap
            // left out of them is not sent.)
            transcript::limit(&mut turns, cap).map(|l| over_the_cap(&l, cap, None))
        } else {
            let (skipped, read_to) = read_on(job, &mut turns, cap);
            if let Some(read_to) = read_to {
                let _ = job.read_to.set(read_to);
            }
            // Read on from where the last run stopped, and nothing new the person typed.
            if job.file.read.is_some() && !turns.iter().any(|t| t.role == transcript::Role::User) {
                return Ok(Prepared::Nothing);
            }
            skipped
        };
        let system = llm::system_prompt(&self.engine.prompt.text, &self.engine.prompt.categories);
        let vault = self.engine.vaults[job.file.vault].name.clone();
        // A project is named to the model by its directory's name, not its whole path.
        let label = match &self.engine.vaults[job.file.vault].kind {
            crate::vault::Kind::ClaudeCode { project, .. } => project
                .file_name()
                .map_or_else(|| vault.clone(), |n| n.to_string_lossy().into_owned()),
            crate::vault::Kind::MemoryLoop => vault.clone(),
        };
        let max_input = self.engine.cfg.config.llm.max_input_tokens;
        // The builtin extractor has no use for known facts.
        let (known, related): (Known, Vec<String>) =
            if self.engine.cfg.llm.kind == llm::ProviderKind::Builtin {
                (Known::default(), Vec::new())
            } else {
                let known = Known::of(
                    self.known_at_start()?,
                    &vault,
                    &self.engine.prompt.categories,
                    known::BUDGET_TOKENS.min(max_input / 2),
                );
                // Facts this run learned (or reworded) since it began: a night's worth.
                let before: std::collections::HashSet<(i64, &str)> = self
                    .known_at_start()?
                    .iter()
                    .map(|f| (f.id, f.text.as_str()))
                    .collect();
                let mut learned: Vec<(i64, String)> = self
                    .engine
                    .store
                    .facts(&[Status::Active])
                    .map_err(|e| format!("{e:#}"))?
                    .into_iter()
                    // Another vault's facts are not this transcript's business.
                    .filter(|f| {
                        (f.scope == Scope::Global || f.vault.as_deref() == Some(vault.as_str()))
                            && !before.contains(&(f.id, f.text.as_str()))
                    })
                    .map(|f| (f.id, f.text))
                    .collect();
                // The most recently learned, when a first run learns more than that.
                let learned = learned.split_off(learned.len().saturating_sub(LEARNED_TONIGHT));
                // What this transcript's request saw of tonight's facts (`reconcile`).
                self.seen.borrow_mut().insert(
                    job.file.path.display().to_string(),
                    learned.iter().map(|(id, _)| *id).collect(),
                );
                (known, learned.into_iter().map(|(_, text)| text).collect())
            };
        let overhead = transcript::estimate_tokens(&system)
            + known.tokens()
            + related
                .iter()
                .map(|k| transcript::estimate_tokens(k) + 2)
                .sum::<usize>()
            + 200;
        let budget = max_input.saturating_sub(overhead).max(500);
        let _ = job.date.set(date.clone());
        let pending = Pending {
            turns,
            system,
            categories: self.engine.prompt.categories.clone(),
            known_facts: known.global.into_iter().chain(known.vault).collect(),
            related,
            vault: label,
            date,
            budget,
        };
        Ok(Prepared::Ready(Box::new(pending), skipped))
    }

    /// Archives the facts whose last day is before the run's day: they leave the files at
    /// this run's first write (`sync_all`).
    fn expire(&mut self) -> Result<()> {
        let today = self.now.get(..10).unwrap_or(&self.now).to_owned();
        let expired = self.engine.store.expire(&today, &self.now)?;
        if expired > 0 {
            self.touched_facts = true;
            self.report.facts.expired += expired;
        }
        Ok(())
    }

    /// Links up the facts learned in this run from transcripts whose requests could not see
    /// each other's (extracted at the same time): the model, asked once about those that
    /// share words, says which repeat or update an earlier one (`llm::reconcile`).
    async fn reconcile(&mut self, provider: &Provider) -> Result<()> {
        let Some(snapshot) = self.known.get() else {
            return Ok(());
        };
        let before: std::collections::HashSet<(i64, &str)> =
            snapshot.iter().map(|f| (f.id, f.text.as_str())).collect();
        let seen = self.seen.take();
        // Each fact learned tonight, with the transcript it came from and that one's date.
        let mut learned: Vec<(crate::fact::Fact, String, String)> = Vec::new();
        for f in self.engine.store.facts(&[Status::Active])? {
            if before.contains(&(f.id, f.text.as_str())) {
                continue;
            }
            let source = self
                .engine
                .store
                .ledger
                .sources(f.id)?
                .into_iter()
                .find(|s| seen.contains_key(&s.transcript));
            if let Some(source) = source {
                learned.push((f, source.transcript, source.date));
            }
        }
        // A night's worth: the facts of the latest chats, when a first run learns more (the
        // pairs below grow with the square).
        learned.sort_by(|a, b| (&b.2, b.0.id).cmp(&(&a.2, a.0.id)));
        learned.truncate(LEARNED_TONIGHT);
        // Two facts of one file (the person's, or one vault's) and one category, from
        // transcripts whose requests did not carry each other's.
        let blind = |a: &(crate::fact::Fact, String, String),
                     b: &(crate::fact::Fact, String, String)| {
            a.1 != b.1
                && a.0.scope == b.0.scope
                && a.0.category == b.0.category
                && a.0.vault == b.0.vault
                && !seen.get(&a.1).is_some_and(|s| s.contains(&b.0.id))
                && !seen.get(&b.1).is_some_and(|s| s.contains(&a.0.id))
        };
        let stems: Vec<Vec<String>> = learned
            .iter()
            .map(|(f, _, _)| crate::ground::fact_words(&f.text))
            .collect();
        let mut asked: Vec<usize> = (0..learned.len())
            .filter(|&i| {
                (0..learned.len()).any(|j| {
                    i != j
                        && blind(&learned[i], &learned[j])
                        && stems[i].iter().any(|s| stems[j].contains(s))
                })
            })
            .collect();
        if asked.len() < 2 {
            return Ok(());
        }
        asked.sort_by(|&a, &b| {
            (&learned[a].2, learned[a].0.id).cmp(&(&learned[b].2, learned[b].0.id))
        });
        let facts: Vec<llm::reconcile::Learned> = asked
            .iter()
            .map(|&i| llm::reconcile::Learned {
                text: learned[i].0.text.clone(),
                date: learned[i].2.clone(),
            })
            .collect();
        let links = match provider.reconcile(&facts).await {
            None => return Ok(()),
            Some(Ok((links, usage))) => {
                let tokens = &mut self.report.tokens;
                tokens.input += usage.input_tokens;
                tokens.output += usage.output_tokens;
                tokens.cache_write += usage.cache_write_tokens;
                tokens.cache_read += usage.cache_read_tokens;
                links
            }
            Some(Err(e)) => {
                let notice = format!(
                    "could not ask whether {} facts learned tonight repeat or update each other: {e}; they stay as they are",
                    facts.len()
                );
                self.progress.warn(&notice);
                self.report.notices.push(notice);
                return Ok(());
            }
        };
        let id = |k: usize| learned[asked[k]].0.id;
        let same: Vec<(i64, i64)> = links
            .iter()
            .enumerate()
            .filter_map(|(k, l)| l.same_as.map(|to| (id(k), id(to))))
            .collect();
        let updates: Vec<(i64, i64)> = links
            .iter()
            .enumerate()
            .filter_map(|(k, l)| l.replaces.map(|to| (id(k), id(to))))
            .collect();
        let (merged, replaced) = self.engine.store.reconcile(&same, &updates, &self.now)?;
        if merged + replaced > 0 {
            self.touched_facts = true;
            self.report.facts.same_night += merged;
            self.report.facts.replaced += replaced;
        }
        Ok(())
    }

    /// The active facts as the run's first request found them.
    fn known_at_start(&self) -> Result<&[crate::fact::Fact], String> {
        if let Some(facts) = self.known.get() {
            return Ok(facts);
        }
        let facts = self
            .engine
            .store
            .facts(&[Status::Active])
            .map_err(|e| format!("{e:#}"))?;
        Ok(self.known.get_or_init(|| facts))
    }

    /// Extracts every job through the executor; returns why the run stopped early, if it did.
    async fn extract_all(
        &mut self,
        jobs: Vec<Job>,
        provider: &Arc<Provider>,
        cancel: impl Future<Output = error::Kind>,
    ) -> Option<anyhow::Error> {
        self.progress.begin(jobs.len());
        let total = jobs.len();
        let settled_before = self.report.transcripts.processed + self.report.transcripts.failed;
        self.provider = Some(Arc::clone(provider));
        if self.keeps_answers() {
            match self.engine.store.ledger.answer_keeper() {
                Ok(keeper) => self.keeper = keeper.map(Arc::new),
                Err(e) => tracing::warn!("answers are kept as the run takes them: {e:#}"),
            }
        }
        // The builtin extractor asks no one: its limit only keeps the cores fed, while this
        // thread reads the next transcripts and commits answers in order.
        let limit = if self.engine.cfg.llm.kind == llm::ProviderKind::Builtin {
            BUILTIN_IN_FLIGHT
        } else {
            self.engine.cfg.config.llm.concurrency
        };
        let outcome = executor::run(self, jobs, limit, cancel, STOP_GRACE).await;
        // What neither committed nor failed (stopped by a signal or a fatal error) waits.
        let settled = self.report.transcripts.processed + self.report.transcripts.failed;
        self.report.transcripts.deferred += total.saturating_sub(settled - settled_before);
        self.progress.finish();
        if let Some(kind) = outcome.cancelled {
            self.progress
                .warn("interrupted: finishing what is committed, the rest waits for the next run");
            self.report.interrupted = true;
            return Some(error::stopped(kind));
        }
        match self.halt.take() {
            Some(Halt::Fatal(e)) if is_missing(&e) => {
                let llm = &self.engine.cfg.llm;
                let url = if llm.base_url.is_empty() {
                    String::new()
                } else {
                    format!(" and the base URL ({})", llm.base_url)
                };
                Some(error::usage(format!(
                    "{e}: the provider has no such model or endpoint; check MEMLOOP_MODEL / [llm] model ({}){url}",
                    llm.model
                )))
            }
            Some(Halt::Fatal(e)) => Some(e.into()),
            Some(Halt::Unreachable | Halt::DiskFull) | None => None,
        }
    }

    /// Merges one transcript's facts and marks it done, in one transaction, then writes the
    /// files they change when their turn comes (`WRITE_SHARE`).
    fn commit(&mut self, job: &Job, extraction: Extraction) -> Result<()> {
        self.touched_facts = true;
        let tokens = &mut self.report.tokens;
        tokens.input += extraction.usage.input_tokens;
        tokens.output += extraction.usage.output_tokens;
        tokens.cache_write += extraction.usage.cache_write_tokens;
        tokens.cache_read += extraction.usage.cache_read_tokens;
        let source = Source {
            transcript: job.file.path.display().to_string(),
            date: job
                .date
                .get()
                .cloned()
                .unwrap_or_else(|| local_date(job.file.mtime_ns)),
            evidence: None,
        };
        let vault_name = self.engine.vaults[job.file.vault].name.clone();
        let fact_count = extraction.facts.len();
        let before = self.report.facts.clone();
        let categories = self.engine.prompt.categories.clone();
        let about = self.engine.prompt.about.clone();
        let answer = Answer {
            vault: &vault_name,
            source: &source,
            grounds: job.grounds.get(),
            prechecked: job.prechecked.get().map(Vec::as_slice),
            categories: &categories,
            about: &about,
            max_facts: self.engine.cfg.config.llm.max_facts_per_answer,
            review: self.engine.cfg.config.memory.review,
            now: &self.now,
            judged: (self.engine.cfg.llm.kind != llm::ProviderKind::Builtin)
                .then_some(extraction.judged.as_slice()),
        };
        let cfg = self.engine.cfg;
        let row = TranscriptRow {
            path: source.transcript.clone(),
            vault: vault_name.clone(),
            size: job.file.size,
            mtime_ns: job.file.mtime_ns,
            sha256: job.file.sha256.clone(),
            prompt_hash: self.engine.prompt.hash(),
            model: cfg.llm.model.clone(),
            processed_at: self.now.clone(),
            fact_count: i64::try_from(fact_count).unwrap_or(i64::MAX),
            consumed: self.engine.vaults[job.file.vault]
                .is_project()
                .then(|| i64::try_from(job.file.end).unwrap_or(i64::MAX)),
            read: job.read_to.get().cloned(),
        };
        let sent_turns = job.sent_turns.get().map_or(&[][..], Vec::as_slice);
        // The facts and the mark land in one transaction: a crash between them would leave
        // facts merged from a transcript the next run reads again.
        let decided = self.engine.store.merge_answer(
            extraction.facts,
            &answer,
            &mut self.report.facts,
            |l| {
                l.mark_transcript(&row)?;
                l.record_turns_sent(sent_turns, &row.path)?;
                l.clear_failed_input(&row.path)?;
                l.drop_answer(&answer_key(job, &row.prompt_hash, &row.model))
            },
        )?;
        for d in &decided {
            tracing::info!(transcript = %job.file.path.display(), decision = ?d.decision, fact = %crate::logged::Words(&d.text), "decided");
        }
        // Reinforcement alone rarely changes a file; the run's last sync renders everything.
        let after = &self.report.facts;
        let changed = after.new != before.new
            || after.replaced != before.replaced
            || (after.reinforced != before.reinforced && self.engine.writer.cap_binds);
        if changed {
            for target in [Target::Memory, Target::Vault(job.file.vault)] {
                if !self.behind.contains(&target) {
                    self.behind.push(target);
                }
            }
        }
        self.report.transcripts.processed += 1;
        // The transcript is committed: a write that fails now (the ledger's disk full) is
        // not its failure, and the run's last sync, which writes every file, reports it.
        if self.pace.due(Instant::now())
            && let Err(e) = self.write_behind()
        {
            tracing::warn!("could not bring the files in step yet: {e:#}");
        }
        Ok(())
    }

    /// Writes the files whose facts changed since they were last written (`WRITE_SHARE`).
    fn write_behind(&mut self) -> Result<()> {
        if self.behind.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        for target in std::mem::take(&mut self.behind) {
            self.engine.sync(target, &mut self.report, &self.now)?;
        }
        self.pace.wrote(started, Instant::now());
        Ok(())
    }

    fn finish(&mut self, started: Instant) -> Result<()> {
        let cfg = self.engine.cfg;
        self.report.cost_usd = llm::cost::estimate_usd(
            &cfg.llm.model,
            llm::Usage {
                input_tokens: self.report.tokens.input,
                output_tokens: self.report.tokens.output,
                cache_write_tokens: self.report.tokens.cache_write,
                cache_read_tokens: self.report.tokens.cache_read,
            },
        );
        self.report.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        if self.opts.dry_run {
            self.report.changes = self.engine.writer.changes();
            return Ok(());
        }
        let json =
            serde_json::to_string(&self.report).context("could not encode the run report")?;
        let finished_at = chrono::Local::now().to_rfc3339();
        let started_at = self.started_at.clone();
        self.engine
            .store
            .ledger
            .transaction(|l| l.record_run(&started_at, &finished_at, &json))
    }
}

impl Work for Run<'_> {
    type Job = Job;
    type Answer = Result<Extraction, LlmError>;

    fn start(&mut self, job: &Job) -> Option<Answering<Self::Answer>> {
        // An answer asked for now could not be kept: it waits for the next run. The ones
        // already on their way are committed on the reserve.
        if matches!(self.halt, Some(Halt::DiskFull)) {
            return None;
        }
        match self.requests(job) {
            // Not failed, not extracted: it waits for the next run (counted as deferred).
            Ok(Prepared::Changed) => {
                let notice = format!(
                    "{}: changed or removed since the scan; it waits for the next run",
                    job.file.path.display()
                );
                self.progress.warn(&notice);
                self.report.notices.push(notice);
                None
            }
            // Done without a request: committed with no facts, so the session is read on
            // from here next time.
            Ok(Prepared::Nothing) => Some(Box::pin(async { Ok(Extraction::default()) })),
            Ok(Prepared::Ready(pending, skipped)) => {
                if let Some(skipped) = skipped {
                    let notice = format!("{}: {skipped}", job.file.path.display());
                    self.progress.warn(&notice);
                    self.report.notices.push(notice);
                }
                let provider = Arc::clone(self.provider.as_ref()?);
                let max_facts = self.engine.cfg.config.llm.max_facts_per_answer;
                // Set where the answer is awaited, read when it is committed.
                let slot = Arc::clone(&job.grounds);
                let prechecks = Arc::clone(&job.prechecked);
                // Only the facts the commit takes (`max_facts_per_answer`, 0: all).
                let taken = if max_facts > 0 { max_facts } else { usize::MAX };
                let precheck = move |extraction: &Extraction, grounds: &Grounds| {
                    let _ = prechecks.set(
                        extraction
                            .facts
                            .iter()
                            .take(taken)
                            .map(|c| store::precheck(c, Some(grounds)))
                            .collect(),
                    );
                };
                let path = job.file.path.clone();
                if let Some(mut kept) = self.kept_answer(job) {
                    let notice = format!(
                        "{}: answered in an interrupted run and kept, not asked again",
                        job.file.path.display()
                    );
                    self.report.notices.push(notice);
                    // Kept the moment it arrived, before its unsure facts were judged: they
                    // are judged now (a small request, where the answer was a large one).
                    return Some(Box::pin(async move {
                        let grounds = slot.get_or_init(|| pending.finish().1);
                        // Nothing to judge with (the builtin extractor): no unsure facts
                        // looked for that no one would be asked about.
                        if kept.judged.is_empty() && provider.judges() {
                            judge_unsure(&provider, grounds, &mut kept, max_facts, &path).await;
                        }
                        precheck(&kept, grounds);
                        Ok(kept)
                    }));
                }
                let keeping = self.keeper.clone().map(|keeper| Keeping {
                    keeper,
                    sha256: job.file.sha256.clone(),
                    prompt_hash: self.engine.prompt.hash(),
                    model: self.engine.cfg.llm.model.clone(),
                    at: self.now.clone(),
                });
                Some(Box::pin(async move {
                    let (requests, grounds) = pending.finish();
                    let grounds = slot.get_or_init(|| grounds);
                    let mut extraction = extract_chunks(&provider, requests).await?;
                    // Kept as it arrives, and again once judged.
                    if let Some(keeping) = &keeping {
                        keeping.keep(&extraction, &path).await;
                    }
                    if provider.judges()
                        && judge_unsure(&provider, grounds, &mut extraction, max_facts, &path).await
                        && let Some(keeping) = &keeping
                    {
                        keeping.keep(&extraction, &path).await;
                    }
                    precheck(&extraction, grounds);
                    Ok(extraction)
                }))
            }
            Err(e) => {
                self.remember_failure(&job.file.path, &e, Some(job.file.fingerprint.clone()));
                self.fail(&job.file.path, e);
                None
            }
        }
    }

    fn panicked(&mut self, job: Job, message: String) {
        // memloop's own fault, not the transcript's: nothing is kept as its failure, so the
        // next run tries it again.
        self.fail(
            &job.file.path,
            format!("memloop failed while extracting it ({message}); it is tried again next run"),
        );
    }

    fn answered(&mut self, job: &Job, answer: &Self::Answer) -> Flow {
        // Kept as it arrived, when a keeper was there (`Keeping`).
        if let (Ok(extraction), None) = (answer, &self.keeper) {
            self.keep_answer(job, extraction);
        }

        match answer {
            // The error itself is taken when the answer is committed.
            Err(e) if e.is_fatal() || is_missing(e) => Flow::Stop,
            // Retries are spent and the server is not there, or something else answers in its
            // place: every other transcript would wait through the same schedule, so the run
            // stops here. Nothing is kept as the transcript's failure: it is asked next run.
            Err(e @ (LlmError::Unreachable(_) | LlmError::Unreadable(_))) => {
                let why = match e {
                    LlmError::Unreachable(_) => "the provider could not be reached",
                    _ => {
                        "the provider's responses could not be read (a proxy or a captive portal answering in its place?)"
                    }
                };
                self.fail(&job.file.path, e.to_string());
                if self.halt.is_none() {
                    self.report.failures.push(Failure {
                        path: self.engine.cfg.llm.base_url.clone(),
                        error: format!("{why}: the remaining transcripts wait for the next run"),
                    });
                    self.halt = Some(Halt::Unreachable);
                }
                Flow::Stop
            }
            _ => Flow::Go,
        }
    }

    fn commit(&mut self, job: Job, answer: Self::Answer) {
        match answer {
            Ok(extraction) => {
                let mut committed = Run::commit(self, &job, extraction.clone());
                if committed.as_ref().is_err_and(error::is_disk_full) {
                    committed = self.commit_on_full_disk(&job, extraction);
                }
                match committed {
                    Ok(()) => self.progress.advance(&job.file.path, true),
                    Err(e) if error::is_disk_full(&e) => self.fail(
                        &job.file.path,
                        format!(
                            "could not commit its facts: the disk holding memloop's state is full \
                             ({e:#}); it is asked again next run"
                        ),
                    ),
                    Err(e) => self.fail(&job.file.path, format!("{e:#}")),
                }
            }
            // It waits for the next run; the first such error says why the run stopped.
            Err(e) if e.is_fatal() || is_missing(&e) => {
                if !matches!(self.halt, Some(Halt::Fatal(_))) {
                    self.halt = Some(Halt::Fatal(e));
                }
            }
            // Settled in `answered`, or stopped by the halt: it waits for the next run.
            Err(LlmError::Unreachable(_) | LlmError::Unreadable(_)) => {}
            // The model's answer to these bytes cannot be read. One bad night is the model's:
            // the next run asks again. The same answer runs after runs is the transcript's:
            // it then waits for the transcript, the prompt or the model to change.
            Err(e @ LlmError::Parse(_)) => {
                let key = self.answer_key();
                let attempt = 1 + self
                    .engine
                    .store
                    .ledger
                    .failed_input(&job.file.path.display().to_string())
                    .ok()
                    .flatten()
                    .map_or(0, |f| {
                        scan::answer_attempts(&f.fingerprint, &job.file.fingerprint, &key)
                    });
                let stamp = scan::answer_attempt_fingerprint(&job.file.fingerprint, &key, attempt);
                let error = if attempt < scan::ANSWER_ATTEMPTS {
                    format!(
                        "{e} (the model's answer, run {attempt} of {}: asked again next run)",
                        scan::ANSWER_ATTEMPTS
                    )
                } else {
                    format!(
                        "{e} (on {} runs in a row: it waits until the transcript, the prompt or the model changes)",
                        scan::ANSWER_ATTEMPTS
                    )
                };
                self.remember_failure(&job.file.path, &error, Some(stamp));
                self.fail(&job.file.path, error);
            }
            Err(e) => self.fail(&job.file.path, e.to_string()),
        }
    }
}

/// Leaves out the typed turns already sent from another session file (a copy made by
/// `--fork-session`), or asked about from one earlier in this run, with the answers to
/// them; keeps the uuids of the typed turns left to send for the commit to record. A ledger
/// that cannot say only costs tokens. A turn claimed by a session whose answer then fails
/// is sent from that session when it is tried again.
fn forget_turns_sent_elsewhere(
    job: &Job,
    turns: &mut Vec<crate::claude_code::session::SessionTurn>,
    ledger: &crate::ledger::Ledger,
    claimed: &std::cell::RefCell<std::collections::HashSet<String>>,
) {
    let typed =
        |t: &crate::claude_code::session::SessionTurn| t.turn.role == transcript::Role::User;
    let uuids: Vec<&str> = turns
        .iter()
        .filter(|t| typed(t))
        .filter_map(|t| t.uuid.as_deref())
        .collect();
    let key = job.file.path.display().to_string();
    let mut elsewhere = ledger
        .turns_sent_elsewhere(&uuids, &key)
        .unwrap_or_else(|e| {
            tracing::warn!(session = %key, "could not look up the turns sent before: {e:#}");
            std::collections::HashSet::new()
        });
    let mut claimed = claimed.borrow_mut();
    elsewhere.extend(
        uuids
            .iter()
            .filter(|u| claimed.contains(**u))
            .map(|u| (*u).to_owned()),
    );
    if !elsewhere.is_empty() {
        tracing::info!(
            session = %key,
            "{} turns were sent before from another session file (a fork): not sent again",
            elsewhere.len()
        );
        let mut dropping = false;
        turns.retain(|t| {
            if typed(t) {
                dropping = t.uuid.as_ref().is_some_and(|u| elsewhere.contains(u));
            }
            !dropping
        });
    }
    let sent: Vec<String> = turns
        .iter()
        .filter(|t| typed(t))
        .filter_map(|t| t.uuid.clone())
        .collect();
    claimed.extend(sent.iter().cloned());
    let _ = job.sent_turns.set(sent);
}

/// A Memory Loop transcript's turns and date (from its frontmatter, else its mtime), its
/// user turns confirmed against Memory Loop's record of the chat where it still has one.
fn transcript_turns(
    job: &Job,
    bytes: &[u8],
    root: &Path,
) -> Result<(Vec<transcript::Turn>, String), String> {
    let decoded = transcript::decode(bytes).map_err(|e| e.to_string())?;
    let path = job.file.path.display();
    if decoded.nuls > 0 {
        tracing::info!(transcript = %path, "removed {} NUL characters", decoded.nuls);
    }
    if decoded.replaced > 0 {
        tracing::info!(
            transcript = %path,
            "read with {} invalid UTF-8 sequence(s) replaced by U+FFFD",
            decoded.replaced
        );
    }
    let mut t = transcript::parse(&decoded.text);
    if let Some(record) = session_record(root, t.meta.session_id.as_deref(), &job.file.path) {
        record.confirm(&mut t.turns);
    }
    let date = match t.meta.date.as_deref().and_then(iso_date) {
        Some(date) => date,
        None => {
            let date = local_date(job.file.mtime_ns);
            let from_mtime = format!("dated {date}, from the file's modification time");
            match (&t.meta.date, &t.meta_error) {
                (Some(d), _) => tracing::warn!(
                    transcript = %path,
                    "its date {d:?} is not a YYYY-MM-DD date: {from_mtime}"
                ),
                (None, Some(e)) => tracing::warn!(transcript = %path, "{e}: {from_mtime}"),
                (None, None) => tracing::info!(transcript = %path, "no date: {from_mtime}"),
            }
            date
        }
    };
    if let (Some(e), Some(_)) = (&t.meta_error, &t.meta.date) {
        tracing::info!(transcript = %path, "{e}");
    }
    Ok((t.turns, date))
}

/// Memory Loop's record of the chat `session_id` (`transcript::record`), read inside the
/// vault; `None` when it has none (pruned, or never written), or it cannot be read (said
/// with `-v`: the transcript's own framing then decides).
fn session_record(
    root: &Path,
    session_id: Option<&str>,
    transcript: &Path,
) -> Option<transcript::record::Record> {
    let id = session_id.filter(|id| transcript::record::is_session_id(id))?;
    let path = root
        .join(".memory-loop/sessions")
        .join(format!("{id}.json"));
    let bytes = match fsutil::read_within(root, &path) {
        Ok(bytes) => bytes,
        Err(fsutil::Confined::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::info!(record = %path.display(), "not read: {e}");
            return None;
        }
    };
    match transcript::record::parse(&bytes) {
        // A record written for another transcript is not this chat's.
        Ok(record)
            if record
                .transcript_path
                .as_deref()
                .is_none_or(|p| Path::new(p).file_name() == transcript.file_name()) =>
        {
            Some(record)
        }
        Ok(_) => None,
        Err(e) => {
            tracing::info!(record = %path.display(), "{e}");
            None
        }
    }
}

/// How much of the assistant's last words before a session's new part travel with it, so
/// that "yes, do that" has something to answer.
const CONTEXT_CHARS: usize = 1500;

/// A Claude Code session's turns from where the last run stopped (the scan's `from`) to
/// its last complete record (`end`), each stamped with its local time, and the date of
/// the first; `None` when the person typed nothing in that part.
fn session_turns(
    job: &Job,
    bytes: &[u8],
    ledger: &crate::ledger::Ledger,
    claimed: &std::cell::RefCell<std::collections::HashSet<String>>,
    admits: impl Fn(&Path) -> bool,
) -> Option<(Vec<transcript::Turn>, String)> {
    use crate::claude_code::session;
    let end = job.file.end.min(bytes.len());
    let mut read = session::parse(&bytes[..end], job.file.from);
    let path = job.file.path.display();
    // Held in another working directory than its project's (one directory can hold two
    // projects): it goes only where that directory may.
    if let Some(cwd) = read.cwd.as_deref().map(Path::new)
        && !admits(cwd)
    {
        tracing::info!(session = %path, cwd = %cwd.display(), "not read: its working directory is not one the run may read");
        return None;
    }
    forget_turns_sent_elsewhere(job, &mut read.turns, ledger, claimed);
    if !read.bad_lines.is_empty() {
        tracing::warn!(session = %path, lines = ?read.bad_lines, "lines that are not JSON were skipped");
    }
    tracing::debug!(session = %path, skipped = ?read.skipped, "read from byte {}", job.file.from);
    if !read
        .turns
        .iter()
        .any(|t| t.turn.role == transcript::Role::User)
    {
        return None;
    }
    let local = |at: chrono::DateTime<chrono::Utc>| at.with_timezone(&chrono::Local);
    let date = read.turns.iter().find_map(|t| t.timestamp).map_or_else(
        || local_date(job.file.mtime_ns),
        |at| local(at).format("%Y-%m-%d").to_string(),
    );
    let mut turns = Vec::with_capacity(read.turns.len() + 1);
    if let Some(context) = read.context.filter(|_| job.file.from > 0) {
        turns.push(context_turn(context));
    }
    turns.extend(read.turns.into_iter().map(|t| {
        let mut turn = t.turn;
        turn.time = t.timestamp.map(|at| local(at).format("%H:%M").to_string());
        turn
    }));
    Some((turns, date))
}

/// The assistant's last words before where a transcript is read on from, as context for
/// what follows: their end, at most [`CONTEXT_CHARS`].
fn context_turn(mut context: transcript::Turn) -> transcript::Turn {
    let chars = context.text.chars().count();
    if chars > CONTEXT_CHARS {
        let tail: String = context.text.chars().skip(chars - CONTEXT_CHARS).collect();
        context.text = format!("[…] {tail}");
    }
    context
}

/// Goes on reading a Memory Loop transcript from where the runs before stopped, when it
/// still begins with the turns they read (a file changed before that point is read from
/// its start), and keeps what one run may send of it (`cap` tokens). Returns what is left
/// for the next run, said for the report, and how far this run reads: `None` for a
/// transcript that never needed more than one run, which is read whole each time it
/// changes.
fn read_on(
    job: &Job,
    turns: &mut Vec<transcript::Turn>,
    cap: usize,
) -> (Option<String>, Option<crate::ledger::ReadTo>) {
    let start = job.file.read.as_ref().map_or(0, |r| {
        let k = usize::try_from(r.turns).unwrap_or(usize::MAX);
        if k <= turns.len() && transcript::digest(&turns[..k]) == r.digest {
            k
        } else {
            tracing::info!(transcript = %job.file.path.display(), "changed before where the last run stopped reading it: read from its start");
            0
        }
    });
    let mut new = turns.split_off(start);
    let context = turns
        .last()
        .filter(|t| t.role == transcript::Role::Assistant)
        .map(|t| context_turn(t.clone()));
    let room = cap.saturating_sub(
        context
            .as_ref()
            .map_or(0, |t| transcript::estimate_tokens(&t.text)),
    );
    let limited = (cap > 0)
        .then(|| transcript::fit(&new, room.max(1)))
        .flatten();
    let read = limited.as_ref().map_or(new.len(), |l| l.read);
    let read_to = (job.file.read.is_some() || limited.is_some()).then(|| crate::ledger::ReadTo {
        turns: i64::try_from(start + read).unwrap_or(i64::MAX),
        digest: transcript::digest(turns.iter().chain(&new[..read])),
        unread: limited
            .as_ref()
            .map_or(0, |l| i64::try_from(l.left).unwrap_or(i64::MAX)),
    });
    let skipped = limited.map(|l| {
        l.apply(&mut new);
        over_the_cap(&l, cap, Some(start))
    });
    *turns = context.into_iter().chain(new).collect();
    (skipped, read_to)
}

/// Says what [`transcript::limit`] kept of a transcript over the cap, and what becomes of
/// the rest: read on by the next run from where this one stops, when it was read from turn
/// `start` (counted from 0), or left out.
fn over_the_cap(l: &transcript::Limited, cap: usize, start: Option<usize>) -> String {
    let from = match start {
        Some(start) if start > 0 => format!(", read on from turn {}", start + 1),
        _ => String::new(),
    };
    let mut said = format!(
        "about {} tokens{from}, over the cap of {cap} per transcript: sent {} tokens",
        l.total, l.kept
    );
    let skipped = l.total - l.kept - if start.is_some() { l.left } else { 0 };
    if skipped > 0 {
        let what = if start.is_some() {
            " of its first turn"
        } else {
            ""
        };
        said.push_str(&format!(
            " and skipped the rest{what} ({skipped} tokens); raise [llm] max_transcript_tokens \
             to send it all"
        ));
    }
    if start.is_some() && l.left > 0 {
        said.push_str(&format!(
            "; the next run goes on from there ({} tokens left)",
            l.left
        ));
    }
    said
}

/// Space kept in the state directory so that the answers already paid for can still be
/// committed when the disk fills up.
const RESERVE_BYTES: usize = 1 << 20;

/// The reserve file: its place, and whether it is there to give back.
fn reserve_path(cfg: &Resolved) -> PathBuf {
    cfg.paths.state_dir.join("reserve")
}

/// Makes sure the reserve exists, written out (a sparse file would hold no space). A disk
/// too full to hold it only goes without.
fn make_reserve(cfg: &Resolved) {
    use std::io::Write;
    let path = reserve_path(cfg);
    if path.exists() {
        return;
    }
    let made = std::fs::File::create(&path).and_then(|mut f| {
        f.write_all(&vec![0u8; RESERVE_BYTES])?;
        f.sync_all()
    });
    if let Err(e) = made {
        tracing::warn!(path = %path.display(), "no reserve: {e}");
        let _ = std::fs::remove_file(&path);
    }
}

impl Run<'_> {
    /// The disk is full: give back the reserve and commit this answer (it was paid for),
    /// then ask for nothing more; answers already on their way are committed the same way.
    fn commit_on_full_disk(&mut self, job: &Job, extraction: Extraction) -> Result<()> {
        if !matches!(self.halt, Some(Halt::DiskFull)) {
            let freed = std::fs::remove_file(reserve_path(self.engine.cfg)).is_ok();
            self.halt = Some(Halt::DiskFull);
            self.report.failures.push(Failure {
                path: self.engine.cfg.paths.state_dir.display().to_string(),
                error: format!(
                    "the disk holding memloop's state is full: {}stopped asking; free some space and run again",
                    if freed {
                        "gave back memloop's reserve to commit the answers already paid for, and "
                    } else {
                        ""
                    }
                ),
            });
        }
        Run::commit(self, job, extraction)
    }

    /// Whether answers are kept until committed: not in a dry run (it writes nothing) and
    /// not for the builtin extractor (its answers cost nothing).
    fn keeps_answers(&self) -> bool {
        !self.opts.dry_run && self.engine.cfg.llm.kind != llm::ProviderKind::Builtin
    }

    /// Keeps an answer paid for until it is committed, so a kill before its turn to commit
    /// (it may wait behind a slower transcript) does not cost it again. A ledger that cannot
    /// keep it (a full disk) only loses that saving.
    fn keep_answer(&self, job: &Job, extraction: &Extraction) {
        if !self.keeps_answers() {
            return;
        }
        let (prompt, model) = (self.engine.prompt.hash(), &self.engine.cfg.llm.model);
        let kept = kept_json(extraction).and_then(|json| {
            self.engine
                .store
                .ledger
                .keep_answer(&answer_key(job, &prompt, model), &json, &self.now)
        });
        if let Err(e) = kept {
            tracing::warn!(transcript = %job.file.path.display(), "could not keep the answer: {e:#}");
        }
    }

    /// The answer an interrupted run kept for this transcript, if one waits.
    fn kept_answer(&self, job: &Job) -> Option<Extraction> {
        if !self.keeps_answers() {
            return None;
        }
        let (prompt, model) = (self.engine.prompt.hash(), &self.engine.cfg.llm.model);
        let json = self
            .engine
            .store
            .ledger
            .kept_answer(&answer_key(job, &prompt, model))
            .ok()
            .flatten()?;
        let mut kept: Extraction = serde_json::from_str(&json).ok()?;
        // Paid for in the run that asked: not counted again.
        kept.usage = llm::Usage::default();
        Some(kept)
    }
}

/// An answer as it is kept: JSON, with what looks like a secret redacted.
fn kept_json(extraction: &Extraction) -> Result<String> {
    let json = serde_json::to_string(extraction)?;
    Ok(redact::redact(&json).into_owned())
}

/// What a task that receives an answer needs to keep it at once (see
/// [`crate::ledger::AnswerKeeper`]).
struct Keeping {
    keeper: Arc<crate::ledger::AnswerKeeper>,
    sha256: String,
    prompt_hash: String,
    model: String,
    at: String,
}

impl Keeping {
    /// Keeps `extraction`, off the async workers (the ledger may be busy for a moment). A
    /// ledger that cannot keep it (a full disk) only loses that saving.
    async fn keep(&self, extraction: &Extraction, path: &Path) {
        let keeper = Arc::clone(&self.keeper);
        let (sha256, prompt_hash) = (self.sha256.clone(), self.prompt_hash.clone());
        let (model, at) = (self.model.clone(), self.at.clone());
        let kept = match kept_json(extraction) {
            Ok(json) => tokio::task::spawn_blocking(move || {
                let key = AnswerKey {
                    sha256: &sha256,
                    prompt_hash: &prompt_hash,
                    model: &model,
                };
                keeper.keep(&key, &json, &at)
            })
            .await
            .unwrap_or_else(|e| Err(anyhow::anyhow!("{e}"))),
            Err(e) => Err(e),
        };
        match kept {
            Ok(()) => tracing::debug!(transcript = %path.display(), "answer kept as it arrived"),
            Err(e) => {
                tracing::warn!(transcript = %path.display(), "could not keep the answer: {e:#}");
            }
        }
    }
}

fn answer_key<'a>(job: &'a Job, prompt_hash: &'a str, model: &'a str) -> AnswerKey<'a> {
    AnswerKey {
        sha256: &job.file.sha256,
        prompt_hash,
        model,
    }
}

/// A 404: the model or the endpoint does not exist, for every transcript alike.
fn is_missing(e: &LlmError) -> bool {
    matches!(e, LlmError::Http { status: 404, .. })
}

/// Resolves on Ctrl-C or SIGTERM (what systemd and launchd send to stop a job), with the
/// kind of stop it means for the exit status. The handlers are installed when this is
/// called (inside the runtime), not when the future is first polled, so a signal during
/// the scan or the first write is caught too and stops the run before its first request.
pub fn shutdown_signal() -> impl Future<Output = error::Kind> {
    #[cfg(unix)]
    let streams = {
        use tokio::signal::unix::{SignalKind, signal};
        signal(SignalKind::interrupt())
            .ok()
            .zip(signal(SignalKind::terminate()).ok())
    };
    async move {
        #[cfg(unix)]
        if let Some((mut int, mut term)) = streams {
            tokio::select! {
                _ = int.recv() => return error::Kind::Interrupted,
                _ = term.recv() => return error::Kind::Terminated,
            }
        }
        let _ = tokio::signal::ctrl_c().await;
        error::Kind::Interrupted
    }
}

async fn extract_chunks(
    provider: &Provider,
    requests: Vec<ExtractRequest>,
) -> Result<Extraction, LlmError> {
    let mut all = Extraction::default();
    for request in &requests {
        let e = provider.extract(request).await?;
        all.facts.extend(e.facts);
        all.usage += e.usage;
    }
    Ok(all)
}

/// Asks the model, apart, whether each quote states its fact where the quote's words
/// cannot tell (`ground::Grounded::Unsure`), for the facts the policy lets through; only
/// the (quote, fact) pairs are sent, redacted. Its verdicts go into `judged`. When it cannot
/// be asked, those facts wait for review (`store::Answer::judged`). Returns whether it
/// asked.
async fn judge_unsure(
    provider: &Provider,
    grounds: &Grounds,
    extraction: &mut Extraction,
    max_facts: usize,
    path: &Path,
) -> bool {
    let considered = if max_facts == 0 {
        extraction.facts.len()
    } else {
        extraction.facts.len().min(max_facts)
    };
    let mut unsure = Vec::new();
    let mut pairs = Vec::new();
    for (i, c) in extraction.facts.iter().take(considered).enumerate() {
        let text = redact::redact(c.text.trim()).into_owned();
        if crate::fact::check(&text).is_ok()
            && grounds.check(&text, c.evidence.as_deref()) == Ok(crate::ground::Grounded::Unsure)
        {
            let said = grounds.said(c.evidence.as_deref()).unwrap_or_default();
            unsure.push(i);
            pairs.push((redact::redact(&said).into_owned(), text));
        }
    }
    if pairs.is_empty() {
        return false;
    }
    let Some(answer) = provider.judge(&pairs).await else {
        return false;
    };
    let mut judged = vec![None; extraction.facts.len()];
    match answer {
        Ok((verdicts, usage)) => {
            for (i, verdict) in unsure.into_iter().zip(verdicts) {
                judged[i] = verdict;
            }
            extraction.usage += usage;
        }
        Err(e) => tracing::warn!(
            transcript = %path.display(),
            "could not ask whether {} quotes state their facts: {e}; those facts wait for review",
            pairs.len()
        ),
    }
    extraction.judged = judged;
    true
}

/// `YYYY-MM-DD` from a frontmatter date (which may carry a time after it).
fn iso_date(s: &str) -> Option<String> {
    let d = s.trim().get(..10)?;
    chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d")
        .ok()
        .map(|_| d.to_owned())
}

fn local_date(mtime_ns: i64) -> String {
    use chrono::TimeZone;
    chrono::Local
        .timestamp_nanos(mtime_ns)
        .format("%Y-%m-%d")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_are_written_as_often_as_a_tenth_of_the_run_allows() {
        let start = Instant::now();
        let ms = std::time::Duration::from_millis;
        let mut pace = Pace::default();
        assert!(pace.due(start), "the first change is written at once");
        pace.wrote(start, start + ms(10));
        assert!(!pace.due(start + ms(10)));
        assert!(!pace.due(start + ms(99)), "89 ms after a write of 10 ms");
        assert!(pace.due(start + ms(100)), "90 ms after it");
        // A model's answer takes longer than a write: each transcript is written at once.
        pace.wrote(start + ms(2000), start + ms(2001));
        assert!(pace.due(start + ms(2010)));
        // A slow write (a loaded disk) holds the next one back a quarter second at most.
        pace.wrote(start + ms(3000), start + ms(3100));
        assert!(!pace.due(start + ms(3349)));
        assert!(pace.due(start + ms(3350)), "250 ms after a write of 100 ms");
    }

    #[test]
    fn frontmatter_dates_are_checked() {
        assert_eq!(iso_date("2025-06-12").as_deref(), Some("2025-06-12"));
        assert_eq!(
            iso_date("2025-06-12T09:14:00Z").as_deref(),
            Some("2025-06-12")
        );
        assert_eq!(iso_date("June 12"), None);
        assert_eq!(iso_date("2025-13-40"), None);
    }
}

/// A run driven in-process, as a daemon or a test drives it: the cancel signal and the
/// clock are passed in, and no signal handler is installed.
#[cfg(test)]
mod driven {
    use super::*;
    use crate::config::Config;
    use crate::paths::{Env, Paths};

    struct Quiet;

    impl Progress for Quiet {
        fn warn(&self, _: &str) {}
        fn begin(&self, _: usize) {}
        fn advance(&self, _: &Path, _: bool) {}
        fn finish(&self) {}
    }

    fn setup(dir: &Path) -> Resolved {
        let chats = dir.join("vaults/gamma/00_Inbox/chats");
        std::fs::create_dir_all(&chats).unwrap();
        std::fs::write(dir.join("vaults/gamma/CLAUDE.md"), "# gamma\n").unwrap();
        for i in 0..3 {
            std::fs::write(
                chats.join(format!("2025-06-0{i}-t.md")),
                format!("## [09:00] User\n\nI live in Porto number {i}.\n"),
            )
            .unwrap();
        }
        let home = dir.join("home").display().to_string();
        let vaults = dir.join("vaults").display().to_string();
        let env = Env::from_pairs([
            ("HOME", home.as_str()),
            ("VAULTS_DIR", vaults.as_str()),
            ("MEMLOOP_PROVIDER", "builtin"),
        ]);
        let paths = Paths::resolve(&env, None).unwrap();
        let config = Config::load(&paths).unwrap();
        Resolved::new(config, paths, &env).unwrap()
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn a_run_keeps_a_written_out_reserve_for_a_full_disk_and_a_dry_run_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = setup(dir.path());
        let never = std::future::pending::<error::Kind>;
        let dry = Options {
            dry_run: true,
            ..Options::default()
        };
        block_on(run(&cfg, &dry, &Quiet, never(), chrono::Local::now())).unwrap();
        assert!(!reserve_path(&cfg).exists(), "a dry run writes nothing");
        block_on(run(
            &cfg,
            &Options::default(),
            &Quiet,
            never(),
            chrono::Local::now(),
        ))
        .unwrap();
        let meta = std::fs::metadata(reserve_path(&cfg)).unwrap();
        assert_eq!(meta.len(), RESERVE_BYTES as u64);
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            assert!(meta.blocks() * 512 >= RESERVE_BYTES as u64, "not sparse");
        }
    }

    #[test]
    fn a_cancel_passed_in_stops_the_run_and_says_which_signal() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = setup(dir.path());
        // Transcripts a day old: past the settle time of the clock passed in.
        let now = chrono::Local::now() + chrono::Duration::days(1);
        let cancel = std::future::ready(error::Kind::Terminated);
        let (report, stopped) =
            block_on(run(&cfg, &Options::default(), &Quiet, cancel, now)).unwrap();
        assert!(report.interrupted);
        assert_eq!(report.transcripts.deferred, 3, "{report:?}");
        assert_eq!(error::kind_of(&stopped.unwrap()), error::Kind::Terminated);
    }

    /// Appends to a transcript when extraction begins: after the scan, before the file
    /// is read again to be extracted.
    struct WritesOnBegin(PathBuf);

    impl Progress for WritesOnBegin {
        fn warn(&self, _: &str) {}
        fn begin(&self, _: usize) {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&self.0)
                .unwrap();
            f.write_all(b"\n## [09:05] User\n\nI also live in Braga.\n")
                .unwrap();
        }
        fn advance(&self, _: &Path, _: bool) {}
        fn finish(&self) {}
    }

    #[test]
    fn a_transcript_written_to_after_the_scan_waits_for_the_next_run() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = setup(dir.path());
        let later = chrono::Local::now() + chrono::Duration::days(1);
        let chats = dir.path().join("vaults/gamma/00_Inbox/chats");
        let touched = chats.join("2025-06-01-t.md");
        let never = std::future::pending::<error::Kind>;

        let (report, stopped) = block_on(run(
            &cfg,
            &Options::default(),
            &WritesOnBegin(touched.clone()),
            never(),
            later,
        ))
        .unwrap();

        assert!(stopped.is_none());
        let t = &report.transcripts;
        assert_eq!((t.processed, t.deferred, t.failed), (2, 1, 0), "{report:?}");
        assert!(
            report
                .notices
                .iter()
                .any(|n| n.contains("2025-06-01-t.md: changed or removed since the scan")),
            "{:?}",
            report.notices
        );
        let (next, _) = block_on(run(&cfg, &Options::default(), &Quiet, never(), later)).unwrap();
        assert_eq!(next.transcripts.processed, 1, "{next:?}");
        assert_eq!(next.transcripts.unchanged, 2, "{next:?}");
    }

    #[test]
    fn the_clock_passed_in_decides_what_has_settled() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = setup(dir.path());
        let never = std::future::pending::<error::Kind>;
        let (early, _) = block_on(run(
            &cfg,
            &Options::default(),
            &Quiet,
            never(),
            chrono::Local::now(),
        ))
        .unwrap();
        assert_eq!(early.transcripts.waiting, 3, "just written: still settling");
        let later = chrono::Local::now() + chrono::Duration::hours(1);
        let (report, stopped) =
            block_on(run(&cfg, &Options::default(), &Quiet, never(), later)).unwrap();
        assert!(stopped.is_none());
        assert_eq!(report.transcripts.processed, 3, "{report:?}");
    }
}
