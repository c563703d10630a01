//! Every rule with a secret it must find and a near miss it must not ([`samples`]).

use super::samples::{fake, samples, B62, B64, UPPER32};
use super::*;

#[test]
fn every_rule_finds_its_secret_and_not_its_near_miss() {
    for (id, hit, miss) in samples() {
        let found = find_all(hit.as_bytes());
        assert!(
            found.iter().any(|f| f.rule == id),
            "{id} should find its secret in {hit:?}; found {found:?}"
        );
        assert_eq!(find(&miss), None, "{id}: nothing is a secret in {miss:?}");
    }
}

#[test]
fn every_rule_has_samples_and_compiles() {
    let ids: Vec<&str> = samples().iter().map(|s| s.0).collect();
    for (i, r) in RULES.iter().enumerate() {
        let _ = regex(i);
        assert!(ids.contains(&r.id), "rule {} has no sample", r.id);
        assert!(!r.kind.is_empty());
        assert!(r.keywords.iter().all(|k| k.to_ascii_lowercase() == *k));
    }
}

#[test]
fn words_about_secrets_hashes_and_ids_are_not_secrets() {
    let fine = [
        "STRIPE_SECRET_KEY",
        "Where is the job that rotates the API key?",
        "the config key `api_key` under `[stripe]`",
        "files: src/a.ts: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "uuid 123e4567-e89b-12d3-a456-426614174000 and git 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "const token = await getToken(); const secret = config.secret;",
        "password reset emails are sent by sendPasswordResetEmail in apps/web/src/auth.ts",
        "export const API_KEY_HEADER = 'x-api-key'",
        "secret_key: str = Field(default_factory=lambda: secrets.token_hex(32))",
        "TOKEN_EXPIRY_SECONDS = 3600",
    ];
    for t in fine {
        assert_eq!(find(t), None, "not a secret: {t:?}");
    }
}

#[test]
fn a_finding_says_where_in_characters_never_the_value() {
    let key = format!("AKIA{}", fake(UPPER32, 16, 1));
    let text = format!("the key é {key} is old");
    let f = find(&text).unwrap();
    assert_eq!(f.kind, "an AWS access key ID");
    assert_eq!(f.place(&text), "characters 11-30");
    let lines = format!("# Goal\nfix it\nuse {key}\n");
    assert_eq!(
        find(&lines).unwrap().place(&lines),
        "line 3, characters 5-24"
    );
    let pem = format!(
        "notes\n-----BEGIN RSA PRIVATE KEY-----\n{}\n{}\n-----END RSA PRIVATE KEY-----\n",
        fake(B64, 64, 45),
        fake(B64, 64, 46)
    );
    assert_eq!(find(&pem).unwrap().place(&pem), "lines 2-5");
    let err = refuse(
        "refusing to chart",
        &[("the question", "ok"), ("--details", &text)],
    )
    .unwrap_err()
    .0;
    assert!(
        err.contains("--details holds what looks like an AWS access key ID (characters 11-30)"),
        "{err}"
    );
    assert!(!err.contains(&key), "{err}");
    assert!(refuse("x", &[("--details", "rotates the API key")]).is_ok());
}

#[test]
fn random_words_are_told_from_identifiers() {
    assert!(looks_random(&fake(B62, 24, 9)));
    for w in [
        "useOrganizationInvitationsForMember2Step",
        "sendSigningEmail",
        "HTTP_401_UNAUTHORIZED",
        "e3b0c44298fc1c149afbf4c8996fb924",
        "getServerSidePropsForTeam",
    ] {
        assert!(!looks_random(w), "{w}");
    }
}

#[test]
fn entropy_is_in_bits_per_byte() {
    assert_eq!(entropy(b""), 0.0);
    assert_eq!(entropy(b"aaaa"), 0.0);
    assert!((entropy(b"abcd") - 2.0).abs() < 1e-6);
}
