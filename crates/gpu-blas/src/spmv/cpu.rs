//! SpMV on the host: rows split over rayon threads.

use crate::buffer::Storage;
use crate::scalar::Scalar;
use crate::sparse::CsrMatrix;
use crate::view::{VecMut, VecRef};
use rayon::prelude::*;

pub(crate) fn spmv<T: Scalar>(
    alpha: T,
    a: &CsrMatrix<T>,
    x: VecRef<'_, T>,
    beta: T,
    y: VecMut<'_, T>,
) {
    let rp = a.row_ptr.host().expect("CPU matrix");
    let ci = a.col_idx.host().expect("CPU matrix");
    let va = a.values.host().expect("CPU matrix");
    let xs = x.buf.host().expect("CPU vector");
    let (xo, xi) = (x.offset, x.inc as usize);
    let (yo, yi, n) = (y.offset, y.inc as usize, y.len);
    let ys = match y.buf.storage_mut() {
        Storage::Host(v) => v,
        Storage::Cuda(_) => unreachable!("CPU vector"),
    };
    if n == 0 {
        return;
    }
    let span = &mut ys[yo..yo + (n - 1) * yi + 1];
    let row = |r: usize, out: &mut T| {
        let mut s = T::zero();
        for k in rp[r] as usize..rp[r + 1] as usize {
            s += va[k] * xs[xo + ci[k] as usize * xi];
        }
        *out = if beta == T::zero() {
            alpha * s
        } else {
            alpha * s + beta * *out
        };
    };
    if a.nnz() < 1 << 16 {
        span.iter_mut()
            .step_by(yi)
            .enumerate()
            .for_each(|(r, v)| row(r, v));
    } else {
        span.par_chunks_mut(yi)
            .with_min_len(256)
            .enumerate()
            .for_each(|(r, c)| row(r, &mut c[0]));
    }
}
