//! Builds `assets/recall/background.tsv`, the general-software-English document frequencies the
//! answer gate uses to tell generic words ("code", "file", "happens") from informative ones.
//!
//! ```text
//! zcat tools/corpus/sentences.txt.gz | cargo run --release --example background_df > assets/recall/background.tsv
//! ```
//!
//! Input: one sentence per line (the model's frozen refit corpus, `tools/corpus/`). Output: a first
//! line `#sentences<TAB>N`, then `term<TAB>df` for every index term (as `capn_hook::recall::analyze`
//! makes them: stop words dropped, stemmed) found in at least [`MIN_DF`] sentences, sorted by bytes.

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, Write};

/// Terms in fewer sentences than this are left out (they count as never seen).
const MIN_DF: u32 = 3;

fn main() {
    let mut df: BTreeMap<String, u32> = BTreeMap::new();
    let mut n = 0u32;
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("read stdin");
        if line.trim().is_empty() {
            continue;
        }
        n += 1;
        let terms: HashSet<String> = capn_hook::recall::analyze(&line).into_iter().collect();
        for t in terms {
            *df.entry(t).or_default() += 1;
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "#sentences\t{n}").expect("write");
    for (t, d) in df {
        if d >= MIN_DF && !t.contains(['\t', '\n']) {
            writeln!(out, "{t}\t{d}").expect("write");
        }
    }
}
