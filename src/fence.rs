//! The insights fence in a vault's `CLAUDE.md`: finding memloop's marker lines, splicing a
//! new block between them (or appending one), and stripping fenced spans out of text that is
//! about to be fed to an extractor.
//!
//! Pure and byte-oriented: a user's `CLAUDE.md` may carry a BOM, CRLF endings or invalid
//! UTF-8, and every byte outside the two marker lines must survive untouched. Marker lines
//! inside a fenced code block (``` or ~~~, as CommonMark reads them) are the user's example,
//! not the fence: docs about memloop show the markers. This module does not read or write
//! files and does not render the block's content (see `render`).

use std::borrow::Cow;
use std::ops::Range;

/// The line that opens memloop's block in a `CLAUDE.md`.
pub const BEGIN: &str = "<!-- memory-loop:insights:begin -->";
/// The line that closes memloop's block in a `CLAUDE.md`.
pub const END: &str = "<!-- memory-loop:insights:end -->";

/// What the fence holds when there are no insights but the markers are already there:
/// the user chose the spot, so the block stays, just empty.
const EMPTY_BLOCK: &str = "## Memory Loop Insights\n";

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Marker lines that do not pair up; the document must be left alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FenceError {
    /// A begin marker with no end marker after it.
    #[error("insights begin marker on line {line} has no end marker")]
    BeginWithoutEnd {
        /// 1-based line of the begin marker.
        line: usize,
    },
    /// A second begin marker, either inside the fence or after a complete one.
    #[error("second insights begin marker on line {line}")]
    DuplicateBegin {
        /// 1-based line of the second begin marker.
        line: usize,
    },
    /// An end marker with no open begin marker before it.
    #[error("insights end marker on line {line} has no begin marker before it")]
    EndWithoutBegin {
        /// 1-based line of the stray end marker.
        line: usize,
    },
    /// A code block opened inside the fence is never closed, so it hides the end marker.
    #[error(
        "the code block opened on line {code} inside the insights fence (begun on line {begin}) is never closed, so the end marker is part of it: close the code block"
    )]
    CodeBlockInFence {
        /// 1-based line of the begin marker.
        begin: usize,
        /// 1-based line of the unclosed code fence.
        code: usize,
    },
    /// The block to write would not read back as the fence written (it holds a code fence
    /// that joins up with the text around it).
    #[error(
        "the insights to write hold a code fence that would not read back as memloop's block; the file was left untouched"
    )]
    BlockBreaksFence,
    /// No fence, and the document ends inside a code block: an appended block would be
    /// part of it (and never found again).
    #[error(
        "the code block opened on line {line} is never closed, so insights appended at the end would land inside it: close the code block, or put the insights markers before it"
    )]
    UnclosedCodeBlock {
        /// 1-based line of the unclosed code fence.
        line: usize,
    },
}

/// Byte ranges of a well-formed fence inside a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    /// The begin marker line, including its line ending.
    pub begin: Range<usize>,
    /// Everything between the two marker lines.
    pub inner: Range<usize>,
    /// The end marker line, including its line ending if it has one.
    pub end: Range<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Begin,
    End,
}

/// Locates the fence, if any; errors when the markers are malformed. Marker lines inside a
/// fenced code block are not markers.
pub fn find(doc: &[u8]) -> Result<Option<Fence>, FenceError> {
    Ok(scan(doc)?.fence)
}

/// What a pass over the document found: the fence, and the code block left open at its end.
struct Scanned {
    fence: Option<Fence>,
    /// 1-based line of a code fence never closed.
    open_code: Option<usize>,
}

fn scan(doc: &[u8]) -> Result<Scanned, FenceError> {
    let mut open: Option<(usize, Range<usize>)> = None;
    let mut found: Option<Fence> = None;
    let mut code: Option<(CodeFence, usize)> = None;
    for (index, line) in lines(doc).enumerate() {
        let number = index + 1;
        let text = &doc[line.clone()];
        let text = if index == 0 {
            text.strip_prefix(UTF8_BOM).unwrap_or(text)
        } else {
            text
        };
        if let Some((fence, _)) = code {
            if fence.closes(text) {
                code = None;
            }
            continue;
        }
        if let Some(fence) = CodeFence::opens(text) {
            code = Some((fence, number));
            continue;
        }
        match (marker(text), &open) {
            (None, _) => {}
            (Some(Marker::Begin), Some(_)) => {
                return Err(FenceError::DuplicateBegin { line: number });
            }
            (Some(Marker::Begin), None) if found.is_some() => {
                return Err(FenceError::DuplicateBegin { line: number });
            }
            (Some(Marker::Begin), None) => open = Some((number, line)),
            (Some(Marker::End), None) => return Err(FenceError::EndWithoutBegin { line: number }),
            (Some(Marker::End), Some((_, begin))) => {
                found = Some(Fence {
                    begin: begin.clone(),
                    inner: begin.end..line.start,
                    end: line,
                });
                open = None;
            }
        }
    }
    match (open, code) {
        (Some((begin, _)), Some((_, code))) => Err(FenceError::CodeBlockInFence { begin, code }),
        (Some((line, _)), None) => Err(FenceError::BeginWithoutEnd { line }),
        (None, code) => Ok(Scanned {
            fence: found,
            open_code: code.map(|(_, line)| line),
        }),
    }
}

/// A line that opens a fenced code block, as CommonMark reads it: up to three spaces, then
/// three or more backticks or tildes (an info string after backticks holds no backtick).
#[derive(Debug, Clone, Copy)]
struct CodeFence {
    ch: u8,
    len: usize,
}

impl CodeFence {
    fn opens(line: &[u8]) -> Option<Self> {
        let (ch, len, rest) = fence_run(line)?;
        (ch == b'~' || !rest.contains(&b'`')).then_some(Self { ch, len })
    }

    /// Whether `line` closes this block: the same character, at least as many, then only
    /// spaces or tabs.
    fn closes(self, line: &[u8]) -> bool {
        fence_run(line).is_some_and(|(ch, len, rest)| {
            ch == self.ch && len >= self.len && rest.iter().all(|b| b.is_ascii_whitespace())
        })
    }
}

/// The fence character, its run length and the rest of the line, when `line` (up to three
/// spaces of indent) starts with three or more backticks or tildes.
fn fence_run(line: &[u8]) -> Option<(u8, usize, &[u8])> {
    let indent = line.iter().take_while(|&&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let line = &line[indent..];
    let ch = *line.first().filter(|&&b| b == b'`' || b == b'~')?;
    let len = line.iter().take_while(|&&b| b == ch).count();
    (len >= 3).then(|| (ch, len, &line[len..]))
}

/// The text between the marker lines (lossy UTF-8), or `None` without a fence.
pub fn inner(doc: &[u8]) -> Result<Option<String>, FenceError> {
    Ok(find(doc)?.map(|fence| String::from_utf8_lossy(&doc[fence.inner]).into_owned()))
}

/// Puts `block` (inner content, `\n` endings) into the document's fence.
///
/// With markers, only the bytes between the marker lines change; `None` (or a blank block)
/// leaves just the heading there. Without markers, a block is appended after a blank line
/// and `None` leaves the document alone. Returns `Ok(None)` whenever the result would equal
/// the input, so callers can skip the write. Marker lines inside `block` are dropped: a block
/// can never open or close a fence of its own. A document that ends inside a code block
/// gets nothing appended (an error): the block would be code, and never found again.
pub fn splice(doc: &[u8], block: Option<&str>) -> Result<Option<Vec<u8>>, FenceError> {
    let out = splice_once(doc, block)?;
    // What is written must read back as the fence written: a block holding a code fence
    // could join up with text around it (found by the `fence` fuzz target), and the next
    // splice would then replace more than memloop's block. Such a splice is refused.
    if let Some(out) = &out
        && splice_once(out, block) != Ok(None)
    {
        return Err(FenceError::BlockBreaksFence);
    }
    Ok(out)
}

fn splice_once(doc: &[u8], block: Option<&str>) -> Result<Option<Vec<u8>>, FenceError> {
    let block = block.filter(|b| !b.trim().is_empty());
    let scanned = scan(doc)?;
    let out = match (scanned.fence, block, scanned.open_code) {
        (Some(fence), block, _) => replace_inner(doc, &fence, block.unwrap_or(EMPTY_BLOCK)),
        (None, Some(_), Some(line)) => return Err(FenceError::UnclosedCodeBlock { line }),
        (None, Some(block), None) => append(doc, block),
        (None, None, _) => return Ok(None),
    };
    // A block whose own code fence is left open would hide the end marker: the document
    // could not be read back, so it is not written (found by the `fence` fuzz target).
    Ok((out != doc).then_some(out))
}

fn replace_inner(doc: &[u8], fence: &Fence, block: &str) -> Vec<u8> {
    let eol = if doc[fence.begin.clone()].ends_with(b"\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let mut out = Vec::with_capacity(doc.len() + block.len());
    out.extend_from_slice(&doc[..fence.inner.start]);
    push_block(&mut out, block, eol);
    out.extend_from_slice(&doc[fence.inner.end..]);
    out
}

fn append(doc: &[u8], block: &str) -> Vec<u8> {
    let eol = first_line_ending(doc);
    let mut out = Vec::with_capacity(doc.len() + block.len() + BEGIN.len() + END.len() + 8);
    out.extend_from_slice(doc);
    if !doc.is_empty() {
        if !doc.ends_with(b"\n") {
            out.extend_from_slice(eol.as_bytes());
        }
        if !ends_with_blank_line(&out) {
            out.extend_from_slice(eol.as_bytes());
        }
    }
    out.extend_from_slice(BEGIN.as_bytes());
    out.extend_from_slice(eol.as_bytes());
    push_block(&mut out, block, eol);
    out.extend_from_slice(END.as_bytes());
    out.extend_from_slice(eol.as_bytes());
    out
}

/// Removes every `BEGIN..END` span (markers included). A `BEGIN` with no `END` after it is
/// not memloop's output but someone quoting a marker: the text is kept.
///
/// Matches markers anywhere, not only as whole lines, because transcripts quote files inside
/// blockquotes and tool output; memloop's own output must never be extracted again.
/// Text without a marker (nearly every transcript) comes back borrowed, not copied: a
/// 50 MB chat is not held twice over.
#[must_use]
pub fn strip(text: &str) -> Cow<'_, str> {
    if !text.contains(BEGIN) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(BEGIN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + BEGIN.len()..];
        let Some(end) = after.find(END) else {
            out.push_str(&rest[start..]);
            return Cow::Owned(out);
        };
        rest = &after[end + END.len()..];
        // A fence that filled whole lines should not leave an empty line behind.
        if out.is_empty() || out.ends_with('\n') {
            rest = rest
                .strip_prefix("\r\n")
                .or_else(|| rest.strip_prefix('\n'))
                .unwrap_or(rest);
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Byte ranges of each line, line ending included.
fn lines(doc: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= doc.len() {
            return None;
        }
        let end = doc[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(doc.len(), |i| start + i + 1);
        let line = start..end;
        start = end;
        Some(line)
    })
}

/// The marker a line is (a first line's BOM already stripped).
fn marker(line: &[u8]) -> Option<Marker> {
    let content = line.trim_ascii_end();
    if content == BEGIN.as_bytes() {
        Some(Marker::Begin)
    } else if content == END.as_bytes() {
        Some(Marker::End)
    } else {
        None
    }
}

fn first_line_ending(doc: &[u8]) -> &'static str {
    match doc.iter().position(|&b| b == b'\n') {
        Some(i) if i > 0 && doc[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Whether the last line of `out` (which ends in `\n`) holds nothing but whitespace: an
/// appended block should follow one blank line, never two.
fn ends_with_blank_line(out: &[u8]) -> bool {
    let body = &out[..out.len() - 1];
    let start = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    body[start..].trim_ascii().is_empty()
}

fn push_block(out: &mut Vec<u8>, block: &str, eol: &str) {
    for line in block.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        let content = content.strip_suffix('\r').unwrap_or(content);
        if marker(content.as_bytes()).is_some() {
            continue;
        }
        out.extend_from_slice(content.as_bytes());
        out.extend_from_slice(eol.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const BLOCK: &str = "## Memory Loop Insights\n\n- a\n- b\n";

    fn fenced(begin_eol: &str, inner: &str, end_eol: &str) -> String {
        format!("{BEGIN}{begin_eol}{inner}{END}{end_eol}")
    }

    #[test]
    fn find_reports_ranges_of_each_part() {
        let doc = format!("# Title\n{}tail", fenced("\n", "old\n", "\n"));
        let fence = find(doc.as_bytes()).unwrap().unwrap();
        assert_eq!(&doc[fence.begin], format!("{BEGIN}\n"));
        assert_eq!(&doc[fence.inner], "old\n");
        assert_eq!(&doc[fence.end], format!("{END}\n"));
    }

    #[test]
    fn markers_are_recognised_with_trailing_space_cr_and_bom_only() {
        let cases: &[(&str, bool)] = &[
            ("{B}\n{E}\n", true),
            ("{B}  \t\r\n{E}\r\n", true),
            ("\u{feff}{B}\n{E}", true),
            (" {B}\n {E}\n", false),
            ("> {B}\n> {E}\n", false),
            ("{B}x\n{E}x\n", false),
            ("text {B}\ntext {E}\n", false),
        ];
        for (template, expect) in cases {
            let doc = template.replace("{B}", BEGIN).replace("{E}", END);
            let got = find(doc.as_bytes()).unwrap().is_some();
            assert_eq!(got, *expect, "{doc:?}");
        }
    }

    #[test]
    fn malformed_markers_are_errors_naming_the_line() {
        let cases: &[(&str, FenceError)] = &[
            ("a\n{B}\nb\n", FenceError::BeginWithoutEnd { line: 2 }),
            ("{B}\n{B}\n{E}\n", FenceError::DuplicateBegin { line: 2 }),
            (
                "{B}\n{E}\nx\n{B}\n{E}\n",
                FenceError::DuplicateBegin { line: 4 },
            ),
            ("x\n{E}\n{B}\n", FenceError::EndWithoutBegin { line: 2 }),
            ("{B}\n{E}\n{E}\n", FenceError::EndWithoutBegin { line: 3 }),
        ];
        for (template, expect) in cases {
            let doc = template.replace("{B}", BEGIN).replace("{E}", END);
            assert_eq!(find(doc.as_bytes()), Err(*expect), "{doc:?}");
            assert_eq!(splice(doc.as_bytes(), Some(BLOCK)), Err(*expect));
            assert_eq!(splice(doc.as_bytes(), None), Err(*expect));
        }
    }

    #[test]
    fn error_messages_name_the_line() {
        assert_eq!(
            FenceError::BeginWithoutEnd { line: 7 }.to_string(),
            "insights begin marker on line 7 has no end marker"
        );
        assert!(
            FenceError::DuplicateBegin { line: 3 }
                .to_string()
                .contains("line 3")
        );
        assert!(
            FenceError::EndWithoutBegin { line: 9 }
                .to_string()
                .contains("line 9")
        );
    }

    #[test]
    fn inner_returns_text_between_markers() {
        let doc = format!("x\n{}", fenced("\n", "## H\n\n- \u{e9}\n", ""));
        assert_eq!(
            inner(doc.as_bytes()).unwrap().as_deref(),
            Some("## H\n\n- \u{e9}\n")
        );
        assert_eq!(inner(b"no fence\n").unwrap(), None);
    }

    #[test]
    fn splice_table() {
        let b = BEGIN;
        let e = END;
        let cases: Vec<(&str, String, Option<&str>, Option<String>)> = vec![
            (
                "empty doc gets just the block",
                String::new(),
                Some(BLOCK),
                Some(fenced("\n", BLOCK, "\n")),
            ),
            (
                "empty doc without block untouched",
                String::new(),
                None,
                None,
            ),
            (
                "no markers, no block: untouched",
                "# T\n".into(),
                None,
                None,
            ),
            (
                "appended after a blank line",
                "# T\n".into(),
                Some(BLOCK),
                Some(format!("# T\n\n{}", fenced("\n", BLOCK, "\n"))),
            ),
            (
                "missing final newline added first",
                "# T".into(),
                Some(BLOCK),
                Some(format!("# T\n\n{}", fenced("\n", BLOCK, "\n"))),
            ),
            (
                "existing blank line not doubled",
                "# T\n\n".into(),
                Some(BLOCK),
                Some(format!("# T\n\n{}", fenced("\n", BLOCK, "\n"))),
            ),
            (
                "a lone blank line counts as the blank line",
                "\n".into(),
                Some(BLOCK),
                Some(format!("\n{}", fenced("\n", BLOCK, "\n"))),
            ),
            (
                "crlf document appends with crlf",
                "# T\r\nbody".into(),
                Some(BLOCK),
                Some(format!(
                    "# T\r\nbody\r\n\r\n{b}\r\n## Memory Loop Insights\r\n\r\n- a\r\n- b\r\n{e}\r\n"
                )),
            ),
            (
                "replaces only the inner part",
                format!("top\n{}bottom", fenced("\n", "old\n", "\n")),
                Some(BLOCK),
                Some(format!("top\n{}bottom", fenced("\n", BLOCK, "\n"))),
            ),
            (
                "none empties the fence to its heading",
                format!("top\n{}", fenced("\n", "old\n", "")),
                None,
                Some(format!("top\n{}", fenced("\n", EMPTY_BLOCK, ""))),
            ),
            (
                "crlf begin line makes crlf inner lines",
                format!("top\n{}", fenced("\r\n", "old\r\n", "\n")),
                Some("- x\n"),
                Some(format!("top\n{}", fenced("\r\n", "- x\r\n", "\n"))),
            ),
            (
                "unchanged content is none",
                format!("top\n{}", fenced("\n", BLOCK, "\n")),
                Some(BLOCK),
                None,
            ),
            (
                "blank block is treated like none",
                "# T\n".into(),
                Some("  \n"),
                None,
            ),
            (
                "marker lines inside the block are dropped",
                String::new(),
                Some("- a\n<!-- memory-loop:insights:end -->\n- b"),
                Some(fenced("\n", "- a\n- b\n", "\n")),
            ),
        ];
        for (name, doc, block, expect) in cases {
            let got = splice(doc.as_bytes(), block).unwrap();
            assert_eq!(got, expect.map(String::into_bytes), "{name}");
        }
    }

    #[test]
    fn markers_inside_a_code_block_are_the_users_example() {
        // (document, 1-based line of the real begin marker, if any)
        let cases: &[(&str, Option<usize>)] = &[
            ("# T\n```md\n{B}\n- example\n{E}\n```\n", None),
            ("~~~\n{B}\n{E}\n~~~\n", None),
            ("```\n{B}\n{E}\n```\n{B}\n- real\n{E}\n", Some(5)),
            ("   ```\n{B}\n{E}\n   ```\n", None),
            ("\u{feff}```\n{B}\n{E}\n```\n", None),
            ("```\r\n{B}\r\n{E}\r\n```\r\n{B}\r\n{E}\r\n", Some(5)),
            // Four spaces is no fence (an indented code line): the markers are real.
            ("    ```\n{B}\n{E}\n", Some(2)),
            // Backticks with a backtick after them are inline code, not a fence.
            ("``` a`b\n{B}\n{E}\n", Some(2)),
            // Closed only by the same character, at least as long, with nothing after it.
            ("````\n{B}\n```\n{E}\n````\n", None),
            ("~~~\n{B}\n```\n{E}\n~~~\n", None),
            ("```\n{B}\n``` x\n{E}\n```\n", None),
            ("```\n{B}\n```  \t\n{B}\n{E}\n", Some(4)),
            // Stray or doubled markers inside an example are no error.
            ("```\n{E}\n{B}\n```\n{B}\n{E}\n", Some(5)),
            ("{B}\n```\n{B}\n{E}\n```\n{E}\n", Some(1)),
            // An unclosed code block runs to the end of the document.
            ("```\n{B}\n{E}\n", None),
        ];
        for (template, begin) in cases {
            let doc = template.replace("{B}", BEGIN).replace("{E}", END);
            let found = find(doc.as_bytes()).unwrap_or_else(|e| panic!("{doc:?}: {e}"));
            let line = found.map(|f| doc[..f.begin.start].matches('\n').count() + 1);
            assert_eq!(line, *begin, "{doc:?}");
        }
    }

    #[test]
    fn a_code_example_is_kept_byte_for_byte_and_the_block_goes_after_it() {
        let example = format!("# Docs\n\n```markdown\n{BEGIN}\n- example bullet\n{END}\n```\n");
        let out = splice(example.as_bytes(), Some(BLOCK)).unwrap().unwrap();
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            format!("{example}\n{}", fenced("\n", BLOCK, "\n"))
        );
        assert_eq!(inner_of(&out), BLOCK);
        assert_eq!(splice(&out, Some(BLOCK)), Ok(None), "found again");
        // With a real fence after the example, only the real one changes.
        let doc = format!("{example}{}tail\n", fenced("\n", "- old\n", "\n"));
        let out = splice(doc.as_bytes(), Some(BLOCK)).unwrap().unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("{example}{}tail\n", fenced("\n", BLOCK, "\n"))
        );
    }

    #[test]
    fn an_unclosed_code_block_is_never_appended_into() {
        let doc = format!("# T\n```\n{BEGIN}\n{END}\n");
        assert_eq!(
            splice(doc.as_bytes(), Some(BLOCK)),
            Err(FenceError::UnclosedCodeBlock { line: 2 })
        );
        assert_eq!(
            splice(doc.as_bytes(), None),
            Ok(None),
            "nothing to add: untouched"
        );
        let inside = format!("{BEGIN}\n- a\n~~~\n{END}\n");
        let e = find(inside.as_bytes()).unwrap_err();
        assert_eq!(e, FenceError::CodeBlockInFence { begin: 1, code: 3 });
        assert!(e.to_string().contains("line 3"), "{e}");
        assert!(
            FenceError::UnclosedCodeBlock { line: 2 }
                .to_string()
                .contains("line 2")
        );
    }

    #[test]
    fn splice_keeps_bom_and_invalid_utf8_outside() {
        let mut doc = b"\xEF\xBB\xBF# T\xFF\xFE\n".to_vec();
        doc.extend_from_slice(fenced("\n", "old\n", "\n").as_bytes());
        doc.extend_from_slice(b"\x80tail");
        let out = splice(&doc, Some(BLOCK)).unwrap().unwrap();
        let mut expect = b"\xEF\xBB\xBF# T\xFF\xFE\n".to_vec();
        expect.extend_from_slice(fenced("\n", BLOCK, "\n").as_bytes());
        expect.extend_from_slice(b"\x80tail");
        assert_eq!(out, expect);
    }

    #[test]
    fn strip_table() {
        let cases: Vec<(String, String)> = vec![
            ("plain".into(), "plain".into()),
            (
                format!("a\n{}b\n", fenced("\n", "- x\n", "\n")),
                "a\nb\n".into(),
            ),
            (
                format!("a\n{}", fenced("\r\n", "- x\r\n", "\r\n")),
                "a\n".into(),
            ),
            (
                format!("a {BEGIN} x {END} b {BEGIN} y {END} c"),
                "a  b  c".into(),
            ),
            (
                format!("> {BEGIN}\n> - x\n> {END}\nnext"),
                "> \nnext".into(),
            ),
            (
                format!("a\n{BEGIN}\n- x\nmore"),
                format!("a\n{BEGIN}\n- x\nmore"),
            ),
            (format!("a {END} b"), format!("a {END} b")),
        ];
        for (input, expect) in cases {
            assert_eq!(strip(&input), expect, "{input:?}");
        }
    }

    /// Lines that look like markers but are not, and bytes that are not UTF-8.
    fn line() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..12),
            Just(format!(" {BEGIN}").into_bytes()),
            Just(format!("{END}.").into_bytes()),
            Just(format!("> {BEGIN}").into_bytes()),
            Just(BEGIN.to_uppercase().into_bytes()),
            Just(b"\xEF\xBB\xBF".to_vec()),
            Just(Vec::new()),
            Just(b"```".to_vec()),
            Just(b"~~~~ md".to_vec()),
            "[ -~]{0,20}".prop_map(String::into_bytes),
        ]
    }

    fn text() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec((line(), prop_oneof![Just("\n"), Just("\r\n")]), 0..6).prop_map(
            |lines| {
                let mut out = Vec::new();
                for (line, eol) in lines {
                    out.extend_from_slice(&line);
                    out.extend_from_slice(eol.as_bytes());
                }
                out
            },
        )
    }

    fn block() -> impl Strategy<Value = Option<String>> {
        proptest::option::of(
            proptest::collection::vec("[a-z <>!-]{0,12}", 0..4).prop_map(|items| {
                let mut out = String::from("## Memory Loop Insights\n\n");
                for item in items {
                    out.push_str("- ");
                    out.push_str(&item);
                    out.push('\n');
                }
                out
            }),
        )
    }

    fn eol() -> impl Strategy<Value = &'static str> {
        prop_oneof![Just("\n"), Just("\r\n")]
    }

    proptest! {
        #[test]
        fn splice_never_touches_bytes_outside_the_markers(
            prefix in text(), inner in text(), suffix in text(), tail in line(),
            begin_eol in eol(), end_eol in eol(), block in block(),
        ) {
            prop_assume!(find(&prefix) == Ok(None) && find(&suffix) == Ok(None));
            prop_assume!(find(&inner) == Ok(None) && find(&tail) == Ok(None));
            // Text before the fence or in it that leaves a code block open makes the
            // markers code (see `markers_inside_a_code_block_are_the_users_example`).
            prop_assume!(outside_code(&prefix) && outside_code(&inner));
            let mut suffix = suffix;
            suffix.extend_from_slice(&tail);
            let head = [prefix.as_slice(), BEGIN.as_bytes(), begin_eol.as_bytes()].concat();
            let foot = [END.as_bytes(), end_eol.as_bytes(), suffix.as_slice()].concat();
            let doc = [head.as_slice(), inner.as_slice(), foot.as_slice()].concat();
            let out = splice(&doc, block.as_deref()).unwrap().unwrap_or_else(|| doc.clone());
            prop_assert!(out.starts_with(&head));
            prop_assert!(out.ends_with(&foot));
            prop_assert!(out.len() >= head.len() + foot.len());
            let expect = block.as_deref().filter(|b| !b.trim().is_empty()).unwrap_or(EMPTY_BLOCK);
            let got = inner_of(&out);
            prop_assert_eq!(got.replace("\r\n", "\n"), expect);
            prop_assert_eq!(splice(&out, block.as_deref()), Ok(None));
        }

        #[test]
        fn splice_appends_after_unmarked_documents(doc in text(), tail in line(), block in block()) {
            let mut doc = doc;
            doc.extend_from_slice(&tail);
            prop_assume!(find(&doc) == Ok(None) && outside_code(&doc));
            let out = splice(&doc, block.as_deref()).unwrap();
            match block.as_deref().filter(|b| !b.trim().is_empty()) {
                None => prop_assert_eq!(out, None),
                Some(b) => {
                    let out = out.unwrap();
                    prop_assert!(out.starts_with(&doc));
                    prop_assert_eq!(inner_of(&out).replace("\r\n", "\n"), b);
                    prop_assert_eq!(splice(&out, Some(b)), Ok(None));
                }
            }
        }

        #[test]
        fn a_document_ending_in_a_code_block_is_never_appended_to(
            doc in text(), fence in prop_oneof![Just("```\n"), Just("~~~\n")], tail in text(),
            block in block(),
        ) {
            prop_assume!(outside_code(&doc));
            let doc = [doc.as_slice(), fence.as_bytes(), tail.as_slice()].concat();
            prop_assume!(!outside_code(&doc));
            match splice(&doc, block.as_deref()) {
                Ok(out) => prop_assert_eq!(out, None),
                Err(e) => {
                    let unclosed = matches!(e, FenceError::UnclosedCodeBlock { .. });
                    prop_assert!(unclosed, "{}", e);
                }
            }
        }

        #[test]
        fn malformed_documents_are_errors(
            a in text(), b in text(), c in text(), kind in 0..3usize, block in block(),
        ) {
            prop_assume!([&a, &b, &c].iter().all(|t| find(t) == Ok(None)) && outside_code(&a));
            let first = if kind == 2 { END } else { BEGIN };
            let second = if kind == 1 { format!("{BEGIN}\n") } else { String::new() };
            let doc = [a.as_slice(), first.as_bytes(), b"\n", b.as_slice(), second.as_bytes(), c.as_slice()].concat();
            prop_assert!(find(&doc).is_err());
            prop_assert!(splice(&doc, block.as_deref()).is_err());
        }
    }

    /// Whether `doc` leaves no code block open at its end.
    fn outside_code(doc: &[u8]) -> bool {
        scan(doc).is_ok_and(|s| s.open_code.is_none())
    }

    fn inner_of(doc: &[u8]) -> String {
        inner(doc).unwrap().unwrap()
    }

    /// Found by the `fence` fuzz target: a block that opens a code block and never closes
    /// it would swallow the end marker; such a document is not produced.
    #[test]
    fn a_block_with_an_unclosed_code_block_is_refused_not_written() {
        let block = "## Memory Loop Insights\n\n```\n- a\n";
        for doc in [
            &b"# V\n"[..],
            format!("# V\n{BEGIN}\n- old\n{END}\n").as_bytes(),
        ] {
            assert!(
                matches!(
                    splice(doc, Some(block)),
                    Err(FenceError::CodeBlockInFence { .. } | FenceError::BlockBreaksFence)
                ),
                "{}",
                String::from_utf8_lossy(doc)
            );
        }
    }

    /// Found by the `fence` fuzz target: a block whose tilde fence is closed by the user's
    /// text after the end marker read back as a larger fence than the one written.
    #[test]
    fn a_block_that_would_read_back_as_another_fence_is_refused() {
        let doc = format!("{BEGIN}\n- old\n{END}\ntext\n~~~~\n{BEGIN}\n{END}\n");
        let block = "## Memory Loop Insights\n\n~~~\n- a\n";
        assert_eq!(
            splice(doc.as_bytes(), Some(block)),
            Err(FenceError::BlockBreaksFence)
        );
    }
}
