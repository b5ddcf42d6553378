//! Typed errors: non-square, non-finite input (with its index), wrong pivot or right-hand-side
//! shapes, invalid pivots, device mismatch; nothing written on error; messages name the op.

use crate::common::*;
use dense_inverse::*;
use gpu_blas::blas2::{Trans, Uplo};
use gpu_blas::{DeviceMatrix, DeviceVec};

fn blas(e: Error) -> gpu_blas::Error {
    match e {
        Error::Blas(b) => b,
        other => panic!("expected a gpu_blas error, got {other:?}"),
    }
}

gpu_blas::device_tests! {
    fn not_square_everywhere(dev) {
        let a = DeviceMatrix::<f64>::zeros(dev, 3, 4).unwrap();
        let mut m = DeviceMatrix::<f64>::zeros(dev, 3, 4).unwrap();
        let mut piv = DeviceVec::zeros(dev, 3).unwrap();
        let rs: Vec<Error> = vec![
            lu_factor(&a).unwrap_err(),
            lu_factor_in_place(&mut m, &mut piv).unwrap_err(),
            lu_inverse(&a).unwrap_err(),
            lu_inverse_in_place(&mut m).unwrap_err(),
            cholesky_factor(Uplo::Lower, &a).unwrap_err(),
            cholesky_inverse(Uplo::Upper, &a).unwrap_err(),
            cholesky_inverse_in_place(Uplo::Upper, &mut m).unwrap_err(),
            gauss_jordan_inverse(&a).unwrap_err(),
            bordering_inverse(Uplo::Lower, &a, Bordering::Unblocked).unwrap_err(),
            determinant(&a).unwrap_err(),
            inverse(&a, Method::Auto).unwrap_err(),
        ];
        for e in rs {
            assert!(matches!(e, Error::NotSquare { rows: 3, cols: 4, .. }), "{e:?}");
            assert!(e.to_string().contains("3x4"));
        }
    }

    fn non_finite_input_nothing_written(dev) {
        let n = 6;
        let mut a = general::<f64>(n, 1);
        a[2 * n + 4] = f64::NAN; // (4, 2): index 16, in the lower triangle
        let mut m = upload(dev, n, &a);
        let r = lu_inverse_in_place(&mut m);
        assert_eq!(
            blas(r.unwrap_err()),
            gpu_blas::Error::NonFinite { op: "lu_inverse_in_place", index: 16 }
        );
        let got = download(&m);
        assert!(got.iter().zip(&a).all(|(x, y)| x == y || (x.is_nan() && y.is_nan())));
        assert!(matches!(blas(gauss_jordan_inverse(&m).unwrap_err()), gpu_blas::Error::NonFinite { index: 16, .. }));
        assert_eq!(
            blas(gauss_jordan_inverse_in_place(&mut m).unwrap_err()),
            gpu_blas::Error::NonFinite { op: "gauss_jordan_inverse_in_place", index: 16 }
        );
        let got = download(&m);
        assert!(got.iter().zip(&a).all(|(x, y)| x == y || (x.is_nan() && y.is_nan())));
        assert!(matches!(blas(inverse(&m, Method::GaussJordan).unwrap_err()), gpu_blas::Error::NonFinite { index: 16, .. }));
        assert!(matches!(blas(inverse(&m, Method::Auto).unwrap_err()), gpu_blas::Error::NonFinite { index: 16, .. }));
        assert!(matches!(blas(cholesky_inverse(Uplo::Lower, &m).unwrap_err()), gpu_blas::Error::NonFinite { index: 16, .. }));
        // The upper triangle is not referenced: the NaN is not seen there, the SPD part is used.
        let s = spd::<f64>(n, 2);
        let mut t = s.clone();
        t[2 * n + 4] = f64::INFINITY;
        let x = cholesky_inverse(Uplo::Upper, &upload(dev, n, &t)).unwrap();
        assert_inverse(n, &s, &download(&x), "upper triangle only");
        let mut b = DeviceMatrix::from_col_major(dev, n, 1, n, vec![f64::NAN; n]).unwrap();
        let f = lu_factor(&upload(dev, n, &general::<f64>(n, 3))).unwrap();
        assert!(matches!(blas(lu_solve(Trans::N, &f.factors, &f.pivots, &mut b).unwrap_err()), gpu_blas::Error::NonFinite { index: 0, .. }));
    }

    fn shapes_and_pivots(dev) {
        let n = 4;
        let a = upload(dev, n, &general::<f64>(n, 5));
        let f = lu_factor(&a);
        let f = f.unwrap();
        let mut b = DeviceMatrix::<f64>::zeros(dev, 3, 2).unwrap();
        assert!(matches!(blas(lu_solve(Trans::N, &f.factors, &f.pivots, &mut b).unwrap_err()), gpu_blas::Error::DimensionMismatch { .. }));
        let short = DeviceVec::from_slice(dev, &[1, 2, 3]).unwrap();
        let mut b = DeviceMatrix::<f64>::zeros(dev, 4, 2).unwrap();
        assert!(matches!(blas(lu_solve(Trans::N, &f.factors, &short, &mut b).unwrap_err()), gpu_blas::Error::DimensionMismatch { .. }));
        let bad = DeviceVec::from_slice(dev, &[1, 2, 5, 4]).unwrap();
        let e = lu_solve(Trans::T, &f.factors, &bad, &mut b).unwrap_err();
        assert!(matches!(blas(e.clone()), gpu_blas::Error::OutOfBounds { .. }), "{e}");
        assert!(e.to_string().contains("pivots[2] = 5"));
        assert!(matches!(blas(lu_rcond(&f.factors, &bad, 1.0).unwrap_err()), gpu_blas::Error::OutOfBounds { .. }));
        let mut m = upload(dev, n, &general::<f64>(n, 5));
        let mut piv3 = DeviceVec::zeros(dev, 3).unwrap();
        assert!(lu_factor_in_place(&mut m, &mut piv3).is_err());
        assert_eq!(download(&m), general::<f64>(n, 5));
        let mut b = DeviceMatrix::<f64>::zeros(dev, 5, 1).unwrap();
        let l = cholesky_factor(Uplo::Lower, &upload(dev, n, &spd::<f64>(n, 1))).unwrap();
        assert!(cholesky_solve(Uplo::Lower, &l, &mut b).is_err());
        // A factor with a zero diagonal entry cannot come from cholesky_factor.
        let z = DeviceMatrix::<f64>::zeros(dev, 2, 2).unwrap();
        let mut b = DeviceMatrix::<f64>::zeros(dev, 2, 1).unwrap();
        assert!(matches!(cholesky_solve(Uplo::Upper, &z, &mut b), Err(Error::NotPositiveDefinite { column: 1, .. })));
    }

    fn device_mismatch_or_unsupported(dev) {
        // CPU factors with pivots on `dev`: a mismatch on a GPU, fine on the CPU.
        let cpu = gpu_blas::Device::cpu();
        let a = upload(&cpu, 3, &general::<f64>(3, 2));
        let f = lu_factor(&a).unwrap();
        let piv = DeviceVec::from_slice(dev, &f.pivots.to_vec().unwrap()).unwrap();
        let mut b = DeviceMatrix::<f64>::zeros(&cpu, 3, 1).unwrap();
        let r = lu_solve(Trans::N, &f.factors, &piv, &mut b);
        if dev.is_cuda() {
            assert!(matches!(blas(r.unwrap_err()), gpu_blas::Error::DeviceMismatch { .. }));
        } else {
            r.unwrap();
        }
    }
}
