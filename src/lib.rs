//! The napi binding: a mirror of oxeval-core, no logic. JS values arrive as JSON text (the
//! JS facade in index.js serializes them, and describes what cannot cross — functions,
//! AbortSignals — as data); the core checks them, runs the scorer, and every outcome comes
//! back as plain data (`{ ok, … }`) that the facade turns into results, `TypeError`s,
//! `ScorerRunError`s and `AbortError`s. One protocol for sync and async calls.

mod agent;
mod batch;
mod error;
mod evals;
mod info;
mod model;
mod registry;
mod runtime;
mod scorer;
mod store;
