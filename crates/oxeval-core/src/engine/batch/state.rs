//! The batch state directory, `<cache dir>/batches/`: one record per submitted batch
//! (`<provider>-<batch id>.json`: the provider, a digest of where the requests went, the
//! batch id and the cache keys of its requests, in submission order), written before the
//! batch is polled, so that a run that dies resumes by polling it instead of paying again.
//!
//! Records hold no secret: no key, no header value, no URL, no prompt; the requests are
//! their cache keys (SHA-256 digests, which are also their `custom_id`s). Files are
//! written to a temporary file, fsynced and renamed (then the directory is fsynced); every
//! change happens under `.lock` (an exclusive advisory lock), so two processes sharing a
//! cache directory never see half a record nor submit the same request twice.

use serde::{Deserialize, Serialize};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The layout of a record; another format is never misread (it is skipped).
pub const FORMAT: &str = "oxeval-batch-v1";

/// The most a record file may be (a batch of 100 000 keys is about 7 MB).
const MAX_RECORD_BYTES: u64 = 64 << 20;

/// One submitted batch.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub format: String,
    /// `openai`, `azure`, `anthropic`, `google`.
    pub provider: String,
    /// A digest of where the requests went (provider, base URL, api-version, model,
    /// custom header names and values): a record is polled only with the same judge.
    pub target: String,
    /// The provider's batch id.
    pub batch: String,
    /// When it was submitted (Unix ms).
    pub created_at: u64,
    /// Which pipeline stage of the submitting run it was (1-based).
    pub stage: u32,
    /// The cache keys of its requests (also their `custom_id`s), in submission order.
    pub requests: Vec<String>,
}

impl Record {
    /// The file name of the record of `batch` at `provider`: `[A-Za-z0-9_-]` only.
    pub fn file_name(provider: &str, batch: &str) -> String {
        let safe: String = batch
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(200)
            .collect();
        format!("{provider}-{safe}.json")
    }
}

/// `<cache dir>/batches/`.
#[derive(Debug, Clone)]
pub struct StateDir {
    pub dir: PathBuf,
}

/// The exclusive lock of a state directory, released when dropped.
pub struct DirLock {
    file: File,
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

impl StateDir {
    pub fn of_cache(cache_dir: &Path) -> StateDir {
        StateDir {
            dir: cache_dir.join("batches"),
        }
    }

    /// Take the directory's lock (blocking: call it off the async threads).
    pub fn lock(&self) -> std::io::Result<DirLock> {
        fs::create_dir_all(&self.dir)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(self.dir.join(".lock"))?;
        file.lock()?;
        Ok(DirLock { file })
    }

    /// Every readable record of this directory (damaged files and other formats skipped).
    pub fn load(&self) -> Vec<Record> {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || !name.ends_with(".json") {
                continue;
            }
            if let Some(r) = read_record(&path) {
                out.push(r);
            }
        }
        out.sort_by(|a, b| (a.created_at, &a.batch).cmp(&(b.created_at, &b.batch)));
        out
    }

    fn path_of(&self, r: &Record) -> PathBuf {
        self.dir.join(Record::file_name(&r.provider, &r.batch))
    }

    /// Write `r` durably (temporary file, fsync, rename, fsync of the directory).
    pub fn write(&self, r: &Record) -> std::io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let path = self.path_of(r);
        let tmp = self.dir.join(format!(
            ".{}.{}.tmp",
            Record::file_name(&r.provider, &r.batch),
            std::process::id()
        ));
        let bytes = serde_json::to_vec_pretty(r).map_err(std::io::Error::other)?;
        {
            let mut f = File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.write_all(b"\n")?;
            f.sync_all()?;
        }
        fs::rename(&tmp, &path)?;
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Remove the record of `batch` (gone already is fine).
    pub fn remove(&self, provider: &str, batch: &str) -> std::io::Result<()> {
        match fs::remove_file(self.dir.join(Record::file_name(provider, batch))) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

fn read_record(path: &Path) -> Option<Record> {
    let f = File::open(path).ok()?;
    if f.metadata().ok()?.len() > MAX_RECORD_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    f.take(MAX_RECORD_BYTES).read_to_end(&mut bytes).ok()?;
    let r: Record = serde_json::from_slice(&bytes).ok()?;
    (r.format == FORMAT).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_damaged_files_are_skipped() {
        let dir = std::env::temp_dir().join(format!("oxeval-batch-state-{}", fastrand::u64(..)));
        let s = StateDir::of_cache(&dir);
        let r = Record {
            format: FORMAT.into(),
            provider: "openai".into(),
            target: "t".into(),
            batch: "batch_1/x".into(),
            created_at: 1,
            stage: 1,
            requests: vec!["k1".into(), "k2".into()],
        };
        let _lock = s.lock().unwrap();
        s.write(&r).unwrap();
        assert!(s.dir.join("openai-batch_1_x.json").exists());
        fs::write(s.dir.join("broken.json"), b"{").unwrap();
        assert_eq!(s.load(), vec![r.clone()]);
        s.remove("openai", "batch_1/x").unwrap();
        s.remove("openai", "batch_1/x").unwrap();
        assert!(s.load().is_empty());
        let _ = fs::remove_dir_all(&dir);
    }
}
