//! Where a matrix comes from: a Matrix Market file or one of the `gpu_blas::gallery` generators.

use std::fmt;
use std::path::PathBuf;

use gpu_blas::gallery;
use gpu_blas::matrix_market::{self, MmField, MmHeader, MmMatrix};
use gpu_blas::Scalar;
use sprs::CsMat;

/// Seed of the random generators, fixed so that every run sees the same matrix.
const SEED: u64 = 1;

/// Default off-diagonal entries per row for `spd:N` and `general:N`.
const DEFAULT_PER_ROW: usize = 8;

/// Default longest row for `powerlaw:N` (capped at `N`).
const DEFAULT_MAX_LEN: usize = 1000;

/// The largest row count (and stored-entry estimate) a generator accepts: the CSR indices the
/// library uses are `i32`.
const MAX_SIZE: usize = i32::MAX as usize;

/// The element type the matrix is read or generated in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `Complex<f32>`.
    C64,
    /// `Complex<f64>`.
    C128,
}

impl Dtype {
    /// Parses `f32`, `f64`, `c64` or `c128`.
    pub fn parse(s: &str) -> Result<Dtype, String> {
        match s {
            "f32" => Ok(Dtype::F32),
            "f64" => Ok(Dtype::F64),
            "c64" => Ok(Dtype::C64),
            "c128" => Ok(Dtype::C128),
            _ => Err(format!(
                "unknown dtype `{s}`: expected f32, f64, c64 or c128"
            )),
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dtype::F32 => "f32",
            Dtype::F64 => "f64",
            Dtype::C64 => "c64",
            Dtype::C128 => "c128",
        })
    }
}

/// A test problem from `gpu_blas::gallery`, with its size parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generator {
    /// `poisson2d:N`: the 5-point Laplacian on an `N × N` grid (`N²` rows).
    Poisson2d {
        /// Grid points per side.
        n: usize,
    },
    /// `poisson3d:N`: the 7-point Laplacian on an `N × N × N` grid (`N³` rows).
    Poisson3d {
        /// Grid points per side.
        n: usize,
    },
    /// `spd:N[:PER_ROW]`: random sparse symmetric positive definite.
    Spd {
        /// Rows.
        n: usize,
        /// About this many off-diagonal entries per row.
        per_row: usize,
    },
    /// `general:N[:PER_ROW]`: random sparse nonsymmetric, diagonally strong.
    General {
        /// Rows.
        n: usize,
        /// About this many entries per row.
        per_row: usize,
    },
    /// `powerlaw:N[:MAXLEN]`: power-law row lengths between 1 and `MAXLEN`.
    PowerLaw {
        /// Rows.
        n: usize,
        /// Longest row.
        max_len: usize,
    },
}

impl fmt::Display for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Generator::Poisson2d { n } => {
                write!(f, "poisson2d:{n} (5-point Laplacian, {n}x{n} grid)")
            }
            Generator::Poisson3d { n } => {
                write!(f, "poisson3d:{n} (7-point Laplacian, {n}x{n}x{n} grid)")
            }
            Generator::Spd { n, per_row } => {
                write!(f, "spd:{n}:{per_row} (random SPD, seed {SEED})")
            }
            Generator::General { n, per_row } => {
                write!(
                    f,
                    "general:{n}:{per_row} (random nonsymmetric, seed {SEED})"
                )
            }
            Generator::PowerLaw { n, max_len } => {
                write!(
                    f,
                    "powerlaw:{n}:{max_len} (power-law row lengths, seed {SEED})"
                )
            }
        }
    }
}

/// The `SOURCE` argument: a file path or a generator spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A Matrix Market file (`.mtx`, optionally gzip-compressed).
    File(PathBuf),
    /// A generated test problem.
    Generated(Generator),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::File(p) => write!(f, "{}", p.display()),
            Source::Generated(g) => write!(f, "{g}"),
        }
    }
}

/// Parses one positive integer field of a generator spec.
fn parse_count(spec: &str, what: &str, text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err(format!(
            "bad generator spec `{spec}`: {what} must be a positive integer, found `{text}`"
        )),
    }
}

/// Fails unless `value` is at most [`MAX_SIZE`].
fn check_size(spec: &str, what: &str, value: Option<usize>) -> Result<(), String> {
    match value {
        Some(v) if v <= MAX_SIZE => Ok(()),
        _ => Err(format!(
            "bad generator spec `{spec}`: {what} exceeds the limit {MAX_SIZE} of 32-bit indices"
        )),
    }
}

impl Source {
    /// Parses `SOURCE`: a spec whose part before the first `:` names a generator
    /// (`poisson2d`, `poisson3d`, `spd`, `general`, `powerlaw`) is a generator, anything else a
    /// file path.
    pub fn parse(text: &str) -> Result<Source, String> {
        let parts: Vec<&str> = text.split(':').collect();
        let name = parts[0];
        let args = &parts[1..];
        let (min, max) = match name {
            "poisson2d" | "poisson3d" => (1, 1),
            "spd" | "general" | "powerlaw" => (1, 2),
            _ => return Ok(Source::File(PathBuf::from(text))),
        };
        if args.len() < min || args.len() > max {
            let shape = if max == 1 {
                format!("{name}:N")
            } else if name == "powerlaw" {
                format!("{name}:N[:MAXLEN]")
            } else {
                format!("{name}:N[:PER_ROW]")
            };
            return Err(format!("bad generator spec `{text}`: expected `{shape}`"));
        }
        let n = parse_count(text, "N", args[0])?;
        let second = |default: usize, what: &str| match args.get(1) {
            Some(s) => parse_count(text, what, s),
            None => Ok(default),
        };
        let generator = match name {
            "poisson2d" => {
                check_size(
                    text,
                    "the entry count 5·N²",
                    n.checked_mul(n).and_then(|r| r.checked_mul(5)),
                )?;
                Generator::Poisson2d { n }
            }
            "poisson3d" => {
                let rows = n.checked_mul(n).and_then(|r| r.checked_mul(n));
                check_size(
                    text,
                    "the entry count 7·N³",
                    rows.and_then(|r| r.checked_mul(7)),
                )?;
                Generator::Poisson3d { n }
            }
            "spd" => {
                let per_row = second(DEFAULT_PER_ROW, "PER_ROW")?;
                check_size(
                    text,
                    "the entry count N·(PER_ROW+1)",
                    n.checked_mul(per_row + 1),
                )?;
                Generator::Spd { n, per_row }
            }
            "general" => {
                let per_row = second(DEFAULT_PER_ROW, "PER_ROW")?;
                check_size(
                    text,
                    "the entry count N·(PER_ROW+1)",
                    n.checked_mul(per_row + 1),
                )?;
                Generator::General { n, per_row }
            }
            _ => {
                let max_len = second(DEFAULT_MAX_LEN.min(n), "MAXLEN")?.min(n);
                check_size(text, "the entry count N·MAXLEN", n.checked_mul(max_len))?;
                Generator::PowerLaw { n, max_len }
            }
        };
        check_size(text, "N", Some(n))?;
        Ok(Source::Generated(generator))
    }

    /// The element type to use when `--dtype` is not given: `c128` for a Matrix Market file whose
    /// field is `complex`, `f64` otherwise.
    ///
    /// # Errors
    /// The reader's error when the file's header cannot be read.
    pub fn default_dtype(&self) -> Result<Dtype, gpu_blas::Error> {
        match self {
            Source::File(path) => Ok(match matrix_market::read_header(path)?.field {
                MmField::Complex => Dtype::C128,
                _ => Dtype::F64,
            }),
            Source::Generated(_) => Ok(Dtype::F64),
        }
    }

    /// Reads or generates the matrix as a host CSR matrix of `T`.
    ///
    /// Dense (`array`) Matrix Market files are converted to CSR, keeping their non-zero entries.
    ///
    /// # Errors
    /// The Matrix Market reader's error (I/O, or a parse error naming the line).
    pub fn load<T: Scalar>(&self) -> Result<Loaded<T>, gpu_blas::Error> {
        match self {
            Source::File(path) => {
                let (header, m) = matrix_market::read::<T>(path)?;
                let matrix = match m {
                    MmMatrix::Sparse(a) if a.is_csr() => a,
                    MmMatrix::Sparse(a) => a.to_csr(),
                    MmMatrix::Dense(d) => dense_to_csr(d.dim(), |i, j| d[[i, j]]),
                };
                Ok(Loaded {
                    matrix,
                    header: Some(header),
                })
            }
            Source::Generated(g) => {
                let matrix = match *g {
                    Generator::Poisson2d { n } => gallery::poisson2d::<T>(n),
                    Generator::Poisson3d { n } => gallery::poisson3d::<T>(n),
                    Generator::Spd { n, per_row } => gallery::random_spd::<T>(n, per_row, SEED),
                    Generator::General { n, per_row } => {
                        gallery::random_general::<T>(n, per_row, SEED)
                    }
                    Generator::PowerLaw { n, max_len } => {
                        gallery::power_law::<T>(n, 1, max_len, SEED)
                    }
                };
                Ok(Loaded {
                    matrix,
                    header: None,
                })
            }
        }
    }
}

/// A CSR matrix built from the non-zero entries of a dense `rows x cols` matrix given by `at`.
pub fn dense_to_csr<T: Scalar>(
    (rows, cols): (usize, usize),
    at: impl Fn(usize, usize) -> T,
) -> CsMat<T> {
    let zero = T::from_f64(0.0);
    let mut indptr = Vec::with_capacity(rows + 1);
    let (mut indices, mut data) = (Vec::new(), Vec::new());
    indptr.push(0);
    for i in 0..rows {
        for j in 0..cols {
            let v = at(i, j);
            if v != zero {
                indices.push(j);
                data.push(v);
            }
        }
        indptr.push(indices.len());
    }
    CsMat::new((rows, cols), indptr, indices, data)
}

/// A matrix loaded from a [`Source`].
pub struct Loaded<T> {
    /// The matrix in CSR storage with sorted column indices.
    pub matrix: CsMat<T>,
    /// The Matrix Market header, when the source is a file.
    pub header: Option<MmHeader>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_generators_and_paths() {
        assert_eq!(
            Source::parse("poisson2d:20"),
            Ok(Source::Generated(Generator::Poisson2d { n: 20 }))
        );
        assert_eq!(
            Source::parse("spd:100"),
            Ok(Source::Generated(Generator::Spd {
                n: 100,
                per_row: DEFAULT_PER_ROW
            }))
        );
        assert_eq!(
            Source::parse("powerlaw:50:10"),
            Ok(Source::Generated(Generator::PowerLaw {
                n: 50,
                max_len: 10
            }))
        );
        assert_eq!(
            Source::parse("a/b.mtx"),
            Ok(Source::File(PathBuf::from("a/b.mtx")))
        );
        assert!(Source::parse("poisson2d").is_err());
        assert!(Source::parse("poisson2d:0").is_err());
        assert!(Source::parse("poisson2d:x").is_err());
        assert!(Source::parse("poisson2d:3:4").is_err());
        assert!(Source::parse("poisson3d:100000").is_err());
        assert!(Source::parse("general:10:2:3").is_err());
    }

    #[test]
    fn dense_conversion_drops_zeros() {
        let d = [[1.0f64, 0.0], [0.0, 2.0], [3.0, 0.0]];
        let a = dense_to_csr((3, 2), |i, j| d[i][j]);
        assert_eq!(a.nnz(), 3);
        assert_eq!(a.get(2, 0), Some(&3.0));
        assert_eq!(a.get(0, 1), None);
    }
}
