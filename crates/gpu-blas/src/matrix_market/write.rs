//! The writer: coordinate files from `sprs` matrices, array files from `ndarray` matrices.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use ndarray::{ArrayBase, Data, Ix2};

use super::MmSymmetry;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

const OP_WRITE_SPARSE: &str = "matrix_market::write_sparse";

fn io_error(label: &str, e: &std::io::Error) -> Error {
    Error::Io {
        path: label.to_string(),
        message: e.to_string(),
    }
}

/// The banner field keyword for `T`.
fn field_of<T: Scalar>() -> &'static str {
    if T::IS_COMPLEX {
        "complex"
    } else {
        "real"
    }
}

/// Writes one real part in `T`'s own precision, in Rust's shortest round-trip form.
fn write_real<T: Scalar, W: Write>(w: &mut W, x: f64) -> std::io::Result<()> {
    if std::mem::size_of::<T::Real>() == 4 {
        // Exact: `x` was widened from an `f32`.
        write!(w, "{:e}", x as f32)
    } else {
        write!(w, "{x:e}")
    }
}

/// Writes a value: `re` for real `T`, `re im` for complex `T`.
fn write_value<T: Scalar, W: Write>(w: &mut W, v: T) -> std::io::Result<()> {
    let c = v.to_c64();
    write_real::<T, W>(w, c.re)?;
    if T::IS_COMPLEX {
        w.write_all(b" ")?;
        write_real::<T, W>(w, c.im)?;
    }
    Ok(())
}

/// Equal, or NaN in the same parts.
fn same<T: Scalar>(a: T, b: T) -> bool {
    let (a, b) = (a.to_c64(), b.to_c64());
    let part = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    part(a.re, b.re) && part(a.im, b.im)
}

/// The value `a_ji` must have, given `a_ij = v`, under `symmetry`.
fn mirror<T: Scalar>(symmetry: MmSymmetry, v: T) -> T {
    match symmetry {
        MmSymmetry::General | MmSymmetry::Symmetric => v,
        MmSymmetry::SkewSymmetric => -v,
        MmSymmetry::Hermitian => v.conj(),
    }
}

/// Checks that `a` is square and has `symmetry` exactly.
fn check_symmetry<T: Scalar>(a: &sprs::CsMat<T>, symmetry: MmSymmetry) -> Result<()> {
    if symmetry == MmSymmetry::General {
        return Ok(());
    }
    let (rows, cols) = a.shape();
    if rows != cols {
        return Err(Error::DimensionMismatch {
            op: OP_WRITE_SPARSE,
            detail: format!("symmetry `{symmetry}` requires a square matrix, got {rows} x {cols}"),
        });
    }
    for (&v, (i, j)) in a.iter() {
        let want = mirror(symmetry, v);
        let got = a.get(j, i).copied().unwrap_or_else(T::zero);
        if !same(got, want) {
            return Err(Error::DimensionMismatch {
                op: OP_WRITE_SPARSE,
                detail: format!(
                    "the matrix is not {symmetry}: A({}, {}) = {v} requires A({}, {}) = {want}, \
                     found {got}",
                    i + 1,
                    j + 1,
                    j + 1,
                    i + 1
                ),
            });
        }
    }
    Ok(())
}

/// Writes `a` as a Matrix Market `coordinate` file at `path` (created or truncated).
///
/// The banner is `%%MatrixMarket matrix coordinate <field> <symmetry>` with field `real` for
/// real `T` and `complex` for complex `T`; the size line is `rows cols entries`; then one line
/// `i j value` (1-based, `value` as `re im` for complex `T`) per stored entry, explicit zeros
/// included, in row-major order for CSR input and column-major order for CSC input. Values are
/// printed in Rust's shortest round-trip form (`{:e}` in `T`'s precision), so [`read`](super::read)
/// gives back the same bits.
///
/// For `symmetry` other than [`MmSymmetry::General`] only the stored entries with `i >= j`
/// (`i > j` for [`MmSymmetry::SkewSymmetric`]) are written, after checking with exact equality
/// (NaN matching NaN) that `a` is square and really has that symmetry: for every stored
/// `a_ij`, `a_ji` (zero if not stored) must equal `a_ij` (symmetric), `-a_ij` (skew-symmetric,
/// so the diagonal is zero) or `conj(a_ij)` (hermitian, so the diagonal is real). For real `T`
/// a hermitian matrix is symmetric, and the banner says `symmetric` (the format allows
/// `hermitian` only with the `complex` field).
///
/// # Errors
/// [`Error::DimensionMismatch`] (op `matrix_market::write_sparse`) when `a` is not square or
/// lacks the requested symmetry: the mismatch is between `a` and its mirror image `Aᵀ` (or
/// `-Aᵀ`, `Aᴴ`), and the detail names the first pair of entries that differ; nothing is written
/// then. [`Error::Io`] if the file cannot be created or written.
///
/// ```
/// use gpu_blas::matrix_market::{read, write_sparse, MmSymmetry};
/// let a = sprs::CsMat::new((2, 2), vec![0, 2, 4], vec![0, 1, 0, 1], vec![2.0f64, -1.0, -1.0, 2.0]);
/// let path = std::env::temp_dir().join("gpu_blas_doc_write_sparse.mtx");
/// write_sparse(&path, &a, MmSymmetry::Symmetric)?;
/// let text = std::fs::read_to_string(&path).unwrap();
/// assert!(text.starts_with("%%MatrixMarket matrix coordinate real symmetric\n"));
/// let (h, back) = read::<f64>(&path)?;
/// assert_eq!(h.entries, 3); // the lower triangle
/// assert_eq!(back.as_sparse(), Some(&a));
///
/// let not_symmetric = sprs::CsMat::new((2, 2), vec![0, 1, 1], vec![1], vec![1.0f64]);
/// assert!(matches!(
///     write_sparse(&path, &not_symmetric, MmSymmetry::Symmetric),
///     Err(gpu_blas::Error::DimensionMismatch { .. })
/// ));
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn write_sparse<T: Scalar>(
    path: impl AsRef<Path>,
    a: &sprs::CsMat<T>,
    symmetry: MmSymmetry,
) -> Result<()> {
    check_symmetry(a, symmetry)?;
    let path = path.as_ref();
    let label = path.display().to_string();
    let file = File::create(path).map_err(|e| io_error(&label, &e))?;
    write_sparse_checked(file, a, symmetry, &label)
}

/// Writes `a` as a Matrix Market `coordinate` file to `writer`, exactly as [`write_sparse`]
/// does to a file (the writer is buffered internally and flushed at the end).
///
/// # Errors
/// As [`write_sparse`], with `<stream>` as the path of I/O errors.
///
/// ```
/// use gpu_blas::matrix_market::{write_sparse_to, MmSymmetry};
/// use num_complex::Complex32;
/// let a = sprs::CsMat::new((2, 3), vec![0, 1, 2], vec![2, 0],
///                          vec![Complex32::new(1.5, -2.0), Complex32::new(0.1, 0.0)]);
/// let mut out = Vec::new();
/// write_sparse_to(&mut out, &a, MmSymmetry::General)?;
/// let text = String::from_utf8(out).unwrap();
/// let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('%')).collect();
/// assert_eq!(lines, ["2 3 2", "1 3 1.5e0 -2e0", "2 1 1e-1 0e0"]);
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn write_sparse_to<T: Scalar, W: Write>(
    writer: W,
    a: &sprs::CsMat<T>,
    symmetry: MmSymmetry,
) -> Result<()> {
    check_symmetry(a, symmetry)?;
    write_sparse_checked(writer, a, symmetry, "<stream>")
}

fn write_sparse_checked<T: Scalar, W: Write>(
    writer: W,
    a: &sprs::CsMat<T>,
    symmetry: MmSymmetry,
    label: &str,
) -> Result<()> {
    let keep = |i: usize, j: usize| match symmetry {
        MmSymmetry::General => true,
        MmSymmetry::Symmetric | MmSymmetry::Hermitian => i >= j,
        MmSymmetry::SkewSymmetric => i > j,
    };
    let banner_symmetry = if symmetry == MmSymmetry::Hermitian && !T::IS_COMPLEX {
        MmSymmetry::Symmetric
    } else {
        symmetry
    };
    let entries = a.iter().filter(|&(_, (i, j))| keep(i, j)).count();
    let (rows, cols) = a.shape();
    let mut w = BufWriter::with_capacity(1 << 16, writer);
    let run = |w: &mut BufWriter<W>| -> std::io::Result<()> {
        writeln!(
            w,
            "%%MatrixMarket matrix coordinate {} {banner_symmetry}",
            field_of::<T>()
        )?;
        writeln!(w, "% written by gpu-blas")?;
        writeln!(w, "{rows} {cols} {entries}")?;
        for (&v, (i, j)) in a.iter() {
            if keep(i, j) {
                write!(w, "{} {} ", i + 1, j + 1)?;
                write_value(w, v)?;
                w.write_all(b"\n")?;
            }
        }
        w.flush()
    };
    run(&mut w).map_err(|e| io_error(label, &e))
}

/// Writes the dense matrix `a` (an `Array2` or an `ArrayView2`, any memory layout) as a Matrix
/// Market `array general` file at `path` (created or truncated).
///
/// The banner is `%%MatrixMarket matrix array <field> general` (`real` or `complex` from `T`),
/// the size line `rows cols`, then all `rows·cols` values one per line in column-major order
/// (`a_11, a_21, …, a_m1, a_12, …`), complex ones as `re im`, in Rust's shortest round-trip
/// form, so [`read`](super::read) gives back the same bits.
///
/// # Errors
/// [`Error::Io`] if the file cannot be created or written.
///
/// ```
/// use gpu_blas::matrix_market::{read, write_dense};
/// let a = ndarray::array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.5]];
/// let path = std::env::temp_dir().join("gpu_blas_doc_write_dense.mtx");
/// write_dense(&path, &a.view())?;
/// let text = std::fs::read_to_string(&path).unwrap();
/// assert!(text.starts_with("%%MatrixMarket matrix array real general\n"));
/// let (_, back) = read::<f32>(&path)?;
/// assert_eq!(back.as_dense(), Some(&a));
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn write_dense<T: Scalar, S: Data<Elem = T>>(
    path: impl AsRef<Path>,
    a: &ArrayBase<S, Ix2>,
) -> Result<()> {
    let path = path.as_ref();
    let label = path.display().to_string();
    let file = File::create(path).map_err(|e| io_error(&label, &e))?;
    write_dense_impl(file, a, &label)
}

/// Writes the dense matrix `a` as a Matrix Market `array general` file to `writer`, exactly as
/// [`write_dense`] does to a file (the writer is buffered internally and flushed at the end).
///
/// # Errors
/// [`Error::Io`] (path `<stream>`) if writing fails.
///
/// ```
/// use gpu_blas::matrix_market::write_dense_to;
/// let a = ndarray::array![[1.0f64, 2.0], [3.0, 4.0]];
/// let mut out = Vec::new();
/// write_dense_to(&mut out, &a)?;
/// let text = String::from_utf8(out).unwrap();
/// let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('%')).collect();
/// assert_eq!(lines, ["2 2", "1e0", "3e0", "2e0", "4e0"]); // column-major
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn write_dense_to<T: Scalar, S: Data<Elem = T>, W: Write>(
    writer: W,
    a: &ArrayBase<S, Ix2>,
) -> Result<()> {
    write_dense_impl(writer, a, "<stream>")
}

fn write_dense_impl<T: Scalar, S: Data<Elem = T>, W: Write>(
    writer: W,
    a: &ArrayBase<S, Ix2>,
    label: &str,
) -> Result<()> {
    let (rows, cols) = a.dim();
    let mut w = BufWriter::with_capacity(1 << 16, writer);
    let run = |w: &mut BufWriter<W>| -> std::io::Result<()> {
        writeln!(w, "%%MatrixMarket matrix array {} general", field_of::<T>())?;
        writeln!(w, "% written by gpu-blas")?;
        writeln!(w, "{rows} {cols}")?;
        for col in a.columns() {
            for &v in col {
                write_value(w, v)?;
                w.write_all(b"\n")?;
            }
        }
        w.flush()
    };
    run(&mut w).map_err(|e| io_error(label, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_treats_nan_as_equal() {
        assert!(same(f64::NAN, f64::NAN));
        assert!(same(0.0f64, -0.0));
        assert!(!same(1.0f64, f64::NAN));
    }

    #[test]
    fn mirror_rules() {
        use num_complex::Complex64;
        let z = Complex64::new(1.0, 2.0);
        assert_eq!(mirror(MmSymmetry::Hermitian, z), Complex64::new(1.0, -2.0));
        assert_eq!(mirror(MmSymmetry::SkewSymmetric, z), -z);
        assert_eq!(mirror(MmSymmetry::Symmetric, z), z);
        assert!(<f64 as num_traits::Zero>::is_zero(&mirror(
            MmSymmetry::SkewSymmetric,
            0.0f64
        )));
    }
}
