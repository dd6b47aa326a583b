//! The dead-judge stop: which failures retrying cannot change ([`persistent_failure`]), and
//! the streak of them a scorer's runs count (`Tally::note_run`): [`EARLY_STOP_RUNS`] in a
//! row, at the start of a run or at any point later, stop it.

use super::Tally;
use serde_json::Value;

/// How many of a scorer's runs in a row must fail alike before the run stops early.
pub const EARLY_STOP_RUNS: usize = 5;

/// An error that will fail every call of the run the same way (no key, no judge at that
/// address, a rejected key, an unknown model or endpoint): its signature, else `None`.
/// Transient failures (429, 5xx, timeouts, a garbled reply) never stop a run.
pub fn persistent_failure(err: &Value) -> Option<String> {
    let code = err.get("code").and_then(Value::as_str)?;
    let status = err.get("status").and_then(Value::as_u64);
    match code {
        "OXEVAL_MISSING_API_KEY" => Some(code.to_string()),
        "OXEVAL_JUDGE_HTTP" | "OXEVAL_JUDGE_MODEL" => match status {
            Some(s @ (401 | 403 | 404)) => Some(format!("{code} (HTTP {s})")),
            _ => None,
        },
        "OXEVAL_JUDGE_NETWORK" => {
            let m = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_ascii_lowercase();
            const UNREACHABLE: &[(&str, &str)] = &[
                ("connection refused", "connection refused"),
                ("dns error", "the host name does not resolve"),
                ("failed to lookup address", "the host name does not resolve"),
                (
                    "name or service not known",
                    "the host name does not resolve",
                ),
                ("no route to host", "no route to host"),
                ("network is unreachable", "network unreachable"),
                ("certificate", "TLS certificate rejected"),
            ];
            UNREACHABLE
                .iter()
                .find(|(needle, _)| m.contains(needle))
                .map(|(_, what)| format!("{code} ({what})"))
        }
        _ => None,
    }
}

impl Tally {
    /// Counts one run toward the dead-judge stop: a score or a failure that retrying can
    /// change ends the streak; a persistent failure extends it when it is the same failure.
    /// Returns the failure's signature when the streak has just reached [`EARLY_STOP_RUNS`].
    pub(super) fn note_run(&mut self, scored: bool, error: Option<&Value>) -> Option<String> {
        if scored {
            self.scored_runs += 1;
            self.streak = None;
            return None;
        }
        let Some(sig) = error.and_then(persistent_failure) else {
            self.streak = None;
            return None;
        };
        let count = match &mut self.streak {
            Some((s, n)) if *s == sig => {
                *n += 1;
                *n
            }
            _ => {
                self.streak = Some((sig.clone(), 1));
                1
            }
        };
        (count == EARLY_STOP_RUNS).then_some(sig)
    }
}
