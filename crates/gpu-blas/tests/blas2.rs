//! Property tests: every level-2 operation, every scalar type, every `Trans`/`Uplo`/`Diag`, every
//! device, against f64 loops. Matrices are blocks of larger matrices whose elements outside the
//! block, in the unreferenced triangle, on a unit diagonal and in the imaginary part of a
//! Hermitian diagonal are NaN: reading them would show in the results, writing them is checked
//! bit for bit.

mod common;

use common::*;
use gpu_blas::blas2::{self, Diag, Trans, Uplo};
use gpu_blas::{Device, DeviceMatrix, DeviceVec, Error, MatMut, MatRef, Scalar};
use num_complex::{Complex32, Complex64 as C64};
use num_traits::{Float, One};
use proptest::prelude::*;
use std::collections::HashSet;

macro_rules! for_all_types {
    ($f:ident, $dev:expr) => {
        $f::<f32>($dev);
        $f::<f64>($dev);
        $f::<Complex32>($dev);
        $f::<num_complex::Complex64>($dev);
    };
}

const TRANS: [Trans; 3] = [Trans::N, Trans::T, Trans::C];
const UPLO: [Uplo; 2] = [Uplo::Upper, Uplo::Lower];
const DIAG: [Diag; 2] = [Diag::NonUnit, Diag::Unit];

/// A matrix dimension: an edge size or a random one up to 300.
fn dim() -> impl Strategy<Value = usize> {
    prop_oneof![
        prop::sample::select(vec![0usize, 1, 2, 31, 32, 33]),
        0usize..300
    ]
}

/// Where a block sits in its parent: rows/columns before it and after it.
#[derive(Clone, Copy, Debug)]
struct Layout {
    r0: usize,
    c0: usize,
    pr: usize,
    pc: usize,
}

fn layout() -> impl Strategy<Value = Layout> {
    (0usize..3, 0usize..3, 0usize..4, 0usize..2).prop_map(|(r0, c0, pr, pc)| Layout {
        r0,
        c0,
        pr,
        pc,
    })
}

/// A strided vector's placement: (offset, increment).
fn vec_place() -> impl Strategy<Value = (usize, isize)> {
    (0usize..3, signed_inc())
}

/// A coefficient: 0 (1 in 5), 1 (1 in 5) or random in [-2, 2]².
fn coef() -> impl Strategy<Value = (f64, f64)> {
    prop_oneof![
        1 => Just((0.0, 0.0)),
        1 => Just((1.0, 0.0)),
        3 => (-2.0f64..2.0, -2.0f64..2.0),
    ]
}

fn scalar<T: Scalar>((re, im): (f64, f64)) -> T {
    T::from_parts(
        <T::Real as Scalar>::from_f64(re),
        <T::Real as Scalar>::from_f64(im),
    )
}

fn nan<T: Scalar>() -> T {
    T::from_parts(T::Real::nan(), T::Real::nan())
}

/// Bit-for-bit equality (NaN payloads and signed zeros included).
fn same_bits<T: Scalar>(a: T, b: T) -> bool {
    let (a, b) = (c64(a), c64(b));
    a.re.to_bits() == b.re.to_bits() && a.im.to_bits() == b.im.to_bits()
}

fn opc(v: C64, trans: Trans) -> C64 {
    if trans == Trans::C {
        v.conj()
    } else {
        v
    }
}

/// A parent element after an operation: (block-relative `(i, j)` or `None`, before, after).
type Cell<T> = (Option<(usize, usize)>, T, T);

/// A `rows × cols` block, placed by a [`Layout`], of a parent matrix (`ld` = parent rows) whose
/// other elements are NaN (`nan_outside`: reading them shows in the results) or random finite
/// values (an update writing them shows even when it adds to them).
struct Padded<T: Scalar> {
    big: DeviceMatrix<T>,
    raw: Vec<T>,
    ld: usize,
    l: Layout,
    rows: usize,
    cols: usize,
}

impl<T: Scalar> Padded<T> {
    /// `fill(i, j)` gives block element `(i, j)`.
    fn new(
        dev: &Device,
        rows: usize,
        cols: usize,
        l: Layout,
        nan_outside: bool,
        fill: impl Fn(usize, usize) -> T,
    ) -> Self {
        let (pr, pc) = (l.r0 + rows + l.pr, l.c0 + cols + l.pc);
        let ld = pr.max(1);
        let mut raw = if nan_outside {
            vec![nan::<T>(); ld * pc]
        } else {
            random_values::<T>(ld * pc, 0x5eed)
        };
        for j in 0..cols {
            for i in 0..rows {
                raw[l.r0 + i + (l.c0 + j) * ld] = fill(i, j);
            }
        }
        let big = DeviceMatrix::from_col_major(dev, pr, pc, ld, raw.clone()).unwrap();
        Padded {
            big,
            raw,
            ld,
            l,
            rows,
            cols,
        }
    }

    fn at(&self, i: usize, j: usize) -> T {
        self.raw[self.l.r0 + i + (self.l.c0 + j) * self.ld]
    }

    fn block(&self) -> MatRef<'_, T> {
        self.big
            .block(self.l.r0, self.l.c0, self.rows, self.cols)
            .unwrap()
    }

    fn block_mut(&mut self) -> MatMut<'_, T> {
        self.big
            .block_mut(self.l.r0, self.l.c0, self.rows, self.cols)
            .unwrap()
    }

    /// Every parent element, before and after the operation.
    fn after(&self) -> Vec<Cell<T>> {
        let arr = self.big.to_array().unwrap();
        let mut out = Vec::with_capacity(arr.len());
        for ((pi, pj), &v) in arr.indexed_iter() {
            let inside = (self.l.r0..self.l.r0 + self.rows).contains(&pi)
                && (self.l.c0..self.l.c0 + self.cols).contains(&pj);
            let pos = inside.then(|| (pi - self.l.r0, pj - self.l.c0));
            out.push((pos, self.raw[pi + pj * self.ld], v));
        }
        out
    }
}

/// A strided vector of `n` random elements (or NaN ones when `nan_values`) at `off`, `inc`
/// in a buffer of random padding: (buffer, raw contents, logical elements).
fn strided<T: Scalar>(
    dev: &Device,
    n: usize,
    (off, inc): (usize, isize),
    seed: u64,
    nan_values: bool,
) -> (DeviceVec<T>, Vec<T>, Vec<T>) {
    let mut raw = random_values::<T>(span(off, n, inc).max(1), seed);
    if nan_values {
        for k in positions(n, off, inc) {
            raw[k] = nan();
        }
    }
    let logical = gather(&raw, off, n, inc);
    (DeviceVec::from_slice(dev, &raw).unwrap(), raw, logical)
}

/// Buffer positions of a strided vector's elements.
fn positions(n: usize, off: usize, inc: isize) -> HashSet<usize> {
    (0..n)
        .map(|i| {
            off + if inc > 0 {
                i * inc as usize
            } else {
                (n - 1 - i) * inc.unsigned_abs()
            }
        })
        .collect()
}

/// Checks that nothing but the view's elements changed in a vector buffer.
#[track_caller]
fn assert_padding_kept<T: Scalar>(
    what: &str,
    before: &[T],
    after: &[T],
    n: usize,
    off: usize,
    inc: isize,
) {
    let mine = positions(n, off, inc);
    for (k, (a, b)) in before.iter().zip(after).enumerate() {
        if !mine.contains(&k) {
            assert!(
                same_bits(*a, *b),
                "{what}: wrote outside the vector view at {k}"
            );
        }
    }
}

/// `y_i = α·Σ_j A_ij x_j + β·y_i` in complex f64 against `got`, with the per-element bound
/// `γ_k·(|α|·Σ|A_ij||x_j| + |β||y_i|)`. `a(i, j)` gives the effective `op(A)`.
#[track_caller]
fn check_mv<T: Scalar>(
    what: &str,
    m: usize,
    n: usize,
    a: impl Fn(usize, usize) -> C64,
    alpha: T,
    x: &[T],
    beta: T,
    y0: &[T],
    got: &[T],
) {
    let (al, be) = (c64(alpha), c64(beta));
    for i in 0..m {
        let mut s = C64::new(0.0, 0.0);
        let mut bound = 0.0;
        for (j, &xj) in x.iter().enumerate().take(n) {
            s += a(i, j) * c64(xj);
            bound += a(i, j).norm() * c64(xj).norm();
        }
        let mut want = al * s;
        let mut tol = al.norm() * bound;
        if be != C64::new(0.0, 0.0) {
            want += be * c64(y0[i]);
            tol += be.norm() * c64(y0[i]).norm();
        }
        assert_close(
            &format!("{what} i={i}"),
            c64(got[i]),
            want,
            gamma::<T>(n) * tol,
        );
    }
}

fn check_gemv<T: Scalar>(dev: &Device) {
    runner()
        .run(
            &(
                dim(),
                dim(),
                layout(),
                vec_place(),
                vec_place(),
                coef(),
                coef(),
                any::<u64>(),
            ),
            |(m, n, l, px, py, ca, cb, seed)| {
                let (alpha, beta) = (scalar::<T>(ca), scalar::<T>(cb));
                let vals = random_values::<T>(m * n, seed);
                let a = Padded::new(dev, m, n, l, true, |i, j| vals[i + j * m]);
                for trans in TRANS {
                    let (rm, rn) = if trans == Trans::N { (m, n) } else { (n, m) };
                    let (xb, _, x) = strided::<T>(dev, rn, px, seed ^ 1, false);
                    let zero_beta = beta == T::zero();
                    let (mut yb, yraw, y0) = strided::<T>(dev, rm, py, seed ^ 2, zero_beta);
                    blas2::gemv(
                        trans,
                        alpha,
                        a.block(),
                        xb.strided(px.0, rn, px.1).unwrap(),
                        beta,
                        yb.strided_mut(py.0, rm, py.1).unwrap(),
                    )
                    .unwrap();
                    let after = yb.to_vec().unwrap();
                    let y = gather(&after, py.0, rm, py.1);
                    let what = format!("gemv {trans:?} {m}x{n} incs=({},{}) {l:?}", px.1, py.1);
                    let op = |i: usize, j: usize| match trans {
                        Trans::N => c64(a.at(i, j)),
                        _ => opc(c64(a.at(j, i)), trans),
                    };
                    check_mv(&what, rm, rn, op, alpha, &x, beta, &y0, &y);
                    assert_padding_kept(&what, &yraw, &after, rm, py.0, py.1);
                }
                Ok(())
            },
        )
        .unwrap();
}

fn check_ger<T: Scalar>(dev: &Device) {
    runner()
        .run(
            &(
                dim(),
                dim(),
                layout(),
                vec_place(),
                vec_place(),
                coef(),
                any::<u64>(),
            ),
            |(m, n, l, px, py, ca, seed)| {
                let alpha = scalar::<T>(ca);
                let vals = random_values::<T>(m * n, seed);
                let (xb, _, x) = strided::<T>(dev, m, px, seed ^ 1, false);
                let (yb, _, y) = strided::<T>(dev, n, py, seed ^ 2, false);
                for (name, conj) in [("ger", false), ("geru", false), ("gerc", true)] {
                    let mut a = Padded::new(dev, m, n, l, false, |i, j| vals[i + j * m]);
                    let (xv, yv) = (
                        xb.strided(px.0, m, px.1).unwrap(),
                        yb.strided(py.0, n, py.1).unwrap(),
                    );
                    match name {
                        "ger" => blas2::ger(alpha, xv, yv, a.block_mut()),
                        "geru" => blas2::geru(alpha, xv, yv, a.block_mut()),
                        _ => blas2::gerc(alpha, xv, yv, a.block_mut()),
                    }
                    .unwrap();
                    for (pos, before, after) in a.after() {
                        let what =
                            format!("{name} {m}x{n} incs=({},{}) {l:?} at {pos:?}", px.1, py.1);
                        match pos {
                            None => {
                                assert!(same_bits(before, after), "{what}: wrote outside the block")
                            }
                            Some((i, j)) => {
                                let yj = if conj { c64(y[j]).conj() } else { c64(y[j]) };
                                let p = c64(alpha) * c64(x[i]) * yj;
                                let tol = gamma::<T>(2) * (c64(before).norm() + p.norm());
                                assert_close(&what, c64(after), c64(before) + p, tol);
                            }
                        }
                    }
                }
                Ok(())
            },
        )
        .unwrap();
}

/// Whether `(i, j)` is in the `uplo` triangle (diagonal included).
fn in_tri(uplo: Uplo, i: usize, j: usize) -> bool {
    match uplo {
        Uplo::Upper => i <= j,
        Uplo::Lower => i >= j,
    }
}

/// A random `n × n` block whose other triangle and surroundings are NaN when `nan_other`
/// (random otherwise); for `herm` the diagonal's imaginary parts are NaN (complex types).
fn sym_matrix<T: Scalar>(
    dev: &Device,
    n: usize,
    l: Layout,
    (uplo, herm): (Uplo, bool),
    nan_other: bool,
    seed: u64,
) -> Padded<T> {
    let vals = random_values::<T>(n * n, seed);
    Padded::new(dev, n, n, l, nan_other, |i, j| {
        let v = vals[i + j * n];
        if !in_tri(uplo, i, j) && nan_other {
            nan()
        } else if !in_tri(uplo, i, j) {
            v
        } else if herm && i == j {
            T::from_parts(v.re(), T::Real::nan())
        } else {
            v
        }
    })
}

/// The full symmetric/Hermitian matrix the `uplo` triangle of `a` stands for.
fn sym_full<T: Scalar>(a: &Padded<T>, uplo: Uplo, herm: bool, i: usize, j: usize) -> C64 {
    if i == j && herm {
        C64::new(c64(a.at(i, i)).re, 0.0)
    } else if in_tri(uplo, i, j) {
        c64(a.at(i, j))
    } else if herm {
        c64(a.at(j, i)).conj()
    } else {
        c64(a.at(j, i))
    }
}

fn check_symv<T: Scalar>(dev: &Device) {
    runner()
        .run(
            &(
                dim(),
                layout(),
                vec_place(),
                vec_place(),
                coef(),
                coef(),
                any::<u64>(),
            ),
            |(n, l, px, py, ca, cb, seed)| {
                let (alpha, beta) = (scalar::<T>(ca), scalar::<T>(cb));
                let (xb, _, x) = strided::<T>(dev, n, px, seed ^ 1, false);
                for uplo in UPLO {
                    for herm in [false, true] {
                        let a = sym_matrix::<T>(dev, n, l, (uplo, herm), true, seed);
                        let (mut yb, yraw, y0) =
                            strided::<T>(dev, n, py, seed ^ 2, beta == T::zero());
                        let (xv, yv) = (
                            xb.strided(px.0, n, px.1).unwrap(),
                            yb.strided_mut(py.0, n, py.1).unwrap(),
                        );
                        if herm {
                            blas2::hemv(uplo, alpha, a.block(), xv, beta, yv)
                        } else {
                            blas2::symv(uplo, alpha, a.block(), xv, beta, yv)
                        }
                        .unwrap();
                        let after = yb.to_vec().unwrap();
                        let y = gather(&after, py.0, n, py.1);
                        let what = format!(
                            "{} {uplo:?} n={n} incs=({},{}) {l:?}",
                            if herm { "hemv" } else { "symv" },
                            px.1,
                            py.1
                        );
                        check_mv(
                            &what,
                            n,
                            n,
                            |i, j| sym_full(&a, uplo, herm, i, j),
                            alpha,
                            &x,
                            beta,
                            &y0,
                            &y,
                        );
                        assert_padding_kept(&what, &yraw, &after, n, py.0, py.1);
                    }
                }
                Ok(())
            },
        )
        .unwrap();
}

fn check_syr<T: Scalar>(dev: &Device) {
    runner()
        .run(
            &(dim(), layout(), vec_place(), coef(), any::<u64>()),
            |(n, l, px, ca, seed)| {
                let (xb, _, x) = strided::<T>(dev, n, px, seed ^ 1, false);
                for uplo in UPLO {
                    for herm in [false, true] {
                        let mut a = sym_matrix::<T>(dev, n, l, (uplo, herm), false, seed);
                        let xv = xb.strided(px.0, n, px.1).unwrap();
                        let alpha = if herm {
                            let r = <T::Real as Scalar>::from_f64(ca.0);
                            blas2::her(uplo, r, xv, a.block_mut()).unwrap();
                            T::from_real(r)
                        } else {
                            let s = scalar::<T>(ca);
                            blas2::syr(uplo, s, xv, a.block_mut()).unwrap();
                            s
                        };
                        let name = if herm { "her" } else { "syr" };
                        for (pos, before, after) in a.after() {
                            let what =
                                format!("{name} {uplo:?} n={n} inc={} {l:?} at {pos:?}", px.1);
                            match pos {
                                Some((i, j)) if in_tri(uplo, i, j) => {
                                    let xj = if herm { c64(x[j]).conj() } else { c64(x[j]) };
                                    let p = c64(alpha) * c64(x[i]) * xj;
                                    let mut b = c64(before);
                                    if herm && i == j {
                                        b.im = 0.0;
                                        assert!(
                                            c64(after).im == 0.0,
                                            "{what}: imaginary part of the diagonal kept"
                                        );
                                    }
                                    let tol = gamma::<T>(2) * (b.norm() + p.norm());
                                    assert_close(&what, c64(after), b + p, tol);
                                }
                                _ => assert!(
                                    same_bits(before, after),
                                    "{what}: wrote outside the triangle"
                                ),
                            }
                        }
                    }
                }
                Ok(())
            },
        )
        .unwrap();
}

/// A well-conditioned triangular block: off-diagonal entries in [-½, ½] (scaled by 1/(n+1)
/// for a unit diagonal), diagonal of modulus n + 1 (NaN when unit: it must not be read); the
/// other triangle NaN.
fn tri_matrix<T: Scalar>(
    dev: &Device,
    n: usize,
    l: Layout,
    uplo: Uplo,
    diag: Diag,
    seed: u64,
) -> Padded<T> {
    let vals = random_values::<T>(n * n, seed);
    let scale = if diag == Diag::Unit {
        0.5 / (n as f64 + 1.0)
    } else {
        0.5
    };
    let sc = <T::Real as Scalar>::from_f64(scale);
    Padded::new(dev, n, n, l, true, |i, j| {
        let v = vals[i + j * n];
        if !in_tri(uplo, i, j) {
            nan()
        } else if i == j {
            match diag {
                Diag::Unit => nan(),
                Diag::NonUnit => {
                    let c = c64(v);
                    let d = c / c.norm() * (n as f64 + 1.0);
                    T::from_parts(
                        <T::Real as Scalar>::from_f64(d.re),
                        <T::Real as Scalar>::from_f64(d.im),
                    )
                }
            }
        } else {
            T::from_parts(v.re() * sc, v.im() * sc)
        }
    })
}

/// Residual check of `op(A)·x = b`: `|op(A)·x − b|_i ≤ 2γ_n·(Σ_j |op(A)_ij||x_j| + |b_i|)`.
#[track_caller]
fn check_trsv_result<T: Scalar>(
    what: &str,
    a: &Padded<T>,
    uplo: Uplo,
    trans: Trans,
    diag: Diag,
    b: &[T],
    x: &[T],
) {
    let n = b.len();
    let op = |i: usize, j: usize| -> C64 {
        let (r, c) = if trans == Trans::N { (i, j) } else { (j, i) };
        if r == c && diag == Diag::Unit {
            C64::new(1.0, 0.0)
        } else if in_tri(uplo, r, c) {
            opc(c64(a.at(r, c)), trans)
        } else {
            C64::new(0.0, 0.0)
        }
    };
    for (i, &bi) in b.iter().enumerate() {
        let mut s = -c64(bi);
        let mut bound = c64(bi).norm();
        for (j, &xj) in x.iter().enumerate() {
            let aij = op(i, j);
            if aij != C64::new(0.0, 0.0) {
                s += aij * c64(xj);
                bound += aij.norm() * c64(xj).norm();
            }
        }
        assert_close(
            &format!("{what} row {i}"),
            s,
            C64::new(0.0, 0.0),
            2.0 * gamma::<T>(n) * bound,
        );
    }
}

fn check_trsv<T: Scalar>(dev: &Device) {
    runner()
        .run(
            &(dim(), layout(), vec_place(), any::<u64>()),
            |(n, l, px, seed)| {
                for uplo in UPLO {
                    for diag in DIAG {
                        let a = tri_matrix::<T>(dev, n, l, uplo, diag, seed);
                        for trans in TRANS {
                            let (mut xb, xraw, b) = strided::<T>(dev, n, px, seed ^ 3, false);
                            blas2::trsv(
                                uplo,
                                trans,
                                diag,
                                a.block(),
                                xb.strided_mut(px.0, n, px.1).unwrap(),
                            )
                            .unwrap();
                            let after = xb.to_vec().unwrap();
                            let x = gather(&after, px.0, n, px.1);
                            let what = format!(
                                "trsv {uplo:?} {trans:?} {diag:?} n={n} inc={} {l:?}",
                                px.1
                            );
                            check_trsv_result(&what, &a, uplo, trans, diag, &b, &x);
                            assert_padding_kept(&what, &xraw, &after, n, px.0, px.1);
                        }
                    }
                }
                Ok(())
            },
        )
        .unwrap();
}

/// Sizes past the CPU backend's parallel thresholds (including the blocked triangular solve's
/// parallel updates), with a bit-for-bit rerun check on the CPU.
fn check_large<T: Scalar>(dev: &Device) {
    let (m, n) = (700, 650);
    let l = Layout {
        r0: 1,
        c0: 2,
        pr: 3,
        pc: 1,
    };
    let (alpha, beta) = (scalar::<T>((0.75, -0.5)), scalar::<T>((-1.25, 0.25)));
    let vals = random_values::<T>(m * n, 11);
    let a = Padded::new(dev, m, n, l, true, |i, j| vals[i + j * m]);
    for trans in TRANS {
        let (rm, rn) = if trans == Trans::N { (m, n) } else { (n, m) };
        let (xb, _, x) = strided::<T>(dev, rn, (1, -2), 12, false);
        let (yb, _, y0) = strided::<T>(dev, rm, (0, 3), 13, false);
        let run = || {
            let mut yb = yb.try_clone().unwrap();
            blas2::gemv(
                trans,
                alpha,
                a.block(),
                xb.strided(1, rn, -2).unwrap(),
                beta,
                yb.strided_mut(0, rm, 3).unwrap(),
            )
            .unwrap();
            gather(&yb.to_vec().unwrap(), 0, rm, 3)
        };
        let y = run();
        let op = |i: usize, j: usize| match trans {
            Trans::N => c64(a.at(i, j)),
            _ => opc(c64(a.at(j, i)), trans),
        };
        check_mv(
            &format!("large gemv {trans:?}"),
            rm,
            rn,
            op,
            alpha,
            &x,
            beta,
            &y0,
            &y,
        );
        if dev.is_cpu() {
            assert!(
                y.iter().zip(run()).all(|(a, b)| same_bits(*a, b)),
                "gemv not deterministic"
            );
        }
    }
    let (xb, _, x) = strided::<T>(dev, m, (0, 1), 14, false);
    for uplo in UPLO {
        for herm in [false, true] {
            let a = sym_matrix::<T>(dev, m, l, (uplo, herm), true, 15);
            let (yb, _, y0) = strided::<T>(dev, m, (2, -1), 16, false);
            let run = || {
                let mut yb = yb.try_clone().unwrap();
                let (xv, yv) = (xb.view(), yb.strided_mut(2, m, -1).unwrap());
                if herm {
                    blas2::hemv(uplo, alpha, a.block(), xv, beta, yv).unwrap();
                } else {
                    blas2::symv(uplo, alpha, a.block(), xv, beta, yv).unwrap();
                }
                gather(&yb.to_vec().unwrap(), 2, m, -1)
            };
            let y = run();
            let what = format!("large symv {uplo:?} herm={herm}");
            check_mv(
                &what,
                m,
                m,
                |i, j| sym_full(&a, uplo, herm, i, j),
                alpha,
                &x,
                beta,
                &y0,
                &y,
            );
            if dev.is_cpu() {
                assert!(
                    y.iter().zip(run()).all(|(a, b)| same_bits(*a, b)),
                    "{what}: not deterministic"
                );
            }
        }
        for diag in DIAG {
            let a = tri_matrix::<T>(dev, m, l, uplo, diag, 17);
            for trans in TRANS {
                let run = || {
                    let mut xb = xb.try_clone().unwrap();
                    blas2::trsv(uplo, trans, diag, a.block(), xb.view_mut()).unwrap();
                    xb.to_vec().unwrap()
                };
                let got = run();
                let what = format!("large trsv {uplo:?} {trans:?} {diag:?}");
                check_trsv_result(&what, &a, uplo, trans, diag, &x, &got);
                if dev.is_cpu() {
                    assert!(
                        got.iter().zip(run()).all(|(a, b)| same_bits(*a, b)),
                        "{what}: not deterministic"
                    );
                }
            }
        }
    }
    // Rank-1 updates of a large block: spot checks of the result, the rest is the props' job.
    let (yb, _, y) = strided::<T>(dev, n, (0, 2), 18, false);
    let mut g = Padded::new(dev, m, n, l, false, |i, j| vals[i + j * m]);
    blas2::gerc(
        alpha,
        xb.view(),
        yb.strided(0, n, 2).unwrap(),
        g.block_mut(),
    )
    .unwrap();
    for (pos, before, after) in g.after() {
        match pos {
            None => assert!(
                same_bits(before, after),
                "large gerc wrote outside the block"
            ),
            Some((i, j)) => {
                let p = c64(alpha) * c64(x[i]) * c64(y[j]).conj();
                assert_close(
                    "large gerc",
                    c64(after),
                    c64(before) + p,
                    gamma::<T>(2) * (c64(before).norm() + p.norm()),
                );
            }
        }
    }
}

fn check_errors<T: Scalar>(dev: &Device) {
    let dims =
        |r: Result<(), Error>| assert!(matches!(r, Err(Error::DimensionMismatch { .. })), "{r:?}");
    let rect = DeviceMatrix::<T>::zeros(dev, 3, 2).unwrap();
    let mut rect_m = DeviceMatrix::<T>::zeros(dev, 3, 2).unwrap();
    let sq = DeviceMatrix::<T>::zeros(dev, 3, 3).unwrap();
    let mut sq_m = DeviceMatrix::<T>::zeros(dev, 3, 3).unwrap();
    let v2 = DeviceVec::<T>::zeros(dev, 2).unwrap();
    let v3 = DeviceVec::<T>::zeros(dev, 3).unwrap();
    let mut w2 = DeviceVec::<T>::zeros(dev, 2).unwrap();
    let mut w3 = DeviceVec::<T>::zeros(dev, 3).unwrap();
    let (one, zero) = (T::one(), T::zero());

    // gemv: x has cols(op(A)), y rows(op(A)) elements.
    blas2::gemv(Trans::N, one, &rect, &v2, zero, &mut w3).unwrap();
    blas2::gemv(Trans::T, one, &rect, &v3, zero, &mut w2).unwrap();
    dims(blas2::gemv(Trans::N, one, &rect, &v3, zero, &mut w3));
    dims(blas2::gemv(Trans::N, one, &rect, &v2, zero, &mut w2));
    dims(blas2::gemv(Trans::C, one, &rect, &v2, zero, &mut w2));
    dims(blas2::gemv(Trans::T, one, &rect, &v3, zero, &mut w3));
    // ger: x has rows(A), y cols(A) elements.
    blas2::ger(one, &v3, &v2, &mut rect_m).unwrap();
    dims(blas2::ger(one, &v2, &v2, &mut rect_m));
    dims(blas2::geru(one, &v3, &v3, &mut rect_m));
    dims(blas2::gerc(one, &v2, &v3, &mut rect_m));
    // Square matrices only.
    for uplo in UPLO {
        dims(blas2::symv(uplo, one, &rect, &v3, zero, &mut w3));
        dims(blas2::hemv(uplo, one, &rect, &v3, zero, &mut w3));
        dims(blas2::symv(uplo, one, &sq, &v2, zero, &mut w3));
        dims(blas2::hemv(uplo, one, &sq, &v3, zero, &mut w2));
        dims(blas2::syr(uplo, one, &v3, &mut rect_m));
        dims(blas2::her(uplo, T::Real::one(), &v3, &mut rect_m));
        dims(blas2::syr(uplo, one, &v2, &mut sq_m));
        dims(blas2::her(uplo, T::Real::one(), &v2, &mut sq_m));
        for trans in TRANS {
            for diag in DIAG {
                dims(blas2::trsv(uplo, trans, diag, &rect, &mut w3));
                dims(blas2::trsv(uplo, trans, diag, &sq, &mut w2));
            }
        }
    }
    // Operands on two devices.
    if dev.is_cuda() {
        let cpu = Device::cpu();
        let devs =
            |r: Result<(), Error>| assert!(matches!(r, Err(Error::DeviceMismatch { .. })), "{r:?}");
        let h3 = DeviceVec::<T>::zeros(&cpu, 3).unwrap();
        let mut hw3 = DeviceVec::<T>::zeros(&cpu, 3).unwrap();
        let hsq = DeviceMatrix::<T>::zeros(&cpu, 3, 3).unwrap();
        devs(blas2::gemv(Trans::N, one, &sq, &h3, zero, &mut w3));
        devs(blas2::gemv(Trans::N, one, &sq, &v3, zero, &mut hw3));
        devs(blas2::gemv(Trans::N, one, &hsq, &v3, zero, &mut w3));
        devs(blas2::ger(one, &h3, &v3, &mut sq_m));
        devs(blas2::gerc(one, &v3, &h3, &mut sq_m));
        devs(blas2::symv(Uplo::Upper, one, &sq, &h3, zero, &mut w3));
        devs(blas2::hemv(Uplo::Lower, one, &hsq, &v3, zero, &mut w3));
        devs(blas2::syr(Uplo::Upper, one, &h3, &mut sq_m));
        devs(blas2::her(Uplo::Lower, T::Real::one(), &h3, &mut sq_m));
        devs(blas2::trsv(
            Uplo::Upper,
            Trans::N,
            Diag::NonUnit,
            &hsq,
            &mut w3,
        ));
        devs(blas2::trsv(
            Uplo::Lower,
            Trans::T,
            Diag::Unit,
            &sq,
            &mut hw3,
        ));
    }
}

gpu_blas::device_tests! {
    fn gemv_all(dev) { for_all_types!(check_gemv, dev); }
    fn ger_geru_gerc(dev) { for_all_types!(check_ger, dev); }
    fn symv_hemv(dev) { for_all_types!(check_symv, dev); }
    fn syr_her(dev) { for_all_types!(check_syr, dev); }
    fn trsv_all(dev) { for_all_types!(check_trsv, dev); }
    fn large_and_deterministic(dev) { for_all_types!(check_large, dev); }
    fn typed_errors(dev) { for_all_types!(check_errors, dev); }
}

/// Shapes large enough for the GPU's split and tile strategies (column splits with a last-block
/// reduction, narrow row tiles, row splits for transposed products, paired columns, odd `n`).
fn gemv_split_shapes<T: Scalar>(dev: &Device) {
    use gpu_blas::blas2::{gemv, Trans};
    for &(m, n) in &[
        (100_000usize, 23usize),
        (8192, 64),
        (3000, 3001),
        (64, 20_000),
    ] {
        let vals = random_values::<T>(m * n, (m + n) as u64);
        let a = DeviceMatrix::from_col_major(dev, m, n, m, vals.clone()).unwrap();
        for trans in [Trans::N, Trans::T, Trans::C] {
            let (rows, cols) = if trans == Trans::N { (m, n) } else { (n, m) };
            let xs = random_values::<T>(cols, 3);
            let ys = random_values::<T>(rows, 4);
            let x = DeviceVec::from_slice(dev, &xs).unwrap();
            let mut y = DeviceVec::from_slice(dev, &ys).unwrap();
            let (alpha, beta) = (T::from_f64(0.75), T::from_f64(-0.5));
            gemv(trans, alpha, &a, &x, beta, &mut y).unwrap();
            let got = y.to_vec().unwrap();
            for i in (0..rows).step_by((rows / 257).max(1)).chain([rows - 1]) {
                let (mut s, mut bound) = (num_complex::Complex64::new(0.0, 0.0), 0.0);
                for j in 0..cols {
                    let aij = match trans {
                        Trans::N => c64(vals[i + j * m]),
                        Trans::T => c64(vals[j + i * m]),
                        Trans::C => c64(vals[j + i * m]).conj(),
                    };
                    s += aij * c64(xs[j]);
                    bound += aij.norm() * c64(xs[j]).norm();
                }
                let want = c64(alpha) * s + c64(beta) * c64(ys[i]);
                let tol = gamma::<T>(cols)
                    * (c64(alpha).norm() * bound + c64(beta).norm() * c64(ys[i]).norm());
                assert_close(
                    &format!("gemv {trans:?} {m}x{n} row {i}"),
                    c64(got[i]),
                    want,
                    tol,
                );
            }
        }
    }
}

fn gemv_split_all(dev: &Device) {
    gemv_split_shapes::<f64>(dev);
    gemv_split_shapes::<num_complex::Complex32>(dev);
}

gpu_blas::device_tests! {
    fn gemv_large_shapes(dev) { gemv_split_all(dev); }
}

/// syr/her on sizes spanning many row tiles (the GPU pairs columns j and n-1-j): every entry of
/// the referenced triangle against a host reference, the other triangle untouched.
fn syr_many_tiles<T: Scalar>(dev: &Device) {
    for &n in &[3001usize, 2048] {
        for uplo in [Uplo::Lower, Uplo::Upper] {
            let vals = random_values::<T>(n * n, n as u64);
            let xs = random_values::<T>(n, 9);
            let mut a = DeviceMatrix::from_col_major(dev, n, n, n, vals.clone()).unwrap();
            let x = DeviceVec::from_slice(dev, &xs).unwrap();
            let alpha = 0.625f64;
            if T::IS_COMPLEX {
                blas2::her(uplo, <T::Real as Scalar>::from_f64(alpha), &x, &mut a).unwrap();
            } else {
                blas2::syr(uplo, T::from_f64(alpha), &x, &mut a).unwrap();
            }
            let got = a.to_array().unwrap();
            for j in 0..n {
                for i in 0..n {
                    let inside = if uplo == Uplo::Lower { i >= j } else { i <= j };
                    let old = vals[i + j * n];
                    if !inside {
                        assert_eq!(
                            got[[i, j]],
                            old,
                            "n={n} {uplo:?}: ({i},{j}) outside the triangle changed"
                        );
                        continue;
                    }
                    let mut want = c64(old) + alpha * c64(xs[i]) * c64(xs[j]).conj();
                    if i == j && T::IS_COMPLEX {
                        want.im = 0.0;
                    }
                    if !T::IS_COMPLEX {
                        want = c64(old) + alpha * c64(xs[i]) * c64(xs[j]);
                    }
                    let tol = 4.0
                        * eps::<T>()
                        * (c64(old).norm() + alpha * c64(xs[i]).norm() * c64(xs[j]).norm());
                    assert_close(
                        &format!("syr/her n={n} {uplo:?} ({i},{j})"),
                        c64(got[[i, j]]),
                        want,
                        tol,
                    );
                }
            }
        }
    }
}

fn syr_many_tiles_all(dev: &Device) {
    syr_many_tiles::<f64>(dev);
    syr_many_tiles::<f32>(dev);
    syr_many_tiles::<C64>(dev);
}

gpu_blas::device_tests! {
    fn syr_her_many_tiles(dev) { syr_many_tiles_all(dev); }
}

/// symv/hemv at sizes where the GPU takes its packed paths with masked diagonal packs: NaN in
/// the unreferenced triangle (and in the imaginary part of a Hermitian diagonal) must not leak.
/// A contiguous `x` takes the one-pass tile kernel (partial tiles at the odd sizes), an `x` with
/// increment 2 the two passes over the triangle; both are checked.
fn symv_packed<T: Scalar>(dev: &Device) {
    for &n in &[2048usize, 1537, 1, 3, 65, 130, 600] {
        for uplo in [Uplo::Lower, Uplo::Upper] {
            let mut vals = random_values::<T>(n * n, n as u64 + 1);
            let nan = T::from_f64(f64::NAN);
            for j in 0..n {
                for i in 0..n {
                    let outside = if uplo == Uplo::Lower { i < j } else { i > j };
                    if outside {
                        vals[i + j * n] = nan;
                    } else if i == j && T::IS_COMPLEX {
                        let d = vals[i + j * n];
                        vals[i + j * n] =
                            T::from_parts(d.re(), <T::Real as Scalar>::from_f64(f64::NAN));
                    }
                }
            }
            let a = DeviceMatrix::from_col_major(dev, n, n, n, vals.clone()).unwrap();
            let xs = random_values::<T>(n, 5);
            let x = DeviceVec::from_slice(dev, &xs).unwrap();
            let spread: Vec<T> = xs.iter().flat_map(|&v| [v, T::zero()]).collect();
            let x2 = DeviceVec::from_slice(dev, &spread).unwrap();
            let mut y = DeviceVec::<T>::zeros(dev, n).unwrap();
            let mut y2 = DeviceVec::<T>::zeros(dev, n).unwrap();
            let xv2 = x2.strided(0, n, 2).unwrap();
            if T::IS_COMPLEX {
                blas2::hemv(uplo, T::one(), &a, &x, T::zero(), &mut y).unwrap();
                blas2::hemv(uplo, T::one(), &a, xv2, T::zero(), &mut y2).unwrap();
            } else {
                blas2::symv(uplo, T::one(), &a, &x, T::zero(), &mut y).unwrap();
                blas2::symv(uplo, T::one(), &a, xv2, T::zero(), &mut y2).unwrap();
            }
            let (got, got2) = (y.to_vec().unwrap(), y2.to_vec().unwrap());
            for i in (0..n).step_by(7).chain([n - 1]) {
                let (mut s, mut bound) = (C64::new(0.0, 0.0), 0.0);
                for j in 0..n {
                    let stored = if uplo == Uplo::Lower { i >= j } else { i <= j };
                    let aij = if i == j {
                        C64::new(c64(vals[i + i * n]).re, 0.0)
                    } else if stored {
                        c64(vals[i + j * n])
                    } else {
                        c64(vals[j + i * n]).conj()
                    };
                    s += aij * c64(xs[j]);
                    bound += aij.norm() * c64(xs[j]).norm();
                }
                for (path, g) in [("contiguous x", &got), ("x increment 2", &got2)] {
                    assert_close(
                        &format!("symv/hemv n={n} {uplo:?} {path} row {i}"),
                        c64(g[i]),
                        s,
                        gamma::<T>(n) * bound,
                    );
                }
            }
        }
    }
}

fn symv_packed_all(dev: &Device) {
    symv_packed::<f64>(dev);
    symv_packed::<f32>(dev);
    symv_packed::<C64>(dev);
    symv_packed::<Complex32>(dev);
}

gpu_blas::device_tests! {
    fn symv_hemv_packed_paths(dev) { symv_packed_all(dev); }
}
