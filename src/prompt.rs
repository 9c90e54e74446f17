//! The extraction prompt: the user's override at `<config dir>/extraction-prompt.md`, else
//! the one Memory Loop's settings save at `<config dir>/durable-facts.md`, else the
//! built-in default; its categories (the `###` headings under `## Categories`); and a hash
//! that the ledger stores with each processed transcript.
//!
//! It does not append the output contract: `llm::system_prompt` does that, so a custom
//! prompt can never break parsing.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::error;
use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use sha2::{Digest, Sha256};

/// The prompt shipped with memloop.
pub const DEFAULT: &str = include_str!("../prompts/extraction-prompt.md");

/// The categories used when a prompt declares none.
pub const DEFAULT_CATEGORIES: [&str; 5] = [
    "Identity",
    "Goals",
    "Preferences",
    "Project Context",
    "Patterns",
];

/// The file Memory Loop's settings save the user's prompt to, in the config directory.
pub const MEMORY_LOOP_FILE: &str = "durable-facts.md";

/// Where the prompt in use comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Source {
    /// memloop's own prompt.
    #[default]
    Builtin,
    /// The user's `extraction-prompt.md`.
    Override,
    /// Memory Loop's `durable-facts.md`, saved by its settings.
    MemoryLoop,
}

impl Source {
    /// The name the run report and `status --json` use.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Builtin => "builtin",
            Source::Override => "override",
            Source::MemoryLoop => "memory-loop",
        }
    }
}

/// The prompt in use.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub text: String,
    /// The file it was read from (`None`: the built-in prompt).
    pub path: Option<PathBuf>,
    /// Which of the three it is.
    pub source: Source,
    /// Why Memory Loop's prompt, which is there, is not the one in use, naming it.
    pub notice: Option<String>,
    pub categories: Vec<String>,
    /// What the prompt says each category holds, parallel to `categories` (empty for the
    /// default names of a prompt that declares none).
    pub about: Vec<String>,
}

impl Prompt {
    /// Loads the override at `path` if it exists, else the default.
    pub fn load(path: &Path) -> Result<Self> {
        match std::fs::read(path) {
            Ok(bytes) => {
                let text = String::from_utf8(bytes).map_err(|e| {
                    error::usage(format!(
                        "prompt file {} is not valid UTF-8 at byte {}",
                        path.display(),
                        e.utf8_error().valid_up_to()
                    ))
                })?;
                Self::custom(text, path)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(Self::from_text(DEFAULT.to_owned(), None))
            }
            Err(e) => Err(error::usage(format!(
                "could not read prompt file {}: {e}",
                path.display()
            ))),
        }
    }

    /// The prompt in use: `override_file` when it exists (a usage error when it cannot be
    /// used, as [`Prompt::load`]), else Memory Loop's `app_file` when it exists and can be
    /// used, else the built-in prompt. Memory Loop's file is another program's: one that
    /// cannot be used (empty, no categories, not UTF-8) is passed over with a
    /// [`Prompt::notice`], never an error that would stop every run.
    pub fn resolve(override_file: &Path, app_file: &Path) -> Result<Self> {
        if override_file.exists() {
            return Self::load(override_file);
        }
        let notice = |why: String| {
            Some(format!(
                "{}: {why}: Memory Loop's prompt is not used; the built-in prompt is",
                app_file.display()
            ))
        };
        let notice = match std::fs::read(app_file) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => match check(&text) {
                    Ok(()) => {
                        let mut prompt = Self::from_text(text, Some(app_file.to_path_buf()));
                        prompt.source = Source::MemoryLoop;
                        return Ok(prompt);
                    }
                    Err(_) if text.trim().is_empty() => notice("it is empty".to_owned()),
                    Err(_) => notice(
                        "it has no categories (`### Name` headings under `## Categories`)"
                            .to_owned(),
                    ),
                },
                Err(e) => notice(format!(
                    "it is not valid UTF-8 at byte {}",
                    e.utf8_error().valid_up_to()
                )),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => notice(format!("it could not be read: {e}")),
        };
        let mut prompt = Self::from_text(DEFAULT.to_owned(), None);
        prompt.notice = notice;
        Ok(prompt)
    }

    fn from_text(text: String, path: Option<PathBuf>) -> Self {
        let mut sections = category_sections(&text);
        if sections.is_empty() {
            sections = DEFAULT_CATEGORIES
                .iter()
                .map(|c| ((*c).to_owned(), String::new()))
                .collect();
        }
        let (categories, about) = sections.into_iter().unzip();
        let source = if path.is_some() {
            Source::Override
        } else {
            Source::Builtin
        };
        Self {
            text,
            path,
            source,
            notice: None,
            categories,
            about,
        }
    }

    /// The user's prompt at `path`. Empty, or without categories, it is a usage error: a
    /// custom prompt is never silently replaced by the default's categories.
    pub fn custom(text: String, path: &Path) -> Result<Self> {
        check(&text)
            .map_err(|why| error::usage(format!("prompt file {}: {why}", path.display())))?;
        Ok(Self::from_text(text, Some(path.to_path_buf())))
    }

    /// SHA-256 of the prompt text, hex.
    pub fn hash(&self) -> String {
        hex::encode(Sha256::digest(self.text.as_bytes()))
    }

    /// How the run report names the prompt.
    pub fn describe(&self) -> String {
        match (&self.path, self.source) {
            (Some(p), Source::MemoryLoop) => format!("Memory Loop's prompt {}", p.display()),
            (Some(p), _) => format!("custom prompt {}", p.display()),
            (None, _) => "built-in prompt".to_owned(),
        }
    }
}

/// Why a prompt text cannot be used, if it cannot.
pub fn check(text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        return Err("it is empty: delete it (`memloop prompt reset`) to use the default".into());
    }
    if categories(text).is_empty() {
        return Err(
            "it has no categories: list them as `### Name` headings under a `## Categories` heading, as the default does (`memloop prompt reset` brings the default back)"
                .into(),
        );
    }
    Ok(())
}

/// The `###` headings under the `## Categories` heading, in order, without duplicates.
pub fn categories(markdown: &str) -> Vec<String> {
    category_sections(markdown)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// Each category with the text under its heading (what the prompt says it holds), in order,
/// without duplicates; a repeated heading's text joins the first.
pub fn category_sections(markdown: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut in_section = false;
    // The category whose text is being read, by its place in `out`.
    let mut current: Option<usize> = None;
    let mut heading: Option<(HeadingLevel, String)> = None;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, String::new())),
            Event::Text(t) | Event::Code(t) => match (heading.as_mut(), current) {
                (Some((_, buf)), _) => buf.push_str(&t),
                (None, Some(i)) => {
                    let about = &mut out[i].1;
                    if !about.is_empty() {
                        about.push(' ');
                    }
                    about.push_str(t.trim());
                }
                (None, None) => {}
            },
            Event::End(TagEnd::Heading(_)) => {
                let Some((level, text)) = heading.take() else {
                    continue;
                };
                let text = text.trim().to_owned();
                current = None;
                match level {
                    HeadingLevel::H1 | HeadingLevel::H2 => {
                        in_section = text.eq_ignore_ascii_case("categories");
                    }
                    HeadingLevel::H3 if in_section && !text.is_empty() => {
                        current = Some(
                            match out.iter().position(|(c, _)| c.eq_ignore_ascii_case(&text)) {
                                Some(i) => i,
                                None => {
                                    out.push((text, String::new()));
                                    out.len() - 1
                                }
                            },
                        );
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_prompt_has_the_five_categories() {
        assert_eq!(categories(DEFAULT), DEFAULT_CATEGORIES);
    }

    #[test]
    fn each_category_keeps_what_the_prompt_says_of_it() {
        let md = "## Categories\n\n### Health\nDiet, sleep and *exercise*.\n\n- allergies\n### Work\n### Health\nMore.\n## Other\nNot this.\n";
        assert_eq!(
            category_sections(md),
            [
                (
                    "Health".to_owned(),
                    "Diet, sleep and exercise . allergies More.".to_owned()
                ),
                ("Work".to_owned(), String::new()),
            ]
        );
    }

    #[test]
    fn only_h3_under_the_categories_heading_count() {
        let md = "# P\n### Not this\n## Categories\n\n### Health\ntext\n### `Work`\n#### Sub\n### Health\n```\n### In code\n```\n## Other\n### Nope\n";
        assert_eq!(categories(md), ["Health", "Work"]);
    }

    #[test]
    fn override_wins_and_a_custom_prompt_without_categories_is_a_usage_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("extraction-prompt.md");
        let p = Prompt::load(&path).unwrap();
        assert!(p.path.is_none());
        assert_eq!(p.categories, DEFAULT_CATEGORIES);
        std::fs::write(&path, "Extract facts.\n").unwrap();
        let e = Prompt::load(&path).unwrap_err();
        assert!(e.to_string().contains("no categories"), "{e}");
        assert_eq!(error::kind_of(&e), error::Kind::Usage);
        std::fs::write(&path, "## Categories\n\n### Health\n").unwrap();
        let p = Prompt::load(&path).unwrap();
        assert_eq!(p.path.as_deref(), Some(path.as_path()));
        assert_eq!(p.categories, ["Health"]);
        assert!(p.describe().contains("custom prompt"));
        std::fs::write(&path, b"\xff\xfe").unwrap();
        assert!(
            Prompt::load(&path)
                .unwrap_err()
                .to_string()
                .contains("not valid UTF-8")
        );
    }
}

#[cfg(test)]
mod resolve_tests {
    use super::*;

    const APP: &str =
        "# Durable Facts\n\n## Categories\n\n### Identity\nWho.\n\n### Health\nSleep.\n";

    #[test]
    fn the_override_wins_over_memory_loops_prompt_which_wins_over_the_built_in_one() {
        let dir = tempfile::tempdir().unwrap();
        let over = dir.path().join("extraction-prompt.md");
        let app = dir.path().join(MEMORY_LOOP_FILE);

        let p = Prompt::resolve(&over, &app).unwrap();
        assert_eq!((p.source, p.path, p.notice), (Source::Builtin, None, None));

        std::fs::write(&app, APP).unwrap();
        let p = Prompt::resolve(&over, &app).unwrap();
        assert_eq!(p.source, Source::MemoryLoop);
        assert_eq!(p.path.as_deref(), Some(app.as_path()));
        assert_eq!(p.categories, ["Identity", "Health"]);
        assert_eq!(p.text, APP);
        assert!(
            p.describe().starts_with("Memory Loop's prompt "),
            "{}",
            p.describe()
        );

        std::fs::write(&over, "## Categories\n\n### Work\n").unwrap();
        let p = Prompt::resolve(&over, &app).unwrap();
        assert_eq!(p.source, Source::Override);
        assert_eq!(p.path.as_deref(), Some(over.as_path()));
        assert_eq!(p.categories, ["Work"]);

        // A broken override is still the user's error to fix, whatever Memory Loop has.
        std::fs::write(&over, "").unwrap();
        assert_eq!(
            error::kind_of(&Prompt::resolve(&over, &app).unwrap_err()),
            error::Kind::Usage
        );
    }

    #[test]
    fn memory_loops_prompt_that_cannot_be_used_is_passed_over_with_a_notice() {
        let dir = tempfile::tempdir().unwrap();
        let over = dir.path().join("extraction-prompt.md");
        let app = dir.path().join(MEMORY_LOOP_FILE);
        for (bytes, why) in [
            (&b" \n"[..], "it is empty"),
            (
                b"Extract facts.\n",
                "it has no categories (`### Name` headings under `## Categories`)",
            ),
            (
                b"## Categories\n### \xff\n",
                "it is not valid UTF-8 at byte 18",
            ),
        ] {
            std::fs::write(&app, bytes).unwrap();
            let p = Prompt::resolve(&over, &app).unwrap();
            assert_eq!(p.source, Source::Builtin);
            assert_eq!(p.text, DEFAULT);
            assert_eq!(
                p.notice.as_deref(),
                Some(
                    format!(
                        "{}: {why}: Memory Loop's prompt is not used; the built-in prompt is",
                        app.display()
                    )
                    .as_str()
                )
            );
        }
    }
}
