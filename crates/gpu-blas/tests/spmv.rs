//! SpMV against an f64 reference, every kernel, every type, both devices; CSR validation.

mod common;

use common::*;
use gpu_blas::spmv::{spmv_with, SpmvKernel};
use gpu_blas::{CsrMatrix, Device, DeviceVec, Error, Scalar};
use num_complex::{Complex32, Complex64};

const KERNELS: &[SpmvKernel] = &[
    SpmvKernel::Auto,
    SpmvKernel::ThreadPerRow,
    SpmvKernel::VectorPerRow { lanes: 2 },
    SpmvKernel::VectorPerRow { lanes: 4 },
    SpmvKernel::VectorPerRow { lanes: 8 },
    SpmvKernel::VectorPerRow { lanes: 16 },
    SpmvKernel::VectorPerRow { lanes: 32 },
    SpmvKernel::Adaptive,
];

/// A random CSR structure with the given row lengths (columns distinct, sorted).
fn structure(cols: usize, lens: &[usize], seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut rp = vec![0usize];
    let mut ci = Vec::new();
    let mut s = seed | 1;
    for &l in lens {
        let l = l.min(cols);
        let mut row: Vec<usize> = Vec::with_capacity(l);
        if l * 2 > cols {
            // dense-ish row: take a contiguous-with-holes sample
            let skip = cols - l;
            let mut skipped = std::collections::HashSet::new();
            while skipped.len() < skip {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                skipped.insert((s % cols as u64) as usize);
            }
            row.extend((0..cols).filter(|c| !skipped.contains(c)));
        } else {
            let mut set = std::collections::BTreeSet::new();
            while set.len() < l {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                set.insert((s % cols as u64) as usize);
            }
            row.extend(set);
        }
        ci.extend(row);
        rp.push(ci.len());
    }
    (rp, ci)
}

fn shapes() -> Vec<(&'static str, usize, Vec<usize>)> {
    let power_law: Vec<usize> = (0..3000)
        .map(|i| {
            if i % 97 == 0 {
                2500
            } else {
                1 + (i * 7919) % 9
            }
        })
        .collect();
    vec![
        ("empty", 0, vec![]),
        ("one", 1, vec![1]),
        ("one-empty", 1, vec![0]),
        ("single dense row", 300, {
            let mut v = vec![2usize; 299];
            v.insert(150, 300);
            v
        }),
        (
            "empty rows",
            500,
            (0..500)
                .map(|i| if i % 3 == 0 { 0 } else { 1 + i % 5 })
                .collect(),
        ),
        ("regular 7", 1025, vec![7; 1025]),
        ("regular 27", 800, vec![27; 800]),
        ("power law", 3000, power_law),
        ("long rows", 4000, (0..40).map(|i| 1000 + 37 * i).collect()),
        // Columns too far from their rows for the adaptive kernel's 16-bit offsets: the
        // full-index variant (every narrower shape above takes the 16-bit one).
        ("wide columns", 70_000, vec![20; 300]),
    ]
}

fn check<T: Scalar>(dev: &Device) {
    for (name, cols, lens) in shapes() {
        let rows = lens.len();
        let (rp, ci) = structure(cols.max(1), &lens, rows as u64 + 1);
        let vals = random_values::<T>(ci.len(), 7);
        let a = CsrMatrix::from_csr(dev, rows, cols, rp.clone(), ci.clone(), vals.clone()).unwrap();
        for (incx, incy) in [(1isize, 1isize), (3, 2)] {
            let xraw = random_values::<T>(span(0, cols, incx), 3);
            let x = DeviceVec::from_slice(dev, &xraw).unwrap();
            let xv = gather(&xraw, 0, cols, incx);
            for &k in KERNELS {
                for (alpha, beta_zero) in [
                    (T::from_f64(1.5), false),
                    (
                        T::from_parts(
                            <T::Real as Scalar>::from_f64(-0.5),
                            <T::Real as Scalar>::from_f64(2.0),
                        ),
                        true,
                    ),
                ] {
                    let beta = if beta_zero {
                        T::zero()
                    } else {
                        T::from_f64(-0.75)
                    };
                    let mut yraw = random_values::<T>(span(0, rows, incy), 5);
                    if beta_zero {
                        // With beta = 0, y must not be read: NaN must not leak through.
                        for v in yraw.iter_mut().step_by(incy as usize) {
                            *v = T::from_f64(f64::NAN);
                        }
                    }
                    let y0 = gather(&yraw, 0, rows, incy);
                    let mut y = DeviceVec::from_slice(dev, &yraw).unwrap();
                    spmv_with(
                        k,
                        alpha,
                        &a,
                        x.strided(0, cols, incx).unwrap(),
                        beta,
                        y.strided_mut(0, rows, incy).unwrap(),
                    )
                    .unwrap();
                    let got = gather(&y.to_vec().unwrap(), 0, rows, incy);
                    for r in 0..rows {
                        let mut s = Complex64::new(0.0, 0.0);
                        let mut bound = 0.0;
                        for kk in rp[r]..rp[r + 1] {
                            let p = c64(vals[kk]) * c64(xv[ci[kk]]);
                            s += p;
                            bound += p.norm();
                        }
                        let base = if beta_zero {
                            Complex64::new(0.0, 0.0)
                        } else {
                            c64(beta) * c64(y0[r])
                        };
                        let want = c64(alpha) * s + base;
                        let tol = gamma::<T>(rp[r + 1] - rp[r] + 2)
                            * (c64(alpha).norm() * bound + base.norm())
                            * 2.0;
                        assert_close(
                            &format!("{name} {k:?} incs ({incx},{incy}) row {r}"),
                            c64(got[r]),
                            want,
                            tol,
                        );
                    }
                }
            }
        }
    }
}

fn all_types(dev: &Device) {
    check::<f32>(dev);
    check::<f64>(dev);
    check::<Complex32>(dev);
    check::<Complex64>(dev);
}

fn validation(dev: &Device) {
    let bad = |rp: Vec<usize>, ci: Vec<usize>, n: usize| {
        CsrMatrix::from_csr(dev, 3, 4, rp, ci, vec![1.0f64; n])
    };
    let e = bad(vec![0, 2, 1, 3], vec![0, 1, 2], 3).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidSparse { detail } if detail.starts_with("row 1")),
        "{e}"
    );
    let e = bad(vec![0, 2, 2, 3], vec![1, 0, 2], 3).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidSparse { detail } if detail.starts_with("row 0") && detail.contains("increasing")),
        "{e}"
    );
    let e = bad(vec![0, 1, 1, 3], vec![0, 2, 2], 3).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidSparse { detail } if detail.starts_with("row 2")),
        "{e}"
    );
    let e = bad(vec![0, 1, 2, 3], vec![0, 1, 4], 3).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidSparse { detail } if detail.starts_with("row 2") && detail.contains("outside")),
        "{e}"
    );
    let e = bad(vec![0, 1, 2], vec![0, 1], 2).unwrap_err();
    assert!(matches!(e, Error::InvalidSparse { .. }));
    let e = bad(vec![0, 1, 2, 3], vec![0, 1, 2], 2).unwrap_err();
    assert!(matches!(e, Error::InvalidSparse { .. }));
    let e =
        CsrMatrix::<f32>::from_csr(dev, 1, 1usize << 31, vec![0, 0], vec![], vec![]).unwrap_err();
    assert!(matches!(e, Error::SizeTooLarge { .. }), "{e}");
    // Shapes and increments of the product.
    let a = CsrMatrix::from_csr(dev, 2, 3, vec![0, 1, 2], vec![0, 2], vec![1.0f64, 2.0]).unwrap();
    let x = DeviceVec::from_slice(dev, &[1.0; 2]).unwrap();
    let mut y = DeviceVec::zeros(dev, 2).unwrap();
    assert!(matches!(
        gpu_blas::spmv::spmv(1.0, &a, &x, 0.0, &mut y),
        Err(Error::DimensionMismatch { .. })
    ));
    let x3 = DeviceVec::from_slice(dev, &[1.0; 3]).unwrap();
    assert!(matches!(
        spmv_with(
            SpmvKernel::VectorPerRow { lanes: 3 },
            1.0,
            &a,
            &x3,
            0.0,
            &mut y
        ),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        gpu_blas::spmv::spmv(1.0, &a, x3.strided(0, 3, -1).unwrap(), 0.0, &mut y),
        Err(Error::InvalidIncrement { .. })
    ));
}

fn sprs_round_trip(dev: &Device) {
    let tri = sprs::TriMat::<Complex64>::from_triplets(
        (4, 5),
        vec![0, 3, 1, 3, 2],
        vec![4, 0, 1, 4, 2],
        vec![
            Complex64::new(1.0, 2.0),
            Complex64::new(-1.0, 0.0),
            Complex64::new(0.5, 0.5),
            Complex64::new(3.0, -3.0),
            Complex64::new(0.0, 1.0),
        ],
    );
    let csr: sprs::CsMat<Complex64> = tri.to_csr();
    let a = CsrMatrix::from_sprs(dev, &csr).unwrap();
    assert_eq!(a.to_sprs().unwrap(), csr);
    let csc: sprs::CsMat<Complex64> = tri.to_csc();
    let b = CsrMatrix::from_sprs(dev, &csc).unwrap();
    assert_eq!(b.to_sprs().unwrap(), csr);
    let s = a.row_stats();
    assert_eq!((s.min, s.max, s.empty_rows), (1, 2, 0));
}

gpu_blas::device_tests! {
    fn spmv_every_kernel(dev) { all_types(dev); }
    fn csr_validation(dev) { validation(dev); }
    fn csr_sprs_round_trip(dev) { sprs_round_trip(dev); }
}
