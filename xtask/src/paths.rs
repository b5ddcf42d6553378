//! Well-known locations: the workspace root, the kernels directory and the
//! tool cache.

use std::env;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

/// The workspace root (the parent of this crate's directory).
///
/// `cargo run` sets `CARGO_MANIFEST_DIR` at run time; prefer it over the
/// compile-time value, which goes stale when a copy of the workspace shares a
/// `CARGO_TARGET_DIR` with the original (cargo then reuses the old binary).
pub fn workspace_root() -> PathBuf {
    let manifest_dir = non_empty_var("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest_dir
        .parent()
        .map_or_else(|| manifest_dir.clone(), Path::to_path_buf)
}

/// The directory holding `*.cu` kernels: `$GPU_LINALG_KERNELS_DIR` if set
/// (useful for testing), else `<workspace>/kernels`.
pub fn kernels_dir() -> PathBuf {
    non_empty_var("GPU_LINALG_KERNELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("kernels"))
}

/// The directory shared matrices are bundled from: `$GPU_LINALG_MATRICES` if
/// set, else `../shared/matrices` next to the workspace root.
pub fn matrices_source_dir() -> PathBuf {
    non_empty_var("GPU_LINALG_MATRICES")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/matrices"))
}

/// The per-user tool cache: `$GPU_LINALG_CACHE`, else
/// `$XDG_CACHE_HOME/gpu-linalg`, else `$HOME/.cache/gpu-linalg`.
pub fn cache_dir() -> Result<PathBuf> {
    if let Some(dir) = non_empty_var("GPU_LINALG_CACHE") {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = non_empty_var("XDG_CACHE_HOME") {
        return Ok(PathBuf::from(dir).join("gpu-linalg"));
    }
    if let Some(home) = non_empty_var("HOME") {
        return Ok(PathBuf::from(home).join(".cache").join("gpu-linalg"));
    }
    bail!("cannot locate a cache directory: set GPU_LINALG_CACHE, XDG_CACHE_HOME or HOME")
}

/// The value of environment variable `name`, unless it is unset or empty.
fn non_empty_var(name: &str) -> Option<String> {
    env::var(name).ok().filter(|value| !value.is_empty())
}
