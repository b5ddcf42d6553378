//! Property tests: every level-1 operation, every scalar type, every device, against f64 loops.

mod common;

use common::*;
use gpu_blas::{blas1, Device, DeviceScalar, DeviceVec, Scalar};
use num_complex::{Complex32, Complex64};
use proptest::prelude::*;

macro_rules! for_all_types {
    ($f:ident, $dev:expr) => {
        $f::<f32>($dev);
        $f::<f64>($dev);
        $f::<Complex32>($dev);
        $f::<Complex64>($dev);
    };
}

/// A random strided vector: (n, offset, inc, seed).
fn vec_case(
    inc: impl Strategy<Value = isize>,
) -> impl Strategy<Value = (usize, usize, isize, u64)> {
    (len_strategy(), 0usize..4, inc, any::<u64>())
}

fn upload<T: Scalar>(
    dev: &Device,
    n: usize,
    off: usize,
    inc: isize,
    seed: u64,
) -> (DeviceVec<T>, Vec<T>) {
    let raw = random_values::<T>(span(off, n, inc), seed);
    let logical = gather(&raw, off, n, inc);
    (DeviceVec::from_slice(dev, &raw).unwrap(), logical)
}

fn check_dot<T: Scalar>(dev: &Device) {
    runner()
        .run(
            &(
                vec_case(signed_inc()),
                signed_inc(),
                0usize..3,
                any::<u64>(),
            ),
            |((n, ox, ix, sx), iy, oy, sy)| {
                let (xb, x) = upload::<T>(dev, n, ox, ix, sx);
                let (yb, y) = upload::<T>(dev, n, oy, iy, sy);
                let xv = xb.strided(ox, n, ix).unwrap();
                let yv = yb.strided(oy, n, iy).unwrap();
                for conj in [false, true] {
                    let (want, bound) = ref_dot(&x, &y, conj);
                    let tol = gamma::<T>(n) * bound;
                    let got = if conj {
                        blas1::dotc(xv, yv)
                    } else {
                        blas1::dot(xv, yv)
                    }
                    .unwrap();
                    assert_close(
                        &format!("dot(conj={conj}) n={n} incs=({ix},{iy})"),
                        c64(got),
                        want,
                        tol,
                    );
                    let got2 = if conj {
                        blas1::dotc_compensated(xv, yv)
                    } else {
                        blas1::dot_compensated(xv, yv)
                    }
                    .unwrap();
                    // Dot2: |err| <= eps·|s| + γ_n²·Σ|x||y|.
                    let exact = exact_dot(&x, &y, conj);
                    let tol2 = 2.0 * eps::<T>() * exact.norm()
                        + gamma::<T>(n).powi(2) * bound
                        + f64::MIN_POSITIVE;
                    assert_close(
                        &format!("dot_compensated(conj={conj}) n={n}"),
                        c64(got2),
                        exact,
                        tol2,
                    );
                    // Device-resident variants agree bit for bit with the host-returning ones.
                    let mut out = DeviceScalar::new(dev, T::zero()).unwrap();
                    if conj {
                        blas1::dotc_into(xv, yv, &mut out)
                    } else {
                        blas1::dot_into(xv, yv, &mut out)
                    }
                    .unwrap();
                    assert_eq!(out.get().unwrap(), got);
                    blas1::dot_compensated_into(xv, yv, &mut out).unwrap();
                    if !conj {
                        assert_eq!(out.get().unwrap(), got2);
                    }
                }
                Ok(())
            },
        )
        .unwrap();
}

fn check_norms<T: Scalar>(dev: &Device) {
    runner()
        .run(&vec_case(positive_inc()), |(n, off, inc, seed)| {
            let (xb, x) = upload::<T>(dev, n, off, inc, seed);
            let xv = xb.strided(off, n, inc).unwrap();
            let want = ref_nrm2(&x);
            let got = f(blas1::nrm2(xv).unwrap());
            assert!(
                (got - want).abs() <= gamma::<T>(n) * want,
                "nrm2 n={n} inc={inc}: {got} vs {want}"
            );
            let want_asum: f64 = x.iter().map(|v| c64(*v).re.abs() + c64(*v).im.abs()).sum();
            let got_asum = f(blas1::asum(xv).unwrap());
            assert!(
                (got_asum - want_asum).abs() <= gamma::<T>(n) * want_asum,
                "asum n={n}: {got_asum} vs {want_asum}"
            );
            assert_eq!(
                blas1::iamax(xv).unwrap(),
                ref_iamax(&x),
                "iamax n={n} inc={inc}"
            );
            let mut r = DeviceScalar::new(dev, T::Real::default()).unwrap();
            blas1::nrm2_into(xv, &mut r).unwrap();
            assert_eq!(f(r.get().unwrap()), got);
            blas1::asum_into(xv, &mut r).unwrap();
            assert_eq!(f(r.get().unwrap()), got_asum);
            let mut ri = DeviceScalar::new(dev, 7i64).unwrap();
            blas1::iamax_into(xv, &mut ri).unwrap();
            assert_eq!(ri.get().unwrap(), ref_iamax(&x).map_or(-1, |i| i as i64));
            Ok(())
        })
        .unwrap();
}

fn check_axpy_scal<T: Scalar>(dev: &Device) {
    runner()
        .run(
            &(
                vec_case(signed_inc()),
                signed_inc(),
                0usize..3,
                any::<u64>(),
                -2.0f64..2.0,
                -2.0f64..2.0,
                any::<bool>(),
            ),
            |((n, ox, ix, sx), iy, oy, sy, ar, ai, on_device)| {
                let alpha = T::from_parts(
                    <T::Real as Scalar>::from_f64(ar),
                    <T::Real as Scalar>::from_f64(ai),
                );
                let (xb, x) = upload::<T>(dev, n, ox, ix, sx);
                let (mut yb, y0) = upload::<T>(dev, n, oy, iy, sy);
                let raw_before = yb.to_vec().unwrap();
                if on_device {
                    let a = DeviceScalar::new(dev, alpha).unwrap();
                    blas1::axpy_dev(
                        &a,
                        xb.strided(ox, n, ix).unwrap(),
                        yb.strided_mut(oy, n, iy).unwrap(),
                    )
                    .unwrap();
                } else {
                    blas1::axpy(
                        alpha,
                        xb.strided(ox, n, ix).unwrap(),
                        yb.strided_mut(oy, n, iy).unwrap(),
                    )
                    .unwrap();
                }
                let raw_after = yb.to_vec().unwrap();
                let y = gather(&raw_after, oy, n, iy);
                let e = 4.0 * eps::<T>();
                for i in 0..n {
                    let want = c64(alpha) * c64(x[i]) + c64(y0[i]);
                    let tol = e * ((c64(alpha) * c64(x[i])).norm() + c64(y0[i]).norm()) * 2.0;
                    assert_close(&format!("axpy n={n} i={i}"), c64(y[i]), want, tol);
                }
                // Elements outside the view are untouched.
                let touched: std::collections::HashSet<usize> = (0..n)
                    .map(|i| {
                        oy + if iy > 0 {
                            i * iy as usize
                        } else {
                            (n - 1 - i) * iy.unsigned_abs()
                        }
                    })
                    .collect();
                for (k, (a, b)) in raw_before.iter().zip(&raw_after).enumerate() {
                    if !touched.contains(&k) {
                        assert_eq!(a, b, "axpy wrote outside its view at {k}");
                    }
                }
                // scal on a positive-increment view
                let inc = ix.abs();
                let (mut sb, s0) = upload::<T>(dev, n, ox, inc, sx ^ 1);
                if on_device {
                    blas1::scal_dev(
                        &DeviceScalar::new(dev, alpha).unwrap(),
                        sb.strided_mut(ox, n, inc).unwrap(),
                    )
                    .unwrap();
                } else {
                    blas1::scal(alpha, sb.strided_mut(ox, n, inc).unwrap()).unwrap();
                }
                let s = gather(&sb.to_vec().unwrap(), ox, n, inc);
                for i in 0..n {
                    let want = c64(alpha) * c64(s0[i]);
                    assert_close(
                        &format!("scal n={n} i={i}"),
                        c64(s[i]),
                        want,
                        e * want.norm().max(c64(alpha).norm() * c64(s0[i]).norm()) * 2.0,
                    );
                }
                Ok(())
            },
        )
        .unwrap();
}

fn check_copy_swap<T: Scalar>(dev: &Device) {
    runner()
        .run(
            &(
                vec_case(signed_inc()),
                signed_inc(),
                0usize..3,
                any::<u64>(),
            ),
            |((n, ox, ix, sx), iy, oy, sy)| {
                let (xb, x) = upload::<T>(dev, n, ox, ix, sx);
                let (mut yb, _) = upload::<T>(dev, n, oy, iy, sy);
                blas1::copy(
                    xb.strided(ox, n, ix).unwrap(),
                    yb.strided_mut(oy, n, iy).unwrap(),
                )
                .unwrap();
                assert_eq!(
                    gather(&yb.to_vec().unwrap(), oy, n, iy),
                    x,
                    "copy n={n} incs=({ix},{iy})"
                );

                let (mut ab, a0) = upload::<T>(dev, n, ox, ix, sx ^ 5);
                let (mut bb, b0) = upload::<T>(dev, n, oy, iy, sy ^ 9);
                blas1::swap(
                    ab.strided_mut(ox, n, ix).unwrap(),
                    bb.strided_mut(oy, n, iy).unwrap(),
                )
                .unwrap();
                assert_eq!(gather(&ab.to_vec().unwrap(), ox, n, ix), b0, "swap x n={n}");
                assert_eq!(gather(&bb.to_vec().unwrap(), oy, n, iy), a0, "swap y n={n}");
                Ok(())
            },
        )
        .unwrap();
}

gpu_blas::device_tests! {
    fn dot_dotc_compensated(dev) { for_all_types!(check_dot, dev); }
    fn nrm2_asum_iamax(dev) { for_all_types!(check_norms, dev); }
    fn axpy_scal(dev) { for_all_types!(check_axpy_scal, dev); }
    fn copy_swap(dev) { for_all_types!(check_copy_swap, dev); }
}
