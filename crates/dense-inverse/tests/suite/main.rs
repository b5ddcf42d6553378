//! Integration tests of `dense-inverse` on every device: every method, errors, properties.
//!
//! One test binary (each file a module) so the kernel modules are linked once.

#[macro_use]
mod common;

mod bordering;
mod cholesky;
mod errors;
mod gauss_jordan;
mod inverse;
mod lu;
mod props;
