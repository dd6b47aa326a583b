//! Per-endpoint admission control: a max-in-flight limit that backs off on 429s (AIMD), and
//! optional requests-per-minute / tokens-per-minute budgets (governor's GCRA limiter).
//! Thousands of concurrent `run()` calls queue here, first come first served, instead of
//! stampeding the provider.

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use std::collections::{HashMap, VecDeque};
use std::num::NonZeroU32;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Limits of one endpoint (`modelSettings.maxConcurrency`, `rpm`, `tpm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LimitSettings {
    pub max_concurrency: u32,
    pub rpm: Option<u32>,
    pub tpm: Option<u32>,
}

impl Default for LimitSettings {
    fn default() -> Self {
        LimitSettings {
            max_concurrency: 128,
            rpm: None,
            tpm: None,
        }
    }
}

struct State {
    in_flight: u32,
    /// Current concurrency window (AIMD), 1 ≤ window ≤ max_concurrency.
    window: f64,
    waiters: VecDeque<oneshot::Sender<Permit>>,
    last_decrease: Option<Instant>,
}

/// Shared by every scorer that uses the same endpoint, model and limit settings.
pub struct EndpointLimiter {
    settings: LimitSettings,
    state: Mutex<State>,
    rpm: Option<DefaultDirectRateLimiter>,
    tpm: Option<DefaultDirectRateLimiter>,
}

/// One admitted request; dropping it frees the slot.
pub struct Permit {
    limiter: Arc<EndpointLimiter>,
    armed: bool,
}

impl Drop for Permit {
    fn drop(&mut self) {
        if self.armed {
            self.limiter.release();
        }
    }
}

fn lock(m: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl EndpointLimiter {
    pub fn new(settings: LimitSettings) -> Arc<Self> {
        let quota = |n: Option<u32>| {
            n.and_then(NonZeroU32::new)
                .map(|n| RateLimiter::direct(Quota::per_minute(n)))
        };
        Arc::new(EndpointLimiter {
            settings,
            state: Mutex::new(State {
                in_flight: 0,
                window: settings.max_concurrency.max(1) as f64,
                waiters: VecDeque::new(),
                last_decrease: None,
            }),
            rpm: quota(settings.rpm),
            tpm: quota(settings.tpm),
        })
    }

    /// The process-wide limiter for `key` (endpoint + model) with these settings.
    pub fn shared(key: &str, settings: LimitSettings) -> Arc<Self> {
        type Registry = Mutex<HashMap<(String, LimitSettings), Arc<EndpointLimiter>>>;
        static REGISTRY: LazyLock<Registry> = LazyLock::new(|| Mutex::new(HashMap::new()));
        let mut reg = REGISTRY.lock().unwrap_or_else(|p| p.into_inner());
        reg.entry((key.to_string(), settings))
            .or_insert_with(|| EndpointLimiter::new(settings))
            .clone()
    }

    fn capacity(s: &State) -> u32 {
        (s.window.floor() as u32).max(1)
    }

    /// Wait for a slot (FIFO), then for the rpm/tpm budgets. `tokens` is the request's
    /// estimated token count.
    pub async fn acquire(self: &Arc<Self>, tokens: u32) -> Permit {
        let permit = {
            let rx = {
                let mut s = lock(&self.state);
                if s.waiters.is_empty() && s.in_flight < Self::capacity(&s) {
                    s.in_flight += 1;
                    None
                } else {
                    let (tx, rx) = oneshot::channel();
                    s.waiters.push_back(tx);
                    Some(rx)
                }
            };
            match rx {
                None => Permit {
                    limiter: self.clone(),
                    armed: true,
                },
                // A sender is only dropped without sending if the limiter is gone, which
                // cannot happen while we hold an Arc to it.
                Some(rx) => match rx.await {
                    Ok(p) => p,
                    Err(_) => Permit {
                        limiter: self.clone(),
                        armed: false,
                    },
                },
            }
        };
        if let Some(rpm) = &self.rpm {
            rpm.until_ready().await;
        }
        if let Some(tpm) = &self.tpm {
            let cap = self.settings.tpm.unwrap_or(1).max(1);
            let n = NonZeroU32::new(tokens.clamp(1, cap)).unwrap_or(NonZeroU32::MIN);
            // n ≤ burst capacity, so this cannot fail.
            let _ = tpm.until_n_ready(n).await;
        }
        permit
    }

    fn release(self: &Arc<Self>) {
        let mut s = lock(&self.state);
        s.in_flight = s.in_flight.saturating_sub(1);
        self.hand_over(&mut s);
    }

    /// Give free slots to queued waiters (skipping ones that gave up).
    fn hand_over(self: &Arc<Self>, s: &mut State) {
        while s.in_flight < Self::capacity(s) {
            let Some(tx) = s.waiters.pop_front() else {
                break;
            };
            s.in_flight += 1;
            if let Err(mut p) = tx.send(Permit {
                limiter: self.clone(),
                armed: true,
            }) {
                // the waiter was cancelled: take the slot back without re-entering release()
                p.armed = false;
                s.in_flight -= 1;
            }
        }
    }

    /// A 429 answer: halve the window (at most once per second, so a burst of 429s from
    /// requests already in flight counts once).
    pub fn on_rate_limited(&self) {
        let mut s = lock(&self.state);
        let now = Instant::now();
        if s.last_decrease
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(1))
        {
            return;
        }
        s.last_decrease = Some(now);
        s.window = (s.window / 2.0).max(1.0);
    }

    /// A success: grow the window by 1/window (about +1 per window of successes).
    pub fn on_success(self: &Arc<Self>) {
        let mut s = lock(&self.state);
        let max = self.settings.max_concurrency.max(1) as f64;
        if s.window < max {
            s.window = (s.window + 1.0 / s.window).min(max);
            self.hand_over(&mut s);
        }
    }

    /// (in flight, current window, queued) — for tests and diagnostics.
    pub fn snapshot(&self) -> (u32, f64, usize) {
        let s = lock(&self.state);
        (s.in_flight, s.window, s.waiters.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    fn settings(n: u32) -> LimitSettings {
        LimitSettings {
            max_concurrency: n,
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn never_exceeds_the_limit_and_serves_everyone() {
        let l = EndpointLimiter::new(settings(3));
        let now = Arc::new(AtomicU32::new(0));
        let peak = Arc::new(AtomicU32::new(0));
        let tasks: Vec<_> = (0..50)
            .map(|_| {
                let (l, now, peak) = (l.clone(), now.clone(), peak.clone());
                tokio::spawn(async move {
                    let _p = l.acquire(1).await;
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(n, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    now.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(peak.load(Ordering::SeqCst), 3);
        assert_eq!(l.snapshot(), (0, 3.0, 0));
    }

    #[tokio::test]
    async fn cancelled_waiters_do_not_leak_slots() {
        let l = EndpointLimiter::new(settings(1));
        let held = l.acquire(1).await;
        let waiting = {
            let l = l.clone();
            tokio::spawn(async move {
                let _p = l.acquire(1).await;
            })
        };
        tokio::time::sleep(Duration::from_millis(10)).await;
        waiting.abort();
        let _ = waiting.await;
        drop(held);
        let again = tokio::time::timeout(Duration::from_secs(1), l.acquire(1)).await;
        assert!(again.is_ok(), "the slot must be free again");
        drop(again);
        assert_eq!(l.snapshot().0, 0);
    }

    #[test]
    fn aimd_window() {
        let l = EndpointLimiter::new(settings(64));
        l.on_rate_limited();
        assert_eq!(l.snapshot().1, 32.0);
        l.on_rate_limited(); // within a second: ignored
        assert_eq!(l.snapshot().1, 32.0);
        for _ in 0..32 {
            l.on_success();
        }
        let w = l.snapshot().1;
        assert!(w > 32.9 && w < 33.1, "{w}");
        for _ in 0..100_000 {
            l.on_success();
        }
        assert_eq!(l.snapshot().1, 64.0);
    }

    #[tokio::test]
    async fn token_budget_blocks_when_spent() {
        let l = EndpointLimiter::new(LimitSettings {
            max_concurrency: 8,
            rpm: None,
            tpm: Some(10),
        });
        // larger than the whole budget: clamped to the burst, admitted at once
        drop(
            tokio::time::timeout(Duration::from_millis(200), l.acquire(1000))
                .await
                .expect("admitted"),
        );
        // the budget is spent: the next request must wait (~6 s for one token at 10 tpm)
        assert!(
            tokio::time::timeout(Duration::from_millis(100), l.acquire(1))
                .await
                .is_err()
        );
        let r = EndpointLimiter::new(LimitSettings {
            max_concurrency: 8,
            rpm: Some(2),
            tpm: None,
        });
        drop(r.acquire(1).await);
        drop(r.acquire(1).await);
        assert!(
            tokio::time::timeout(Duration::from_millis(100), r.acquire(1))
                .await
                .is_err(),
            "third request within the minute waits"
        );
    }
}
