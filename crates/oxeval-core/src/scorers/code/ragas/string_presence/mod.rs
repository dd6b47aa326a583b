//! Ragas's `StringPresence`: 1 when the reference occurs in the response, else 0. An empty
//! reference occurs in every response (Python's `"" in s`).

super::optionless_metric!(
    text StringPresence,
    "createStringPresenceScorer",
    "ragas-string-presence",
    "String Presence (Ragas)",
    "Ragas's StringPresence: 1 when the ground truth occurs in the output, else 0",
    "RagasStringPresence",
    "1 when the reference occurs in the response, else 0",
    string_presence
);

/// `float(reference in response)`.
pub fn string_presence(reference: &str, response: &str) -> f64 {
    f64::from(u8::from(response.contains(reference)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn substring() {
        assert_eq!(super::string_presence("", ""), 1.0);
        assert_eq!(super::string_presence("", "x"), 1.0);
        assert_eq!(super::string_presence("x", ""), 0.0);
        assert_eq!(super::string_presence("Paris", "It is Paris."), 1.0);
        assert_eq!(super::string_presence("paris", "It is Paris."), 0.0);
    }
}
