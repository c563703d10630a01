//! The command-line interface: clap derive types only, no logic.
//!
//! Doc comments here are the `--help` text. Each subcommand has its own `Args` struct and is run by
//! the file of the same name under `src/cmd/`.
//!
//! Help is not wrapped to the terminal (clap's `wrap_help` feature is off: it broke the examples
//! mid-command), so every help text here keeps its lines under 100 columns by hand, and an example
//! too long for one line is continued with a trailing `\\`, as a shell reads it.

use clap::{Args, Parser, Subcommand};

/// capn: a memory for coding agents that survives sessions and compactions.
///
/// Ask before you search; chart what was expensive to find. A charted answer is backed by the
/// SHA-256 of its files: while one of them differs from how it was charted, the chart is hidden
/// (kept, not deleted) and `ask` says so; it answers again once they are back as charted.
#[derive(Debug, Parser)]
// bin_name: usage lines say `capn`, not the file name (`capn.exe` on Windows).
#[command(
    name = "capn",
    bin_name = "capn",
    version,
    propagate_version = true,
    verbatim_doc_comment
)]
#[command(
    after_help = "Examples:\n  capn init\n  capn ask \"where are payment webhooks handled?\"\n  capn chart \"where are payment webhooks handled?\" \\\n    --files src/api/webhooks.ts,src/billing/stripe.ts --details \"router near line 40\"\n\nEnvironment:\n  CAPN_STATE_DIR      per-user state dir (default: $XDG_STATE_HOME/capn-hook)\n  CAPN_SESSION_ID     session id for `capn state` (exported by the SessionStart hook)\n  CLAUDE_PROJECT_DIR  project root for hook subcommands"
)]
pub(crate) struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Every `capn` subcommand.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Set up capn in this project: .capn/ (out of git: .capn/.gitignore) and the agent hooks.
    Init(InitArgs),
    /// Print the ask-before-search contract that the SessionStart hook injects.
    Context(ContextArgs),
    /// Recall charted answers for a question (JSONL on stdout; exit 1 on a miss).
    Ask(AskArgs),
    /// Record which files answer a question.
    Chart(ChartArgs),
    /// Delete one charted answer by id.
    Unchart(UnchartArgs),
    /// Delete every charted answer backed by a file.
    Bust(BustArgs),
    /// Delete every stale charted answer (a backing file changed or vanished).
    Prune(PruneArgs),
    /// Bring the search index up to date with the entry files (quiet; for git hooks).
    Refresh(RefreshArgs),
    /// List every charted answer.
    List(ListArgs),
    /// Run a hook for an agent host (reads the host's JSON on stdin, always exits 0).
    Hook(HookArgs),
    /// Print the Claude Code status line segment (reads the statusline JSON on stdin).
    Statusline(StatuslineArgs),
    /// Read or write this session's /compact-prep state file.
    State(StateArgs),
    /// Remove exactly what `capn init` installed (the charts stay; --purge deletes them too).
    Uninstall(UninstallArgs),
    /// Check the installation: capn on PATH, hooks registered and answering correctly.
    Doctor(DoctorArgs),
}

/// `capn init`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  capn init\n  capn init --git\n  capn init --shared\n  capn init --no-embedding\n  capn init --no-nudge\n  capn init --host gemini --host qwen\n  capn init --user"
)]
pub(crate) struct InitArgs {
    /// Only this host (repeatable): claude, codex, gemini, qwen, copilot, opencode.
    ///
    /// Default: Claude Code, Codex, and Gemini CLI or Qwen Code where .gemini/ or .qwen/ is.
    #[arg(
        long = "host",
        value_enum,
        value_name = "HOST",
        hide_possible_values = true
    )]
    pub hosts: Vec<Host>,
    /// Set capn up for every project of this user (~/.claude, ~/.codex), not this one.
    ///
    /// Registers the hooks, status line, skill and allow rules at user level; creates no store.
    #[arg(long, conflicts_with_all = ["git", "embedding", "no_embedding", "shared", "local", "hosts"])]
    pub user: bool,
    /// Also run capn prune --expired after commits and capn refresh after pulls.
    ///
    /// The lines go in the repository's git hooks and run in the background.
    ///
    /// post-commit: prune deletes the charts stale here for over "stale_days" (30).
    ///
    /// post-merge, post-rewrite, post-checkout: refresh brings the index up to date.
    #[arg(long)]
    pub git: bool,
    /// Use semantic recall (the embedded static model) fused with BM25 (the default).
    #[arg(long, conflicts_with = "no_embedding")]
    pub embedding: bool,
    /// Use lexical (BM25) recall only.
    #[arg(long)]
    pub no_embedding: bool,
    /// Share the charts with the team: commit them to git (derived files stay out).
    #[arg(long, conflicts_with = "local")]
    pub shared: bool,
    /// Keep the charts out of git (the default; switches a shared store back).
    #[arg(long)]
    pub local: bool,
    /// Ask the agent to chart a turn that explored hard (the Stop hook; the default).
    #[arg(long, conflicts_with = "no_nudge")]
    pub nudge: bool,
    /// Never ask to chart at the end of a turn ("nudge": false in .capn/config.json).
    #[arg(long)]
    pub no_nudge: bool,
}

/// `capn context`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  capn context")]
pub(crate) struct ContextArgs {}

/// `capn ask`.
#[derive(Debug, Args)]
#[command(
    after_help = "Output: one JSON object per hit, best first:\n  {\"id\":\"9f3a1c2e\",\"question\":\"...\",\"files\":[\"a.ts\"],\"details\":\"...\",\"score\":87}\nscore: 100 when asked in a chart's own words (or a confirmed phrasing), else at most 99;\nit orders the hits of one ask and means nothing across asks.\nExit 0 with hits, 1 on a miss. A stale chart (a file changed since it was charted) never\nanswers and is kept: stderr names it, its changed files and how to get it back, and when it is\nthe best match no other chart answers or is suggested in its place. A miss prints on stderr,\nin this order: at most three charts that are not answers, each with the question's words the\nchart does not hold,\n  candidate {\"id\":\"...\",\"question\":\"...\",\"files\":[...],\"not_in_chart\":[...]}\n    probably this question in other words: if it asks the same thing, read its files and\n    confirm it (capn chart \"<question>\" --like <id>) so these words answer next time;\n    one ending in \"learned\":true was moved up by words it learned from use (it ranks,\n    never answers);\nthe nudge: how to chart the answer after exploring; then\n  related {\"id\":\"...\",\"question\":\"...\",\"files\":[...],\"not_in_chart\":[...]}\n    possibly related: not an answer, but its files may help.\n\nExamples:\n  capn ask \"where are payment webhooks handled?\"\n  capn ask \"how is a session token refreshed\" --limit 3"
)]
pub(crate) struct AskArgs {
    /// The question, in your own words.
    #[arg(allow_hyphen_values = true)]
    pub question: String,
    /// Extra positional arguments are refused with a hint to quote the question.
    #[arg(hide = true)]
    pub extra: Vec<String>,
    /// The most hits to print.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub limit: u32,
}

/// `capn chart`.
#[derive(Debug, Args)]
#[command(
    after_help = "Chart after real exploration: one atomic question, the files that answer it, and details\nfor line numbers and gotchas. Charting the same question again (case, punctuation and spacing\naside) updates its entry (same id; the old details stay unless --details is given). A rewording\nthat a chart with the very same files already answers becomes another phrasing of it; another\nquestion on the same files is a chart of its own (the output names the other). To confirm that a\ncandidate `capn ask` printed answers your question: capn chart \"<question>\" --like <id>.\n\nExamples:\n  capn chart \"where are payment webhooks handled?\" \\\n    --files src/api/webhooks.ts,src/billing/stripe.ts\n  capn chart \"how is the session cookie signed?\" --files src/auth/session.ts \\\n    --details \"sign() near line 80; key rotates daily\"\n  capn chart \"where do stripe callbacks land?\" --like 9f3a1c2e"
)]
pub(crate) struct ChartArgs {
    /// The question the files answer (one line).
    #[arg(allow_hyphen_values = true)]
    pub question: Option<String>,
    /// Extra positional arguments are refused (quote the question).
    #[arg(hide = true)]
    pub extra: Vec<String>,
    /// Backing files, comma-separated; repeat the flag for more.
    #[arg(long, value_delimiter = ',')]
    pub files: Vec<String>,
    /// One backing file, taken as is (for a name with a comma); repeatable.
    #[arg(long = "file", value_name = "PATH")]
    pub file: Vec<String>,
    /// Line numbers, gotchas (left out on a re-chart: the old details are kept).
    #[arg(long, allow_hyphen_values = true)]
    pub details: Option<String>,
    /// Chart ID answers it too: add the question as its phrasing (no --files)
    #[arg(long, value_name = "ID")]
    pub like: Option<String>,
}

/// `capn unchart`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  capn unchart 9f3a1c2e")]
pub(crate) struct UnchartArgs {
    /// The entry id (as printed by `capn ask` or `capn list`).
    pub id: String,
}

/// `capn bust`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  capn bust src/api/webhooks.ts")]
pub(crate) struct BustArgs {
    /// A backing file path (relative to the current directory).
    pub path: String,
}

/// `capn prune`.
#[derive(Debug, Args)]
#[command(
    after_help = "A stale chart is hidden, never deleted on its own: it answers again once its files hash\nas charted. prune deletes stale charts; in a shared store (capn init --shared) it only lists\nthem unless --yes.\n\nExamples:\n  capn prune\n  capn prune --yes\n  capn prune --expired"
)]
pub(crate) struct PruneArgs {
    /// Only charts stale here for over "stale_days" (config.json; 30; never when shared).
    #[arg(long)]
    pub expired: bool,
    /// In a shared store, delete the stale charts instead of listing them.
    #[arg(long)]
    pub yes: bool,
}

/// `capn refresh`.
#[derive(Debug, Args)]
#[command(
    after_help = "Reads the entries added or changed since the index was saved (a git pull, a branch\nswitch) and saves the index whole, so the next ask does not. Prints nothing; exits 0 at once\nwhen another capn is writing the store. capn init --git runs it in the background after\ngit pull, git pull --rebase and git checkout.\n\nExample:\n  capn refresh"
)]
pub(crate) struct RefreshArgs {}

/// `capn list`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  capn list\n  capn list --json")]
pub(crate) struct ListArgs {
    /// Print JSONL (one entry per line) instead of text.
    #[arg(long)]
    pub json: bool,
}

pub(crate) use crate::events::HookEvent;
pub(crate) use crate::hosts::Host;

/// `capn hook`.
#[derive(Debug, Args)]
#[command(
    after_help = "Registered by `capn init`; not meant to be run by hand.\n\nExample:\n  echo '{\"session_id\":\"abc\",\"source\":\"startup\"}' | capn hook session-start"
)]
pub(crate) struct HookArgs {
    // The help lists the subcommands from the event table: clap's own list of possible values
    // would put `-h`'s EVENT line over 100 columns.
    #[arg(value_enum, hide_possible_values = true, help = event_help())]
    pub event: HookEvent,
    // The host's flags from the host list (`crate::hosts::ALL`); the default is Claude Code.
    #[arg(
        long,
        value_enum,
        default_value_t = Host::default(),
        hide_possible_values = true,
        help = host_help()
    )]
    pub host: Host,
    /// Registered for every project (capn init --user): silent without a store.
    ///
    /// Also silent where the project registers capn's hook for this event itself.
    #[arg(long)]
    pub user: bool,
}

/// The help of `capn hook`'s EVENT: `session-start, pre-compact, ...`, every [`HookEvent`] in
/// table order.
/// `--host`'s help, `The host: claude, codex, ... or opencode`, from the host list.
fn host_help() -> String {
    let flags: Vec<&str> = Host::ALL.iter().map(|h| h.flag()).collect();
    let (last, rest) = flags.split_last().expect("at least one host");
    format!("The host: {} or {last}", rest.join(", "))
}

fn event_help() -> String {
    let subs: Vec<&str> = HookEvent::ALL.iter().map(|e| e.subcommand()).collect();
    // Three to a line: the help stays under 100 columns however many events there are.
    let lines: Vec<String> = subs.chunks(3).map(|c| c.join(", ")).collect();
    format!("The event:\n{}", lines.join(",\n"))
}

/// `capn statusline`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  capn statusline\n  capn statusline --warn-at 70 --wrap \"~/.claude/statusline.sh\""
)]
pub(crate) struct StatuslineArgs {
    /// Percent of context use to warn at [default: 60; see .capn/config.json]
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=100))]
    pub warn_at: Option<u8>,
    /// Your statusline command: run first (same stdin), ours appended.
    #[arg(long)]
    pub wrap: Option<String>,
}

impl From<StatuslineArgs> for crate::hook::statusline::Options {
    fn from(a: StatuslineArgs) -> Self {
        crate::hook::statusline::Options {
            warn_at: a.warn_at,
            wrap: a.wrap,
        }
    }
}

/// `capn state`.
#[derive(Debug, Args)]
pub(crate) struct StateArgs {
    /// What to do with the state file.
    #[command(subcommand)]
    pub action: StateAction,
}

/// `capn state` actions.
#[derive(Debug, Subcommand)]
pub(crate) enum StateAction {
    /// Print the absolute path of this session's state file.
    Path(SessionArg),
    /// Save markdown from stdin as this session's state file (the nine headings are checked).
    #[command(
        after_help = "The state must hold these nine headings, each once, in this order, and no other # or ##\nheading (outside fenced code blocks):\n  # Compact Prep State\n  ## Active Plan\n  ## Current Phase\n  ## TaskList Summary\n  ## Session Decisions\n  ## Constraints and Blockers\n  ## Worker Topology\n  ## Editing Files\n  ## Recovery Notes\nOn any problem every one is listed and nothing is written.\n\nExample:\n  capn state save --session abc < state.md"
    )]
    Save(SessionArg),
    /// Print this session's state file.
    Show(SessionArg),
}

/// The session selector shared by `capn state` actions.
#[derive(Debug, Args)]
pub(crate) struct SessionArg {
    /// The session id (default: $CAPN_SESSION_ID).
    #[arg(long)]
    pub session: Option<String>,
}

/// `capn uninstall`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  capn uninstall\n  capn uninstall --purge\n  capn uninstall --user"
)]
pub(crate) struct UninstallArgs {
    /// Also delete .capn/ and its charts (kept by default, ignored by git)
    #[arg(long)]
    pub purge: bool,
    /// Remove what `capn init --user` added to ~/.claude and ~/.codex.
    #[arg(long)]
    pub user: bool,
}

/// `capn doctor`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  capn doctor")]
pub(crate) struct DoctorArgs {}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every help text of `cmd` and its subcommands, short and long.
    fn helps(cmd: &mut clap::Command, out: &mut Vec<(String, String)>) {
        let name = cmd.get_name().to_string();
        out.push((name.clone(), cmd.render_help().to_string()));
        out.push((name, cmd.render_long_help().to_string()));
        for sub in cmd.get_subcommands_mut() {
            helps(sub, out);
        }
    }

    #[test]
    fn help_lines_fit_and_examples_are_whole_commands() {
        let mut all = Vec::new();
        helps(&mut Cli::command(), &mut all);
        for (name, text) in &all {
            for line in text.lines() {
                assert!(
                    line.chars().count() <= 100,
                    "{name}: a help line over 100 columns: {line:?}"
                );
            }
            // Each example is a command line, or the continuation of one that ends in `\`.
            let mut in_examples = false;
            let mut continued = false;
            for line in text.lines() {
                if line.starts_with("Example") {
                    in_examples = true;
                    continue;
                }
                if !in_examples || line.is_empty() {
                    in_examples = in_examples && !line.is_empty();
                    continue;
                }
                if continued {
                    assert!(line.starts_with("    "), "{name}: {line:?}");
                } else {
                    assert!(
                        line.starts_with("  capn ") || line.starts_with("  echo "),
                        "{name}: an example line that is not a command: {line:?}"
                    );
                }
                continued = line.ends_with('\\');
            }
        }
    }
}
