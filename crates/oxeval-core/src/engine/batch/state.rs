//! The batch state directory, `<cache dir>/batches/`: one record per submitted batch
//! (`<provider>-<batch id>.json`: the provider, a digest of where the requests went, the
//! batch id and the cache keys of its requests, in submission order), written before the
//! batch is polled, so that a run that dies resumes by polling it instead of paying again.
//!
//! Before a batch is created, its **intent** is written (`intent-<tag>.json`: the tag the
//! batch carries at the provider, its requests' keys): a create whose answer is lost (a
//! reset, a timeout, a process killed in the call) leaves the intent, and the batch is
//! looked up at the provider by it before anything is created again (`lookup`).
//!
//! A file that cannot be read (a BOM is fine; conflict markers, a truncated copy, another
//! format are not) is reported ([`Loaded::unreadable`]), never skipped in silence: its
//! requests may be in a paid batch.
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

/// The layout of a record; another format is never misread (it is reported unreadable).
pub const FORMAT: &str = "oxeval-batch-v1";
/// The layout of an intent (a batch about to be created).
pub const INTENT_FORMAT: &str = "oxeval-batch-intent-v1";

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

/// `s` with every character but `[A-Za-z0-9_-]` as `_`, at most 200 characters.
fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(200)
        .collect()
}

impl Record {
    /// The file name of the record of `batch` at `provider`: `[A-Za-z0-9_-]` only.
    pub fn file_name(provider: &str, batch: &str) -> String {
        format!("{provider}-{}.json", file_safe(batch))
    }
}

/// A batch about to be created (written before the create call, removed once its record is
/// written or the provider refused it).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Intent {
    pub format: String,
    pub provider: String,
    /// As [`Record::target`].
    pub target: String,
    /// The tag the batch carries at the provider (OpenAI/Azure `metadata.oxeval`, Gemini
    /// `displayName`; Anthropic keeps none).
    pub tag: String,
    /// When the create was about to be sent (Unix ms).
    pub created_at: u64,
    pub stage: u32,
    /// The cache keys of its requests (also their `custom_id`s), in submission order.
    pub requests: Vec<String>,
}

impl Intent {
    pub fn file_name(tag: &str) -> String {
        format!("intent-{}.json", file_safe(tag))
    }

    /// The record of the batch `batch` this intent created.
    pub fn record(&self, batch: &str) -> Record {
        Record {
            format: FORMAT.into(),
            provider: self.provider.clone(),
            target: self.target.clone(),
            batch: batch.to_string(),
            created_at: self.created_at,
            stage: self.stage,
            requests: self.requests.clone(),
        }
    }
}

/// A file of the directory that could not be read, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable {
    pub path: PathBuf,
    pub why: String,
}

/// What a state directory holds.
#[derive(Debug, Default)]
pub struct Loaded {
    pub records: Vec<Record>,
    pub intents: Vec<Intent>,
    pub unreadable: Vec<Unreadable>,
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

    /// Every readable record of this directory.
    pub fn load(&self) -> Vec<Record> {
        self.load_all().records
    }

    /// The records, intents and unreadable files of this directory.
    pub fn load_all(&self) -> Loaded {
        let mut out = Loaded::default();
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return out;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || !name.ends_with(".json") {
                continue;
            }
            match read_file(&path) {
                Ok(Parsed::Record(r)) => out.records.push(r),
                Ok(Parsed::Intent(i)) => out.intents.push(i),
                Err(why) => out.unreadable.push(Unreadable { path, why }),
            }
        }
        out.records
            .sort_by(|a, b| (a.created_at, &a.batch).cmp(&(b.created_at, &b.batch)));
        out.intents
            .sort_by(|a, b| (a.created_at, &a.tag).cmp(&(b.created_at, &b.tag)));
        out.unreadable.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    fn path_of(&self, r: &Record) -> PathBuf {
        self.dir.join(Record::file_name(&r.provider, &r.batch))
    }

    /// Write `r` durably (temporary file, fsync, rename, fsync of the directory).
    pub fn write(&self, r: &Record) -> std::io::Result<()> {
        let name = Record::file_name(&r.provider, &r.batch);
        debug_assert_eq!(self.path_of(r), self.dir.join(&name));
        self.write_json(&name, r)
    }

    /// Write `i` durably, before its batch is created.
    pub fn write_intent(&self, i: &Intent) -> std::io::Result<()> {
        self.write_json(&Intent::file_name(&i.tag), i)
    }

    /// Remove the intent of `tag` (gone already is fine).
    pub fn remove_intent(&self, tag: &str) -> std::io::Result<()> {
        match fs::remove_file(self.dir.join(Intent::file_name(tag))) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    fn write_json<T: Serialize>(&self, name: &str, value: &T) -> std::io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let path = self.dir.join(name);
        let tmp = self.dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let bytes = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
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

pub(super) enum Parsed {
    Record(Record),
    Intent(Intent),
}

/// A record or an intent, or why the file is neither.
pub(super) fn read_file(path: &Path) -> Result<Parsed, String> {
    let f = File::open(path).map_err(|e| format!("cannot be opened: {e}"))?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len > MAX_RECORD_BYTES {
        return Err(format!(
            "is {len} bytes, more than a record can be ({MAX_RECORD_BYTES})"
        ));
    }
    let mut bytes = Vec::new();
    f.take(MAX_RECORD_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot be read: {e}"))?;
    // an editor's UTF-8 byte order mark is harmless
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let v: serde_json::Value = serde_json::from_slice(text).map_err(|e| {
        if text.windows(7).any(|w| w == b"<<<<<<<" || w == b">>>>>>>") {
            "holds git conflict markers (resolve the merge: keep both sides' requests)".into()
        } else if e.is_eof() {
            format!("is cut short (a truncated copy?): {e}")
        } else {
            format!("is not valid JSON: {e}")
        }
    })?;
    let format = v.get("format").and_then(serde_json::Value::as_str);
    let shape = |e: serde_json::Error| format!("does not have the fields of its format: {e}");
    match format {
        Some(FORMAT) => serde_json::from_value(v).map(Parsed::Record).map_err(shape),
        Some(INTENT_FORMAT) => serde_json::from_value(v).map(Parsed::Intent).map_err(shape),
        Some(other) => Err(format!(
            "has format {other:?}, which this oxeval does not read (a newer oxeval's?)"
        )),
        None => Err("is not an oxeval batch record (no \"format\")".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_intents_round_trip_and_damaged_files_are_reported() {
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
        let all = s.load_all();
        assert_eq!(all.unreadable.len(), 1);
        assert!(
            all.unreadable[0].why.contains("cut short"),
            "{:?}",
            all.unreadable
        );
        fs::remove_file(s.dir.join("broken.json")).unwrap();
        // a BOM is read; conflict markers and another format are reported
        let text = fs::read(s.dir.join("openai-batch_1_x.json")).unwrap();
        fs::write(
            s.dir.join("openai-batch_1_x.json"),
            [b"\xEF\xBB\xBF".as_slice(), &text].concat(),
        )
        .unwrap();
        assert_eq!(s.load(), vec![r.clone()]);
        fs::write(
            s.dir.join("merged.json"),
            b"<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> x\n",
        )
        .unwrap();
        fs::write(s.dir.join("next.json"), br#"{"format":"oxeval-batch-v9"}"#).unwrap();
        let why: Vec<String> = s.load_all().unreadable.into_iter().map(|u| u.why).collect();
        assert!(why[0].contains("git conflict markers"), "{why:?}");
        assert!(why[1].contains("oxeval-batch-v9"), "{why:?}");
        fs::remove_file(s.dir.join("merged.json")).unwrap();
        fs::remove_file(s.dir.join("next.json")).unwrap();
        // an intent round-trips and goes
        let i = Intent {
            format: INTENT_FORMAT.into(),
            provider: "openai".into(),
            target: "t".into(),
            tag: "oxeval-1-1".into(),
            created_at: 2,
            stage: 1,
            requests: vec!["k3".into()],
        };
        s.write_intent(&i).unwrap();
        assert_eq!(s.load_all().intents, vec![i.clone()]);
        assert_eq!(i.record("b").requests, vec!["k3".to_string()]);
        s.remove_intent(&i.tag).unwrap();
        assert!(s.load_all().intents.is_empty());
        s.remove("openai", "batch_1/x").unwrap();
        s.remove("openai", "batch_1/x").unwrap();
        assert!(s.load().is_empty());
        let _ = fs::remove_dir_all(&dir);
    }
}
