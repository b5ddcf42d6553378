//! The CPU backend: plain Rust on compact column-major host copies (leading dimension `n`),
//! level 3 through ndarray's matrix product, multithreaded with rayon where the work is large.
//!
//! Every routine here works on a host slice the caller owns; none of them can fail on valid
//! input except by reporting the mathematical failure (a zero pivot, a non-positive minor) it
//! was written to detect.

pub(crate) mod blocks;
pub(crate) mod bordering;
pub(crate) mod cholesky;
pub(crate) mod condition;
pub(crate) mod gauss_jordan;
pub(crate) mod lu;
