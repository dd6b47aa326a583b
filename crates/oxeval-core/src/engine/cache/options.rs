//! The `cache` option: its modes ([`CacheMode`]), the parsed configuration
//! ([`CacheConfig`]), the environment variables it falls back to ([`CacheEnv`]) and the
//! factory's parse of `options.cache` ([`ResponseCache::from_options`]), which refuses a
//! `record` cache over a directory that cannot be written.

use super::disk::probe_writable;
use super::memory::DEFAULT_MEMORY_BYTES;
use super::ResponseCache;
use crate::error::InvalidArgument;
use crate::options::{opt_bool, opt_number, opt_uint_in, wrong_type};
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// Largest accepted `memoryBytes` (JavaScript's `Number.MAX_SAFE_INTEGER`).
pub(super) const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// How a cache answers (`cache.mode`, `OXEVAL_CACHE_MODE`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheMode {
    /// A hit answers; a miss asks the judge and stores the validated reply.
    #[default]
    Auto,
    /// Always ask the judge; store (overwrite) the validated reply. Never reads a hit.
    Record,
    /// Answer only from the cache; never send a request; store nothing. A miss is an
    /// `OXEVAL_CACHE_MISS` error.
    Replay,
}

impl CacheMode {
    pub fn parse(s: &str) -> Option<CacheMode> {
        match s {
            "auto" => Some(CacheMode::Auto),
            "record" => Some(CacheMode::Record),
            "replay" => Some(CacheMode::Replay),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CacheMode::Auto => "auto",
            CacheMode::Record => "record",
            CacheMode::Replay => "replay",
        }
    }

    /// Whether a lookup may answer.
    pub fn reads(self) -> bool {
        self != CacheMode::Record
    }
}

/// The parsed `cache` option.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheConfig {
    /// `cache.mode`, else `OXEVAL_CACHE_MODE`, else `auto`.
    pub mode: CacheMode,
    /// Use the process-wide memory layer (`cache.memory`, default true).
    pub memory: bool,
    /// Bound asked for the memory layer (`cache.memoryBytes`); 0 turns the memory layer off.
    pub memory_bytes: u64,
    /// The disk layer's directory (`cache.dir` or `OXEVAL_CACHE_DIR`).
    pub dir: Option<PathBuf>,
    /// Bound of each disk read or write (`cache.ioTimeoutMs`).
    pub io_timeout: Duration,
}

impl CacheConfig {
    pub(super) fn new(dir: Option<PathBuf>) -> Self {
        CacheConfig {
            mode: CacheMode::Auto,
            memory: true,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            dir,
            io_timeout: DISK_IO_TIMEOUT,
        }
    }
}

/// Default bound of one disk-cache read or write.
pub const DISK_IO_TIMEOUT: Duration = Duration::from_secs(2);

/// The environment variables the `cache` option falls back to.
#[derive(Debug, Clone, Default)]
pub struct CacheEnv {
    /// `OXEVAL_CACHE_DIR`.
    pub dir: Option<String>,
    /// `OXEVAL_CACHE_MODE`.
    pub mode: Option<String>,
}

impl CacheEnv {
    /// The process environment.
    pub fn from_process() -> CacheEnv {
        CacheEnv {
            dir: std::env::var("OXEVAL_CACHE_DIR").ok(),
            mode: std::env::var("OXEVAL_CACHE_MODE").ok(),
        }
    }
}

pub(super) const MODES: &str = "'record', 'replay' or 'auto'";

impl ResponseCache {
    /// Parse `options.cache`: `true` (memory), `{ dir?, mode?, memory?, memoryBytes?,
    /// ioTimeoutMs? }`, or `false`. Without the option, `OXEVAL_CACHE_DIR` enables a disk
    /// (and memory) cache; `OXEVAL_CACHE_MODE` is the mode unless `cache.mode` says
    /// otherwise. Replay without a directory is an error (it could only miss), and so is
    /// `OXEVAL_CACHE_MODE=replay` with no cache at all (the scorer would call the judge).
    pub fn from_options(v: Option<&Value>, env: CacheEnv) -> Result<Option<Self>, InvalidArgument> {
        let env_dir = env.dir.filter(|d| !d.is_empty()).map(PathBuf::from);
        let env_mode = match env.mode.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
            None => None,
            Some(m) => Some(CacheMode::parse(m).ok_or_else(|| {
                InvalidArgument::options(format!(
                    "process.env.OXEVAL_CACHE_MODE must be {MODES}; got '{}'",
                    crate::engine::clip(m, 40)
                ))
            })?),
        };
        let replay_without_cache = |why: &str| {
            InvalidArgument::options(format!(
                "process.env.OXEVAL_CACHE_MODE is 'replay' but {why}: this scorer would call the judge. Set cache: {{ dir }} or OXEVAL_CACHE_DIR to the recorded replies"
            ))
        };
        let (config, mode_from_option) = match v {
            None | Some(Value::Null) => match env_dir {
                Some(d) => (Some(CacheConfig::new(Some(d))), false),
                None if env_mode == Some(CacheMode::Replay) => {
                    return Err(replay_without_cache("no cache is configured"))
                }
                None => (None, false),
            },
            Some(Value::Bool(false)) => {
                if env_mode == Some(CacheMode::Replay) {
                    return Err(replay_without_cache("options.cache is false"));
                }
                (None, false)
            }
            Some(Value::Bool(true)) => (Some(CacheConfig::new(env_dir)), false),
            Some(obj @ Value::Object(m)) => {
                let path = "options.cache";
                let dir = match m.get("dir") {
                    None | Some(Value::Null) => env_dir,
                    Some(Value::String(s)) if !s.is_empty() => Some(PathBuf::from(s)),
                    Some(other) => {
                        return Err(wrong_type(
                            "options.cache.dir",
                            "a non-empty string",
                            other,
                        ))
                    }
                };
                let mut c = CacheConfig::new(dir);
                let mode = match m.get("mode") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(CacheMode::parse(s).ok_or_else(|| {
                        InvalidArgument::options(format!(
                            "{path}.mode must be {MODES}; got '{}'",
                            crate::engine::clip(s, 40)
                        ))
                    })?),
                    Some(other) => return Err(wrong_type("options.cache.mode", MODES, other)),
                };
                if let Some(mode) = mode {
                    c.mode = mode;
                }
                if let Some(b) = opt_bool(obj, "memory", path)? {
                    c.memory = b;
                }
                match opt_number(obj, "memoryBytes", path)? {
                    None => {}
                    Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER => {
                        c.memory_bytes = n as u64
                    }
                    Some(n) => {
                        return Err(InvalidArgument::options(format!(
                            "{path}.memoryBytes must be a non-negative integer (bytes; 0 turns the memory layer off); got {n}"
                        )))
                    }
                }
                if let Some(ms) = opt_uint_in(obj, "ioTimeoutMs", path, 1, 600_000)? {
                    c.io_timeout = Duration::from_millis(ms);
                }
                (Some(c), mode.is_some())
            }
            Some(other) => {
                return Err(wrong_type(
                    "options.cache",
                    "true, false or { dir?: string, mode?: 'record' | 'replay' | 'auto', memory?: boolean, memoryBytes?: number, ioTimeoutMs?: number }",
                    other,
                ))
            }
        };
        let Some(mut config) = config else {
            return Ok(None);
        };
        if !mode_from_option {
            config.mode = env_mode.unwrap_or_default();
        }
        if config.mode == CacheMode::Replay && config.dir.is_none() {
            let source = if mode_from_option {
                "options.cache.mode"
            } else {
                "process.env.OXEVAL_CACHE_MODE"
            };
            return Err(InvalidArgument::options(format!(
                "{source} is 'replay' but there is no cache directory to replay from: set options.cache.dir (or OXEVAL_CACHE_DIR) to the recorded replies (a memory-only cache starts empty, so every call would miss)"
            )));
        }
        if config.mode == CacheMode::Record {
            if let Some(dir) = &config.dir {
                probe_writable(dir, config.io_timeout).map_err(|why| {
                    let source = if mode_from_option {
                        "options.cache.mode"
                    } else {
                        "process.env.OXEVAL_CACHE_MODE"
                    };
                    InvalidArgument::options(format!(
                        "{source} is 'record' but the cache directory '{}' cannot be written ({why}): every judge call would be paid for and nothing recorded. Make it writable or set options.cache.dir (or OXEVAL_CACHE_DIR) to a directory that is",
                        dir.display()
                    ))
                })?;
            }
        }
        Ok(Some(ResponseCache::new(config)))
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::cache::tests::*;

    #[test]
    fn options() {
        let with = |memory, dir: Option<&str>| CacheConfig {
            mode: CacheMode::Auto,
            memory,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            dir: dir.map(PathBuf::from),
            io_timeout: DISK_IO_TIMEOUT,
        };
        assert_eq!(config(None, None), None);
        assert_eq!(config(Some(json!(true)), None), Some(with(true, None)));
        assert_eq!(
            config(None, Some("/tmp/x")),
            Some(with(true, Some("/tmp/x")))
        );
        assert_eq!(config(Some(json!(false)), Some("/tmp/x")), None);
        assert_eq!(
            config(Some(json!({"dir": "/d", "memory": false})), None),
            Some(with(false, Some("/d")))
        );
        assert_eq!(
            config(
                Some(json!({"memoryBytes": 1048576, "ioTimeoutMs": 250})),
                None
            ),
            Some(CacheConfig {
                memory_bytes: 1 << 20,
                io_timeout: Duration::from_millis(250),
                ..with(true, None)
            })
        );
        // 0 bytes: no memory layer
        let off = ResponseCache::from_options(Some(&json!({"memoryBytes": 0})), env(None))
            .unwrap()
            .unwrap();
        assert!(off.memory.is_none());
        for (bad, want) in [
            (json!(3), "options.cache must be true, false or"),
            (
                json!({"dir": 3}),
                "options.cache.dir must be a non-empty string",
            ),
            (
                json!({"memory": "yes"}),
                "options.cache.memory must be a boolean",
            ),
            (
                json!({"memoryBytes": "1MB"}),
                "options.cache.memoryBytes must be a number",
            ),
            (
                json!({"memoryBytes": -1}),
                "memoryBytes must be a non-negative integer",
            ),
            (
                json!({"memoryBytes": 1.5}),
                "memoryBytes must be a non-negative integer",
            ),
            (
                json!({"ioTimeoutMs": -5}),
                "ioTimeoutMs must be an integer from 1 to 600000; got -5",
            ),
            (
                json!({"ioTimeoutMs": 0}),
                "ioTimeoutMs must be an integer from 1",
            ),
            (json!({"ioTimeoutMs": true}), "ioTimeoutMs must be a number"),
        ] {
            let e = ResponseCache::from_options(Some(&bad), env(None)).unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
            assert!(e.code.is_type_error());
        }
    }

    #[test]
    fn modes_and_their_options() {
        let parse = |v: Option<serde_json::Value>, dir: Option<&str>, mode: Option<&str>| {
            ResponseCache::from_options(
                v.as_ref(),
                CacheEnv {
                    dir: dir.map(str::to_string),
                    mode: mode.map(str::to_string),
                },
            )
            .map(|c| c.map(|c| c.mode()))
        };
        assert_eq!(
            parse(Some(json!(true)), None, None),
            Ok(Some(CacheMode::Auto))
        );
        assert_eq!(
            parse(Some(json!({"dir": "/d", "mode": "replay"})), None, None),
            Ok(Some(CacheMode::Replay))
        );
        assert_eq!(
            parse(Some(json!({"mode": "record"})), None, None),
            Ok(Some(CacheMode::Record))
        );
        // the environment: the mode of every cache that does not set one
        assert_eq!(
            parse(None, Some("/d"), Some("replay")),
            Ok(Some(CacheMode::Replay))
        );
        assert_eq!(
            parse(Some(json!({"dir": "/d"})), None, Some(" record ")),
            Ok(Some(CacheMode::Record))
        );
        assert_eq!(
            parse(
                Some(json!({"dir": "/d", "mode": "auto"})),
                None,
                Some("replay")
            ),
            Ok(Some(CacheMode::Auto))
        );
        assert_eq!(parse(None, None, Some("record")), Ok(None));
        assert_eq!(parse(None, None, Some("")), Ok(None));
        let err = |v: Option<serde_json::Value>, dir: Option<&str>, mode: Option<&str>| {
            let e = parse(v, dir, mode).unwrap_err();
            assert!(e.code.is_type_error());
            e.message
        };
        for (msg, want) in [
            (
                err(Some(json!({"mode": "replay"})), None, None),
                "options.cache.mode is 'replay' but there is no cache directory",
            ),
            (
                err(Some(json!(true)), None, Some("replay")),
                "process.env.OXEVAL_CACHE_MODE is 'replay' but there is no cache directory",
            ),
            (
                err(None, None, Some("replay")),
                "OXEVAL_CACHE_MODE is 'replay' but no cache is configured",
            ),
            (
                err(Some(json!(false)), Some("/d"), Some("replay")),
                "OXEVAL_CACHE_MODE is 'replay' but options.cache is false",
            ),
            (
                err(Some(json!({"mode": "REPLAY"})), None, None),
                "options.cache.mode must be 'record', 'replay' or 'auto'; got 'REPLAY'",
            ),
            (
                err(Some(json!({"mode": 1})), None, None),
                "options.cache.mode must be 'record', 'replay' or 'auto'; got number",
            ),
            (
                err(Some(json!(true)), None, Some("sometimes")),
                "process.env.OXEVAL_CACHE_MODE must be 'record', 'replay' or 'auto'; got 'sometimes'",
            ),
        ] {
            assert!(msg.contains(want), "{msg}");
        }
    }
}
