//! The generator of the secrets evaluation set: expands each template of `plants.tsv` and
//! `held.tsv` to `held7.tsv` (the shapes the rules were written against), `held8.tsv` and
//! `held9.tsv` (shapes held out from that work) into a fake credential from a
//! fixed seed, so no literal secret is kept anywhere in the repository and every run plants
//! the same strings.
//!
//! It only builds values (plants and the substrings that must not leak); the evaluation
//! itself, which plants them in transcripts and runs the binary, is `tests/it/secrets.rs`.

/// The templates, one `kind<TAB>template` a line (`#` starts a comment), by file: the
/// shapes the rules were tuned on (`held.tsv` to `held7.tsv` were each held out for one
/// round, then looked at, so they are tuned on now), then the held-out one.
pub const FILES: [(&str, &str); 10] = [
    ("plants.tsv", include_str!("plants.tsv")),
    ("held.tsv", include_str!("held.tsv")),
    ("held2.tsv", include_str!("held2.tsv")),
    ("held3.tsv", include_str!("held3.tsv")),
    ("held4.tsv", include_str!("held4.tsv")),
    ("held5.tsv", include_str!("held5.tsv")),
    ("held6.tsv", include_str!("held6.tsv")),
    ("held7.tsv", include_str!("held7.tsv")),
    ("held8.tsv", include_str!("held8.tsv")),
    ("held9.tsv", include_str!("held9.tsv")),
];

/// The files whose shapes no rule was written against: their leaks are measured, not
/// failed on. (`held6.tsv` was held out until the seventh round of rules was written
/// against it; `held7.tsv` was written blind before that round, `held8.tsv` before an
/// eighth, `held9.tsv` after it; the ninth round was written against `held7.tsv`, with
/// `held8.tsv` and `held9.tsv` blind to it.)
pub const HELD_OUT: &[&str] = &["held8.tsv", "held9.tsv"];

/// One planted credential in its line of context.
#[derive(Debug, Clone)]
pub struct Plant {
    /// The file the template comes from (one of `FILES`).
    pub file: &'static str,
    /// The kind named in the file (one kind can have several templates).
    pub kind: String,
    /// The template's line number in its file, for messages.
    pub line: usize,
    /// The context with the secrets in it (may hold line breaks).
    pub text: String,
    /// Substrings that must appear nowhere memloop sends or writes: each secret without a
    /// line break, and both ends of each generated piece (a half-redacted secret shows
    /// one of them).
    pub needles: Vec<String>,
}

/// Every template of every file, expanded with seeds derived from `salt` (use a different
/// salt for each place a plant goes, so each copy can be told apart).
#[must_use]
pub fn plants(salt: u64) -> Vec<Plant> {
    let mut plants = Vec::new();
    for (index, (file, tsv)) in FILES.into_iter().enumerate() {
        // The files' lines seed apart, so two files never plant the same string.
        let lines_before = index * 100_000;
        plants.extend(
            tsv.lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
                .map(|(i, l)| {
                    let (kind, template) = l
                        .split_once('\t')
                        .unwrap_or_else(|| panic!("{file}:{}", i + 1));
                    let template = template.replace("\\n", "\n");
                    let mut plant = expand(kind, &template, salt, lines_before + i + 1);
                    (plant.file, plant.line) = (file, i + 1);
                    plant
                }),
        );
    }
    plants
}

/// Expands one template; `line` seeds it (and names it in a panic until the caller sets
/// the plant's file and line).
fn expand(kind: &str, template: &str, salt: u64, line: usize) -> Plant {
    let mut text = String::new();
    let mut secrets = 0;
    let mut needles = Vec::new();
    let mut secret: Option<String> = None;
    let mut rest = template;
    let mut piece = 0u64;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("[[") {
            secret = Some(String::new());
            rest = after;
        } else if let Some(after) = rest.strip_prefix("]]") {
            let s = secret.take().expect("]] without [[");
            if !s.contains('\n') {
                needles.push(s);
            }
            secrets += 1;
            rest = after;
        } else if let Some(end) = placeholder_end(rest) {
            let value = placeholder(&rest[1..end], seed(salt, line, piece));
            piece += 1;
            if secret.is_some() && value.chars().count() >= 8 {
                let chars: Vec<char> = value.chars().collect();
                let n = chars.len().min(12);
                needles.push(chars[..n].iter().collect());
                needles.push(chars[chars.len() - n..].iter().collect());
            }
            text.push_str(&value);
            if let Some(s) = secret.as_mut() {
                s.push_str(&value);
            }
            rest = &rest[end + 1..];
        } else {
            let c = rest.chars().next().expect("not empty");
            text.push(c);
            if let Some(s) = secret.as_mut() {
                s.push(c);
            }
            rest = &rest[c.len_utf8()..];
        }
    }
    assert!(secret.is_none(), "line {line}: [[ without ]]");
    assert!(secrets > 0, "line {line}: no [[secret]]");
    needles.sort();
    needles.dedup();
    Plant {
        file: "",
        kind: kind.to_owned(),
        line,
        text,
        needles,
    }
}

/// `{X:n}` or `{G}` at the start of `rest`: the index of its `}`. Other braces are text.
fn placeholder_end(rest: &str) -> Option<usize> {
    let end = rest.strip_prefix('{')?.find('}')? + 1;
    let spec = &rest[1..end];
    let valid = spec == "G"
        || spec.split_once(':').is_some_and(|(class, n)| {
            class.len() == 1 && "AULlDHBSPW".contains(class) && n.parse::<usize>().is_ok()
        });
    valid.then_some(end)
}

fn seed(salt: u64, line: usize, piece: u64) -> u64 {
    let line = u64::try_from(line).unwrap_or(0);
    salt.wrapping_mul(1_000_003)
        .wrapping_add(line.wrapping_mul(7919))
        .wrapping_add(piece)
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";

fn placeholder(spec: &str, seed: u64) -> String {
    let (class, n) = spec.split_once(':').unwrap_or((spec, "0"));
    let n: usize = n.parse().unwrap_or(0);
    let alphabet = match class {
        "A" => format!("{UPPER}{LOWER}{DIGITS}"),
        "U" => format!("{UPPER}{DIGITS}"),
        "L" => format!("{UPPER}{LOWER}"),
        "l" => LOWER.to_owned(),
        "D" => DIGITS.to_owned(),
        "H" => "0123456789abcdef".to_owned(),
        "B" => format!("{UPPER}{LOWER}{DIGITS}+/"),
        "S" => format!("{UPPER}{LOWER}{DIGITS}-_"),
        // A symbol-bearing password; it starts with a letter so that it is not an option.
        "P" => {
            let first = chars_from(&format!("{UPPER}{LOWER}"), seed, 1);
            let alphabet = format!("{UPPER}{LOWER}{DIGITS}!#%*+-.=?@^_~");
            return first + &chars_from(&alphabet, seed + 1, n - 1);
        }
        "W" => {
            return (0..n)
                .map(|i| {
                    let len = 4 + usize::try_from(seed.wrapping_add(i as u64) % 4).unwrap_or(0);
                    chars_from(LOWER, seed.wrapping_mul(31).wrapping_add(i as u64), len)
                })
                .collect::<Vec<_>>()
                .join(" ");
        }
        "G" => {
            let hex = chars_from("0123456789abcdef", seed, 32);
            return format!(
                "{}-{}-4{}-a{}-{}",
                &hex[..8],
                &hex[8..12],
                &hex[13..16],
                &hex[17..20],
                &hex[20..]
            );
        }
        other => panic!("unknown placeholder class {other:?}"),
    };
    chars_from(&alphabet, seed, n)
}

/// Deterministic pseudo-random characters (an LCG).
pub fn chars_from(alphabet: &str, seed: u64, n: usize) -> String {
    let alphabet = alphabet.as_bytes();
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let index = usize::try_from(state >> 33).unwrap_or(0) % alphabet.len();
            char::from(alphabet[index])
        })
        .collect()
}
