//! Where one judge call stands: the run's cancellation and deadline ([`RunContext`]) and
//! where the call comes from ([`CallSite`]: scorer, item, step, call). The pipeline builds
//! it; the engine's request road ([`call`](super::call)) and the response cache
//! ([`cache`](super::cache)) read it.

use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Per-run control: cancellation and an optional overall deadline, and where the judge call
/// being made comes from ([`CallSite`]).
#[derive(Debug, Clone, Default)]
pub struct RunContext {
    pub cancel: CancellationToken,
    pub deadline: Option<tokio::time::Instant>,
    pub site: CallSite,
    /// Batch mode: the run's place in its batch session (its calls park on batch lines).
    pub batch: Option<Arc<super::batch::BatchRun>>,
    /// An estimate (`estimateCost`, engine/estimate.rs): requests the cache does not answer
    /// are counted and answered by the estimating judge, never sent.
    pub estimate: Option<super::estimate::EstimateMode>,
    /// With `estimate`: the step's schema when the request does not carry it natively.
    pub estimate_schema: Option<Arc<serde_json::Value>>,
}

/// Where a judge call comes from: the response cache's locator of the call (a replay miss
/// is compared with what was recorded for the same scorer, step, call and item). The host
/// sets `item` (run option `itemId`); the scorer's run sets `scorer` (and `item` from the
/// run's input when the host did not); the pipeline sets `step`; a step making several
/// calls names each (`call`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallSite {
    pub scorer: Option<Arc<str>>,
    pub item: Option<Arc<str>>,
    pub step: Option<Arc<str>>,
    /// Which call of the step (e.g. `response` / `reference`); empty for a step's only call.
    pub call: &'static str,
    /// Which trial of the item (run option `trial`; 0 or 1: the first). A later trial's
    /// requests have their own cache keys (and batch lines): N trials are N samples.
    pub trial: u32,
}

impl RunContext {
    /// The run's item (run option `itemId`).
    pub fn with_item(mut self, item: Option<String>) -> RunContext {
        self.site.item = item.map(Arc::from);
        self
    }

    /// The run's trial (run option `trial`).
    pub fn with_trial(mut self, trial: u32) -> RunContext {
        self.site.trial = trial;
        self
    }

    /// The context of `scorer`'s run of `run`: the scorer id, and the item from the run's
    /// input unless the host named it ([`RunInput::item_digest`](crate::run::RunInput::item_digest)).
    pub fn for_scorer(mut self, scorer: &str, run: &crate::run::RunInput) -> RunContext {
        self.site.scorer = Some(Arc::from(scorer));
        if self.site.item.is_none() {
            self.site.item = Some(Arc::from(run.item_digest()));
        }
        self
    }

    /// This context for the calls of `step` (the step's only call, or its unnamed ones).
    pub fn at(&self, step: &str) -> RunContext {
        self.at_call(step, "")
    }

    /// This context for the call `call` of `step` (a step making several calls).
    pub fn at_call(&self, step: &str, call: &'static str) -> RunContext {
        let mut ctx = self.clone();
        ctx.site.step = Some(Arc::from(step));
        ctx.site.call = call;
        ctx
    }

    /// Resolves when the deadline passes; never without one.
    pub(crate) async fn deadline_passed(&self) {
        match self.deadline {
            Some(d) => tokio::time::sleep_until(d).await,
            None => std::future::pending().await,
        }
    }

    /// Time left before the deadline; `None` without one.
    pub(crate) fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(tokio::time::Instant::now()))
    }
}
