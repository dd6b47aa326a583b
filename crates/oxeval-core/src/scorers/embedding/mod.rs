//! Scorers over an embedder ([`crate::embed`]) instead of a judge: Ragas 0.4.3's
//! `SemanticSimilarity`.

pub mod semantic_similarity;
