//! Level 1 at its edges: accuracy of the compensated dot, norms of extreme values, NaN rules,
//! sizes above a million, matrix rows and columns as vectors, and typed errors for bad input.

mod common;

use common::*;
use gpu_blas::{blas1, Device, DeviceMatrix, DeviceScalar, DeviceVec, Error, Scalar};
use ndarray::Array2;
use num_complex::{Complex32, Complex64};

/// Sum of 10⁶ × 0.001 in f32: sequential summation drifts to ~991, the compensated dot stays
/// within a few ulps of 1000.
fn compensated_million(dev: &Device) {
    let n = 1_000_000;
    let x = DeviceVec::from_vec(dev, vec![0.001f32; n]).unwrap();
    let ones = DeviceVec::from_vec(dev, vec![1.0f32; n]).unwrap();
    let sequential = (0..n).fold(0.0f32, |s, _| s + 0.001f32);
    assert!(
        (sequential - 1000.0).abs() > 5.0,
        "sequential f32 sum was {sequential}"
    );
    let exact = n as f64 * 0.001f32 as f64; // the exact sum of the f32 values
    let got = blas1::dot_compensated(&x, &ones).unwrap();
    let ulp = 1000.0f32 * f32::EPSILON;
    assert!(
        (got as f64 - exact).abs() <= 3.0 * ulp as f64,
        "compensated: {got}, exact {exact}"
    );
}

/// Huge cancellation: the plain sum loses everything, the compensated one keeps it.
fn compensated_cancellation(dev: &Device) {
    let mut v = vec![1.0f64; 4097];
    for (i, e) in v.iter_mut().enumerate() {
        *e = if i % 2 == 0 { 1e17 } else { -1e17 };
    }
    v[4096] = 0.0;
    v[17] += 3.0; // -1e17 + 3 rounds to -1e17 + 0 or 16; use the rounded value in the reference
    let x = DeviceVec::from_slice(dev, &v).unwrap();
    let ones = DeviceVec::from_slice(dev, &vec![1.0f64; v.len()]).unwrap();
    let want = fsum(v.iter().copied());
    assert_eq!(blas1::dot_compensated(&x, &ones).unwrap(), want);
    let z: Vec<Complex64> = v.iter().map(|&r| Complex64::new(r, -r)).collect();
    let zx = DeviceVec::from_slice(dev, &z).unwrap();
    let zo = DeviceVec::from_slice(dev, &vec![Complex64::new(1.0, 0.0); z.len()]).unwrap();
    assert_eq!(
        blas1::dotc_compensated(&zx, &zo).unwrap(),
        Complex64::new(want, want)
    );
}

fn nrm2_extremes(dev: &Device) {
    let check64 = |vals: Vec<f64>| {
        let want = ref_nrm2(&vals);
        let got = blas1::nrm2(&DeviceVec::from_slice(dev, &vals).unwrap()).unwrap();
        assert!(
            (got - want).abs() <= gamma::<f64>(vals.len()) * want,
            "nrm2 {:?}..: {got} vs {want}",
            &vals[..2]
        );
    };
    check64(vec![1e300; 1000]);
    check64(vec![1e-300; 1000]);
    check64(vec![4.9e-324; 64]); // subnormal
    let mut mixed = vec![1e-300; 500];
    mixed.extend(vec![1.0; 10]);
    mixed.extend(vec![1e200; 3]);
    check64(mixed.clone());
    mixed.truncate(510);
    check64(mixed);
    let check32 = |vals: Vec<f32>| {
        let want = ref_nrm2(&vals);
        let got = blas1::nrm2(&DeviceVec::from_slice(dev, &vals).unwrap()).unwrap() as f64;
        assert!(
            (got - want).abs() <= 2.0 * f32::EPSILON as f64 * want,
            "nrm2 f32: {got} vs {want}"
        ); // f64 accumulation: one f32 rounding
    };
    check32(vec![3e36; 1000]); // squares overflow f32, the norm (9.5e37) does not
    check32(vec![1e-40; 1000]);
    let z = vec![Complex64::new(3e300, 4e300); 7];
    let got = blas1::nrm2(&DeviceVec::from_slice(dev, &z).unwrap()).unwrap();
    assert!((got / (5e300 * 7f64.sqrt()) - 1.0).abs() < 4.0 * f64::EPSILON);
    let c = vec![Complex32::new(3e-30, -4e-30); 9];
    let got = blas1::nrm2(&DeviceVec::from_slice(dev, &c).unwrap()).unwrap();
    assert!((got as f64 / 15e-30 - 1.0).abs() < 4.0 * f32::EPSILON as f64);
    // NaN and infinity propagate.
    assert!(
        blas1::nrm2(&DeviceVec::from_slice(dev, &[1.0, f64::NAN, 2.0]).unwrap())
            .unwrap()
            .is_nan()
    );
    assert_eq!(
        blas1::nrm2(&DeviceVec::from_slice(dev, &[1.0, f64::INFINITY]).unwrap()).unwrap(),
        f64::INFINITY
    );
    assert_eq!(
        blas1::nrm2(&DeviceVec::<f64>::zeros(dev, 0).unwrap()).unwrap(),
        0.0
    );
}

fn iamax_rules(dev: &Device) {
    let v = |s: &[f64]| DeviceVec::from_slice(dev, s).unwrap();
    assert_eq!(blas1::iamax(&v(&[])).unwrap(), None);
    assert_eq!(blas1::iamax(&v(&[-2.0])).unwrap(), Some(0));
    assert_eq!(blas1::iamax(&v(&[1.0, -5.0, 5.0, 5.0])).unwrap(), Some(1));
    assert_eq!(
        blas1::iamax(&v(&[1.0, f64::INFINITY, f64::NAN, f64::NAN])).unwrap(),
        Some(2)
    );
    // A long vector with the maximum repeated: the first occurrence wins across blocks.
    let mut long = random_values::<f64>(1 << 20, 3);
    long[700_001] = 9.0;
    long[12] = -9.0;
    long[999_999] = 9.0;
    assert_eq!(blas1::iamax(&v(&long)).unwrap(), Some(12));
    let z = [
        Complex32::new(3.0, -4.0),
        Complex32::new(-5.0, 1.9),
        Complex32::new(0.0, 7.0),
    ];
    // |re|+|im|: 7, 6.9, 7 -> the first 7
    assert_eq!(
        blas1::iamax(&DeviceVec::from_slice(dev, &z).unwrap()).unwrap(),
        Some(0)
    );
}

/// Every operation at a size above a million, against the f64 reference.
fn large<T: Scalar>(dev: &Device) {
    let n = 1_048_579; // 2^20 + 3: vector body plus a ragged tail
    let xs = random_values::<T>(n, 11);
    let ys = random_values::<T>(n, 12);
    let x = DeviceVec::from_slice(dev, &xs).unwrap();
    let mut y = DeviceVec::from_slice(dev, &ys).unwrap();
    let (want, bound) = ref_dot(&xs, &ys, true);
    assert_close(
        "dotc large",
        c64(blas1::dotc(&x, &y).unwrap()),
        want,
        gamma::<T>(n) * bound,
    );
    let exact = exact_dot(&xs, &ys, false);
    let tol = 2.0 * eps::<T>() * exact.norm() + gamma::<T>(n).powi(2) * bound;
    assert_close(
        "dot2 large",
        c64(blas1::dot_compensated(&x, &y).unwrap()),
        exact,
        tol,
    );
    let nrm = ref_nrm2(&xs);
    assert!((f(blas1::nrm2(&x).unwrap()) - nrm).abs() <= gamma::<T>(n) * nrm);
    assert_eq!(blas1::iamax(&x).unwrap(), ref_iamax(&xs));
    let alpha = T::from_parts(
        <T::Real as Scalar>::from_f64(0.5),
        <T::Real as Scalar>::from_f64(-0.25),
    );
    blas1::axpy(alpha, &x, &mut y).unwrap();
    let got = y.to_vec().unwrap();
    for i in (0..n).step_by(4099).chain(n - 5..n) {
        let w = c64(alpha) * c64(xs[i]) + c64(ys[i]);
        assert_close(
            "axpy large",
            c64(got[i]),
            w,
            8.0 * eps::<T>() * (w.norm() + 1.0),
        );
    }
}

fn large_all(dev: &Device) {
    large::<f32>(dev);
    large::<f64>(dev);
    large::<Complex32>(dev);
    large::<Complex64>(dev);
}

/// Rows (increment ld) and columns of a matrix with padding are vectors to every operation.
fn matrix_rows_and_columns(dev: &Device) {
    let (m, n, ld) = (37, 29, 41);
    let vals = random_values::<f64>(ld * n, 5);
    let a = DeviceMatrix::from_col_major(dev, m, n, ld, vals.clone()).unwrap();
    let host = Array2::from_shape_fn((m, n), |(i, j)| vals[i + j * ld]);
    assert_eq!(a.to_array().unwrap(), host);
    let r = a.row(7).unwrap();
    let c = a.col(3).unwrap();
    assert_eq!(r.to_vec().unwrap(), host.row(7).to_vec());
    let (want, bound) = ref_dot(&host.row(7).to_vec(), &host.row(7).to_vec(), false);
    assert_close(
        "row·row",
        c64(blas1::dot(r, r).unwrap()),
        want,
        gamma::<f64>(n) * bound,
    );
    assert_eq!(
        blas1::iamax(c).unwrap(),
        ref_iamax(&host.column(3).to_vec())
    );
    let blk = a.block(2, 3, 10, 4).unwrap();
    assert_eq!(
        blk.to_array().unwrap(),
        host.slice(ndarray::s![2..12, 3..7]).to_owned()
    );
    // Scale a row in place and swap two columns.
    let mut a = a;
    blas1::scal(2.0, a.row_mut(7).unwrap()).unwrap();
    let mut expect = host.clone();
    expect.row_mut(7).mapv_inplace(|v| 2.0 * v);
    assert_eq!(a.to_array().unwrap(), expect);
    let c0 = a.col(0).unwrap().to_vec().unwrap();
    let mut tmp = DeviceVec::from_slice(dev, &c0).unwrap();
    blas1::swap(a.col_mut(5).unwrap(), &mut tmp).unwrap();
    blas1::copy(&tmp, a.col_mut(0).unwrap()).unwrap();
    let got = a.to_array().unwrap();
    assert_eq!(got.column(0), expect.column(5));
    assert_eq!(got.column(5).to_vec(), c0);
    // Padding rows stay untouched by row operations.
    let mut bm = a.block_mut(0, 0, 3, 3).unwrap();
    blas1::scal(0.0, bm.row_mut(1).unwrap()).unwrap();
    assert_eq!(a.row(1).unwrap().to_vec().unwrap()[..3], [0.0; 3]);
}

fn bad_input(dev: &Device) {
    let x = DeviceVec::from_slice(dev, &[1.0f64, 2.0, 3.0]).unwrap();
    let mut y = DeviceVec::from_slice(dev, &[1.0f64, 2.0]).unwrap();
    assert!(matches!(
        blas1::dot(&x, &y),
        Err(Error::DimensionMismatch { op: "dot", .. })
    ));
    assert!(matches!(
        blas1::axpy(1.0, &x, &mut y),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        blas1::copy(&x, &mut y),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        x.strided(0, 2, 0),
        Err(Error::InvalidIncrement { inc: 0, .. })
    ));
    assert!(matches!(x.strided(1, 2, 2), Err(Error::OutOfBounds { .. })));
    assert!(matches!(
        x.strided(0, 3, -2),
        Err(Error::OutOfBounds { .. })
    ));
    let back = x.strided(0, 3, -1).unwrap();
    assert!(matches!(
        blas1::nrm2(back),
        Err(Error::InvalidIncrement {
            op: "nrm2",
            inc: -1,
            ..
        })
    ));
    assert!(matches!(
        blas1::asum(back),
        Err(Error::InvalidIncrement { .. })
    ));
    assert!(matches!(
        blas1::iamax(back),
        Err(Error::InvalidIncrement { .. })
    ));
    let mut z = DeviceVec::from_slice(dev, &[1.0f64, 2.0]).unwrap();
    assert!(matches!(
        blas1::scal(2.0, z.strided_mut(0, 2, -1).unwrap()),
        Err(Error::InvalidIncrement { .. })
    ));
    assert_eq!(
        z.to_vec().unwrap(),
        vec![1.0, 2.0],
        "a rejected call leaves data untouched"
    );
    let a = DeviceMatrix::<f64>::zeros(dev, 3, 2).unwrap();
    assert!(matches!(a.row(3), Err(Error::OutOfBounds { .. })));
    assert!(matches!(
        a.block(1, 1, 3, 1),
        Err(Error::OutOfBounds { .. })
    ));
    assert!(matches!(
        DeviceMatrix::from_col_major(dev, 3, 2, 2, vec![0.0f64; 6]),
        Err(Error::DimensionMismatch { .. })
    ));
    // Operands on two devices are refused, never copied.
    if dev.is_cuda() {
        let cpu = DeviceVec::from_slice(&Device::cpu(), &[1.0f64, 2.0, 3.0]).unwrap();
        assert!(matches!(
            blas1::dot(&x, &cpu),
            Err(Error::DeviceMismatch { .. })
        ));
        let mut out = DeviceScalar::new(&Device::cpu(), 0.0f64).unwrap();
        assert!(matches!(
            blas1::dot_into(&x, &x, &mut out),
            Err(Error::DeviceMismatch { .. })
        ));
        let moved = cpu.to_device(dev).unwrap();
        assert_eq!(blas1::dot(&x, &moved).unwrap(), 14.0);
    }
}

fn ndarray_round_trip(dev: &Device) {
    let a = ndarray::array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let m = DeviceMatrix::from_array(dev, &a).unwrap();
    assert_eq!(m.to_array().unwrap(), a);
    let t = DeviceMatrix::from_array(dev, &a.t()).unwrap(); // non-standard layout in
    assert_eq!(t.to_array().unwrap(), a.t().to_owned());
    let v = ndarray::array![Complex64::new(1.0, 2.0), Complex64::new(-3.0, 0.5)];
    let dv = DeviceVec::from_array(dev, &v.slice(ndarray::s![..;-1])).unwrap();
    assert_eq!(
        dv.to_array().unwrap(),
        v.slice(ndarray::s![..;-1]).to_owned()
    );
    let cl = dv.try_clone().unwrap();
    assert_eq!(cl.to_vec().unwrap(), dv.to_vec().unwrap());
    assert_eq!(
        cl.to_device(&Device::cpu()).unwrap().to_vec().unwrap(),
        dv.to_vec().unwrap()
    );
}

/// `MatMut::copy_from` between blocks of matrices with leading dimensions larger than their
/// rows: the block is copied, everything around it in the destination stays NaN.
fn block_copy<T: Scalar>(dev: &Device) {
    for (rows, cols) in [(0, 3), (3, 0), (1, 1), (5, 3), (33, 17), (130, 65)] {
        let (sld, dld) = (rows + 4, rows + 7);
        let src: Vec<T> = random_values(sld * (cols + 2), rows as u64 + 1);
        let a = DeviceMatrix::from_col_major(dev, sld, cols + 2, sld, src.clone()).unwrap();
        let nan = T::from_f64(f64::NAN);
        let mut b =
            DeviceMatrix::from_col_major(dev, dld, cols + 1, dld, vec![nan; dld * (cols + 1)])
                .unwrap();
        let s = a.block(2, 1, rows, cols).unwrap();
        b.block_mut(3, 1, rows, cols)
            .unwrap()
            .copy_from(&s)
            .unwrap();
        let got = b.to_array().unwrap();
        for j in 0..cols + 1 {
            for i in 0..dld {
                let inside = (3..3 + rows).contains(&i) && (1..1 + cols).contains(&j);
                if inside {
                    assert_eq!(
                        got[(i, j)],
                        src[(i - 1) + j * sld],
                        "{rows}x{cols} ({i}, {j})"
                    );
                } else {
                    assert!(got[(i, j)].is_nan(), "{rows}x{cols}: ({i}, {j}) written");
                }
            }
        }
    }
    // Shapes must match.
    let a = DeviceMatrix::<T>::zeros(dev, 2, 2).unwrap();
    let mut b = DeviceMatrix::<T>::zeros(dev, 2, 3).unwrap();
    let r = b.view_mut().copy_from(&a.view());
    assert!(matches!(r, Err(Error::DimensionMismatch { .. })), "{r:?}");
}

gpu_blas::device_tests! {
    fn block_copy_all_types(dev) {
        block_copy::<f32>(dev);
        block_copy::<f64>(dev);
        block_copy::<Complex32>(dev);
        block_copy::<Complex64>(dev);
    }
    fn compensated_dot_million(dev) { compensated_million(dev); }
    fn compensated_dot_cancellation(dev) { compensated_cancellation(dev); }
    fn nrm2_overflow_underflow(dev) { nrm2_extremes(dev); }
    fn iamax_ties_and_nan(dev) { iamax_rules(dev); }
    fn above_a_million(dev) { large_all(dev); }
    fn matrix_views(dev) { matrix_rows_and_columns(dev); }
    fn typed_errors(dev) { bad_input(dev); }
    fn ndarray_conversions(dev) { ndarray_round_trip(dev); }
}

#[test]
fn cuda_device_errors_are_values() {
    // An absurd ordinal is an error (never a panic), with or without a driver.
    let e = Device::cuda(4096).unwrap_err();
    assert!(matches!(e, Error::CudaUnavailable(_)), "{e}");
    assert!(Device::cpu().is_cpu());
    let auto = Device::auto();
    assert_eq!(auto.is_cuda(), Device::cuda(0).is_ok());
}
