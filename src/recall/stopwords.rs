//! The English stop-word list: generic function words plus the interrogatives that open most
//! questions ("where", "how", "what", "does"). Checked after lowercasing, before stemming.
//!
//! Based on the Snowball project's English stop list (BSD licence) and NLTK's, with contraction
//! fragments (`doesn` from `doesn't`, after apostrophes split words). It holds no domain words: a
//! term that is frequent in a store is discounted by its IDF instead.

/// Sorted (byte order), lowercase; `is_stop_word` binary-searches it.
#[rustfmt::skip]
const STOP_WORDS: &[&str] = &[
    "about", "above", "after", "again", "against", "ain", "all", "also", "am", "an", "and", "any",
    "are", "aren", "as", "at", "be", "because", "been", "before", "being", "below", "between",
    "both", "but", "by", "can", "cannot", "could", "couldn", "did", "didn", "do", "does", "doesn",
    "doing", "don", "down", "during", "each", "either", "else", "etc", "ever", "every", "few",
    "for", "from", "further", "had", "hadn", "has", "hasn", "have", "haven", "having", "he", "her",
    "here", "hers", "herself", "him", "himself", "his", "how", "however", "if", "in", "into", "is",
    "isn", "it", "its", "itself", "just", "ll", "may", "me", "might", "mightn", "more", "most",
    "must", "mustn", "my", "myself", "needn", "neither", "no", "nor", "not", "now", "of", "off",
    "on", "once", "only", "or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own",
    "re", "same", "shall", "shan", "she", "should", "shouldn", "so", "some", "such", "than",
    "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they",
    "this", "those", "through", "to", "too", "under", "until", "up", "upon", "us", "ve", "very",
    "via", "was", "wasn", "we", "were", "weren", "what", "whatever", "when", "whenever", "where",
    "whereas", "wherever", "whether", "which", "while", "who", "whoever", "whom", "whose", "why",
    "will", "with", "within", "without", "won", "would", "wouldn", "yet", "you", "your", "yours",
    "yourself", "yourselves",
];

/// True when `word` (lowercase, unstemmed) is an English stop word.
pub(crate) fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_is_sorted_and_unique() {
        for pair in STOP_WORDS.windows(2) {
            assert!(
                pair[0] < pair[1],
                "{:?} must sort before {:?}",
                pair[0],
                pair[1]
            );
        }
    }

    #[test]
    fn question_words_are_stop_words() {
        for w in [
            "where", "how", "what", "does", "which", "when", "why", "who", "is", "the",
        ] {
            assert!(is_stop_word(w), "{w}");
        }
        for w in ["webhook", "payment", "link", "handled", "where's"] {
            assert!(!is_stop_word(w), "{w}");
        }
    }
}
