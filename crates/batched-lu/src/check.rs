//! Argument validation shared by the drivers: every check runs before any output is written.

use gpu_blas::{Device, Error, Result};

pub(crate) fn dims(op: &'static str, detail: String) -> Error {
    Error::DimensionMismatch { op, detail }
}

/// Every device in `others` equals `first`.
pub(crate) fn same_device(op: &'static str, first: &Device, others: &[&Device]) -> Result<()> {
    match others.iter().find(|d| **d != first) {
        None => Ok(()),
        Some(d) => Err(Error::DeviceMismatch {
            op,
            left: first.to_string(),
            right: d.to_string(),
        }),
    }
}

/// `n` fits the `i32` pivot indices.
pub(crate) fn pivot_range(op: &'static str, n: usize) -> Result<()> {
    if i32::try_from(n).is_err() {
        return Err(Error::SizeTooLarge {
            op,
            detail: format!("n = {n} exceeds the i32 pivot index range"),
        });
    }
    Ok(())
}

/// `len` is at least `need`.
pub(crate) fn at_least(op: &'static str, what: &str, len: usize, need: usize) -> Result<()> {
    if len < need {
        return Err(dims(
            op,
            format!("{what} has length {len}, the layout needs at least {need}"),
        ));
    }
    Ok(())
}

/// `len` is exactly `need`.
pub(crate) fn exactly(op: &'static str, what: &str, len: usize, need: usize) -> Result<()> {
    if len != need {
        return Err(dims(
            op,
            format!("{what} has length {len}, the layout needs exactly {need}"),
        ));
    }
    Ok(())
}

/// `(batch − 1)·stride + size` without overflow (0 for an empty batch).
pub(crate) fn extent(op: &'static str, batch: usize, stride: usize, size: usize) -> Result<usize> {
    if batch == 0 {
        return Ok(0);
    }
    (batch - 1)
        .checked_mul(stride)
        .and_then(|v| v.checked_add(size))
        .ok_or_else(|| Error::SizeTooLarge {
            op,
            detail: format!("{batch} matrices {stride} elements apart overflow usize"),
        })
}

/// Every pivot of one matrix lies in `1..=n`; `base` is the flat index of `piv[0]`.
pub(crate) fn pivots_valid(op: &'static str, n: usize, piv: &[i32], base: usize) -> Result<()> {
    match piv.iter().position(|&p| p < 1 || p as usize > n) {
        None => Ok(()),
        Some(i) => Err(Error::OutOfBounds {
            op,
            detail: format!(
                "pivots[{}] = {} is not a row index in 1..={n}",
                base + i,
                piv[i]
            ),
        }),
    }
}
