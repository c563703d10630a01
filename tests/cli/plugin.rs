//! The repository is also a Claude Code plugin marketplace (`.claude-plugin/marketplace.json`)
//! whose plugin (`plugin/`) registers the same hooks as `capn init` and ships the same skill.

use serde_json::Value;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_marketplace_lists_a_plugin_with_the_same_hooks_and_skill_as_init() {
    let market = json(&repo().join(".claude-plugin/marketplace.json"));
    assert!(market["name"].is_string() && market["owner"]["name"].is_string());
    let plugins = market["plugins"].as_array().unwrap();
    assert_eq!(plugins.len(), 1);
    let source = plugins[0]["source"].as_str().unwrap();
    assert!(source.starts_with("./"), "{source}");
    let root = repo().join(source);
    let manifest = json(&root.join(".claude-plugin/plugin.json"));
    assert_eq!(manifest["name"], plugins[0]["name"]);
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(plugins[0]["version"], env!("CARGO_PKG_VERSION"));
    // hooks/hooks.json is loaded automatically; declaring it in the manifest loads it twice.
    assert!(manifest.get("hooks").is_none());
    let hooks = json(&root.join("hooks/hooks.json"));
    let table = json(&repo().join("hooks-config/claude.json"));
    assert_eq!(hooks["hooks"], table["hooks"]);
    assert_eq!(
        std::fs::read(root.join("skills/compact-prep/SKILL.md")).unwrap(),
        std::fs::read(repo().join("skills/compact-prep/SKILL.md")).unwrap(),
        "plugin/skills/compact-prep/SKILL.md differs from skills/compact-prep/SKILL.md"
    );
}

/// With the plugin enabled, `init` sets up the store, `.gitignore`, the status line and Codex,
/// but registers no Claude Code hook and installs no skill (the plugin's would run twice), and
/// doctor says where the hooks come from; uninstall gives the settings back.
#[test]
fn init_with_the_plugin_enabled_adds_no_claude_hooks_and_no_skill() {
    let env = crate::util::Env::git();
    let original = "{\n  \"enabledPlugins\": {\n    \"capn@capn-hook\": true\n  }\n}\n";
    env.write(".claude/settings.json", original);
    let run = env.run(&["init"]).ok();
    assert!(
        run.stdout
            .contains("Claude Code hooks: the capn plugin (capn@capn-hook) registers them"),
        "{}",
        run.stdout
    );
    let v = json(&env.root.join(".claude/settings.json"));
    assert!(v.get("hooks").is_none(), "{v}");
    assert_eq!(v["statusLine"]["command"], "capn statusline");
    assert!(!env.root.join(".claude/skills").exists());
    assert!(env.root.join(".codex/hooks.json").exists());
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_capn"));
    let dir = bin.parent().unwrap();
    let path = std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut c = env.cmd(&["doctor"]);
    c.env("PATH", &path).env("CAPN_LAUNCHER_PATH", &path);
    let run = env.run_cmd(c, b"").ok();
    assert!(
        run.stdout
            .contains("come from the capn plugin (capn@capn-hook"),
        "{}",
        run.stdout
    );
    env.run(&["uninstall"]).ok();
    assert_eq!(env.read(".claude/settings.json"), original);
}
