//! Level 1 on the host: plain loops, split over rayon threads in fixed-size chunks so results
//! do not depend on the thread count.

use super::Reduction;
use crate::buffer::Storage;
use crate::scalar::{RealScalar, Scalar};
use crate::view::{phys, VecMut, VecRef};
use num_traits::{Float, ToPrimitive};
use rayon::prelude::*;

/// Elements per work item; below `PAR_MIN` elements everything runs on the calling thread.
const CHUNK: usize = 1 << 14;
const PAR_MIN: usize = 1 << 16;

fn host<'a, T: Scalar>(v: &VecRef<'a, T>) -> &'a [T] {
    v.buf.host().expect("CPU view holds host storage")
}

fn host_mut<'a, 'b, T: Scalar>(v: &'b mut VecMut<'a, T>) -> &'b mut [T] {
    match v.buf.storage_mut() {
        Storage::Host(h) => h,
        Storage::Cuda(_) => unreachable!("CPU view holds host storage"),
    }
}

/// Reduces logical elements `0..n` with `acc` over fixed chunks, then folds the chunk results in
/// order (deterministic).
fn chunked<A: Send + Sync + Copy>(
    n: usize,
    identity: A,
    body: impl Fn(A, usize) -> A + Sync,
    combine: impl Fn(A, A) -> A,
) -> A {
    let run = |c: usize| {
        let hi = ((c + 1) * CHUNK).min(n);
        (c * CHUNK..hi).fold(identity, &body)
    };
    let chunks = n.div_ceil(CHUNK);
    if n < PAR_MIN {
        (0..chunks).map(run).fold(identity, combine)
    } else {
        let parts: Vec<A> = (0..chunks).into_par_iter().map(run).collect();
        parts.into_iter().fold(identity, combine)
    }
}

/// Compensated real sum (`s + c` carries about twice the working precision).
#[derive(Clone, Copy)]
struct Comp<R> {
    s: R,
    c: R,
}

fn two_sum<R: Float>(a: R, b: R) -> (R, R) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

impl<R: RealScalar> Comp<R> {
    fn zero() -> Self {
        Comp {
            s: R::zero(),
            c: R::zero(),
        }
    }
    fn add_prod(self, a: R, b: R) -> Self {
        let p = a * b;
        let ep = a.mul_add(b, -p);
        let (t, q) = two_sum(self.s, p);
        Comp {
            s: t,
            c: self.c + (q + ep),
        }
    }
    fn merge(self, o: Self) -> Self {
        let (t, q) = two_sum(self.s, o.s);
        Comp {
            s: t,
            c: self.c + o.c + q,
        }
    }
    fn value(self) -> R {
        self.s + self.c
    }
}

pub(crate) fn reduce2<T: Scalar>(kind: Reduction, x: VecRef<'_, T>, y: VecRef<'_, T>) -> T {
    let (xs, ys, n) = (host(&x), host(&y), x.len);
    let xi = |i: usize| xs[phys(x.offset, n, x.inc, i)];
    let yi = |i: usize| ys[phys(y.offset, n, y.inc, i)];
    match kind {
        Reduction::Dot | Reduction::Dotc => {
            let conj = kind == Reduction::Dotc;
            chunked(
                n,
                T::zero(),
                |a, i| {
                    let xv = if conj { xi(i).conj() } else { xi(i) };
                    a + xv * yi(i)
                },
                |a, b| a + b,
            )
        }
        Reduction::Dot2 | Reduction::Dot2c => {
            let conj = kind == Reduction::Dot2c;
            let z = (Comp::<T::Real>::zero(), Comp::<T::Real>::zero());
            let (re, im) = chunked(
                n,
                z,
                |(re, im), i| {
                    let xv = if conj { xi(i).conj() } else { xi(i) };
                    let yv = yi(i);
                    let (xr, xim, yr, yim) = (xv.re(), xv.im(), yv.re(), yv.im());
                    if T::IS_COMPLEX {
                        (
                            re.add_prod(xr, yr).add_prod(-xim, yim),
                            im.add_prod(xr, yim).add_prod(xim, yr),
                        )
                    } else {
                        (re.add_prod(xr, yr), im)
                    }
                },
                |(a, b), (c, d)| (a.merge(c), b.merge(d)),
            );
            T::from_parts(re.value(), im.value())
        }
        _ => unreachable!("one-vector reductions go through their own functions"),
    }
}

/// Blue's scaled sum of squares, as in reference LAPACK's `dnrm2` (thresholds from the type).
#[derive(Clone, Copy)]
struct Blue<R> {
    sml: R,
    med: R,
    big: R,
}

struct BlueConsts<R> {
    tsml: R,
    tbig: R,
    ssml: R,
    sbig: R,
}

fn blue_consts<R: RealScalar>() -> BlueConsts<R> {
    let two = R::one() + R::one();
    let radix_pow = |e: i32| two.powi(e);
    let (minexp, maxexp, digits) = if std::mem::size_of::<R>() == 4 {
        (-125i32, 128i32, 24i32)
    } else {
        (-1021i32, 1024i32, 53i32)
    };
    BlueConsts {
        tsml: radix_pow(((minexp - 1) as f64 / 2.0).ceil() as i32),
        tbig: radix_pow(((maxexp - digits + 1) as f64 / 2.0).floor() as i32),
        ssml: radix_pow(-(((minexp - digits) as f64 / 2.0).floor() as i32)),
        sbig: radix_pow(-(((maxexp + digits - 1) as f64 / 2.0).ceil() as i32)),
    }
}

impl<R: RealScalar> Blue<R> {
    fn add(mut self, x: R, k: &BlueConsts<R>) -> Self {
        let ax = Float::abs(x);
        if ax > k.tbig {
            let t = ax * k.sbig;
            self.big = t.mul_add(t, self.big);
        } else if ax < k.tsml {
            let t = ax * k.ssml;
            self.sml = t.mul_add(t, self.sml);
        } else {
            self.med = ax.mul_add(ax, self.med);
        }
        self
    }
    fn merge(self, o: Self) -> Self {
        Blue {
            sml: self.sml + o.sml,
            med: self.med + o.med,
            big: self.big + o.big,
        }
    }
    fn finish(self, k: &BlueConsts<R>) -> R {
        let (mut big, mut med, mut sml) = (self.big, self.med, self.sml);
        let zero = R::zero();
        let (scl, sumsq) = if big > zero {
            if med > zero || Float::is_nan(med) {
                big += (med * k.sbig) * k.sbig;
            }
            (R::one() / k.sbig, big)
        } else if sml > zero {
            if med > zero || Float::is_nan(med) {
                med = med.sqrt();
                sml = sml.sqrt() / k.ssml;
                let (ymin, ymax) = if sml > med { (med, sml) } else { (sml, med) };
                let r = ymin / ymax;
                (R::one(), ymax * ymax * (R::one() + r * r))
            } else {
                (R::one() / k.ssml, sml)
            }
        } else {
            (R::one(), med)
        };
        scl * sumsq.sqrt()
    }
}

pub(crate) fn nrm2<T: Scalar>(x: VecRef<'_, T>) -> T::Real {
    let (xs, n) = (host(&x), x.len);
    let xi = |i: usize| xs[phys(x.offset, n, x.inc, i)];
    if std::mem::size_of::<T::Real>() == 4 {
        // Single precision: squares of f32 values neither overflow nor underflow in f64.
        let sq = |v: T::Real| {
            let d = v.to_f64().unwrap_or(f64::NAN);
            d * d
        };
        let s = chunked(
            n,
            0.0f64,
            |a, i| a + sq(xi(i).re()) + sq(xi(i).im()),
            |a, b| a + b,
        );
        <T::Real as num_traits::NumCast>::from(s.sqrt()).unwrap_or_else(<T::Real as Float>::nan)
    } else {
        let k = blue_consts::<T::Real>();
        let z = <T::Real as num_traits::Zero>::zero();
        let b = chunked(
            n,
            Blue {
                sml: z,
                med: z,
                big: z,
            },
            |a, i| {
                let v = xi(i);
                let a = a.add(v.re(), &k);
                if T::IS_COMPLEX {
                    a.add(v.im(), &k)
                } else {
                    a
                }
            },
            Blue::merge,
        );
        b.finish(&k)
    }
}

pub(crate) fn asum<T: Scalar>(x: VecRef<'_, T>) -> T::Real {
    let (xs, n) = (host(&x), x.len);
    chunked(
        n,
        <T::Real as num_traits::Zero>::zero(),
        |a, i| a + xs[phys(x.offset, n, x.inc, i)].abs1(),
        |a, b| a + b,
    )
}

/// `(is_nan, value, index)`; index −1 marks "nothing yet".
type MaxKey<R> = (bool, R, i64);

fn max_before<R: RealScalar>(a: &MaxKey<R>, b: &MaxKey<R>) -> bool {
    if a.2 < 0 {
        return false;
    }
    if b.2 < 0 {
        return true;
    }
    if a.0 != b.0 {
        return a.0;
    }
    if !a.0 && a.1 != b.1 {
        return a.1 > b.1;
    }
    a.2 < b.2
}

pub(crate) fn iamax<T: Scalar>(x: VecRef<'_, T>) -> i64 {
    let (xs, n) = (host(&x), x.len);
    let none: MaxKey<T::Real> = (false, -<T::Real as num_traits::One>::one(), -1);
    let r = chunked(
        n,
        none,
        |a, i| {
            let v = xs[phys(x.offset, n, x.inc, i)];
            let cand = (v.is_nan(), v.abs1(), i as i64);
            if max_before(&cand, &a) {
                cand
            } else {
                a
            }
        },
        |a, b| if max_before(&b, &a) { b } else { a },
    );
    r.2
}

/// Applies `f(logical index, &mut y_i)` to every element of a strided mutable view.
fn for_each_mut<T: Scalar>(y: &mut VecMut<'_, T>, f: impl Fn(usize, &mut T) + Sync) {
    let (n, off, inc) = (y.len, y.offset, y.inc);
    if n == 0 {
        return;
    }
    let step = inc.unsigned_abs();
    let span = &mut host_mut(y)[off..off + (n - 1) * step + 1];
    let logical = move |k: usize| if inc > 0 { k } else { n - 1 - k };
    if n < PAR_MIN {
        span.iter_mut()
            .step_by(step)
            .enumerate()
            .for_each(|(k, v)| f(logical(k), v));
    } else {
        span.par_chunks_mut(step)
            .with_min_len(CHUNK)
            .enumerate()
            .for_each(|(k, c)| f(logical(k), &mut c[0]));
    }
}

pub(crate) fn axpy<T: Scalar>(alpha: T, x: VecRef<'_, T>, mut y: VecMut<'_, T>) {
    let (xs, n) = (host(&x), x.len);
    for_each_mut(&mut y, |i, v| *v += alpha * xs[phys(x.offset, n, x.inc, i)]);
}

pub(crate) fn scal<T: Scalar>(alpha: T, mut x: VecMut<'_, T>) {
    for_each_mut(&mut x, |_, v| *v = alpha * *v);
}

pub(crate) fn copy<T: Scalar>(x: VecRef<'_, T>, mut y: VecMut<'_, T>) {
    let (xs, n) = (host(&x), x.len);
    for_each_mut(&mut y, |i, v| *v = xs[phys(x.offset, n, x.inc, i)]);
}

pub(crate) fn swap<T: Scalar>(mut x: VecMut<'_, T>, mut y: VecMut<'_, T>) {
    // x and y are distinct buffers (two live `&mut`), so read x, write x from y, write y.
    let gather = |v: &VecMut<'_, T>| {
        let h = host(&v.as_ref());
        (0..v.len)
            .map(|i| h[phys(v.offset, v.len, v.inc, i)])
            .collect::<Vec<T>>()
    };
    let (xv, yv) = (gather(&x), gather(&y));
    for_each_mut(&mut x, |i, v| *v = yv[i]);
    for_each_mut(&mut y, |i, v| *v = xv[i]);
}
