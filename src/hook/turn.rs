//! The finished turn, read from the end of the host's transcript: what follows the last real
//! user prompt, and what it cost (docs/nudge.md). Used by the Stop hook ([`super::stop`]).
//!
//! Shapes read (the conformance transcripts in `tests/fixtures/conformance/transcripts/` and the
//! labelled turns in `tests/fixtures/nudge/`):
//! - Claude Code (JSONL, one object a line): a prompt is `{"type":"user","message":{"content":
//!   "<text>" | [{"type":"text",..}]}}` that is not `isMeta`, not `isSidechain`, not
//!   `isCompactSummary`, holds no `tool_result` and is not a local command's echo
//!   (`<local-command-stdout>`); tool calls are `tool_use` blocks of `assistant` lines
//!   (`{name, id, input}`), their results `tool_result` blocks of `user` lines
//!   (`{tool_use_id, content, is_error}`).
//! - Codex rollouts: a prompt is `{"type":"response_item","payload":{"type":"message","role":
//!   "user","content":[{"type":"input_text","text":..}]}}` whose text is not a wrapper Codex adds
//!   itself (text that starts with `<` and ends with `>`, such as `<environment_context>`, or
//!   `# AGENTS.md instructions`); tool calls are `function_call` (`{name, arguments: "<JSON>",
//!   call_id}`; `shell`, `shell_command`, `exec_command`, `read_file`...) and `local_shell_call`
//!   payloads, their results `function_call_output` (`{call_id, output}`).
//!
//! Bounds: the file is opened without following it into a FIFO or device (a regular file only,
//! [`crate::fsutil::open_regular`]); the last [`FIRST_READ`] bytes are read, then four times more
//! each time the prompt is not in them, up to [`MAX_TURN_BYTES`]. A turn longer than that is
//! measured over its last [`MAX_TURN_BYTES`] (`complete: false`). A line longer than
//! [`MAX_PARSED_LINE`] is counted as tool output by its length and not parsed; a line that is not
//! JSON is skipped.

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The first read from the end of the transcript (a cheap turn fits in it).
pub(crate) const FIRST_READ: u64 = 64 << 10;

/// The most bytes read from the end of the transcript.
pub(crate) const MAX_TURN_BYTES: u64 = 16 << 20;

/// The longest line parsed; a longer one (a multi-megabyte tool result) counts as output only.
pub(crate) const MAX_PARSED_LINE: usize = 1 << 20;

/// The most characters of the user's request kept.
pub(crate) const MAX_PROMPT_CHARS: usize = 2000;

/// The most distinct files a turn keeps track of.
const MAX_TRACKED_FILES: usize = 512;

/// The most files of `capn ask` hits a turn keeps to tell whether it used an answer (a real ask
/// shows a few charts of a few files each; a tool output that only looks like hits may list
/// any number).
const MAX_HIT_FILES: usize = 4096;

/// The most of them kept with one file name: a read is compared with these only, so the work
/// per read stays small whatever the hits list.
const MAX_HITS_PER_NAME: usize = 32;

/// One file the turn read, with how many times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileRead {
    /// The path as the tool call named it.
    pub path: String,
    /// Reads of it in the turn.
    pub reads: u32,
}

/// What the finished turn did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Turn {
    /// The user's request (text of the prompt, at most [`MAX_PROMPT_CHARS`]); `None` when the
    /// prompt was not found within the bound.
    pub prompt: Option<String>,
    /// An id of the turn: a hash of the prompt line (its uuid and timestamp make it unique), or
    /// of the first line read when the prompt was not found.
    pub key: String,
    /// The prompt was found (the whole turn was measured).
    pub complete: bool,
    /// Search calls: Grep, Glob, sub-agents (Task, Agent, Explore), shell searches (`rg`,
    /// `grep`, `find`, `fd`, `ag`, `git grep`...).
    pub searches: u32,
    /// Of the searches, sub-agent launches (Task, Agent, Explore).
    pub subagents: u32,
    /// Files read (Read, `read_file`, shell `cat`/`sed`/`head`/`nl`...), in order of first read.
    pub files: Vec<FileRead>,
    /// Files the turn edited or wrote (Edit, Write, MultiEdit, `apply_patch`).
    pub edited: HashSet<String>,
    /// Bytes of tool output (results of every tool call).
    pub output_bytes: u64,
    /// `capn chart` ran in the turn.
    pub charted: bool,
    /// A `capn ask` hit's files were read after the ask (the turn used a charted answer).
    pub used_chart: bool,
    /// Tool calls of any kind.
    pub tool_calls: u32,
    /// The names of the tools called, distinct, at most [`MAX_TOOL_NAMES`] (past it, an empty
    /// name stands for the rest): what learning from use checks the hooks saw
    /// ([`super::turn_tools::shown_to_hook`]).
    pub tool_names: Vec<String>,
    /// Where the prompt line starts in the transcript (bytes), when it was found: a later read
    /// of a longer transcript tells by it whether a prompt came since.
    pub prompt_at: Option<u64>,
    /// The transcript's length when it was read (bytes); 0 for a tail measured on its own.
    pub len: u64,
    /// Tool results marked an error (`is_error`: a call refused by a permission rule or a hook,
    /// or one that failed), a `capn ask` run's aside (a miss exits 1).
    pub errors: u32,
    /// The text of the turn's last assistant message in the transcript (its last text block,
    /// at most [`MAX_PARSED_LINE`] bytes), when no tool call follows it: what the Stop payload's
    /// `last_assistant_message` is compared with, since a host may not have written the
    /// transcript's end yet when Stop runs. `None` when the turn ends in a tool call.
    pub final_text: Option<String>,
}

/// The most distinct tool names a turn keeps ([`Turn::tool_names`]).
pub(crate) const MAX_TOOL_NAMES: usize = 64;

impl Turn {
    /// Distinct files read that the turn did not also edit: what it read to find things out.
    pub(crate) fn explored_files(&self) -> impl Iterator<Item = &FileRead> {
        self.files.iter().filter(|f| !self.edited.contains(&f.path))
    }
}

/// Reads the finished turn of the transcript at `path` (see the module docs). `None` when the
/// file cannot be opened as a regular file, is empty, or holds no line this module reads.
pub(crate) fn read(path: &Path) -> Option<Turn> {
    let (mut f, _) =
        crate::fsutil::open_regular(path, u64::MAX, crate::fsutil::Follow::Anywhere).ok()?;
    let len = f.seek(SeekFrom::End(0)).ok()?;
    let mut want = FIRST_READ;
    loop {
        let take = want.min(len).min(MAX_TURN_BYTES);
        let start = len - take;
        f.seek(SeekFrom::Start(start)).ok()?;
        let mut buf = Vec::with_capacity(take as usize);
        (&mut f).take(take).read_to_end(&mut buf).ok()?;
        // Unless the read starts the file, its first line may be cut: it is not used.
        let skip = if start == 0 {
            0
        } else {
            memchr::memchr(b'\n', &buf).map_or(buf.len(), |nl| nl + 1)
        };
        let at_limit = start == 0 || take >= MAX_TURN_BYTES;
        if let Some(mut turn) = measure_at(&buf[skip..], start + skip as u64, at_limit) {
            turn.len = len;
            return Some(turn);
        }
        if at_limit {
            return None;
        }
        want = want.saturating_mul(4);
    }
}

/// The lines of `bytes` (trimmed, blank ones left out), each with its offset in `bytes`, last
/// first: no index of the lines is built (a tail of millions of short lines costs no memory).
fn lines_backwards(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut end = bytes.len();
    let mut done = false;
    std::iter::from_fn(move || loop {
        if done {
            return None;
        }
        let start = match memchr::memrchr(b'\n', &bytes[..end]) {
            Some(nl) => nl + 1,
            None => {
                done = true;
                0
            }
        };
        let line = bytes[start..end].trim_ascii();
        end = start.saturating_sub(1);
        if !line.is_empty() {
            return Some((start, line));
        }
    })
}

/// The turn in `tail` (whole lines), which starts `base` bytes into the transcript: from the
/// last prompt on (and where that prompt line starts, [`Turn::prompt_at`]). `None` when no
/// prompt is in it, unless `last_chance` (nothing more can be read): then the whole tail is
/// measured.
fn measure_at(tail: &[u8], base: u64, last_chance: bool) -> Option<Turn> {
    let found = lines_backwards(tail).find_map(|(at, l)| prompt_of(l).map(|p| (at, l, p)));
    let prompt_at = found.as_ref().map(|(at, ..)| base + *at as u64);
    let (from, key_line, prompt) = match found {
        Some((at, line, p)) => (at + line.len(), line, p),
        None if last_chance => {
            let first = tail
                .split(|b| *b == b'\n')
                .map(<[u8]>::trim_ascii)
                .find(|l| !l.is_empty())?;
            (0, first, None)
        }
        None => return None,
    };
    let mut m = Measure::default();
    for line in tail[from..].split(|b| *b == b'\n').map(<[u8]>::trim_ascii) {
        if !line.is_empty() {
            m.line(line);
        }
    }
    let mut turn = m.finish();
    turn.prompt = prompt;
    turn.complete = prompt_at.is_some();
    turn.prompt_at = prompt_at;
    turn.key = key_of(key_line);
    Some(turn)
}

/// A short hex id of a line (SHA-256, first 16 hex digits).
fn key_of(line: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(line);
    crate::hex::encode(&d[..8])
}

/// `Some(text)` when `line` is a real user prompt (`Some(None)`: a prompt without text that can
/// be kept), else `None`. Cheap for the lines that cannot be one: tool results and everything
/// without the substrings a prompt has are not parsed.
fn prompt_of(line: &[u8]) -> Option<Option<String>> {
    let find = |n: &[u8]| memchr::memmem::find(line, n).is_some();
    let claude = find(b"\"user\"") && !find(b"\"tool_result\"") && !find(b"\"toolUseResult\"");
    let codex = find(b"\"input_text\"");
    if !line.starts_with(b"{") || !(claude || codex) || line.len() > MAX_PARSED_LINE {
        return None;
    }
    let v = parse(line)?;
    let text = match v.get("type").and_then(Value::as_str)? {
        "user" => claude_prompt(&v).or_else(|| qwen_prompt(&v))?,
        "response_item" => codex_prompt(&v["payload"])?,
        _ => return None,
    };
    let t = text.trim();
    if is_wrapper(t) {
        return None;
    }
    Some((!t.is_empty()).then(|| t.chars().take(MAX_PROMPT_CHARS).collect()))
}

/// A transcript line as JSON. A line serde_json refuses only for a lone surrogate escape
/// (`\ud83d` without its pair, as JavaScript's `JSON.stringify` writes half an emoji cut off)
/// is read with each such escape as U+FFFD, so a prompt typed by a Node host still counts. A
/// line beyond [`crate::jsonbound::TRANSCRIPT_LINE`] (a megabyte of nested brackets in a tool's
/// input costs hundreds of megabytes parsed) is left unread, like one over the line cap.
fn parse(line: &[u8]) -> Option<Value> {
    if !crate::jsonbound::within(line, crate::jsonbound::TRANSCRIPT_LINE) {
        return None;
    }
    match serde_json::from_slice(line) {
        Ok(v) => Some(v),
        Err(_) if memchr::memmem::find(line, b"\\u").is_some() => {
            serde_json::from_slice(&lone_surrogates_replaced(line)).ok()
        }
        Err(_) => None,
    }
}

/// `line` with every `\uXXXX` escape of a lone surrogate (a high one not followed by a low
/// one's escape, or a low one not preceded by a high one) written as `\ufffd`. Other escapes,
/// `\\u` (an escaped backslash then `u`) among them, are copied as they are.
fn lone_surrogates_replaced(line: &[u8]) -> Vec<u8> {
    let unit = |at: usize| -> Option<u16> {
        let hex = line.get(at..at + 6)?;
        if &hex[..2] != b"\\u" {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        if line[i] != b'\\' {
            out.push(line[i]);
            i += 1;
            continue;
        }
        match unit(i) {
            Some(0xD800..=0xDBFF)
                if unit(i + 6).is_some_and(|lo| (0xDC00..=0xDFFF).contains(&lo)) =>
            {
                out.extend_from_slice(&line[i..i + 12]);
                i += 12;
            }
            Some(0xD800..=0xDFFF) => {
                out.extend_from_slice(b"\\ufffd");
                i += 6;
            }
            _ => {
                // Any other escape: the backslash and the character it escapes.
                let end = (i + 2).min(line.len());
                out.extend_from_slice(&line[i..end]);
                i = end;
            }
        }
    }
    out
}

fn claude_prompt(v: &Value) -> Option<String> {
    let flag = |k: &str| v.get(k).and_then(Value::as_bool) == Some(true);
    if flag("isMeta") || flag("isSidechain") || flag("isCompactSummary") {
        return None;
    }
    match &v["message"]["content"] {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => {
            let texts: Vec<&str> = items
                .iter()
                .filter(|i| i["type"] == "text")
                .filter_map(|i| i["text"].as_str())
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// Qwen Code's chat record: `{"type": "user", "provenance": "real_user", "message": {"parts":
/// [{"text": ...}]}}` (tool results and system lines carry other provenances).
fn qwen_prompt(v: &Value) -> Option<String> {
    if v["provenance"] != "real_user" {
        return None;
    }
    let texts: Vec<&str> = v["message"]["parts"]
        .as_array()?
        .iter()
        .filter_map(|p| p["text"].as_str())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

fn codex_prompt(p: &Value) -> Option<String> {
    if p["type"] != "message" || p["role"] != "user" {
        return None;
    }
    let texts: Vec<&str> = p["content"]
        .as_array()?
        .iter()
        .filter(|i| i["type"] == "input_text")
        .filter_map(|i| i["text"].as_str())
        .filter(|t| !is_wrapper(t.trim()))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// Text a host adds in the user's name: a tagged block (`<environment_context>...`,
/// `<local-command-stdout>...`, `<user_instructions>...`), or Codex's `# AGENTS.md
/// instructions` preamble.
fn is_wrapper(t: &str) -> bool {
    (t.starts_with('<') && t.ends_with('>')) || t.starts_with("# AGENTS.md instructions")
}

/// The running measurement over a turn's lines.
#[derive(Debug, Default)]
struct Measure {
    turn: Turn,
    /// Tool-call ids of `capn ask` runs, awaiting their output.
    asks: HashSet<String>,
    /// Files a `capn ask` hit named (at most [`MAX_HIT_FILES`], [`MAX_HITS_PER_NAME`] of a
    /// name), by file name: a read is compared only with the hit files of its name
    /// ([`same_file`] needs equal names).
    hit_files: HashMap<String, Vec<String>>,
    /// How many files `hit_files` holds.
    hit_count: usize,
}

impl Measure {
    fn line(&mut self, line: &[u8]) {
        if line.len() > MAX_PARSED_LINE {
            self.turn.output_bytes += line.len() as u64;
            return;
        }
        if !line.starts_with(b"{") {
            return;
        }
        let Some(v) = parse(line) else {
            return;
        };
        match v.get("type").and_then(Value::as_str) {
            Some("assistant") if v["isSidechain"] != true => {
                for item in v["message"]["content"].as_array().into_iter().flatten() {
                    self.text(item, "text");
                    if item["type"] == "tool_use" {
                        let id = item["id"].as_str().unwrap_or_default();
                        let name = item["name"].as_str().unwrap_or_default();
                        self.call(id, name, &item["input"]);
                    }
                }
            }
            Some("user") if v["isSidechain"] != true => {
                for item in v["message"]["content"].as_array().into_iter().flatten() {
                    if item["type"] == "tool_result" {
                        let id = item["tool_use_id"].as_str().unwrap_or_default();
                        let ok = item["is_error"] != true;
                        self.result(id, &text_of(&item["content"]), ok);
                    }
                }
            }
            Some("response_item") => self.codex_item(&v["payload"]),
            _ => {}
        }
        self.qwen_parts(&v);
    }

    /// Qwen Code's chat record keeps Gemini-style parts: an `assistant` line's
    /// `message.parts[].functionCall {id, name, args}`, a `tool_result` line's
    /// `message.parts[].functionResponse {id, response: {output}}`.
    fn qwen_parts(&mut self, v: &Value) {
        let kind = v.get("type").and_then(Value::as_str);
        if !matches!(kind, Some("assistant" | "tool_result")) {
            return;
        }
        let parts = v["message"]["parts"].as_array();
        let said: Vec<&str> = (parts.into_iter().flatten())
            .filter(|p| kind == Some("assistant") && p["thought"] != true)
            .filter_map(|p| p["text"].as_str())
            .collect();
        if !said.is_empty() {
            self.turn.final_text = Some(said.concat());
        }
        for part in parts.into_iter().flatten() {
            if let Some(call) = part.get("functionCall") {
                let id = call["id"].as_str().unwrap_or_default();
                let name = call["name"].as_str().unwrap_or_default();
                self.call(id, name, &call["args"]);
            }
            if let Some(resp) = part.get("functionResponse") {
                let id = resp["id"].as_str().unwrap_or_default();
                self.result(id, &text_of(&resp["response"]["output"]), true);
            }
        }
    }

    fn codex_item(&mut self, p: &Value) {
        let id = p["call_id"].as_str().unwrap_or_default();
        match p["type"].as_str() {
            Some("message") if p["role"] == "assistant" => {
                for item in p["content"].as_array().into_iter().flatten() {
                    self.text(item, "output_text");
                }
            }
            Some("function_call") => {
                let name = p["name"].as_str().unwrap_or_default();
                let args = match &p["arguments"] {
                    Value::String(s) => serde_json::from_str(s).unwrap_or(Value::Null),
                    v => v.clone(),
                };
                self.call(id, name, &args);
            }
            Some("custom_tool_call") => {
                let name = p["name"].as_str().unwrap_or_default();
                let input = p["input"].as_str().unwrap_or_default();
                self.call(id, name, &Value::String(input.to_string()));
            }
            Some("local_shell_call") => {
                let input = serde_json::json!({"command": p["action"]["command"].clone()});
                self.call(id, "shell", &input);
            }
            Some("function_call_output" | "custom_tool_call_output") => {
                // A miss prints no hit line, so every output is read for hits. A shell call's
                // output is a JSON string `{"output": "...", "metadata": {...}}`.
                let mut out = text_of(&p["output"]);
                if out.starts_with('{') {
                    if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(&out) {
                        if let Some(inner) = o.get("output") {
                            out = text_of(inner);
                        }
                    }
                }
                self.result(id, &out, true);
            }
            _ => {}
        }
    }

    /// A content block of an assistant message: the text of a `kind` block is the turn's
    /// final text so far ([`Turn::final_text`]).
    fn text(&mut self, item: &Value, kind: &str) {
        if item["type"] == kind {
            if let Some(t) = item["text"].as_str() {
                self.turn.final_text = Some(t.to_string());
            }
        }
    }

    fn call(&mut self, id: &str, name: &str, input: &Value) {
        self.turn.tool_calls += 1;
        self.turn.final_text = None;
        let names = &mut self.turn.tool_names;
        if !names.iter().any(|n| n == name) {
            let name = if names.len() < MAX_TOOL_NAMES {
                name
            } else {
                ""
            };
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
        let call = super::turn_tools::classify(name, input);
        self.turn.searches += u32::from(call.search);
        self.turn.subagents += u32::from(call.subagent);
        if call.charts {
            self.turn.charted = true;
        }
        if call.asks && !id.is_empty() {
            self.asks.insert(id.to_string());
        }
        for path in call.reads {
            self.read(path);
        }
        for path in call.edits {
            self.turn.edited.insert(path);
        }
    }

    fn read(&mut self, path: String) {
        let hits = self.hit_files.get(file_name(&path)).into_iter().flatten();
        if !self.turn.used_chart && hits.into_iter().any(|h| same_file(&path, h)) {
            self.turn.used_chart = true;
        }
        let files = &mut self.turn.files;
        if let Some(f) = files.iter_mut().find(|f| f.path == path) {
            f.reads += 1;
        } else if files.len() < MAX_TRACKED_FILES {
            files.push(FileRead { path, reads: 1 });
        }
    }

    fn result(&mut self, id: &str, output: &str, ok: bool) {
        self.turn.output_bytes += output.len() as u64;
        if !ok && !self.asks.contains(id) {
            self.turn.errors += 1;
        }
        if ok && self.asks.remove(id) {
            for f in ask_hit_files(output) {
                if self.hit_count == MAX_HIT_FILES {
                    break;
                }
                let same_name = self.hit_files.entry(file_name(&f).to_string()).or_default();
                if same_name.len() < MAX_HITS_PER_NAME {
                    same_name.push(f);
                    self.hit_count += 1;
                }
            }
        }
    }

    fn finish(self) -> Turn {
        self.turn
    }
}

/// A tool result's text: a string, the `text` of its content blocks, or Codex's `{"output":..}`
/// / `{"content":..}` object.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|i| i["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(o) => o
            .get("output")
            .or_else(|| o.get("content"))
            .map(text_of)
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// The files of the hits in `capn ask` output: lines that are JSON objects with `id`, `files`
/// and `score` (`capn ask --help`, "Output"); `candidate`/`related` lines of a miss do not count.
fn ask_hit_files(output: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in output.lines().map(str::trim) {
        if !line.starts_with('{') {
            continue;
        }
        if !crate::jsonbound::within(line.as_bytes(), crate::jsonbound::TRANSCRIPT_LINE) {
            continue;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v.get("id").is_none() || v.get("score").is_none() {
            continue;
        }
        let files = v["files"].as_array().into_iter().flatten();
        out.extend(files.filter_map(Value::as_str).map(str::to_string));
    }
    out
}

/// The last component of a path as a tool or an ask names it (after the last `/`).
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// True when `read` (as a tool named it: absolute, or relative to the cwd) and `charted` (relative
/// to the project root) name the same file: equal, or one ends with `/` and the other.
pub(crate) fn same_file(read: &str, charted: &str) -> bool {
    let a = read.trim_start_matches("./");
    let b = charted.trim_start_matches("./");
    if a.is_empty() || b.is_empty() {
        return false;
    }
    a == b
        || (a.len() > b.len() && a.ends_with(b) && a.as_bytes()[a.len() - b.len() - 1] == b'/')
        || (b.len() > a.len() && b.ends_with(a) && b.as_bytes()[b.len() - a.len() - 1] == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conformance(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/conformance/transcripts")
            .join(name)
    }

    #[test]
    fn the_last_real_prompt_of_a_claude_transcript() {
        // 1.jsonl ends with /compact: its summary (isCompactSummary), caveat (isMeta), command
        // and local output are not prompts; the last turn is "do something requiring multiple
        // tools": two Writes, a Read of a written file, three Bash runs.
        let t = read(&conformance("1.jsonl")).unwrap();
        assert!(t.complete);
        assert_eq!(
            t.prompt.as_deref(),
            Some("do something requiring multiple tools in one turn,")
        );
        assert_eq!((t.searches, t.tool_calls), (0, 6));
        assert_eq!(t.files.len(), 1);
        assert_eq!(t.explored_files().count(), 0, "data.txt was written first");
        assert!(!t.charted && !t.used_chart);
    }

    #[test]
    fn a_transcript_without_a_prompt_is_measured_whole() {
        // 2.jsonl starts mid-turn and its only user text is a compaction summary.
        let t = read(&conformance("2.jsonl")).unwrap();
        assert!(!t.complete);
        assert_eq!(t.prompt, None);
        assert_eq!(t.searches, 1);
        assert_eq!(t.tool_calls, 9);
    }

    #[test]
    fn the_last_prompt_of_a_codex_rollout() {
        let t = read(&conformance("codex-rollout-1.jsonl")).unwrap();
        assert!(t.complete);
        assert_eq!(t.prompt.as_deref(), Some("X8 after second compact"));
        assert_eq!(t.tool_calls, 0);
    }

    #[test]
    fn a_cut_first_line_and_garbage_are_skipped() {
        let tail = b"\"tool_result\"}]}}\nnot json\n{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n";
        let t = measure_at(tail, 0, false).unwrap();
        assert_eq!(t.prompt.as_deref(), Some("hi"));
        assert!(measure_at(b"not json\n", 0, false).is_none());
        assert!(!measure_at(b"not json\n", 0, true).unwrap().complete);
    }

    #[test]
    fn same_file_matches_on_path_boundaries() {
        assert!(same_file("/p/src/a.ts", "src/a.ts"));
        assert!(same_file("./src/a.ts", "src/a.ts"));
        assert!(!same_file("/p/xsrc/a.ts", "src/a.ts"));
        assert!(!same_file("", "a"));
    }
}
