//! Claude Code's projects: which there are (`~/.claude/projects/<encoded-cwd>/`), the working
//! directory each one's sessions belong to, and what the user's `[sources.claude_code]`
//! lets memloop do with it: read its sessions (`enabled`, `include`, `exclude`) and write
//! its insights to the project's git-ignored `CLAUDE.local.md` (`insights`). A project
//! becomes a [`Vault`] of kind [`Kind::ClaudeCode`], so scanning, extracting and writing
//! treat it as they treat a Memory Loop vault.
//!
//! It does not read what a session says (`session` does), and it never reads the
//! sessions of memloop's own `claude` runs.

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::config::{ClaudeCodeConfig, ConfigError};
use crate::paths::Env;
use crate::vault::{Kind, LOCAL_FILE, Vault};

/// What the user's `[sources.claude_code]` allows, resolved.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The source is on: projects are read (those included and not excluded).
    pub enabled: bool,
    /// Where Claude Code keeps its projects: `$CLAUDE_CONFIG_DIR/projects`, else
    /// `~/.claude/projects`.
    pub projects_dir: PathBuf,
    include: Patterns,
    exclude: Patterns,
    insights: Patterns,
}

/// Whether a project is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Read,
    /// Not matched by `include`, or matched by `exclude`.
    Excluded,
    /// The sessions of memloop's own `claude` runs.
    Own,
}

impl Selection {
    /// Resolves the config section; `file` names the config file in errors.
    ///
    /// # Errors
    ///
    /// A pattern that is not a valid glob, or `HOME` unset when the path needs it.
    pub fn new(env: &Env, cfg: &ClaudeCodeConfig, file: &str) -> Result<Self, ConfigError> {
        let invalid = |e: anyhow::Error| ConfigError::Invalid(format!("{e:#}"));
        let projects_dir = match env.var("CLAUDE_CONFIG_DIR") {
            Some(dir) => env.expand(dir).map_err(invalid)?.join("projects"),
            None => env.home().map_err(invalid)?.join(".claude/projects"),
        };
        let patterns = |key: &str, list: &[String]| Patterns::new(env, key, list, file);
        Ok(Self {
            enabled: cfg.enabled,
            projects_dir,
            include: patterns("include", &cfg.include)?,
            exclude: patterns("exclude", &cfg.exclude)?,
            insights: patterns("insights", &cfg.insights)?,
        })
    }

    /// Whether the project's sessions may be read (when the source is on).
    #[must_use]
    pub fn choose(&self, project: &Project) -> Choice {
        if is_own(project) {
            Choice::Own
        } else if (self.include.is_empty() || self.include.matches(&project.cwd))
            && !self.exclude.matches(&project.cwd)
        {
            Choice::Read
        } else {
            Choice::Excluded
        }
    }

    /// Whether a session held in `cwd` may be sent: the check a session makes for itself
    /// when its working directory is not its project's (Claude Code spells `/a/my_app` and
    /// `/a/my-app` alike, so one directory may hold both), by the patterns, or when the run
    /// names projects (`named`, as given and canonical), by those names alone.
    #[must_use]
    pub fn admits(&self, cwd: &Path, named: &[PathBuf]) -> bool {
        if cwd
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains(OWN_RUNS))
        {
            return false;
        }
        if !named.is_empty() {
            return named
                .iter()
                .any(|n| n == cwd || std::fs::canonicalize(n).is_ok_and(|c| c == cwd));
        }
        self.enabled
            && (self.include.is_empty() || self.include.matches(cwd))
            && !self.exclude.matches(cwd)
    }

    /// Whether the user opted the project in to insights in its `CLAUDE.local.md`.
    #[must_use]
    pub fn wants_insights(&self, project: &Project) -> bool {
        self.insights.matches(&project.cwd)
    }
}

/// Project path patterns: `~/` expands to the home directory, `*` matches within one
/// path component and `**` across them, a pattern matches the directories under what it
/// names too, and one without a `/` matches a project by its directory's name.
#[derive(Debug, Clone)]
struct Patterns {
    full: GlobSet,
    names: GlobSet,
}

impl Patterns {
    fn new(env: &Env, key: &str, list: &[String], file: &str) -> Result<Self, ConfigError> {
        let mut full = GlobSetBuilder::new();
        let mut names = GlobSetBuilder::new();
        for pattern in list {
            let bad = |e: String| {
                ConfigError::Invalid(format!(
                    "{file}: [sources.claude_code] {key}: {pattern:?} is not a usable pattern: {e}"
                ))
            };
            let glob = |p: &str| {
                GlobBuilder::new(p)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| bad(e.kind().to_string()))
            };
            let trimmed = pattern.trim_end_matches('/');
            if trimmed.is_empty() {
                return Err(bad("it is empty".into()));
            }
            if trimmed.contains('/') || trimmed.starts_with('~') {
                let expanded = env
                    .expand(trimmed)
                    .map_err(|e| bad(format!("{e:#}")))?
                    .display()
                    .to_string();
                // A relative path (`clients/acme`, `$HOME/x`, `~user/x`) would match no
                // project, and an exclude that matches nothing reads what it was meant to keep.
                if !expanded.starts_with('/') && !expanded.starts_with('*') {
                    return Err(bad(
                        "a path pattern starts with / or ~/ (or **/ to match at any depth); \
                         one without a / matches a project by its directory's name"
                            .into(),
                    ));
                }
                full.add(glob(&expanded)?);
                full.add(glob(&format!("{expanded}/**"))?);
            } else {
                names.add(glob(trimmed)?);
            }
        }
        let build = |b: GlobSetBuilder| b.build().map_err(|e| bad_set(key, file, &e));
        Ok(Self {
            full: build(full)?,
            names: build(names)?,
        })
    }

    fn is_empty(&self) -> bool {
        self.full.is_empty() && self.names.is_empty()
    }

    /// A name matches the directory it names and what is under it, as a path does: a
    /// session started in `secret-client/api` belongs to `secret-client` too.
    fn matches(&self, path: &Path) -> bool {
        self.full.is_match(path)
            || (!self.names.is_empty()
                && path.components().any(|c| match c {
                    std::path::Component::Normal(n) => self.names.is_match(n),
                    _ => false,
                }))
    }
}

fn bad_set(key: &str, file: &str, e: &globset::Error) -> ConfigError {
    ConfigError::Invalid(format!("{file}: [sources.claude_code] {key}: {e}"))
}

/// One of Claude Code's projects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// Claude Code's directory of the project's sessions.
    pub sessions_dir: PathBuf,
    /// The project's working directory, as its newest session records it; else read
    /// from the directory's name, where `/` was written as `-` (`cwd_known` false).
    pub cwd: PathBuf,
    /// Whether `cwd` was read from a session rather than guessed from the name.
    pub cwd_known: bool,
    /// Its session files (subagents' left out), listed once when it was found; or why
    /// the directory could not be listed.
    pub sessions: Result<Vec<PathBuf>, String>,
}

/// Claude Code's projects under `projects_dir`, by directory name; a missing directory
/// has none.
///
/// # Errors
///
/// `projects_dir` exists but cannot be listed.
pub fn discover(projects_dir: &Path) -> io::Result<Vec<Project>> {
    let entries = match std::fs::read_dir(projects_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut projects = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if name.as_encoded_bytes().starts_with(b".") || !entry.path().is_dir() {
            continue;
        }
        let sessions_dir = entry.path();
        let sessions = list_sessions(&sessions_dir).map_err(|e| e.to_string());
        let listed = sessions.as_deref().unwrap_or_default();
        let (cwd, cwd_known) = match working_dir(listed) {
            Some(cwd) => (cwd, true),
            None => (decode_name(&name.to_string_lossy()), false),
        };
        projects.push(Project {
            sessions_dir,
            cwd,
            cwd_known,
            sessions,
        });
    }
    projects.sort_by(|a, b| a.sessions_dir.cmp(&b.sessions_dir));
    Ok(projects)
}

/// What a run would do with each project: the projects found, those read (as vaults),
/// and what the user should hear.
#[derive(Debug, Default)]
pub struct Listing {
    /// Every project found (memloop's own left out), in directory order.
    pub projects: Vec<Listed>,
    /// The projects read, as vaults.
    pub vaults: Vec<Vault>,
    /// Warnings that do not stop a project from being read (insights not written).
    pub notices: Vec<String>,
    /// `(path, reason)` for what could not be used.
    pub failures: Vec<(PathBuf, String)>,
}

/// One project, and whether a run reads it.
#[derive(Debug, Clone)]
pub struct Listed {
    pub project: Project,
    /// Its session files.
    pub sessions: usize,
    /// Why it is read or not: `read`, `not enabled`, `excluded`, `not named`, `no sessions`.
    pub status: &'static str,
    /// Its insights go to its `CLAUDE.local.md`.
    pub insights: bool,
}

impl Listed {
    /// Whether a run reads it.
    #[must_use]
    pub fn is_read(&self) -> bool {
        self.status == "read"
    }
}

/// Lists Claude Code's projects as a run takes them: those `[sources.claude_code]` lets
/// in, or only those named (`--project`, read even when the source is off). A project
/// opted in to insights whose `CLAUDE.local.md` cannot be written safely is read, its
/// insights kept in the ledger unwritten, with a notice.
///
/// # Errors
///
/// A named directory that is no project Claude Code has sessions for (a usage error).
pub fn select(selection: &Selection, named: &[PathBuf]) -> Result<Listing, String> {
    let mut listing = Listing::default();
    let found = match discover(&selection.projects_dir) {
        Ok(found) => found,
        Err(e) => {
            listing.failures.push((
                selection.projects_dir.clone(),
                format!("could not list Claude Code's projects: {e}"),
            ));
            Vec::new()
        }
    };
    let wanted: Vec<PathBuf> = named
        .iter()
        .map(|dir| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()))
        .collect();
    for (dir, canonical) in named.iter().zip(&wanted) {
        if !found.iter().any(|p| &p.cwd == canonical || &p.cwd == dir) {
            return Err(format!(
                "no Claude Code sessions for the project {} in {}",
                dir.display(),
                selection.projects_dir.display()
            ));
        }
    }
    for p in found {
        let sessions = match &p.sessions {
            Ok(list) => list.len(),
            Err(e) => {
                if selection.choose(&p) != Choice::Own {
                    listing.failures.push((
                        p.sessions_dir.clone(),
                        format!(
                            "could not list Claude Code's sessions of {}: {e}",
                            p.cwd.display()
                        ),
                    ));
                }
                continue;
            }
        };
        let status = match selection.choose(&p) {
            Choice::Own => continue,
            _ if sessions == 0 => "no sessions",
            _ if !named.is_empty() => {
                if named.contains(&p.cwd) || wanted.contains(&p.cwd) {
                    "read"
                } else {
                    "not named"
                }
            }
            _ if !selection.enabled => "not enabled",
            Choice::Read => "read",
            Choice::Excluded => "excluded",
        };
        let mut insights = selection.wants_insights(&p);
        if status == "read" {
            if insights && let Some(refused) = insights_refused(&p.cwd) {
                listing.notices.push(refused);
                insights = false;
            }
            let name = p.cwd.display().to_string();
            // Two directories of one project (it moved, or two paths share a directory name
            // in Claude Code's spelling): both are read as the one project, whose insights
            // only the first writes.
            if let Some(other) = listing.vaults.iter().find(|v| v.name == name) {
                if insights {
                    listing.notices.push(format!(
                        "{}: its sessions name the same project as {}: read as one, its insights written from there",
                        p.sessions_dir.display(),
                        other.root.display()
                    ));
                }
                insights = false;
            }
            match to_vault(&p, insights) {
                Ok(v) => listing.vaults.push(v),
                Err(e) => listing.failures.push((
                    p.sessions_dir.clone(),
                    format!("could not open Claude Code's project directory: {e}"),
                )),
            }
        }
        listing.projects.push(Listed {
            project: p,
            sessions,
            status,
            insights,
        });
    }
    Ok(listing)
}

/// The projects a run reads when it names none, as vaults: none while the source is off.
/// A project that cannot be listed is left out here; a run reports it.
#[must_use]
pub fn read_by_default(selection: &Selection) -> Vec<Vault> {
    if !selection.enabled {
        return Vec::new();
    }
    select(selection, &[]).map_or_else(|_| Vec::new(), |listing| listing.vaults)
}

/// How many projects (not memloop's own) hold how many sessions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Found {
    pub projects: usize,
    pub sessions: usize,
}

/// Counts the projects under `projects_dir` that hold sessions.
#[must_use]
pub fn found(projects_dir: &Path) -> Found {
    let mut found = Found::default();
    for project in discover(projects_dir).unwrap_or_default() {
        if is_own(&project) {
            continue;
        }
        let n = project.sessions.as_ref().map_or(0, Vec::len);
        if n > 0 {
            found.projects += 1;
            found.sessions += n;
        }
    }
    found
}

/// What to tell a user whose Claude Code sessions sit unread because the source is off:
/// what was found and how to turn it on; `None` when it is on or there is nothing.
#[must_use]
pub fn hint(selection: &Selection, config_file: &Path) -> Option<String> {
    if selection.enabled {
        return None;
    }
    let found = found(&selection.projects_dir);
    (found.sessions > 0).then(|| {
        format!(
            "found {} Claude Code session{} in {} project{} under {}, not read: to extract \
             them, set `[sources.claude_code] enabled = true` in {} (with include / exclude \
             patterns to choose projects), or run `memloop extract --project DIR` for one",
            found.sessions,
            plural(found.sessions),
            found.projects,
            plural(found.projects),
            selection.projects_dir.display(),
            config_file.display()
        )
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The session files directly in a project's directory (subagents' `agent-*.jsonl` left
/// out), by the directory entries' types: no file is looked at but a link.
fn list_sessions(sessions_dir: &Path) -> io::Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(sessions_dir)?;
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.as_encoded_bytes();
            name.ends_with(b".jsonl") && !name.starts_with(b"agent-") && !name.starts_with(b".")
        })
        .filter(|e| match e.file_type() {
            Ok(t) if t.is_symlink() => e.path().is_file(),
            Ok(t) => t.is_file(),
            Err(_) => false,
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    Ok(out)
}

/// The working directory the project's newest session records (`cwd` of its first record
/// that has one); an older session's when the newest names none (a session left before
/// anything was typed holds only snapshots and summaries). The name is only a guess, and a
/// guessed path would slip past the user's include and exclude patterns.
fn working_dir(sessions: &[PathBuf]) -> Option<PathBuf> {
    let mut dated: Vec<_> = sessions
        .iter()
        .filter_map(|p| Some((std::fs::metadata(p).ok()?.modified().ok()?, p)))
        .collect();
    dated.sort();
    dated.into_iter().rev().find_map(|(_, p)| recorded_cwd(p))
}

/// The `cwd` of a session's first record that has one.
fn recorded_cwd(session: &Path) -> Option<PathBuf> {
    let file = std::fs::File::open(session).ok()?;
    // The first records carry it; a session's later lines can be megabytes of tool output.
    io::BufReader::new(io::Read::take(file, 1 << 20))
        .split(b'\n')
        .take(50)
        .map_while(Result::ok)
        .find_map(|line| {
            #[derive(serde::Deserialize)]
            struct Record {
                cwd: Option<String>,
            }
            serde_json::from_slice::<Record>(&line)
                .ok()?
                .cwd
                .filter(|c| c.starts_with('/') || Path::new(c).is_absolute())
        })
        .map(PathBuf::from)
}

/// A project directory's name read back as a path: Claude Code writes each character of
/// the working directory that is not a letter or digit as `-`, so this is a guess
/// (`/a/b.c` and `/a/b-c` share a name) used only when no session says.
#[must_use]
pub fn decode_name(name: &str) -> PathBuf {
    PathBuf::from(name.replace('-', "/"))
}

/// Whether a project holds memloop's own `claude` runs (they run in a private
/// `memloop-claude-…` directory and ask for no session to be kept; should a CLI keep one
/// anyway, it is never read back as the person's words).
fn is_own(project: &Project) -> bool {
    let own = |s: &str| s.contains(OWN_RUNS);
    project
        .cwd
        .file_name()
        .is_some_and(|n| own(&n.to_string_lossy()))
        || project
            .sessions_dir
            .file_name()
            .is_some_and(|n| own(&n.to_string_lossy()))
}

/// What the private directories of memloop's own `claude` runs are named with.
const OWN_RUNS: &str = "memloop-claude-";

/// The byte just past the last complete record of a session: its last `\n`, or the end
/// when the unterminated last line is a whole record; where the parser stops too. A
/// session being written ends with half a line; that half waits for the next read.
#[must_use]
pub fn records_end(bytes: &[u8]) -> usize {
    let terminated = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let tail = &bytes[terminated..];
    let whole = !tail.iter().all(u8::is_ascii_whitespace) && super::session::is_record(tail);
    if whole { bytes.len() } else { terminated }
}

/// The project as a vault: named by its working directory, its sessions read from
/// Claude Code's directory for it, its insights written only when `insights`.
///
/// # Errors
///
/// The sessions directory cannot be resolved.
pub fn to_vault(project: &Project, insights: bool) -> io::Result<Vault> {
    let root = std::fs::canonicalize(&project.sessions_dir)?;
    Ok(Vault {
        name: project.cwd.display().to_string(),
        content_root: root.clone(),
        inbox: PathBuf::new(),
        root,
        warnings: Vec::new(),
        kind: Kind::ClaudeCode {
            project: project.cwd.clone(),
            insights,
        },
    })
}

/// Why a project's insights cannot be written to its `CLAUDE.local.md` even though the
/// user opted in, or `None` when they can: the project directory must exist, and when it
/// is in a git repository, git must ignore the file, so that no fact is ever committed.
#[must_use]
pub fn insights_refused(project_dir: &Path) -> Option<String> {
    let file = project_dir.join(LOCAL_FILE);
    if !project_dir.is_dir() {
        return Some(format!(
            "{}: its insights are not written: the project directory is gone",
            file.display()
        ));
    }
    let checked = std::process::Command::new("git")
        .arg("-C")
        .arg(project_dir)
        .args(["check-ignore", "-q", "--", LOCAL_FILE])
        // Its "not a git repository" is read below: in English, whatever the user's locale.
        .env("LC_ALL", "C")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output();
    match checked {
        // Ignored.
        Ok(out) if out.status.code() == Some(0) => None,
        Ok(out) if out.status.code() == Some(1) => Some(format!(
            "{}: its insights are not written: git does not ignore it, so it could be \
             committed; add {LOCAL_FILE} to the project's .gitignore (or .git/info/exclude)",
            file.display()
        )),
        // Not in a repository: nothing can commit it.
        Ok(out) if String::from_utf8_lossy(&out.stderr).contains("not a git repository") => None,
        Ok(out) => Some(format!(
            "{}: its insights are not written: git could not say whether it ignores it: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Some(format!(
            "{}: its insights are not written: git could not be run to check that it is ignored: {e}",
            file.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selection(include: &[&str], exclude: &[&str], insights: &[&str]) -> Selection {
        let env = Env::from_pairs([("HOME", "/home/u")]);
        let list = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect();
        let cfg = ClaudeCodeConfig {
            enabled: true,
            include: list(include),
            exclude: list(exclude),
            insights: list(insights),
        };
        Selection::new(&env, &cfg, "config.toml").unwrap()
    }

    fn project(cwd: &str) -> Project {
        Project {
            sessions_dir: PathBuf::from("/home/u/.claude/projects").join(cwd.replace('/', "-")),
            cwd: PathBuf::from(cwd),
            cwd_known: true,
            sessions: Ok(Vec::new()),
        }
    }

    #[test]
    fn patterns_match_paths_what_is_under_them_and_bare_names() {
        let s = selection(&["~/work", "/srv/*-api", "notes"], &["~/work/secret*"], &[]);
        let read = |cwd: &str| s.choose(&project(cwd)) == Choice::Read;
        assert!(read("/home/u/work"));
        assert!(read("/home/u/work/lanternfish"));
        assert!(read("/srv/billing-api"));
        assert!(
            read("/srv/billing-api/web"),
            "what is under a match matches"
        );
        assert!(!read("/srv/billing-api-old"));
        assert!(
            read("/home/u/notes"),
            "a bare name matches the directory's name"
        );
        assert!(
            !read("/home/u/workshop"),
            "a path pattern matches whole components"
        );
        assert!(
            !read("/home/u/work/secret-client"),
            "exclude wins over include"
        );
        assert!(!read("/home/u/play"));
    }

    #[test]
    fn no_include_means_every_project_and_memlooops_own_runs_never() {
        let s = selection(&[], &[], &[]);
        assert_eq!(s.choose(&project("/home/u/anything")), Choice::Read);
        assert_eq!(
            s.choose(&project("/tmp/memloop-claude-41-0-00ab12cd")),
            Choice::Own
        );
    }

    #[test]
    fn a_session_is_admitted_by_its_own_working_directory() {
        let s = selection(&[], &["my_app"], &[]);
        assert!(s.admits(Path::new("/home/u/my-app"), &[]));
        assert!(!s.admits(Path::new("/home/u/my_app"), &[]));
        assert!(!s.admits(Path::new("/tmp/memloop-claude-1-0-00ab"), &[]));
        let named = [PathBuf::from("/home/u/my-app")];
        assert!(s.admits(Path::new("/home/u/my-app"), &named));
        assert!(
            !s.admits(Path::new("/home/u/other"), &named),
            "a run that names projects reads only them"
        );
        let off = ClaudeCodeConfig::default();
        let env = Env::from_pairs([("HOME", "/home/u")]);
        let off = Selection::new(&env, &off, "c").unwrap();
        assert!(!off.admits(Path::new("/home/u/my-app"), &[]));
        assert!(off.admits(Path::new("/home/u/my-app"), &named));
    }

    #[test]
    fn insights_are_only_where_opted_in() {
        let s = selection(&[], &[], &["~/work/lanternfish"]);
        assert!(s.wants_insights(&project("/home/u/work/lanternfish")));
        assert!(!s.wants_insights(&project("/home/u/work/other")));
        assert!(!selection(&[], &[], &[]).wants_insights(&project("/home/u/work/lanternfish")));
    }

    #[test]
    fn a_bad_pattern_names_the_file_and_key() {
        let env = Env::from_pairs([("HOME", "/home/u")]);
        let cfg = ClaudeCodeConfig {
            exclude: vec!["~/work/[oops".into()],
            ..ClaudeCodeConfig::default()
        };
        let e = Selection::new(&env, &cfg, "/c/config.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("/c/config.toml") && e.contains("exclude"), "{e}");
    }

    #[test]
    fn a_bare_name_covers_the_sessions_started_under_that_directory() {
        let s = selection(&[], &["secret-*"], &[]);
        assert_eq!(
            s.choose(&project("/home/u/secret-client/backend")),
            Choice::Excluded,
            "a session started in a subdirectory of an excluded project stays home"
        );
        assert_eq!(s.choose(&project("/home/u/public/backend")), Choice::Read);
    }

    #[test]
    fn a_relative_path_pattern_is_refused_rather_than_matching_nothing() {
        let env = Env::from_pairs([("HOME", "/home/u")]);
        for pattern in ["clients/acme", "$HOME/clients", "~ada/clients", "./clients"] {
            let cfg = ClaudeCodeConfig {
                exclude: vec![pattern.into()],
                ..ClaudeCodeConfig::default()
            };
            let e = Selection::new(&env, &cfg, "/c/config.toml")
                .expect_err(pattern)
                .to_string();
            assert!(
                e.contains("/c/config.toml") && e.contains("exclude") && e.contains(pattern),
                "{e}"
            );
        }
        let s = selection(&[], &["**/clients/*"], &[]);
        assert_eq!(
            s.choose(&project("/home/u/work/clients/acme")),
            Choice::Excluded,
            "a pattern led by ** matches at any depth"
        );
    }

    #[test]
    fn the_projects_directory_follows_claude_config_dir() {
        let cfg = ClaudeCodeConfig::default();
        let home = Env::from_pairs([("HOME", "/home/u")]);
        let s = Selection::new(&home, &cfg, "c").unwrap();
        assert_eq!(s.projects_dir, PathBuf::from("/home/u/.claude/projects"));
        let set = Env::from_pairs([("HOME", "/home/u"), ("CLAUDE_CONFIG_DIR", "/cc")]);
        let s = Selection::new(&set, &cfg, "c").unwrap();
        assert_eq!(s.projects_dir, PathBuf::from("/cc/projects"));
    }

    #[test]
    fn records_end_after_the_last_complete_record() {
        assert_eq!(records_end(b""), 0);
        assert_eq!(records_end(b"{\"a\":1}\n"), 8);
        assert_eq!(records_end(b"{\"a\":1}\n{\"b\":"), 8, "half a record waits");
        assert_eq!(
            records_end(b"{\"a\":1}\n{\"b\":2}"),
            15,
            "a whole last record counts"
        );
        assert_eq!(records_end(b"{\"a\":1}\n  "), 8);
        assert_eq!(records_end(b"{\"a\":1}\n12"), 8, "not an object");
    }

    #[test]
    fn discovery_reads_the_working_directory_from_the_newest_session() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("-home-u-my-app");
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(
            p.join("a.jsonl"),
            "{\"type\":\"file-history-snapshot\"}\n{\"type\":\"user\",\"cwd\":\"/home/u/my-app\"}\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("-home-u-gone")).unwrap();
        let found = discover(dir.path()).unwrap();
        assert_eq!(found.len(), 2);
        let gone = &found[0];
        assert_eq!(gone.cwd, PathBuf::from("/home/u/gone"));
        assert!(!gone.cwd_known);
        let app = &found[1];
        assert_eq!(app.cwd, PathBuf::from("/home/u/my-app"));
        assert!(app.cwd_known, "read, not guessed as /home/u/my/app");
        assert!(discover(&dir.path().join("missing")).unwrap().is_empty());
    }
}
