//! One entry point for the inverse: pick a method, report the reciprocal condition number of
//! the computed inverse with the result.

use crate::bordering::{self, Bordering};
use crate::check::{self, Backend};
use crate::cholesky;
use crate::cpu;
use crate::error::{Error, Result};
use crate::gpu;
use gpu_blas::blas2::Uplo;
use gpu_blas::{DeviceMatrix, MatRef, Scalar};
use num_traits::{ToPrimitive, Zero};

/// The algorithm [`inverse`] uses.
///
/// ```
/// use dense_inverse::Method;
/// assert_eq!(Method::default(), Method::Auto);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Method {
    /// Cholesky when the matrix is exactly Hermitian with a positive real diagonal and the
    /// factorization succeeds (on a GPU the blocked bordering method); partial pivoting
    /// otherwise: Gauss-Jordan, or on a GPU below order 3072 LU (see [`inverse`]).
    #[default]
    Auto,
    /// LU with partial pivoting ([`crate::lu_inverse`]).
    Lu,
    /// Cholesky, reading the given triangle ([`crate::cholesky_inverse`]).
    Cholesky(Uplo),
    /// Blocked Gauss-Jordan with partial pivoting ([`crate::gauss_jordan_inverse`]).
    GaussJordan,
    /// The bordering method, reading the given triangle ([`crate::bordering_inverse`]).
    Bordering(Uplo, Bordering),
}

/// An inverse with the method that computed it and its reciprocal condition number.
///
/// `rcond ≈ 1/(‖A‖₁·‖A⁻¹‖₁) ∈ [0, 1]`. The inverse's relative error is roughly `ε/rcond`: when
/// `rcond < ε` (machine epsilon) the inverse may have no correct digits, and
/// [`is_ill_conditioned`](Self::is_ill_conditioned) says so — check it (or
/// [`warning`](Self::warning)) before trusting `matrix`.
///
/// ```
/// use dense_inverse::{inverse, Method};
/// use gpu_blas::{Device, DeviceMatrix};
/// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[1.0f64, 1.0], [1.0, 1.0 + 1e-17]])?;
/// // 1 + 1e-17 rounds to 1: exactly singular, an error rather than a useless inverse.
/// assert!(inverse(&a, Method::Auto).is_err());
/// let b = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[1.0f64, 1.0], [1.0, 1.0 + 1e-15]])?;
/// let inv = inverse(&b, Method::Lu)?;
/// assert!(inv.is_ill_conditioned() == (inv.rcond < f64::EPSILON));
/// # Ok::<(), dense_inverse::Error>(())
/// ```
#[derive(Debug)]
pub struct Inverse<T: Scalar> {
    /// `A⁻¹` (`n × n`, leading dimension `n`, on the input's device).
    pub matrix: DeviceMatrix<T>,
    /// The method that produced it (never [`Method::Auto`]).
    pub method_used: Method,
    /// Reciprocal 1-norm condition number `1/(‖A‖₁·‖A⁻¹‖₁)`, computed from the inverse by
    /// every method of [`inverse`] — see `rcond_exact`.
    pub rcond: T::Real,
    /// Whether `rcond` is exact (`1/(‖A‖₁·‖A⁻¹‖₁)` of the computed inverse, as [`inverse`]
    /// reports it) or an estimate.
    pub rcond_exact: bool,
    /// `‖A‖₁` of the input.
    pub norm1: T::Real,
}

impl<T: Scalar> Inverse<T> {
    /// Whether `rcond < ε`: the matrix is singular to working precision and `matrix` should not
    /// be trusted.
    ///
    /// ```
    /// use dense_inverse::{inverse, Method};
    /// use gpu_blas::{Device, DeviceMatrix};
    /// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[1.0f64, 0.0], [0.0, 1e-20]])?;
    /// let inv = inverse(&a, Method::Auto)?;
    /// assert!(inv.is_ill_conditioned());
    /// # Ok::<(), dense_inverse::Error>(())
    /// ```
    pub fn is_ill_conditioned(&self) -> bool {
        self.rcond < T::epsilon() || num_traits::Float::is_nan(self.rcond)
    }

    /// A message when [`is_ill_conditioned`](Self::is_ill_conditioned), else `None`.
    ///
    /// ```
    /// use dense_inverse::{inverse, Method};
    /// use gpu_blas::{Device, DeviceMatrix};
    /// let a = DeviceMatrix::from_array(&Device::cpu(), &ndarray::array![[2.0f64, 0.0], [0.0, 1.0]])?;
    /// assert_eq!(inverse(&a, Method::Auto)?.warning(), None);
    /// # Ok::<(), dense_inverse::Error>(())
    /// ```
    pub fn warning(&self) -> Option<String> {
        self.is_ill_conditioned().then(|| {
            format!(
                "matrix is singular to working precision: rcond = {:e} < eps = {:e}; \
                 the inverse may have no correct digits",
                self.rcond.to_f64().unwrap_or(f64::NAN),
                T::epsilon().to_f64().unwrap_or(f64::NAN)
            )
        })
    }
}

/// Whether a compact matrix is exactly Hermitian with a positive real diagonal.
fn hermitian_positive_diagonal<T: Scalar>(n: usize, h: &[T]) -> bool {
    (0..n).all(|j| {
        let d = h[j * n + j];
        d.im() == T::Real::zero()
            && d.re() > T::Real::zero()
            && (j + 1..n).all(|i| h[j * n + i] == h[i * n + j].conj())
    })
}

/// `A⁻¹` by the chosen [`Method`], with its reciprocal condition number.
///
/// [`Method::Auto`], when the matrix is exactly Hermitian with a positive real diagonal, tries
/// a method for positive definite matrices (half the work of LU): Cholesky on the CPU; on a
/// CUDA device the blocked bordering method with 256 rows per step
/// (`Method::Bordering(Uplo::Lower, Bordering::Blocked(256))`, whose `b × b` Schur complements
/// are the diagonal blocks a blocked Cholesky factors, and which is the faster SPD inverse there),
/// kept when every pivot `β` is positive. Otherwise (a non-positive pivot, or a matrix not of
/// that form) it takes blocked Gauss-Jordan with partial pivoting (the same pivots as LU in
/// exact arithmetic) on the CPU, where it measured 2–4.5× faster than the LU inverse (n =
/// 1000 to 4000 on 16 cores; faster from n = 10 on 2), and on a CUDA device from order 3072, where it runs its
/// factorizations beside its products on three streams; LU with partial pivoting on a CUDA
/// device below 3072 (`method_used` says which ran). Every method reports the exact
/// `rcond = 1/(‖A‖₁·‖A⁻¹‖₁)` of the computed inverse (one pass over it, where an estimate from
/// the factors alone, [`crate::lu_rcond`] and [`crate::cholesky_rcond`], needs several
/// triangular solves and is only within a small factor of it). A result with `rcond < ε` is
/// returned flagged ([`Inverse::is_ill_conditioned`]), not silently.
///
/// Memory: the result; the LU and Cholesky paths work in it, Gauss-Jordan and bordering too
/// (plus `n × b` or `b × n` blocks), except that on a GPU the LU path keeps its factors in one
/// more `n × n` matrix while it forms the inverse, where that fits (see [`crate::lu_inverse`]). [`Method::Auto`] re-reads the input when its positive
/// definite attempt fails, so it never holds a second `n × n` copy.
///
/// # Errors
/// The errors of the chosen method: [`Error::Singular`] for an exactly singular matrix (LU,
/// Gauss-Jordan), [`Error::NotPositiveDefinite`] ([`Method::Cholesky`] only),
/// [`Error::SingularLeadingBlock`] (bordering), [`Error::NotSquare`],
/// [`gpu_blas::Error::NonFinite`], [`gpu_blas::Error::OutOfMemory`].
///
/// ```
/// use dense_inverse::{inverse, Method};
/// use gpu_blas::{blas2::Uplo, Device, DeviceMatrix};
/// let dev = Device::cpu();
/// let spd = DeviceMatrix::from_array(&dev, &ndarray::array![[4.0f64, 1.0], [1.0, 3.0]])?;
/// let inv = inverse(&spd, Method::Auto)?;
/// assert_eq!(inv.method_used, Method::Cholesky(Uplo::Lower));
/// assert!(!inv.is_ill_conditioned());
/// let indefinite = DeviceMatrix::from_array(&dev, &ndarray::array![[1.0f64, 2.0], [2.0, 1.0]])?;
/// assert_eq!(inverse(&indefinite, Method::Auto)?.method_used, Method::GaussJordan);
/// # Ok::<(), dense_inverse::Error>(())
/// ```
pub fn inverse<'a, T: Scalar>(a: impl Into<MatRef<'a, T>>, method: Method) -> Result<Inverse<T>> {
    const OP: &str = "inverse";
    let a = a.into();
    let n = check::square(OP, a.rows(), a.cols())?;
    match check::backend(OP, a.device())? {
        Backend::Cuda => gpu::ops::inverse(OP, &a, method),
        Backend::Cpu => {
            let (h, method_used, rcond, rcond_exact, norm1) = invert_cpu(OP, &a, n, method)?;
            Ok(Inverse {
                matrix: check::new_matrix(a.device(), n, h)?,
                method_used,
                rcond,
                rcond_exact,
                norm1,
            })
        }
    }
}

type Computed<T> = (
    Vec<T>,
    Method,
    <T as Scalar>::Real,
    bool,
    <T as Scalar>::Real,
);

fn invert_cpu<T: Scalar>(
    op: &'static str,
    a: &MatRef<'_, T>,
    n: usize,
    method: Method,
) -> Result<Computed<T>> {
    let exact = |h: Vec<T>, m: Method, anorm: T::Real| {
        let xnorm = cpu::condition::norm1(n, &h);
        let rcond = cpu::condition::rcond_from(n, anorm, xnorm);
        Ok((h, m, rcond, true, anorm))
    };
    match method {
        Method::Auto => {
            let mut h = check::read(a)?;
            check::finite(op, &h)?;
            let anorm = cpu::condition::norm1(n, &h);
            if hermitian_positive_diagonal(n, &h) && cpu::cholesky::potrf(n, &mut h).is_ok() {
                cpu::cholesky::potri(n, &mut h);
                return exact(h, Method::Cholesky(Uplo::Lower), anorm);
            }
            let mut h = check::read(a)?; // potrf may have overwritten part of the copy
            cpu::gauss_jordan::invert(n, &mut h).map_err(|step| Error::Singular { op, step })?;
            exact(h, Method::GaussJordan, anorm)
        }
        Method::Lu => {
            let h = check::read(a)?;
            check::finite(op, &h)?;
            let anorm = cpu::condition::norm1(n, &h);
            exact(lu(op, n, h)?, Method::Lu, anorm)
        }
        Method::Cholesky(uplo) => {
            let mut h = check::read_hermitian(op, uplo, a)?;
            let anorm = cpu::condition::norm1(n, &h);
            cholesky::factor_host(op, n, &mut h)?;
            cpu::cholesky::potri(n, &mut h);
            exact(h, method, anorm)
        }
        Method::GaussJordan => {
            let mut h = check::read(a)?;
            check::finite(op, &h)?;
            let anorm = cpu::condition::norm1(n, &h);
            cpu::gauss_jordan::invert(n, &mut h).map_err(|step| Error::Singular { op, step })?;
            exact(h, method, anorm)
        }
        Method::Bordering(uplo, variant) => {
            let mut h = check::read_hermitian(op, uplo, a)?;
            let anorm = cpu::condition::norm1(n, &h);
            bordering::invert_host(op, n, &mut h, variant)?;
            exact(h, method, anorm)
        }
    }
}

/// `A⁻¹` by LU with partial pivoting in place of `h`; an exactly zero pivot is an error.
fn lu<T: Scalar>(op: &'static str, n: usize, mut h: Vec<T>) -> Result<Vec<T>> {
    let mut piv = vec![0i32; n];
    let info = cpu::lu::getrf(n, &mut h, &mut piv);
    if info > 0 {
        return Err(Error::Singular {
            op,
            step: info as usize,
        });
    }
    cpu::lu::getri(n, &mut h, &piv);
    Ok(h)
}
