//! The policy filter: whether a candidate may be written into a file Claude loads every
//! session. It refuses what is empty or too long, and what could steer the assistant or
//! forge structure once rendered: markup, URLs, shell commands and orders to the assistant
//! (see [`check`] for the rules).
//!
//! It does not decide whether a fact is new, true or worth keeping (`merge` does), and it
//! never rewrites a candidate: it accepts it or names the [`Refusal`].

use std::sync::LazyLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

use super::{ADVERBS, INVISIBLE, listed, normalize, regex};

/// The longest fact, in characters, that [`check`] accepts.
pub const MAX_FACT_CHARS: usize = 400;

/// Why [`check`] refused a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum Refusal {
    /// Nothing but whitespace, punctuation or symbols.
    #[error("empty")]
    Empty,
    /// Longer than [`MAX_FACT_CHARS`].
    #[error("over {} characters", MAX_FACT_CHARS)]
    TooLong,
    /// An order aimed at the assistant rather than a statement about the person or the work.
    #[error("an instruction to the assistant")]
    Instruction,
    /// A shell command, whether backticked, after a `$ ` prompt or spelled out.
    #[error("carries a shell command")]
    Command,
    /// A URL or something else to fetch.
    #[error("carries a URL")]
    Url,
    /// A line break, a heading, an HTML tag or comment, or a code fence.
    #[error("carries markup or a line break")]
    Markup,
}

/// Accepts a fact about the person or the work; refuses anything that could steer the
/// assistant or forge structure once rendered into a file Claude loads every session.
///
/// The checks run on the NFKC, lowercased text with format characters removed, so that
/// full-width letters or zero-width spaces cannot smuggle a pattern through, and the first
/// that applies wins: empty, too long, markup, URL, command, instruction.
///
/// The instruction heuristic rests on English verb morphology. Facts are third-person
/// statements whose verb carries an `-s` (`Always writes tests first.`, `Never drinks
/// coffee.`); orders use the bare base form (`Always write tests first.`). Each sentence (and
/// the main clause after a leading `When ...,`/`If ...,`/`In ...,`) is an order when:
/// - it opens with `you`/`your`/`let's`;
/// - it opens with `please`, `do not` or `don't` followed by anything but a finite verb;
/// - past optional frequency adverbs (`always`, `never`, `only`, ...) its first word is a
///   base-form verb from a list of about 150 things one tells an assistant to do (`run`,
///   `use`, `ignore`, `respond`, `prefer`, `be`, ...), unless that word reads as a noun
///   heading a subject: a finite verb (`is`, `has`, `must`, ...) follows within three words,
///   or a plural noun and then a verb follow (`Test coverage is required.`, `Commit messages
///   follow Conventional Commits.`).
///
/// Phrases that only make sense as injected orders are refused anywhere: `ignore previous
/// ...`, `disregard`, `from now on`, `system prompt`, `new instructions`, `you must/should
/// ...`, `Claude/the assistant must/should ...`, `respond only ...`, `when asked ... say`.
/// Words unknown to both lists are accepted: a real fact must pass.
///
/// # Errors
///
/// The [`Refusal`] that applies first, in the order above.
pub fn check(text: &str) -> Result<(), Refusal> {
    let probe: String = text.nfkc().collect::<String>().to_lowercase();
    let probe = INVISIBLE.replace_all(&probe, "").replace('\u{2019}', "'");
    let probe = probe.trim();
    if probe.is_empty() || normalize(probe).is_empty() {
        return Err(Refusal::Empty);
    }
    if text.trim().chars().count() > MAX_FACT_CHARS {
        return Err(Refusal::TooLong);
    }
    if has_markup(probe) {
        return Err(Refusal::Markup);
    }
    if URL_PATTERNS.iter().any(|re| re.is_match(probe)) {
        return Err(Refusal::Url);
    }
    if has_command(probe) {
        return Err(Refusal::Command);
    }
    if is_instruction(probe) {
        return Err(Refusal::Instruction);
    }
    Ok(())
}

fn regexes(patterns: &[&str]) -> Vec<Regex> {
    patterns.iter().map(|p| regex(p)).collect()
}

fn has_markup(probe: &str) -> bool {
    probe
        .chars()
        .any(|c| (c.is_control() && c != '\t') || c == '\u{2028}' || c == '\u{2029}')
        || probe.starts_with('#')
        || ["<!--", "-->", "```", "<|"]
            .iter()
            .any(|m| probe.contains(m))
        || HTML_TAG.is_match(probe)
}

/// An opening, closing or self-closing tag not glued to a word, so `Vec<String>` passes.
static HTML_TAG: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?:^|[^\w])</?[a-z][a-z0-9-]*(?:\s[^<>]*)?/?>"));

static URL_PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    regexes(&[
        r"\b[a-z][a-z0-9+.-]*://",
        r"\bwww\d?\.[a-z0-9-]",
        r"\b(?:mailto|javascript|data|file):\S",
        // A bare domain with a path; top-level domains listed so `Node.js/Deno` passes.
        concat!(
            r"\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|ai|app|co|me|sh|xyz|info|biz|edu|gov|us",
            r"|uk|de|fr|jp|cn|ru|ly|gg|to|tv|cc|eu|ca|au|nl|se|ch|it|es|pl|br|be|at|site|online",
            r"|tech|cloud|page|link|so|fm|im|ws|nz|kr|tw|hk|sg|ie|dk|fi|no|pt|cz|top|club|zip",
            r"|mov|run|pw|lol)(?::\d+)?/",
        ),
        r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+|/)",
        r"\blocalhost:\d",
        r"\b[\w.-]+@[\w-]+(?:\.[\w-]+)+:[\w~/]",
    ])
});

/// Programs whose name at the start of a backticked span, or after `sudo`, makes it a
/// command rather than an identifier.
const COMMANDS: &str = "\
    sh bash zsh fish dash ksh curl wget sudo su rm rmdir mv cp chmod chown chgrp dd mkfs kill \
    killall pkill eval exec source nc ncat netcat ssh scp rsync git cargo rustc rustup npm \
    npx pnpm yarn node deno bun python python3 pip pip3 pipx uv poetry ruby gem bundle go \
    make cmake just docker podman kubectl helm terraform ansible apt apt-get dnf yum pacman \
    brew snap systemctl journalctl crontab echo cat tee printf xargs find grep rg sed awk \
    perl php powershell pwsh iex cmd open xdg-open osascript base64 tar unzip gzip touch \
    mkdir ln export unset alias env nohup tmux screen gh aws gcloud az psql mysql sqlite3 \
    reboot shutdown mount umount cd ls";

static BACKTICKED: LazyLock<Regex> = LazyLock::new(|| regex(r"`+([^`]+)`+"));

static COMMAND_PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    let sudo = format!(
        r"\bsudo\s+(?:-\w|!!|(?:{})\b)",
        COMMANDS
            .split_ascii_whitespace()
            .map(regex::escape)
            .collect::<Vec<_>>()
            .join("|")
    );
    let mut out = regexes(&[
        r"(?:^|\s)\$\s+[a-z./~]",
        r"\$\(",
        r"&&",
        r"\|\s*(?:sudo\s+)?(?:ba|z|da|k|fi)?sh\b",
        r"\|\s*(?:sudo\s+)?(?:python3?|perl|ruby|node|iex)\b",
        r"\b(?:ba|z|da|k)?sh\s+-c\b",
        r"\b(?:python3?|perl|ruby|node)\s+-[ce]\b",
        r"\brm\s+-{1,2}[a-z]",
        r"\bchmod\s+(?:-r\s+)?(?:[0-7]{3,4}|[ugoa]*[+=-][rwxst]+)\b",
        r"\b(?:curl|wget)\s+-",
        r"\beval\s*[(\x22'$`]",
        r"\b(?:iex|invoke-expression)\b",
        r"\bdd\s+if=",
        r"\bmkfs\b",
        r":\(\)\s*\{",
        r"(?:^|\s)>>?\s*[~/]",
    ]);
    out.push(regex(&sudo));
    out
});

fn has_command(probe: &str) -> bool {
    COMMAND_PATTERNS.iter().any(|re| re.is_match(probe))
        || BACKTICKED
            .captures_iter(probe)
            .any(|caps| caps.get(1).is_some_and(|span| is_command(span.as_str())))
}

/// Whether a backticked span is a command line rather than a name (`snake_case`,
/// `Result<T, E>`, `~/.config`).
fn is_command(span: &str) -> bool {
    let span = span.trim();
    let mut words = span.split_whitespace();
    let first = words.next().unwrap_or_default();
    listed(COMMANDS, first)
        || first.starts_with("./")
        || first.starts_with('$')
        || words.next().is_some_and(|second| second.starts_with('-'))
        || ["|", "&&", ";", "$("].iter().any(|m| span.contains(m))
}

static INSTRUCTION_PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    regexes(&[
        concat!(
            r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|every\s+)?",
            r"(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+|those\s+|its\s+)?(?:previous|prior",
            r"|above|earlier|preceding|existing|former|original|system|other|old)\b",
        ),
        r"\bdisregard\b",
        r"\bfrom\s+(?:now|this\s+point|here)\s+on(?:wards?)?\b",
        r"\bhenceforth\b",
        r"\bsystem\s+prompt",
        r"\b(?:new|updated|hidden|secret|real|special)\s+instructions?\b",
        r"\b(?:previous|prior|above|earlier|original|all|your|these)\s+instructions\b",
        concat!(
            r"\byou\s+(?:must|should|shall|will|need|have\s+to|are\s+to|are\s+required|ought",
            r"|may\s+not|cannot|can\s+not|can't|won't|always|never)\b",
        ),
        concat!(
            r"\b(?:claude|assistant|chatgpt|copilot|the\s+ai)\s+(?:must|should|shall|will",
            r"|needs?\s+to|has\s+to|is\s+to|is\s+required\s+to|ought\s+to|may\s+not|cannot|can't",
            r"|can\s+not|never|always|is\s+not\s+allowed|is\s+forbidden)\b",
        ),
        r"\b(?:respond|reply|answer|write|speak|talk)\s+only\b",
        r"\bonly\s+(?:respond|reply|answer)\b",
        r"\b(?:make|be)\s+sure\s+(?:to|you)\b",
        r"\bpretend\s+(?:to\s+be|you|that)\b",
        r"\b(?:system|assistant|human)\s*:",
        r"\[/?(?:inst|system)\]",
        // `When asked about X say Y`; with a comma the main-clause check catches it.
        concat!(
            r"\b(?:when|if|whenever)\s+(?:you\s+are\s+|you're\s+)?asked\b[^,]*",
            r"\b(?:say|reply|respond|answer|tell|claim|state|pretend|deny|insist|output|print",
            r"|mention)\b",
        ),
        r"\bdo\s+anything\s+now\b",
        r"\bjailbreak",
        r"\bdeveloper\s+mode\b",
    ])
});

/// Base-form verbs one gives an assistant as orders. Third-person forms (`runs`) are facts.
const ORDERS: &str = "\
    accept act add address agree allow answer apologize apologise append apply approve ask \
    assume avoid be begin believe build call change check choose cite clean comment commit \
    comply confirm consider continue copy create default delete deny deploy describe disable \
    do document double-check download drop edit email emphasize emphasise enable encourage \
    end ensure escalate execute explain favor favour fetch fill fix flag flatter focus follow \
    forget format generate give greet help hide ignore include indent insert install keep \
    leave let limit list load log make mark mention merge modify move name notify obey open \
    output paste pick ping post praise prefer prefix pretend print prioritize prioritise \
    proceed provide push quote rebase recommend refer refuse reject remember remove rename \
    repeat replace reply report respond restart return reveal review rewrite roleplay run \
    save say search send share show sign skip sort speak squash start stay stop store submit \
    suggest summarize summarise switch tag talk tell test thank translate treat trust try \
    turn type update upload use verify visit wait warn work write";

/// Base forms that are also past tenses (`Read DDIA twice.`, `Set up a homelab.`): orders
/// only after an adverb or `please`.
const PAST_OR_ORDERS: &str = "read set put cut quit shut hit";

/// Verbs that can follow a plural noun subject (`Review comments go to Slack.`).
const PLURAL_VERBS: &str = "\
    go live get happen come stay run follow need use take break fail pass land ship belong \
    sit start end include";

/// Finite verbs: after a leading noun they show it heads a subject.
const FINITE: &str = "\
    is are was were has have had will would can could should must may might does did shall";

/// Openers that make the first word an order whatever it is.
const STRONG: &str = "please kindly don't dont";

/// Words after `please`/`don't` that still read as a statement (`Never been to Japan.`).
const NOT_ORDERS: &str = "\
    been on in at off up late early ready available online busy happy home away around there \
    here very more less too so a an the";

/// Words that open the object of a verb, never a noun phrase's second word: after one of
/// them, `say it is free` is an order whatever verb comes next.
const OBJECTS: &str = "\
    it them me us him her you that this these those the a an all every each some any what how \
    whether why who to everything something anything nothing no whatever whichever my your \
    his their our its yourself";

/// Openers of a leading clause whose main clause comes after the first comma.
const LEADING_CLAUSE: &str = "\
    when whenever if before after once unless while until in for on with during within \
    outside inside regardless important note also going moving from starting at by as";

struct Word<'a> {
    text: &'a str,
    /// A comma, colon or dash follows: the clause ends here.
    closes: bool,
}

static SENTENCE_BREAK: LazyLock<Regex> =
    LazyLock::new(|| regex(r"[.!?;:]+(?:\s+|$)|\s[\p{Pd}]+\s|\(|\)"));

fn is_instruction(probe: &str) -> bool {
    INSTRUCTION_PATTERNS.iter().any(|re| re.is_match(probe))
        || SENTENCE_BREAK.split(probe).any(|sentence| {
            let words = words(sentence);
            is_order(&words) || main_clause(&words).is_some_and(is_order)
        })
}

fn words(sentence: &str) -> Vec<Word<'_>> {
    let mut out: Vec<Word<'_>> = Vec::new();
    for piece in sentence.split_whitespace() {
        let text = piece.trim_matches(|c: char| !c.is_alphanumeric());
        let tail = piece.trim_end_matches(['"', '\'', ')', ']', '*', '_']);
        let closes = tail.ends_with([',', ':', ';', '\u{2014}', '\u{2013}']);
        if text.is_empty() {
            if let Some(last) = out.last_mut() {
                last.closes = true;
            }
            continue;
        }
        out.push(Word { text, closes });
    }
    out
}

fn main_clause<'w, 'a>(words: &'w [Word<'a>]) -> Option<&'w [Word<'a>]> {
    let first = words.first()?;
    if !listed(LEADING_CLAUSE, first.text) {
        return None;
    }
    let comma = words.iter().position(|w| w.closes)?;
    Some(&words[comma + 1..])
}

fn is_order(words: &[Word<'_>]) -> bool {
    let mut i = 0;
    let mut strong = false;
    let mut adverb = false;
    while let Some(word) = words.get(i) {
        let text = word.text;
        let next = words.get(i + 1).map(|w| w.text);
        if listed(STRONG, text) {
            strong = true;
        } else if text == "do" && next == Some("not") {
            strong = true;
            i += 1;
        } else if listed(ADVERBS, text) {
            adverb = true;
        } else {
            break;
        }
        i += 1;
    }
    let Some(head) = words.get(i) else {
        return strong;
    };
    let head_text = head.text;
    if matches!(
        head_text,
        "you" | "your" | "yours" | "yourself" | "you're" | "you'll" | "you've" | "you'd" | "let's"
    ) {
        return true;
    }
    if strong {
        return !reads_as_statement(head_text);
    }
    if adverb && listed(PAST_OR_ORDERS, head_text) {
        return true;
    }
    // `Open source maintainer.` is a noun phrase, not an order to open a source.
    if head_text == "open" && words.get(i + 1).is_some_and(|w| w.text == "source") {
        return false;
    }
    listed(ORDERS, head_text) && (adverb || !heads_a_subject(&words[i..]))
}

/// Whether a word after `please`/`don't` is not a base-form verb.
fn reads_as_statement(word: &str) -> bool {
    listed(FINITE, word)
        || listed(NOT_ORDERS, word)
        || word.ends_with("ed")
        || word.ends_with("ing")
        || (word.len() >= 3
            && word.ends_with('s')
            && !word.ends_with("ss")
            && !word.ends_with("us"))
}

/// Whether the leading base-form verb is really a noun heading a subject.
fn heads_a_subject(words: &[Word<'_>]) -> bool {
    let Some((head, rest)) = words.split_first() else {
        return false;
    };
    if head.closes || rest.first().is_some_and(|w| listed(OBJECTS, w.text)) {
        return false;
    }
    for (k, word) in rest.iter().take(3).enumerate() {
        let text = word.text;
        if listed(FINITE, text) {
            return true;
        }
        if k == 1
            && rest[0].text.ends_with('s')
            && (listed(PLURAL_VERBS, text) || listed(ORDERS, text))
        {
            return true;
        }
        if word.closes {
            break;
        }
    }
    false
}
