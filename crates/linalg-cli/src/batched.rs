//! `gpulinalg batched`: inverses of many small random matrices in one call (`batched-lu`),
//! timed and checked.

use batched_lu::{inverse_batched, BatchLayout};
use gpu_blas::{Device, DeviceVec, Scalar};

/// `--n` and `--batch` of `gpulinalg batched`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Order of every matrix.
    pub n: usize,
    /// Number of matrices.
    pub batch: usize,
}

/// What one batched inversion gave.
pub struct Outcome {
    /// Host wall time of one call after a warm-up call, milliseconds.
    pub ms: f64,
    /// Matrices whose `info` reported an exactly singular factor.
    pub singular: usize,
    /// Largest `‖A·X − I‖₁ / (n·ε·‖A‖₁·‖X‖₁)` over the checked matrices (the first and the
    /// last of the batch), computed on the host in f64.
    pub scaled_residual: f64,
}

/// Random matrices with entries in [−1, 1) plus `n` on the diagonal (well conditioned).
fn matrices<T: Scalar>(s: Shape) -> Vec<T> {
    let nn = s.n * s.n;
    let mut v = gpu_blas::testing::random_values::<T>(nn * s.batch, 12345);
    for k in 0..s.batch {
        for i in 0..s.n {
            v[k * nn + i * (s.n + 1)] += T::from_f64(s.n as f64);
        }
    }
    v
}

/// `‖A·X − I‖₁ / (n·ε·‖A‖₁·‖X‖₁)` of one column-major pair (the `inverse` command's check).
fn scaled_residual<T: Scalar>(n: usize, a: &[T], x: &[T]) -> f64 {
    let a = crate::source::dense_to_csr((n, n), |i, j| a[i + j * n]);
    crate::inverse::scaled_residual(&a, n, |i, j| x[i + j * n].to_c64())
}

/// Generates the batch, inverts it on `dev` (a warm-up call, then one timed call) and checks
/// the first and last inverse.
pub fn run<T: Scalar>(s: Shape, dev: &Device) -> gpu_blas::Result<Outcome> {
    let nn = s.n * s.n;
    let host = matrices::<T>(s);
    let a = DeviceVec::from_slice(dev, &host)?;
    let mut inv = DeviceVec::<T>::zeros(dev, nn * s.batch)?;
    let layout = BatchLayout::packed(s.n, s.batch);
    inverse_batched(layout, &a, &mut inv, nn)?;
    dev.synchronize()?;
    let t0 = std::time::Instant::now();
    let info = inverse_batched(layout, &a, &mut inv, nn)?;
    dev.synchronize()?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let singular = info.to_vec()?.iter().filter(|&&i| i != 0).count();
    let mut worst = 0.0f64;
    for k in [0, s.batch.saturating_sub(1)] {
        if s.batch == 0 {
            break;
        }
        let x = inv.read_range(k * nn, nn)?;
        worst = worst.max(scaled_residual(s.n, &host[k * nn..(k + 1) * nn], &x));
    }
    Ok(Outcome {
        ms,
        singular,
        scaled_residual: worst,
    })
}

/// Flops of the inverses: `2n³` per matrix (×4 for complex types).
pub fn flops<T: Scalar>(s: Shape) -> f64 {
    let f = 2.0 * (s.n as f64).powi(3) * s.batch as f64;
    if T::IS_COMPLEX {
        4.0 * f
    } else {
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_batch_is_accurate_and_the_check_can_fail() {
        let s = Shape { n: 7, batch: 5 };
        let o = run::<f64>(s, &Device::cpu()).unwrap();
        assert_eq!(o.singular, 0);
        assert!(o.scaled_residual < 10.0, "{}", o.scaled_residual);
        let a = matrices::<f64>(Shape { n: 3, batch: 1 });
        assert!(scaled_residual(3, &a, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]) > 1e10);
        assert_eq!(flops::<f64>(s), 2.0 * 343.0 * 5.0);
    }
}
