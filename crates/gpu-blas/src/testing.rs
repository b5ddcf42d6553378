//! Helpers shared by the test suites of this workspace: run one test body on every device.
//!
//! Without a usable GPU the CUDA instance of a test prints that it was skipped and passes;
//! with the environment variable `GPU_REQUIRED=1` (set by the GPU bundle's `run test`) a
//! missing GPU fails the test instead.
//!
//! ```
//! use gpu_blas::{blas1, DeviceVec};
//! gpu_blas::device_tests! {
//!     fn dot_of_ones(dev) {
//!         let x = DeviceVec::from_slice(dev, &[1.0f64; 4]).unwrap();
//!         assert_eq!(blas1::dot(&x, &x).unwrap(), 4.0);
//!     }
//! }
//! # fn main() {}
//! ```

use crate::{Device, Scalar};

/// `n` deterministic pseudo-random values whose real and imaginary parts lie in `[-1, 1)` and
/// are never exactly zero (xorshift on a seed-derived state), for test data every suite in the
/// workspace shares.
///
/// ```
/// let a = gpu_blas::testing::random_values::<f64>(4, 7);
/// assert_eq!(a, gpu_blas::testing::random_values::<f64>(4, 7));
/// assert!(a.iter().all(|v| *v != 0.0 && v.abs() <= 1.0));
/// ```
pub fn random_values<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
        | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        // 53 random bits mapped to [-1, 1), never exactly zero.
        let v = 2.0 * ((s >> 11) as f64 / (1u64 << 53) as f64) - 1.0;
        if v == 0.0 {
            0.5
        } else {
            v
        }
    };
    (0..n)
        .map(|_| {
            let re = <T::Real as Scalar>::from_f64(next());
            let im = <T::Real as Scalar>::from_f64(next());
            T::from_parts(re, im)
        })
        .collect()
}

/// Whether the environment demands a GPU (`GPU_REQUIRED` set to anything but `0` or empty).
pub fn gpu_required() -> bool {
    std::env::var("GPU_REQUIRED").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The CUDA device the tests should use, or `None` (after printing why) when none is usable.
///
/// # Panics
/// When no GPU is usable and [`gpu_required`] is true: that is a test failure by design.
pub fn cuda_test_device() -> Option<Device> {
    match Device::cuda(0) {
        Ok(d) => Some(d),
        Err(e) if gpu_required() => panic!("GPU_REQUIRED is set but CUDA is unusable: {e}"),
        Err(e) => {
            eprintln!("skipped on CUDA: {e}");
            None
        }
    }
}

/// Defines, for each `fn name(dev) { body }`, a module `name` with two tests, `name::cpu` and
/// `name::cuda`, that run `body` with `dev: &Device` bound to the CPU and to CUDA device 0.
#[macro_export]
macro_rules! device_tests {
    ($(
        $(#[$meta:meta])*
        fn $name:ident($dev:ident) $body:block
    )*) => {$(
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            fn body($dev: &$crate::Device) $body
            #[test]
            fn cpu() {
                body(&$crate::Device::cpu());
            }
            #[test]
            fn cuda() {
                if let Some(d) = $crate::testing::cuda_test_device() {
                    body(&d);
                }
            }
        }
    )*};
}

/// Whether the tests run under compute-sanitizer: the GPU bundle's `run sanitize` sets
/// `GPU_LINALG_SANITIZE`, and suites shrink their size sweeps there, since every kernel runs
/// tens of times slower under the sanitizer.
///
/// ```
/// // Outside `run sanitize` the variable is not set.
/// assert_eq!(
///     gpu_blas::testing::under_sanitizer(),
///     std::env::var_os("GPU_LINALG_SANITIZE").is_some()
/// );
/// ```
pub fn under_sanitizer() -> bool {
    std::env::var_os("GPU_LINALG_SANITIZE").is_some()
}
