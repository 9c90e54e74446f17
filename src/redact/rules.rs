//! The redaction rules: for each kind of secret, the keywords one of which every match
//! contains, the pattern that finds candidates, and the check that tells a real value from
//! a placeholder, a reference, a path or code. The order is the precedence: when two finds
//! overlap, the earlier rule names the kind.
//!
//! It does not scan text or merge finds (`redact` does), does not decide which rules run
//! on a text (`prefilter` does), and names its checks without writing them (`check`).
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
//! `postman-api-token`; `twilio-api-key` from `twilio-api-key` (with its entropy floor);
//! `service-token` from every other gitleaks rule with a prefix or fixed shape of its own
//! (listed in `services`, with gitleaks' entropy floor of 3 bits); the AWS key id takes any
//! upper-case letters and digits, where gitleaks takes base32.
//! `aws-secret-key`, `url-password`, `url-token` (a key as a URL's user part, such as a
//! Sentry DSN), `twilio-auth-token` (32 hex digits named after the word `twilio`),
//! `api-key` (the `sk-` keys of other services), `token` for a service's prefix before a
//! random tail and for Discord bot tokens, `passphrase` and `secret` (a secret named in a
//! sentence) are our own, as are the short
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

use super::check::{
    LOGIN_CALLS, answer_value, bare_bearer, delimited_password, encoded_json_token,
    generated_flag_value, generated_password, generated_quoted, generated_token, generated_word_in,
    high_entropy, in_secret_array, in_secret_block, keep, keyed_token, login_call_argument,
    made_up_words, mixed_case_with_digits, named_value, not_documentation_example,
    passphrase_value, password_flag, password_value, pin_digits, pin_digits_not_year,
    prefixed_random_token, prose_value, random_looking, random_token, recovery_codes,
    secret_table_cell, short_password_value, sk_key, slack_token, spaced_password,
    sql_or_flag_password, token_flag, token_value, typed_value, typed_word, url_password,
    url_signature, user_password,
};
use super::compile;
use super::services;

/// Decides what part of a candidate value is a secret, or that it is not one. It gets
/// the whole text so it can look at the characters around the value (a quote before it).
pub(super) type Accept = fn(&str, Range<usize>) -> Option<Range<usize>>;

/// How a rule finds its candidates.
enum Pattern {
    /// A regex; the secret is the first capture group that took part, else the whole match.
    Regex(&'static str),
    /// A `-----BEGIN … PRIVATE KEY-----` block (or a static or secret key's), which needs
    /// more than a regex when the `END` line is missing.
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

impl Spec {
    /// The rule's regex as written, if it has one.
    pub(super) fn regex(&self) -> Option<&'static str> {
        match self.pattern {
            Pattern::Regex(pattern) => Some(pattern),
            Pattern::PemBlock => None,
        }
    }
}

/// A quoted value without whitespace; the optional backslashes cover JSON that was
/// escaped once more (`\"password\": \"…\"`).
macro_rules! quoted_value {
    () => {
        r#"(?:\\?"([^"\\\r\n]+)\\?"|\$?'([^'\r\n]+)'|`([^`\r\n]+)`)"#
    };
}

/// A quoted value, or a bare one that stops at whitespace, quotes, brackets, `,;&` and
/// backslashes (so `?token=…&page=2` keeps its next parameter).
macro_rules! value {
    () => {
        concat!("(?:", quoted_value!(), r#"|([^\s"'`,;&()\[\]{}<>\\]+))"#)
    };
}

/// A flag's value: quoted, or bare up to whitespace.
macro_rules! flag_value {
    () => {
        r#"(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"'`]+))"#
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
            r#")\\?["']?\]?\*{0,2}(?:[ \t]*(?::=|=>|\?=|=)[ \t]*"#,
            value!(),
            r"|[ \t]*:(?:\*\*)?[ \t]+",
            value!(),
            r"|[ \t]*:",
            quoted_value!(),
            ")"
        )
    };
}

/// The keywords of a rule that reads a password named in another language: `$extra`, then
/// the words for a password (or the part of one that survives ASCII lowercasing) in the
/// languages `redact` reads.
macro_rules! password_words {
    ($($extra:literal),* $(,)?) => {
        &[
            $($extra,)*
            "passe",
            "passwort",
            "kennwort",
            "contrase",
            "clave",
            "senha",
            "wachtwoord",
            "hasło",
            "haslo",
            "hasla",
            "ароль",
            "ароля",
            "аролем",
            "パスワード",
            "暗証番号",
            "senord",
            "salasana",
            "adgangskode",
            "passord",
            "parola",
            "ifre",
            "heslo",
            "jelsz",
            "密码",
            "密碼",
            "비밀번호",
            "sandi",
            "khẩu",
            "khau",
            "κωδικ",
            "συνθηματικ",
        ]
    };
}

/// The rules, most specific first: when two finds overlap, the earlier rule names the kind.
pub(super) const SPECS: &[Spec] = &[
    Spec {
        kind: "private-key",
        keywords: &["private key", "static key", "secret key"],
        pattern: Pattern::PemBlock,
        accept: keep,
    },
    Spec {
        kind: "private-key",
        keywords: &["priv"],
        // A wallet's or a curve's private key as 64 hex digits, when a label names it so
        // (`wallet private key: 0x…`, `privkey = …`); bare, 64 hex digits are a hash.
        pattern: Pattern::Regex(
            r#"(?i:priv(?:ate)?[ _-]?key)(?:[ \t]+for[ \t]+[^\r\n]{1,40}?)?(?:[ \t]*(?::=|=|:)|[ \t]+(?:is|was))[ \t]*["'`]?((?:0x)?[0-9a-fA-F]{64})(?-u:\b)"#,
        ),
        accept: keep,
    },
    Spec {
        kind: "seed-phrase",
        keywords: &["phrase", "words", "mnemonic"],
        // A wallet's seed: 12 to 24 lower-case words of 3 to 8 letters (BIP-39's), when a
        // label names it (`seed phrase:`, `recovery words are`, `mnemonic =`).
        pattern: Pattern::Regex(
            r#"(?i:(?:seed|recovery|mnemonic|backup|wallet)[ _-]?(?:phrase|words)|mnemonic)(?:[ \t]*(?::=|=|:)|[ \t]+(?:is|was|are))[ \t]*["'`]?((?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8})(?-u:\b)"#,
        ),
        accept: keep,
    },
    Spec {
        kind: "passphrase",
        keywords: &[
            "unlock",
            "app password",
            "phrase",
            "fras",
            "jelmondat",
            "tunnuslause",
            "wachtzin",
            "fráze",
            "fraze",
            "fraza",
            "фраз",
            "φράση",
            "パスフレーズ",
            "密码短语",
            "문구",
        ],
        // Made-up words typed to unlock something (`unlocks with epiq vmczk …`, `to unlock
        // the disk at boot type xbxfr oyrozl …`) or said after a passphrase named in any of
        // the languages `redact` reads, by `:` or a copula ("the passphrase on my key is the
        // same four words as …: …", "lösenfrasen … är …"), and an app password in Google's four groups of four
        // letters: the check wants words no language spells (two without a vowel) unless
        // the label is an app password.
        pattern: Pattern::Regex(concat!(
            r"(?:(?i-u:unlock)[^\r\n]{0,60}?[ \t](?i-u:with|type|enter)|(?i-u:app[ \t]+password(?:[ \t]+is)?)[ \t]*:?",
            r"|(?i:pass[ \t-]?phrase|passfras|lösenfras|losenfras|jelmondat|tunnuslause|wachtzin|frase[ \t]+(?:de[ \t]+)?(?:contraseña|senha|passe|secreta)|phrase[ \t]+(?:de[ \t]+passe|secr[eè]te)|heslov[aá][ \t]+fr[aá]ze|fraza[ \t]+(?:has(?:ł|l)a|dost[eę]pu)|парольн[а-я]+[ \t]+фраз|κωδική[ \t]+φράση|パスフレーズ|密码短语|암호[ \t]?문구)",
            r"[^\r\n]{0,60}(?::|[ \t](?:is|are|was|är|er|ist|est|es|é|è|jest|je|on|van|là|это|είναι)))[ \t]+((?:[a-z]{3,8}[ \t]+){3,7}[a-z]{3,8})",
            r"|(?-u:\b)([a-z]{4}(?:[ \t][a-z]{4}){3})[ \t]+as[ \t]+(?:the|my|an?)[ \t]+(?:[A-Za-z]+[ \t]+)?(?i-u:app[ \t]+password)",
        )),
        accept: made_up_words,
    },
    Spec {
        kind: "pin",
        keywords: &[
            "pin",
            "puk",
            "passcode",
            "pass code",
            " code",
            "combination",
            "#",
        ],
        // A PIN, a SIM's PUK or a passcode of 4 to 8 digits, named in a sentence or as a key
        // (in any words before a colon: `PIN k platobnej bráne: …`); also the code of an
        // alarm, a door, a gate, a safe or a lock, a combination (`47-56-46`), and digits
        // typed on a keypad before `#`.
        pattern: Pattern::Regex(
            r#"(?-u:\b)(?:(?:PIN|[Pp]in|PUK2?|[Pp]uk2?|PASSCODE|[Pp]asscode|[Pp]ass code|(?:[Aa]larm|[Dd]oor|[Gg]ate|[Gg]arage|[Ss]afe|[Ll]ock|[Kk]eypad|[Ee]ntry|[Bb]uilding|[Ss]ecurity|[Aa]ccess) code)(?:[ -]?(?:[Cc]ode|[Nn]umber|CODE|NUMBER))?(?:(?:[ \t]+(?:for|at|of|on|to)[ \t]+[^\r\n]{1,40}?)?(?:[ \t]*(?::=|=|:)|[ \t]+(?:is|was))|[ \t]+[^\r\n:=]{1,40}?[ \t]*:)[ \t]*["'`]?([0-9]{4,8})(?-u:\b)|[Cc]ombination(?:[ \t]+(?:for|at|of|on|to)[ \t]+[^\r\n]{1,40}?)?(?:[ \t]*[:=]|[ \t]+(?:is|was))[ \t]*([0-9]{4,8}|[0-9]{1,3}(?:-[0-9]{1,3}){2,4})(?-u:\b)|(?:[Tt]ype|[Ee]nter|[Dd]ial|[Pp]unch in)[ \t]+([0-9]{4,8})#|[ \t](?:[Cc]ode|CODE)(?:[ \t]*:|[ \t]+(?:is|was))[ \t]*([0-9]{4,8})(?-u:\b)[^\r\n.]{0,40}?(?-u:\b)(?i:padlock|lock|door|gate|garage|safe|locker|keypad|alarm|storage|mailbox|lockbox|key[ \t]?box)(?-u:\b))"#,
        ),
        accept: pin_digits,
    },
    Spec {
        kind: "pin",
        keywords: &[
            "பின்",
            "पिन",
            "পিন",
            "ピン",
            "핀",
            "пин",
            "Пин",
            "ПИН",
            "رقم سري",
            "الرقم السري",
            "رمز پین",
        ],
        // A PIN named in another script, the digits right after it or after a few words
        // ("என் ஏடிஎம் கார்டு பின் …", "ПИН-код карты …", "الرقم السري …").
        pattern: Pattern::Regex(
            r"(?:பின்|पिन|পিন|ピン|핀|[Пп]ин|ПИН|(?:ال)?رقم[ \t]ال?سري|رمز[ \t]پین)(?:[-‐][Кк]од|[ \t]?(?:コード|번호|नंबर))?[^\r\n0-9]{0,30}?(?-u:\b)([0-9]{4,8})(?-u:\b)",
        ),
        accept: pin_digits,
    },
    Spec {
        kind: "pin",
        keywords: &[
            "pin",
            "puk",
            "kód",
            "koodi",
            "код",
            "Код",
            "קוד",
            "暗証番号",
            "kod",
            "código",
            "codice",
        ],
        // A PIN named in a sentence of any language (`PIN` is the word in most), the digits
        // a few words on ("το PIN της κάρτας μου είναι …", "mã PIN thẻ ATM … là …", "the
        // parental-controls PIN (…)"), and the code of a door, a gate or an intercom named
        // by the word for a code ("kód od brány je …", "ovikoodi on …", "код від домофону
        // …", "הקוד של האינטרקום …", "暗証番号 …"): no digit, no sentence's end between.
        pattern: Pattern::Regex(
            r"(?:(?-u:\b)(?:PIN|PUK)|[Kk]ód|KÓD|[Kk]oodi|KOODI|[Кк]од|КОД|קוד|暗証番号|(?-u:\b)[Kk]od[eu]?(?-u:\b)|[Cc]ódigo|[Cc]odice)[^\r\n0-9.!?;]{0,40}?(?-u:\b)([0-9]{4,8})(?-u:\b)",
        ),
        accept: pin_digits_not_year,
    },
    Spec {
        kind: "card-code",
        keywords: &["cvv", "cvc", "cid", "csc", "cvn", "verification"],
        // A card's security code (CVV, CVC, Amex's CID), 3 or 4 digits after its name.
        pattern: Pattern::Regex(
            r"(?-u:\b)(?:CVV2?|CVC2?|[Cc]vv2?|[Cc]vc2?|CID|CSC|CVN|[Cc]ard[ \t]+[Vv]erification[ \t]+(?:[Cc]ode|[Vv]alue|[Nn]umber))(?:[ \t]+(?:on|at|of|for)[ \t]+[^\r\n]{1,40}?)?(?:[ \t]*(?::|=|-)|[ \t]+(?:is|was|code))?[ \t]*([0-9]{3,4})(?-u:\b)",
        ),
        accept: pin_digits,
    },
    Spec {
        kind: "one-time-code",
        keywords: &[
            "texted me",
            "messaged me",
            "sms",
            "otp",
            "one-time",
            "one time",
            "verification code",
            "confirmation code",
            "login code",
            "sign-in code",
            "2fa code",
            "mfa code",
            "auth code",
            "authentication code",
            "security code",
            "sent me",
        ],
        // A one-time code: digits someone texted ("the bank texted me … and says never
        // share it"), or named as an OTP or a verification, login or 2FA code.
        pattern: Pattern::Regex(concat!(
            r"(?-u:\b)(?i:texted|messaged|sms(?:'?e?d)?)[ \t]+me[ \t]+(?:(?:a|the|this|my|an?)[ \t]+)?(?:(?i:code|otp|pin)[ \t]*:?[ \t]+)?([0-9]{4,8})(?-u:\b)",
            r"|(?-u:\b)(?i:sent)[ \t]+me[ \t]+(?:a|the|this|my)[ \t]+(?:[A-Za-z-]+[ \t]+)?(?i:code|otp|pin)[ \t]*:?[ \t]+([0-9]{4,8})(?-u:\b)",
            r"|(?-u:\b)(?i:otp|one[- ]time[ \t]+(?:code|password|passcode|pin)|(?:verification|confirmation|login|sign-in|2fa|mfa|auth|authentication|security|sms)[ \t]+code)(?:[ \t]+(?:is|was)|[ \t]*[:=])?[ \t]*([0-9]{4,8})(?-u:\b)",
        )),
        accept: pin_digits,
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
        kind: "token",
        keywords: &["eyj"],
        // A base64-encoded JSON object of 45 bytes or more that is no JWT (no dots): a
        // service's credential in one string (`cloudflared service install eyJhIjoi…`).
        pattern: Pattern::Regex(r"(?-u:\b)(eyJ[A-Za-z0-9+/_-]{60,}={0,2})(?:[^A-Za-z0-9+/_=.-]|$)"),
        accept: encoded_json_token,
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
        kind: "service-token",
        keywords: services::KEYWORDS,
        pattern: Pattern::Regex(services::PATTERN),
        accept: high_entropy,
    },
    Spec {
        kind: "service-token",
        keywords: &["q~"],
        pattern: Pattern::Regex(services::AZURE_CLIENT_SECRET),
        accept: high_entropy,
    },
    Spec {
        kind: "service-token",
        keywords: &["aio_", "perm:", "nsec1", "ifttt.com"],
        // Formats gitleaks' list lacks or names only beside a keyword: Adafruit IO's
        // `aio_` key, a YouTrack permanent token (`perm:` and three dotted parts), a Nostr
        // secret key (`nsec1`, bech32), and the key in an IFTTT Webhooks URL.
        pattern: Pattern::Regex(concat!(
            r"(?-u:\b)(?:aio_[A-Za-z0-9]{28,}|perm:[A-Za-z0-9+/=_-]{2,}\.[A-Za-z0-9+/=_-]{2,}\.[A-Za-z0-9]{20,}|nsec1[a-z0-9]{58,})",
            r"|maker\.ifttt\.com/(?:trigger/[^/\s]+/(?:json/)?with/)?(?:key|use)/([A-Za-z0-9_-]{16,})",
        )),
        accept: high_entropy,
    },
    Spec {
        kind: "password",
        keywords: &["wifi:"],
        // The password in a Wi-Fi QR code's text (`WIFI:T:WPA;S:…;P:…;;`), `;` and `\`
        // escaped by a backslash.
        pattern: Pattern::Regex(r"(?-u:\b)WIFI:(?:[^\r\n]*?;)?P:((?:[^;\\\r\n]|\\.)+)"),
        accept: url_password,
    },
    Spec {
        kind: "api-key",
        keywords: &["sk-"],
        // The `sk-` keys of other services (OpenRouter's `sk-or-v1-…`, DeepSeek's and
        // others' `sk-` and 32 hex digits): short lower-case segments, then a long tail.
        pattern: Pattern::Regex(r"(?-u:\b)sk-(?:[a-z0-9]{1,8}-){0,3}[A-Za-z0-9]{32,}(?-u:\b)"),
        accept: sk_key,
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
        kind: "url-token",
        keywords: &["sig", "hmac"],
        // A signature as a URL's parameter (`sig=` of an Azure SAS, `X-Amz-Signature=`,
        // `Signature=`, `hmac=`): it is the credential of a signed URL. Tokens as
        // parameters (`token=`, `access_token=`) are the assignment rules'.
        pattern: Pattern::Regex(
            r#"[?&#;](?:[A-Za-z0-9]+[-_.])*(?i:sig|signature|hmac)=([^&#\s"'<>]+)"#,
        ),
        accept: url_signature,
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
        // Under any scheme (`Bearer`, `Basic`, Splunk's `Splunk`, `SSWS`, `GenieKey`, …).
        pattern: Pattern::Regex(
            r#"(?-u:\b)(?:[Pp]roxy-|PROXY-)?(?:[Aa]uthorization|AUTHORIZATION)\\?["']?[ \t]*[:=][ \t]*\\?["']?(?:[A-Za-z][A-Za-z0-9_-]{1,24}[ \t]+)?([A-Za-z0-9._~+/=@-]+)"#,
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
        keywords: &["pass", "pwd", "pw", "/p:", "/rp"],
        pattern: Pattern::Regex(
            r#"(?i)(?:(?m:^)|[ \t])(?:--?(?:[a-z0-9]+-)*(?:store|key|src|dest|srcstore|deststore|srckey|destkey|new|old|db|admin|root|bind|http|ftp|proxy|smtp|ssh)?(?:password|passwd|passphrase|pass|pwd|pw)(?:out|in|[0-9])?(?:=|[ \t]+)(?:pass:)?|/(?:password[do]?|pass|pwd|pw|p):|/rp[ \t]+)(?:"([^"\s]+)"|'([^'\s]+)'|([^\s"'`]+))"#,
        ),
        accept: password_flag,
    },
    Spec {
        kind: "password",
        keywords: &[
            "sshpass",
            "mysql",
            "mariadb",
            "redis-cli",
            "security",
            "login",
            "twine",
            "mongo",
            "mosquitto_",
            "ipmitool",
            "ldap",
            "zip",
            "gbak",
            "gsec",
            "gfix",
            "gstat",
            "nbackup",
            "isql-fb",
            "fbsvcmgr",
            "vmrun",
        ],
        // The short flags that are a password only for some commands: `sshpass -p`,
        // `mysql -p…` (joined: `-p shop` asks, and shop is the database), `redis-cli -a`,
        // `security add-generic-password -w`, `docker login -p` and the other registry
        // logins, `twine -p`, `mongo -p`, `mosquitto_pub -P`, `ipmitool -P`, `zip -P`,
        // `ldapsearch -w`, the new password of `ldappasswd -s`, Firebird's `gbak -pas` and
        // the guest's password of `vmrun -gp`.
        pattern: Pattern::Regex(concat!(
            r"(?-u:\b)(?:sshpass[^\r\n|;&]*?[ \t]-p[ \t]*",
            flag_value!(),
            r#"|(?:mysql(?:dump|admin|import|show|check|pump|sh)?|mariadb(?:-?dump|-?admin)?)[^\r\n|;&]*?[ \t"']-p"#,
            flag_value!(),
            r"|redis-cli[^\r\n|;&]*?[ \t]-a[ \t]+",
            flag_value!(),
            r"|security[ \t]+add-(?:generic|internet)-password[^\r\n|;&]*?[ \t]-w[ \t]+",
            flag_value!(),
            r"|(?:docker|podman|buildah|skopeo|nerdctl|oras|crane|helm[ \t]+registry|az)[ \t]+login[^\r\n|;&]*?[ \t]-p[ \t]+",
            flag_value!(),
            r"|(?:twine|mongo(?:sh|dump|restore|export|import|stat|top|files)?)[^\r\n|;&]*?[ \t]-p[ \t]+",
            flag_value!(),
            r"|(?:mosquitto_(?:pub|sub|rr)|ipmitool|zip)[^\r\n|;&]*?[ \t]-P[ \t]+",
            flag_value!(),
            r"|ldap(?:search|add|modify|delete|modrdn|compare|whoami|passwd|exop)[^\r\n|;&]*?[ \t]-w[ \t]+",
            flag_value!(),
            r"|ldappasswd[^\r\n|;&]*?[ \t]-s[ \t]+",
            flag_value!(),
            r"|(?:gbak|gsec|gfix|gstat|nbackup|isql-fb|fbsvcmgr)[^\r\n|;&]*?[ \t]-pas(?:sword)?[ \t]+",
            flag_value!(),
            r"|vmrun[^\r\n|;&]*?[ \t]-gp[ \t]+",
            flag_value!(),
            r")"
        )),
        accept: password_flag,
    },
    Spec {
        kind: "password",
        keywords: &[
            "7z",
            "openssl",
            "ssh-keygen",
            "htpasswd",
            "smb",
            "rpcclient",
            "winexe",
            "net rpc",
            "lftp",
            "net use",
            "nmcli",
            "gh secret",
            "aws configure",
            "sqlplus",
            "rman",
            "expdp",
            "impdp",
            "sqlldr",
            "securestring",
            "echo",
            "printf",
            "rclone",
            "snmp",
            "-a sha",
            "-a md5",
            "-x aes",
            "-x des",
            "rabbitmqctl",
        ],
        // `7z -p…` (joined), `openssl enc -k`, `ssh-keygen -N`/`-P`, `htpasswd -b file
        // user password` (`-nb user password`), Samba's `-U user%password`, `lftp -u
        // user,password`, `net use \\host\share password`, `nmcli … password`, `gh
        // secret set --body`, `aws configure set aws_secret_access_key`, Oracle's
        // `user/password@db`, `ConvertTo-SecureString "…"`, a password echoed
        // into a command that reads it from stdin, `rclone config create … pass …`,
        // SNMP's `-A`/`-X` passphrases and `-c` community (and a passphrase after its
        // protocol, `-x AES -X …`, wherever the command starts), `rabbitmqctl add_user
        // user …`.
        pattern: Pattern::Regex(concat!(
            r"(?-u:\b)(?:7z[az]?[^\r\n|;&]*?[ \t]-p",
            flag_value!(),
            r"|openssl[^\r\n|;&]*?[ \t]-k[ \t]+",
            flag_value!(),
            r"|ssh-keygen[^\r\n|;&]*?[ \t]-[NP][ \t]+",
            flag_value!(),
            r"|htpasswd[ \t]+-[A-Za-z]*b[A-Za-z]*(?:[ \t]+-[A-Za-z]+)*[ \t]+(?:[^\s-]\S*[ \t]+){1,2}",
            flag_value!(),
            r#"|(?:smbclient|rpcclient|smbmap|smbget|smbcacls|winexe|net[ \t]+rpc)[^\r\n|;&]*?[ \t](?:-U|--user(?:name)?)(?:=|[ \t]+)["']?[^\s%"']+%([^\s"']+)"#,
            r#"|lftp[^\r\n|;&]*?[ \t]-u[ \t]+["']?[^\s,"']+,([^\s"']+)"#,
            r#"|net[ \t]+use[ \t]+(?:(?:[A-Za-z]:|\*)[ \t]+)?\\\\\S+[ \t]+([^\s/*"'][^\s"']*)"#,
            r"|nmcli[^\r\n|;&]*?[ \t](?:password|wifi-sec\.psk)[ \t]+",
            flag_value!(),
            r"|gh[ \t]+secret[ \t]+set[^\r\n|;&]*?[ \t](?:--body|-b)(?:=|[ \t]+)",
            flag_value!(),
            r"|aws[ \t]+configure[ \t]+set[ \t]+(?:[A-Za-z0-9_-]+\.)?(?:aws_secret_access_key|aws_session_token)[ \t]+",
            flag_value!(),
            r#"|(?:sqlplus|rman|expdp|impdp|sqlldr)(?:[ \t]+-[A-Za-z]+)*[ \t]+[A-Za-z0-9_$#]+/(?:"([^"\r\n]+)"|([^\s@"'/]+))"#,
            r#"|ConvertTo-SecureString[ \t]+(?:-String[ \t]+)?(?:"([^"\r\n]+)"|'([^'\r\n]+)')"#,
            r#"|(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s|"'`]+))[ \t]*\|[^\r\n]*?(?:sudo(?:[ \t]+-[A-Za-z]+)*[ \t]+-[A-Za-z]*S|--password-stdin|--passphrase-fd|--stdin|chpasswd)"#,
            r"|rclone[ \t]+config[ \t]+(?:create|update)[^\r\n|;&]*?[ \t](?:pass|password|key|secret_access_key|client_secret|token)[ \t]+",
            flag_value!(),
            r"|snmp[a-z]*[^\r\n|;&]*?[ \t]-[AXc][ \t]+",
            flag_value!(),
            r"|[ \t]-[ax][ \t]+(?:SHA|MD5|AES|DES)[A-Za-z0-9-]*[ \t]+-[AX][ \t]+",
            flag_value!(),
            r"|rabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+\S+[ \t]+",
            flag_value!(),
            r")"
        )),
        accept: delimited_password,
    },
    Spec {
        kind: "password",
        keywords: &[
            "machine",
            "_auth",
            "_password",
            "requirepass",
            "masterauth",
            " >",
            "user ",
            "userlist.txt",
            "sasl_passwd",
            "ipsec.secrets",
            "htpasswd",
            "passwd.txt",
            "credentials.txt",
            "secret",
            "passw",
            "cred",
            "authinfo",
            "{plain",
            "{clear",
        ],
        // The credential lines of well-known config files: a `.netrc` entry (on one line or
        // several), `.npmrc`'s `_auth` and `_password`, redis.conf's `requirepass` and
        // `masterauth` (also in `CONFIG SET`), a Redis ACL user's `>password`, a `user …
        // (insecure-)password …` line (HAProxy), and the last field of the first line of a
        // credentials file shown after its path (`userlist.txt`, `sasl_passwd`,
        // `ipsec.secrets`, …, and any file named for secrets, passwords or credentials,
        // its path alone on its line: `rsyncd.secrets:`, `/etc/ppp/creds`); sendmail's
        // `AuthInfo:` line (`"P:…"`), and a password stored under a plain-text scheme
        // (Dovecot's `{PLAIN}…`, `{CLEARTEXT}…`; a hash's scheme names no secret in clear).
        pattern: Pattern::Regex(concat!(
            r"(?:(?:(?m:^)[ \t]*machine[ \t]+\S+|(?-u:\b)machine[ \t]+[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+)",
            r"(?:\s+(?:login|account|port)\s+\S+)+\s+password\s+",
            flag_value!(),
            r"|(?:(?m:^)|[\s:])_(?:auth|password)[ \t]*=[ \t]*",
            flag_value!(),
            r"|(?-u:\b)(?:requirepass|masterauth)[ \t]+",
            flag_value!(),
            r"|(?-u:\b)(?:ACL[ \t]+SETUSER|user)[ \t]+\S+(?:[ \t]+[^\s>]+)*?[ \t]+>(\S+)",
            r"|(?m:^)[ \t]*user[ \t]+\S+[ \t]+(?:insecure-)?password[ \t]+",
            flag_value!(),
            r#"|(?:(?:userlist\.txt|sasl_passwd|ipsec\.secrets|\.htpasswd|passwd\.txt|credentials\.txt)[^\r\n]*|(?:(?m:^)|[ \t])(?:(?:[A-Za-z0-9_.~-]*/)+[A-Za-z0-9_.-]*(?:[Ss]ecrets?|SECRETS?|passwd|[Pp]asswords?|[Cc]redentials|[Cc]reds)[A-Za-z0-9_.-]*|[A-Za-z0-9_-]*\.(?:secrets?|passwd|passwords?|credentials|creds)|[A-Za-z0-9_-]*(?:[Ss]ecrets?|passwd|[Pp]asswords?|[Cc]redentials|[Cc]reds)\.[A-Za-z0-9]{1,5})[ \t]*:?[ \t]*)\r?\n(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*[^\r\n]*[ \t:]"?([^\s":]+)"?[ \t]*(?m:$)"#,
            r#"|(?-u:\b)(?i:AuthInfo)[^\r\n]*?[ \t:]"P:([^"\r\n]+)""#,
            r"|\{(?i:PLAIN|CLEAR|CLEARTEXT|PLAINTEXT)\}([^\s:]+)",
            ")"
        )),
        accept: password_flag,
    },
    Spec {
        kind: "password",
        keywords: &[":"],
        // A `.pgpass` line, `host:port:database:user:password` (`*` for any; `\:` escapes),
        // also quoted in a sentence; the host has a letter or a dot, so a time does not.
        pattern: Pattern::Regex(
            r"(?:(?m:^)|[ \t])(?:[A-Za-z0-9_-]*[A-Za-z.][A-Za-z0-9_.-]*|\*|\[[0-9A-Fa-f:]+\]):(?:[0-9]{1,5}|\*):(?:[^:\s\\]|\\.)+:(?:[^:\s\\]|\\.)+:((?:[^:\s\\]|\\.)+)(?:[ \t\r]|(?m:$))",
        ),
        accept: password_flag,
    },
    Spec {
        kind: "password",
        keywords: &[
            "wpa_passphrase",
            "setairportnetwork",
            "isql",
            "stdin",
            "sudo -s",
            "chpasswd",
        ],
        // A password as a positional argument: `wpa_passphrase SSID …`, `networksetup
        // -setairportnetwork en0 SSID …`, unixODBC's `isql DSN USER …`; and one written
        // into a command that reads it from its input (`printf '%s' '…' | hdiutil attach
        // -stdinpass`, `echo … | sudo -S`, `| passwd --stdin`, `| chpasswd`).
        pattern: Pattern::Regex(concat!(
            r#"(?:(?-u:\b)wpa_passphrase[ \t]+(?:"[^"\r\n]*"|'[^'\r\n]*'|[^\s"']+)[ \t]+"#,
            flag_value!(),
            r#"|(?-u:\b)networksetup[ \t]+-setairportnetwork[ \t]+\S+[ \t]+(?:"[^"\r\n]*"|'[^'\r\n]*'|[^\s"']+)[ \t]+"#,
            flag_value!(),
            r"|(?-u:\b)isql(?:[ \t]+-[A-Za-z0-9]+)*[ \t]+[^\s-]\S*[ \t]+[^\s-]\S*[ \t]+",
            flag_value!(),
            r#"|(?-u:\b)(?:printf|echo)(?:[ \t]+-[neE]+)*(?:[ \t]+(?:'%s[^'\r\n]*'|"%s[^"\r\n]*"))?[ \t]+"#,
            flag_value!(),
            r"[ \t]*\|[^\r\n]*?(?:stdin|sudo[ \t]+-S|chpasswd))",
        )),
        accept: password_flag,
    },
    Spec {
        kind: "password",
        keywords: &["@", "bundle_"],
        // A password between a user and a host without a scheme (impacket's
        // `corp/administrator:…@10.0.0.5`, `smbclient`'s and `sshpass`'s targets), and a
        // gem source's `user:password` in Bundler's config, both (the halves of a licence key) (`BUNDLE_GEMS__EXAMPLE__COM:
        // "user:…"`).
        pattern: Pattern::Regex(concat!(
            r#"(?:(?:(?m:^)|[\s'"=(])(?:[A-Za-z0-9_.-]+/)?[A-Za-z0-9_.\\-]+:([^\s'"/][^\s'"]{3,}?)@(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)(?:[\s'":/]|(?m:$))"#,
            r#"|(?m:^)[ \t]*BUNDLE_[A-Z0-9_]*__[A-Z0-9_]+[ \t]*[:=][ \t]*["']?([^\s:"']+:[^\s"']+))"#,
        )),
        accept: user_password,
    },
    Spec {
        kind: "password",
        keywords: &["-p", "-a", "-w", "-x"],
        // Any other command's `-p`, `-P`, `-a`, `-A`, `-w` or `-X` (SNMP's passphrases): a
        // port, a path, a name, a method or a word is no password, so the value must read
        // as generated.
        pattern: Pattern::Regex(concat!(r"(?:(?m:^)|[ \t])-[pPawAX][ \t]+", flag_value!())),
        accept: generated_flag_value,
    },
    Spec {
        kind: "token",
        keywords: &["token", "secret", "key"],
        pattern: Pattern::Regex(
            r#"(?i)(?:(?m:^)|[ \t])--?(?:[a-z0-9]+-)*(?:token|secret|api-?key|access-key|secret-key|key)(?:-id)?(?:=|[ \t]+)(?:"([^"\s]+)"|'([^'\s]+)'|([^\s"'`]+))"#,
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
        keywords: &["pass", "pwd", "pw", "psk", "shared"],
        pattern: Pattern::Regex(assignment!(
            "(?:[Pp]ass(?:wd|word|code)|PASS(?:WD|WORD|CODE)|[Pp]wd|PWD|[_.-](?:[Pp]ass|PASS|[Pp][Ww]|PW)|[a-z0-9]Pass(?-u:\\b)|(?-u:\\b)[A-Z]+PASS(?-u:\\b)|(?-u:\\b)(?:psk|PSK)|[Pp]re-?[Ss]hared-?[Kk]ey|PRE_?SHARED_?KEY)(?:[_.-][A-Za-z0-9]+|[A-Z][a-z0-9]+)*"
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
        keywords: &["token", "secret", "key", "auth", "_pat", "_signing"],
        pattern: Pattern::Regex(assignment!(
            "(?:[Tt]oken|TOKEN|[Ss]ecret|SECRET|(?:[Aa]pi|API|[Aa]ccess|ACCESS|[Aa]ccount|ACCOUNT|[Ss]hared[Aa]ccess|SHARED_?ACCESS|[Ss]ecret|SECRET|[Pp]rivate|PRIVATE|[Aa]uth|AUTH|[Ee]ncryption|ENCRYPTION|[Ss]igning|SIGNING|[Mm]aster|MASTER|[Ll]icense|LICENSE|[Cc]lient|CLIENT|[Aa]pp|APP|[Ss]ervice|SERVICE)[_-]?(?:[Kk]ey|KEY)|[Aa]uth_?(?:[Ii]dent|[Tt]ok(?:en)?)|AUTH_?(?:IDENT|TOK(?:EN)?)|[A-Za-z0-9]+_(?:signing|SIGNING)(?-u:\\b))(?:[_.-][A-Za-z0-9]+|[A-Z][a-z0-9]+)*|(?-u:\\b)(?:auth|AUTH)|(?m:^)[ \t]*(?:key|KEY)|[A-Z0-9]+_PAT(?-u:\\b)"
        )),
        accept: token_value,
    },
    Spec {
        kind: "token",
        keywords: &["_", "-"],
        // A service's prefix, `_` or `-`, and a long random tail (Groq's `gsk_…`, Google's
        // `GOCSPX-…`, the next service's format): the tail must read as generated.
        pattern: Pattern::Regex(r"(?-u:\b)[A-Za-z][A-Za-z0-9]{1,9}[_-][A-Za-z0-9_-]{28,}"),
        accept: prefixed_random_token,
    },
    Spec {
        kind: "token",
        keywords: &["."],
        // A Discord bot token: the bot's id in base64, a timestamp and an HMAC.
        pattern: Pattern::Regex(
            r"(?-u:\b)[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}",
        ),
        accept: random_token,
    },
    Spec {
        kind: "password",
        keywords: &[
            "env ",
            "env\t",
            "arg ",
            "arg\t",
            "\",",
            "',",
            "</",
            "value=",
            "\")",
            "')",
            "\"]",
            "']",
            "@tcp(",
            "@unix(",
            "@udp(",
            "-secrets",
            "auth-user-pass",
            "auth(",
            "auth=(",
            "auth = (",
            "login(",
            "connect(",
            "mysqli(",
            "pdo(",
            "credential(",
            "credentials(",
            "basic",
            "authentication(",
            "getconnection(",
            "onnect(",
            "basic_auth",
            "curlopt_",
            "identified",
            "password '",
            "password n'",
            "password='",
            "password=n'",
            "password = '",
            "password = n'",
            "password ='",
            "password =n'",
            "password= '",
            "password= n'",
            "password 0",
            "password 1",
            "password 2",
            "password 3",
            "password 4",
            "password 5",
            "password 6",
            "password 7",
            "password 8",
            "password 9",
            "secret 0",
            "secret 1",
            "secret 2",
            "secret 3",
            "secret 4",
            "secret 5",
            "secret 6",
            "secret 7",
            "secret 8",
            "secret 9",
        ],
        // A password in the other shapes of config files and code: a Dockerfile's `ENV KEY
        // value`, a quoted key then its quoted value (`define('DB_PASSWORD', '…')`,
        // `page.fill('#password', '…')`, an indexer's `["db_password"] = "…"`), an XML
        // element (or the `<Value>` under it, as in an `unattend.xml`) or a `key=… value=…`
        // pair, a Go MySQL DSN (`user:…@tcp(…)`), the
        // first entry of a `chap-secrets` or `pap-secrets` file, a Cisco `password 0 …`, the
        // second line of an OpenVPN `auth-user-pass` file, the password argument of a login call
        // (`mysqli_connect(host, user, '…')`, `getConnection(url, user, "…")`, `auth=(user,
        // '…')`, `.login(user, '…')`, Ruby's `basic_auth "user", "…"`, Haskell's `applyBasicAuth "user" "…"`, Rust's `Some("…")`),
        // libcurl's `CURLOPT_USERPWD`, and SQL's `IDENTIFIED BY '…'` and `PASSWORD '…'`.
        pattern: Pattern::Regex(concat!(
            r"(?:(?-u:\b)(?:ENV|ARG|SetEnv)[ \t][ \t]*[A-Za-z0-9_]*(?:PASSWORD|PASSWD|PASS|PWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY)[A-Za-z0-9_]*[ \t]+",
            flag_value!(),
            r#"|["'][#.]?[A-Za-z0-9_.-]*(?:[Pp]ass(?:word|wd)?|PASS(?:WORD|WD)?|[Pp]wd|PWD|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi_?[Kk]ey|API_?KEY)[A-Za-z0-9_.-]*["'],[ \t]*"#,
            quoted_value!(),
            r#"|["'][^"'\s]{0,80}?(?:[Pp]ass(?:word|wd)?|PASS(?:WORD|WD)?|[Pp]wd|PWD|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[_-]?[Kk]ey|API[_-]?KEY)[A-Za-z0-9_.-]*["'][ \t]*[)\]][ \t]*=[ \t]*"#,
            quoted_value!(),
            r"|<(?:[A-Za-z_-]+:)?[A-Za-z_.-]*(?:[Pp]assword|PASSWORD|[Pp]asswd|[Pp]assphrase|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[Kk]ey)[A-Za-z_.-]*>([^<\r\n]+)</",
            r"|<(?:[A-Za-z_-]+:)?[A-Za-z_.-]*(?:[Pp]ass(?:word|wd|phrase)?|PASS(?:WORD|WD)?|[Pp]wd|PWD|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[Kk]ey)[ \t][^<>\r\n]*>([^<\r\n]+)</",
            r"|<(?:[A-Za-z_-]+:)?[A-Za-z_.-]*(?:[Pp]assword|PASSWORD|[Pp]asswd|[Pp]assphrase|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[Kk]ey)[A-Za-z_.-]*(?:[ \t][^<>\r\n]*)?>[ \t]*\r?\n[ \t]*<(?:[A-Za-z_-]+:)?(?:[Vv]alue|VALUE)>([^<\r\n]+)</",
            r#"|<[A-Za-z_.:-]+[ \t][^<>\r\n]*?(?:name|key|id)=["'][^"'<>\r\n]*(?:[Pp]assword|PASSWORD|[Pp]asswd|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[Kk]ey)["'][^<>\r\n]*>([^<\r\n]+)</"#,
            r#"|(?:[Bb]asic|BASIC)[^\r\n]{0,40}?(?:[Bb]64[Ee]ncode|[Bb]ase64[Ee]ncode|btoa|[Ee]ncode[A-Za-z0-9]*)\([ \t]*b?["'][^"':\s]+:([^"'\s]+)["']"#,
            r#"|(?:key|name)=["'][^"'\r\n]*(?:[Pp]assword|PASSWORD|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[Kk]ey)[^"'\r\n]*["'][ \t]+value="#,
            quoted_value!(),
            r#"|(?:(?m:^)|["'`\s=])[A-Za-z0-9_.-]+:([^\s"'`/]+)@(?:tcp|unix|udp)\("#,
            r"|(?:(?m:^)[ \t]*(?:enable[ \t]+)?|(?-u:\b)username[ \t]+\S+[^\r\n]*?[ \t])(?:password|secret) [0-9][ \t]+(\S+)",
            r##"|(?:chap|pap)-secrets[^\r\n]*\r?\n(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*[ \t]*"?[^\s"#]+"?[ \t]+(?:\*|"?[^\s"]+"?)[ \t]+"?([^\s"]+)"?"##,
            r"|auth-user-pass[^\r\n]*\r?\n[ \t]*\S+[ \t]*\r?\n[ \t]*(\S+)",
            r#"|(?:mysqli?_(?:real_)?connect|new[ \t]+mysqli|PDO|[Gg]etConnection|[Cc]onnect)\([ \t]*(?:"[^"\r\n]*"|'[^'\r\n]*'|[A-Za-z_$][A-Za-z0-9_.$]*)[ \t]*,[ \t]*(?:"[^"\r\n]*"|'[^'\r\n]*'|[A-Za-z_$][A-Za-z0-9_.$]*)[ \t]*,[ \t]*"#,
            quoted_value!(),
            r#"|(?-u:\b)(?:auth|HTTPBasicAuth|HTTPDigestAuth|BasicAuth|NetworkCredential|UsernamePasswordCredentials|PasswordAuthentication|basic_auth|set_basic_auth|login)(?:\(|=\(|[ ]=[ ]\(|[ \t]+)[ \t]*(?:"[^"\r\n]*"|'[^'\r\n]*'|[A-Za-z_$][A-Za-z0-9_.$]*)[ \t]*,[ \t]*(?:Some\([ \t]*)?"#,
            quoted_value!(),
            r#"|(?-u:\b)applyBasicAuth[ \t]+(?:"[^"\r\n]*"|\S+)[ \t]+"#,
            quoted_value!(),
            r"|CURLOPT_(?:USERPWD|PASSWORD|PROXYUSERPWD|PROXYPASSWORD|KEYPASSWD)[ \t]*,[ \t]*",
            quoted_value!(),
            r"|(?:(?i:identified)[ \t]+(?i:by)[ \t]*|(?i:password)(?: |=| = | =|= ))N?'([^'\r\n]+)'",
            ")"
        )),
        accept: delimited_password,
    },
    Spec {
        kind: "password",
        keywords: &[
            "cred",
            "auth",
            "login",
            "userpass",
            "user-pass",
            "proxy-user",
        ],
        // A `user:password` pair after a flag or key naming credentials (`--dest-creds
        // bob:…`, `-auth bob:…`, squid's `login=bob:…`, `--proxy-user bob:…`): the user stays.
        pattern: Pattern::Regex(
            r#"(?:(?:(?m:^)|[ \t])--?(?:[a-z0-9]+-)*(?:creds?|credentials|auth|basic-auth|login|userpass|user-pass|proxy-user)(?:=|[ \t]+)|(?-u:\b)(?:login|auth|creds?|credentials|userpass|basic_auth|basicauth)=)["']?[^\s:"'@/=]+:([^\s"'`@]{4,})"#,
        ),
        accept: url_password,
    },
    Spec {
        kind: "password",
        keywords: &["user"],
        // A `user:password` pair after `--user` (etcdctl, curl's config) or a `user =` line
        // (`.curlrc`), and a password after `user NAME using` (DB2's `connect`): `--user` is
        // also docker's `uid:gid`, so the password must read as generated.
        pattern: Pattern::Regex(concat!(
            r#"(?:(?:(?m:^)|[ \t])--user(?:=|[ \t]+)|(?m:^)[ \t]*user[ \t]*=[ \t]*)["']?[^\s:"'@/=]+:([^\s"'`@]{4,})"#,
            r"|(?-u:\b)(?i:user)[ \t]+\S+[ \t]+(?i:using)[ \t]+",
            flag_value!(),
        )),
        accept: generated_flag_value,
    },
    Spec {
        kind: "password",
        keywords: &["net user", "poetry", "setcredential", "$user", "identified"],
        // The password of `net user NAME … /add`, of `poetry config http-basic.REPO USER
        // …`, of a systemd `SetCredential=NAME:…`, of a Nagios `$USERn$=…` macro; SQL's
        // unquoted `IDENTIFIED BY …`.
        pattern: Pattern::Regex(concat!(
            r#"(?:(?-u:\b)net[ \t]+user[ \t]+(?:"[^"\r\n]+"|\S+)[ \t]+([^\s/*"'][^\s"']*)"#,
            r"|(?-u:\b)poetry[ \t]+config[ \t]+(?:--[a-z-]+[ \t]+)*http-basic\.\S+[ \t]+\S+[ \t]+",
            flag_value!(),
            r"|(?-u:\b)SetCredential(?:Encrypted)?=[^:\s]+:(\S+)",
            r"|(?m:^)[ \t]*\$USER[0-9]{1,3}\$[ \t]*=[ \t]*(\S+)",
            r#"|(?i:identified)[ \t]+(?i:by)[ \t]+([^\s'"`;(),]+)"#,
            ")"
        )),
        accept: sql_or_flag_password,
    },
    Spec {
        kind: "password",
        keywords: &[
            "${",
            "password(",
            "passwd(",
            "passphrase(",
            "secret(",
            "token(",
            "key(",
            "hmac",
            "secretkeyspec",
            "getenv",
            "environ",
            "env.get",
            "env.fetch",
            "get_env",
            "env::var",
            "fromenvironment",
            "environmentvariable",
        ],
        // A credential in code that no assignment names: the default of a placeholder whose
        // key names one (`${DB_PASSWORD:-…}`, Spring's `${shop.db.password:…}`), the literal
        // passed alone to a method named for one (`.password("…")`, `setPassword("…")`,
        // `with_api_key("…")`), and the key of an HMAC (`hash_hmac(algo, data, '…')`,
        // `hmac.new(b'…'`, `createHmac('sha256', '…')`, `new SecretKeySpec("…"`).
        pattern: Pattern::Regex(concat!(
            r"(?:\$\{[A-Za-z0-9_.-]*(?i:pass(?:word|wd|phrase)?|pwd|secret|token|api[_.-]?key|private[_.-]?key)[A-Za-z0-9_.-]*:-?([^}\s]+)\}",
            r"|(?:\.|(?-u:\b)(?:set|with)_?)(?:[Pp]ass(?:word|wd|phrase)|[Ss]ecret|[Tt]oken|[Aa]pi_?[Kk]ey|[Cc]lient_?[Ss]ecret|[Aa]ccess_?[Tt]oken)\([ \t]*&?(?:b|r|@)?",
            quoted_value!(),
            r"[ \t]*\)",
            r"|(?-u:\b)hash_hmac\([^,\r\n]+,[^,\r\n]+,[ \t]*",
            quoted_value!(),
            r"|(?-u:\b)(?:createHmac|hmac\.new|HMAC\.new|hmac\.New|Hmac(?:Sha[0-9]+)?::new_from_slice|HMAC)\((?:[ \t]*(?:'[^'\r\n]*'|\x22[^\x22\r\n]*\x22|[A-Za-z0-9_.:]+)[ \t]*,)?[ \t]*(?:\[\]byte\()?&?(?:b|r)?",
            quoted_value!(),
            r#"|(?:[Gg]etenv|GetEnv|get_env|fromEnvironment|environ\.get|[Ee]nv\.get|ENV\.fetch|GetEnvironmentVariable|env::var_or)\([ \t]*["'][A-Za-z0-9_.-]*(?i:key|token|secret|pass(?:word|wd)?|pwd)["'][ \t]*,[ \t]*(?:defaultValue:[ \t]*|default[ \t]*=[ \t]*)?"#,
            quoted_value!(),
            r"|(?-u:\b)SecretKeySpec\([ \t]*",
            quoted_value!(),
            ")"
        )),
        accept: delimited_password,
    },
    Spec {
        kind: "password",
        keywords: LOGIN_CALLS,
        // A quoted argument that reads as generated, of a call named for a login (`smtp.PlainAuth("",
        // user, "…", host)`, `Connection(server, dn, "…")`, `ldap.simple_bind_s(dn, "…")`,
        // `Net::SMTP.start(…, user, "…", :plain)`, a key given to `Fernet(b"…")`): the host,
        // the user and the options around it stay.
        pattern: Pattern::Regex(concat!(r"[({,][ \t]*&?(?:b|r|@)?", quoted_value!())),
        accept: login_call_argument,
    },
    Spec {
        kind: "password",
        keywords: &["token", "secret", "credentials", "password", "oauth"],
        // Each value of a block or section named for secrets (HCL's `tokens { agent =
        // "…" }`, YAML's `credentials:` and the keys under it, TOML's `[secrets]`): its
        // keys name what the values are for, not that they are secret.
        pattern: Pattern::Regex(concat!(
            r#"(?m:^)[ \t]*["']?[A-Za-z0-9_.-]+["']?[ \t]*(?:=|:)[ \t]*"#,
            value!()
        )),
        accept: in_secret_block,
    },
    Spec {
        kind: "password",
        keywords: &[
            "pass",
            "pwd",
            "pw",
            "secret",
            "pin",
            "kennwort",
            "contrase",
            "senha",
            "heslo",
            "hasło",
            "haslo",
            "parol",
            "ароль",
            "パスワード",
            "密码",
            "密碼",
            "비밀번호",
        ],
        // The cell under a markdown table's column named for a password (`| Service |
        // Username | Password |`), row by row.
        pattern: Pattern::Regex(r"(?m:^)[ \t]*(\|[^\r\n]*\|)[ \t]*\r?(?m:$)"),
        accept: secret_table_cell,
    },
    Spec {
        kind: "secret",
        keywords: &["←", "⬅"],
        // A value an arrow points back at (`… ← that's the VPN one now`): it must read as
        // typed, letters with digits or symbols.
        pattern: Pattern::Regex(r"(?:(?m:^)|[ \t])([^\s←⬅]{8,64})[ \t]*(?:←|⬅)"),
        accept: typed_word,
    },
    Spec {
        kind: "secret",
        keywords: &["answer", "memorable"],
        // The answer to a security question or a memorable word, named in a sentence: a word
        // of prose is the secret here.
        pattern: Pattern::Regex(concat!(
            r"(?-u:\b)(?i:security[ \t]+(?:question[ \t]+)?answer|secret[ \t]+answer|memorable[ \t]+(?:word|answer))(?:[ \t]+(?:for|at|of|on|to)[ \t]+[^\r\n]{1,40}?)?(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|was)[ \t]+)(?:",
            quoted_value!(),
            r#"|([^\s"'`]+))"#
        )),
        accept: answer_value,
    },
    Spec {
        kind: "secret",
        keywords: &["recovery key", "bitlocker"],
        // A recovery key in groups (BitLocker's eight groups of six digits), after its name.
        pattern: Pattern::Regex(
            r"(?i:recovery[ \t]+key|bitlocker)[^\r\n]{0,60}?(?-u:\b)((?:[A-Za-z0-9]{4,8}-){3,}[A-Za-z0-9]{4,8})(?-u:\b)",
        ),
        accept: keep,
    },
    Spec {
        kind: "token",
        keywords: &[
            "pat-", "access-", "token-", "secret-", "key-", "api-", "auth-",
        ],
        // A UUID after a prefix naming a credential (HubSpot's `pat-na1-…`, Plaid's
        // `access-production-…`, Riot's `RGAPI-…`): bare, a UUID is an id.
        pattern: Pattern::Regex(
            r"(?-u:\b)[A-Za-z]{0,6}(?i:pat|access|token|secret|key|api|auth)(?:-[a-z0-9]{1,12}){0,2}-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?-u:\b)",
        ),
        accept: keep,
    },
    Spec {
        kind: "token",
        keywords: &[
            "cookie",
            "discord",
            "_",
            "-us",
            "nrak",
            "nrii",
            "nrjs",
            "nraa",
            "atatt3",
            "atctt3",
            "1/",
            "2/",
            ".key",
            "key.txt",
            "--token",
            "--discovery-token",
            ".",
        ],
        // A `Cookie:` header holding a value of 16 characters or more (a session), whole,
        // a Discord webhook's token, a service's prefix before 32 or more hex digits
        // (`sbp_…`, `lsv2_pt_…`), a Mailchimp key (`…-us21`), New Relic's `NRAK-` keys,
        // a prefix and a dot before 40 or more (`mlsn.…`), a Braintree access token
        // (`access_token$production$…$…`), Atlassian's `ATATT3…` (gitleaks'
        // `atlassian-api-token`, with `=` inside), an Asana
        // personal access token (`2/…/…:` and 32 hex digits), the contents of a key file
        // shown after its path (`cat config/master.key`), a Kubernetes bootstrap token after
        // `--token`.
        pattern: Pattern::Regex(concat!(
            r#"(?-u:\b)(?:(?:[Ss]et-)?[Cc]ookie|(?:SET-)?COOKIE)[ \t]*:[ \t]*([^\r\n"']*[A-Za-z0-9_.-]=[^;\s"']{16,}[^\r\n"']*)"#,
            r"|(?-u:\b)((?:[a-z]+\.)?discord(?:app)?\.com/api/webhooks/[0-9]{5,}/[A-Za-z0-9_-]{20,})",
            r"|(?-u:\b)((?:[a-z][a-z0-9]{1,7}_){1,2}[0-9a-f]{32,}(?:_[0-9a-f]{6,})?|[a-z][a-z0-9]{1,7}\.[0-9a-f]{40,})(?-u:\b)",
            r"|(?-u:\b)([0-9a-f]{32}-us[0-9]{1,2})(?-u:\b)",
            r"|(?-u:\b)(NR(?:AK|II|JS|AA)-[A-Za-z0-9-]{19,})",
            r"|(?-u:\b)(access_token\$(?:production|sandbox|development)\$[0-9a-z]{8,}\$[0-9a-f]{32})",
            r"|(?-u:\b)(AT[AC]TT3[A-Za-z0-9_=-]{100,})",
            r"|(?-u:\b)([0-9]/[0-9]{10,}(?:/[0-9]{10,})?:[0-9a-f]{32})(?-u:\b)",
            r"|(?:\.key|[Kk]ey\.txt)[ \t]*\r?\n[ \t]*([A-Za-z0-9+/=_-]{24,})[ \t]*(?m:$)",
            r"|--(?:discovery-)?token(?:=|[ \t]+)([a-z0-9]{6}\.[a-z0-9]{16})(?-u:\b)",
        )),
        accept: keyed_token,
    },
    Spec {
        kind: "secret",
        keywords: &["pass", "pwd", "secret", "token", "key"],
        // Prose: "my bank password is …", "the token for staging was …".
        pattern: Pattern::Regex(concat!(
            r"(?-u:\b)(?:[Pp]ass(?:word|code)|PASS(?:WORD|CODE)|[Pp]wd|PWD|[Ss]ecret|SECRET|[Tt]oken|TOKEN|(?:[Aa][Pp][Ii]|[Aa]ccess|[Ss]ecret(?: [Aa]ccess)?|[Ww]i-?[Ff]i|WIFI|[Nn]etwork|WPA) [Kk]ey)(?:[ \t]+(?:for|at|of|on|to)[ \t]+[^\r\n]{1,40}?)?[ \t]+(?:(?:is|was)(?:[ \t]+now)?|(?:(?:got|was|has[ \t]+been|is|been)[ \t]+)?(?:reset|changed|set|updated)[ \t]+to)[ \t]+(?:",
            quoted_value!(),
            r#"|([^\s"'`]+))"#
        )),
        accept: prose_value,
    },
    Spec {
        kind: "secret",
        keywords: password_words!(
            " as ",
            "@",
            " : ",
            "setup key",
            "secret key",
            "2fa key",
            "totp key",
            "otp key",
            "mfa key",
            "authenticator key",
            "backup key",
        ),
        // Prose of other shapes: "use … as the password", `site: bob@example.com / …`, a
        // 2FA setup key in groups of four, and a password named in another language
        // ("le mot de passe est …", `Passwort: …`, "la contraseña es …", "パスワードは …").
        pattern: Pattern::Regex(concat!(
            r"(?-u:\b)(?:[Uu]s(?:e|es|ed|ing)|USE)[ \t]+(?:",
            quoted_value!(),
            r#"|([^\s"'`]+)) as (?:(?:the|my|your|a|our|its|his|her|their)[ \t]+)?(?:[A-Za-z-]+[ \t]+)?(?:password|passphrase|passcode|pin|PIN)(?-u:\b)"#,
            r"|(?m:^)[ \t]*(?:[-*+][ \t]+)?(?:[^\r\n:]{1,40}:[ \t]*)?(?:[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}(?:[ \t]*[/|]|[ \t]+:)|[A-Za-z0-9._%+-]+ : )[ \t]*(?:",
            quoted_value!(),
            r#"|([^\s"'`]+))"#,
            r"|(?i:(?:setup|secret|2fa|totp|otp|mfa|authenticator|backup) key)(?:[ \t]+(?:is|was)|[ \t]*[:=])[ \t]*((?:[A-Za-z2-7]{4}[ \t]){3,}[A-Za-z2-7]{4}|[A-Z2-7]{16,})",
            r"|(?i:mot[ \t]+de[ \t]+passe|passwort|kennwort|contrase(?:ñ|n)a|clave|senha|wachtwoord|has(?:ł|l)o|пароль|パスワード|暗証番号|l(?:ö|o)senord|salasana|adgangskode|passord|parola|(?:ş|s)ifre|heslo|jelsz(?:ó|o)|密码|密碼|비밀번호|kata[ \t]+sandi|m(?:ậ|a)t[ \t]+kh(?:ẩ|a)u)",
            r"(?:[ \t]+[^\r\n:=：]{1,40}?)?(?:[ \t]*[:=：][ \t]*|[ \t]*(?:は|是|为|為|는|은)[ \t]*|[ \t]+(?:est|ist|lautet|war|es|era|fue|è|é|foi|jest|to|är|var|er|on|oli|je|adalah|là|is|was)[ \t]+)(?:",
            quoted_value!(),
            r#"|([^\s"'`]+))"#,
        )),
        accept: prose_value,
    },
    Spec {
        kind: "password",
        keywords: &["value:"],
        // A `name:` naming a secret and the `value:` under it (Azure Pipelines' variables,
        // a Kubernetes `env` entry): `- name: sqlAdminPwd` / `  value: '…'`.
        pattern: Pattern::Regex(concat!(
            r#"(?-u:\b)name:[ \t]*["']?[A-Za-z0-9_.-]*(?i:pass(?:word|wd)?|pwd|secret|token|api[_.-]?key|private[_.-]?key)[A-Za-z0-9_.-]*["']?[ \t]*\r?\n[ \t]*(?:-[ \t]+)?value:[ \t]*"#,
            value!(),
        )),
        accept: password_value,
    },
    Spec {
        kind: "password",
        keywords: &["pass", "pw", "secret"],
        // A config line of a key and its value after spaces (keepalived's `auth_pass …`,
        // msmtp's `password …`, `secret …`, a kickstart's `rootpw --plaintext …`, Apache's
        // `AuthLDAPBindPassword "…"`): options may stand between, and the value must not be
        // a word.
        pattern: Pattern::Regex(
            r#"(?m:^)[ \t]*(?:[a-z]+_?|[A-Z][A-Za-z]*)?(?:pass|password|passwd|pwd|pw|secret|Pass|Password|Passwd|Secret|PASS|PASSWORD|PASSWD|PWD|SECRET)(?:[ \t]+--?[a-z][a-z-]*)*[ \t]+(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s#;"'-][^\s#;]*))[ \t]*\r?(?m:$)"#,
        ),
        accept: typed_value,
    },
    Spec {
        kind: "password",
        keywords: &["-u"],
        // `-p` after `-u NAME` on one command line: a password whatever it reads as.
        pattern: Pattern::Regex(concat!(
            r"(?:(?m:^)|[ \t])-u[ \t]*[^\s-]\S*[ \t]+-p[ \t]*",
            flag_value!()
        )),
        accept: typed_value,
    },
    Spec {
        kind: "password",
        keywords: &["spaces"],
        // A password told in pieces "without the spaces".
        pattern: Pattern::Regex(
            r"(?i:password|passcode|passphrase|pin|code)[^\r\n]{0,30}?(?:[ \t]+is|:)[ \t]+((?:[^\s,]+[ \t]+){1,5}?[^\s,]+)[ \t,]+(?:but[ \t]+)?(?:without|minus|no)[ \t]+(?:the[ \t]+)?spaces",
        ),
        accept: spaced_password,
    },
    Spec {
        kind: "password",
        keywords: &["{enter}", "{tab}", "{return}"],
        // Keystrokes a script types (AutoHotkey's `Send, …{Enter}`, `xdotool type …`).
        pattern: Pattern::Regex(
            r"(?i:sendinput|sendraw|sendkeys|send|xdotool[ \t]+type|type)[, \t]+\{?([^\s{}]{6,})\{(?i:enter|tab|return)\}",
        ),
        accept: prose_value,
    },
    Spec {
        kind: "password",
        keywords: &["]="],
        // Each value of a shell array named for secrets (`declare -A DB_PASS=( [prod]="…" )`).
        pattern: Pattern::Regex(concat!(r"\[[A-Za-z0-9_.-]+\]=", quoted_value!())),
        accept: in_secret_array,
    },
    Spec {
        kind: "token",
        keywords: &["://"],
        // A key as a URL's path segment after the API's version (Infura's `/v3/…`,
        // Alchemy's `/v2/…`).
        pattern: Pattern::Regex(
            r"https?://[^\s/]+/v[0-9]+/([A-Za-z0-9_-]{32,64})(?:[/?#\s\x22'`)]|$)",
        ),
        accept: high_entropy,
    },
    Spec {
        kind: "secret",
        keywords: &[
            "log in",
            "login",
            "sign in",
            "signin",
            "password",
            "passcode",
            "passphrase",
            "unlock",
        ],
        // A value said before the word that names it: "use … to log in", "is … a strong enough
        // password", "try … as the passcode".
        pattern: Pattern::Regex(concat!(
            r"(?-u:\b)(?:[Uu]se|[Tt]ry|[Tt]ype|[Ee]nter|is|was|[Ii]s)[ \t]+(?:",
            quoted_value!(),
            r#"|([^\s"'`]+))[ \t]+(?:to[ \t]+(?:log|sign)[ \t]?in|to[ \t]+unlock|(?:as[ \t]+)?(?:a|an|my|the|your|our)[ \t]+(?:[A-Za-z-]+[ \t]+){0,3}?(?:password|passcode|passphrase))(?-u:\b)"#,
        )),
        accept: prose_value,
    },
    Spec {
        kind: "secret",
        keywords: &["code"],
        // Recovery or backup codes listed after their name.
        pattern: Pattern::Regex(
            r"(?i:(?:recovery|backup|2fa|mfa)[ \t]+codes?)[^\r\n:]{0,30}?(?:[ \t]*:|[ \t]+(?:are|is))[ \t]*((?:[A-Za-z0-9]{4,10}(?:-[A-Za-z0-9]{4,10})?[ \t,]+){1,15}[A-Za-z0-9]{4,10}(?:-[A-Za-z0-9]{4,10})?)",
        ),
        accept: recovery_codes,
    },
    Spec {
        kind: "token",
        keywords: &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
        // Any other run of 32 or more letters, digits and `_.=-` that reads as generated:
        // the next service's token format, whatever its prefix.
        pattern: Pattern::Regex(
            r"(?-u:\b)[A-Za-z0-9](?:[A-Za-z0-9_.]|--?[A-Za-z0-9_.]){31,}={0,3}",
        ),
        accept: generated_token,
    },
    Spec {
        kind: "secret",
        keywords: password_words!(
            "pass",
            "pwd",
            "login",
            "log in",
            "sign in",
            "signin",
            "cred",
            "wifi",
            "wi-fi",
            "pin",
            "mdp",
            "secret",
            "api key",
            "apikey",
            "typing",
            "typed",
            "safe word",
            "safeword",
            "code word",
            "codeword",
            "contrasenya",
            "laluan",
            "nenosiri",
            "pasword",
            "passowrd",
            "signing in",
            "logging in",
            "סיסמ",
            "رمز عبور",
            "รหัสผ่าน",
            "token",
            " key",
            "unseal",
            "rotate",
            "encrypt",
            "protect",
            "locked",
            "lykilor",
            "lozink",
            "gesl",
            "slaptažod",
            "slaptazod",
            "parol",
            "parool",
            "wagwoord",
            "cyfrinair",
            "pasfhocal",
            "fjalëkalim",
            "fjalekalim",
            "pasahitz",
            "ifrə",
            "iphasiwedi",
            "kalmar sirri",
            "арол",
            "АРОЛ",
            "озинк",
            "ОЗИНК",
            "құпия сөз",
            "ууц үг",
            "كلمة السر",
            "كلمة المرور",
            "كلمة سر",
            "الرقم السري",
            "پاس ورڈ",
            "پاسورڈ",
            "پاسورډ",
            "पासवर्ड",
            "পাসও",
            "கடவுச்சொல்",
            "పాస్",
            "ಪಾಸ್",
            "പാസ്",
            "પાસવર્ડ",
            "ਪਾਸਵਰਡ",
            "මුරපද",
            "პაროლ",
            "գաղտնաբառ",
            "የይለፍ ቃል",
            "ពាក្យសម្ងាត់",
            "ລະຫັດຜ່ານ",
            "စကားဝှက်",
        ),
        // A password told in a sentence of any shape or language: the first word that reads
        // as generated within the line's next 60 characters after a word naming a password,
        // a secret, an API key or a login, or saying it was typed (the pattern finds the word; the check reads on after it) ("мой пароль от почты …", "the netflix login changed, new one is …",
        // "log into 192.168.1.1 as admin with …", "temp credentials are jdoe and …").
        pattern: Pattern::Regex(
            r"(?:(?-u:\b)(?:mot[ \t]de[ \t]passe|Mot[ \t]de[ \t]passe|MOT[ \t]DE[ \t]PASSE|adgangskode(?:n|r|rne)?|Adgangskode(?:n|r|rne)?|ADGANGSKODE(?:N|R|RNE)?|credentials|Credentials|CREDENTIALS|contrasena|Contrasena|CONTRASENA|wachtwoord|Wachtwoord|WACHTWOORD|kata[ \t]sandi|Kata[ \t]sandi|KATA[ \t]SANDI|credential|Credential|CREDENTIAL|passwords|Passwords|PASSWORDS|password|Password|PASSWORD|passwort|Passwort|PASSWORT|passcode|Passcode|PASSCODE|kennwort|Kennwort|KENNWORT|salasana|Salasana|SALASANA|mat[ \t]khau|Mat[ \t]khau|MAT[ \t]KHAU|log[ \t]into|Log[ \t]into|LOG[ \t]INTO|login[ \t]to|Login[ \t]to|LOGIN[ \t]TO|passord(?:et|ene)?|Passord(?:et|ene)?|PASSORD(?:ET|ENE)?|contrasenya|Contrasenya|CONTRASENYA|kata[ \t]laluan|Kata[ \t]laluan|KATA[ \t]LALUAN|nenosiri|Nenosiri|NENOSIRI|pasword|Pasword|passowrd|Passowrd|signing[ \t]in(?:to)?|Signing[ \t]in(?:to)?|logging[ \t]in(?:to)?|Logging[ \t]in(?:to)?|sign[ \t]in|Sign[ \t]in|SIGN[ \t]IN|passwd|Passwd|PASSWD|parola|Parola|PAROLA|jelszo|Jelszo|JELSZO|logins|Logins|LOGINS|log[ \t]in|Log[ \t]in|LOG[ \t]IN|signin|Signin|SIGNIN|clave|Clave|CLAVE|senha|Senha|SENHA|haslo|Haslo|HASLO|hasla|Hasla|HASLA|sifre|Sifre|SIFRE|heslo|Heslo|HESLO|login|Login|LOGIN|creds|Creds|CREDS|wi-fi|Wi-fi|WI-FI|pass|Pass|PASS|wifi|Wifi|WIFI|pwd|Pwd|PWD|mdp|Mdp|MDP|pin|Pin|PIN|secret|Secret|SECRET|api[ \t]key|API[ \t]key|API[ \t]KEY|apikey|apiKey|APIKEY|typing|Typing|typed|Typed|[Ss]afe[ \t]?word|SAFE[ \t]?WORD|[Cc]ode[ \t]?word|CODE[ \t]?WORD|(?:[Aa]ccess|ACCESS|[Rr]efresh|REFRESH|[Aa]pi|API|[Aa]uth|AUTH|[Bb]earer|[Ss]ession|[Bb]ot|[Tt]unnel|[Jj]oin|[Nn]ode|[Dd]ev|[Pp]ersonal|[Ss]ecret|[Ss]ervice|[Dd]eploy|[Rr]egistration|[Ee]nrollment|[Mm]y|[Tt]he|[Nn]ew)[ \t](?:tokens?|Tokens?|TOKENS?)|(?:[Aa]ccess|[Aa]pi|API|[Aa]uth|[Dd]ev|[Ee]ncryption|[Ee]nrollment|[Jj]oin|[Ll]icen[cs]e|[Mm]aster|[Nn]ode|[Pp]rivate|[Pp]roduct|[Rr]ecovery|[Rr]egistration|[Ss]ecret|[Ss]ession|[Ss]igning|[Tt]unnel|[Uu]nseal)[ \t](?:[Kk]eys?|KEYS?)|[Uu]nseal|UNSEAL|[Rr]otated|[Rr]otating|[Rr]otate|(?i:encrypt|password|protect|locked)[^\r\n]{0,80}?(?:opens|unlocks|open[ \t]it|decrypts?(?:[ \t]it)?)[ \t]with)(?-u:\b)|(?:contraseña|Contraseña|hasło|Hasło|пароль|Пароль|пароля|Пароля|паролем|Паролем|lösenord|Lösenord|lösenordet|Lösenordet|şifre|Şifre|şifrem|Şifrem|şifreniz|Şifreniz|jelszó|Jelszó|jelszav|Jelszav|κωδικ|Κωδικ|ΚΩΔΙΚ|συνθηματικ|Συνθηματικ|mật[ \t]khẩu|Mật[ \t]khẩu|密码|密碼|비밀번호|パスワード|סיסמ|رمز[ \t]عبور|รหัสผ่าน|[Ll]ykilor|[Ll]ozink|LOZINK|[Gg]esl[oa]|[Ss]lapta(?:ž|z)od|[Pp]arol|PAROL|[Pp]arool|[Ww]agwoord|[Cc]yfrinair|[Pp]asfhocal|[Ff]jal(?:ë|e)kalim|[Pp]asahitz|(?:ş|Ş|s|S)ifrə|[Ii]phasiwedi|[Kk]almar[ \t]sirri|[Пп]арол|ПАРОЛ|[Лл]озинк|ЛОЗИНК|құпия[ \t]сөз|[Нн]ууц[ \t]үг|كلمة[ \t](?:السر|المرور|سر)|الرقم[ \t]السري|پاس[ \t]?ورڈ|پاسورډ|पासवर्ड|পাসও|கடவுச்சொல்|పాస్|ಪಾಸ್|പാസ്|પાસવર્ડ|ਪਾਸਵਰਡ|මුරපද|პაროლ|գաղտնաբառ|የይለፍ[ \t]ቃል|ពាក្យសម្ងាត់|ລະຫັດຜ່ານ|စကားဝှက်))",
        ),
        accept: generated_word_in,
    },
    Spec {
        kind: "password",
        keywords: &["pass", "wifi", "wi-fi", "wpa", "network key"],
        // The value right after the word that names it, with no `is` or `:` between (the word
        // not part of a path or a slug, `/reset-password "…"`): "change my password hunter2", "the shared root password Sunshine1", "the passphrase
        // purple-monkey-dishwasher", "the wifi key Blue-Otter-Lamp-88".
        pattern: Pattern::Regex(concat!(
            r"(?:(?m:^)|[^A-Za-z0-9_/.\-])(?:[Pp]ass(?:word|phrase|wd)|PASS(?:WORD|PHRASE|WD)|(?:[Ww]i-?[Ff]i|WIFI|WPA|[Nn]etwork)[ \t]+(?:[Kk]ey|KEY))[ \t]+(?:from[ \t]+)?(?:",
            quoted_value!(),
            r#"|([^\s"'`]+))"#
        )),
        accept: named_value,
    },
    Spec {
        kind: "password",
        keywords: &["admin", "root", "guest", "postgres", "ubuntu"],
        // A default account's name and its password after a slash: "I use admin / Sunshine1
        // for the router".
        pattern: Pattern::Regex(
            r#"(?-u:\b)(?:[Aa]dmin(?:istrator)?|ADMIN|[Rr]oot|ROOT|[Gg]uest|[Pp]ostgres|[Uu]buntu)[ \t]*/[ \t]*([^\s"'`/]+)"#,
        ),
        accept: named_value,
    },
    Spec {
        kind: "secret",
        keywords: &["question"],
        // The answer to a security question said before it: "I use Fluffy as the answer to
        // my security question".
        pattern: Pattern::Regex(
            r#"(?-u:\b)(?:[Uu]s(?:e|es|ed|ing)|[Gg]ave|[Gg]ive|[Pp]ut)[ \t]+([^\s"'`]+)[ \t]+as[ \t]+(?:the|my|an?)[ \t]+(?:answer|reply)[ \t]+to[ \t]+(?:the|my|your|our|his|her|their|a|every)[ \t]+(?:[A-Za-z-]+[ \t]+)?(?:security|secret)[ \t]+questions?"#,
        ),
        accept: answer_value,
    },
    Spec {
        kind: "pin",
        keywords: &["pin", "puk", "passcode", " code"],
        // A PIN, a passcode or the code of an alarm, a door, a gate, a safe or a lock, its
        // digits right after its name: "I prefer the PIN 4921", "the door code 58213".
        pattern: Pattern::Regex(
            r#"(?-u:\b)(?:PIN|[Pp]in|PUK2?|[Pp]asscode|PASSCODE|(?:[Aa]larm|[Dd]oor|[Gg]ate|[Gg]arage|[Ss]afe|[Ll]ock|[Kk]eypad|[Ee]ntry)[ \t]+code)(?:[ -]?(?:[Cc]ode|[Nn]umber))?[ \t]+["'`]?([0-9]{4,8})(?-u:\b)"#,
        ),
        accept: pin_digits,
    },
    Spec {
        kind: "token",
        keywords: &["key", "token", "secret", "pass", "pwd"],
        // A quoted value that reads as generated after a name for a key, a token, a secret
        // or a password, with no `=` or `:` between or more than one: C's `#define
        // WEATHER_API_KEY "…"`, a table's `["X-Api-Key"] = "…"`, Gradle's
        // `buildConfigField("String", "WEATHER_KEY", "\"…\"")`, Bicep's `param
        // sqlAdminPassword string = '…'`, Apache's `SetEnv NAME "…"`.
        pattern: Pattern::Regex(concat!(
            r#"(?-u:\b)(?:[A-Za-z0-9_.-]+(?:[Kk]ey|KEY)|[A-Za-z0-9_.-]*(?:[Tt]oken|TOKEN|[Ss]ecret|SECRET|[Pp]ass(?:word|wd)?|PASS(?:WORD|WD)?|[Pp]wd|PWD))(?-u:\b)(?:\\?["'`])?\]?(?:[ \t]+(?:string|String|secureString|str))?(?:[ \t]*[,=:][ \t]*|[ \t]+)(?:"\\"([^"\\\r\n]+)\\""|"#,
            quoted_value!(),
            ")"
        )),
        accept: generated_quoted,
    },
    Spec {
        kind: "password",
        keywords: &["!", "#", "$", "%", "^", "&", "*", "+", "=", "?", "@", "~"],
        // Last, the fallback (`FALLBACK`): a word that reads as a generated password
        // wherever it stands, named or not: upper and lower case, digits and a symbol, in no
        // pattern (`N6@1x4rNtl@BLb`). The check keeps code, addresses, paths and URLs, and a
        // find of any other rule overlapping it wins (`bob%…` keeps `bob%`).
        pattern: Pattern::Regex(
            r#"(?:(?m:^)|[\s"'`(,\[{<>])([A-Za-z0-9_.-]*[A-Za-z0-9][!#$%^&*+=?@~][A-Za-z0-9!#$%^&*+=?@~_.-]*)"#,
        ),
        accept: generated_password,
    },
];

/// The index of the fallback rule, the last: its finds count only where no other rule's do.
pub(super) const FALLBACK: usize = SPECS.len() - 1;

/// The compiled `SPECS`, index for index; `None` is the private-key block finder.
pub(super) static RULES: LazyLock<Vec<Option<Regex>>> =
    LazyLock::new(|| SPECS.iter().map(|spec| spec.regex().map(compile)).collect());
