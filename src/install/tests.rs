use super::*;
use crate::hosts::CLAUDE_TABLE;

fn file(json: Value) -> SettingsFile {
    let text = serde_json::to_vec_pretty(&json).unwrap();
    SettingsFile::from_bytes(Path::new("/nonexistent/settings.json"), Some(text)).unwrap()
}

#[test]
fn recognises_our_handlers_in_both_forms() {
    let exec = serde_json::json!({"command":"capn","args":["hook","session-start"]});
    let shell = serde_json::json!({"command":"/usr/local/bin/capn hook post-compact --host codex"});
    assert_eq!(our_subcommand(&exec).as_deref(), Some("session-start"));
    assert_eq!(our_subcommand(&shell).as_deref(), Some("post-compact"));
    assert!(our_subcommand(&serde_json::json!({"command":"capncrunch hook x"})).is_none());
    for legacy in [
        serde_json::json!({"type":"command","command":"/usr/bin/env capn context"}),
        serde_json::json!({"type":"command","command":"capn context"}),
        serde_json::json!({"type":"command","command":"/usr/bin/env","args":["capn","context"]}),
        serde_json::json!({"type":"command","command":"capn nudge"}),
        serde_json::json!({"type":"command","command":"/usr/bin/env","args":["capn","nudge"]}),
    ] {
        assert!(is_legacy(&legacy), "{legacy}");
    }
    for not in [
        serde_json::json!({"command":"capn context --x"}),
        serde_json::json!({"command":"capn","args":["hook","session-start"]}),
        serde_json::json!({"command":"mycapn nudge"}),
    ] {
        assert!(!is_legacy(&not), "{not}");
    }
}

#[test]
fn merge_adds_once_keeps_others_and_replaces_legacy() {
    let mut f = file(serde_json::json!({
        "model": "x",
        "hooks": {
            "SessionStart": [
                {"matcher": "startup", "hooks": [{"type":"command","command":"/usr/bin/env capn context"}]},
                {"hooks": [{"type":"command","command":"other-tool start"}]}
            ],
            "Stop": [{"hooks": [{"type":"command","command":"notify"}]}]
        }
    }));
    let r = merge(CLAUDE_TABLE, &mut f, &mut []).unwrap();
    assert_eq!(r.replaced.len(), 1);
    assert_eq!(r.replaced[0].matcher, Some("startup".into()));
    assert!(r.added.contains(&"SessionStart".to_string()));
    let ss = f.json["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(ss.len(), 2, "{ss:?}");
    assert_eq!(ss[0]["hooks"][0]["command"], "other-tool start");
    assert_eq!(f.json["hooks"]["Stop"][0]["hooks"][0]["command"], "notify");
    assert_eq!(f.json["model"], "x");
    let again = merge(CLAUDE_TABLE, &mut f, &mut []).unwrap();
    assert_eq!(again, MergeReport::default());
}

#[test]
fn shell_quoting_round_trips() {
    for s in ["plain", "it's", "a 'b' c", "$HOME/x \\ y", ""] {
        assert_eq!(
            shell_single_unquote(&shell_single_quote(s)).as_deref(),
            Some(s)
        );
    }
    let cmd = format!(
        "capn statusline --wrap {}",
        shell_single_quote("~/bin/sl.sh 'x'")
    );
    assert_eq!(wrapped_statusline(&cmd).as_deref(), Some("~/bin/sl.sh 'x'"));
    assert!(wrapped_statusline("capn statusline").is_none());
}

#[test]
fn statusline_wraps_the_effective_one_and_unmerge_restores_it() {
    let mut project =
        file(serde_json::json!({"statusLine":{"type":"command","command":"mine.sh","padding":2}}));
    let mut local = file(serde_json::json!({}));
    let change = merge_statusline(&mut project, &mut local, None);
    assert_eq!(change, StatuslineChange::Wrapped("mine.sh".into()));
    assert_eq!(project.json["statusLine"]["padding"], 2);
    assert_eq!(
        merge_statusline(&mut project, &mut local, None),
        StatuslineChange::AlreadyOurs
    );
    unmerge_statusline(&mut project, None).unwrap();
    assert_eq!(
        project.json["statusLine"],
        serde_json::json!({"type":"command","command":"mine.sh","padding":2})
    );
    // A user-level statusline is wrapped in the project file, and uninstall just removes ours.
    let mut project = file(serde_json::json!({}));
    assert_eq!(
        merge_statusline(&mut project, &mut local, Some("user.sh")),
        StatuslineChange::Wrapped("user.sh".into())
    );
    unmerge_statusline(&mut project, Some("user.sh")).unwrap();
    assert!(project.json.get("statusLine").is_none());
}

#[test]
fn recorded_handlers_are_removed_exactly_or_as_edited() {
    let mut f = file(serde_json::json!({"hooks": {"SessionEnd": [{"hooks": [{"command": "x"}]}]}}));
    let original = f.bytes();
    let r = merge(CLAUDE_TABLE, &mut f, &mut []).unwrap();
    assert_eq!(r.handlers.len(), 7);
    let (event, h) = &r.handlers[0];
    assert_eq!(
        remove_recorded_handler(&mut f, event, h),
        Some(Found::Exact)
    );
    assert_eq!(remove_recorded_handler(&mut f, event, h), None);
    assert!(f.json["hooks"].get(event).is_none(), "empty event left");
    // Edited since: the timeout changed by hand.
    let (event, h) = &r.handlers[1];
    let mut edited = h.clone();
    edited["timeout"] = 99.into();
    assert!(remove_recorded_handler(&mut f, event, h).is_some());
    put_back(&mut f, event, Some(&"manual|auto".into()), &edited, None);
    assert_eq!(
        remove_recorded_handler(&mut f, event, h),
        Some(Found::Edited)
    );
    for (event, h) in &r.handlers[2..] {
        remove_recorded_handler(&mut f, event, h).unwrap();
    }
    assert_eq!(
        f.bytes(),
        original,
        "{}",
        String::from_utf8_lossy(&f.bytes())
    );
}

#[test]
fn without_a_record_only_exact_table_handlers_go() {
    let mut f = file(serde_json::json!({}));
    merge(CLAUDE_TABLE, &mut f, &mut []).unwrap();
    let hand = serde_json::json!({"type":"command","command":"capn","args":["hook","pre-compact"]});
    put_back(&mut f, "PreCompact", None, &hand, None);
    let removed = remove_table_handlers(CLAUDE_TABLE, &mut f).unwrap();
    assert_eq!(removed.len(), 7);
    assert_eq!(f.json["hooks"]["PreCompact"][0]["hooks"][0], hand);
    assert_eq!(f.json["hooks"].as_object().unwrap().len(), 1);
}

#[test]
fn init_statusline_commands_are_recognised_exactly() {
    assert!(is_init_statusline("capn statusline"));
    assert!(is_init_statusline("capn statusline --wrap 'mine.sh'"));
    assert!(is_init_statusline(&format!(
        "capn statusline --wrap {}",
        shell_single_quote("it's")
    )));
    assert!(!is_init_statusline("capn statusline --warn-at 70"));
    assert!(!is_init_statusline("capn statusline --wrap mine.sh"));
    assert!(!is_init_statusline("/usr/local/bin/capn statusline"));
}

#[test]
fn restore_statusline_cases() {
    let after = serde_json::json!({"type":"command","command":"capn statusline --wrap 'a'"});
    let before = serde_json::json!({"command":"a"});
    let mut j = file(serde_json::json!({"statusLine": after.clone()}));
    assert!(restore_statusline(&mut j, Some(&before), &after).is_some());
    assert_eq!(j.json["statusLine"], before);
    // Other fields edited: only the command goes back.
    let mut edited = after.clone();
    edited["padding"] = 2.into();
    let mut j = file(serde_json::json!({"statusLine": edited}));
    restore_statusline(&mut j, Some(&before), &after).unwrap();
    assert_eq!(
        j.json["statusLine"],
        serde_json::json!({"type":"command","command":"a","padding":2})
    );
    // None before: the key goes.
    let mut j = file(serde_json::json!({"statusLine": after.clone()}));
    restore_statusline(&mut j, None, &after).unwrap();
    assert!(j.json.get("statusLine").is_none());
    // The command changed since: kept.
    let other = serde_json::json!({"command":"b"});
    let mut j = file(serde_json::json!({"statusLine": other.clone()}));
    assert!(restore_statusline(&mut j, None, &after).is_none());
    assert_eq!(j.json["statusLine"], other);
}

#[test]
fn registration_in_local_settings_counts() {
    let mut local = file(
        serde_json::json!({"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"capn","args":["hook","session-start"]}]}]}}),
    );
    let mut main = file(serde_json::json!({}));
    let r = merge(CLAUDE_TABLE, &mut main, &mut [&mut local]).unwrap();
    assert!(!r.added.contains(&"SessionStart".to_string()));
    assert!(main.json["hooks"].get("SessionStart").is_none());
    assert!(r.added.contains(&"PreCompact".to_string()));
}

/// `init`'s settings edits and its plan handle every host as its spec says
/// ([`crate::hosts::HostSpec`]: `allow_rules`, `context`, `plugin`, `files`): their code names no
/// host (no `Host::Claude`, no `CLAUDE` spec or file constant), so a host's features are a
/// matter of its file in `src/hosts/`.
#[test]
fn the_settings_edits_and_the_plan_name_no_host() {
    for rel in ["install/settings.rs", "install/plan.rs"] {
        let text = std::fs::read_to_string(crate::layers::src_dir().join(rel)).unwrap();
        for (n, line) in crate::layers::code_lines(&text) {
            for spec in crate::hosts::ALL {
                let variant = format!("Host::{:?}", spec.host);
                let constant = spec.flag.to_ascii_uppercase();
                assert!(
                    !line.contains(&variant) && !line.contains(&constant),
                    "src/{rel}:{n} names {}: {line}",
                    spec.name
                );
            }
        }
    }
}
