//! Finding the batch an intent may have created (a create whose answer was lost: a reset,
//! a timeout, a process killed in the call), in the provider's list of batches, newest
//! first, back to a little before the intent was written.
//!
//! - OpenAI, Azure OpenAI, Gemini: the batch carries the intent's tag (`metadata.oxeval`,
//!   `displayName`); found or not is certain.
//! - Anthropic keeps no batch-level metadata: a batch created in the intent's window
//!   (10 minutes before it to an hour after) with as many requests, and not recorded by
//!   this cache already, is a candidate. None: not created. One: it is taken (its answers
//!   are matched by custom id, the requests' cache keys: a wrong match would answer
//!   nothing). Several: unsure, the user is told which ids may be theirs.

use super::state::Intent;
use super::wire::{BatchApi, BatchError, ListPage};
use std::collections::HashSet;
use std::time::Duration;

/// What the provider's list says about an intent.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// The batch the intent created.
    Found(String),
    /// The intent created nothing (the list reaches back past its time).
    NotFound,
    /// It cannot be told: why, and the ids that may be the intent's batch.
    Unsure {
        why: String,
        candidates: Vec<String>,
    },
}

/// How long before its intent a batch may have been created by the provider's clock.
const SKEW_MS: u64 = 10 * 60_000;
/// How long after its intent the provider may have created it (a create held in a queue).
const LATE_MS: u64 = 60 * 60_000;
/// The most list pages read (100 batches each).
const MAX_PAGES: usize = 50;
/// Tries of one list page with transient errors.
const LIST_TRIES: u32 = 3;

async fn page(
    api: &dyn BatchApi,
    token: Option<&str>,
    timeout: Duration,
) -> Result<ListPage, BatchError> {
    let mut tries = 0;
    loop {
        match api.list(token, timeout).await {
            Err(e) if e.retryable && tries + 1 < LIST_TRIES => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(500 << tries)).await;
            }
            other => return other,
        }
    }
}

/// Look `intent` up in `api`'s batches; `known`: the batch ids this cache has recorded.
pub async fn find(
    api: &dyn BatchApi,
    intent: &Intent,
    known: &HashSet<String>,
    timeout: Duration,
) -> Lookup {
    let from = intent.created_at.saturating_sub(SKEW_MS);
    let to = intent.created_at.saturating_add(LATE_MS);
    let n = intent.requests.len() as u64;
    let mut candidates = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let p = match page(api, token.as_deref(), timeout).await {
            Ok(p) => p,
            Err(e) => {
                return Lookup::Unsure {
                    why: format!(
                        "the provider's list of batches could not be read ({})",
                        e.message
                    ),
                    candidates,
                }
            }
        };
        let mut past = false;
        for b in &p.batches {
            if api.keeps_tag() {
                if b.tag.as_deref() == Some(intent.tag.as_str()) {
                    return Lookup::Found(b.id.clone());
                }
            } else if b.created_ms.is_none_or(|t| t >= from && t <= to)
                && b.requests.is_none_or(|r| r == n)
                && !known.contains(&b.id)
            {
                candidates.push(b.id.clone());
            }
            past |= b.created_ms.is_some_and(|t| t < from);
        }
        match p.next {
            Some(next) if !past => token = Some(next),
            _ => return decide(api.keeps_tag(), candidates),
        }
    }
    Lookup::Unsure {
        why: format!(
            "the provider lists more than {} batches newer than this one",
            MAX_PAGES * 100
        ),
        candidates,
    }
}

fn decide(keeps_tag: bool, mut candidates: Vec<String>) -> Lookup {
    if keeps_tag || candidates.is_empty() {
        return Lookup::NotFound;
    }
    if candidates.len() == 1 {
        return Lookup::Found(candidates.remove(0));
    }
    Lookup::Unsure {
        why: format!(
            "{} batches were created then with as many requests (the provider keeps no tag to tell them apart)",
            candidates.len()
        ),
        candidates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_candidates_decide() {
        assert_eq!(decide(false, vec![]), Lookup::NotFound);
        assert_eq!(decide(false, vec!["a".into()]), Lookup::Found("a".into()));
        assert!(
            matches!(decide(false, vec!["a".into(), "b".into()]), Lookup::Unsure { candidates, .. } if candidates.len() == 2)
        );
        assert_eq!(decide(true, vec![]), Lookup::NotFound);
    }
}
