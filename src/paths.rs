//! Where memloop's files live (CONTRACT "Paths"), computed from an injectable `Env` so tests
//! run against a temp home and never touch the real `$HOME`. Nothing here creates files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// A snapshot of the environment variables memloop reads.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: HashMap<String, String>,
}

impl Env {
    /// The current process's environment.
    #[allow(
        clippy::disallowed_methods,
        reason = "the one place the real environment is read"
    )]
    pub fn from_process() -> Self {
        Self {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        }
    }

    /// An environment made of the given pairs (for tests).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        }
    }

    /// The variable's value; an empty value counts as unset.
    pub fn var(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// `$HOME`, which every default path hangs from.
    pub fn home(&self) -> Result<PathBuf> {
        self.var("HOME")
            .map(PathBuf::from)
            .context("HOME is not set: memloop cannot find its config, state or memory file")
    }

    /// Expands a leading `~/` against `$HOME`.
    pub fn expand(&self, path: &str) -> Result<PathBuf> {
        match path.strip_prefix("~/") {
            Some(rest) => Ok(self.home()?.join(rest)),
            None if path == "~" => self.home(),
            None => Ok(PathBuf::from(path)),
        }
    }
}

/// The locations that do not depend on the config file's contents.
#[derive(Debug, Clone)]
pub struct Paths {
    pub config_file: PathBuf,
    /// Whether the config file was named by `--config` or `$MEMLOOP_CONFIG` (then it must exist).
    pub config_explicit: bool,
    pub prompt_file: PathBuf,
    /// Memory Loop's own prompt override (what its settings save), beside `prompt_file`:
    /// used when `prompt_file` does not exist.
    pub app_prompt_file: PathBuf,
    pub state_dir: PathBuf,
    /// Memory Loop's own state, whose checksums are imported once into an empty ledger.
    pub legacy_state: PathBuf,
}

impl Paths {
    /// The prompt in use (see [`crate::prompt::Prompt::resolve`]).
    ///
    /// # Errors
    ///
    /// The user's override cannot be used.
    pub fn prompt(&self) -> Result<crate::prompt::Prompt> {
        crate::prompt::Prompt::resolve(&self.prompt_file, &self.app_prompt_file)
    }

    /// Resolves the paths; `config_flag` is `--config` (it wins over `$MEMLOOP_CONFIG`).
    pub fn resolve(env: &Env, config_flag: Option<&Path>) -> Result<Self> {
        let home = env.home()?;
        let config_home = env
            .var("XDG_CONFIG_HOME")
            .map_or_else(|| home.join(".config"), PathBuf::from);
        let default_config_dir = config_home.join("memory-loop");
        let (config_file, config_explicit) = match (config_flag, env.var("MEMLOOP_CONFIG")) {
            (Some(flag), _) => (flag.to_path_buf(), true),
            (None, Some(var)) => (env.expand(var)?, true),
            (None, None) => (default_config_dir.join("config.toml"), false),
        };
        let config_dir = config_file
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let state_dir = match env.var("XDG_STATE_HOME") {
            Some(dir) => PathBuf::from(dir).join("memory-loop"),
            None if cfg!(target_os = "macos") => {
                home.join("Library/Application Support/memory-loop")
            }
            None => home.join(".local/state/memory-loop"),
        };
        Ok(Self {
            prompt_file: config_dir.join("extraction-prompt.md"),
            // Memory Loop saves it under the home directory whatever `XDG_CONFIG_HOME` says
            // (`USER_PROMPT_PATH` in its daemon/src/extraction/fact-extractor.ts, e70a27b).
            app_prompt_file: home
                .join(".config/memory-loop")
                .join(crate::prompt::MEMORY_LOOP_FILE),
            config_file,
            config_explicit,
            state_dir,
            legacy_state: home.join(".config/memory-loop/extraction-state.json"),
        })
    }

    /// The SQLite ledger.
    pub fn ledger(&self) -> PathBuf {
        self.state_dir.join("ledger.sqlite3")
    }
}

/// The memory file: `memory.path` from the config, else `$CLAUDE_CONFIG_DIR/rules/memory.md`,
/// else `~/.claude/rules/memory.md`.
pub fn memory_file(env: &Env, configured: &str) -> Result<PathBuf> {
    if !configured.is_empty() {
        return env.expand(configured);
    }
    match env.var("CLAUDE_CONFIG_DIR") {
        Some(dir) => Ok(env.expand(dir)?.join("rules/memory.md")),
        None => Ok(env.home()?.join(".claude/rules/memory.md")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_loops_prompt_is_under_the_home_directory_whatever_xdg_config_home_says() {
        let env = Env::from_pairs([("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")]);
        let p = Paths::resolve(&env, None).unwrap();
        assert_eq!(
            p.prompt_file,
            Path::new("/x/memory-loop/extraction-prompt.md")
        );
        assert_eq!(
            p.app_prompt_file,
            Path::new("/h/.config/memory-loop/durable-facts.md")
        );
    }

    #[test]
    fn defaults_hang_from_home() {
        let env = Env::from_pairs([("HOME", "/h")]);
        let p = Paths::resolve(&env, None).unwrap();
        assert_eq!(
            p.config_file,
            Path::new("/h/.config/memory-loop/config.toml")
        );
        assert_eq!(
            p.prompt_file,
            Path::new("/h/.config/memory-loop/extraction-prompt.md")
        );
        assert_eq!(
            p.app_prompt_file,
            Path::new("/h/.config/memory-loop/durable-facts.md")
        );
        if !cfg!(target_os = "macos") {
            assert_eq!(p.state_dir, Path::new("/h/.local/state/memory-loop"));
        }
        assert!(!p.config_explicit);
        assert_eq!(
            memory_file(&env, "").unwrap(),
            Path::new("/h/.claude/rules/memory.md")
        );
    }

    #[test]
    fn xdg_and_overrides_win_in_order() {
        let env = Env::from_pairs([
            ("HOME", "/h"),
            ("XDG_CONFIG_HOME", "/x/config"),
            ("XDG_STATE_HOME", "/x/state"),
            ("CLAUDE_CONFIG_DIR", "/c"),
        ]);
        let p = Paths::resolve(&env, None).unwrap();
        assert_eq!(
            p.config_file,
            Path::new("/x/config/memory-loop/config.toml")
        );
        assert_eq!(p.state_dir, Path::new("/x/state/memory-loop"));
        assert_eq!(
            memory_file(&env, "").unwrap(),
            Path::new("/c/rules/memory.md")
        );
        assert_eq!(memory_file(&env, "~/m.md").unwrap(), Path::new("/h/m.md"));

        let env = Env::from_pairs([("HOME", "/h"), ("MEMLOOP_CONFIG", "/e/c.toml")]);
        let p = Paths::resolve(&env, None).unwrap();
        assert_eq!(p.config_file, Path::new("/e/c.toml"));
        assert_eq!(p.prompt_file, Path::new("/e/extraction-prompt.md"));
        let p = Paths::resolve(&env, Some(Path::new("/f/c.toml"))).unwrap();
        assert_eq!(p.config_file, Path::new("/f/c.toml"));
        assert!(p.config_explicit);
    }

    #[test]
    fn empty_variables_count_as_unset() {
        let env = Env::from_pairs([("HOME", "/h"), ("XDG_STATE_HOME", "")]);
        assert!(env.var("XDG_STATE_HOME").is_none());
        assert!(Env::default().home().is_err());
    }
}
