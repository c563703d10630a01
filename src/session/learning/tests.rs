use super::*;

fn shown_ask(at: u64, q: &str, charts: &[(&str, &[&str], bool)]) -> ShownAsk {
    let mut a = ShownAsk::new(
        SystemTime::now(),
        q,
        charts
            .iter()
            .map(|(id, f, strong)| (*id, f.to_vec(), *strong)),
    )
    .unwrap();
    a.at = at;
    a
}

/// A record with one ask of "q" at `at` in project "/p", and the project's record of it.
fn setup(now: u64) -> (Record, Shown) {
    let mut rec = Record::default();
    rec.add_ask(SessionAsk {
        at: now - 10,
        question: "q".into(),
        root: "/p".into(),
        post: false,
        done: false,
    });
    let shown = Shown {
        asks: vec![shown_ask(
            now - 9,
            "q",
            &[("a", &["x"], true), ("b", &["y"], true)],
        )],
        ..Shown::default()
    };
    (rec, shown)
}

fn decide(rec: &mut Record, shown: &Shown, now: SystemTime) {
    rec.decide(now, &mut |root| {
        if root == "/p" {
            shown.clone()
        } else {
            Shown::default()
        }
    });
}

/// What a turn of reads of `files` after the ask teaches, in a record whose ask showed `charts`.
fn taught(charts: &[(&str, &[&str], bool)], files: &[&str]) -> Option<String> {
    let now = SystemTime::now();
    let ms = shown::millis(now);
    let (mut rec, mut shown) = setup(ms);
    shown.asks[0] = shown_ask(ms - 9, "q", charts);
    for f in files {
        rec.add_event(ms - 2, false, Some(("/p", f.to_string())));
    }
    decide(&mut rec, &shown, now);
    rec.decided.pop().map(|d| d.id)
}

#[test]
fn the_chart_learned_is_the_strong_one_whose_own_files_alone_were_read() {
    let charts: &[(&str, &[&str], bool)] =
        &[("a", &["x", "s"], true), ("b", &["y", "s", "z"], true)];
    let id = |r: &[&str]| taught(charts, r);
    assert_eq!(id(&["x"]).as_deref(), Some("a"));
    // A file both have counts for neither.
    assert_eq!(id(&["s"]), None);
    // One of b's three files is under half.
    assert_eq!(id(&["y", "s"]), None);
    assert_eq!(id(&["y", "z"]).as_deref(), Some("b"));
    // Both checked: each was read with other files, in either order: neither is learned.
    assert_eq!(id(&["x", "y", "z"]), None);
    assert_eq!(id(&["y", "z", "x"]), None);
    assert_eq!(id(&[]), None);
    // A related chart is never learned.
    assert_eq!(taught(&[("a", &["x"], false)], &["x"]), None);
}

#[test]
fn reading_the_chart_and_nothing_else_decides_it() {
    let now = SystemTime::now();
    let ms = shown::millis(now);
    let (mut rec, shown) = setup(ms);
    rec.add_event(ms - 4, false, Some(("/p", "x".into())));
    rec.add_event(ms - 3, false, Some(("/p", "x".into())));
    decide(&mut rec, &shown, now);
    assert_eq!(rec.decided.len(), 1);
    assert_eq!(rec.decided[0].id, "a");
    assert!(rec.asks[0].done && rec.events.is_empty());
    // A search or another read anywhere in the turn, before the check too, decides nothing
    // (hooks run concurrently: the record's order need not be the calls').
    for before in [(true, None), (false, Some(("/p", "other".to_string())))] {
        let (mut rec, shown) = setup(ms);
        rec.add_event(ms - 5, before.0, before.1.clone());
        rec.add_event(ms - 4, false, Some(("/p", "x".into())));
        decide(&mut rec, &shown, now);
        assert!(rec.decided.is_empty(), "{before:?}");
    }
}

#[test]
fn exploring_after_the_read_decides_nothing_and_closes_the_ask() {
    let now = SystemTime::now();
    let ms = shown::millis(now);
    for after in [
        (true, None),
        (false, Some(("/p", "other".to_string()))),
        (false, None),
        (true, Some(("/p", "elsewhere".to_string()))),
    ] {
        let (mut rec, shown) = setup(ms);
        rec.add_event(ms - 4, false, Some(("/p", "x".into())));
        rec.add_event(
            ms - 3,
            after.0,
            after.1.as_ref().map(|(r, f)| (*r, f.clone())),
        );
        decide(&mut rec, &shown, now);
        assert!(rec.decided.is_empty(), "{after:?}");
        assert!(rec.asks[0].done);
    }
    // A Grep limited to the chart's own file is no exploring.
    let (mut rec, shown) = setup(ms);
    rec.add_event(ms - 4, false, Some(("/p", "x".into())));
    rec.add_event(ms - 3, true, Some(("/p", "x".into())));
    decide(&mut rec, &shown, now);
    assert_eq!(rec.decided.len(), 1);
}

#[test]
fn a_read_counts_for_the_latest_ask_only_and_not_before_it() {
    let now = SystemTime::now();
    let ms = shown::millis(now);
    let (mut rec, mut shown) = setup(ms);
    rec.add_ask(SessionAsk {
        at: ms - 8,
        question: "q2".into(),
        root: "/p".into(),
        post: false,
        done: false,
    });
    shown
        .asks
        .push(shown_ask(ms - 7, "q2", &[("a", &["x"], true)]));
    rec.add_event(ms - 2, false, Some(("/p", "x".into())));
    decide(&mut rec, &shown, now);
    assert_eq!(rec.decided.len(), 1);
    assert_eq!(rec.decided[0].question, "q2");
    // Every ask closes at the turn's end.
    assert!(rec.asks.iter().all(|a| a.done));
    // A read before an ask is not for it; one in another project is not either.
    let (mut rec, shown) = setup(ms);
    rec.add_event(ms - 20, false, Some(("/p", "x".into())));
    rec.add_event(ms - 2, false, Some(("/other", "x".into())));
    decide(&mut rec, &shown, now);
    assert!(rec.decided.is_empty());
}

#[test]
fn asks_join_the_projects_record_by_question_and_time() {
    let ask = |at, post| SessionAsk {
        at,
        question: "q".into(),
        root: "/p".into(),
        post,
        done: false,
    };
    let shown = Shown {
        asks: vec![shown_ask(1000, "q", &[("a", &["x"], true)])],
        ..Shown::default()
    };
    assert!(joined(&ask(900, false), &shown).is_some());
    assert!(joined(&ask(1100, false), &shown).is_none());
    assert!(joined(&ask(1100, true), &shown).is_some());
    let far = 1000 + JOIN_WINDOW.as_millis() as u64 + 1;
    assert!(joined(&ask(far, true), &shown).is_none());
    let other = Shown {
        asks: vec![shown_ask(1000, "q?", &[("a", &["x"], true)])],
        ..Shown::default()
    };
    assert!(joined(&ask(900, false), &other).is_none());
}

#[test]
fn events_are_bounded() {
    let mut rec = Record::default();
    for i in 0..MAX_EVENTS + 5 {
        rec.add_event(i as u64, false, Some(("/p", format!("f{i}"))));
    }
    assert_eq!(rec.events.len(), MAX_EVENTS);
    assert!(rec.overflow);
    assert_eq!(rec.roots, ["/p"]);
}

/// A record that would grow past its bound drops the turn's events and counts the turn as
/// having explored further: an event it could not keep never goes missing silently.
#[test]
fn a_record_too_large_to_write_fails_closed() {
    let tmp = tempfile::tempdir().unwrap();
    let id = crate::session::SessionId::parse("s1").unwrap();
    let s = SessionDir::new(tmp.path(), &id);
    s.ensure().unwrap();
    let now = SystemTime::now();
    let ms = shown::millis(now);
    let (mut rec, shown) = setup(ms);
    // A decision waiting for the store lock fills the record to just under its bound.
    rec.decided.push(Decided {
        root: "/elsewhere".into(),
        question: "pad".into(),
        id: "pad".into(),
        files: vec![String::new()],
        total: 1,
    });
    rec.add_event(ms - 4, false, Some(("/p", "x".into())));
    let len = serde_json::to_string(&rec).unwrap().len();
    let room = crate::fsutil::limits::MARKER as usize - 20 - len;
    rec.decided[0].files[0] = "f".repeat(room);
    rec.write(&s, now).unwrap();
    let mut rec = Record::read(&s);
    assert_eq!(rec.events.len(), 1);
    // The search after the read does not fit.
    rec.add_event(ms - 3, true, None);
    rec.write(&s, now).unwrap();
    let mut rec = Record::read(&s);
    decide(&mut rec, &shown, now);
    assert!(rec.decided.iter().all(|d| d.id != "a"), "{:?}", rec.decided);
}
