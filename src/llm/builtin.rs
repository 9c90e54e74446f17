//! The builtin extractor: the offline, deterministic fallback memloop uses when no LLM is
//! configured. It reads only the user's own turns, keeps the few first-person statements
//! whose meaning does not depend on the conversation around them ("I'm a staff engineer at
//! Acme.", "We decided to use SQLite.") and rewrites each as a short third-person fact in
//! the user's own words. It is tuned for precision, because a wrong fact is loaded into
//! every later session: a sentence that is quoted, hedged, hypothetical, reported, sarcastic,
//! transient, a question, or that points at something in the chat ("this", "your version")
//! yields nothing, and so does a whole turn that frames its text as role-play or as text to
//! translate or proofread.
//!
//! Judgement calls: "I'm working on X" and "I'm learning X" count (as goals) only when X is
//! a proper name ("Lanternfish", "Japanese"), never "this bug"; "I'm building a/an X" only
//! when X names a product (an app, an engine, a CLI...); "I want to X" only for lasting aims
//! (learn, become) or with a horizon ("by March", "this year").
//!
//! It does not decide whether a fact is already known, worth keeping, or an instruction in
//! disguise: `fact`'s policy filter and `merge` do that for every provider alike. No I/O,
//! no clock, no network.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use crate::fact::{Candidate, MAX_FACT_CHARS, Scope, normalize};

/// Longer sentences are rambles or pasted prose, not statements about the person.
const MAX_WORDS: usize = 40;

/// Extracts facts from the user's turns of one transcript chunk.
///
/// `categories` are the prompt's categories in order; each fact gets the closest one (see
/// the module doc). The result is deterministic, holds no two facts with the same
/// [`normalize`] key, and is in the order the statements appear.
#[must_use]
pub fn extract(user_turns: &[&str], categories: &[String]) -> Vec<Candidate> {
    let mut seen = HashSet::new();
    let mut facts = Vec::new();
    for turn in user_turns {
        let paragraphs = paragraphs(turn);
        if paragraphs.iter().any(|p| FRAMED.is_match(p)) {
            continue;
        }
        for sentence in paragraphs.iter().flat_map(|p| sentences(p)) {
            let Some(found) = read(&sentence) else {
                continue;
            };
            // The merge key, so two wordings merge would fold into one are not both proposed.
            if seen.insert(normalize(&found.text)) {
                facts.push(Candidate {
                    category: category(found.slot, categories),
                    text: found.text,
                    scope: found.slot.scope(),
                    replaces: None,
                });
            }
        }
    }
    facts
}

/// What a fact is about, before it is mapped onto the prompt's own category names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Identity,
    /// Diet, allergies, conditions: Identity unless the prompt has a closer category.
    Health,
    Goals,
    Preferences,
    ProjectContext,
    Patterns,
}

impl Slot {
    fn default_name(self) -> &'static str {
        match self {
            Slot::Identity | Slot::Health => "Identity",
            Slot::Goals => "Goals",
            Slot::Preferences => "Preferences",
            Slot::ProjectContext => "Project Context",
            Slot::Patterns => "Patterns",
        }
    }

    fn scope(self) -> Scope {
        match self {
            Slot::ProjectContext => Scope::Vault,
            _ => Scope::Global,
        }
    }

    /// Category names this slot matches whole, `|`-separated, then single words a longer
    /// name may contain ("Dietary Restrictions"); both in order of preference.
    fn synonyms(self) -> (&'static str, &'static str) {
        match self {
            Slot::Identity => (
                "identity|about me|about|background|personal|personal info|personal details|\
                    profile|bio|who i am|person|people|user",
                "identity background personal profile bio",
            ),
            Slot::Health => (
                "health|diet|dietary|dietary restrictions|food|allergies|medical|accessibility",
                "health diet dietary food allergies medical",
            ),
            Slot::Goals => (
                "goals|goal|objectives|aims|ambitions|aspirations|plans|priorities|focus|\
                    current focus|projects",
                "goals goal objectives plans aspirations",
            ),
            Slot::Preferences => (
                "preferences|preference|likes|tastes|style|tools|tooling|communication|\
                    communication style|opinions",
                "preferences preference likes tools",
            ),
            Slot::ProjectContext => (
                "project context|project|projects|context|decisions|architecture|\
                    technical context|tech stack|stack|codebase|work",
                "project projects decisions architecture codebase",
            ),
            Slot::Patterns => (
                "patterns|habits|routines|routine|behavior|behaviour|workflow|working style|\
                    tendencies",
                "patterns habits routines workflow behavior behaviour",
            ),
        }
    }

    /// The slot to try when the prompt has nothing close to this one.
    fn fallback(self) -> Option<Slot> {
        match self {
            Slot::Health => Some(Slot::Identity),
            Slot::Patterns => Some(Slot::Preferences),
            _ => None,
        }
    }
}

/// The prompt's name for `slot`: its own spelling of the closest category, else its first.
fn category(slot: Slot, categories: &[String]) -> String {
    let Some(first) = categories.first() else {
        return slot.default_name().to_owned();
    };
    let mut next = Some(slot);
    while let Some(slot) = next {
        if let Some(name) = closest(slot, categories) {
            return name.clone();
        }
        next = slot.fallback();
    }
    first.clone()
}

fn closest(slot: Slot, categories: &[String]) -> Option<&String> {
    let (whole, words) = slot.synonyms();
    let lowered: Vec<String> = categories.iter().map(|c| c.trim().to_lowercase()).collect();
    let by_whole = whole
        .split('|')
        .find_map(|syn| lowered.iter().position(|c| c == syn));
    let by_word = || {
        words.split_whitespace().find_map(|syn| {
            lowered
                .iter()
                .position(|c| c.split(|ch: char| !ch.is_alphanumeric()).any(|w| w == syn))
        })
    };
    by_whole.or_else(by_word).map(|i| &categories[i])
}

/// One fact the rules produced, before it gets a category name.
#[derive(Debug)]
struct Finding {
    slot: Slot,
    text: String,
}

/// Splits a turn into paragraphs of prose, dropping what is not the user speaking in their
/// own words: fenced and indented code, blockquotes (tool calls included), tables, HTML and
/// headings. A dropped line ends the paragraph, so no sentence runs across it.
fn paragraphs(turn: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut fence: Option<&str> = None;
    for line in turn.lines() {
        let body = line.trim_start();
        let indent = line.len() - body.len();
        let marker = ["```", "~~~"].into_iter().find(|m| body.starts_with(m));
        if let Some(open) = fence {
            if marker == Some(open) {
                fence = None;
            }
            continue;
        }
        let dropped = body.is_empty()
            || marker.is_some()
            || indent >= 4
            || line.starts_with('\t')
            || body.starts_with(['>', '|', '<', '#']);
        if dropped {
            if marker.is_some() && indent < 4 {
                fence = marker;
            }
            if !current.is_empty() {
                out.push(current.join("\n"));
                current.clear();
            }
            continue;
        }
        let item = LIST_MARKER.find(body).map_or(body, |m| &body[m.end()..]);
        current.push(item);
    }
    if !current.is_empty() {
        out.push(current.join("\n"));
    }
    out
}

/// How a sentence ended: it matters because questions and trailing-off are not statements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// A line break or the end of the paragraph.
    Open,
    Stop,
    Question,
    /// An ellipsis: the speaker trails off, so the statement is not meant firmly.
    Trail,
}

#[derive(Debug)]
struct Sentence {
    text: String,
    end: End,
    /// Some of it was inside quotation marks: someone else's words, or words being
    /// discussed rather than said.
    quoted: bool,
}

/// Splits a paragraph into sentences at `.`, `!`, `?`, `…`, `;` and line breaks, but not
/// inside "e.g.", initials, or numbers and names such as "3.11" and "example.com".
fn sentences(paragraph: &str) -> Vec<Sentence> {
    let chars: Vec<char> = paragraph.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = QuoteState::default();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            flush(&mut out, &mut cur, End::Open, &mut quote);
            i += 1;
            continue;
        }
        quote.see(c);
        cur.push(c);
        i += 1;
        let run_ends_here = is_terminator(c) && !chars.get(i).copied().is_some_and(is_terminator);
        if !run_ends_here {
            continue;
        }
        let run_end = i;
        let mut run_start = run_end - 1;
        while run_start > 0 && is_terminator(chars[run_start - 1]) {
            run_start -= 1;
        }
        while let Some(&n) = chars.get(i) {
            let closes = matches!(n, ')' | '”' | '»' | '*' | '_') || (n == '"' && quote.open);
            if !closes {
                break;
            }
            quote.see(n);
            cur.push(n);
            i += 1;
        }
        if chars.get(i).is_none_or(|n| n.is_whitespace())
            && let Some(end) = ending(&chars, run_start, run_end)
        {
            flush(&mut out, &mut cur, end, &mut quote);
        }
    }
    flush(&mut out, &mut cur, End::Open, &mut quote);
    out
}

#[derive(Debug, Default)]
struct QuoteState {
    /// A quotation opened and not yet closed.
    open: bool,
    /// The sentence being built touched a quotation.
    touched: bool,
}

impl QuoteState {
    fn see(&mut self, c: char) {
        match c {
            '"' => self.open = !self.open,
            '“' | '«' | '„' | '「' | '『' => self.open = true,
            '”' | '»' | '」' | '』' => self.open = false,
            _ => {}
        }
        if self.open
            || matches!(
                c,
                '"' | '“' | '”' | '«' | '»' | '„' | '「' | '」' | '『' | '』'
            )
        {
            self.touched = true;
        }
    }
}

fn flush(out: &mut Vec<Sentence>, cur: &mut String, end: End, quote: &mut QuoteState) {
    let text = cur.trim();
    if !text.is_empty() {
        out.push(Sentence {
            text: text.to_owned(),
            end,
            quoted: quote.touched,
        });
    }
    cur.clear();
    quote.touched = quote.open;
}

fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | ';')
}

/// How the terminator run `chars[start..end]` ends a sentence, or `None` when a lone dot
/// closes an abbreviation or an initial instead.
fn ending(chars: &[char], start: usize, end: usize) -> Option<End> {
    let run = &chars[start..end];
    if run.contains(&'?') {
        return Some(End::Question);
    }
    if run.contains(&'…') || run.iter().filter(|&&c| c == '.').count() > 1 {
        return Some(End::Trail);
    }
    if run != ['.'] {
        return Some(End::Stop);
    }
    let word_start = chars[..start]
        .iter()
        .rposition(|c| !(c.is_alphanumeric() || *c == '.'))
        .map_or(0, |p| p + 1);
    let word: String = chars[word_start..start].iter().collect();
    let mut letters = word.chars();
    let initial = letters.next().is_some_and(char::is_uppercase) && letters.next().is_none();
    let lowered = word.to_lowercase();
    if initial {
        return None;
    }
    if listed(ENDING_ABBREVIATIONS, &lowered) {
        // "etc." or "Inc." often ends a sentence: only a capital after it says so.
        let next = chars[end..].iter().find(|c| !c.is_whitespace());
        return next.is_some_and(|c| c.is_uppercase()).then_some(End::Stop);
    }
    (!listed(ABBREVIATIONS, &lowered)).then_some(End::Stop)
}

/// Abbreviations a sentence does not end on: the next word belongs to the same sentence.
const ABBREVIATIONS: &str = "e.g i.e eg ie vs cf approx dr mr mrs ms prof st al fig no viz esp \
    incl ca";
/// Abbreviations that often end a sentence too.
const ENDING_ABBREVIATIONS: &str = "etc inc ltd co corp jr sr";

/// Reads one sentence: the skip rules, then the first rule whose pattern matches decides.
fn read(sentence: &Sentence) -> Option<Finding> {
    if sentence.quoted || matches!(sentence.end, End::Question | End::Trail) {
        return None;
    }
    let text = normalise(&sentence.text);
    if text.split_whitespace().count() > MAX_WORDS || text.contains(['?', '`']) {
        return None;
    }
    if SKIP.iter().any(|re| re.is_match(&text)) || reported(&text) {
        return None;
    }
    let text = LEADING_FILLER.replace(&text, "");
    let text = trim_tail(&text);
    RULES
        .iter()
        .find_map(|rule| rule.pattern.captures(text).map(|caps| (rule.build)(&caps)))
        .flatten()
}

/// Straightens apostrophes, unwraps Markdown links and emphasis, collapses whitespace.
fn normalise(text: &str) -> String {
    let text = text.replace(['’', '‘', 'ʼ'], "'");
    let text = LINK.replace_all(&text, "$1");
    let text = text.replace('*', "");
    let text = UNDERSCORED.replace_all(&text, "$1$2");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Someone else's words: "my boss said I'm...". "As I said" is the user's own.
fn reported(text: &str) -> bool {
    REPORTING
        .captures_iter(text)
        .any(|caps| !caps["who"].eq_ignore_ascii_case("i"))
}

/// Strips trailing punctuation, emoji and filler words ("though", "btw", "lol").
fn trim_tail(text: &str) -> &str {
    let mut text = text;
    loop {
        let trimmed = text.trim_end_matches(|c: char| {
            c.is_whitespace()
                || matches!(c, '.' | '!' | ';' | ',' | ':' | '-' | '–' | '—')
                || is_emoji(c)
        });
        let trimmed = TAIL_FILLER
            .find(trimmed)
            .map_or(trimmed, |m| &trimmed[..m.start()]);
        if trimmed.len() == text.len() {
            return trimmed;
        }
        text = trimmed;
    }
}

fn is_emoji(c: char) -> bool {
    matches!(c,
        '\u{1F000}'..='\u{1FAFF}'
        | '\u{2600}'..='\u{27BF}'
        | '\u{2B00}'..='\u{2BFF}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{200D}'
        | '\u{E0020}'..='\u{E007F}')
}

/// A first-person pattern and how it turns into a fact.
struct Rule {
    pattern: Regex,
    build: fn(&Captures<'_>) -> Option<Finding>,
}

fn rule(pattern: &str, build: fn(&Captures<'_>) -> Option<Finding>) -> Rule {
    Rule {
        pattern: regex(&format!("(?i)^{pattern}$")),
        build,
    }
}

fn regex(pattern: &str) -> Regex {
    // Every pattern is a literal in this file, so this only fails on a typo the tests catch.
    Regex::new(pattern).unwrap_or_else(|e| panic!("builtin extractor pattern {pattern:?}: {e}"))
}

const IM: &str = "(?:i'm|im|i am)";
const DIET: &str = "vegetarian|vegan|pescatarian|lactose[- ]intolerant|gluten[- ]intolerant|celiac|coeliac|diabetic|colou?r[- ]?blind|dyslexic|left[- ]handed|deaf|hard of hearing|teetotal|kosher|halal";
const CONDITIONS: &str = "adhd|dyslexia|c[o]?eliac disease|(?:type [12] )?diabetes|epilepsy|tinnitus|colou?r ?blindness|an? (?:[a-z-]+ ){0,2}(?:allergy|intolerance)";
const YEARS: &str = "(?:(?:about|over|nearly|almost|around|roughly|more than|close to) )?(?:\\d+\\+?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|a couple of|a few|several|many)";

/// Ordered from specific to general: the first pattern that matches decides, and when its
/// checks reject the sentence no broader pattern gets a second try.
static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        rule(r"my (?:full |first )?name(?:'s| is) (?P<obj>.+)", name),
        rule(
            r"(?:i go by|call me|you can call me|everyone calls me|people call me|friends call me) (?P<obj>.+)",
            goes_by,
        ),
        rule(
            r"my pronouns are (?P<obj>[a-z]+/[a-z]+(?:/[a-z]+)?)",
            pronouns,
        ),
        rule(
            &format!(
                r"{IM} (?P<obj>(?:(?:severely|very|mildly|deathly|highly|extremely|slightly) )?allergic to .+)"
            ),
            health,
        ),
        rule(&format!(r"{IM} (?P<obj>(?:a |an )?(?:{DIET})\b.*)"), health),
        rule(
            r"i (?P<neg>don't|do not|can't|cannot|never) (?P<verb>eat|drink) (?P<obj>.+)",
            abstains,
        ),
        rule(
            &format!(r"i have (?P<obj>(?:{CONDITIONS})\b.*)"),
            has_condition,
        ),
        rule(
            &format!(r"i(?: have|'ve got|'ve) (?P<obj>{YEARS} years? of (?:\S+ )?experience\b.*)"),
            has,
        ),
        rule(
            &format!(r"(?:i've|i have) been (?P<obj>an? .+? for {YEARS} (?:years|decades)\b.*)"),
            has_been,
        ),
        rule(
            r"i have (?P<obj>(?:a|an|one|two|three|four|five|six|\d) (?:[a-z0-9]+(?:-[a-z0-9]+)* )?(?:kids?|children|child|sons?|daughters?|toddlers?|bab(?:y|ies)|dogs?|cats?|wife|husband|partner)\b.*)",
            has,
        ),
        rule(
            &format!(r"{IM} (?:currently |also |now |actually |still )?(?P<obj>an? .+)"),
            is_a,
        ),
        rule(
            r"i (?:currently |now |also )?work as (?P<obj>(?:a|an|the) .+)",
            works_as,
        ),
        rule(
            r"i (?:currently |now |also )?work (?P<prep>at|for) (?P<obj>.+)",
            works_at,
        ),
        rule(r"i (?:currently |now )?live in (?P<obj>.+)", lives),
        rule(
            &format!(r"{IM} (?:currently |now )?based (?P<prep>in|out of) (?P<obj>.+)"),
            based,
        ),
        rule(
            r"my (?P<adj>(?:main|primary|long-term|long term|big|biggest|ultimate|current|end|personal|career) )?goal (?P<when>(?:for|this|in|over) [^,]{1,40}? )?is (?P<to>to )?(?P<obj>.+)",
            goal,
        ),
        rule(
            r"i (?:really )?want to (?P<obj>(?P<verb>learn|become|ship|launch|release|publish|open-source|open source|build|write|finish|grow|start|get better at|switch careers|transition)\b.*)",
            wants,
        ),
        rule(
            &format!(r"{IM} (?:currently |also |now )?building (?P<obj>.+)"),
            building,
        ),
        rule(
            &format!(r"{IM} (?:currently |mainly |mostly |now )?working on (?P<obj>.+)"),
            working_on,
        ),
        rule(
            &format!(r"{IM} (?:currently |also |now )?learning (?P<obj>.+)"),
            learning,
        ),
        rule(
            r"i (?P<adv>(?:really|strongly|generally|usually|always|much|definitely|personally|mostly|typically|still) )?prefer (?P<obj>.+)",
            prefers,
        ),
        rule(r"i (?:really |also |do |just )?like (?P<obj>.+)", likes),
        rule(
            r"i (?P<verb>don't like|do not like|dislike|can't stand|cannot stand|don't enjoy) (?P<obj>.+)",
            dislikes,
        ),
        rule(
            r"i (?P<adv>(?:always|usually|mostly|mainly|generally|typically|exclusively|only|never|still|no longer|don't|do not|pretty much only|almost always) )?use (?P<obj>.+)",
            uses,
        ),
        rule(
            r"my (?:all-time )?(?P<fav>favou?rite) (?P<what>[^,]{1,40}?) (?P<be>is|are) (?P<obj>.+)",
            favourite,
        ),
        rule(
            r"we(?:'ve| have)? (?P<verb>decided|agreed) (?P<link>not to|to|that|on|against) (?P<obj>.+)",
            decided,
        ),
        rule(r"we(?:'re| are) going with (?P<obj>.+)", going_with),
        rule(
            r"we (?P<verb>went with|chose|picked|selected|settled on|standardi[sz]ed on|switched to|moved to|migrated to) (?P<obj>.+)",
            chose,
        ),
        rule(r"we(?:'re| are)? (?:use|using) (?P<obj>.+)", we_use),
        rule(
            r"i (?P<adv>always|usually|never|typically|normally|generally|often|rarely|seldom|mostly|tend to|try to|almost always|almost never) (?:(?P<neg>don't|do not|can't|cannot) )?(?P<verb>[a-z]+(?:-[a-z]+)?)(?P<rest>(?:\s.*)?)",
            habit,
        ),
    ]
});

fn name(caps: &Captures<'_>) -> Option<Finding> {
    found(Slot::Identity, "Name is", &proper_name(&caps["obj"])?)
}

fn goes_by(caps: &Captures<'_>) -> Option<Finding> {
    found(Slot::Identity, "Goes by", &proper_name(&caps["obj"])?)
}

fn pronouns(caps: &Captures<'_>) -> Option<Finding> {
    found(Slot::Identity, "Pronouns are", &caps["obj"].to_lowercase())
}

fn health(caps: &Captures<'_>) -> Option<Finding> {
    found(Slot::Health, "Is", &object(&caps["obj"])?)
}

fn abstains(caps: &Captures<'_>) -> Option<Finding> {
    let verb = caps["verb"].to_lowercase();
    let head = match caps["neg"].to_lowercase().as_str() {
        "never" => format!("Never {verb}s"),
        "can't" | "cannot" => format!("Cannot {verb}"),
        _ => format!("Does not {verb}"),
    };
    found(Slot::Health, &head, &object(&caps["obj"])?)
}

fn has_condition(caps: &Captures<'_>) -> Option<Finding> {
    found(Slot::Health, "Has", &object(&caps["obj"])?)
}

fn has(caps: &Captures<'_>) -> Option<Finding> {
    found(Slot::Identity, "Has", &object(&caps["obj"])?)
}

fn has_been(caps: &Captures<'_>) -> Option<Finding> {
    found(
        Slot::Identity,
        "Has been",
        &object_if(&caps["obj"], is_role)?,
    )
}

fn is_a(caps: &Captures<'_>) -> Option<Finding> {
    let obj = object_if(&caps["obj"], is_role)?;
    let slot = if obj.to_lowercase().contains("fan of") {
        Slot::Preferences
    } else {
        Slot::Identity
    };
    found(slot, "Is", &obj)
}

fn works_as(caps: &Captures<'_>) -> Option<Finding> {
    found(
        Slot::Identity,
        "Works as",
        &object_if(&caps["obj"], is_role)?,
    )
}

fn works_at(caps: &Captures<'_>) -> Option<Finding> {
    let head = format!("Works {}", caps["prep"].to_lowercase());
    let obj = object_if(&caps["obj"], |o| {
        matches!(first_word(o).as_str(), "a" | "an") || is_proper(o)
    })?;
    found(Slot::Identity, &head, &obj)
}

fn lives(caps: &Captures<'_>) -> Option<Finding> {
    found(
        Slot::Identity,
        "Lives in",
        &object_if(&caps["obj"], is_proper)?,
    )
}

fn based(caps: &Captures<'_>) -> Option<Finding> {
    let head = format!("Is based {}", caps["prep"].to_lowercase());
    found(Slot::Identity, &head, &object_if(&caps["obj"], is_proper)?)
}

fn goal(caps: &Captures<'_>) -> Option<Finding> {
    let adj = caps.name("adj").map_or("", |m| m.as_str()).to_lowercase();
    let when = caps.name("when").map_or("", |m| m.as_str()).trim();
    if !when.is_empty() && !acceptable(when) {
        return None;
    }
    let to = if caps.name("to").is_some() { " to" } else { "" };
    let head = capitalise(&format!("{adj}goal {when} is{to}").replace("  ", " "));
    // "My goal is clarity." names no aim one could act on later.
    let obj = object_if(&caps["obj"], |o| o.split_whitespace().count() > 1)?;
    found(Slot::Goals, &head, &obj)
}

fn wants(caps: &Captures<'_>) -> Option<Finding> {
    let lasting = matches!(
        caps["verb"].to_lowercase().as_str(),
        "learn" | "become" | "get better at" | "switch careers" | "transition"
    );
    if !lasting && !HORIZON.is_match(&caps["obj"]) {
        return None;
    }
    found(Slot::Goals, "Wants to", &object(&caps["obj"])?)
}

fn building(caps: &Captures<'_>) -> Option<Finding> {
    let obj = object_if(&caps["obj"], |o| {
        let words = bare_words(o);
        match words.first().map(String::as_str) {
            Some("a" | "an") => words
                .iter()
                .any(|w| listed(PRODUCTS, w) || w == "called" || w == "named"),
            Some("my") => words.get(1).is_some_and(|w| w == "own"),
            Some("the") => false,
            _ => is_proper(o),
        }
    })?;
    found(Slot::Goals, "Is building", &obj)
}

fn working_on(caps: &Captures<'_>) -> Option<Finding> {
    found(
        Slot::Goals,
        "Is working on",
        &object_if(&caps["obj"], is_proper)?,
    )
}

fn learning(caps: &Captures<'_>) -> Option<Finding> {
    found(
        Slot::Goals,
        "Is learning",
        &object_if(&caps["obj"], is_proper)?,
    )
}

fn prefers(caps: &Captures<'_>) -> Option<Finding> {
    let adv = caps
        .name("adv")
        .map_or("", |m| m.as_str().trim())
        .to_lowercase();
    // Intensifiers add nothing to a fact; frequency words change its meaning.
    let head = match adv.as_str() {
        "generally" | "usually" | "always" | "strongly" | "mostly" | "typically" | "still" => {
            format!("{} prefers", capitalise(&adv))
        }
        _ => "Prefers".to_owned(),
    };
    found(Slot::Preferences, &head, &object(&caps["obj"])?)
}

fn likes(caps: &Captures<'_>) -> Option<Finding> {
    found(Slot::Preferences, "Likes", &object(&caps["obj"])?)
}

fn dislikes(caps: &Captures<'_>) -> Option<Finding> {
    let head = match caps["verb"].to_lowercase().as_str() {
        "dislike" => "Dislikes",
        "can't stand" | "cannot stand" => "Cannot stand",
        "don't enjoy" => "Does not enjoy",
        _ => "Does not like",
    };
    found(Slot::Preferences, head, &object(&caps["obj"])?)
}

fn uses(caps: &Captures<'_>) -> Option<Finding> {
    let adv = caps
        .name("adv")
        .map_or("", |m| m.as_str().trim())
        .to_lowercase();
    let head = match adv.as_str() {
        "" => "Uses".to_owned(),
        "don't" | "do not" => "Does not use".to_owned(),
        other => format!("{} uses", capitalise(other)),
    };
    found(Slot::Preferences, &head, &object(&caps["obj"])?)
}

fn favourite(caps: &Captures<'_>) -> Option<Finding> {
    let what = caps["what"].trim();
    if !acceptable(what) {
        return None;
    }
    let head = format!(
        "{} {what} {}",
        capitalise(&caps["fav"].to_lowercase()),
        caps["be"].to_lowercase()
    );
    found(Slot::Preferences, &head, &object(&caps["obj"])?)
}

fn decided(caps: &Captures<'_>) -> Option<Finding> {
    let link = caps["link"].to_lowercase();
    let obj = object_if(&caps["obj"], |o| {
        !(link.ends_with("to") && listed(PAUSE_VERBS, &first_word(o)))
    })?;
    let head = format!("{} {link}", capitalise(&caps["verb"].to_lowercase()));
    found(Slot::ProjectContext, &head, &obj)
}

fn going_with(caps: &Captures<'_>) -> Option<Finding> {
    found(
        Slot::ProjectContext,
        "Decided to go with",
        &object(&caps["obj"])?,
    )
}

fn chose(caps: &Captures<'_>) -> Option<Finding> {
    let head = capitalise(&caps["verb"].to_lowercase());
    found(Slot::ProjectContext, &head, &object(&caps["obj"])?)
}

fn we_use(caps: &Captures<'_>) -> Option<Finding> {
    // "We use the helper from before" is about the chat; "We use Postgres" is about the work.
    let obj = object_if(&caps["obj"], |o| first_word(o) != "the" || is_proper(o))?;
    found(Slot::ProjectContext, "Uses", &obj)
}

fn habit(caps: &Captures<'_>) -> Option<Finding> {
    let adv = caps["adv"].to_lowercase();
    let verb = &caps["verb"];
    let is_plain_verb = verb.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        && !listed(NOT_VERBS, verb)
        && !verb.ends_with("ing")
        && (!verb.ends_with("ed") || listed(ED_VERBS, verb));
    if !is_plain_verb {
        return None;
    }
    let neg = caps.name("neg").map(|m| m.as_str().to_lowercase());
    let head = match (adv.as_str(), neg.as_deref()) {
        ("tend to" | "try to", Some(_)) => return None,
        ("tend to", None) => format!("Tends to {verb}"),
        ("try to", None) => format!("Tries to {verb}"),
        (adv, Some("can't" | "cannot")) => format!("{} cannot {verb}", capitalise(adv)),
        (adv, Some(_)) => format!("{} does not {verb}", capitalise(adv)),
        (adv, None) => format!("{} {}", capitalise(adv), third_person_verb(verb)),
    };
    let rest = caps.name("rest").map_or("", |m| m.as_str()).trim();
    let rest = if rest.is_empty() {
        String::new()
    } else {
        object(rest)?
    };
    found(Slot::Patterns, &head, &rest)
}

/// Assembles the fact sentence and applies the checks every fact must pass.
fn found(slot: Slot, head: &str, obj: &str) -> Option<Finding> {
    let text = if obj.is_empty() {
        format!("{head}.")
    } else {
        format!("{head} {obj}.")
    };
    let text = capitalise(&text);
    let fits = text.chars().count() <= MAX_FACT_CHARS && !text.chars().any(char::is_control);
    fits.then_some(Finding { slot, text })
}

/// A leading run of capitalised words, at most four, with nothing but a clause after it:
/// "Dana Scully", not "not important".
fn proper_name(raw: &str) -> Option<String> {
    let head = trim_tail(raw.split([',', ';']).next().unwrap_or_default());
    let words: Vec<&str> = head.split_whitespace().collect();
    let taken = words
        .iter()
        .take_while(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && w.chars()
                    .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '.'))
        })
        .count();
    let rest_ok = words
        .get(taken)
        .is_none_or(|w| matches!(w.to_lowercase().as_str(), "and" | "but" | "though"));
    ((1..=4).contains(&taken) && rest_ok).then(|| words[..taken].join(" "))
}

/// Cuts, trims and checks a captured object, then turns it into third person.
fn object(raw: &str) -> Option<String> {
    object_if(raw, |_| true)
}

fn object_if(raw: &str, check: impl Fn(&str) -> bool) -> Option<String> {
    let obj = trim_tail(cut_clause(raw));
    (acceptable(obj) && check(obj)).then(|| third_person(obj))
}

/// Keeps the main clause: a fact is one statement, and what follows ", so", " because" or
/// a dash is usually a reason or an aside that belongs to the moment.
fn cut_clause(text: &str) -> &str {
    let mut end = CLAUSE.find(text).map_or(text.len(), |m| m.start());
    for (i, _) in text[..end].match_indices(',') {
        let next = text[i + 1..].split_whitespace().next().unwrap_or_default();
        let keeps = matches!(
            next.to_lowercase().as_str(),
            "not" | "never" | "rather" | "instead" | "over" | "a" | "an"
        );
        if !keeps {
            end = i;
            break;
        }
    }
    &text[..end]
}

/// Whether an object can stand on its own in a memory file: no pointers into the chat
/// ("this", "the second option", "your version"), no code or quotes, no dangling end.
fn acceptable(obj: &str) -> bool {
    if !obj.chars().any(char::is_alphabetic)
        || obj.chars().any(|c| is_emoji(c) || c.is_control())
        || obj.contains([
            '"', '“', '”', '`', '|', '<', '>', '{', '}', '[', ']', '=', '~',
        ])
        || obj.contains(": ")
        || !is_one_sentence(obj)
    {
        return false;
    }
    let raw: Vec<&str> = obj.split_whitespace().collect();
    if raw.len() > MAX_WORDS || raw.iter().any(|w| trim_word(w) == "i") {
        return false;
    }
    let words = bare_words(obj);
    let Some(first) = words.first() else {
        return false;
    };
    // "B", "2": an option on the screen. C and R are languages.
    let opening = raw.first().map_or("", |w| trim_word(w));
    let lone_option = (raw.len() == 1 && opening.chars().all(|c| c.is_ascii_digit()))
        || (opening.chars().count() == 1
            && opening.chars().all(char::is_uppercase)
            && !matches!(opening, "C" | "R"));
    if lone_option
        || listed(DEICTIC_FIRST, first)
        || (first == "the" && words.get(1).is_some_and(|w| listed(THE_DEICTIC, w)))
    {
        return false;
    }
    let points_away = words.iter().enumerate().any(|(k, w)| {
        listed(DEICTIC, w)
            || listed(YOU, w)
            || (w == "this" && !words.get(k + 1).is_some_and(|n| listed(PERIODS, n)))
    });
    !points_away && !words.last().is_some_and(|w| listed(DANGLING, w))
}

/// No sentence break inside: "Acme.I prefer tabs" or "Acme Inc. I prefer" is two
/// statements glued together, while "Dr. Racket" and "3.11" are one.
fn is_one_sentence(obj: &str) -> bool {
    let chars: Vec<char> = obj.chars().collect();
    chars.iter().enumerate().all(|(i, &c)| {
        let (Some(&before), Some(&after)) = (
            i.checked_sub(1).and_then(|b| chars.get(b)),
            chars.get(i + 1),
        ) else {
            return true;
        };
        if c != '.' {
            return true;
        }
        if after.is_whitespace() {
            return ending(&chars, i, i + 1).is_none();
        }
        !(after.is_uppercase() && (before.is_lowercase() || before.is_ascii_digit()))
    })
}

/// Starts with a proper noun (or "the" and one): "Acme", "the Netherlands".
fn is_proper(obj: &str) -> bool {
    let mut words = obj.split_whitespace();
    let mut first = words.next().unwrap_or_default();
    if first == "the" {
        first = words.next().unwrap_or_default();
    }
    let first = trim_word(first);
    let first = first.strip_suffix("'s").unwrap_or(first);
    first.chars().next().is_some_and(char::is_uppercase)
        && !listed(NOT_PROPER, &first.to_lowercase())
}

/// A role after "I'm a…": not a passing state ("a bit tired") or a put-down ("an idiot").
fn is_role(obj: &str) -> bool {
    let words = bare_words(obj);
    let head = words.get(1).map_or("", String::as_str);
    let lone = words.len() == 2 && (listed(MACHINES, head) || listed(VAGUE_ROLES, head));
    !lone && !listed(NOT_ROLES, head) && !words.iter().any(|w| listed(PUT_DOWNS, w))
}

fn first_word(obj: &str) -> String {
    bare_words(obj).into_iter().next().unwrap_or_default()
}

/// Words lowercased for the word lists; an all-caps acronym ("IT") keeps its case so it
/// is never mistaken for a pronoun.
fn bare_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(trim_word)
        .filter(|w| !w.is_empty())
        .map(|w| {
            let acronym = w.chars().count() > 1 && !w.chars().any(char::is_lowercase);
            if acronym {
                w.to_owned()
            } else {
                w.to_lowercase()
            }
        })
        .collect()
}

fn trim_word(word: &str) -> &str {
    word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
}

/// "my coffee" becomes "their coffee", "before I code" becomes "before they code".
fn third_person(obj: &str) -> String {
    PRONOUN
        .replace_all(obj, |caps: &Captures<'_>| {
            match &caps[0] {
                "I'm" => "they're",
                "I've" => "they've",
                "I'll" => "they'll",
                "I am" => "they are",
                "I was" => "they were",
                "my" => "their",
                "My" => "Their",
                "myself" => "themselves",
                "mine" => "theirs",
                "me" => "them",
                _ => "they ",
            }
            .to_owned()
        })
        .into_owned()
}

fn third_person_verb(verb: &str) -> String {
    match verb {
        "have" => return "has".to_owned(),
        "do" => return "does".to_owned(),
        "go" => return "goes".to_owned(),
        _ => {}
    }
    let consonant_y = verb.len() > 1
        && verb.ends_with('y')
        && !verb[..verb.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    if consonant_y {
        format!("{}ies", &verb[..verb.len() - 1])
    } else if ["s", "x", "z", "ch", "sh", "o"]
        .iter()
        .any(|e| verb.ends_with(e))
    {
        format!("{verb}es")
    } else {
        format!("{verb}s")
    }
}

/// Whether `word` is one of the space-separated words of `list`.
fn listed(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|w| w == word)
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

const DEICTIC_FIRST: &str = "that they he she him her one ones either neither both whichever \
    whatever when how what where why who which option none all some any something anything \
    everything nothing such more less so too";
const THE_DEICTIC: &str = "first second third fourth last latter former above previous other \
    original new old one same rest idea approach plan suggestion solution answer option version \
    code fix change changes design way result results output current following";
const DEICTIC: &str = "it it's its these those here there above below earlier them that's this'll";
const YOU: &str = "you your yours yourself you're you've u ur y'all";
const PERIODS: &str = "year quarter summer spring fall autumn winter semester decade month season";
const DANGLING: &str = "a an the at in on of for to with by from over than and or but my their as \
    into about like via is are was be not so because very more less most that which who";
const NOT_PROPER: &str = "i it this that these those pr issue ticket bug task step part page line \
    chapter section monday tuesday wednesday thursday friday saturday sunday january february \
    march april may june july august september october november december night home";
const NOT_ROLES: &str = "bit little lot tad few couple while moment second minute hour day week \
    sec step bunch total complete real absolute bad terrible kind sort";
const PUT_DOWNS: &str = "idiot moron dummy fool loser mess wreck disaster failure genius liar \
    joke";
/// Roles that say nothing without a domain: "I'm an expert", "I'm a fan".
const VAGUE_ROLES: &str = "fan expert pro beginner newbie novice noob";
const MACHINES: &str = "ai AI bot robot chatbot llm LLM assistant";
const PRODUCTS: &str = "app startup company product platform service tool library framework game \
    engine CLI cli SaaS saas business website site compiler database language editor extension \
    plugin API api SDK sdk marketplace shop store newsletter podcast course book blog";
const PAUSE_VERBS: &str = "take grab stop call leave wait sleep pause skip postpone revisit look \
    check think talk discuss meet continue finish";
const NOT_VERBS: &str = "just really even ever actually still also kind sort like totally \
    basically the a an my to at in on am is are be been was were had did got went thought made \
    wrote said came took knew saw felt found gave told left kept began ran forgot brought bought \
    done gone understood stood heard meant lost won sent spent built taught caught sold held wore \
    chose drove rode ate drank sang swam spoke broke woke fell fought slept paid laid led became \
    grew knew threw flew drew hid bit met sat stuck struck taken given seen written can could \
    will would should must might may shall i you we they it this that so not end when if";
const ED_VERBS: &str = "need embed proceed succeed exceed feed bleed seed speed heed breed shed \
    shred wed";

static LIST_MARKER: LazyLock<Regex> =
    LazyLock::new(|| regex(r"^(?:[-*+•]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?"));
static UNDERSCORED: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(^|[\s(])_{1,2}([^_\s](?:[^_]*[^_\s])?)_{1,2}"));
static LINK: LazyLock<Regex> = LazyLock::new(|| regex(r"\[([^\]]*)\]\([^)]*\)"));
static LEADING_FILLER: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)^(?:(?:also|and|but|oh|ok|okay|so|well|btw|by the way|fwiw|fyi|for context|for the record|for reference|just so you know|just fyi|heads up|honestly|personally|tbh|actually|anyway|anyways|hi|hey|hello|yes|yeah|yep|no|nope|right|ah|um|uh|hmm+|note|quick note|side note|ps)\b[\s,:;!.\-–—]*|p\.s\.\s*)+",
    )
});
static TAIL_FILLER: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?:^|[\s,]+)(?:though|tho|btw|lol+|haha+|hah|heh|hehe|tbh|fwiw|honestly|anyway|anyways|fyi|too|as well|mostly|mainly|basically|really|:-?\)|:-?d|xd|<3)$",
    )
});
static CLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i),\s*(?:and|but|so|because|since|which|who|though|although|while|as|then|plus|or|cause|if|unless|when|where)\b|\s(?:but|because|since|though|although|so|whereas|cause|except|unless)\s|\s(?:and|or)\s+(?:i|i'm|i've|im|we|we're|it|it's|that|this|they|my)\b|\s[-–—]+\s|\s*\(",
    )
});
static PRONOUN: LazyLock<Regex> =
    LazyLock::new(|| regex(r"\b(?:I'm|I've|I'll|I am\b|I was\b|I\s|my|My|myself|mine|me)\b"));
static HORIZON: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:by (?:the end of |end of )?(?:next |this )?(?:(?-i:[A-Z]\w*)|q[1-4]|\d{4}|year|month|quarter|summer|spring|fall|autumn|winter|eoy|year-end)|this (?:year|quarter|summer|spring|fall|autumn|winter)|next (?:year|quarter|summer|spring|fall|autumn|winter|month)|in (?:\d+|a few|a couple of|two|three|six) (?:months|years)|someday|eventually|one day|long[- ]term|before (?:the end|next|(?-i:[A-Z]\w*)|\d{4}))\b",
    )
});
/// A whole turn that frames its text as fiction or as text to work on: first-person
/// sentences in it are not about the user.
static FRAMED: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:pretend|role-?play|role play|act as|in character|hypothetical(?:ly)?|fictional|imagine|let's say|suppose|translate|translation|proofread|rephrase|paraphrase|reword|grammar|cover letter|job (?:description|posting|ad)|forwarded|write (?:a|an|my) (?:bio|story|poem|dialogue|script|scene|email|letter|post|tweet))\b",
    )
});
static REPORTING: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?P<who>[\w']+)\s+(?:said|says|saying|told|tells|asked|asks|claims|claimed|insists|insisted|mentioned|mentions|thinks|thought|wrote|writes|believes|believed)\b",
    )
});
/// Sentences that are not firm statements about now and always: hypotheticals, hedges,
/// transient states, sarcasm, examples, hearsay, struck-through text.
static SKIP: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?i)\b(?:if|unless|would|wouldn't|could|couldn't|might|maybe|perhaps|suppose|supposing|imagine|pretend|hypothetically|assuming|whether|wish|hope|hoping|probably|possibly|should|shouldn't|i'd|let's say|what if|in case|going to|gonna|trying|thinking|wondering|used to)\b",
        r"(?i)\b(?:i think|i guess|i suppose|i believe|i feel like|kind of|sort of|kinda|sorta|not sure|unsure|idk|dunno|i mean)\b",
        r"(?i)\b(?:right now|at the moment|for now|atm|rn|today|tonight|tomorrow|yesterday|this (?:morning|afternoon|evening|week|weekend)|just now)\b",
        r"(?i)(?:/s\b|/j\b|\bjk\b|\bj/k\b|\bjust kidding\b|\bkidding\b|\bjoking\b|\byeah,? right\b|\bas if\b|\bsarcas|\bnot!|\boh,? great\b|\boh,? joy\b|\blmf?ao\b|\brofl\b|;-?\)|:-?p\b|🙄|😒|😏|🙃|😜|😉|🤪|😂|🤣)",
        r"(?i)\b(?:for example|for instance|according to|apparently|supposedly|allegedly|reportedly)\b",
        r"~~",
    ]
    .into_iter()
    .map(regex)
    .collect()
});

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ID: &str = "Identity";
    const GO: &str = "Goals";
    const PR: &str = "Preferences";
    const PC: &str = "Project Context";
    const PA: &str = "Patterns";

    fn defaults() -> Vec<String> {
        [ID, GO, PR, PC, PA].map(String::from).to_vec()
    }

    fn texts(turn: &str) -> Vec<String> {
        extract(&[turn], &defaults())
            .into_iter()
            .map(|c| c.text)
            .collect()
    }

    #[test]
    fn realistic_sentences_yield_exactly_the_expected_fact() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "I'm a staff engineer at Acme.",
                ID,
                "Is a staff engineer at Acme.",
            ),
            (
                "I am a data scientist, mostly working in Python.",
                ID,
                "Is a data scientist.",
            ),
            (
                "Btw, I'm an SRE at a fintech startup lol",
                ID,
                "Is an SRE at a fintech startup.",
            ),
            (
                "I'm a designer, not a developer.",
                ID,
                "Is a designer, not a developer.",
            ),
            (
                "I'm a staff engineer at Acme and I do backend.",
                ID,
                "Is a staff engineer at Acme.",
            ),
            (
                "I'm a Python dev mostly, new to Rust.",
                ID,
                "Is a Python dev.",
            ),
            (
                "I work as a nurse in Berlin.",
                ID,
                "Works as a nurse in Berlin.",
            ),
            ("I work at Stripe.", ID, "Works at Stripe."),
            ("My name is Dana Scully.", ID, "Name is Dana Scully."),
            ("Call me Dana, not Danielle.", ID, "Goes by Dana."),
            ("My pronouns are she/her.", ID, "Pronouns are she/her."),
            ("I live in Lisbon.", ID, "Lives in Lisbon."),
            (
                "I'm based in the Netherlands.",
                ID,
                "Is based in the Netherlands.",
            ),
            (
                "I've been a nurse for fifteen years.",
                ID,
                "Has been a nurse for fifteen years.",
            ),
            (
                "I have 10+ years of experience with Go.",
                ID,
                "Has 10+ years of experience with Go.",
            ),
            ("I have two kids.", ID, "Has two kids."),
            ("I'm allergic to peanuts.", ID, "Is allergic to peanuts."),
            ("I'm vegetarian.", ID, "Is vegetarian."),
            ("I don't eat pork.", ID, "Does not eat pork."),
            ("I have ADHD.", ID, "Has ADHD."),
            (
                "I prefer tabs over spaces.",
                PR,
                "Prefers tabs over spaces.",
            ),
            (
                "I prefer my coffee black.",
                PR,
                "Prefers their coffee black.",
            ),
            (
                "I generally prefer direct answers.",
                PR,
                "Generally prefers direct answers.",
            ),
            (
                "I really prefer short answers because I skim.",
                PR,
                "Prefers short answers.",
            ),
            ("I like my answers short.", PR, "Likes their answers short."),
            (
                "I don't like long explanations.",
                PR,
                "Does not like long explanations.",
            ),
            (
                "I use Neovim, not VS Code.",
                PR,
                "Uses Neovim, not VS Code.",
            ),
            (
                "I use pnpm instead of npm.",
                PR,
                "Uses pnpm instead of npm.",
            ),
            (
                "I always use Python 3.11 for scripts.",
                PR,
                "Always uses Python 3.11 for scripts.",
            ),
            ("I don't use Windows.", PR, "Does not use Windows."),
            (
                "My favorite editor is Helix.",
                PR,
                "Favorite editor is Helix.",
            ),
            (
                "I'm a big fan of Postgres.",
                PR,
                "Is a big fan of Postgres.",
            ),
            ("- I prefer dark mode", PR, "Prefers dark mode."),
            (
                "I use [rg](https://github.com/BurntSushi/ripgrep) daily.",
                PR,
                "Uses rg daily.",
            ),
            ("i prefer short answers tbh", PR, "Prefers short answers."),
            ("I use Neovim 😀", PR, "Uses Neovim."),
            (
                "I prefer **tabs** over _spaces_.",
                PR,
                "Prefers tabs over spaces.",
            ),
            (
                "I prefer MySQL vs. Postgres.",
                PR,
                "Prefers MySQL vs. Postgres.",
            ),
            (
                "My goal is to ship Lanternfish by March.",
                GO,
                "Goal is to ship Lanternfish by March.",
            ),
            (
                "My main goal this year is to grow my team.",
                GO,
                "Main goal this year is to grow their team.",
            ),
            (
                "My long-term goal is to get promoted.",
                GO,
                "Long-term goal is to get promoted.",
            ),
            (
                "I'm building a search engine in Rust.",
                GO,
                "Is building a search engine in Rust.",
            ),
            (
                "I want to learn Rust this year.",
                GO,
                "Wants to learn Rust this year.",
            ),
            (
                "I want to build a compiler someday.",
                GO,
                "Wants to build a compiler someday.",
            ),
            (
                "I'm working on Lanternfish, a search engine.",
                GO,
                "Is working on Lanternfish, a search engine.",
            ),
            ("I'm learning Japanese.", GO, "Is learning Japanese."),
            (
                "We decided to use SQLite for the ledger.",
                PC,
                "Decided to use SQLite for the ledger.",
            ),
            (
                "We decided not to support Windows.",
                PC,
                "Decided not to support Windows.",
            ),
            (
                "We're going with Postgres.",
                PC,
                "Decided to go with Postgres.",
            ),
            ("We chose Axum over Actix.", PC, "Chose Axum over Actix."),
            (
                "We use Terraform for all infra.",
                PC,
                "Uses Terraform for all infra.",
            ),
            (
                "I always write tests first.",
                PA,
                "Always writes tests first.",
            ),
            ("I usually go to bed late.", PA, "Usually goes to bed late."),
            (
                "I never deploy on Fridays.",
                PA,
                "Never deploys on Fridays.",
            ),
            (
                "I tend to over-engineer my side projects.",
                PA,
                "Tends to over-engineer their side projects.",
            ),
            (
                "I usually don't eat breakfast.",
                PA,
                "Usually does not eat breakfast.",
            ),
            (
                "I often review PRs before I code.",
                PA,
                "Often reviews PRs before they code.",
            ),
        ];
        assert!(cases.len() >= 40);
        let mut wrong = Vec::new();
        for &(input, category, text) in cases {
            let scope = if category == PC {
                Scope::Vault
            } else {
                Scope::Global
            };
            let want = vec![(category.to_owned(), text.to_owned(), scope)];
            let got: Vec<_> = extract(&[input], &defaults())
                .into_iter()
                .map(|c| (c.category, c.text, c.scope))
                .collect();
            if got != want {
                wrong.push(format!("{input:?}: got {got:?}, want {want:?}"));
            }
            if let Err(refusal) = crate::fact::check(text) {
                wrong.push(format!(
                    "{text:?} is refused by the policy filter: {refusal}"
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// Each skipped sentence next to a twin the same pattern accepts, so every row proves
    /// that its skip rule, and not a missing pattern, is what drops the sentence.
    #[test]
    fn each_skip_rule_drops_a_sentence_whose_twin_yields_a_fact() {
        let cases: &[(&str, &str)] = &[
            (
                "```\nI'm a staff engineer at Acme.\n```",
                "I'm a staff engineer at Acme.",
            ),
            (
                "> I'm a staff engineer at Acme.",
                "I'm a staff engineer at Acme.",
            ),
            (
                "    I'm a staff engineer at Acme.",
                "I'm a staff engineer at Acme.",
            ),
            (
                "# I'm a staff engineer at Acme",
                "I'm a staff engineer at Acme.",
            ),
            ("I use `uv` instead of pip.", "I use uv instead of pip."),
            ("She wrote \"I'm a nurse.\" in her bio.", "I'm a nurse."),
            (
                "I'm a “senior” engineer at Acme.",
                "I'm a senior engineer at Acme.",
            ),
            ("I prefer tabs, right?", "I prefer tabs, right."),
            ("I prefer tabs...", "I prefer tabs."),
            (
                "If I were a manager, I'd prefer fewer meetings.",
                "I prefer fewer meetings.",
            ),
            ("I'd prefer Go.", "I prefer Go."),
            ("I would use Go for that.", "I use Go for scripts."),
            (
                "My boss said I'm a natural leader.",
                "I'm a natural leader.",
            ),
            (
                "I'm a staff engineer, my manager says.",
                "I'm a staff engineer, as I said.",
            ),
            ("Apparently I'm a morning person.", "I'm a morning person."),
            ("I'm going to use Go.", "I use Go."),
            ("I'm trying Go.", "I'm learning Go."),
            ("I'm a nurse right now.", "I'm a nurse."),
            ("I use Vim today.", "I use Vim."),
            ("I'm working on this bug.", "I'm working on Lanternfish."),
            ("I'm a morning person /s", "I'm a morning person."),
            (
                "Yeah right, I'm a morning person.",
                "Yeah, I'm a morning person.",
            ),
            ("I'm a morning person 🙄", "I'm a morning person 😀"),
            ("I think I prefer Go.", "I prefer Go."),
            ("I kinda prefer Go.", "I prefer Go."),
            ("I used to use Emacs.", "I use Emacs."),
            ("For example, I prefer tabs.", "Also, I prefer tabs."),
            ("I ~~prefer~~ tabs.", "I prefer tabs."),
            (
                "Pretend you're my manager. I'm a nurse.",
                "You're my manager. I'm a nurse.",
            ),
            (
                "Translate to French: I prefer tea.",
                "Noted: I prefer tea.\nI prefer tea.",
            ),
            (
                "I'm a staff engineer at Acme.I prefer tabs",
                "I'm a staff engineer at Acme. I prefer tabs",
            ),
            (
                &["I prefer answers that"; 10].join(" "),
                "I prefer answers that are short.",
            ),
        ];
        let mut wrong = Vec::new();
        for (skipped, twin) in cases {
            let dropped = texts(skipped);
            if !dropped.is_empty() {
                wrong.push(format!("{skipped:?} yields {dropped:?}"));
            }
            if texts(twin).is_empty() {
                wrong.push(format!("twin {twin:?} yields nothing"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn conversational_and_ambiguous_sentences_yield_nothing() {
        let cases = [
            "I like this approach.",
            "I prefer the second option.",
            "I prefer your version.",
            "I prefer B.",
            "I prefer that.",
            "I like how you explained that.",
            "I like where this is going.",
            "I use it every day.",
            "I use the same one.",
            "I'm an idiot, forgot the semicolon.",
            "I'm a little confused by the error.",
            "I'm a bit of a perfectionist.",
            "I'm an AI.",
            "I'm a fan.",
            "I'm an expert.",
            "I'm tired.",
            "I'm not sure.",
            "I'm looking at the logs.",
            "I'm thinking about Rust.",
            "We decided to take a break.",
            "We're going with option 2.",
            "We use the helper from before.",
            "I always do this.",
            "I always thought so.",
            "I never understood monads tbh",
            "I want to see the logs.",
            "I want to ship this fix by tonight.",
            "I'm building the Docker image.",
            "I'm building a new feature.",
            "I'm working on PR 4312.",
            "I'm working on Monday's release notes.",
            "I'm learning a lot.",
            "Maybe I'm a perfectionist.",
            "I'm a staff engineer at",
            "I work at night.",
            "I live in the terminal lol",
            "My name is not important.",
            "My goal is clarity.",
            "My goal for this session is to fix the tests.",
            "Could you tell me if I use too many clones",
            "I have a question.",
            "I have a meeting at 3.",
            "I'm a fan of yours.",
            "I'm a staff engineer at Acme 😂",
            "Honestly I hate this.",
            "ok",
            "Thanks!",
        ];
        assert!(cases.len() >= 25);
        let leaked: Vec<String> = cases
            .iter()
            .filter_map(|input| {
                let got = texts(input);
                (!got.is_empty()).then(|| format!("{input:?}: {got:?}"))
            })
            .collect();
        assert!(leaked.is_empty(), "{}", leaked.join("\n"));
    }

    #[test]
    fn a_quotation_spanning_sentences_is_skipped_whole() {
        let turn = "He wrote: \"Hi. I'm a staff engineer at Acme. Thanks.\" I use Neovim.";
        assert_eq!(texts(turn), ["Uses Neovim."]);
    }

    #[test]
    fn sentences_split_at_punctuation_but_not_inside_abbreviations_or_versions() {
        let paragraph = "I use Python 3.11 daily. I prefer Go, e.g. for CLIs! Why? \
                         J. R. R. Tolkien wrote it\nsee example.com; Acme Inc. Done";
        let got: Vec<(String, End)> = sentences(paragraph)
            .into_iter()
            .map(|s| (s.text, s.end))
            .collect();
        let want = [
            ("I use Python 3.11 daily.", End::Stop),
            ("I prefer Go, e.g. for CLIs!", End::Stop),
            ("Why?", End::Question),
            ("J. R. R. Tolkien wrote it", End::Open),
            ("see example.com;", End::Stop),
            ("Acme Inc.", End::Stop),
            ("Done", End::Open),
        ]
        .map(|(t, e)| (t.to_owned(), e));
        assert_eq!(got, want);
    }

    #[test]
    fn each_sentence_of_a_turn_is_read_on_its_own_in_order() {
        let turn = "Hi! I'm a dev at Acme Inc. I'm tired today. I prefer tabs; I use Neovim.\n\n\
                    ```rust\nfn main() {}\n```\nWe decided to use SQLite.";
        let want = [
            "Is a dev at Acme Inc.",
            "Prefers tabs.",
            "Uses Neovim.",
            "Decided to use SQLite.",
        ];
        assert_eq!(texts(turn), want);
    }

    #[test]
    fn duplicates_within_a_call_are_kept_once_in_order_of_first_appearance() {
        let turns = [
            "I use Neovim.",
            "I prefer tabs. I use neovim.",
            "I use Neovim!",
        ];
        let got: Vec<String> = extract(&turns, &defaults())
            .into_iter()
            .map(|c| c.text)
            .collect();
        assert_eq!(got, ["Uses Neovim.", "Prefers tabs."]);
    }

    #[test]
    fn extraction_is_deterministic() {
        let turns = [
            "I'm a staff engineer at Acme. I prefer tabs over spaces.",
            "We decided to use SQLite. I always write tests first.",
        ];
        let first = extract(&turns, &defaults());
        assert_eq!(first.len(), 4);
        for _ in 0..3 {
            assert_eq!(extract(&turns, &defaults()), first);
        }
    }

    #[test]
    fn categories_map_onto_a_custom_prompt_by_synonym_else_the_first() {
        let custom = [
            "About Me",
            "Dietary Restrictions",
            "Work Preferences",
            "Objectives",
            "Habits",
        ]
        .map(String::from);
        let cases = [
            ("I'm a staff engineer at Acme.", "About Me"),
            ("I'm allergic to peanuts.", "Dietary Restrictions"),
            ("I prefer tabs over spaces.", "Work Preferences"),
            ("My goal is to ship Lanternfish by March.", "Objectives"),
            ("I always write tests first.", "Habits"),
            // nothing close to Project Context: the first category
            ("We decided to use SQLite.", "About Me"),
        ];
        for (input, want) in cases {
            let got = extract(&[input], &custom);
            assert_eq!(got.len(), 1, "{input:?}");
            assert_eq!(got[0].category, want, "{input:?}");
        }
    }

    #[test]
    fn categories_keep_the_prompts_spelling_and_fall_back_to_a_neighbour() {
        let lower = ["identity", "PREFERENCES"].map(String::from);
        let cases = [
            (Slot::Identity, "identity"),
            (Slot::Health, "identity"),
            (Slot::Preferences, "PREFERENCES"),
            (Slot::Patterns, "PREFERENCES"),
            (Slot::Goals, "identity"),
        ];
        for (slot, want) in cases {
            assert_eq!(category(slot, &lower), want, "{slot:?}");
        }
        assert_eq!(category(Slot::ProjectContext, &[]), "Project Context");
        assert_eq!(category(Slot::Health, &[]), "Identity");
        let health = ["Identity", "Health"].map(String::from);
        assert_eq!(category(Slot::Health, &health), "Health");
    }

    #[test]
    fn non_english_text_yields_nothing() {
        for turn in [
            "Ich bin ein Softwareentwickler bei Acme.",
            "Je préfère les tabulations aux espaces.",
            "Yo uso Neovim, no VS Code.",
            "私はエンジニアです。タブが好きです。",
            "Я предпочитаю короткие ответы.",
            "我是一名工程师，我喜欢简短的回答。",
            "أنا مهندس برمجيات.",
            "Eu moro em Lisboa e sou vegetariano.",
        ] {
            assert_eq!(texts(turn), Vec::<String>::new(), "{turn:?}");
        }
    }

    #[test]
    fn verbs_agree_with_a_third_person_subject() {
        let cases = [
            ("write", "writes"),
            ("go", "goes"),
            ("have", "has"),
            ("fix", "fixes"),
            ("push", "pushes"),
            ("try", "tries"),
            ("deploy", "deploys"),
            ("miss", "misses"),
        ];
        for (verb, want) in cases {
            assert_eq!(third_person_verb(verb), want);
        }
    }

    fn well_formed(text: &str) -> bool {
        !text.trim().is_empty()
            && text.chars().count() <= MAX_FACT_CHARS
            && !text.contains(['\n', '\r'])
            && text.ends_with('.')
    }

    proptest! {
        #[test]
        fn arbitrary_input_never_panics_and_yields_well_formed_facts(
            turns in proptest::collection::vec(any::<String>(), 0..4),
            cats in proptest::collection::vec("\\PC{0,12}", 0..4),
        ) {
            let refs: Vec<&str> = turns.iter().map(String::as_str).collect();
            for fact in extract(&refs, &cats) {
                prop_assert!(well_formed(&fact.text), "{:?}", fact.text);
            }
        }

        #[test]
        fn pattern_openings_with_arbitrary_tails_yield_well_formed_facts(
            opening in prop::sample::select(vec![
                "I'm a ", "I am an ", "I prefer ", "I use ", "I like my ", "My name is ",
                "My goal is to ", "I'm building ", "I want to learn ", "We decided to ",
                "We're going with ", "I always ", "I usually don't ", "I have ",
                "I'm allergic to ", "I live in ", "My favorite ", "I work at ",
            ]),
            tail in "\\PC{0,80}",
            end in prop::sample::select(vec!["", ".", "!", "?", "...", "\n"]),
        ) {
            let turn = format!("{opening}{tail}{end}");
            for fact in extract(&[turn.as_str()], &defaults()) {
                prop_assert!(well_formed(&fact.text), "{:?}", fact.text);
                prop_assert!(defaults().contains(&fact.category));
            }
        }
    }
}
