//! `memloop prompt show | edit | reset [--yes] | path`: the extraction prompt in use, the
//! user's override of it, and going back to the built-in default.
//!
//! The prompt in use is the override (`extraction-prompt.md`), else the one Memory Loop's
//! settings saved (`durable-facts.md`), else the built-in one. `edit` and `reset` work on
//! the override only: Memory Loop's file belongs to Memory Loop (its settings show and
//! reset it), so memloop never writes or deletes it, and says so when it is the one in use.
//!
//! `edit` never lets a prompt that `Prompt::load` would refuse (empty, no categories) become
//! the override: the editor works on a copy beside it, and only a usable copy replaces the
//! override, atomically. A copy that cannot be used is kept, and the command says where. It
//! does not re-extract anything: transcripts processed with the old prompt keep their facts
//! until `memloop extract --force`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{EXIT_FAILED, EXIT_OK, editor, print, say};
use crate::cli::PromptCommand;
use crate::error;
use crate::fsutil;
use crate::paths::{Env, Paths};
use crate::prompt::{self, Source};

pub fn run(paths: &Paths, env: &Env, cmd: &PromptCommand) -> Result<u8> {
    match cmd {
        PromptCommand::Show => show(paths),
        PromptCommand::Path => path(paths),
        PromptCommand::Edit => edit(env, paths),
        PromptCommand::Reset { yes } => reset(paths, *yes),
    }
}

/// Prints the prompt in use on stdout, and on stderr which one it is.
fn show(paths: &Paths) -> Result<u8> {
    let prompt = paths.prompt()?;
    let path = &paths.prompt_file;
    say(&match (&prompt.path, prompt.source) {
        (Some(p), Source::MemoryLoop) => memory_loop_in_use(p, path),
        (Some(p), _) => format!("your override {} is in use", p.display()),
        (None, _) => format!(
            "the built-in prompt is in use (no override at {})",
            path.display()
        ),
    });
    if let Some(notice) = &prompt.notice {
        say(notice);
    }
    print(&prompt.text)?;
    Ok(EXIT_OK)
}

/// Prints the path of the prompt file in use; with the built-in prompt, where an override
/// goes (what `edit` creates).
fn path(paths: &Paths) -> Result<u8> {
    let prompt = paths.prompt()?;
    if let (Some(p), Source::MemoryLoop) = (&prompt.path, prompt.source) {
        say(&memory_loop_in_use(p, &paths.prompt_file));
    }
    let shown = prompt.path.as_deref().unwrap_or(&paths.prompt_file);
    print(&format!("{}\n", shown.display()))?;
    Ok(EXIT_OK)
}

/// What to tell the user when Memory Loop's prompt is the one in use.
fn memory_loop_in_use(app: &Path, path: &Path) -> String {
    format!(
        "Memory Loop's prompt {} is in use (saved by its settings); an override at {} would win over it (`memloop prompt edit`)",
        app.display(),
        path.display()
    )
}

/// Opens a copy of the override in the editor (the first time, a copy of the prompt in use:
/// Memory Loop's, else the default), and puts the result in place when the editor succeeds
/// and the prompt can be used.
fn edit(env: &Env, paths: &Paths) -> Result<u8> {
    let path = paths.prompt_file.as_path();
    let current = match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("could not read {}", path.display())),
    };
    let in_use = match current {
        Some(_) => None,
        None => Some(paths.prompt()?),
    };
    let start = match (&current, &in_use) {
        (Some(bytes), _) => bytes.as_slice(),
        (None, Some(p)) => p.text.as_bytes(),
        (None, None) => prompt::DEFAULT.as_bytes(),
    };
    let copy = edit_copy(path, &chrono::Local::now());
    fsutil::write_atomic(&copy, start)
        .with_context(|| format!("could not write the copy to edit {}", copy.display()))?;
    let opened = editor::open(env, &copy);
    let kept = |what: &str| {
        format!(
            "{what}: {} was left as it is; your copy is kept at {}",
            path.display(),
            copy.display()
        )
    };
    match opened {
        Err(e) => {
            let _ = std::fs::remove_file(&copy);
            return Err(e);
        }
        Ok(false) => {
            say(&kept("the editor exited with an error"));
            return Ok(EXIT_FAILED);
        }
        Ok(true) => {}
    }
    let edited = std::fs::read(&copy)
        .with_context(|| format!("could not read the edited copy {}", copy.display()))?;
    if edited == start {
        let _ = std::fs::remove_file(&copy);
        say(&match (&current, in_use.as_ref().map(|p| p.source)) {
            (Some(_), _) => format!("no changes: {} is as it was", path.display()),
            (None, Some(Source::MemoryLoop)) => {
                "no changes: Memory Loop's prompt is still in use".to_owned()
            }
            (None, _) => "no changes: the built-in prompt is still in use".to_owned(),
        });
        return Ok(EXIT_OK);
    }
    let text = String::from_utf8(edited).map_err(|e| {
        error::usage(kept(&format!(
            "the edited prompt is not valid UTF-8 (at byte {})",
            e.utf8_error().valid_up_to()
        )))
    })?;
    if let Err(why) = prompt::check(&text) {
        return Err(error::usage(kept(&format!("the edited prompt: {why}"))));
    }
    fsutil::write_atomic(path, text.as_bytes())
        .with_context(|| kept(&format!("could not write {}", path.display())))?;
    let _ = std::fs::remove_file(&copy);
    let over_app = if paths.app_prompt_file.exists() {
        format!(
            "; it wins over Memory Loop's {}, which memloop leaves as it is",
            paths.app_prompt_file.display()
        )
    } else {
        String::new()
    };
    say(&format!(
        "saved {} (categories: {}){over_app}; transcripts already processed keep what the old prompt found: `memloop extract --force` processes them again",
        path.display(),
        prompt::categories(&text).join(", ")
    ));
    Ok(EXIT_OK)
}

/// Where the editor's copy of the override goes: beside it, named for the time.
fn edit_copy(path: &Path, now: &chrono::DateTime<chrono::Local>) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "extraction-prompt".into(), |s| s.to_string_lossy());
    path.with_file_name(format!("{stem}.edit-{}.md", now.format("%Y%m%d-%H%M%S")))
}

/// Removes the override after asking (`--yes`: without asking). Memory Loop's prompt is
/// never removed: it is Memory Loop's file, shown and reset by its settings; when it is
/// there, it is the prompt in use afterwards, and this says so.
fn reset(paths: &Paths, yes: bool) -> Result<u8> {
    let path = paths.prompt_file.as_path();
    let app = paths.app_prompt_file.as_path();
    let (then, in_use) = if app.exists() {
        (
            format!("Memory Loop's prompt {}", app.display()),
            format!(
                "Memory Loop's prompt {} is in use: memloop leaves Memory Loop's file alone (reset it in Memory Loop's settings, or delete it, for the built-in prompt)",
                app.display()
            ),
        )
    } else {
        (
            "the built-in prompt".to_owned(),
            "the built-in prompt is in use".to_owned(),
        )
    };
    if !path.exists() {
        say(&format!("no override at {}; {in_use}", path.display()));
        return Ok(EXIT_OK);
    }
    if !yes
        && !editor::confirm(&format!(
            "remove your prompt override {} and use {then}?",
            path.display()
        ))?
    {
        say(&format!(
            "nothing removed: {} is still in use (answer y, or pass --yes)",
            path.display()
        ));
        return Ok(EXIT_OK);
    }
    match std::fs::remove_file(path) {
        Ok(()) => say(&format!("removed {}; {in_use}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            say(&format!("no override at {}; {in_use}", path.display()));
        }
        Err(e) => {
            return Err(e).with_context(|| format!("could not remove {}", path.display()));
        }
    }
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editors_copy_sits_beside_the_override_and_is_named_for_the_time() {
        use chrono::TimeZone;
        let now = chrono::Local
            .with_ymd_and_hms(2026, 11, 24, 7, 12, 5)
            .single()
            .unwrap();
        assert_eq!(
            edit_copy(Path::new("/c/memory-loop/extraction-prompt.md"), &now),
            Path::new("/c/memory-loop/extraction-prompt.edit-20261124-071205.md")
        );
    }
}
