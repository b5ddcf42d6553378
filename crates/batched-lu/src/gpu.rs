//! The CUDA backend: launches of the kernels in `kernels/batched_lu.cu`.
//!
//! * `n ≤ 32` (uniform batches): the register kernels `getrf_small_w{4,8,16,32}` (a whole
//!   matrix in the registers of a group of lanes; at n = 4, 8, 16, 32 the same compiled for
//!   that one order, `getrf_small_f*`, see [`small_factor_kernel`]) and `getri_small_w*`.
//! * `33 ≤ n ≤ 96` for f32, `33 ≤ n ≤ 64` for f64 and c64 but c64 37..=40 (uniform batches),
//!   the factorization:
//!   `getrf_rows_w*_r*_n*` (one block per matrix, one row per thread in registers; see
//!   [`rows_shape`]), unless a blocked configuration is forced.
//! * `33 ≤ n ≤ 128` (f32: 192, c64: 160, c128: 112 but 65..=80; uniform batches), inverse
//!   from the factors: `getri_mid_r*_w*_c*_h16` (one block per matrix, the factors in shared memory, the
//!   inverse's columns in the registers of half-warp groups; see [`half_shape`]; f64 97..=104
//!   and f32 129..=192 whole-warp groups, `getri_mid_r*_w*_c*`, [`mid_shape`]), unless a
//!   blocked configuration is forced or the factors do not fit the GPU's shared memory per
//!   block (then the blocked kernels).
//! * `193 ≤ n ≤ 256` for f32, `180 ≤ n ≤ 192` for f64, `161 ≤ n ≤ 192` for c64, `65 ≤ n ≤ 80`
//!   and `113 ≤ n ≤ 144` for c128 (uniform batches), inverse from the factors:
//!   `getri_tri_r*_w16_c*` (real types, whole-warp groups; see [`tri_shape`]) and
//!   `getri_tri_r*_w*_c*_h16` (complex types, half-warp groups; see [`tri_half_shape`]): two
//!   blocks per matrix, one packed triangle of the factors in shared memory at a time, with the
//!   same exceptions. f32's stage U's later columns while the forward substitution runs
//!   (see [`tri_launch_smem`]).
//! * f64 and c64 `193 ≤ n ≤ 256`, c128 `161 ≤ n ≤ 192` (uniform batches), inverse from the
//!   factors: `getri_tri4_r*_w*_c4_p*` (the triangle form with the columns split over four
//!   blocks per matrix, and from f64 and c64 225, and for c128, each triangle staged in two
//!   parts; see [`tri4_shape`]), with the same exceptions.
//! * `257 ≤ n ≤ 512`, every type (uniform batches, GPUs whose blocks may have 227 KiB of shared
//!   memory), inverse from the factors: `getri_trim_r*_w8_c*` (the triangle form over 3 to 32
//!   blocks per matrix, each triangle staged in one to thirteen parts; see [`trim_shape`]),
//!   with the same exceptions.
//! * c128 `193 ≤ n ≤ 256` (uniform batches), inverse from the factors:
//!   `getri_tri3_r*_w8_c2_h16` (the triangle form in half-warp groups over seven or eight
//!   blocks per matrix, each triangle staged in three parts; see [`tri3_shape`]), with the
//!   same exceptions.
//! * Otherwise: the blocked kernels `getrf_blocked_nb{8,16,32}` (one block per matrix,
//!   left-looking with the panel in shared memory, the f64 update on the tensor cores; see
//!   [`blocked_ld`]; f64 at its 16-wide, 64-register configuration, 65..=256:
//!   `getrf_lookahead_nb16_r64`, which solves the next panel's upper rows while one warp
//!   factors the panel, see [`factor_kernel`]), `getrs_blocked_nb*` and `getri_blocked_nb*`
//!   (one block per matrix and chunk of `nb` right-hand-side columns). The panel width `nb` and
//!   the thread count come from [`blocked_config`].

use crate::tuning::{Blocked, Kernel};
use gpu_blas::blas2::Trans;
use gpu_blas::kernels::{
    allow_shared_bytes, function, kernel_name, launch_error, max_shared_bytes,
    prefer_shared_carveout, KernelModule, LaunchConfig, PushKernelArg,
};
use gpu_blas::{interop, Device, DeviceVec, Error, Result, Scalar};
use std::cell::Cell;

static MODULE: KernelModule = KernelModule::new(
    "batched_lu",
    include_bytes!("../../../kernels/batched_lu.fatbin"),
);

/// Largest order handled by the register kernels.
pub(crate) const SMALL_MAX: usize = 32;

/// A batch as the kernels see it: uniform (`n`, strides) or variable (device arrays of orders
/// and offsets; 0 is a null pointer).
pub(crate) struct Desc {
    pub n: usize,
    pub batch: usize,
    pub a_stride: usize,
    pub x_stride: usize,
    pub ns: u64,
    pub aoff: u64,
    pub poff: u64,
    pub xoff: u64,
}

impl Desc {
    pub(crate) fn uniform(n: usize, batch: usize, a_stride: usize, x_stride: usize) -> Self {
        Desc {
            n,
            batch,
            a_stride,
            x_stride,
            ns: 0,
            aoff: 0,
            poff: 0,
            xoff: 0,
        }
    }

    fn is_uniform(&self) -> bool {
        self.ns == 0
    }
}

/// Device copies of a variable-size batch's orders and offsets (kept alive for the launches).
pub(crate) struct VarArrays {
    ns: DeviceVec<i32>,
    aoff: DeviceVec<i64>,
    poff: DeviceVec<i64>,
    xoff: Option<DeviceVec<i64>>,
    max_n: usize,
}

impl VarArrays {
    /// Uploads `sizes`, matrix offsets, pivot offsets and (optionally) output offsets.
    pub(crate) fn new(
        dev: &Device,
        sizes: &[usize],
        aoff: &[usize],
        poff: &[usize],
        xoff: Option<&[usize]>,
    ) -> Result<Self> {
        let i = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
        Ok(VarArrays {
            ns: DeviceVec::from_vec(dev, sizes.iter().map(|&n| n as i32).collect())?,
            aoff: DeviceVec::from_vec(dev, i(aoff))?,
            poff: DeviceVec::from_vec(dev, i(poff))?,
            xoff: xoff.map(|x| DeviceVec::from_vec(dev, i(x))).transpose()?,
            max_n: sizes.iter().copied().max().unwrap_or(0),
        })
    }

    pub(crate) fn desc(&self) -> Desc {
        let p = |v: &DeviceVec<i64>| interop::vec_ptr(v).unwrap_or(0);
        Desc {
            n: self.max_n,
            batch: self.ns.len(),
            a_stride: 0,
            x_stride: 0,
            ns: interop::vec_ptr(&self.ns).unwrap_or(0),
            aoff: p(&self.aoff),
            poff: p(&self.poff),
            xoff: self.xoff.as_ref().map(p).unwrap_or(0),
        }
    }
}

pub(crate) fn ptr<T: gpu_blas::Element>(v: &DeviceVec<T>) -> u64 {
    interop::vec_ptr(v).unwrap_or(0)
}

fn i32_of(op: &'static str, what: &str, v: usize) -> Result<i32> {
    i32::try_from(v).map_err(|_| Error::SizeTooLarge {
        op,
        detail: format!("{what} = {v} exceeds the GPU kernels' i32 range"),
    })
}

fn i64_of(v: usize) -> i64 {
    v as i64 // buffer offsets: a buffer's length fits isize
}

/// Pushes the batch description (`batch, n, a_stride, x_stride, ns, aoff, poff, xoff`).
macro_rules! push_desc {
    ($l:expr, $d:expr, $b:expr, $n:expr, $as:expr, $xs:expr) => {
        $l.arg(&$b)
            .arg(&$n)
            .arg(&$as)
            .arg(&$xs)
            .arg(&$d.ns)
            .arg(&$d.aoff)
            .arg(&$d.poff)
            .arg(&$d.xoff)
    };
}

fn stream(dev: &Device) -> Result<std::sync::Arc<cudarc::driver::CudaStream>> {
    interop::cuda_stream(dev).ok_or_else(|| Error::Unsupported {
        op: "batched LU",
        detail: "not a CUDA device".into(),
    })
}

fn cfg(grid: usize, block: u32, smem: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid as u32, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: smem as u32,
    }
}

thread_local! {
    /// This thread's override of the blocked kernels' configuration (`None`: the table).
    static OVERRIDE: Cell<Option<Blocked>> = const { Cell::new(None) };
}

/// Forces the blocked kernels' configuration for the calling thread's launches, for the
/// factorization and the solves alike (`None`: back to the built-in table). For tuning sweeps
/// and tests; a configuration whose kernels do not exist (see [`Blocked`]) is ignored, and a
/// 32-wide panel becomes 16 for 16-byte scalars (no such kernels). While a configuration is
/// forced, the inverse of orders 33..=192 takes the blocked kernels too (not `getri_mid`).
pub fn set_blocked_config(cfg: Option<Blocked>) {
    OVERRIDE.with(|o| o.set(cfg.filter(Blocked::valid)));
}

/// Leading dimension of a blocked kernel's panel of `np` rows (`blocked_ld` in
/// `batched_lu.cu`): `np`, except for f64, where it is the next value ≡ 4 (mod 16), which keeps
/// the tensor-core update's shared-memory loads free of bank conflicts. (The inverse kernels,
/// whose update stays on the CUDA cores, use `np` and so less than [`blocked_smem`] gives.)
pub(crate) fn blocked_ld<T: Scalar>(np: usize) -> usize {
    if T::PREFIX == 'd' {
        np + (20 - np % 16) % 16
    } else {
        np
    }
}

/// Dynamic shared memory of a blocked `kernel` for order `n` and panel width `nb`: the panel
/// (`blocked_ld` × nb), the diagonal block (nb × nb), the permutation (n ints, rounded up to
/// a multiple of four), for complex types (whose panel the whole block factors) the argmax
/// scratch (32 reals and 32 ints) and, for the factorization of every type but c128, the
/// list of the panel's interchanges (`swap_list`: 4·nb ints).
pub(crate) fn blocked_smem<T: Scalar>(n: usize, nb: usize, kernel: Kernel) -> usize {
    let sz = std::mem::size_of::<T>();
    let scratch = if T::IS_COMPLEX {
        32 * sz / 2 + 32 * 4
    } else {
        0
    };
    let swaps = if kernel == Kernel::Factor && T::PREFIX != 'z' {
        4 * nb * 4
    } else {
        0
    };
    blocked_ld::<T>(n.next_multiple_of(nb)) * nb * sz
        + nb * nb * sz
        + n.div_ceil(4) * 4 * 4
        + scratch
        + swaps
}

/// Configuration of the blocked `kernel` for order `n` (largest order of a variable batch),
/// from the table measured with `gpu-bench --only lu-tune` or the override; the panel width
/// shrinks until the shared memory fits `max_smem`.
pub(crate) fn blocked_config<T: Scalar>(
    n: usize,
    max_smem: usize,
    kernel: Kernel,
) -> Option<Blocked> {
    let forced = OVERRIDE.with(Cell::get);
    let mut c = forced.unwrap_or_else(|| crate::tuning::blocked::<T>(n, kernel));
    if std::mem::size_of::<T>() == 16 {
        c.nb = c.nb.min(16);
    }
    while blocked_smem::<T>(n, c.nb, kernel) > max_smem {
        if c.nb == 8 {
            return None;
        }
        c.nb /= 2;
    }
    Some(c)
}

/// The name (without the type's suffix) of the blocked factorization kernel for configuration
/// `cfg`: `getrf_blocked_nb{nb}{regs}`, except for f64 with 16-wide panels and 64 registers
/// (its table's configuration at 65..=256), `getrf_lookahead_nb16_r64`: the same factors bit
/// for bit, 4–14 % faster there on the same thread counts (1–14 % on general matrices), 13 % at
/// 224..=256 with the 160 threads its table gives there (docs/perf-notes.md, Batched LU
/// Versions 21 and 22).
pub(crate) fn factor_kernel<T: Scalar>(cfg: &Blocked) -> String {
    if T::PREFIX == 'd' && cfg.nb == 16 && cfg.regs == crate::tuning::RegCap::R64 {
        "getrf_lookahead_nb16_r64".to_string()
    } else {
        format!("getrf_blocked_nb{}{}", cfg.nb, cfg.regs.suffix())
    }
}

/// The blocked kernel `base` (`getrf_blocked`, `getrs_blocked` or `getri_blocked`) of type `T`
/// in the configuration the table (or the override) gives `kernel` at order `n`, opted in to
/// its shared memory; with its panel width, threads per block and shared memory in bytes.
fn blocked_fn<T: Scalar>(
    op: &'static str,
    dev: &Device,
    base: &str,
    kernel: Kernel,
    n: usize,
) -> Result<(cudarc::driver::CudaFunction, usize, u32, usize)> {
    let max = max_shared_bytes(dev).unwrap_or(48 * 1024);
    let cfg = blocked_config::<T>(n, max, kernel).ok_or_else(|| Error::Unsupported {
        op,
        detail: format!(
            "n = {n} needs more shared memory than the GPU offers ({max} bytes per block)"
        ),
    })?;
    let (nb, threads) = (cfg.nb, cfg.threads);
    let name = if kernel == Kernel::Factor {
        factor_kernel::<T>(&cfg)
    } else {
        format!("{base}_nb{nb}{}", cfg.regs.suffix())
    };
    let f = function(dev, &MODULE, &kernel_name::<T>(&name))?;
    let smem = blocked_smem::<T>(n, nb, kernel);
    if smem > 48 * 1024 {
        allow_shared_bytes(&f, smem)?;
    }
    // The kernels are latency-bound: as many resident blocks as registers and shared memory
    // allow, so the whole unified L1/shared array may go to shared memory.
    prefer_shared_carveout(&f)?;
    Ok((f, nb, threads, smem))
}

/// Column chunks of `cols` right-hand sides (`nb` each, at least one) and the grid of one
/// block per (matrix, chunk), which must fit the kernels' `int` block index.
fn chunk_grid(op: &'static str, batch: usize, cols: usize, nb: usize) -> Result<(usize, usize)> {
    let chunks = cols.div_ceil(nb).max(1);
    let grid = batch
        .checked_mul(chunks)
        .filter(|g| *g <= i32::MAX as usize)
        .ok_or_else(|| Error::SizeTooLarge {
            op,
            detail: format!("{batch} matrices × {chunks} column chunks"),
        })?;
    Ok((chunks, grid))
}

/// Largest order of the mid-size inverse kernels `getri_mid_*` (uniform batches of order above
/// [`SMALL_MAX`]) for `T`: 128; f32 192 (144 KB of factors, one block per multiprocessor); c64
/// 160 (200 KB); c128 112 (196 KB), its factors above 119 would not fit in shared memory.
pub(crate) fn mid_max<T: Scalar>() -> usize {
    match (T::IS_COMPLEX, std::mem::size_of::<T>()) {
        (false, 4) => 192,
        (true, 8) => 160,
        (true, 16) => 112,
        _ => 128,
    }
}

/// Rows per lane `r`, warps per block `nw` and columns per warp `cpw` of the mid-size inverse
/// with whole-warp groups, `getri_mid_r{r}_w{nw}_c{cpw}`, at the orders [`half_shape`] leaves
/// to it (f64 97..=104, f32 129..=192; the kernels exist for exactly these): `r = ⌈n / 32⌉`;
/// f64 four warps (two blocks per multiprocessor fit), f32 sixteen; `cpw = ⌈n / nw⌉`, rounded
/// up to even for f32. The fastest shapes measured (see `docs/perf-notes.md`).
pub(crate) fn mid_shape<T: Scalar>(n: usize) -> (usize, usize, usize) {
    let r = n.div_ceil(32);
    let single = std::mem::size_of::<T>() == 4;
    let nw = if single { 16 } else { 4 };
    let cpw = n.div_ceil(nw);
    let cpw = if single { cpw.next_multiple_of(2) } else { cpw };
    (r, nw, cpw)
}

/// Rows per lane `r`, warps per block `nw` and columns per half-warp `cpg` of the half-warp
/// form of the mid-size inverse, `getri_mid_r{r}_w{nw}_c{cpg}_h16` (each half-warp its own
/// group of columns, lane l of it rows l, l + 16, …: `r = ⌈n / 16⌉`), at order `n`, or `None`
/// where the whole-warp form ([`mid_shape`]) or no mid-size kernel serves. Every order from 33
/// to [`mid_max`] but f64 97..=104 and f32 129..=192, with the warp counts measured fastest
/// (Batched LU Versions 10, 15 and 16 in `docs/perf-notes.md`): f32 two up to 40, four up to 96,
/// eight up to 128; f64 two up to 40, four up to 64, eight up to 96, sixteen at 105..=128; c64
/// four up to 80, eight up to 128, twelve at 129..=144, eight at 145..=160; c128 four up to 56,
/// eight up to 64, twelve at 81..=96, eight at 97..=112 (at 65..=80 the triangle form,
/// [`tri_half_shape`], is faster); `cpg = ⌈n / (2·nw)⌉`.
pub(crate) fn half_shape<T: Scalar>(n: usize) -> Option<(usize, usize, usize)> {
    let nw = match (T::IS_COMPLEX, std::mem::size_of::<T>(), n) {
        (_, _, ..=SMALL_MAX) => return None,
        (false, _, ..=40) => 2,
        (false, 4, ..=96) => 4,
        (false, 4, ..=128) => 8,
        (false, 8, ..=64) => 4,
        (false, 8, ..=96) => 8,
        (false, 8, 105..=128) => 16,
        (true, 8, ..=80) => 4,
        (true, 8, ..=128) => 8,
        (true, 8, 129..=144) => 12,
        (true, 8, 145..=160) => 8,
        (true, 16, ..=56) => 4,
        (true, 16, ..=64) => 8,
        (true, 16, 81..=96) => 12,
        (true, 16, 97..=112) => 8,
        _ => return None,
    };
    Some((n.div_ceil(16), nw, n.div_ceil(2 * nw)))
}

/// Dynamic shared memory of `getri_mid` (the layout at the top of the kernel): the factors
/// (all `n²`, or for the triangle form `n(n − 1)/2`) rounded up to 16 bytes, `32·r`
/// reciprocals and twice as many ints, and a row buffer per warp; with the whole factors, 16
/// bytes in front of them (they start at the input's offset within 16 bytes, for the bulk
/// copy) and 16 for the copy's mbarrier.
pub(crate) fn mid_smem<T: Scalar>(
    n: usize,
    (r, nw, cpw): (usize, usize, usize),
    triangle: bool,
) -> usize {
    let held = if triangle { n * (n - 1) / 2 } else { n * n };
    let bulk = if triangle { 0 } else { 32 };
    smem_holding::<T>(held, (r, nw, cpw)) + bulk
}

/// The shared memory of `getri_mid`'s layout holding `held` elements of the factors, with
/// `32·r` reciprocals and twice as many ints and a row buffer per warp.
fn smem_holding<T: Scalar>(held: usize, (r, nw, cpw): (usize, usize, usize)) -> usize {
    let sz = std::mem::size_of::<T>();
    let e = 16 / sz;
    held.div_ceil(e) * 16 + 32 * r * (sz + 8) + nw * cpw.div_ceil(e) * 16
}

/// [`mid_smem`] of the half-warp-group kernels of shape `(r, nw, cpg)` ([`half_shape`],
/// [`tri_half_shape`]): `2·nw` groups of `cpg` columns (a row buffer per group), and `⌈r / 2⌉`
/// counting the kernel's `16·r` row slots in 32s.
pub(crate) fn half_smem<T: Scalar>(
    n: usize,
    (r, nw, cpg): (usize, usize, usize),
    triangle: bool,
) -> usize {
    mid_smem::<T>(n, (r.div_ceil(2), 2 * nw, cpg), triangle)
}

/// Blocks per matrix of the triangle form of the inverse (`getri_tri_*`): the columns of the
/// inverse are split in this many parts.
pub(crate) const TRI_SPLIT: usize = 2;

/// Rows per lane `r`, warps per block `nw` and columns per half-warp `cpg` of the triangle form
/// of the mid-size inverse in half-warp groups, `getri_tri_r{r}_w{nw}_c{cpg}_h16` (lane l of a
/// group rows l, l + 16, …: `r = ⌈n / 16⌉`), at order `n`, or `None` outside it. The columns are
/// split over [`TRI_SPLIT`] blocks per matrix, each of `2·nw` groups of `cpg` columns; the shared
/// memory holds one strict triangle of the factors at a time (at most 144 KB for c64 at 192,
/// 161 KB for c128 at 144). The complex types, at the orders where it was measured faster
/// (Batched LU Version 17 in `docs/perf-notes.md`): above [`mid_max`], c64 161..=192 (the
/// blocked kernel's time × 0.75–0.9) and c128 113..=144 (× 0.61–0.68), and c128 65..=80 (the
/// whole-factor kernel's time × 0.86–0.88: a third of a multiprocessor's shared memory per
/// block instead of two thirds). c64 takes twelve warps of four columns per group (0.88–0.99
/// of sixteen of three, Version 18), c128 113..=128 eight of four (0.89–0.90 of sixteen of
/// two), 129..=144 twelve of three, 65..=80 four of five. Larger orders would spill (c128
/// from 145) or not fit (c64 from 238).
pub(crate) fn tri_half_shape<T: Scalar>(n: usize) -> Option<(usize, usize, usize)> {
    let (nw, cpg) = match (T::IS_COMPLEX, std::mem::size_of::<T>(), n) {
        (true, 8, 161..=192) => (12, 4),
        (true, 16, 65..=80) => (4, 5),
        (true, 16, 113..=128) => (8, 4),
        (true, 16, 129..=144) => (12, 3),
        _ => return None,
    };
    Some((n.div_ceil(16), nw, cpg))
}

/// Rows per lane `r`, warps per block `nw` and columns per warp `cpw` of the triangle form of
/// the mid-size inverse, `getri_tri_r{r}_w{nw}_c{cpw}`, at order `n`, or `None` outside it.
/// It serves orders above [`mid_max`] where the whole factors no longer fit in shared memory
/// but one strict triangle (at most 128 KB for f32 at 256, 144 KB for f64 at 192) does: the
/// lower one for the forward substitution, then the upper one. Sixteen warps of `⌈n / 32⌉`
/// columns, the columns split over [`TRI_SPLIT`] blocks per matrix (the inverse of a whole
/// matrix would not fit in the registers of one block). The orders are where it was measured
/// faster than the blocked kernel on an H100 (see `docs/perf-notes.md`): f32 193..=256, f64
/// 180..=192; not below 180 for f64, nor for c64 at 144..190, nor c128.
pub(crate) fn tri_shape<T: Scalar>(n: usize) -> Option<(usize, usize, usize)> {
    let (lo, hi) = match (T::IS_COMPLEX, std::mem::size_of::<T>()) {
        (false, 4) => (mid_max::<T>() + 1, 256),
        (false, 8) => (180, 192),
        _ => (1, 0),
    };
    (lo..=hi).contains(&n).then(|| {
        let r = n.div_ceil(32);
        (r, 16, r)
    })
}

/// Blocks per matrix of the four-part triangle form of the inverse (`getri_tri4_*`).
pub(crate) const TRI4_SPLIT: usize = 4;

/// Rows per lane `r`, warps per block `nw`, columns per warp `cpw` and phase split `ph` of the
/// four-part triangle form of the inverse, `getri_tri4_r{r}_w{nw}_c{cpw}_p{ph}`, at order `n`,
/// or `None` outside it. As [`tri_shape`] (whole warps, lane l rows l, l + 32, …: `r = ⌈n /
/// 32⌉`, one strict triangle of the factors in shared memory at a time), but with the columns
/// of the inverse split over [`TRI4_SPLIT`] blocks per matrix, for orders whose columns two
/// blocks' registers would not hold; with `ph > 0` each triangle is staged in two parts split
/// at column `32·ph` (see [`tri4_held`]), for orders whose whole triangle would not fit in
/// shared memory: f64 and c64 193..=224 (seven rows per lane, one triangle of up to 195 KiB)
/// and 225..=256 (eight, in two parts of up to 192 KiB), sixteen warps of four columns; c128
/// 161..=192 (six rows per lane, twelve warps of four columns, two parts of up to 216 KiB).
/// Measured on an H100 against the blocked kernels that served these orders before (see
/// `docs/perf-notes.md`, Batched LU Version 19): 0.63–0.80 of their time for f64, 0.75–0.91
/// for c64, 0.57–0.74 for c128.
pub(crate) fn tri4_shape<T: Scalar>(n: usize) -> Option<(usize, usize, usize, usize)> {
    match (std::mem::size_of::<T>(), n) {
        (8, 193..=224) => Some((7, 16, 4, 0)),
        (8, 225..=256) => Some((8, 16, 4, 4)),
        (16, 161..=192) if T::IS_COMPLEX => Some((6, 12, 4, 3)),
        _ => None,
    }
}

/// Elements of the factors `getri_tri4_*` holds in shared memory at once at order `n` with
/// phase split `ph`: one strict triangle, `n(n − 1)/2`, or with `ph > 0` the larger part of
/// either triangle split at column `s = 32·ph`: L's columns `0..s` hold `s(2n − s − 1)/2`,
/// U's `s(s − 1)/2`, and the columns `s..n` the rest.
pub(crate) fn tri4_held(n: usize, ph: usize) -> usize {
    let ntri = n * (n - 1) / 2;
    if ph == 0 {
        return ntri;
    }
    let s = 32 * ph;
    let (l, u) = (s * (2 * n - s - 1) / 2, s * (s - 1) / 2);
    l.max(ntri - l).max(u).max(ntri - u)
}

/// Rows per lane `r`, warps per block `nw`, columns per half-warp group `cpg`, blocks per
/// matrix `split` and split columns `[la, lb, ua, ub]` of the three-part triangle form of the
/// inverse, `getri_tri3_r{r}_w{nw}_c{cpg}_h16`, at order `n`, or `None` outside it. As
/// [`tri_half_shape`]'s kernels (half-warp groups, lane l of a group rows l, l + 16, …: `r =
/// ⌈n / 16⌉`; one strict triangle of the factors in shared memory at a time), but each triangle
/// staged in three parts, for triangles two parts would not fit: L's columns `0..la`, `la..lb`,
/// `lb..n`, in that order, and U's `ub..n`, `ua..ub`, `0..ua`; and the columns of the inverse
/// over `split` consecutive blocks of eight warps, sixteen groups of two columns (32 per
/// block). c128 193..=224 (seven blocks; splits 32, 96, 160, 192) and 225..=256 (eight; splits
/// 32, 96, 160, 224), a kernel for each `r` (13..=16: every slot of 16 rows but the last is
/// whole, as `getri_mid` assumes): the largest part holds 12720 elements (199 KiB). Measured on an H200
/// (docs/perf-notes.md, Batched LU Version 27): 65.1 ms at n = 256 (batch 10000) against the
/// blocked kernel's 105.5; whole warps of four columns 66.0.
pub(crate) fn tri3_shape<T: Scalar>(n: usize) -> Option<(usize, usize, usize, usize, [usize; 4])> {
    match (T::IS_COMPLEX, std::mem::size_of::<T>(), n) {
        (true, 16, 193..=224) => Some((n.div_ceil(16), 8, 2, 7, [32, 96, 160, 192])),
        (true, 16, 225..=256) => Some((n.div_ceil(16), 8, 2, 8, [32, 96, 160, 224])),
        _ => None,
    }
}

/// Elements of the factors `getri_tri3_*` holds in shared memory at once at order `n` with
/// split columns `[la, lb, ua, ub]`: the largest of the six parts (L's columns `0..la` hold
/// `la(2n − la − 1)/2` elements, U's `ua(ua − 1)/2`, and so on).
pub(crate) fn tri3_held(n: usize, [la, lb, ua, ub]: [usize; 4]) -> usize {
    parts_held(n, &[0, la, lb], &[0, ua, ub])
}

/// The most elements any part of either strict triangle of order `n` holds, the parts of L
/// starting at the columns `l_starts` and those of U at `u_starts` (ascending, from 0; each part
/// ends where the next starts, the last at `n`): L's columns `b..e` hold `Σ (n − 1 − c)`
/// elements, U's `Σ c`.
fn parts_held(n: usize, l_starts: &[usize], u_starts: &[usize]) -> usize {
    let lo = |c: usize| c * (2 * n - c - 1) / 2;
    let up = |c: usize| c * c.saturating_sub(1) / 2;
    let parts = |starts: &[usize], before: &dyn Fn(usize) -> usize| {
        let ends: Vec<usize> = starts.iter().skip(1).copied().chain([n]).collect();
        starts
            .iter()
            .zip(ends)
            .map(|(&b, e)| before(e) - before(b))
            .max()
            .unwrap_or(0)
    };
    parts(l_starts, &lo).max(parts(u_starts, &up))
}

/// Dynamic shared memory of the three-part triangle form of shape `(r, nw, cpg)` with split
/// columns `split` at order `n` ([`tri3_shape`]): as [`half_smem`], holding the largest part.
pub(crate) fn tri3_smem<T: Scalar>(
    n: usize,
    (r, nw, cpg): (usize, usize, usize),
    split: [usize; 4],
) -> usize {
    smem_holding::<T>(tri3_held(n, split), (r.div_ceil(2), 2 * nw, cpg))
}

/// Rows per lane `r`, warps per block `nw`, columns per warp `cpw`, blocks per matrix `split`
/// and the part masks `(lm, um)` of the many-part triangle form of the inverse,
/// `getri_trim_r{r}_w{nw}_c{cpw}`, at order `n`, or `None` outside it: every type at
/// 257..=512, where no other mid-size form serves. Whole warps (lane l rows l, l + 32, …:
/// `r = ⌈n / 32⌉`, a kernel for each `r`, as the kernels assume every slot of rows but the last
/// holds some row of the matrix), one strict triangle of the factors in shared memory at a
/// time, each staged in parts that start at the 16-column sub-slots whose bits are set (L's
/// parts in order as the forward substitution reaches them, U's from the last down), each
/// behind block barriers; eight warps of `cpw` columns, `8·cpw` columns per block, `split =
/// ⌈32·r / (8·cpw)⌉` blocks per matrix. The masks are the fewest parts, taken greedily from
/// either end, that keep every part within a block's shared memory (227 KiB) at the range's
/// largest order: f32 one part up to 320 and up to three at 512; f64 and c64 two up to 320,
/// six at 512; c128 four up to 288, thirteen at 512 (at most 13808 elements, 216 KiB).
/// `cpw` is about the most columns the registers hold without spills (f32 12 to 8, f64 and
/// c64 8 to 4, c128 4 to 2 as `r` grows; c128 at 385..=448 and c64 at 417..=448 with a few
/// spills, where three columns were still faster than two for c128: 0.89 and 0.94 of the
/// time). Measured on an H200 (docs/perf-notes.md, Batched LU Versions 27 and 28) against
/// the blocked kernel that served these orders before: c128 0.60 of its time at n = 288,
/// 0.63 at 384, 0.71 at 480, 0.73 at 512; at 384 and 512 f32 0.63 and 0.58, f64 0.60 and
/// 0.67, c64 0.73 and 0.72.
pub(crate) fn trim_shape<T: Scalar>(n: usize) -> Option<(usize, usize, usize, usize, u32, u32)> {
    if !(257..=512).contains(&n) {
        return None;
    }
    let r = n.div_ceil(32);
    // Columns per warp and masks of L and U for r = 9..=16.
    const S: [(usize, u32, u32); 8] = [
        (12, 0x1, 0x1),
        (12, 0x1, 0x1),
        (10, 0x8001, 0x81),
        (10, 0x1001, 0x1001),
        (8, 0x401, 0x1_0001),
        (8, 0x201, 0x8_0001),
        (8, 0x80_0101, 0x40_0081),
        (8, 0x4_0081, 0x200_4001),
    ];
    // f64 and c64.
    const D: [(usize, u32, u32); 8] = [
        (8, 0x81, 0x801),
        (8, 0x41, 0x4001),
        (6, 0x2021, 0x2_0201),
        (6, 0x1021, 0x8_1001),
        (5, 0x2_0211, 0x42_0201),
        (5, 0x1_0211, 0x108_1001),
        (4, 0x8_1089, 0x884_0801),
        (4, 0x2002_0889, 0x2220_8009),
    ];
    const Z: [(usize, u32, u32); 8] = [
        (4, 0x4089, 0x8811),
        (4, 0x1_0225, 0x4_8811),
        (3, 0x4_0895, 0x14_8811),
        (3, 0x10_2255, 0x54_8811),
        (3, 0x40_8955, 0x154_8811),
        (3, 0x102_2555, 0x554_8811),
        (2, 0x42_4aaf, 0x3aa9_2101),
        (2, 0x109_2abf, 0xfaa9_2101),
    ];
    let table = match std::mem::size_of::<T>() {
        4 => &S,
        8 => &D,
        _ => &Z,
    };
    let (cpw, lm, um) = table[r - 9];
    Some((r, 8, cpw, (32 * r).div_ceil(8 * cpw), lm, um))
}

/// Shared memory a block must be allowed for the many-part triangle form ([`trim_shape`]) to
/// be taken: its kernels are compiled for sm_90 and later only (the GPUs before, whose blocks
/// have at most 163 KiB, get the blocked kernels).
pub(crate) const TRIM_DEVICE_SMEM: usize = 227 * 1024;

/// The parts `[start, end)` (columns) of a triangle of order `n` whose parts start at the
/// 16-column sub-slots set in `mask` (bit 0 set).
#[cfg(test)]
fn trim_parts(n: usize, mask: u32) -> Vec<(usize, usize)> {
    let starts = trim_starts(n, mask);
    let ends = starts.iter().skip(1).copied().chain([n]);
    starts.iter().copied().zip(ends).collect()
}

/// The first columns of the parts `mask` sets (16-column sub-slots) that lie inside order `n`.
fn trim_starts(n: usize, mask: u32) -> Vec<usize> {
    (0..32)
        .filter(|j| mask >> j & 1 == 1)
        .map(|j| 16 * j)
        .filter(|&c| c < n)
        .collect()
}

/// Elements of the factors `getri_trim_*` holds in shared memory at once at order `n` with part
/// masks `(lm, um)`: the largest part of either triangle (L's columns `b..e` hold
/// `Σ (n − 1 − c)` elements, U's `Σ c`).
pub(crate) fn trim_held(n: usize, lm: u32, um: u32) -> usize {
    parts_held(n, &trim_starts(n, lm), &trim_starts(n, um))
}

/// Dynamic shared memory of the two-part triangle form `getri_tri_*` ([`tri_shape`]) as
/// launched: f32's kernels stage U's later columns beside L while the forward substitution
/// runs, in whatever the launch gives beyond one triangle (their layout reads the launch's
/// size), so they get room for both triangles up to `limit` (a block's most); the others
/// one triangle.
pub(crate) fn tri_launch_smem<T: Scalar>(
    n: usize,
    shape: (usize, usize, usize),
    limit: usize,
) -> usize {
    let one = mid_smem::<T>(n, shape, true);
    if std::mem::size_of::<T>() == 4 {
        smem_holding::<T>(n * (n - 1), shape).min(limit).max(one)
    } else {
        one
    }
}

/// Dynamic shared memory of the four-part triangle form of shape `(r, nw, cpw, ph)` at order
/// `n` ([`tri4_shape`]).
pub(crate) fn tri4_smem<T: Scalar>(
    n: usize,
    (r, nw, cpw, ph): (usize, usize, usize, usize),
) -> usize {
    smem_holding::<T>(tri4_held(n, ph), (r, nw, cpw))
}

/// Warps per block `nw`, rows per thread `r` and compiled order `nmax ≥ n` of the register
/// factorization `getrf_rows_w{nw}_r{r}_n{nmax}` at order `n` (uniform batches), or `None`
/// where the blocked kernel is as fast (f32 above 96, f64 and c64 above 64, c128) or faster
/// (c64 37..=40, where the one-warp blocked kernel's five 8-wide panels took 0.93 of the
/// time of the rows kernel compiled for 40 on the harness's matrices and the same on general
/// ones; Batched LU Version 30). The shapes
/// are the fastest measured (see `docs/perf-notes.md`, Batched LU Versions 8 and 14): f32 one
/// warp of two rows per lane up to 40 and at 45..48 and 61..64, one row per lane in two warps
/// at the other orders to 64 and in three to 96; f64 and c64 two warps. A kernel's time follows its compiled order, so `nmax` is `n`
/// rounded up to 4 (c64 to 36: to 2), and to 8 past 64 (f32) and 48 (f64, c64), where the
/// rounding costs 1–2 % and halves the kernels compiled.
pub(crate) fn rows_shape<T: Scalar>(n: usize) -> Option<(usize, usize, usize)> {
    if n <= SMALL_MAX {
        return None;
    }
    match (T::IS_COMPLEX, std::mem::size_of::<T>(), n) {
        (false, 4, ..=40) => Some((1, 2, n.next_multiple_of(4))),
        (false, 4, 45..=48) => Some((1, 2, 48)),
        (false, 4, 61..=64) => Some((1, 2, 64)),
        (false, 4, ..=64) => Some((2, 1, n.next_multiple_of(4))),
        (false, 4, ..=96) => Some((3, 1, n.next_multiple_of(8))),
        (false, 8, ..=48) => Some((2, 1, n.next_multiple_of(4))),
        (false, 8, ..=64) => Some((2, 1, n.next_multiple_of(8))),
        (true, 8, ..=36) => Some((2, 1, n.next_multiple_of(2))),
        (true, 8, 37..=40) => None,
        (true, 8, ..=48) => Some((2, 1, n.next_multiple_of(4))),
        (true, 8, ..=64) => Some((2, 1, n.next_multiple_of(8))),
        _ => None,
    }
}

/// The kernel family of a solve ([`getrs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SolveForm {
    /// `getrs_small_w{W}`: the factors in the registers of a group of W lanes per matrix and
    /// chunk of right-hand sides (uniform batches, n ≤ [`SMALL_MAX`]).
    Small,
    /// `getrs_warp_r{r}`: a warp per matrix and right-hand side, the factors streamed column by
    /// column, the solution in registers.
    Warp,
    /// `getrs_tile`: a warp per matrix and right-hand side, the factors streamed a tile of
    /// columns at a time, the solution in shared memory.
    Tile,
    /// `getrs_blocked_*`: a block per matrix and chunk of right-hand sides.
    Blocked,
}

/// Most right-hand sides for which the solves above [`SMALL_MAX`] stream the factors (each
/// right-hand side reads them again) rather than solve blocks of columns in `getrs_blocked_*`:
/// two for c128 to n = 128 and for f32 and c64 to 64, one otherwise. From the harness on an
/// H200 (docs/perf-notes.md, Batched LU Version 26): a streamed solve costs about its
/// one-column time per column (f64 n = 100: 0.45, 0.68, 0.91, 1.17 ms for 1..4 columns) while
/// the blocked solve's time hardly grows up to its column block (0.52 ms for 2, 0.53 for 5 or
/// 6); c128 at 48 and 100 was still faster streamed with two columns (0.30 and 1.26 ms against
/// 0.48 and 1.51), f64 at 48 not (0.196 against 0.172).
pub(crate) fn warp_solve_rhs<T: Scalar>(n: usize) -> usize {
    match (T::IS_COMPLEX, std::mem::size_of::<T>(), n) {
        (true, 16, ..=128) | (false, 4, ..=64) | (true, 8, ..=64) => 2,
        _ => 1,
    }
}

/// Most right-hand sides of the register solve (`getrs_small`) at order `n`, above which the
/// blocked solve takes them: three for f64 and two for c128 at n = 17..=32, any number
/// otherwise. There the register solve runs a group's columns one after another while the
/// blocked solve's time hardly grows up to its column block: at n = 32 (harness, H200, Batched
/// LU Version 26) the register solve took 0.104 / 0.128 / 0.241 ms for f64 at 3 / 4 / 5
/// right-hand sides and 0.228 / 0.311 / 0.728 for c128 at 2 / 3 / 5, the blocked one 0.112 and
/// 0.286 at 5 (0.213 and 0.512 at 16, against 0.459 and 1.404 in registers); f32 and c64 are
/// as fast or faster in registers at every count measured (to 16).
pub(crate) fn small_solve_rhs<T: Scalar>(n: usize) -> usize {
    match (T::PREFIX, n) {
        ('d', 17..) => 3,
        ('z', 17..) => 2,
        _ => usize::MAX,
    }
}

/// The form of a solve of `nrhs` right-hand sides at (largest) order `n`: [`SolveForm::Small`]
/// for uniform batches to [`SMALL_MAX`] with at most [`small_solve_rhs`] right-hand sides;
/// with at most [`warp_solve_rhs`] right-hand sides, [`SolveForm::Warp`] to 128 (real types)
/// or 256 (complex) and [`SolveForm::Tile`] above, to 512 (not f32); else, or when a blocked
/// configuration is forced, [`SolveForm::Blocked`].
/// From the kernel times on an H200 (docs/perf-notes.md, Batched LU Version 25): past those
/// orders each column step of `getrs_warp` waits for memory (f32 190 1.59 ms, f64 256 3.70,
/// against the blocked solve's 0.89 and 2.96); the tiled solve beats the blocked one for f64
/// from 190 (1.28 ms against 1.60) and per matrix at 512 for f64, c64 and c128 (0.93, 0.64 and
/// 1.30 µs against 1.16, 1.28 and 3.13), not for f32 (0.69 against 0.54 at 512, 1.32 and 2.32
/// ms against 0.89 and 1.50 at 190 and 256).
pub(crate) fn solve_form<T: Scalar>(
    n: usize,
    nrhs: usize,
    uniform: bool,
    forced: bool,
) -> SolveForm {
    let (warp_max, tile_min) = match (T::IS_COMPLEX, std::mem::size_of::<T>()) {
        (false, 4) => (128, usize::MAX),
        (false, _) => (128, 129),
        _ => (256, 257),
    };
    if forced {
        SolveForm::Blocked
    } else if uniform && n <= SMALL_MAX && nrhs <= small_solve_rhs::<T>(n) {
        SolveForm::Small
    } else if nrhs > warp_solve_rhs::<T>(n) || n > 512 {
        SolveForm::Blocked
    } else if n <= warp_max {
        SolveForm::Warp
    } else if n >= tile_min {
        SolveForm::Tile
    } else {
        SolveForm::Blocked
    }
}

/// Rows per lane `r` of the streaming solve at order `n ≤ 256` ([`SolveForm::Warp`]): `⌈n / 32⌉`
/// rounded up to a power of two, at least 2 (the kernels `getrs_warp_r{2,4,8}_*`).
fn warp_solve_rows(n: usize) -> usize {
    n.div_ceil(32).next_power_of_two().max(2)
}

/// Right-hand-side columns per lane group of the register solve `getrs_small_*`: the factors,
/// loaded once per group, serve up to four columns, solved one after another; the columns are
/// spread evenly over the fewest groups (five: two groups of three, not four and one, since a
/// group's time follows its column count, the columns past `nrhs` included).
fn small_solve_columns(nrhs: usize) -> usize {
    let nrhs = nrhs.max(1);
    nrhs.div_ceil(nrhs.div_ceil(4))
}

fn small_width(n: usize) -> usize {
    n.next_power_of_two().max(4)
}

/// The register factorization's kernel at order `n ≤ 32`: `getrf_small_f{n}` where `n` is its
/// group width and that kernel, compiled for that one order, is the faster (every type at 4, 8
/// and 32 and the real types and c64 at 16; c128 at 16 spills there), else `getrf_small_w{W}`,
/// which takes any order up to its width `W`. Measured in docs/perf-notes.md, Batched LU
/// Version 24.
fn small_factor_kernel<T: Scalar>(n: usize) -> String {
    let w = small_width(n);
    if n == w && !(T::PREFIX == 'z' && w == 16) {
        format!("getrf_small_f{w}")
    } else {
        format!("getrf_small_w{w}")
    }
}

/// LU of every matrix in place: pivots and info written. A matrix holding a NaN or an infinity
/// is left as it was, with pivots `1..=n` and info `−1 − e` (`e` the position of its first
/// non-finite entry): the register kernels and f64's blocked kernel check each matrix before
/// their first store; for the other types' blocked kernel a scan queued just before marks it.
pub(crate) fn getrf<T: Scalar>(
    op: &'static str,
    d: &Desc,
    a: &mut DeviceVec<T>,
    piv: &mut DeviceVec<i32>,
    info: &mut DeviceVec<i32>,
) -> Result<()> {
    let dev = a.device().clone();
    let s = stream(&dev)?;
    let (b, n) = (i32_of(op, "batch", d.batch)?, i32_of(op, "n", d.n)?);
    let (as_, xs) = (i64_of(d.a_stride), i64_of(d.x_stride));
    let (ap, pp, ip) = (ptr(a), ptr(piv), ptr(info));
    // The uniform-batch kernels (n ≤ 32 in the registers of a group of lanes, the orders of
    // `rows_shape` in the registers of a block) take the same arguments.
    let uniform = if !d.is_uniform() {
        None
    } else if d.n <= SMALL_MAX {
        let per_block = 128 / small_width(d.n);
        Some((
            small_factor_kernel::<T>(d.n),
            cfg(d.batch.div_ceil(per_block), 128, 0),
        ))
    } else if OVERRIDE.with(Cell::get).is_none() {
        rows_shape::<T>(d.n).map(|(nw, r, nmax)| {
            (
                format!("getrf_rows_w{nw}_r{r}_n{nmax}"),
                cfg(d.batch, 32 * nw as u32, 0),
            )
        })
    } else {
        None
    };
    if let Some((name, lc)) = uniform {
        let f = function(&dev, &MODULE, &kernel_name::<T>(&name))?;
        let mut l = s.launch_builder(&f);
        l.arg(&ap).arg(&pp).arg(&ip).arg(&b).arg(&n).arg(&as_);
        // SAFETY: (a, ipiv, info, batch, n, stride) match the kernel; a holds batch matrices
        // `stride` apart, ipiv n·batch and info batch elements (validated by the caller).
        unsafe { l.launch(lc) }.map_err(launch_error(op))?;
        return Ok(());
    }
    // Found (or refused: an order too large) before anything is queued.
    let (f, _nb, threads, smem) = blocked_fn::<T>(op, &dev, "getrf_blocked", Kernel::Factor, d.n)?;
    if T::PREFIX != 'd' {
        // The blocked kernels of these types skip the matrices this scan marks (see
        // `validate_inside` in batched_lu.cu); f64's check their matrix themselves.
        let scan = function(&dev, &MODULE, &kernel_name::<T>("nonfinite_info_scan"))?;
        let mut l = s.launch_builder(&scan);
        l.arg(&ap).arg(&pp).arg(&ip);
        push_desc!(l, d, b, n, as_, xs);
        let grid = d.batch.div_ceil(8).clamp(1, 65535);
        // SAFETY: (a, ipiv, info, batch description) match the kernel; every matrix, pivot
        // range and info entry lies in its buffer (validated); one warp per matrix, grid-stride.
        unsafe { l.launch(cfg(grid, 256, 0)) }.map_err(launch_error(op))?;
    }
    let mut l = s.launch_builder(&f);
    l.arg(&ap).arg(&pp).arg(&ip);
    push_desc!(l, d, b, n, as_, xs);
    // SAFETY: (a, ipiv, info, batch description) match the kernel; every matrix, pivot range
    // and info entry lies in its buffer (validated); the dynamic shared memory is the size the
    // kernel's layout needs for the largest order.
    unsafe { l.launch(cfg(d.batch, threads, smem)) }.map_err(launch_error(op))?;
    Ok(())
}

/// Solves `op(A_k)·X_k = B_k` from the factors (`nrhs` columns, leading dimension `n_k`);
/// matrices with a non-zero `info` (when given) or a pivot outside `1..=n_k` get NaN.
#[allow(clippy::too_many_arguments)]
pub(crate) fn getrs<T: Scalar>(
    op: &'static str,
    d: &Desc,
    trans: Trans,
    a: &DeviceVec<T>,
    piv: &DeviceVec<i32>,
    info: Option<&DeviceVec<i32>>,
    x: &mut DeviceVec<T>,
    nrhs: usize,
) -> Result<()> {
    let dev = a.device().clone();
    let s = stream(&dev)?;
    let (b, n) = (i32_of(op, "batch", d.batch)?, i32_of(op, "n", d.n)?);
    let (as_, xs) = (i64_of(d.a_stride), i64_of(d.x_stride));
    let (ap, pp, xp) = (ptr(a), ptr(piv), ptr(x));
    let ip = info.map(ptr).unwrap_or(0);
    let nr = i32_of(op, "nrhs", nrhs)?;
    let t: i32 = match trans {
        Trans::N => 0,
        Trans::T => 1,
        Trans::C => 2,
    };
    let forced = OVERRIDE.with(Cell::get).is_some();
    let form = solve_form::<T>(d.n, nrhs, d.is_uniform(), forced);
    let (small, warp, tile) = (
        form == SolveForm::Small,
        form == SolveForm::Warp,
        form == SolveForm::Tile,
    );
    let (f, cols, lc) = if small {
        let w = small_width(d.n);
        let cpg = small_solve_columns(nrhs);
        let (_, groups) = chunk_grid(op, d.batch, nrhs, cpg)?;
        let name = kernel_name::<T>(&format!("getrs_small_w{w}"));
        let lc = cfg(lane_blocks(op, groups, w)?, 128, 0);
        (function(&dev, &MODULE, &name)?, cpg, lc)
    } else if tile {
        let (_, warps) = chunk_grid(op, d.batch, nrhs, 1)?;
        let name = kernel_name::<T>("getrs_tile");
        let smem = 4 * d.n * (std::mem::size_of::<T>() + 4);
        let lc = cfg(lane_blocks(op, warps, 32)?, 128, smem);
        (function(&dev, &MODULE, &name)?, 1, lc)
    } else if warp {
        let r = warp_solve_rows(d.n);
        let (_, warps) = chunk_grid(op, d.batch, nrhs, 1)?;
        let name = kernel_name::<T>(&format!("getrs_warp_r{r}"));
        let smem = 4 * 32 * r * (std::mem::size_of::<T>() + 4);
        let lc = cfg(lane_blocks(op, warps, 32)?, 128, smem);
        (function(&dev, &MODULE, &name)?, 1, lc)
    } else {
        let (f, nb, threads, smem) =
            blocked_fn::<T>(op, &dev, "getrs_blocked", Kernel::Solve, d.n)?;
        let (chunks, grid) = chunk_grid(op, d.batch, nrhs, nb)?;
        (f, chunks, cfg(grid, threads, smem))
    };
    let cols = cols as i32;
    let mut l = s.launch_builder(&f);
    l.arg(&ap).arg(&pp).arg(&ip).arg(&xp).arg(&nr);
    if small {
        l.arg(&cols).arg(&t).arg(&b).arg(&n).arg(&as_).arg(&xs);
    } else if warp {
        l.arg(&t);
        push_desc!(l, d, b, n, as_, xs);
    } else if tile {
        l.arg(&t).arg(&n);
        push_desc!(l, d, b, n, as_, xs);
    } else {
        l.arg(&cols).arg(&t);
        push_desc!(l, d, b, n, as_, xs);
    }
    // SAFETY: the arguments match the kernel: (a, ipiv, info, x, nrhs), then (columns per
    // group, trans, batch, n, a_stride, x_stride) for `getrs_small`, (trans, batch description)
    // for `getrs_warp`, (trans, largest order, batch description) for `getrs_tile` (whose
    // shared memory, 4·n elements and 4·n ints, is sized by that order), (column chunks, trans,
    // batch description) for `getrs_blocked`; factors, pivots, info and right-hand sides lie
    // in their buffers (validated by the caller); the kernels check every pivot's range before
    // they index with them.
    unsafe { l.launch(lc) }.map_err(launch_error(op))?;
    Ok(())
}

/// Blocks of 128 threads for `groups` groups of `lanes` lanes.
fn lane_blocks(op: &'static str, groups: usize, lanes: usize) -> Result<usize> {
    (groups as u64 * lanes as u64)
        .div_ceil(128)
        .try_into()
        .ok()
        .filter(|g: &usize| *g <= i32::MAX as usize)
        .ok_or_else(|| Error::SizeTooLarge {
            op,
            detail: format!("{groups} groups of {lanes} lanes"),
        })
}

/// Inverses from the factors into `inv` (matrix `k` at its `x` offset, leading dimension
/// `n_k`); matrices with a non-zero `info`, an exactly-zero `U(j, j)` or a pivot outside
/// `1..=n_k` get NaN.
pub(crate) fn getri<T: Scalar>(
    op: &'static str,
    d: &Desc,
    a: &DeviceVec<T>,
    piv: &DeviceVec<i32>,
    info: &DeviceVec<i32>,
    inv: &mut DeviceVec<T>,
) -> Result<()> {
    let dev = a.device().clone();
    let s = stream(&dev)?;
    let (b, n) = (i32_of(op, "batch", d.batch)?, i32_of(op, "n", d.n)?);
    let (as_, xs) = (i64_of(d.a_stride), i64_of(d.x_stride));
    let (ap, pp, ip, xp) = (ptr(a), ptr(piv), ptr(info), ptr(inv));
    // The uniform-batch kernels (n ≤ 32 in registers, 33..=mid_max with the factors in shared
    // memory) take the same arguments: (name, launch, whether it wants all of the shared
    // memory carve-out).
    let uniform = if !d.is_uniform() {
        None
    } else if d.n <= SMALL_MAX {
        let w = small_width(d.n);
        // 64 / w groups of w·(w + 1) elements.
        let smem = 64 * (w + 1) * std::mem::size_of::<T>();
        let lc = cfg(d.batch.div_ceil(64 / w), 64, smem);
        Some((format!("getri_small_w{w}"), lc, false))
    } else if OVERRIDE.with(Cell::get).is_some() {
        None
    } else {
        // The mid-size kernels: `grid` blocks of nw warps (one per matrix, TRI_SPLIT consecutive
        // ones for the triangle form) with `smem` bytes; on a GPU with less shared memory per
        // block than that, the blocked kernels instead.
        let mid = |name: String, nw: usize, smem: usize, grid: usize| {
            (smem <= max_shared_bytes(&dev).unwrap_or(48 * 1024))
                .then(|| (name, cfg(grid, 32 * nw as u32, smem), true))
        };
        if let Some((r, nw, cpg)) = tri_half_shape::<T>(d.n) {
            let smem = half_smem::<T>(d.n, (r, nw, cpg), true);
            let (_, grid) = chunk_grid(op, d.batch, TRI_SPLIT, 1)?;
            mid(format!("getri_tri_r{r}_w{nw}_c{cpg}_h16"), nw, smem, grid)
        } else if let Some((r, nw, cpg)) = half_shape::<T>(d.n) {
            let smem = half_smem::<T>(d.n, (r, nw, cpg), false);
            mid(
                format!("getri_mid_r{r}_w{nw}_c{cpg}_h16"),
                nw,
                smem,
                d.batch,
            )
        } else if d.n <= mid_max::<T>() {
            let (r, nw, cpw) = mid_shape::<T>(d.n);
            let smem = mid_smem::<T>(d.n, (r, nw, cpw), false);
            mid(format!("getri_mid_r{r}_w{nw}_c{cpw}"), nw, smem, d.batch)
        } else if let Some((r, nw, cpw)) = tri_shape::<T>(d.n) {
            let limit = max_shared_bytes(&dev).unwrap_or(48 * 1024);
            let smem = tri_launch_smem::<T>(d.n, (r, nw, cpw), limit);
            let (_, grid) = chunk_grid(op, d.batch, TRI_SPLIT, 1)?;
            mid(format!("getri_tri_r{r}_w{nw}_c{cpw}"), nw, smem, grid)
        } else if let Some((r, nw, cpw, split, lm, um)) = trim_shape::<T>(d.n)
            .filter(|_| max_shared_bytes(&dev).is_some_and(|b| b >= TRIM_DEVICE_SMEM))
        {
            // The kernel's layout reads the launch's size: it holds `trim_held` elements.
            let smem = smem_holding::<T>(trim_held(d.n, lm, um), (r, nw, cpw));
            let (_, grid) = chunk_grid(op, d.batch, split, 1)?;
            mid(format!("getri_trim_r{r}_w{nw}_c{cpw}"), nw, smem, grid)
        } else if let Some((r, nw, cpw, split, cols)) = tri3_shape::<T>(d.n) {
            let smem = tri3_smem::<T>(d.n, (r, nw, cpw), cols);
            let (_, grid) = chunk_grid(op, d.batch, split, 1)?;
            mid(format!("getri_tri3_r{r}_w{nw}_c{cpw}_h16"), nw, smem, grid)
        } else if let Some((r, nw, cpw, ph)) = tri4_shape::<T>(d.n) {
            let smem = tri4_smem::<T>(d.n, (r, nw, cpw, ph));
            let (_, grid) = chunk_grid(op, d.batch, TRI4_SPLIT, 1)?;
            mid(
                format!("getri_tri4_r{r}_w{nw}_c{cpw}_p{ph}"),
                nw,
                smem,
                grid,
            )
        } else {
            None
        }
    };
    if let Some((name, lc, carveout)) = uniform {
        let f = function(&dev, &MODULE, &kernel_name::<T>(&name))?;
        let smem = lc.shared_mem_bytes as usize;
        if smem > 48 * 1024 {
            allow_shared_bytes(&f, smem)?;
        }
        if carveout {
            prefer_shared_carveout(&f)?;
        }
        let mut l = s.launch_builder(&f);
        l.arg(&ap)
            .arg(&pp)
            .arg(&ip)
            .arg(&xp)
            .arg(&b)
            .arg(&n)
            .arg(&as_)
            .arg(&xs);
        // SAFETY: (a, ipiv, info, inv, batch, n, a_stride, inv_stride) match the kernel; the
        // buffers hold every matrix, pivot, info and inverse (a pivot's value is only compared,
        // never used as an address); the shared memory is the size the kernel's layout needs
        // at this order.
        unsafe { l.launch(lc) }.map_err(launch_error(op))?;
        return Ok(());
    }
    let (f, nb, threads, smem) = blocked_fn::<T>(op, &dev, "getri_blocked", Kernel::Solve, d.n)?;
    let (chunks, grid) = chunk_grid(op, d.batch, d.n, nb)?;
    let ch = chunks as i32;
    let mut l = s.launch_builder(&f);
    l.arg(&ap).arg(&pp).arg(&ip).arg(&xp).arg(&ch);
    push_desc!(l, d, b, n, as_, xs);
    // SAFETY: (a, ipiv, info, inv, chunks, batch description) match the kernel; factors,
    // pivots, info and the output matrices lie in their buffers; the kernel checks every
    // pivot's range before it indexes with them.
    unsafe { l.launch(cfg(grid, threads, smem)) }.map_err(launch_error(op))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::{Complex32, Complex64};

    /// The committed PTX has an entry named `base` for `T` (the kernel of order `n`).
    fn assert_entry<T: Scalar>(base: &str, n: usize) {
        let ptx = include_str!("../../../kernels/batched_lu.ptx");
        let name = kernel_name::<T>(base);
        assert!(
            ptx.contains(&format!(".entry {name}(")),
            "n = {n}: no kernel {name}"
        );
    }

    /// Every shape `mid_shape` picks (where neither `half_shape` nor `tri_half_shape` serves)
    /// is a kernel of the compiled module, with room for every column, and its shared memory
    /// fits an H100's block limit.
    fn mid_kernels_exist<T: Scalar>() {
        for n in SMALL_MAX + 1..=mid_max::<T>() {
            if half_shape::<T>(n).is_some() || tri_half_shape::<T>(n).is_some() {
                continue;
            }
            let (r, nw, cpw) = mid_shape::<T>(n);
            assert!(
                nw * cpw >= n && nw * cpw < n + 2 * nw,
                "n = {n}: {nw} × {cpw}"
            );
            assert!(
                32 * r >= n && 32 * (r - 1) < n,
                "n = {n}: {r} rows per lane"
            );
            assert_entry::<T>(&format!("getri_mid_r{r}_w{nw}_c{cpw}"), n);
            assert!(
                mid_smem::<T>(n, (r, nw, cpw), false) <= 227 * 1024,
                "n = {n}"
            );
        }
    }

    /// Every shape `tri_shape` picks is a kernel of the compiled module, its blocks cover every
    /// row and column, and its shared memory fits an H100's block limit; it starts right after
    /// the whole-factor kernels.
    fn tri_kernels_exist<T: Scalar>() {
        assert_eq!(tri_shape::<T>(mid_max::<T>()), None);
        for n in SMALL_MAX + 1..=1024 {
            let Some((r, nw, cpw)) = tri_shape::<T>(n) else {
                continue;
            };
            assert!(n > mid_max::<T>(), "n = {n}");
            assert!(TRI_SPLIT * nw * cpw >= n, "n = {n}: {nw} × {cpw}");
            assert!(
                32 * r >= n && 32 * (r - 1) < n,
                "n = {n}: {r} rows per lane"
            );
            assert_entry::<T>(&format!("getri_tri_r{r}_w{nw}_c{cpw}"), n);
            assert!(
                mid_smem::<T>(n, (r, nw, cpw), true) <= 227 * 1024,
                "n = {n}"
            );
        }
    }

    /// Every shape `tri4_shape` picks is a kernel of the compiled module; its four blocks'
    /// warps cover every column (the last part not empty) and its rows every row, with one slot
    /// of 32 at most partly used; a phase split falls inside the order; its shared memory fits an
    /// H100's block limit; and no other mid-size form serves its orders.
    fn tri4_kernels_exist<T: Scalar>() {
        for n in SMALL_MAX + 1..=1024 {
            let Some((r, nw, cpw, ph)) = tri4_shape::<T>(n) else {
                continue;
            };
            assert!(n > mid_max::<T>(), "n = {n}");
            assert_eq!(tri_shape::<T>(n), None, "n = {n}");
            assert_eq!(tri_half_shape::<T>(n), None, "n = {n}");
            let part = nw * cpw;
            assert!(
                TRI4_SPLIT * part >= n && (TRI4_SPLIT - 1) * part < n,
                "n = {n}: {nw} × {cpw}"
            );
            assert!(
                32 * r >= n && 32 * (r - 1) < n,
                "n = {n}: {r} rows per lane"
            );
            assert!(32 * ph < n, "n = {n}: split at {}", 32 * ph);
            assert_entry::<T>(&format!("getri_tri4_r{r}_w{nw}_c{cpw}_p{ph}"), n);
            assert!(tri4_smem::<T>(n, (r, nw, cpw, ph)) <= 227 * 1024, "n = {n}");
        }
    }

    /// Every shape `tri3_shape` picks is a kernel of the compiled module; its blocks' warps
    /// cover every column (the last block not empty) and its rows every row; the split columns
    /// are slot boundaries inside the order, ascending; its shared memory fits an H100's block
    /// limit; and no other mid-size form serves its orders.
    fn tri3_kernels_exist<T: Scalar>() {
        for n in SMALL_MAX + 1..=1024 {
            let Some((r, nw, cpw, split, cols)) = tri3_shape::<T>(n) else {
                continue;
            };
            assert!(n > mid_max::<T>(), "n = {n}");
            assert_eq!(tri_shape::<T>(n), None, "n = {n}");
            assert_eq!(tri_half_shape::<T>(n), None, "n = {n}");
            assert_eq!(tri4_shape::<T>(n), None, "n = {n}");
            let part = 2 * nw * cpw;
            assert!(split * part >= n && (split - 1) * part < n, "n = {n}");
            assert!(
                16 * r >= n && 16 * (r - 1) < n,
                "n = {n}: {r} rows per lane"
            );
            let [la, lb, ua, ub] = cols;
            assert!(
                0 < la && la < lb && lb < n && 0 < ua && ua < ub && ub < n,
                "n = {n}"
            );
            assert!(
                cols.iter().all(|c| c % 16 == 0 && c / 16 < 16),
                "n = {n}: {cols:?}"
            );
            assert_entry::<T>(&format!("getri_tri3_r{r}_w{nw}_c{cpw}_h16"), n);
            assert!(
                tri3_smem::<T>(n, (r, nw, cpw), cols) <= 227 * 1024,
                "n = {n}"
            );
        }
    }

    #[test]
    fn every_three_part_triangle_order_has_its_kernel() {
        tri3_kernels_exist::<f32>();
        tri3_kernels_exist::<f64>();
        tri3_kernels_exist::<Complex32>();
        tri3_kernels_exist::<Complex64>();
        assert_eq!(tri3_shape::<Complex64>(192), None);
        assert_eq!(tri3_shape::<Complex64>(193).map(|s| s.3), Some(7));
        assert_eq!(tri3_shape::<Complex64>(256).map(|s| s.3), Some(8));
        assert_eq!(tri3_shape::<Complex64>(257), None);
        let rows: Vec<usize> = [208, 209, 224, 240, 241]
            .iter()
            .filter_map(|&n| tri3_shape::<Complex64>(n).map(|s| s.0))
            .collect();
        assert_eq!(rows, [13, 14, 14, 15, 16]);
        assert_eq!(tri3_shape::<f64>(256), None);
        // n = 256 split at 32, 96 | 160, 224: L's parts 7664, 12256, 12720; U's 12720, 12256,
        // 7664 (of 32640 each).
        assert_eq!(tri3_held(256, [32, 96, 160, 224]), 12720);
        assert_eq!(tri3_held(193, [32, 96, 160, 192]), 12720);
    }

    /// Every shape `trim_shape` picks is a kernel of the compiled module; its blocks cover every
    /// column (at most the last block empty) and its rows every row, every slot but the last
    /// holding a row; both masks start a part at column 0; every part fits an H100's block
    /// limit; and no other mid-size form serves its orders.
    fn trim_kernels_exist<T: Scalar>() {
        for n in SMALL_MAX + 1..=1024 {
            let Some((r, nw, cpw, split, lm, um)) = trim_shape::<T>(n) else {
                continue;
            };
            assert!(n > mid_max::<T>(), "n = {n}");
            assert_eq!(tri_shape::<T>(n), None, "n = {n}");
            assert_eq!(tri_half_shape::<T>(n), None, "n = {n}");
            assert_eq!(tri4_shape::<T>(n), None, "n = {n}");
            assert_eq!(tri3_shape::<T>(n), None, "n = {n}");
            // The last block may have no column (e.g. c128 at n ≤ 496); the kernel returns at
            // once there.
            let part = nw * cpw;
            assert!(split * part >= n && (split - 2) * part < n, "n = {n}");
            assert!(
                32 * r >= n && 32 * (r - 1) < n,
                "n = {n}: {r} rows per lane"
            );
            assert!(lm & 1 == 1 && um & 1 == 1, "n = {n}");
            assert_entry::<T>(&format!("getri_trim_r{r}_w{nw}_c{cpw}"), n);
            let smem = smem_holding::<T>(trim_held(n, lm, um), (r, nw, cpw));
            assert!(smem <= TRIM_DEVICE_SMEM, "n = {n}: {smem}");
        }
    }

    #[test]
    fn every_many_part_triangle_order_has_its_kernel() {
        trim_kernels_exist::<f32>();
        trim_kernels_exist::<f64>();
        trim_kernels_exist::<Complex32>();
        trim_kernels_exist::<Complex64>();
        for (n, parts) in [(288, 4), (512, 13)] {
            let (.., lm, um) = trim_shape::<Complex64>(n).unwrap();
            assert_eq!(trim_parts(n, lm).len(), parts, "n = {n}");
            assert_eq!(trim_parts(n, um).len(), parts, "n = {n}");
        }
        // c128 at 512: the largest parts (L's columns 208..256, U's 256..304) 13416 elements.
        let (.., lm, um) = trim_shape::<Complex64>(512).unwrap();
        assert_eq!(trim_held(512, lm, um), 13416);
        // f32 up to 320 in one part (one triangle), three at 512.
        assert_eq!(trim_shape::<f32>(320).unwrap().4, 1);
        assert_eq!(trim_parts(512, trim_shape::<f32>(512).unwrap().4).len(), 3);
        trim_masks_are_greedy::<f32>();
        trim_masks_are_greedy::<f64>();
        trim_masks_are_greedy::<Complex32>();
        trim_masks_are_greedy::<Complex64>();
    }

    /// `trim_shape` at 257..=512 (and nowhere else): the parts tile the triangle, and the masks
    /// are the greedy ones at the range's largest order, 32·r, for the shared memory a block
    /// may have beside the rest of the layout.
    fn trim_masks_are_greedy<T: Scalar>() {
        assert_eq!(trim_shape::<T>(256), None);
        assert_eq!(trim_shape::<T>(513), None);
        let e = 16 / std::mem::size_of::<T>();
        for n in 257..=512 {
            let (r, nw, cpw, _, lm, um) = trim_shape::<T>(n).unwrap();
            for m in [lm, um] {
                let p = trim_parts(n, m);
                assert_eq!(p[0].0, 0);
                assert_eq!(p[p.len() - 1].1, n);
                assert!(p.windows(2).all(|w| w[0].1 == w[1].0 && w[0].0 < w[0].1));
            }
            let rest = smem_holding::<T>(0, (r, nw, cpw));
            let budget = (TRIM_DEVICE_SMEM - rest) / 16 * e;
            assert_eq!(
                (lm, um),
                greedy_masks(32 * r, budget),
                "{} n = {n}",
                T::PREFIX
            );
        }
    }

    /// Part masks of 16-column sub-slots for a triangle of order `n` with parts of at most
    /// `budget` elements: L's parts from column 0 up, U's from the last column down, each part
    /// as long as it fits.
    fn greedy_masks(n: usize, budget: usize) -> (u32, u32) {
        let slots = n.div_ceil(16);
        let lower = |j: usize| {
            (16 * j..(16 * j + 16).min(n))
                .map(|c| n - 1 - c)
                .sum::<usize>()
        };
        let upper = |j: usize| (16 * j..(16 * j + 16).min(n)).sum::<usize>();
        let (mut lm, mut held) = (1u32, 0);
        for j in 0..slots {
            if held + lower(j) > budget {
                lm |= 1 << j;
                held = 0;
            }
            held += lower(j);
        }
        let (mut um, mut held) = (1u32, 0);
        for j in (0..slots).rev() {
            if held + upper(j) > budget {
                um |= 1 << (j + 1);
                held = 0;
            }
            held += upper(j);
        }
        (lm, um)
    }

    #[test]
    fn the_two_part_triangle_launch_sizes() {
        let shape = tri_shape::<f32>(256).unwrap();
        let one = mid_smem::<f32>(256, shape, true);
        // f32: both triangles (2·32640 elements) up to the limit, never less than one.
        assert_eq!(tri_launch_smem::<f32>(256, shape, 227 * 1024), 227 * 1024);
        assert_eq!(tri_launch_smem::<f32>(256, shape, 1000), one);
        let shape = tri_shape::<f32>(193).unwrap();
        let both = tri_launch_smem::<f32>(193, shape, 227 * 1024);
        assert!(both > mid_smem::<f32>(193, shape, true) && both < 227 * 1024);
        let shape = tri_shape::<f64>(190).unwrap();
        assert_eq!(
            tri_launch_smem::<f64>(190, shape, 227 * 1024),
            mid_smem::<f64>(190, shape, true)
        );
    }

    #[test]
    fn every_four_part_triangle_order_has_its_kernel() {
        tri4_kernels_exist::<f32>();
        tri4_kernels_exist::<f64>();
        tri4_kernels_exist::<Complex32>();
        tri4_kernels_exist::<Complex64>();
        assert_eq!(tri4_shape::<f64>(192), None);
        assert_eq!(tri4_shape::<f64>(193), Some((7, 16, 4, 0)));
        assert_eq!(tri4_shape::<f64>(256), Some((8, 16, 4, 4)));
        assert_eq!(tri4_shape::<f64>(257), None);
        assert_eq!(tri4_shape::<f32>(224), None);
        assert_eq!(tri4_shape::<Complex64>(190), Some((6, 12, 4, 3)));
        // n = 256 split at column 128: L's first part and U's second are the larger, 24512
        // elements each (of 32640).
        assert_eq!(tri4_held(256, 4), 24512);
        assert_eq!(tri4_held(256, 0), 32640);
    }

    /// Every register factorization kernel `small_factor_kernel` picks is in the compiled
    /// module: the exact-order kernels at the group widths (c128 16 excepted), the general ones
    /// elsewhere.
    fn small_kernels_exist<T: Scalar>() {
        for n in 1..=SMALL_MAX {
            let name = small_factor_kernel::<T>(n);
            assert_entry::<T>(&name, n);
            let exact = [4, 8, 16, 32].contains(&n) && !(T::PREFIX == 'z' && n == 16);
            assert_eq!(name.starts_with("getrf_small_f"), exact, "n = {n}: {name}");
            assert_entry::<T>(&format!("getrs_small_w{}", small_width(n)), n);
        }
    }

    #[test]
    fn every_register_factorization_has_its_kernel() {
        small_kernels_exist::<f32>();
        small_kernels_exist::<f64>();
        small_kernels_exist::<Complex32>();
        small_kernels_exist::<Complex64>();
        assert_eq!(small_factor_kernel::<f64>(3), "getrf_small_w4");
        assert_eq!(small_factor_kernel::<Complex64>(16), "getrf_small_w16");
        assert_eq!(small_factor_kernel::<Complex64>(32), "getrf_small_f32");
        assert_eq!(small_solve_columns(1), 1);
        assert_eq!(small_solve_columns(3), 3);
        assert_eq!(small_solve_columns(100), 4);
        assert_eq!(small_solve_columns(0), 1);
        assert_eq!(small_solve_columns(4), 4);
        assert_eq!(small_solve_columns(5), 3);
        assert_eq!(small_solve_columns(9), 3);
        assert_eq!(small_solve_columns(10), 4);
        for nrhs in 1..=64 {
            let (c, groups) = (small_solve_columns(nrhs), nrhs.div_ceil(4));
            assert!(
                c <= 4 && c * groups >= nrhs && nrhs.div_ceil(c) == groups,
                "{nrhs}: {c}"
            );
        }
        use SolveForm::*;
        assert_eq!(solve_form::<f32>(32, 9, true, false), Small);
        assert_eq!(solve_form::<Complex32>(32, 9, true, false), Small);
        assert_eq!(solve_form::<f64>(16, 9, true, false), Small);
        assert_eq!(solve_form::<f64>(17, 3, true, false), Small);
        assert_eq!(solve_form::<f64>(17, 4, true, false), Blocked);
        assert_eq!(solve_form::<Complex64>(16, 9, true, false), Small);
        assert_eq!(solve_form::<Complex64>(32, 2, true, false), Small);
        assert_eq!(solve_form::<Complex64>(32, 3, true, false), Blocked);
        assert_eq!(solve_form::<f32>(32, 1, false, false), Warp);
        assert_eq!(solve_form::<f32>(32, 1, true, true), Blocked);
        assert_eq!(solve_form::<f32>(128, 1, true, false), Warp);
        assert_eq!(solve_form::<f32>(64, 2, true, false), Warp);
        assert_eq!(solve_form::<f32>(64, 3, true, false), Blocked);
        assert_eq!(solve_form::<Complex32>(64, 2, true, false), Warp);
        assert_eq!(solve_form::<Complex32>(65, 2, true, false), Blocked);
        assert_eq!(solve_form::<f64>(48, 2, true, false), Blocked);
        assert_eq!(solve_form::<f32>(128, 2, true, false), Blocked);
        assert_eq!(solve_form::<f64>(190, 2, true, false), Blocked);
        assert_eq!(solve_form::<Complex64>(128, 2, true, false), Warp);
        assert_eq!(solve_form::<Complex64>(128, 3, true, false), Blocked);
        assert_eq!(solve_form::<Complex64>(129, 2, true, false), Blocked);
        assert_eq!(solve_form::<f32>(129, 1, true, false), Blocked);
        assert_eq!(solve_form::<f32>(512, 1, true, false), Blocked);
        assert_eq!(solve_form::<f64>(129, 1, true, false), Tile);
        assert_eq!(solve_form::<Complex32>(256, 1, true, false), Warp);
        assert_eq!(solve_form::<Complex64>(257, 1, false, false), Tile);
        assert_eq!(solve_form::<Complex64>(512, 1, true, false), Tile);
        assert_eq!(solve_form::<Complex64>(513, 1, true, false), Blocked);
        assert_entry::<f64>("getrs_tile", 512);
        assert_entry::<Complex32>("getrs_tile", 512);
        assert_entry::<Complex64>("getrs_tile", 512);
        for n in [1, 33, 64, 65, 100, 128, 129, 190, 256] {
            let r = warp_solve_rows(n);
            assert!(32 * r >= n && [2, 4, 8].contains(&r), "n = {n}: {r}");
            let name = format!("getrs_warp_r{r}");
            assert_entry::<f32>(&name, n);
            assert_entry::<f64>(&name, n);
            assert_entry::<Complex32>(&name, n);
            assert_entry::<Complex64>(&name, n);
        }
    }

    /// Every shape `rows_shape` picks is a kernel of the compiled module with room for every
    /// row and column.
    fn rows_kernels_exist<T: Scalar>() {
        for n in SMALL_MAX + 1..=256 {
            let Some((nw, r, nmax)) = rows_shape::<T>(n) else {
                continue;
            };
            assert!(
                nmax >= n && nmax < n + 8 && 32 * nw * r >= n,
                "n = {n}: {nw} warps × {r} rows, order {nmax}"
            );
            assert_entry::<T>(&format!("getrf_rows_w{nw}_r{r}_n{nmax}"), n);
        }
    }

    /// Every configuration the tables give has its kernels in the compiled module: the
    /// factorization's ([`factor_kernel`]) and the solves'.
    fn blocked_kernels_exist<T: Scalar>() {
        for n in [33, 48, 64, 65, 100, 128, 129, 190, 256, 257, 384, 512, 1024] {
            let f = crate::tuning::blocked::<T>(n, Kernel::Factor);
            assert_entry::<T>(&factor_kernel::<T>(&f), n);
            let s = crate::tuning::blocked::<T>(n, Kernel::Solve);
            for base in ["getrs_blocked", "getri_blocked"] {
                assert_entry::<T>(&format!("{base}_nb{}{}", s.nb, s.regs.suffix()), n);
            }
        }
    }

    #[test]
    fn every_blocked_configuration_has_its_kernels() {
        blocked_kernels_exist::<f32>();
        blocked_kernels_exist::<f64>();
        blocked_kernels_exist::<Complex32>();
        blocked_kernels_exist::<Complex64>();
        // f64 factors with the look-ahead at 65..=256, with the blocked kernel elsewhere.
        let f64_factor =
            |n| factor_kernel::<f64>(&crate::tuning::blocked::<f64>(n, Kernel::Factor));
        assert_eq!(f64_factor(65), "getrf_lookahead_nb16_r64");
        assert_eq!(f64_factor(256), "getrf_lookahead_nb16_r64");
        assert_eq!(f64_factor(257), "getrf_blocked_nb16_r80");
        assert_eq!(f64_factor(64), "getrf_blocked_nb16_r48");
        assert_eq!(
            factor_kernel::<f32>(&crate::tuning::blocked::<f32>(190, Kernel::Factor)),
            "getrf_blocked_nb16_r48"
        );
    }

    #[test]
    fn the_validity_scan_exists_where_the_blocked_kernel_needs_it() {
        // Every type but f64 (whose blocked kernel checks its matrix itself) marks non-finite
        // matrices with `nonfinite_info_scan` before the blocked factorization.
        assert_entry::<f32>("nonfinite_info_scan", 0);
        assert_entry::<Complex32>("nonfinite_info_scan", 0);
        assert_entry::<Complex64>("nonfinite_info_scan", 0);
    }

    #[test]
    fn every_rows_order_has_its_kernel() {
        rows_kernels_exist::<f32>();
        rows_kernels_exist::<f64>();
        rows_kernels_exist::<Complex32>();
        rows_kernels_exist::<Complex64>();
        assert_eq!(rows_shape::<f32>(44), Some((2, 1, 44)));
        assert_eq!(rows_shape::<f32>(45), Some((1, 2, 48)));
        assert_eq!(rows_shape::<f32>(60), Some((2, 1, 60)));
        assert_eq!(rows_shape::<f32>(64), Some((1, 2, 64)));
        assert_eq!(rows_shape::<f32>(65), Some((3, 1, 72)));
        assert_eq!(rows_shape::<f32>(96), Some((3, 1, 96)));
        assert_eq!(rows_shape::<f32>(97), None);
        assert_eq!(rows_shape::<f64>(48), Some((2, 1, 48)));
        assert_eq!(rows_shape::<f64>(49), Some((2, 1, 56)));
        assert_eq!(rows_shape::<f64>(65), None);
        assert_eq!(rows_shape::<Complex32>(36), Some((2, 1, 36)));
        assert_eq!(rows_shape::<Complex32>(37), None);
        assert_eq!(rows_shape::<Complex32>(40), None);
        assert_eq!(rows_shape::<Complex32>(41), Some((2, 1, 44)));
        assert_eq!(rows_shape::<Complex32>(64), Some((2, 1, 64)));
        assert_eq!(rows_shape::<Complex32>(65), None);
        assert_eq!(rows_shape::<Complex64>(40), None);
    }

    #[test]
    fn every_mid_order_has_its_kernel() {
        mid_kernels_exist::<f32>();
        mid_kernels_exist::<f64>();
        mid_kernels_exist::<Complex32>();
        mid_kernels_exist::<Complex64>();
    }

    /// Every shape `half_shape` picks is a kernel of the compiled module with room for every
    /// row and column, and no more than one group of columns or row slot spare; its shared
    /// memory fits an H100's block limit.
    fn half_kernels_exist<T: Scalar>() {
        for n in SMALL_MAX + 1..=256 {
            let Some((r, nw, cpg)) = half_shape::<T>(n) else {
                continue;
            };
            assert!(n <= mid_max::<T>(), "n = {n}");
            assert!(
                2 * nw * cpg >= n && 2 * nw * (cpg - 1) < n,
                "n = {n}: {nw} × 2 × {cpg}"
            );
            assert_half_group_kernel::<T>(n, (r, nw, cpg), false);
        }
    }

    /// The half-warp-group kernel of shape `(r, nw, cpg)` (the triangle form or the whole
    /// factors) exists, its rows cover the order `n` with one slot of sixteen at most partly
    /// used (the kernels rely on 16·(r − 1) < n), and its shared memory fits an H100's block
    /// limit.
    fn assert_half_group_kernel<T: Scalar>(
        n: usize,
        (r, nw, cpg): (usize, usize, usize),
        triangle: bool,
    ) {
        assert!(16 * r >= n && 16 * (r - 1) < n, "n = {n}: {r} rows");
        let form = if triangle { "tri" } else { "mid" };
        assert_entry::<T>(&format!("getri_{form}_r{r}_w{nw}_c{cpg}_h16"), n);
        assert!(
            half_smem::<T>(n, (r, nw, cpg), triangle) <= 227 * 1024,
            "n = {n}"
        );
    }

    /// Every order of the mid-size range has a kernel: the half-warp form, or the whole-warp
    /// one at f64 97..=104 and f32 129..=192 only, or the triangle form in half-warp groups.
    fn mid_orders_covered<T: Scalar>(whole: Option<std::ops::RangeInclusive<usize>>) {
        for n in SMALL_MAX + 1..=mid_max::<T>() {
            let in_whole = whole.as_ref().is_some_and(|r| r.contains(&n));
            let other = in_whole || tri_half_shape::<T>(n).is_some();
            assert_eq!(half_shape::<T>(n).is_none(), other, "n = {n}");
        }
    }

    /// Every shape `tri_half_shape` picks is a kernel of the compiled module, its two blocks'
    /// groups cover every column (the second part not empty) and its rows every row, its shared
    /// memory fits an H100's block limit, and no order has both it and a half-warp shape.
    fn tri_half_kernels_exist<T: Scalar>() {
        for n in SMALL_MAX + 1..=1024 {
            let Some((r, nw, cpg)) = tri_half_shape::<T>(n) else {
                continue;
            };
            assert_eq!(half_shape::<T>(n), None, "n = {n}");
            let part = 2 * nw * cpg;
            assert!(
                TRI_SPLIT * part >= n && part < n,
                "n = {n}: {nw} × 2 × {cpg}"
            );
            assert_half_group_kernel::<T>(n, (r, nw, cpg), true);
        }
    }

    #[test]
    fn every_half_warp_order_has_its_kernel() {
        half_kernels_exist::<f32>();
        half_kernels_exist::<f64>();
        half_kernels_exist::<Complex32>();
        half_kernels_exist::<Complex64>();
        mid_orders_covered::<f32>(Some(129..=192));
        mid_orders_covered::<f64>(Some(97..=104));
        mid_orders_covered::<Complex32>(None);
        mid_orders_covered::<Complex64>(None);
        assert_eq!(half_shape::<f64>(32), None);
        assert_eq!(half_shape::<f64>(33), Some((3, 2, 9)));
        assert_eq!(half_shape::<f64>(48), Some((3, 4, 6)));
        assert_eq!(half_shape::<f64>(49), Some((4, 4, 7)));
        assert_eq!(half_shape::<f64>(96), Some((6, 8, 6)));
        assert_eq!(half_shape::<f64>(105), Some((7, 16, 4)));
        assert_eq!(half_shape::<f32>(128), Some((8, 8, 8)));
        assert_eq!(half_shape::<f32>(129), None);
        assert_eq!(half_shape::<Complex64>(40), Some((3, 4, 5)));
        assert_eq!(half_shape::<Complex32>(41), Some((3, 4, 6)));
        assert_eq!(half_shape::<Complex32>(80), Some((5, 4, 10)));
        assert_eq!(half_shape::<Complex32>(81), Some((6, 8, 6)));
        assert_eq!(half_shape::<Complex64>(56), Some((4, 4, 7)));
        assert_eq!(half_shape::<Complex64>(64), Some((4, 8, 4)));
        assert_eq!(half_shape::<Complex64>(65), None);
        assert_eq!(half_shape::<Complex64>(81), Some((6, 12, 4)));
        assert_eq!(half_shape::<Complex64>(96), Some((6, 12, 4)));
        assert_eq!(half_shape::<Complex64>(97), Some((7, 8, 7)));
        assert_eq!(half_shape::<Complex64>(113), None);
        assert_eq!(half_shape::<Complex32>(129), Some((9, 12, 6)));
        assert_eq!(half_shape::<Complex32>(160), Some((10, 8, 10)));
        assert_eq!(half_shape::<Complex32>(161), None);
    }

    #[test]
    fn every_triangle_order_has_its_kernel() {
        tri_kernels_exist::<f32>();
        tri_kernels_exist::<f64>();
        tri_kernels_exist::<Complex32>();
        tri_kernels_exist::<Complex64>();
        assert_eq!(tri_shape::<f32>(256), Some((8, 16, 8)));
        assert_eq!(tri_shape::<f32>(257), None);
        assert_eq!(tri_shape::<f64>(179), None);
        assert_eq!(tri_shape::<f64>(180), Some((6, 16, 6)));
        assert_eq!(tri_shape::<f64>(193), None);
        assert_eq!(tri_shape::<Complex32>(190), None);
        tri_half_kernels_exist::<f32>();
        tri_half_kernels_exist::<f64>();
        tri_half_kernels_exist::<Complex32>();
        tri_half_kernels_exist::<Complex64>();
        assert_eq!(tri_half_shape::<f64>(190), None);
        assert_eq!(tri_half_shape::<Complex32>(160), None);
        assert_eq!(tri_half_shape::<Complex32>(161), Some((11, 12, 4)));
        assert_eq!(tri_half_shape::<Complex32>(192), Some((12, 12, 4)));
        assert_eq!(tri_half_shape::<Complex32>(193), None);
        assert_eq!(tri_half_shape::<Complex64>(64), None);
        assert_eq!(tri_half_shape::<Complex64>(65), Some((5, 4, 5)));
        assert_eq!(tri_half_shape::<Complex64>(80), Some((5, 4, 5)));
        assert_eq!(tri_half_shape::<Complex64>(81), None);
        assert_eq!(tri_half_shape::<Complex64>(112), None);
        assert_eq!(tri_half_shape::<Complex64>(113), Some((8, 8, 4)));
        assert_eq!(tri_half_shape::<Complex64>(144), Some((9, 12, 3)));
        assert_eq!(tri_half_shape::<Complex64>(145), None);
    }

    #[test]
    fn blocked_leading_dimension() {
        for np in (8..=1032).step_by(8) {
            let ld = blocked_ld::<f64>(np);
            assert!(
                ld >= np && ld < np + 16 && ld % 16 == 4,
                "np = {np}: ld = {ld}"
            );
            assert!(blocked_ld::<f64>(np + 8) >= ld, "np = {np}");
            assert_eq!(blocked_ld::<f32>(np), np);
            assert_eq!(blocked_ld::<Complex64>(np), np);
        }
        // f64 n = 190 with 16-wide panels: 196 × 16 panel, 16 × 16 diagonal block, 192 ints,
        // and for the factorization the interchange list (64 ints).
        let solve = 196 * 16 * 8 + 16 * 16 * 8 + 192 * 4;
        assert_eq!(blocked_smem::<f64>(190, 16, Kernel::Solve), solve);
        assert_eq!(blocked_smem::<f64>(190, 16, Kernel::Factor), solve + 64 * 4);
        // c128 keeps its per-column interchanges: no list.
        assert_eq!(
            blocked_smem::<Complex64>(190, 8, Kernel::Factor),
            blocked_smem::<Complex64>(190, 8, Kernel::Solve)
        );
        // Eight such 128-thread blocks (each with the driver's 1 KB) fit an H100's 228 KB of
        // shared memory per multiprocessor.
        assert!(8 * (blocked_smem::<f64>(190, 16, Kernel::Factor) + 1024) <= 228 * 1024);
    }
}
