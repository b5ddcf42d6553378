//! The Matrix Market header: the banner's keywords and the size line.

use std::fmt;
use std::num::IntErrorKind;

use crate::error::{Error, Result};

/// The `op` named by size errors raised while reading.
pub(crate) const OP_READ: &str = "matrix_market::read";

/// The banner every Matrix Market file starts with, for error messages.
const BANNER_SHAPE: &str = "`%%MatrixMarket matrix <format> <field> <symmetry>`";

/// How the entries of a Matrix Market file are laid out (the banner's third word).
///
/// * `coordinate`: after the size line `rows cols entries`, one stored entry per line as
///   `i j a_ij` with 1-based indices `1 <= i <= rows`, `1 <= j <= cols`, in any order. Entries
///   not listed are zero. Read into [`MmMatrix::Sparse`](super::MmMatrix::Sparse).
/// * `array`: after the size line `rows cols`, every stored entry, one per line, in column-major
///   order (`a_11, a_21, …, a_m1, a_12, …`). Read into
///   [`MmMatrix::Dense`](super::MmMatrix::Dense).
///
/// `Display` prints the banner keyword.
///
/// ```
/// use gpu_blas::matrix_market::{read_header_from, MmFormat};
/// let h = read_header_from("%%MatrixMarket matrix array real general\n2 2\n".as_bytes())?;
/// assert_eq!(h.format, MmFormat::Array);
/// assert_eq!(MmFormat::Coordinate.to_string(), "coordinate");
/// # Ok::<(), gpu_blas::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MmFormat {
    /// Sparse triplets `i j a_ij`, 1-based (keyword `coordinate`).
    Coordinate,
    /// Dense values in column-major order (keyword `array`).
    Array,
}

/// The kind of number each entry holds (the banner's fourth word).
///
/// * `real`: one floating-point number per entry;
/// * `integer`: one integer per entry (read into any [`Scalar`](crate::Scalar) as a real value);
/// * `complex`: two numbers `re im` per entry, meaning `re + i·im` (complex scalars only);
/// * `pattern`: no value at all, only the position; every listed entry reads as `1`
///   (coordinate format only).
///
/// `Display` prints the banner keyword.
///
/// ```
/// use gpu_blas::matrix_market::{read_header_from, MmField};
/// let h = read_header_from("%%MatrixMarket matrix coordinate pattern general\n3 3 0\n".as_bytes())?;
/// assert_eq!(h.field, MmField::Pattern);
/// assert_eq!(MmField::Complex.to_string(), "complex");
/// # Ok::<(), gpu_blas::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MmField {
    /// One floating-point value per entry (keyword `real`).
    Real,
    /// Two floating-point values `re im` per entry (keyword `complex`).
    Complex,
    /// One integer value per entry (keyword `integer`).
    Integer,
    /// No value; each listed position holds `1` (keyword `pattern`).
    Pattern,
}

/// Which structure the matrix has and therefore which part of it the file stores (the banner's
/// fifth word).
///
/// | symmetry | meaning | stored part |
/// |---|---|---|
/// | `general` | none | every entry |
/// | `symmetric` | `a_ij = a_ji` | lower triangle with the diagonal (`i >= j`) |
/// | `skew-symmetric` | `a_ij = -a_ji` (so `a_ii = 0`) | strictly lower triangle (`i > j`) |
/// | `hermitian` | `a_ij = conj(a_ji)` (so `a_ii` is real) | lower triangle with the diagonal |
///
/// Every symmetry but `general` requires a square matrix. `hermitian` requires the `complex`
/// field, and `pattern` allows only `general` and `symmetric`, as the format's reference
/// implementation (`mmio.c`) checks. `Display` prints the banner keyword.
///
/// ```
/// use gpu_blas::matrix_market::{read_header_from, MmSymmetry};
/// let h = read_header_from(
///     "%%MatrixMarket matrix coordinate complex Hermitian\n4 4 7\n".as_bytes())?;
/// assert_eq!(h.symmetry, MmSymmetry::Hermitian);
/// assert_eq!(MmSymmetry::SkewSymmetric.to_string(), "skew-symmetric");
/// # Ok::<(), gpu_blas::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MmSymmetry {
    /// No structure; every entry is stored (keyword `general`).
    General,
    /// `a_ij = a_ji`; the lower triangle with the diagonal is stored (keyword `symmetric`).
    Symmetric,
    /// `a_ij = -a_ji`; the strictly lower triangle is stored (keyword `skew-symmetric`).
    SkewSymmetric,
    /// `a_ij = conj(a_ji)`; the lower triangle with the real diagonal is stored
    /// (keyword `hermitian`).
    Hermitian,
}

/// What the first lines of a Matrix Market file declare: the banner
/// `%%MatrixMarket matrix <format> <field> <symmetry>` and the size line.
///
/// `entries` is the number of entry lines the file must contain after the size line:
/// for [`MmFormat::Coordinate`] the third number of the size line (`rows cols entries`), the
/// count of *stored* entries (only one triangle for non-general symmetry); for
/// [`MmFormat::Array`] the count implied by the size line `rows cols`: `rows·cols` for
/// `general`, `n(n+1)/2` for `symmetric`/`hermitian` and `n(n-1)/2` for `skew-symmetric`.
///
/// ```
/// use gpu_blas::matrix_market::{read_header_from, MmField, MmFormat, MmHeader, MmSymmetry};
/// let text = "%%MatrixMarket matrix array real symmetric\n% a comment\n3 3\n";
/// let h = read_header_from(text.as_bytes())?;
/// assert_eq!(h, MmHeader {
///     format: MmFormat::Array,
///     field: MmField::Real,
///     symmetry: MmSymmetry::Symmetric,
///     rows: 3,
///     cols: 3,
///     entries: 6, // the lower triangle of a 3 x 3 matrix
/// });
/// # Ok::<(), gpu_blas::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MmHeader {
    /// Sparse triplets or dense column-major values.
    pub format: MmFormat,
    /// The number type of each entry.
    pub field: MmField,
    /// The structure, which decides the stored part.
    pub symmetry: MmSymmetry,
    /// Number of rows `m`.
    pub rows: usize,
    /// Number of columns `n`.
    pub cols: usize,
    /// Number of entry lines that follow the size line (see the type's documentation).
    pub entries: usize,
}

impl MmFormat {
    fn keyword(self) -> &'static str {
        match self {
            MmFormat::Coordinate => "coordinate",
            MmFormat::Array => "array",
        }
    }
}

impl MmField {
    fn keyword(self) -> &'static str {
        match self {
            MmField::Real => "real",
            MmField::Complex => "complex",
            MmField::Integer => "integer",
            MmField::Pattern => "pattern",
        }
    }
}

impl MmSymmetry {
    fn keyword(self) -> &'static str {
        match self {
            MmSymmetry::General => "general",
            MmSymmetry::Symmetric => "symmetric",
            MmSymmetry::SkewSymmetric => "skew-symmetric",
            MmSymmetry::Hermitian => "hermitian",
        }
    }
}

impl fmt::Display for MmFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

impl fmt::Display for MmField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

impl fmt::Display for MmSymmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

/// At most 60 characters of `s`, for quoting input in error messages.
pub(crate) fn snippet(s: &str) -> String {
    const MAX: usize = 60;
    let mut out: String = s.chars().take(MAX).collect();
    if s.chars().nth(MAX).is_some() {
        out.push('…');
    }
    out
}

fn parse_error(line: usize, message: impl Into<String>) -> Error {
    Error::Parse {
        line,
        message: message.into(),
    }
}

/// Parses the banner (line 1) into its three keywords, checking their combination.
pub(crate) fn parse_banner(text: &str) -> Result<(MmFormat, MmField, MmSymmetry)> {
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    match words.first() {
        Some(w) if w.eq_ignore_ascii_case("%%MatrixMarket") => {}
        _ => {
            return Err(parse_error(
                1,
                format!(
                    "bad banner: expected {BANNER_SHAPE}, found `{}`",
                    snippet(text.trim())
                ),
            ))
        }
    }
    if words.len() != 5 {
        return Err(parse_error(
            1,
            format!(
                "bad banner: expected 5 words {BANNER_SHAPE}, found {}",
                words.len()
            ),
        ));
    }
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    if lower[1] != "matrix" {
        return Err(parse_error(
            1,
            format!(
                "unsupported object `{}`: only `matrix` is supported",
                snippet(words[1])
            ),
        ));
    }
    let format = match lower[2].as_str() {
        "coordinate" => MmFormat::Coordinate,
        "array" => MmFormat::Array,
        _ => {
            return Err(parse_error(
                1,
                format!(
                    "unknown format `{}`, expected `coordinate` or `array`",
                    snippet(words[2])
                ),
            ))
        }
    };
    let field = match lower[3].as_str() {
        "real" => MmField::Real,
        "complex" => MmField::Complex,
        "integer" => MmField::Integer,
        "pattern" => MmField::Pattern,
        _ => {
            return Err(parse_error(
                1,
                format!(
                    "unknown field `{}`, expected `real`, `complex`, `integer` or `pattern`",
                    snippet(words[3])
                ),
            ))
        }
    };
    let symmetry = match lower[4].as_str() {
        "general" => MmSymmetry::General,
        "symmetric" => MmSymmetry::Symmetric,
        "skew-symmetric" => MmSymmetry::SkewSymmetric,
        "hermitian" => MmSymmetry::Hermitian,
        _ => {
            return Err(parse_error(
                1,
                format!(
                    "unknown symmetry `{}`, expected `general`, `symmetric`, `skew-symmetric` \
                     or `hermitian`",
                    snippet(words[4])
                ),
            ))
        }
    };
    if format == MmFormat::Array && field == MmField::Pattern {
        return Err(parse_error(
            1,
            "field `pattern` is only allowed with the `coordinate` format, not `array`",
        ));
    }
    if symmetry == MmSymmetry::Hermitian && field != MmField::Complex {
        return Err(parse_error(
            1,
            format!("symmetry `hermitian` requires the `complex` field, found `{field}`"),
        ));
    }
    if symmetry == MmSymmetry::SkewSymmetric && field == MmField::Pattern {
        return Err(parse_error(
            1,
            "symmetry `skew-symmetric` is not allowed with the `pattern` field",
        ));
    }
    Ok((format, field, symmetry))
}

/// Parses one size number; a number beyond `usize` is [`Error::SizeTooLarge`].
fn parse_size(tok: &str, what: &str, line: usize) -> Result<usize> {
    tok.parse::<usize>().map_err(|e| match e.kind() {
        IntErrorKind::PosOverflow => Error::SizeTooLarge {
            op: OP_READ,
            detail: format!("line {line}: {what} {tok} does not fit in usize"),
        },
        _ => parse_error(
            line,
            format!(
                "size line: {what} `{}` is not a non-negative integer",
                snippet(tok)
            ),
        ),
    })
}

/// `n(n+1)/2` (with `diagonal`) or `n(n-1)/2`, given that `n·n` does not overflow.
fn triangle(n: usize, diagonal: bool) -> usize {
    let m = if diagonal { n + 1 } else { n.saturating_sub(1) };
    if n % 2 == 0 {
        (n / 2) * m
    } else {
        n * (m / 2)
    }
}

/// Parses the size line (found at `line`) of a file whose banner declared the three keywords.
pub(crate) fn parse_size_line(
    text: &str,
    line: usize,
    (format, field, symmetry): (MmFormat, MmField, MmSymmetry),
) -> Result<MmHeader> {
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    let (expected, shape) = match format {
        MmFormat::Coordinate => (3, "`rows cols entries`"),
        MmFormat::Array => (2, "`rows cols`"),
    };
    if words.len() != expected {
        return Err(parse_error(
            line,
            format!(
                "size line expected: {shape} ({expected} integers for the `{format}` format), \
                 found `{}`",
                snippet(text)
            ),
        ));
    }
    let rows = parse_size(words[0], "rows", line)?;
    let cols = parse_size(words[1], "cols", line)?;
    if symmetry != MmSymmetry::General && rows != cols {
        return Err(parse_error(
            line,
            format!(
                "symmetry `{symmetry}` requires a square matrix, the size line declares \
                 {rows} x {cols}"
            ),
        ));
    }
    let entries = match format {
        MmFormat::Coordinate => parse_size(words[2], "entries", line)?,
        MmFormat::Array => {
            let total = rows.checked_mul(cols).ok_or_else(|| Error::SizeTooLarge {
                op: OP_READ,
                detail: format!("line {line}: a dense {rows} x {cols} matrix overflows usize"),
            })?;
            match symmetry {
                MmSymmetry::General => total,
                MmSymmetry::Symmetric | MmSymmetry::Hermitian => triangle(rows, true),
                MmSymmetry::SkewSymmetric => triangle(rows, false),
            }
        }
    };
    Ok(MmHeader {
        format,
        field,
        symmetry,
        rows,
        cols,
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::triangle;

    #[test]
    fn triangle_counts() {
        for n in 0..20usize {
            assert_eq!(triangle(n, true), n * (n + 1) / 2);
            assert_eq!(triangle(n, false), n * n.saturating_sub(1) / 2);
        }
        let big = 1usize << 32;
        assert_eq!(triangle(big - 1, true), (big - 1) * (big / 2));
    }
}
