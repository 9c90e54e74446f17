//! The token formats of services that `rules` names one kind, `service-token`: every rule
//! of gitleaks' list whose pattern starts with a fixed prefix or has a fixed shape (no
//! keyword has to stand before it) and that no other rule covers, one alternative each.
//!
//! It is data: the pattern and the keywords one of which each match contains; `rules`
//! puts them in a `Spec`. Rules of gitleaks' list that need a service's name before the
//! value (`discord … = <64 hex>`) are not here: the assignment rules take those values by
//! their key (`DISCORD_TOKEN=`, `client_secret:`).
//!
//! From gitleaks (<https://github.com/gitleaks/gitleaks>, commit
//! b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b, `config/gitleaks.toml`), MIT licence,
//! Copyright (c) 2019 Zachary Rice; the licence text is in `LICENSES/gitleaks-MIT.txt`.
//! As elsewhere in `rules`, an exact length becomes a least length (a transcript may hold a
//! newer, longer format) and `(?i)` tails are spelled out. Left out: `facebook-access-token`
//! (digits, `|` and a tail, only after the word facebook), `jwt-base64` (a JWT encoded once
//! more), `vault-service-token`'s legacy `s.` form, `sourcegraph-access-token`'s bare 40 hex
//! digits and `kubernetes-secret-yaml` (a whole YAML document).

/// One alternative a line, in the order of gitleaks' rule ids.
pub(super) const PATTERN: &str = concat!(
    r"(?-u:\b)(?:",
    // 1password-secret-key, 1password-service-account-token
    r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
    r"|ops_eyJ[A-Za-z0-9+/]{250,}={0,3}",
    // adobe-client-secret
    r"|p8e-[A-Za-z0-9]{32,}",
    // age-secret-key (any upper-case letters and digits, where gitleaks takes bech32)
    r"|AGE-SECRET-KEY-1[A-Z0-9]{58,}",
    // airtable-personnal-access-token (without its keyword: the shape is enough)
    r"|pat[A-Za-z0-9]{14}\.[a-f0-9]{64}",
    // alibaba-access-key-id
    r"|LTAI[A-Za-z0-9]{20,}",
    // artifactory-api-key, artifactory-reference-token
    r"|AKCp[A-Za-z0-9]{69,}|cmVmd[A-Za-z0-9]{59,}",
    // authress-service-client-access-key
    r"|(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}",
    // aws-amazon-bedrock-api-key-long-lived, -short-lived
    r"|ABSK[A-Za-z0-9+/]{109,269}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%_-]*",
    // clickhouse-cloud-api-secret-key, clojars-api-token, cloudflare-origin-ca-key
    r"|4b1d[A-Za-z0-9]{38,}|CLOJARS_[A-Za-z0-9]{60,}|v1\.0-[a-f0-9]{24}-[a-f0-9]{146,}",
    // doppler-api-token, duffel-api-token, dynatrace-api-token
    r"|dp\.pt\.[A-Za-z0-9]{43,}|duffel_(?:test|live)_[A-Za-z0-9_=-]{43,}",
    r"|dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64,}",
    // easypost-api-token, easypost-test-api-token, facebook-page-access-token
    r"|EZ[AT]K[A-Za-z0-9]{54,}|EAA[MC][A-Za-z0-9]{100,}",
    // flutterwave-encryption-key, -public-key, -secret-key
    r"|FLW(?:SECK|PUBK)_TEST-[A-Za-z0-9]{12,}(?:-X)?",
    // flyio-access-token, frameio-api-token, gitlab-session-cookie
    r"|fo1_[A-Za-z0-9_-]{43,}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3}",
    r"|fio-u-[A-Za-z0-9_=-]{64,}|_gitlab_session=[0-9a-z]{32,}",
    // harness-api-key, hashicorp-tf-api-token, infracost-api-token, intra42-client-secret
    r"|(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20,}",
    r"|[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}|ico-[A-Za-z0-9]{32,}",
    r"|s-s4t2(?:ud|af)-[a-fA-F0-9]{64,}",
    // maxmind-license-key, microsoft-teams-webhook
    r"|[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk",
    r"|https://[a-z0-9]+\.webhook\.office\.com/webhookb2/[a-z0-9-]{36}@[a-z0-9-]{36}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9-]{36}",
    // notion-api-token, octopus-deploy-api-key, openshift-user-token, perplexity-api-key
    r"|ntn_[0-9]{11}[A-Za-z0-9]{35,}|API-[A-Z0-9]{26,}|sha256~[A-Za-z0-9_-]{43,}",
    r"|pplx-[A-Za-z0-9]{48,}",
    // planetscale-api-token, -oauth-token, -password; prefect-api-token; pulumi-api-token
    r"|pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,}|pnu_[A-Za-z0-9]{36,}|pul-[a-f0-9]{40,}",
    // readme-api-token, rubygems-api-token, scalingo-api-token, sendinblue-api-token
    r"|rdme_[a-z0-9]{70,}|rubygems_[a-f0-9]{48,}|tk-us-[A-Za-z0-9_-]{48,}",
    r"|xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16,}",
    // settlemint-*-access-token, shippo-api-token, sourcegraph-access-token
    r"|sm_(?:aat|pat|sat)_[A-Za-z0-9]{16,}|shippo_(?:live|test)_[a-fA-F0-9]{40,}",
    r"|sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40,}",
    // square-access-token
    r"|(?:EAAA|sq0atp-)[A-Za-z0-9_-]{22,60}",
    r")",
);

/// gitleaks' `azure-ad-client-secret`: three characters, a digit, `Q~` and the rest, not
/// inside a longer word. Apart from `PATTERN` because its start is any separator, which
/// would make every text it runs on slow; `q~` wakes it alone.
pub(super) const AZURE_CLIENT_SECRET: &str = r"(?:(?m:^)|[\\'`\x22\s>=:(,)])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?:(?m:$)|[\\'`\x22\s<),])";

/// Lower-case keywords, one of which every match of `PATTERN` contains.
pub(super) const KEYWORDS: &[&str] = &[
    "a3-",
    "ops_",
    "p8e-",
    "age-secret-key-1",
    "pat",
    "ltai",
    "akcp",
    "cmvmd",
    "sc_",
    "ext_",
    "scauth_",
    "authress_",
    "absk",
    "bedrock-api-key-",
    "4b1d",
    "clojars_",
    "v1.0-",
    "dp.pt.",
    "duffel_",
    "dt0c01.",
    "ezak",
    "eztk",
    "eaam",
    "eaac",
    "flwseck_test",
    "flwpubk_test",
    "fo1_",
    "fm1",
    "fm2_",
    "fio-u-",
    "_gitlab_session=",
    "sat.",
    "atlasv1",
    "ico-",
    "s-s4t2",
    "_mmk",
    "webhook.office.com",
    "ntn_",
    "api-",
    "sha256~",
    "pplx-",
    "pscale_",
    "pnu_",
    "pul-",
    "rdme_",
    "rubygems_",
    "tk-us-",
    "xkeysib-",
    "sm_",
    "shippo_",
    "sgp_",
    "eaaa",
    "sq0atp-",
];
