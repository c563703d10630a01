//! What one tool call of a turn did, for the Stop hook's measure ([`super::turn`]): a search, a
//! file read, an edit, `capn chart` or `capn ask`. Tool names are the hosts' (their host files'
//! tool tables, read by [`ToolUse::parse`]: Claude Code's `Grep`, `Read`, `Edit`, `Bash`...,
//! Codex's `shell`, `exec_command`, `read_file`, `apply_patch`..., OpenCode's `read`, `edit`,
//! `write` with `filePath`); shell command lines are split into simple commands by
//! [`crate::recall::intent::simple_commands`].

use crate::hosts::ToolKind;
use crate::recall::intent;
use crate::recall::intent::tool_call::ToolUse;
use serde_json::Value;

/// The most paths one tool call contributes.
const MAX_PATHS: usize = 64;

/// What a tool call did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ToolCall {
    /// A search: Grep, Glob, `grep_files`, a sub-agent (Task, Agent, Explore), or a shell
    /// command line with a search in it ([`intent::from_shell_command`]: `rg`, `grep`, `find`,
    /// `fd`, `ag`, `ack`, `git grep`; a grep that filters a program's output is not one).
    pub search: bool,
    /// A sub-agent launch (Task, Agent, Explore): a search whose own calls the turn does not see.
    pub subagent: bool,
    /// Paths read (Read's `file_path`, `read_file`'s path, OpenCode `read`'s `filePath`,
    /// shell `cat`, `head`, `tail`, `nl`, `bat`, `less`, `more`, `sed -n`).
    pub reads: Vec<String>,
    /// Paths edited or written (Edit, MultiEdit, Write, NotebookEdit, `apply_patch`).
    pub edits: Vec<String>,
    /// The call ran `capn chart`.
    pub charts: bool,
    /// The call ran `capn ask`.
    pub asks: bool,
    /// The questions the call's `capn ask` runs ask, as `ask` will record them (trimmed; not
    /// when the run has extra positional arguments, which `ask` refuses).
    pub asked: Vec<String>,
    /// A shell call that also ran something that may show the agent other files than `reads`:
    /// a program that is not a read, an edit, a search, `cd` or capn (`git show`, `ls`, `awk`,
    /// `python -c`...), a read under `xargs`, a command substitution, or a read whose output
    /// a pipe feeds to a program that does more than page it.
    pub other: bool,
}

/// Classifies one tool call by its `name` and `input` object (see [`ToolCall`]), as
/// [`ToolUse::parse`] reads it.
pub(crate) fn classify(name: &str, input: &Value) -> ToolCall {
    let mut c = ToolCall::default();
    match ToolUse::parse(name, input) {
        ToolUse::Grep { .. } | ToolUse::Glob { .. } => c.search = true,
        ToolUse::Subagent { .. } => {
            c.search = true;
            c.subagent = true;
        }
        ToolUse::Read(path) => c.reads.extend(path),
        ToolUse::Edit(path) => c.edits.extend(path),
        ToolUse::Patch(patch) => c.edits.extend(patch.iter().flat_map(|p| patched_files(p))),
        ToolUse::Plan => {}
        ToolUse::Shell(line) => {
            if let Some(line) = line {
                shell(&line, &mut c);
            }
        }
    }
    c.reads.truncate(MAX_PATHS);
    c.edits.truncate(MAX_PATHS);
    c
}

/// True when a tool call named `name` (as the host's transcript names it) is one the tool hook
/// `init` registers for `host` is shown ([`crate::hosts::HostSpec::hook_sees`]: its matcher;
/// OpenCode's plugin sees every tool), or one that only edits or plans (any host's
/// [`ToolKind::Edit`], [`ToolKind::Patch`] or [`ToolKind::Plan`]: `Edit`, `Write`, `apply_patch`,
/// `TodoWrite`...), which looks at no other file. An MCP tool, Codex's `grep_files` or
/// `list_dir`, Gemini CLI's `read_many_files` or `list_directory`, a web fetch: not shown, so
/// the hooks cannot tell what they looked at.
pub(crate) fn shown_to_hook(host: crate::hosts::Host, name: &str) -> bool {
    matches!(
        crate::hosts::tool_kind(name),
        Some(ToolKind::Edit | ToolKind::Patch | ToolKind::Plan)
    ) || host.spec().hook_sees(name)
}

/// A shell command line's searches, reads, edits (`apply_patch` through the shell) and capn runs.
fn shell(line: &str, c: &mut ToolCall) {
    c.search = intent::from_shell_command(line).is_some();
    // What a substitution runs is not in the words: it may read anything.
    c.other = line.contains("$(") || line.contains('`') || line.contains("<(");
    let steps = intent::command_steps(line);
    for (i, step) in steps.iter().enumerate() {
        let argv = unwrapped(&step.argv);
        let Some((prog, rest)) = argv.split_first() else {
            c.other = true;
            continue;
        };
        let prog = prog.as_str();
        // Its output fed to a program that does more than page it (`| wc -c`, `| xargs cat`):
        // the file was not read by the agent.
        let shown = steps
            .get(i + 1)
            .filter(|next| next.piped)
            .is_none_or(|next| pages(&next.argv));
        let mut reads = Vec::new();
        // Input from a file (`< f`, `0<f`, `<<<`): that file is shown, unnamed as a read.
        let fed = rest.iter().any(|a| {
            a.trim_start_matches(|c: char| c.is_ascii_digit())
                .starts_with('<')
        });
        match prog {
            _ if fed && !matches!(prog, "capn" | "capn-hook") => c.other = true,
            _ if reads_nothing(rest) => {}
            _ if step.opaque => c.other = true,
            "capn" | "capn-hook" => capn_run(rest, c),
            "npx" | "bunx" | "pnpx" if rest.first().is_some_and(|p| p.starts_with("capn")) => {
                capn_run(&rest[1..], c)
            }
            "cat" | "bat" | "batcat" | "nl" | "less" | "more" => {
                reads.extend(positional(rest, &[]));
            }
            "head" | "tail" if zero_count(rest) || follows(rest) => {}
            "head" | "tail" => reads.extend(positional(rest, &["-n", "-c"])),
            "sed" if in_place(rest) => c.edits.extend(sed_files(rest)),
            "sed" if plain_sed(rest).is_some_and(|f| !f.is_empty()) => {
                reads.extend(sed_files(rest))
            }
            // Paging a read's output (`cat a | sed -n 1,40p`).
            "sed" if step.piped && plain_sed(rest).is_some_and(<[String]>::is_empty) => {}
            // Any other script may print nothing, or run (`e`) or read (`r`) other files.
            "sed" => c.other = true,
            "apply_patch" | "applypatch" => {
                c.edits.extend(rest.iter().flat_map(|p| patched_files(p)));
            }
            // A glob or a variable may name any file (`echo lib/*`).
            "echo" | "printf" if rest.iter().any(|a| a.contains(EXPANDS)) => c.other = true,
            "cd" | "pushd" | "popd" | "pwd" | "true" | "echo" | "printf" => {}
            // A search is `search` already; anything else may look at other files.
            _ => c.other = true,
        }
        if shown {
            c.reads.extend(reads);
        }
    }
    // A device (`cat /dev/null > f`) is no file read.
    c.reads.retain(|p| !p.starts_with("/dev/"));
    // Only one plain read is a read; a line that reads and does more may show other files.
    if !c.reads.is_empty() && !plain_read(line) {
        c.reads.clear();
        c.other = true;
    }
}

/// Characters through which the shell may make an argument name other files than it spells:
/// globs, braces, variables, `~`.
const EXPANDS: [char; 7] = ['*', '?', '[', '{', '$', '~', '\\'];

/// True when a shell line is one plain read whose words name every file it shows: one
/// reader (`cat`, `bat`, `nl`, `less`, `more`, `head`, `tail`, or `sed` with a plain script,
/// [`plain_sed`]), optionally under a wrapper (`timeout`, `env`...), with literal paths, its
/// output shown or fed by a pipe only to steps that page it ([`pages`]); its errors may go to
/// `2>&1` or `2>/dev/null`. Anything else (`;`, `&&`, `||`, `&`, `<`, `>`, a substitution, a
/// variable, a glob, `cd`) makes it no read: what it shows cannot be told from its words.
fn plain_read(line: &str) -> bool {
    let mut l = line.trim().to_string();
    for ok in ["2>&1", "2>/dev/null", "2> /dev/null"] {
        l = l.replace(ok, " ");
    }
    let separators = [';', '&', '<', '>', '`', '\n', '(', ')'];
    if l.contains(separators) || l.contains(EXPANDS) {
        return false;
    }
    let steps = intent::command_steps(&l);
    let Some((first, rest)) = steps.split_first() else {
        return false;
    };
    let Some((prog, args)) = unwrapped(&first.argv).split_first() else {
        return false;
    };
    let reader = match prog.as_str() {
        "cat" | "bat" | "batcat" | "nl" | "less" | "more" | "head" | "tail" => true,
        "sed" => plain_sed(args).is_some_and(|f| !f.is_empty()),
        _ => false,
    };
    reader && !first.opaque && rest.iter().all(|s| s.piped && !s.opaque && pages(&s.argv))
}

/// The files of a `sed` run whose script only prints a range of lines: `-n` (`--quiet`,
/// `--silent`) with `Np` or `A,Bp` (line numbers from 1), or `Nq` without it (the first N
/// lines); `None` for any other script or option.
fn plain_sed(rest: &[String]) -> Option<&[String]> {
    let quiet = matches!(
        rest.first().map(String::as_str),
        Some("-n" | "--quiet" | "--silent")
    );
    let (script, files) = rest[usize::from(quiet)..].split_first()?;
    let line = |s: &str| {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && s.bytes().any(|b| b != b'0')
    };
    let plain = match quiet {
        true => script
            .strip_suffix('p')
            .is_some_and(|r| match r.split_once(',') {
                Some((a, b)) => line(a) && line(b),
                None => line(r),
            }),
        false => script.strip_suffix('q').is_some_and(line),
    };
    (plain && files.iter().all(|f| !f.starts_with('-'))).then_some(files)
}

/// True when a step fed by a pipe only pages or cuts what it is given (`head`, `tail`, `nl`,
/// `cat`, `less`, `more`, `sed -n 1,40p` without files): the output still reaches the agent.
fn pages(argv: &[String]) -> bool {
    let Some((prog, rest)) = argv.split_first() else {
        return false;
    };
    match prog.as_str() {
        "head" | "tail" => !zero_count(rest) && positional(rest, &["-n", "-c"]).is_empty(),
        "nl" | "cat" | "less" | "more" | "bat" | "batcat" => positional(rest, &[]).is_empty(),
        "sed" => plain_sed(rest).is_some_and(<[String]>::is_empty),
        _ => false,
    }
}

/// `tail -f` (`-F`, `--follow`): it waits on the file rather than showing it.
fn follows(rest: &[String]) -> bool {
    rest.iter().any(|a| {
        a == "--follow"
            || a.starts_with("--follow=")
            || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains(['f', 'F']))
    })
}

/// `sed -i` (`--in-place`): it edits its files.
fn in_place(rest: &[String]) -> bool {
    rest.iter().any(|a| {
        a.starts_with("--in-place")
            || (a.starts_with('-') && !a.starts_with("--") && a[1..].starts_with('i'))
    })
}

/// The command a wrapper runs (`timeout 10 capn ask ...`, `env A=b capn ...`, `nice`, `nohup`,
/// `time`, `command`, `exec`): its own options, `timeout`'s duration and `env`'s assignments
/// skipped; any other command as it is.
fn unwrapped(argv: &[String]) -> &[String] {
    let mut rest = argv;
    while let Some((prog, tail)) = rest.split_first() {
        let wrapper = matches!(
            prog.as_str(),
            "timeout" | "env" | "nice" | "nohup" | "time" | "command" | "exec"
        );
        if !wrapper {
            break;
        }
        let mut i = tail
            .iter()
            .take_while(|a| a.starts_with('-') || (prog == "env" && a.contains('=')))
            .count();
        if prog == "timeout" && i < tail.len() {
            i += 1; // the duration
        }
        rest = &tail[i..];
    }
    rest
}

/// True when a command's output goes into a file (`> f`, `>> f`, `1>f`, `&> f`, `>| f`; not
/// `2> f` nor `>&2`): it writes that file, so none of its arguments count as read
/// (`cat /dev/null > f`, `cat a >> f`).
fn reads_nothing(rest: &[String]) -> bool {
    rest.iter().any(|a| {
        let a = a.strip_prefix(['1', '&']).unwrap_or(a);
        a.starts_with('>') && !a.starts_with(">&")
    })
}

/// True for a redirection operator standing alone (`2>`, `<`, `>>`): the next argument is its
/// target, not a file read.
fn is_redirect_operator(a: &str) -> bool {
    let op = a.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
    !op.is_empty() && op.chars().all(|c| matches!(c, '<' | '>' | '|'))
}

/// True for `head`/`tail` told to print nothing (`-n 0`, `-c 0`, `-n0`, `--lines=0`,
/// `--bytes 0`): the file is not read.
fn zero_count(rest: &[String]) -> bool {
    let zero = |v: &str| {
        let v = v.trim_start_matches(['+', '-']);
        !v.is_empty() && v.chars().all(|c| c == '0')
    };
    rest.iter().enumerate().any(|(i, a)| {
        let next = || rest.get(i + 1).is_some_and(|v| zero(v));
        match a.as_str() {
            "-n" | "-c" | "--lines" | "--bytes" => next(),
            // The old form `head -0`.
            _ if a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b == b'0') => true,
            _ => ["-n", "-c", "--lines=", "--bytes="]
                .iter()
                .any(|f| a.strip_prefix(f).is_some_and(zero)),
        }
    })
}

/// `capn <sub> ...`: whether it charts or asks, and the question asked.
fn capn_run(rest: &[String], c: &mut ToolCall) {
    let Some(at) = rest.iter().position(|a| !a.starts_with('-')) else {
        return;
    };
    match rest[at].as_str() {
        "chart" => c.charts = true,
        "ask" => {
            c.asks = true;
            c.asked.extend(asked_question(&rest[at + 1..]));
        }
        _ => {}
    }
}

/// The question of `capn ask <args>` as `ask` records it (trimmed), skipping `--limit N` and
/// `--limit=N`; `None` when there is not exactly one positional argument, it is blank, or it
/// holds what looks like a secret.
fn asked_question(args: &[String]) -> Option<String> {
    let mut found = Vec::new();
    let mut skip = false;
    for a in args {
        if std::mem::take(&mut skip) {
            continue;
        }
        let op = a.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
        match a.as_str() {
            "--limit" => skip = true,
            "--" => {}
            _ if a.starts_with("--limit=") => {}
            // A redirection (`2>&1`, `2>/dev/null`, `> out`): not part of the question.
            _ if is_redirect_operator(a) => skip = true,
            _ if op.starts_with('>') || op.starts_with('<') => {}
            _ => found.push(a.trim()),
        }
    }
    match found.as_slice() {
        // A question holding a secret is never kept, not even in the session's own record.
        [q] if !q.is_empty() && crate::secret::find(q).is_none() => Some(q.to_string()),
        _ => None,
    }
}

/// The arguments that name files: not a flag, not the value of one of `valued` flags, not a
/// number, not a redirection.
fn positional(rest: &[String], valued: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in rest {
        if std::mem::take(&mut skip) {
            continue;
        }
        if valued.contains(&a.as_str()) || is_redirect_operator(a) {
            skip = true;
            continue;
        }
        let op = a.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
        if a.starts_with('-') || op.starts_with('>') || op.starts_with('<') || a.contains("&>") {
            continue;
        }
        if a.chars().all(|ch| ch.is_ascii_digit() || ch == '+') || a.starts_with('$') {
            continue;
        }
        out.push(a.clone());
    }
    out
}

/// The files of a `sed` run: the positional arguments after the script (the first one, unless
/// `-e`/`-f` gave it).
fn sed_files(rest: &[String]) -> Vec<String> {
    let scripted = rest.iter().any(|a| a == "-e" || a == "-f");
    let pos = positional(rest, &["-e", "-f", "-l"]);
    let skip = usize::from(!scripted);
    pos.into_iter().skip(skip).collect()
}

/// The files an `apply_patch` patch touches (`*** Update File: p`, `*** Add File: p`).
fn patched_files(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|l| {
            l.strip_prefix("*** Update File: ")
                .or_else(|| l.strip_prefix("*** Add File: "))
        })
        .map(|p| p.trim().to_string())
        .take(MAX_PATHS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every host's tool names come from its host file: OpenCode's `grep` is a search and its
    /// `write` an edit, as Claude Code's `Grep` and `Write` are.
    #[test]
    fn other_hosts_tools_read_as_their_kind() {
        assert!(classify("grep", &json!({"pattern": "x"})).search);
        assert_eq!(
            classify("write", &json!({"filePath": "/p/a.rs"})).edits,
            ["/p/a.rs"]
        );
        assert_eq!(
            classify("view", &json!({"path": "/p/a.rs"})).reads,
            ["/p/a.rs"]
        );
        let codex = crate::hosts::CODEX.host;
        assert!(shown_to_hook(codex, "apply_patch"));
        assert!(shown_to_hook(codex, "todowrite"));
        assert!(!shown_to_hook(codex, "grep_files"));
        assert!(shown_to_hook(crate::hosts::OPENCODE.host, "list"));
        assert!(!shown_to_hook(crate::hosts::GEMINI.host, "read_many_files"));
    }

    #[test]
    fn claude_tools() {
        assert!(classify("Grep", &json!({"pattern": "x"})).search);
        assert!(classify("Task", &json!({"prompt": "find x"})).search);
        assert_eq!(
            classify("Read", &json!({"file_path": "/p/a.rs"})).reads,
            ["/p/a.rs"]
        );
        assert_eq!(
            classify("Edit", &json!({"file_path": "/p/a.rs"})).edits,
            ["/p/a.rs"]
        );
        let b = classify("Bash", &json!({"command": "cargo test 2>&1 | grep FAIL"}));
        assert_eq!(
            b,
            ToolCall {
                other: true,
                ..ToolCall::default()
            }
        );
        let b = classify(
            "Bash",
            &json!({"command": "rg -n refund src && cat src/a.rs"}),
        );
        // A search and a read in one line: no plain read, and a search.
        assert!(b.search && b.other && b.reads.is_empty());
    }

    #[test]
    fn codex_shell_reads_and_capn_runs() {
        let c = classify(
            "shell",
            &json!({"command": ["bash", "-lc", "sed -n '1,200p' src/lib.rs"]}),
        );
        assert_eq!(c.reads, ["src/lib.rs"]);
        assert!(!c.search);
        let c = classify(
            "exec_command",
            &json!({"cmd": "nl -ba src/x.rs | head -n 40"}),
        );
        assert_eq!(c.reads, ["src/x.rs"]);
        let c = classify(
            "shell_command",
            &json!({"command": "capn chart \"where is x?\" --files src/x.rs"}),
        );
        assert!(c.charts && !c.asks);
        let c = classify(
            "Bash",
            &json!({"command": "capn ask 'where is x' --limit 3"}),
        );
        assert!(c.asks);
        assert_eq!(c.asked, ["where is x"]);
        let c = classify(
            "Bash",
            &json!({"command": "cd a && capn ask \"  it's y? \""}),
        );
        assert_eq!(c.asked, ["it's y?"]);
        assert!(classify("Bash", &json!({"command": "capn ask where is"}))
            .asked
            .is_empty());
        assert!(classify("Bash", &json!({"command": "npx capn-hook ask x"})).asks);
        let c = classify(
            "apply_patch",
            &json!("*** Begin Patch\n*** Update File: src/a.rs\n@@\n"),
        );
        assert_eq!(c.edits, ["src/a.rs"]);
        let c = classify(
            "Bash",
            &json!({"command": "find . -name '*.rs' | xargs grep -l Stop"}),
        );
        assert!(c.search);
    }

    #[test]
    fn writes_and_empty_reads_are_not_reads() {
        let reads = |cmd: &str| classify("Bash", &json!({ "command": cmd })).reads;
        for cmd in [
            "cat /dev/null > src/a.rs",
            "cat src/b.rs >> src/a.rs",
            "head -c 0 src/a.rs",
            "tail -n 0 src/a.rs",
            "head -n0 src/a.rs",
            "tail --lines=0 src/a.rs",
            "cat src/b.rs 2>/dev/null >src/a.rs",
            "cat /dev/null",
        ] {
            assert!(reads(cmd).is_empty(), "{cmd}: {:?}", reads(cmd));
        }
        assert_eq!(reads("head -n 5 src/a.rs 2>&1"), ["src/a.rs"]);
        // Only errors thrown away or merged keep a read plain.
        assert!(reads("cat src/a.rs 2> err.log").is_empty());
        // The command line splits at `&`: the target is still no read.
        assert!(!reads("cat src/b.rs &> src/a.rs").contains(&"src/a.rs".to_string()));
        assert_eq!(reads("cat src/a.rs 2>/dev/null"), ["src/a.rs"]);
        assert_eq!(reads("tail -n 10 src/a.rs"), ["src/a.rs"]);
    }

    #[test]
    fn reads_that_show_nothing_and_calls_that_do_more_are_told_apart() {
        let call = |cmd: &str| classify("Bash", &json!({ "command": cmd }));
        for cmd in [
            "sed -n 0p src/a.rs",
            "sed -n q src/a.rs",
            "cat src/a.rs | wc -c",
            "head -0 src/a.rs",
            "tail -f src/a.rs",
            "tail -F src/a.rs",
        ] {
            assert!(call(cmd).reads.is_empty(), "{cmd}: {:?}", call(cmd));
        }
        for cmd in [
            "sed -n 1,40p src/a.rs",
            "sed 5q src/a.rs",
            "nl -ba src/a.rs | head -n 40",
            "cat src/a.rs | sed -n 1,20p",
            "timeout 5 head -n 40 src/a.rs 2>/dev/null",
        ] {
            let c = call(cmd);
            assert!(!c.reads.is_empty() && !c.other, "{cmd}: {c:?}");
        }
        for cmd in [
            "cat src/a.rs && git show HEAD:lib/b.rs",
            "cat src/a.rs; ls lib",
            "cat src/a.rs | xargs cat",
            "cat src/a.rs $(ls lib)",
            "python3 -c 'print(open(\"lib/b.rs\").read())'",
            "cd src && cat a.rs",
            "cat src/a.rs; cat < lib/b.rs",
            "sed -n 1,40p < lib/b.rs",
            "F2=lib/b.rs; cat src/a.rs $F2",
            "cat src/a.rs; echo lib/*",
            "printf '%s\\n' lib/*",
            "cat src/*.rs",
            "sed '1e cat lib/b.rs' src/a.rs",
            "sed -n '1q;p' src/a.rs",
            "sed -n '/NOMATCH/p' src/a.rs",
            "sed -n 1,40p src/a.rs | grep x",
        ] {
            let c = call(cmd);
            assert!(c.other && c.reads.is_empty(), "{cmd}: {c:?}");
        }
        assert_eq!(call("sed -i s/a/b/ src/a.rs").edits, ["src/a.rs"]);
    }
}
