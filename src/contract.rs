//! The ask-before-search contract: the text `capn context` prints and the SessionStart hook
//! injects (one owner, used by both).
//!
//! Static text. Kept under 2,000 characters so it is far below Claude Code's 10,000-character
//! `additionalContext` cap (Claude Code's hooks docs, hook output). Worded as facts, not bare
//! imperatives, because imperative injected text can trip prompt-injection defences.

/// The contract text (ends with a newline).
pub(crate) const CONTRACT: &str = "\
capn (project memory) is available in this repository. It maps questions to the files that \
answer them; every charted answer is pinned to the SHA-256 of its files and is hidden as soon \
as one of them changes (it answers again once they are back, on another branch say), so an answer \
it returns is current.

Before searching the codebase (grep, find, opening files to locate something), ask it first:
  capn ask \"<what you are looking for, in plain words>\"
A hit prints JSON lines (id, question, files, details, score; files are relative to the \
project root): read those files and skip the search. A miss exits 1 and costs nothing; on stderr it may \
name a chart that is probably the same question in other words (candidate, with the words it lacks) or possibly \
related ones. If one asks the same thing, read its files and confirm it: capn chart \"<your question>\" --like <id> \
(your words then answer next time). Otherwise explore as usual.

After real exploration that was expensive to repeat, chart what you found:
  capn chart \"<one atomic question>\" --files path/a.ts,path/b.ts --details \"<line numbers, gotchas>\"
- one question per chart, phrased the way someone would ask it later;
- the files are the answer: list the few files that answer it, not everything opened;
- details carry what the files alone do not say: where in them to look, traps, related names.
Trivial lookups (a file named in the task, one obvious grep) are not worth charting.

Stale answers never answer; to drop one by hand: capn unchart <id>, or capn bust <path> for \
every answer backed by a file.
";
