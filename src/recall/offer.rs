//! The injection gate: may a chart be *offered* unasked, beside a prompt or a search?
//!
//! `ask` judges a question; an offer judges a prompt or a search, which are not questions. A
//! prompt is an instruction that mentions many things ("fix the retry bug in the stripe webhook
//! handler and add a test"); a search is a handful of identifiers (`completeDocumentWithToken`,
//! `**/billing/**`). Most of their words say nothing about any chart, so `ask`'s gate (every
//! salient word of the question matched by the chart) would turn nearly every prompt down. The
//! injection gate asks instead: **does the text point at one chart, clearly?**
//!
//! 1. **Rank** the charts as `ask` fuses its signals: `0.5 · BM25 / best BM25 + 0.5 · cosine`
//!    between the text's and the chart's embeddings. Only the best chart can be offered.
//! 2. **Meaning.** Its cosine with the text must reach [`Params::min_cosine`].
//! 3. **Lead.** Its fused score must lead the runner-up's by [`Params::lead`]: a text that points
//!    at several charts alike points at none of them.
//! 4. **Evidence.** The chart must hold the text's words, weighed as `ask`'s gate weighs a
//!    question's ([`super::gate::Question`]: IDF in the store times informativeness in software
//!    English, 0..=1 per word). The weight of the text's terms that the chart's question, details
//!    or paths contain is its *evidence*; it must reach both
//!    - [`Params::min_evidence`]: twice the answer gate's `salient`, the weight of two words
//!      that could each be a question's subject (one shared topic word, "webhook" or "snapshot",
//!      is not an answer; many generic ones are not either), and
//!    - [`Params::min_share`] of the text's own weight: 30%, the coverage floor that `ask`'s
//!      BM25 applies to a question ([`super::COVERAGE_FLOOR`]). A prompt mentions many things;
//!      when the chart holds under a third of what it says, the prompt is about something else
//!      that happens to share a word or two with the chart (the replay *player* beside the
//!      replay *ingestion* chart). A search is a few words chosen to find code, so a right chart
//!      holds most of them.
//!
//! A text that *is* a chart's question (or a confirmed phrasing of common words alone), asked
//! again (case, punctuation and whitespace aside:
//! [`super::gate::exact_key`]), points at that chart whatever the rules say, as it answers
//! in `ask`: in a store of one or two charts no word weighs enough for rule 4, yet a prompt that
//! repeats a charted question is the clearest pointer there is.
//!
//! Without embeddings (`--no-embedding`) nothing is offered: rule 2 needs them.
//!
//! The thresholds come from what each rule means, not from a fit to a query set; the README
//! reports `bench/offer_bench.py` and `examples/offer_eval.rs` (which also sweeps them).

use super::gate::Question;
use super::semantic::Vectors;
use super::Bm25Index;

/// The gate's thresholds (module docs, rules 2 to 4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Least cosine between the text and the chart (rule 2).
    pub min_cosine: f32,
    /// Least lead of the chart's fused score over the runner-up's (rule 3).
    pub lead: f32,
    /// Least evidence: summed weight of the text's terms the chart holds (rule 4).
    pub min_evidence: f32,
    /// Least evidence as a share of the text's total weight (rule 4).
    pub min_share: f32,
}

impl Params {
    /// The defaults for a model whose answer gate calls a term weighing `salient` or more
    /// salient: cosine at least 0.3, a lead of 0.1 (a tenth of the fused scale), evidence of at
    /// least two salient words' weight and of [`super::COVERAGE_FLOOR`] of the text's weight.
    pub fn new(salient: f32) -> Params {
        Params {
            min_cosine: 0.3,
            lead: 0.1,
            min_evidence: 2.0 * salient,
            min_share: super::COVERAGE_FLOOR,
        }
    }
}

/// What [`select`] picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    /// The chart's doc number (as in the index).
    pub doc: usize,
    /// True when the text is the chart's question asked again, found by the index's hash of the
    /// normalised question: the caller confirms it against the entry's own question.
    pub exact: bool,
}

/// The chart `text` points at (module docs); `qv` is the text's embedding and `vectors` the
/// charts' (doc numbers as in `bm25`). Only docs with `allowed(doc)` true are considered.
pub fn select(
    bm25: &Bm25Index,
    vectors: &Vectors,
    qv: &[f32],
    text: &str,
    p: &Params,
    allowed: &dyn Fn(usize) -> bool,
) -> Option<Pick> {
    let n = vectors.len().min(bm25.len());
    if let Some(doc) = bm25
        .exact_docs(text)
        .into_iter()
        .find(|&d| d < n && allowed(d))
    {
        return Some(Pick { doc, exact: true });
    }
    let cands = bm25.candidates(text, allowed);
    let best = cands.iter().map(|c| c.bm25).fold(0.0f32, f32::max);
    // BM25 normalised by the best, per doc (0 for docs the text shares no term with).
    let mut bm = vec![0.0f32; n];
    if best > 0.0 {
        for c in cands.iter().filter(|c| c.doc < n) {
            bm[c.doc] = c.bm25 / best;
        }
    }
    // The best two fused scores (ties to the lower doc number), in one pass over the docs.
    let mut first: Option<(f32, f32, usize)> = None;
    let mut second = 0.0f32;
    let cosines = vectors.cosines(qv);
    for d in (0..n).filter(|&d| allowed(d)) {
        let cos = cosines[d];
        let fused = 0.5 * bm[d] + 0.5 * cos;
        match first {
            Some((top, _, _)) if fused <= top => second = second.max(fused),
            _ => {
                if let Some((top, _, _)) = first {
                    second = second.max(top);
                }
                first = Some((fused, cos, d));
            }
        }
    }
    let (top, cos, doc) = first?;
    if cos < p.min_cosine || top - second < p.lead {
        return None;
    }
    let question = Question::new(bm25, text, 0.0);
    let evidence = question.held_weight(doc);
    let enough = evidence >= p.min_evidence && evidence >= p.min_share * question.weight();
    enough.then_some(Pick { doc, exact: false })
}

/// True when a prompt is worth recalling over: not a slash command, and at least three words
/// and twelve characters.
pub fn is_recallable_prompt(prompt: &str) -> bool {
    let p = prompt.trim();
    !p.starts_with('/') && p.chars().count() >= 12 && p.split_whitespace().count() >= 3
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::{semantic, Doc};

    #[test]
    fn a_text_pointing_at_one_chart_gets_it_and_a_topic_word_or_chatter_does_not() {
        let Some(model) = crate::embed::model() else {
            return;
        };
        // Eight charts: in a store of two or three, every word is shared by a good part of
        // it and no clue is salient (the answer gate's weighting), so nothing is offered.
        let charts = [
            (
                "Where are payment webhooks from Stripe handled?",
                "src/api/stripe-webhooks.ts",
            ),
            (
                "How does API rate limiting work?",
                "src/middleware/ratelimit.ts",
            ),
            (
                "How is the PDF certificate page rendered?",
                "src/pdf/certificate.tsx",
            ),
            (
                "Where are invoices emailed to customers?",
                "src/billing/invoice-mail.ts",
            ),
            ("How are team members invited?", "src/teams/invite.ts"),
            (
                "Where is the OAuth login callback?",
                "src/auth/oauth-callback.ts",
            ),
            (
                "How are uploaded files scanned for viruses?",
                "src/uploads/scan.ts",
            ),
            (
                "Where are feature flags evaluated?",
                "src/flags/evaluate.ts",
            ),
        ];
        let files: Vec<Vec<String>> = charts.iter().map(|(_, f)| vec![f.to_string()]).collect();
        let docs: Vec<Doc<'_>> = charts
            .iter()
            .zip(&files)
            .map(|((q, _), f)| Doc {
                question: q,
                details: "",
                files: f,
            })
            .collect();
        let bm25 = Bm25Index::build(&docs);
        let vectors = semantic::embed_all(model, charts.iter().map(|(q, _)| (*q, "")));
        let t = model.thresholds();
        let p = Params::new(t.salient);
        let pick = |text: &str| {
            select(&bm25, &vectors, &model.embed(text), text, &p, &|_| true).map(|pick| pick.doc)
        };
        assert_eq!(
            pick("fix the retry bug in the stripe payment webhook handler"),
            Some(0)
        );
        assert_eq!(pick("run the tests"), None);
        assert_eq!(pick("commit this and push"), None);
    }

    #[test]
    fn a_charted_question_asked_again_points_at_its_chart() {
        let Some(model) = crate::embed::model() else {
            return;
        };
        // Two charts alike: neither leads the other by rule 3, and in a store of two no word
        // weighs enough for rule 4; asked again word for word, a question still points at one.
        let questions = [
            "Where are payment webhooks handled?",
            "Where are payment webhooks verified?",
        ];
        let files = vec!["src/api/stripe-webhooks.ts".to_string()];
        let docs: Vec<Doc<'_>> = questions
            .iter()
            .map(|q| Doc {
                question: q,
                details: "",
                files: &files,
            })
            .collect();
        let bm25 = Bm25Index::build(&docs);
        let vectors = semantic::embed_all(model, questions.iter().map(|q| (*q, "")));
        let p = Params::new(model.thresholds().salient);
        let pick = |text: &str, allowed: &dyn Fn(usize) -> bool| {
            select(&bm25, &vectors, &model.embed(text), text, &p, allowed).map(|pick| pick.doc)
        };
        assert_eq!(pick("fix the payment webhook handler", &|_| true), None);
        assert_eq!(
            pick("where are payment webhooks handled", &|_| true),
            Some(0)
        );
        assert_eq!(
            pick("WHERE are payment webhooks verified!", &|_| true),
            Some(1)
        );
        assert_eq!(
            pick("where are payment webhooks handled", &|d| d != 0),
            None
        );
    }

    #[test]
    fn slash_commands_and_short_prompts_are_not_recalled_over() {
        assert!(!is_recallable_prompt("/compact keep the webhook details"));
        assert!(!is_recallable_prompt("yes go"));
        assert!(is_recallable_prompt("fix the stripe webhook retry"));
    }
}
