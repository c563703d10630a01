//! The secret rules: what [`super`] looks for.
//!
//! Provenance: the token formats below are gitleaks' published rules (config/gitleaks.toml of
//! github.com/gitleaks/gitleaks, commit b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b, MIT License,
//! Copyright (c) 2019 Zachary Rice; see NOTICE), each with its gitleaks `id`, regex, keywords
//! and minimum entropy. Adapted for Rust's `regex` crate: the patterns are compiled as byte
//! patterns without Unicode (`\w`, `\d`, `\s`, `\b` and `(?i)` are ASCII, as in Go's RE2, which
//! also has no look-around, so every pattern compiles unchanged). Changed: the end of a token
//! (`end!`, for prose), and where a rule was changed or merged it says so. gitleaks' per-rule
//! allowlists are left out on purpose: AWS's documented
//! example key (`AKIA…EXAMPLE`) is refused too, since a memory has no need for one.
//!
//! The last rules are capn's own (`capn-` ids): an AWS secret access key on its own, a URL with
//! a password in it, and a high-entropy value assigned to a secret-like name (gitleaks'
//! `generic-api-key` needs a long stopword list to stay quiet on prose; this one asks more of
//! the value instead, see [`Check::Assigned`]).

/// What a match must also satisfy, beyond its regex and minimum entropy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// Nothing more.
    None,
    /// The secret has an upper-case letter, a lower-case letter and a digit (a random base64 or
    /// base62 value, not a word or a hex hash).
    Mixed,
    /// The password of a URL: not a placeholder (`password`, `${DB_PASS}`, `<pass>`, `***`, the
    /// user name again).
    UrlPassword,
    /// A value assigned to a secret-like name: at least 12 characters with a letter and a digit
    /// and not an identifier (a name in `UPPER_SNAKE` or `lower_snake` case, a dotted path), so
    /// `token: process.env.API_TOKEN` and `api_key = settings.stripe_key` pass.
    Assigned,
}

/// One rule: a kind of secret and how to find it.
#[derive(Debug)]
pub(crate) struct Rule {
    /// gitleaks' rule id, or `capn-…` for capn's own.
    pub id: &'static str,
    /// What a refusal calls it ("an AWS access key ID").
    pub kind: &'static str,
    /// Lower-case words of which the text must hold one for the regex to run (gitleaks'
    /// keywords); empty: it always runs.
    pub keywords: &'static [&'static str],
    /// The pattern (RE2 syntax, ASCII classes); the secret is its last group, or the whole
    /// match when it has none.
    pub regex: &'static str,
    /// The least Shannon entropy of the secret, in bits per byte (0: no minimum).
    pub entropy: f32,
    /// The extra condition.
    pub check: Check,
    /// The regex runs on the text lower-cased (ASCII, so every byte keeps its place) and is
    /// written in lower case: the same as `(?i)`, which costs a millisecond more to compile.
    pub lowercase: bool,
}

/// The end of a token. gitleaks' patterns end on a quote, a space, `;`, an escaped line end or
/// the end of the text, for code; in a question or details a token is as often followed by `?`,
/// `.`, `,` or `)`, so here any character but a letter, a digit or `_` ends it.
macro_rules! end {
    () => {
        r#"(?:[^0-9A-Za-z_]|$)"#
    };
}

const fn rule(
    id: &'static str,
    kind: &'static str,
    keywords: &'static [&'static str],
    regex: &'static str,
    entropy: f32,
) -> Rule {
    Rule {
        id,
        kind,
        keywords,
        regex,
        entropy,
        check: Check::None,
        lowercase: false,
    }
}

/// Every rule, gitleaks' first, then capn's own.
pub(crate) static RULES: &[Rule] = &[
    Rule {
        check: Check::None,
        ..rule(
            "aws-access-token",
            "an AWS access key ID",
            &["a3t", "akia", "asia", "abia", "acca"],
            r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b",
            3.0,
        )
    },
    rule(
        "aws-amazon-bedrock-api-key-long-lived",
        "an Amazon Bedrock API key",
        &["absk"],
        concat!(r"\b(ABSK[A-Za-z0-9+/]{109,269}={0,2})", end!()),
        3.0,
    ),
    rule(
        "github-pat",
        "a GitHub personal access token",
        &["ghp_"],
        r"ghp_[0-9a-zA-Z]{36}",
        3.0,
    ),
    rule(
        "github-fine-grained-pat",
        "a GitHub fine-grained access token",
        &["github_pat_"],
        r"github_pat_\w{82}",
        3.0,
    ),
    rule(
        "github-oauth",
        "a GitHub OAuth token",
        &["gho_"],
        r"gho_[0-9a-zA-Z]{36}",
        3.0,
    ),
    rule(
        "github-app-token",
        "a GitHub app token",
        &["ghu_", "ghs_"],
        r"(?:ghu|ghs)_[0-9a-zA-Z]{36}",
        3.0,
    ),
    rule(
        "github-refresh-token",
        "a GitHub refresh token",
        &["ghr_"],
        r"ghr_[0-9a-zA-Z]{36}",
        3.0,
    ),
    rule(
        "gitlab-pat",
        "a GitLab personal access token",
        &["glpat-"],
        r"glpat-[\w-]{20}",
        3.0,
    ),
    rule(
        "gitlab-ptt",
        "a GitLab pipeline trigger token",
        &["glptt-"],
        r"glptt-[0-9a-f]{40}",
        3.0,
    ),
    rule(
        "gitlab-rrt",
        "a GitLab runner registration token",
        &["gr1348941"],
        r"GR1348941[\w-]{20}",
        3.0,
    ),
    rule(
        "gitlab-runner-authentication-token",
        "a GitLab runner token",
        &["glrt-"],
        r"glrt-[0-9a-zA-Z_\-]{20}",
        3.0,
    ),
    rule(
        "gitlab-deploy-token",
        "a GitLab deploy token",
        &["gldt-"],
        r"gldt-[0-9a-zA-Z_\-]{20}",
        3.0,
    ),
    rule(
        "gitlab-cicd-job-token",
        "a GitLab CI/CD job token",
        &["glcbt-"],
        r"glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_-]{20}",
        3.0,
    ),
    rule(
        "gitlab-feed-token",
        "a GitLab feed token",
        &["glft-"],
        r"glft-[0-9a-zA-Z_\-]{20}",
        3.0,
    ),
    rule(
        "gitlab-oauth-app-secret",
        "a GitLab OAuth application secret",
        &["gloas-"],
        r"gloas-[0-9a-zA-Z_\-]{64}",
        3.0,
    ),
    rule(
        "slack-bot-token",
        "a Slack bot token",
        &["xoxb"],
        r"xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*",
        3.0,
    ),
    rule(
        "slack-legacy-bot-token",
        "a Slack bot token",
        &["xoxb"],
        r"xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}",
        2.0,
    ),
    rule(
        "slack-user-token",
        "a Slack user token",
        &["xoxp-", "xoxe-"],
        r"xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}",
        2.0,
    ),
    rule(
        "slack-app-token",
        "a Slack app token",
        &["xapp"],
        r"(?i)xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+",
        2.0,
    ),
    rule(
        "slack-legacy-token",
        "a Slack legacy token",
        &["xoxo", "xoxs"],
        r"xox[os]-\d+-\d+-\d+-[a-fA-F\d]+",
        2.0,
    ),
    rule(
        "slack-legacy-workspace-token",
        "a Slack workspace token",
        &["xoxa", "xoxr"],
        r"xox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}",
        2.0,
    ),
    rule(
        "slack-config-refresh-token",
        "a Slack configuration token",
        &["xoxe-"],
        r"(?i)xoxe-\d-[A-Z0-9]{146}",
        2.0,
    ),
    rule(
        "slack-webhook-url",
        "a Slack webhook URL",
        &["hooks.slack.com"],
        r"(?:https?://)?hooks.slack.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}",
        0.0,
    ),
    rule(
        "stripe-access-token",
        "a Stripe secret key",
        &[
            "sk_test", "sk_live", "sk_prod", "rk_test", "rk_live", "rk_prod",
        ],
        concat!(
            r"\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})",
            end!()
        ),
        2.0,
    ),
    rule(
        "openai-api-key",
        "an OpenAI API key",
        &["t3blbkfj"],
        concat!(
            r"\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})",
            end!()
        ),
        3.0,
    ),
    rule(
        "anthropic-api-key",
        "an Anthropic API key",
        &["sk-ant-api03"],
        concat!(r"\b(sk-ant-api03-[a-zA-Z0-9_\-]{93}AA)", end!()),
        0.0,
    ),
    rule(
        "anthropic-admin-api-key",
        "an Anthropic admin API key",
        &["sk-ant-admin01"],
        concat!(r"\b(sk-ant-admin01-[a-zA-Z0-9_\-]{93}AA)", end!()),
        0.0,
    ),
    rule(
        "gcp-api-key",
        "a Google API key",
        &["aiza"],
        concat!(r"\b(AIza[\w-]{35})", end!()),
        4.0,
    ),
    rule(
        "jwt",
        "a JSON Web Token",
        &["ey"],
        concat!(
            r"\b(ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9/\\_-]{17,}\.(?:[a-zA-Z0-9/\\_-]{10,}={0,2})?)",
            end!()
        ),
        3.0,
    ),
    rule(
        "private-key",
        "a private key block",
        &["-----begin"],
        r"(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,}?KEY(?: BLOCK)?-----",
        0.0,
    ),
    rule(
        "npm-access-token",
        "an npm access token",
        &["npm_"],
        concat!(r"(?i)\b(npm_[a-z0-9]{36})", end!()),
        2.0,
    ),
    rule(
        "pypi-upload-token",
        "a PyPI upload token",
        &["pypi-ageichlwas5vcmc"],
        r"pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}",
        3.0,
    ),
    rule(
        "huggingface-access-token",
        "a Hugging Face access token",
        &["hf_"],
        concat!(r"\b(hf_(?i:[a-z]{34}))", end!()),
        2.0,
    ),
    rule(
        "sendgrid-api-token",
        "a SendGrid API key",
        &["sg."],
        concat!(r"\b(SG\.(?i)[a-z0-9=_\-\.]{66})", end!()),
        2.0,
    ),
    rule(
        "twilio-api-key",
        "a Twilio API key",
        &["sk"],
        r"SK[0-9a-fA-F]{32}",
        3.0,
    ),
    rule(
        "digitalocean-pat",
        "a DigitalOcean access token",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        // Three gitleaks rules in one (digitalocean-pat, -access-token, -refresh-token).
        concat!(r"(?i)\b(do[opr]_v1_[a-f0-9]{64})", end!()),
        3.0,
    ),
    rule(
        "shopify-access-token",
        "a Shopify access token",
        &["shpat_", "shpca_", "shppa_", "shpss_"],
        // Four gitleaks rules in one (shopify-access-token, -custom-, -private-app-, -shared-secret).
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        2.0,
    ),
    rule(
        "databricks-api-token",
        "a Databricks API token",
        &["dapi"],
        concat!(r"\b(dapi[a-f0-9]{32}(?:-\d)?)", end!()),
        3.0,
    ),
    rule(
        "doppler-api-token",
        "a Doppler API token",
        &["dp.pt."],
        r"dp\.pt\.(?i)[a-z0-9]{43}",
        2.0,
    ),
    rule(
        "pulumi-api-token",
        "a Pulumi access token",
        &["pul-"],
        concat!(r"\b(pul-[a-f0-9]{40})", end!()),
        2.0,
    ),
    rule(
        "vault-service-token",
        "a HashiCorp Vault token",
        &["hvs.", "hvb."],
        // gitleaks' vault-service-token without its old `s.` form (too short a prefix to tell
        // from prose), joined with vault-batch-token.
        concat!(r"\b((?:hvs\.[\w-]{90,120}|hvb\.[\w-]{138,300}))", end!()),
        3.5,
    ),
    rule(
        "age-secret-key",
        "an age secret key",
        &["age-secret-key-1"],
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        0.0,
    ),
    rule(
        "linear-api-key",
        "a Linear API key",
        &["lin_api_"],
        r"lin_api_(?i)[a-z0-9]{40}",
        2.0,
    ),
    rule(
        "notion-api-token",
        "a Notion API token",
        &["ntn_"],
        concat!(r"\b(ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3})", end!()),
        4.0,
    ),
    rule(
        "postman-api-token",
        "a Postman API key",
        &["pmak-"],
        concat!(r"\b(PMAK-(?i)[a-f0-9]{24}\-[a-f0-9]{34})", end!()),
        3.0,
    ),
    rule(
        "grafana-service-account-token",
        "a Grafana service account token",
        &["glsa_"],
        concat!(r"(?i)\b(glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})", end!()),
        3.0,
    ),
    rule(
        "1password-service-account-token",
        "a 1Password service account token",
        &["ops_"],
        r"ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}",
        4.0,
    ),
    rule(
        "planetscale-password",
        "a PlanetScale password",
        &["pscale_pw_"],
        concat!(r"(?i)\b(pscale_pw_[\w=\.-]{32,64})", end!()),
        3.0,
    ),
    rule(
        "heroku-api-key-v2",
        "a Heroku API key",
        &["hrku-aa"],
        concat!(r"\b(HRKU-AA[0-9a-zA-Z_-]{58})", end!()),
        4.0,
    ),
    rule(
        "azure-ad-client-secret",
        "an Azure AD client secret",
        &["q~"],
        r#"(?:^|[\\'"\x60\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\'"\x60\s<),])"#,
        3.0,
    ),
    // capn's own rules.
    Rule {
        check: Check::Mixed,
        ..rule(
            "capn-aws-secret-access-key",
            "an AWS secret access key",
            &[],
            // 40 base64 characters standing alone (AWS's secret key format); a hex git hash,
            // a path or an identifier of that length is not mixed enough ([`Check::Mixed`]).
            r"(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=])",
            4.0,
        )
    },
    Rule {
        check: Check::UrlPassword,
        lowercase: true,
        ..rule(
            "capn-url-password",
            "a URL with a password in it",
            &["://"],
            r"\b[a-z][a-z0-9+.-]*://([^\s:/?#@'\x22\x60<>]*):([^\s/?#@'\x22\x60<>]+)@[a-z0-9\[]",
            0.0,
        )
    },
    Rule {
        check: Check::Assigned,
        lowercase: true,
        ..rule(
            "capn-assigned-secret",
            "a high-entropy value assigned to a secret's name",
            &[
                "pass",
                "pwd",
                "secret",
                "token",
                "key",
                "credential",
                "auth",
            ],
            // A name holding a secret's word, `=`, `:`, `:=` or `=>` (quotes and spaces around
            // it), then the value (at least 12 bytes: [`Check::Assigned`]).
            r#"(?:pass|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key|private[_.-]?key|client[_.-]?key|credential|auth)[\w.-]*['"\x60]?\s*(?::=|=>|=|:)\s*['"\x60]?([\w+/=~.@!#$%^&*-]+)"#,
            3.5,
        )
    },
];
