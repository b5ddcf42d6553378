//! `inverse` with every method, `Method::Auto` choices, rcond estimates against the exact
//! value, flagging of ill-conditioned input, determinants, and agreement between methods.

use crate::common::*;
use dense_inverse::{
    cholesky_factor, cholesky_rcond, determinant, hermitian_norm1, inverse, lu_factor, lu_rcond,
    norm1, Bordering, Error, Method,
};
use gpu_blas::blas2::Uplo;
use gpu_blas::Scalar;
use num_complex::Complex64 as C64;
use num_traits::ToPrimitive;

/// Exact `1/(‖A‖₁·‖A⁻¹‖₁)` from a Complex64 inverse.
fn rcond_exact(n: usize, a: &[C64], x: &[C64]) -> f64 {
    let n1 = |m: &[C64]| {
        (0..n)
            .map(|j| (0..n).map(|i| m[j * n + i].norm()).sum::<f64>())
            .fold(0.0, f64::max)
    };
    1.0 / (n1(a) * n1(x))
}

/// `a` with `a(i, j)` scaled by `1 + 2⁻²⁰`, so `a(i, j) ≠ conj(a(j, i))`.
fn nearly_hermitian<T: Scalar>(n: usize, mut a: Vec<T>, i: usize, j: usize) -> Vec<T> {
    a[j * n + i] *= T::from_f64(1.0 + 2f64.powi(-20));
    a
}

fn auto_choices<T: Scalar>(dev: &gpu_blas::Device) {
    let n = 80;
    // Positive definite input: Cholesky on the CPU, blocked bordering on a GPU.
    let spd_method = if dev.is_cuda() {
        Method::Bordering(Uplo::Lower, Bordering::Blocked(256))
    } else {
        Method::Cholesky(Uplo::Lower)
    };
    // Otherwise Gauss-Jordan on the CPU, LU on a GPU at this order.
    let general_method = if dev.is_cuda() {
        Method::Lu
    } else {
        Method::GaussJordan
    };
    let cases = [
        ("spd", spd::<T>(n, 1), spd_method),
        (
            "indefinite",
            hermitian_indefinite::<T>(n, 2),
            general_method,
        ),
        ("general", general::<T>(n, 3), general_method),
        // Positive definite but for one pair of entries that are not conjugate (row 70,
        // column 5: another 32 × 32 tile than the diagonal ones): not Hermitian.
        (
            "spd, one entry off",
            nearly_hermitian(n, spd::<T>(n, 4), 70, 5),
            general_method,
        ),
    ];
    for (kind, a, want) in cases {
        let ad = upload(dev, n, &a);
        let inv = inverse(&ad, Method::Auto);
        let inv = inv.unwrap();
        assert_eq!(inv.method_used, want, "{kind}");
        assert!(
            !inv.is_ill_conditioned() && inv.warning().is_none(),
            "{kind}"
        );
        let x = download(&inv.matrix);
        assert_inverse(n, &a, &x, kind);
        // Every method reports the exact rcond of the computed inverse.
        let exact = rcond_exact(n, &c64(&a), &c64(&x));
        let got = inv.rcond.to_f64().unwrap();
        assert!(inv.rcond_exact, "{kind}: rcond reported as an estimate");
        assert!(
            (got - exact).abs() <= 1e-3 * exact,
            "{kind}: rcond {got} vs {exact}"
        );
    }
}

/// Hermitian with a positive diagonal whose first non-positive bordering pivot comes late:
/// row and column `late` copy row and column 10 over the leading block (so the leading
/// `late × late` block is singular in exact arithmetic without the diagonal change) and the
/// diagonal entry is `(1 − 1e-2)·a(10, 10)`, so the pivot of step `late + 1` is
/// `β = −1e-2·a(10, 10)`: negative, far from the breakdown threshold.
fn late_negative_pivot<T: Scalar>(n: usize, late: usize) -> Vec<T> {
    let mut a = c64(&spd::<T>(n, 21));
    for j in 0..late {
        let v = a[j * n + 10];
        a[j * n + late] = v;
        a[late * n + j] = v.conj();
    }
    a[late * n + late] = C64::new(a[10 * n + 10].re * (1.0 - 1e-2), 0.0);
    from_c64(&a)
}

fn auto_late_negative_pivot<T: Scalar>(dev: &gpu_blas::Device) {
    // Past the first 64-row leaf and the first 256-row step of the GPU's blocked bordering.
    let (n, late) = (300, 270);
    let a = late_negative_pivot::<T>(n, late);
    let ad = upload(dev, n, &a);
    let inv = inverse(&ad, Method::Auto).unwrap();
    let want = if dev.is_cuda() {
        Method::Lu
    } else {
        Method::GaussJordan
    };
    assert_eq!(inv.method_used, want, "indefinite with a positive diagonal");
    assert_inverse(n, &a, &download(&inv.matrix), "auto, late negative pivot");
    // Indefinite but not singular: the bordering methods invert it as it is.
    for v in [Bordering::Blocked(64), Bordering::Blocked(256)] {
        let x = inverse(&ad, Method::Bordering(Uplo::Upper, v)).unwrap();
        assert_inverse(
            n,
            &a,
            &download(&x.matrix),
            &format!("bordering {v:?}, late negative pivot"),
        );
    }
}

fn methods_agree<T: Scalar>(dev: &gpu_blas::Device) {
    let n = 96;
    let a = spd::<T>(n, 12);
    let ad = upload(dev, n, &a);
    let methods = [
        Method::Auto,
        Method::Lu,
        Method::Cholesky(Uplo::Upper),
        Method::GaussJordan,
        Method::Bordering(Uplo::Lower, Bordering::Unblocked),
        Method::Bordering(Uplo::Upper, Bordering::Blocked(32)),
    ];
    let r = inverse(&ad, Method::Lu);
    let reference = c64(&download(&r.unwrap().matrix));
    let xnorm = norm_inf(n, n, &reference);
    // Two backward-stable inverses differ by at most about κ·(their residual bounds).
    let kappa = norm_inf(n, n, &c64(&a)) * xnorm;
    for m in methods {
        let inv = inverse(&ad, m).unwrap();
        let x = c64(&download(&inv.matrix));
        let d: Vec<C64> = x.iter().zip(&reference).map(|(p, q)| p - q).collect();
        let rel = norm_inf(n, n, &d) / xnorm;
        let tol = 2.0 * c_eps::<T>() * n as f64 * kappa;
        assert!(
            rel <= tol,
            "{m:?} {}: relative difference {rel:e} > {tol:e}",
            T::PREFIX
        );
        let exact = rcond_exact(n, &c64(&a), &x);
        let got = inv.rcond.to_f64().unwrap();
        assert!(
            got >= exact * 0.99 && got <= 10.0 * exact,
            "{m:?}: rcond {got} vs {exact}"
        );
    }
}

fn ill_conditioned_is_flagged<T: Scalar>(dev: &gpu_blas::Device) {
    // Diagonal entries down to ε² (relative): rcond ≈ ε², far below ε.
    let n = 30;
    let eps = T::epsilon().to_f64().unwrap();
    let mut a = general::<T>(n, 4);
    for v in a[(n - 1) * n..].iter_mut() {
        *v *= T::from_f64(eps * eps);
    }
    let ad = upload(dev, n, &a);
    for m in [Method::Auto, Method::Lu, Method::GaussJordan] {
        let inv = inverse(&ad, m).unwrap();
        assert!(
            inv.is_ill_conditioned(),
            "{m:?}: rcond {} not flagged",
            inv.rcond
        );
        assert!(inv
            .warning()
            .unwrap()
            .contains("singular to working precision"));
    }
    // A nearly singular matrix of the LU tests (κ ≈ 1e10) is flagged in f32 only.
    let b = nearly_singular::<T>(n, 5);
    let bd = upload(dev, n, &b);
    match inverse(&bd, Method::Lu) {
        Ok(inv) => assert_eq!(inv.is_ill_conditioned(), eps > 1e-10, "rcond {}", inv.rcond),
        Err(e) => assert!(eps > 1e-10 && matches!(e, Error::Singular { .. }), "{e}"),
    }
    // Exactly singular: an error, never a flagged result.
    let z = zero_col::<T>(n, 4, 1);
    assert!(matches!(
        inverse(&upload(dev, n, &z), Method::Auto),
        Err(Error::Singular { step: 5, .. })
    ));
}

fn rcond_functions<T: Scalar>(dev: &gpu_blas::Device) {
    let n = 50;
    let a = spd::<T>(n, 77);
    let ad = upload(dev, n, &a);
    let f = lu_factor(&ad);
    let f = f.unwrap();
    let anorm = norm1(&ad).unwrap();
    let r1 = lu_rcond(&f.factors, &f.pivots, anorm)
        .unwrap()
        .to_f64()
        .unwrap();
    let l = cholesky_factor(Uplo::Upper, &ad).unwrap();
    let hn = hermitian_norm1(Uplo::Upper, &ad).unwrap();
    assert!(
        (hn.to_f64().unwrap() - anorm.to_f64().unwrap()).abs() <= 1e-5 * anorm.to_f64().unwrap()
    );
    let r2 = cholesky_rcond(Uplo::Upper, &l, hn)
        .unwrap()
        .to_f64()
        .unwrap();
    let x = download(&inverse(&ad, Method::Lu).unwrap().matrix);
    let exact = rcond_exact(n, &c64(&a), &c64(&x));
    for r in [r1, r2] {
        assert!(
            r >= exact * 0.999 && r <= 10.0 * exact,
            "rcond {r} vs {exact}"
        );
    }
}

fn determinants<T: Scalar>(dev: &gpu_blas::Device) {
    // A = L·U with unit lower L and a known diagonal of U: det = Π u_jj, with a row swap.
    let n = 60;
    let r = random_values::<T>(n * n, 9);
    let mut l = vec![C64::new(0.0, 0.0); n * n];
    let mut u = vec![C64::new(0.0, 0.0); n * n];
    let mut want_log = 0.0;
    let mut want_phase = C64::new(1.0, 0.0);
    for j in 0..n {
        l[j * n + j] = C64::new(1.0, 0.0);
        for i in j + 1..n {
            l[j * n + i] = r[j * n + i].to_c64() * 0.1;
        }
        for i in 0..j {
            u[j * n + i] = r[j * n + i].to_c64();
        }
        let d = r[j * n + j].to_c64();
        let d = d / d.norm() * 8.0; // |u_jj| = 8: det = 8^60 overflows f32
        u[j * n + j] = d;
        want_log += d.norm().ln();
        want_phase *= d / d.norm();
    }
    let mut a = matmul(n, n, n, &l, &u);
    // Swap rows 0 and 1: the determinant changes sign.
    for j in 0..n {
        a.swap(j * n, j * n + 1);
    }
    want_phase = -want_phase;
    let a: Vec<T> = from_c64(&a);
    let d = determinant(&upload(dev, n, &a));
    let d = d.unwrap();
    let tol = 1e3 * c_eps::<T>() * n as f64;
    assert!(
        (d.log_abs.to_f64().unwrap() - want_log).abs() <= tol * want_log,
        "log|det|"
    );
    assert!(
        (d.sign.to_c64() - want_phase).norm() <= tol,
        "phase {:?} vs {want_phase}",
        d.sign
    );
    if T::epsilon().to_f64().unwrap() < 1e-10 {
        let v = d.value().to_c64();
        assert!((v - want_phase * want_log.exp()).norm() <= tol * want_log.exp());
    } else {
        assert!(!d.value().is_finite(), "8^60 overflows f32");
    }
    let z = zero_col::<T>(7, 3, 2);
    assert!(determinant(&upload(dev, 7, &z)).unwrap().is_zero());
}

gpu_blas::device_tests! {
    fn inverse_auto_picks_method(dev) { for_all_types!(auto_choices, dev); }
    fn inverse_methods_agree(dev) { for_all_types!(methods_agree, dev); }
    fn inverse_auto_late_negative_pivot(dev) { for_all_types!(auto_late_negative_pivot, dev); }
    fn inverse_ill_conditioned_flagged(dev) { for_all_types!(ill_conditioned_is_flagged, dev); }
    fn rcond_estimates(dev) { for_all_types!(rcond_functions, dev); }
    fn determinant_phase_and_log(dev) { for_all_types!(determinants, dev); }
}
