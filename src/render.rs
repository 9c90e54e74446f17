//! Rendering facts to the bytes users see: the whole `memory.md`, and the inner block of a
//! vault's insights fence. Also the way back: reading bullets out of a `memory.md` (or a
//! fence's inner text) so hand edits can be noticed.
//!
//! Pure and deterministic: the same facts, in any order, render to the same bytes. The byte
//! cap is enforced here by leaving the least valuable facts out and reporting their ids; this
//! module does not change any fact's status, choose which facts are active, add the fence
//! markers (see `fence`) or touch the filesystem.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};

use crate::fact::Fact;
use crate::fence;

/// The comment under `memory.md`'s title, verbatim from the contract.
pub const MANAGED_COMMENT: &str = "<!-- Managed by memloop: edit with `memloop memory edit` (or any editor). Bullets you change or add are kept; bullets you delete are forgotten. -->";

/// The heading that opens the insights block inside the fence.
pub const INSIGHTS_HEADING: &str = "## Memory Loop Insights";

/// Where facts with a blank category go, so every bullet sits under a heading.
const FALLBACK_CATEGORY: &str = "Other";

/// Rendered bytes plus the facts the byte cap left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The rendered text.
    pub text: String,
    /// Ids of facts left out by the cap, least valuable first.
    pub archived: Vec<i64>,
}

/// A bullet read back from a rendered or hand-edited file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bullet {
    /// The `## ` heading the bullet sits under, if any.
    pub category: Option<String>,
    /// The bullet's text, whitespace collapsed to single spaces.
    pub text: String,
}

/// One fact ready to render: its one-line text and the section it belongs to.
struct Item<'a> {
    fact: &'a Fact,
    text: String,
    section: usize,
}

impl Item<'_> {
    fn bytes(&self) -> usize {
        "- ".len() + self.text.len() + "\n".len()
    }
}

/// Renders the whole `memory.md`: title, managed-by comment, then one `## Category` section
/// per non-empty category, capped at `max_bytes`.
///
/// Sections follow `categories`, then any other category alphabetically; within a section
/// facts go by (`first_seen`, id). Facts whose text is blank are skipped. The result never
/// exceeds `max_bytes` unless even the title and comment do not fit, in which case those
/// are rendered alone and every fact is archived.
#[must_use]
pub fn memory(facts: &[Fact], categories: &[String], max_bytes: usize) -> Rendered {
    let header = format!("# Memory\n\n{MANAGED_COMMENT}\n");

    // Section order: the prompt's categories first, then the rest alphabetically.
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for name in categories.iter().map(|c| heading(c)) {
        if !index.contains_key(&name) {
            index.insert(name.clone(), names.len());
            names.push(name);
        }
    }
    let headings: Vec<String> = facts.iter().map(|f| heading(&f.category)).collect();
    let others: BTreeSet<&String> = headings
        .iter()
        .filter(|n| !index.contains_key(*n))
        .collect();
    for name in others {
        index.insert(name.clone(), names.len());
        names.push(name.clone());
    }

    let mut items: Vec<Item> = facts
        .iter()
        .zip(&headings)
        .filter_map(|(fact, name)| {
            let text = clean(&fact.text);
            (!text.is_empty()).then(|| Item {
                fact,
                text,
                section: index[name],
            })
        })
        .collect();
    items.sort_by(|a, b| a.section.cmp(&b.section).then_with(|| chronological(a, b)));

    let section_bytes: Vec<usize> = names
        .iter()
        .map(|n| format!("\n## {n}\n\n").len())
        .collect();
    let (kept, archived) = cap(&items, &section_bytes, header.len(), 0, max_bytes);

    let mut text = String::with_capacity(max_bytes.min(header.len() + items.len() * 80));
    text.push_str(&header);
    let mut open_section = None;
    for item in items
        .iter()
        .zip(&kept)
        .filter_map(|(item, &keep)| keep.then_some(item))
    {
        if open_section != Some(item.section) {
            open_section = Some(item.section);
            text.push_str("\n## ");
            text.push_str(&names[item.section]);
            text.push_str("\n\n");
        }
        push_bullet(&mut text, &item.text);
    }
    Rendered { text, archived }
}

/// Renders the inner block of a vault's insights fence: the heading, a blank line, one
/// bullet per fact by (`first_seen`, id). Empty when no fact is rendered.
///
/// The cap counts the two marker lines `fence::splice` adds around the block, and every
/// line ending as it will be written: `crlf` when the fence's lines end in `\r\n` (the
/// returned text itself always uses `\n`; `fence::splice` converts it).
#[must_use]
pub fn insights(facts: &[Fact], max_bytes: usize, crlf: bool) -> Rendered {
    let mut items: Vec<Item> = facts
        .iter()
        .filter_map(|fact| {
            let text = clean(&fact.text);
            (!text.is_empty()).then_some(Item {
                fact,
                text,
                section: 0,
            })
        })
        .collect();
    items.sort_by(chronological);

    let carriage = usize::from(crlf);
    // Begin marker, heading, blank line, end marker: four line endings besides the bullets'.
    let block_bytes = fence::BEGIN.len()
        + 1
        + format!("{INSIGHTS_HEADING}\n\n").len()
        + fence::END.len()
        + 1
        + 4 * carriage;
    let (kept, archived) = cap(&items, &[block_bytes], 0, carriage, max_bytes);

    let mut text = String::new();
    for item in items
        .iter()
        .zip(&kept)
        .filter_map(|(item, &keep)| keep.then_some(item))
    {
        if text.is_empty() {
            text.push_str(INSIGHTS_HEADING);
            text.push_str("\n\n");
        }
        push_bullet(&mut text, &item.text);
    }
    Rendered { text, archived }
}

/// Reads bullets back out of a `memory.md` or a fence's inner text.
///
/// `## ` headings set the category (a `# ` title clears it); unindented `- ` or `* ` items
/// are bullets, and indented lines right after one continue it. Everything else (prose,
/// comments, code blocks, deeper headings) is ignored. Blank bullets are dropped.
#[must_use]
pub fn parse_bullets(text: &str) -> Vec<Bullet> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut bullets = Vec::new();
    let mut category: Option<String> = None;
    let mut current: Option<String> = None;
    let mut in_comment = false;
    let mut in_code: Option<&str> = None;

    let mut finish = |current: &mut Option<String>, category: &Option<String>| {
        if let Some(raw) = current.take() {
            let text = collapse(&raw);
            if !text.is_empty() {
                bullets.push(Bullet {
                    category: category.clone(),
                    text,
                });
            }
        }
    };

    for line in text.lines() {
        let trimmed = line.trim();
        if in_comment {
            in_comment = !trimmed.contains("-->");
            continue;
        }
        if let Some(marker) = in_code {
            if trimmed.starts_with(marker) {
                in_code = None;
            }
            continue;
        }
        if current.is_some() && line.starts_with([' ', '\t']) && !trimmed.is_empty() {
            if let Some(raw) = current.as_mut() {
                raw.push(' ');
                raw.push_str(trimmed);
            }
            continue;
        }
        finish(&mut current, &category);

        if let Some(marker) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) {
            in_code = Some(marker);
        } else if let Some(rest) = trimmed.strip_prefix("<!--") {
            in_comment = !rest.contains("-->");
        } else if let Some(name) = level_two_heading(line) {
            category = (!name.is_empty()).then(|| collapse(name));
        } else if line.starts_with("# ") || line.trim_end() == "#" {
            category = None;
        } else if let Some(item) = list_item(line) {
            current = Some(item.to_owned());
        }
    }
    finish(&mut current, &category);
    bullets
}

/// The one-line form a fact's text takes when rendered: control characters and whitespace
/// runs become one space, the ends are trimmed, and HTML comment delimiters are broken up so
/// a fact can never open or close a comment or a fence.
#[must_use]
pub fn clean(text: &str) -> String {
    let spaced: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    // Each pass only inserts spaces, which no delimiter contains, so no pass can create an
    // occurrence an earlier pass removed.
    collapse(&spaced)
        .replace("<!--", "<! --")
        .replace("-->", "-- >")
        .replace("--!>", "--! >")
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn heading(category: &str) -> String {
    let name = clean(category);
    if name.is_empty() {
        FALLBACK_CATEGORY.to_owned()
    } else {
        name
    }
}

fn push_bullet(text: &mut String, bullet: &str) {
    text.push_str("- ");
    text.push_str(bullet);
    text.push('\n');
}

/// Display order within a section. The text breaks ties so duplicate ids still render the
/// same bytes whatever order the facts arrived in.
fn chronological(a: &Item, b: &Item) -> Ordering {
    (&a.fact.first_seen, a.fact.id, &a.text).cmp(&(&b.fact.first_seen, b.fact.id, &b.text))
}

/// Eviction order, least valuable first: least reinforced, then least recently seen, then
/// newest (highest id), so long-standing facts outlive fresh ones at equal evidence.
fn least_valuable(a: &Item, b: &Item) -> Ordering {
    a.fact
        .times_seen
        .cmp(&b.fact.times_seen)
        .then_with(|| a.fact.last_seen.cmp(&b.fact.last_seen))
        .then_with(|| b.fact.id.cmp(&a.fact.id))
        .then_with(|| b.text.cmp(&a.text))
}

/// Decides which items fit in `max_bytes`, given `fixed` bytes always rendered and the
/// per-section bytes paid once while a section has any item. Drops the least valuable items
/// until the total fits; returns the keep mask (parallel to `items`) and the dropped ids.
fn cap(
    items: &[Item],
    section_bytes: &[usize],
    fixed: usize,
    per_line: usize,
    max_bytes: usize,
) -> (Vec<bool>, Vec<i64>) {
    let mut kept = vec![true; items.len()];
    let mut per_section = vec![0usize; section_bytes.len()];
    let mut total = fixed;
    for item in items {
        if per_section[item.section] == 0 {
            total += section_bytes[item.section];
        }
        per_section[item.section] += 1;
        total += item.bytes() + per_line;
    }
    if total <= max_bytes {
        return (kept, Vec::new());
    }

    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| least_valuable(&items[a], &items[b]));
    let mut archived = Vec::new();
    for index in order {
        if total <= max_bytes {
            break;
        }
        let item = &items[index];
        kept[index] = false;
        archived.push(item.fact.id);
        total -= item.bytes() + per_line;
        per_section[item.section] -= 1;
        if per_section[item.section] == 0 {
            total -= section_bytes[item.section];
        }
    }
    (kept, archived)
}

/// The name of a `## ` heading (exactly level two), untrimmed of inner spaces.
fn level_two_heading(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("##")?;
    if rest.is_empty() {
        return Some("");
    }
    rest.starts_with([' ', '\t']).then(|| rest.trim())
}

/// The text of an unindented `- ` or `* ` item.
fn list_item(line: &str) -> Option<&str> {
    line.strip_prefix("- ").or_else(|| line.strip_prefix("* "))
}

#[cfg(test)]
mod tests;
