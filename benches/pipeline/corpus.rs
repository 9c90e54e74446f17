//! The bench's corpus generator: deterministic Memory Loop transcripts (a seeded xorshift,
//! no rand crate) with frontmatter, turns, tool-call blockquotes, code blocks, pasted logs
//! and first-person prose the builtin extractor can find, written round-robin over vaults
//! with mtimes backdated past the settle time. It measures nothing itself.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use chrono::{Days, NaiveDate};

use super::{BACKDATE, backdate};

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

pub struct Spec {
    pub vaults: usize,
    pub transcripts: usize,
    pub seed: u64,
    /// Append the mock's `remember:` lines for the facts a user turn states, so the echo
    /// LLM returns them.
    pub remember_lines: bool,
}

/// What bytes of a transcript are, for the composition figures.
#[derive(Clone, Copy)]
pub enum Kind {
    Structure,
    Tool,
    Code,
    Log,
    Prose,
}

#[derive(Default)]
pub struct Corpus {
    pub vaults: usize,
    pub files: usize,
    pub bytes: u64,
    pub chars: u64,
    pub largest: u64,
    pub by_kind: [u64; 5],
}

/// Writes `spec.transcripts` transcripts round-robin over `spec.vaults` vaults under `root`;
/// the newest is dated [`BACKDATE`] ago and each older one a minute before it.
pub fn generate(root: &Path, spec: &Spec) -> Result<Corpus> {
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
        let (name, text) = t.transcript(&date.format("%Y-%m-%d").to_string(), 0);
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

/// Writes one transcript of at least `bytes` bytes into a vault of its own under `root`
/// (one chat that went on for days); returns its size.
pub fn generate_long(root: &Path, bytes: usize, seed: u64) -> Result<u64> {
    let mut rng = Rng::new(seed);
    let vault = root.join(vault_name(0));
    let chats = vault.join("00_Inbox/chats");
    fs::create_dir_all(&chats)?;
    fs::write(vault.join("CLAUDE.md"), "# Long\n\nOne very long chat.\n")?;
    let mut t = Writer::new(&mut rng, vault_name(0), false);
    let (name, text) = t.transcript("2024-03-01", bytes);
    let path = chats.join(name);
    fs::write(&path, &text)?;
    backdate(&path, SystemTime::now() - BACKDATE)?;
    Ok(text.len() as u64)
}

const VAULT_NAMES: [&str; 20] = [
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
    "avocet",
    "bittern",
    "curlew",
    "dunlin",
    "egret",
    "fulmar",
    "godwit",
    "harrier",
];

pub fn vault_name(v: usize) -> &'static str {
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

    /// The file name and text of one transcript dated `date`, of at least `long` bytes.
    fn transcript(&mut self, date: &str, long: usize) -> (String, String) {
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
        // Most chats are short; a few go on for an hour; a `long` one goes on and on.
        let exchanges = if self.rng.chance(10) {
            self.rng.range(10, 24)
        } else {
            self.rng.range(2, 8)
        };
        let mut i = 0;
        while i < exchanges || self.text.len() < long {
            self.user_turn(if i == 0 { Some(&first_ask) } else { None });
            self.assistant_turn();
            i += 1;
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
