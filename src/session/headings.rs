//! The headings check of the `/compact-prep` state file (format.md, "State file"): the nine
//! [`super::STATE_HEADINGS`], each present exactly once and in order, and no other `#`/`##` heading
//! outside fenced code blocks. [`check_headings`] lists every problem, one line each, so a
//! refused save says all that is wrong at once.

use super::STATE_HEADINGS as HEADINGS;

/// One `#` or `##` heading found in the text.
struct Found {
    /// 1-based line number.
    line: usize,
    /// Index into [`HEADINGS`], or `None` for a heading that is not one of them.
    which: Option<usize>,
    /// The heading as written (trimmed).
    text: String,
}

/// Every problem with the headings of `text`, one line each; empty when it is valid. Reports
/// missing headings, duplicates, unexpected `#`/`##` headings and out-of-order headings (those
/// outside the longest run that is in order, so one misplaced heading is reported once).
pub(crate) fn check_headings(text: &str) -> Vec<String> {
    let found = scan_headings(text);
    let mut problems = Vec::new();
    let mut first: [Option<usize>; 9] = [None; 9];
    for (k, f) in found.iter().enumerate() {
        match f.which {
            Some(i) if first[i].is_none() => first[i] = Some(k),
            Some(i) => problems.push(format!(
                "duplicate: {} at line {} (first at line {})",
                HEADINGS[i],
                f.line,
                found[first[i].unwrap_or(k)].line
            )),
            None => problems.push(format!(
                "unexpected heading at line {}: {} (use ### or deeper inside a section)",
                f.line,
                crate::present::quote(&f.text, crate::present::MAX_QUESTION_CHARS)
            )),
        }
    }
    for (i, h) in HEADINGS.iter().enumerate() {
        if first[i].is_none() {
            problems.push(format!("missing: {h}"));
        }
    }
    // Present headings in the order they appear, as indices into HEADINGS.
    let mut seq: Vec<(usize, usize)> = first
        .iter()
        .enumerate()
        .filter_map(|(i, k)| k.map(|k| (k, i)))
        .collect();
    seq.sort();
    let idx: Vec<usize> = seq.iter().map(|&(_, i)| i).collect();
    let keep = longest_increasing(&idx);
    for (pos, &(k, i)) in seq.iter().enumerate() {
        if keep.contains(&pos) {
            continue;
        }
        let after = if i == 0 { None } else { Some(HEADINGS[i - 1]) };
        let before = HEADINGS.get(i + 1).copied();
        let place = match (after, before) {
            (Some(a), Some(b)) => format!("after {a} and before {b}"),
            (None, Some(b)) => format!("first, before {b}"),
            (Some(a), None) => format!("last, after {a}"),
            (None, None) => String::new(),
        };
        problems.push(format!(
            "out of order: {} at line {} belongs {place}",
            HEADINGS[i], found[k].line
        ));
    }
    problems
}

/// Positions (into `v`) of one longest strictly increasing subsequence of `v`.
fn longest_increasing(v: &[usize]) -> Vec<usize> {
    let n = v.len();
    let mut len = vec![1usize; n];
    let mut prev = vec![usize::MAX; n];
    for i in 0..n {
        for j in 0..i {
            if v[j] < v[i] && len[j] + 1 > len[i] {
                len[i] = len[j] + 1;
                prev[i] = j;
            }
        }
    }
    let Some(mut at) = (0..n).max_by_key(|&i| (len[i], std::cmp::Reverse(i))) else {
        return Vec::new();
    };
    let mut out = vec![at];
    while prev[at] != usize::MAX {
        at = prev[at];
        out.push(at);
    }
    out
}

/// The `#` and `##` ATX headings of `text` outside fenced code blocks.
fn scan_headings(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = &line[indent..];
        if indent <= 3 {
            let c = body.chars().next().unwrap_or(' ');
            if c == '`' || c == '~' {
                let run = body.chars().take_while(|&x| x == c).count();
                if run >= 3 {
                    match fence {
                        None => {
                            fence = Some((c, run));
                            continue;
                        }
                        Some((fc, fr)) if fc == c && run >= fr && body[run..].trim().is_empty() => {
                            fence = None;
                            continue;
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        if fence.is_some() || indent > 3 {
            continue;
        }
        let hashes = body.chars().take_while(|&c| c == '#').count();
        if !(1..=2).contains(&hashes) {
            continue;
        }
        let rest = &body[hashes..];
        if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
            continue;
        }
        out.push(Found {
            line: n + 1,
            which: HEADINGS.iter().position(|h| *h == body),
            text: body.to_string(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(order: &[usize]) -> String {
        order
            .iter()
            .map(|&i| format!("{}\n\ncontent {i}\n\n", HEADINGS[i]))
            .collect()
    }

    #[test]
    fn all_nine_in_order_pass() {
        assert!(check_headings(&doc(&[0, 1, 2, 3, 4, 5, 6, 7, 8])).is_empty());
        let crlf = doc(&[0, 1, 2, 3, 4, 5, 6, 7, 8]).replace('\n', "\r\n");
        assert!(check_headings(&crlf).is_empty());
    }

    #[test]
    fn missing_headings_are_all_listed() {
        let p = check_headings(&doc(&[0, 1, 2, 4, 5, 6, 8]));
        assert_eq!(
            p,
            ["missing: ## TaskList Summary", "missing: ## Editing Files"]
        );
        assert_eq!(check_headings("").len(), 9);
    }

    #[test]
    fn one_misplaced_heading_is_reported_once() {
        let p = check_headings(&doc(&[1, 2, 3, 4, 5, 6, 7, 8, 0]));
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with("out of order: # Compact Prep State at line"),
            "{p:?}"
        );
        assert!(p[0].contains("first, before ## Active Plan"));
        let p = check_headings(&doc(&[0, 2, 1, 3, 4, 5, 6, 7, 8]));
        assert_eq!(p.len(), 1, "{p:?}");
    }

    #[test]
    fn duplicates_and_unexpected_headings_are_refused() {
        let mut d = doc(&[0, 1, 2, 3, 4, 5, 6, 7, 8]);
        d.push_str("## Active Plan\n## Notes\n# Another\n### Fine\n#hashtag is not a heading\n");
        let p = check_headings(&d);
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].starts_with("duplicate: ## Active Plan"));
        assert!(p[1].contains("\"## Notes\""));
        assert!(p[2].contains("\"# Another\""));
    }

    #[test]
    fn code_fences_hide_comment_lines() {
        let mut d = doc(&[0, 1, 2, 3, 4, 5, 6, 7]);
        d.push_str("## Recovery Notes\n```bash\n# run the tests\ncargo test\n```\n~~~\n## not a heading\n~~~\n");
        assert!(check_headings(&d).is_empty(), "{:?}", check_headings(&d));
    }

    #[test]
    fn near_misses_do_not_count() {
        let d = doc(&[0, 1, 2, 3, 4, 5, 6, 7, 8])
            .replace("## TaskList Summary", "## Task List Summary");
        let p = check_headings(&d);
        assert!(
            p.iter().any(|x| x == "missing: ## TaskList Summary"),
            "{p:?}"
        );
        assert!(p.iter().any(|x| x.contains("\"## Task List Summary\"")));
    }
}
