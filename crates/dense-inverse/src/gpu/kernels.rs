//! Launches of the kernels in `kernels/dense_inverse.cu`, one function per kernel, each argument
//! list in the order and with the types of the kernel's signature (`i64` leading dimensions,
//! `i32` orders and indices, `u64` device addresses).

use super::{vptr, Dense, NB};
use crate::error::Result;
use gpu_blas::kernels::{
    allow_shared_bytes, function, kernel_name, launch_error, max_shared_bytes, KernelModule,
    LaunchConfig, PushKernelArg,
};
use gpu_blas::{interop, Device, DeviceVec, Error, Scalar};
use std::sync::Arc;

static MODULE: KernelModule = KernelModule::new(
    "dense_inverse",
    include_bytes!("../../../../kernels/dense_inverse.fatbin"),
);

/// The stream this thread's launches go to (the device's unless redirected, see
/// [`super::on_stream`]).
fn stream(op: &'static str, dev: &Device) -> Result<Arc<cudarc::driver::CudaStream>> {
    super::launch_stream(op, dev)
}

fn func(op: &'static str, dev: &Device, base: &str) -> Result<cudarc::driver::CudaFunction> {
    let _ = op;
    Ok(function(dev, &MODULE, base)?)
}

fn i32_of(op: &'static str, v: usize) -> Result<i32> {
    i32::try_from(v).map_err(|_| {
        Error::SizeTooLarge {
            op,
            detail: format!("{v} exceeds the kernels' i32 range"),
        }
        .into()
    })
}

fn ld_of(op: &'static str, ld: usize) -> Result<i64> {
    i64::try_from(ld).map_err(|_| {
        Error::SizeTooLarge {
            op,
            detail: format!("leading dimension {ld}"),
        }
        .into()
    })
}

fn cfg(grid: (usize, usize), block: u32, smem: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid.0.max(1) as u32, grid.1.max(1) as u32, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: smem as u32,
    }
}

/// Blocks of `threads` covering `work` items, at most `cap` (grid-stride loops do the rest).
fn blocks(work: usize, threads: usize, cap: usize) -> usize {
    work.div_ceil(threads).clamp(1, cap)
}

/// Grid for the 2-D helpers: x over rows (256 threads), y over columns (≤ 65535).
fn grid2(n: usize) -> (usize, usize) {
    (blocks(n, 256, 64), n.clamp(1, 65535))
}

/// `getrf_pivot(a, ld, n, j, k, kb, ipiv, info)`: one block of 512 threads.
#[allow(clippy::too_many_arguments)]
pub(crate) fn getrf_pivot<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    j: usize,
    k: usize,
    kb: usize,
    ipiv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
) -> Result<()> {
    let n = a.rows;
    assert!(j < n && k <= j && j < k + kb && k + kb <= a.cols && ipiv.len() >= n);
    let f = func(op, dev, &kernel_name::<T>("getrf_pivot"))?;
    let s = stream(op, dev)?;
    let (ld, ni, ji, ki, kbi) = (
        ld_of(op, a.ld)?,
        i32_of(op, n)?,
        i32_of(op, j)?,
        i32_of(op, k)?,
        i32_of(op, kb)?,
    );
    let (pp, ip) = (vptr(ipiv), vptr(info));
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr)
        .arg(&ld)
        .arg(&ni)
        .arg(&ji)
        .arg(&ki)
        .arg(&kbi)
        .arg(&pp)
        .arg(&ip);
    // SAFETY: (T* a, i64 ld, int n, int j, int k, int kb, int* ipiv, int* info) match the
    // kernel; a is n × n (ld ≥ n) with j < n and k + kb ≤ n (asserted), ipiv holds n entries
    // and info one; the block size 512 matches the kernel's shared arrays (1024).
    unsafe { l.launch(cfg((1, 1), 512, 0)) }.map_err(launch_error(op))?;
    Ok(())
}

/// `getrf_update(a, ld, n, j, kend)`: a thread per row below `j`.
pub(crate) fn getrf_update<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    j: usize,
    kend: usize,
) -> Result<()> {
    let n = a.rows;
    assert!(j < kend && kend <= a.cols && kend <= n);
    if j + 1 >= n || j + 1 >= kend {
        return Ok(());
    }
    let f = func(op, dev, &kernel_name::<T>("getrf_update"))?;
    let s = stream(op, dev)?;
    let (ld, ni, ji, ke) = (
        ld_of(op, a.ld)?,
        i32_of(op, n)?,
        i32_of(op, j)?,
        i32_of(op, kend)?,
    );
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&ni).arg(&ji).arg(&ke);
    // SAFETY: (T* a, i64 ld, int n, int j, int kend) match the kernel; rows < n and columns
    // < kend ≤ cols of a.
    unsafe { l.launch(cfg((blocks(n - j - 1, 256, 4096), 1), 256, 0)) }
        .map_err(launch_error(op))?;
    Ok(())
}

/// `laswp_rows(a, ld, ncols, skip0, skip1, ipiv, k1, k2, backward)`: interchanges
/// `ipiv[k1..k2)` on the columns of `a` outside `skip`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn laswp_rows<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    skip: (usize, usize),
    ipiv: &DeviceVec<i32>,
    (k1, k2): (usize, usize),
    backward: bool,
) -> Result<()> {
    let ncols = a.cols;
    assert!(k1 <= k2 && k2 <= ipiv.len() && k2 <= a.rows);
    if ncols == 0 || k1 == k2 || (skip.0 == 0 && skip.1 >= ncols) {
        return Ok(());
    }
    let f = func(op, dev, &kernel_name::<T>("laswp_rows"))?;
    let s = stream(op, dev)?;
    let (ld, nc, s0, s1, k1i, k2i, bw) = (
        ld_of(op, a.ld)?,
        i32_of(op, ncols)?,
        i32_of(op, skip.0)?,
        i32_of(op, skip.1)?,
        i32_of(op, k1)?,
        i32_of(op, k2)?,
        backward as i32,
    );
    let pp = vptr(ipiv);
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr)
        .arg(&ld)
        .arg(&nc)
        .arg(&s0)
        .arg(&s1)
        .arg(&pp)
        .arg(&k1i)
        .arg(&k2i)
        .arg(&bw);
    // SAFETY: (T* a, i64 ld, int ncols, int skip0, int skip1, const int* ipiv, int k1, int k2,
    // int backward) match the kernel; the pivots in ipiv[k1..k2) were validated to lie in
    // 1..=rows by the caller (or produced by getrf_pivot), so every access is inside a.
    unsafe { l.launch(cfg((blocks(ncols, 128, 4096), 1), 128, 0)) }.map_err(launch_error(op))?;
    Ok(())
}

/// `permute_rows(src, lds, dst, ldd, n, nrhs, perm, scatter)`.
pub(crate) fn permute_rows<T: Scalar>(
    op: &'static str,
    dev: &Device,
    src: Dense<T>,
    dst: Dense<T>,
    perm: &DeviceVec<i32>,
    scatter: bool,
) -> Result<()> {
    let (n, nrhs) = (src.rows, src.cols);
    assert!(dst.rows == n && dst.cols == nrhs && perm.len() == n);
    if n == 0 || nrhs == 0 {
        return Ok(());
    }
    let f = func(op, dev, &kernel_name::<T>("permute_rows"))?;
    let s = stream(op, dev)?;
    let (lds, ldd, ni, nr, sc) = (
        ld_of(op, src.ld)?,
        ld_of(op, dst.ld)?,
        i32_of(op, n)?,
        i32_of(op, nrhs)?,
        scatter as i32,
    );
    let pp = vptr(perm);
    let mut l = s.launch_builder(&f);
    l.arg(&src.ptr)
        .arg(&lds)
        .arg(&dst.ptr)
        .arg(&ldd)
        .arg(&ni)
        .arg(&nr)
        .arg(&pp)
        .arg(&sc);
    // SAFETY: (const T* src, i64 lds, T* dst, i64 ldd, int n, int nrhs, const int* perm,
    // int scatter) match the kernel; perm is a permutation of 0..n built on the host, src and
    // dst are distinct n × nrhs matrices.
    unsafe { l.launch(cfg((blocks(n * nrhs, 256, 8192), 1), 256, 0)) }.map_err(launch_error(op))?;
    Ok(())
}

/// `getri_save_l(a, ld, n, j, jb, w, ldw)`.
pub(crate) fn getri_save_l<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (j, jb): (usize, usize),
    w: Dense<T>,
) -> Result<()> {
    let n = a.rows;
    assert!(j + jb <= n && w.rows >= n && w.cols >= jb && jb >= 1);
    let f = func(op, dev, &kernel_name::<T>("getri_save_l"))?;
    let s = stream(op, dev)?;
    let (ld, ni, ji, jbi, ldw) = (
        ld_of(op, a.ld)?,
        i32_of(op, n)?,
        i32_of(op, j)?,
        i32_of(op, jb)?,
        ld_of(op, w.ld)?,
    );
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr)
        .arg(&ld)
        .arg(&ni)
        .arg(&ji)
        .arg(&jbi)
        .arg(&w.ptr)
        .arg(&ldw);
    // SAFETY: (T* a, i64 ld, int n, int j, int jb, T* w, i64 ldw) match the kernel; rows < n,
    // columns j..j + jb of a and 0..jb of w (n × jb at least) exist; grid.y = jb.
    unsafe { l.launch(cfg((blocks(n - j, 256, 256), jb), 256, 0)) }.map_err(launch_error(op))?;
    Ok(())
}

/// `swap_cols(a, ld, n, ipiv)`: `getri`'s column interchanges, last to first.
pub(crate) fn swap_cols<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    ipiv: &DeviceVec<i32>,
) -> Result<()> {
    let n = a.rows;
    assert!(a.cols == n && ipiv.len() == n);
    if n < 2 {
        return Ok(());
    }
    let f = func(op, dev, &kernel_name::<T>("swap_cols"))?;
    let s = stream(op, dev)?;
    let (ld, ni, pp) = (ld_of(op, a.ld)?, i32_of(op, n)?, vptr(ipiv));
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&ni).arg(&pp);
    // SAFETY: (T* a, i64 ld, int n, const int* ipiv) match the kernel; the pivots come from
    // getrf on this n × n matrix (in 1..=n).
    unsafe { l.launch(cfg((blocks(n, 128, 4096), 1), 128, 0)) }.map_err(launch_error(op))?;
    Ok(())
}

/// `gj_save_rows(a, ld, n, k, kb, w, ldw)`: Gauss-Jordan's block-row save for the panel
/// `k..k + kb` of the `n × n` matrix `a`: rows `k..k + kb` of the columns outside the panel are
/// copied to the first `n − kb` columns of `w` (left columns first, in order) and zeroed in `a`.
pub(crate) fn gj_save_rows<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    (k, kb): (usize, usize),
    w: Dense<T>,
) -> Result<()> {
    let n = a.rows;
    assert!(a.cols == n && kb >= 1 && k + kb <= n && w.rows >= kb && w.cols >= n - kb);
    let total = kb * (n - kb);
    if total == 0 {
        return Ok(());
    }
    let f = func(op, dev, &kernel_name::<T>("gj_save_rows"))?;
    let s = stream(op, dev)?;
    let (ld, ni, ki, kbi, ldw) = (
        ld_of(op, a.ld)?,
        i32_of(op, n)?,
        i32_of(op, k)?,
        i32_of(op, kb)?,
        ld_of(op, w.ld)?,
    );
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr)
        .arg(&ld)
        .arg(&ni)
        .arg(&ki)
        .arg(&kbi)
        .arg(&w.ptr)
        .arg(&ldw);
    // SAFETY: (T* a, i64 ld, int n, int k, int kb, T* w, i64 ldw) match the kernel; a is n × n
    // with rows k..k + kb inside it, w has kb rows (ld ≥ kb) and n − kb columns at least
    // (asserted), and a and w are distinct buffers.
    unsafe { l.launch(cfg((blocks(total, 256, 8192), 1), 256, 0)) }.map_err(launch_error(op))?;
    Ok(())
}

/// Shared memory of a diagonal-block kernel (`nb × nb` elements), opted in above 48 KiB.
fn diag_smem<T: Scalar>(f: &cudarc::driver::CudaFunction, nb: usize) -> Result<usize> {
    let smem = nb * nb * std::mem::size_of::<T>();
    if smem > 48 * 1024 {
        allow_shared_bytes(f, smem)?;
    }
    Ok(smem)
}

/// `trtri_diag(a, ld, n, upper)`: every `NB × NB` diagonal block of the `n × n` triangular
/// matrix `a` (the last one smaller when `NB` does not divide `n`) inverted in place, one
/// thread block each, in one launch; the rest of `a` is not touched.
pub(crate) fn trtri_diag<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    upper: bool,
) -> Result<()> {
    let n = a.rows;
    assert!(a.cols == n);
    if n == 0 {
        return Ok(());
    }
    let nb = n.min(NB);
    let f = func(op, dev, &kernel_name::<T>("trtri_diag"))?;
    // The block and its inverse (leading dimension nb + 1).
    let smem = (nb * nb + nb * (nb + 1)) * std::mem::size_of::<T>();
    if smem > 48 * 1024 {
        allow_shared_bytes(&f, smem)?;
    }
    let s = stream(op, dev)?;
    let (ld, ni, up) = (ld_of(op, a.ld)?, i32_of(op, n)?, upper as i32);
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&ni).arg(&up);
    // SAFETY: (T* a, i64 ld, int n, int upper) match the kernel; a is n × n; block b takes the
    // diagonal block at 64 b of order min(64, n − 64 b) with 64 threads (one per column), and
    // the dynamic shared memory holds that block and its inverse.
    unsafe { l.launch(cfg((n.div_ceil(NB), 1), NB as u32, smem)) }.map_err(launch_error(op))?;
    Ok(())
}

/// `lauum_diag(a, ld, nb)`: lower triangle of `Mᴴ·M` for the lower triangular block `M`.
pub(crate) fn lauum_diag<T: Scalar>(op: &'static str, dev: &Device, a: Dense<T>) -> Result<()> {
    let nb = a.rows;
    assert!(a.cols == nb && (1..=NB).contains(&nb));
    let f = func(op, dev, &kernel_name::<T>("lauum_diag"))?;
    let smem = diag_smem::<T>(&f, nb)?;
    let s = stream(op, dev)?;
    let (ld, nbi) = (ld_of(op, a.ld)?, i32_of(op, nb)?);
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&nbi);
    // SAFETY: (T* a, i64 ld, int nb) match the kernel; a is nb × nb, shared memory nb²
    // elements.
    unsafe { l.launch(cfg((1, 1), 256, smem)) }.map_err(launch_error(op))?;
    Ok(())
}

/// `potrf_diag(a, ld, nb, col0, info)`: Cholesky of the lower triangle of the diagonal block
/// starting at column `col0`.
pub(crate) fn potrf_diag<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    col0: usize,
    info: &DeviceVec<i32>,
) -> Result<()> {
    let nb = a.rows;
    assert!(a.cols == nb && (1..=NB).contains(&nb) && !info.is_empty());
    let f = func(op, dev, &kernel_name::<T>("potrf_diag"))?;
    let smem = diag_smem::<T>(&f, nb)?;
    let s = stream(op, dev)?;
    let (ld, nbi, c0, ip) = (
        ld_of(op, a.ld)?,
        i32_of(op, nb)?,
        i32_of(op, col0)?,
        vptr(info),
    );
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&nbi).arg(&c0).arg(&ip);
    // SAFETY: (T* a, i64 ld, int nb, int col0, int* info) match the kernel; a is nb × nb,
    // info one int, shared memory nb² elements (plus the kernel's static flag).
    unsafe { l.launch(cfg((1, 1), 128, smem)) }.map_err(launch_error(op))?;
    Ok(())
}

/// Launches a 2-D helper `(T* a, i64 ld, int n, int flag)` on the `n × n` matrix `a`.
fn helper2<T: Scalar>(
    op: &'static str,
    dev: &Device,
    name: &str,
    a: Dense<T>,
    flag: i32,
) -> Result<()> {
    let n = a.rows;
    assert!(a.cols == n);
    if n == 0 {
        return Ok(());
    }
    let f = func(op, dev, &kernel_name::<T>(name))?;
    let s = stream(op, dev)?;
    let (ld, ni) = (ld_of(op, a.ld)?, i32_of(op, n)?);
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&ni).arg(&flag);
    // SAFETY: (T* a, i64 ld, int n, int flag) match mirror and zero_tri; a is n × n.
    unsafe { l.launch(cfg(grid2(n), 256, 0)) }.map_err(launch_error(op))?;
    Ok(())
}

/// `mirror(a, ld, n, from_upper)`: `a` made exactly Hermitian from one triangle.
pub(crate) fn mirror<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    from_upper: bool,
) -> Result<()> {
    helper2(op, dev, "mirror", a, from_upper as i32)
}

/// `zero_tri(a, ld, n, lower)`: zeros the strict lower (`lower`) or upper triangle.
pub(crate) fn zero_tri<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    lower: bool,
) -> Result<()> {
    helper2(op, dev, "zero_tri", a, lower as i32)
}

/// `herm_check(a, ld, n, bad)`: whether `a` is exactly Hermitian with a positive real
/// diagonal (waits for the result).
pub(crate) fn is_hermitian_positive_diagonal<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
) -> Result<bool> {
    let n = a.rows;
    assert!(a.cols == n);
    if n == 0 {
        return Ok(true);
    }
    // One block per 32 × 32 tile (blocks above the diagonal return at once).
    let tiles = n.div_ceil(32);
    if tiles > 65535 {
        return Err(Error::SizeTooLarge {
            op,
            detail: format!("order {n} exceeds the Hermitian check's 65535 tiles of 32"),
        }
        .into());
    }
    let bad = super::flag(dev, 0)?;
    let f = func(op, dev, &kernel_name::<T>("herm_check"))?;
    let s = stream(op, dev)?;
    let (ld, ni, bp) = (ld_of(op, a.ld)?, i32_of(op, n)?, vptr(&bad));
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&ni).arg(&bp);
    // SAFETY: (const T* a, i64 ld, int n, int* bad) match the kernel; a is n × n, bad one int.
    unsafe { l.launch(cfg((tiles, tiles), 256, 0)) }.map_err(launch_error(op))?;
    Ok(super::read_i32(&bad)? == 0)
}

/// The diagonal of the `n × n` matrix `a` on the host (`diag_gather`, then one copy).
pub(crate) fn diagonal<T: Scalar>(op: &'static str, dev: &Device, a: Dense<T>) -> Result<Vec<T>> {
    let n = a.rows.min(a.cols);
    if n == 0 {
        return Ok(Vec::new());
    }
    let out = DeviceVec::<T>::zeros(dev, n)?;
    let f = func(op, dev, &kernel_name::<T>("diag_gather"))?;
    let s = stream(op, dev)?;
    let (ld, ni, op_) = (ld_of(op, a.ld)?, i32_of(op, n)?, vptr(&out));
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&ni).arg(&op_);
    // SAFETY: (const T* a, i64 ld, int n, T* out) match the kernel; a has n diagonal entries,
    // out n elements.
    unsafe { l.launch(cfg((blocks(n, 256, 1024), 1), 256, 0)) }.map_err(launch_error(op))?;
    Ok(out.to_vec()?)
}

/// Which part of a square matrix a scan reads.
#[derive(Clone, Copy)]
pub(crate) enum Part {
    All = 0,
    Lower = 1,
    Upper = 2,
}

/// The smallest `i + j·m` with a non-finite `a(i, j)` of the `m × n` matrix `a`, in `part`
/// (the triangles for a square `a`; waits for the result).
pub(crate) fn first_nonfinite<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    part: Part,
) -> Result<Option<usize>> {
    let (m, n) = (a.rows, a.cols);
    assert!(matches!(part, Part::All) || m == n);
    if m == 0 || n == 0 {
        return Ok(None);
    }
    let first = DeviceVec::from_vec(dev, vec![-1i64])?;
    let f = func(op, dev, &kernel_name::<T>("nonfinite_scan"))?;
    let s = stream(op, dev)?;
    let (ld, mi, ni, pt, fp) = (
        ld_of(op, a.ld)?,
        i32_of(op, m)?,
        i32_of(op, n)?,
        part as i32,
        vptr(&first),
    );
    let grid = (blocks(m, 256, 64), n.clamp(1, 65535));
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&mi).arg(&ni).arg(&pt).arg(&fp);
    // SAFETY: (const T* a, i64 ld, int m, int n, int part, unsigned long long* first) match
    // the kernel; a is m × n, first one 8-byte word (all ones: none found).
    unsafe { l.launch(cfg(grid, 256, 0)) }.map_err(launch_error(op))?;
    let v = first.read_range(0, 1)?[0];
    Ok((v >= 0).then_some(v as usize))
}

/// `‖a‖₁ = max_j Σ_i |a(i, j)|` of an `m × n` matrix (waits for the result).
pub(crate) fn norm1<T: Scalar>(op: &'static str, dev: &Device, a: Dense<T>) -> Result<T::Real> {
    let (m, n) = (a.rows, a.cols);
    if m == 0 || n == 0 {
        return Ok(num_traits::Zero::zero());
    }
    let out = DeviceVec::<T::Real>::zeros(dev, 1)?;
    let f = func(op, dev, &kernel_name::<T>("col_norm1"))?;
    let s = stream(op, dev)?;
    let (ld, mi, ni, op_) = (ld_of(op, a.ld)?, i32_of(op, m)?, i32_of(op, n)?, vptr(&out));
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&mi).arg(&ni).arg(&op_);
    // SAFETY: (const T* a, i64 ld, int m, int n, Real* out) match the kernel; a is m × n, out
    // one real (zero), 256 threads as the kernel's shared array expects.
    unsafe { l.launch(cfg((blocks(n, 1, 8192), 1), 256, 0)) }.map_err(launch_error(op))?;
    Ok(out.read_range(0, 1)?[0])
}

/// Device state of the fused unblocked bordering steps: `q` (`n`), `y` (`n + 1`, zero), the
/// current pivot `β`, the breakdown flag (`i32::MAX`: none) and the `|β|` that set it.
pub(crate) struct BordState<T: Scalar> {
    pub q: DeviceVec<T>,
    pub y: DeviceVec<T>,
    pub beta: DeviceVec<T::Real>,
    pub flag: DeviceVec<i32>,
    pub fbeta: DeviceVec<T::Real>,
}

impl<T: Scalar> BordState<T> {
    pub(crate) fn new(dev: &Device, n: usize) -> Result<Self> {
        Ok(BordState {
            q: DeviceVec::zeros(dev, n.max(1))?,
            y: DeviceVec::zeros(dev, n + 1)?,
            beta: DeviceVec::zeros(dev, 1)?,
            flag: DeviceVec::from_vec(dev, vec![i32::MAX])?,
            fbeta: DeviceVec::zeros(dev, 1)?,
        })
    }
}

/// `bord_step(a, ld, m, q, beta, has_r, y)`: the step that grows the inverse in the upper
/// triangle of `a` from order `m` to `m + 1` with `q` (`m` entries) and `β`, in one pass over
/// the triangle; with `has_r` it also accumulates `y = W⁻¹·a(0..=m, m + 1)` for the next step
/// (column `m + 1` must exist).
pub(crate) fn bord_step<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    m: usize,
    st: &BordState<T>,
    has_r: bool,
) -> Result<()> {
    let n = a.rows;
    assert!(a.cols == n && m < n && (!has_r || m + 1 < n) && st.q.len() >= m && st.y.len() > m + 1);
    const TILE: usize = 64;
    const BORDER: usize = 256;
    let tiles = m.div_ceil(TILE);
    let grid = tiles * (tiles + 1) / 2 + m.div_ceil(BORDER).max(1);
    let f = func(op, dev, &kernel_name::<T>("bord_step"))?;
    let s = stream(op, dev)?;
    let (ld, mi, hr) = (ld_of(op, a.ld)?, i32_of(op, m)?, has_r as i32);
    let grid_u = u32::try_from(grid).map_err(|_| Error::SizeTooLarge {
        op,
        detail: format!("{grid} blocks"),
    })?;
    let (qp, bp, yp) = (vptr(&st.q), vptr(&st.beta), vptr(&st.y));
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr)
        .arg(&ld)
        .arg(&mi)
        .arg(&qp)
        .arg(&bp)
        .arg(&hr)
        .arg(&yp);
    let cfg = LaunchConfig {
        grid_dim: (grid_u, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: (T* a, i64 ld, int m, const T* q, const Real* beta, int has_r, T* y) match the
    // kernel; a is n × n with m < n (and m + 1 < n when has_r, so the column read exists), q
    // holds at least m entries, y at least m + 2, beta one real; 256 threads as the kernel's
    // tiles (64 × 64, four column groups) and border blocks (256 rows) expect, and the grid is
    // the triangle's tiles plus the border blocks.
    unsafe { l.launch(cfg) }.map_err(launch_error(op))?;
    Ok(())
}

/// `bord_finish(a, ld, t, q, y, beta, thr, flag, fbeta)`: `q = −y` (`t` entries, `y` zeroed),
/// `β = a(t, t) + Re(a(0..t, t)ᴴ·q)`, and the breakdown flag for step `t + 1` when
/// `|β| ≤ thr` (one block).
pub(crate) fn bord_finish<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    t: usize,
    st: &BordState<T>,
    thr: T::Real,
) -> Result<()> {
    let n = a.rows;
    assert!(a.cols == n && t < n && st.q.len() >= t && st.y.len() >= t);
    let f = func(op, dev, &kernel_name::<T>("bord_finish"))?;
    let s = stream(op, dev)?;
    let (ld, ti) = (ld_of(op, a.ld)?, i32_of(op, t)?);
    let (qp, yp, bp, fp, fbp) = (
        vptr(&st.q),
        vptr(&st.y),
        vptr(&st.beta),
        vptr(&st.flag),
        vptr(&st.fbeta),
    );
    // The threshold travels as the kernel's real type (f32 or f64, T::Real's size).
    let thr64 = num_traits::ToPrimitive::to_f64(&thr).unwrap_or(f64::NAN);
    let thr32 = thr64 as f32;
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&ti).arg(&qp).arg(&yp).arg(&bp);
    if std::mem::size_of::<T::Real>() == 4 {
        l.arg(&thr32);
    } else {
        l.arg(&thr64);
    }
    l.arg(&fp).arg(&fbp);
    // SAFETY: (const T* a, i64 ld, int t, T* q, T* y, Real* beta, Real thr, int* flag,
    // Real* fbeta) match the kernel; column t of a (rows 0..=t) exists as t < n, q and y hold
    // at least t entries, beta, flag and fbeta one each; one block of 1024 threads.
    unsafe { l.launch(cfg((1, 1), 1024, 0)) }.map_err(launch_error(op))?;
    Ok(())
}

/// `bord_leaf(a, ld, m, step0, thr, positive, flag, fbeta)`: the `m × m` (`m ≤ 64`) Hermitian
/// diagonal block `a` (its lower triangle) replaced by its inverse (both triangles) by unblocked
/// bordering in shared memory; the first failing pivot `β` (`|β| ≤ thr` or not finite, with
/// `positive` also `β ≤ thr`) sets `flag = step0 + t + 1` and `fbeta = |β|` unless the flag is
/// already set, in which case the kernel does nothing. One block of 256 threads.
#[allow(clippy::too_many_arguments)]
pub(crate) fn bord_leaf<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    step0: usize,
    thr: T::Real,
    positive: bool,
    flag: &DeviceVec<i32>,
    fbeta: &DeviceVec<T::Real>,
) -> Result<()> {
    let m = a.rows;
    assert!(a.cols == m && (1..=NB).contains(&m) && !flag.is_empty() && !fbeta.is_empty());
    let f = func(op, dev, &kernel_name::<T>("bord_leaf"))?;
    let smem = diag_smem::<T>(&f, m)?;
    let s = stream(op, dev)?;
    let (ld, mi, s0, pos) = (
        ld_of(op, a.ld)?,
        i32_of(op, m)?,
        i32_of(op, step0)?,
        positive as i32,
    );
    let (fp, fbp) = (vptr(flag), vptr(fbeta));
    let thr64 = num_traits::ToPrimitive::to_f64(&thr).unwrap_or(f64::NAN);
    let thr32 = thr64 as f32;
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr).arg(&ld).arg(&mi).arg(&s0);
    if std::mem::size_of::<T::Real>() == 4 {
        l.arg(&thr32);
    } else {
        l.arg(&thr64);
    }
    l.arg(&pos).arg(&fp).arg(&fbp);
    // SAFETY: (T* a, i64 ld, int m, int step0, Real thr, int positive, int* flag, Real* fbeta)
    // match the kernel (the threshold passed as T::Real's width); a is m × m with m ≤ 64 (the
    // kernel's static arrays hold 64 rows), flag and fbeta one element each; 256 threads as the
    // kernel's row/part split expects; dynamic shared memory m² elements.
    unsafe { l.launch(cfg((1, 1), 256, smem)) }.map_err(launch_error(op))?;
    Ok(())
}

/// A driver call's failure as [`Error::Cuda`].
pub(crate) fn driver_error(op: &'static str, e: impl std::fmt::Debug) -> Error {
    Error::Cuda {
        op,
        message: format!("{e:?}"),
    }
}

/// Threads per block of `getrf_panel`.
const PANEL_THREADS: u32 = 256;
/// Fewest panel rows a `getrf_panel` block is given (fewer blocks for short panels).
pub(crate) const PANEL_MIN_ROWS: usize = 16;
/// Most blocks of a `getrf_panel` launch by default: each column costs one grid barrier,
/// whose price grows with the blocks taking part, while the rows per block shrink. Measured
/// on an H100 (`gpu-bench --only panel-tune`, f64, blocks 16..132): 48 blocks were the
/// fastest `lu_factor` at n = 4000 (1.08× faster than 132) and 8000 (1.06×), and within
/// 1.1 % of the fastest (66) at n = 16000.
pub(crate) const PANEL_MAX_BLOCKS: usize = 48;

/// The device attribute `a` of `dev`.
fn device_attr(
    op: &'static str,
    dev: &Device,
    a: cudarc::driver::sys::CUdevice_attribute,
) -> Result<i32> {
    let ctx = interop::cuda_context(dev).ok_or_else(|| super::not_cuda(op))?;
    Ok(ctx.attribute(a).map_err(|e| driver_error(op, e))?)
}

/// Multiprocessors of `dev`, or `None` where it cannot launch cooperative grids.
pub(crate) fn cooperative_sms(op: &'static str, dev: &Device) -> Result<Option<usize>> {
    use cudarc::driver::sys::CUdevice_attribute as A;
    let coop = device_attr(op, dev, A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)?;
    let sms = device_attr(op, dev, A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    Ok((coop != 0 && sms > 0).then_some(sms as usize))
}

/// `f`'s static shared memory and the dynamic shared memory a launch of it may ask for (the
/// device's opt-in maximum less the static part), in bytes.
fn shared_limits(
    op: &'static str,
    dev: &Device,
    f: &cudarc::driver::CudaFunction,
) -> Result<(usize, usize)> {
    use cudarc::driver::sys::CUfunction_attribute as F;
    let static_smem = f
        .get_attribute(F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
        .map_err(|e| driver_error(op, e))?
        .max(0) as usize;
    let optin = max_shared_bytes(dev).unwrap_or(48 * 1024);
    Ok((static_smem, optin.saturating_sub(static_smem)))
}

/// Device scratch of `getrf_panel` for grids of up to `max_blocks` blocks (one per
/// multiprocessor), two generations (a column's parity) of each published item: the blocks'
/// argmax partials, their candidate pivot rows and row `j`; and the grid barrier.
pub(crate) struct PanelScratch<T: Scalar> {
    max_blocks: usize,
    part_v: DeviceVec<T::Real>,
    part_i: DeviceVec<i32>,
    rowbuf: DeviceVec<T>,
    bar: DeviceVec<u32>,
}

impl<T: Scalar> PanelScratch<T> {
    /// Scratch for panels of up to `kb` columns on `dev`, or `None` where the device cannot
    /// launch cooperative grids (the caller then factors the panel column by column).
    pub(crate) fn new(op: &'static str, dev: &Device, kb: usize) -> Result<Option<Self>> {
        let Some(max_blocks) = cooperative_sms(op, dev)? else {
            return Ok(None);
        };
        Ok(Some(PanelScratch {
            max_blocks,
            part_v: DeviceVec::zeros(dev, 2 * max_blocks)?,
            part_i: DeviceVec::zeros(dev, 2 * max_blocks)?,
            rowbuf: DeviceVec::zeros(dev, 2 * (max_blocks + 1) * kb)?,
            bar: DeviceVec::zeros(dev, 1)?,
        }))
    }
}

/// The grid of a `getrf_panel` launch: blocks, and dynamic shared memory per block (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PanelGrid {
    blocks: usize,
    smem: usize,
}

/// The grid of `getrf_panel` for a panel of `m ≥ 1` rows and `kb` columns of `T` on a device
/// with `sms` multiprocessors: `min(request, sms)` blocks (`request` defaults to
/// [`PANEL_MAX_BLOCKS`], and counts 0 as 1), fewer where that would give a block fewer than
/// [`PANEL_MIN_ROWS`] rows (`⌈m / 16⌉`, at least one); each block holds `⌈m / blocks⌉` rows of all `kb` columns in
/// dynamic shared memory, plus the pivot row (`kb` elements). Blocks past the last row hold
/// none (the kernel allows that).
fn panel_grid<T: Scalar>(m: usize, kb: usize, sms: usize, request: Option<usize>) -> PanelGrid {
    let cap = request.unwrap_or(PANEL_MAX_BLOCKS).clamp(1, sms.max(1));
    let blocks = cap.min(m.div_ceil(PANEL_MIN_ROWS)).max(1);
    let rows = m.div_ceil(blocks);
    PanelGrid {
        blocks,
        smem: (rows * kb + kb) * std::mem::size_of::<T>(),
    }
}

/// [`panel_grid`] checked against what `f` (`getrf_panel` for `T`) can launch on `dev`: the
/// dynamic shared memory within the device's opt-in maximum less `f`'s static shared memory
/// (opting `f` in to that maximum when the grid needs more than the default 48 KiB in all),
/// and every block resident at once (the cooperative launch's condition). `request = None`
/// asks for the default count: [`PANEL_MAX_BLOCKS`], or as many more as a block's rows need
/// to fit its shared memory. `None` where it cannot.
fn panel_fit<T: Scalar>(
    op: &'static str,
    dev: &Device,
    f: &cudarc::driver::CudaFunction,
    (m, kb): (usize, usize),
    sms: usize,
    request: Option<usize>,
) -> Result<Option<PanelGrid>> {
    let (static_smem, max_dynamic) = shared_limits(op, dev, f)?;
    // The default count grows past PANEL_MAX_BLOCKS where a block's rows would not fit.
    let request = request.or_else(|| {
        let rows_fit = (max_dynamic / std::mem::size_of::<T>()).saturating_sub(kb) / kb.max(1);
        Some(PANEL_MAX_BLOCKS.max(m.div_ceil(rows_fit.max(1))))
    });
    let g = panel_grid::<T>(m, kb, sms, request);
    if g.smem > max_dynamic {
        return Ok(None);
    }
    if g.smem + static_smem > 48 * 1024 {
        // Always the device's maximum, never the grid's own size: a later launch of another
        // grid (another thread, another panel height) never finds the limit lowered below it.
        allow_shared_bytes(f, max_dynamic)?;
    }
    let per_sm = f
        .occupancy_max_active_blocks_per_multiprocessor(PANEL_THREADS, g.smem, None)
        .map_err(|e| driver_error(op, e))? as usize;
    if per_sm == 0 || g.blocks > per_sm * sms {
        return Ok(None);
    }
    Ok(Some(g))
}

/// The number of blocks `getrf_panel` launches for a panel of `m` rows and `kb` columns of
/// `T` on `dev` with the block count `request` (`None`: the default, [`PANEL_MAX_BLOCKS`] or
/// one per multiprocessor where there are fewer), or `None` where the panel would be factored
/// column by column instead (no cooperative launch, too little shared memory, blocks that
/// cannot all be resident). Launches nothing.
pub(crate) fn panel_launch_blocks<T: Scalar>(
    op: &'static str,
    dev: &Device,
    (m, kb): (usize, usize),
    request: Option<usize>,
) -> Result<Option<usize>> {
    if m == 0 || kb == 0 {
        return Ok(None);
    }
    let Some(sms) = cooperative_sms(op, dev)? else {
        return Ok(None);
    };
    let f = func(op, dev, &kernel_name::<T>("getrf_panel"))?;
    Ok(panel_fit::<T>(op, dev, &f, (m, kb), sms, request)?.map(|g| g.blocks))
}

/// `getrf_panel(a, ld, n, k, kb, ipiv, info, part_v, part_i, rowbuf, bar)`: the LU with
/// partial pivoting of the panel `a(k..n, k..k + kb)` in one cooperative launch (pivots into
/// `ipiv[k..k + kb]`, the first zero pivot into `info`), the rows spread over the blocks of
/// [`panel_grid`] (`request`: the block count, `None` for the default), one
/// grid-wide barrier per column. Returns the number of blocks launched, or `None`, launching
/// nothing, when the panel's rows per block do not fit a block's shared memory or the blocks
/// cannot all be resident; the caller then uses [`getrf_pivot`] and [`getrf_update`]. An empty
/// panel launches nothing and returns `Some(0)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn getrf_panel<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    k: usize,
    kb: usize,
    ipiv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
    sc: &PanelScratch<T>,
    request: Option<usize>,
) -> Result<Option<usize>> {
    let n = a.rows;
    assert!(
        k + kb <= n
            && k + kb <= a.cols
            && ipiv.len() >= n
            && 2 * (sc.max_blocks + 1) * kb <= sc.rowbuf.len()
    );
    let m = n - k;
    if m == 0 || kb == 0 {
        return Ok(Some(0));
    }
    let f = func(op, dev, &kernel_name::<T>("getrf_panel"))?;
    let Some(PanelGrid { blocks, smem }) =
        panel_fit::<T>(op, dev, &f, (m, kb), sc.max_blocks, request)?
    else {
        return Ok(None);
    };
    debug_assert!((1..=sc.max_blocks).contains(&blocks));
    let s = stream(op, dev)?;
    let (ld, ni, ki, kbi) = (
        ld_of(op, a.ld)?,
        i32_of(op, n)?,
        i32_of(op, k)?,
        i32_of(op, kb)?,
    );
    let (pp, ip) = (vptr(ipiv), vptr(info));
    let (pv, pi, rb, bp) = (
        vptr(&sc.part_v),
        vptr(&sc.part_i),
        vptr(&sc.rowbuf),
        vptr(&sc.bar),
    );
    let mut l = s.launch_builder(&f);
    l.arg(&a.ptr)
        .arg(&ld)
        .arg(&ni)
        .arg(&ki)
        .arg(&kbi)
        .arg(&pp)
        .arg(&ip)
        .arg(&pv)
        .arg(&pi)
        .arg(&rb)
        .arg(&bp);
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (PANEL_THREADS, 1, 1),
        shared_mem_bytes: smem as u32,
    };
    // SAFETY: (T* a, i64 ld, int n, int k, int kb, int* ipiv, int* info, Real* part_v,
    // int* part_i, T* rowbuf, unsigned* bar) match the kernel; a is n × n with k + kb ≤ n,
    // ipiv holds n entries and info one; part_v / part_i hold two entries per block (1 ≤
    // blocks ≤ max_blocks, panel_grid caps the count), rowbuf 2·(max_blocks + 1)·kb ≥
    // 2·(blocks + 1)·kb (two generations of a row per block and row j), bar one word whose low
    // 31 bits are zero between launches (allocated zero; each round of the kernel's barrier
    // adds 2^31 to it, whatever the block count). The dynamic shared memory is the kernel's
    // ⌈(n − k) / blocks⌉ × kb panel slice plus one row, the kernel's own row count for this
    // grid; panel_fit checked it against the device's limit less the static shared memory
    // (and opted in above 48 KiB). The cooperative launch fails rather than starts if the
    // blocks cannot all be resident, which the occupancy check in panel_fit rules out.
    unsafe { l.launch_cooperative(cfg) }.map_err(launch_error(op))?;
    Ok(Some(blocks))
}

/// Threads per block of the cluster panel and how its blocks wait for each column's items
/// (`threads << 2 | sync`, sync as in [`PanelSync`]'s order; see [`set_cluster_variant`]).
static CLUSTER_VARIANT: std::sync::atomic::AtomicU32 =
    std::sync::atomic::AtomicU32::new(512 << 2 | 2);

/// How the blocks of an LU panel factored in one thread block cluster exchange each column's
/// pivot candidates and wait for each other (for tuning comparisons; all give the same
/// pivots and factors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanelSync {
    /// `getrf_panel_cl`: items published in the block's own shared memory, read by the others
    /// over distributed shared memory after a cluster barrier whose arrival every thread
    /// makes with release semantics.
    Release,
    /// `getrf_panel_cl` with the light barrier: the block's barrier, one cluster-scope fence by
    /// one thread and a relaxed cluster arrival.
    Light,
    /// `getrf_panel_push` (the default): every block pushes its items into every block's
    /// shared memory with asynchronous stores counted on the receiver's mbarrier, and waits
    /// only on its own mbarrier; no cluster barrier per column. Where its larger shared memory
    /// does not fit, `Light` runs instead.
    Push,
}

/// Sets the threads per block (256 or 512) of the cluster panel and how its blocks wait for
/// each other. For tuning.
pub(crate) fn set_cluster_variant(threads: u32, sync: PanelSync) {
    let t = if threads == 256 { 256 } else { 512 };
    let s = match sync {
        PanelSync::Release => 0,
        PanelSync::Light => 1,
        PanelSync::Push => 2,
    };
    CLUSTER_VARIANT.store(t << 2 | s, std::sync::atomic::Ordering::Relaxed);
}

/// Threads per block and the sync (0 release, 1 light, 2 push) of the cluster panel.
fn cluster_variant() -> (u32, u32) {
    let v = CLUSTER_VARIANT.load(std::sync::atomic::Ordering::Relaxed);
    (v >> 2, v & 3)
}

/// Most blocks of a cluster panel: 16, the largest (non-portable) cluster of sm_90.
pub(crate) const CLUSTER_MAX_BLOCKS: usize = 16;

/// Whether `dev` launches thread block clusters (compute capability 9.0 or later).
pub(crate) fn cluster_capable(op: &'static str, dev: &Device) -> Result<bool> {
    use cudarc::driver::sys::CUdevice_attribute as A;
    let major = device_attr(op, dev, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let cluster = device_attr(op, dev, A::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)?;
    Ok(major >= 9 && cluster != 0)
}

/// A cluster panel launch: the function, its grid and dynamic shared memory, and its last
/// parameter (`light` for `getrf_panel_cl`, the box row pitch in bytes for
/// `getrf_panel_push`).
struct ClusterLaunch {
    f: cudarc::driver::CudaFunction,
    grid: PanelGrid,
    last: i32,
}

/// The launch of the cluster panel for a panel of `m ≥ 1` rows and `kb` columns of `T`: one
/// cluster of `min(16, ⌈m / 16⌉)` blocks, each with `⌈m / blocks⌉` rows of all `kb` columns and
/// the pivot row in dynamic shared memory, plus for `getrf_panel_cl` its published items (`4·kb`
/// elements and an inbox of `2·16` partials), for `getrf_panel_push` a second pivot row, two boxes of `16` partial
/// slots of 16 bytes and `17` rows of `pitch = ⌈kb·size / 16⌉·16` bytes, and two mbarriers. The
/// push kernel where the variant asks for it, the cluster has at least two blocks and it fits,
/// else `getrf_panel_cl`; `None` where
/// `dev` launches no clusters, the rows do not fit a block's shared memory, or the driver
/// cannot place such a cluster.
fn cluster_fit<T: Scalar>(
    op: &'static str,
    dev: &Device,
    (m, kb): (usize, usize),
) -> Result<Option<ClusterLaunch>> {
    if !cluster_capable(op, dev)? {
        return Ok(None);
    }
    let blocks = cluster_blocks(m);
    let rows = m.div_ceil(blocks);
    let size = std::mem::size_of::<T>();
    let (_, sync) = cluster_variant();
    // A cluster of one block is no cluster for st.async's shared::cluster addressing.
    if sync == 2 && blocks >= 2 {
        let (smem, pitch) = push_smem::<T>(m, kb);
        let f = func(op, dev, &kernel_name::<T>("getrf_panel_push"))?;
        if let Some(grid) = cluster_place(op, dev, &f, blocks, smem)? {
            let last = i32_of(op, pitch)?;
            return Ok(Some(ClusterLaunch { f, grid, last }));
        }
    }
    let smem = (rows * kb + 5 * kb) * size
        + 2 * CLUSTER_MAX_BLOCKS * (std::mem::size_of::<T::Real>() + std::mem::size_of::<i32>());
    let f = func(op, dev, &kernel_name::<T>("getrf_panel_cl"))?;
    let last = i32::from(sync != 0);
    Ok(cluster_place(op, dev, &f, blocks, smem)?.map(|grid| ClusterLaunch { f, grid, last }))
}

/// Blocks of the cluster panel for `m ≥ 1` rows: `min(16, ⌈m / 16⌉)`.
fn cluster_blocks(m: usize) -> usize {
    CLUSTER_MAX_BLOCKS.min(m.div_ceil(PANEL_MIN_ROWS)).max(1)
}

/// Dynamic shared memory of `getrf_panel_push` for `m` rows and `kb` columns of `T`, and the
/// box row pitch: the rows and two pivot rows (rounded up to 16 bytes), two boxes and two
/// mbarriers.
fn push_smem<T: Scalar>(m: usize, kb: usize) -> (usize, usize) {
    let size = std::mem::size_of::<T>();
    let rows = m.div_ceil(cluster_blocks(m));
    let pitch = (kb * size).div_ceil(16) * 16;
    let head = ((rows * kb + 2 * kb) * size).div_ceil(16) * 16;
    let boxes = 2 * (16 * CLUSTER_MAX_BLOCKS + (CLUSTER_MAX_BLOCKS + 1) * pitch);
    (head + boxes + 16, pitch)
}

/// Whether a panel of `m` rows and `kb` columns of `T` fits `getrf_panel_push`'s shared memory
/// on `dev`, with the push variant chosen (where it does not, the panel runs elsewhere).
pub(crate) fn push_fits<T: Scalar>(
    op: &'static str,
    dev: &Device,
    (m, kb): (usize, usize),
) -> Result<bool> {
    if cluster_blocks(m) < 2 || kb == 0 || cluster_variant().1 != 2 || !cluster_capable(op, dev)? {
        return Ok(false);
    }
    let f = func(op, dev, &kernel_name::<T>("getrf_panel_push"))?;
    let (_, max_dynamic) = shared_limits(op, dev, &f)?;
    Ok(push_smem::<T>(m, kb).0 <= max_dynamic)
}

/// `blocks` blocks of `f` with `smem` bytes of dynamic shared memory each as one cluster, where
/// that fits a block and the driver can place the cluster (the function is opted in to the
/// device's shared-memory limit and to non-portable cluster sizes).
fn cluster_place(
    op: &'static str,
    dev: &Device,
    f: &cudarc::driver::CudaFunction,
    blocks: usize,
    smem: usize,
) -> Result<Option<PanelGrid>> {
    use cudarc::driver::sys;
    let (_, max_dynamic) = shared_limits(op, dev, f)?;
    if smem > max_dynamic {
        return Ok(None);
    }
    allow_shared_bytes(f, max_dynamic)?;
    f.set_attribute(
        sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
        1,
    )
    .map_err(|e| driver_error(op, e))?;
    let s = stream(op, dev)?;
    let mut attr = cluster_attr(blocks);
    let cfg = cluster_config(&s, blocks, smem, &mut attr);
    let mut clusters: std::ffi::c_int = 0;
    // SAFETY: cfg describes a launch of f (a live function of the loaded module) on the
    // device's stream with one attribute, which lives until the call returns.
    let r = unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, f.cu_function(), &cfg) };
    if r != sys::CUresult::CUDA_SUCCESS || clusters < 1 {
        return Ok(None);
    }
    Ok(Some(PanelGrid { blocks, smem }))
}

fn cluster_attr(blocks: usize) -> cudarc::driver::sys::CUlaunchAttribute {
    use cudarc::driver::sys;
    // SAFETY: an all-zero attribute is a valid value of this plain C struct (id IGNORE).
    let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
        x: blocks as u32,
        y: 1,
        z: 1,
    };
    attr
}

fn cluster_config(
    s: &cudarc::driver::CudaStream,
    blocks: usize,
    smem: usize,
    attr: &mut cudarc::driver::sys::CUlaunchAttribute,
) -> cudarc::driver::sys::CUlaunchConfig {
    cudarc::driver::sys::CUlaunchConfig {
        gridDimX: blocks as u32,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: cluster_variant().0,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: smem as u32,
        hStream: s.cu_stream(),
        attrs: attr,
        numAttrs: 1,
    }
}

/// The number of blocks of the cluster panel launch for a panel of `m` rows and
/// `kb` columns of `T` on `dev`, or `None` where it would not launch. Launches nothing.
#[cfg(test)]
pub(crate) fn cluster_launch_blocks<T: Scalar>(
    op: &'static str,
    dev: &Device,
    (m, kb): (usize, usize),
) -> Result<Option<usize>> {
    if m == 0 || kb == 0 {
        return Ok(None);
    }
    Ok(cluster_fit::<T>(op, dev, (m, kb))?.map(|l| l.grid.blocks))
}

/// `getrf_panel_push` or `getrf_panel_cl` (`a, ld, n, k, kb, ipiv, info`, then the pitch or
/// `light`; see [`PanelSync`]): [`getrf_panel`] in one thread block cluster (sm_90): the same
/// pivots, factors and `info`, the blocks exchanging each column's candidates through
/// distributed shared memory (pushed into each other's mbarrier-counted boxes, or pulled after
/// a cluster barrier), which costs far less than a grid-wide barrier through global memory. Returns the number of
/// blocks launched, or `None`, launching nothing, where [`cluster_fit`] declines (the caller
/// then uses [`getrf_panel`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn getrf_panel_cluster<T: Scalar>(
    op: &'static str,
    dev: &Device,
    a: Dense<T>,
    k: usize,
    kb: usize,
    ipiv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
) -> Result<Option<usize>> {
    use cudarc::driver::sys;
    let n = a.rows;
    assert!(k + kb <= n && k + kb <= a.cols && ipiv.len() >= n && !info.is_empty());
    let m = n - k;
    if m == 0 || kb == 0 {
        return Ok(Some(0));
    }
    let Some(ClusterLaunch {
        f,
        grid: PanelGrid { blocks, smem },
        last,
    }) = cluster_fit::<T>(op, dev, (m, kb))?
    else {
        return Ok(None);
    };
    let s = stream(op, dev)?;
    let (ld, ni, ki, kbi) = (
        ld_of(op, a.ld)?,
        i32_of(op, n)?,
        i32_of(op, k)?,
        i32_of(op, kb)?,
    );
    let (pp, ip) = (vptr(ipiv), vptr(info));
    let mut attr = cluster_attr(blocks);
    let cfg = cluster_config(&s, blocks, smem, &mut attr);
    let mut params: [*mut std::ffi::c_void; 8] = [
        &a.ptr as *const u64 as *mut _,
        &ld as *const i64 as *mut _,
        &ni as *const i32 as *mut _,
        &ki as *const i32 as *mut _,
        &kbi as *const i32 as *mut _,
        &pp as *const u64 as *mut _,
        &ip as *const u64 as *mut _,
        &last as *const i32 as *mut _,
    ];
    // The context of the device current on this thread for the driver call.
    interop::cuda_context(dev)
        .ok_or_else(|| super::not_cuda(op))?
        .bind_to_thread()
        .map_err(|e| driver_error(op, e))?;
    // SAFETY: the parameters (T* a, i64 ld, int n, int k, int kb, int* ipiv, int* info,
    // int light or int pitch) match the kernel and point at live locals; a is n × n with
    // k + kb ≤ n, ipiv holds n entries and info one. The dynamic shared memory is the
    // kernel's ⌈(n − k) / blocks⌉ × kb slice, the pivot row and the published items (for the
    // push kernel the boxes of the pitch passed), checked by cluster_fit against the device's
    // limit (the function opted in to it) and the cluster placeable (one cluster of `blocks`
    // blocks, the non-portable size allowed). The grid is exactly one cluster, as the kernel
    // assumes (block q is cluster rank q).
    let r = unsafe {
        sys::cuLaunchKernelEx(
            &cfg,
            f.cu_function(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    if r != sys::CUresult::CUDA_SUCCESS {
        return Err(driver_error(op, r).into());
    }
    Ok(Some(blocks))
}

/// `dst ← src` for two `rows × cols` matrices of the device (one strided two-dimensional copy
/// on the launch stream).
pub(crate) fn copy_dense<T: Scalar>(
    op: &'static str,
    dev: &Device,
    src: Dense<T>,
    dst: Dense<T>,
) -> Result<()> {
    use cudarc::driver::sys;
    assert!(src.rows == dst.rows && src.cols == dst.cols);
    if src.rows == 0 || src.cols == 0 {
        return Ok(());
    }
    let size = std::mem::size_of::<T>();
    let s = stream(op, dev)?;
    let c = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        srcHost: std::ptr::null(),
        srcDevice: src.ptr,
        srcArray: std::ptr::null_mut(),
        srcPitch: src.ld * size,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        dstHost: std::ptr::null_mut(),
        dstDevice: dst.ptr,
        dstArray: std::ptr::null_mut(),
        dstPitch: dst.ld * size,
        WidthInBytes: src.rows * size,
        Height: src.cols,
    };
    interop::cuda_context(dev)
        .ok_or_else(|| super::not_cuda(op))?
        .bind_to_thread()
        .map_err(|e| driver_error(op, e))?;
    // SAFETY: both matrices lie in live device buffers of `cols` columns of `rows` elements
    // at their leading dimensions (Dense's invariant), and the copy is queued on the launch
    // stream, ordered with the work that reads and writes them.
    let r = unsafe { sys::cuMemcpy2DAsync_v2(&c, s.cu_stream()) };
    if r != sys::CUresult::CUDA_SUCCESS {
        return Err(driver_error(op, r).into());
    }
    Ok(())
}

/// `a ← 0` for a `rows × cols` matrix of the device (one strided two-dimensional memset of
/// 32-bit words on the launch stream; every scalar type is a whole number of such words and
/// zero is all zero bits).
pub(crate) fn zero_dense<T: Scalar>(op: &'static str, dev: &Device, a: Dense<T>) -> Result<()> {
    use cudarc::driver::sys;
    if a.rows == 0 || a.cols == 0 {
        return Ok(());
    }
    let size = std::mem::size_of::<T>();
    assert!(size % 4 == 0);
    let s = stream(op, dev)?;
    interop::cuda_context(dev)
        .ok_or_else(|| super::not_cuda(op))?
        .bind_to_thread()
        .map_err(|e| driver_error(op, e))?;
    // SAFETY: the matrix lies in a live device buffer of `cols` columns of `rows` elements at
    // its leading dimension (Dense's invariant), each element `size / 4` 32-bit words, and the
    // memset is queued on the launch stream, ordered with the work that reads and writes it.
    let r = unsafe {
        sys::cuMemsetD2D32Async(
            a.ptr,
            a.ld * size,
            0,
            a.rows * size / 4,
            a.cols,
            s.cu_stream(),
        )
    };
    if r != sys::CUresult::CUDA_SUCCESS {
        return Err(driver_error(op, r).into());
    }
    Ok(())
}
