//! SpMV on the GPU: kernel selection and launches of `kernels/spmv.cu`.

use super::{AdaptiveIndex, SpmvKernel};
use crate::buffer::Buffer;
use crate::cuda::launch::{cfg1, kernel_name, launch_err, scalar_arg};
use crate::cuda::{CudaBackend, SPMV};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::sparse::CsrMatrix;
use crate::view::{VecMut, VecRef};
use cudarc::driver::PushKernelArg;
use std::sync::Arc;

const BLOCK: u32 = 256;
/// Smallest staging capacity (entries) of an adaptive block.
const SPMV_BLOCK_MIN: usize = 256;
static CAP_OVERRIDE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Benchmark exploration only: force the adaptive kernel's staging bytes (0: automatic).
pub(crate) fn set_cap_bytes(bytes: usize) {
    CAP_OVERRIDE.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// Bytes of products a multi-row block of the adaptive kernel stages in shared memory.
/// Short rows (mean under 4 entries) favour more, smaller blocks; longer rows favour more
/// staging per block (measured on H100: `docs/explore-spmv-caps-h100.log`).
fn cap_bytes(stats: &crate::RowStats) -> usize {
    let forced = CAP_OVERRIDE.load(std::sync::atomic::Ordering::Relaxed);
    if forced != 0 {
        forced
    } else if stats.mean < 4.0 {
        4096
    } else {
        8192
    }
}

/// Row blocks for the adaptive kernel: consecutive rows are grouped while their entries fit in
/// `cap` (the shared-memory capacity in elements) and they number at most `cap`; a longer row
/// gets a block of its own.
pub(crate) fn row_blocks(row_ptr: &[i32], cap: i32) -> Vec<i32> {
    let rows = row_ptr.len() - 1;
    let mut blocks = vec![0i32];
    let mut start = 0usize;
    for r in 0..rows {
        if r - start == cap as usize {
            blocks.push(r as i32);
            start = r;
        }
        let block_nnz = row_ptr[r + 1] - row_ptr[start];
        if block_nnz > cap {
            // Close the block before row r (if it has rows), then r's fate is decided next.
            if r > start {
                blocks.push(r as i32);
                start = r;
            }
            if row_ptr[r + 1] - row_ptr[r] > cap {
                blocks.push(r as i32 + 1);
                start = r + 1;
            }
        }
    }
    if start < rows {
        blocks.push(rows as i32);
    }
    blocks
}

/// The adaptive kernel's row blocks for `cap` entries per block with, where every column
/// index fits, the 16-bit offsets of [`delta16`]: cached on the matrix for the first capacity
/// asked for (the automatic one outside benchmark exploration), built afresh (without offsets)
/// for another.
enum Blocks<'a> {
    Cached(&'a AdaptiveIndex),
    Fresh(Buffer<i32>),
}

impl Blocks<'_> {
    fn buf(&self) -> &Buffer<i32> {
        match self {
            Blocks::Cached(a) => &a.blocks,
            Blocks::Fresh(b) => b,
        }
    }

    fn delta16(&self) -> Option<&Buffer<u32>> {
        match self {
            Blocks::Cached(a) => a.delta16.as_ref(),
            Blocks::Fresh(_) => None,
        }
    }
}

/// Column indices as 16-bit offsets from the first row of their row block (`blocks` as
/// [`row_blocks`] makes them), packed two to a 32-bit word (entry `k` in the low half of word
/// `k / 2` when `k` is even, as the kernel reads them); `None` when an offset does not fit
/// `i16`. Saves two of the twelve (f64) bytes an entry costs the adaptive kernel.
pub(crate) fn delta16(row_ptr: &[i32], col: &[i32], blocks: &[i32]) -> Option<Vec<u32>> {
    let mut out = vec![0u32; col.len().div_ceil(2)];
    for w in blocks.windows(2) {
        let r0 = w[0];
        let (k0, k1) = (
            row_ptr[w[0] as usize] as usize,
            row_ptr[w[1] as usize] as usize,
        );
        for (k, &c) in col.iter().enumerate().take(k1).skip(k0) {
            let d = i16::try_from(c - r0).ok()? as u16 as u32;
            out[k / 2] |= d << (16 * (k % 2));
        }
    }
    Some(out)
}

fn adaptive_blocks<T: Scalar>(a: &CsrMatrix<T>, cap: i32) -> Result<Blocks<'_>> {
    if let Some(ai) = a.row_blocks.get() {
        if ai.cap == cap {
            return Ok(Blocks::Cached(ai));
        }
    }
    let rp = a.row_ptr.to_vec()?;
    let host_blocks = row_blocks(&rp, cap);
    let blocks = Buffer::from_vec(a.device(), host_blocks.clone(), "spmv row blocks")?;
    if a.row_blocks.get().is_some() {
        return Ok(Blocks::Fresh(blocks));
    }
    let col = a.col_idx.to_vec()?;
    let delta16 = match delta16(&rp, &col, &host_blocks) {
        Some(d) => Some(Buffer::from_vec(a.device(), d, "spmv column offsets")?),
        None => None,
    };
    let ai = a.row_blocks.get_or_init(|| AdaptiveIndex {
        cap,
        blocks,
        delta16,
    });
    Ok(Blocks::Cached(ai))
}

pub(crate) fn spmv<T: Scalar>(
    b: &Arc<CudaBackend>,
    kernel: SpmvKernel,
    alpha: T,
    a: &CsrMatrix<T>,
    x: VecRef<'_, T>,
    beta: T,
    y: VecMut<'_, T>,
) -> Result<()> {
    let rows = a.rows() as i32;
    if rows == 0 {
        return Ok(());
    }
    let es = std::mem::size_of::<T>();
    let cap_elems = (cap_bytes(&a.row_stats()) / es).max(SPMV_BLOCK_MIN) as i32;
    let (name, grid, blocks, smem) = match kernel {
        SpmvKernel::ThreadPerRow | SpmvKernel::Auto => (
            "spmv_row".to_string(),
            (rows as u32).div_ceil(BLOCK),
            None,
            0,
        ),
        SpmvKernel::VectorPerRow { lanes } => {
            let per_block = BLOCK / lanes;
            (
                format!("spmv_vec{lanes}"),
                (rows as u32).div_ceil(per_block),
                None,
                0,
            )
        }
        SpmvKernel::Adaptive => {
            let bl = adaptive_blocks(a, cap_elems)?;
            let grid = (bl.buf().len() - 1) as u32;
            let smem = cap_elems as u32 * (es as u32 + 4) + 4;
            let name = if bl.delta16().is_some() {
                "spmv_adapt16"
            } else {
                "spmv_adapt"
            };
            (name.to_string(), grid, Some(bl), smem)
        }
    };
    let f = b.function(&SPMV, &kernel_name::<T>(&name))?;
    let p = |buf: &Buffer<i32>| buf.cuda_ptr(0).unwrap_or(0);
    // The column stream: the indices, or their 16-bit offsets for `spmv_adapt16`.
    let ci = match blocks.as_ref().and_then(|bl| bl.delta16()) {
        Some(d) => d.cuda_ptr(0).unwrap_or(0),
        None => p(&a.col_idx),
    };
    let rp = p(&a.row_ptr);
    let va = a.values.cuda_ptr(0).unwrap_or(0);
    let (xp, incx) = (x.buf.cuda_ptr(x.offset).unwrap_or(0), x.inc as i64);
    let (yp, incy) = (y.buf.cuda_ptr(y.offset).unwrap_or(0), y.inc as i64);
    let (al, be) = (scalar_arg(alpha), scalar_arg(beta));
    let blocks_ptr = blocks.as_ref().map(|bl| p(bl.buf()));
    let mut l = b.stream().launch_builder(&f);
    if let Some(bp) = &blocks_ptr {
        l.arg(&cap_elems).arg(bp);
    }
    l.arg(&rows)
        .arg(&rp)
        .arg(&ci)
        .arg(&va)
        .arg(&xp)
        .arg(&incx)
        .arg(&yp)
        .arg(&incy)
        .arg(&al)
        .arg(&be);
    let mut cfg = cfg1(grid.max(1), BLOCK);
    cfg.shared_mem_bytes = smem;
    // SAFETY: parameters ([cap, blocks,] rows, row_ptr, col_idx, values, x, incx, y, incy, alpha, beta)
    // match the kernels (for spmv_adapt16 the column stream holds nnz 16-bit offsets from each
    // block's first row, built from the validated indices, so every column read is in range
    // too); the CSR arrays were validated at construction (indices in range), x and
    // y cover cols and rows elements (checked by the caller); the row blocks partition 0..rows
    // with at most `cap` entries and `cap` rows in any multi-row block, matching the dynamic
    // shared memory (cap·(sizeof T + 4) + 4 bytes, under the 48 KiB default limit).
    unsafe { l.launch(cfg) }.map_err(launch_err("spmv"))?;
    drop(blocks);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{delta16, row_blocks};

    /// Column `k` back from the packed offsets (the kernel's reading).
    fn decode(packed: &[u32], blocks: &[i32], row_ptr: &[i32], k: usize) -> i32 {
        let b = blocks
            .windows(2)
            .find(|w| {
                (row_ptr[w[0] as usize] as usize..row_ptr[w[1] as usize] as usize).contains(&k)
            })
            .expect("entry in a block");
        let half = (packed[k / 2] >> (16 * (k % 2))) as u16 as i16;
        b[0] + half as i32
    }

    #[test]
    fn delta16_round_trips_and_refuses_far_columns() {
        // A banded matrix with offsets −300..=300 around the diagonal, rows of varying length
        // (an odd number of entries in all), blocks of at most 64 entries.
        let n = 2000usize;
        let (mut rp, mut col) = (vec![0i32], Vec::new());
        for r in 0..n as i32 {
            for d in [-300, -7, 0, 5, 300] {
                let c = r + d;
                if (0..n as i32).contains(&c) && (r + d) % 3 != 1 {
                    col.push(c);
                }
            }
            rp.push(col.len() as i32);
        }
        if col.len() % 2 == 0 {
            // One more row of one entry, for an odd count (the last word half used).
            col.push(n as i32 - 1);
            rp.push(col.len() as i32);
        }
        let blocks = row_blocks(&rp, 64);
        let packed = delta16(&rp, &col, &blocks).expect("offsets fit");
        assert_eq!(packed.len(), col.len().div_ceil(2));
        for (k, &c) in col.iter().enumerate() {
            assert_eq!(decode(&packed, &blocks, &rp, k), c, "entry {k}");
        }
        // One entry 40 000 columns right of its block's first row: no offsets.
        let rp2 = vec![0, 2, 3];
        let col2 = vec![0, 40_000, 1];
        assert!(delta16(&rp2, &col2, &row_blocks(&rp2, 64)).is_none());
        // −32768..=32767 fits exactly.
        let rp3 = vec![0, 1, 2];
        let col3 = vec![32_767, 1];
        assert!(delta16(&rp3, &col3, &[0, 2]).is_some());
        assert!(delta16(&rp3, &[32_768, 1], &[0, 2]).is_none());
    }

    #[test]
    fn row_blocks_cap_rows() {
        let rp: Vec<i32> = (0..=3000).map(|r| r / 3).collect(); // 3000 rows, mostly empty
        let b = row_blocks(&rp, 1024);
        assert_eq!(b, vec![0, 1024, 2048, 3000]);
    }

    #[test]
    fn row_blocks_partition_rows_and_cap_entries() {
        // rows of length 500, 500, 30, 5000, 0, 1, 1
        let lens = [500, 500, 30, 5000, 0, 1, 1];
        let mut rp = vec![0i32];
        for l in lens {
            rp.push(rp.last().unwrap() + l);
        }
        let b = row_blocks(&rp, 1024);
        assert_eq!(b, vec![0, 2, 3, 4, 7]);
        for w in b.windows(2) {
            let nnz = rp[w[1] as usize] - rp[w[0] as usize];
            assert!(
                w[1] - w[0] == 1 || (nnz <= 1024 && w[1] - w[0] <= 1024),
                "{w:?} holds {nnz}"
            );
        }
    }
}
