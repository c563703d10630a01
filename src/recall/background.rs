//! Background document frequencies: how common each index term is in general software English.
//!
//! `assets/recall/background.tsv` (made by `examples/background_df.rs` from the model's frozen
//! corpus `tools/corpus/sentences.txt.gz`, 50,383 sentences from software documentation): a first
//! line `#sentences<TAB>N`, then `term<TAB>df` sorted by bytes, for terms in at least 3 sentences.
//! It is searched in place (binary search over the lines), so nothing is parsed at start-up.

static TABLE: &str = include_str!("../../assets/recall/background.tsv");

/// Number of sentences the frequencies were counted over (the first line of the table).
fn sentences() -> u32 {
    TABLE
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("#sentences\t"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
}

/// The number of background sentences containing `term` (0 when the table does not list it).
pub(super) fn df(term: &str) -> u32 {
    let bytes = TABLE.as_bytes();
    let body_start = TABLE.find('\n').map_or(TABLE.len(), |i| i + 1);
    let (mut lo, mut hi) = (body_start, TABLE.len());
    // Invariant: lo and hi are line starts (or the end); the term, if listed, lies in lo..hi.
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let start = bytes[lo..mid]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(lo, |i| lo + i + 1);
        let end = bytes[start..hi]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(hi, |i| start + i);
        let line = &TABLE[start..end];
        let (t, n) = line.split_once('\t').unwrap_or((line, "0"));
        match t.cmp(term) {
            std::cmp::Ordering::Equal => return n.parse().unwrap_or(0),
            std::cmp::Ordering::Less => lo = (end + 1).min(hi),
            std::cmp::Ordering::Greater => hi = start,
        }
    }
    0
}

/// How informative `term` is in general software English, 0..=1: its background IDF as a share
/// of the largest, `idf(df) / idf(0)` with `idf(df) = ln(1 + (N − df + 0.5) / (df + 0.5))`. 1 for
/// a term the background has not seen; about 0.27 for "file", 0.37 for "code", 0.6-0.7 for
/// domain words such as "refund", "login" or "webhook".
pub(super) fn informativeness(term: &str) -> f32 {
    let n = sentences() as f32;
    let idf = |df: f32| (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
    let max = idf(0.0);
    if max <= 0.0 {
        return 1.0;
    }
    (idf(df(term) as f32) / max).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_searchable() {
        let mut prev = "";
        for line in TABLE.lines().skip(1) {
            let (t, n) = line.split_once('\t').expect("term<TAB>df");
            assert!(prev < t, "{prev:?} before {t:?}");
            assert!(n.parse::<u32>().is_ok(), "{line}");
            assert_eq!(df(t), n.parse::<u32>().unwrap(), "{t}");
            prev = t;
        }
        assert!(sentences() > 50_000);
        assert_eq!(df("zzzzzz-not-a-term"), 0);
        assert_eq!(df(""), 0);
    }

    #[test]
    fn generic_words_weigh_less_than_domain_words() {
        assert!(informativeness("file") < informativeness("refund"));
        assert!(informativeness("code") < informativeness("webhook"));
        assert_eq!(informativeness("zzzzzz-unseen"), 1.0);
    }
}
