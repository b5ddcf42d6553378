//! Matrix statistics: size, density, row lengths, symmetry, and the SpMV kernel `auto` picks.

use gpu_blas::spmv::{choose, SpmvKernel};
use gpu_blas::{RowStats, Scalar};
use sprs::CsMat;

/// How symmetric a matrix is, each property checked exactly (no tolerance).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symmetry {
    /// Whether the matrix is square (every other property is `false` otherwise).
    pub square: bool,
    /// The stored pattern is symmetric: `(i, j)` is stored exactly when `(j, i)` is.
    pub structural: bool,
    /// `A == Aᵀ` value by value (an entry not stored counts as zero).
    pub symmetric: bool,
    /// `A == Aᴴ` value by value (the same as `symmetric` for real types).
    pub hermitian: bool,
}

/// The transpose of a CSR matrix as `(row_ptr, col_idx, values)` of `Aᵀ` in CSR form, i.e. `A`
/// by columns; the column indices of each row come out sorted.
fn transpose<T: Scalar>(a: &CsMat<T>) -> (Vec<usize>, Vec<usize>, Vec<T>) {
    let (rows, cols) = a.shape();
    let mut ptr = vec![0usize; cols + 1];
    for (_, (_, j)) in a.iter() {
        ptr[j + 1] += 1;
    }
    for j in 0..cols {
        ptr[j + 1] += ptr[j];
    }
    let mut next = ptr.clone();
    let mut idx = vec![0usize; a.nnz()];
    let mut val = vec![T::from_f64(0.0); a.nnz()];
    for i in 0..rows {
        if let Some(row) = a.outer_view(i) {
            for (j, &v) in row.iter() {
                idx[next[j]] = i;
                val[next[j]] = v;
                next[j] += 1;
            }
        }
    }
    (ptr, idx, val)
}

/// Checks structural symmetry, symmetry and hermitian symmetry of a CSR matrix whose rows have
/// sorted, distinct column indices (as every `sprs::CsMat` has).
///
/// Row `i` of `A` is merged with row `i` of `Aᵀ` (column `i` of `A`): a column present in only
/// one breaks structural symmetry, and must hold zero for numerical symmetry.
pub fn symmetry<T: Scalar>(a: &CsMat<T>) -> Symmetry {
    let (rows, cols) = a.shape();
    if rows != cols {
        return Symmetry {
            square: false,
            structural: false,
            symmetric: false,
            hermitian: false,
        };
    }
    if !a.is_csr() {
        return symmetry(&a.to_csr());
    }
    let zero = T::from_f64(0.0);
    let (tptr, tidx, tval) = transpose(a);
    let (mut structural, mut symmetric, mut hermitian) = (true, true, true);
    for i in 0..rows {
        let row = a.outer_view(i);
        let (ai, av): (&[usize], &[T]) =
            row.as_ref().map_or((&[], &[]), |r| (r.indices(), r.data()));
        let (ti, tv) = (&tidx[tptr[i]..tptr[i + 1]], &tval[tptr[i]..tptr[i + 1]]);
        let (mut p, mut q) = (0, 0);
        while p < ai.len() || q < ti.len() {
            // `x` = a_ij, `y` = a_ji for the next column j of either row.
            let (x, y) = match (ai.get(p), ti.get(q)) {
                (Some(&cj), Some(&tj)) if cj == tj => {
                    p += 1;
                    q += 1;
                    (av[p - 1], tv[q - 1])
                }
                (Some(&cj), Some(&tj)) if cj < tj => {
                    p += 1;
                    structural = false;
                    (av[p - 1], zero)
                }
                (Some(_), None) => {
                    p += 1;
                    structural = false;
                    (av[p - 1], zero)
                }
                _ => {
                    q += 1;
                    structural = false;
                    (zero, tv[q - 1])
                }
            };
            symmetric &= x == y;
            hermitian &= x == y.conj();
        }
    }
    Symmetry {
        square: true,
        structural,
        symmetric,
        hermitian,
    }
}

/// `nnz / (rows·cols)`, 0 for an empty shape.
pub fn density(rows: usize, cols: usize, nnz: usize) -> f64 {
    let cells = rows as f64 * cols as f64;
    if cells == 0.0 {
        0.0
    } else {
        nnz as f64 / cells
    }
}

/// A description of a kernel: its command-line name and what it does.
pub fn kernel_description(k: SpmvKernel) -> String {
    match k {
        SpmvKernel::Auto => "auto".into(),
        SpmvKernel::ThreadPerRow => "row (one thread per row)".into(),
        SpmvKernel::VectorPerRow { lanes } => format!("vec{lanes} ({lanes} threads per row)"),
        SpmvKernel::Adaptive => "adaptive (load-balanced row blocks)".into(),
    }
}

/// The kernel `--kernel auto` runs on the GPU for these row statistics, described.
pub fn auto_kernel(s: &RowStats) -> String {
    kernel_description(choose(s))
}

/// `yes` or `no`.
pub fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// One `label: value` line of output, the values aligned in one column.
pub fn line(label: &str, value: impl std::fmt::Display) -> String {
    format!("{:<22}{value}", format!("{label}:"))
}

/// The short statistics both commands print: size, nnz, density, row lengths, empty rows.
pub fn summary_lines(rows: usize, cols: usize, nnz: usize, s: &RowStats) -> Vec<String> {
    let d = density(rows, cols, nnz);
    vec![
        line("size", format!("{rows} x {cols}")),
        line("nnz", nnz),
        line("density", format!("{d:.3e} ({:.4}%)", 100.0 * d)),
        line(
            "row length",
            format!(
                "min {}, mean {:.2}, max {}, std {:.2}",
                s.min, s.mean, s.max, s.std_dev
            ),
        ),
        line("empty rows", s.empty_rows),
    ]
}

/// The symmetry lines `info` prints; `hermitian` only for complex types.
pub fn symmetry_lines<T: Scalar>(sym: &Symmetry) -> Vec<String> {
    if !sym.square {
        return vec![line("symmetric", "no (not square)")];
    }
    let mut out = vec![
        line("symmetric pattern", yes_no(sym.structural)),
        line("symmetric", yes_no(sym.symmetric)),
    ];
    if T::IS_COMPLEX {
        out.push(line("hermitian", yes_no(sym.hermitian)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex64;
    use sprs::TriMat;

    fn csr<T: Scalar>(n: usize, entries: &[(usize, usize, T)]) -> CsMat<T> {
        let mut t = TriMat::new((n, n));
        for &(i, j, v) in entries {
            t.add_triplet(i, j, v);
        }
        t.to_csr()
    }

    #[test]
    fn symmetric_and_not() {
        let s = symmetry(&csr(
            3,
            &[(0, 0, 4.0), (0, 2, 1.0), (2, 0, 1.0), (1, 1, 2.0)],
        ));
        assert!(s.square && s.structural && s.symmetric && s.hermitian);
        let s = symmetry(&csr(3, &[(0, 2, 1.0), (2, 0, 1.5)]));
        assert!(s.structural && !s.symmetric);
        let s = symmetry(&csr(3, &[(0, 2, 1.0)]));
        assert!(!s.structural && !s.symmetric);
        // An explicit zero without its mirror: structurally not symmetric, numerically so.
        let s = symmetry(&csr(3, &[(1, 2, 0.0), (0, 0, 1.0)]));
        assert!(!s.structural && s.symmetric);
        let rect = sprs::CsMat::<f64>::zero((2, 3));
        assert!(!symmetry(&rect).square);
    }

    #[test]
    fn hermitian_complex() {
        let z = Complex64::new;
        let h = csr(
            2,
            &[
                (0, 0, z(2.0, 0.0)),
                (0, 1, z(1.0, 1.0)),
                (1, 0, z(1.0, -1.0)),
            ],
        );
        let s = symmetry(&h);
        assert!(s.structural && !s.symmetric && s.hermitian);
        let c = csr(2, &[(0, 1, z(1.0, 1.0)), (1, 0, z(1.0, 1.0))]);
        let s = symmetry(&c);
        assert!(s.symmetric && !s.hermitian);
    }

    #[test]
    fn matches_poisson() {
        let a = gpu_blas::gallery::poisson2d::<f64>(5);
        let s = symmetry(&a);
        assert!(s.structural && s.symmetric);
        let g = gpu_blas::gallery::random_general::<f64>(40, 4, 3);
        assert!(!symmetry(&g).symmetric);
    }
}
