//! The decision: what one question gets from a store. Recall is one straight path:
//!
//! 1. **candidates**: BM25 (`super::Bm25Index::candidates`) and, with embedding, the cosine of
//!    every entry's vectors (`super::semantic::Vectors::cosines`);
//! 2. **fusion**: [`super::semantic::rank`] (or, with BM25 alone, [`lexical_rank`]) orders them
//!    and splits those past the ranking's own threshold (coverage + cosine ≥ `gate`, or the
//!    BM25 coverage floor) from those merely close (coverage + cosine ≥ `related_min`);
//! 3. **decision** ([`decide`]): the answer gate (`super::gate`) reads the ranked charts best
//!    first; of those it lets through, the ones whose own words carry the question answer, in
//!    rank order, while no chart ranked above them fails to (`settle`: details name other
//!    things in passing); on a miss, the charts turned down only for common words
//!    (`gate::Question::is_strong`: probably the same question asked in other words) or only
//!    because another chart comes as close are *strong* candidates, and the other turned-down
//!    charts, then the merely close ones, *weak* candidates ("possibly related"), at most
//!    [`MAX_CANDIDATES`];
//! 4. **presentation**: `crate::store::ask::text` says what `capn ask` prints of them.
//!
//! Each candidate carries the question words its chart does not hold ([`Candidate::missing`]),
//! so whoever reads it (an agent) can tell a rewording from a near miss at a glance.

use super::gate::{self, Question};
use super::semantic::{self, FusedHit, Ranking, Vectors};
use super::{Ask, Bm25Index};
use crate::embed::{Model, Thresholds};

/// The most candidates a miss shows (the one owner of this cap).
pub const MAX_CANDIDATES: usize = 3;

/// The most question words a candidate lists as missing from its chart.
pub const MAX_MISSING: usize = 5;

/// The fewest terms a question has for a chart's files to make up the words the chart lacks
/// (`corroborated`).
pub const CORROBORATED_MIN_TERMS: usize = 5;

/// The largest share of a question's weight ([`gate::Question::share_of`]) the words a chart
/// lacks may carry for its files to make them up (`corroborated`).
pub const CORROBORATED_MAX_SHARE: f32 = 0.2;

/// The highest score of an answer that is not an exact re-ask: 100 means "asked in these very
/// words before" (the chart's question or a confirmed phrasing).
pub const MAX_RANKED_SCORE: u8 = 99;

/// A chart offered on a miss: not an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The chart as ranked.
    pub hit: FusedHit,
    /// True when it passed the ranking's own threshold and the answer gate stopped it only for
    /// common words (`gate::Question::is_strong`): probably this question in other words. False
    /// for a chart that lacks a rarer word or holds an opposite, and for one merely close.
    pub strong: bool,
    /// The question's words (as asked, lowercase) that the chart does not hold in any form,
    /// most telling first, at most [`MAX_MISSING`].
    pub missing: Vec<String>,
}

/// What a question gets: answers, or on a miss, candidates.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decision {
    /// Charts that answer, best first, at most `ask.limit`. An exact re-ask scores 100; any
    /// other answer at most [`MAX_RANKED_SCORE`].
    pub answers: Vec<FusedHit>,
    /// When there are no answers: strong candidates first, then weak ones, each in fused rank
    /// order, at most [`MAX_CANDIDATES`].
    pub candidates: Vec<Candidate>,
}

/// Runs the whole path (module docs) for `ask`: fused when `vectors` (the store's, with the
/// question's unit vector) are given, BM25 alone otherwise. `model` gives the token vectors the
/// gate aligns words with (`None`: exact and stemmed matches only).
pub fn search(
    bm25: &Bm25Index,
    vectors: Option<(&Vectors, &[f32])>,
    ask: &Ask<'_>,
    model: Option<&Model>,
) -> Decision {
    if ask.limit == 0 {
        return Decision::default();
    }
    let ranking = match vectors {
        Some((v, q)) => semantic::rank(bm25, v, q, ask),
        None => lexical_rank(bm25, ask),
    };
    let question = Question::new(bm25, ask.query, ask.thresholds.salient);
    decide(&question, &ranking, ask, model)
}

/// BM25 alone: the candidates past the coverage floor, best first, scored by
/// [`super::display_score`] (`closeness` is the coverage, `cosine` 0); nothing is merely close.
pub fn lexical_rank(bm25: &Bm25Index, ask: &Ask<'_>) -> Ranking {
    let ideal = bm25.query_weight(ask.query);
    let mut cands: Vec<_> = bm25
        .candidates(ask.query, &|d| ask.allowed(d))
        .into_iter()
        .filter(super::passes_floor)
        .collect();
    cands.sort_by(|a, b| b.bm25.total_cmp(&a.bm25).then(a.doc.cmp(&b.doc)));
    let best = cands.first().map_or(0.0, |c| c.bm25);
    let passing = cands
        .iter()
        .map(|c| FusedHit {
            doc: c.doc,
            score: super::display_score(c.bm25, ideal),
            fused: if best > 0.0 { c.bm25 / best } else { 0.0 },
            cosine: 0.0,
            closeness: c.coverage,
        })
        .collect();
    Ranking {
        passing,
        close: Vec::new(),
        pool: Vec::new(),
    }
}

/// The decision step (module docs, 3): the gate over `ranking.passing`, then which of the charts
/// it lets through answer (`settle`); on a miss, the turned down charts as strong candidates,
/// then the close ones as weak candidates.
pub fn decide(
    question: &Question,
    ranking: &Ranking,
    ask: &Ask<'_>,
    model: Option<&Model>,
) -> Decision {
    let ranked: Vec<usize> = ranking.passing.iter().map(|h| h.doc).collect();
    let gated = settle(
        question,
        ranking,
        gate::apply(question, &ranked, ask, model),
        ask,
        model,
    );
    let find = |doc: usize| ranking.passing.iter().find(|h| h.doc == doc).copied();
    let answers: Vec<FusedHit> = gated
        .answers
        .iter()
        .map(|&doc| match find(doc) {
            Some(h) if !gated.exact.contains(&doc) => FusedHit {
                score: h.score.min(MAX_RANKED_SCORE),
                ..h
            },
            _ => FusedHit::exact(doc),
        })
        .collect();
    if !answers.is_empty() {
        return Decision {
            answers,
            candidates: Vec::new(),
        };
    }
    // A candidate's missing words, computed once (the corroboration and the listing both need
    // them for the best-ranked chart).
    let memo: std::cell::RefCell<Vec<(usize, Vec<String>)>> = Default::default();
    let missing_of = |doc: usize| -> Vec<String> {
        if let Some((_, m)) = memo.borrow().iter().find(|(d, _)| *d == doc) {
            return m.clone();
        }
        let m = question.missing(doc, &|d| ask.text(d), model, ask.thresholds);
        memo.borrow_mut().push((doc, m.clone()));
        m
    };
    if let Some(hit) = corroborated(question, ranking, &gated, ask, model, &missing_of) {
        return Decision {
            answers: vec![hit],
            candidates: Vec::new(),
        };
    }
    Decision {
        answers: Vec::new(),
        candidates: candidates(ranking, &gated, ask, &missing_of),
    }
}

/// On a miss: the charts the gate turned down (strong ones first, then the others, each in rank
/// order), then those merely close ([`semantic::shown`]), at most [`MAX_CANDIDATES`] and
/// `ask.limit`, each with its missing words (`missing_of`, at most [`MAX_MISSING`]).
fn candidates(
    ranking: &Ranking,
    gated: &gate::Gated,
    ask: &Ask<'_>,
    missing_of: &dyn Fn(usize) -> Vec<String>,
) -> Vec<Candidate> {
    let find = |doc: usize| ranking.passing.iter().find(|h| h.doc == doc).copied();
    let cap = MAX_CANDIDATES.min(ask.limit.max(1));
    // Strong candidates first; the other turned-down charts lead the weak ones (rank order).
    let (strong, turned_down): (Vec<_>, Vec<_>) = gated.demoted.iter().partition(|(_, s)| *s);
    let strong = strong
        .into_iter()
        .chain(turned_down)
        .filter_map(|&(d, s)| find(d).map(|h| (h, s)));
    // The charts shown beyond those the gate turned down: by relevance, with the files' text
    // when the store has it (read only now, on a miss, and only for a fused ranking: with BM25
    // alone the pool is empty and `shown` does not weigh the text).
    let n = ranking.pool.iter().map(|h| h.doc + 1).max().unwrap_or(0);
    let text = (n > 0)
        .then(|| ask.source.code())
        .flatten()
        .map(|code| super::code_text::scores(code, ask.query, &|d| ask.allowed(d), n));
    let close = semantic::shown(ranking, text.as_deref(), ask.thresholds);
    let weak = close.iter().map(|&h| (h, false));
    let mut candidates: Vec<Candidate> = Vec::new();
    for (hit, strong) in strong.chain(weak) {
        if candidates.len() >= cap {
            break;
        }
        if candidates.iter().any(|c| c.hit.doc == hit.doc) {
            continue;
        }
        let mut missing = missing_of(hit.doc);
        missing.truncate(MAX_MISSING);
        candidates.push(Candidate {
            hit,
            strong,
            missing,
        });
    }
    candidates
}

/// Which of the charts the gate let through answer (module docs, 3). The exact re-asks do; then,
/// in rank order, each chart the gate passed answers while every chart ranked above it answers
/// too (a chart ranked above that does not answer is closer to the question: both are shown as
/// candidates instead), when its question carries the question (its own words hold at least
/// `held` of it, [`Question::own_share`], or it is [`alone`] in coming near), and, after the
/// first answer, when it is about as close as that one (fused score at least `as_close` times
/// the first's: a line far below the best is another chart that happens to share words, and an
/// agent reads every line). A passed chart that does not answer is a candidate: strong when its
/// own words hold the question (`held`), weak otherwise.
fn settle(
    question: &Question,
    ranking: &Ranking,
    mut gated: gate::Gated,
    ask: &Ask<'_>,
    model: Option<&Model>,
) -> gate::Gated {
    let own = OwnShares {
        question,
        ask,
        model,
        memo: Default::default(),
    };
    let passed = std::mem::take(&mut gated.answers);
    let demoted = std::mem::take(&mut gated.demoted);
    gated.answers = gated.exact.clone();
    let mut lead = ranking
        .passing
        .iter()
        .find(|h| gated.exact.contains(&h.doc))
        .map(|h| h.fused);
    let mut open = true;
    for (pos, hit) in ranking.passing.iter().take(gate::MAX_CHECKS).enumerate() {
        let doc = hit.doc;
        if gated.exact.contains(&doc) {
            continue;
        }
        if let Some(&(_, strong)) = demoted.iter().find(|(d, _)| *d == doc) {
            gated.demoted.push((doc, strong));
            open = false;
            continue;
        }
        if !passed.contains(&doc) {
            continue;
        }
        let own_words = own.of(doc) >= ask.thresholds.held;
        let near_lead = lead.is_none_or(|f| hit.fused >= ask.thresholds.as_close * f);
        if open && near_lead && (own_words || alone(ranking, pos, &own, ask.thresholds)) {
            gated.answers.push(doc);
            lead = lead.or(Some(hit.fused));
        } else {
            open = false;
            gated.demoted.push((doc, own_words));
        }
    }
    gated
}

/// The share of the question each chart's own words hold ([`Question::own_share`]), computed
/// once per chart (0 for a chart whose text cannot be read).
struct OwnShares<'q, 'a> {
    question: &'q Question,
    ask: &'q Ask<'a>,
    model: Option<&'q Model>,
    memo: std::cell::RefCell<Vec<(usize, f32)>>,
}

impl OwnShares<'_, '_> {
    fn of(&self, doc: usize) -> f32 {
        if let Some(&(_, s)) = self.memo.borrow().iter().find(|(d, _)| *d == doc) {
            return s;
        }
        let t = self.ask.thresholds;
        let s = self
            .question
            .own_share(doc, &|d| self.ask.text(d), self.model, t)
            .unwrap_or(0.0);
        self.memo.borrow_mut().push((doc, s));
        s
    }
}

/// True when the chart at `pos` of `ranking.passing` is the first and no other chart past the
/// ranking's threshold is about as close: none has a fused score of at least `as_close` times
/// its own, and none of the first [`gate::MAX_CHECKS`] has own words (question and phrasings)
/// holding as much of the question as its own words do. Only such a chart may answer by its
/// details and paths (a question naming a function only its details name, when no other chart
/// comes near). Where another chart is about as close, or asks in its own words at least as
/// much of the question, the words only the details hold are mentioned in passing as likely as
/// not ("How does echo() write bytes to stdout?" against a test runner whose details say that
/// echo() writes its bytes into the captured stdout, beside a chart that asks about echo()).
fn alone(ranking: &Ranking, pos: usize, own: &OwnShares<'_, '_>, t: &Thresholds) -> bool {
    let Some(first) = ranking.passing.first() else {
        return false;
    };
    if pos != 0 {
        return false;
    }
    let rest = || ranking.passing.iter().skip(1);
    if rest().any(|h| h.fused >= t.as_close * first.fused) {
        return false;
    }
    let mine = own.of(first.doc);
    rest().take(gate::MAX_CHECKS - 1).all(|h| {
        let theirs = own.of(h.doc);
        theirs <= 0.0 || theirs < mine
    })
}

/// On a miss, the chart the files' text lets answer: the best-ranked chart, when the
/// gate turned it down only for common words ([`Question::is_strong`]), those words are a minor
/// part of a long enough question (at most [`CORROBORATED_MAX_SHARE`] of its weight, and the
/// question has at least [`CORROBORATED_MIN_TERMS`] terms), and its backing files' text holds
/// every one of them (each of the word's terms, by stem). The
/// chart's words say nearly all of the question and its files say the rest: evidence a near
/// miss lacks, since the word it lacks names another thing and is rarely common. `None` without
/// a file-text index, when a lacking word is in no file of the chart, or when nothing is
/// lacking in words (the gate stopped it for another reason).
fn corroborated(
    question: &Question,
    ranking: &Ranking,
    gated: &gate::Gated,
    ask: &Ask<'_>,
    model: Option<&Model>,
    missing_of: &dyn Fn(usize) -> Vec<String>,
) -> Option<FusedHit> {
    let &(doc, strong) = gated.demoted.first()?;
    let best = ranking.passing.first()?;
    if !strong || best.doc != doc {
        return None;
    }
    // Its question must carry the question, as for any answer ([`settle`]).
    let own = OwnShares {
        question,
        ask,
        model,
        memo: Default::default(),
    };
    if own.of(doc) < ask.thresholds.held && !alone(ranking, 0, &own, ask.thresholds) {
        return None;
    }
    let missing = missing_of(doc);
    // Only a minor part of a long enough question: in a short one the lacking word is what it
    // asks ("how are stale charts deleted?" against "...detected?", whose files say "delete").
    if missing.is_empty()
        || question.term_count() < CORROBORATED_MIN_TERMS
        || question.share_of(&missing) > CORROBORATED_MAX_SHARE
    {
        return None;
    }
    let held = match ask.source.files_hold(doc, &missing) {
        Some(held) => held,
        None => {
            // The file-text index (each chart's most telling words) when the files cannot be read.
            let code = ask.source.code()?;
            let d = u32::try_from(doc).ok()?;
            missing.iter().all(|w| {
                let terms = super::analyze(w);
                !terms.is_empty()
                    && terms
                        .iter()
                        .all(|t| code.docs_with(t).binary_search(&d).is_ok())
            })
        }
    };
    held.then(|| FusedHit {
        score: best.score.min(MAX_RANKED_SCORE),
        ..*best
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::semantic::embed_all;
    use crate::recall::Doc;

    fn setup(qs: &[&str]) -> (Bm25Index, Vectors, &'static Model) {
        let model = crate::embed::model().expect("this build embeds a model");
        let files: Vec<Vec<String>> = qs.iter().map(|_| Vec::new()).collect();
        let docs: Vec<Doc<'_>> = qs
            .iter()
            .zip(&files)
            .map(|(q, f)| Doc {
                question: q,
                details: "",
                files: f,
            })
            .collect();
        let bm25 = Bm25Index::build(&docs);
        let vectors = embed_all(model, qs.iter().map(|q| (*q, "")));
        (bm25, vectors, model)
    }

    fn run(
        bm25: &Bm25Index,
        vectors: &Vectors,
        qs: &[&str],
        query: &str,
        allowed: &dyn Fn(usize) -> bool,
    ) -> Decision {
        let model = crate::embed::model().unwrap();
        let t = model.thresholds();
        let ask = Ask {
            query,
            limit: 5,
            thresholds: &t,
            source: &Questions { qs, allowed },
        };
        let q = model.embed(query);
        search(bm25, Some((vectors, &q)), &ask, Some(model))
    }

    /// Charts that are only their questions, `allowed` as given.
    struct Questions<'a> {
        qs: &'a [&'a str],
        allowed: &'a dyn Fn(usize) -> bool,
    }

    impl crate::recall::Source for Questions<'_> {
        fn allowed(&self, doc: usize) -> bool {
            (self.allowed)(doc)
        }

        fn text(&self, doc: usize) -> Option<crate::recall::gate::DocText> {
            self.qs.get(doc).map(|q| crate::recall::gate::DocText {
                question: q.to_string(),
                ..Default::default()
            })
        }
    }

    #[test]
    fn exact_questions_answer_and_unrelated_ones_do_not() {
        let qs = [
            "Where are Stripe payment webhooks verified and handled?",
            "How is the PDF of a signed document rendered?",
            "Which component renders the team members table?",
        ];
        let (bm25, vectors, _) = setup(&qs);
        for (i, q) in qs.iter().enumerate() {
            let r = run(&bm25, &vectors, &qs, q, &|_| true);
            assert_eq!(r.answers.first().map(|h| h.doc), Some(i), "{q}");
            assert_eq!(r.answers[0].score, 100, "an exact re-ask scores 100");
        }
        let r = run(
            &bm25,
            &vectors,
            &qs,
            "kubernetes helm chart ingress annotations",
            &|_| true,
        );
        assert!(r.answers.is_empty(), "{r:?}");
        let r = run(&bm25, &vectors, &qs, qs[0], &|d| d != 0);
        assert!(r.answers.iter().all(|h| h.doc != 0));
    }

    #[test]
    fn a_near_miss_is_related_not_an_answer() {
        let qs = [
            "Where are payment webhooks handled?",
            "How does API rate limiting work?",
            "How is the PDF certificate page rendered?",
            "How is the project root located?",
        ];
        let (bm25, vectors, _) = setup(&qs);
        for (near, chart) in [
            ("Where are payment refunds handled?", 0),
            ("How does API pagination work?", 1),
            ("Where is the login page rendered?", 2),
            ("what license is this project under?", 3),
        ] {
            let r = run(&bm25, &vectors, &qs, near, &|_| true);
            assert!(r.answers.is_empty(), "{near}: {r:?}");
            assert_eq!(
                r.candidates.first().map(|c| c.hit.doc),
                Some(chart),
                "{near}: {r:?}"
            );
        }
        let r = run(
            &bm25,
            &vectors,
            &qs,
            "where are the payment webhooks handled",
            &|_| true,
        );
        assert_eq!(r.answers.first().map(|h| h.doc), Some(0), "{r:?}");
    }
}
