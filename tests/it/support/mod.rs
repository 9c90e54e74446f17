//! The integration tests' world: a [`TestEnv`] is a temp directory with its own HOME,
//! XDG directories and `VAULTS_DIR`, a copy of the fixture vaults (transcripts backdated
//! past the settle time), and a `memloop` command that sees nothing of the real machine's
//! environment. Plus small readers for what memloop writes (memory.md sections, the
//! insights block, the `--json` report) so tests can assert exact values.
//!
//! It never touches the real `$HOME` or the network; the LLM is the loopback [`mock`].

pub mod mock;

/// What `fixtures/vaults` holds, so tests name facts and files instead of repeating text.
pub mod fixture {
    /// alpha's first transcript (2025-06-12): [`DIRECT`] and [`LANTERNFISH`].
    pub const ALPHA_1: &str = "2025-06-12-0914-lanternfish-index-storage.md";
    /// alpha's second transcript (2025-06-14): [`SEARCH_INFRA`] and [`CAFE`].
    pub const ALPHA_2: &str = "2025-06-14-1640-cli-rewrite.md";
    /// beta's transcript (2025-06-20): [`HERON_GOAL`] and [`POSTGRES`].
    pub const BETA_1: &str = "2025-06-20-2105-heron-cutover.md";

    /// Global, Identity.
    pub const SEARCH_INFRA: &str = "Works on search infrastructure at a mid-sized startup.";
    /// Global, Goals.
    pub const HERON_GOAL: &str = "Wants to finish the Heron migration before the August freeze.";
    /// Global, Preferences.
    pub const DIRECT: &str = "Prefers direct answers without hedging.";
    /// Global, Patterns (has a precomposed `é`).
    pub const CAFE: &str = "Drafts design notes at the café before standup.";
    /// alpha's vault fact.
    pub const LANTERNFISH: &str =
        "Lanternfish keeps its indexes in object storage, not on local disk.";
    /// beta's vault fact.
    pub const POSTGRES: &str = "Heron's staging database runs Postgres 16 behind PgBouncer.";
    /// In `not-a-vault/` and `.hidden-vault/` transcripts only: must never be sent.
    pub const NOT_A_VAULT: &str = "NOT-A-VAULT";
    /// See [`NOT_A_VAULT`].
    pub const HIDDEN_VAULT: &str = "HIDDEN-VAULT";

    /// The global facts of the three fixture transcripts, in the default category order.
    pub const GLOBAL: [(&str, &str); 4] = [
        ("Identity", SEARCH_INFRA),
        ("Goals", HERON_GOAL),
        ("Preferences", DIRECT),
        ("Patterns", CAFE),
    ];
}

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

use mock::Mock;

/// How far back fixture transcripts are dated: well past the default 10-minute settle time.
const BACKDATE: Duration = Duration::from_secs(60 * 60);
/// No test may wait forever on a stuck binary.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// The default `memory.max_bytes`.
pub const DEFAULT_MAX_BYTES: u64 = 51_200;

/// A sandboxed HOME + vaults directory, removed when dropped.
pub struct TestEnv {
    _dir: TempDir,
    root: PathBuf,
}

impl TestEnv {
    /// An empty sandbox: `home/` and `vaults/`, no vault yet.
    pub fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("memloop-it-")
            .tempdir()
            .expect("create temp dir");
        // Canonical, so paths memloop prints compare equal to ours (macOS /var -> /private/var).
        let root = dir.path().canonicalize().expect("canonicalize temp dir");
        fs::create_dir_all(root.join("home")).expect("create home");
        fs::create_dir_all(root.join("vaults")).expect("create vaults");
        Self { _dir: dir, root }
    }

    /// A sandbox holding a copy of `fixtures/vaults`.
    pub fn with_fixtures() -> Self {
        let env = Self::new();
        env.copy_fixture_vaults();
        env
    }

    /// The sandbox's root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The sandbox's HOME.
    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    /// The sandbox's `VAULTS_DIR`.
    pub fn vaults(&self) -> PathBuf {
        self.root.join("vaults")
    }

    /// `$XDG_STATE_HOME/memory-loop`: the ledger and the lock.
    pub fn state_dir(&self) -> PathBuf {
        self.home().join(".local/state/memory-loop")
    }

    /// `$XDG_CONFIG_HOME/memory-loop`.
    pub fn config_dir(&self) -> PathBuf {
        self.home().join(".config/memory-loop")
    }

    /// The real `memloop` binary with a cleared environment: only PATH, the sandbox's HOME,
    /// XDG dirs and `VAULTS_DIR`, `NO_COLOR=1` and a 10 ms retry base.
    pub fn cmd(&self) -> Command {
        let mut cmd = Command::from_std(self.process());
        cmd.timeout(COMMAND_TIMEOUT);
        cmd
    }

    /// [`Self::cmd`] as a plain `std::process::Command`, for a test that spawns the binary
    /// and acts on it while it runs (kills it). The caller bounds every wait.
    pub fn process(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_memloop"));
        cmd.env_clear()
            .current_dir(&self.root)
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .env("XDG_STATE_HOME", self.home().join(".local/state"))
            .env("VAULTS_DIR", self.vaults())
            .env("NO_COLOR", "1")
            .env("MEMLOOP_RETRY_BASE_MS", "10");
        if let Some(path) = std::env::var_os("PATH") {
            cmd.env("PATH", path);
        }
        cmd
    }

    /// `memloop extract --json ARGS` against the mock's Anthropic endpoint; asserts the
    /// exit code and returns the report.
    pub fn extract(&self, mock: &Mock, args: &[&str], code: i32) -> Value {
        self.extract_via(&anthropic(mock), args, code)
    }

    /// `memloop extract --json ARGS` with these provider variables (see [`anthropic`],
    /// [`openai`]); asserts the exit code and returns the report.
    pub fn extract_via(&self, provider: &[(&str, String)], args: &[&str], code: i32) -> Value {
        self.extract_within(provider, args, code, COMMAND_TIMEOUT)
    }

    /// [`Self::extract_via`] with its own time limit, for a run over far more text than a
    /// test's usual few transcripts (an evaluation), which a loaded machine may take
    /// minutes over in a debug build.
    pub fn extract_within(
        &self,
        provider: &[(&str, String)],
        args: &[&str],
        code: i32,
        limit: Duration,
    ) -> Value {
        let assert = self
            .cmd()
            .timeout(limit)
            .envs(provider.iter().map(|(k, v)| (*k, v)))
            .args(["extract", "--json"])
            .args(args)
            .assert()
            .code(code);
        report(assert.get_output())
    }

    /// Copies every directory of `fixtures/vaults` into `vaults/`, transcripts backdated.
    pub fn copy_fixture_vaults(&self) {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vaults");
        for entry in fs::read_dir(&fixtures).expect("read fixtures/vaults") {
            let entry = entry.expect("fixture entry");
            if entry.file_type().expect("fixture type").is_dir() {
                copy_dir(&entry.path(), &self.vaults().join(entry.file_name()));
            }
        }
        for file in files_under(&self.vaults()) {
            if file.extension().is_some_and(|e| e == "md")
                && file.parent().is_some_and(|p| p.ends_with("chats"))
            {
                backdate(&file);
            }
        }
    }

    /// `memloop memory show --json`, with `--archived` (archived and forgotten facts too)
    /// when asked; asserts success.
    pub fn show_json(&self, archived: bool) -> Value {
        let mut cmd = self.cmd();
        cmd.args(["memory", "show", "--json"]);
        if archived {
            cmd.arg("--archived");
        }
        report(cmd.assert().code(0).get_output())
    }

    /// Holds the run lock as another memloop run would, until the returned file is dropped.
    pub fn hold_lock(&self) -> File {
        fs::create_dir_all(self.state_dir()).expect("create state dir");
        let lock = File::options()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(self.state_dir().join("memloop.lock"))
            .expect("open lock file");
        lock.lock().expect("hold the lock");
        lock
    }

    /// Creates `vaults/NAME/CLAUDE.md` with a short user-written body.
    pub fn create_vault(&self, name: &str) -> PathBuf {
        let vault = self.vaults().join(name);
        fs::create_dir_all(&vault).expect("create vault");
        fs::write(
            vault.join("CLAUDE.md"),
            format!("# {name}\n\nNotes vault used by one test.\n"),
        )
        .expect("write CLAUDE.md");
        vault
    }

    /// The vault's `chats/` directory, honouring its `.memory-loop.json`.
    pub fn chats_dir(&self, vault: &str) -> PathBuf {
        let vault = self.vaults().join(vault);
        let settings: Value = fs::read_to_string(vault.join(".memory-loop.json"))
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or(Value::Null);
        let root = settings["contentRoot"].as_str().unwrap_or("");
        let inbox = settings["inboxPath"].as_str().unwrap_or("00_Inbox");
        vault.join(root).join(inbox).join("chats")
    }

    /// Writes a transcript into the vault's inbox, backdated past the settle time.
    pub fn add_transcript(&self, vault: &str, name: &str, text: &str) -> PathBuf {
        self.add_transcript_bytes(vault, name, text.as_bytes())
    }

    /// [`Self::add_transcript`] with raw bytes (non-UTF-8, NULs, empty).
    pub fn add_transcript_bytes(&self, vault: &str, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.add_fresh_transcript(vault, name, bytes);
        backdate(&path);
        path
    }

    /// Writes a transcript with the current mtime: still inside the settle window.
    pub fn add_fresh_transcript(&self, vault: &str, name: &str, bytes: &[u8]) -> PathBuf {
        let dir = self.chats_dir(vault);
        fs::create_dir_all(&dir).expect("create chats dir");
        let path = dir.join(name);
        fs::write(&path, bytes).expect("write transcript");
        path
    }

    /// `home/.claude/projects`: where Claude Code keeps its sessions.
    pub fn claude_projects(&self) -> PathBuf {
        self.home().join(".claude/projects")
    }

    /// Claude Code's directory of the sessions held in `cwd` (each `/` and `.` a `-`).
    pub fn session_dir(&self, cwd: &Path) -> PathBuf {
        let encoded: String = cwd
            .display()
            .to_string()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        self.claude_projects().join(encoded)
    }

    /// Writes a Claude Code session held in `cwd`, backdated past the settle time.
    pub fn add_session(&self, cwd: &Path, id: &str, jsonl: &str) -> PathBuf {
        let dir = self.session_dir(cwd);
        fs::create_dir_all(&dir).expect("create session dir");
        let path = dir.join(format!("{id}.jsonl"));
        fs::write(&path, jsonl).expect("write session");
        backdate(&path);
        path
    }

    /// `home/.claude/rules/memory.md`.
    pub fn memory_path(&self) -> PathBuf {
        self.home().join(".claude/rules/memory.md")
    }

    /// The memory file's text.
    pub fn memory(&self) -> String {
        read(&self.memory_path())
    }

    /// `vaults/VAULT/CLAUDE.md`.
    pub fn claude_md(&self, vault: &str) -> PathBuf {
        self.vaults().join(vault).join("CLAUDE.md")
    }

    /// Writes the config file and returns its path.
    pub fn config(&self, toml: &str) -> PathBuf {
        let path = self.config_dir().join("config.toml");
        write_file(&path, toml.as_bytes());
        path
    }

    /// Writes the extraction prompt override and returns its path.
    pub fn prompt(&self, text: &str) -> PathBuf {
        let path = self.config_dir().join("extraction-prompt.md");
        write_file(&path, text.as_bytes());
        path
    }

    /// Every file under `home/` and `vaults/` with its bytes and mtime.
    pub fn snapshot_tree(&self) -> Tree {
        let mut files = BTreeMap::new();
        for top in [self.home(), self.vaults()] {
            for path in files_under(&top) {
                let bytes = fs::read(&path).expect("read file for snapshot");
                let mtime = fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .expect("mtime for snapshot");
                let rel = path
                    .strip_prefix(&self.root)
                    .expect("under root")
                    .to_path_buf();
                files.insert(rel, (bytes, mtime));
            }
        }
        Tree(files)
    }

    /// `text` with the sandbox's path replaced by `[TMP]`, for snapshots.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.root.display().to_string(), "[TMP]")
    }
}

/// Files (relative to the sandbox root) with their bytes and mtimes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree(BTreeMap<PathBuf, (Vec<u8>, SystemTime)>);

impl Tree {
    /// The same tree without the files under `prefix` (relative to the sandbox root).
    pub fn without(&self, prefix: &str) -> Self {
        Self(
            self.0
                .iter()
                .filter(|(path, _)| !path.starts_with(prefix))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    /// Only the files under `prefix` (relative to the sandbox root).
    pub fn only(&self, prefix: &str) -> Self {
        Self(
            self.0
                .iter()
                .filter(|(path, _)| path.starts_with(prefix))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    /// Panics listing every file created, removed, rewritten or touched since `before`.
    pub fn assert_unchanged_since(&self, before: &Self) {
        let changes = self.changes_since(before);
        assert!(changes.is_empty(), "files changed:\n{}", changes.join("\n"));
    }

    /// Every file created, removed, rewritten or touched since `before`, one line each.
    pub fn changes_since(&self, before: &Self) -> Vec<String> {
        let mut changes = Vec::new();
        for (path, (bytes, mtime)) in &before.0 {
            match self.0.get(path) {
                None => changes.push(format!("removed {}", path.display())),
                Some((b, _)) if b != bytes => changes.push(format!("rewritten {}", path.display())),
                Some((_, m)) if m != mtime => changes.push(format!("touched {}", path.display())),
                Some(_) => {}
            }
        }
        for path in self.0.keys().filter(|p| !before.0.contains_key(*p)) {
            changes.push(format!("created {}", path.display()));
        }
        changes
    }
}

/// The env pairs that point memloop at the mock's Anthropic endpoint.
pub fn anthropic(mock: &Mock) -> [(&'static str, String); 3] {
    [
        ("ANTHROPIC_BASE_URL", mock.url()),
        ("ANTHROPIC_API_KEY", "test-key".to_owned()),
        ("MEMLOOP_PROVIDER", "anthropic".to_owned()),
    ]
}

/// The env pairs that point memloop at the mock's OpenAI-compatible endpoint.
pub fn openai(mock: &Mock) -> [(&'static str, String); 3] {
    [
        ("OPENAI_BASE_URL", format!("{}/v1", mock.url())),
        ("OPENAI_API_KEY", "test-key".to_owned()),
        ("MEMLOOP_PROVIDER", "openai".to_owned()),
    ]
}

/// A file's text; panics naming the path.
pub fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A file's bytes; panics naming the path.
/// Files under `dir` whose bytes hold `needle`, transcripts (the user's) left out.
pub fn holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    files_under(dir)
        .into_iter()
        .filter(|p| !p.parent().is_some_and(|d| d.ends_with("chats")))
        .filter(|p| {
            read_bytes(p)
                .windows(needle.len())
                .any(|w| w == needle.as_bytes())
        })
        .collect()
}

pub fn read_bytes(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Writes a file, creating its directory.
pub fn write_file(path: &Path, bytes: &[u8]) {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).expect("create parent dir");
    }
    fs::write(path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Stdout parsed as the one JSON object `--json` promises.
pub fn report(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON object ({e}):\n--- stdout\n{}\n--- stderr\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The one fact in a `memory show --json` answer with exactly this text.
pub fn find_fact<'a>(show: &'a Value, text: &str) -> &'a Value {
    let matches: Vec<&Value> = show["facts"]
        .as_array()
        .expect("facts array")
        .iter()
        .filter(|f| f["text"] == text)
        .collect();
    assert_eq!(matches.len(), 1, "exactly one fact {text:?} in {show}");
    matches[0]
}

/// A bullet's words without the ` (as of YYYY-MM)` memloop puts after a fact last confirmed
/// long before the newest one (the tests that are about it read the file itself).
pub fn without_as_of(bullet: &str) -> &str {
    match bullet.rfind(" (as of ") {
        Some(at)
            if bullet.len() == at + " (as of YYYY-MM)".len()
                && bullet.ends_with(')')
                && bullet[at + 8..at + 15].bytes().enumerate().all(|(i, b)| {
                    if i == 4 {
                        b == b'-'
                    } else {
                        b.is_ascii_digit()
                    }
                }) =>
        {
            &bullet[..at]
        }
        _ => bullet,
    }
}

/// The file with [`without_as_of`] applied to each `- ` bullet: for the tests whose fixtures
/// span months and that are about something else.
pub fn plain(markdown: &str) -> String {
    markdown
        .split_inclusive('\n')
        .map(|line| {
            let (body, end) = match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, ""),
            };
            if body.starts_with("- ") {
                format!("{}{end}", without_as_of(body))
            } else {
                line.to_owned()
            }
        })
        .collect()
}

/// The `## Heading`s of a markdown file with the `- ` bullets under each (their words, see
/// [`without_as_of`]), in file order.
pub fn sections(markdown: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in markdown.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(heading) = line.strip_prefix("## ") {
            out.push((heading.to_owned(), Vec::new()));
        } else if let (Some(bullet), Some((_, bullets))) = (line.strip_prefix("- "), out.last_mut())
        {
            bullets.push(without_as_of(bullet).to_owned());
        }
    }
    out
}

/// The bullets under `## heading`, empty when there is no such heading.
pub fn section(markdown: &str, heading: &str) -> Vec<String> {
    sections(markdown)
        .into_iter()
        .find(|(h, _)| h == heading)
        .map(|(_, b)| b)
        .unwrap_or_default()
}

/// Every `- ` bullet in the file.
pub fn bullets(markdown: &str) -> Vec<String> {
    sections(markdown)
        .into_iter()
        .flat_map(|(_, b)| b)
        .collect()
}

/// The insights block, begin and end marker lines included, if the file has one.
pub fn insights_block(text: &str) -> Option<&str> {
    let start = text.find(BEGIN)?;
    let end = text[start..].find(END)? + start + END.len();
    Some(&text[start..end])
}

/// The line that opens memloop's block in a `CLAUDE.md`.
pub const BEGIN: &str = "<!-- memory-loop:insights:begin -->";
/// The line that closes memloop's block in a `CLAUDE.md`.
pub const END: &str = "<!-- memory-loop:insights:end -->";

/// The requests the mock received whose transcript mentions `needle`.
pub fn sent_with(mock: &Mock, needle: &str) -> usize {
    mock.requests()
        .iter()
        .filter(|r| r.user_text().contains(needle))
        .count()
}

/// The requests whose fenced transcript mentions `needle`: unlike [`sent_with`], a fact
/// listed among the known facts before the transcript does not count.
pub fn transcript_sent_with(mock: &Mock, needle: &str) -> usize {
    mock.requests()
        .iter()
        .filter(|r| {
            r.user_text()
                .split_once("<transcript")
                .is_some_and(|(_, fenced)| fenced.contains(needle))
        })
        .count()
}

/// A Memory Loop transcript with one user turn holding `user` and a short answer.
pub fn transcript(date: &str, time: &str, title: &str, user: &str) -> String {
    format!(
        "---\ndate: {date}\ntime: \"{time}\"\nsession_id: it-{date}-{}\ntitle: {title}\n---\n\n\
         # Discussion - {date} {time}\n\n## [{time}] User\n\n{user}\n\n## [{time}] Assistant\n\n\
         Noted. I'll keep that in mind.\n",
        time.replace(':', "")
    )
}

fn backdate(path: &Path) {
    set_age(path, BACKDATE);
}

/// Sets a file's mtime to `age` ago, so tests can order transcripts by age.
pub fn set_age(path: &Path, age: Duration) {
    let file = File::options()
        .write(true)
        .open(path)
        .unwrap_or_else(|e| panic!("open {} to set its mtime: {e}", path.display()));
    file.set_modified(SystemTime::now() - age)
        .unwrap_or_else(|e| panic!("set the mtime of {}: {e}", path.display()));
}

/// Copies the directory `from` to `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("create copy dir");
    for entry in fs::read_dir(from).expect("read fixture dir") {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("fixture type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy fixture file");
        }
    }
}

/// Every file under `dir`, at any depth.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => out.extend(files_under(&path)),
            Ok(t) if t.is_file() => out.push(path),
            _ => {}
        }
    }
    out
}

/// The fixtures extracted once against a fresh mock: four global facts, one vault fact in
/// alpha and one in beta.
pub fn extracted() -> (TestEnv, Mock) {
    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    (env, mock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_vaults_are_copied_with_transcripts_backdated() {
        let env = TestEnv::with_fixtures();
        let mut dirs: Vec<String> = fs::read_dir(env.vaults())
            .expect("read vaults")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        dirs.sort();
        assert_eq!(dirs, [".hidden-vault", "alpha", "beta", "not-a-vault"]);
        assert_eq!(
            env.chats_dir("beta"),
            env.vaults().join("beta/notes/Inbox/chats")
        );
        let transcripts: Vec<PathBuf> = files_under(&env.vaults())
            .into_iter()
            .filter(|p| p.parent().is_some_and(|d| d.ends_with("chats")))
            .collect();
        assert_eq!(transcripts.len(), 5);
        let settled = SystemTime::now() - Duration::from_secs(50 * 60);
        for path in transcripts
            .iter()
            .chain([&env.add_transcript("alpha", "new.md", "hi")])
        {
            let mtime = fs::metadata(path)
                .and_then(|m| m.modified())
                .expect("mtime");
            assert!(mtime < settled, "{} is backdated", path.display());
        }
        let fresh = env.add_fresh_transcript("alpha", "fresh.md", b"hi");
        let mtime = fs::metadata(fresh)
            .and_then(|m| m.modified())
            .expect("mtime");
        assert!(mtime > settled);
    }

    #[test]
    fn a_tree_snapshot_sees_every_kind_of_change() {
        let env = TestEnv::new();
        let file = env.home().join("a.md");
        type Change = fn(&Path);
        let cases: [(&str, Change); 4] = [
            ("rewritten home/a.md", |p| {
                fs::write(p, b"two").expect("write")
            }),
            ("touched home/a.md", |p| {
                File::options()
                    .write(true)
                    .open(p)
                    .and_then(|f| f.set_modified(SystemTime::now()))
                    .expect("touch");
            }),
            ("removed home/a.md", |p| fs::remove_file(p).expect("remove")),
            ("created home/b.md", |p| {
                fs::write(p.with_file_name("b.md"), b"one").expect("create");
            }),
        ];
        for (expected, change) in cases {
            write_file(&file, b"one");
            backdate(&file);
            let _ = fs::remove_file(env.home().join("b.md"));
            let before = env.snapshot_tree();
            assert!(env.snapshot_tree().changes_since(&before).is_empty());
            change(&file);
            let after = env.snapshot_tree();
            assert_eq!(after.changes_since(&before), [expected]);
            assert!(
                after
                    .without("home")
                    .changes_since(&before.without("home"))
                    .is_empty()
            );
            assert_eq!(
                after.only("home").changes_since(&before.only("home")),
                [expected]
            );
        }
    }

    #[test]
    fn markdown_readers_find_sections_bullets_and_the_block() {
        let memory = "# Memory\n\n## Identity\r\n\r\n- One.\r\n- Two.\n\n## Goals\n\n- Three.\n";
        assert_eq!(
            sections(memory),
            [
                (
                    "Identity".to_owned(),
                    vec!["One.".to_owned(), "Two.".to_owned()]
                ),
                ("Goals".to_owned(), vec!["Three.".to_owned()]),
            ]
        );
        assert_eq!(section(memory, "Goals"), ["Three."]);
        assert!(section(memory, "Patterns").is_empty());
        assert_eq!(bullets(memory), ["One.", "Two.", "Three."]);
        let claude = format!("# Vault\n\n{BEGIN}\n## Memory Loop Insights\n\n- Fact.\n{END}\ntail");
        assert_eq!(
            insights_block(&claude),
            Some(format!("{BEGIN}\n## Memory Loop Insights\n\n- Fact.\n{END}").as_str())
        );
        assert_eq!(insights_block(&format!("{BEGIN}\n- Fact.\n")), None);
    }

    #[test]
    fn transcripts_are_in_memory_loop_format_and_redact_hides_the_sandbox() {
        let text = transcript(
            "2025-06-01",
            "08:05",
            "Title",
            "remember: Goals | global | X.",
        );
        assert!(
            text.starts_with("---\ndate: 2025-06-01\ntime: \"08:05\"\n"),
            "{text}"
        );
        assert!(text.contains("\n# Discussion - 2025-06-01 08:05\n\n## [08:05] User\n\nremember:"));
        let env = TestEnv::new();
        let shown = format!("wrote {}", env.memory_path().display());
        assert_eq!(
            env.redact(&shown),
            "wrote [TMP]/home/.claude/rules/memory.md"
        );
    }
}
