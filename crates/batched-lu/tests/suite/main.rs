//! Integration tests of `batched-lu` on every device: uniform and variable-size batches, errors, properties.
//!
//! One test binary (each file a module) so the kernel modules are linked once.

#[macro_use]
mod common;

mod batched;
mod configs;
mod errors;
mod props;
mod vbatched;
