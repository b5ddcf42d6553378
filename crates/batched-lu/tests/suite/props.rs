//! Property tests: random orders, batch sizes, strides and transposes, on every device.

use crate::common::*;
use batched_lu::{getrf_batched, solve_batched, BatchLayout};
use gpu_blas::blas2::Trans;
use gpu_blas::DeviceVec;
use num_complex::Complex64;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn runner() -> TestRunner {
    let mut cfg = Config::default();
    if std::env::var("PROPTEST_CASES").is_err() {
        cfg.cases = 32;
    }
    cfg.failure_persistence = None;
    TestRunner::new(cfg)
}

gpu_blas::device_tests! {
    fn random_layouts_factor_and_solve(dev) {
        let strat = (0usize..34, 0usize..5, 0usize..4, any::<u64>(), 0usize..3, 1usize..4);
        runner()
            .run(&strat, |(n, batch, extra, seed, t, nrhs)| {
                let trans = [Trans::N, Trans::T, Trans::C][t];
                let l = BatchLayout { n, batch, stride: n * n + extra };
                let buf = random_values::<Complex64>(l.required_len(), seed);
                let mut a = DeviceVec::from_slice(dev, &buf).unwrap();
                let mut piv = DeviceVec::zeros(dev, n * batch).unwrap();
                let mut info = DeviceVec::zeros(dev, batch).unwrap();
                let r = getrf_batched(l, &mut a, &mut piv, &mut info);
                r.unwrap();
                let (f, p) = (a.to_vec().unwrap(), piv.to_vec().unwrap());
                for k in 0..batch {
                    let s = k * l.stride;
                    assert_lu(n, &buf[s..s + n * n], &f[s..s + n * n], &p[k * n..k * n + n], "prop");
                }
                let b_stride = n * nrhs + extra;
                let b0 = random_values::<Complex64>(batch * b_stride, seed ^ 1);
                let ad = DeviceVec::from_slice(dev, &buf).unwrap();
                let mut b = DeviceVec::from_slice(dev, &b0).unwrap();
                let info = solve_batched(l, trans, &ad, &mut b, nrhs, b_stride).unwrap();
                prop_assert_eq!(info.to_vec().unwrap(), vec![0; batch]);
                let x = b.to_vec().unwrap();
                for k in 0..batch {
                    let s = k * b_stride;
                    let a_k = &buf[k * l.stride..k * l.stride + n * n];
                    assert_solve(n, trans, a_k, &x[s..s + n * nrhs], &b0[s..s + n * nrhs], nrhs);
                }
                Ok(())
            })
            .unwrap();
    }
}
