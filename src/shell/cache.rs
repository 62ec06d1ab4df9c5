//! A small LRU of parsed scripts and templates, keyed by their bytes: the same envelope
//! runs again and again, and parsing it once is enough.

use std::collections::HashMap;
use std::rc::Rc;

use super::ast::{Script, Word};
use super::parse::{Failed, Parser};
use crate::error::Error;

/// How many scripts (and templates) the cache keeps.
pub const CAPACITY: usize = 64;

/// A parse, good or bad.
pub type Parsed = Rc<Result<Script, Failed>>;

/// A cache's size and use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheStats {
    pub entries: usize,
    pub hits: u64,
    pub misses: u64,
}

/// A least-recently-used map of at most `cap` entries.
pub struct Lru<V> {
    map: HashMap<Vec<u8>, (V, u64)>,
    tick: u64,
    cap: usize,
    pub hits: u64,
    pub misses: u64,
}

impl<V: Clone> Lru<V> {
    pub fn new(cap: usize) -> Self {
        Lru {
            map: HashMap::new(),
            tick: 0,
            cap,
            hits: 0,
            misses: 0,
        }
    }

    pub fn get_or_insert_with(&mut self, key: &[u8], make: impl FnOnce() -> V) -> V {
        self.tick += 1;
        if let Some((v, t)) = self.map.get_mut(key) {
            *t = self.tick;
            self.hits += 1;
            return v.clone();
        }
        self.misses += 1;
        let v = make();
        if self.map.len() >= self.cap {
            // Evict the least recently used: a scan of 64 entries costs less than a list.
            if let Some(old) = self
                .map
                .iter()
                .min_by_key(|(_, (_, t))| *t)
                .map(|(k, _)| k.clone())
            {
                self.map.remove(&old);
            }
        }
        self.map.insert(key.to_vec(), (v.clone(), self.tick));
        v
    }

    /// How full it is and how often it was of use, for `/_/stats`.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            entries: self.map.len(),
            hits: self.hits,
            misses: self.misses,
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// Parsed scripts and header templates.
pub struct ScriptCache {
    pub scripts: Lru<Parsed>,
    pub templates: Lru<Rc<Result<Word, Error>>>,
}

impl Default for ScriptCache {
    fn default() -> Self {
        ScriptCache {
            scripts: Lru::new(CAPACITY),
            templates: Lru::new(CAPACITY),
        }
    }
}

impl ScriptCache {
    pub fn get(&mut self, src: &[u8]) -> Parsed {
        self.scripts
            .get_or_insert_with(src, || Rc::new(Parser::parse_top(src)))
    }

    pub fn template(&mut self, src: &[u8]) -> Rc<Result<Word, Error>> {
        self.templates
            .get_or_insert_with(src, || Rc::new(Parser::new(src, 0, 0).parse_template()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used() {
        let mut l: Lru<u32> = Lru::new(2);
        l.get_or_insert_with(b"a", || 1);
        l.get_or_insert_with(b"b", || 2);
        l.get_or_insert_with(b"a", || 9);
        l.get_or_insert_with(b"c", || 3);
        assert_eq!(l.len(), 2);
        assert_eq!(l.get_or_insert_with(b"a", || 9), 1);
        assert_eq!(l.get_or_insert_with(b"b", || 8), 8);
    }
}
