//! `getpath`, `setpath` and `delpaths` with jq 1.7.1's rules: null grows into what the
//! key asks for, arrays are padded with null, and deletions run from the last path.
//!
//! Steps: one per path component.

use jaq_core::{Error, ValR};

use super::fuel::{self, Abort};
use super::ops::{array_index, err, index, index_err, slice, slice_bounds};
use super::value::{Key, Map, Val, MAX_ITEMS};

fn step() -> ValR<(), Val> {
    if fuel::spend(1) && fuel::stack_ok() {
        Ok(())
    } else {
        Err(Error::abort())
    }
}

fn slice_of(k: &Val) -> Option<(Option<Val>, Option<Val>)> {
    match k {
        Val::Obj(o) if o.len() == 2 => Some((o.get("start").cloned(), o.get("end").cloned())),
        _ => None,
    }
}

/// `getpath(path)`: null once the value runs out.
pub fn get(v: &Val, path: &[Val]) -> ValR<Val, Val> {
    let mut cur = v.clone();
    for k in path {
        step()?;
        if let Val::Null = cur {
            return Ok(Val::Null);
        }
        cur = match slice_of(k) {
            Some((s, e)) if matches!(cur, Val::Arr(_) | Val::Str(_)) => {
                slice(&cur, s.as_ref(), e.as_ref())?
            }
            _ => index(&cur, k)?,
        };
    }
    Ok(cur)
}

/// `.[k] = x` on one level.
pub fn set(v: Val, k: &Val, x: Val) -> ValR<Val, Val> {
    match (v, k) {
        (Val::Null, Val::Str(_)) => set(Val::obj(Map::default()), k, x),
        (Val::Null, Val::Num(_) | Val::Lit(_)) => set(Val::arr(Vec::new()), k, x),
        (Val::Obj(mut o), Val::Str(s)) => {
            if o.len() >= MAX_ITEMS {
                fuel::fail(Abort::Memory);
                return Err(Error::abort());
            }
            o.make_mut().insert(Key(s.clone()), x);
            Ok(Val::Obj(o))
        }
        (Val::Arr(mut a), Val::Num(_) | Val::Lit(_)) => {
            let f = k.as_f64().unwrap_or(0.0);
            let len = a.len();
            if f.is_nan() {
                return err("Cannot set array element at NaN index");
            }
            let i = f.trunc();
            let i = if i < 0.0 { i + len as f64 } else { i };
            if i < 0.0 {
                return err("Out of bounds negative array index");
            }
            if i >= MAX_ITEMS as f64 {
                fuel::fail(Abort::Memory);
                return Err(Error::abort());
            }
            let i = i as usize;
            if i >= len {
                fuel::spend(1 + (i - len) as u64 / 16)
                    .then_some(())
                    .ok_or_else(Error::abort)?;
            }
            let items = a.make_mut();
            if i >= items.len() {
                items.resize(i + 1, Val::Null);
            }
            items[i] = x;
            Ok(Val::Arr(a))
        }
        (v @ (Val::Null | Val::Arr(_)), Val::Obj(_)) if slice_of(k).is_some() => {
            let (s, e) = slice_of(k).unwrap_or_default();
            let items = match v {
                Val::Arr(a) => a.into_vec(),
                _ => Vec::new(),
            };
            // jq checks the bounds before the value.
            let (s, e) = slice_bounds(items.len(), s.as_ref(), e.as_ref())?;
            let Val::Arr(new) = x else {
                return err("A slice of an array can only be assigned another array");
            };
            let mut out = Vec::with_capacity(items.len() - (e - s) + new.len());
            out.extend_from_slice(&items[..s]);
            out.extend(new.iter().cloned());
            out.extend_from_slice(&items[e..]);
            Ok(Val::arr(out))
        }
        (Val::Arr(_), Val::Arr(_)) => err("Cannot update field at array index of array"),
        (Val::Str(_), Val::Obj(_)) if slice_of(k).is_some() => err("Cannot update string slices"),
        (v, k) => err(index_err(&v, k)),
    }
}

/// `setpath(path; x)`.
pub fn set_path(v: Val, path: &[Val], x: Val) -> ValR<Val, Val> {
    let Some((k, rest)) = path.split_first() else {
        return Ok(x);
    };
    step()?;
    if rest.is_empty() {
        return set(v, k, x);
    }
    let child = match (&v, slice_of(k)) {
        (Val::Arr(_) | Val::Null, Some((s, e))) => slice(&v, s.as_ref(), e.as_ref())?,
        _ => index(&v, k)?,
    };
    // take the child out so that a sole owner can change it in place
    let (v, child) = match (v, k) {
        (Val::Obj(mut o), Val::Str(s)) if o.contains_key(s.as_str()) => {
            drop(child);
            let c = o
                .make_mut()
                .get_mut(s.as_str())
                .map(std::mem::take)
                .unwrap_or_default();
            (Val::Obj(o), c)
        }
        (Val::Arr(mut a), Val::Num(_) | Val::Lit(_)) => {
            match array_index(a.len(), k.as_f64().unwrap_or(0.0)) {
                Some(i) => {
                    drop(child);
                    let c = std::mem::take(&mut a.make_mut()[i]);
                    (Val::Arr(a), c)
                }
                None => (Val::Arr(a), child),
            }
        }
        (v, _) => (v, child),
    };
    let new = set_path(child, rest, x)?;
    set(v, k, new)
}

fn del_err(v: &Val, k: &Val) -> String {
    match (v, k) {
        (Val::Arr(_), Val::Str(_)) => "Cannot delete string element of array".into(),
        (Val::Obj(_), _) => format!("Cannot delete {} field of object", k.type_name()),
        (Val::Arr(_), _) => format!("Cannot delete {} element of array", k.type_name()),
        _ => format!("Cannot delete fields from {}", v.type_name()),
    }
}

/// Deletes keys `ks` of one level (all of one kind), as `del(.[k1], .[k2])` would.
pub fn del_keys(v: Val, ks: &[Val]) -> ValR<Val, Val> {
    match v {
        Val::Null => Ok(Val::Null),
        Val::Obj(mut o) => {
            for k in ks {
                match k {
                    Val::Str(s) => {
                        o.make_mut().shift_remove(s.as_str());
                    }
                    k => return err(del_err(&Val::Obj(o), k)),
                }
            }
            Ok(Val::Obj(o))
        }
        Val::Arr(a) => {
            let len = a.len();
            let mut gone = vec![false; len];
            for k in ks {
                match k {
                    Val::Num(_) | Val::Lit(_) => {
                        let f = k.as_f64().unwrap_or(0.0);
                        // (a key between -1 and 0 counts from the end here, as jq's
                        // delpaths decides by the sign first: len + 0 is past the end)
                        if f < 0.0 && f > -1.0 {
                            continue;
                        }
                        if let Some(i) = array_index(len, f) {
                            gone[i] = true;
                        }
                    }
                    Val::Obj(_) if slice_of(k).is_some() => {
                        let (s, e) = slice_of(k).unwrap_or_default();
                        let (s, e) = slice_bounds(len, s.as_ref(), e.as_ref())?;
                        gone[s..e].iter_mut().for_each(|g| *g = true);
                    }
                    k => return err(del_err(&Val::Arr(a), k)),
                }
            }
            let items = a.into_vec();
            Ok(Val::arr(
                items
                    .into_iter()
                    .zip(gone)
                    .filter(|(_, g)| !g)
                    .map(|(x, _)| x)
                    .collect(),
            ))
        }
        v => err(del_err(&v, ks.first().unwrap_or(&Val::Null))),
    }
}

/// `delpaths(paths)`: the paths sorted and grouped by their first key; keys deleted
/// at one level are all taken against the value before any of them goes, as jq does.
pub fn del_paths(v: Val, paths: &Val) -> ValR<Val, Val> {
    let Val::Arr(ps) = paths else {
        return err("Paths must be specified as an array");
    };
    let mut list: Vec<Vec<Val>> = Vec::with_capacity(ps.len());
    for p in ps.iter() {
        match p {
            Val::Arr(p) => list.push(p.to_vec()),
            p => {
                return err(format!(
                    "Path must be specified as array, not {}",
                    p.type_name()
                ))
            }
        }
    }
    if list.is_empty() {
        return Ok(v);
    }
    list.sort_by(|a, b| {
        a.iter()
            .zip(b.iter())
            .map(|(x, y)| super::value::cmp(x, y))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| a.len().cmp(&b.len()))
    });
    if list[0].is_empty() {
        return Ok(Val::Null);
    }
    del_sorted(v, &list, 0)
}

fn del_sorted(mut v: Val, paths: &[Vec<Val>], depth: usize) -> ValR<Val, Val> {
    step()?;
    let mut keys: Vec<Val> = Vec::new();
    let mut i = 0;
    while i < paths.len() {
        let key = &paths[i][depth];
        let mut j = i;
        while j < paths.len() && super::value::equal(&paths[j][depth], key) {
            j += 1;
        }
        if paths[i].len() == depth + 1 {
            keys.push(key.clone());
        } else {
            let child = match (&v, slice_of(key)) {
                (Val::Arr(_), Some((s, e))) => slice(&v, s.as_ref(), e.as_ref())?,
                _ => index(&v, key)?,
            };
            if !matches!(child, Val::Null) {
                let sub: Vec<Vec<Val>> = paths[i..j]
                    .iter()
                    .filter(|p| p.len() > depth + 1)
                    .cloned()
                    .collect();
                let new = del_sorted(child, &sub, depth + 1)?;
                v = set(v, key, new)?;
            }
        }
        i = j;
    }
    if keys.is_empty() {
        Ok(v)
    } else {
        del_keys(v, &keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_against_the_original() {
        let v = super::super::json::parse_one("[0,1,2,3,4,5,6,7,8,9]").unwrap();
        let ps = super::super::json::parse_one(r#"[[-6],[{"start":-3,"end":9}]]"#).unwrap();
        let out = del_paths(v, &ps).unwrap();
        assert_eq!(out.to_json(), "[0,1,2,3,5,6,9]");
    }
}
