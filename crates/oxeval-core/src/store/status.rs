//! Who is recording a run, and whether a `running` run is still alive.
//!
//! A run row carries its owner (host name and pid) and a heartbeat (refreshed as items are
//! written, at least every [`HEARTBEAT_MS`] while the run records). A run whose summary was
//! never written is shown as `interrupted` when its owner is gone: on the same host, its pid
//! no longer exists (a SIGKILL); anywhere, its heartbeat is older than [`STALE_MS`]. The
//! decision is made at read time, so nothing has to clean up after a killed process.

/// How often a recording run refreshes its heartbeat (at most; on every write past it).
pub const HEARTBEAT_MS: i64 = 10_000;

/// A `running` run whose heartbeat is older than this is shown as `interrupted`.
pub const STALE_MS: i64 = 10 * 60_000;

/// This machine's name (`/proc/sys/kernel/hostname`, `$HOSTNAME`, else `localhost`).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}

/// Whether process `pid` exists on this machine (`None`: cannot tell here).
pub fn pid_alive(pid: i64) -> Option<bool> {
    if cfg!(target_os = "linux") {
        Some(std::path::Path::new(&format!("/proc/{pid}")).exists())
    } else {
        None
    }
}

/// The status a run row shows: a `running` run whose owner is gone is `interrupted`.
pub fn effective_status(
    status: &str,
    owner_host: Option<&str>,
    owner_pid: Option<i64>,
    heartbeat_at: Option<i64>,
    now_ms: i64,
    this_host: &str,
) -> &'static str {
    match status {
        "finished" => "finished",
        "interrupted" => "interrupted",
        _ => {
            let stale = heartbeat_at.is_none_or(|h| now_ms - h > STALE_MS);
            let dead =
                owner_host == Some(this_host) && owner_pid.and_then(pid_alive) == Some(false);
            if stale || dead {
                "interrupted"
            } else {
                "running"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_run_whose_owner_is_gone_is_interrupted() {
        let me = std::process::id() as i64;
        let now = 1_000_000_000;
        assert_eq!(
            effective_status("running", Some("h"), Some(me), Some(now), now, "h"),
            "running"
        );
        assert_eq!(
            effective_status(
                "running",
                Some("h"),
                Some(me),
                Some(now - STALE_MS - 1),
                now,
                "h"
            ),
            "interrupted"
        );
        assert_eq!(
            effective_status(
                "running",
                Some("other"),
                Some(i32::MAX as i64),
                Some(now),
                now,
                "h"
            ),
            "running"
        );
        if cfg!(target_os = "linux") {
            assert_eq!(
                effective_status(
                    "running",
                    Some("h"),
                    Some(i32::MAX as i64),
                    Some(now),
                    now,
                    "h"
                ),
                "interrupted"
            );
        }
        assert_eq!(
            effective_status("finished", None, None, None, now, "h"),
            "finished"
        );
    }
}
