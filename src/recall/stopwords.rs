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

/// The SMART system's English stop list (Salton and Buckley, Cornell; as published in Lewis et
/// al., "RCV1: A New Benchmark Collection for Text Categorization Research", JMLR 5 (2004),
/// Appendix 11: 571 words), without its single letters and its words with apostrophes, which the
/// tokeniser never yields as words. Wider than [`STOP_WORDS`]: beside function words it holds the
/// words of how something is asked or said ("please", "happens", "vs", "thanks", "want",
/// "regarding"), and some words that can be content in code ("value", "new", "name"), which is
/// why it does not replace [`STOP_WORDS`] in the index. Sorted (byte order), lowercase.
#[rustfmt::skip]
const SMART_STOP_WORDS: &[&str] = &[
    "able", "about", "above", "according", "accordingly", "across", "actually", "after",
    "afterwards", "again", "against", "all", "allow", "allows", "almost", "alone", "along",
    "already", "also", "although", "always", "am", "among", "amongst", "an", "and", "another",
    "any", "anybody", "anyhow", "anyone", "anything", "anyway", "anyways", "anywhere", "apart",
    "appear", "appreciate", "appropriate", "are", "around", "as", "aside", "ask", "asking",
    "associated", "at", "available", "away", "awfully", "be", "became", "because", "become",
    "becomes", "becoming", "been", "before", "beforehand", "behind", "being", "believe", "below",
    "beside", "besides", "best", "better", "between", "beyond", "both", "brief", "but", "by",
    "came", "can", "cannot", "cant", "cause", "causes", "certain", "certainly", "changes",
    "clearly", "co", "com", "come", "comes", "concerning", "consequently", "consider",
    "considering", "contain", "containing", "contains", "corresponding", "could", "course",
    "currently", "definitely", "described", "despite", "did", "different", "do", "does", "doing",
    "done", "down", "downwards", "during", "each", "edu", "eg", "eight", "either", "else",
    "elsewhere", "enough", "entirely", "especially", "et", "etc", "even", "ever", "every",
    "everybody", "everyone", "everything", "everywhere", "ex", "exactly", "example", "except",
    "far", "few", "fifth", "first", "five", "followed", "following", "follows", "for", "former",
    "formerly", "forth", "four", "from", "further", "furthermore", "get", "gets", "getting",
    "given", "gives", "go", "goes", "going", "gone", "got", "gotten", "greetings", "had",
    "happens", "hardly", "has", "have", "having", "he", "hello", "help", "hence", "her", "here",
    "hereafter", "hereby", "herein", "hereupon", "hers", "herself", "hi", "him", "himself", "his",
    "hither", "hopefully", "how", "howbeit", "however", "ie", "if", "ignored", "immediate", "in",
    "inasmuch", "inc", "indeed", "indicate", "indicated", "indicates", "inner", "insofar",
    "instead", "into", "inward", "is", "it", "its", "itself", "just", "keep", "keeps", "kept",
    "know", "known", "knows", "last", "lately", "later", "latter", "latterly", "least", "less",
    "lest", "let", "like", "liked", "likely", "little", "look", "looking", "looks", "ltd",
    "mainly", "many", "may", "maybe", "me", "mean", "meanwhile", "merely", "might", "more",
    "moreover", "most", "mostly", "much", "must", "my", "myself", "name", "namely", "nd", "near",
    "nearly", "necessary", "need", "needs", "neither", "never", "nevertheless", "new", "next",
    "nine", "no", "nobody", "non", "none", "noone", "nor", "normally", "not", "nothing", "novel",
    "now", "nowhere", "obviously", "of", "off", "often", "oh", "ok", "okay", "old", "on", "once",
    "one", "ones", "only", "onto", "or", "other", "others", "otherwise", "ought", "our", "ours",
    "ourselves", "out", "outside", "over", "overall", "own", "particular", "particularly", "per",
    "perhaps", "placed", "please", "plus", "possible", "presumably", "probably", "provides",
    "que", "quite", "qv", "rather", "rd", "re", "really", "reasonably", "regarding", "regardless",
    "regards", "relatively", "respectively", "right", "said", "same", "saw", "say", "saying",
    "says", "second", "secondly", "see", "seeing", "seem", "seemed", "seeming", "seems", "seen",
    "self", "selves", "sensible", "sent", "serious", "seriously", "seven", "several", "shall",
    "she", "should", "since", "six", "so", "some", "somebody", "somehow", "someone", "something",
    "sometime", "sometimes", "somewhat", "somewhere", "soon", "sorry", "specified", "specify",
    "specifying", "still", "sub", "such", "sup", "sure", "take", "taken", "tell", "tends", "th",
    "than", "thank", "thanks", "thanx", "that", "thats", "the", "their", "theirs", "them",
    "themselves", "then", "thence", "there", "thereafter", "thereby", "therefore", "therein",
    "theres", "thereupon", "these", "they", "think", "third", "this", "thorough", "thoroughly",
    "those", "though", "three", "through", "throughout", "thru", "thus", "to", "together", "too",
    "took", "toward", "towards", "tried", "tries", "truly", "try", "trying", "twice", "two", "un",
    "under", "unfortunately", "unless", "unlikely", "until", "unto", "up", "upon", "us", "use",
    "used", "useful", "uses", "using", "usually", "uucp", "value", "various", "very", "via",
    "viz", "vs", "want", "wants", "was", "way", "we", "welcome", "well", "went", "were", "what",
    "whatever", "when", "whence", "whenever", "where", "whereafter", "whereas", "whereby",
    "wherein", "whereupon", "wherever", "whether", "which", "while", "whither", "who", "whoever",
    "whole", "whom", "whose", "why", "will", "willing", "wish", "with", "within", "without",
    "wonder", "would", "yes", "yet", "you", "your", "yours", "yourself", "yourselves", "zero",
];

/// True when `word` (lowercase, unstemmed) is on the SMART stop list ([`SMART_STOP_WORDS`]). The
/// answer gate never lets such a word block an answer (`super::gate`).
pub(crate) fn is_smart_stop_word(word: &str) -> bool {
    SMART_STOP_WORDS.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_and_unique() {
        for pair in STOP_WORDS.windows(2).chain(SMART_STOP_WORDS.windows(2)) {
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

    #[test]
    fn the_smart_list_holds_the_snowball_one_and_words_of_asking() {
        // The only Snowball/NLTK words SMART lacks: contraction fragments.
        let not_smart = [
            "ain", "aren", "couldn", "didn", "doesn", "don", "hadn", "hasn", "haven", "isn", "ll",
            "mightn", "mustn", "needn", "shan", "shouldn", "ve", "wasn", "weren", "won", "wouldn",
        ];
        for w in STOP_WORDS {
            assert_eq!(is_smart_stop_word(w), !not_smart.contains(w), "{w}");
        }
        for w in ["please", "happens", "vs", "thanks"] {
            assert!(is_smart_stop_word(w) && !is_stop_word(w), "{w}");
        }
        assert_eq!(SMART_STOP_WORDS.len(), 497);
    }
}
