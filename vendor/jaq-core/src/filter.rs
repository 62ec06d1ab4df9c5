//! Filter execution.

use crate::box_iter::{self, box_once, flat_map_then, flat_map_then_with, flat_map_with, map_with};
use crate::compile::{Bind, CallType, Fold, Pattern, Term as Ast, TermId as Id};
use crate::data::{DataT, HasLut};
use crate::fold::{fold, fold_last};
use crate::val::{ValR, ValT, ValX, ValXs};
use crate::{exn, rc_lazy_list, Bind as Arg, Error, Exn, RcList};
use alloc::boxed::Box;
use dyn_clone::DynClone;

/// Combination of context and input value.
pub type Cv<'a, D, T = <D as DataT>::V<'a>> = (Ctx<'a, D>, T);
/// Combination of context and input value with a path.
type Cvp<'a, D> = Cv<'a, D, (<D as DataT>::V<'a>, RcList<<D as DataT>::V<'a>>)>;
type ValPathXs<'a, V> = ValXs<'a, (V, RcList<V>), V>;

type Lut<D> = crate::compile::Lut<Native<D>>;

// we can unfortunately not make a `Box<dyn ... + Clone>`
// that is why we have to go through the pain of making a new trait here
pub trait Update<'a, V>: Fn(V) -> ValXs<'a, V> + DynClone {}

impl<'a, V, T: Fn(V) -> ValXs<'a, V> + Clone> Update<'a, V> for T {}

dyn_clone::clone_trait_object!(<'a, V> Update<'a, V>);

type BoxUpdate<'a, V> = Box<dyn Update<'a, V> + 'a>;

/// List of bindings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vars<V>(RcList<Bind<V, usize, (Id, Self)>>);

impl<V> Vars<V> {
    /// Initialise new variables from values.
    pub fn new(vars: impl IntoIterator<Item = V>) -> Self {
        Self(RcList::new().extend(vars.into_iter().map(Bind::Var)))
    }

    fn get(&self, i: usize) -> Option<&Bind<V, usize, (Id, Self)>> {
        self.0.get(i)
    }
}

impl<V> Default for Vars<V> {
    fn default() -> Self {
        Self(RcList::default())
    }
}

/// Filter execution context.
pub struct Ctx<'a, D: DataT + ?Sized> {
    data: D::Data<'a>,
    vars: Vars<D::V<'a>>,
    /// Number of bound labels at the current path
    ///
    /// This is used to create fresh break IDs.
    labels: usize,
}

impl<'a, D: DataT> Clone for Ctx<'a, D> {
    fn clone(&self) -> Self {
        self.with_vars(Vars(self.vars.0.clone()))
    }
}

impl<'a, D: DataT> Ctx<'a, D> {
    /// Construct a fresh context.
    ///
    /// If you do not use any filters that need custom data (such as `inputs`)
    /// and your value type has a `'static` lifetime, then you may use
    /// [`crate::data::JustLut`] as [`DataT`].
    pub fn new(data: D::Data<'a>, vars: Vars<D::V<'a>>) -> Self {
        Self {
            data,
            vars,
            labels: 0,
        }
    }

    /// Add a new variable binding.
    fn cons_var(mut self, x: D::V<'a>) -> Self {
        self.vars.0 = self.vars.0.cons(Bind::Var(x));
        self
    }

    /// Add a new filter binding.
    fn cons_fun(mut self, (f, ctx): (Id, Self)) -> Self {
        self.vars.0 = self.vars.0.cons(Bind::Fun((f, ctx.vars)));
        self
    }

    fn cons_label(mut self) -> Self {
        self.labels += 1;
        self.vars.0 = self.vars.0.cons(Bind::Label(self.labels));
        self
    }

    /// Remove the `skip` most recent variable bindings.
    fn skip_vars(mut self, skip: usize) -> Self {
        if skip > 0 {
            self.vars.0 = self.vars.0.skip(skip).clone();
        }
        self
    }

    /// Replace variables in context with given ones.
    fn with_vars(&self, vars: Vars<D::V<'a>>) -> Self {
        Self {
            vars,
            data: self.data.clone(),
            labels: self.labels,
        }
    }

    fn lut(&self) -> &'a Lut<D> {
        self.data.lut()
    }

    /// Return global data.
    pub fn data(&self) -> &D::Data<'a> {
        &self.data
    }
}

impl<'a, D: DataT> Ctx<'a, D> {
    /// Remove the latest bound variable from the context.
    ///
    /// This is useful for writing [`Native`] filters.
    pub fn pop_var(&mut self) -> D::V<'a> {
        let (head, tail) = match core::mem::take(&mut self.vars.0).pop() {
            Some((Bind::Var(head), tail)) => (head, tail),
            _ => panic!(),
        };
        self.vars.0 = tail;
        head
    }

    /// Remove the latest bound function from the context.
    ///
    /// This is useful for writing [`Native`] filters.
    pub fn pop_fun(&mut self) -> (Id, Self) {
        let ((id, vars), tail) = match core::mem::take(&mut self.vars.0).pop() {
            Some((Bind::Fun(head), tail)) => (head, tail),
            _ => panic!(),
        };
        self.vars.0 = tail;
        (id, self.with_vars(vars))
    }
}

/// Enhance the context `ctx` with variables bound to the outputs of `args` executed on `cv`,
/// and return the enhanced contexts together with the original value of `cv`.
///
/// This is used when we call filters with variable arguments.
fn bind_vars<'a, D: DataT, T: 'a + Clone>(
    args: &'a [Arg<Id>],
    ctx: Ctx<'a, D>,
    cv: Cv<'a, D, T>,
    proj: fn(&T) -> D::V<'a>,
) -> ValXs<'a, Cv<'a, D, T>, D::V<'a>> {
    match args.split_first() {
        Some((Arg::Var(arg), [])) => map_with(
            arg.run((cv.0.clone(), proj(&cv.1))),
            (ctx, cv.1),
            |y, (ctx, v)| Ok((ctx.cons_var(y?), v)),
        ),
        Some((Arg::Fun(arg), [])) => box_once(Ok((ctx.cons_fun((*arg, cv.0)), cv.1))),
        Some((Arg::Var(arg), rest)) => flat_map_then_with(
            arg.run((cv.0.clone(), proj(&cv.1))),
            (ctx, cv),
            move |y, (ctx, cv)| bind_vars(rest, ctx.cons_var(y), cv, proj),
        ),
        Some((Arg::Fun(arg), rest)) => {
            bind_vars(rest, ctx.cons_fun((*arg, cv.0.clone())), cv, proj)
        }
        None => box_once(Ok((ctx, cv.1))),
    }
}

/// (mkfifo patch) The arguments of a native, bound as jq binds those of its C functions:
/// the outputs of the last argument outermost, and it runs first (`[pow(2,3; 1,2)]` is
/// `[2,3,4,9]`; of two errors the last argument's wins). The values are still bound in
/// the order of the arguments, for the native to pop. `later` holds what the arguments
/// after `args` bind (a value, or a filter argument), the first of them at its head.
fn bind_native_args<'a, D: DataT, T: 'a + Clone>(
    args: &'a [Arg<Id>],
    ctx: Ctx<'a, D>,
    cv: Cv<'a, D, T>,
    proj: fn(&T) -> D::V<'a>,
    later: RcList<Arg<D::V<'a>, Id>>,
) -> ValXs<'a, Cv<'a, D, T>, D::V<'a>> {
    match args.split_last() {
        None => box_once(Ok((cons_native_args(ctx, later.iter(), &cv.0), cv.1))),
        Some((Arg::Fun(f), init)) => bind_native_args(init, ctx, cv, proj, later.cons(Arg::Fun(*f))),
        Some((Arg::Var(arg), init)) => flat_map_then_with(
            arg.run((cv.0.clone(), proj(&cv.1))),
            (ctx, cv, later),
            move |y, (ctx, cv, later)| bind_native_args(init, ctx, cv, proj, later.cons(Arg::Var(y))),
        ),
    }
}

/// (mkfifo patch) `ctx` with a native's arguments bound, in their order: values, and
/// filter arguments in the caller's context.
fn cons_native_args<'a, 'b, D: DataT>(
    ctx: Ctx<'a, D>,
    args: impl Iterator<Item = &'b Arg<D::V<'a>, Id>>,
    caller: &Ctx<'a, D>,
) -> Ctx<'a, D>
where
    'a: 'b,
{
    args.fold(ctx, |ctx, a| match a {
        Arg::Var(y) => ctx.cons_var(y.clone()),
        Arg::Fun(f) => ctx.cons_fun((*f, caller.clone())),
    })
}

/// (mkfifo patch) At most this many arguments of a native are evaluated in place.
const NATIVE_ARGS_IN_PLACE: usize = 4;

fn bind_pat<'a, D: DataT>(
    (idxs, pat): &'a (Id, Pattern<Id>),
    ctx: Ctx<'a, D>,
    cv: Cv<'a, D>,
) -> ValXs<'a, Ctx<'a, D>, D::V<'a>> {
    let (ctx0, v0) = cv.clone();
    let v1 = map_with(idxs.run(cv), v0, move |i, v0| Ok(v0.index(&i?)?));
    match pat {
        Pattern::Var => Box::new(v1.map(move |v| Ok(ctx.clone().cons_var(v?)))),
        Pattern::Idx(pats) => flat_map_then_with(v1, (ctx, ctx0), move |v, (ctx, ctx0)| {
            bind_pats(pats, ctx, (ctx0, v))
        }),
    }
}

fn bind_pats<'a, D: DataT>(
    pats: &'a [(Id, Pattern<Id>)],
    ctx: Ctx<'a, D>,
    cv: Cv<'a, D>,
) -> ValXs<'a, Ctx<'a, D>, D::V<'a>> {
    match pats.split_first() {
        None => box_once(Ok(ctx)),
        Some((pat, [])) => bind_pat(pat, ctx, cv),
        Some((pat, rest)) => flat_map_then_with(bind_pat(pat, ctx, cv.clone()), cv, |ctx, cv| {
            bind_pats(rest, ctx, cv)
        }),
    }
}

fn run_and_bind<'a, D: DataT>(
    xs: &'a Id,
    cv: Cv<'a, D>,
    pat: &'a Pattern<Id>,
) -> ValXs<'a, Ctx<'a, D>, D::V<'a>> {
    let xs = xs.run((cv.0.clone(), cv.1));
    match pat {
        Pattern::Var => map_with(xs, cv.0, move |y, ctx| Ok(ctx.cons_var(y?))),
        Pattern::Idx(pats) => {
            flat_map_then_with(xs, cv.0, |y, ctx| bind_pats(pats, ctx.clone(), (ctx, y)))
        }
    }
}

fn bind_run<'a, D: DataT, T: Clone + 'a>(
    pat: &'a Pattern<Id>,
    r: &'a Id,
    cv: Cv<'a, D, T>,
    y: D::V<'a>,
    run: IdRunFn<'a, D, T>,
) -> ValXs<'a, T, D::V<'a>> {
    match pat {
        Pattern::Var => run(r, (cv.0.cons_var(y), cv.1)),
        Pattern::Idx(pats) => {
            let r = move |ctx, vp| run(r, (ctx, vp));
            flat_map_then_with(bind_pats(pats, cv.0.clone(), (cv.0, y)), cv.1, r)
        }
    }
}

fn label_run<'a, D: DataT, T: 'a>(
    cv: Cv<'a, D, T>,
    run: impl Fn(Cv<'a, D, T>) -> ValXs<'a, T, D::V<'a>>,
) -> ValXs<'a, T, D::V<'a>> {
    let ctx = cv.0.cons_label();
    let labels = ctx.labels;
    Box::new(run((ctx, cv.1)).map_while(move |y| match y {
        Err(Exn(exn::Inner::Break(b))) if b == labels => None,
        y => Some(y),
    }))
}

fn try_catch_run<'a, T: 'a, V: 'a, I: Iterator<Item = ValX<'a, T, V>> + 'a>(
    mut ys: ValXs<'a, T, V>,
    f: impl Fn(Error<V>) -> I + 'a,
) -> ValXs<'a, T, V> {
    let mut end: Option<I> = None;
    Box::new(core::iter::from_fn(move || match &mut end {
        Some(end) => end.next(),
        None => match ys.next()? {
            Err(Exn(exn::Inner::Err(e))) => {
                end = Some(f(*e));
                end.as_mut().and_then(|end| end.next())
            }
            y => Some(y),
        },
    }))
}

fn fold_run<'a, D: DataT, T: Clone + 'a>(
    xs: impl Iterator<Item = ValX<'a, Ctx<'a, D>, D::V<'a>>> + Clone + 'a,
    cv: Cv<'a, D, T>,
    init: &'a Id,
    update: &'a Id,
    fold_type: &'a Fold<Id>,
    run: IdRunFn<'a, D, T>,
    null: fn() -> ValX<'a, T, D::V<'a>>,
) -> ValXs<'a, T, D::V<'a>> {
    // (mkfifo patch) jq 1.7: the state goes on with the last output of the update
    // (null when it has none), and `foreach` extracts every output
    let init = run(init, cv.clone());
    let update = move |ctx, v| run(update, (ctx, v));
    let inner = |_, y: &T| Some(y.clone());
    let inner_proj = |ctx, y: &T| Some((ctx, y.clone()));
    flat_map_then_with(init, xs, move |i, xs| match fold_type {
        Fold::Reduce => Box::new(fold_last(xs, i, update, |_| (), |_, _| None, Some, null)),
        Fold::Foreach(None) => {
            Box::new(fold_last(xs, i, update, |_| (), inner, |_| None, null))
        }
        Fold::Foreach(Some(proj)) => flat_map_then(
            fold_last(xs, i, update, |ctx| ctx.clone(), inner_proj, |_| None, null),
            move |(ctx, y)| run(proj, (ctx, y)),
        ),
    })
}

/// For every value `v` returned by `self.run(cv)`, call `f(cv, v)` and return all results.
///
/// This has a special optimisation for the case where only a single `v` is returned.
/// In that case, we can consume `cv` instead of cloning it.
fn pipe<'a, D: DataT, T: 'a, F>(l: &'a Id, cv: Cv<'a, D>, r: F) -> ValXs<'a, T, D::V<'a>>
where
    F: Fn(Cv<'a, D>, D::V<'a>) -> ValXs<'a, T, D::V<'a>> + 'a,
{
    // (mkfifo patch) a single output of `l` goes to `r` without iterators
    if maybe_single(cv.0.lut(), l) {
        if let Ok(y) = l.single(&cv.0, cv.1.clone()) {
            return box_iter::then(y, |y| r(cv, y));
        }
    }
    flat_map_then_with(l.run(cv.clone()), cv, move |y, cv| r(cv, y))
}

type Pairs<'a, T> = box_iter::BoxIter<'a, (T, T)>;

/// Run `self` and `r` and return the cartesian product of their outputs.
fn cartesian<'a, D: DataT>(l: &'a Id, r: &'a Id, cv: Cv<'a, D>) -> Pairs<'a, ValX<'a, D::V<'a>>> {
    flat_map_with(l.run(cv.clone()), cv, move |l, cv| {
        map_with(r.run(cv), l, |r, l| (l, r))
    })
}

fn fold_update<'a, D: DataT>(
    fold_type: &'a Fold<Id>,
    path: &'a Id,
    v: D::V<'a>,
    mut xs: impl Iterator<Item = ValX<'a, Ctx<'a, D>, D::V<'a>>> + Clone + 'a,
    f: BoxUpdate<'a, D::V<'a>>,
) -> ValXs<'a, D::V<'a>> {
    let ctx = match xs.next() {
        Some(Ok(ctx)) => ctx,
        Some(Err(e)) => return box_once(Err(e)),
        None => match fold_type {
            Fold::Reduce => return f(v),
            Fold::Foreach(_) => return box_once(Ok(v)),
        },
    };

    let rec = |v, (xs, f)| fold_update(fold_type, path, v, xs, f);
    let update: BoxUpdate<_> = match fold_type {
        Fold::Reduce => Box::new(move |v| rec(v, (xs.clone(), f.clone()))),
        Fold::Foreach(None) => {
            Box::new(move |v| flat_map_then_with(f(v), (xs.clone(), f.clone()), rec))
        }
        Fold::Foreach(Some(proj)) => {
            let ctx_ = ctx.clone();
            Box::new(move |v| {
                let proj = proj.update((ctx_.clone(), v), f.clone());
                flat_map_then_with(proj, (xs.clone(), f.clone()), rec)
            })
        }
    };
    path.update((ctx, v), update)
}

fn def_run<'a, D: DataT, T: 'a>(
    id: &'a Id,
    call_typ: &CallType,
    cvs: ValXs<'a, Cv<'a, D, T>, D::V<'a>>,
    run: IdRunFn<'a, D, T>,
    with_vars: impl Fn(Vars<D::V<'a>>) -> Ctx<'a, D> + 'a,
    into: fn(T) -> exn::CallInput<D::V<'a>>,
    from: fn(exn::CallInput<D::V<'a>>) -> T,
) -> ValXs<'a, T, D::V<'a>> {
    use core::ops::ControlFlow;
    let outs = |cvs| flat_map_then(cvs, move |cv| run(id, cv));
    let catch = |all: bool| {
        move |r| match r {
            Err(Exn(exn::Inner::TailCall(tc))) if all || tc.0 == id => {
                ControlFlow::Continue(run(tc.0, (with_vars(tc.1), from(tc.2))))
            }
            Ok(_) | Err(_) => ControlFlow::Break(r),
        }
    };

    match call_typ {
        CallType::Inline => outs(cvs),
        CallType::CatchOne => Box::new(crate::Stack::new([outs(cvs)].into(), catch(false))),
        CallType::CatchAll => Box::new(crate::Stack::new([outs(cvs)].into(), catch(true))),
        CallType::Throw => Box::new(cvs.map(move |cv| {
            cv.and_then(|cv| {
                let tc = (id, cv.0.vars, into(cv.1));
                Err(Exn(exn::Inner::TailCall(Box::new(tc))))
            })
        })),
    }
}

fn reduce<'a, T: Clone + 'a, V: Clone + 'a, F>(xs: ValXs<'a, T, V>, init: V, f: F) -> ValXs<'a, V>
where
    F: Fn(T, V) -> ValXs<'a, V> + 'a,
{
    let xs = rc_lazy_list::List::from_iter(xs);
    Box::new(fold(xs, init, f, |_| (), |_, _| None, Some))
}

fn lazy<I: Iterator, F: FnOnce() -> I>(f: F) -> impl Iterator<Item = I::Item> {
    core::iter::once_with(f).flatten()
}

#[test]
fn lazy_is_lazy() {
    let f = || panic!();
    let mut iter = core::iter::once(0).chain(lazy(|| box_once(f())));
    assert_eq!(iter.size_hint(), (1, None));
    assert_eq!(iter.next(), Some(0));
}

/// Runs `def recurse(f): ., (f? | recurse(f)); v | recurse(f)`.
fn recurse_run<'a, T: Clone + 'a, V: 'a, I: Iterator<Item = ValR<T, V>> + 'a>(
    x: T,
    f: &'a impl Fn(T) -> I,
) -> ValXs<'a, T, V> {
    let id = core::iter::once(Ok(x.clone()));
    Box::new(id.chain(f(x).flatten().flat_map(|y| recurse_run(y, f))))
}

/// Runs `def recurse: (.[]? | recurse), .; v | recurse |= f`.
///
/// This uses a `recurse` different from that of `recurse_run`; in particular,
/// `recurse_run` yields values from root to leafs, whereas
/// this function performs updates from leafs to root.
/// Performing updates from root to leafs can easily lead to
/// nontermination or other weird effects, such as
/// trying to update values that have been deleted.
fn recurse_update<'a, V: ValT + 'a>(v: V, f: &dyn Update<'a, V>) -> ValXs<'a, V> {
    use crate::path::Opt::Optional;
    box_iter::then(v.map_values(Optional, |v| recurse_update(v, f)), f)
}

/// (mkfifo patch) Calls [`HasLut::pull`] before each value pulled out of a called filter.
struct Guarded<G, I> {
    data: G,
    inner: I,
}

impl<'a, T, V, G: HasLutPull, I: Iterator<Item = ValX<'a, T, V>>> Iterator for Guarded<G, I> {
    type Item = ValX<'a, T, V>;
    fn next(&mut self) -> Option<Self::Item> {
        if !self.data.pull_ok() {
            return Some(Err(Exn::from(Error::abort())));
        }
        self.inner.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

trait HasLutPull {
    fn pull_ok(&self) -> bool;
}

struct PullOf<'a, D: DataT>(D::Data<'a>);

impl<'a, D: DataT> HasLutPull for PullOf<'a, D> {
    fn pull_ok(&self) -> bool {
        self.0.pull()
    }
}

fn guarded<'a, D: DataT, T: 'a>(
    data: D::Data<'a>,
    inner: ValXs<'a, T, D::V<'a>>,
) -> ValXs<'a, T, D::V<'a>> {
    Box::new(Guarded {
        data: PullOf::<D>(data),
        inner,
    })
}

/// A filter which is implemented using function pointers.
pub struct Native<D: DataT + ?Sized> {
    run: RunPtr<D>,
    paths: PathsPtr<D>,
    update: UpdatePtr<D>,
    /// (mkfifo patch) whether `paths` was given
    has_paths: bool,
    /// (mkfifo patch) whether `run` always yields exactly one value, without side effects
    pure: bool,
    /// (mkfifo patch) what `run` computes, as a plain function of the input and the
    /// argument values, for [`Id::single`] to call without a context or an iterator
    direct: Direct<D>,
}

/// (mkfifo patch) A pure native's function of its input (and one argument value), or none.
pub enum Direct<D: DataT + ?Sized> {
    /// No such function: `run` is called.
    None,
    /// Of the input alone (the context is only there to name the lifetime).
    Input(for<'a> fn(&Ctx<'a, D>, D::V<'a>) -> ValR<D::V<'a>>),
    /// Of the input and the value of its one argument.
    InputArg(for<'a> fn(&Ctx<'a, D>, D::V<'a>, D::V<'a>) -> ValR<D::V<'a>>),
}

type IdRunFn<'a, D, T> = fn(&Id, Cv<'a, D, T>) -> ValXs<'a, T, <D as DataT>::V<'a>>;

/// Run function pointer (see [`Id::run`]).
pub type RunPtr<D> = for<'a> fn(Cv<'a, D>) -> ValXs<'a, <D as DataT>::V<'a>>;
/// Paths function pointer (see [`Id::paths`]).
pub type PathsPtr<D> = for<'a> fn(Cvp<'a, D>) -> ValPathXs<'a, <D as DataT>::V<'a>>;
/// Update function pointer (see [`Id::update`]).
pub type UpdatePtr<D> =
    for<'a> fn(Cv<'a, D>, BoxUpdate<'a, <D as DataT>::V<'a>>) -> ValXs<'a, <D as DataT>::V<'a>>;

impl<D: DataT> Native<D> {
    /// Create a native filter from a run function.
    ///
    /// A filter created this way initially supports neither paths nor updates.
    /// For that, use [`Self::with_paths`] and [`Self::with_update`].
    pub const fn new(run: RunPtr<D>) -> Self {
        Self {
            run,
            paths: |cv| box_once(Err(Exn::from(Error::path_expr(cv.1 .0)))),
            update: |cv, _| box_once(Err(Exn::from(Error::path_expr(cv.1)))),
            has_paths: false,
            pure: false,
            direct: Direct::<D>::None,
        }
    }

    /// (mkfifo patch) Declare that `run` always yields exactly one value and has no
    /// side effects (beyond spending steps), so that [`Id::single`] may call it.
    pub fn pure(self) -> Self {
        Self { pure: true, ..self }
    }

    /// (mkfifo patch) A pure native that `run` computes as `direct` does.
    pub fn direct(self, direct: Direct<D>) -> Self {
        Self {
            pure: true,
            direct,
            ..self
        }
    }

    /// Specify a paths function (used for `path(...)`).
    pub const fn with_paths(self, paths: PathsPtr<D>) -> Self {
        Self {
            paths,
            has_paths: true,
            ..self
        }
    }

    /// Specify an update function (used for `filter |= ...`).
    ///
    /// If an update function is given, then a paths function should be implemented too.
    pub const fn with_update(self, update: UpdatePtr<D>) -> Self {
        Self { update, ..self }
    }
}

/// (mkfifo patch) How tall a term that [`Id::single`] computes may be.
const SINGLE_HEIGHT: u8 = 32;
/// (mkfifo patch) [`Lut::single`]: [`Id::single`] may compute the term (its variables
/// are checked when it runs) ...
const MAYBE: u8 = 1;
/// ... or surely computes it (no variables, no optional paths).
const SURELY: u8 = 2;

/// (mkfifo patch) Whether [`Id::single`] may compute the term.
fn maybe_single<F>(lut: &crate::compile::Lut<F>, id: &Id) -> bool {
    lut.single.get(id.0).is_some_and(|k| *k >= MAYBE)
}

/// (mkfifo patch) Whether [`Id::single`] surely computes the term.
fn surely_single<F>(lut: &crate::compile::Lut<F>, id: &Id) -> bool {
    lut.single.get(id.0).is_some_and(|k| *k == SURELY)
}

/// (mkfifo patch) For every term, whether [`Id::single`] may (or surely does) compute it:
/// the terms that it handles, of height up to [`SINGLE_HEIGHT`].
pub(crate) fn mark_single(terms: &[Ast]) -> alloc::vec::Vec<u8> {
    let mut memo = alloc::vec![None; terms.len()];
    (0..terms.len())
        .map(|i| mark(terms, &mut memo, &Id(i), 0).0)
        .collect()
}

/// The kind (0, [`MAYBE`] or [`SURELY`]) and height of a term, remembered in `memo`.
fn mark(terms: &[Ast], memo: &mut [Option<(u8, u8)>], id: &Id, depth: usize) -> (u8, u8) {
    use crate::path::{Opt, Part};
    const NO: (u8, u8) = (0, 0);
    if let Some(Some(m)) = memo.get(id.0) {
        return *m;
    }
    // far down a deep term: not remembered, for the term may be looked at on its own
    if depth > 2 * SINGLE_HEIGHT as usize {
        return NO;
    }
    let mut all = |ids: &[Option<&Id>]| {
        let (mut kind, mut height) = (SURELY, 0);
        for id in ids.iter().flatten() {
            let (k, h) = mark(terms, memo, id, depth + 1);
            kind = kind.min(k);
            height = height.max(h + 1);
        }
        if kind == 0 {
            NO
        } else {
            (kind, height)
        }
    };
    let r = match terms.get(id.0) {
        None => NO,
        Some(t) => match t {
            Ast::Id | Ast::ToString | Ast::Int(_) | Ast::Num(_) | Ast::Str(_) => (SURELY, 0),
            Ast::ObjEmpty => (SURELY, 0),
            Ast::Var(_) => (MAYBE, 0),
            Ast::ObjSingle(l, r) | Ast::Math(l, _, r) | Ast::Cmp(l, _, r) => {
                all(&[Some(l), Some(r)])
            }
            // (the keys are string literals)
            Ast::ObjLit(entries, _) => {
                let values: alloc::vec::Vec<_> = entries.iter().map(|(_, v)| Some(v)).collect();
                all(&values)
            }
            Ast::Alt(l, r) | Ast::Pipe(l, None, r) | Ast::Pipe(l, Some(Pattern::Var), r) => {
                all(&[Some(l), Some(r)])
            }
            // a defined filter called in place with value arguments only, and its body
            Ast::CallDef(body, args, _, CallType::Inline) if args.len() <= 4 => {
                let mut ids = [None; 5];
                ids[0] = Some(body);
                let mut ok = true;
                for (a, id) in args.iter().zip(ids[1..].iter_mut()) {
                    match a {
                        Arg::Var(a) => *id = Some(a),
                        Arg::Fun(_) => ok = false,
                    }
                }
                if ok {
                    all(&ids)
                } else {
                    NO
                }
            }
            Ast::Neg(f) => all(&[Some(f)]),
            Ast::Logic(l, _, r) => all(&[Some(l), Some(r)]),
            Ast::Ite(c, t, e) => all(&[Some(c), Some(t), Some(e)]),
            // whether the native is pure is checked when it runs
            Ast::Native(_, args) if args.len() <= 4 => {
                let mut ids = [None; 4];
                let mut ok = true;
                for (a, id) in args.iter().zip(ids.iter_mut()) {
                    match a {
                        Arg::Var(a) => *id = Some(a),
                        Arg::Fun(_) => ok = false,
                    }
                }
                let (kind, height) = if ok { all(&ids) } else { NO };
                (kind.min(MAYBE), height)
            }
            // `Id::single` keeps the keys of up to 4 parts
            Ast::Path(f, path) if path.0.len() <= 4 => {
                let mut ids = [None; 9];
                ids[0] = Some(f);
                let mut ok = true;
                for (j, (part, _)) in path.0.iter().enumerate() {
                    match part {
                        Part::Index(i) => ids[1 + 2 * j] = Some(i),
                        Part::Range(None, None) => ok = false,
                        Part::Range(from, upto) => {
                            ids[1 + 2 * j] = from.as_ref();
                            ids[2 + 2 * j] = upto.as_ref();
                        }
                    }
                }
                let (kind, height) = if ok { all(&ids) } else { NO };
                let optional = path.0.iter().any(|(_, opt)| matches!(opt, Opt::Optional));
                (if optional { kind.min(MAYBE) } else { kind }, height)
            }
            _ => NO,
        },
    };
    let r = if r.1 > SINGLE_HEIGHT { NO } else { r };
    if let Some(m) = memo.get_mut(id.0) {
        *m = Some(r);
    }
    r
}

/// (mkfifo patch) The output of `id.single(ctx, v)`, or a return of `Err(back)` from the
/// function it is in when the term turns out not to be single. A string or integer
/// literal, a bound variable or `.` is read in place, without a call (and, but for `.`,
/// without the copy of the input that the call would take).
macro_rules! single_or_back {
    ($ctx:expr, $id:expr, $v:expr, $back:expr) => {
        {
            let term = &$ctx.lut().terms[$id.0];
            let bound = match term {
                Ast::Var(x) => match $ctx.vars.get(*x) {
                    Some(Bind::Var(y)) => Some(y),
                    _ => None,
                },
                _ => None,
            };
            match (term, bound) {
                (Ast::Str(s), _) => Ok(D::V::from_shared_str(s)),
                (Ast::Int(n), _) => Ok(D::V::from(*n)),
                (_, Some(y)) => Ok(y.clone()),
                (Ast::Id, _) => Ok($v),
                _ => match $id.single($ctx, $v) {
                    Ok(y) => y,
                    Err(_) => return Err($back),
                },
            }
        }
    };
}

/// (mkfifo patch) The outputs of `l | r` for an `r` that [`Id::single`] may compute: an
/// output of `l` goes through `r` without an iterator of its own, unless `r` turns out
/// to need one for it. Lazy, as `flat_map` is.
struct PipeSingle<'a, D: DataT> {
    ls: ValXs<'a, D::V<'a>>,
    ctx: Ctx<'a, D>,
    r: &'a Id,
    inner: Option<ValXs<'a, D::V<'a>>>,
}

impl<'a, D: DataT> Iterator for PipeSingle<'a, D> {
    type Item = ValX<'a, D::V<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(inner) = &mut self.inner {
                match inner.next() {
                    Some(x) => return Some(x),
                    None => self.inner = None,
                }
            }
            match self.ls.next()? {
                Err(e) => return Some(Err(e)),
                Ok(y) => match self.r.single(&self.ctx, y) {
                    Ok(z) => return Some(z),
                    Err(y) => self.inner = Some(self.r.run((self.ctx.clone(), y))),
                },
            }
        }
    }
}

impl Id {
    /// (mkfifo patch) The one output of a pure term with exactly one output (literals,
    /// `.`, bound variables, and paths, arithmetic, comparisons and singleton objects
    /// of those) on input `v`, or `Err(v)` when the term may have another number of
    /// outputs. Its parts are evaluated in the order that [`Id::run`] evaluates them,
    /// the input goes to the part that [`Id::run`] moves it to (so that values owned
    /// once are still updated in place), and the error reported is the one that
    /// [`Id::run`] reports. Nothing here has side effects, so an `Err` after some parts
    /// were computed only costs their time.
    fn single<'a, D: DataT>(
        &self,
        ctx: &Ctx<'a, D>,
        v: D::V<'a>,
    ) -> Result<ValX<'a, D::V<'a>>, D::V<'a>> {
        use crate::path::{Opt, Part};
        Ok(match &ctx.lut().terms[self.0] {
            Ast::Id => Ok(v),
            Ast::ToString => Ok(v.into_string()),
            Ast::Int(n) => Ok(D::V::from(*n)),
            Ast::Num(x) => D::V::from_num(x).map_err(Exn::from),
            Ast::Str(s) => Ok(D::V::from_shared_str(s)),
            Ast::ObjEmpty => D::V::from_map([]).map_err(Exn::from),
            Ast::Var(x) => match ctx.vars.get(*x) {
                Some(Bind::Var(x)) => Ok(x.clone()),
                // a filter argument called (`f` in `map(f)`): its term in its context,
                // after the stack check that pulling from it would make
                Some(Bind::Fun((id, vars))) if maybe_single(ctx.lut(), id) => {
                    if !ctx.data.pull() {
                        return Ok(Err(Exn::from(Error::abort())));
                    }
                    match id.single(&ctx.clone().with_vars(vars.clone()), v) {
                        Ok(x) => x,
                        e => return e,
                    }
                }
                _ => return Err(v),
            },
            Ast::ObjSingle(k, x) => {
                let k = single_or_back!(ctx, k, v.clone(), v);
                let x = match x.single(ctx, v) {
                    Ok(x) => x,
                    e => return e,
                };
                (|| Ok(D::V::from_map([(k?, x?)])?))()
            }
            // (mkfifo patch) an object of literal keys (apart, for its frame is big)
            Ast::ObjLit(entries, _) => return Self::single_obj_lit(ctx, v, entries),
            // (mkfifo patch) `l + {k: x}`, as object constructions sum their entries: the
            // entry goes into the object of `l` without an object of its own. The parts run
            // in the order below, and the first error among `l`, `k`, `x` wins, as below.
            Ast::Math(l, crate::ops::Math::Add, r)
                if matches!(ctx.lut().terms[r.0], Ast::ObjSingle(..)) =>
            {
                let Ast::ObjSingle(k, x) = &ctx.lut().terms[r.0] else {
                    unreachable!()
                };
                let k = single_or_back!(ctx, k, v.clone(), v);
                let x = single_or_back!(ctx, x, v.clone(), v);
                let o = match l.single(ctx, v) {
                    Ok(o) => o,
                    e => return e,
                };
                (|| Ok(o?.add_entry(k?, x?)?))()
            }
            // the right operand runs first, the left one's error wins
            Ast::Math(l, op, r) => {
                let y = single_or_back!(ctx, r, v.clone(), v);
                let x = match l.single(ctx, v) {
                    Ok(x) => x,
                    e => return e,
                };
                (|| Ok(op.run(x?, y?)?))()
            }
            Ast::Cmp(l, op, r) => {
                let y = single_or_back!(ctx, r, v.clone(), v);
                let x = match l.single(ctx, v) {
                    Ok(x) => x,
                    e => return e,
                };
                (|| Ok(D::V::from(op.run(&x?, &y?))))()
            }
            // `l // r`: the output of `l` if it is true or an error, else that of `r`
            Ast::Alt(l, r) => match single_or_back!(ctx, l, v.clone(), v) {
                Ok(x) if !x.as_bool() => match r.single(ctx, v) {
                    Ok(y) => y,
                    e => return e,
                },
                x => x,
            },
            Ast::Pipe(l, None, r) => {
                // `l` gets the input unless `r` may still turn out not to be single
                let (y, back) = if surely_single(ctx.lut(), r) {
                    match l.single(ctx, v) {
                        Ok(y) => (y, None),
                        e => return e,
                    }
                } else {
                    (single_or_back!(ctx, l, v.clone(), v), Some(v))
                };
                match y {
                    Ok(y) => match (r.single(ctx, y), back) {
                        (Ok(x), _) => x,
                        (Err(_), Some(v)) => return Err(v),
                        // `r` was surely single
                        (Err(_), None) => return Ok(Err(Exn::from(Error::abort()))),
                    },
                    Err(e) => Err(e),
                }
            }
            // `l as $x | r`: `r` with `$x` bound to the output of `l`
            Ast::Pipe(l, Some(Pattern::Var), r) => match single_or_back!(ctx, l, v.clone(), v) {
                Ok(y) => match r.single(&ctx.clone().cons_var(y), v) {
                    Ok(x) => x,
                    e => return e,
                },
                Err(e) => Err(e),
            },
            // a defined filter with value arguments, called in place: its arguments bound
            // in order (the first one's error wins, as `bind_vars` yields it first), then
            // its body, after the step that `run` counts for a call
            Ast::CallDef(body, args, skip, CallType::Inline) => {
                let mut callee = ctx.clone().skip_vars(*skip);
                for a in args.iter() {
                    let Arg::Var(a) = a else { return Err(v) };
                    match single_or_back!(ctx, a, v.clone(), v) {
                        Ok(y) => callee = callee.cons_var(y),
                        Err(e) => return Ok(Err(e)),
                    }
                }
                if !ctx.data.enter() {
                    return Ok(Err(Exn::from(Error::abort())));
                }
                match body.single(&callee, v) {
                    Ok(x) => x,
                    e => return e,
                }
            }
            // a pure native: its arguments first, in order (apart, for its frame is big)
            Ast::Native(id, args) => return Self::single_native(ctx, v, *id, args),
            // `l and r`, `l or r`: `r` only when `l` does not decide
            Ast::Logic(l, stop, r) => match single_or_back!(ctx, l, v.clone(), v) {
                Ok(x) if x.as_bool() == *stop => Ok(D::V::from(*stop)),
                Ok(_) => match r.single(ctx, v) {
                    Ok(y) => y.map(|y| D::V::from(y.as_bool())),
                    e => return e,
                },
                Err(e) => Err(e),
            },
            Ast::Ite(c, t, e) => match single_or_back!(ctx, c, v.clone(), v) {
                Ok(x) => match if x.as_bool() { t } else { e }.single(ctx, v) {
                    Ok(y) => y,
                    e => return e,
                },
                Err(e) => Err(e),
            },
            Ast::Neg(f) => {
                let x = match f.single(ctx, v) {
                    Ok(x) => x,
                    e => return e,
                };
                (|| Ok((-x?)?))()
            }
            // (mkfifo patch) one part that is not optional (`.a`, `.[i]`, `.[a:b]`): as
            // below, without arrays of parts to fill, move and drop
            Ast::Path(f, path)
                if path.0.len() == 1 && matches!(path.0[0].1, Opt::Essential)
                    && !matches!(path.0[0].0, Part::Range(None, None)) =>
            {
                let key = match &path.0[0].0 {
                    Part::Index(i) => Part::Index(single_or_back!(ctx, i, v.clone(), v)),
                    Part::Range(from, upto) => Part::Range(
                        match from {
                            Some(i) => Some(single_or_back!(ctx, i, v.clone(), v)),
                            None => None,
                        },
                        match upto {
                            Some(i) => Some(single_or_back!(ctx, i, v.clone(), v)),
                            None => None,
                        },
                    ),
                };
                // (`.` itself, the usual input of a path, without a call)
                let x = match &ctx.lut().terms[f.0] {
                    Ast::Id => Ok(v),
                    _ => match f.single(ctx, v) {
                        Ok(x) => x,
                        e => return e,
                    },
                };
                // the error of the input wins over that of a key
                let (x, key) = match (x, key.transpose()) {
                    (Err(e), _) | (Ok(_), Err(e)) => return Ok(Err(e)),
                    (Ok(x), Ok(key)) => (x, key),
                };
                match key {
                    Part::Index(i) => x.index(&i),
                    Part::Range(from, upto) => x.range(from.as_ref()..upto.as_ref()),
                }
                .map_err(Exn::from)
            }
            // (apart, for its frame is big)
            Ast::Path(f, path) => return Self::single_path(ctx, v, f, path),
            _ => return Err(v),
        })
    }

    /// [`Id::single`] of an object of literal keys: its values in order, then one object
    /// of them all; as the sum of its entries, every value runs and the first error wins.
    #[inline(never)]
    fn single_obj_lit<'a, D: DataT>(
        ctx: &Ctx<'a, D>,
        v: D::V<'a>,
        entries: &[(Id, Id)],
    ) -> Result<ValX<'a, D::V<'a>>, D::V<'a>> {
        let mut values = alloc::vec::Vec::with_capacity(entries.len());
        let mut first_err = None;
        for (_, x) in entries.iter() {
            match single_or_back!(ctx, x, v.clone(), v) {
                Ok(y) if first_err.is_none() => values.push(y),
                Err(e) if first_err.is_none() => first_err = Some(e),
                _ => (),
            }
        }
        if let Some(e) = first_err {
            return Ok(Err(e));
        }
        let lut = ctx.lut();
        let keyed = entries.iter().zip(values).map(|((k, _), y)| match &lut.terms[k.0] {
            Ast::Str(k) => (D::V::from_shared_str(k), y),
            _ => unreachable!("the keys of an ObjLit are string literals"),
        });
        Ok(D::V::from_new_entries(keyed).map_err(Exn::from))
    }

    /// [`Id::single`] of a pure native (see there).
    #[inline(never)]
    fn single_native<'a, D: DataT>(
        ctx: &Ctx<'a, D>,
        v: D::V<'a>,
        id: usize,
        args: &[Arg<Id>],
    ) -> Result<ValX<'a, D::V<'a>>, D::V<'a>> {
        let lut = ctx.lut();
        let Some(f) = lut.funs.get(id).filter(|f| f.pure) else {
            return Err(v);
        };
        match (&f.direct, &args[..]) {
            (Direct::Input(g), []) => return Ok(g(ctx, v).map_err(Exn::from)),
            (Direct::InputArg(g), [Arg::Var(a)]) => {
                return Ok(match single_or_back!(ctx, a, v.clone(), v) {
                    Ok(y) => g(ctx, v, y).map_err(Exn::from),
                    Err(e) => Err(e),
                })
            }
            _ => (),
        }
        // evaluated from the last, bound in their order (see `bind_native_args`)
        if args.len() > NATIVE_ARGS_IN_PLACE {
            return Err(v);
        }
        let mut bound: [Option<Arg<D::V<'a>, Id>>; NATIVE_ARGS_IN_PLACE] = Default::default();
        for (a, b) in args.iter().zip(bound.iter_mut()).rev() {
            let Arg::Var(a) = a else { return Err(v) };
            match single_or_back!(ctx, a, v.clone(), v) {
                Ok(y) => *b = Some(Arg::Var(y)),
                Err(e) => return Ok(Err(e)),
            }
        }
        let c = cons_native_args(ctx.with_vars(Vars::new([])), bound.iter().flatten(), ctx);
        Ok(match (f.run)((c, v)).next() {
            Some(y) => y,
            // not the one value it promised
            None => Err(Exn::from(Error::abort())),
        })
    }

    /// [`Id::single`] of a path of up to 4 parts (see there).
    #[inline(never)]
    fn single_path<'a, D: DataT>(
        ctx: &Ctx<'a, D>,
        v: D::V<'a>,
        f: &Id,
        path: &crate::path::Path<Id>,
    ) -> Result<ValX<'a, D::V<'a>>, D::V<'a>> {
        use crate::path::{Opt, Part};
        // the keys of up to 4 parts, kept on the stack
        const MAX: usize = 4;
        if path.0.len() > MAX {
            return Err(v);
        }
        let mut keys: [Option<(Part<ValX<'a, D::V<'a>>>, Opt)>; MAX] = Default::default();
        for ((part, opt), key) in path.0.iter().zip(keys.iter_mut()) {
            let part = match part {
                Part::Index(i) => Part::Index(single_or_back!(ctx, i, v.clone(), v)),
                Part::Range(None, None) => return Err(v),
                Part::Range(from, upto) => {
                    let from = match from {
                        Some(i) => Some(single_or_back!(ctx, i, v.clone(), v)),
                        None => None,
                    };
                    let upto = match upto {
                        Some(i) => Some(single_or_back!(ctx, i, v.clone(), v)),
                        None => None,
                    };
                    Part::Range(from, upto)
                }
            };
            *key = Some((part, *opt));
        }
        // an optional part that fails has no output: then `v` is needed again
        let optional = path.0.iter().any(|(_, opt)| matches!(opt, Opt::Optional));
        let (mut x, mut back) = if optional {
            (single_or_back!(ctx, f, v.clone(), v), Some(v))
        } else {
            match f.single(ctx, v) {
                Ok(x) => (x, None),
                e => return e,
            }
        };
        // like `Path::transpose`: an index that failed fails the whole path
        let mut parts: [Option<(Part<D::V<'a>>, Opt)>; MAX] = Default::default();
        for (key, part) in keys.into_iter().zip(parts.iter_mut()) {
            if let Some((key, opt)) = key {
                match (&x, key.transpose()) {
                    (Err(_), _) => {}
                    (Ok(_), Ok(key)) => *part = Some((key, opt)),
                    (Ok(_), Err(e)) => x = Err(e),
                }
            }
        }
        let mut x = match x {
            Ok(x) => x,
            e => return Ok(e),
        };
        for (part, opt) in parts.into_iter().flatten() {
            let r = match part {
                Part::Index(i) => x.index(&i),
                Part::Range(from, upto) => x.range(from.as_ref()..upto.as_ref()),
            };
            x = match r {
                Ok(y) => y,
                // an optional part yields nothing on an error: not one output
                Err(e) if matches!(opt, Opt::Optional) && !e.is_abort() => {
                    match back.take() {
                        Some(v) => return Err(v),
                        None => return Ok(Err(Exn::from(e))),
                    }
                }
                Err(e) => return Ok(Err(Exn::from(e))),
            };
        }
        Ok(Ok(x))
    }

    /// `f.run((c, v))` returns the output of `v | f` in the context `c`.
    pub fn run<'a, D: DataT>(&self, cv: Cv<'a, D>) -> ValXs<'a, D::V<'a>> {
        use crate::path::{Opt, Part};
        use core::iter::once;
        // (mkfifo patch) a pure term with one output is computed without iterators
        let cv = if maybe_single(cv.0.lut(), self) {
            match self.single(&cv.0, cv.1) {
                Ok(y) => return box_once(y),
                Err(v) => (cv.0, v),
            }
        } else {
            cv
        };
        match &cv.0.lut().terms[self.0] {
            Ast::Id => box_once(Ok(cv.1)),
            Ast::Recurse => recurse_run(cv.1, &|v| v.values()),
            Ast::ToString => box_once(Ok(cv.1.into_string())),
            Ast::Int(n) => box_once(Ok(D::V::from(*n))),
            Ast::Num(x) => box_once(D::V::from_num(x).map_err(Exn::from)),
            Ast::Str(s) => box_once(Ok(D::V::from_shared_str(s))),
            Ast::Arr(f) => box_once(f.run(cv).collect()),
            Ast::ObjEmpty => box_once(D::V::from_map([]).map_err(Exn::from)),
            Ast::ObjSingle(k, v) => {
                Box::new(cartesian(k, v, cv).map(|(k, v)| Ok(D::V::from_map([(k?, v?)])?)))
            }
            Ast::ObjLit(_, general) => general.run(cv),
            Ast::TryCatch(f, c) => try_catch_run(f.run((cv.0.clone(), cv.1)), move |e| {
                c.run((cv.0.clone(), e.into_val()))
            }),
            Ast::Neg(f) => Box::new(f.run(cv).map(|v| Ok((-v?)?))),

            // `l | r`
            Ast::Pipe(l, None, r) => {
                // (mkfifo patch) a single output of `l` goes to `r` without iterators
                let cv = if maybe_single(cv.0.lut(), l) {
                    match l.single(&cv.0, cv.1) {
                        Ok(y) => return box_iter::then(y, |y| r.run((cv.0, y))),
                        Err(v) => (cv.0, v),
                    }
                } else {
                    cv
                };
                // (mkfifo patch) and each output of `l` goes to a single `r` without an
                // iterator of its own (`.[] | f`, as in `map(f)`)
                if maybe_single(cv.0.lut(), r) {
                    return Box::new(PipeSingle {
                        ls: l.run((cv.0.clone(), cv.1)),
                        ctx: cv.0,
                        r,
                        inner: None,
                    });
                }
                flat_map_then_with(l.run((cv.0.clone(), cv.1)), cv.0, move |y, ctx| {
                    r.run((ctx, y))
                })
            }
            // `l as $x | r`, `l as [...] | r`, or `l as {...} | r`
            Ast::Pipe(l, Some(pat), r) => pipe(l, cv, move |cv, y| {
                bind_run(pat, r, cv, y, |f, cv| f.run(cv))
            }),
            Ast::Comma(l, r) => Box::new(l.run(cv.clone()).chain(lazy(|| r.run(cv)))),
            Ast::Alt(l, r) => {
                let mut l = l
                    .run(cv.clone())
                    .filter(|v| v.as_ref().map_or(true, ValT::as_bool));
                match l.next() {
                    Some(head) => Box::new(once(head).chain(l)),
                    None => r.run(cv),
                }
            }
            Ast::Ite(if_, then_, else_) => pipe(if_, cv, move |cv, v| {
                if v.as_bool() { then_ } else { else_ }.run(cv)
            }),
            // (mkfifo patch) `f[]`, the values of each output of `f`, without the machinery
            // of paths (`.[]` without even an iterator for `.`)
            Ast::Path(f, path)
                if matches!(&path.0[..], [(Part::Range(None, None), Opt::Essential)]) =>
            {
                let values = |y: D::V<'a>| -> ValXs<'a, D::V<'a>> {
                    Box::new(y.values().map(|r| r.map_err(Exn::from)))
                };
                match cv.0.lut().terms[f.0] {
                    Ast::Id => values(cv.1),
                    _ => box_iter::flat_map_then(f.run(cv), values),
                }
            }
            Ast::Path(f, path) => {
                let path = path.map_ref(|i| {
                    let cv = cv.clone();
                    crate::into_iter::collect_if_once(move || i.run(cv))
                });
                flat_map_then_with(f.run(cv), path, |y, path| {
                    flat_map_then_with(path.explode(), y, |path, y| {
                        Box::new(path.run(y).map(|r| r.map_err(Exn::from)))
                    })
                })
            }

            Ast::Update(path, f) => path.update(
                (cv.0.clone(), cv.1),
                Box::new(move |v| f.run((cv.0.clone(), v))),
            ),
            Ast::UpdateMath(path, op, f) => pipe(f, cv, move |cv, y| {
                let u = move |x: D::V<'a>| box_once(op.run(x, y.clone()).map_err(Exn::from));
                path.update(cv, Box::new(u))
            }),
            Ast::UpdateAlt(path, f) => pipe(f, cv, move |cv, y| {
                let u = move |x: D::V<'a>| box_once(Ok(if x.as_bool() { x } else { y.clone() }));
                path.update(cv, Box::new(u))
            }),
            Ast::Assign(path, f) => pipe(f, cv, move |cv, y| {
                path.update(cv, Box::new(move |_| box_once(Ok(y.clone()))))
            }),
            Ast::Logic(l, stop, r) => pipe(l, cv, move |cv, l| {
                if l.as_bool() == *stop {
                    box_once(Ok(D::V::from(*stop)))
                } else {
                    Box::new(r.run(cv).map(|r| Ok(D::V::from(r?.as_bool()))))
                }
            }),
            // (mkfifo patch) jq runs the right operand in the outer loop
            Ast::Math(l, op, r) => Box::new(cartesian(r, l, cv).map(|(y, x)| Ok(op.run(x?, y?)?))),
            Ast::Cmp(l, op, r) => {
                Box::new(cartesian(r, l, cv).map(|(y, x)| Ok(D::V::from(op.run(&x?, &y?)))))
            }

            Ast::Fold(xs, pat, init, update, fold_type) => {
                let xs = rc_lazy_list::List::from_iter(run_and_bind(xs, cv.clone(), pat));
                let null = || Ok(D::V::null());
                fold_run(xs, cv, init, update, fold_type, |f, cv| f.run(cv), null)
            }
            Ast::Var(v) => match cv.0.vars.get(*v).unwrap() {
                Bind::Var(v) => box_once(Ok(v.clone())),
                Bind::Fun((id, vars)) => id.run((cv.0.with_vars(vars.clone()), cv.1)),
                Bind::Label(l) => box_once(Err(Exn(exn::Inner::Break(*l)))),
            },
            Ast::CallDef(id, args, skip, call_typ) => {
                let data = cv.0.data.clone();
                if !data.enter() {
                    return box_once(Err(Exn::from(Error::abort())));
                }
                let guard = data.clone();
                // (mkfifo patch) a call inline with filter arguments only (`select(f)`,
                // `map(f)`) binds them in place: binding them makes no outputs to iterate
                // over, and the body runs at the same point as through `def_run`
                let closures = args.iter().all(|a| matches!(a, Arg::Fun(_)));
                if matches!(call_typ, CallType::Inline) && closures {
                    let mut ctx = cv.0.clone().skip_vars(*skip);
                    for a in args.iter() {
                        if let Arg::Fun(f) = a {
                            ctx = ctx.cons_fun((*f, cv.0.clone()));
                        }
                    }
                    return guarded::<D, _>(guard, id.run((ctx, cv.1)));
                }
                let with_vars = move |vars| Ctx {
                    vars,
                    data: data.clone(),
                    labels: cv.0.labels,
                };
                let cvs = bind_vars(args, cv.0.clone().skip_vars(*skip), cv, Clone::clone);
                let (into, from) = (exn::CallInput::Run, exn::CallInput::unwrap_run);
                guarded::<D, _>(guard, def_run(id, call_typ, cvs, Id::run, with_vars, into, from))
            }
            Ast::Native(id, args) => {
                // (mkfifo patch) arguments with one output each are bound in place
                let lut = cv.0.lut();
                let single = |a: &Arg<Id>| match a {
                    Arg::Var(a) => maybe_single(lut, a),
                    Arg::Fun(_) => true,
                };
                // (evaluated from the last, as below)
                if args.len() <= NATIVE_ARGS_IN_PLACE && args.iter().all(single) {
                    let mut bound: [Option<Arg<D::V<'a>, Id>>; NATIVE_ARGS_IN_PLACE] = Default::default();
                    let mut all = true;
                    for (a, b) in args.iter().zip(bound.iter_mut()).rev() {
                        *b = Some(match a {
                            Arg::Var(a) => match a.single(&cv.0, cv.1.clone()) {
                                Ok(Ok(y)) => Arg::Var(y),
                                Ok(Err(e)) => return box_once(Err(e)),
                                Err(_) => {
                                    all = false;
                                    break;
                                }
                            },
                            Arg::Fun(f) => Arg::Fun(*f),
                        });
                    }
                    if all {
                        let ctx = cv.0.with_vars(Vars::new([]));
                        let ctx = cons_native_args(ctx, bound.iter().flatten(), &cv.0);
                        return (lut.funs[*id].run)((ctx, cv.1));
                    }
                }
                let ctx = cv.0.with_vars(Vars::new([]));
                let cvs = bind_native_args(args, ctx, cv, Clone::clone, RcList::new());
                flat_map_then(cvs, |cv| (cv.0.lut().funs[*id].run)(cv))
            }
            Ast::Label(id) => label_run(cv, |cv| id.run(cv)),
        }
    }

    /// `f.paths((c, (v, p)))` returns the outputs and paths of `v | f` in the context `c`,
    /// where `v` is assumed to be at path `p`.
    ///
    /// In particular, `v | path(f)` in context `c` yields the same paths as
    /// `f.paths((c, (v, Default::default())))`.
    pub fn paths<'a, D: DataT>(&self, cv: Cvp<'a, D>) -> ValPathXs<'a, D::V<'a>> {
        let proj_cv = |cv: &Cvp<'a, D>| (cv.0.clone(), cv.1 .0.clone());
        let proj_val = |(val, _path): &(D::V<'a>, _)| val.clone();
        // (mkfifo patch) like jq, a non-path term yields its values with a marked path;
        // indexing them, or taking their path, is an error
        let err = |cv: Cvp<'a, D>| -> ValPathXs<'a, D::V<'a>> {
            Box::new(
                self.run((cv.0, cv.1 .0))
                    .map(|y| y.map(|v| (v, RcList::new().cons(D::V::path_marker())))),
            )
        };
        match &cv.0.lut().terms[self.0] {
            Ast::ToString => err(cv),
            Ast::Int(_) | Ast::Num(_) | Ast::Str(_) => err(cv),
            Ast::Arr(_) | Ast::ObjEmpty | Ast::ObjSingle(..) | Ast::ObjLit(..) => err(cv),
            Ast::Neg(_) | Ast::Logic(..) | Ast::Math(..) | Ast::Cmp(..) => err(cv),
            Ast::Update(..) | Ast::Assign(..) => err(cv),
            Ast::UpdateMath(..) | Ast::UpdateAlt(..) => err(cv),
            Ast::Id => box_once(Ok(cv.1)),
            Ast::Recurse => recurse_run(cv.1, &|(v, p)| {
                v.key_values()
                    .map(move |r| r.map(|(k, v_)| (v_, p.clone().cons(k))))
            }),
            Ast::Pipe(l, None, r) => {
                flat_map_then_with(l.paths((cv.0.clone(), cv.1)), cv.0, move |y, ctx| {
                    r.paths((ctx, y))
                })
            }
            Ast::Pipe(l, Some(pat), r) => {
                flat_map_then_with(l.run(proj_cv(&cv)), cv, move |y, cv| {
                    bind_run(pat, r, cv, y, |f, cv| f.paths(cv))
                })
            }
            Ast::Comma(l, r) => Box::new(l.paths(cv.clone()).chain(lazy(|| r.paths(cv)))),
            Ast::Alt(l, r) => {
                let any_true = l
                    .run(proj_cv(&cv))
                    .any(|v| v.as_ref().map_or(true, ValT::as_bool));
                if any_true { l } else { r }.paths(cv)
            }
            Ast::Ite(if_, then_, else_) => {
                flat_map_then_with(if_.run(proj_cv(&cv)), cv, move |v, cv| {
                    if v.as_bool() { then_ } else { else_ }.paths(cv)
                })
            }
            Ast::TryCatch(f, c) => try_catch_run(f.paths((cv.0.clone(), cv.1)), move |e| {
                c.run((cv.0.clone(), e.into_val()))
                    .map(|e| Err(Exn::from(Error::path_expr(e?))))
            }),
            Ast::Path(f, path) => {
                let path = path.map_ref(|i| {
                    let cv = (cv.0.clone(), cv.1 .0.clone());
                    crate::into_iter::collect_if_once(move || i.run(cv))
                });
                flat_map_then_with(f.paths(cv), path, |y, path| {
                    flat_map_then_with(path.explode(), y, |path, y| {
                        Box::new(path.paths(y).map(|r| r.map_err(Exn::from)))
                    })
                })
            }
            Ast::Var(v) => match cv.0.vars.get(*v).unwrap() {
                Bind::Var(x) => box_once(Ok((x.clone(), RcList::new().cons(D::V::path_marker())))),
                Bind::Fun(l) => l.0.paths((cv.0.with_vars(l.1.clone()), cv.1)),
                Bind::Label(l) => box_once(Err(Exn(exn::Inner::Break(*l)))),
            },
            Ast::Fold(xs, pat, init, update, fold_type) => {
                let xs = rc_lazy_list::List::from_iter(run_and_bind(xs, proj_cv(&cv), pat));
                let null = || Err(Exn::from(Error::path_expr(D::V::null())));
                fold_run(xs, cv, init, update, fold_type, |f, cv| f.paths(cv), null)
            }
            Ast::CallDef(id, args, skip, call_typ) => {
                let data = cv.0.data.clone();
                if !data.enter() {
                    return box_once(Err(Exn::from(Error::abort())));
                }
                let guard = data.clone();
                let with_vars = move |vars| Ctx {
                    vars,
                    data: data.clone(),
                    labels: cv.0.labels,
                };
                let cvs = bind_vars(args, cv.0.clone().skip_vars(*skip), cv, proj_val);
                let (into, from) = (exn::CallInput::Paths, exn::CallInput::unwrap_paths);
                guarded::<D, _>(guard, def_run(id, call_typ, cvs, Id::paths, with_vars, into, from))
            }
            Ast::Label(id) => label_run(cv, |cv| id.paths(cv)),
            Ast::Native(id, args) => {
                let ctx = cv.0.with_vars(Vars::new([]));
                let cvs = bind_native_args(args, ctx, cv, proj_val, RcList::new());
                flat_map_then(cvs, |cv| {
                    let f = &cv.0.lut().funs[*id];
                    if f.has_paths {
                        (f.paths)(cv)
                    } else {
                        // (mkfifo patch) like jq, a native without paths yields its
                        // values with a marked path
                        Box::new((f.run)((cv.0, cv.1 .0)).map(|y| {
                            y.map(|v| (v, RcList::new().cons(D::V::path_marker())))
                        }))
                    }
                })
            }
        }
    }

    /// `p.update((c, v), f)` returns the output of `v | p |= f` in the context `c`.
    pub fn update<'a, D: DataT>(
        &self,
        cv: Cv<'a, D>,
        f: BoxUpdate<'a, D::V<'a>>,
    ) -> ValXs<'a, D::V<'a>> {
        let err = |v| box_once(Err(Exn::from(Error::path_expr(v))));
        match &cv.0.lut().terms[self.0] {
            Ast::ToString => err(cv.1),
            Ast::Int(_) | Ast::Num(_) | Ast::Str(_) => err(cv.1),
            Ast::Arr(_) | Ast::ObjEmpty | Ast::ObjSingle(..) | Ast::ObjLit(..) => err(cv.1),
            Ast::Neg(_) | Ast::Logic(..) | Ast::Math(..) | Ast::Cmp(..) => err(cv.1),
            Ast::Update(..) | Ast::Assign(..) => err(cv.1),
            Ast::UpdateMath(..) | Ast::UpdateAlt(..) => err(cv.1),
            // jq implements updates on `try ... catch` and `label`, but
            // I do not see how to implement this in jaq
            Ast::TryCatch(..) | Ast::Label(..) => err(cv.1),

            Ast::Id => f(cv.1),
            Ast::Recurse => recurse_update(cv.1, &f),
            Ast::Path(l, path) => {
                let path = path.map_ref(|i| {
                    let cv = cv.clone();
                    crate::into_iter::collect_if_once(move || i.run(cv))
                });
                let f = move |v| {
                    let mut paths = path.clone().explode();
                    box_once(paths.try_fold(v, |acc, path| path?.update(acc, &f)))
                };
                l.update(cv, Box::new(f))
            }
            Ast::Pipe(l, None, r) => l.update(
                (cv.0.clone(), cv.1),
                Box::new(move |v| r.update((cv.0.clone(), v), f.clone())),
            ),
            Ast::Pipe(l, Some(pat), r) => reduce(
                run_and_bind(l, (cv.0, cv.1.clone()), pat),
                cv.1,
                move |ctx, v| r.update((ctx, v), f.clone()),
            ),
            Ast::Comma(l, r) => flat_map_then_with(
                l.update((cv.0.clone(), cv.1), f.clone()),
                (cv.0, f),
                move |v, (ctx, f)| r.update((ctx, v), f),
            ),
            Ast::Ite(if_, then_, else_) => reduce(if_.run(cv.clone()), cv.1, move |x, v| {
                if x.as_bool() { then_ } else { else_ }.update((cv.0.clone(), v), f.clone())
            }),
            Ast::Alt(l, r) => {
                let some_true = l.run(cv.clone()).any(|y| y.map_or(true, |y| y.as_bool()));
                if some_true { l } else { r }.update(cv, f)
            }
            Ast::Fold(xs, pat, init, update, fold_type) => {
                let xs = rc_lazy_list::List::from_iter(run_and_bind(xs, cv.clone(), pat));
                let rec = move |v| fold_update(fold_type, update, v, xs.clone(), f.clone());
                init.update(cv, Box::new(rec))
            }
            Ast::Var(v) => match cv.0.vars.get(*v).unwrap() {
                Bind::Var(_) => err(cv.1),
                Bind::Fun(l) => l.0.update((cv.0.with_vars(l.1.clone()), cv.1), f),
                Bind::Label(l) => box_once(Err(Exn(exn::Inner::Break(*l)))),
            },
            Ast::CallDef(id, args, skip, _call_typ) => {
                let init = cv.1.clone();
                let cvs = bind_vars(args, cv.0.clone().skip_vars(*skip), cv, Clone::clone);
                reduce(cvs, init, move |cv, v| id.update((cv.0, v), f.clone()))
            }
            Ast::Native(id, args) => {
                let init = cv.1.clone();
                let ctx = cv.0.with_vars(Vars::new([]));
                let cvs = bind_native_args(args, ctx, cv, Clone::clone, RcList::new());
                reduce(cvs, init, move |cv, v| {
                    (cv.0.lut().funs[*id].update)((cv.0, v), f.clone())
                })
            }
        }
    }
}
