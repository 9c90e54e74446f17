//! `--help`, the man page and the command reference say the same. The synopsis block of
//! docs/reference.md (under `## Commands`, one command a line) is checked against clap's
//! declarations: every subcommand and every long flag `memloop <cmd> --help` lists is in
//! it, and it names no command or flag that `--help` lacks. The real binary's `--help`
//! output and `memloop man` (whose COMMANDS section gives each command and its options)
//! are checked against the same list, so what the user reads in either is what the
//! reference says.

use std::collections::{BTreeMap, BTreeSet};

use clap::CommandFactory;
use memloop::cli::Cli;

use crate::support::TestEnv;

/// The synopsis block: the ```text block under `## Commands` in docs/reference.md.
fn synopsis() -> &'static str {
    let doc = include_str!("../../docs/reference.md");
    let section = &doc[doc.find("\n## Commands\n").expect("## Commands")..];
    let start = section.find("```text\n").expect("its text block") + "```text\n".len();
    &section[start..start + section[start..].find("```").expect("the block's end")]
}

/// Every `--flag` in a piece of text.
fn long_flags(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let mut end = start + 2;
        while end < bytes.len() && (bytes[end].is_ascii_lowercase() || bytes[end] == b'-') {
            end += 1;
        }
        if end > start + 2 && (start == 0 || !bytes[start - 1].is_ascii_alphanumeric()) {
            out.insert(text[start..end].to_owned());
        }
        i = end.max(start + 2);
    }
    out
}

/// What the reference says: the flags of each command path (`memory forget`), the words
/// of its lines, and the global flags.
struct Reference {
    commands: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>,
    global: BTreeSet<String>,
}

/// Reads the synopsis against clap's tree: a line's command is the longest run of words
/// that names subcommands; the rest of it (before a `#` comment) holds its flags.
fn reference(root: &clap::Command, problems: &mut Vec<String>) -> Reference {
    let mut commands: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
    let mut global = BTreeSet::new();
    for line in synopsis().lines() {
        let line = line.split_once(" #").map_or(line, |(l, _)| l).trim();
        if let Some(flags) = line.strip_prefix("global:") {
            global.extend(long_flags(flags));
            continue;
        }
        let Some(rest) = line.strip_prefix("memloop ") else {
            problems.push(format!(
                "the synopsis line `{line}` is not a memloop command"
            ));
            continue;
        };
        let mut cmd = root;
        let mut path = Vec::new();
        let mut words = rest.split_whitespace().peekable();
        while let Some(sub) = words.peek().and_then(|w| cmd.find_subcommand(w)) {
            cmd = sub;
            path.push(sub.get_name().to_owned());
            words.next();
        }
        if path.is_empty() || cmd.has_subcommands() {
            problems.push(format!(
                "the reference's `{line}` names no command --help lists"
            ));
            continue;
        }
        let entry = commands.entry(path.join(" ")).or_default();
        entry.0.extend(long_flags(rest));
        entry.1.extend(words.map(str::to_owned));
    }
    Reference { commands, global }
}

/// Every runnable command of the tree, with its path, skipping clap's `help`.
fn leaves<'a>(cmd: &'a clap::Command, path: &str, out: &mut Vec<(String, &'a clap::Command)>) {
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" || sub.is_hide_set() {
            continue;
        }
        let path = format!(
            "{path}{}{}",
            if path.is_empty() { "" } else { " " },
            sub.get_name()
        );
        if sub.has_subcommands() {
            leaves(sub, &path, out);
        } else {
            out.push((path, sub));
        }
    }
}

/// The long flags a command's `--help` lists.
fn flags_of(cmd: &clap::Command) -> BTreeSet<String> {
    cmd.get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect()
}

#[test]
fn the_reference_and_help_name_the_same_commands_and_flags() {
    let mut root = Cli::command();
    root.build();
    let mut problems = Vec::new();
    let reference = reference(&root, &mut problems);
    let global = flags_of(&root);
    if reference.global != global {
        problems.push(format!(
            "global flags: the reference says {:?}, --help {global:?}",
            reference.global
        ));
    }
    let mut all = Vec::new();
    leaves(&root, "", &mut all);
    let env = TestEnv::new();
    for (path, cmd) in &all {
        let Some((documented, words)) = reference.commands.get(path) else {
            problems.push(format!("`memloop {path}` is not in the reference"));
            continue;
        };
        let own: BTreeSet<String> = flags_of(cmd).difference(&global).cloned().collect();
        for flag in own.difference(documented) {
            problems.push(format!(
                "`memloop {path} {flag}` is in --help, not in the reference"
            ));
        }
        for flag in documented.difference(&own) {
            problems.push(format!(
                "the reference gives `memloop {path} {flag}`, which --help lacks"
            ));
        }
        for arg in cmd.get_positionals() {
            let name = arg.get_id().as_str().to_uppercase();
            if !words
                .iter()
                .any(|w| w.trim_matches(['[', ']', '.']) == name)
            {
                problems.push(format!("the reference's `memloop {path}` lacks {name}"));
            }
        }
        // The binary's own --help says the same as the declarations.
        let out = env
            .cmd()
            .args(path.split(' '))
            .arg("--help")
            .output()
            .expect("run --help");
        let help = String::from_utf8_lossy(&out.stdout);
        for flag in own.iter().chain(&global) {
            if !help.contains(flag.as_str()) {
                problems.push(format!("`memloop {path} --help` does not list {flag}"));
            }
        }
    }
    for path in reference.commands.keys() {
        if !all.iter().any(|(p, _)| p == path) {
            problems.push(format!("the reference's `memloop {path}` is not a command"));
        }
    }
    assert!(all.len() > 20, "only {} commands found", all.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_man_page_gives_every_command_and_flag_of_the_reference() {
    let mut root = Cli::command();
    root.build();
    let mut problems = Vec::new();
    let reference = reference(&root, &mut problems);
    let out = TestEnv::new().cmd().arg("man").output().expect("run man");
    assert!(out.status.success());
    // roff writes a dash in an option's name as `\-`
    let page = String::from_utf8_lossy(&out.stdout).replace("\\-", "-");
    let (top, commands) = page
        .split_once("\n.SH COMMANDS\n")
        .expect("the man page's COMMANDS section");
    for flag in &reference.global {
        if !top.contains(flag.as_str()) {
            problems.push(format!("the man page's OPTIONS do not list {flag}"));
        }
    }
    for (path, (flags, _)) in &reference.commands {
        let heading = format!(".SS \"memloop {path}\"\n");
        let Some(at) = commands.find(&heading) else {
            problems.push(format!("the man page has no `memloop {path}`"));
            continue;
        };
        let section = &commands[at + heading.len()..];
        let section = &section[..section.find("\n.S").unwrap_or(section.len())];
        for flag in flags {
            if !section.contains(flag.as_str()) {
                problems.push(format!("the man page's `memloop {path}` lacks {flag}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn long_flags_are_read_from_a_synopsis_line() {
    let flags = long_flags("[--accept-all | --reject-all] [--stale] --x QUERY -v/--verbose");
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    assert_eq!(
        flags,
        [
            "--accept-all",
            "--reject-all",
            "--stale",
            "--verbose",
            "--x"
        ]
    );
}
