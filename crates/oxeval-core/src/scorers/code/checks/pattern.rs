//! `matches`' RegExp with JavaScript semantics: the `regress` crate (an ECMAScript regex
//! engine) over the text's UTF-16 code units (`u`/`v`: code points, else code units, as JS).
//!
//! Each run tests from index 0: Mastra reuses ONE RegExp object across runs, so with `g`
//! or `y` its `lastIndex` carries over (a second run on the same text scores 0); oxeval
//! does not copy that. `y` (sticky) matches only at index 0, as a fresh RegExp's `test`.
//!
//! A backtracking engine can take exponential time (`/^(a+)+$/` on 30 characters of output:
//! 30 s, doubling with each character), and `regress` has no step limit. So a test runs on a
//! worker thread (never the caller's: that is Node's main thread) under a budget
//! ([`budget`]: 1 s, `OXEVAL_PATTERN_BUDGET_MS`); when it is spent the caller gets
//! [`BudgetSpent`] (the check fails that run with `OXEVAL_PATTERN_BUDGET`) and the worker is
//! abandoned to finish on its own. At most [`MAX_ABANDONED`] workers run abandoned at once;
//! past that a test that finds no idle worker fails at once instead of adding another.

use regress::{Flags, Regex};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender, SyncSender};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

pub struct Pattern {
    regex: Arc<Regex>,
    unicode: bool,
    sticky: bool,
    /// `pattern.toString()`: `/${source}/${flags}`.
    pub display: String,
}

/// A test that gave no answer within its budget.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetSpent {
    pub budget: Duration,
    /// No worker was free: earlier tests are still running past their budget.
    pub busy: bool,
}

impl BudgetSpent {
    pub fn message(&self, display: &str) -> String {
        let ms = self.budget.as_millis();
        if self.busy {
            format!("pattern {display} was not tested: {MAX_ABANDONED} earlier tests of a pattern are still running past their {ms} ms budget (catastrophic backtracking); simplify the pattern (no nested quantifiers such as (a+)+)")
        } else {
            format!("pattern {display} did not finish within its {ms} ms budget on this output (catastrophic backtracking: nested quantifiers such as (a+)+ take exponential time); simplify the pattern, or raise OXEVAL_PATTERN_BUDGET_MS")
        }
    }
}

/// How long one test may take: `OXEVAL_PATTERN_BUDGET_MS` (10 ms to 60 s), else 1 s.
pub fn budget() -> Duration {
    static BUDGET: OnceLock<Duration> = OnceLock::new();
    *BUDGET.get_or_init(|| {
        let ms = std::env::var("OXEVAL_PATTERN_BUDGET_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(1000, |ms| ms.clamp(10, 60_000));
        Duration::from_millis(ms)
    })
}

impl Pattern {
    /// `exact`: Mastra's `new RegExp(`^${source}$`, flags)`.
    pub fn new(source: &str, flags: &str, exact: bool) -> Result<Pattern, String> {
        let unicode = flags.contains('u') || flags.contains('v');
        let mut engine_flags = flags.to_owned();
        if flags.contains('v') && !flags.contains('u') {
            engine_flags.push('u');
        }
        let text = if exact {
            format!("^{source}$")
        } else {
            source.to_owned()
        };
        let regex = Regex::with_flags(&text, Flags::from(engine_flags.as_str())).map_err(|e| {
            format!("pattern /{source}/{flags} is not supported by oxeval's ECMAScript regex engine (regress): {e}")
        })?;
        Ok(Pattern {
            regex: Arc::new(regex),
            unicode,
            sticky: flags.contains('y'),
            display: format!("/{source}/{flags}"),
        })
    }

    /// `pattern.test(text)` of a fresh RegExp, within [`budget`].
    pub fn test(&self, text: &str) -> Result<bool, BudgetSpent> {
        self.test_within(text, budget())
    }

    pub fn test_within(&self, text: &str, budget: Duration) -> Result<bool, BudgetSpent> {
        self.test_in(&pool(), text_units(text), budget)
    }

    fn test_in(
        &self,
        pool: &Arc<Pool>,
        units: Vec<u16>,
        budget: Duration,
    ) -> Result<bool, BudgetSpent> {
        let first = pool.find(
            Job {
                regex: self.regex.clone(),
                unicode: self.unicode,
                units,
            },
            budget,
        )?;
        Ok(match first {
            Some(start) => !self.sticky || start == 0,
            None => false,
        })
    }
}

fn text_units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// Where the first match starts.
fn find_first(regex: &Regex, unicode: bool, units: &[u16]) -> Option<usize> {
    if unicode {
        regex.find_from_utf16(units, 0).next().map(|m| m.start())
    } else {
        regex.find_from_ucs2(units, 0).next().map(|m| m.start())
    }
}

/// Workers left running past their budget at most.
pub const MAX_ABANDONED: usize = 2;

struct Job {
    regex: Arc<Regex>,
    unicode: bool,
    units: Vec<u16>,
}

struct Sent {
    job: Job,
    reply: SyncSender<Option<usize>>,
    /// Set by the caller that gave up on this job (before it drops the worker's sender).
    abandoned: Arc<AtomicBool>,
}

/// The idle workers, and how many run abandoned.
struct Pool {
    idle: Mutex<Vec<Sender<Sent>>>,
    abandoned: AtomicUsize,
}

/// The process's pool.
fn pool() -> Arc<Pool> {
    static POOL: OnceLock<Arc<Pool>> = OnceLock::new();
    POOL.get_or_init(Pool::new).clone()
}

impl Pool {
    fn new() -> Arc<Pool> {
        Arc::new(Pool {
            idle: Mutex::new(Vec::new()),
            abandoned: AtomicUsize::new(0),
        })
    }

    fn find(self: &Arc<Self>, job: Job, budget: Duration) -> Result<Option<usize>, BudgetSpent> {
        let spent = |busy| BudgetSpent { budget, busy };
        let idle = self.idle.lock().ok().and_then(|mut v| v.pop());
        let worker = match idle {
            Some(w) => w,
            None if self.abandoned.load(Ordering::SeqCst) >= MAX_ABANDONED => {
                return Err(spent(true))
            }
            None => self.spawn().ok_or(spent(true))?,
        };
        let (reply, answer) = mpsc::sync_channel(1);
        let abandoned = Arc::new(AtomicBool::new(false));
        let sent = Sent {
            job,
            reply,
            abandoned: abandoned.clone(),
        };
        // a worker only ends once abandoned, so a send to an idle one goes through
        worker.send(sent).map_err(|_| spent(true))?;
        match answer.recv_timeout(budget) {
            Ok(first) => {
                if let Ok(mut v) = self.idle.lock() {
                    v.push(worker);
                }
                Ok(first)
            }
            Err(_) => {
                self.abandoned.fetch_add(1, Ordering::SeqCst);
                abandoned.store(true, Ordering::SeqCst);
                drop(worker);
                Err(spent(false))
            }
        }
    }

    fn spawn(self: &Arc<Self>) -> Option<Sender<Sent>> {
        let (tx, rx) = mpsc::channel::<Sent>();
        let pool = self.clone();
        std::thread::Builder::new()
            .name("oxeval-pattern".into())
            .spawn(move || {
                let mut last: Option<Arc<AtomicBool>> = None;
                while let Ok(sent) = rx.recv() {
                    let first = find_first(&sent.job.regex, sent.job.unicode, &sent.job.units);
                    let _ = sent.reply.send(first);
                    last = Some(sent.abandoned);
                }
                // the sender is gone: only a caller that gave up drops it (flag set first)
                if last.is_some_and(|a| a.load(Ordering::SeqCst)) {
                    pool.abandoned.fetch_sub(1, Ordering::SeqCst);
                }
            })
            .ok()?;
        Some(tx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_regex_semantics() {
        let t = |src: &str, flags: &str, exact: bool, text: &str| {
            Pattern::new(src, flags, exact).unwrap().test(text).unwrap()
        };
        assert!(t(r"\d+°F", "g", false, "It is 72°F"));
        assert!(
            t(r"\d+°F", "g", false, "It is 72°F"),
            "no lastIndex carried over"
        );
        assert!(!t(r"\d+°F", "y", false, "It is 72°F"));
        assert!(t(r"It", "y", false, "It is 72°F"));
        assert!(t(r"(?<=\$)\d+", "", false, "cost $42"));
        assert!(t(r"(\w)\1", "", false, "hello"));
        assert!(t(r"PARIS", "i", false, "paris"));
        // without u one emoji is two code units
        assert!(!t(r"^.$", "", false, "😀"));
        assert!(t(r"^.$", "u", false, "😀"));
        assert!(t(r"^..$", "", false, "😀"));
        // exact: ^${source}$ (no group: `a|b` → `^a|b$`)
        assert!(t(r"a|b", "", true, "ab"));
        assert!(!t(r"ab", "", true, "xab"));
        assert!(t(r"^a$", "m", false, "x\na"));
        assert_eq!(Pattern::new("a", "gi", false).unwrap().display, "/a/gi");
        assert!(Pattern::new("(", "", false).is_err());
    }

    #[test]
    fn catastrophic_patterns_spend_their_budget_and_never_block() {
        let p = Pattern::new("^(a+)+$", "", false).unwrap();
        let evil = format!("{}!", "a".repeat(40));
        let t0 = std::time::Instant::now();
        // a pool of its own: its abandoned workers never make other tests' pool busy
        let pool = Pool::new();
        let e = p
            .test_in(&pool, text_units(&evil), Duration::from_millis(50))
            .unwrap_err();
        assert!(!e.busy);
        assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
        assert!(e.message(&p.display).contains("50 ms budget"));
        // the abandoned workers are bounded: past MAX_ABANDONED a test fails at once
        let mut busy = false;
        for _ in 0..MAX_ABANDONED + 1 {
            busy |= p
                .test_in(&pool, text_units(&evil), Duration::from_millis(20))
                .unwrap_err()
                .busy;
        }
        assert!(busy);
        assert_eq!(pool.abandoned.load(Ordering::SeqCst), MAX_ABANDONED);
        // the process's pool is untouched: a plain test there still answers
        assert_eq!(Pattern::new("a+", "", false).unwrap().test("baa"), Ok(true));
    }
}
