//! The addon's tokio runtime and allocator set-up, once when the module loads.
//!
//! Memory of long runs (issue 34): glibc gives each thread that allocates under contention
//! its own malloc arena (up to 8 per core), and memory freed in one arena is not reused by
//! another, so a batch run whose answers are parsed on one thread and freed on another grew
//! past 1.2 GB at 120 000 items where `MALLOC_ARENA_MAX=2` held it at about 650 MB. So:
//! - the runtime's blocking pool (the state directory and disk cache's file I/O) is bounded
//!   to [`MAX_BLOCKING_THREADS`] instead of tokio's 512: fewer threads, fewer arenas;
//! - on linux-gnu, unless the user set `MALLOC_ARENA_MAX`, the process's arenas are capped
//!   at [`ARENA_MAX`] (`mallopt(M_ARENA_MAX)`: arenas already made stay, no new ones past
//!   the cap).

use napi::bindgen_prelude::create_custom_tokio_runtime;

/// Threads of the blocking pool (file I/O of the cache and the batch state directory; each
/// call is short, and a queue of them waits rather than spawning a thread each).
const MAX_BLOCKING_THREADS: usize = 8;

/// The most malloc arenas (glibc) when the user did not choose.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const ARENA_MAX: libc::c_int = 2;

#[napi_derive::module_init]
fn init() {
    cap_arenas();
    // as napi's own runtime (multi-thread, every driver), the blocking pool bounded; if it
    // cannot be built napi builds its default one
    if let Ok(rt) = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(MAX_BLOCKING_THREADS)
        .build()
    {
        create_custom_tokio_runtime(rt);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn cap_arenas() {
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets an allocator parameter; any value is accepted or refused
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, ARENA_MAX);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn cap_arenas() {}
