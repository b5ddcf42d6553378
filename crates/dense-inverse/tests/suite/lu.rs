//! LU factor, solve (N/T/C), inverse and in-place inverse on every device and scalar type,
//! against Complex64 references; singular inputs and views with a leading dimension.

use crate::common::*;
use dense_inverse::{
    lu_factor, lu_factor_in_place, lu_inverse, lu_inverse_in_place, lu_solve, Error,
};
use gpu_blas::blas2::Trans;
use gpu_blas::{DeviceMatrix, DeviceVec, Scalar};
use num_complex::Complex64 as C64;

const SIZES: &[usize] = &[0, 1, 2, 3, 31, 63, 64, 65, 130, 200];

/// `‖P·A − L·U‖∞ ≤ c·n·ε·‖A‖∞`.
fn assert_lu<T: Scalar>(n: usize, a: &[T], f: &[T], piv: &[i32]) {
    let mut pa = c64(a);
    for (j, &p) in piv.iter().enumerate() {
        for c in 0..n {
            pa.swap(c * n + j, c * n + p as usize - 1);
        }
    }
    let f = c64(f);
    let (mut l, mut u) = (
        vec![C64::new(0.0, 0.0); n * n],
        vec![C64::new(0.0, 0.0); n * n],
    );
    for j in 0..n {
        for i in 0..n {
            if i > j {
                l[j * n + i] = f[j * n + i];
            } else {
                u[j * n + i] = f[j * n + i];
            }
        }
        l[j * n + j] = C64::new(1.0, 0.0);
    }
    let lu = matmul(n, n, n, &l, &u);
    let d: Vec<C64> = pa.iter().zip(&lu).map(|(x, y)| x - y).collect();
    let tol = c_eps::<T>() * n as f64 * norm_inf(n, n, &c64(a));
    let res = norm_inf(n, n, &d);
    assert!(
        res <= tol,
        "{} n = {n}: ‖PA − LU‖ = {res:e} > {tol:e}",
        T::PREFIX
    );
}

fn factor_solve_inverse<T: Scalar>(dev: &gpu_blas::Device) {
    for &n in SIZES {
        let a = general::<T>(n, 7 + n as u64);
        let ad = upload(dev, n, &a);
        let f = lu_factor(&ad);
        let f = f.unwrap();
        assert_eq!(f.info, 0);
        let piv = f.pivots.to_vec().unwrap();
        assert!(piv.iter().all(|&p| p >= 1 && p as usize <= n));
        assert_lu(n, &a, &download(&f.factors), &piv);
        assert!(!f.determinant().unwrap().is_zero());
        for trans in [Trans::N, Trans::T, Trans::C] {
            if n == 0 {
                break;
            }
            let nrhs = 3;
            let b0 = random_values::<T>(n * nrhs, n as u64);
            let mut b = DeviceMatrix::from_col_major(dev, n, nrhs, n.max(1), b0.clone()).unwrap();
            lu_solve(trans, &f.factors, &f.pivots, &mut b).unwrap();
            let x: Vec<T> = b.to_array().unwrap().t().iter().copied().collect();
            let opa = match trans {
                Trans::N => c64(&a),
                Trans::C => adjoint(n, &c64(&a)),
                Trans::T => adjoint(n, &c64(&a)).iter().map(|v| v.conj()).collect(),
            };
            assert_solve(n, &opa, &x, &b0, nrhs, &format!("lu_solve {trans:?}"));
        }
        let x = lu_inverse(&ad).unwrap();
        assert_inverse(n, &a, &download(&x), "lu_inverse");
        assert_eq!(download(&ad), a, "lu_inverse modified its input");
    }
}

fn in_place_views<T: Scalar>(dev: &gpu_blas::Device) {
    for &n in &[1usize, 5, 64, 97] {
        let a = general::<T>(n, 100 + n as u64);
        let mut big = padded(dev, n, &a);
        let r = lu_inverse_in_place(big.block_mut(1, 2, n, n).unwrap());
        r.unwrap();
        let (x, outside) = unpad(&big, n);
        assert!(outside, "wrote outside the view");
        assert_inverse(n, &a, &x, "lu_inverse_in_place (view)");

        let mut big = padded(dev, n, &a);
        let mut piv = DeviceVec::zeros(dev, n).unwrap();
        let info = lu_factor_in_place(big.block_mut(1, 2, n, n).unwrap(), &mut piv).unwrap();
        assert_eq!(info, 0);
        let (f, outside) = unpad(&big, n);
        assert!(outside, "wrote outside the view");
        assert_lu(n, &a, &f, &piv.to_vec().unwrap());
    }
}

fn singular<T: Scalar>(dev: &gpu_blas::Device) {
    for &(n, j) in &[(1usize, 0usize), (5, 2), (70, 66), (130, 3)] {
        let a = zero_col::<T>(n, j, 3);
        let ad = upload(dev, n, &a);
        let f = lu_factor(&ad);
        let f = f.unwrap();
        // Column j is zero, so U(j, j) is the first exact zero (earlier pivots are non-zero
        // for random columns).
        assert_eq!(f.info, j as i32 + 1);
        assert!(f.determinant().unwrap().is_zero());
        assert_eq!(
            lu_inverse(&ad).unwrap_err(),
            Error::Singular {
                op: "lu_inverse",
                step: j + 1
            }
        );
        let mut m = upload(dev, n, &a);
        assert!(matches!(
            lu_inverse_in_place(&mut m),
            Err(Error::Singular { .. })
        ));
        assert_eq!(download(&m), a, "buffer written on error");
        let mut b = DeviceMatrix::<T>::zeros(dev, n, 1).unwrap();
        assert!(matches!(
            lu_solve(Trans::N, &f.factors, &f.pivots, &mut b),
            Err(Error::Singular { .. })
        ));
    }
}

fn nearly_singular_still_accurate<T: Scalar>(dev: &gpu_blas::Device) {
    let n = 40;
    let a = nearly_singular::<T>(n, 5);
    let x = lu_inverse(&upload(dev, n, &a));
    // f32 may hit an exact zero pivot or overflow; f64 inverts with the usual residual bound.
    if T::epsilon().to_c64().re < 1e-10 {
        assert_inverse(n, &a, &download(&x.unwrap()), "nearly singular");
    }
}

gpu_blas::device_tests! {
    fn lu_factor_solve_inverse_all_types(dev) { for_all_types!(factor_solve_inverse, dev); }
    fn lu_in_place_on_views(dev) { for_all_types!(in_place_views, dev); }
    fn lu_singular_info_and_errors(dev) { for_all_types!(singular, dev); }
    fn lu_nearly_singular(dev) { for_all_types!(nearly_singular_still_accurate, dev); }
    fn lu_large_513(dev) {
        let n = 513;
        let a = general::<f64>(n, 513);
        let x = lu_inverse(&upload(dev, n, &a));
        assert_inverse(n, &a, &download(&x.unwrap()), "lu_inverse 513");
    }
}
