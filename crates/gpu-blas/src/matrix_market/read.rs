//! The reader: banner, size line, entries, symmetry expansion, gzip detection.

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;

use num_traits::{FromPrimitive, Zero};

use super::header::{parse_banner, parse_size_line, snippet, OP_READ};
use super::{MmField, MmFormat, MmHeader, MmMatrix, MmSymmetry};
use crate::error::{Error, Result};
use crate::scalar::{RealScalar, Scalar};

/// The most bytes reserved up front from a declared entry count (16 MiB); beyond it, vectors
/// grow as the entries are actually read.
const RESERVE_CAP_BYTES: usize = 1 << 24;

/// A vector with room for `declared` elements, but never more than [`RESERVE_CAP_BYTES`] worth.
fn capped_vec<E>(declared: usize) -> Vec<E> {
    Vec::with_capacity(declared.min(RESERVE_CAP_BYTES / std::mem::size_of::<E>().max(1)))
}

/// The label of I/O errors on readers that are not files.
const STREAM: &str = "<stream>";

fn io_error(label: &str, e: &std::io::Error) -> Error {
    Error::Io {
        path: label.to_string(),
        message: e.to_string(),
    }
}

fn parse_error(line: usize, message: impl Into<String>) -> Error {
    Error::Parse {
        line,
        message: message.into(),
    }
}

/// Reads the header (banner and size line) of the Matrix Market file at `path`, without reading
/// the entries.
///
/// Gzip-compressed files (first bytes `1f 8b`) are decompressed transparently. See
/// [`MmHeader`] for what `entries` counts.
///
/// # Errors
/// [`Error::Io`] if the file cannot be opened or read, [`Error::Parse`] for a malformed banner or
/// size line, [`Error::SizeTooLarge`] if a size does not fit `usize` or a dense `rows·cols`
/// overflows.
///
/// ```
/// use gpu_blas::matrix_market::{read_header, MmField, MmFormat, MmSymmetry};
/// let path = std::env::temp_dir().join("gpu_blas_doc_read_header.mtx");
/// std::fs::write(&path, "%%MatrixMarket matrix coordinate integer general\n4 5 2\n1 1 7\n4 5 -1\n")
///     .unwrap();
/// let h = read_header(&path)?;
/// assert_eq!((h.format, h.field, h.symmetry), (MmFormat::Coordinate, MmField::Integer, MmSymmetry::General));
/// assert_eq!((h.rows, h.cols, h.entries), (4, 5, 2));
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn read_header(path: impl AsRef<Path>) -> Result<MmHeader> {
    let path = path.as_ref();
    let label = path.display().to_string();
    let file = File::open(path).map_err(|e| io_error(&label, &e))?;
    let mut lines = Lines::new(decode(BufReader::new(file), &label)?, &label);
    lines.header()
}

/// Reads the header (banner and size line) of a Matrix Market stream, like [`read_header`];
/// the reader is consumed up to the size line (more may have been buffered).
///
/// # Errors
/// As [`read_header`], with `<stream>` as the path of I/O errors.
///
/// ```
/// use gpu_blas::matrix_market::read_header_from;
/// let h = read_header_from("%%MatrixMarket matrix array complex hermitian\n3 3\n".as_bytes())?;
/// assert_eq!(h.entries, 6); // lower triangle with the diagonal
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn read_header_from<R: BufRead>(reader: R) -> Result<MmHeader> {
    let mut lines = Lines::new(decode(reader, STREAM)?, STREAM);
    lines.header()
}

/// Reads the Matrix Market file at `path` into a matrix of scalar type `T`.
///
/// Gzip-compressed files are recognised by their content (first bytes `1f 8b`), not their
/// name, and decompressed transparently.
///
/// * `coordinate` files give [`MmMatrix::Sparse`]: CSR, sorted column indices, duplicates
///   summed (in file order). The symmetry is expanded: `symmetric` mirrors each off-diagonal
///   entry (`a_ji = a_ij`), `skew-symmetric` mirrors it negated (`a_ji = -a_ij`; a diagonal entry
///   must be zero), `hermitian` mirrors it conjugated (`a_ji = conj(a_ij)`; a diagonal entry must
///   have a zero imaginary part). Non-general files must list only entries with `i >= j`
///   (`i > j` for a non-zero skew-symmetric entry), as the format prescribes.
/// * `array` files give [`MmMatrix::Dense`]: values in column-major order; for `symmetric`/
///   `hermitian` only the lower triangle with the diagonal (`n(n+1)/2` values, column by
///   column), for `skew-symmetric` only the strictly lower triangle (`n(n-1)/2` values), mirrored
///   as above.
/// * `real` and `integer` values read into any `T` (imaginary part zero); `complex` values
///   (`re im`) only into complex `T`; `pattern` entries read as `1`.
///
/// The declared sizes never drive an allocation beyond what the file's content justifies:
/// entries are collected as they are read (reserving at most 16 MiB up front), a dense array is
/// built only once all its values have been read, and the CSR row-pointer array (`rows + 1`
/// words, inherent to CSR) is allocated fallibly after all entries have been read.
///
/// # Errors
/// * [`Error::Io`]: the file cannot be opened or read, or its gzip stream is corrupt;
/// * [`Error::Parse`] with the 1-based line number: a bad banner (line 1), an unknown or
///   invalid keyword combination (line 1), a complex file read into a real `T` (line 1), a bad
///   or missing size line, a non-square matrix with non-general symmetry (the size line), an
///   entry line with the wrong number of fields, an index out of range, a non-numeric value, an
///   entry above the diagonal of a non-general coordinate file, a non-zero skew-symmetric
///   diagonal or non-real hermitian diagonal, fewer entries than declared (reported at the line
///   after the last one) or more (reported at the first extra line);
/// * [`Error::SizeTooLarge`]: a size beyond `usize`, a dense `rows·cols` overflow, or a CSR
///   row-pointer array that cannot be allocated.
///
/// ```
/// use gpu_blas::matrix_market::{read, write_sparse, MmSymmetry};
/// use num_complex::Complex64;
/// let path = std::env::temp_dir().join("gpu_blas_doc_read.mtx");
/// std::fs::write(&path, "%%MatrixMarket matrix coordinate complex hermitian\n\
///                        2 2 2\n1 1 2.0 0.0\n2 1 1.0 -1.0\n").unwrap();
/// let (h, m) = read::<Complex64>(&path)?;
/// assert_eq!(h.entries, 2);
/// let a = m.to_dense()?;
/// assert_eq!(a[[1, 0]], Complex64::new(1.0, -1.0));
/// assert_eq!(a[[0, 1]], Complex64::new(1.0, 1.0)); // the conjugate mirror
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn read<T: Scalar>(path: impl AsRef<Path>) -> Result<(MmHeader, MmMatrix<T>)> {
    let path = path.as_ref();
    let label = path.display().to_string();
    let file = File::open(path).map_err(|e| io_error(&label, &e))?;
    read_impl(BufReader::with_capacity(1 << 16, file), &label)
}

/// Reads a Matrix Market matrix from a buffered reader (a file, a socket, `&[u8]`), exactly as
/// [`read`] does for a file, including transparent gzip decompression when the stream starts
/// with the gzip magic bytes `1f 8b`.
///
/// # Errors
/// As [`read`], with `<stream>` as the path of I/O errors.
///
/// ```
/// use gpu_blas::matrix_market::read_from;
/// let text = "%%MatrixMarket matrix coordinate real general\n\
///             % duplicates are summed\n2 3 3\n1 3 1.5\n2 1 -2\n1 3 0.25\n";
/// let (_, m) = read_from::<f64, _>(text.as_bytes())?;
/// let a = m.as_sparse().unwrap();
/// assert_eq!(a.shape(), (2, 3));
/// assert_eq!(a.nnz(), 2);
/// assert_eq!(a.get(0, 2), Some(&1.75));
/// assert_eq!(a.get(1, 0), Some(&-2.0));
/// # Ok::<(), gpu_blas::Error>(())
/// ```
pub fn read_from<T: Scalar, R: BufRead>(reader: R) -> Result<(MmHeader, MmMatrix<T>)> {
    read_impl(reader, STREAM)
}

fn read_impl<T: Scalar, R: BufRead>(reader: R, label: &str) -> Result<(MmHeader, MmMatrix<T>)> {
    let mut lines = Lines::new(decode(reader, label)?, label);
    let header = lines.header()?;
    if header.field == MmField::Complex && !T::IS_COMPLEX {
        return Err(parse_error(
            1,
            format!(
                "field mismatch: a `complex` file cannot be read into the real type `{}`",
                std::any::type_name::<T>()
            ),
        ));
    }
    let matrix = match header.format {
        MmFormat::Coordinate => MmMatrix::Sparse(read_coordinate(&mut lines, &header)?),
        MmFormat::Array => MmMatrix::Dense(read_array(&mut lines, &header)?),
    };
    Ok((header, matrix))
}

/// Wraps `reader` in a gzip decoder when its first two bytes are the gzip magic `1f 8b`.
fn decode<'a, R: BufRead + 'a>(mut reader: R, label: &str) -> Result<Box<dyn BufRead + 'a>> {
    let mut magic = [0u8; 2];
    let mut n = 0;
    while n < magic.len() {
        match reader.read(&mut magic[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error(label, &e)),
        }
    }
    let whole = Cursor::new(magic[..n].to_vec()).chain(reader);
    if magic[..n] == [0x1f, 0x8b] {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(whole),
        )))
    } else {
        Ok(Box::new(whole))
    }
}

/// Line-by-line access with 1-based line numbers, skipping comments and blank lines.
struct Lines<'a, R> {
    reader: R,
    buf: Vec<u8>,
    /// Number of lines read so far (the current line's number).
    line: usize,
    label: &'a str,
}

impl<'a, R: BufRead> Lines<'a, R> {
    fn new(reader: R, label: &'a str) -> Self {
        Lines {
            reader,
            buf: Vec::new(),
            line: 0,
            label,
        }
    }

    /// Reads the next raw line into `buf`; `false` at the end of the input.
    fn next_raw(&mut self) -> Result<bool> {
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| io_error(self.label, &e))?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        Ok(true)
    }

    /// The next line that is neither blank nor a comment, trimmed, with its line number.
    /// Comment lines need not be UTF-8 (old files carry Latin-1 text); data lines must be.
    fn next_data(&mut self) -> Result<Option<(usize, &str)>> {
        loop {
            if !self.next_raw()? {
                return Ok(None);
            }
            let t = self.buf.trim_ascii();
            if !t.is_empty() && t[0] != b'%' {
                break;
            }
        }
        let line = self.line;
        let text = std::str::from_utf8(self.buf.trim_ascii())
            .map_err(|_| parse_error(line, "line is not valid UTF-8 text"))?;
        Ok(Some((line, text)))
    }

    /// Reads the banner and the size line.
    fn header(&mut self) -> Result<MmHeader> {
        if !self.next_raw()? {
            return Err(parse_error(
                1,
                "bad banner: the input is empty, expected \
                 `%%MatrixMarket matrix <format> <field> <symmetry>`",
            ));
        }
        let raw = self.buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&self.buf);
        let keywords = parse_banner(&String::from_utf8_lossy(raw))?;
        let shape = match keywords.0 {
            MmFormat::Coordinate => "`rows cols entries`",
            MmFormat::Array => "`rows cols`",
        };
        match self.next_data()? {
            Some((line, text)) => parse_size_line(text, line, keywords),
            None => Err(parse_error(
                self.line + 1,
                format!("size line expected: {shape}, but the file ends"),
            )),
        }
    }
}

/// Parses a real number in `R`'s own precision (so `f32` values are rounded once); Fortran
/// exponents (`1.0D+03`) are accepted too.
fn parse_real<R: RealScalar>(s: &str) -> Option<R> {
    fn go<R: RealScalar>(s: &str) -> Option<R> {
        if std::mem::size_of::<R>() == 4 {
            s.parse::<f32>()
                .ok()
                .and_then(<R as FromPrimitive>::from_f32)
        } else {
            s.parse::<f64>()
                .ok()
                .and_then(<R as FromPrimitive>::from_f64)
        }
    }
    go(s).or_else(|| {
        if s.bytes().any(|b| b == b'd' || b == b'D') {
            go(&s.replace(['d', 'D'], "e"))
        } else {
            None
        }
    })
}

/// Parses the value fields of one entry (`toks` has the field's arity).
fn parse_value<T: Scalar>(field: MmField, toks: &[&str], line: usize) -> Result<T> {
    let real = |s: &str| {
        parse_real::<T::Real>(s).ok_or_else(|| {
            parse_error(line, format!("value `{}` is not a real number", snippet(s)))
        })
    };
    match field {
        MmField::Pattern => Ok(T::one()),
        MmField::Real => Ok(T::from_real(real(toks[0])?)),
        MmField::Complex => Ok(T::from_parts(real(toks[0])?, real(toks[1])?)),
        MmField::Integer => toks[0]
            .parse::<i128>()
            .ok()
            .and_then(<T::Real as FromPrimitive>::from_i128)
            .map(T::from_real)
            .ok_or_else(|| {
                parse_error(
                    line,
                    format!("value `{}` is not an integer", snippet(toks[0])),
                )
            }),
    }
}

/// Splits a data line into exactly `N` fields, or explains what was expected.
fn fields<'t, const N: usize>(
    text: &'t str,
    expected: usize,
    shape: &str,
    line: usize,
) -> Result<[&'t str; N]> {
    let mut out = [""; N];
    let mut found = 0;
    for (k, tok) in text.split_ascii_whitespace().enumerate() {
        if k < N {
            out[k] = tok;
        }
        found += 1;
    }
    if found != expected {
        let plural = if expected == 1 { "" } else { "s" };
        return Err(parse_error(
            line,
            format!("expected {expected} field{plural} `{shape}`, found {found}"),
        ));
    }
    Ok(out)
}

/// Parses a 1-based index in `1..=bound` into a 0-based one.
fn parse_index(tok: &str, what: &str, bound: usize, line: usize) -> Result<usize> {
    match tok.parse::<usize>() {
        Ok(k) if (1..=bound).contains(&k) => Ok(k - 1),
        Ok(k) => Err(parse_error(
            line,
            format!("{what} index {k} out of range 1..={bound}"),
        )),
        Err(_) => Err(parse_error(
            line,
            format!("{what} index `{}` is not a positive integer", snippet(tok)),
        )),
    }
}

fn value_shape(field: MmField) -> (usize, &'static str) {
    match field {
        MmField::Pattern => (0, ""),
        MmField::Complex => (2, "real imag"),
        MmField::Real | MmField::Integer => (1, "value"),
    }
}

fn too_few(lines_read: usize, expected: usize, found: usize) -> Error {
    parse_error(
        lines_read + 1,
        format!("expected {expected} entries, file ends after {found}"),
    )
}

/// After the declared entries, only comments and blank lines may follow.
fn expect_end<R: BufRead>(lines: &mut Lines<'_, R>, expected: usize) -> Result<()> {
    match lines.next_data()? {
        None => Ok(()),
        Some((line, _)) => Err(parse_error(
            line,
            format!("too many entries: the size line declares {expected}, found another here"),
        )),
    }
}

fn read_coordinate<T: Scalar, R: BufRead>(
    lines: &mut Lines<'_, R>,
    h: &MmHeader,
) -> Result<sprs::CsMat<T>> {
    let (nvals, vshape) = value_shape(h.field);
    let shape = if nvals == 0 {
        "row col".to_string()
    } else {
        format!("row col {vshape}")
    };
    let per_entry = if h.symmetry == MmSymmetry::General {
        1
    } else {
        2
    };
    let mut triplets: Vec<(usize, usize, T)> = capped_vec(h.entries.saturating_mul(per_entry));
    let mut count = 0;
    while count < h.entries {
        let Some((line, text)) = lines.next_data()? else {
            return Err(too_few(lines.line, h.entries, count));
        };
        let f: [&str; 4] = fields(text, 2 + nvals, &shape, line)?;
        let i = parse_index(f[0], "row", h.rows, line)?;
        let j = parse_index(f[1], "column", h.cols, line)?;
        let v: T = parse_value(h.field, &f[2..2 + nvals], line)?;
        if h.symmetry != MmSymmetry::General && j > i {
            return Err(parse_error(
                line,
                format!(
                    "entry ({}, {}) lies above the diagonal; a `{}` file stores only the lower \
                     triangle",
                    i + 1,
                    j + 1,
                    h.symmetry
                ),
            ));
        }
        triplets.push((i, j, v));
        if i == j {
            match h.symmetry {
                MmSymmetry::SkewSymmetric if v != T::zero() => {
                    return Err(parse_error(
                        line,
                        format!(
                            "skew-symmetric matrix with non-zero diagonal entry ({}, {}) = {v}",
                            i + 1,
                            j + 1
                        ),
                    ))
                }
                MmSymmetry::Hermitian if v.im() != <T::Real as Zero>::zero() => {
                    return Err(parse_error(
                        line,
                        format!(
                            "hermitian matrix with non-real diagonal entry ({}, {}) = {v}",
                            i + 1,
                            j + 1
                        ),
                    ))
                }
                _ => {}
            }
        } else {
            match h.symmetry {
                MmSymmetry::General => {}
                MmSymmetry::Symmetric => triplets.push((j, i, v)),
                MmSymmetry::SkewSymmetric => triplets.push((j, i, -v)),
                MmSymmetry::Hermitian => triplets.push((j, i, v.conj())),
            }
        }
        count += 1;
    }
    expect_end(lines, h.entries)?;
    build_csr(h.rows, h.cols, triplets)
}

/// Sorts the triplets by (row, column), sums duplicates in file order, and builds the CSR
/// matrix.
fn build_csr<T: Scalar>(
    rows: usize,
    cols: usize,
    mut triplets: Vec<(usize, usize, T)>,
) -> Result<sprs::CsMat<T>> {
    // Stable: duplicates keep their file order, so their sum is deterministic.
    triplets.sort_by_key(|&(i, j, _)| (i, j));
    let too_large = || Error::SizeTooLarge {
        op: OP_READ,
        detail: format!(
            "the CSR row-pointer array of a matrix with {rows} rows cannot be allocated"
        ),
    };
    let mut indptr: Vec<usize> = Vec::new();
    indptr
        .try_reserve_exact(rows.checked_add(1).ok_or_else(too_large)?)
        .map_err(|_| too_large())?;
    let mut indices: Vec<usize> = Vec::with_capacity(triplets.len());
    let mut data: Vec<T> = Vec::with_capacity(triplets.len());
    indptr.push(0);
    let mut row = 0;
    for (i, j, v) in triplets {
        while row < i {
            indptr.push(indices.len());
            row += 1;
        }
        let row_start = indptr[row];
        if indices.len() > row_start && indices.last() == Some(&j) {
            if let Some(last) = data.last_mut() {
                *last += v;
            }
        } else {
            indices.push(j);
            data.push(v);
        }
    }
    while indptr.len() < rows + 1 {
        indptr.push(indices.len());
    }
    sprs::CsMat::try_new((rows, cols), indptr, indices, data).map_err(|(_, _, _, e)| {
        Error::InvalidSparse {
            detail: format!("Matrix Market reader produced an invalid CSR matrix: {e}"),
        }
    })
}

fn read_array<T: Scalar, R: BufRead>(
    lines: &mut Lines<'_, R>,
    h: &MmHeader,
) -> Result<ndarray::Array2<T>> {
    let (nvals, vshape) = value_shape(h.field);
    let (rows, cols) = (h.rows, h.cols);
    // The first stored row of column `j`.
    let first_row = |j: usize| match h.symmetry {
        MmSymmetry::General => 0,
        MmSymmetry::Symmetric | MmSymmetry::Hermitian => j,
        MmSymmetry::SkewSymmetric => j + 1,
    };
    let mut values: Vec<T> = capped_vec(h.entries);
    let (mut i, mut j) = (first_row(0), 0);
    while values.len() < h.entries {
        let Some((line, text)) = lines.next_data()? else {
            return Err(too_few(lines.line, h.entries, values.len()));
        };
        let f: [&str; 2] = fields(text, nvals, vshape, line)?;
        let v: T = parse_value(h.field, &f[..nvals], line)?;
        if h.symmetry == MmSymmetry::Hermitian && i == j && v.im() != <T::Real as Zero>::zero() {
            return Err(parse_error(
                line,
                format!(
                    "hermitian matrix with non-real diagonal entry ({}, {}) = {v}",
                    i + 1,
                    j + 1
                ),
            ));
        }
        values.push(v);
        i += 1;
        if i >= rows {
            j += 1;
            i = first_row(j);
        }
    }
    expect_end(lines, h.entries)?;
    // Every value is now in memory, so the dense matrix (at most twice their number for a
    // triangle) is justified by the content.
    if h.symmetry == MmSymmetry::General {
        return Ok(ndarray::Array2::from_shape_fn((rows, cols), |(i, j)| {
            values[j * rows + i]
        }));
    }
    let n = rows;
    let mut a = ndarray::Array2::<T>::zeros((n, n));
    let mut it = values.into_iter();
    for j in 0..n {
        for i in first_row(j)..n {
            let v = it.next().unwrap_or_else(T::zero);
            a[[i, j]] = v;
            if i != j {
                a[[j, i]] = match h.symmetry {
                    MmSymmetry::Symmetric | MmSymmetry::General => v,
                    MmSymmetry::SkewSymmetric => -v,
                    MmSymmetry::Hermitian => v.conj(),
                };
            }
        }
    }
    Ok(a)
}
