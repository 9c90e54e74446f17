//! No secret in a transcript ever leaves the machine or lands in a file memloop writes: one
//! credential of every kind `redact` knows is planted in user turns, assistant turns, a
//! tool-output blockquote and `remember:` lines, and a "model" that answers with raw
//! secrets in its facts is played too. Not one secret may reach the mock's request log,
//! memory.md, a CLAUDE.md, `memory show --json`, the run's output or the ledger's bytes.
//!
//! The secrets are generated at run time from fixed seeds, so no literal credential is in
//! the source.

use std::collections::BTreeSet;
use std::fs;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::mock::{Mock, Reply, anthropic_tool_use, openai_completion};
use crate::support::{TestEnv, anthropic, bullets, openai, read, report};

/// Every kind `memloop::redact` names.
const KINDS: [&str; 16] = [
    "private-key",
    "anthropic-api-key",
    "openai-api-key",
    "aws-access-key",
    "aws-secret-key",
    "github-token",
    "gitlab-token",
    "slack-webhook",
    "slack-token",
    "stripe-key",
    "google-api-key",
    "jwt",
    "url-password",
    "bearer-token",
    "password",
    "token",
];

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const UPPER32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const DIGITS: &str = "0123456789";

/// Marks the transcript whose answer the mock plays as a model leaking secrets.
const LEAKY: &str = "LEAKY-MODEL-TRANSCRIPT";
/// A clean fact, so each run is seen to write memory.md at all.
const CLEAN: &str = "Runs the billing platform team.";

use generate::chars_from;

/// One planted secret: the sentence carrying it, the secret, and its random part (whose
/// ends must not leak either, in case only part of the secret were redacted).
struct Plant {
    kind: &'static str,
    sentence: String,
    secret: String,
    core: String,
}

impl Plant {
    fn new(kind: &'static str, prefix: &str, core: String, before: &str, after: &str) -> Self {
        let secret = format!("{prefix}{core}");
        Self {
            kind,
            sentence: format!("{before}{secret}{after}"),
            secret,
            core,
        }
    }

    /// Substrings that must appear nowhere: the secret and both ends of its random part.
    fn needles(&self) -> Vec<String> {
        let chars: Vec<char> = self.core.chars().collect();
        let n = chars.len().min(12);
        vec![
            self.secret.clone(),
            chars[..n].iter().collect(),
            chars[chars.len() - n..].iter().collect(),
        ]
    }
}

fn plants() -> Vec<Plant> {
    let pem_kind = format!("{} {}", "RSA PRIVATE", "KEY");
    let pem_body: Vec<String> = (0..4).map(|i| chars_from(BASE64, 100 + i, 64)).collect();
    let pem = Plant {
        kind: "private-key",
        sentence: format!(
            "```\n-----BEGIN {pem_kind}-----\n{}\n-----END {pem_kind}-----\n```",
            pem_body.join("\n")
        ),
        secret: pem_body.join("\n"),
        core: pem_body.concat(),
    };
    let slack_hook = format!(
        "T{}/B{}/{}",
        chars_from(ALNUM, 8, 8),
        chars_from(ALNUM, 9, 8),
        chars_from(ALNUM, 10, 24)
    );
    let slack_token = format!(
        "{}-{}-{}",
        chars_from(DIGITS, 11, 12),
        chars_from(DIGITS, 12, 13),
        chars_from(ALNUM, 13, 24)
    );
    let jwt = format!(
        "{}.{}{}.{}",
        chars_from(URLSAFE, 14, 30),
        "eyJ",
        chars_from(URLSAFE, 15, 60),
        chars_from(URLSAFE, 16, 43)
    );
    vec![
        pem,
        Plant::new(
            "anthropic-api-key",
            "sk-ant-api03-",
            format!("{}AA", chars_from(URLSAFE, 1, 93)),
            "My Anthropic key is ",
            " for the nightly job.",
        ),
        Plant::new(
            "openai-api-key",
            "sk-proj-",
            format!("{}Xy9", chars_from(URLSAFE, 2, 74)),
            "I use the key ",
            " for the billing scripts.",
        ),
        Plant::new(
            "aws-access-key",
            "AKIA",
            chars_from(UPPER32, 3, 16),
            "The CI user is ",
            " in us-east-1.",
        ),
        Plant::new(
            "aws-secret-key",
            "",
            chars_from(BASE64, 4, 40),
            "aws_secret_access_key = ",
            "\n",
        ),
        Plant::new(
            "github-token",
            "ghp_",
            chars_from(ALNUM, 5, 36),
            "Pushing with ",
            " works now.",
        ),
        Plant::new(
            "gitlab-token",
            "gldt-",
            chars_from(URLSAFE, 6, 24),
            "Deploy with ",
            " today.",
        ),
        Plant::new(
            "slack-webhook",
            "https://hooks.slack.com/services/",
            slack_hook,
            "Alerts post to ",
            " every hour.",
        ),
        Plant::new(
            "slack-token",
            "xoxb-",
            slack_token,
            "The bot uses ",
            " for now.",
        ),
        Plant::new(
            "stripe-key",
            "sk_live_",
            chars_from(ALNUM, 17, 24),
            "Billing runs on ",
            " in production.",
        ),
        Plant::new(
            "google-api-key",
            "AIza",
            chars_from(URLSAFE, 18, 35),
            "Maps uses ",
            " in the app.",
        ),
        Plant::new("jwt", "eyJ", jwt, "The session cookie was ", " yesterday."),
        Plant::new(
            "url-password",
            "",
            chars_from(ALNUM, 19, 16),
            "Connect to postgres://admin:",
            "@db.internal:5432/app please.",
        ),
        Plant::new(
            "bearer-token",
            "",
            chars_from(ALNUM, 20, 40),
            "Authorization: Bearer ",
            "\n",
        ),
        Plant::new(
            "password",
            "",
            chars_from(ALNUM, 21, 14),
            "DB_PASSWORD=\"",
            "\" is in the env file.",
        ),
        Plant::new(
            "token",
            "",
            chars_from(ALNUM, 22, 32),
            "Run the CLI with --api-key ",
            " to list invoices.",
        ),
    ]
}

#[test]
fn every_kind_is_planted_and_recognised() {
    let plants = plants();
    let kinds: BTreeSet<&str> = plants.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, KINDS.into_iter().collect(), "one plant per kind");
    for plant in &plants {
        let found = memloop::redact::scan(&plant.sentence);
        assert_eq!(
            found.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            [plant.kind],
            "{:?}",
            plant.sentence
        );
        let redacted = memloop::redact::redact(&plant.sentence);
        for needle in plant.needles() {
            assert!(!redacted.contains(&needle), "{redacted}");
        }
    }
}

/// A transcript with every plant in ordinary text (user and assistant turns alternating),
/// all of them again in a tool-output blockquote, and `remember:` lines carrying secrets.
fn leaky_transcript(plants: &[Plant]) -> String {
    let (mut user, mut assistant) = (Vec::new(), Vec::new());
    for (i, plant) in plants.iter().enumerate() {
        if i % 2 == 0 {
            user.push(plant.sentence.clone());
        } else {
            assistant.push(plant.sentence.clone());
        }
    }
    let tool: Vec<String> = plants
        .iter()
        .flat_map(|p| {
            p.sentence
                .lines()
                .map(|l| format!("> {l}"))
                .collect::<Vec<_>>()
        })
        .collect();
    let by_kind = |kind: &str| {
        plants
            .iter()
            .find(|p| p.kind == kind)
            .map(|p| p.secret.clone())
            .unwrap_or_default()
    };
    format!(
        "---\ndate: 2025-07-01\ntime: \"09:00\"\nsession_id: it-secrets\ntitle: Secrets\n---\n\n\
         # Discussion - 2025-07-01 09:00\n\n## [09:00] User\n\n{}\n\n\
         remember: Identity | global | {CLEAN}\n\
         remember: Preferences | global | Deploys with the key {} from the laptop.\n\
         remember: Project Context | vault | Pushes releases with {} every Friday.\n\
         remember: Project Context | vault | The database lives at postgres://admin:{}@db.internal:5432/app today.\n\n\
         ## [09:01] Assistant\n\n{}\n\n> **Tool:** Bash\n{}\n\nDone.\n",
        user.join("\n\n"),
        by_kind("openai-api-key"),
        by_kind("github-token"),
        by_kind("url-password"),
        assistant.join("\n\n"),
        tool.join("\n"),
    )
}

/// What the leaky "model" answers: one fact per plant quoting the sentence that carries it
/// (a bare random string out of context is not recognisable as a secret, by anyone).
fn leaked_facts(plants: &[Plant]) -> Value {
    let facts: Vec<Value> = plants
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!({"category": "Preferences", "scope": if i % 2 == 0 { "global" } else { "vault" },
                   "text": format!("Noted: {}", p.sentence.trim()), "replaces": null})
        })
        .collect();
    json!({ "facts": facts })
}

fn assert_clean(place: &str, haystack: &[u8], plants: &[Plant]) {
    for plant in plants {
        for needle in plant.needles() {
            assert!(
                !haystack
                    .windows(needle.len())
                    .any(|w| w == needle.as_bytes()),
                "a {} secret reached {place}",
                plant.kind
            );
        }
    }
}

fn files_in(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default()
}

/// Runs one extraction of the leaky transcript through `provider` and checks every place a
/// secret could end up.
fn assert_no_secret_escapes(provider: &str) {
    let env = TestEnv::new();
    env.create_vault("gamma");
    let plants = plants();
    env.add_transcript(
        "gamma",
        "2025-07-01-0900-secrets.md",
        &leaky_transcript(&plants),
    );
    env.add_transcript(
        "gamma",
        "2025-07-02-0900-leaky-model.md",
        &format!("## [09:00] User\n\n{LEAKY}: nothing to remember here.\n"),
    );
    let mock = Mock::start();
    let leaked = leaked_facts(&plants);
    let answer = if provider == "anthropic" {
        anthropic_tool_use(&leaked, 100, 20)
    } else {
        openai_completion(&leaked.to_string())
    };
    mock.when(|r| r.user_text().contains(LEAKY), Reply::Raw(answer));
    let vars = if provider == "anthropic" {
        anthropic(&mock)
    } else {
        openai(&mock)
    };

    let output = env
        .cmd()
        .envs(vars)
        .args(["extract", "--json"])
        .assert()
        .code(0);

    let output = output.get_output();
    let run = report(output);
    assert_eq!(run["transcripts"]["processed"], 2, "{run}");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let sent = requests
        .iter()
        .find(|r| !r.user_text().contains(LEAKY))
        .expect("the secrets transcript was sent");
    for kind in KINDS {
        assert!(
            sent.user_text().contains(&format!("[REDACTED:{kind}]")),
            "{provider}: no [REDACTED:{kind}] in the request"
        );
    }
    for request in &requests {
        assert_clean("a request body", request.body.as_bytes(), &plants);
        assert_clean("a request's text", request.user_text().as_bytes(), &plants);
    }
    assert_clean("stdout", &output.stdout, &plants);
    assert_clean("stderr", &output.stderr, &plants);

    let memory = env.memory();
    assert!(bullets(&memory).iter().any(|b| b == CLEAN), "{memory}");
    assert_clean("memory.md", memory.as_bytes(), &plants);
    assert_clean(
        "CLAUDE.md",
        read(&env.claude_md("gamma")).as_bytes(),
        &plants,
    );
    let show = env
        .cmd()
        .args(["memory", "show", "--json", "--archived"])
        .assert()
        .code(0);
    let show = &show.get_output().stdout;
    assert!(
        String::from_utf8_lossy(show).contains(CLEAN),
        "memory show lists the facts"
    );
    assert_clean("memory show --json", show, &plants);
    let state = files_in(&env.state_dir());
    assert!(
        state.iter().any(|p| p.ends_with("ledger.sqlite3")),
        "{state:?}"
    );
    for file in state {
        let bytes = fs::read(&file).unwrap_or_default();
        assert_clean(&file.display().to_string(), &bytes, &plants);
    }
}

#[test]
fn no_secret_reaches_the_anthropic_request_or_any_file() {
    assert_no_secret_escapes("anthropic");
}

#[test]
fn no_secret_reaches_the_openai_request_or_any_file() {
    assert_no_secret_escapes("openai");
}

#[test]
fn the_builtin_extractor_writes_no_secret() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    let plants = plants();
    // First-person sentences of the kind the builtin turns into facts: a secret that is
    // recognisable on its own as the object, else the plant's sentence that gives it away.
    let sentences: Vec<String> = plants
        .iter()
        .filter(|p| !p.sentence.trim().contains('\n'))
        .map(|p| {
            let object = if memloop::redact::scan(&p.secret).is_empty() {
                p.sentence.trim().trim_end_matches('.')
            } else {
                p.secret.as_str()
            };
            format!("I always use {object} for the billing work.")
        })
        .chain(["I'm a staff engineer at Acme.".to_owned()])
        .collect();
    let categories = [
        "Identity",
        "Goals",
        "Preferences",
        "Project Context",
        "Patterns",
    ]
    .map(String::from)
    .to_vec();
    let raw: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let unredacted = memloop::llm::builtin::extract(&raw, &categories);
    let would_leak = plants
        .iter()
        .filter(|p| unredacted.iter().any(|f| f.text.contains(&p.secret)))
        .count();
    assert!(
        would_leak >= 10,
        "unredacted, the builtin would keep the secrets ({would_leak}): the test has teeth"
    );
    env.add_transcript(
        "gamma",
        "2025-07-03-0900-builtin.md",
        &crate::support::transcript("2025-07-03", "09:00", "Keys", &sentences.join(" ")),
    );

    let output = env
        .cmd()
        .env("MEMLOOP_PROVIDER", "builtin")
        .args(["extract", "--json"])
        .assert()
        .code(0);

    assert_eq!(report(output.get_output())["transcripts"]["processed"], 1);
    let memory = env.memory();
    assert!(
        bullets(&memory)
            .iter()
            .any(|b| b.contains("staff engineer at Acme")),
        "{memory}"
    );
    assert_clean("memory.md", memory.as_bytes(), &plants);
    for file in files_in(&env.state_dir()) {
        assert_clean(
            &file.display().to_string(),
            &fs::read(&file).unwrap_or_default(),
            &plants,
        );
    }
}

/// Secrets typed in plain sentences, named right before them with no `is` or `:`, that the
/// builtin extractor turns into facts (an adversarial pass from the binary found each in
/// memory.md or the vault's `CLAUDE.md`): none reaches a file or the ledger, and the facts
/// around them are still written.
#[test]
fn a_secret_named_right_before_it_reaches_no_file() {
    const SECRETS: [&str; 6] = [
        "hunter2",
        "Sunshine1",
        "purple-monkey-dishwasher",
        "correct-horse-battery-staple",
        "4921",
        "58213",
    ];
    let env = TestEnv::new();
    env.create_vault("gamma");
    let said = [
        "My goal is to change my password hunter2 to something longer.",
        "We decided to use the shared root password Sunshine1 for the staging database.",
        "I use the passphrase purple-monkey-dishwasher for my laptop, not a fingerprint.",
        "My goal is to stop using correct-horse-battery-staple as my password.",
        "I prefer the PIN 4921 over a longer code.",
        "I prefer the door code 58213 over a key.",
        "I'm a staff engineer at Acme.",
    ];
    env.add_transcript(
        "gamma",
        "2025-07-03-0900-said.md",
        &crate::support::transcript("2025-07-03", "09:00", "Said", &said.join("\n\n")),
    );

    env.cmd()
        .env("MEMLOOP_PROVIDER", "builtin")
        .args(["extract", "--json"])
        .assert()
        .code(0);

    let memory = env.memory();
    assert!(memory.contains("staff engineer at Acme"), "{memory}");
    let mut files = files_in(&env.state_dir());
    files.push(env.claude_md("gamma"));
    files.push(env.memory_path());
    for file in files {
        let bytes = fs::read(&file).unwrap_or_default();
        for secret in SECRETS {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{secret} in {}",
                file.display()
            );
        }
    }
}

/// The evaluation set of `eval/secrets/` (its generator and templates).
#[path = "../../eval/secrets/generate.rs"]
mod generate;

/// Where a copy of each template is planted. The first five are transcript text; the last
/// two are typed by hand (`memory remember`, a bullet added to memory.md in an editor).
const PLACES: [&str; 7] = [
    "user turn",
    "assistant turn",
    "tool output",
    "code block",
    "pasted .env",
    "memory remember",
    "hand-edited memory.md",
];

/// A marker that tells the mock which place's transcript it is answering.
fn place_marker(place: usize) -> String {
    format!("EVAL-PLACE-{place}")
}

/// One transcript carrying every plant in one place.
fn eval_transcript(place: usize, plants: &[generate::Plant]) -> String {
    let body: Vec<String> = plants
        .iter()
        .map(|p| match PLACES[place] {
            "tool output" => {
                let quoted: Vec<String> = p.text.lines().map(|l| format!("> {l}")).collect();
                format!("> **Tool:** Bash\n{}", quoted.join("\n"))
            }
            "code block" => format!("```text\n{}\n```", p.text),
            "pasted .env" => format!(
                "here is my .env:\n\n```\nNODE_ENV=production\nPORT=3000\n{}\nLOG_LEVEL=debug\n```",
                p.text
            ),
            _ => p.text.clone(),
        })
        .collect();
    let (user, assistant) = if PLACES[place] == "assistant turn" {
        ("Can you check my setup?".to_owned(), body.join("\n\n"))
    } else {
        (body.join("\n\n"), "Noted.".to_owned())
    };
    format!(
        "---\ndate: 2025-08-01\ntime: \"10:00\"\nsession_id: eval-{place}\ntitle: Eval\n---\n\n\
         # Discussion - 2025-08-01 10:00\n\n## [10:00] User\n\n{} {CLEAN}\n\n{user}\n\n\
         ## [10:01] Assistant\n\n{assistant}\n",
        place_marker(place)
    )
}

/// What a model that leaks answers for one place: a fact quoting each plant as it was
/// typed (no evidence, so the facts wait for review and are accepted later).
fn eval_answer(plants: &[generate::Plant]) -> Value {
    let mut facts: Vec<Value> = plants
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!({"category": "Preferences", "scope": if i % 2 == 0 { "global" } else { "vault" },
                   "text": format!("Uses {}", p.text), "replaces": null})
        })
        .collect();
    facts.push(json!({"category": "Identity", "scope": "global", "text": CLEAN, "replaces": null}));
    json!({ "facts": facts })
}

/// Whether `needle` is in `haystack`. A short code of digits only (a PIN, an alarm code)
/// counts only as a whole number, not as digits inside a longer one: the ledger holds
/// thousands of digit runs (hashes, times, temporary paths) that change from run to run,
/// and a 4-to-8-digit code matched one of them by chance in two full runs so far.
fn contains(haystack: &[u8], needle: &str) -> bool {
    let needle = needle.as_bytes();
    let whole_number = needle.len() <= 8 && needle.iter().all(u8::is_ascii_digit);
    let digit_at = |i: Option<usize>| {
        i.and_then(|i| haystack.get(i))
            .is_some_and(u8::is_ascii_digit)
    };
    // memchr's search: the evaluation looks for thousands of needles in every request
    // and file, and a window-by-window comparison made it the longest test of the suite.
    memchr::memmem::find_iter(haystack, needle).any(|at| {
        !(whole_number && (digit_at(at.checked_sub(1)) || digit_at(Some(at + needle.len()))))
    })
}

#[test]
fn the_evaluation_finds_a_short_code_only_as_a_whole_number() {
    assert!(contains(b"passcode is 482913 if", "482913"));
    assert!(contains(b"482913", "482913"));
    assert!(!contains(b"2026-11-28T06:10:11.1482913Z", "482913"));
    assert!(contains(b"key sk-1482913x", "sk-1482913"));
    assert!(contains(b"card 41111111111111119", "411111111111"));
}

/// For each short needle (at most 8 bytes) of any plant, the plants whose text holds it
/// as [`contains`] finds it. One pass over each text, looking up its windows of the needles'
/// lengths, instead of searching every text for every needle.
fn short_needle_holders<'a>(
    all: &[&'a generate::Plant],
) -> std::collections::HashMap<&'a str, Vec<usize>> {
    let mut holders = std::collections::HashMap::<&str, Vec<usize>>::new();
    for p in all {
        for n in p.needles.iter().filter(|n| n.len() <= 8) {
            holders.entry(n.as_str()).or_default();
        }
    }
    let lengths: BTreeSet<usize> = holders.keys().map(|n| n.len()).collect();
    for (i, p) in all.iter().enumerate() {
        let text = p.text.as_bytes();
        let mut seen = BTreeSet::new();
        for &len in &lengths {
            for w in text.windows(len) {
                let Ok(w) = std::str::from_utf8(w) else {
                    continue;
                };
                if let Some((needle, _)) = holders.get_key_value(w) {
                    seen.insert(*needle);
                }
            }
        }
        for needle in seen.into_iter().filter(|n| contains(text, n)) {
            holders.get_mut(needle).expect("a key").push(i);
        }
    }
    holders
}

fn all_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            all_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Per kind and place: how many plants reached the requests, the written files, the ledger.
#[derive(Default, Clone, Copy)]
struct Tally {
    planted: usize,
    request: usize,
    files: usize,
    ledger: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.planted += other.planted;
        self.request += other.request;
        self.files += other.files;
        self.ledger += other.ledger;
    }
}

fn print_table(title: &str, rows: &std::collections::BTreeMap<String, Tally>) {
    println!("\n{title:<24} planted  request  files  ledger");
    let mut total = Tally::default();
    for (name, t) in rows {
        println!(
            "{name:<24} {:>7}  {:>7}  {:>5}  {:>6}",
            t.planted, t.request, t.files, t.ledger
        );
        total.add(*t);
    }
    println!(
        "{:<24} {:>7}  {:>7}  {:>5}  {:>6}",
        "total", total.planted, total.request, total.files, total.ledger
    );
}

/// The evaluation: every template of the files of `eval/secrets/` (`generate::FILES`)
/// planted in each place, run through the real binary against the loopback mock (a model
/// that quotes every plant back as a fact, accepted in review, then a second run that sends
/// the known facts back). Prints per file, per kind and per place how many plants reached a
/// request body, a written file (memory.md, CLAUDE.md, their backups, anything else outside
/// the transcripts and the state directory) and the ledger's directory. Each must be 0 for
/// the tuned files (`plants.tsv` and `held.tsv` to `held7.tsv`); the leaks of the held-out
/// files (`generate::HELD_OUT`) are counted, not failed on, and named (kinds and leaks)
/// only when `MEMLOOP_EVAL_HELD=1`.
#[test]
fn eval_no_planted_secret_reaches_a_request_a_file_or_the_ledger() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    let mock = Mock::start();
    let mut planted: Vec<Vec<generate::Plant>> = (0..PLACES.len())
        .map(|place| generate::plants(1000 + place as u64))
        .collect();
    for (place, plants) in planted.iter().enumerate().take(5) {
        env.add_transcript(
            "gamma",
            &format!("2025-08-01-10{place:02}-eval.md"),
            &eval_transcript(place, plants),
        );
        let marker = place_marker(place);
        let answer = anthropic_tool_use(&eval_answer(plants), 100, 20);
        mock.when(move |r| r.user_text().contains(&marker), Reply::Raw(answer));
    }
    // Over a thousand plants in one run: a debug build on a loaded machine may take
    // minutes, more than a test command's usual limit.
    let patiently = Duration::from_secs(900);
    env.extract_within(&anthropic(&mock), &[], 0, patiently);
    env.cmd()
        .args(["memory", "review", "--accept-all"])
        .assert()
        .code(0);
    // The facts were written, with their secrets redacted (not dropped unseen). Read before
    // the bullets typed by hand below, which fill memory.md to its cap; the file is not
    // printed, since it holds the held-out plants.
    let memory = env.memory();
    assert!(
        memory.contains("- Uses ") && memory.contains("[REDACTED:"),
        "memory.md ({} bytes) holds no redacted fact",
        memory.len()
    );

    for p in &planted[5] {
        // A refusal (a line break in the text) is fine: what counts is what is kept.
        let _ = env
            .cmd()
            .args(["memory", "remember", &format!("Keeps {}", p.text)])
            .output();
    }
    // A bullet is one line: a key that spans lines typed into memory.md is the user's own
    // text around a bullet, which memloop keeps where it is (not measured here).
    planted[6].retain(|p| !p.text.contains('\n'));
    let mut memory = env.memory();
    for p in &planted[6] {
        memory.push_str(&format!("\n- Keeps {}\n", p.text));
    }
    crate::support::write_file(&env.memory_path(), memory.as_bytes());
    // Reads the hand edits back, backs the file up, then sends the known facts again.
    env.extract_within(&anthropic(&mock), &["--force"], 0, patiently);

    // Each request's body and the user's text in it, read once, not once a plant.
    let requests: Vec<(String, String)> = mock
        .requests()
        .into_iter()
        .map(|r| {
            let user = r.user_text();
            (r.body, user)
        })
        .collect();
    let state = env.state_dir();
    let (mut ledger, mut written) = (Vec::new(), Vec::new());
    let mut files = Vec::new();
    all_files(env.root(), &mut files);
    for file in files {
        let bytes = fs::read(&file).unwrap_or_default();
        if file.starts_with(&state) {
            ledger.push(bytes);
        } else if !file.components().any(|c| c.as_os_str() == "chats") {
            written.push((file, bytes));
        }
    }
    // Per file (tuned on, held out), per kind and per place.
    let mut by_kind = std::collections::BTreeMap::<(&str, String), Tally>::new();
    let mut by_place = std::collections::BTreeMap::<(&str, String), Tally>::new();
    let mut leaks = std::collections::BTreeMap::<&str, Vec<String>>::new();
    let show_held = std::env::var_os("MEMLOOP_EVAL_HELD").is_some();
    // A short code that another plant's text also holds as a whole number (a PIN that is
    // also a held-out plant's intercom code) cannot say which of the two leaked: it is not
    // counted, for either.
    let all: Vec<&generate::Plant> = planted.iter().flatten().collect();
    let holders = short_needle_holders(&all);
    let shared = |p: &generate::Plant, needle: &str| {
        holders
            .get(needle)
            .is_some_and(|at| at.iter().any(|&i| !std::ptr::eq(all[i], p)))
    };
    let mut ambiguous = 0;
    for (place, plants) in planted.iter().enumerate() {
        for p in plants {
            let needles: Vec<&String> = p.needles.iter().filter(|n| !shared(p, n)).collect();
            ambiguous += p.needles.len() - needles.len();
            let found = |hay: &[u8]| needles.iter().any(|n| contains(hay, n));
            let in_request = requests
                .iter()
                .any(|(body, user)| found(body.as_bytes()) || found(user.as_bytes()));
            let in_file = written.iter().find(|(_, b)| found(b)).map(|(f, _)| f);
            let in_ledger = ledger.iter().any(|b| found(b));
            let t = Tally {
                planted: 1,
                request: usize::from(in_request),
                files: usize::from(in_file.is_some()),
                ledger: usize::from(in_ledger),
            };
            if in_request || in_file.is_some() || in_ledger {
                leaks.entry(p.file).or_default().push(format!(
                    "{} ({}:{}) in {}: request {in_request}, file {:?}, ledger {in_ledger}",
                    p.kind, p.file, p.line, PLACES[place], in_file
                ));
            }
            by_kind.entry((p.file, p.kind.clone())).or_default().add(t);
            by_place
                .entry((p.file, format!("{place} {}", PLACES[place])))
                .or_default()
                .add(t);
        }
    }
    println!("{ambiguous} short codes not counted: another plant's text holds them too");
    for (file, _) in generate::FILES {
        let of_file = |rows: &std::collections::BTreeMap<(&str, String), Tally>| {
            rows.iter()
                .filter(|((f, _), _)| *f == file)
                .map(|((_, name), t)| (name.clone(), *t))
                .collect()
        };
        println!("\n{file}");
        // A held-out file's kinds name its shapes: they are shown only when asked for.
        if show_held || !generate::HELD_OUT.contains(&file) {
            print_table("kind", &of_file(&by_kind));
        }
        print_table("place", &of_file(&by_place));
    }
    // The held-out shapes are measured, not required: a rule tuned to them would no longer
    // measure anything, so their leaks are counted and named only when asked for.
    for file in generate::HELD_OUT {
        let held = leaks.remove(file).unwrap_or_default();
        println!("\n{file}: {} leaks", held.len());
        for leak in held.iter().filter(|_| show_held) {
            println!("  {leak}");
        }
    }
    let tuned: Vec<String> = leaks.into_values().flatten().collect();
    assert!(
        tuned.is_empty(),
        "{} leaks:\n{}",
        tuned.len(),
        tuned.join("\n")
    );
}

/// The redaction alone, in process, over every plant of `eval/secrets/` as typed, in a code
/// block and in a pasted `.env` (a tool call's blockquote is never sent): seconds where the evaluation above takes minutes, so a rule can be
/// tried at once. A secret left in a tuned file fails; the held-out files are counted, and
/// their leaks named only when `MEMLOOP_EVAL_HELD=1` (a rule tuned to them would no longer
/// measure anything).
#[test]
fn redaction_alone_takes_every_tuned_plant() {
    // Every salt the evaluation plants with (one per place), so a check that a random draw
    // can fail is seen failing here too.
    let plants: Vec<generate::Plant> = (0..PLACES.len())
        .flat_map(|place| generate::plants(1000 + place as u64))
        .collect();
    let show_held = std::env::var_os("MEMLOOP_EVAL_HELD").is_some();
    let mut counts = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    let mut tuned = Vec::new();
    for p in &plants {
        let wrapped = [
            p.text.clone(),
            format!("- Keeps {}", p.text),
            format!("```text\n{}\n```", p.text),
            format!(
                "here is my .env:\n\n```\nNODE_ENV=production\n{}\nPORT=3000\n```",
                p.text
            ),
        ];
        let leaked = wrapped.iter().any(|text| {
            let clean = memloop::redact::redact(text);
            p.needles.iter().any(|n| clean.contains(n.as_str()))
        });
        let count = counts.entry(p.file).or_default();
        count.0 += 1;
        if leaked {
            count.1 += 1;
            let line = format!("{} ({}:{}): {:?}", p.kind, p.file, p.line, p.text);
            if !generate::HELD_OUT.contains(&p.file) {
                tuned.push(line);
            } else if show_held {
                println!("held out: {line}");
            }
        }
    }
    for (file, (planted, leaked)) in &counts {
        println!("{file}: {leaked} of {planted} plants left in the text");
    }
    assert!(
        tuned.is_empty(),
        "{} leaks:\n{}",
        tuned.len(),
        tuned.join("\n")
    );
}

/// The other side of the evaluation: how many ordinary texts the redaction changes. Over the
/// tuning part of the policy's true facts and injections (`eval/facts`, `eval/injections`;
/// the held-out part is redacted and counted but never printed), the persona-chat turns of
/// `eval/builtin/spc-turns.tsv` and every fixture (transcripts, real Claude Code sessions,
/// the providers' recorded answers), it prints each changed text of a tuning part and
/// fails when more change than the last round left (a new rule that rewrites ordinary
/// text must say why here).
#[test]
fn redaction_changes_few_ordinary_texts() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sets: Vec<(&str, Vec<(bool, String)>)> = Vec::new();
    let mut eval = Vec::new();
    for dir in ["eval/facts", "eval/injections"] {
        let mut files: Vec<_> = fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            for line in read(&file).lines() {
                let row: Value = serde_json::from_str(line).unwrap();
                let held = row["split"] == "held";
                eval.push((held, row["text"].as_str().unwrap().to_owned()));
            }
        }
    }
    sets.push(("eval facts and injections", eval));
    let turns = read(&root.join("eval/builtin/spc-turns.tsv"));
    sets.push((
        "persona-chat turns",
        turns.lines().map(|l| (false, l.to_owned())).collect(),
    ));
    let mut paths = Vec::new();
    all_files(&root.join("fixtures"), &mut paths);
    paths.sort();
    let fixtures = paths
        .iter()
        .filter_map(|p| fs::read_to_string(p).ok())
        .map(|text| (false, text))
        .collect();
    sets.push(("fixtures", fixtures));
    let mut changed = 0;
    for (name, texts) in &sets {
        let mut of_set = 0;
        for (held, text) in texts {
            let clean = memloop::redact::redact(text);
            if clean != *text {
                of_set += 1;
                // Each find with some words around it (a fixture is a whole session).
                for (at, _) in clean.match_indices("[REDACTED:").filter(|_| !held) {
                    let from = clean[..at]
                        .char_indices()
                        .rev()
                        .nth(60)
                        .map_or(0, |(i, _)| i);
                    let to = clean[at..]
                        .char_indices()
                        .nth(100)
                        .map_or(clean.len(), |(i, _)| at + i);
                    println!("{name}: …{:?}…", &clean[from..to]);
                }
            }
        }
        println!("{name}: {of_set} of {} texts changed", texts.len());
        changed += of_set;
    }
    // 34 after the seventh round of rules, which changed fewer than before it (a JSON key
    // after `"max_tokens",` was read as a value, and addresses as passwords); 35 since a
    // value right after the word that names it is read (`the passphrase '…'` in a tuning
    // injection, a passphrase indeed).
    assert!(changed <= 35, "{changed} ordinary texts changed");
}
