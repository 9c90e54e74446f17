//! The redaction rules: for each kind of secret, the keywords one of which every match
//! contains, the pattern that finds candidates, and the check that tells a real value from
//! a placeholder, a reference, a path or code. The order is the precedence: when two finds
//! overlap, the earlier rule names the kind.
//!
//! It does not scan text or merge finds (`redact` does) and does not decide which rules
//! run on a text (`prefilter` does).
//!
//! Patterns adapted from gitleaks (<https://github.com/gitleaks/gitleaks>, commit
//! b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b, `config/gitleaks.toml`), MIT licence,
//! Copyright (c) 2019 Zachary Rice; the licence text is in `LICENSES/gitleaks-MIT.txt`.
//! Which gitleaks rules each kind comes from: `anthropic-api-key` from `anthropic-api-key`
//! and `anthropic-admin-api-key`; `openai-api-key` from `openai-api-key`; `aws-access-key`
//! from `aws-access-token` (with its `EXAMPLE` allowlist); `github-token` from `github-pat`,
//! `github-oauth`, `github-app-token`, `github-refresh-token` and `github-fine-grained-pat`;
//! `gitlab-token` from the `gitlab-*` token rules and `gitlab-rrt`; `slack-token` from the
//! `slack-*-token` rules; `slack-webhook` from `slack-webhook-url`; `stripe-key` from
//! `stripe-access-token`; `google-api-key` from `gcp-api-key`; `private-key` from
//! `private-key`; `jwt` from `jwt`; `bearer-token` from `curl-auth-header`; `password` from
//! `curl-auth-user`, `generic-api-key` and `hashicorp-tf-password`; `token` from
//! `generic-api-key`; the placeholder and identifier filters from those rules' allowlists.
//! Also from gitleaks: `npm-token` from `npm-access-token`; `huggingface-token` from
//! `huggingface-access-token` and `huggingface-organization-api-token`; `pypi-token` from
//! `pypi-upload-token`; `sendgrid-key` from `sendgrid-api-token`; `mailgun-key` from
//! `mailgun-private-api-token` and `mailgun-pub-key`; `shopify-token` from the `shopify-*`
//! rules; `digitalocean-token` from the `digitalocean-*` rules; `databricks-token` from
//! `databricks-api-token`; `vault-token` from `vault-service-token` and `vault-batch-token`;
//! `telegram-bot-token` from `telegram-bot-api-token` (without its keyword: the `:AA` shape
//! is enough); `sentry-token` from the `sentry-*-token` rules; `docker-token` from
//! `dockerhub`-style PATs; `linear-key` from `linear-api-key`; `heroku-key` from
//! `heroku-api-key` and `heroku-api-key-v2`; `grafana-token` from `grafana-api-key`,
//! `grafana-cloud-api-token` and `grafana-service-account-token`; `postman-key` from
//! `postman-api-token`; `twilio-api-key` from `twilio-api-key` (with its entropy floor); the
//! AWS key id takes any upper-case letters and digits, where gitleaks takes base32.
//! `aws-secret-key`, `url-password`, `url-token` (a key as a URL's user part, such as a
//! Sentry DSN), `twilio-auth-token` (32 hex digits named after the word `twilio`),
//! `passphrase` and `secret` (a secret named in a sentence) are our own, as are the short
//! `pw`/`pass` keys, `user / password` pairs after a login label, and the extensions of the
//! assignment rules: any suffix after the secret word (`SECRET_KEY_BASE`,
//! `private_key_id`), `AccountKey` and `auth`, quoted values with spaces, letters-only
//! values that read as generated or stand alone on an `.env` or YAML line, labels between
//! the key and its value, and bare values taken whole up to whitespace (`value`). The
//! prefixes are loosened where gitleaks pins exact lengths, because a transcript often
//! holds a key the user truncated or a newer format, and a prefix such as `ghp_` is
//! evidence enough.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::compile;
use super::value::{after_labels, whole_bare_value};

/// Decides what part of a candidate value is a secret, or that it is not one. It gets
/// the whole text so it can look at the characters around the value (a quote before it).
pub(super) type Accept = fn(&str, Range<usize>) -> Option<Range<usize>>;

/// How a rule finds its candidates.
enum Pattern {
    /// A regex; the secret is the first capture group that took part, else the whole match.
    Regex(&'static str),
    /// A `-----BEGIN … PRIVATE KEY-----` block, which needs more than a regex when the
    /// `END` line is missing.
    PemBlock,
}

/// One rule as written: its kind, the lowercase keywords one of which every match
/// contains, its pattern and its acceptance check.
pub(super) struct Spec {
    pub(super) kind: &'static str,
    pub(super) keywords: &'static [&'static str],
    pattern: Pattern,
    pub(super) accept: Accept,
}

/// A quoted value without whitespace; the optional backslashes cover JSON that was
/// escaped once more (`\"password\": \"…\"`).
macro_rules! quoted_value {
    () => {
        r#"(?:\\?"([^"\\\r\n]+)\\?"|'([^'\r\n]+)'|`([^`\r\n]+)`)"#
    };
}

/// A quoted value, or a bare one that stops at whitespace, quotes, brackets, `,;&` and
/// backslashes (so `?token=…&page=2` keeps its next parameter).
macro_rules! value {
    () => {
        concat!("(?:", quoted_value!(), r#"|([^\s"'`,;&()\[\]{}<>\\]+))"#)
    };
}

/// `KEY = value`, `KEY: value`, `"KEY": "value"` (also `:=`, `=>`, `?=`, markdown bold).
/// Keys are spelled out as `lower`, `Capitalised` and `UPPER` rather than with `(?i)`:
/// that keeps the regex's literal prefilter and makes these rules about eight times faster.
/// A colon needs a space or a quote after it, as in YAML and JSON, so `user:pass@host`
/// and `x-access-token:…@github.com` are left to the URL rule.
macro_rules! assignment {
    ($keys:literal) => {
        concat!(
            "(?:",
            $keys,
            r#")\\?["']?\*{0,2}(?:[ \t]*(?::=|=>|\?=|=)[ \t]*"#,
            value!(),
            r"|[ \t]*:(?:\*\*)?[ \t]+",
            value!(),
            r"|[ \t]*:",
            quoted_value!(),
            ")"
        )
    };
}

/// The rules, most specific first: when two finds overlap, the earlier rule names the kind.
pub(super) const SPECS: &[Spec] = &[
    Spec {
        kind: "private-key",
        keywords: &["private key"],
        pattern: Pattern::PemBlock,
        accept: keep,
    },
    Spec {
        kind: "anthropic-api-key",
        keywords: &["sk-ant-"],
        pattern: Pattern::Regex(r"(?-u:\b)sk-ant-[a-z]{2,10}[0-9]{2}-[A-Za-z0-9_-]{20,}"),
        accept: keep,
    },
    Spec {
        kind: "openai-api-key",
        keywords: &["sk-"],
        pattern: Pattern::Regex(
            r"(?-u:\b)sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{32,})",
        ),
        accept: mixed_case_with_digits,
    },
    Spec {
        kind: "aws-access-key",
        keywords: &["akia", "asia", "abia", "acca", "a3t"],
        pattern: Pattern::Regex(r"(?-u:\b)(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?-u:\b)"),
        accept: not_documentation_example,
    },
    Spec {
        kind: "aws-secret-key",
        keywords: &["secret"],
        pattern: Pattern::Regex(
            r#"(?:[Aa]ws_?[Ss]ecret_?(?:[Aa]ccess_?)?[Kk]ey|AWS_?SECRET_?(?:ACCESS_?)?KEY|[Ss]ecret_?[Aa]ccess_?[Kk]ey|SECRET_?ACCESS_?KEY)\\?["']?[ \t]*(?::=|=>|=|:)[ \t]*\\?["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        ),
        accept: keep,
    },
    Spec {
        kind: "github-token",
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        pattern: Pattern::Regex(
            r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        ),
        accept: keep,
    },
    Spec {
        kind: "gitlab-token",
        keywords: &[
            "glpat-",
            "gldt-",
            "glft-",
            "glrt-",
            "glsoat-",
            "glffct-",
            "glimt-",
            "glptt-",
            "gloas-",
            "glagent-",
            "glcbt-",
            "gr1348941",
        ],
        pattern: Pattern::Regex(
            r"(?-u:\b)(?:(?:glpat|gldt|glft|glrt|glsoat|glffct|glimt|glptt|gloas|glagent|glcbt)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*|GR1348941[A-Za-z0-9_-]{20,})",
        ),
        accept: keep,
    },
    Spec {
        kind: "slack-webhook",
        keywords: &["hooks.slack.com"],
        pattern: Pattern::Regex(
            r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}",
        ),
        accept: keep,
    },
    Spec {
        kind: "slack-token",
        keywords: &["xox", "xapp-"],
        pattern: Pattern::Regex(
            r"(?-u:\b)(?:xoxe\.xox[bp]-[0-9]-[A-Za-z0-9]+|(?:xox[abposre]|xapp)-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)",
        ),
        accept: slack_token,
    },
    Spec {
        kind: "stripe-key",
        keywords: &["k_live_", "k_test_", "k_prod_"],
        pattern: Pattern::Regex(r"(?-u:\b)[rs]k_(?:live|test|prod)_[A-Za-z0-9]{10,}"),
        accept: keep,
    },
    Spec {
        kind: "google-api-key",
        keywords: &["aiza"],
        pattern: Pattern::Regex(r"(?-u:\b)(AIza[A-Za-z0-9_-]{35})(?:[^A-Za-z0-9_-]|$)"),
        accept: keep,
    },
    Spec {
        kind: "jwt",
        keywords: &["eyj"],
        pattern: Pattern::Regex(
            r"(?-u:\b)eyJ[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*",
        ),
        accept: keep,
    },
    Spec {
        kind: "npm-token",
        keywords: &["npm_"],
        pattern: Pattern::Regex(r"(?-u:\b)npm_[A-Za-z0-9]{30,}"),
        accept: keep,
    },
    Spec {
        kind: "huggingface-token",
        keywords: &["hf_", "api_org_"],
        pattern: Pattern::Regex(r"(?-u:\b)(?:hf|api_org)_[A-Za-z0-9]{30,}"),
        accept: keep,
    },
    Spec {
        kind: "pypi-token",
        keywords: &["pypi-ageichlwas5vcmc"],
        pattern: Pattern::Regex(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}"),
        accept: keep,
    },
    Spec {
        kind: "sendgrid-key",
        keywords: &["sg."],
        pattern: Pattern::Regex(r"(?-u:\b)SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{20,}"),
        accept: keep,
    },
    Spec {
        kind: "mailgun-key",
        keywords: &["key-"],
        pattern: Pattern::Regex(r"(?-u:\b)(?:pub)?key-[a-f0-9]{32}(?-u:\b)"),
        accept: keep,
    },
    Spec {
        kind: "shopify-token",
        keywords: &["shpat_", "shpca_", "shppa_", "shpss_"],
        pattern: Pattern::Regex(r"(?-u:\b)shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,}"),
        accept: keep,
    },
    Spec {
        kind: "digitalocean-token",
        keywords: &["dop_v1_", "doo_v1_", "dor_v1_"],
        pattern: Pattern::Regex(r"(?-u:\b)do[opr]_v1_[a-f0-9]{40,}"),
        accept: keep,
    },
    Spec {
        kind: "databricks-token",
        keywords: &["dapi"],
        pattern: Pattern::Regex(r"(?-u:\b)dapi[a-f0-9]{32}(?:-[0-9]+)?(?-u:\b)"),
        accept: keep,
    },
    Spec {
        kind: "vault-token",
        keywords: &["hvs.", "hvb.", "hvr."],
        pattern: Pattern::Regex(r"(?-u:\b)hv[sbr]\.[A-Za-z0-9_-]{24,}"),
        accept: keep,
    },
    Spec {
        kind: "telegram-bot-token",
        keywords: &[":aa"],
        // Also inside a Bot API URL, where `bot` runs straight into the token.
        pattern: Pattern::Regex(r"(?:(?-u:\b)|bot)([0-9]{5,16}:AA[A-Za-z0-9_-]{30,})"),
        accept: keep,
    },
    Spec {
        kind: "sentry-token",
        keywords: &["sntrys_", "sntryu_"],
        pattern: Pattern::Regex(r"(?-u:\b)(?:sntrys_[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64})"),
        accept: keep,
    },
    Spec {
        kind: "docker-token",
        keywords: &["dckr_"],
        pattern: Pattern::Regex(r"(?-u:\b)dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"),
        accept: keep,
    },
    Spec {
        kind: "linear-key",
        keywords: &["lin_api_", "lin_oauth_"],
        pattern: Pattern::Regex(r"(?-u:\b)lin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
        accept: keep,
    },
    Spec {
        kind: "heroku-key",
        keywords: &["hrku-", "heroku"],
        // The legacy key is a bare UUID, so it needs the word `heroku` shortly before it.
        pattern: Pattern::Regex(
            r"(?-u:\b)(?:HRKU-[A-Za-z0-9_-]{40,}|(?i:heroku)[^\r\n]{0,40}?(?-u:\b)([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?-u:\b))",
        ),
        accept: keep,
    },
    Spec {
        kind: "grafana-token",
        keywords: &["glc_", "glsa_", "eyjrijoi"],
        pattern: Pattern::Regex(
            r"(?-u:\b)(?:glc_[A-Za-z0-9+/]{32,}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9+/]{40,}={0,3})",
        ),
        accept: keep,
    },
    Spec {
        kind: "postman-key",
        keywords: &["pmak-"],
        pattern: Pattern::Regex(r"(?-u:\b)PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}"),
        accept: keep,
    },
    Spec {
        kind: "twilio-api-key",
        keywords: &["sk"],
        pattern: Pattern::Regex(r"(?-u:\b)SK[0-9a-fA-F]{32}(?-u:\b)"),
        accept: high_entropy,
    },
    Spec {
        kind: "twilio-auth-token",
        keywords: &["twilio"],
        // The auth token is 32 hex digits with no prefix: it needs its name, after the word
        // `twilio` (the account SID beside it, `AC` and 32 hex digits, is no secret).
        pattern: Pattern::Regex(
            r#"(?i:twilio)[^\r\n]{0,40}?(?i:auth)[ _-]?(?i:token)\\?["']?\*{0,2}(?:[ \t]*(?::=|=>|=|:)[ \t]*|[ \t]+(?:is[ \t]+)?)\\?["']?([0-9a-fA-F]{32})(?-u:\b)"#,
        ),
        accept: keep,
    },
    Spec {
        kind: "url-token",
        keywords: &["://"],
        // A key as the whole user part of a URL (a Sentry DSN, `https://<token>@host`).
        pattern: Pattern::Regex(
            r"(?-u:\b)[A-Za-z][A-Za-z0-9+.-]{0,30}://([A-Za-z0-9_-]{20,}(?::[A-Za-z0-9_-]{20,})?)@",
        ),
        accept: random_looking,
    },
    Spec {
        kind: "url-password",
        keywords: &["://"],
        // The password runs to the last `@` of the authority, as URL parsers read it.
        pattern: Pattern::Regex(
            r#"(?-u:\b)[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/?#@"'<>\[\]]*:([^\s/?#"'<>]+)@"#,
        ),
        accept: url_password,
    },
    Spec {
        kind: "bearer-token",
        keywords: &["authorization"],
        pattern: Pattern::Regex(
            r#"(?-u:\b)(?:[Pp]roxy-|PROXY-)?(?:[Aa]uthorization|AUTHORIZATION)\\?["']?[ \t]*[:=][ \t]*\\?["']?(?:(?i:bearer|token|basic|bot|apikey)[ \t]+)?([A-Za-z0-9._~+/=@-]+)"#,
        ),
        accept: token_value,
    },
    Spec {
        kind: "bearer-token",
        keywords: &["bearer"],
        pattern: Pattern::Regex(r"(?-u:\b)(?:[Bb]earer|BEARER)[ \t]+([A-Za-z0-9._~+/=-]{16,})"),
        accept: bare_bearer,
    },
    Spec {
        kind: "password",
        keywords: &["curl"],
        pattern: Pattern::Regex(
            r#"(?-u:\b)curl(?-u:\b)[^\r\n]*?[ \t](?:-u|--user)(?:=|[ \t]+)["']?[^\s:"']+:([^\s"']+)"#,
        ),
        accept: url_password,
    },
    Spec {
        kind: "password",
        keywords: &["pass", "pwd"],
        pattern: Pattern::Regex(
            r#"(?i)(?:(?m:^)|[ \t])--?(?:[a-z0-9]+-)*(?:password|passwd|pass|pwd)(?:=|[ \t]+)(?:"([^"\s]+)"|'([^'\s]+)'|([^\s"'`]+))"#,
        ),
        accept: password_flag,
    },
    Spec {
        kind: "token",
        keywords: &["token", "secret", "key"],
        pattern: Pattern::Regex(
            r#"(?i)(?:(?m:^)|[ \t])--?(?:[a-z0-9]+-)*(?:token|secret|api-?key|access-key|secret-key)(?:=|[ \t]+)(?:"([^"\s]+)"|'([^'\s]+)'|([^\s"'`]+))"#,
        ),
        accept: token_flag,
    },
    Spec {
        kind: "passphrase",
        keywords: &["phrase"],
        // A passphrase is words: a bare value runs to the end of its line.
        pattern: Pattern::Regex(concat!(
            r#"(?:[Pp]ass[ _-]?[Pp]hrase|PASS_?PHRASE)(?:[_.-][A-Za-z0-9]+|[A-Z][a-z0-9]+)*\\?["']?\*{0,2}(?:[ \t]*(?::=|=|:)|[ \t]+(?:is|was))[ \t]*(?:"#,
            quoted_value!(),
            r#"|([^\s"'`][^\r\n]*))"#
        )),
        accept: passphrase_value,
    },
    Spec {
        kind: "password",
        keywords: &["pass", "pwd", "pw"],
        pattern: Pattern::Regex(assignment!(
            "(?:[Pp]ass(?:wd|word|code)|PASS(?:WD|WORD|CODE)|[Pp]wd|PWD|[_.-](?:[Pp]ass|PASS|[Pp][Ww]|PW))(?:[_.-][A-Za-z0-9]+|[A-Z][a-z0-9]+)*"
        )),
        accept: password_value,
    },
    Spec {
        kind: "password",
        keywords: &["pass", "pw"],
        // `pass` is a word too ("tests pass: 42"), so as a key it must stand where a key
        // does: first on a line (after a list marker and labels such as `wifi: `), after
        // `{ ( , ; |`, or quoted. `pw` is no word: it is a key wherever it starts one.
        pattern: Pattern::Regex(assignment!(
            "(?:(?:(?m:^)[ \t]*(?:[-*+>][ \t]+)?(?:[^\\s:\"'`=][^\\r\\n:\"'`=]{0,30}:[ \t]+){0,3}|[{(,;|][ \t]*)\\\\?[\"']?(?:[Pp][Ww]|PW|[Pp]ass|PASS)|(?-u:\\b)(?:[Pp][Ww]|PW))"
        )),
        accept: short_password_value,
    },
    Spec {
        kind: "password",
        keywords: &["login", "logon", "cred", "user"],
        // `login: admin / Tr0ub4dor&3`: a user and a password after a login label.
        pattern: Pattern::Regex(concat!(
            r#"(?-u:\b)(?:[Ll]og(?:in|on)|LOG(?:IN|ON)|[Cc]red(?:s|entials?)?|CRED(?:S|ENTIALS?)?|(?:[Uu]ser(?:name)?|USER(?:NAME)?)[ \t]*/[ \t]*(?:[Pp]ass(?:word)?|PASS(?:WORD)?|[Pp]wd?|PWD?))\*{0,2}[ \t]*[:=]\*{0,2}[ \t]*["']?[^\s/"'`]{1,64}["']?[ \t]*/[ \t]*"#,
            value!()
        )),
        accept: password_value,
    },
    Spec {
        kind: "token",
        keywords: &["token", "secret", "key", "auth"],
        pattern: Pattern::Regex(assignment!(
            "(?:[Tt]oken|TOKEN|[Ss]ecret|SECRET|(?:[Aa]pi|API|[Aa]ccess|ACCESS|[Aa]ccount|ACCOUNT|[Ss]hared[Aa]ccess|SHARED_?ACCESS|[Ss]ecret|SECRET|[Pp]rivate|PRIVATE|[Aa]uth|AUTH|[Ee]ncryption|ENCRYPTION|[Ss]igning|SIGNING|[Mm]aster|MASTER|[Ll]icense|LICENSE|[Cc]lient|CLIENT|[Aa]pp|APP|[Ss]ervice|SERVICE)[_-]?(?:[Kk]ey|KEY))(?:[_.-][A-Za-z0-9]+|[A-Z][a-z0-9]+)*|(?-u:\\b)(?:auth|AUTH)"
        )),
        accept: token_value,
    },
    Spec {
        kind: "secret",
        keywords: &["pass", "pwd", "secret", "token", "key"],
        // Prose: "my bank password is …", "the token for staging was …".
        pattern: Pattern::Regex(concat!(
            r"(?-u:\b)(?:[Pp]ass(?:word|code)|PASS(?:WORD|CODE)|[Pp]wd|PWD|[Ss]ecret|SECRET|[Tt]oken|TOKEN|(?:[Aa][Pp][Ii]|[Aa]ccess|[Ss]ecret(?: [Aa]ccess)?) [Kk]ey)(?:[ \t]+for[ \t]+[^\r\n]{1,40}?)?[ \t]+(?:is|was)[ \t]+(?:",
            quoted_value!(),
            r#"|([^\s"'`]+))"#
        )),
        accept: prose_value,
    },
];

/// The compiled `SPECS`, index for index; `None` is the private-key block finder.
pub(super) static RULES: LazyLock<Vec<Option<Regex>>> = LazyLock::new(|| {
    SPECS
        .iter()
        .map(|spec| match spec.pattern {
            Pattern::Regex(pattern) => Some(compile(pattern)),
            Pattern::PemBlock => None,
        })
        .collect()
});

fn keep(_: &str, value: Range<usize>) -> Option<Range<usize>> {
    Some(value)
}

/// AWS documents its examples with keys ending in `EXAMPLE`; gitleaks allowlists them.
fn not_documentation_example(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    (!text[value.clone()].ends_with("EXAMPLE")).then_some(value)
}

/// A bare `sk-` prefix is weak evidence, so the rest must look generated, not like a
/// kebab-case name.
fn mixed_case_with_digits(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    let upper = s.bytes().any(|b| b.is_ascii_uppercase());
    let lower = s.bytes().any(|b| b.is_ascii_lowercase());
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    (upper && lower && digit).then_some(value)
}

/// Real Slack tokens carry numeric ids; `xoxb-your-token-here` does not.
fn slack_token(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    (s.len() >= 15 && s.bytes().any(|b| b.is_ascii_digit())).then_some(value)
}

/// `Bearer` outside a header is often prose ("bearer authentication"), so the value must
/// hold both letters and digits.
fn bare_bearer(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let value = token_value(text, value)?;
    let s = &text[value.clone()];
    let letter = s.bytes().any(|b| b.is_ascii_alphabetic());
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    (letter && digit).then_some(value)
}

fn url_password(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    (!is_placeholder(s) && !is_reference(s)).then_some(value)
}

fn password_value(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(text, value, &PASSWORD)
}

fn token_value(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(text, value, &TOKEN)
}

/// After `pw:` or `pass:`, which are also words, a bare word must look generated even
/// alone on its line.
fn short_password_value(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(
        text,
        value,
        &Shape {
            digits_only_ok: false,
            lone_word_ok: false,
            ..PASSWORD
        },
    )
}

/// gitleaks' entropy floor for keys with a short fixed prefix: `SK` and 32 zeros is no key.
fn high_entropy(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    (shannon_entropy(&text[value.clone()]) >= 3.0).then_some(value)
}

/// Bits per character of `s`, as gitleaks computes it.
fn shannon_entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[usize::from(b)] += 1;
    }
    #[allow(clippy::cast_precision_loss)]
    let len = s.len() as f64;
    counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / len;
            -p * p.log2()
        })
        .sum()
}

/// After `--password`, a bare word is the password: code does not pass flags identifiers.
fn password_flag(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(
        text,
        value,
        &Shape {
            bare_word_ok: true,
            ..PASSWORD
        },
    )
}

fn token_flag(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    credential_value(
        text,
        value,
        &Shape {
            bare_word_ok: true,
            ..TOKEN
        },
    )
}

/// What a credential value must look like beyond not being a placeholder.
struct Shape {
    min_chars: usize,
    /// A PIN is a password; an all-digit "token" is a count or an id.
    digits_only_ok: bool,
    /// Whether an unquoted value of only letters, `_`, `.` and `-` can be a secret.
    bare_word_ok: bool,
    /// Whether such a value can be a secret when it stands alone after its key on an
    /// `.env` or YAML line, or after an upper-case environment variable.
    lone_word_ok: bool,
}

const PASSWORD: Shape = Shape {
    min_chars: 4,
    digits_only_ok: true,
    bare_word_ok: false,
    lone_word_ok: true,
};

const TOKEN: Shape = Shape {
    min_chars: 8,
    digits_only_ok: false,
    bare_word_ok: false,
    lone_word_ok: true,
};

/// The filters of gitleaks' `generic-api-key` allowlist, applied to the value of a
/// `key = value` assignment, a flag or a header. A bare value is taken whole, up to
/// whitespace (`value::whole_bare_value`); when it is a label (`password: nas: hunter2`),
/// the value after the labels is tried first.
fn credential_value(text: &str, value: Range<usize>, shape: &Shape) -> Option<Range<usize>> {
    if text[..value.start].ends_with(['"', '\'', '`']) {
        return checked_value(text, value, true, shape);
    }
    let after = after_labels(text, &value).and_then(|(after, quoted)| {
        let after = if quoted {
            after
        } else {
            whole_bare_value(text, &after)
        };
        checked_value(text, after, quoted, shape)
    });
    after.or_else(|| checked_value(text, whole_bare_value(text, &value), false, shape))
}

fn checked_value(
    text: &str,
    value: Range<usize>,
    quoted: bool,
    shape: &Shape,
) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    let rejected = s.chars().count() < shape.min_chars
        || s.contains("://")
        || s.starts_with('-')
        || is_placeholder(s)
        || is_reference(s)
        || is_path(s)
        || (!shape.digits_only_ok && s.bytes().all(|b| b.is_ascii_digit()))
        || (!quoted
            && !shape.bare_word_ok
            && is_identifier(s)
            && !random_letters(s)
            && !(shape.lone_word_ok
                && (whole_line_assignment(text, &value) || env_assignment(text, &value))))
        || (!quoted && is_code(text, &value));
    (!rejected).then_some(value)
}

/// An unquoted value that reads as code rather than data: `token::Paren`,
/// `self.dot2_token`, `parenthesized!(…)`, `localStorage.getItem(…)`, `Option<String>`,
/// `vec![…]`, `__u32`. A `!` ending a value followed by nothing is a password's.
fn is_code(text: &str, value: &Range<usize>) -> bool {
    let s = &text[value.clone()];
    let identifier = |part: &str| {
        part.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let name = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(s.len());
    let called = name > 0
        && s[..name].split('.').all(identifier)
        && s[name..]
            .trim_start_matches('!')
            .starts_with(['(', '<', '[', '{']);
    let primitive = s
        .trim_start_matches('_')
        .strip_prefix(['i', 'u', 'f'])
        .is_some_and(|bits| {
            bits == "size" || (!bits.is_empty() && bits.bytes().all(|b| b.is_ascii_digit()))
        });
    s.contains("::")
        || text[value.end..].starts_with('(')
        || called
        || (s.strip_suffix('!').is_some_and(identifier)
            && text[value.end..].starts_with(['(', '[', '{']))
        || (s.contains('.') && s.split('.').all(identifier))
        || primitive
}

/// Words and shapes that stand in for a secret in docs and examples.
fn is_placeholder(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "changeme",
        "changeit",
        "example",
        "test",
        "dummy",
        "fake",
        "sample",
        "placeholder",
        "redacted",
        "hidden",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "undefined",
        "string",
        "str",
        "required",
        "optional",
    ];
    let lower = s.to_ascii_lowercase();
    let mut chars = s.chars();
    let first = chars.next();
    WORDS.contains(&lower.as_str())
        || chars.all(|c| Some(c) == first)
        || lower.starts_with("your")
        || lower.contains("example")
        || lower.contains("placeholder")
        || lower.contains("xxxx")
}

/// A variable or template reference (`$TOKEN`, `${X}`, `$(cat f)`, `%X%`, `{{ x }}`,
/// `<token>`), which names a secret without holding it.
fn is_reference(s: &str) -> bool {
    let bytes = s.as_bytes();
    match bytes {
        [b'$', next, ..] => next.is_ascii_alphabetic() || matches!(next, b'_' | b'{' | b'('),
        [b'%', .., b'%'] | [b'<', .., b'>'] => true,
        _ => s.starts_with("{{"),
    }
}

fn is_path(s: &str) -> bool {
    !generated(s) && looks_like_path(s)
}

fn looks_like_path(s: &str) -> bool {
    s.starts_with('/')
        || s.starts_with("~/")
        || s.starts_with("./")
        || s.starts_with("../")
        || matches!(s.as_bytes(), [drive, b':', b'\\', ..] if drive.is_ascii_alphabetic())
}

/// `self.token`, `None`, `os.environ`, `true/false`: words, not a secret (gitleaks:
/// `^[a-zA-Z_.-]+$`, plus `/`).
fn is_identifier(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'.' | b'-' | b'/'))
}

/// Letters that read as generated rather than as a word: a capital after a small letter
/// (`LrmhVTng`), or eight or more capitals; with `-` or `_` among them, two such capitals
/// (`KMZK-IeWZeclmH`, not `my_getToken`). Dotted or slashed names stay code.
fn random_letters(s: &str) -> bool {
    let bytes = s.as_bytes();
    let letters_only = bytes.iter().all(u8::is_ascii_alphabetic);
    let humps = bytes
        .windows(2)
        .filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        .count();
    let joined_letters = bytes
        .iter()
        .all(|&b| b.is_ascii_alphabetic() || b == b'-' || b == b'_');
    (letters_only
        && (humps > 0
            || s.len() >= 16
            || (s.len() >= 8 && bytes.iter().all(u8::is_ascii_uppercase))))
        || (joined_letters && humps >= 2)
}

/// `SMTP_PASSWORD=value`: an environment variable's value is data whatever its letters.
fn env_assignment(text: &str, value: &Range<usize>) -> bool {
    let Some(before) = text[..value.start].strip_suffix('=') else {
        return false;
    };
    let key = &before[before
        .rfind(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .map_or(0, |i| i + 1)..];
    key.len() >= 3 && key.bytes().any(|b| b.is_ascii_uppercase())
}

/// Letters, digits and symbols in no pattern, too long for a word: `/` or `~` at the
/// start of a base64 key does not make it a path.
fn generated(s: &str) -> bool {
    s.len() >= 20
        && s.bytes().any(|b| b.is_ascii_uppercase())
        && s.bytes().any(|b| b.is_ascii_lowercase())
        && s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes().filter(|&b| b == b'/').count() <= 2
}

/// `KEY=value` or `key: value` as the whole line (an `.env` or YAML line, maybe after
/// `export `): there the value is data whatever its letters, unless it is a dotted name.
fn whole_line_assignment(text: &str, value: &Range<usize>) -> bool {
    let line_start = text[..value.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[value.end..]
        .find('\n')
        .map_or(text.len(), |i| value.end + i);
    let before = text[line_start..value.start].trim_start();
    let before = before
        .strip_prefix("export ")
        .unwrap_or(before)
        .trim_start();
    let key_len = before
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        .count();
    let separator = &before[key_len..];
    key_len > 0
        && separator.contains([':', '='])
        && separator
            .bytes()
            .all(|b| matches!(b, b' ' | b'\t' | b':' | b'='))
        && text[value.end..line_end].trim().is_empty()
        && !text[value.clone()].contains(['.', '/'])
}

/// A passphrase: any words, but not a placeholder, a reference, or a word or two of prose.
fn passphrase_value(text: &str, mut value: Range<usize>) -> Option<Range<usize>> {
    let quoted = text[..value.start].ends_with(['"', '\'', '`']);
    if !quoted {
        let trimmed = text[value.clone()].trim_end_matches(|c: char| c.is_whitespace() || c == '.');
        value.end = value.start + trimmed.len();
    }
    let s = &text[value.clone()];
    let words = s.split_whitespace().count();
    let rejected = s.chars().count() < 8
        || is_placeholder(s)
        || is_reference(s)
        || is_path(s)
        || (!quoted && words < 3 && is_code(text, &value));
    (!rejected).then_some(value)
}

/// A value named in a sentence: quoted, anything; bare, not a word of prose.
fn prose_value(text: &str, mut value: Range<usize>) -> Option<Range<usize>> {
    let quoted = text[..value.start].ends_with(['"', '\'', '`']);
    if quoted {
        return credential_value(text, value, &PASSWORD);
    }
    let trimmed = text[value.clone()].trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    value.end = value.start + trimmed.len();
    let s = trimmed;
    let plain_word = s
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'\'')
        && !random_letters(s);
    let rejected = s.chars().count() < 6
        || plain_word
        || s.bytes().all(|b| b.is_ascii_digit())
        || s.contains("://")
        || is_placeholder(s)
        || is_reference(s)
        || is_path(s)
        || is_code(text, &value);
    (!rejected).then_some(value)
}

/// A token as a URL's user part must look generated: letters and digits both.
fn random_looking(text: &str, value: Range<usize>) -> Option<Range<usize>> {
    let s = &text[value.clone()];
    let letter = s.bytes().any(|b| b.is_ascii_alphabetic());
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    (letter && digit && !is_placeholder(s)).then_some(value)
}
