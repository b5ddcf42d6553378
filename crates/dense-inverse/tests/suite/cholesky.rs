//! Cholesky factor, solve, inverse (both triangles, real and complex Hermitian) against
//! Complex64 references; the unreferenced triangle is neither read (NaN there is harmless) nor
//! written; non-positive-definite input names the failing column.

use crate::common::*;
use dense_inverse::{
    cholesky_factor, cholesky_factor_in_place, cholesky_inverse, cholesky_inverse_in_place,
    cholesky_solve, Error,
};
use gpu_blas::blas2::Uplo;
use gpu_blas::{DeviceMatrix, Scalar};
use num_complex::Complex64 as C64;

const SIZES: &[usize] = &[0, 1, 2, 17, 64, 65, 150];

/// NaN in the strict triangle opposite `uplo`.
fn poison<T: Scalar>(n: usize, a: &[T], uplo: Uplo) -> Vec<T> {
    let mut p = a.to_vec();
    for j in 0..n {
        for i in 0..n {
            let other = match uplo {
                Uplo::Lower => i < j,
                Uplo::Upper => i > j,
            };
            if other {
                p[j * n + i] = T::from_f64(f64::NAN);
            }
        }
    }
    p
}

fn factor_solve_inverse<T: Scalar>(dev: &gpu_blas::Device) {
    for &n in SIZES {
        let a = spd::<T>(n, 11 + n as u64);
        for uplo in [Uplo::Lower, Uplo::Upper] {
            let ad = upload(dev, n, &poison(n, &a, uplo));
            let f = cholesky_factor(uplo, &ad);
            let f = c64(&download(&f.unwrap()));
            // A = L·Lᴴ or Uᴴ·U, the other triangle zero.
            let rec = match uplo {
                Uplo::Lower => matmul(n, n, n, &f, &adjoint(n, &f)),
                Uplo::Upper => matmul(n, n, n, &adjoint(n, &f), &f),
            };
            let d: Vec<C64> = rec.iter().zip(c64(&a)).map(|(x, y)| x - y).collect();
            let tol = c_eps::<T>() * n as f64 * norm_inf(n, n, &c64(&a));
            assert!(
                norm_inf(n, n, &d) <= tol,
                "{} {uplo:?} n = {n}: ‖A − LLᴴ‖",
                T::PREFIX
            );
            let fd = cholesky_factor(uplo, &ad).unwrap();
            if n > 0 {
                let b0 = random_values::<T>(n * 2, 5);
                let mut b = DeviceMatrix::from_col_major(dev, n, 2, n, b0.clone()).unwrap();
                cholesky_solve(uplo, &fd, &mut b).unwrap();
                let x: Vec<T> = b.to_array().unwrap().t().iter().copied().collect();
                assert_solve(n, &c64(&a), &x, &b0, 2, "cholesky_solve");
            }
            let x = download(&cholesky_inverse(uplo, &ad).unwrap());
            assert_inverse(n, &a, &x, "cholesky_inverse");
            // Exactly Hermitian.
            for j in 0..n {
                for i in 0..n {
                    assert_eq!(x[j * n + i], x[i * n + j].conj());
                }
            }
        }
    }
}

fn in_place<T: Scalar>(dev: &gpu_blas::Device) {
    for &n in &[1usize, 9, 70] {
        let a = spd::<T>(n, 3 + n as u64);
        for uplo in [Uplo::Lower, Uplo::Upper] {
            let pa = poison(n, &a, uplo);
            let mut m = upload(dev, n, &pa);
            let r = cholesky_factor_in_place(uplo, &mut m);
            r.unwrap();
            let got = download(&m);
            let want = download(&cholesky_factor(uplo, &upload(dev, n, &a)).unwrap());
            for j in 0..n {
                for i in 0..n {
                    let stored = match uplo {
                        Uplo::Lower => i >= j,
                        Uplo::Upper => i <= j,
                    };
                    if stored {
                        assert_eq!(got[j * n + i], want[j * n + i]);
                    } else {
                        assert!(got[j * n + i].is_nan(), "other triangle written");
                    }
                }
            }
            let mut big = padded(dev, n, &pa);
            cholesky_inverse_in_place(uplo, big.block_mut(1, 2, n, n).unwrap()).unwrap();
            let (x, outside) = unpad(&big, n);
            assert!(outside, "wrote outside the view");
            assert_inverse(n, &a, &x, "cholesky_inverse_in_place");
        }
    }
}

fn not_positive_definite<T: Scalar>(dev: &gpu_blas::Device) {
    let n = 90;
    let a = hermitian_indefinite::<T>(n, 2); // diagonal +3n, −3n, ...: fails at column 2
    let ad = upload(dev, n, &a);
    let r = cholesky_factor(Uplo::Lower, &ad);
    assert_eq!(
        r.unwrap_err(),
        Error::NotPositiveDefinite {
            op: "cholesky_factor",
            column: 2
        }
    );
    // A pivot failing deep inside: SPD except a[70][70] lowered far below its Schur complement.
    let mut b = spd::<T>(n, 4);
    b[70 * n + 70] = T::from_f64(-1.0);
    let mut m = upload(dev, n, &b);
    let e = cholesky_inverse_in_place(Uplo::Upper, &mut m).unwrap_err();
    assert_eq!(
        e,
        Error::NotPositiveDefinite {
            op: "cholesky_inverse_in_place",
            column: 71
        }
    );
    assert_eq!(download(&m), b, "buffer written on error");
    assert!(e.to_string().contains("column 71"));
}

gpu_blas::device_tests! {
    fn cholesky_factor_solve_inverse_all_types(dev) { for_all_types!(factor_solve_inverse, dev); }
    fn cholesky_in_place_and_views(dev) { for_all_types!(in_place, dev); }
    fn cholesky_not_positive_definite(dev) { for_all_types!(not_positive_definite, dev); }
    fn cholesky_large_513(dev) {
        let n = 513;
        let a = spd::<num_complex::Complex64>(n, 9);
        let x = cholesky_inverse(Uplo::Lower, &upload(dev, n, &a));
        assert_inverse(n, &a, &download(&x.unwrap()), "cholesky_inverse 513");
    }
}
