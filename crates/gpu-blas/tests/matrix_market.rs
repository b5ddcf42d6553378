//! Matrix Market I/O: every field/symmetry/format combination against hand-written matrices,
//! round trips (sparse and dense, four scalar types, gzip), a corpus of malformed files, the
//! allocation-bomb cases, and the real SuiteSparse matrices when they are present.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use gpu_blas::matrix_market::{
    read, read_from, read_header, read_header_from, write_dense, write_dense_to, write_sparse,
    write_sparse_to, MmField, MmFormat, MmHeader, MmMatrix, MmSymmetry,
};
use gpu_blas::{Error, Scalar};
use ndarray::{array, Array2};
use num_complex::{Complex32 as C32, Complex64 as C64};
use proptest::prelude::*;
use sprs::CsMat;

// ---------------------------------------------------------------------------------------------
// An allocator that records the largest single successful allocation of this test binary, so
// the allocation-bomb tests can assert that no huge buffer was ever requested.

struct PeakAlloc;

static LARGEST_ALLOCATION: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s
// guarantees carry over; the bookkeeping only reads `layout.size()` / `new_size`.
unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's (non-zero-sized `layout`).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LARGEST_ALLOCATION.fetch_max(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's (non-zero-sized `layout`).
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LARGEST_ALLOCATION.fetch_max(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` (through this allocator) with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by `System` with `layout`; `new_size` is valid per the
        // caller's contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LARGEST_ALLOCATION.fetch_max(new_size, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: PeakAlloc = PeakAlloc;

// ---------------------------------------------------------------------------------------------
// Helpers.

fn parse<T: Scalar>(text: &str) -> gpu_blas::Result<(MmHeader, MmMatrix<T>)> {
    read_from::<T, _>(text.as_bytes())
}

fn c(re: f64, im: f64) -> C64 {
    C64::new(re, im)
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("gpu_blas_mm_test_{}_{name}", std::process::id()))
}

/// The `Error::Parse` of reading `text` as `T`, as (line, message).
fn parse_error_of<T: Scalar>(text: &[u8]) -> (usize, String) {
    match read_from::<T, _>(text) {
        Err(Error::Parse { line, message }) => (line, message),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

/// CSR from an ordered map of entries.
fn csr<T: Scalar>(rows: usize, cols: usize, entries: &BTreeMap<(usize, usize), T>) -> CsMat<T> {
    let mut indptr = vec![0usize; rows + 1];
    let mut indices = Vec::new();
    let mut data = Vec::new();
    for (&(i, j), &v) in entries {
        indptr[i + 1] += 1;
        indices.push(j);
        data.push(v);
    }
    for i in 0..rows {
        indptr[i + 1] += indptr[i];
    }
    CsMat::new((rows, cols), indptr, indices, data)
}

/// A deterministic pseudo-random generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A value with awkward decimal expansions and a wide exponent range.
    fn value(&mut self) -> f64 {
        let mantissa = (self.next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
        let exp = self.below(80) as i32 - 40;
        mantissa * 10f64.powi(exp)
    }
}

/// Values that stress the round trip.
const SPECIAL: &[f64] = &[
    0.1,
    1.0 / 3.0,
    -2.0 / 7.0,
    -0.0,
    f64::MIN_POSITIVE,
    5e-324,
    f64::MAX,
    -1e300,
    1e-300,
    f64::INFINITY,
    123456789.0,
];

fn random_sparse<T: Scalar>(rows: usize, cols: usize, nnz: usize, seed: u64) -> CsMat<T> {
    let mut rng = Rng(seed);
    let mut entries = BTreeMap::new();
    for k in 0..nnz {
        let (i, j) = (rng.below(rows), rng.below(cols));
        let re = SPECIAL.get(k).copied().unwrap_or_else(|| rng.value());
        entries.insert((i, j), T::from_parts(real::<T>(re), real::<T>(rng.value())));
    }
    csr(rows, cols, &entries)
}

fn real<T: Scalar>(x: f64) -> T::Real {
    T::from_f64(x).re()
}

/// Bitwise comparison of two sparse matrices (so `-0.0` and `0.0` differ).
fn assert_same_bits<T: Scalar>(a: &CsMat<T>, b: &CsMat<T>) {
    assert_eq!(a.shape(), b.shape());
    assert_eq!(a.indptr().raw_storage(), b.indptr().raw_storage());
    assert_eq!(a.indices(), b.indices());
    for (x, y) in a.data().iter().zip(b.data()) {
        let (x, y) = (x.to_c64(), y.to_c64());
        assert_eq!(
            (x.re.to_bits(), x.im.to_bits()),
            (y.re.to_bits(), y.im.to_bits()),
            "{x} vs {y}"
        );
    }
}

fn assert_dense_same_bits<T: Scalar>(a: &Array2<T>, b: &Array2<T>) {
    assert_eq!(a.dim(), b.dim());
    for (x, y) in a.iter().zip(b.iter()) {
        let (x, y) = (x.to_c64(), y.to_c64());
        assert_eq!(
            (x.re.to_bits(), x.im.to_bits()),
            (y.re.to_bits(), y.im.to_bits()),
            "{x} vs {y}"
        );
    }
}

fn real_matrix(rows: &[&[f64]]) -> Array2<C64> {
    let n = rows.len();
    let m = rows.first().map_or(0, |r| r.len());
    Array2::from_shape_fn((n, m), |(i, j)| c(rows[i][j], 0.0))
}

// ---------------------------------------------------------------------------------------------
// Every valid combination, read against a hand-written matrix.

struct Case {
    text: &'static str,
    format: MmFormat,
    field: MmField,
    symmetry: MmSymmetry,
    expected: Array2<C64>,
}

fn cases() -> Vec<Case> {
    use MmField::*;
    use MmFormat::*;
    use MmSymmetry::*;
    let r = real_matrix;
    vec![
        // ----- coordinate -----
        Case {
            text: "%%MatrixMarket matrix coordinate real general\n3 4 4\n1 1 1.5\n3 1 -2\n2 4 4e-1\n3 3 7\n",
            format: Coordinate,
            field: Real,
            symmetry: General,
            expected: r(&[&[1.5, 0., 0., 0.], &[0., 0., 0., 0.4], &[-2., 0., 7., 0.]]),
        },
        Case {
            text: "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 1\n3 2 2.5\n3 3 6\n",
            format: Coordinate,
            field: Real,
            symmetry: Symmetric,
            expected: r(&[&[4., 1., 0.], &[1., 0., 2.5], &[0., 2.5, 6.]]),
        },
        Case {
            text: "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 2 -5.5\n",
            format: Coordinate,
            field: Real,
            symmetry: SkewSymmetric,
            expected: r(&[&[0., -3., 0.], &[3., 0., 5.5], &[0., -5.5, 0.]]),
        },
        Case {
            text: "%%MatrixMarket matrix coordinate integer general\n2 3 3\n1 3 7\n2 1 -4\n2 2 +12\n",
            format: Coordinate,
            field: Integer,
            symmetry: General,
            expected: r(&[&[0., 0., 7.], &[-4., 12., 0.]]),
        },
        Case {
            text: "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 2\n3 1 -1\n3 3 9\n",
            format: Coordinate,
            field: Integer,
            symmetry: Symmetric,
            expected: r(&[&[2., 0., -1.], &[0., 0., 0.], &[-1., 0., 9.]]),
        },
        Case {
            text: "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n3 1 8\n2 1 -1\n",
            format: Coordinate,
            field: Integer,
            symmetry: SkewSymmetric,
            expected: r(&[&[0., 1., -8.], &[-1., 0., 0.], &[8., 0., 0.]]),
        },
        Case {
            text: "%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 2 1 2\n2 1 -3 0.5\n",
            format: Coordinate,
            field: Complex,
            symmetry: General,
            expected: array![[c(0., 0.), c(1., 2.)], [c(-3., 0.5), c(0., 0.)]],
        },
        Case {
            text: "%%MatrixMarket matrix coordinate complex symmetric\n2 2 2\n1 1 1 1\n2 1 2 -1\n",
            format: Coordinate,
            field: Complex,
            symmetry: Symmetric,
            expected: array![[c(1., 1.), c(2., -1.)], [c(2., -1.), c(0., 0.)]],
        },
        Case {
            text: "%%MatrixMarket matrix coordinate complex skew-symmetric\n2 2 1\n2 1 2 -1\n",
            format: Coordinate,
            field: Complex,
            symmetry: SkewSymmetric,
            expected: array![[c(0., 0.), c(-2., 1.)], [c(2., -1.), c(0., 0.)]],
        },
        Case {
            text: "%%MatrixMarket matrix coordinate complex hermitian\n2 2 3\n1 1 3 0\n2 1 2 -1\n2 2 -1 0\n",
            format: Coordinate,
            field: Complex,
            symmetry: Hermitian,
            expected: array![[c(3., 0.), c(2., 1.)], [c(2., -1.), c(-1., 0.)]],
        },
        Case {
            text: "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 1\n2 3\n3 2\n",
            format: Coordinate,
            field: Pattern,
            symmetry: General,
            expected: r(&[&[1., 0., 0.], &[0., 0., 1.], &[0., 1., 0.]]),
        },
        Case {
            text: "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n1 1\n3 1\n",
            format: Coordinate,
            field: Pattern,
            symmetry: Symmetric,
            expected: r(&[&[1., 0., 1.], &[0., 0., 0.], &[1., 0., 0.]]),
        },
        // ----- array -----
        Case {
            text: "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6.25\n",
            format: Array,
            field: Real,
            symmetry: General,
            expected: r(&[&[1., 3., 5.], &[2., 4., 6.25]]),
        },
        Case {
            text: "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n",
            format: Array,
            field: Real,
            symmetry: Symmetric,
            expected: r(&[&[1., 2., 3.], &[2., 4., 5.], &[3., 5., 6.]]),
        },
        Case {
            text: "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3.5\n",
            format: Array,
            field: Real,
            symmetry: SkewSymmetric,
            expected: r(&[&[0., -1., -2.], &[1., 0., -3.5], &[2., 3.5, 0.]]),
        },
        Case {
            text: "%%MatrixMarket matrix array integer general\n2 2\n1\n-2\n3\n-4\n",
            format: Array,
            field: Integer,
            symmetry: General,
            expected: r(&[&[1., 3.], &[-2., -4.]]),
        },
        Case {
            text: "%%MatrixMarket matrix array integer symmetric\n2 2\n5\n6\n7\n",
            format: Array,
            field: Integer,
            symmetry: Symmetric,
            expected: r(&[&[5., 6.], &[6., 7.]]),
        },
        Case {
            text: "%%MatrixMarket matrix array integer skew-symmetric\n2 2\n-9\n",
            format: Array,
            field: Integer,
            symmetry: SkewSymmetric,
            expected: r(&[&[0., 9.], &[-9., 0.]]),
        },
        Case {
            text: "%%MatrixMarket matrix array complex general\n2 2\n1 1\n2 2\n3 -3\n4 4\n",
            format: Array,
            field: Complex,
            symmetry: General,
            expected: array![[c(1., 1.), c(3., -3.)], [c(2., 2.), c(4., 4.)]],
        },
        Case {
            text: "%%MatrixMarket matrix array complex symmetric\n2 2\n1 1\n2 -1\n3 0\n",
            format: Array,
            field: Complex,
            symmetry: Symmetric,
            expected: array![[c(1., 1.), c(2., -1.)], [c(2., -1.), c(3., 0.)]],
        },
        Case {
            text: "%%MatrixMarket matrix array complex skew-symmetric\n2 2\n1 2\n",
            format: Array,
            field: Complex,
            symmetry: SkewSymmetric,
            expected: array![[c(0., 0.), c(-1., -2.)], [c(1., 2.), c(0., 0.)]],
        },
        Case {
            text: "%%MatrixMarket matrix array complex hermitian\n2 2\n2 0\n1 -1\n5 0\n",
            format: Array,
            field: Complex,
            symmetry: Hermitian,
            expected: array![[c(2., 0.), c(1., 1.)], [c(1., -1.), c(5., 0.)]],
        },
    ]
}

fn check_case<T: Scalar>(case: &Case) {
    let (h, m) = parse::<T>(case.text).unwrap_or_else(|e| panic!("{}: {e}", case.text));
    assert_eq!(
        (h.format, h.field, h.symmetry),
        (case.format, case.field, case.symmetry)
    );
    assert_eq!((h.rows, h.cols), case.expected.dim());
    match (&m, case.format) {
        (MmMatrix::Sparse(a), MmFormat::Coordinate) => {
            assert!(a.is_csr());
            for row in a.outer_iterator() {
                assert!(row.indices().windows(2).all(|w| w[0] < w[1]));
            }
        }
        (MmMatrix::Dense(_), MmFormat::Array) => {}
        _ => panic!("wrong storage for {:?}", case.format),
    }
    let expected = case
        .expected
        .mapv(|z| T::from_parts(real::<T>(z.re), real::<T>(z.im)));
    assert_eq!(m.to_dense().unwrap(), expected, "{}", case.text);
}

#[test]
fn every_combination_reads_the_expected_matrix() {
    let all = cases();
    assert_eq!(all.len(), 22);
    for case in &all {
        check_case::<C64>(case);
        check_case::<C32>(case);
        if case.field != MmField::Complex {
            check_case::<f64>(case);
            check_case::<f32>(case);
        }
        // The header alone, too.
        let h = read_header_from(case.text.as_bytes()).unwrap();
        assert_eq!(h, parse::<C64>(case.text).unwrap().0);
    }
}

#[test]
fn header_entries_count() {
    let h = read_header_from("%%MatrixMarket matrix array real skew-symmetric\n4 4\n".as_bytes())
        .unwrap();
    assert_eq!(h.entries, 6);
    let h = read_header_from("%%MatrixMarket matrix array real general\n4 3\n".as_bytes()).unwrap();
    assert_eq!(h.entries, 12);
    let h = read_header_from(
        "%%MatrixMarket matrix coordinate real symmetric\n%\n\n  7 7 9 \n".as_bytes(),
    )
    .unwrap();
    assert_eq!((h.rows, h.cols, h.entries), (7, 7, 9));
}

#[test]
fn banner_is_case_insensitive_and_comments_blank_lines_crlf_are_allowed() {
    let text = "%%matrixmarket MATRIX Coordinate REAL Symmetric\r\n\
                % comment\r\n\
                \r\n\
                %another\r\n\
                3 3 3\r\n\
                % between entries\r\n\
                1 1 1.0D+00\r\n\
                \r\n\
                \t 3 1   -2.5d-1 \r\n\
                % between entries\r\n\
                2 2 2\r\n\
                % trailing comment\r\n\
                \r\n";
    let (h, m) = parse::<f64>(text).unwrap();
    assert_eq!(h.symmetry, MmSymmetry::Symmetric);
    assert_eq!(
        m.to_dense().unwrap(),
        array![[1.0, 0.0, -0.25], [0.0, 2.0, 0.0], [-0.25, 0.0, 0.0]]
    );
    // A final line without a newline, and a UTF-8 byte order mark.
    let text = "\u{feff}%%MatrixMarket matrix array real general\n1 1\n42";
    assert_eq!(
        parse::<f64>(text).unwrap().1.to_dense().unwrap(),
        array![[42.0]]
    );
    // Comments need not be UTF-8 (old files carry Latin-1 text).
    let bytes = b"%%MatrixMarket matrix coordinate real general\n% caf\xe9\n1 1 1\n1 1 3\n";
    let (_, m) = read_from::<f64, _>(&bytes[..]).unwrap();
    assert_eq!(m.as_sparse().unwrap().get(0, 0), Some(&3.0));
}

#[test]
fn duplicates_are_summed_in_file_order_and_rows_sorted() {
    let text = "%%MatrixMarket matrix coordinate real general\n3 3 6\n\
                3 3 1\n1 2 0.1\n1 1 5\n1 2 0.2\n3 1 -1\n1 2 0.3\n";
    let (h, m) = parse::<f64>(text).unwrap();
    assert_eq!(h.entries, 6);
    let a = m.as_sparse().unwrap();
    assert_eq!(a.nnz(), 4);
    assert_eq!(a.indptr().raw_storage(), &[0, 2, 2, 4]);
    assert_eq!(a.indices(), &[0, 1, 0, 2]);
    assert_eq!(a.get(0, 1), Some(&(0.1 + 0.2 + 0.3)));
    // A symmetric diagonal entry is not doubled; an explicit zero stays stored.
    let text = "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 2 0\n2 1 1\n";
    let a = parse::<f64>(text).unwrap().1;
    let a = a.as_sparse().unwrap();
    assert_eq!(a.nnz(), 3);
    assert_eq!(a.get(1, 1), Some(&0.0));
}

#[test]
fn empty_matrices() {
    let (_, m) = parse::<f64>("%%MatrixMarket matrix coordinate real general\n0 0 0\n").unwrap();
    assert_eq!(m.shape(), (0, 0));
    assert_eq!(m.as_sparse().unwrap().nnz(), 0);
    let (_, m) = parse::<f64>("%%MatrixMarket matrix array real general\n0 5\n").unwrap();
    assert_eq!(m.shape(), (0, 5));
    let (_, m) = parse::<f64>("%%MatrixMarket matrix coordinate real general\n4 2 0\n").unwrap();
    assert_eq!(
        m.as_sparse().unwrap().indptr().raw_storage(),
        &[0, 0, 0, 0, 0]
    );
    let (_, m) = parse::<f64>("%%MatrixMarket matrix array real skew-symmetric\n1 1\n").unwrap();
    assert_eq!(m.as_dense().unwrap(), &array![[0.0]]);
}

// ---------------------------------------------------------------------------------------------
// Round trips.

fn sparse_round_trip<T: Scalar>(seed: u64) {
    for &(rows, cols, nnz) in &[(1, 1, 1), (7, 5, 20), (60, 90, 700), (3, 3, 0)] {
        let a = random_sparse::<T>(rows, cols, nnz, seed);
        let mut out = Vec::new();
        write_sparse_to(&mut out, &a, MmSymmetry::General).unwrap();
        let (h, back) = read_from::<T, _>(&out[..]).unwrap();
        assert_eq!(
            h.field,
            if T::IS_COMPLEX {
                MmField::Complex
            } else {
                MmField::Real
            }
        );
        assert_eq!((h.rows, h.cols, h.entries), (rows, cols, a.nnz()));
        assert_same_bits(&a, back.as_sparse().unwrap());
    }
}

#[test]
fn sparse_general_round_trip_all_types() {
    sparse_round_trip::<f32>(1);
    sparse_round_trip::<f64>(2);
    sparse_round_trip::<C32>(3);
    sparse_round_trip::<C64>(4);
}

/// A random matrix with the given symmetry.
fn structured<T: Scalar>(n: usize, symmetry: MmSymmetry, seed: u64) -> CsMat<T> {
    let mut rng = Rng(seed);
    let mut entries = BTreeMap::new();
    for _ in 0..3 * n {
        let (i, j) = (rng.below(n), rng.below(n));
        let v = T::from_parts(real::<T>(rng.value()), real::<T>(rng.value()));
        let (v, mirror) = match symmetry {
            MmSymmetry::General => (v, v),
            MmSymmetry::Symmetric => (v, v),
            MmSymmetry::SkewSymmetric => (v, -v),
            MmSymmetry::Hermitian => (v, v.conj()),
        };
        if i == j {
            let d = match symmetry {
                MmSymmetry::SkewSymmetric => continue,
                MmSymmetry::Hermitian => T::from_real(v.re()),
                _ => v,
            };
            entries.insert((i, i), d);
        } else {
            entries.insert((i, j), v);
            entries.insert((j, i), mirror);
        }
    }
    csr(n, n, &entries)
}

fn structured_round_trip<T: Scalar>(symmetry: MmSymmetry, seed: u64) {
    let a = structured::<T>(40, symmetry, seed);
    let path = tmp(&format!("structured_{}_{symmetry}_{seed}.mtx", T::PREFIX));
    write_sparse(&path, &a, symmetry).unwrap();
    let (h, back) = read::<T>(&path).unwrap();
    std::fs::remove_file(&path).ok();
    let lower = a
        .iter()
        .filter(|&(_, (i, j))| {
            if symmetry == MmSymmetry::SkewSymmetric {
                i > j
            } else {
                i >= j
            }
        })
        .count();
    assert_eq!(h.entries, lower);
    let expected_banner = if symmetry == MmSymmetry::Hermitian && !T::IS_COMPLEX {
        MmSymmetry::Symmetric
    } else {
        symmetry
    };
    assert_eq!(h.symmetry, expected_banner);
    assert_same_bits(&a, back.as_sparse().unwrap());
}

#[test]
fn sparse_structured_round_trips() {
    for (k, sym) in [
        MmSymmetry::Symmetric,
        MmSymmetry::SkewSymmetric,
        MmSymmetry::Hermitian,
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 10 + k as u64;
        structured_round_trip::<f32>(sym, seed);
        structured_round_trip::<f64>(sym, seed);
        structured_round_trip::<C32>(sym, seed);
        structured_round_trip::<C64>(sym, seed);
    }
}

#[test]
fn writing_a_matrix_without_the_claimed_symmetry_fails() {
    let not_sym = csr(2, 2, &BTreeMap::from([((0, 1), 1.0f64), ((1, 0), 2.0)]));
    let err = write_sparse_to(Vec::new(), &not_sym, MmSymmetry::Symmetric).unwrap_err();
    assert!(matches!(err, Error::DimensionMismatch { .. }), "{err}");
    // An entry whose mirror is missing.
    let one_sided = csr(3, 3, &BTreeMap::from([((2, 0), 1.0f64)]));
    assert!(write_sparse_to(Vec::new(), &one_sided, MmSymmetry::Symmetric).is_err());
    // ... unless it is an explicit zero.
    let zero = csr(3, 3, &BTreeMap::from([((2, 0), 0.0f64)]));
    write_sparse_to(Vec::new(), &zero, MmSymmetry::Symmetric).unwrap();
    // Non-square.
    let rect = csr::<f64>(2, 3, &BTreeMap::new());
    let err = write_sparse_to(Vec::new(), &rect, MmSymmetry::Symmetric).unwrap_err();
    assert!(matches!(err, Error::DimensionMismatch { .. }), "{err}");
    // Skew-symmetric with a non-zero diagonal; symmetric matrix claimed skew.
    let diag = csr(2, 2, &BTreeMap::from([((1, 1), 1.0f64)]));
    assert!(write_sparse_to(Vec::new(), &diag, MmSymmetry::SkewSymmetric).is_err());
    let sym = structured::<f64>(10, MmSymmetry::Symmetric, 5);
    assert!(write_sparse_to(Vec::new(), &sym, MmSymmetry::SkewSymmetric).is_err());
    // Hermitian with a non-real diagonal; complex symmetric claimed hermitian.
    let diag = csr(2, 2, &BTreeMap::from([((0, 0), c(1.0, 1.0))]));
    assert!(write_sparse_to(Vec::new(), &diag, MmSymmetry::Hermitian).is_err());
    let csym = csr(
        2,
        2,
        &BTreeMap::from([((0, 1), c(1.0, 1.0)), ((1, 0), c(1.0, 1.0))]),
    );
    assert!(write_sparse_to(Vec::new(), &csym, MmSymmetry::Hermitian).is_err());
    write_sparse_to(Vec::new(), &csym, MmSymmetry::Symmetric).unwrap();
    // Nothing is created when the check fails.
    let path = tmp("never_written.mtx");
    assert!(write_sparse(&path, &not_sym, MmSymmetry::Symmetric).is_err());
    assert!(!path.exists());
}

#[test]
fn csc_input_is_written_correctly() {
    let a = random_sparse::<f64>(6, 4, 12, 77);
    let csc = a.to_csc();
    let mut out = Vec::new();
    write_sparse_to(&mut out, &csc, MmSymmetry::General).unwrap();
    let (_, back) = read_from::<f64, _>(&out[..]).unwrap();
    assert_same_bits(&a, back.as_sparse().unwrap());
}

fn dense_round_trip<T: Scalar>(seed: u64) {
    let mut rng = Rng(seed);
    for &(rows, cols) in &[(1, 1), (3, 5), (17, 2), (0, 3)] {
        let mut k = 0;
        let a = Array2::from_shape_fn((rows, cols), |_| {
            k += 1;
            let re = SPECIAL.get(k - 1).copied().unwrap_or_else(|| rng.value());
            T::from_parts(real::<T>(re), real::<T>(rng.value()))
        });
        // Owned array to a file.
        let path = tmp(&format!("dense_{}_{rows}x{cols}.mtx", T::PREFIX));
        write_dense(&path, &a).unwrap();
        let (h, back) = read::<T>(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!(
            (h.format, h.symmetry, h.rows, h.cols, h.entries),
            (
                MmFormat::Array,
                MmSymmetry::General,
                rows,
                cols,
                rows * cols
            )
        );
        assert_dense_same_bits(&a, back.as_dense().unwrap());
        // A transposed (column-major) view to a stream.
        let mut out = Vec::new();
        write_dense_to(&mut out, &a.t()).unwrap();
        let (_, back) = read_from::<T, _>(&out[..]).unwrap();
        assert_dense_same_bits(&a.t().to_owned(), back.as_dense().unwrap());
    }
}

#[test]
fn dense_round_trip_all_types() {
    dense_round_trip::<f32>(21);
    dense_round_trip::<f64>(22);
    dense_round_trip::<C32>(23);
    dense_round_trip::<C64>(24);
}

#[test]
fn written_text_is_standard() {
    let a = csr(
        2,
        2,
        &BTreeMap::from([((0, 0), 2.0f64), ((1, 0), -0.5), ((1, 1), 1e-300)]),
    );
    let mut out = Vec::new();
    write_sparse_to(&mut out, &a, MmSymmetry::Symmetric).unwrap_err();
    out.clear();
    let a = csr(
        2,
        2,
        &BTreeMap::from([((0, 0), 2.0f64), ((1, 0), -0.5), ((0, 1), -0.5)]),
    );
    write_sparse_to(&mut out, &a, MmSymmetry::Symmetric).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "%%MatrixMarket matrix coordinate real symmetric");
    let data: Vec<&str> = lines[1..]
        .iter()
        .copied()
        .filter(|l| !l.starts_with('%'))
        .collect();
    assert_eq!(data, ["2 2 2", "1 1 2e0", "2 1 -5e-1"]);
}

#[test]
fn gzip_is_detected_by_content() {
    let text = cases()[1].text; // coordinate real symmetric
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    let gz = enc.finish().unwrap();
    assert_eq!(&gz[..2], &[0x1f, 0x8b]);
    let plain = parse::<f64>(text).unwrap();
    // From a stream.
    assert_eq!(read_from::<f64, _>(&gz[..]).unwrap(), plain);
    // From a file whose name says nothing about gzip, and a plain file named `.gz`.
    let path = tmp("compressed.mtx");
    std::fs::write(&path, &gz).unwrap();
    assert_eq!(read::<f64>(&path).unwrap(), plain);
    assert_eq!(read_header(&path).unwrap(), plain.0);
    std::fs::remove_file(&path).ok();
    let path = tmp("not_compressed.mtx.gz");
    std::fs::write(&path, text).unwrap();
    assert_eq!(read::<f64>(&path).unwrap(), plain);
    std::fs::remove_file(&path).ok();
    // A round trip of a written file through gzip.
    let a = random_sparse::<C64>(30, 20, 100, 9);
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    write_sparse_to(&mut enc, &a, MmSymmetry::General).unwrap();
    let gz = enc.finish().unwrap();
    let (_, back) = read_from::<C64, _>(&gz[..]).unwrap();
    assert_same_bits(&a, back.as_sparse().unwrap());
    // A corrupt gzip stream is an I/O error.
    let mut bad = gz.clone();
    bad.truncate(gz.len() / 2);
    assert!(matches!(
        read_from::<C64, _>(&bad[..]),
        Err(Error::Io { .. })
    ));
    let err = read_from::<f64, _>(&[0x1f, 0x8b, 0x00, 0x01, 0x02][..]).unwrap_err();
    assert!(
        matches!(err, Error::Io { ref path, .. } if path == "<stream>"),
        "{err}"
    );
}

#[test]
fn missing_file_is_an_io_error() {
    let path = tmp("does_not_exist.mtx");
    match read::<f64>(&path) {
        Err(Error::Io { path: p, .. }) => assert!(p.contains("does_not_exist")),
        other => panic!("{other:?}"),
    }
    assert!(matches!(read_header(&path), Err(Error::Io { .. })));
    let dir = tmp("no_such_dir").join("x.mtx");
    let a = csr::<f64>(1, 1, &BTreeMap::new());
    assert!(matches!(
        write_sparse(&dir, &a, MmSymmetry::General),
        Err(Error::Io { .. })
    ));
    assert!(matches!(
        write_dense(&dir, &array![[1.0f64]]),
        Err(Error::Io { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn prop_sparse_f64_round_trip_is_exact(
        rows in 1usize..30,
        cols in 1usize..30,
        entries in prop::collection::vec((0usize..30, 0usize..30, any::<f64>()), 0..60),
    ) {
        let map: BTreeMap<(usize, usize), f64> = entries
            .into_iter()
            .filter(|&(_, _, v)| !v.is_nan())
            .map(|(i, j, v)| ((i % rows, j % cols), v))
            .collect();
        let a = csr(rows, cols, &map);
        let mut out = Vec::new();
        write_sparse_to(&mut out, &a, MmSymmetry::General).unwrap();
        let (_, back) = read_from::<f64, _>(&out[..]).unwrap();
        assert_same_bits(&a, back.as_sparse().unwrap());
    }

    #[test]
    fn prop_dense_c32_round_trip_is_exact(
        rows in 0usize..8,
        cols in 0usize..8,
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let a = Array2::from_shape_fn((rows, cols), |_| {
            let re = f32::from_bits(rng.next() as u32);
            let im = f32::from_bits(rng.next() as u32);
            let fix = |x: f32| if x.is_nan() { 1.5 } else { x };
            C32::new(fix(re), fix(im))
        });
        let mut out = Vec::new();
        write_dense_to(&mut out, &a).unwrap();
        let (_, back) = read_from::<C32, _>(&out[..]).unwrap();
        assert_dense_same_bits(&a, back.as_dense().unwrap());
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed input: every case must be `Error::Parse` at the right line, saying what was expected.

struct Bad {
    name: &'static str,
    text: &'static [u8],
    line: usize,
    says: &'static str,
}

const CORPUS: &[Bad] = &[
    Bad {
        name: "empty input",
        text: b"",
        line: 1,
        says: "bad banner",
    },
    Bad {
        name: "misspelt banner",
        text: b"%%MatrixMarkt matrix coordinate real general\n1 1 1\n1 1 1\n",
        line: 1,
        says: "bad banner",
    },
    Bad {
        name: "no banner, data first",
        text: b"3 3 1\n1 1 1\n",
        line: 1,
        says: "bad banner",
    },
    Bad {
        name: "banner with 4 words",
        text: b"%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n",
        line: 1,
        says: "bad banner: expected 5 words",
    },
    Bad {
        name: "unknown field",
        text: b"%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1\n",
        line: 1,
        says: "unknown field `quaternion`",
    },
    Bad {
        name: "unknown format",
        text: b"%%MatrixMarket matrix triangle real general\n1 1\n1\n",
        line: 1,
        says: "unknown format `triangle`",
    },
    Bad {
        name: "unknown symmetry",
        text: b"%%MatrixMarket matrix coordinate real diagonal\n1 1 1\n1 1 1\n",
        line: 1,
        says: "unknown symmetry `diagonal`",
    },
    Bad {
        name: "vector object",
        text: b"%%MatrixMarket vector coordinate real general\n3 1\n1 1\n",
        line: 1,
        says: "unsupported object `vector`",
    },
    Bad {
        name: "pattern array",
        text: b"%%MatrixMarket matrix array pattern general\n1 1\n",
        line: 1,
        says: "`pattern` is only allowed with the `coordinate` format",
    },
    Bad {
        name: "real hermitian",
        text: b"%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
        line: 1,
        says: "requires the `complex` field",
    },
    Bad {
        name: "pattern skew-symmetric",
        text: b"%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n",
        line: 1,
        says: "not allowed with the `pattern` field",
    },
    Bad {
        name: "complex file into a real type",
        text: b"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
        line: 1,
        says: "field mismatch: a `complex` file cannot be read into the real type `f64`",
    },
    Bad {
        name: "size line missing (only comments)",
        text: b"%%MatrixMarket matrix coordinate real general\n% c\n% d\n",
        line: 4,
        says: "size line expected",
    },
    Bad {
        name: "size line with 2 numbers in a coordinate file",
        text: b"%%MatrixMarket matrix coordinate real general\n% c\n3 3\n1 1 1\n",
        line: 3,
        says: "size line expected: `rows cols entries`",
    },
    Bad {
        name: "size line with 3 numbers in an array file",
        text: b"%%MatrixMarket matrix array real general\n3 3 9\n",
        line: 2,
        says: "size line expected: `rows cols`",
    },
    Bad {
        name: "non-numeric size",
        text: b"%%MatrixMarket matrix coordinate real general\nthree 3 1\n1 1 1\n",
        line: 2,
        says: "rows `three` is not a non-negative integer",
    },
    Bad {
        name: "negative size",
        text: b"%%MatrixMarket matrix coordinate real general\n3 -3 1\n1 1 1\n",
        line: 2,
        says: "cols `-3` is not a non-negative integer",
    },
    Bad {
        name: "non-square symmetric",
        text: b"%%MatrixMarket matrix coordinate real symmetric\n%\n3 4 1\n1 1 1\n",
        line: 3,
        says: "symmetry `symmetric` requires a square matrix, the size line declares 3 x 4",
    },
    Bad {
        name: "non-square hermitian array",
        text: b"%%MatrixMarket matrix array complex hermitian\n2 3\n1 0\n",
        line: 2,
        says: "requires a square matrix",
    },
    Bad {
        name: "entry with 2 fields",
        text: b"%%MatrixMarket matrix coordinate real general\n5 5 2\n1 1 1\n2 2\n",
        line: 4,
        says: "expected 3 fields `row col value`, found 2",
    },
    Bad {
        name: "entry with 4 fields",
        text: b"%%MatrixMarket matrix coordinate real general\n5 5 1\n1 1 1 2\n",
        line: 3,
        says: "expected 3 fields `row col value`, found 4",
    },
    Bad {
        name: "complex entry with 3 fields",
        text: b"%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1\n",
        line: 3,
        says: "expected 4 fields `row col real imag`, found 3",
    },
    Bad {
        name: "pattern entry with a value",
        text: b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n",
        line: 3,
        says: "expected 2 fields `row col`, found 3",
    },
    Bad {
        name: "array entry with 2 values",
        text: b"%%MatrixMarket matrix array real general\n1 2\n1 2\n",
        line: 3,
        says: "expected 1 field `value`, found 2",
    },
    Bad {
        name: "row index 0",
        text: b"%%MatrixMarket matrix coordinate real general\n5 5 2\n1 1 1\n\n0 2 1\n",
        line: 5,
        says: "row index 0 out of range 1..=5",
    },
    Bad {
        name: "column index too large",
        text: b"%%MatrixMarket matrix coordinate real general\n5 4 1\n2 5 1\n",
        line: 3,
        says: "column index 5 out of range 1..=4",
    },
    Bad {
        name: "negative index",
        text: b"%%MatrixMarket matrix coordinate real general\n5 5 1\n-1 2 1\n",
        line: 3,
        says: "row index `-1` is not a positive integer",
    },
    Bad {
        name: "non-numeric value",
        text: b"%%MatrixMarket matrix coordinate real general\n5 5 2\n1 1 1\n2 2 abc\n",
        line: 4,
        says: "value `abc` is not a real number",
    },
    Bad {
        name: "non-numeric imaginary part",
        text: b"%%MatrixMarket matrix array complex general\n1 1\n1.0 i\n",
        line: 3,
        says: "value `i` is not a real number",
    },
    Bad {
        name: "fractional integer",
        text: b"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
        line: 3,
        says: "value `1.5` is not an integer",
    },
    Bad {
        name: "too few coordinate entries",
        text: b"%%MatrixMarket matrix coordinate real general\n5 5 3\n1 1 1\n2 2 2\n% end\n",
        line: 6,
        says: "expected 3 entries, file ends after 2",
    },
    Bad {
        name: "too few array entries",
        text: b"%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5",
        line: 8,
        says: "expected 6 entries, file ends after 5",
    },
    Bad {
        name: "too many coordinate entries",
        text: b"%%MatrixMarket matrix coordinate real general\n5 5 1\n1 1 1\n%\n2 2 2\n",
        line: 5,
        says: "too many entries: the size line declares 1",
    },
    Bad {
        name: "too many array entries",
        text: b"%%MatrixMarket matrix array real skew-symmetric\n2 2\n1\n2\n",
        line: 4,
        says: "too many entries: the size line declares 1",
    },
    Bad {
        name: "entry above the diagonal of a symmetric file",
        text: b"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n1 3 2\n",
        line: 4,
        says: "entry (1, 3) lies above the diagonal",
    },
    Bad {
        name: "skew-symmetric non-zero diagonal",
        text: b"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 4\n",
        line: 4,
        says: "skew-symmetric matrix with non-zero diagonal entry (2, 2)",
    },
    Bad {
        name: "hermitian non-real diagonal (coordinate)",
        text: b"%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 2 1 1\n",
        line: 4,
        says: "hermitian matrix with non-real diagonal entry (2, 2)",
    },
    Bad {
        name: "hermitian non-real diagonal (array)",
        text: b"%%MatrixMarket matrix array complex hermitian\n2 2\n1 0\n2 3\n4 -1\n",
        line: 5,
        says: "hermitian matrix with non-real diagonal entry (2, 2)",
    },
    Bad {
        name: "data line not UTF-8",
        text: b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 \xff\n",
        line: 3,
        says: "not valid UTF-8",
    },
];

/// Complex files are read as a complex type, except the one that tests the field mismatch.
fn is_complex_file(bad: &Bad) -> bool {
    let banner = bad.text.split(|&b| b == b'\n').next().unwrap_or_default();
    banner.windows(7).any(|w| w == b"complex") && !bad.says.starts_with("field mismatch")
}

#[test]
fn malformed_corpus_gives_parse_errors_with_line_numbers() {
    assert!(CORPUS.len() >= 12);
    for bad in CORPUS {
        let (line, message) = if is_complex_file(bad) {
            parse_error_of::<C64>(bad.text)
        } else {
            parse_error_of::<f64>(bad.text)
        };
        assert_eq!(line, bad.line, "{}: {message}", bad.name);
        assert!(
            message.contains(bad.says),
            "{}: message `{message}` lacks `{}`",
            bad.name,
            bad.says
        );
        // Complex types give the same diagnosis (bar the field mismatch, which is fine there).
        if !bad.says.starts_with("field mismatch") {
            let (line, message) = parse_error_of::<C32>(bad.text);
            assert_eq!(line, bad.line, "{} (c32): {message}", bad.name);
            assert!(message.contains(bad.says), "{} (c32): {message}", bad.name);
        }
    }
}

#[test]
fn malformed_corpus_from_files() {
    // The same corpus through the path-based reader (and gzip-compressed), and the header reader
    // where the problem lies in the header.
    for (k, bad) in CORPUS.iter().enumerate() {
        let path = tmp(&format!("bad_{k}.mtx"));
        let read_line = |path: &PathBuf| {
            let result = if is_complex_file(bad) {
                read::<C64>(path).map(|_| ())
            } else {
                read::<f64>(path).map(|_| ())
            };
            match result {
                Err(Error::Parse { line, .. }) => line,
                other => panic!("{}: {other:?}", bad.name),
            }
        };
        std::fs::write(&path, bad.text).unwrap();
        assert_eq!(read_line(&path), bad.line, "{}", bad.name);
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(bad.text).unwrap();
        std::fs::write(&path, enc.finish().unwrap()).unwrap();
        assert_eq!(read_line(&path), bad.line, "{} (gz)", bad.name);
        std::fs::remove_file(&path).ok();
    }
}

// ---------------------------------------------------------------------------------------------
// Allocation bombs: huge declared sizes with tiny content fail fast without huge allocations.

#[test]
fn allocation_bombs_fail_fast_without_huge_allocations() {
    let start = Instant::now();
    // 10^12 x 10^12 with 10^15 declared entries, then 2.
    let text = "%%MatrixMarket matrix coordinate real general\n\
                1000000000000 1000000000000 1000000000000000\n1 1 1.0\n2 2 2.0\n";
    let (line, message) = parse_error_of::<f64>(text.as_bytes());
    assert_eq!(line, 5);
    assert!(
        message.contains("expected 1000000000000000 entries, file ends after 2"),
        "{message}"
    );
    let h = read_header_from(text.as_bytes()).unwrap();
    assert_eq!(h.entries, 1_000_000_000_000_000);

    // 10^8 declared entries: an up-front reservation would be gigabytes that overcommit grants.
    let text = "%%MatrixMarket matrix coordinate complex symmetric\n\
                100000 100000 100000000\n1 1 1.0 2.0\n";
    let (line, _) = parse_error_of::<C64>(text.as_bytes());
    assert_eq!(line, 4);

    // A 10^4 x 10^4 dense array (800 MB) declared, 2 values given.
    let text = "%%MatrixMarket matrix array real general\n10000 10000\n1\n2\n";
    let (line, message) = parse_error_of::<f64>(text.as_bytes());
    assert_eq!(line, 5);
    assert!(
        message.contains("expected 100000000 entries, file ends after 2"),
        "{message}"
    );

    // A symmetric array whose triangle has ~4.6e18 entries, 1 value given.
    let text = "%%MatrixMarket matrix array real symmetric\n3037000499 3037000499\n1\n";
    let (line, _) = parse_error_of::<f64>(text.as_bytes());
    assert_eq!(line, 4);

    // Dense rows*cols overflow: SizeTooLarge, from both readers.
    let text = "%%MatrixMarket matrix array real general\n10000000000 10000000000\n1\n";
    assert!(matches!(
        parse::<f64>(text),
        Err(Error::SizeTooLarge { .. })
    ));
    assert!(matches!(
        read_header_from(text.as_bytes()),
        Err(Error::SizeTooLarge { .. })
    ));
    let text = "%%MatrixMarket matrix array real symmetric\n4294967296 4294967296\n1\n";
    assert!(matches!(
        parse::<f64>(text),
        Err(Error::SizeTooLarge { .. })
    ));

    // A size beyond usize.
    let text = "%%MatrixMarket matrix coordinate real general\n1 99999999999999999999999 0\n";
    assert!(matches!(
        parse::<f64>(text),
        Err(Error::SizeTooLarge { .. })
    ));

    // Valid entries but a CSR row-pointer array beyond the address space: SizeTooLarge.
    let text = "%%MatrixMarket matrix coordinate real general\n\
                4611686018427387904 3 2\n1 1 1\n4611686018427387904 3 2\n";
    assert!(matches!(
        parse::<f64>(text),
        Err(Error::SizeTooLarge { .. })
    ));
    let text = "%%MatrixMarket matrix coordinate real general\n18446744073709551615 1 0\n";
    assert!(matches!(
        parse::<f64>(text),
        Err(Error::SizeTooLarge { .. })
    ));

    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
    // Nothing in this binary needs a single buffer over 32 MiB; a bomb would have asked for
    // gigabytes.
    let largest = LARGEST_ALLOCATION.load(Ordering::Relaxed);
    assert!(largest <= 32 << 20, "largest allocation: {largest} bytes");
}

// ---------------------------------------------------------------------------------------------
// The real SuiteSparse matrices, when present.

fn matrices_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("GPU_LINALG_MATRICES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/matrices"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: no test matrices at {} (set GPU_LINALG_MATRICES)",
            dir.display()
        );
        None
    }
}

/// An independent, minimal parse of a real coordinate file: the full matrix as a map (mirror
/// added for symmetric files, duplicates summed in file order), its shape, and the declared
/// entry count.
struct Independent {
    rows: usize,
    cols: usize,
    declared: usize,
    symmetric: bool,
    entries: HashMap<(usize, usize), f64>,
}

fn independent_parse(path: &std::path::Path) -> Independent {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let banner = lines.next().unwrap().to_ascii_lowercase();
    assert!(banner.contains("coordinate") && banner.contains("real"));
    let symmetric = banner.ends_with("symmetric");
    let mut data = lines.filter(|l| !l.starts_with('%') && !l.trim().is_empty());
    let size: Vec<usize> = data
        .next()
        .unwrap()
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    let mut entries = HashMap::new();
    let mut count = 0;
    for l in data {
        let t: Vec<&str> = l.split_whitespace().collect();
        let i: usize = t[0].parse::<usize>().unwrap() - 1;
        let j: usize = t[1].parse::<usize>().unwrap() - 1;
        let v: f64 = t[2].parse().unwrap();
        *entries.entry((i, j)).or_insert(0.0) += v;
        if symmetric && i != j {
            *entries.entry((j, i)).or_insert(0.0) += v;
        }
        count += 1;
    }
    assert_eq!(count, size[2]);
    Independent {
        rows: size[0],
        cols: size[1],
        declared: size[2],
        symmetric,
        entries,
    }
}

fn check_real_matrix(
    dir: &std::path::Path,
    name: &str,
    n: usize,
    full_nnz: usize,
    spot: &[(usize, usize, f64)],
) {
    let path = dir.join(name);
    if !path.exists() {
        eprintln!("skipping {name}: not in {}", dir.display());
        return;
    }
    let ind = independent_parse(&path);
    let (h, m) = read::<f64>(&path).unwrap();
    assert_eq!(
        (h.rows, h.cols, h.entries),
        (ind.rows, ind.cols, ind.declared)
    );
    assert_eq!((h.rows, h.cols), (n, n));
    assert_eq!(
        h.symmetry,
        if ind.symmetric {
            MmSymmetry::Symmetric
        } else {
            MmSymmetry::General
        }
    );
    let a = m.as_sparse().unwrap();
    assert_eq!(a.nnz(), ind.entries.len(), "{name}");
    assert_eq!(a.nnz(), full_nnz, "{name}");
    // Every entry, exactly (both sides sum duplicates in file order).
    for (&(i, j), &v) in &ind.entries {
        assert_eq!(a.get(i, j), Some(&v), "{name} ({i}, {j})");
    }
    // Spot checks against values copied from the file.
    for &(i, j, v) in spot {
        assert_eq!(a.get(i, j), Some(&v), "{name} ({i}, {j})");
        assert_eq!(ind.entries[&(i, j)], v);
    }
    // The sum of all entries.
    let ours: f64 = a.data().iter().sum();
    let theirs: f64 = ind.entries.values().sum();
    let scale: f64 = ind.entries.values().map(|v| v.abs()).sum();
    assert!(
        (ours - theirs).abs() <= 1e-12 * scale,
        "{name}: {ours} vs {theirs}"
    );
    // Other scalar types see the same structure.
    let (_, m32) = read::<f32>(&path).unwrap();
    assert_eq!(m32.as_sparse().unwrap().indices(), a.indices());
    let (_, mz) = read::<C64>(&path).unwrap();
    assert!(mz
        .as_sparse()
        .unwrap()
        .data()
        .iter()
        .zip(a.data())
        .all(|(z, &x)| z.re == x && z.im == 0.0));
    // Written back with the file's symmetry (lower triangle), read again: identical.
    let mut out = Vec::new();
    write_sparse_to(&mut out, a, h.symmetry).unwrap();
    let (h2, back) = read_from::<f64, _>(&out[..]).unwrap();
    assert_eq!(h2.entries, h.entries);
    assert_same_bits(a, back.as_sparse().unwrap());
}

#[test]
fn real_suitesparse_matrices() {
    let Some(dir) = matrices_dir() else {
        return;
    };
    check_real_matrix(
        &dir,
        "1138_bus.mtx",
        1138,
        4054,
        &[
            (0, 0, 1474.779),
            (4, 0, -9.017133),
            (0, 4, -9.017133),
            (1, 1, 9.136654),
        ],
    );
    check_real_matrix(
        &dir,
        "bcsstk15.mtx",
        3948,
        117816,
        &[
            (0, 0, 7.5701187792160e+06),
            (1, 0, 2.1606683731080e-07),
            (0, 1, 2.1606683731080e-07),
            (13, 0, -1.0302197802180e+05),
        ],
    );
    check_real_matrix(
        &dir,
        "west0479.mtx",
        479,
        1910,
        &[
            (24, 0, 1.0),
            (30, 0, -3.7648130000000e-02),
            (86, 0, -3.4423960000000e-01),
        ],
    );
}
