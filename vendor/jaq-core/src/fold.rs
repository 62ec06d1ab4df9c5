//! Functions on iterators over results.

use crate::box_iter::Results;
use alloc::vec::Vec;

enum Fold<'a, X, Y, E> {
    /// things to be processed
    Input(Y),
    /// things to be output, then to be input
    Output(X, Results<'a, Y, E>),
}

pub(crate) fn fold<'a, T: 'a, TC: Clone + 'a, U: 'a, UC: 'a, E: 'a>(
    xs: impl Iterator<Item = Result<T, E>> + Clone + 'a,
    init: U,
    f: impl Fn(T, U) -> Results<'a, U, E> + 'a,
    tc: impl Fn(&T) -> TC + 'a,
    inner: impl Fn(TC, &U) -> Option<UC> + 'a,
    outer: impl Fn(U) -> Option<UC> + 'a,
) -> impl Iterator<Item = Result<UC, E>> + 'a {
    let mut stack = Vec::from([(xs, Fold::<TC, U, E>::Input(init))]);
    core::iter::from_fn(move || loop {
        let (mut xs, fold) = stack.pop()?;
        match fold {
            Fold::Output(x, mut ys) => match ys.next() {
                None => continue,
                Some(y) => {
                    // do not grow the stack if the output is empty
                    if ys.size_hint() != (0, Some(0)) {
                        stack.push((xs.clone(), Fold::Output(x.clone(), ys)));
                    }
                    match y {
                        Ok(y) => {
                            let inner = inner(x, &y);
                            stack.push((xs, Fold::Input(y)));
                            if let Some(inner) = inner {
                                return Some(Ok(inner));
                            }
                        }
                        Err(e) => return Some(Err(e)),
                    }
                }
            },
            Fold::Input(y) => match xs.next() {
                None => {
                    if let Some(outer) = outer(y) {
                        return Some(Ok(outer));
                    }
                }
                Some(Ok(x)) => stack.push((xs, Fold::Output(tc(&x), f(x, y)))),
                Some(Err(e)) => return Some(Err(e)),
            },
        }
    })
}

/// (mkfifo patch) Like [`fold`], with jq 1.7's semantics for an update that yields
/// several values or none: each output is passed to `inner`, but only the last one
/// becomes the next state; an update without output makes the state `null()`.
pub(crate) fn fold_last<'a, T: 'a, TC: Clone + 'a, U: 'a, UC: 'a, E: 'a>(
    xs: impl Iterator<Item = Result<T, E>> + 'a,
    init: U,
    f: impl Fn(T, U) -> Results<'a, U, E> + 'a,
    tc: impl Fn(&T) -> TC + 'a,
    inner: impl Fn(TC, &U) -> Option<UC> + 'a,
    outer: impl Fn(U) -> Option<UC> + 'a,
    null: impl Fn() -> Result<U, E> + 'a,
) -> impl Iterator<Item = Result<UC, E>> + 'a {
    enum State<'a, X, Y, E> {
        Input(Y),
        Output(X, Results<'a, Y, E>, Option<Y>),
        Done,
    }
    let mut xs = xs;
    let mut state = State::<TC, U, E>::Input(init);
    core::iter::from_fn(move || loop {
        match core::mem::replace(&mut state, State::Done) {
            State::Done => return None,
            State::Input(y) => match xs.next() {
                None => return outer(y).map(Ok),
                Some(Ok(x)) => state = State::Output(tc(&x), f(x, y), None),
                Some(Err(e)) => return Some(Err(e)),
            },
            State::Output(x, mut ys, last) => match ys.next() {
                None => match last.map_or_else(&null, Ok) {
                    Ok(y) => state = State::Input(y),
                    Err(e) => return Some(Err(e)),
                },
                Some(Ok(y)) => {
                    let out = inner(x.clone(), &y);
                    state = State::Output(x, ys, Some(y));
                    if let Some(out) = out {
                        return Some(Ok(out));
                    }
                }
                Some(Err(e)) => return Some(Err(e)),
            },
        }
    })
}
