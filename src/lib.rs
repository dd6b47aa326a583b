//! The napi binding: a mirror of oxeval-core, no logic. JS values arrive as JSON text (the
//! JS facade in index.js serializes them), go to the core, and results/errors come back as
//! plain data that the facade turns into results, `TypeError`s and `ScorerRunError`s.

mod error;
mod scorer;
mod scorers;
