//! A generated corpus of Claude Code sessions (`~/.claude/projects/<encoded-cwd>/<id>.jsonl`)
//! shaped on the real ones in `fixtures/claude-code/`: a file-history snapshot, then
//! exchanges in which the person types a request, the assistant thinks, calls a tool whose
//! result carries a file's worth of output, and answers, with progress records between.
//! Deterministic (a seeded xorshift), mtimes backdated past the settle time. It also
//! appends one exchange to a session, as a session used again the next day grows.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};
use serde_json::{Value, json};

/// What was generated.
pub struct Sessions {
    pub projects: usize,
    pub files: Vec<PathBuf>,
    pub bytes: u64,
}

use super::rng::Rng;

const ASKS: &[&str] = &[
    "the integration tests fail on CI but pass locally, can you look?",
    "add a --json flag to the status command",
    "I prefer small pull requests, so split this into two commits",
    "why is the build so slow on the 2-core runner?",
    "rename the config key and keep the old one working for a release",
    "I'm on call this week so keep the change minimal",
    "write a migration for the new column and test it from the previous version",
    "the parser panics on an empty line at the end of the file",
];

const SAYS: &[&str] = &[
    "I found the cause: the fixture path is relative to the working directory.",
    "Done. The flag prints the same fields as the text output.",
    "The build spends most of its time compiling the bundled SQLite.",
    "I kept the old key as an alias and added a deprecation warning.",
];

/// One project's working directory.
pub fn project_cwd(p: usize) -> PathBuf {
    PathBuf::from(format!("/home/dev/code/project-{p:02}"))
}

/// Claude Code's directory name for a working directory.
pub fn encode(cwd: &Path) -> String {
    cwd.display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// A session's records, written as Claude Code writes them.
struct Writer<'a> {
    rng: &'a mut Rng,
    cwd: String,
    id: String,
    parent: Option<String>,
    n: usize,
    out: String,
}

impl Writer<'_> {
    fn record(&mut self, kind: &str, extra: Value) {
        self.n += 1;
        let uuid = format!("{}-{:06}", &self.id[..8], self.n);
        let mut r = json!({
            "parentUuid": self.parent, "isSidechain": false, "userType": "external",
            "cwd": self.cwd, "sessionId": self.id, "version": "2.1.38", "gitBranch": "main",
            "type": kind, "uuid": uuid,
            "timestamp": format!("2026-11-{:02}T{:02}:{:02}:00.000Z", 1 + self.n % 28, self.n % 24, self.n % 60),
        });
        if let (Some(r), Some(e)) = (r.as_object_mut(), extra.as_object()) {
            r.extend(e.clone());
        }
        self.out.push_str(&r.to_string());
        self.out.push('\n');
        self.parent = Some(uuid);
    }

    fn exchange(&mut self) {
        let ask = ASKS[self.rng.below(ASKS.len())];
        self.record("user", json!({"message": {"role": "user", "content": ask}}));
        let msg = format!("msg_{:016x}", self.rng.next());
        self.record(
            "assistant",
            json!({"message": {"id": msg, "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "thinking", "thinking": "Let me look at the relevant files first and check what the tests do before changing anything.", "signature": "x"}]}}),
        );
        let tool = format!("toolu_{:016x}", self.rng.next());
        self.record(
            "assistant",
            json!({"message": {"id": msg, "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": tool, "name": "Read",
                             "input": {"file_path": format!("{}/src/lib.rs", self.cwd)}}]}}),
        );
        self.record(
            "progress",
            json!({"data": {"type": "hook_progress", "hookEvent": "PostToolUse"}, "toolUseID": tool}),
        );
        let lines = 40 + self.rng.below(120);
        let file: String = (0..lines)
            .map(|i| format!("{i:>5}\tfn step_{i}(input: &str) -> Result<Output> {{ parse(input)?.check() }}\n"))
            .collect();
        self.record(
            "user",
            json!({"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool, "content": file}]},
                   "toolUseResult": {"type": "text", "file": {"numLines": lines}}}),
        );
        let say = SAYS[self.rng.below(SAYS.len())];
        let reply = format!("msg_{:016x}", self.rng.next());
        self.record(
            "assistant",
            json!({"message": {"id": reply, "role": "assistant",
                "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": say}]}}),
        );
    }
}

/// Writes `projects` projects of `per_project` sessions each under `projects_dir`.
pub fn generate(
    projects_dir: &Path,
    projects: usize,
    per_project: usize,
    seed: u64,
) -> Result<Sessions> {
    let mut rng = Rng(seed | 1);
    let mut files = Vec::new();
    let mut bytes = 0;
    let old = SystemTime::now() - std::time::Duration::from_secs(3600);
    for p in 0..projects {
        let cwd = project_cwd(p);
        let dir = projects_dir.join(encode(&cwd));
        fs::create_dir_all(&dir)?;
        for s in 0..per_project {
            let id = format!(
                "{:08x}-0000-4000-8000-{:012x}",
                rng.next() as u32,
                p * 1000 + s
            );
            let mut w = Writer {
                rng: &mut rng,
                cwd: cwd.display().to_string(),
                id: id.clone(),
                parent: None,
                n: 0,
                out: String::new(),
            };
            w.out.push_str(
                "{\"type\":\"file-history-snapshot\",\"messageId\":\"m\",\"snapshot\":{\"trackedFileBackups\":{}},\"isSnapshotUpdate\":false}\n",
            );
            let exchanges = 3 + w.rng.below(10);
            for _ in 0..exchanges {
                w.exchange();
            }
            let path = dir.join(format!("{id}.jsonl"));
            fs::write(&path, &w.out)?;
            bytes += w.out.len() as u64;
            fs::File::options()
                .write(true)
                .open(&path)?
                .set_modified(old)?;
            files.push(path);
        }
    }
    Ok(Sessions {
        projects,
        files,
        bytes,
    })
}

/// Appends one exchange to a session, as the next day's work does; returns the bytes
/// appended.
pub fn append_exchange(path: &Path, seed: u64) -> Result<u64> {
    let text = fs::read_to_string(path).with_context(|| format!("read {}", path.display()))?;
    let last: Value = serde_json::from_str(text.lines().last().context("an empty session")?)?;
    let mut rng = Rng(seed | 1);
    let mut w = Writer {
        rng: &mut rng,
        cwd: last["cwd"].as_str().unwrap_or_default().to_owned(),
        id: last["sessionId"].as_str().unwrap_or_default().to_owned(),
        parent: last["uuid"].as_str().map(str::to_owned),
        n: text.lines().count() + 1,
        out: String::new(),
    };
    w.exchange();
    let mut f = fs::File::options().append(true).open(path)?;
    f.write_all(w.out.as_bytes())?;
    f.set_modified(SystemTime::now() - std::time::Duration::from_secs(3600))?;
    Ok(w.out.len() as u64)
}
