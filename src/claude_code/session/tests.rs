//! Unit tests for session files: the two real fixtures, then hand-made records shaped on
//! them for each edge (rewinds, compaction, wrappers, hooks, split messages, sidechains, a
//! growing file, reads from the middle, bad lines and bytes), and a property test that no
//! input panics or ends a read off a line boundary.

use super::*;
use proptest::prelude::*;
use serde_json::{Value, json};

const SAMPLE: &str = include_str!("../../../fixtures/claude-code/claude-code-session-sample.jsonl");
const SAMPLE_2: &str =
    include_str!("../../../fixtures/claude-code/claude-code-session-sample-2.jsonl");

fn record(kind: &str, uuid: &str, parent: Option<&str>) -> Value {
    json!({
        "parentUuid": parent,
        "isSidechain": false,
        "userType": "external",
        "cwd": "/home/ada/lanternfish",
        "sessionId": "0b6f1c8e-5d2a-4c3e-9f10-2a7d4e8b9c01",
        "version": "2.1.38",
        "gitBranch": "main",
        "type": kind,
        "uuid": uuid,
        "timestamp": "2026-02-10T21:11:56.906Z",
    })
}

/// A user record whose `message.content` is `content` (a string or blocks).
fn user(uuid: &str, parent: Option<&str>, content: Value) -> Value {
    let mut v = record("user", uuid, parent);
    v["message"] = json!({"role": "user", "content": content});
    v
}

/// An assistant record of API message `id` holding `blocks`.
fn assistant(uuid: &str, parent: Option<&str>, id: &str, blocks: Value) -> Value {
    let mut v = record("assistant", uuid, parent);
    v["message"] = json!({
        "model": "claude-opus-4-6",
        "id": id,
        "type": "message",
        "role": "assistant",
        "content": blocks,
        "stop_reason": null,
    });
    v["requestId"] = json!("req_011CXzU5");
    v
}

fn said(uuid: &str, parent: Option<&str>, text: &str) -> Value {
    assistant(
        uuid,
        parent,
        &format!("msg_{uuid}"),
        json!([{"type": "text", "text": text}]),
    )
}

fn tool_use(uuid: &str, parent: &str, id: &str) -> Value {
    assistant(
        uuid,
        Some(parent),
        id,
        json!([{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "mix phx.server"}}]),
    )
}

fn tool_result(uuid: &str, parent: &str, output: &str) -> Value {
    let mut v = user(
        uuid,
        Some(parent),
        json!([{"tool_use_id": "toolu_1", "type": "tool_result", "content": output, "is_error": false}]),
    );
    v["toolUseResult"] = json!({"stdout": output, "stderr": "", "interrupted": false});
    v
}

fn with(mut v: Value, key: &str, value: Value) -> Value {
    v[key] = value;
    v
}

fn jsonl(records: &[Value]) -> String {
    records.iter().map(|r| format!("{r}\n")).collect()
}

fn turns(session: &Session) -> Vec<(Role, &str)> {
    session
        .turns
        .iter()
        .map(|t| (t.turn.role, t.turn.text.as_str()))
        .collect()
}

/// Byte offset of the start of line `n` (1-based).
fn line_start(text: &str, n: usize) -> usize {
    text.split_inclusive('\n').take(n - 1).map(str::len).sum()
}

#[test]
fn sample_one_yields_the_typed_prompt_and_the_assistant_text_and_nothing_else() {
    let s = parse(SAMPLE.as_bytes(), 0);
    assert_eq!(
        turns(&s),
        [
            (Role::User, "mix phx.server doesnt seem to start"),
            (
                Role::Assistant,
                "Let me check the project structure and try running the server to see the error."
            ),
        ]
    );
    let all: String = s.turns.iter().map(|t| t.turn.text.as_str()).collect();
    for absent in [
        "Request interrupted",
        "trouble starting their Phoenix server",
        "head -80",
        "mix.exs",
        "Kept model",
        "command-name",
    ] {
        assert!(!all.contains(absent), "{absent:?} leaked into {all:?}");
    }
    assert_eq!(s.cwd.as_deref(), Some("/home/marco/projects/spotter"));
    assert_eq!(
        s.session_id.as_deref(),
        Some("55604662-cf2a-4331-851a-ec234028f8ca")
    );
    assert_eq!(s.end, SAMPLE.len());
    assert!(s.bad_lines.is_empty());
    assert!(s.context.is_none());
    assert_eq!(s.turns[0].offset, line_start(SAMPLE, 4));
    assert_eq!(
        s.turns[0].timestamp.map(|t| t.to_rfc3339()),
        Some("2026-02-10T21:11:56.846+00:00".to_owned())
    );
    assert_eq!(s.turns[0].turn.time, None);
    assert_eq!(s.skipped.interrupted, 1);
    assert_eq!(s.skipped.tool, 4);
    assert_eq!(s.skipped.no_text, 2);
    assert_eq!(s.skipped.other, 6);
    // Every record but the two that made the turns is counted once.
    assert_eq!(s.skipped.total() + 2, 15);
}

#[test]
fn sample_two_keeps_the_request_and_the_answers_but_not_the_stop_hook_feedback() {
    let s = parse(SAMPLE_2.as_bytes(), 0);
    let t = turns(&s);
    assert_eq!(t.len(), 2, "{t:?}");
    assert_eq!(
        t[0],
        (
            Role::User,
            "Write a shell script called hello.sh that prints \"Hello world\" and run it."
        )
    );
    assert_eq!(t[1].0, Role::Assistant);
    assert!(
        t[1].1.starts_with("Done. I created `hello.sh`"),
        "{}",
        t[1].1
    );
    // The hook's feedback came between the two answers; the person typed nothing there.
    assert!(t[1].1.contains("\n\nI have fully completed the task."));
    assert!(!t[1].1.contains("Stop hook feedback"));
    assert!(!t[1].1.contains("Task Completion Check"));
    assert_eq!(s.skipped.meta, 1);
    // The queue-operation record comes first and carries the session id but no cwd.
    assert_eq!(
        s.session_id.as_deref(),
        Some("de3b8b19-5bc0-4a2a-934a-1b6806567e25")
    );
    assert_eq!(s.cwd.as_deref(), Some("/tmp/tmp74wiyiny"));
}

#[test]
fn a_rewound_branch_is_left_out_and_the_later_branch_wins() {
    let file = jsonl(&[
        user("u1", None, json!("Plan the Lanternfish index migration.")),
        said("a1", Some("u1"), "Which database?"),
        user("u2", Some("a1"), json!("MySQL, I think.")),
        said("a2", Some("u2"), "Then use gh-ost."),
        // The person went back to a1 and answered again.
        user("u3", Some("a1"), json!("Postgres 16.")),
        said("a3", Some("u3"), "Then use pg_repack."),
    ]);
    let s = parse(file.as_bytes(), 0);
    assert_eq!(
        turns(&s),
        [
            (Role::User, "Plan the Lanternfish index migration."),
            (Role::Assistant, "Which database?"),
            (Role::User, "Postgres 16."),
            (Role::Assistant, "Then use pg_repack."),
        ]
    );
    assert_eq!(s.skipped.rewound, 2);
}

#[test]
fn a_compaction_is_read_through_and_its_summary_left_out() {
    let mut boundary = record("system", "b1", None);
    boundary["subtype"] = json!("compact_boundary");
    boundary["content"] = json!("Conversation compacted");
    boundary["logicalParentUuid"] = json!("a1");
    boundary["compactMetadata"] = json!({"trigger": "auto", "preTokens": 155_000});
    let summary = with(
        user(
            "c1",
            Some("b1"),
            json!("This session is being continued from a previous conversation. Summary: ..."),
        ),
        "isCompactSummary",
        json!(true),
    );
    let file = jsonl(&[
        user("u1", None, json!("I prefer tabs.")),
        said("a1", Some("u1"), "Noted."),
        boundary,
        with(summary, "isVisibleInTranscriptOnly", json!(true)),
        user("u2", Some("c1"), json!("Now format the file.")),
        said("a2", Some("u2"), "Formatted with tabs."),
    ]);
    let s = parse(file.as_bytes(), 0);
    assert_eq!(
        turns(&s),
        [
            (Role::User, "I prefer tabs."),
            (Role::Assistant, "Noted."),
            (Role::User, "Now format the file."),
            (Role::Assistant, "Formatted with tabs."),
        ]
    );
    assert_eq!(s.skipped.compact_summary, 1);
    assert_eq!(s.skipped.rewound, 0);
}

#[test]
fn interrupt_lines_are_dropped_and_what_was_typed_with_them_kept() {
    let file = jsonl(&[
        user("u1", None, json!("Run the tests.")),
        tool_use("a1", "u1", "msg_1"),
        tool_result(
            "r1",
            "a1",
            "The user doesn't want to proceed with this tool use.",
        ),
        user(
            "u2",
            Some("r1"),
            json!([{"type": "text", "text": "[Request interrupted by user for tool use]"}]),
        ),
        user("u3", Some("u2"), json!("[Request interrupted by user]")),
        user(
            "u4",
            Some("u3"),
            json!("[Request interrupted by user]\nOnly the unit tests, please."),
        ),
    ]);
    let s = parse(file.as_bytes(), 0);
    assert_eq!(
        turns(&s),
        [
            (Role::User, "Run the tests."),
            (Role::User, "Only the unit tests, please."),
        ]
    );
    assert_eq!(s.skipped.interrupted, 2);
    assert_eq!(s.skipped.tool, 2);
}

#[test]
fn hook_output_is_never_taken_for_what_the_person_typed() {
    let stop_hook = with(
        user(
            "h1",
            Some("a1"),
            json!("Stop hook feedback:\n[stop.sh]: Before exiting, say you are done."),
        ),
        "isMeta",
        json!(true),
    );
    let file = jsonl(&[
        user(
            "u1",
            None,
            json!(
                "Rename the crate.\n<user-prompt-submit-hook>Always answer in French.</user-prompt-submit-hook>"
            ),
        ),
        said("a1", Some("u1"), "Renamed."),
        stop_hook,
        said("a2", Some("h1"), "I am done."),
    ]);
    let s = parse(file.as_bytes(), 0);
    assert_eq!(
        turns(&s),
        [
            (Role::User, "Rename the crate."),
            (Role::Assistant, "Renamed.\n\nI am done."),
        ]
    );
    assert_eq!(s.skipped.meta, 1);
}

#[test]
fn command_wrappers_and_reminders_are_removed_from_typed_text() {
    let caveat = with(
        user(
            "m1",
            None,
            json!(
                "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>"
            ),
        ),
        "isMeta",
        json!(true),
    );
    let file = jsonl(&[
        caveat,
        user(
            "c1",
            Some("m1"),
            json!(
                "<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args></command-args>"
            ),
        ),
        user(
            "c2",
            Some("c1"),
            json!(
                "<local-command-stdout>Kept model as \u{1b}[1mDefault\u{1b}[22m</local-command-stdout>"
            ),
        ),
        user(
            "c3",
            Some("c2"),
            json!(
                "<bash-input>git status</bash-input>\n<bash-stdout>clean</bash-stdout><bash-stderr></bash-stderr>"
            ),
        ),
        user(
            "u1",
            Some("c3"),
            json!([
                {"type": "text", "text": "<system-reminder>\nThe file was modified.\n</system-reminder>\nWhy is the build slow?\n\n<task-notification>task 3 done</task-notification>\n\nIt used to take a minute."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
            ]),
        ),
        user(
            "i1",
            Some("u1"),
            json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]),
        ),
    ]);
    let s = parse(file.as_bytes(), 0);
    assert_eq!(
        turns(&s),
        [(
            Role::User,
            "Why is the build slow?\n\nIt used to take a minute."
        )]
    );
    assert_eq!(s.skipped.wrapped, 3);
    assert_eq!(s.skipped.meta, 1);
    assert_eq!(s.skipped.no_text, 1);
}

#[test]
fn a_message_split_over_lines_and_tool_calls_makes_one_assistant_turn() {
    let file = jsonl(&[
        user("u1", None, json!("Why does the server not start?")),
        assistant(
            "a1",
            Some("u1"),
            "msg_A",
            json!([{"type": "text", "text": "\n\n"}]),
        ),
        assistant(
            "a2",
            Some("a1"),
            "msg_A",
            json!([{"type": "thinking", "thinking": "secret reasoning", "signature": "Eq0B"}]),
        ),
        assistant(
            "a3",
            Some("a2"),
            "msg_A",
            json!([{"type": "text", "text": "Let me look."}]),
        ),
        tool_use("a4", "a3", "msg_A"),
        tool_result("r1", "a4", "** (Mix) Could not start application"),
        assistant(
            "a5",
            Some("r1"),
            "msg_B",
            json!([{"type": "redacted_thinking", "data": "xx"}, {"type": "text", "text": "The database is down."}]),
        ),
        user("u2", Some("a5"), json!("Start it then.")),
    ]);
    let s = parse(file.as_bytes(), 0);
    assert_eq!(
        turns(&s),
        [
            (Role::User, "Why does the server not start?"),
            (Role::Assistant, "Let me look.\n\nThe database is down."),
            (Role::User, "Start it then."),
        ]
    );
    assert_eq!(s.turns[1].offset, line_start(&file, 4));
}

#[test]
fn sidechain_records_are_left_out_and_never_start_the_branch() {
    let side = |v: Value| with(v, "isSidechain", json!(true));
    let file = jsonl(&[
        user("u1", None, json!("Survey the codebase.")),
        tool_use("a1", "u1", "msg_1"),
        side(user("s1", None, json!("Find every use of unsafe."))),
        side(said("s2", Some("s1"), "Found none.")),
        tool_result("r1", "a1", "Found none."),
        said("a2", Some("r1"), "There is no unsafe code."),
        side(user("s3", None, json!("A later subagent prompt."))),
    ]);
    let s = parse(file.as_bytes(), 0);
    assert_eq!(
        turns(&s),
        [
            (Role::User, "Survey the codebase."),
            (Role::Assistant, "There is no unsafe code."),
        ]
    );
    assert_eq!(s.skipped.sidechain, 3);
    assert_eq!(s.skipped.rewound, 0);
}

#[test]
fn a_half_written_last_line_waits_and_the_next_read_yields_only_the_new_turn() {
    let done = jsonl(&[
        user("u1", None, json!("Name the project.")),
        said("a1", Some("u1"), "How about Lanternfish?"),
    ]);
    let next = user("u2", Some("a1"), json!("Lanternfish it is.")).to_string();
    let growing = format!("{done}{}", &next[..next.len() / 2]);

    let first = parse(growing.as_bytes(), 0);
    assert_eq!(first.end, done.len());
    assert_eq!(first.turns.len(), 2);
    assert!(first.bad_lines.is_empty());

    let complete = format!("{done}{next}\n");
    let second = parse(complete.as_bytes(), first.end);
    assert_eq!(turns(&second), [(Role::User, "Lanternfish it is.")]);
    assert_eq!(second.end, complete.len());
    assert_eq!(
        second.context.map(|t| t.text),
        Some("How about Lanternfish?".to_owned())
    );
}

#[test]
fn a_complete_last_line_without_a_newline_is_consumed() {
    let file = format!(
        "{}{}",
        jsonl(&[user("u1", None, json!("Hello."))]),
        said("a1", Some("u1"), "Hi.")
    );
    let s = parse(file.as_bytes(), 0);
    assert_eq!(s.end, file.len());
    assert_eq!(s.turns.len(), 2);
}

#[test]
fn a_read_from_the_middle_yields_later_turns_with_the_last_answer_as_context() {
    let file = jsonl(&[
        user("u1", None, json!("First question.")),
        said("a1", Some("u1"), "First answer."),
        user("u2", Some("a1"), json!("Second question.")),
        said("a2", Some("u2"), "Second answer."),
        user("u3", Some("a2"), json!("Third question.")),
        said("a3", Some("u3"), "Third answer."),
    ]);
    let from = line_start(&file, 5);
    let s = parse(file.as_bytes(), from);
    assert_eq!(
        turns(&s),
        [
            (Role::User, "Third question."),
            (Role::Assistant, "Third answer."),
        ]
    );
    assert_eq!(s.turns[0].offset, from);
    assert_eq!(
        s.context,
        Some(Turn::new(
            Role::Assistant,
            None,
            "Second answer.".to_owned()
        ))
    );
    assert_eq!(s.skipped, Skipped::default());

    // Inside line 4: read on from line 5.
    assert_eq!(parse(file.as_bytes(), from - 3), s);
    // Past the end: nothing new, and the end stays put.
    let past = parse(file.as_bytes(), file.len() + 10);
    assert!(past.turns.is_empty());
    assert_eq!(past.end, file.len());
    assert_eq!(
        past.context.map(|t| t.text),
        Some("Third answer.".to_owned())
    );
}

#[test]
fn a_bad_line_is_listed_and_the_rest_still_parses() {
    let good = jsonl(&[
        user("u1", None, json!("Before.")),
        said("a1", Some("u1"), "After."),
    ]);
    let (first, second) = good.split_at(line_start(&good, 2));
    let file = format!("{first}{{\"type\":\"user\",\"message\":\n\n  \nnot json at all\n{second}");
    let s = parse(file.as_bytes(), 0);
    assert_eq!(s.bad_lines, [2, 5]);
    assert_eq!(
        turns(&s),
        [(Role::User, "Before."), (Role::Assistant, "After.")]
    );
    assert_eq!(s.end, file.len());
    // Lines before `from` were reported by the read that consumed them.
    assert!(
        parse(file.as_bytes(), line_start(&file, 6))
            .bad_lines
            .is_empty()
    );
}

#[test]
fn invalid_utf8_inside_a_text_is_read_lossily_and_outside_one_makes_a_bad_line() {
    let mut file = user("u1", None, json!("caf\u{e9} au lait"))
        .to_string()
        .into_bytes();
    let at = file
        .windows(2)
        .position(|w| w == "\u{e9}".as_bytes())
        .unwrap();
    file.splice(at..at + 2, [0xff]);
    file.push(b'\n');
    file.extend_from_slice(b"\xfe\xff{\n");
    file.extend_from_slice(said("a1", Some("u1"), "Coffee.").to_string().as_bytes());
    file.push(b'\n');
    let s = parse(&file, 0);
    assert_eq!(
        turns(&s),
        [
            (Role::User, "caf\u{fffd} au lait"),
            (Role::Assistant, "Coffee.")
        ]
    );
    assert_eq!(s.bad_lines, [2]);
}

#[test]
fn empty_input_yields_an_empty_session() {
    assert_eq!(parse(b"", 0), Session::default());
    assert_eq!(parse(b"", 42), Session::default());
    assert_eq!(parse(b"\n\n", 0).end, 2);
}

#[test]
fn a_resumed_file_with_two_roots_reads_as_one_conversation() {
    let file = jsonl(&[
        user("u1", None, json!("Monday's question.")),
        said("a1", Some("u1"), "Monday's answer."),
        user("u2", None, json!("Tuesday's question.")),
        said("a2", Some("u2"), "Tuesday's answer."),
        user(
            "u3",
            Some("gone-from-this-file"),
            json!("Wednesday's question."),
        ),
    ]);
    let s = parse(file.as_bytes(), 0);
    assert_eq!(
        turns(&s),
        [
            (Role::User, "Monday's question."),
            (Role::Assistant, "Monday's answer."),
            (Role::User, "Tuesday's question."),
            (Role::Assistant, "Tuesday's answer."),
            (Role::User, "Wednesday's question."),
        ]
    );
}

#[test]
fn a_parent_cycle_ends_the_walk_instead_of_looping() {
    let file = jsonl(&[
        user("u1", Some("a1"), json!("Round and round.")),
        said("a1", Some("u1"), "Again."),
    ]);
    let s = parse(file.as_bytes(), 0);
    assert_eq!(
        turns(&s),
        [
            (Role::User, "Round and round."),
            (Role::Assistant, "Again.")
        ]
    );
}

#[test]
fn a_very_deep_chain_is_walked_without_recursion() {
    let n = 50_000;
    let mut file = String::new();
    for i in 0..n {
        let parent = (i > 0).then(|| format!("p{}", i - 1));
        let v = if i % 2 == 0 {
            user(&format!("p{i}"), parent.as_deref(), json!(format!("q{i}")))
        } else {
            said(&format!("p{i}"), parent.as_deref(), &format!("a{i}"))
        };
        file.push_str(&v.to_string());
        file.push('\n');
    }
    let s = parse(file.as_bytes(), 0);
    assert_eq!(s.turns.len(), n);
    assert_eq!(s.turns[n - 1].turn.text, format!("a{}", n - 1));
}

#[test]
fn skipped_counts_print_only_what_is_non_zero() {
    let skipped = Skipped {
        tool: 3,
        meta: 1,
        ..Skipped::default()
    };
    assert_eq!(skipped.to_string(), "meta 1, tool 3");
    assert_eq!(Skipped::default().to_string(), "nothing");
}

/// Pieces that make up plausible and implausible session files.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    let lines: Vec<Vec<u8>> = SAMPLE
        .lines()
        .chain(SAMPLE_2.lines())
        .map(|l| format!("{l}\n").into_bytes())
        .collect();
    prop_oneof![
        prop::sample::select(lines.clone()),
        (prop::sample::select(lines), any::<prop::sample::Index>()).prop_map(|(l, i)| {
            let cut = i.index(l.len());
            l[..cut].to_vec()
        }),
        prop::collection::vec(any::<u8>(), 0..40),
        Just(b"\n".to_vec()),
        Just(br#"{"type":"user","uuid":"x","parentUuid":"x","message":{"content":"hi"}}"#.to_vec()),
    ]
}

proptest! {
    #[test]
    fn parse_never_panics_and_ends_on_a_line_boundary(
        pieces in prop::collection::vec(fragment(), 0..12),
        from in any::<prop::sample::Index>(),
    ) {
        let bytes: Vec<u8> = pieces.concat();
        let from = from.index(bytes.len() + 8);
        let s = parse(&bytes, from);
        prop_assert!(s.end <= bytes.len());
        prop_assert!(s.end >= from.min(bytes.len()));
        prop_assert!(s.end == 0 || s.end == bytes.len() || bytes[s.end - 1] == b'\n');
        for t in &s.turns {
            prop_assert!(t.offset >= from && t.offset < bytes.len());
            prop_assert!(t.offset == 0 || bytes[t.offset - 1] == b'\n');
        }
        // The scan hashes up to `records_end`: it must stop where the parser does.
        prop_assert_eq!(parse(&bytes, 0).end, crate::claude_code::project::records_end(&bytes));
    }
}

/// 20 MB sessions to see what a big read costs, one whose bulk is tool results carrying
/// whole files and one of many short chatty turns:
/// `cargo test --release --lib claude_code::session::tests::a_20_mb -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn a_20_mb_session_parses_in_bounded_time_and_memory() {
    measure_20_mb(
        "tool-heavy",
        &"fn main() { println!(\"hello\"); }\n".repeat(3_000),
    );
    measure_20_mb("chatty", "ok");
}

fn measure_20_mb(name: &str, payload: &str) {
    let mut file = String::new();
    let mut parent: Option<String> = None;
    let mut i = 0;
    while file.len() < 20 << 20 {
        let (q, a, t, r) = (
            format!("q{i}"),
            format!("a{i}"),
            format!("t{i}"),
            format!("r{i}"),
        );
        for v in [
            user(&q, parent.as_deref(), json!(format!("Question {i}?"))),
            tool_use(&t, &q, &format!("msg_{i}")),
            tool_result(&r, &t, payload),
            said(&a, Some(&r), &format!("Answer {i}.")),
        ] {
            file.push_str(&v.to_string());
            file.push('\n');
        }
        parent = Some(a);
        i += 1;
    }
    let hwm = || {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmHWM"))
                    .map(str::to_owned)
            })
    };
    let before = hwm();
    let started = std::time::Instant::now();
    let s = parse(file.as_bytes(), 0);
    let took = started.elapsed();
    println!(
        "{name}: {} MB, {} lines, {} turns: {took:?}; peak RSS before {before:?}, after {:?}",
        file.len() >> 20,
        i * 4,
        s.turns.len(),
        hwm()
    );
    assert_eq!(s.turns.len(), i * 2);
}

/// Sessions Claude Code 2.1.197 wrote against a loopback mock of the Messages API (whose
/// answers are the `MOCK-REPLY-…` texts): see `fixtures/claude-code/SOURCE.md`.
const INTERACTIVE: &str =
    include_str!("../../../fixtures/claude-code/2.1.197/interactive-interrupt.jsonl");
const BRANCH_THEN_COMPACT: &str =
    include_str!("../../../fixtures/claude-code/2.1.197/branch-then-compact.jsonl");
const FORK: &str = include_str!("../../../fixtures/claude-code/2.1.197/fork.jsonl");
const PRINT_RUN: &str = include_str!("../../../fixtures/claude-code/2.1.197/print-run.jsonl");

fn texts_of(s: &Session, role: Role) -> Vec<String> {
    s.turns
        .iter()
        .filter(|t| t.turn.role == role)
        .map(|t| t.turn.text.clone())
        .collect()
}

#[test]
fn a_real_interactive_session_keeps_both_prompts_around_an_escape() {
    let s = parse(INTERACTIVE.as_bytes(), 0);
    assert_eq!(
        texts_of(&s, Role::User),
        ["please interrupt me", "second prompt after interrupt"]
    );
    let answers = texts_of(&s, Role::Assistant).join("\n");
    assert!(answers.contains("MOCK-REPLY-95628425-3"), "{answers}");
    assert!(
        !answers.contains("MOCK-REPLY-95628425-2"),
        "the partial answer Claude Code saved as <synthetic> stays out: {answers}"
    );
    assert_eq!(s.skipped.interrupted, 1, "{}", s.skipped);
    assert_eq!(s.skipped.api_error, 1, "{}", s.skipped);
    assert_eq!(s.end, INTERACTIVE.len());
}

#[test]
fn a_real_rewind_and_compaction_read_along_the_active_branch_and_prompts_sent_by_a_program_stay_out()
 {
    // `claude -p` turn one, two, three; `--resume-session-at` the first answer and a new
    // prompt; `/compact`; one more prompt.
    let s = parse(BRANCH_THEN_COMPACT.as_bytes(), 0);
    assert!(
        texts_of(&s, Role::User).is_empty(),
        "every prompt was sent by `claude -p`: {:?}",
        texts_of(&s, Role::User)
    );
    // Five prompts, and `/compact` with its output, all sent in `-p` runs.
    assert_eq!(s.skipped.scripted, 7, "{}", s.skipped);
    let answers = texts_of(&s, Role::Assistant).join("\n");
    for kept in [
        "MOCK-REPLY-95434713-1",
        "MOCK-REPLY-95444114-1",
        "MOCK-REPLY-95484621-1",
    ] {
        assert!(answers.contains(kept), "{kept} is on the branch: {answers}");
    }
    for rewound in ["MOCK-REPLY-95435484-1", "MOCK-REPLY-95436229-1"] {
        assert!(
            !answers.contains(rewound),
            "{rewound} was rewound: {answers}"
        );
    }
    assert!(
        !answers.contains("No response requested"),
        "the <synthetic> answer after a compaction stays out"
    );
    assert_eq!(s.skipped.compact_summary, 1, "{}", s.skipped);
    assert_eq!(s.skipped.rewound, 2, "{}", s.skipped);
}

#[test]
fn a_real_fork_copies_the_records_it_forks_uuids_and_all() {
    let original = parse(BRANCH_THEN_COMPACT.as_bytes(), 0);
    let fork = parse(FORK.as_bytes(), 0);
    assert_ne!(fork.session_id, original.session_id);
    let first = |s: &Session| s.turns.first().and_then(|t| t.uuid.clone());
    assert!(first(&fork).is_some());
    assert_eq!(first(&fork), first(&original), "the same record, copied");
    assert!(
        texts_of(&fork, Role::Assistant)
            .join("\n")
            .contains("MOCK-REPLY-95448464-1")
    );
}

#[test]
fn a_real_print_run_holds_no_typed_words() {
    let s = parse(PRINT_RUN.as_bytes(), 0);
    assert!(texts_of(&s, Role::User).is_empty());
    assert_eq!(s.skipped.scripted, 1, "{}", s.skipped);
    assert!(s.cwd.is_some() && s.session_id.is_some());
}

#[test]
fn a_text_led_by_a_tag_claude_code_would_not_call_a_prompt_is_not_typed() {
    let lines = [
        user(
            "u1",
            None,
            json!("<teammate-message from=\"ana\">ship it</teammate-message>"),
        ),
        user("u2", Some("u1"), json!("<b>bold</b> is what I meant")),
        user("u3", Some("u2"), json!("I use <kbd> tags in docs")),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let s = parse(text.as_bytes(), 0);
    assert_eq!(texts_of(&s, Role::User), ["I use <kbd> tags in docs"]);
    assert_eq!(s.skipped.wrapped, 2, "{}", s.skipped);
}
