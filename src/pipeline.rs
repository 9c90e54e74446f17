//! One extraction run, top to bottom:
//!
//! ```text
//! discover -> fingerprint/skip -> read + parse -> redact -> extract (LLM) -> filter + merge -> render -> write
//! ```
//!
//! Extraction runs concurrently (up to `llm.concurrency` transcripts in flight); everything
//! after it is synchronous and happens in queue order (oldest transcript first) as each
//! one's turn comes, so a run stopped after N transcripts keeps those N and no outcome
//! depends on which answer arrived first. For each one: its facts land in the ledger (one
//! transaction, `candidate`), the files are rendered, recorded as pending, written and
//! recorded as written (`targets`), and only then is the transcript marked done. A crash
//! between any two steps leaves a state that the next run repairs: the transcript is
//! extracted again and merge makes it harmless.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use tokio::task::JoinSet;

use crate::config::{Resolved, provider_name};
use crate::fact::{Scope, Status};
use crate::fence;
use crate::fsutil;
use crate::ledger::{Ledger, Source, TranscriptRow};
use crate::llm::{self, ExtractRequest, Extraction, LlmError, Provider};
use crate::merge::FactIndex;
use crate::prompt::Prompt;
use crate::redact;
use crate::report::{Change, Failure, Report};
use crate::transcript;
use crate::vault::{self, Vault};

mod candidate;
mod targets;

use candidate::merge_candidate;
use targets::bullet_change;

/// How many known facts travel with a transcript so the model can skip or replace them.
const RELATED_FACTS: usize = 20;

/// What the user asked of this run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Process every transcript again, ignoring the ledger and the settle time.
    pub force: bool,
    /// Extract, but write nothing at all.
    pub dry_run: bool,
    /// Only these vaults.
    pub vaults: Vec<PathBuf>,
}

/// Why a run stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Another run holds the lock; nothing was read or written.
    #[error("another memloop run holds the lock {0}; nothing was read or written")]
    Locked(PathBuf),
    /// The provider cannot work at all (a rejected key, a missing `claude` binary).
    #[error(transparent)]
    Provider(LlmError),
    /// The vaults named by a flag or the configuration do not exist, or the prompt
    /// override cannot be used.
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Other(#[from] anyhow::Error),
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
struct Job {
    vault: usize,
    path: PathBuf,
    size: i64,
    mtime_ns: i64,
    sha256: String,
    bytes: Vec<u8>,
}

/// A file memloop renders: the memory file, or one vault's `CLAUDE.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Target {
    Memory,
    Vault(usize),
}

/// Runs one extraction over the configured vaults.
///
/// An error before anything was read (configuration, the lock) is `Err`. Once the run has
/// started, its report comes back even when it stopped early (a rejected key, a missing
/// model), with the reason beside it: the transcripts it committed are in the report.
pub async fn run(
    cfg: &Resolved,
    opts: &Options,
    progress: &dyn Progress,
) -> Result<(Report, Option<RunError>), RunError> {
    let started = Instant::now();
    let started_at = chrono::Local::now().to_rfc3339();
    // Everything a configuration error can come from is checked before the lock and the
    // ledger, so such a run writes nothing at all.
    let prompt =
        Prompt::load(&cfg.paths.prompt_file).map_err(|e| RunError::Usage(format!("{e:#}")))?;
    let provider = Arc::new(Provider::new(&cfg.llm).map_err(RunError::Provider)?);
    let mut early = Report::default();
    let vaults = select_vaults(cfg, opts, &mut early, progress)?;

    // A dry run takes the lock only where one can exist, so it never creates the state dir.
    let _lock = if opts.dry_run && !cfg.paths.state_dir.exists() {
        None
    } else {
        let lock = fsutil::try_lock(&cfg.paths.state_dir).with_context(|| {
            format!(
                "could not take the run lock in {}",
                cfg.paths.state_dir.display()
            )
        })?;
        Some(lock.ok_or_else(|| RunError::Locked(cfg.paths.state_dir.join("memloop.lock")))?)
    };
    let ledger = if opts.dry_run {
        Ledger::scratch_copy(&cfg.paths.ledger())?
    } else {
        Ledger::open(&cfg.paths.ledger())?
    };
    let imported = ledger.import_legacy(&cfg.paths.legacy_state)?;
    if imported > 0 {
        progress.warn(&format!(
            "imported {imported} transcript checksums from Memory Loop's {}",
            cfg.paths.legacy_state.display()
        ));
    }
    if cfg.provider_reason == crate::config::ProviderReason::Fallback {
        progress.warn(
            "no LLM configured (set ANTHROPIC_API_KEY, or OPENAI_API_KEY / OPENAI_BASE_URL): using the offline builtin extractor",
        );
    }

    let mut run = Run::new(cfg, opts, ledger, prompt)?;
    run.report.provider = provider_name(cfg.llm.kind).to_owned();
    run.report.model = cfg.llm.model.clone();
    run.report.vaults = early.vaults;
    run.report.failures = early.failures;
    run.vaults = vaults;
    let jobs = run.scan()?;
    for failure in &run.report.failures {
        progress.warn(&format!("{}: {}", failure.path, failure.error));
    }

    // Hand edits are read back before any new fact arrives, so a bullet the user deleted
    // is already forgotten when a transcript says it again.
    run.sync_all()?;
    let outcome = run.extract_all(jobs, &provider, progress).await;
    // The transcripts are committed; a file that cannot be written now is reported with
    // them rather than losing the report.
    if let Err(e) = run.sync_all() {
        run.report.failures.push(Failure {
            path: cfg.memory_file.display().to_string(),
            error: format!("{e:#}"),
        });
    }
    run.finish(started, &started_at)?;
    Ok((run.report, outcome.err()))
}

/// The vaults of this run. A directory the user named that does not exist is a usage
/// error before anything is read; a vault with a broken `.memory-loop.json` fails alone.
fn select_vaults(
    cfg: &Resolved,
    opts: &Options,
    report: &mut Report,
    progress: &dyn Progress,
) -> Result<Vec<Vault>, RunError> {
    let found = if opts.vaults.is_empty() {
        if cfg.vaults_dir.is_none() && cfg.vaults.is_empty() {
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
            Ok(v) => vaults.push(v),
            Err(
                e
                @ (vault::VaultError::VaultsDirMissing { .. } | vault::VaultError::Missing { .. }),
            ) => return Err(RunError::Usage(e.to_string())),
            Err(e) => report.failures.push(Failure {
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

struct Run<'a> {
    cfg: &'a Resolved,
    opts: &'a Options,
    ledger: Ledger,
    index: FactIndex,
    prompt: Prompt,
    vaults: Vec<Vault>,
    report: Report,
    today: String,
    /// Targets that failed this run (a malformed fence): not touched again.
    failed_targets: HashSet<Target>,
    /// In a dry run, what would have been written, by path; read back in place of the disk.
    overlay: HashMap<PathBuf, Vec<u8>>,
    /// In a dry run, each target's text before the run.
    originals: HashMap<PathBuf, Option<String>>,
    /// A size cap left facts out: reinforcement can change what a file shows.
    cap_binds: bool,
}

impl<'a> Run<'a> {
    fn new(cfg: &'a Resolved, opts: &'a Options, ledger: Ledger, prompt: Prompt) -> Result<Self> {
        let index = index_of(&ledger)?;
        let mut report = Report {
            dry_run: opts.dry_run,
            ..Report::default()
        };
        report.memory.path = cfg.memory_file.display().to_string();
        report.memory.max_bytes = cfg.config.memory.max_bytes;
        report.prompt.custom = prompt.path.is_some();
        report.prompt.path = prompt.path.as_ref().map(|p| p.display().to_string());
        Ok(Self {
            cfg,
            opts,
            ledger,
            index,
            prompt,
            vaults: Vec::new(),
            report,
            today: chrono::Local::now().format("%Y-%m-%d").to_string(),
            failed_targets: HashSet::new(),
            overlay: HashMap::new(),
            originals: HashMap::new(),
            cap_binds: false,
        })
    }

    /// Finds the transcripts that are new or changed; counts the rest.
    fn scan(&mut self) -> Result<Vec<Job>> {
        let settle = std::time::Duration::from_secs(self.cfg.config.settle_minutes * 60);
        let now = SystemTime::now();
        let mut jobs = Vec::new();
        for vi in 0..self.vaults.len() {
            let paths = match vault::transcripts(&self.vaults[vi]) {
                Ok(p) => p,
                Err(e) => {
                    self.report.failures.push(Failure {
                        path: self.vaults[vi].chats_dir().display().to_string(),
                        error: format!("could not list transcripts: {e}"),
                    });
                    continue;
                }
            };
            for path in paths {
                self.report.transcripts.found += 1;
                let key = path.display().to_string();
                let meta = match std::fs::metadata(&path) {
                    Ok(m) => m,
                    Err(e) => {
                        self.fail(&path, format!("could not read transcript: {e}"));
                        continue;
                    }
                };
                let mtime = meta.modified().unwrap_or(UNIX_EPOCH);
                if !self.opts.force && now.duration_since(mtime).is_ok_and(|age| age < settle) {
                    self.report.transcripts.waiting += 1;
                    continue;
                }
                let size = i64::try_from(meta.len()).unwrap_or(i64::MAX);
                let mtime_ns = mtime
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
                let row = self.ledger.transcript(&key)?;
                if !self.opts.force
                    && row
                        .as_ref()
                        .is_some_and(|r| r.size == size && r.mtime_ns == mtime_ns)
                {
                    self.report.transcripts.unchanged += 1;
                    continue;
                }
                let bytes = match std::fs::read(&path) {
                    Ok(b) => b,
                    Err(e) => {
                        self.fail(&path, format!("could not read transcript: {e}"));
                        continue;
                    }
                };
                // A file that cannot be a transcript fails here, before it takes a place in
                // the per-run budget; it is looked at again next run.
                if let Err(e) = transcript::decode(&bytes) {
                    self.fail(&path, e.to_string());
                    continue;
                }
                let sha256 = hex::encode(Sha256::digest(&bytes));
                if !self.opts.force && row.as_ref().is_some_and(|r| r.sha256 == sha256) {
                    self.ledger.touch_transcript(&key, size, mtime_ns)?;
                    self.report.transcripts.unchanged += 1;
                    continue;
                }
                // The same bytes under another name (a renamed file, a moved vault): already
                // paid for.
                if !self.opts.force
                    && let Some(known) = self.ledger.transcript_by_checksum(&sha256)?
                {
                    self.ledger.mark_transcript(&TranscriptRow {
                        path: key,
                        vault: self.vaults[vi].name.clone(),
                        size,
                        mtime_ns,
                        ..known
                    })?;
                    self.report.transcripts.unchanged += 1;
                    continue;
                }
                jobs.push(Job {
                    vault: vi,
                    path,
                    size,
                    mtime_ns,
                    sha256,
                    bytes,
                });
            }
        }
        // The oldest wait longest: they go first, and first within a per-run budget.
        jobs.sort_by(|a, b| {
            a.mtime_ns
                .cmp(&b.mtime_ns)
                .then_with(|| a.path.cmp(&b.path))
        });
        let budget = self.cfg.config.llm.max_transcripts_per_run;
        if budget > 0 && jobs.len() > budget {
            self.report.transcripts.deferred = jobs.len() - budget;
            jobs.truncate(budget);
        }
        Ok(jobs)
    }

    fn fail(&mut self, path: &Path, error: String) {
        self.report.transcripts.failed += 1;
        self.report.failures.push(Failure {
            path: path.display().to_string(),
            error,
        });
    }

    /// Builds the requests for one transcript: parse, redact, chunk.
    fn requests(&self, job: &Job) -> Result<(Vec<ExtractRequest>, String), String> {
        let text = transcript::decode(&job.bytes).map_err(|e| e.to_string())?;
        let mut t = transcript::parse(text);
        for turn in &mut t.turns {
            if let std::borrow::Cow::Owned(clean) = redact::redact(&turn.text) {
                turn.text = clean;
            }
        }
        let date = t
            .meta
            .date
            .as_deref()
            .and_then(iso_date)
            .unwrap_or_else(|| local_date(job.mtime_ns));
        let system = llm::system_prompt(&self.prompt.text, &self.prompt.categories);
        let vault = self.vaults[job.vault].name.clone();
        let whole = transcript::render(&t.turns);
        // The builtin extractor has no use for known facts, and ranking them is not free.
        let wanted = if self.cfg.llm.kind == llm::ProviderKind::Builtin {
            0
        } else {
            RELATED_FACTS
        };
        let known: Vec<String> = self
            .index
            .related(&whole, wanted)
            .into_iter()
            .filter_map(|id| self.ledger.fact(id).ok().flatten())
            // Another vault's facts are not this transcript's business.
            .filter(|f| {
                f.status == Status::Active
                    && (f.scope == Scope::Global || f.vault.as_deref() == Some(vault.as_str()))
            })
            .map(|f| f.text)
            .collect();
        let overhead = transcript::estimate_tokens(&system)
            + known
                .iter()
                .map(|k| transcript::estimate_tokens(k) + 2)
                .sum::<usize>()
            + 200;
        let budget = self
            .cfg
            .config
            .llm
            .max_input_tokens
            .saturating_sub(overhead)
            .max(500);
        let requests = transcript::chunks(&t.turns, budget)
            .into_iter()
            .map(|chunk| ExtractRequest {
                system: system.clone(),
                transcript: chunk,
                categories: self.prompt.categories.clone(),
                known_facts: known.clone(),
                vault: vault.clone(),
            })
            .collect();
        Ok((requests, date))
    }

    async fn extract_all(
        &mut self,
        jobs: Vec<Job>,
        provider: &Arc<Provider>,
        progress: &dyn Progress,
    ) -> Result<(), RunError> {
        progress.begin(jobs.len());
        let total = jobs.len();
        let settled_before = self.report.transcripts.processed + self.report.transcripts.failed;
        let mut queue = jobs.into_iter().enumerate();
        let mut waiting: HashMap<usize, (Job, String)> = HashMap::new();
        // Extractions run concurrently but commit in queue order (oldest first), so a run's
        // outcome never depends on which answer arrived first. `None`: settled, nothing to
        // commit (failed, or left for the next run).
        let mut ready: BTreeMap<usize, Option<(Job, String, Extraction)>> = BTreeMap::new();
        let mut next = 0;
        let mut in_flight = JoinSet::new();
        let limit = self.cfg.config.llm.concurrency;
        let mut fatal = None;
        let mut unreachable = false;
        let shutdown = shutdown_signal();
        tokio::pin!(shutdown);
        loop {
            // Commit first: the requests built next then know the newest facts.
            self.commit_ready(&mut ready, &mut next, progress);
            // Finished answers waiting behind a slow older one count against the limit
            // too (twice over): a stuck request must not pile up paid, uncommitted work.
            while fatal.is_none()
                && !unreachable
                && !self.report.interrupted
                && in_flight.len() < limit
                && in_flight.len() + ready.len() < 2 * limit
            {
                let Some((n, job)) = queue.next() else { break };
                match self.requests(&job) {
                    Ok((requests, date)) => {
                        let provider = Arc::clone(provider);
                        in_flight
                            .spawn(async move { (n, extract_chunks(&provider, requests).await) });
                        waiting.insert(n, (job, date));
                    }
                    Err(e) => {
                        self.fail(&job.path, e);
                        progress.advance(&job.path, false);
                        ready.insert(n, None);
                    }
                }
            }
            let joined = tokio::select! {
                biased;
                () = &mut shutdown, if !self.report.interrupted => {
                    // Stop asking; what is committed stays, the rest waits for the next run.
                    progress.warn("interrupted: finishing what is committed, the rest waits for the next run");
                    self.report.interrupted = true;
                    in_flight.abort_all();
                    continue;
                }
                joined = in_flight.join_next() => joined,
            };
            let Some(joined) = joined else { break };
            let (n, result) = match joined {
                Ok(done) => done,
                // Aborted after a fatal error or a signal: that transcript stays pending.
                Err(e) if e.is_cancelled() => continue,
                Err(e) => {
                    self.flush(ready, progress);
                    return Err(anyhow::anyhow!("an extraction task panicked: {e}").into());
                }
            };
            let Some((job, date)) = waiting.remove(&n) else {
                continue;
            };
            match result {
                Ok(extraction) => {
                    ready.insert(n, Some((job, date, extraction)));
                    continue;
                }
                Err(e) if e.is_fatal() || is_missing(&e) => {
                    in_flight.abort_all();
                    fatal = Some(e);
                }
                // Retries are spent and the server is not there: every other transcript
                // would wait through the same schedule, so the run stops here.
                // Other requests that were already under way when the server went missing
                // simply wait for the next run.
                Err(LlmError::Unreachable(_)) if unreachable => {}
                Err(e @ LlmError::Unreachable(_)) => {
                    in_flight.abort_all();
                    self.fail(&job.path, e.to_string());
                    progress.advance(&job.path, false);
                    self.report.failures.push(Failure {
                        path: self.cfg.llm.base_url.clone(),
                        error: "the provider could not be reached: the remaining transcripts wait for the next run".into(),
                    });
                    unreachable = true;
                }
                Err(e) => {
                    self.fail(&job.path, e.to_string());
                    progress.advance(&job.path, false);
                }
            }
            ready.insert(n, None);
        }
        self.flush(ready, progress);
        // What neither committed nor failed (stopped by a signal or a fatal error) waits.
        let settled = self.report.transcripts.processed + self.report.transcripts.failed;
        self.report.transcripts.deferred += total.saturating_sub(settled - settled_before);
        progress.finish();
        match fatal {
            Some(e) if is_missing(&e) => Err(RunError::Usage(format!(
                "{e}: the provider has no such model or endpoint; check MEMLOOP_MODEL / [llm] model ({}) and the base URL ({})",
                self.cfg.llm.model, self.cfg.llm.base_url
            ))),
            Some(e) => Err(RunError::Provider(e)),
            None => Ok(()),
        }
    }

    /// Commits whatever finished, in order, even past a transcript that was stopped: it was
    /// paid for.
    fn flush(
        &mut self,
        ready: BTreeMap<usize, Option<(Job, String, Extraction)>>,
        progress: &dyn Progress,
    ) {
        for (job, date, extraction) in ready.into_values().flatten() {
            self.commit_one(&job, &date, extraction, progress);
        }
    }

    /// Commits the finished extractions that are next in queue order.
    fn commit_ready(
        &mut self,
        ready: &mut BTreeMap<usize, Option<(Job, String, Extraction)>>,
        next: &mut usize,
        progress: &dyn Progress,
    ) {
        while let Some(entry) = ready.remove(next) {
            if let Some((job, date, extraction)) = entry {
                self.commit_one(&job, &date, extraction, progress);
            }
            *next += 1;
        }
    }

    fn commit_one(
        &mut self,
        job: &Job,
        date: &str,
        extraction: Extraction,
        progress: &dyn Progress,
    ) {
        let ok = match self.commit(job, date, extraction) {
            Ok(()) => true,
            Err(e) => {
                self.fail(&job.path, format!("{e:#}"));
                false
            }
        };
        progress.advance(&job.path, ok);
    }

    /// Merges one transcript's facts, writes the files they change, then marks it done.
    fn commit(&mut self, job: &Job, date: &str, extraction: Extraction) -> Result<()> {
        self.report.tokens.input += extraction.usage.input_tokens;
        self.report.tokens.output += extraction.usage.output_tokens;
        self.report.facts.extracted += extraction.facts.len();
        let source = Source {
            transcript: job.path.display().to_string(),
            date: date.to_owned(),
        };
        let vault_name = self.vaults[job.vault].name.clone();
        let fact_count = extraction.facts.len();
        let mut index = std::mem::take(&mut self.index);
        let mut counts = self.report.facts.clone();
        let categories = self.prompt.categories.clone();
        let review = self.cfg.config.memory.review;
        let merged = self.ledger.transaction(|l| {
            for c in extraction.facts {
                merge_candidate(
                    l,
                    &mut index,
                    c,
                    &vault_name,
                    &source,
                    &categories,
                    review,
                    &mut counts,
                )?;
            }
            Ok(())
        });
        self.index = index;
        if let Err(e) = merged {
            self.rebuild_index()?;
            return Err(e);
        }
        // Reinforcement alone rarely changes a file; the run's last sync renders everything.
        let changed = counts.new != self.report.facts.new
            || counts.replaced != self.report.facts.replaced
            || (counts.merged != self.report.facts.merged && self.cap_binds);
        self.report.facts = counts;
        if changed {
            self.sync(Target::Memory)?;
            self.sync(Target::Vault(job.vault))?;
        }
        let row = TranscriptRow {
            path: source.transcript.clone(),
            vault: vault_name,
            size: job.size,
            mtime_ns: job.mtime_ns,
            sha256: job.sha256.clone(),
            prompt_hash: self.prompt.hash(),
            model: self.cfg.llm.model.clone(),
            processed_at: chrono::Local::now().to_rfc3339(),
            fact_count: i64::try_from(fact_count).unwrap_or(i64::MAX),
        };
        self.ledger.transaction(|l| l.mark_transcript(&row))?;
        self.report.transcripts.processed += 1;
        Ok(())
    }

    fn rebuild_index(&mut self) -> Result<()> {
        self.index = index_of(&self.ledger)?;
        Ok(())
    }

    fn finish(&mut self, started: Instant, started_at: &str) -> Result<()> {
        self.report.cost_usd = llm::cost::estimate_usd(
            &self.cfg.llm.model,
            llm::Usage {
                input_tokens: self.report.tokens.input,
                output_tokens: self.report.tokens.output,
            },
        );
        self.report.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        if self.opts.dry_run {
            let mut changes: Vec<Change> = self
                .overlay
                .iter()
                .map(|(path, bytes)| {
                    let after = String::from_utf8_lossy(bytes);
                    let after = match fence::inner(bytes) {
                        Ok(Some(inner)) if path.file_name() == Some("CLAUDE.md".as_ref()) => inner,
                        _ => after.into_owned(),
                    };
                    let before = self
                        .originals
                        .get(path)
                        .cloned()
                        .flatten()
                        .unwrap_or_default();
                    bullet_change(path, &before, &after)
                })
                .filter(|c| !c.added.is_empty() || !c.removed.is_empty())
                .collect();
            changes.sort_by(|a, b| a.path.cmp(&b.path));
            self.report.changes = changes;
            return Ok(());
        }
        let json =
            serde_json::to_string(&self.report).context("could not encode the run report")?;
        let finished_at = chrono::Local::now().to_rfc3339();
        self.ledger
            .transaction(|l| l.record_run(started_at, &finished_at, &json))
    }
}

/// Every fact the ledger knows, whatever its status, indexed for matching.
fn index_of(ledger: &Ledger) -> Result<FactIndex> {
    let mut index = FactIndex::new();
    for f in ledger.facts(&crate::ledger::ALL_STATUSES)? {
        index.insert(f.id, &f.text, f.scope, f.vault.as_deref());
    }
    Ok(index)
}

/// A 404: the model or the endpoint does not exist, for every transcript alike.
fn is_missing(e: &LlmError) -> bool {
    matches!(e, LlmError::Http { status: 404, .. })
}

/// Resolves on Ctrl-C or SIGTERM (what systemd and launchd send to stop a job).
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

async fn extract_chunks(
    provider: &Provider,
    requests: Vec<ExtractRequest>,
) -> Result<Extraction, LlmError> {
    let mut all = Extraction::default();
    for request in &requests {
        let e = provider.extract(request).await?;
        all.facts.extend(e.facts);
        all.usage.input_tokens += e.usage.input_tokens;
        all.usage.output_tokens += e.usage.output_tokens;
    }
    Ok(all)
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
