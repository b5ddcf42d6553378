//! The packed gemv T/C kernels under every launch the tuning hook can force (each kernel, row
//! splits 1 to 8) against an f64 loop. Its own test binary: the hook is
//! process-wide, and the other level-2 tests compare calls bit for bit.

mod common;

use common::*;
use gpu_blas::blas2::{gemv, set_gemv_t_tuning, GemvTKernel, Trans};
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

gpu_blas::device_tests! {
    fn gemv_t_forced_launches(dev) {
        forced_launches::<f32>(dev);
        forced_launches::<f64>(dev);
        forced_launches::<num_complex::Complex32>(dev);
        forced_launches::<num_complex::Complex64>(dev);
    }
}
