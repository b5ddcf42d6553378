//! The crate's typed error: every [`gpu_blas::Error`] plus the ways a matrix can fail to have the
//! inverse or factorization that was asked for.

/// Result alias used throughout the crate.
///
/// ```
/// fn order(a: &gpu_blas::DeviceMatrix<f64>) -> dense_inverse::Result<usize> {
///     Ok(dense_inverse::lu_factor(a)?.pivots.len())
/// }
/// let a = gpu_blas::DeviceMatrix::<f64>::zeros(&gpu_blas::Device::cpu(), 3, 3).unwrap();
/// assert_eq!(order(&a).unwrap(), 3);
/// ```
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in a `dense-inverse` call.
///
/// Argument errors (shapes, devices, non-finite input, unsupported devices) come wrapped from
/// [`gpu_blas::Error`]; the other variants say why the *matrix* has no inverse or factor of the
/// requested kind and name the step where that was discovered. Every message names the
/// operation (`op`).
///
/// ```
/// use dense_inverse::{lu_inverse, Error};
/// use gpu_blas::{Device, DeviceMatrix};
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[1.0f64, 2.0], [2.0, 4.0]])?;
/// let err = lu_inverse(&a).unwrap_err();
/// assert_eq!(err, Error::Singular { op: "lu_inverse", step: 2 });
/// println!("{err}"); // lu_inverse: the matrix is singular: U(2, 2) is exactly zero ...
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An argument error from the foundation crate: dimension or device mismatch, a view out of
    /// bounds, a non-finite input value ([`gpu_blas::Error::NonFinite`], index `i + j·rows`),
    /// or [`gpu_blas::Error::OutOfMemory`] on a GPU.
    #[error(transparent)]
    Blas(#[from] gpu_blas::Error),
    /// The matrix is not square.
    #[error("{op}: the matrix must be square, it is {rows}x{cols}")]
    NotSquare {
        /// The operation that rejected its input.
        op: &'static str,
        /// Number of rows.
        rows: usize,
        /// Number of columns.
        cols: usize,
    },
    /// A pivoted method met an exactly zero pivot: `U(step, step) = 0` in the LU factorization
    /// (LAPACK `info = step`), or no non-zero pivot in column `step` for Gauss-Jordan.
    /// `step` is 1-based.
    #[error(
        "{op}: the matrix is singular: U({step}, {step}) is exactly zero \
         (no non-zero pivot in column {step})"
    )]
    Singular {
        /// The operation that failed.
        op: &'static str,
        /// 1-based index of the zero pivot.
        step: usize,
    },
    /// The bordering method found the leading `step × step` block singular or numerically
    /// singular: its Schur complement pivot `β` satisfies `|β| ≤ threshold = n·ε·‖A‖₁`.
    /// The matrix may still be invertible; a pivoted method handles it.
    #[error(
        "{op}: the leading {step}x{step} block is singular to working precision \
         (|beta| = {beta:e} <= {threshold:e} = n*eps*||A||_1); the unpivoted bordering method \
         cannot continue, use a pivoted method (lu_inverse or gauss_jordan_inverse)"
    )]
    SingularLeadingBlock {
        /// The operation that failed.
        op: &'static str,
        /// 1-based order of the first singular leading block.
        step: usize,
        /// `|β|`, the modulus of the Schur complement pivot at that step.
        beta: f64,
        /// The threshold `n·ε·‖A‖₁` it fell under.
        threshold: f64,
    },
    /// The Cholesky factorization failed: the leading minor of order `column` is not positive
    /// (the matrix is not Hermitian positive definite). `column` is 1-based (LAPACK `info`).
    #[error(
        "{op}: the matrix is not positive definite: the leading minor of order {column} is not \
         positive (Cholesky failed at column {column}); use lu_inverse for indefinite matrices"
    )]
    NotPositiveDefinite {
        /// The operation that failed.
        op: &'static str,
        /// 1-based column where a non-positive pivot appeared.
        column: usize,
    },
}
