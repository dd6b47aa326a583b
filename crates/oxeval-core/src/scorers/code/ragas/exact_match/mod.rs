//! Ragas's `ExactMatch`: 1 when the response equals the reference (code point for code
//! point), else 0. Two empty texts match.

super::optionless_metric!(
    text ExactMatch,
    "createExactMatchScorer",
    "ragas-exact-match",
    "Exact Match (Ragas)",
    "Ragas's ExactMatch: 1 when the output equals the ground truth exactly, else 0",
    "RagasExactMatch",
    "1 when the response equals the reference, else 0",
    exact_match
);

/// `float(reference == response)`.
pub fn exact_match(reference: &str, response: &str) -> f64 {
    f64::from(u8::from(reference == response))
}

#[cfg(test)]
mod tests {
    #[test]
    fn equality() {
        assert_eq!(super::exact_match("", ""), 1.0);
        assert_eq!(super::exact_match("a", "a "), 0.0);
        assert_eq!(super::exact_match("é", "e\u{301}"), 0.0);
    }
}
