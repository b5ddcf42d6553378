//! Variable-size batches: the same factors (bit for bit, on the CPU) as uniform batches of each size,
//! solve and inverse residuals, every scalar type.

use crate::common::*;
use batched_lu::{
    getrf_batched, getrf_vbatched, getri_vbatched, getrs_vbatched, BatchLayout, VarBatch,
};
use gpu_blas::blas2::Trans;
use gpu_blas::{Device, DeviceVec, Scalar};
use num_complex::{Complex32, Complex64};

fn vbatch<T: Scalar>(dev: &Device) {
    let sizes = vec![5usize, 0, 1, 17, 3, 40, 33, 2, 64, 100, 190];
    // Stored in reverse order with gaps of 2 (NaN) between matrices.
    let mut offsets = vec![0; sizes.len()];
    let mut at = 0;
    for k in (0..sizes.len()).rev() {
        offsets[k] = at;
        at += sizes[k] * sizes[k] + 2;
    }
    let vb = VarBatch {
        sizes: sizes.clone(),
        offsets: offsets.clone(),
    };
    let mut buf = vec![T::from_f64(f64::NAN); at];
    let mats: Vec<Vec<T>> = sizes
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            if k == 4 {
                zero_col::<T>(n, 1, 5)
            } else {
                well::<T>(n, k as u64 + 100)
            }
        })
        .collect();
    for k in 0..sizes.len() {
        buf[offsets[k]..offsets[k] + sizes[k] * sizes[k]].copy_from_slice(&mats[k]);
    }
    let mut a = DeviceVec::from_slice(dev, &buf).unwrap();
    let mut piv = DeviceVec::zeros(dev, vb.pivot_len()).unwrap();
    let mut info = DeviceVec::zeros(dev, sizes.len()).unwrap();
    let r = getrf_vbatched(&vb, &mut a, &mut piv, &mut info);
    r.unwrap();
    let (f, pv, inf) = (
        a.to_vec().unwrap(),
        piv.to_vec().unwrap(),
        info.to_vec().unwrap(),
    );
    assert_eq!(inf, vec![0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]);
    let mut start = 0;
    for (k, &n) in sizes.iter().enumerate() {
        let fk = &f[offsets[k]..offsets[k] + n * n];
        let pk = &pv[start..start + n];
        assert_lu(n, &mats[k], fk, pk, "vbatched");
        // Same bits as the uniform driver.
        let mut u = DeviceVec::from_slice(dev, &mats[k]).unwrap();
        let mut up = DeviceVec::zeros(dev, n).unwrap();
        let mut ui = DeviceVec::zeros(dev, 1).unwrap();
        getrf_batched(BatchLayout::packed(n, 1), &mut u, &mut up, &mut ui).unwrap();
        // One code path per matrix on the CPU: the same bits. A GPU may pick a different
        // kernel (or panel width) for a uniform batch, so only the reconstruction above holds.
        if dev.is_cpu() {
            assert!(u.to_vec().unwrap() == fk && up.to_vec().unwrap() == pk);
        }
        start += n;
    }
    let gaps_nan = (0..sizes.len()).all(|k| {
        let e = offsets[k] + sizes[k] * sizes[k];
        f[e..e + 2].iter().all(|v| v.is_nan())
    });
    assert!(gaps_nan, "gap written");

    for trans in [Trans::N, Trans::T, Trans::C] {
        let b0 = random_values::<T>(vb.pivot_len(), 7);
        let mut b = DeviceVec::from_slice(dev, &b0).unwrap();
        getrs_vbatched(&vb, trans, &a, &piv, &mut b).unwrap();
        let x = b.to_vec().unwrap();
        let mut s = 0;
        for (k, &n) in sizes.iter().enumerate() {
            if k != 4 {
                assert_solve(n, trans, &mats[k], &x[s..s + n], &b0[s..s + n], 1);
            }
            s += n;
        }
    }

    let mut inv = DeviceVec::from_slice(dev, &buf).unwrap();
    getri_vbatched(&vb, &a, &piv, &info, &mut inv).unwrap();
    let x = inv.to_vec().unwrap();
    for (k, &n) in sizes.iter().enumerate() {
        let xk = &x[offsets[k]..offsets[k] + n * n];
        if k == 4 {
            assert!(xk.iter().all(|v| v.is_nan()));
        } else {
            assert_inverse(n, &mats[k], xk, "vbatched inverse");
        }
    }
}

gpu_blas::device_tests! {
    fn vbatched_all_types(dev) {
        vbatch::<f32>(dev);
        vbatch::<f64>(dev);
        vbatch::<Complex32>(dev);
        vbatch::<Complex64>(dev);
    }
}
