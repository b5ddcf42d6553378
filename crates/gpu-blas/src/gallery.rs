//! Test problems: Poisson matrices, power-law sparsity, random SPD and general matrices.
//!
//! All generators are deterministic for a given seed and return host `sprs` CSR matrices, ready
//! for [`CsrMatrix::from_sprs`](crate::CsrMatrix::from_sprs).

use crate::scalar::Scalar;
use sprs::{CsMat, TriMat};

/// A small xorshift generator so that problems are reproducible without extra dependencies.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut s = self.0;
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        self.0 = s;
        s
    }
    /// Uniform in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform integer in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The 5-point finite-difference Laplacian on an `n × n` grid (Dirichlet boundary): `n²` rows,
/// 4 on the diagonal, −1 for each grid neighbour. Symmetric positive definite.
///
/// ```
/// let a = gpu_blas::gallery::poisson2d::<f64>(3);
/// assert_eq!(a.shape(), (9, 9));
/// assert_eq!(a.nnz(), 9 + 2 * 12); // diagonal + two entries per grid edge
/// ```
pub fn poisson2d<T: Scalar>(n: usize) -> CsMat<T> {
    stencil(&[n, n])
}

/// The 7-point finite-difference Laplacian on an `n × n × n` grid: `n³` rows, 6 on the diagonal,
/// −1 for each grid neighbour. Symmetric positive definite.
///
/// ```
/// let a = gpu_blas::gallery::poisson3d::<f32>(4);
/// assert_eq!(a.rows(), 64);
/// assert_eq!(a.nnz(), 64 + 2 * 3 * 48);
/// ```
pub fn poisson3d<T: Scalar>(n: usize) -> CsMat<T> {
    stencil(&[n, n, n])
}

fn stencil<T: Scalar>(dims: &[usize]) -> CsMat<T> {
    let rows: usize = dims.iter().product();
    let diag = T::from_f64(2.0 * dims.len() as f64);
    let off = T::from_f64(-1.0);
    let mut strides = vec![1usize; dims.len()];
    for d in 1..dims.len() {
        strides[d] = strides[d - 1] * dims[d - 1];
    }
    let mut indptr = Vec::with_capacity(rows + 1);
    let mut indices = Vec::with_capacity(rows * (2 * dims.len() + 1));
    let mut data = Vec::with_capacity(indices.capacity());
    indptr.push(0);
    for r in 0..rows {
        // Neighbours in increasing column order: -stride (largest first), diagonal, +stride.
        let mut row: Vec<(usize, T)> = Vec::with_capacity(2 * dims.len() + 1);
        for d in 0..dims.len() {
            let coord = (r / strides[d]) % dims[d];
            if coord > 0 {
                row.push((r - strides[d], off));
            }
            if coord + 1 < dims[d] {
                row.push((r + strides[d], off));
            }
        }
        row.push((r, diag));
        row.sort_by_key(|&(c, _)| c);
        for (c, v) in row {
            indices.push(c);
            data.push(v);
        }
        indptr.push(indices.len());
    }
    CsMat::new((rows, rows), indptr, indices, data)
}

/// A square matrix whose row lengths follow a power law between `min_len` and `max_len`
/// (`P(len ≥ k) ∝ k^(−1.5)`, rows shuffled), with random column positions and values in
/// `[−1, 1]`: the irregular case for SpMV load balancing.
///
/// ```
/// let a = gpu_blas::gallery::power_law::<f64>(10_000, 1, 1000, 7);
/// let lens: Vec<usize> = a.outer_iterator().map(|r| r.nnz()).collect();
/// assert!(*lens.iter().min().unwrap() >= 1 && *lens.iter().max().unwrap() <= 1000);
/// ```
pub fn power_law<T: Scalar>(n: usize, min_len: usize, max_len: usize, seed: u64) -> CsMat<T> {
    let mut rng = Rng::new(seed);
    let max_len = max_len.min(n).max(min_len.max(1));
    let min_len = min_len.max(1).min(max_len);
    let mut indptr = Vec::with_capacity(n + 1);
    let mut indices = Vec::new();
    let mut data = Vec::new();
    indptr.push(0);
    let mut cols = std::collections::BTreeSet::new();
    for _ in 0..n {
        // Inverse transform of a Pareto(1.5) tail, truncated to [min_len, max_len].
        let u = rng.uniform().max(1e-12);
        let len = ((min_len as f64) * u.powf(-1.0 / 1.5)).min(max_len as f64) as usize;
        cols.clear();
        while cols.len() < len {
            cols.insert(rng.below(n));
        }
        for &c in &cols {
            indices.push(c);
            data.push(T::from_f64(2.0 * rng.uniform() - 1.0));
        }
        indptr.push(indices.len());
    }
    CsMat::new((n, n), indptr, indices, data)
}

/// A random sparse symmetric positive definite matrix: about `per_row` off-diagonal entries per
/// row in `[−1, 1]` placed symmetrically, and a diagonal exceeding each row's absolute sum
/// (strict diagonal dominance makes it SPD).
///
/// ```
/// let a = gpu_blas::gallery::random_spd::<f64>(50, 4, 1);
/// assert_eq!(a.to_dense(), a.to_dense().t());
/// ```
pub fn random_spd<T: Scalar>(n: usize, per_row: usize, seed: u64) -> CsMat<T> {
    let mut rng = Rng::new(seed);
    let mut tri = TriMat::new((n, n));
    let mut rowsum = vec![0.0f64; n];
    if n > 1 {
        for i in 0..n {
            for _ in 0..per_row / 2 {
                let j = rng.below(n);
                if j == i {
                    continue;
                }
                let v = 2.0 * rng.uniform() - 1.0;
                tri.add_triplet(i, j, T::from_f64(v));
                tri.add_triplet(j, i, T::from_f64(v));
                rowsum[i] += v.abs();
                rowsum[j] += v.abs();
            }
        }
    }
    for (i, s) in rowsum.iter().enumerate() {
        tri.add_triplet(i, i, T::from_f64(s + 1.0));
    }
    tri.to_csr()
}

/// A random sparse nonsymmetric matrix with about `per_row` entries per row in `[−1, 1]` and a
/// diagonal of magnitude `n`-independent `per_row + 1`, so it is comfortably nonsingular.
///
/// ```
/// let a = gpu_blas::gallery::random_general::<f32>(30, 5, 2);
/// assert_eq!(a.rows(), 30);
/// ```
pub fn random_general<T: Scalar>(n: usize, per_row: usize, seed: u64) -> CsMat<T> {
    let mut rng = Rng::new(seed);
    let mut tri = TriMat::new((n, n));
    for i in 0..n {
        for _ in 0..per_row {
            let j = rng.below(n.max(1));
            if j != i {
                tri.add_triplet(i, j, T::from_f64(2.0 * rng.uniform() - 1.0));
            }
        }
        tri.add_triplet(i, i, T::from_f64(per_row as f64 + 1.0));
    }
    tri.to_csr()
}
