//! The config file (CONTRACT "Config file"): one serde tree with the contract's defaults.
//! `from_toml` is pure; `load` reads the file; `Resolved::new` applies the precedence
//! flag > environment > file > default and checks what the run needs.
//!
//! API keys never come from here: they are read from the environment only.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::llm::{ProviderKind, Settings};
use crate::paths::{self, Env, Paths};
use crate::schedule::Schedule;

/// The whole config file. Every field has the contract's default.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub vaults_dir: String,
    pub vaults: Vec<String>,
    pub settle_minutes: u64,
    pub llm: LlmConfig,
    pub memory: MemoryConfig,
    pub insights: InsightsConfig,
    pub schedule: ScheduleConfig,
    pub sources: SourcesConfig,
    pub mcp: McpConfig,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            vaults_dir: String::new(),
            vaults: Vec::new(),
            settle_minutes: 10,
            llm: LlmConfig::default(),
            memory: MemoryConfig::default(),
            insights: InsightsConfig::default(),
            schedule: ScheduleConfig::default(),
            sources: SourcesConfig::default(),
            mcp: McpConfig::default(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LlmConfig {
    pub provider: String,
    pub model: String,
    pub concurrency: usize,
    pub max_input_tokens: usize,
    pub timeout_secs: u64,
    pub max_retries: u32,
    /// At most this many transcripts are sent per run (oldest first); 0 means no limit.
    pub max_transcripts_per_run: usize,
    /// At most this many input tokens are sent of one transcript in one run, in whole turns;
    /// the next runs read on from there, and the report says so. 0 means no limit.
    pub max_transcript_tokens: usize,
    /// At most this many facts are taken from one answer; the rest are refused and
    /// reported. 0 means no limit.
    pub max_facts_per_answer: usize,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            provider: "auto".into(),
            model: String::new(),
            concurrency: 4,
            max_input_tokens: 24_000,
            timeout_secs: 120,
            max_retries: 4,
            max_transcripts_per_run: 0,
            max_transcript_tokens: 200_000,
            max_facts_per_answer: 50,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryConfig {
    pub path: String,
    pub max_bytes: usize,
    pub review: bool,
    /// A fact nobody confirmed for this many days waits in `memory review --stale`; 0: never.
    pub stale_after_days: u32,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self {
            path: String::new(),
            max_bytes: 51_200,
            review: false,
            stale_after_days: 365,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct InsightsConfig {
    pub enabled: bool,
    pub max_bytes: usize,
}

impl Default for InsightsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_bytes: 8192,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ScheduleConfig {
    /// Checked as the file is read, so a bad expression names its line like any other
    /// error in the file.
    #[serde(deserialize_with = "cron", serialize_with = "cron_expr")]
    pub cron: Schedule,
    pub catch_up_hours: u64,
}

/// The default schedule: every day at 03:00 local time.
pub const DEFAULT_CRON: &str = "0 3 * * *";

impl Default for ScheduleConfig {
    fn default() -> Self {
        Self {
            cron: Schedule::parse(DEFAULT_CRON).expect("the default schedule parses"),
            catch_up_hours: 24,
        }
    }
}

/// `[mcp]`: what `memloop mcp` does with a fact a session asks it to remember.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct McpConfig {
    pub remember: McpRemember,
}

/// `[mcp] remember`.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum McpRemember {
    /// Held for `memory review`.
    #[default]
    Review,
    /// Written as the person's own fact.
    Accept,
}

/// Where transcripts come from besides Memory Loop's vaults.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SourcesConfig {
    pub claude_code: ClaudeCodeConfig,
}

/// `[sources.claude_code]`: Claude Code's own sessions (`~/.claude/projects`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ClaudeCodeConfig {
    /// Nothing from a coding session reaches an LLM unless this is `true` (or the run
    /// names the project with `--project`).
    pub enabled: bool,
    /// Project path patterns to read; empty: every project.
    pub include: Vec<String>,
    /// Project path patterns never to read, even when included.
    pub exclude: Vec<String>,
    /// Project path patterns whose facts about the project are written to a fenced
    /// section of the project's git-ignored `CLAUDE.local.md`; empty: none, ever.
    pub insights: Vec<String>,
}

/// A schedule as the file spells it.
fn cron_expr<S: serde::Serializer>(schedule: &Schedule, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(schedule.expr())
}

/// toml gives a custom error its line but not its key: the message names it.
fn cron<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Schedule, D::Error> {
    let text = String::deserialize(d)?;
    Schedule::parse(&text).map_err(|e| serde::de::Error::custom(format!("[schedule] cron: {e}")))
}

/// A config file that cannot be used; the run exits 2 with this message.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("could not read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{0}")]
    Invalid(String),
}

impl Config {
    /// Parses the TOML text of a config file; `path` only names it in errors.
    pub fn from_toml(text: &str, path: &Path) -> Result<Self, ConfigError> {
        toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map_or((1, 1), |span| line_col(text, span.start));
            let message = e.message().trim().replace("unknown field", "unknown key");
            let message = match e.span().and_then(|span| key_at(text, span.start)) {
                // A message that already names its key (`[schedule] cron: ...`) keeps one.
                Some(key)
                    if !message.contains("unknown key")
                        && !message.starts_with(&format!("{key}: ")) =>
                {
                    format!("{key}: {message}")
                }
                _ => message,
            };
            ConfigError::Parse {
                path: path.to_path_buf(),
                line,
                column,
                message,
            }
        })
    }

    /// Reads the config file; a missing default file means the defaults, a missing file
    /// named by `--config` or `$MEMLOOP_CONFIG` is an error.
    pub fn load(paths: &Paths) -> Result<Self, ConfigError> {
        match std::fs::read_to_string(&paths.config_file) {
            Ok(text) => Self::from_toml(&text, &paths.config_file),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !paths.config_explicit => {
                Ok(Self::default())
            }
            Err(source) => Err(ConfigError::Read {
                path: paths.config_file.clone(),
                source,
            }),
        }
    }
}

/// The key whose value starts at `offset`, with its table (`[schedule] catch_up_hours`),
/// when the value is on a `key = value` line.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let (key, _) = text[line_start..offset].split_once('=')?;
    let key = key.trim();
    if key.is_empty() || key.starts_with('#') {
        return None;
    }
    let table = text[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['));
    Some(match table {
        Some(table) => format!("{} {key}", table.split('#').next().unwrap_or(table).trim()),
        None => key.to_owned(),
    })
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Why `auto` (or the user) chose the provider in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderReason {
    /// Named in `$MEMLOOP_PROVIDER` or the config.
    Chosen(&'static str),
    /// Picked by `auto` because this variable is set.
    Auto(&'static str),
    /// `auto` found no LLM configured.
    Fallback,
}

impl std::fmt::Display for ProviderReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Chosen(source) => write!(f, "chosen by {source}"),
            Self::Auto(var) => write!(f, "auto: {var} is set"),
            Self::Fallback => f.write_str(
                "auto: none of ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL is set",
            ),
        }
    }
}

/// Everything a run needs, with flags, environment and file merged.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub config: Config,
    pub paths: Paths,
    pub vaults_dir: Option<PathBuf>,
    pub vaults: Vec<PathBuf>,
    pub memory_file: PathBuf,
    pub llm: Settings,
    pub provider_reason: ProviderReason,
    /// `[sources.claude_code]`, resolved.
    pub claude_code: crate::claude_code::project::Selection,
}

impl Resolved {
    /// Merges the environment over the config file and checks the result.
    pub fn new(config: Config, paths: Paths, env: &Env) -> Result<Self, ConfigError> {
        let invalid = |msg: String| ConfigError::Invalid(msg);
        let file = paths.config_file.display().to_string();
        let vaults_dir = match env.var("VAULTS_DIR") {
            Some(dir) => Some(expand(env, dir)?),
            None if !config.vaults_dir.is_empty() => Some(expand(env, &config.vaults_dir)?),
            None => None,
        };
        let vaults = config
            .vaults
            .iter()
            .map(|v| expand(env, v))
            .collect::<Result<_, _>>()?;
        let memory_file =
            paths::memory_file(env, &config.memory.path).map_err(|e| invalid(format!("{e:#}")))?;
        let claude_code =
            crate::claude_code::project::Selection::new(env, &config.sources.claude_code, &file)?;

        let (provider_name, source) = match env.var("MEMLOOP_PROVIDER") {
            Some(p) => (p.to_owned(), "MEMLOOP_PROVIDER"),
            None => (config.llm.provider.clone(), "the config file"),
        };
        let (kind, provider_reason) = match provider_name.as_str() {
            "auto" => auto_provider(env),
            "anthropic" => (ProviderKind::Anthropic, ProviderReason::Chosen(source)),
            "openai" => (ProviderKind::OpenAi, ProviderReason::Chosen(source)),
            "claude-cli" => (ProviderKind::ClaudeCli, ProviderReason::Chosen(source)),
            "builtin" => (ProviderKind::Builtin, ProviderReason::Chosen(source)),
            other => {
                return Err(invalid(format!(
                    "unknown provider `{other}` (from {}): expected auto, anthropic, openai, claude-cli or builtin",
                    if source == "MEMLOOP_PROVIDER" {
                        source
                    } else {
                        &file
                    }
                )));
            }
        };
        let api_key = match kind {
            ProviderKind::Anthropic => env.var("ANTHROPIC_API_KEY").map(str::to_owned),
            ProviderKind::OpenAi => env.var("OPENAI_API_KEY").map(str::to_owned),
            ProviderKind::ClaudeCli | ProviderKind::Builtin => None,
        };
        let base_url = match kind {
            ProviderKind::Anthropic => env
                .var("ANTHROPIC_BASE_URL")
                .unwrap_or("https://api.anthropic.com"),
            ProviderKind::OpenAi => env.var("OPENAI_BASE_URL").unwrap_or(OPENAI_DEFAULT_URL),
            ProviderKind::ClaudeCli | ProviderKind::Builtin => "",
        }
        .trim_end_matches('/')
        .to_owned();
        let model = env
            .var("MEMLOOP_MODEL")
            .map(str::to_owned)
            .or_else(|| Some(config.llm.model.clone()).filter(|m| !m.is_empty()))
            .unwrap_or_else(|| default_model(kind).to_owned());
        // A key pasted as the model would be shown by `status`, `doctor` and every report.
        if crate::redact::redact(&model) != model {
            let setting = if env.var("MEMLOOP_MODEL").is_some() {
                "MEMLOOP_MODEL".to_owned()
            } else {
                format!("{file}: llm.model")
            };
            return Err(invalid(format!(
                "{setting} looks like a key or another secret, not a model name (not shown here); set it to a model name such as {}",
                default_model(ProviderKind::Anthropic)
            )));
        }
        let header = crate::render::memory(&[], &[], usize::MAX, None).text.len();
        if config.memory.max_bytes < header {
            return Err(invalid(format!(
                "{file}: memory.max_bytes must be at least {header}, the length of memory.md's header alone (with less, no fact would ever be shown)"
            )));
        }
        if config.insights.max_bytes == 0 {
            return Err(invalid(format!(
                "{file}: insights.max_bytes must be at least 1; to write no insights, set [insights] enabled = false"
            )));
        }

        let llm = &config.llm;
        if llm.concurrency == 0 {
            return Err(invalid(format!(
                "{file}: llm.concurrency must be at least 1"
            )));
        }
        if llm.max_input_tokens < 500 {
            return Err(invalid(format!(
                "{file}: llm.max_input_tokens must be at least 500"
            )));
        }
        if llm.timeout_secs == 0 {
            return Err(invalid(format!(
                "{file}: llm.timeout_secs must be at least 1"
            )));
        }
        let settings = Settings {
            kind,
            model,
            api_key,
            base_url,
            timeout: Duration::from_secs(llm.timeout_secs),
            max_retries: llm.max_retries,
            max_output_tokens: 4096,
        };
        Ok(Self {
            paths,
            vaults_dir,
            vaults,
            memory_file,
            llm: settings,
            provider_reason,
            claude_code,
            config,
        })
    }
}

impl Resolved {
    /// What a provider needs before it can be called: checked by the commands that call
    /// it, so that `status`, `doctor` and `memory show` work without a key.
    pub fn require_credentials(&self) -> Result<(), ConfigError> {
        if self.llm.kind == ProviderKind::Anthropic && self.llm.api_key.is_none() {
            return Err(ConfigError::Invalid(
                "provider anthropic needs ANTHROPIC_API_KEY in the environment".into(),
            ));
        }
        // A local server needs no key; OpenAI's own API does, and transcripts should not
        // travel there only to be refused.
        if self.llm.kind == ProviderKind::OpenAi
            && self.llm.api_key.is_none()
            && self.llm.base_url == OPENAI_DEFAULT_URL
        {
            return Err(ConfigError::Invalid(
                "provider openai needs OPENAI_API_KEY, or OPENAI_BASE_URL for a local server"
                    .into(),
            ));
        }
        Ok(())
    }
}

fn expand(env: &Env, path: &str) -> Result<PathBuf, ConfigError> {
    env.expand(path)
        .map_err(|e| ConfigError::Invalid(format!("{e:#}")))
}

fn auto_provider(env: &Env) -> (ProviderKind, ProviderReason) {
    if env.var("ANTHROPIC_API_KEY").is_some() {
        (
            ProviderKind::Anthropic,
            ProviderReason::Auto("ANTHROPIC_API_KEY"),
        )
    } else if env.var("OPENAI_API_KEY").is_some() {
        (ProviderKind::OpenAi, ProviderReason::Auto("OPENAI_API_KEY"))
    } else if env.var("OPENAI_BASE_URL").is_some() {
        (
            ProviderKind::OpenAi,
            ProviderReason::Auto("OPENAI_BASE_URL"),
        )
    } else {
        (ProviderKind::Builtin, ProviderReason::Fallback)
    }
}

/// OpenAI's own endpoint, used when `OPENAI_BASE_URL` is not set.
pub(crate) const OPENAI_DEFAULT_URL: &str = "https://api.openai.com/v1";

/// The model a provider uses when the user names none.
pub fn default_model(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Anthropic | ProviderKind::ClaudeCli => "claude-haiku-4-5",
        ProviderKind::OpenAi => "gpt-4.1-mini",
        ProviderKind::Builtin => "builtin",
    }
}

/// The provider's name as users write it.
pub fn provider_name(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Anthropic => "anthropic",
        ProviderKind::OpenAi => "openai",
        ProviderKind::ClaudeCli => "claude-cli",
        ProviderKind::Builtin => "builtin",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The configuration reference's block: the TOML under `## The file and its defaults`
    /// in docs/configuration.md.
    fn reference_block() -> toml::Table {
        let doc = include_str!("../docs/configuration.md");
        let section = &doc[doc
            .find("\n## The file and its defaults\n")
            .expect("the section")..];
        let start = section.find("```toml\n").expect("its toml block") + "```toml\n".len();
        let end = start + section[start..].find("```").expect("the block's end");
        section[start..end]
            .parse()
            .expect("docs/configuration.md's block is TOML")
    }

    /// Every key of a table, as `section.key`, nested tables by their path.
    fn keys(table: &toml::Table, prefix: &str, out: &mut Vec<String>) {
        for (k, v) in table {
            let path = format!("{prefix}{k}");
            match v {
                toml::Value::Table(t) => keys(t, &format!("{path}."), out),
                _ => out.push(path),
            }
        }
    }

    #[test]
    fn the_reference_documents_every_key_with_its_default() {
        let documented = reference_block();
        let defaults = toml::Table::try_from(Config::default()).expect("the defaults as TOML");
        let (mut documented_keys, mut config) = (Vec::new(), Vec::new());
        keys(&documented, "", &mut documented_keys);
        keys(&defaults, "", &mut config);
        documented_keys.sort();
        config.sort();
        assert_eq!(
            documented_keys, config,
            "docs/configuration.md's block and the config struct"
        );
        let parsed: Config = documented
            .try_into()
            .expect("docs/configuration.md's block is a config");
        assert_eq!(
            parsed,
            Config::default(),
            "docs/configuration.md gives the defaults"
        );
    }

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::from_toml(text, Path::new("/c/config.toml"))
    }

    fn resolve(config: Config, pairs: &[(&str, &str)]) -> Result<Resolved, ConfigError> {
        let mut all = vec![("HOME", "/h")];
        all.extend_from_slice(pairs);
        let env = Env::from_pairs(all);
        let paths = Paths::resolve(&env, None).unwrap();
        Resolved::new(config, paths, &env)
    }

    #[test]
    fn empty_file_is_the_contract_defaults() {
        let c = parse("").unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.settle_minutes, 10);
        assert_eq!(c.llm.concurrency, 4);
        assert_eq!(c.llm.max_input_tokens, 24_000);
        assert_eq!(c.llm.timeout_secs, 120);
        assert_eq!(c.llm.max_retries, 4);
        assert_eq!(c.llm.max_transcript_tokens, 200_000);
        assert_eq!(c.llm.max_facts_per_answer, 50);
        assert_eq!(c.memory.max_bytes, 51_200);
        assert_eq!(c.insights.max_bytes, 8192);
        assert_eq!(c.schedule.cron.expr(), "0 3 * * *");
    }

    #[test]
    fn a_cron_that_is_not_5_fields_names_the_line_and_key() {
        let err = parse("settle_minutes = 5\n[schedule]\ncron = \"every night\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("/c/config.toml:3:8: [schedule] cron: invalid cron expression"),
            "{err}"
        );
        assert!(err.contains("\"0 3 * * *\""), "{err}");
        let c = parse("[schedule]\ncron = \"30 4 * * 1-5\"\n").unwrap();
        assert_eq!(c.schedule.cron.expr(), "30 4 * * 1-5");
    }

    #[test]
    fn the_contract_example_parses() {
        let c = parse(
            "vaults_dir = \"~/vaults\"\nvaults = [\"/x\"]\nsettle_minutes = 5\n[llm]\nprovider = \"openai\"\nmodel = \"m\"\n[memory]\nmax_bytes = 1000\nreview = true\n[insights]\nenabled = false\n[schedule]\ncatch_up_hours = 2\n",
        )
        .unwrap();
        assert_eq!(c.settle_minutes, 5);
        assert_eq!(c.llm.provider, "openai");
        assert_eq!(c.memory.max_bytes, 1000);
        assert!(c.memory.review);
        assert!(!c.insights.enabled);
        assert_eq!(c.llm.concurrency, 4, "unset keys keep their defaults");
    }

    #[test]
    fn a_value_of_the_wrong_type_names_its_key() {
        let err = parse("[schedule]\ncatch_up_hours = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/c/config.toml:2:"), "{err}");
        assert!(
            err.contains("[schedule] catch_up_hours: invalid type"),
            "{err}"
        );
        let err = parse("settle_minutes = -3\n").unwrap_err().to_string();
        assert!(err.contains("settle_minutes: "), "{err}");
    }

    #[test]
    fn unknown_key_names_file_line_and_key() {
        let err = parse("settle_minutes = 3\n[llm]\nmodle = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/c/config.toml:3:"), "{err}");
        assert!(err.contains("unknown key `modle`"), "{err}");
    }

    #[test]
    fn the_claude_code_source_is_off_by_default_and_reads_its_patterns() {
        let cfg = parse("").unwrap();
        assert!(!cfg.sources.claude_code.enabled);
        let cfg = parse(
            "[sources.claude_code]\nenabled = true\ninclude = [\"~/work\"]\nexclude = [\"scratch\"]\ninsights = [\"~/work/app\"]\n",
        )
        .unwrap();
        let cc = &cfg.sources.claude_code;
        assert!(cc.enabled);
        assert_eq!(cc.include, ["~/work"]);
        assert_eq!(cc.exclude, ["scratch"]);
        assert_eq!(cc.insights, ["~/work/app"]);
        let err = parse("[sources.claude_code]\nenable = true\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("/c/config.toml:2:") && err.contains("unknown key `enable`"),
            "{err}"
        );
    }

    #[test]
    fn malformed_toml_names_the_line() {
        let err = parse("a = 1\nsettle_minutes = \n").unwrap_err().to_string();
        assert!(err.starts_with("/c/config.toml:2:"), "{err}");
        let err = parse("settle_minutes = \"ten\"\n").unwrap_err().to_string();
        assert!(err.starts_with("/c/config.toml:1:"), "{err}");
    }

    #[test]
    fn auto_picks_by_environment() {
        let cases: &[(&[(&str, &str)], ProviderKind)] = &[
            (&[], ProviderKind::Builtin),
            (&[("ANTHROPIC_API_KEY", "k")], ProviderKind::Anthropic),
            (&[("OPENAI_API_KEY", "k")], ProviderKind::OpenAi),
            (
                &[("OPENAI_BASE_URL", "http://localhost:11434/v1")],
                ProviderKind::OpenAi,
            ),
            (
                &[("ANTHROPIC_API_KEY", "k"), ("OPENAI_API_KEY", "k")],
                ProviderKind::Anthropic,
            ),
            (
                &[("ANTHROPIC_API_KEY", "k"), ("MEMLOOP_PROVIDER", "builtin")],
                ProviderKind::Builtin,
            ),
        ];
        for (env, want) in cases {
            assert_eq!(
                resolve(Config::default(), env).unwrap().llm.kind,
                *want,
                "{env:?}"
            );
        }
        let r = resolve(Config::default(), &[]).unwrap();
        assert_eq!(r.provider_reason, ProviderReason::Fallback);
        assert_eq!(r.llm.model, "builtin");
    }

    #[test]
    fn precedence_env_over_file_over_default() {
        let mut c = Config::default();
        c.llm.model = "from-file".into();
        c.vaults_dir = "~/v".into();
        let r = resolve(c.clone(), &[("ANTHROPIC_API_KEY", "k")]).unwrap();
        assert_eq!(r.llm.model, "from-file");
        assert_eq!(r.vaults_dir.as_deref(), Some(Path::new("/h/v")));
        assert_eq!(r.llm.base_url, "https://api.anthropic.com");
        let r = resolve(
            c,
            &[
                ("ANTHROPIC_API_KEY", "k"),
                ("MEMLOOP_MODEL", "from-env"),
                ("VAULTS_DIR", "/v"),
                ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
            ],
        )
        .unwrap();
        assert_eq!(r.llm.model, "from-env");
        assert_eq!(r.vaults_dir.as_deref(), Some(Path::new("/v")));
        assert_eq!(r.llm.base_url, "http://127.0.0.1:9");
        let r = resolve(Config::default(), &[("ANTHROPIC_API_KEY", "k")]).unwrap();
        assert_eq!(r.llm.model, "claude-haiku-4-5");
    }

    #[test]
    fn bad_provider_and_missing_key_are_config_errors() {
        let err = resolve(Config::default(), &[("MEMLOOP_PROVIDER", "gemini")]).unwrap_err();
        assert!(err.to_string().contains("unknown provider `gemini`"));
        let r = resolve(Config::default(), &[("MEMLOOP_PROVIDER", "anthropic")]).unwrap();
        let err = r.require_credentials().unwrap_err();
        assert!(err.to_string().contains("ANTHROPIC_API_KEY"));
        let r = resolve(Config::default(), &[("MEMLOOP_PROVIDER", "openai")]).unwrap();
        assert!(
            r.require_credentials()
                .unwrap_err()
                .to_string()
                .contains("OPENAI_BASE_URL")
        );
        let local = [
            ("MEMLOOP_PROVIDER", "openai"),
            ("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1"),
        ];
        assert!(
            resolve(Config::default(), &local)
                .unwrap()
                .require_credentials()
                .is_ok()
        );
    }

    #[test]
    fn memory_review_is_a_setting_a_run_accepts() {
        let c = parse("[memory]\nreview = true\n").unwrap();
        let r = resolve(c, &[]).unwrap();
        assert!(r.config.memory.review);
    }

    #[test]
    fn a_key_set_as_the_model_is_a_config_error_that_does_not_show_it_and_model_names_are_not() {
        const KEY: &str = "sk-ant-api03-Qm7xT2vK9pL4sW8nR3yH6jB1cF5gD0aZeU-AbCdEfAA";
        let err = resolve(Config::default(), &[("MEMLOOP_MODEL", KEY)]).unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("MEMLOOP_MODEL looks like a key"), "{msg}");
        assert!(!msg.contains("Qm7xT2vK9pL4sW8n"), "{msg}");
        let c = parse(&format!("[llm]\nmodel = \"{KEY}\"\n")).unwrap();
        let msg = resolve(c, &[]).unwrap_err().to_string();
        assert!(msg.contains("llm.model looks like a key"), "{msg}");
        for model in [
            "claude-haiku-4-5",
            "claude-3-5-sonnet-20241022",
            "gpt-4o-mini",
            "gpt-4o-2024-08-06",
            "o3-mini",
            "meta-llama/Llama-3.1-8B-Instruct",
            "Qwen/Qwen2.5-Coder-32B-Instruct-AWQ",
            "qwen2.5:7b-instruct-q4_K_M",
            "hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M",
            "anthropic/claude-3.5-sonnet",
            "us.anthropic.claude-3-5-haiku-20241022-v1:0",
            "deepseek-r1:32b",
            "mistral-large-2411",
            "gemini-1.5-pro-002",
        ] {
            let r = resolve(Config::default(), &[("MEMLOOP_MODEL", model)]);
            assert_eq!(r.map(|r| r.llm.model).ok().as_deref(), Some(model));
        }
    }

    #[test]
    fn a_cap_nothing_fits_under_is_a_config_error() {
        for text in ["[memory]\nmax_bytes = 0\n", "[memory]\nmax_bytes = 100\n"] {
            let msg = resolve(parse(text).unwrap(), &[]).unwrap_err().to_string();
            assert!(msg.contains("memory.max_bytes must be at least"), "{msg}");
        }
        let msg = resolve(parse("[insights]\nmax_bytes = 0\n").unwrap(), &[])
            .unwrap_err()
            .to_string();
        assert!(msg.contains("enabled = false"), "{msg}");
        assert!(resolve(parse("[memory]\nmax_bytes = 412\n").unwrap(), &[]).is_ok());
    }
}
