//! Typed errors: lengths, strides, non-finite input, bad pivots, devices; nothing written on
//! error.

use crate::common::*;
use batched_lu::{
    getrf_batched, getrf_vbatched, getri_batched, getrs_batched, getrs_vbatched, inverse_batched,
    solve_batched, BatchLayout, VarBatch,
};
use gpu_blas::blas2::Trans;
use gpu_blas::{Device, DeviceVec, Error};

fn is_dims<R: std::fmt::Debug>(r: gpu_blas::Result<R>) {
    assert!(
        matches!(r, Err(Error::DimensionMismatch { .. })),
        "expected DimensionMismatch, got {r:?}"
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
        assert_eq!(a.to_vec().unwrap(), a0, "a written on error");

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
    }

    fn non_finite_input_is_reported_and_nothing_written(dev) {
        let n = 4;
        let l = BatchLayout { n, batch: 3, stride: 20 };
        let mut buf = well::<f64>(20, 3).repeat(3);
        buf[16..20].fill(f64::NAN); // gaps are never read
        buf[2 * 20 + 1 + 2 * n] = f64::INFINITY; // matrix 2, (1, 2)
        let mut a = DeviceVec::from_slice(dev, &buf).unwrap();
        let mut piv = DeviceVec::from_slice(dev, &[9; 12]).unwrap();
        let mut info = DeviceVec::from_slice(dev, &[9; 3]).unwrap();
        let r = getrf_batched(l, &mut a, &mut piv, &mut info);
        assert_eq!(r, Err(Error::NonFinite { op: "getrf_batched", index: 49 }));
        let same = a.to_vec().unwrap().iter().zip(&buf).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same, "a written on error");
        assert_eq!(piv.to_vec().unwrap(), vec![9; 12]);
        assert_eq!(info.to_vec().unwrap(), vec![9; 3]);
        let mut inv = DeviceVec::zeros(dev, 60).unwrap();
        assert!(matches!(inverse_batched(l, &a, &mut inv, 20), Err(Error::NonFinite { index: 49, .. })));
        assert!(inv.to_vec().unwrap().iter().all(|&v| v == 0.0));
        let mut b = DeviceVec::zeros(dev, 12).unwrap();
        assert!(matches!(solve_batched(l, Trans::N, &a, &mut b, 1, 4), Err(Error::NonFinite { .. })));
        assert!(b.to_vec().unwrap().iter().all(|&v| v == 0.0), "b written on error");

        // The blocked kernels (n > 32): the bad value in the last matrix, after others that
        // would be factored first.
        let (n, batch) = (40, 5);
        let l = BatchLayout::packed(n, batch);
        let mut buf = well::<f64>(n, 7).repeat(batch);
        let bad = (batch - 1) * n * n + 3 * n + 39;
        buf[bad] = f64::NEG_INFINITY;
        let mut a = DeviceVec::from_slice(dev, &buf).unwrap();
        let mut piv = DeviceVec::from_slice(dev, &vec![9; n * batch]).unwrap();
        let mut info = DeviceVec::from_slice(dev, &[9; 5]).unwrap();
        let r = getrf_batched(l, &mut a, &mut piv, &mut info);
        assert_eq!(r, Err(Error::NonFinite { op: "getrf_batched", index: bad }));
        assert_eq!(a.to_vec().unwrap(), buf, "a written on error");
        assert_eq!(piv.to_vec().unwrap(), vec![9; n * batch]);
        assert_eq!(info.to_vec().unwrap(), vec![9; batch]);
        let mut inv = DeviceVec::zeros(dev, n * n * batch).unwrap();
        assert!(matches!(inverse_batched(l, &a, &mut inv, n * n), Err(Error::NonFinite { .. })));
        assert!(inv.to_vec().unwrap().iter().all(|&v| v == 0.0), "inv written on error");
        let mut b = DeviceVec::zeros(dev, n * 2 * batch).unwrap();
        assert!(matches!(solve_batched(l, Trans::T, &a, &mut b, 2, 2 * n), Err(Error::NonFinite { .. })));
        assert!(b.to_vec().unwrap().iter().all(|&v| v == 0.0), "b written on error");

        let vb = VarBatch { sizes: vec![1, 2], offsets: vec![10, 0] };
        let vbuf = [1.0, 2.0, f64::NAN, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0];
        let mut va = DeviceVec::from_slice(dev, &vbuf).unwrap();
        let mut vp = DeviceVec::zeros(dev, 3).unwrap();
        let mut vi = DeviceVec::zeros(dev, 2).unwrap();
        assert_eq!(getrf_vbatched(&vb, &mut va, &mut vp, &mut vi), Err(Error::NonFinite { op: "getrf_vbatched", index: 2 }));
        let same = va.to_vec().unwrap().iter().zip(&vbuf).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same, "va written on error");
        assert_eq!((vp.to_vec().unwrap(), vi.to_vec().unwrap()), (vec![0; 3], vec![0; 2]));
    }

    fn invalid_pivots_are_out_of_bounds(dev) {
        let l = BatchLayout::packed(2, 2);
        let a = DeviceVec::from_slice(dev, &[1.0f64; 8]).unwrap();
        let piv = DeviceVec::from_slice(dev, &[1, 2, 3, 2]).unwrap();
        let info = DeviceVec::zeros(dev, 2).unwrap();
        let mut b = DeviceVec::zeros(dev, 4).unwrap();
        let r = getrs_batched(l, Trans::N, &a, &piv, &mut b, 1, 2);
        assert!(matches!(r, Err(Error::OutOfBounds { .. })), "{r:?}");
        assert_eq!(b.to_vec().unwrap(), vec![0.0; 4], "b written on error");
        let mut inv = DeviceVec::zeros(dev, 8).unwrap();
        let r = getri_batched(l, &a, &piv, &info, &mut inv, 4);
        assert!(matches!(r, Err(Error::OutOfBounds { .. })), "{r:?}");
        assert_eq!(inv.to_vec().unwrap(), vec![0.0; 8], "inv written on error");
        // The blocked kernels (n > 32): one bad pivot in the last matrix.
        let (n, batch) = (36, 3);
        let l = BatchLayout::packed(n, batch);
        let a = DeviceVec::from_slice(dev, &well::<f64>(n, 2).repeat(batch)).unwrap();
        let mut p: Vec<i32> = (1..=n as i32).cycle().take(n * batch).collect();
        p[n * batch - 5] = n as i32 + 1;
        let piv = DeviceVec::from_slice(dev, &p).unwrap();
        let info = DeviceVec::zeros(dev, batch).unwrap();
        let mut b = DeviceVec::zeros(dev, n * batch).unwrap();
        let r = getrs_batched(l, Trans::N, &a, &piv, &mut b, 1, n);
        assert!(matches!(r, Err(Error::OutOfBounds { .. })), "{r:?}");
        assert!(b.to_vec().unwrap().iter().all(|&v| v == 0.0), "b written on error");
        let mut inv = DeviceVec::zeros(dev, n * n * batch).unwrap();
        let r = getri_batched(l, &a, &piv, &info, &mut inv, n * n);
        assert!(matches!(r, Err(Error::OutOfBounds { .. })), "{r:?}");
        assert!(inv.to_vec().unwrap().iter().all(|&v| v == 0.0), "inv written on error");
    }

    fn each_scan_reports_its_own_first_bad_index(dev) {
        // The device word the scans report in is kept from call to call: an index found by one
        // call must neither leak into the next nor hide a larger one found later.
        let (n, batch) = (3, 4);
        let l = BatchLayout::packed(n, batch);
        let good = well::<f64>(n, 5).repeat(batch);
        let factor = |bad: Option<usize>| {
            let mut buf = good.clone();
            if let Some(i) = bad {
                buf[i] = f64::NAN;
            }
            let mut a = DeviceVec::from_slice(dev, &buf).unwrap();
            let mut piv = DeviceVec::zeros(dev, n * batch).unwrap();
            let mut info = DeviceVec::zeros(dev, batch).unwrap();
            getrf_batched(l, &mut a, &mut piv, &mut info)
        };
        for bad in [Some(30), None, None, Some(3), Some(35), Some(0), None, Some(35), None] {
            let want = match bad {
                Some(index) => Err(Error::NonFinite { op: "getrf_batched", index }),
                None => Ok(()),
            };
            assert_eq!(factor(bad), want, "NaN at {bad:?}");
        }

        let mut a = DeviceVec::from_slice(dev, &good).unwrap();
        let (mut piv, mut info) = (DeviceVec::zeros(dev, n * batch).unwrap(), DeviceVec::zeros(dev, batch).unwrap());
        getrf_batched(l, &mut a, &mut piv, &mut info).unwrap();
        let pivots = piv.to_vec().unwrap();
        let mut inv = DeviceVec::<f64>::zeros(dev, n * n * batch).unwrap();
        for bad in [Some(7), None, Some(11), Some(2), None, Some(11), None] {
            let mut p = pivots.clone();
            if let Some(i) = bad {
                p[i] = 0;
            }
            let p = DeviceVec::from_slice(dev, &p).unwrap();
            let r = getri_batched(l, &a, &p, &info, &mut inv, n * n);
            match bad {
                None => assert_eq!(r, Ok(()), "valid pivots after an invalid one"),
                Some(i) => {
                    let msg = format!("{r:?}");
                    assert!(matches!(r, Err(Error::OutOfBounds { op: "getri_batched", .. })), "{msg}");
                    assert!(msg.contains(&format!("pivots[{i}] = 0 ")), "pivot {i}: {msg}");
                }
            }
        }
    }

    fn first_of_several_non_finite_elements(dev) {
        // The scan reads a few elements per lane before testing them: the reported index is
        // still the smallest, within a lane's group (37 before 69), across lanes (131 is later)
        // and across matrices (matrix 2's element 5 is later than matrix 1's 37).
        for n in [20usize, 40] {
            let l = BatchLayout::packed(n, 3);
            let nn = n * n;
            let mut buf = well::<f32>(n, 9).repeat(3);
            for (i, v) in [(69, f32::NAN), (37, f32::INFINITY), (131, f32::NAN)] {
                buf[nn + i] = v;
            }
            buf[2 * nn + 5] = f32::NEG_INFINITY;
            let mut a = DeviceVec::from_slice(dev, &buf).unwrap();
            let mut piv = DeviceVec::zeros(dev, n * 3).unwrap();
            let mut info = DeviceVec::zeros(dev, 3).unwrap();
            let r = getrf_batched(l, &mut a, &mut piv, &mut info);
            assert_eq!(r, Err(Error::NonFinite { op: "getrf_batched", index: nn + 37 }), "n = {n}");
            let same = a.to_vec().unwrap().iter().zip(&buf).all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same, "n = {n}: a written on error");
        }
    }

    fn concurrent_calls_report_their_own_errors(dev) {
        // Several threads scanning on one device at once (on a GPU they share its stream; one
        // holds the cached scan word, the others take a temporary one).
        let (n, batch) = (4, 50);
        let l = BatchLayout::packed(n, batch);
        let nn = n * n * batch;
        // Racecheck loses track of kernel launches queued from several host threads at once
        // ("failed to track a kernel launch"); under the sanitizer the same calls run on one
        // thread (memcheck ran the concurrent form clean).
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
                        let r = inverse_batched(l, &a, &mut inv, n * n).map(|_| ());
                        match bad {
                            Some(index) => assert_eq!(r, Err(Error::NonFinite { op: "inverse_batched", index }), "thread {t}, call {it}"),
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
