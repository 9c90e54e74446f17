//! The command examples of README.md and docs/*.md run, so the docs cannot rot. Every
//! ```sh block is run line by line against the sample vault (`examples/sample-vault`) in a
//! sandboxed HOME, offline (no API key: the built-in extractor), after one `memloop
//! extract` has read it. Each line must exit with the code the doc gives it (`# exit N` at
//! its end, else 0), and clap must accept it: a subcommand or flag that does not exist
//! fails, whatever code the doc expects.
//!
//! A block that cannot run here (it installs a service, needs Claude Code, a server or a
//! nightly toolchain) says so on its first line, `# not run in tests: <why>`; any other
//! line of a ```sh block must be a `memloop` command. A ```console block that begins with
//! `$ memloop ...` shows that command's output and must be what it prints (the sandbox's
//! HOME written `~`). Every fenced block names its language, so a command cannot hide in
//! an unlabelled one.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use crate::support::{TestEnv, copy_dir, files_under, set_age};

/// What marks a ```sh block as shown, not run.
const NOT_RUN: &str = "# not run in tests:";

/// One fenced code block of a doc.
struct Block {
    /// `README.md:12`: where the block starts.
    at: String,
    lang: String,
    text: String,
}

/// README.md and every docs/*.md.
fn docs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root.join("README.md"));
    docs
}

/// The fenced code blocks of a Markdown file, with where each starts.
fn blocks(path: &Path) -> Vec<Block> {
    let text = fs::read_to_string(path).expect("read doc");
    let name = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path);
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (event, range) in Parser::new(&text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let line = text[..range.start].lines().count() + 1;
                open = Some(Block {
                    at: format!("{}:{line}", name.display()),
                    lang: info.split_whitespace().next().unwrap_or("").to_owned(),
                    text: String::new(),
                });
            }
            Event::Text(t) => {
                if let Some(block) = open.as_mut() {
                    block.text.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => out.extend(open.take()),
            _ => {}
        }
    }
    out
}

/// A sandbox whose vaults directory (`~/vaults`, `VAULTS_DIR`) holds the sample vault as
/// `tidepool`, with a copy at `examples/sample-vault` under the working directory, as in a
/// clone; the sample already extracted once.
fn sandbox() -> TestEnv {
    let env = TestEnv::new();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sample-vault");
    copy_dir(&sample, &env.home().join("vaults/tidepool"));
    copy_dir(&sample, &env.root().join("examples/sample-vault"));
    for file in files_under(env.root()) {
        if file.extension().is_some_and(|e| e == "md") {
            set_age(&file, Duration::from_secs(3600));
        }
    }
    let out = shell(&env, "memloop extract -q");
    assert!(out.status.success(), "the first extract: {out:?}");
    env
}

/// `sh -c LINE` in the sandbox, with `memloop` first on PATH and the environment the
/// other tests give the binary (no API key, no network), and an editor that changes
/// nothing.
fn shell(env: &TestEnv, line: &str) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_memloop"))
        .parent()
        .expect("the binary's directory");
    let mut path = bin.as_os_str().to_owned();
    if let Some(rest) = std::env::var_os("PATH") {
        path.push(":");
        path.push(rest);
    }
    Command::new("sh")
        .args(["-c", line])
        .env_clear()
        .current_dir(env.root())
        .env("PATH", path)
        .env("HOME", env.home())
        .env("XDG_CONFIG_HOME", env.home().join(".config"))
        .env("XDG_STATE_HOME", env.home().join(".local/state"))
        .env("VAULTS_DIR", env.home().join("vaults"))
        .env("NO_COLOR", "1")
        .env("MEMLOOP_RETRY_BASE_MS", "10")
        .env("VISUAL", "true")
        .env("EDITOR", "true")
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run sh")
}

/// The exit code a line's `# exit N` comment gives, else 0.
fn expected_code(line: &str) -> i32 {
    line.split_once("# exit ")
        .and_then(|(_, rest)| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// Whether the line runs `memloop`, after any `NAME=value` assignments.
fn runs_memloop(line: &str) -> bool {
    line.split_whitespace()
        .find(|word| {
            !word
                .split_once('=')
                .is_some_and(|(name, _)| name.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        })
        .is_some_and(|word| word == "memloop")
}

/// Clap's own words when it rejects a command line (memloop's errors start `memloop:`).
fn rejected_by_clap(stderr: &str) -> bool {
    stderr.starts_with("error: ") || stderr.contains("\nerror: ")
}

/// Runs one ```sh block; each failure is a line of `failures`.
fn run_sh(block: &Block, failures: &mut Vec<String>) {
    let lines: Vec<&str> = block.text.lines().collect();
    if let Some(first) = lines.first()
        && let Some(why) = first.trim().strip_prefix(NOT_RUN)
    {
        if why.trim().is_empty() {
            failures.push(format!("{}: `{NOT_RUN}` without a reason", block.at));
        }
        return;
    }
    let env = sandbox();
    for line in lines.iter().map(|l| l.trim()) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !runs_memloop(line) {
            failures.push(format!(
                "{}: `{line}` is not a memloop command: mark the block `{NOT_RUN} <why>`",
                block.at
            ));
            continue;
        }
        let out = shell(&env, line);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        if rejected_by_clap(&stderr) {
            failures.push(format!(
                "{}: `{line}`: memloop's command line rejects it: {stderr}",
                block.at
            ));
        } else if code != Some(expected_code(line)) {
            failures.push(format!(
                "{}: `{line}` exited {code:?}, the doc says {}: {stderr}",
                block.at,
                expected_code(line)
            ));
        }
    }
}

/// Checks a ```console block that shows `$ memloop ...` and its output.
fn check_console(block: &Block, failures: &mut Vec<String>) {
    let mut lines = block.text.lines();
    let Some(command) = lines.next().and_then(|l| l.strip_prefix("$ ")) else {
        return;
    };
    if !runs_memloop(command) {
        return;
    }
    let shown: Vec<&str> = lines.map(str::trim_end).collect();
    let env = sandbox();
    let out = shell(&env, command);
    let home = env.home().display().to_string();
    let printed = String::from_utf8_lossy(&out.stdout).replace(&home, "~");
    let printed: Vec<&str> = printed.lines().map(str::trim_end).collect();
    if !out.status.success() || printed != shown {
        failures.push(format!(
            "{}: `{command}` prints, not what the doc shows:\n{}",
            block.at,
            printed.join("\n")
        ));
    }
}

#[test]
fn every_command_example_in_the_docs_runs_against_the_sample_vault() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc in docs() {
        for block in blocks(&doc) {
            match block.lang.as_str() {
                "" => failures.push(format!(
                    "{}: a fenced block without a language (sh, console, text, toml, ...)",
                    block.at
                )),
                "sh" | "bash" | "shell" => {
                    ran += 1;
                    run_sh(&block, &mut failures);
                }
                "console" => check_console(&block, &mut failures),
                _ => {}
            }
        }
    }
    assert!(
        ran >= 10,
        "only {ran} shell blocks found: is the parser reading the docs?"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_convention_reads_codes_commands_and_rejections() {
    assert_eq!(
        expected_code("memloop memory forget x --yes   # exit 1: nothing"),
        1
    );
    assert_eq!(expected_code("memloop status   # the last run"), 0);
    assert!(runs_memloop("VAULTS_DIR=~/vaults memloop extract"));
    assert!(runs_memloop("memloop completions zsh"));
    assert!(!runs_memloop(
        "cargo install --locked --path . && memloop extract"
    ));
    assert!(!runs_memloop("0 3 * * * /path/to/memloop extract -q"));
    assert!(rejected_by_clap(
        "error: unexpected argument '--nope' found\n\nUsage: memloop extract [OPTIONS]\n"
    ));
    assert!(!rejected_by_clap("memloop: no vault found in /x\n"));
}
