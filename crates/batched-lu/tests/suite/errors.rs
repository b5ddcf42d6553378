//! Bad input: typed errors for lengths, strides and devices (nothing written); matrices with a
//! NaN or an infinity left unchanged and reported in `info` while the rest of the batch is
//! factored; pivots outside `1..=n` giving NaN outputs for their matrix alone.

use crate::common::*;
use batched_lu::{
    getrf_batched, getrf_vbatched, getri_batched, getri_vbatched, getrs_batched, getrs_vbatched,
    inverse_batched, set_blocked_config, solve_batched, BatchLayout, Blocked, MatrixStatus, RegCap,
    VarBatch,
};
use gpu_blas::blas2::Trans;
use gpu_blas::{Device, DeviceVec, Error, Scalar};
use num_complex::{Complex32, Complex64};
use num_traits::FromPrimitive;

fn is_dims<R: std::fmt::Debug>(r: gpu_blas::Result<R>) {
    assert!(
        matches!(r, Err(Error::DimensionMismatch { .. })),
        "expected DimensionMismatch, got {r:?}"
    );
}

/// Bitwise equality (NaN included; widening to f64 maps bit patterns one to one).
fn same_bits<T: Scalar>(x: &[T], y: &[T]) -> bool {
    let bits = |v: &T| {
        let c = v.to_c64();
        (c.re.to_bits(), c.im.to_bits())
    };
    x.len() == y.len() && x.iter().zip(y).all(|(a, b)| bits(a) == bits(b))
}

/// An output of one matrix: all NaN where its input was `bad`, else bit for bit the output
/// computed without any bad input in the batch.
fn nan_or_same<T: Scalar>(bad: bool, got: &[T], clean: &[T], what: &str) {
    if bad {
        assert!(got.iter().all(|v| v.to_c64().is_nan()), "{what}: not NaN");
    } else {
        assert!(
            same_bits(got, clean),
            "{what}: differs from the clean batch's"
        );
    }
}

/// A non-finite value of kind `i`: NaN, +∞, −∞, and for complex types an infinite or NaN
/// imaginary part beside a finite real one.
fn non_finite<T: Scalar>(i: usize) -> T {
    let r = |v: f64| <T::Real as FromPrimitive>::from_f64(v).unwrap();
    match (i % 5, T::IS_COMPLEX) {
        (0, _) => T::from_f64(f64::NAN),
        (1, _) => T::from_f64(f64::INFINITY),
        (2, _) => T::from_f64(f64::NEG_INFINITY),
        (3, true) => T::from_parts(r(1.0), r(f64::INFINITY)),
        (_, true) => T::from_parts(r(-2.0), r(f64::NAN)),
        (_, false) => T::from_f64(f64::NAN),
    }
}

/// Factors, pivots and info of `a` (a uniform batch), on `dev`.
fn factor<T: Scalar>(dev: &Device, l: BatchLayout, a: &[T]) -> (Vec<T>, Vec<i32>, Vec<i32>) {
    let mut f = DeviceVec::from_slice(dev, a).unwrap();
    let mut piv = DeviceVec::from_slice(dev, &vec![-7; l.n * l.batch]).unwrap();
    let mut info = DeviceVec::from_slice(dev, &vec![-7; l.batch]).unwrap();
    getrf_batched(l, &mut f, &mut piv, &mut info).unwrap();
    (
        f.to_vec().unwrap(),
        piv.to_vec().unwrap(),
        info.to_vec().unwrap(),
    )
}

/// Matrices `stride = n² + 1` elements apart (so that most start off a 16-byte boundary), with
/// non-finite entries at the first and last positions of some, where the validation's wide
/// loads take single elements: each bad matrix unchanged with pivots 1..=n and info −1 − (its
/// smallest bad position), the others factored, the gaps between matrices untouched.
fn unaligned_non_finite_case<T: Scalar>(dev: &Device, n: usize) {
    let (nn, batch) = (n * n, 6);
    let l = BatchLayout {
        n,
        batch,
        stride: nn + 1,
    };
    let what = format!("{} n = {n}, stride {}", T::PREFIX, nn + 1);
    let mut a: Vec<T> = random_values::<T>(l.stride * batch, 7 * n as u64);
    for k in 0..batch {
        let w = well::<T>(n, 90 + k as u64);
        a[k * l.stride..k * l.stride + nn].copy_from_slice(&w);
    }
    let bad = [
        (1usize, 0usize),
        (2, nn - 1),
        (3, nn - 2),
        (3, 1),
        (5, nn / 2),
    ];
    for (i, &(k, e)) in bad.iter().enumerate() {
        a[k * l.stride + e] = non_finite::<T>(i);
    }
    let mut f = DeviceVec::from_slice(dev, &a).unwrap();
    let mut piv = DeviceVec::from_slice(dev, &vec![-7; n * batch]).unwrap();
    let mut info = DeviceVec::from_slice(dev, &vec![-7; batch]).unwrap();
    getrf_batched(l, &mut f, &mut piv, &mut info).unwrap();
    let (f, piv, info) = (
        f.to_vec().unwrap(),
        piv.to_vec().unwrap(),
        info.to_vec().unwrap(),
    );
    for (k, &ik) in info.iter().enumerate() {
        let (r, rp) = (k * l.stride..k * l.stride + nn, k * n..(k + 1) * n);
        let gap = k * l.stride + nn;
        assert!(
            same_bits(&f[gap..gap + 1], &a[gap..gap + 1]),
            "{what}: gap after matrix {k}"
        );
        match bad.iter().filter(|b| b.0 == k).map(|b| b.1).min() {
            Some(e) => {
                assert!(
                    same_bits(&f[r.clone()], &a[r]),
                    "{what}: matrix {k} written"
                );
                assert_eq!(
                    piv[rp],
                    (1..=n as i32).collect::<Vec<_>>()[..],
                    "{what}: matrix {k}"
                );
                assert_eq!(ik, -1 - e as i32, "{what}: info of matrix {k}");
            }
            None => {
                assert_eq!(ik, 0, "{what}: info of matrix {k}");
                assert_lu(n, &a[r.clone()], &f[r], &piv[rp], &what);
            }
        }
    }
}

/// A variable-size batch with non-finite entries in some matrices (one an empty matrix's
/// neighbour): the bad ones left as they were with pivots 1..=n and their info, the others
/// factored as without them; their inverse NaN, the others' checked.
fn vbatched_non_finite_case<T: Scalar>(dev: &Device) {
    let sizes = [1usize, 2, 40, 100, 3, 0, 33];
    let vb = VarBatch::packed(&sizes);
    let clean: Vec<T> = sizes
        .iter()
        .enumerate()
        .flat_map(|(k, &n)| well::<T>(n, 40 + k as u64))
        .collect();
    let mut dirty = clean.clone();
    // Matrix 2 (n = 40) at its position 123, matrix 3 (n = 100) at 9999, matrix 6 at 0.
    let bad = [(2usize, 123usize), (3, 9999), (6, 0)];
    for (i, &(k, e)) in bad.iter().enumerate() {
        dirty[vb.offsets[k] + e] = non_finite::<T>(i);
    }
    let run = |a: &[T]| {
        let mut f = DeviceVec::from_slice(dev, a).unwrap();
        let mut p = DeviceVec::from_slice(dev, &vec![-3; vb.pivot_len()]).unwrap();
        let mut i = DeviceVec::from_slice(dev, &vec![-3; sizes.len()]).unwrap();
        getrf_vbatched(&vb, &mut f, &mut p, &mut i).unwrap();
        let check = vb.check_info(&i);
        (
            f.to_vec().unwrap(),
            p.to_vec().unwrap(),
            i.to_vec().unwrap(),
            check,
        )
    };
    let (fc, pc, ic, cc) = run(&clean);
    let (fd, pd, id, cd) = run(&dirty);
    assert_eq!(cc, Ok(ic.clone()));
    assert_eq!(
        cd,
        Err(Error::NonFinite {
            op: "getrf_vbatched",
            index: vb.offsets[2] + 123
        })
    );
    let mut ps = 0;
    for (k, &n) in sizes.iter().enumerate() {
        let (r, rp) = (vb.offsets[k]..vb.offsets[k] + n * n, ps..ps + n);
        ps += n;
        match bad.iter().find(|b| b.0 == k) {
            Some(&(_, e)) => {
                assert!(same_bits(&fd[r.clone()], &dirty[r]), "matrix {k} written");
                assert_eq!(pd[rp], (1..=n as i32).collect::<Vec<_>>()[..], "matrix {k}");
                assert_eq!(id[k], -1 - e as i32, "matrix {k}");
            }
            None => {
                assert!(same_bits(&fd[r.clone()], &fc[r.clone()]), "matrix {k}");
                assert_eq!(
                    (&pd[rp.clone()], id[k]),
                    (&pc[rp.clone()], ic[k]),
                    "matrix {k}"
                );
                assert_lu(
                    n,
                    &clean[r.clone()],
                    &fd[r],
                    &pd[rp],
                    &format!("{} vbatched {k}", T::PREFIX),
                );
            }
        }
    }
    // The inverse of the dirty factors: NaN for the bad matrices (info < 0).
    let f = DeviceVec::from_slice(dev, &fd).unwrap();
    let (p, i) = (
        DeviceVec::from_slice(dev, &pd).unwrap(),
        DeviceVec::from_slice(dev, &id).unwrap(),
    );
    let mut inv = DeviceVec::zeros(dev, vb.required_len()).unwrap();
    getri_vbatched(&vb, &f, &p, &i, &mut inv).unwrap();
    let inv = inv.to_vec().unwrap();
    for (k, &n) in sizes.iter().enumerate() {
        let r = vb.offsets[k]..vb.offsets[k] + n * n;
        let nan = inv[r.clone()]
            .iter()
            .all(|v| v.to_c64().re.is_nan() || v.to_c64().im.is_nan());
        match bad.iter().any(|b| b.0 == k) {
            true => assert!(nan, "inverse {k}"),
            false => assert_inverse(
                n,
                &clean[r.clone()],
                &inv[r],
                &format!("{} vbatched {k}", T::PREFIX),
            ),
        }
    }
}

/// A batch of `batch` random matrices of order `n` with the non-finite entries `bad`
/// (matrix, column-major position): each bad matrix must come back bit for bit unchanged with
/// pivots 1..=n and info −1 − (its smallest bad position); every other matrix must come back
/// exactly as from the same batch without the bad entries, and factored (reconstruction
/// against the host reference). `inverse_batched` and `solve_batched` give the bad matrices
/// NaN and the others the clean batch's results; `check_info` names the first bad entry.
fn non_finite_case<T: Scalar>(dev: &Device, n: usize, batch: usize, bad: &[(usize, usize)]) {
    let what = format!("{} n = {n}, batch {batch}, bad {bad:?}", T::PREFIX);
    let (nn, l) = (n * n, BatchLayout::packed(n, batch));
    let clean: Vec<T> = (0..batch)
        .flat_map(|k| well::<T>(n, 31 * n as u64 + k as u64))
        .collect();
    let mut dirty = clean.clone();
    for (i, &(k, e)) in bad.iter().enumerate() {
        dirty[k * nn + e] = non_finite::<T>(i);
    }
    let first = |k: usize| bad.iter().filter(|b| b.0 == k).map(|b| b.1).min();
    let (fc, pc, ic) = factor(dev, l, &clean);
    let (fd, pd, id) = factor(dev, l, &dirty);
    for k in 0..batch {
        let (r, rp) = (k * nn..(k + 1) * nn, k * n..(k + 1) * n);
        match first(k) {
            Some(e) => {
                assert!(
                    same_bits(&fd[r.clone()], &dirty[r]),
                    "{what}: matrix {k} written"
                );
                let identity: Vec<i32> = (1..=n as i32).collect();
                assert_eq!(pd[rp], identity[..], "{what}: pivots of matrix {k}");
                assert_eq!(id[k], -1 - e as i32, "{what}: info of matrix {k}");
                assert_eq!(
                    MatrixStatus::from_info(id[k]),
                    MatrixStatus::NonFinite { position: e }
                );
            }
            None => {
                assert!(
                    same_bits(&fd[r.clone()], &fc[r.clone()]),
                    "{what}: matrix {k}"
                );
                assert_eq!(
                    pd[rp.clone()],
                    pc[rp.clone()],
                    "{what}: pivots of matrix {k}"
                );
                assert_eq!(id[k], ic[k], "{what}: info of matrix {k}");
                assert_lu(n, &clean[r.clone()], &fd[r], &pd[rp], &what);
            }
        }
    }
    let k0 = (0..batch).find(|&k| first(k).is_some()).unwrap();
    let want = Err(Error::NonFinite {
        op: "getrf_batched",
        index: k0 * nn + first(k0).unwrap(),
    });
    let info_d = DeviceVec::from_slice(dev, &id).unwrap();
    assert_eq!(l.check_info(&info_d), want, "{what}");
    assert_eq!(
        l.check_info(&DeviceVec::from_slice(dev, &ic).unwrap()),
        Ok(ic.clone())
    );

    // The one-call drivers: `a` unchanged, NaN for the bad matrices, the rest as if clean.
    let ad = DeviceVec::from_slice(dev, &dirty).unwrap();
    let ac = DeviceVec::from_slice(dev, &clean).unwrap();
    let inverse = |a: &DeviceVec<T>| {
        let mut inv = DeviceVec::zeros(dev, batch * nn).unwrap();
        let info = inverse_batched(l, a, &mut inv, nn).unwrap();
        (inv.to_vec().unwrap(), info.to_vec().unwrap())
    };
    let nrhs = 2;
    let b0 = random_values::<T>(batch * n * nrhs, 7);
    let solve = |a: &DeviceVec<T>| {
        let mut b = DeviceVec::from_slice(dev, &b0).unwrap();
        let info = solve_batched(l, Trans::C, a, &mut b, nrhs, n * nrhs).unwrap();
        (b.to_vec().unwrap(), info.to_vec().unwrap())
    };
    let ((xd, xid), (xc, xic)) = (inverse(&ad), inverse(&ac));
    let ((bd, bid), (bc, bic)) = (solve(&ad), solve(&ac));
    assert!(
        same_bits(&ad.to_vec().unwrap(), &dirty),
        "{what}: a written"
    );
    assert_eq!((&xid, &bid), (&id, &id), "{what}: the drivers' info");
    assert_eq!(
        (&xic, &bic),
        (&ic, &ic),
        "{what}: the drivers' info (clean)"
    );
    for k in 0..batch {
        let (r, rb) = (k * nn..(k + 1) * nn, k * n * nrhs..(k + 1) * n * nrhs);
        let bad = first(k).is_some();
        nan_or_same(bad, &xd[r.clone()], &xc[r], &format!("{what}: inverse {k}"));
        nan_or_same(
            bad,
            &bd[rb.clone()],
            &bc[rb],
            &format!("{what}: solution {k}"),
        );
    }
}

/// `getri_batched` and `getrs_batched` with the pivots of a clean factorization, one of them
/// (matrix `k`, index `j`) replaced by `v` outside `1..=n`: NaN outputs for matrix `k`, the
/// other matrices' outputs unchanged; `check_pivots` names the pivot.
fn bad_pivot_case<T: Scalar>(dev: &Device, n: usize, batch: usize, (k, j, v): (usize, usize, i32)) {
    let what = format!("{} n = {n}, pivot {j} of matrix {k} = {v}", T::PREFIX);
    let (nn, l) = (n * n, BatchLayout::packed(n, batch));
    let a: Vec<T> = (0..batch)
        .flat_map(|k| well::<T>(n, 5 + k as u64))
        .collect();
    let (f, p, info) = factor(dev, l, &a);
    let mut pb = p.clone();
    pb[k * n + j] = v;
    let f = DeviceVec::from_slice(dev, &f).unwrap();
    let info = DeviceVec::from_slice(dev, &info).unwrap();
    let b0 = random_values::<T>(batch * n, 9);
    let run = |p: &[i32]| {
        let p = DeviceVec::from_slice(dev, p).unwrap();
        let mut inv = DeviceVec::zeros(dev, batch * nn).unwrap();
        getri_batched(l, &f, &p, &info, &mut inv, nn).unwrap();
        let mut b = DeviceVec::from_slice(dev, &b0).unwrap();
        getrs_batched(l, Trans::N, &f, &p, &mut b, 1, n).unwrap();
        (inv.to_vec().unwrap(), b.to_vec().unwrap())
    };
    let ((xg, bg), (xb, bb)) = (run(&p), run(&pb));
    for m in 0..batch {
        let (r, rb) = (m * nn..(m + 1) * nn, m * n..(m + 1) * n);
        nan_or_same(
            m == k,
            &xb[r.clone()],
            &xg[r],
            &format!("{what}: inverse {m}"),
        );
        nan_or_same(
            m == k,
            &bb[rb.clone()],
            &bg[rb],
            &format!("{what}: solution {m}"),
        );
    }
    assert_eq!(
        l.check_pivots(&DeviceVec::from_slice(dev, &p).unwrap()),
        Ok(())
    );
    let r = l.check_pivots(&DeviceVec::from_slice(dev, &pb).unwrap());
    let msg = format!("{r:?}");
    assert!(
        matches!(
            r,
            Err(Error::OutOfBounds {
                op: "check_pivots",
                ..
            })
        ),
        "{what}: {msg}"
    );
    assert!(
        msg.contains(&format!("pivots[{}] = {v} ", k * n + j)),
        "{what}: {msg}"
    );
}

gpu_blas::device_tests! {
    fn wrong_lengths_and_strides(dev) {
        let l = BatchLayout::packed(3, 2);
        let a0 = well::<f64>(3, 1).repeat(2);
        let mut a = DeviceVec::from_slice(dev, &a0).unwrap();
        let mut short = DeviceVec::from_slice(dev, &a0[..17]).unwrap();
        let mut piv = DeviceVec::zeros(dev, 6).unwrap();
        let mut piv5 = DeviceVec::zeros(dev, 5).unwrap();
        let mut info = DeviceVec::zeros(dev, 2).unwrap();
        let mut info3 = DeviceVec::zeros(dev, 3).unwrap();
        is_dims(getrf_batched(l, &mut short, &mut piv, &mut info));
        is_dims(getrf_batched(l, &mut a, &mut piv5, &mut info));
        is_dims(getrf_batched(l, &mut a, &mut piv, &mut info3));
        is_dims(getrf_batched(BatchLayout { stride: 8, ..l }, &mut a, &mut piv, &mut info));
        let mut b = DeviceVec::<f64>::zeros(dev, 11).unwrap();
        is_dims(getrs_batched(l, Trans::N, &a, &piv, &mut b, 2, 6)); // needs 12
        is_dims(getrs_batched(l, Trans::N, &a, &piv, &mut b, 2, 5)); // b_stride < 6
        is_dims(solve_batched(l, Trans::T, &a, &mut b, 2, 6));
        let mut inv = DeviceVec::<f64>::zeros(dev, 17).unwrap();
        is_dims(getri_batched(l, &a, &piv, &info, &mut inv, 9));
        is_dims(getri_batched(l, &a, &piv, &info3, &mut inv, 9));
        is_dims(inverse_batched(l, &a, &mut inv, 8));
        is_dims(inverse_batched(l, &a, &mut inv, 9));
        is_dims(l.check_info(&info3));
        is_dims(l.check_pivots(&piv5));
        assert_eq!(a.to_vec().unwrap(), a0, "a written on error");
        assert_eq!(b.to_vec().unwrap(), vec![0.0; 11], "b written on error");
        assert_eq!(inv.to_vec().unwrap(), vec![0.0; 17], "inv written on error");
        assert_eq!(piv.to_vec().unwrap(), vec![0; 6], "pivots written on error");

        let vb = VarBatch { sizes: vec![2, 2], offsets: vec![0, 3] }; // overlap
        let mut va = DeviceVec::<f64>::zeros(dev, 8).unwrap();
        let mut vp = DeviceVec::zeros(dev, 4).unwrap();
        is_dims(getrf_vbatched(&vb, &mut va, &mut vp, &mut info));
        let vb = VarBatch { sizes: vec![2, 2], offsets: vec![0] };
        is_dims(getrf_vbatched(&vb, &mut va, &mut vp, &mut info));
        let vb = VarBatch { sizes: vec![2, 2], offsets: vec![0, 5] }; // past the end
        is_dims(getrf_vbatched(&vb, &mut va, &mut vp, &mut info));
        let vb = VarBatch::packed(&[2, 2]);
        let mut vb3 = DeviceVec::<f64>::zeros(dev, 3).unwrap();
        is_dims(getrs_vbatched(&vb, Trans::N, &va, &vp, &mut vb3));
        is_dims(vb.check_info(&info3));
        is_dims(vb.check_pivots(&piv5));
    }

    fn non_finite_matrices_are_left_unchanged(dev) {
        // The register kernels: groups of 4 lanes (the last block partly empty), 32 lanes.
        non_finite_case::<f64>(dev, 4, 33, &[(0, 0), (5, 15), (5, 3), (32, 7)]);
        non_finite_case::<Complex64>(dev, 3, 9, &[(8, 8), (2, 4), (2, 1), (4, 2), (6, 5)]);
        // Several in one matrix, in different lanes: the smallest position is reported.
        non_finite_case::<f32>(dev, 20, 3, &[(1, 69), (1, 37), (1, 131), (2, 5)]);
        non_finite_case::<Complex64>(dev, 32, 3, &[(1, 1023), (1, 990)]);
        // The kernels compiled for one order (n = 4, 8, 16, 32): the last entry, the first.
        non_finite_case::<f32>(dev, 16, 5, &[(2, 255), (4, 0)]);
        non_finite_case::<Complex32>(dev, 8, 17, &[(16, 63), (0, 9)]);
        // The block-register kernels (f32 to 64, f64 to 48, c64 to 36).
        non_finite_case::<f32>(dev, 40, 4, &[(1, 39), (1, 1599), (3, 800)]);
        non_finite_case::<f64>(dev, 47, 3, &[(0, 2208), (2, 46)]);
        non_finite_case::<Complex32>(dev, 35, 3, &[(1, 1224), (1, 36)]);
        // The blocked kernels: real types read the matrix while one warp factors the first
        // panel, complex types before it; a bad entry in the first panel, in the last
        // column, and in matrices before and after good ones.
        non_finite_case::<f32>(dev, 100, 3, &[(0, 5), (2, 9999)]);
        non_finite_case::<f64>(dev, 70, 4, &[(1, 4899), (3, 2000), (3, 1999)]);
        non_finite_case::<Complex32>(dev, 100, 3, &[(1, 350), (1, 9000)]);
        non_finite_case::<Complex64>(dev, 65, 2, &[(0, 64 * 65 + 64)]);
        if !gpu_blas::testing::under_sanitizer() {
            non_finite_case::<f64>(dev, 200, 3, &[(1, 39999), (2, 0)]);
        }
    }

    fn non_finite_entries_of_unaligned_matrices(dev) {
        // The blocked kernels' types (f32 from 97, c64 from 65, c128 from 33), whose matrices
        // the scan before the factorization checks.
        unaligned_non_finite_case::<f32>(dev, 101);
        unaligned_non_finite_case::<Complex32>(dev, 67);
        unaligned_non_finite_case::<Complex64>(dev, 35);
        unaligned_non_finite_case::<f64>(dev, 41);
    }

    fn non_finite_in_every_blocked_configuration(dev) {
        // Each forced configuration, one-warp blocks included (the matrix is then read by
        // the panel's warp after the panel).
        struct Reset;
        impl Drop for Reset {
            fn drop(&mut self) {
                set_blocked_config(None);
            }
        }
        let _reset = Reset;
        for threads in [32, 64, 128, 256] {
            for (nb, regs) in [(8, RegCap::R80), (16, RegCap::R64), (32, RegCap::R48)] {
                set_blocked_config(Some(Blocked { nb, threads, regs }));
                non_finite_case::<f64>(dev, 40, 3, &[(1, 1599), (1, 17)]);
                non_finite_case::<Complex32>(dev, 33, 2, &[(0, 33 * 20 + 1)]);
            }
        }
    }

    fn variable_size_batches_with_non_finite_matrices(dev) {
        vbatched_non_finite_case::<f64>(dev);
        vbatched_non_finite_case::<f32>(dev);
        vbatched_non_finite_case::<Complex32>(dev);
        vbatched_non_finite_case::<Complex64>(dev);
    }

    fn invalid_pivots_give_nan_for_their_matrix(dev) {
        bad_pivot_case::<f64>(dev, 2, 3, (1, 0, 3));
        bad_pivot_case::<Complex32>(dev, 16, 4, (3, 15, 0));
        bad_pivot_case::<f64>(dev, 36, 3, (2, 31, 37)); // getri_mid, getrs blocked
        bad_pivot_case::<Complex32>(dev, 56, 3, (1, 20, -1)); // getri_mid, forward steps skipped
        bad_pivot_case::<f32>(dev, 200, 2, (0, 199, -5)); // the triangle-form inverse
        bad_pivot_case::<f64>(dev, 70, 3, (0, 0, i32::MAX)); // getri blocked above 128
        bad_pivot_case::<Complex64>(dev, 70, 2, (1, 69, i32::MIN));

        let vb = VarBatch::packed(&[3, 40]);
        let a: Vec<f64> = [well::<f64>(3, 1), well::<f64>(40, 2)].concat();
        let mut f = DeviceVec::from_slice(dev, &a).unwrap();
        let (mut p, mut i) = (DeviceVec::zeros(dev, 43).unwrap(), DeviceVec::zeros(dev, 2).unwrap());
        getrf_vbatched(&vb, &mut f, &mut p, &mut i).unwrap();
        let mut ph = p.to_vec().unwrap();
        ph[3 + 39] = 41;
        let p = DeviceVec::from_slice(dev, &ph).unwrap();
        let mut b = DeviceVec::from_slice(dev, &random_values::<f64>(43, 3)).unwrap();
        getrs_vbatched(&vb, Trans::N, &f, &p, &mut b).unwrap();
        let b = b.to_vec().unwrap();
        assert!(b[..3].iter().all(|v| v.is_finite()) && b[3..].iter().all(|v| v.is_nan()), "{b:?}");
        let r = vb.check_pivots(&p);
        assert!(matches!(r, Err(Error::OutOfBounds { .. })) && format!("{r:?}").contains("pivots[42] = 41 "), "{r:?}");
    }

    fn concurrent_calls_report_their_own_matrices(dev) {
        // Several threads on one device at once (on a GPU they share its stream).
        let (n, batch) = (4, 50);
        let l = BatchLayout::packed(n, batch);
        let nn = n * n * batch;
        // Racecheck loses track of kernel launches queued from several host threads at once
        // ("failed to track a kernel launch"); under the sanitizer the same calls run on one
        // thread.
        let threads = if gpu_blas::testing::under_sanitizer() { 1 } else { 4 };
        std::thread::scope(|s| {
            for t in 0..threads {
                s.spawn(move || {
                    for it in 0..25usize {
                        let mut buf = well::<f64>(n, (t * 100 + it) as u64).repeat(batch);
                        let bad = ((t + it) % 3 != 0).then(|| (t * 997 + it * 131) % nn);
                        if let Some(i) = bad {
                            buf[i] = f64::INFINITY;
                        }
                        let a = DeviceVec::from_slice(dev, &buf).unwrap();
                        let mut inv = DeviceVec::zeros(dev, nn).unwrap();
                        let info = inverse_batched(l, &a, &mut inv, n * n).unwrap();
                        let r = l.check_info(&info).map(|_| ());
                        match bad {
                            Some(index) => assert_eq!(r, Err(Error::NonFinite { op: "getrf_batched", index }), "thread {t}, call {it}"),
                            None => assert_eq!(r, Ok(()), "thread {t}, call {it}"),
                        }
                    }
                });
            }
        });
    }

    fn device_mismatch(dev) {
        if !dev.is_cuda() {
            return;
        }
        let cpu = Device::cpu();
        let l = BatchLayout::packed(2, 1);
        let mut a = DeviceVec::from_slice(dev, &[1.0f64, 0.0, 0.0, 1.0]).unwrap();
        let mut piv = DeviceVec::zeros(&cpu, 2).unwrap();
        let mut info = DeviceVec::zeros(dev, 1).unwrap();
        let r = getrf_batched(l, &mut a, &mut piv, &mut info);
        assert!(matches!(r, Err(Error::DeviceMismatch { .. })), "{r:?}");
        let mut piv = DeviceVec::zeros(dev, 2).unwrap();
        getrf_batched(l, &mut a, &mut piv, &mut info).unwrap();
        assert_eq!(info.to_vec().unwrap(), vec![0]);
        assert_eq!(piv.to_vec().unwrap(), vec![1, 2]);
    }
}
