//! What a search is looking for: the words of an agent's search tool call, as text to recall
//! over (proactive recall at the moment the agent searches, docs/offers.md).
//!
//! A search tool call is not a question. Its intent is spread over a regular expression
//! (`handleWebhook|stripe\.webhooks`), a glob (`**/billing/**/*.ts`), the paths it searches
//! (`src/api`), or, for a sub-agent launch, a natural-language prompt. [`from_tool_call`] turns
//! each shape into plain words: regex and glob syntax removed, identifiers kept whole (the
//! tokeniser splits camelCase and snake_case later), file extensions and shell flags dropped.
//!
//! Shapes understood (Claude Code tool inputs, its hooks docs' "PreToolUse"; Codex's shell tool):
//! - `Grep` `{pattern, path?, glob?, type?}`; `Glob` `{pattern, path?}`;
//! - `Task` / `Agent` `{prompt?, description?}` (a sub-agent such as Explore);
//! - the same tools of the other hosts under their own names (their host files' tool names,
//!   read by `tool_call::ToolUse`; `dir_path` and `include_pattern` read as `path` and `glob`);
//! - `Bash` `{command}` and Codex's shell `{command: "…" | ["bash", "-lc", "…"]}` or `{cmd}`, when a segment
//!   of the command line runs `grep`, `egrep`, `rg`, `ag`, `ack`, `git grep`, `find` or `fd`.
//!
//! Anything else (an edit, a build, `ls`, a search with nothing but syntax in it) is `None`.

pub(crate) mod tool_call;

use serde_json::Value;
use tool_call::ToolUse;

/// Where the words came from, which decides how strict an offer has to be: patterns are
/// identifier fragments, prompts are sentences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntentKind {
    /// A regex, glob or path search (Grep, Glob, a shell search).
    Pattern,
    /// A natural-language description (a sub-agent's prompt).
    Prose,
}

/// The words of one search, ready for recall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchIntent {
    /// Space-separated words (identifiers kept whole; no regex or glob syntax).
    pub text: String,
    /// Where they came from.
    pub kind: IntentKind,
}

/// The most characters of intent text kept (a pasted multi-kilobyte prompt says no more).
pub const MAX_INTENT_CHARS: usize = 2000;

/// The intent of a tool call, or `None` when it is not a search this module understands or
/// carries no words. `tool_name` is the host's (`Grep`, `Glob`, `Task`, `Agent`, `Bash`, `shell`,
/// `exec_command`...); `input` is its `tool_input` object.
pub fn from_tool_call(tool_name: &str, input: &Value) -> Option<SearchIntent> {
    let (text, kind) = match ToolUse::parse(tool_name, input) {
        ToolUse::Grep {
            pattern,
            path,
            filters: [glob, include_pattern, include],
        } => (
            join([
                regex_words(&pattern),
                path_words(&path),
                glob_words(&glob),
                glob_words(&include_pattern),
                glob_words(&include),
            ]),
            IntentKind::Pattern,
        ),
        ToolUse::Glob { pattern, path } => (
            join([glob_words(&pattern), path_words(&path)]),
            IntentKind::Pattern,
        ),
        ToolUse::Subagent {
            description,
            prompt,
        } => (join([description, prompt]), IntentKind::Prose),
        ToolUse::Shell(line) => (from_shell_command(&line?)?, IntentKind::Pattern),
        ToolUse::Read(_) | ToolUse::Edit(_) | ToolUse::Patch(_) | ToolUse::Plan => return None,
    };
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if !text.chars().any(char::is_alphanumeric) {
        return None;
    }
    Some(SearchIntent {
        text: text.chars().take(MAX_INTENT_CHARS).collect(),
        kind,
    })
}

/// The command line of a shell tool call's input: `command` as a string or a Codex argv
/// (`["bash", "-lc", "…"]`, unwrapped to the script), or Codex `exec_command`'s `cmd`; `None`
/// for an input without one.
pub fn command_line(input: &Value) -> Option<String> {
    match input.get("command").or_else(|| input.get("cmd"))? {
        Value::String(c) => Some(c.clone()),
        Value::Array(argv) => argv_command(argv),
        _ => None,
    }
}

/// The simple commands of a command line, each as its argv (split like
/// [`from_shell_command`]: at `|`, `&&`, `||`, `;`, `&` and newlines outside quotes), with
/// leading environment assignments and `sudo`/`command`/`xargs`/`nice`/`time` taken off, the
/// program as `program_name` spells it, and `bash -c "…"` scripts opened up. A segment that
/// does not split (an open quote) is left out.
pub fn simple_commands(command: &str) -> Vec<Vec<String>> {
    command_steps(command)
        .into_iter()
        .map(|s| s.argv)
        .filter(|a| !a.is_empty())
        .collect()
}

/// One simple command of a command line ([`command_steps`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Its argv, as [`simple_commands`] gives it.
    pub argv: Vec<String>,
    /// A pipe (`|`) feeds it the output of the step before.
    pub piped: bool,
    /// It ran under `xargs` (its arguments come from its input too), or its segment did not
    /// split into words (an open quote): what it touches is not all in `argv`.
    pub opaque: bool,
}

/// [`simple_commands`] with each step's pipe and `xargs` (see [`Step`]); a segment that does not
/// split is kept as an `opaque` step with an empty argv.
pub fn command_steps(command: &str) -> Vec<Step> {
    let mut out = Vec::new();
    for (segment, piped) in split_segments(command) {
        let Ok(argv) = shell_words::split(segment) else {
            out.push(Step {
                argv: Vec::new(),
                piped,
                opaque: true,
            });
            continue;
        };
        let skip = argv
            .iter()
            .take_while(|a| {
                a.contains('=') && !a.starts_with('-')
                    || matches!(a.as_str(), "sudo" | "command" | "xargs" | "nice" | "time")
            })
            .count();
        let opaque = argv[..skip].iter().any(|a| a == "xargs");
        let Some(prog) = argv.get(skip).map(|p| program_name(p)) else {
            continue;
        };
        let rest = &argv[skip + 1..];
        if let Some(script) = shell_script(&prog, rest) {
            if script != command {
                let mut inner = command_steps(&script);
                if let Some(first) = inner.first_mut() {
                    first.piped |= piped;
                }
                out.extend(inner);
            }
            continue;
        }
        let mut argv = vec![prog];
        argv.extend(rest.iter().cloned());
        out.push(Step {
            argv,
            piped,
            opaque,
        });
    }
    out
}

/// A Codex argv (`["bash", "-lc", "rg foo src"]`, `["powershell.exe", "-Command", "rg foo"]`,
/// or `["rg", "foo"]`) as one command line.
fn argv_command(argv: &[Value]) -> Option<String> {
    let parts: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
    if let [shell, rest @ ..] = parts.as_slice() {
        if let Some(script) = shell_script(&program_name(shell), rest) {
            return Some(script);
        }
    }
    (!parts.is_empty()).then(|| shell_words::join(parts))
}

/// The name a program is known by, whatever the system spelled: the last component of `path`
/// (after `/`, or `\` as Windows writes it), lowercase, without `.exe` (`C:\Git\bin\bash.exe`
/// and `/usr/bin/bash` are both `bash`).
fn program_name(path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let name = name.to_ascii_lowercase();
    match name.strip_suffix(".exe") {
        Some(stem) => stem.to_string(),
        None => name,
    }
}

/// The script a shell `prog` is told to run by its arguments `rest`, when it is: `bash -lc
/// "…"` (sh, zsh, dash too), `powershell -NoProfile -Command "…"` (pwsh too; `-c` and any
/// abbreviation of `-Command`, PowerShell's own rule; the remaining arguments are the script,
/// joined by spaces), `cmd /c …` (`/k` too; the remaining arguments, joined).
fn shell_script<S: AsRef<str>>(prog: &str, rest: &[S]) -> Option<String> {
    let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
    match prog {
        "bash" | "sh" | "zsh" | "dash" => match rest.as_slice() {
            [flag, script, ..] if flag.starts_with('-') && flag.contains('c') => {
                Some(script.to_string())
            }
            _ => None,
        },
        "powershell" | "pwsh" => {
            let at = rest.iter().position(|a| {
                let a = a.to_ascii_lowercase();
                a.len() >= 2 && "-command".starts_with(&a)
            })?;
            let script = rest[at + 1..].join(" ");
            (!script.trim().is_empty()).then_some(script)
        }
        "cmd" => {
            let at = rest
                .iter()
                .position(|a| a.eq_ignore_ascii_case("/c") || a.eq_ignore_ascii_case("/k"))?;
            let script = rest[at + 1..].join(" ");
            (!script.trim().is_empty()).then_some(script)
        }
        _ => None,
    }
}

fn join<const N: usize>(parts: [String; N]) -> String {
    parts
        .iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| p.trim())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of every search in a shell command line (segments split at `|`, `&&`, `||`, `;`
/// and newlines); `None` when no segment is a search. A search fed by a pipe counts only when
/// what feeds it reads the code (`cat`, `head`, a file listing, another search): `cargo test |
/// grep ...` or `ps aux | grep ...` filters a program's output, not the project.
pub fn from_shell_command(command: &str) -> Option<String> {
    let mut found = false;
    let mut words = Vec::new();
    let mut upstream: Option<Vec<String>> = None;
    for (segment, piped) in split_segments(command) {
        let argv = shell_words::split(segment).unwrap_or_default();
        let fed_by_code = upstream.as_deref().is_some_and(reads_code);
        if !piped || fed_by_code {
            if let Some(w) = search_words(&argv) {
                found = true;
                words.push(w);
            }
        }
        upstream = (!argv.is_empty()).then_some(argv);
    }
    found.then(|| words.join(" "))
}

/// True when the command `argv` prints the project's files or their names (what a search fed
/// by it then searches): a file reader, a file listing, or a search.
fn reads_code(argv: &[String]) -> bool {
    let prog = argv.first().map_or(String::new(), |p| program_name(p));
    match prog.as_str() {
        "cat" | "bat" | "head" | "tail" | "less" | "more" | "nl" | "find" | "fd" | "fdfind"
        | "ls" | "tree" | "rg" | "ag" | "ack" | "grep" | "egrep" | "fgrep" => true,
        "git" => argv
            .get(1)
            .is_some_and(|s| matches!(s.as_str(), "ls-files" | "grep" | "show")),
        _ => false,
    }
}

/// `command` split at the control operators `|`, `||`, `&&`, `&`, `;` and newlines that are not
/// inside quotes or escaped (a pattern like `'refund|chargeback'` stays whole), each segment
/// with whether a pipe (`|`, not `||`) feeds it.
fn split_segments(command: &str) -> Vec<(&str, bool)> {
    let mut out: Vec<(&str, bool)> = Vec::new();
    let mut piped = false;
    let (mut start, mut quote, mut escaped) = (0, None, false);
    for (i, c) in command.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"'), '\\') | (None, '\\') => escaped = true,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '|' | ';' | '&' | '\n') => {
                out.push((&command[start..i], piped));
                // `||` leaves an empty segment between its two bars: a pipe feeds the next one
                // only from a command.
                piped = c == '|' && !command[start..i].trim().is_empty();
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push((&command[start..], piped));
    out
}

/// The search tools whose arguments this module reads, by how their flags take values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    /// grep, egrep, fgrep, git grep.
    Grep,
    /// rg, ag, ack.
    Ripgrep,
    /// fd.
    Fd,
}

/// Short flags that take a value in the next argument, per tool (so the value is not taken for
/// the pattern or a path); long flags are matched by [`LONG_VALUE_FLAGS`]. `-e` (a pattern; for
/// fd an extension) is handled by [`flag_value_words`].
fn takes_value(tool: Tool, flag: &str) -> bool {
    let short: &[&str] = match tool {
        Tool::Grep => &["-A", "-B", "-C", "-m", "-e", "-f", "-d", "-D", "-O"],
        Tool::Ripgrep => &[
            "-A", "-B", "-C", "-m", "-e", "-f", "-g", "-t", "-T", "-j", "-M", "-E", "-d", "-r",
        ],
        Tool::Fd => &["-e", "-t", "-E", "-d", "-x", "-X", "-j", "-c", "-S"],
    };
    short.contains(&flag) || LONG_VALUE_FLAGS.contains(&flag)
}

/// Long flags of grep, rg and fd that take a value in the next argument.
const LONG_VALUE_FLAGS: &[&str] = &[
    "--glob",
    "--iglob",
    "--type",
    "--type-not",
    "--type-add",
    "--max-count",
    "--context",
    "--after-context",
    "--before-context",
    "--max-depth",
    "--min-depth",
    "--threads",
    "--file",
    "--exclude",
    "--include",
    "--exclude-dir",
    "--color",
    "--colors",
    "--sort",
    "--sortr",
    "--encoding",
    "--max-filesize",
    "--extension",
    "--regexp",
    "--ignore-file",
    "--exec",
    "--exec-batch",
    "--replace",
    "--max-columns",
    "--pre",
    "--pre-glob",
    "--size",
    "--changed-within",
    "--changed-before",
    "--owner",
    "--base-directory",
    "--search-path",
    "--label",
    "--binary-files",
    "--devices",
    "--directories",
];

/// The words of one simple command, when it is a search.
fn search_words(argv: &[String]) -> Option<String> {
    let mut i = 0;
    // Leading environment assignments, `sudo`, `command`, `cd x &&` already split off.
    while i < argv.len()
        && (argv[i].contains('=') && !argv[i].starts_with('-')
            || matches!(
                argv[i].as_str(),
                "sudo" | "command" | "xargs" | "nice" | "time"
            ))
    {
        i += 1;
    }
    let prog = program_name(argv.get(i)?);
    let rest = &argv[i + 1..];
    match prog.as_str() {
        "grep" | "egrep" | "fgrep" => Some(grep_like(Tool::Grep, rest)),
        "rg" | "ag" | "ack" => Some(grep_like(Tool::Ripgrep, rest)),
        "git" if rest.first().is_some_and(|a| a == "grep") => {
            Some(grep_like(Tool::Grep, &rest[1..]))
        }
        "fd" | "fdfind" => Some(grep_like(Tool::Fd, rest)),
        "find" => Some(find_words(rest)),
        // `bash -lc "rg ..."` (or `powershell -Command`, `cmd /c`) written as one string: the
        // script is the command.
        "bash" | "sh" | "zsh" | "dash" | "powershell" | "pwsh" | "cmd" => {
            from_shell_command(&shell_script(&prog, rest)?)
        }
        _ => None,
    }
}

/// grep/rg/ag/ack/fd arguments: the first operand (or every `-e` value) is the pattern, the
/// other operands are paths; `-g`/`--glob`/`--include` values are globs.
fn grep_like(tool: Tool, args: &[String]) -> String {
    let mut pattern_given = false;
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a == "--" {
            continue;
        }
        if let Some((flag, value)) = a.split_once('=').filter(|(f, _)| f.starts_with("--")) {
            out.push(flag_value_words(tool, flag, value, &mut pattern_given));
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            if takes_value(tool, a) {
                if let Some(v) = args.get(i) {
                    out.push(flag_value_words(tool, a, v, &mut pattern_given));
                    i += 1;
                }
            }
            continue;
        }
        if pattern_given {
            out.push(path_words(a));
        } else {
            out.push(regex_words(a));
            pattern_given = true;
        }
    }
    out.join(" ")
}

fn flag_value_words(tool: Tool, flag: &str, value: &str, pattern_given: &mut bool) -> String {
    match flag {
        "-e" | "--extension" if tool == Tool::Fd => String::new(),
        "-e" | "--regexp" => {
            *pattern_given = true;
            regex_words(value)
        }
        "-g" | "--glob" | "--iglob" | "--include" => glob_words(value),
        _ => String::new(),
    }
}

/// find arguments: the starting paths, and the values of `-name`, `-iname`, `-path`,
/// `-ipath`, `-regex`, `-iregex`.
fn find_words(args: &[String]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        match a {
            "-name" | "-iname" | "-path" | "-ipath" | "-wholename" => {
                if let Some(v) = args.get(i) {
                    out.push(glob_words(v));
                    i += 1;
                }
            }
            "-regex" | "-iregex" => {
                if let Some(v) = args.get(i) {
                    out.push(regex_words(v));
                    i += 1;
                }
            }
            "-exec" | "-execdir" | "-ok" => break,
            _ if a.starts_with('-') || a == "(" || a == ")" || a == "!" => {
                // Tests with a value (`-type f`, `-maxdepth 2`, `-newer x`): skip the value.
                if matches!(
                    a,
                    "-type"
                        | "-maxdepth"
                        | "-mindepth"
                        | "-newer"
                        | "-mtime"
                        | "-size"
                        | "-perm"
                        | "-user"
                        | "-group"
                ) {
                    i += 1;
                }
            }
            _ => out.push(path_words(a)),
        }
    }
    out.join(" ")
}

/// The words of a regular expression: escapes (`\b`, `\s+`, `\.`) and syntax removed, literal
/// runs of letters, digits, `_` and `-` kept.
pub fn regex_words(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    let mut class_depth = 0;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                // `\.` is a literal dot (a word break); `\bword`, `\s`, `\d`, `\w`: syntax.
                chars.next();
                out.push(' ');
            }
            '[' => {
                class_depth += 1;
                out.push(' ');
            }
            ']' => {
                class_depth = 0;
                out.push(' ');
            }
            '{' => {
                // Repetition counts `{2,3}`: skipped.
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                }
                out.push(' ');
            }
            c if class_depth > 0 => {
                let _ = c;
            }
            c if c.is_alphanumeric() || c == '_' || c == '-' => out.push(c),
            _ => out.push(' '),
        }
    }
    words_only(&out)
}

/// The words of a glob: wildcards and braces removed, a trailing file extension dropped. One
/// pass over the glob: an extension group `.{ts,tsx}` (alternative extensions, not words) is
/// skipped through its `}`, and segments end at `/`, `{`, `}`, `,` and spaces.
pub fn glob_words(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len());
    let mut segment = String::new();
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '.' && chars.peek() == Some(&'{') {
            push_segment(&mut out, &mut segment);
            for d in chars.by_ref() {
                if d == '}' {
                    break;
                }
            }
            continue;
        }
        if matches!(c, '/' | '{' | '}' | ',' | ' ') {
            push_segment(&mut out, &mut segment);
        } else {
            segment.push(c);
        }
    }
    push_segment(&mut out, &mut segment);
    words_only(&out)
}

/// Appends `segment`'s words (extension stripped, anything but letters, digits, `_` and `-` a
/// space) to `out`, and empties it.
fn push_segment(out: &mut String, segment: &mut String) {
    out.push(' ');
    for c in strip_extension(segment).chars() {
        out.push(if c.is_alphanumeric() || c == '_' || c == '-' {
            c
        } else {
            ' '
        });
    }
    segment.clear();
}

/// The words of a path: its segments, with a file's extension and `.`/`..` dropped.
pub fn path_words(path: &str) -> String {
    glob_words(path)
}

/// `name.ext` without `.ext` when the extension looks like one (1-5 letters or digits, not the
/// whole name); everything else unchanged.
fn strip_extension(segment: &str) -> &str {
    match segment.rsplit_once('.') {
        Some((stem, ext))
            if !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            stem
        }
        _ => segment,
    }
}

/// Whitespace-separated words of `s` that hold a letter (lone digits and dashes dropped).
fn words_only(s: &str) -> String {
    s.split_whitespace()
        .map(|w| w.trim_matches('-'))
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(tool: &str, input: Value) -> Option<String> {
        from_tool_call(tool, &input).map(|i| i.text)
    }

    #[test]
    fn grep_and_glob_inputs_become_words() {
        assert_eq!(
            text("Grep", json!({"pattern": "handleWebhook|stripe\\.webhooks", "path": "src/api", "glob": "*.ts"})).unwrap(),
            "handleWebhook stripe webhooks src api"
        );
        assert_eq!(
            text(
                "Grep",
                json!({"pattern": "\\bfunction\\s+renderCertificate\\(", "type": "ts"})
            )
            .unwrap(),
            "function renderCertificate"
        );
        assert_eq!(
            text("Glob", json!({"pattern": "**/billing/**/*.ts"})).unwrap(),
            "billing"
        );
        assert_eq!(
            text("Glob", json!({"pattern": "src/**/*certificate*.{ts,tsx}"})).unwrap(),
            "src certificate"
        );
        assert_eq!(text("Grep", json!({"pattern": "[a-z]+\\d{2,3}"})), None);
        assert_eq!(text("Glob", json!({"pattern": "**/*.md"})), None);
    }

    /// Codex's `grep_files` and an `exec_command` `cmd` are searches too.
    #[test]
    fn every_hosts_search_tools_are_read() {
        assert_eq!(
            text(
                "grep_files",
                json!({"pattern": "handleWebhook", "path": "src/api"})
            )
            .unwrap(),
            "handleWebhook src api"
        );
        assert_eq!(
            text("exec_command", json!({"cmd": "rg -n webhook src"})).unwrap(),
            "webhook src"
        );
    }

    #[test]
    fn sub_agent_prompts_are_prose() {
        let i = from_tool_call(
            "Task",
            &json!({"description": "Find PDF rendering", "prompt": "Where are certificates rendered?", "subagent_type": "Explore"}),
        )
        .unwrap();
        assert_eq!(i.kind, IntentKind::Prose);
        assert_eq!(
            i.text,
            "Find PDF rendering Where are certificates rendered?"
        );
    }

    #[test]
    fn shell_searches_are_understood_and_other_commands_are_not() {
        let bash = |c: &str| text("Bash", json!({ "command": c }));
        assert_eq!(
            bash("rg -n 'rateLimit' src/ -g '*.ts'").unwrap(),
            "rateLimit src"
        );
        assert_eq!(
            bash("cd web && grep -rn --include=*.tsx \"useSession\" app").unwrap(),
            "useSession app"
        );
        assert_eq!(
            bash("git grep -n -e pdf -e seal -- lib").unwrap(),
            "pdf seal lib"
        );
        assert_eq!(
            bash("find . -type f -iname '*invoice*' -not -path './node_modules/*'").unwrap(),
            "invoice node_modules"
        );
        assert_eq!(
            bash("fd -e ts certificate src/pdf").unwrap(),
            "certificate src pdf"
        );
        assert_eq!(
            bash("cat package.json | grep -A 3 '\"scripts\"'").unwrap(),
            "scripts"
        );
        assert_eq!(
            bash("grep -rnE 'refund|chargeback' apps/api").unwrap(),
            "refund chargeback apps api"
        );
        assert_eq!(
            bash("grep -E 'refund|chargeback' -o lib").unwrap(),
            "refund chargeback lib"
        );
        assert_eq!(
            bash("find . -name '*.rs' | grep -v target | xargs grep -l flock").unwrap(),
            "target flock"
        );
        // A search fed by a program's output filters that output: not a search of the code.
        assert_eq!(
            bash("cargo test 2>&1 | grep -i 'statusline percentage'"),
            None
        );
        assert_eq!(bash("ps aux | grep capn"), None);
        assert_eq!(bash("make || grep -rn webhook src").unwrap(), "webhook src");
        assert_eq!(bash("cargo test"), None);
        assert_eq!(bash("ls -la src"), None);
        let codex = json!({"command": ["bash", "-lc", "rg -n \"webhook\" apps/web"]});
        assert_eq!(text("shell", codex).unwrap(), "webhook apps web");
        let codex = json!({"command": "bash -lc \"rg -n 'flock|writers' src/store\""});
        assert_eq!(text("shell", codex).unwrap(), "flock writers src store");
        assert_eq!(bash("bash -c 'cargo build'"), None);
        let codex = json!({"command": ["rg", "TODO"]});
        assert_eq!(text("shell", codex).unwrap(), "TODO");
    }

    #[test]
    fn brace_groups_are_read_in_one_pass() {
        assert_eq!(glob_words("a.{ts,tsx}b/c.{x"), "a b c");
        assert_eq!(glob_words("x..{y}z.{a}w"), "x z w");
        assert_eq!(glob_words("{billing,invoice}/*.rs"), "billing invoice");
        // 400 KB of `x.{a}` groups: linear, where splicing each group out was quadratic.
        let big = "x.{a}".repeat(80_000);
        let t = std::time::Instant::now();
        assert_eq!(glob_words(&big).split(' ').count(), 80_000);
        // A hang guard, not a speed check: the quadratic splice took minutes on this input.
        assert!(
            t.elapsed() < std::time::Duration::from_secs(120),
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn windows_shells_and_program_paths_are_seen_through() {
        let bash = |c: &str| text("Bash", json!({ "command": c }));
        for argv in [
            json!([
                "C:\\Program Files\\Git\\bin\\bash.exe",
                "-lc",
                "rg -n webhook src"
            ]),
            json!([
                "powershell.exe",
                "-NoProfile",
                "-Command",
                "rg -n webhook src"
            ]),
            json!(["pwsh", "-c", "rg", "-n", "webhook", "src"]),
            json!(["PowerShell", "-Com", "rg -n webhook src"]),
            json!(["C:\\Windows\\System32\\cmd.exe", "/C", "rg -n webhook src"]),
            json!(["cmd", "/d", "/s", "/c", "rg", "-n", "webhook", "src"]),
        ] {
            assert_eq!(
                text("shell", json!({ "command": argv })).as_deref(),
                Some("webhook src"),
                "{argv}"
            );
        }
        assert_eq!(
            bash("powershell -NoProfile -Command \"rg -n webhook src\"").as_deref(),
            Some("webhook src")
        );
        assert_eq!(
            bash("cmd /c \"grep -rn webhook src\"").as_deref(),
            Some("webhook src")
        );
        assert_eq!(bash("RG.EXE webhook src").as_deref(), Some("webhook src"));
        // No script: nothing to look into.
        assert_eq!(
            text("shell", json!({"command": ["powershell", "-NoProfile"]})),
            None
        );
        assert_eq!(bash("cmd /c"), None);
    }
}
