"""Compaction checks in the interactive Claude Code session (claude.py runs them after
/compact-prep): three compactions, each driven by one step, then checked by named checks on the
requests the step collected, so that one deliberate break (selftest.py) shows which property
it breaks.

1. `/compact` right after /compact-prep (a fresh state): the summary request holds capn's
   instructions carrying the saved plan; the next request holds one recovery, the one after
   none more; the mock's summary keeps the plan, so no note follows.
2. An automatic compaction (the mock's `E2E_TOO_LONG`: the reactive one) with no fresh state:
   capn's instructions say so; the first request after it (the prompt sent again) holds this
   compaction's recovery, and no later request repeats it.
3. An automatic compaction after a state saved through `capn state save` (fresh), with the
   mock's `E2E_DROP_PLAN`: the plan is in the summary request, the summary leaves it out, and
   the next prompt carries one note naming it and the state file; the prompt after, none more.

Claude Code 2.1.332 keeps the latest messages verbatim across a compaction, so an earlier
compaction's recovery can still be in the requests after a later one: a compaction's own
recovery is told by the trigger and time it names (PreCompact's record, precompact.json).
"""

import json
import os
import re
import subprocess

from harness import GAPS, INSTRUCTIONS, NO_STATE, PLAN_QUOTED, RECOVERY, expect

TURN = 120
STATE_MD = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "state.md")).read()


def first_after(sb, summary):
    """The first main request after a compaction's summary request."""
    return sb.log.wait_for("the first request after the compaction",
                           lambda r: r.is_main() and not r.is_summary(), TURN, summary.n)


def this_recovery(sb, sid):
    """The opening of the recovery of the compaction that just ran: it names the trigger and
    the time PreCompact recorded (state dir, precompact.json)."""
    m = json.load(open(os.path.join(sb.state, "sessions", sid, "precompact.json")))
    return f"{RECOVERY} This conversation was just compacted ({m['trigger']}, {m['at']})"


def count(req, needle, n, what):
    c = req.count(needle)
    expect(c == n, f"{what}: {needle[:60]!r} appears {n} time(s) in the request",
           f"{c} time(s); {req.brief()}")


def check_instructions(summary, with_state):
    """The summary request ends with capn's PreCompact instructions, carrying the saved plan
    (a fresh state) or saying none was saved."""
    i = summary.text.rfind(INSTRUCTIONS)
    expect(i >= 0, "the summary request holds capn's instructions for the summary",
           summary.text[-1500:])
    part = summary.text[i:i + 4000]
    if with_state:
        expect(PLAN_QUOTED in part, "capn's instructions carry the saved plan", part)
    else:
        expect(NO_STATE in part and PLAN_QUOTED not in part,
               "capn's instructions say no fresh state was saved", part)


def claude_steps(sb, cc, st):
    """[(step name, driver, [(check name, check)])] for claude.py's interactive session."""
    seen = {}

    def manual():
        cc.slash("/compact")
        seen["m_summary"] = sb.log.wait_for("the summary request of /compact",
                                            lambda r: r.is_summary(), TURN, cc.mark)
        seen["m_p5"] = cc.prompt("E2E-P5")
        seen["m_first"] = first_after(sb, seen["m_summary"])
        seen["m_p6"] = cc.prompt("E2E-P6")

    def m_recovery():
        first, p5, p6 = seen["m_first"], seen["m_p5"], seen["m_p6"]
        expect(first.n == p5.n, "the first request after /compact is the next prompt's",
               first.brief())
        count(p5, RECOVERY, 1, "the prompt after /compact carries one recovery")
        excerpt = p5.text[p5.text.find(RECOVERY):][:2000]
        expect(st.get("state", "?") in excerpt and "manual" in excerpt,
               "the recovery names the saved state file and the manual trigger", excerpt)
        count(p6, RECOVERY, 1, "the prompt after that adds no second recovery")

    def m_no_note():
        count(seen["m_p5"], GAPS, 0, "a summary that kept the plan brings no note")
        count(seen["m_p6"], GAPS, 0, "nor later")

    def too_long(tag, directives):
        """Types a prompt the mock rejects as too long; collects the automatic compaction's
        summary request, the first request after it (the prompt sent again) and its recovery's
        opening."""
        cc.mark = sb.log.last_n()
        mark = cc.mark
        cc.tmux.type(f"{tag} {directives}")
        cc.tmux.wait_screen(f"the typed prompt {tag}", re.escape(tag), 30)
        cc.tmux.key("Enter")
        summary = sb.log.wait_for(f"the automatic compaction's summary request ({tag})",
                                  lambda r: r.is_summary(), TURN, mark)
        first = first_after(sb, summary)
        cc.tmux.wait_screen(f"the reply to {tag}", r"ok " + re.escape(tag), TURN)
        return summary, first, this_recovery(sb, cc.sid)

    def auto():
        seen["a_summary"], seen["a_first"], seen["a_mine"] = too_long("E2E-P7",
                                                                       "E2E_TOO_LONG=auto1")
        seen["a_p8"] = cc.prompt("E2E-P8")

    def a_recovery():
        first, p8, mine = seen["a_first"], seen["a_p8"], seen["a_mine"]
        count(first, mine, 1, "the first request after the compaction carries its recovery once")
        count(p8, mine, 1, "the prompt after that repeats it nowhere")
        count(p8, RECOVERY, 1, "nor adds another recovery")
        count(p8, GAPS, 0, "a compaction without a fresh state brings no note")

    def dropped():
        import claude  # the driver module, which imports this one
        # a fresh state, as /compact-prep leaves one, saved straight through capn
        r = subprocess.run(["capn", "state", "save", "--session", cc.sid], input=STATE_MD,
                           cwd=sb.proj, env=claude.client_env(sb), capture_output=True,
                           text=True)
        expect(r.returncode == 0, "capn state save for the session", r.stderr)
        seen["d_summary"], seen["d_first"], seen["d_mine"] = too_long(
            "E2E-P10", "E2E_TOO_LONG=auto2 E2E_DROP_PLAN")
        seen["d_p11"] = cc.prompt("E2E-P11")
        seen["d_p12"] = cc.prompt("E2E-P12")

    def d_recovery():
        mine = seen["d_mine"]
        count(seen["d_first"], mine, 1,
              "the first request after the compaction carries its recovery once")
        count(seen["d_p11"], mine, 1, "the next prompt repeats it nowhere")
        count(seen["d_p12"], mine, 1, "nor the one after")

    def d_note():
        p11, p12 = seen["d_p11"], seen["d_p12"]
        count(p11, GAPS, 1, "the prompt after a summary that dropped the plan carries the note")
        note = p11.text[p11.text.find(GAPS):][:1200]
        expect("the active plan" in note and st.get("state", "?") in note,
               "the note names the dropped plan and the state file", note)
        count(p12, GAPS, 1, "the prompt after that adds no second note")

    return [
        ("claude: /compact after /compact-prep (session goes on)", manual, [
            ("claude: /compact: the summary request holds capn's instructions with the saved plan",
             lambda: check_instructions(seen["m_summary"], True)),
            ("claude: /compact: one recovery in the next request, none after", m_recovery),
            ("claude: /compact: a summary that kept the plan brings no note", m_no_note),
        ]),
        ("claude: automatic compaction without a fresh state (session goes on)", auto, [
            ("claude: automatic compaction: the summary request holds capn's instructions, "
             "saying no fresh state was saved", lambda: check_instructions(seen["a_summary"], False)),
            ("claude: automatic compaction: its recovery in the first request after, none after",
             a_recovery),
        ]),
        ("claude: automatic compaction with a fresh state, summary drops the plan (session goes on)",
         dropped, [
             ("claude: automatic compaction with a fresh state: the saved plan in the summary "
              "request", lambda: check_instructions(seen["d_summary"], True)),
             ("claude: automatic compaction with a fresh state: its recovery in the first request "
              "after, none after", d_recovery),
             ("claude: a summary that dropped the saved plan brings one note on the next prompt "
              "naming it", d_note),
         ]),
    ]
