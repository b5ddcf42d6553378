//! Timing `y = A·x` on a device, the derived rates, and the check against a host reference.

use std::time::Instant;

use gpu_blas::spmv::{spmv_with, SpmvKernel};
use gpu_blas::{CsrMatrix, DeviceVec, Scalar};
use num_complex::Complex64;
use sprs::CsMat;

/// Untimed runs before the timed ones (module loading, caches, clocks).
pub const WARMUP: usize = 3;

/// What the timed repetitions measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Median wall time of one product, milliseconds.
    pub median_ms: f64,
    /// Fastest repetition, milliseconds.
    pub min_ms: f64,
}

/// Times `y = A·x` (`α = 1`, `β = 0`) with `kernel`: [`WARMUP`] untimed runs, then `reps`
/// repetitions each timed with a host clock between two `Device::synchronize()` calls (no-ops
/// on the CPU).
///
/// # Errors
/// Any error of `spmv_with` or of the synchronization (a bad lane count, a CUDA failure).
pub fn time_spmv<T: Scalar>(
    kernel: SpmvKernel,
    a: &CsrMatrix<T>,
    x: &DeviceVec<T>,
    y: &mut DeviceVec<T>,
    reps: usize,
) -> gpu_blas::Result<Timing> {
    let dev = a.device().clone();
    let (one, zero) = (T::from_f64(1.0), T::from_f64(0.0));
    for _ in 0..WARMUP {
        spmv_with(kernel, one, a, x, zero, &mut *y)?;
    }
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        dev.synchronize()?;
        let start = Instant::now();
        spmv_with(kernel, one, a, x, zero, &mut *y)?;
        dev.synchronize()?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let median_ms = median(&mut times);
    let min_ms = times.first().copied().unwrap_or(f64::NAN); // sorted by `median`
    Ok(Timing { median_ms, min_ms })
}

/// The median of `v` (the mean of the middle two for an even count), sorting `v` in place;
/// NaN when empty.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

/// Floating-point operations of one product: `2·nnz` real operations (a multiply and an add per
/// entry), `8·nnz` for complex types (a complex multiply-add is 8 real operations).
pub fn flops<T: Scalar>(nnz: usize) -> f64 {
    let per_entry = if T::IS_COMPLEX { 8.0 } else { 2.0 };
    per_entry * nnz as f64
}

/// Bytes one product must move at least: the values and `i32` column indices
/// (`nnz·(sizeof T + 4)`), the `i32` row pointers (`(rows + 1)·4`), `x` read and `y` written
/// once (`(rows + cols)·sizeof T`).
pub fn bytes<T: Scalar>(rows: usize, cols: usize, nnz: usize) -> f64 {
    let es = std::mem::size_of::<T>() as f64;
    nnz as f64 * (es + 4.0) + (rows as f64 + 1.0) * 4.0 + (rows + cols) as f64 * es
}

/// The deterministic input vector: `x_j = 1 + (j mod 7)/8`, plus `i·(j mod 5)/16` for complex
/// types.
pub fn input_vector<T: Scalar>(n: usize) -> Vec<T> {
    (0..n)
        .map(|j| {
            let re = <T::Real as Scalar>::from_f64(1.0 + (j % 7) as f64 * 0.125);
            let im = <T::Real as Scalar>::from_f64((j % 5) as f64 * 0.0625);
            T::from_parts(re, im)
        })
        .collect()
}

/// How far a computed product is from the host reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Check {
    /// `max_i |y_i − r_i| / Σ_j |a_ij|·|x_j|`: the largest error relative to the row's
    /// absolute sum (a row whose absolute sum is zero must be exactly zero, else this is ∞).
    pub max_rel: f64,
    /// The bound `max_rel` must not exceed: `max(1000, longest row)·ε` of `T`.
    pub tolerance: f64,
}

impl Check {
    /// Whether the error is within the tolerance.
    pub fn passed(&self) -> bool {
        self.max_rel <= self.tolerance
    }
}

/// Compares `y` with `A·x` computed on the host in `f64` (complex `f64` for complex types)
/// with a plain loop over the `sprs` matrix.
pub fn check<T: Scalar>(a: &CsMat<T>, x: &[T], y: &[T]) -> Check {
    let a = if a.is_csr() {
        a.view()
    } else {
        return check(&a.to_csr(), x, y);
    };
    let mut max_rel = 0.0f64;
    let mut longest = 0usize;
    for (i, row) in a.outer_iterator().enumerate() {
        longest = longest.max(row.nnz());
        let (mut sum, mut abs_sum) = (Complex64::new(0.0, 0.0), 0.0f64);
        for (j, &v) in row.iter() {
            let (v, xj) = (v.to_c64(), x[j].to_c64());
            sum += v * xj;
            abs_sum += v.norm() * xj.norm();
        }
        let err = (y[i].to_c64() - sum).norm();
        let rel = if abs_sum > 0.0 {
            err / abs_sum
        } else if err == 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
        // NaN (a NaN in y) must fail: `max` would drop it.
        max_rel = if rel.is_nan() {
            f64::INFINITY
        } else {
            max_rel.max(rel)
        };
    }
    let eps = T::epsilon().to_c64().re;
    Check {
        max_rel,
        tolerance: (longest.max(1000)) as f64 * eps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn byte_count() {
        // 2 x 3, 4 entries of f64: 4·12 + 3·4 + 5·8.
        assert_eq!(bytes::<f64>(2, 3, 4), 48.0 + 12.0 + 40.0);
        assert_eq!(flops::<f32>(10), 20.0);
        assert_eq!(flops::<num_complex::Complex32>(10), 80.0);
    }

    #[test]
    fn check_detects_errors() {
        let a = gpu_blas::gallery::poisson2d::<f64>(4);
        let x = input_vector::<f64>(16);
        let mut y = vec![0.0; 16];
        for (i, row) in a.outer_iterator().enumerate() {
            y[i] = row.iter().map(|(j, &v)| v * x[j]).sum();
        }
        assert!(check(&a, &x, &y).passed());
        y[3] += 1e-6;
        assert!(!check(&a, &x, &y).passed());
        y[3] = f64::NAN;
        assert!(!check(&a, &x, &y).passed());
    }
}
