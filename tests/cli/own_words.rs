//! A chart answers only when its own words (its question and confirmed phrasings) carry the
//! question: words its details hold in passing never make it the answer when another chart
//! comes about as close, a chart ranked above one that does not answer is shown beside it as a
//! candidate, and a second answer line must answer on its own merits. Each case is a small
//! project shaped like a real Python CLI library (click: `echo()`, `CliRunner`,
//! `get_default()`...), charted as an agent would, with details naming the functions that do the
//! work; the questions are the shapes that were answered with the wrong chart.

use crate::util::{Env, Run};

/// Short stand-ins for the library's files (what `chart` hashes; a miss reads their words).
const FILES: [(&str, &str); 11] = [
    ("src/click/utils.py", "def echo(message=None, file=None, nl=True, err=False, color=None):\n    \"\"\"Print a message and newline to stdout or a file.\"\"\"\n\ndef _detect_program_name(path=None, _main=None):\n    pass\n"),
    ("src/click/_compat.py", "def _find_binary_writer(stream):\n    pass\n\ndef strip_ansi(value):\n    pass\n\ndef should_strip_ansi(stream=None, color=None):\n    pass\n"),
    ("src/click/testing.py", "class CliRunner:\n    def isolation(self, input=None, env=None, color=False):\n        pass\n\n    def invoke(self, cli, args=None, input=None, env=None):\n        pass\n"),
    ("src/click/core.py", "class Context:\n    def lookup_default(self, name, call=True):\n        pass\n\nclass Parameter:\n    def get_default(self, ctx, call=True):\n        pass\n\n    def consume_value(self, ctx, opts):\n        pass\n"),
    ("src/click/parser.py", "class _OptionParser:\n    def parse_args(self, args):\n        pass\n\ndef _unpack_args(args, nargs_spec):\n    pass\n"),
    ("src/click/termui.py", "def prompt(text, default=None, hide_input=False, confirmation_prompt=False):\n    pass\n\ndef confirm(text, default=False, abort=False):\n    pass\n"),
    ("src/click/types.py", "class Choice(ParamType):\n    def convert(self, value, param, ctx):\n        pass\n\nclass IntRange(_NumberRangeBase, IntParamType):\n    pass\n"),
    ("src/click/exceptions.py", "class ClickException(Exception):\n    exit_code = 1\n\n    def show(self, file=None):\n        pass\n\nclass UsageError(ClickException):\n    exit_code = 2\n"),
    ("src/click/formatting.py", "class HelpFormatter:\n    def write_usage(self, prog, args=\"\", prefix=None):\n        pass\n\n    def write_dl(self, rows, col_max=30, col_spacing=2):\n        pass\n"),
    ("src/click/_termui_impl.py", "class ProgressBar:\n    def render_progress(self):\n        pass\n\n    def format_eta(self):\n        pass\n"),
    ("src/click/decorators.py", "def option(*param_decls, cls=None, **attrs):\n    pass\n"),
];

/// Eleven charts of the library (question, files, details), as an agent wrote them while
/// answering questions about it.
const CHARTS: [(&str, &str, &str); 11] = [
    (
        "How does click.echo() write text or bytes to the output stream?",
        "src/click/utils.py,src/click/_compat.py",
        "echo() picks the stream with _default_text_stdout()/_default_text_stderr() when file is None; bytes and bytearray go to the binary buffer found by _find_binary_writer(); str is written as is. ANSI styles are removed by strip_ansi() when should_strip_ansi() says the stream is not a terminal; the stream is flushed after every call.",
    ),
    (
        "How does CliRunner capture a command's output and exit code in tests?",
        "src/click/testing.py",
        "CliRunner.invoke() runs the command inside isolation(), which swaps sys.stdin, sys.stdout and sys.stderr for _NamedTextIOWrapper streams over BytesIO buffers (StreamMixer mixes stdout and stderr bytes), so echo() and get_text_stream write into them. SystemExit is caught and its code stored; Result exposes output, stdout, stderr, exit_code and exception.",
    ),
    (
        "In what order does an option take its value from the command line, an environment variable, the default map or its default?",
        "src/click/core.py",
        "Parameter.consume_value() tries the parsed opts first, then resolve_envvar_value() (envvar or auto_envvar_prefix), then ctx.lookup_default() from default_map, then get_default(); each step records a ParameterSource (COMMANDLINE, ENVIRONMENT, DEFAULT_MAP, DEFAULT). process_value() then converts the value with type_cast_value() and runs the callback.",
    ),
    (
        "What do Parameter.get_default() and Context.lookup_default() return, and when is a callable default called?",
        "src/click/core.py",
        "get_default() asks ctx.lookup_default(self.name, call=False) first and falls back to self.default; a callable default is called only when call=True. lookup_default() reads ctx.default_map, which a parent context passes down to sub-contexts by command name.",
    ),
    (
        "How does click split the command line into options and arguments?",
        "src/click/parser.py",
        "_OptionParser.parse_args() walks the args with _process_args_for_options(): -- ends options, long options are matched with _match_long_opt() (--name=value), short options are grouped (-abc) by _match_short_opt(); nargs is applied by _unpack_args() for positional arguments; unknown options raise NoSuchOption unless ignore_unknown_options.",
    ),
    (
        "How does prompt() read user input, hide passwords and ask for confirmation?",
        "src/click/termui.py",
        "prompt() builds the text with _build_prompt() and reads with input(), or hidden_prompt_func() (getpass) when hide_input; confirmation_prompt asks again and compares; the value is converted with the param type and re-asked on UsageError. confirm() reads y/n with a default.",
    ),
    (
        "How does a group find the subcommand to run, and how do chained groups run several?",
        "src/click/core.py",
        "Group.invoke() takes the first remaining arg and calls resolve_command(), which looks it up with get_command() (token_normalize_func applied) and fails with NoSuchCommand; with chain=True each subcommand gets its own sub-context from _make_sub_context() and the results are passed to the result callback.",
    ),
    (
        "How are parameter values converted and validated by types like Choice, IntRange and Path?",
        "src/click/types.py",
        "Each ParamType implements convert(value, param, ctx) and calls self.fail() on bad input, which raises BadParameter; Choice normalizes choices with normalize_choice(); IntRange and FloatRange check bounds (clamp optional) in _NumberRangeBase.convert(); Path checks existence, file or dir and permissions with os.stat.",
    ),
    (
        "How is a ClickException shown to the user and turned into an exit code?",
        "src/click/exceptions.py,src/click/core.py",
        "Command.main() in standalone mode catches ClickException and calls e.show(), which writes 'Error: ' and format_message() to stderr with echo(), then sys.exit(e.exit_code) (1, or 2 for UsageError, which also prints the usage and a hint for --help). Abort prints 'Aborted!'; Exit carries its own code.",
    ),
    (
        "How is the help page laid out and wrapped to the terminal width?",
        "src/click/formatting.py",
        "HelpFormatter writes usage with write_usage(), sections with section() and write_heading(), option rows with write_dl() (two columns measured by measure_table(), col_max 30), and wraps paragraphs with wrap_text() from _textwrap.TextWrapper; width comes from shutil.get_terminal_size() capped at max_width 80.",
    ),
    (
        "How does click work out the program name shown in usage messages?",
        "src/click/utils.py",
        "_detect_program_name() uses sys.argv[0]; when run as python -m package it reads __main__.__spec__ and returns 'python -m name'; Command.main() uses it when prog_name is not given.",
    ),];

/// A git project holding [`FILES`] with `charts` charted, in order; their ids.
fn project(charts: &[(&str, &str, &str)]) -> (Env, Vec<String>) {
    let env = Env::git();
    for (path, text) in FILES {
        env.write(path, text);
    }
    env.run(&["init"]).ok();
    let ids = charts
        .iter()
        .map(|(q, files, details)| {
            let run = env
                .run(&["chart", q, "--files", files, "--details", details])
                .ok();
            run.stdout.split_whitespace().nth(1).unwrap().to_string()
        })
        .collect();
    (env, ids)
}

/// The JSONL line `ask` prints for chart `id` of `charts`, as an answer with `score`.
fn answer(charts: &[(&str, &str, &str)], ids: &[String], i: usize, score: u8) -> String {
    let (q, files, details) = charts[i];
    let mut files: Vec<&str> = files.split(',').collect();
    files.sort();
    let line = serde_json::json!({
        "id": ids[i], "question": q, "files": files, "details": details, "score": score,
    });
    format!("{line}\n")
}

/// The `candidate {…}` / `related {…}` lines of a miss, as (kind, id, not_in_chart).
fn shown(run: &Run) -> Vec<(String, String, Vec<String>)> {
    run.stderr
        .lines()
        .filter_map(|l| {
            let (kind, json) = l.split_once(' ')?;
            if !matches!(kind, "candidate" | "related") || !json.starts_with('{') {
                return None;
            }
            let v: serde_json::Value = serde_json::from_str(json).ok()?;
            let missing = v["not_in_chart"].as_array()?.iter();
            let missing = missing.map(|w| w.as_str().unwrap().to_string()).collect();
            Some((kind.into(), v["id"].as_str()?.into(), missing))
        })
        .collect()
}

fn line(kind: &str, id: &str, missing: &[&str]) -> (String, String, Vec<String>) {
    let missing = missing.iter().map(|w| w.to_string()).collect();
    (kind.into(), id.into(), missing)
}

const DEFAULTS_ASKED: &str = "where do get_default() and lookup_default() get their values?";

/// A right answer came with a second answer line from a chart whose details name both functions
/// in passing (its question is about the order of value sources): the second line is printed
/// only when that chart's own words answer too. The first answer stays, and so does a plain
/// rewording's answer.
#[test]
fn a_second_answer_line_is_printed_only_when_its_own_words_answer() {
    let (env, ids) = project(&CHARTS);
    let run = env.run(&["ask", DEFAULTS_ASKED]).ok();
    assert_eq!(run.stdout, answer(&CHARTS, &ids, 3, 84));
    let run = env
        .run(&[
            "ask",
            "how does click read a hidden password from the user?",
        ])
        .ok();
    assert_eq!(run.stdout, answer(&CHARTS, &ids, 5, 89));
}

/// No chart says how an environment variable is split for an option with `nargs`; the parser
/// chart's details mention `nargs` values in passing, and a chart of where an option's value
/// comes from (the environment among others) ranks above it. Before, the parser chart answered
/// (score 70); now both are shown as possibly related.
#[test]
fn a_question_no_chart_covers_is_not_answered_from_details_in_passing() {
    let (env, ids) = project(&CHARTS);
    let asked = "How are environment variables split into several values for nargs options?";
    let run = env.run(&["ask", asked]).code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        shown(&run),
        [
            line("related", &ids[2], &["nargs", "several", "split"]),
            line("related", &ids[4], &[]),
            line(
                "related",
                &ids[7],
                &["nargs", "several", "split", "environment", "variables"]
            ),
        ]
    );
}

/// `echo()` and the test runner that captures what it writes: the runner's question says
/// "writes to stdout" and its details say that `echo()` writes its bytes there, so it ranked
/// first for a question about `echo()` and answered (score 92), with the chart about `echo()`
/// as a second line (52). The chart about `echo()` asks in its own words as much of the
/// question as the runner's does: neither answers, both are shown, `echo()`'s first.
#[test]
fn a_test_helper_whose_details_name_the_function_does_not_answer_for_it() {
    let charts = [
        (
            "Where is click.echo() implemented, and how does it pick the output stream?",
            "src/click/utils.py",
            "echo() falls back to _default_text_stdout() when file is None and strips ANSI codes with strip_ansi() unless the stream is a terminal.",
        ),
        (
            "How does CliRunner capture what a command writes to stdout?",
            "src/click/testing.py",
            "isolation() swaps sys.stdout for a _NamedTextIOWrapper over a BytesIO buffer, so echo() writes its bytes there; Result.stdout decodes them.",
        ),
        CHARTS[2],
        CHARTS[4],
    ];
    let (env, ids) = project(&charts);
    let run = env
        .run(&["ask", "How does echo() write bytes to stdout?"])
        .code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        shown(&run),
        [
            line("candidate", &ids[0], &[]),
            line("related", &ids[1], &[])
        ]
    );
    // Asked about what the runner's question is about, it answers.
    let run = env
        .run(&["ask", "how does CliRunner capture a command's stdout?"])
        .ok();
    assert_eq!(run.stdout, answer(&charts, &ids, 1, 98));
}

/// A question naming two functions: the chart whose question is about them ranks, and the
/// chart whose details name both in passing (a chart of where an option's value comes from)
/// answered first (score 87), the first with a second line (73). Neither is closer by much:
/// both are shown as candidates, the chart about the two functions first.
#[test]
fn a_chart_naming_two_functions_in_passing_does_not_answer_beside_the_chart_about_them() {
    let charts = [
        CHARTS[2],
        CHARTS[4],
        CHARTS[7],
        (
            "What do Parameter.get_default() and Context.lookup_default() return?",
            "src/click/decorators.py",
            "get_default() asks ctx.lookup_default(name, call=False) first, then self.default; a callable default is called only when call=True.",
        ),
    ];
    let (env, ids) = project(&charts);
    let asked =
        "where do get_default() and lookup_default() look up their values in the default map?";
    let run = env.run(&["ask", asked]).code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        shown(&run),
        [
            line("candidate", &ids[3], &["map", "values"]),
            line("related", &ids[0], &[])
        ]
    );
    let run = env.run(&["ask", DEFAULTS_ASKED]).ok();
    assert_eq!(run.stdout, answer(&charts, &ids, 3, 90));
}
