//! NLTK 3.10's `PorterStemmer()` (mode `NLTK_EXTENSIONS`), the stemmer rouge_score 0.1.2
//! uses with `use_stemmer=True`. Its input is a lowercase ASCII alphanumeric token (rouge's
//! tokenizer), so the word is bytes. Each function mirrors the method of the same name.

type Cond<'a> = Option<&'a dyn Fn(&[u8]) -> bool>;

/// `PorterStemmer().stem(word)`.
pub fn stem(word: &str) -> String {
    let pool: &[(&str, &str)] = &[
        ("sky", "sky"),
        ("skies", "sky"),
        ("dying", "die"),
        ("lying", "lie"),
        ("tying", "tie"),
        ("news", "news"),
        ("innings", "inning"),
        ("inning", "inning"),
        ("outings", "outing"),
        ("outing", "outing"),
        ("cannings", "canning"),
        ("canning", "canning"),
        ("howe", "howe"),
        ("proceed", "proceed"),
        ("exceed", "exceed"),
        ("succeed", "succeed"),
    ];
    if let Some((_, s)) = pool.iter().find(|(w, _)| *w == word) {
        return (*s).to_string();
    }
    if word.len() <= 2 {
        return word.to_string();
    }
    let mut w = word.as_bytes().to_vec();
    for step in [step1a, step1b, step1c, step2, step3, step4, step5a, step5b] {
        w = step(&w);
    }
    String::from_utf8(w).unwrap_or_default()
}

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

fn is_consonant(word: &[u8], mut i: usize) -> bool {
    if is_vowel(word[i]) {
        return false;
    }
    if word[i] == b'y' {
        let mut negate = false;
        while i > 0 && word[i] == b'y' {
            negate = !negate;
            i -= 1;
        }
        // NLTK: `(word[i] not in vowels) != negate`
        return is_vowel(word[i]) == negate;
    }
    true
}

fn consonant_flags(word: &[u8]) -> Vec<bool> {
    let mut flags: Vec<bool> = Vec::with_capacity(word.len());
    for (i, &c) in word.iter().enumerate() {
        let f = if is_vowel(c) {
            false
        } else if c == b'y' {
            i == 0 || !flags[i - 1]
        } else {
            true
        };
        flags.push(f);
    }
    flags
}

/// The number of `vc` pairs in the word's c/v sequence.
fn measure(stem: &[u8]) -> usize {
    consonant_flags(stem)
        .windows(2)
        .filter(|p| !p[0] && p[1])
        .count()
}

fn positive(stem: &[u8]) -> bool {
    measure(stem) > 0
}

fn contains_vowel(stem: &[u8]) -> bool {
    !consonant_flags(stem).iter().all(|c| *c)
}

fn ends_double_consonant(w: &[u8]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1)
}

fn ends_cvc(w: &[u8]) -> bool {
    let n = w.len();
    (n >= 3
        && is_consonant(w, n - 3)
        && !is_consonant(w, n - 2)
        && is_consonant(w, n - 1)
        && !matches!(w[n - 1], b'w' | b'x' | b'y'))
        || (n == 2 && !is_consonant(w, 0) && is_consonant(w, 1))
}

fn cat(a: &[u8], b: &[u8]) -> Vec<u8> {
    [a, b].concat()
}

/// `_apply_rule_list`: the first rule whose suffix matches decides (`*d`: a double consonant).
fn apply(word: &[u8], rules: &[(&str, &[u8], Cond)]) -> Vec<u8> {
    for (suffix, replacement, cond) in rules {
        if *suffix == "*d" && ends_double_consonant(word) {
            let stem = &word[..word.len() - 2];
            return if cond.is_none_or(|c| c(stem)) {
                cat(stem, replacement)
            } else {
                word.to_vec()
            };
        }
        if word.ends_with(suffix.as_bytes()) {
            let stem = &word[..word.len() - suffix.len()];
            return if cond.is_none_or(|c| c(stem)) {
                cat(stem, replacement)
            } else {
                word.to_vec()
            };
        }
    }
    word.to_vec()
}

fn step1a(w: &[u8]) -> Vec<u8> {
    if w.ends_with(b"ies") && w.len() == 4 {
        return cat(&w[..1], b"ie");
    }
    apply(
        w,
        &[
            ("sses", b"ss", None),
            ("ies", b"i", None),
            ("ss", b"ss", None),
            ("s", b"", None),
        ],
    )
}

fn step1b(w: &[u8]) -> Vec<u8> {
    if w.ends_with(b"ied") {
        let stem = &w[..w.len() - 3];
        return cat(stem, if w.len() == 4 { b"ie" } else { b"i" });
    }
    if w.ends_with(b"eed") {
        let stem = &w[..w.len() - 3];
        return if measure(stem) > 0 {
            cat(stem, b"ee")
        } else {
            w.to_vec()
        };
    }
    let Some(inter) = [&b"ed"[..], b"ing"]
        .iter()
        .filter(|s| w.ends_with(s))
        .map(|s| &w[..w.len() - s.len()])
        .find(|stem| contains_vowel(stem))
    else {
        return w.to_vec();
    };
    let last = [inter[inter.len() - 1]];
    let not_lsz = |_: &[u8]| !matches!(last[0], b'l' | b's' | b'z');
    let add_e = |stem: &[u8]| measure(stem) == 1 && ends_cvc(stem);
    apply(
        inter,
        &[
            ("at", b"ate", None),
            ("bl", b"ble", None),
            ("iz", b"ize", None),
            ("*d", &last, Some(&not_lsz)),
            ("", b"e", Some(&add_e)),
        ],
    )
}

fn step1c(w: &[u8]) -> Vec<u8> {
    let cond = |stem: &[u8]| stem.len() > 1 && is_consonant(stem, stem.len() - 1);
    apply(w, &[("y", b"i", Some(&cond))])
}

fn step2(w: &[u8]) -> Vec<u8> {
    if w.ends_with(b"alli") && positive(&w[..w.len() - 4]) {
        return step2(&cat(&w[..w.len() - 4], b"al"));
    }
    let p: Cond = Some(&positive);
    let logi = |_: &[u8]| positive(&w[..w.len().saturating_sub(3)]);
    apply(
        w,
        &[
            ("ational", b"ate", p),
            ("tional", b"tion", p),
            ("enci", b"ence", p),
            ("anci", b"ance", p),
            ("izer", b"ize", p),
            ("bli", b"ble", p),
            ("alli", b"al", p),
            ("entli", b"ent", p),
            ("eli", b"e", p),
            ("ousli", b"ous", p),
            ("ization", b"ize", p),
            ("ation", b"ate", p),
            ("ator", b"ate", p),
            ("alism", b"al", p),
            ("iveness", b"ive", p),
            ("fulness", b"ful", p),
            ("ousness", b"ous", p),
            ("aliti", b"al", p),
            ("iviti", b"ive", p),
            ("biliti", b"ble", p),
            ("fulli", b"ful", p),
            ("logi", b"log", Some(&logi)),
        ],
    )
}

fn step3(w: &[u8]) -> Vec<u8> {
    let p: Cond = Some(&positive);
    apply(
        w,
        &[
            ("icate", b"ic", p),
            ("ative", b"", p),
            ("alize", b"al", p),
            ("iciti", b"ic", p),
            ("ical", b"ic", p),
            ("ful", b"", p),
            ("ness", b"", p),
        ],
    )
}

fn step4(w: &[u8]) -> Vec<u8> {
    let gt1 = |s: &[u8]| measure(s) > 1;
    let ion = |s: &[u8]| measure(s) > 1 && matches!(s.last(), Some(b's' | b't'));
    let m: Cond = Some(&gt1);
    apply(
        w,
        &[
            ("al", b"", m),
            ("ance", b"", m),
            ("ence", b"", m),
            ("er", b"", m),
            ("ic", b"", m),
            ("able", b"", m),
            ("ible", b"", m),
            ("ant", b"", m),
            ("ement", b"", m),
            ("ment", b"", m),
            ("ent", b"", m),
            ("ion", b"", Some(&ion)),
            ("ou", b"", m),
            ("ism", b"", m),
            ("ate", b"", m),
            ("iti", b"", m),
            ("ous", b"", m),
            ("ive", b"", m),
            ("ize", b"", m),
        ],
    )
}

fn step5a(w: &[u8]) -> Vec<u8> {
    if let Some(stem) = w.strip_suffix(b"e") {
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            return stem.to_vec();
        }
    }
    w.to_vec()
}

fn step5b(w: &[u8]) -> Vec<u8> {
    let cond = |_: &[u8]| measure(&w[..w.len() - 1]) > 1;
    apply(w, &[("ll", b"l", Some(&cond))])
}

#[cfg(test)]
mod tests {
    #[test]
    fn nltk_stems() {
        // NLTK 3.10.4 PorterStemmer().stem
        for (w, s) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("running", "run"),
            ("hopping", "hop"),
            ("filing", "file"),
            ("relational", "relat"),
            ("generalization", "gener"),
            ("happily", "happili"),
            ("skies", "sky"),
            ("controll", "control"),
            ("analogi", "analog"),
            ("capital", "capit"),
        ] {
            assert_eq!(super::stem(w), s, "{w}");
        }
    }
}
