//! The texts the hooks inject: the recovery instructions after a compaction and the context-use
//! reminder.
//!
//! Both are factual and subordinate to the user's message: they describe what happened and what
//! restoring the session consists of, without bare imperatives that could replace the task
//! (imperative injected text can trip a model's prompt-injection defences). Each stays under
//! [`MAX_CHARS`] characters, far below the host's 10,000-character cap.

use super::Host;
use crate::session::{rfc3339, Marker};
use std::path::Path;
use std::time::SystemTime;

/// Every injected text is cut to fewer than this many characters.
pub(crate) const MAX_CHARS: usize = 2000;

/// What the recovery text says about one compaction.
#[derive(Debug, Clone)]
pub(crate) struct Recovery<'a> {
    /// The host whose vocabulary to use.
    pub host: Host,
    /// The session's state file (absolute path), whether or not it exists.
    pub state_file: &'a Path,
    /// When the state file was saved (its mtime); `None` when there is none.
    pub state_saved_at: Option<SystemTime>,
    /// PreCompact's record for this compaction, if PreCompact ran.
    pub precompact: Option<&'a Marker>,
    /// The compaction marker (PostCompact's record) if one was claimed.
    pub compacted: Option<&'a Marker>,
}

impl Recovery<'_> {
    /// The recovery instructions, under [`MAX_CHARS`] characters.
    ///
    /// The restoring steps are what the text is for, so they are never cut: when the state
    /// file's path is so long that the text would not fit, the path is replaced by the command
    /// that prints it (`capn state path --session <id>`).
    pub(crate) fn render(&self) -> String {
        let full = self.render_with(&self.state_file.display().to_string());
        if full.chars().count() < MAX_CHARS {
            return full;
        }
        let id = self
            .state_file
            .parent()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .filter(|n| crate::session::is_valid_session_id(n));
        let by_command = match id {
            Some(id) => format!(
                "the file that `capn state path --session {id}` prints (its path is too long to \
                 quote here)"
            ),
            None => "the file that `capn state path` prints (its path is too long to quote here)"
                .to_string(),
        };
        truncate(self.render_with(&by_command))
    }

    /// The text with `path` standing for the state file, not cut.
    fn render_with(&self, path: &str) -> String {
        let prep = prep_name(self.host);
        let spec = self.host.spec();
        let mut s = String::with_capacity(1600);
        s.push_str("[capn] Context compaction recovery. This conversation was just compacted");
        let trigger = self
            .compacted
            .and_then(|m| m.trigger.as_deref())
            .or_else(|| self.precompact.and_then(|m| m.trigger.as_deref()));
        // When: PostCompact's marker, else PreCompact's record (SessionStart(compact) runs
        // before PostCompact on Claude Code), so each compaction's recovery names its own time.
        let at = self
            .compacted
            .and_then(|m| m.at.as_deref())
            .or_else(|| self.precompact.and_then(|m| m.at.as_deref()));
        match (trigger, at) {
            (Some(t), Some(a)) => s.push_str(&format!(" ({}, {})", clean(t), clean(a))),
            (Some(t), None) => s.push_str(&format!(" ({})", clean(t))),
            (None, Some(a)) => s.push_str(&format!(" ({})", clean(a))),
            (None, None) => {}
        }
        s.push_str(
            ". The summary above is a narrative of earlier work; it tends to lose the decision \
             structure (adopted and rejected plans and why, the current phase, constraints, \
             workers).\n",
        );
        match self.state_saved_at {
            Some(saved) => {
                let (state, fresh) = if spec.prep_skill {
                    (format!("{prep} state"), format!("fresh {prep}"))
                } else {
                    // Without the compact-prep skill the file can only have been written some
                    // other way (`capn state`), so it is named for what it is.
                    ("saved session state".to_string(), "fresh save".to_string())
                };
                s.push_str(&format!(
                    "The {state} for this session is {path}, saved {}.",
                    rfc3339(saved)
                ));
                if self.precompact.and_then(|m| m.fresh_state) == Some(false) {
                    s.push_str(&format!(
                        " PreCompact found no {fresh} when this compaction began, so that \
                         state may be older than the summary; the summary wins where they \
                         disagree on what happened after it was saved."
                    ));
                }
                s.push('\n');
            }
            None => {
                let saved = if spec.prep_skill {
                    format!("No {prep} state was saved for this session")
                } else {
                    // No skill to point at: say where the context is instead.
                    "No session state file was saved for this session".to_string()
                };
                s.push_str(&format!(
                    "{saved} ({path} does not exist), so plan, phase and decisions have to be \
                     reconstructed from the task list and the plan file, and whatever they leave \
                     open is a question for the user.\n"
                ));
            }
        }
        self.push_steps(&mut s, spec.task_list);
        s
    }

    /// Appends the steps that restore the session (from the state file when one was saved,
    /// else from the plan file) and the closing line; `tasks` names the host's task list.
    fn push_steps(&self, s: &mut String, tasks: &str) {
        s.push_str("Restoring the session before continuing with the user's message consists of: ");
        if self.state_saved_at.is_some() {
            s.push_str(
                "(1) reading the state file above; (2) reading the plan file named in its \
                 Active Plan section; ",
            );
        } else {
            s.push_str("(1) finding the active plan file, if any; (2) reading it; ");
        }
        s.push_str(&format!(
            "(3) checking {tasks} for what is in progress, done and pending; (4) treating \
             \"next steps\" in the summary as hypotheses until they agree with the state and the \
             plan; (5) if plan mode was on before the compaction, confirming with the user \
             before leaving it.\n"
        ));
        s.push_str(
            "The user's message remains the task; these steps only restore its context. The \
             ask-before-search contract still applies (`capn context` prints it).",
        );
    }
}

/// The reminder that context use crossed the threshold, under [`MAX_CHARS`] characters.
/// `percent` is the use when the statusline wrote the marker; `threshold` the configured one.
pub(crate) fn context_warning(host: Host, percent: Option<f64>, threshold: Option<u8>) -> String {
    let prep = prep_name(host);
    let mut s = String::from("[capn] Context use in this session ");
    match percent {
        Some(p) if !p.is_nan() => s.push_str(&format!("has reached {}", percent_label(p))),
        _ => s.push_str("has crossed the warning threshold"),
    }
    if let Some(t) = threshold {
        s.push_str(&format!(" (warning threshold {t}%)"));
    }
    let save = if host.spec().prep_skill {
        format!(
            "Running {prep} before /compact saves plan, phase, decisions, constraints and \
             workers to the session state file so they survive it. Who does what: at the next \
             natural stopping point the agent proposes it, and the user runs {prep} and then \
             /compact (the agent does not start either unasked)"
        )
    } else {
        // Without the compact-prep skill, what survives is what is written down.
        "Writing plan, phase, decisions, constraints and workers into the plan \
                        file and the plan tool before /compact lets them survive it. Who does \
                        what: at the next natural stopping point the agent writes them down and \
                        tells the user, who runs /compact"
            .to_string()
    };
    s.push_str(&format!(
        ". A compaction, manual or automatic, replaces the conversation with a narrative summary \
         that loses the decision structure. {save}. This note is shown once; the user's message \
         remains the task."
    ));
    truncate(s)
}

/// The largest context use shown as a number; anything above is shown as `>999%`.
pub(crate) const MAX_SHOWN_PERCENT: i64 = 999;

/// A context use as shown to people: whole percent, rounded down, so `61.9` is `61%`. Values
/// above [`MAX_SHOWN_PERCENT`] come from bogus host numbers (a `used_percentage` of `1e308`, a
/// one-token window) and are shown as `>999%`, never as a 19-digit number; a negative or NaN
/// value is `0%`.
pub(crate) fn percent_label(percent: f64) -> String {
    if percent.is_nan() || percent <= 0.0 {
        return "0%".to_string();
    }
    if percent >= (MAX_SHOWN_PERCENT + 1) as f64 {
        return format!(">{MAX_SHOWN_PERCENT}%");
    }
    format!("{}%", percent.floor() as i64)
}

/// How the prep skill is named on a host: `/compact-prep` where it is a slash command
/// ([`crate::hosts::HostSpec::prep_skill`], Claude Code), its bare name elsewhere.
pub(super) fn prep_name(host: Host) -> String {
    let name = crate::install::skill::SKILL_NAME;
    if host.spec().prep_skill {
        format!("/{name}")
    } else {
        name.to_string()
    }
}

/// A host-sent string made safe to quote: control characters dropped, at most 40 characters.
fn clean(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(40).collect()
}

/// Cuts `s` to fewer than [`MAX_CHARS`] characters (on a char boundary), marking the cut.
pub(crate) fn truncate(s: String) -> String {
    if s.chars().count() < MAX_CHARS {
        return s;
    }
    let mut out: String = s.chars().take(MAX_CHARS - 2).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn long_path() -> PathBuf {
        PathBuf::from(format!(
            "/{}/sessions/{}/state.md",
            "d".repeat(300),
            "a".repeat(128)
        ))
    }

    #[test]
    fn recovery_with_state_names_path_time_and_steps() {
        let p = PathBuf::from("/s/sessions/x/state.md");
        let saved = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_780_000_000);
        let mut c = Marker::now("PostCompact");
        c.trigger = Some("auto".into());
        let t = Recovery {
            host: Host::Claude,
            state_file: &p,
            state_saved_at: Some(saved),
            precompact: None,
            compacted: Some(&c),
        }
        .render();
        for needle in [
            "/s/sessions/x/state.md",
            &rfc3339(saved),
            "Active Plan",
            "TaskList",
            "hypotheses",
            "plan mode",
            "auto",
            "remains the task",
        ] {
            assert!(t.contains(needle), "missing {needle:?} in {t}");
        }
        assert!(!t.contains("does not exist"));
    }

    #[test]
    fn recovery_without_state_says_what_to_do_instead() {
        let p = PathBuf::from("/s/state.md");
        let t = Recovery {
            host: Host::Codex,
            state_file: &p,
            state_saved_at: None,
            precompact: None,
            compacted: None,
        }
        .render();
        assert!(t.contains("No session state file was saved"), "{t}");
        assert!(
            !t.contains("compact-prep"),
            "Codex has no compact-prep step: {t}"
        );
        assert!(t.contains("question for the user"));
        assert!(!t.contains("TaskList"));
    }

    #[test]
    fn recovery_reports_stale_prep() {
        let p = PathBuf::from("/s/state.md");
        let mut pre = Marker::now("PreCompact");
        pre.fresh_state = Some(false);
        let t = Recovery {
            host: Host::Claude,
            state_file: &p,
            state_saved_at: Some(SystemTime::now()),
            precompact: Some(&pre),
            compacted: None,
        }
        .render();
        assert!(t.contains("no fresh /compact-prep"), "{t}");
    }

    /// SessionStart(compact) runs before PostCompact on Claude Code: the recovery names the
    /// compaction by PreCompact's time, so two compactions' recoveries (Claude Code keeps the
    /// latest messages verbatim across a compaction) are told apart.
    #[test]
    fn recovery_without_a_post_compact_marker_names_precompacts_time() {
        let p = PathBuf::from("/s/state.md");
        let mut pre = Marker::now("PreCompact");
        pre.trigger = Some("auto".into());
        pre.at = Some("2026-12-07T05:33:21.922Z".into());
        let t = Recovery {
            host: Host::Claude,
            state_file: &p,
            state_saved_at: None,
            precompact: Some(&pre),
            compacted: None,
        }
        .render();
        assert!(
            t.starts_with("[capn] Context compaction recovery. This conversation was just compacted (auto, 2026-12-07T05:33:21.922Z). "),
            "{t}"
        );
    }

    #[test]
    fn texts_stay_under_the_cap_even_with_long_inputs() {
        let p = long_path();
        let mut c = Marker::now("PostCompact");
        c.trigger = Some("x".repeat(5000));
        let mut pre = Marker::now("PreCompact");
        pre.fresh_state = Some(false);
        for saved in [None, Some(SystemTime::now())] {
            let t = Recovery {
                host: Host::Claude,
                state_file: &p,
                state_saved_at: saved,
                precompact: Some(&pre),
                compacted: Some(&c),
            }
            .render();
            assert!(t.chars().count() < MAX_CHARS, "{}", t.chars().count());
        }
        let w = context_warning(Host::Claude, Some(1e300), Some(60));
        assert!(w.chars().count() < MAX_CHARS);
        assert!(truncate("é".repeat(5000)).chars().count() < MAX_CHARS);
    }

    #[test]
    fn percent_labels_are_clamped() {
        assert_eq!(percent_label(61.9), "61%");
        assert_eq!(percent_label(0.4), "0%");
        assert_eq!(percent_label(-3.0), "0%");
        assert_eq!(percent_label(f64::NAN), "0%");
        assert_eq!(percent_label(100.0), "100%");
        assert_eq!(percent_label(999.99), "999%");
        assert_eq!(percent_label(1000.0), ">999%");
        assert_eq!(percent_label(1e308), ">999%");
        assert_eq!(percent_label(f64::INFINITY), ">999%");
        let w = context_warning(Host::Claude, Some(1e308), Some(60));
        assert!(w.contains("has reached >999%"), "{w}");
    }

    #[test]
    fn a_path_too_long_to_quote_keeps_the_steps() {
        let id = "s".repeat(128);
        let p = PathBuf::from(format!("/{}/sessions/{id}/state.md", "d/".repeat(900)));
        let mut pre = Marker::now("PreCompact");
        pre.fresh_state = Some(false);
        for saved in [None, Some(SystemTime::now())] {
            let t = Recovery {
                host: Host::Claude,
                state_file: &p,
                state_saved_at: saved,
                precompact: Some(&pre),
                compacted: None,
            }
            .render();
            assert!(t.chars().count() < MAX_CHARS, "{}", t.chars().count());
            let by_command = format!("capn state path --session {id}");
            for needle in [
                by_command.as_str(),
                "(3) checking the task list",
                "(5) if plan mode",
                "remains the task",
            ] {
                assert!(t.contains(needle), "missing {needle:?} in {t}");
            }
            assert!(!t.contains("d/d/d/"), "{t}");
            assert!(!t.ends_with('…'), "{t}");
        }
        // A path that fits is quoted whole.
        let p = PathBuf::from(format!("/{}/sessions/x/state.md", "d".repeat(300)));
        let t = Recovery {
            host: Host::Claude,
            state_file: &p,
            state_saved_at: None,
            precompact: None,
            compacted: None,
        }
        .render();
        assert!(t.contains(&*p.to_string_lossy()), "{t}");
    }

    #[test]
    fn warning_names_percent_threshold_and_skill() {
        let w = context_warning(Host::Claude, Some(72.9), Some(60));
        assert!(
            w.contains("72%") && w.contains("60%") && w.contains("/compact-prep"),
            "{w}"
        );
        let w = context_warning(Host::Codex, None, None);
        assert!(w.contains("crossed the warning threshold") && !w.contains("compact-prep"));
    }
}
