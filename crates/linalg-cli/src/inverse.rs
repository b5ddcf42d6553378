//! `gpulinalg inverse`: the inverse of a matrix (stored densely) by a `dense-inverse` method,
//! timed, with its condition estimate and a residual check against the sparse input.

use dense_inverse::{Bordering, Inverse, Method};
use gpu_blas::blas2::Uplo;
use gpu_blas::{Device, DeviceMatrix, Scalar};
use num_traits::ToPrimitive;
use sprs::CsMat;

/// Largest order `inverse` densifies (a 16384² `c128` matrix is 4.3 GB, twice that with the
/// result).
pub const MAX_ORDER: usize = 16384;

/// `--method`'s choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodChoice {
    /// Cholesky (CPU) or blocked bordering (GPU) for Hermitian input with a positive diagonal
    /// that factors; otherwise Gauss-Jordan (LU on a GPU below order 3072).
    Auto,
    /// LU with partial pivoting.
    Lu,
    /// Cholesky (the lower triangle is read).
    Cholesky,
    /// Gauss-Jordan with partial pivoting.
    GaussJordan,
    /// The bordering method, one row per step (lower triangle).
    Bordering,
    /// The bordering method, 64 rows per step (lower triangle).
    BorderingBlocked,
}

impl MethodChoice {
    /// Parses `--method`'s value.
    pub fn parse(s: &str) -> Result<Self, String> {
        Ok(match s {
            "auto" => MethodChoice::Auto,
            "lu" => MethodChoice::Lu,
            "cholesky" => MethodChoice::Cholesky,
            "gauss-jordan" | "gj" => MethodChoice::GaussJordan,
            "bordering" => MethodChoice::Bordering,
            "bordering-blocked" => MethodChoice::BorderingBlocked,
            _ => {
                return Err(format!(
                    "unknown method `{s}`: expected auto, lu, cholesky, gauss-jordan, \
                     bordering or bordering-blocked"
                ))
            }
        })
    }

    /// The library's method.
    pub fn method(self) -> Method {
        match self {
            MethodChoice::Auto => Method::Auto,
            MethodChoice::Lu => Method::Lu,
            MethodChoice::Cholesky => Method::Cholesky(Uplo::Lower),
            MethodChoice::GaussJordan => Method::GaussJordan,
            MethodChoice::Bordering => Method::Bordering(Uplo::Lower, Bordering::Unblocked),
            MethodChoice::BorderingBlocked => Method::Bordering(Uplo::Lower, Bordering::default()),
        }
    }
}

/// What one inversion gave.
pub struct Outcome<T: Scalar> {
    /// The library's result.
    pub inverse: Inverse<T>,
    /// Host wall time of the call (including the copy of `A` to the device), milliseconds.
    pub ms: f64,
    /// `‖A·X − I‖₁ / (n·ε·‖A‖₁·‖X‖₁)`, computed on the host in f64 from the sparse `A`.
    pub scaled_residual: f64,
}

/// Densifies `a` (column-major), inverts it on `dev` with `method` and checks `A·X = I`.
pub fn run<T: Scalar>(
    a: &CsMat<T>,
    dev: &Device,
    method: Method,
) -> Result<Outcome<T>, dense_inverse::Error> {
    let n = a.rows();
    let mut dense = vec![T::zero(); n * n];
    for (v, (i, j)) in a.iter() {
        dense[i + j * n] = *v;
    }
    let t0 = std::time::Instant::now();
    let m = DeviceMatrix::from_col_major(dev, n, n, n, dense)?;
    let inverse = dense_inverse::inverse(&m, method)?;
    dev.synchronize()?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let x = inverse.matrix.to_array()?;
    let scaled_residual = scaled_residual(a, n, |i, j| x[(i, j)].to_c64());
    Ok(Outcome {
        inverse,
        ms,
        scaled_residual,
    })
}

/// `‖A·X − I‖₁ / (n·ε·‖A‖₁·‖X‖₁)` for the sparse `A` and `X(i, j) = x(i, j)`.
pub fn scaled_residual<T: Scalar>(
    a: &CsMat<T>,
    n: usize,
    x: impl Fn(usize, usize) -> num_complex::Complex64,
) -> f64 {
    let csc = a.to_csc();
    let col_norm = |col: &mut dyn Iterator<Item = f64>| col.fold(0.0f64, |s, v| s + v);
    let mut anorm = 0.0f64;
    for c in csc.outer_iterator() {
        anorm = anorm.max(col_norm(&mut c.iter().map(|(_, v)| v.to_c64().norm())));
    }
    let mut xnorm = 0.0f64;
    let mut rnorm = 0.0f64;
    let csr = a.to_csr();
    let mut col = vec![num_complex::Complex64::new(0.0, 0.0); n];
    for j in 0..n {
        let mut s = 0.0;
        for (i, v) in col.iter_mut().enumerate() {
            *v = x(i, j);
            s += v.norm();
        }
        xnorm = xnorm.max(s);
        let mut r = 0.0;
        for (i, row) in csr.outer_iterator().enumerate() {
            let mut acc = num_complex::Complex64::new(if i == j { -1.0 } else { 0.0 }, 0.0);
            for (k, v) in row.iter() {
                acc += v.to_c64() * col[k];
            }
            r += acc.norm();
        }
        rnorm = rnorm.max(r);
    }
    let eps = T::epsilon().to_f64().unwrap_or(f64::EPSILON);
    let denom = n.max(1) as f64 * eps * anorm * xnorm;
    if denom > 0.0 {
        rnorm / denom
    } else {
        rnorm
    }
}

/// Flops the report divides by: `2n³` for a general inverse, `n³` for a Hermitian one (×4 for
/// complex types).
pub fn flops<T: Scalar>(n: usize, method: Method) -> f64 {
    let n3 = (n as f64).powi(3);
    let base = match method {
        Method::Cholesky(_) | Method::Bordering(..) => n3,
        _ => 2.0 * n3,
    };
    if T::IS_COMPLEX {
        4.0 * base
    } else {
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_parse() {
        assert_eq!(MethodChoice::parse("gj"), Ok(MethodChoice::GaussJordan));
        assert_eq!(
            MethodChoice::parse("bordering-blocked").unwrap().method(),
            Method::Bordering(Uplo::Lower, Bordering::default())
        );
        assert!(MethodChoice::parse("qr").is_err());
    }

    #[test]
    fn residual_of_an_exact_and_a_wrong_inverse() {
        // A = diag(2, 4) (sparse); X = A⁻¹ exactly, then a wrong X.
        let a = CsMat::new((2, 2), vec![0, 1, 2], vec![0, 1], vec![2.0f64, 4.0]);
        let good = scaled_residual(&a, 2, |i, j| {
            let v = if i == j { [0.5, 0.25][i] } else { 0.0 };
            num_complex::Complex64::new(v, 0.0)
        });
        assert_eq!(good, 0.0);
        let bad = scaled_residual(&a, 2, |i, j| {
            num_complex::Complex64::new(if i == j { 1.0 } else { 0.0 }, 0.0)
        });
        assert!(bad > 1e10);
        assert_eq!(flops::<f64>(10, Method::Lu), 2000.0);
        assert_eq!(flops::<num_complex::Complex64>(10, Method::Auto), 8000.0);
    }
}
