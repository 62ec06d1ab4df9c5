//! jq's objects: keys in insertion order, looked up by a linear scan while small and
//! through a hash index once large. One allocation for a small object.

use std::hash::BuildHasherDefault;

use rustc_hash::FxHasher;

use super::value::{Key, Val};

/// Objects up to this size have no index.
const SMALL: usize = 12;

type Index = hashbrown::HashMap<Key, usize, BuildHasherDefault<FxHasher>>;

/// An insertion-ordered map from keys to values.
#[derive(Clone, Debug, Default)]
pub struct Map {
    entries: Vec<(Key, Val)>,
    index: Option<Box<Index>>,
}

impl Map {
    pub fn with_capacity(n: usize) -> Self {
        Map {
            entries: Vec::with_capacity(n),
            index: None,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn position(&self, k: &str) -> Option<usize> {
        match &self.index {
            Some(ix) => ix.get(k).copied(),
            None => self.entries.iter().position(|(key, _)| key.0.as_str() == k),
        }
    }

    pub fn get(&self, k: &str) -> Option<&Val> {
        self.position(k).map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, k: &str) -> Option<&mut Val> {
        self.position(k).map(|i| &mut self.entries[i].1)
    }

    pub fn contains_key(&self, k: &str) -> bool {
        self.position(k).is_some()
    }

    /// Sets `k` to `v`: in place when `k` is there, else at the end.
    pub fn insert(&mut self, k: Key, v: Val) -> Option<Val> {
        if let Some(i) = self.position(&k.0) {
            return Some(std::mem::replace(&mut self.entries[i].1, v));
        }
        self.insert_new(k, v);
        None
    }

    /// Adds `k`, which the caller knows is not there (an object literal's keys are
    /// different), at the end, without looking for it first.
    pub fn insert_new(&mut self, k: Key, v: Val) {
        let i = self.entries.len();
        if let Some(ix) = &mut self.index {
            ix.insert(k.clone(), i);
        }
        self.entries.push((k, v));
        if self.index.is_none() && self.entries.len() > SMALL {
            self.reindex();
        }
    }

    fn reindex(&mut self) {
        let mut ix = Index::with_capacity_and_hasher(self.entries.len(), Default::default());
        for (i, (k, _)) in self.entries.iter().enumerate() {
            ix.insert(k.clone(), i);
        }
        self.index = Some(Box::new(ix));
    }

    /// Removes `k`, keeping the order of the others.
    pub fn shift_remove(&mut self, k: &str) -> Option<Val> {
        let i = self.position(k)?;
        let (_, v) = self.entries.remove(i);
        if self.index.is_some() {
            if self.entries.len() > SMALL {
                self.reindex();
            } else {
                self.index = None;
            }
        }
        Some(v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Key, &Val)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &Key> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &Val> {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn get_index(&self, i: usize) -> Option<(&Key, &Val)> {
        self.entries.get(i).map(|(k, v)| (k, v))
    }

    /// A map of `entries`: a later duplicate key sets the value at the first one's place.
    pub fn from_vec(entries: Vec<(Key, Val)>) -> Self {
        let n = entries.len();
        let dup = if n <= SMALL {
            (1..n).any(|i| entries[..i].iter().any(|(k, _)| k.0 == entries[i].0 .0))
        } else {
            let mut ix = Index::with_capacity_and_hasher(n, Default::default());
            let mut dup = false;
            for (i, (k, _)) in entries.iter().enumerate() {
                if ix.insert(k.clone(), i).is_some() {
                    dup = true;
                    break;
                }
            }
            if !dup {
                return Map {
                    entries,
                    index: Some(Box::new(ix)),
                };
            }
            true
        };
        if !dup {
            return Map {
                entries,
                index: None,
            };
        }
        let mut m = Map::with_capacity(n);
        for (k, v) in entries {
            m.insert(k, v);
        }
        m
    }

    /// All entries, leaving the map empty.
    pub fn take_entries(&mut self) -> Vec<(Key, Val)> {
        self.index = None;
        std::mem::take(&mut self.entries)
    }
}

impl IntoIterator for Map {
    type Item = (Key, Val);
    type IntoIter = std::vec::IntoIter<(Key, Val)>;
    fn into_iter(mut self) -> Self::IntoIter {
        self.take_entries().into_iter()
    }
}

impl FromIterator<(Key, Val)> for Map {
    fn from_iter<I: IntoIterator<Item = (Key, Val)>>(iter: I) -> Self {
        let mut m = Map::default();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}
