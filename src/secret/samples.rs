//! Made-up secrets of every rule's format, and a near miss for each: shared by the unit tests
//! and the integration tests (`tests/cli/secrets.rs` includes this file), so every write path is
//! tested with every format. The secrets are made at run time ([`fake`]): no token-shaped literal
//! sits in the sources. Standard library only.

/// `n` characters of `alphabet`, pseudo-random from `seed` (the same every run).
pub(crate) fn fake(alphabet: &str, n: usize, seed: u64) -> String {
    let a: Vec<char> = alphabet.chars().collect();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            a[(x % a.len() as u64) as usize]
        })
        .collect()
}

pub(crate) const B62: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub(crate) const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub(crate) const HEX: &str = "0123456789abcdef";
pub(crate) const UPPER32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
pub(crate) const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
pub(crate) const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/// For each rule id: a text holding a secret it must find, and a near miss (the same shape cut
/// short, a wrong prefix or alphabet, a reference to a secret) no rule may find.
pub(crate) fn samples() -> Vec<(&'static str, String, String)> {
    let b62 = |n, s| fake(B62, n, s);
    let hex = |n, s| fake(HEX, n, s);
    let jwt_head = format!("ey{}", b62(30, 40));
    let jwt_body = format!("ey{}", b62(60, 41));
    vec![
        ("aws-access-token", format!("key AKIA{} here", fake(UPPER32, 16, 1)), format!("AKIA{}", fake(UPPER32, 12, 1))),
        ("aws-access-token", "AKIAIOSFODNN7EXAMPLE".into(), "the AKIA prefix of an access key".into()),
        ("aws-amazon-bedrock-api-key-long-lived", format!("ABSK{} ", fake(B64, 120, 2)), format!("ABSK{} ", b62(40, 2))),
        ("github-pat", format!("token ghp_{}", b62(36, 3)), format!("ghp_{}", b62(20, 3))),
        ("github-fine-grained-pat", format!("github_pat_{}", fake(URLSAFE.trim_end_matches('-'), 82, 4)), "github_pat_ is the prefix".into()),
        ("github-oauth", format!("gho_{}", b62(36, 5)), "gho_ tokens come from OAuth apps".into()),
        ("github-app-token", format!("ghs_{}", b62(36, 6)), format!("ghs_{}", b62(12, 6))),
        ("github-refresh-token", format!("ghr_{}", b62(36, 7)), "ghr_short".into()),
        ("gitlab-pat", format!("glpat-{}", fake(URLSAFE, 20, 8)), "glpat-short".into()),
        ("gitlab-ptt", format!("glptt-{}", hex(40, 9)), format!("glptt-{}", hex(20, 9))),
        ("gitlab-rrt", format!("GR1348941{}", fake(URLSAFE, 20, 10)), "GR1348941 is a prefix".into()),
        ("gitlab-runner-authentication-token", format!("glrt-{}", b62(20, 11)), "glrt-abc".into()),
        ("gitlab-deploy-token", format!("gldt-{}", b62(20, 12)), "gldt-abc".into()),
        ("gitlab-cicd-job-token", format!("glcbt-64_{}", b62(20, 13)), "glcbt-64_abc".into()),
        ("gitlab-feed-token", format!("glft-{}", b62(20, 14)), "glft-abc".into()),
        ("gitlab-oauth-app-secret", format!("gloas-{}", b62(64, 15)), format!("gloas-{}", b62(30, 15))),
        ("slack-bot-token", format!("xoxb-{}-{}-{}", fake("0123456789", 12, 16), fake("0123456789", 13, 17), b62(24, 18)), "xoxb-123-456".into()),
        ("slack-legacy-bot-token", format!("xoxb-{}-{}", fake("0123456789", 9, 80), b62(24, 81)), "xoxb-legacy".into()),
        ("slack-user-token", format!("xoxp-{}-{}-{}-{}", fake("0123456789", 12, 19), fake("0123456789", 12, 20), fake("0123456789", 12, 21), b62(32, 22)), "xoxp-1-2-3".into()),
        ("slack-app-token", format!("xapp-1-A{}-{}-{}", fake(UPPER32, 10, 23), fake("0123456789", 13, 24), hex(64, 25)), "xapp-1-".into()),
        ("slack-legacy-token", format!("xoxs-{}-{}-{}-{}", fake("0123456789", 10, 26), fake("0123456789", 10, 27), fake("0123456789", 12, 28), hex(64, 29)), "xoxs-1".into()),
        ("slack-legacy-workspace-token", format!("xoxa-2-{}", b62(40, 30)), "xoxa-2-abc".into()),
        ("slack-config-refresh-token", format!("xoxe-1-{}", fake("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 146, 31)), "xoxe-1-ABC".into()),
        ("slack-webhook-url", format!("https://hooks.slack.com/services/T{}/B{}/{}", fake(UPPER32, 8, 32), fake(UPPER32, 10, 33), b62(24, 34)), "https://hooks.slack.com/services/".into()),
        ("stripe-access-token", format!("sk_live_{} ", b62(24, 35)), "STRIPE_SECRET_KEY starts with sk_live_ in production".into()),
        ("stripe-access-token", format!("\"rk_test_{}\"", b62(24, 36)), "rk_test_abc".into()),
        ("openai-api-key", format!("sk-proj-{}T3BlbkFJ{} ", fake(URLSAFE, 74, 37), fake(URLSAFE, 74, 38)), "sk-proj- keys hold T3BlbkFJ".into()),
        ("openai-api-key", format!("sk-{}T3BlbkFJ{}", b62(20, 39), b62(20, 40)), "sk-abcT3BlbkFJ".into()),
        ("anthropic-api-key", format!("sk-ant-api03-{}AA ", fake(URLSAFE, 93, 41)), "sk-ant-api03-".into()),
        ("anthropic-admin-api-key", format!("sk-ant-admin01-{}AA", fake(URLSAFE, 93, 42)), "sk-ant-admin01-".into()),
        ("gcp-api-key", format!("AIza{} ", fake(URLSAFE, 35, 43)), format!("AIza{}", fake(URLSAFE, 20, 43))),
        ("jwt", format!("Bearer {jwt_head}.{jwt_body}.{}", fake(URLSAFE, 43, 44)), "eyJhbGciOiJIUzI1NiJ9 alone is a header".into()),
        ("private-key", format!("-----BEGIN RSA PRIVATE KEY-----\n{}\n{}\n-----END RSA PRIVATE KEY-----", fake(B64, 64, 45), fake(B64, 64, 46)), "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----".into()),
        ("private-key", format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----", fake(B64, 70, 47)), "a -----BEGIN PRIVATE KEY----- header".into()),
        ("npm-access-token", format!("npm_{} ", fake("abcdefghijklmnopqrstuvwxyz0123456789", 36, 48)), "npm_config_registry".into()),
        ("pypi-upload-token", format!("pypi-AgEIcHlwaS5vcmc{}", fake(URLSAFE, 60, 49)), "pypi-AgEIcHlwaS5vcmc".into()),
        ("huggingface-access-token", format!("hf_{} ", fake(LOWER, 34, 50)), "hf_hub_download".into()),
        ("sendgrid-api-token", format!("SG.{}.{} ", fake(URLSAFE, 22, 51), fake(URLSAFE, 43, 52)), "SG.abc".into()),
        ("twilio-api-key", format!("SK{}", hex(32, 53)), "SKIP_ENV_VALIDATION".into()),
        ("digitalocean-pat", format!("dop_v1_{} ", hex(64, 54)), "dop_v1_abc".into()),
        ("shopify-access-token", format!("shpat_{}", hex(32, 55)), "shpat_abc".into()),
        ("databricks-api-token", format!("dapi{} ", hex(32, 56)), "dapi is the prefix".into()),
        ("doppler-api-token", format!("dp.pt.{}", b62(43, 57)), "dp.pt.abc".into()),
        ("pulumi-api-token", format!("pul-{} ", hex(40, 58)), "pul-abc".into()),
        ("vault-service-token", format!("hvs.{} ", fake(URLSAFE, 95, 59)), "hvs.abc and s.settings".into()),
        ("age-secret-key", format!("AGE-SECRET-KEY-1{}", fake("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, 60)), "AGE-SECRET-KEY-1".into()),
        ("linear-api-key", format!("lin_api_{}", b62(40, 61)), "lin_api_abc".into()),
        ("notion-api-token", format!("ntn_{}{} ", fake("0123456789", 11, 62), b62(35, 63)), "ntn_abc".into()),
        ("postman-api-token", format!("PMAK-{}-{} ", hex(24, 64), hex(34, 65)), "PMAK-abc".into()),
        ("grafana-service-account-token", format!("glsa_{}_{} ", b62(32, 66), hex(8, 67)), "glsa_abc".into()),
        ("1password-service-account-token", format!("ops_eyJ{}", fake(B64, 260, 68)), "ops_eyJ".into()),
        ("planetscale-password", format!("pscale_pw_{} ", b62(43, 69)), "pscale_pw_".into()),
        ("heroku-api-key-v2", format!("HRKU-AA{} ", fake(URLSAFE, 58, 70)), "HRKU-AA".into()),
        ("azure-ad-client-secret", format!("secret {}8Q~{} ", b62(3, 71), b62(34, 72)), "Q~ alone".into()),
        ("capn-aws-secret-access-key", "key AKIA / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(), "apps/web/src/components/forms/SignupForm and useOrganizationInvitationsForMember2Step".into()),
        ("capn-aws-secret-access-key", format!("aws_secret {}", fake(B64, 40, 73)), format!("commit {}", hex(40, 73))),
        ("capn-url-password", format!("DATABASE_URL=postgres://app:{}@db.internal:5432/app", b62(20, 74)), "postgres://postgres:postgres@localhost:5432/app and redis://:${REDIS_PASSWORD}@cache:6379".into()),
        ("capn-url-password", format!("REDIS_URL=redis://:{}@cache:6379", b62(20, 82)), "redis://cache:6379 and ssh://git@github.com:22/org/repo".into()),
        ("capn-url-password", format!("https://deploy:{}@git.example.com/repo.git", b62(16, 75)), "https://user:password@example.com and https://example.com:8080/a@b".into()),
        ("capn-assigned-secret", format!("password = \"{}\"", fake(B62, 18, 76) + "7x"), "password = process.env.DB_PASSWORD; password: z.string().min(8)".into()),
        ("capn-assigned-secret", format!("API_KEY={}", b62(32, 77)), "API_KEY=YOUR_API_KEY_HERE and api_key = settings.STRIPE_API_KEY_V2".into()),
        ("capn-assigned-secret", format!("\"client_secret\": \"{}\"", hex(40, 78)), "the client_secret: rotates the API key every 90 days".into()),
        ("capn-assigned-secret", format!("token: {}", fake(B62, 24, 79) + "12"), "tokenizer: bert-base-uncased-v2, token: SESSION_TOKEN_2024".into()),
    ]
}
