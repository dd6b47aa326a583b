//! A session's in-memory view of a batch state directory ([`StateDir`]): every file's
//! content is read once, and a refresh (each submit, under the directory's lock) lists the
//! directory and reads again only the files that are new or changed since (by size,
//! modification time and inode: a record is always replaced by a rename), so a long run
//! does not read every record on every submit. Files gone are dropped.

use super::state::{self, Intent, Loaded, Record, StateDir, Unreadable};
use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::{self, Metadata};
use std::sync::Arc;
use std::time::SystemTime;

/// What tells a file changed without reading it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

impl Stamp {
    fn of(m: &Metadata) -> Stamp {
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(m);
        #[cfg(not(unix))]
        let inode = 0;
        Stamp {
            len: m.len(),
            modified: m.modified().ok(),
            inode,
        }
    }
}

#[derive(Debug, Clone)]
enum Entry {
    Record(Arc<Record>),
    Intent(Intent),
    Unreadable(Unreadable),
}

/// What the directory holds, its records shared with the index.
#[derive(Debug, Default)]
pub struct Snapshot {
    pub records: Vec<Arc<Record>>,
    pub intents: Vec<Intent>,
    pub unreadable: Vec<Unreadable>,
}

/// The files of one state directory, by name.
#[derive(Debug, Default)]
pub struct DirIndex {
    files: HashMap<OsString, (Stamp, Entry)>,
    /// Files read (not found unchanged) since the index was made.
    pub reads: u64,
}

impl DirIndex {
    /// List the directory and read the files new or changed since the last refresh
    /// (blocking: call it off the async threads).
    pub fn refresh(&mut self, dir: &StateDir) {
        let Ok(entries) = fs::read_dir(&dir.dir) else {
            self.files.clear();
            return;
        };
        let mut seen = HashMap::with_capacity(self.files.len());
        for e in entries.flatten() {
            let name = e.file_name();
            let text = name.to_string_lossy();
            if text.starts_with('.') || !text.ends_with(".json") {
                continue;
            }
            let path = e.path();
            let Ok(meta) = fs::metadata(&path) else {
                continue;
            };
            let stamp = Stamp::of(&meta);
            let entry = match self.files.remove(&name) {
                Some((s, entry)) if s == stamp => entry,
                _ => {
                    self.reads += 1;
                    match state::read_file(&path) {
                        Ok(state::Parsed::Record(r)) => Entry::Record(Arc::new(r)),
                        Ok(state::Parsed::Intent(i)) => Entry::Intent(i),
                        Err(why) => Entry::Unreadable(Unreadable { path, why }),
                    }
                }
            };
            seen.insert(name, (stamp, entry));
        }
        self.files = seen;
    }

    /// The records, intents and unreadable files, sorted as [`StateDir::load_all`]'s.
    pub fn snapshot(&self) -> Snapshot {
        let mut out = Snapshot::default();
        for (_, e) in self.files.values() {
            match e {
                Entry::Record(r) => out.records.push(r.clone()),
                Entry::Intent(i) => out.intents.push(i.clone()),
                Entry::Unreadable(u) => out.unreadable.push(u.clone()),
            }
        }
        out.records
            .sort_by(|a, b| (a.created_at, &a.batch).cmp(&(b.created_at, &b.batch)));
        out.intents
            .sort_by(|a, b| (a.created_at, &a.tag).cmp(&(b.created_at, &b.tag)));
        out.unreadable.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    /// As [`StateDir::load_all`] (records cloned).
    pub fn loaded(&self) -> Loaded {
        let s = self.snapshot();
        Loaded {
            records: s.records.iter().map(|r| (**r).clone()).collect(),
            intents: s.intents,
            unreadable: s.unreadable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::batch::state::FORMAT;

    fn record(batch: &str, keys: &[&str]) -> Record {
        Record {
            format: FORMAT.into(),
            provider: "openai".into(),
            target: "t".into(),
            batch: batch.into(),
            created_at: 1,
            stage: 1,
            requests: keys.iter().map(|k| k.to_string()).collect(),
        }
    }

    #[test]
    fn a_refresh_reads_only_new_or_changed_files() {
        let dir = std::env::temp_dir().join(format!("oxeval-batch-index-{}", fastrand::u64(..)));
        let s = StateDir::of_cache(&dir);
        for i in 0..20 {
            s.write(&record(&format!("b{i}"), &["k"])).unwrap();
        }
        let mut index = DirIndex::default();
        index.refresh(&s);
        assert_eq!(index.reads, 20);
        assert_eq!(index.loaded().records, s.load());
        // nothing changed: nothing read
        index.refresh(&s);
        assert_eq!(index.reads, 20);
        // another process adds one, replaces one, removes one, damages one
        s.write(&record("new", &["k2"])).unwrap();
        s.write(&record("b3", &["k", "k3"])).unwrap();
        s.remove("openai", "b4").unwrap();
        fs::write(s.dir.join(Record::file_name("openai", "b5")), b"{").unwrap();
        index.refresh(&s);
        assert_eq!(index.reads, 23);
        assert_eq!(index.loaded().records, s.load());
        assert_eq!(index.snapshot().records.len(), 19);
        assert_eq!(index.snapshot().unreadable.len(), 1);
        let _ = fs::remove_dir_all(&dir);
    }
}
