//! `cargo xtask gpu-bundle`: stripped release test and bench binaries, the
//! shared matrices and a `run` script, in `target/gpu-bundle/`, for a GPU
//! machine that has the NVIDIA driver but no Rust.

use std::collections::HashSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::cargo::{self, Metadata, BENCH_PACKAGE, CLI_PACKAGE};
use crate::paths;

/// The bundle's entry point (see the script for its commands).
const RUN_SCRIPT: &str = include_str!("run.sh");

/// The largest bundle we accept, in bytes.
const MAX_BUNDLE_BYTES: u64 = 64 * 1024 * 1024;

/// Builds the bundle.
pub fn run() -> Result<()> {
    let root = paths::workspace_root();
    let metadata = Metadata::load(&root)?;
    let bundle = metadata.target_directory.join("gpu-bundle");
    if bundle.exists() {
        fs::remove_dir_all(&bundle)
            .with_context(|| format!("removing old {}", bundle.display()))?;
    }
    let tests_dir = bundle.join("tests");
    let bin_dir = bundle.join("bin");
    fs::create_dir_all(&tests_dir)?;
    fs::create_dir_all(&bin_dir)?;

    let mut test = stripped_cargo(&root);
    test.args([
        "test",
        "--workspace",
        "--exclude",
        "xtask",
        "--release",
        "--no-run",
    ]);
    let mut taken = HashSet::new();
    let mut tests = 0;
    for exe in cargo::build_executables(test, &metadata)? {
        if !exe.test {
            continue;
        }
        let mut name = sanitize(&format!("{}-{}", exe.target, exe.package));
        if !taken.insert(name.clone()) {
            // e.g. a lib and a bin target of the same name in one package.
            let kind = exe.kinds.first().map_or("target", String::as_str);
            name = sanitize(&format!("{}-{}-{kind}", exe.target, exe.package));
            if !taken.insert(name.clone()) {
                bail!("two test binaries would both be named {name}");
            }
        }
        copy_executable(&exe.path, &tests_dir.join(&name))?;
        tests += 1;
    }

    let mut benches = 0;
    if metadata.has_package(BENCH_PACKAGE) {
        let mut build = stripped_cargo(&root);
        build.args(["build", "--release", "-p", BENCH_PACKAGE, "--bins"]);
        // The command-line front end travels too: its integration tests run it.
        if metadata.has_package(CLI_PACKAGE) {
            build.args(["-p", CLI_PACKAGE]);
        }
        for exe in cargo::build_executables(build, &metadata)? {
            if exe.test || !exe.kinds.iter().any(|k| k == "bin") {
                continue;
            }
            let name = exe
                .path
                .file_name()
                .and_then(|n| n.to_str())
                .map(sanitize)
                .context("executable without a file name")?;
            copy_executable(&exe.path, &bin_dir.join(name))?;
            benches += 1;
        }
    } else {
        eprintln!("xtask: warning: no package `{BENCH_PACKAGE}` in the workspace; bundling no benchmark binary");
    }

    let matrices = copy_matrices(&bundle.join("matrices"))?;
    pack_executables(&bundle)?;

    let script = bundle.join("run");
    fs::write(&script, RUN_SCRIPT)?;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755))?;

    let (files, bytes) = tree_size(&bundle)?;
    println!(
        "gpu bundle: {} ({tests} test binaries, {benches} bench binaries, {matrices} matrices; {files} files, {:.1} MiB)",
        bundle.display(),
        bytes as f64 / (1024.0 * 1024.0)
    );
    println!(
        "  on the GPU machine: ./run test | ./run sanitize | ./run bench   (OUT=dir to keep logs)"
    );
    if bytes > MAX_BUNDLE_BYTES {
        bail!(
            "the bundle is {bytes} bytes, over the {} MiB limit",
            MAX_BUNDLE_BYTES / (1024 * 1024)
        );
    }
    Ok(())
}

/// Replaces `tests/` and `bin/` by one `payload.tar.xz` (the `run` script unpacks it into a
/// scratch directory). Every executable that links a solver crate embeds the same kernel
/// fatbins (the batched-LU one alone is 9 MB, already compressed), so the archive is one xz
/// stream with a dictionary larger than the executables together, which stores each fatbin
/// once: the bundle of 14 test and 2 bench executables is 20 MiB this way, against 65 MiB as a
/// gzip archive (whose 32 KB window sees no repeat).
fn pack_executables(bundle: &Path) -> Result<()> {
    let status = std::process::Command::new("tar")
        .current_dir(bundle)
        .env("XZ_OPT", "-T1 --lzma2=preset=9,dict=192MiB")
        .args(["-cJf", "payload.tar.xz", "tests", "bin"])
        .status()
        .context("running tar (with xz)")?;
    if !status.success() {
        bail!("tar failed packing the bundle's executables ({status})");
    }
    fs::remove_dir_all(bundle.join("tests"))?;
    fs::remove_dir_all(bundle.join("bin"))?;
    Ok(())
}

/// A cargo command in `root` whose release (and bench) profiles strip
/// symbols, keeping the bundle small.
fn stripped_cargo(root: &Path) -> std::process::Command {
    let mut cmd = cargo::command();
    cmd.current_dir(root)
        .env("CARGO_PROFILE_RELEASE_STRIP", "symbols")
        .env("CARGO_PROFILE_BENCH_STRIP", "symbols");
    cmd
}

/// Replaces every character outside `[A-Za-z0-9._-]` with `_`.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Copies an executable and makes it `rwxr-xr-x`.
fn copy_executable(from: &Path, to: &Path) -> Result<()> {
    fs::copy(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    fs::set_permissions(to, fs::Permissions::from_mode(0o755))?;
    Ok(())
}

/// Copies the shared `*.mtx` files, if their directory exists, into `dest`;
/// returns how many.
fn copy_matrices(dest: &Path) -> Result<usize> {
    let source = paths::matrices_source_dir();
    if !source.is_dir() {
        eprintln!(
            "xtask: warning: {} not found; bundling no matrices",
            source.display()
        );
        return Ok(0);
    }
    fs::create_dir_all(dest)?;
    let mut count = 0;
    for entry in fs::read_dir(&source).with_context(|| format!("listing {}", source.display()))? {
        let path = entry?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == "mtx") {
            let name = path.file_name().context("matrix without a file name")?;
            let to = dest.join(name);
            fs::copy(&path, &to)
                .with_context(|| format!("copying {} to {}", path.display(), to.display()))?;
            fs::set_permissions(&to, fs::Permissions::from_mode(0o644))?;
            count += 1;
        }
    }
    Ok(count)
}

/// Number of files and their total size under `dir`.
fn tree_size(dir: &Path) -> Result<(u64, u64)> {
    let (mut files, mut bytes) = (0, 0);
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        if meta.is_dir() {
            let (f, b) = tree_size(&entry.path())?;
            files += f;
            bytes += b;
        } else {
            files += 1;
            bytes += meta.len();
        }
    }
    Ok((files, bytes))
}

#[cfg(test)]
mod tests {
    use super::sanitize;

    #[test]
    fn sanitized_names() {
        assert_eq!(sanitize("cuda_blas1-gpu-blas"), "cuda_blas1-gpu-blas");
        assert_eq!(sanitize("a b/c+d.e"), "a_b_c_d.e");
    }
}
