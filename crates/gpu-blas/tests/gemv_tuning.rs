//! gemv under every launch the tuning hooks can force, against an f64 loop: the packed T/C
//! kernels (each kernel, row splits 1 to 8) and the N launches (row tiles of 1 to 256 lanes,
//! 1 to 1000 column splits, packed and element-wise). Its own test binary: the hooks are
//! process-wide, and the other level-2 tests compare calls bit for bit.

mod common;

use common::*;
use gpu_blas::blas2::{
    gemv, set_gemv_n_tuning, set_gemv_t_tuning, GemvNLaunch, GemvTKernel, Trans,
};
use gpu_blas::{Device, DeviceMatrix, DeviceVec, Scalar};

fn forced_launches<T: Scalar>(dev: &Device) {
    // Tall enough for 8 splits of 32 packs of 32 lanes, odd column count (a lone last column).
    let (m, n) = (16_400usize, 37usize);
    let vals = random_values::<T>(m * n, 11);
    let a = DeviceMatrix::from_col_major(dev, m, n, m, vals.clone()).unwrap();
    let xs = random_values::<T>(m, 12);
    let ys = random_values::<T>(n, 13);
    let x = DeviceVec::from_slice(dev, &xs).unwrap();
    let (alpha, beta) = (T::from_f64(1.25), T::from_f64(-0.5));
    for splits in [None, Some(1), Some(2), Some(3), Some(8)] {
        for kernel in [
            None,
            Some(GemvTKernel::Pair),
            Some(GemvTKernel::Columns {
                columns: 1,
                depth: 16,
            }),
            Some(GemvTKernel::Columns {
                columns: 1,
                depth: 32,
            }),
            Some(GemvTKernel::Columns {
                columns: 2,
                depth: 8,
            }),
            Some(GemvTKernel::Columns {
                columns: 2,
                depth: 16,
            }),
            Some(GemvTKernel::Columns {
                columns: 4,
                depth: 8,
            }),
        ] {
            for trans in [Trans::T, Trans::C] {
                set_gemv_t_tuning(splits, kernel);
                let mut y = DeviceVec::from_slice(dev, &ys).unwrap();
                let r = gemv(trans, alpha, &a, &x, beta, &mut y);
                set_gemv_t_tuning(None, None);
                r.unwrap();
                let got = y.to_vec().unwrap();
                for j in 0..n {
                    let (mut s, mut bound) = (num_complex::Complex64::new(0.0, 0.0), 0.0);
                    for i in 0..m {
                        let v = c64(vals[i + j * m]);
                        let aij = if trans == Trans::C { v.conj() } else { v };
                        s += aij * c64(xs[i]);
                        bound += aij.norm() * c64(xs[i]).norm();
                    }
                    let want = c64(alpha) * s + c64(beta) * c64(ys[j]);
                    let tol = gamma::<T>(m)
                        * (c64(alpha).norm() * bound + c64(beta).norm() * c64(ys[j]).norm());
                    assert_close(
                        &format!("gemv {trans:?} splits {splits:?} {kernel:?} column {j}"),
                        c64(got[j]),
                        want,
                        tol,
                    );
                }
            }
        }
    }
}

fn forced_n_launches<T: Scalar>(dev: &Device) {
    // ld = m: 16-byte packs down the columns; ld = m + 1: the element-wise kernels. m is not a
    // multiple of any tile, n not a multiple of the column lanes.
    for (m, n, ld) in [(1030usize, 203usize, 1030usize), (517, 61, 518)] {
        let vals = random_values::<T>(ld * n, 21);
        let a = DeviceMatrix::from_col_major(dev, m, n, ld, vals.clone()).unwrap();
        let xs = random_values::<T>(n, 22);
        let ys = random_values::<T>(m, 23);
        let x = DeviceVec::from_slice(dev, &xs).unwrap();
        let (alpha, beta) = (T::from_f64(0.75), T::from_f64(1.5));
        let mut launches = vec![None];
        for row_lanes in [1, 2, 4, 8, 32, 256] {
            launches.push(Some(GemvNLaunch::Tile { row_lanes }));
        }
        for splits in [1, 2, 7, 64, 1000] {
            launches.push(Some(GemvNLaunch::Split { splits }));
        }
        for launch in launches {
            set_gemv_n_tuning(launch);
            let mut y = DeviceVec::from_slice(dev, &ys).unwrap();
            let r = gemv(Trans::N, alpha, &a, &x, beta, &mut y);
            set_gemv_n_tuning(None);
            r.unwrap();
            let got = y.to_vec().unwrap();
            for i in 0..m {
                let (mut s, mut bound) = (num_complex::Complex64::new(0.0, 0.0), 0.0);
                for j in 0..n {
                    let aij = c64(vals[i + j * ld]);
                    s += aij * c64(xs[j]);
                    bound += aij.norm() * c64(xs[j]).norm();
                }
                let want = c64(alpha) * s + c64(beta) * c64(ys[i]);
                let tol = gamma::<T>(n)
                    * (c64(alpha).norm() * bound + c64(beta).norm() * c64(ys[i]).norm());
                assert_close(
                    &format!("gemv N {m}x{n} ld {ld} {launch:?} row {i}"),
                    c64(got[i]),
                    want,
                    tol,
                );
            }
        }
    }
}

gpu_blas::device_tests! {
    fn gemv_n_forced_launches(dev) {
        forced_n_launches::<f32>(dev);
        forced_n_launches::<f64>(dev);
        forced_n_launches::<num_complex::Complex32>(dev);
        forced_n_launches::<num_complex::Complex64>(dev);
    }

    fn gemv_t_forced_launches(dev) {
        forced_launches::<f32>(dev);
        forced_launches::<f64>(dev);
        forced_launches::<num_complex::Complex32>(dev);
        forced_launches::<num_complex::Complex64>(dev);
    }
}
