//! Every blocked-kernel configuration the tuning table may choose (panel width, threads per
//! block, register cap), forced on the calling thread: factor reconstruction, inverse
//! residuals and transposed solves against the Complex64 host references. On the CPU the
//! override has no effect and the same checks run once per configuration.

use crate::common::*;
use batched_lu::{
    getrf_batched, getri_batched, getrs_batched, set_blocked_config, BatchLayout, Blocked, RegCap,
};
use gpu_blas::blas2::Trans;
use gpu_blas::{Device, DeviceVec, Scalar};
use num_complex::{Complex32, Complex64};

/// Resets the override when a check fails, so the thread's later tests use the table.
struct Reset;

impl Drop for Reset {
    fn drop(&mut self) {
        set_blocked_config(None);
    }
}

fn configs() -> Vec<Blocked> {
    let mut v = Vec::new();
    for nb in [8, 16, 32] {
        for threads in [32, 64, 96, 128, 160, 256] {
            for regs in [RegCap::R80, RegCap::R64, RegCap::R48] {
                v.push(Blocked { nb, threads, regs });
            }
        }
    }
    v
}

fn check<T: Scalar>(dev: &Device, n: usize, cfg: Blocked) {
    let what = format!("{} n = {n}, {cfg:?}", T::PREFIX);
    let seed = n as u64 * 5 + cfg.nb as u64;
    let mats = [
        well::<T>(n, seed),
        swap_every_step::<T>(n, seed + 1),
        ill::<T>(n, seed + 2),
    ];
    let l = BatchLayout::packed(n, mats.len());
    let a0: Vec<T> = mats.concat();
    let mut f = DeviceVec::from_slice(dev, &a0).unwrap();
    let mut piv = DeviceVec::zeros(dev, n * l.batch).unwrap();
    let mut info = DeviceVec::zeros(dev, l.batch).unwrap();
    getrf_batched(l, &mut f, &mut piv, &mut info).unwrap();
    let mut inv = DeviceVec::zeros(dev, l.batch * n * n).unwrap();
    getri_batched(l, &f, &piv, &info, &mut inv, n * n).unwrap();
    let nrhs = 2;
    let b0 = random_values::<T>(l.batch * n * nrhs, seed + 3);
    let mut b = DeviceVec::from_slice(dev, &b0).unwrap();
    getrs_batched(l, Trans::T, &f, &piv, &mut b, nrhs, n * nrhs).unwrap();
    let (fh, ph, ih) = (
        f.to_vec().unwrap(),
        piv.to_vec().unwrap(),
        info.to_vec().unwrap(),
    );
    let (xh, bh) = (inv.to_vec().unwrap(), b.to_vec().unwrap());
    assert_eq!(&ih[..2], &[0, 0], "{what}");
    for (k, m) in mats.iter().enumerate() {
        let r = k * n * n..(k + 1) * n * n;
        assert_lu(n, m, &fh[r.clone()], &ph[k * n..(k + 1) * n], &what);
        if k < 2 {
            assert_inverse(n, m, &xh[r], &what);
            let rb = k * n * nrhs..(k + 1) * n * nrhs;
            assert_solve(n, Trans::T, m, &bh[rb.clone()], &b0[rb], nrhs);
        }
    }
}

fn all_configs<T: Scalar>(dev: &Device, orders: &[usize]) {
    let _reset = Reset;
    for cfg in configs() {
        set_blocked_config(Some(cfg));
        for &n in orders {
            check::<T>(dev, n, cfg);
        }
    }
}

gpu_blas::device_tests! {
    fn every_blocked_configuration(dev) {
        if gpu_blas::testing::under_sanitizer() {
            // Every kernel variant once, at one order with a partial last panel, and for the
            // other types both one-warp configurations their tables use (c(16, 32, R48) and
            // c(8, 32, R80)).
            all_configs::<f64>(dev, &[40]);
            let _reset = Reset;
            for (nb, regs) in [(16, RegCap::R48), (8, RegCap::R80)] {
                let cfg = Blocked { nb, threads: 32, regs };
                set_blocked_config(Some(cfg));
                check::<f32>(dev, 40, cfg);
                check::<Complex32>(dev, 40, cfg);
                check::<Complex64>(dev, 40, cfg);
            }
            return;
        }
        all_configs::<f32>(dev, &[33, 70]);
        all_configs::<f64>(dev, &[33, 70, 129]);
        all_configs::<Complex32>(dev, &[45]);
        all_configs::<Complex64>(dev, &[45]);
    }
}
