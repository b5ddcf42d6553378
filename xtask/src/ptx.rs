//! `cargo xtask ptx [--check | --lineinfo]`: (re)generates or verifies `kernels/NAME.ptx`
//! and `kernels/NAME.fatbin` for every `kernels/NAME.cu`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{Context, Result};

use crate::fsutil::{write_if_changed, TempDir};
use crate::kernels::{Compiled, Compiler};
use crate::nvcc::{self, Toolchain};
use crate::paths;
use crate::ptxas_report;

/// Extensions of the generated files, one of each per `.cu`.
const GENERATED: [&str; 2] = ["ptx", "fatbin"];

/// What `cargo xtask ptx` should do.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write changed generated files (the default).
    Generate,
    /// Like [`Mode::Generate`], but with `-lineinfo` (for local debugging;
    /// not for committing).
    GenerateWithLineinfo,
    /// Compare freshly compiled output with the committed files.
    Check,
}

/// Runs the command in `mode`.
pub fn run(mode: Mode) -> Result<ExitCode> {
    let check = mode == Mode::Check;
    let lineinfo = mode == Mode::GenerateWithLineinfo;
    let dir = paths::kernels_dir();
    let sources = list(&dir, "cu")?;
    let orphans = orphans(&dir, &sources)?;
    if sources.is_empty() && orphans.is_empty() {
        println!("no kernels/*.cu in {}: nothing to do", dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    let compiled = if sources.is_empty() {
        Vec::new()
    } else {
        let toolchain = Toolchain::ensure()?;
        let compiler = Compiler::new(&toolchain, &dir, lineinfo)?;
        compile_all(&compiler, &sources, !check)?
    };
    if check {
        check_outputs(&dir, &sources, &compiled, &orphans)
    } else {
        write_outputs(&dir, &sources, &compiled, &orphans)?;
        if !sources.is_empty() {
            print_report(&sources, &compiled);
        }
        if lineinfo {
            eprintln!(
                "xtask: note: built with -lineinfo for debugging; run `cargo xtask ptx` before committing"
            );
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// Stems of the files `dir/*.<ext>`, sorted; empty if `dir` does not exist.
fn list(dir: &Path, ext: &str) -> Result<Vec<String>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err).with_context(|| format!("listing {}", dir.display())),
    };
    let mut stems = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == ext) {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                stems.push(stem.to_owned());
            }
        }
    }
    stems.sort();
    Ok(stems)
}

/// Generated files in `dir` whose `.cu` does not exist.
fn orphans(dir: &Path, sources: &[String]) -> Result<Vec<PathBuf>> {
    let mut orphans = Vec::new();
    for ext in GENERATED {
        for stem in list(dir, ext)? {
            if !sources.contains(&stem) {
                orphans.push(dir.join(format!("{stem}.{ext}")));
            }
        }
    }
    orphans.sort();
    Ok(orphans)
}

/// Compiles all sources, in parallel, each in its own scratch directory.
fn compile_all(compiler: &Compiler<'_>, sources: &[String], report: bool) -> Result<Vec<Compiled>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(sources.len());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Compiled>>>> =
        Mutex::new(sources.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(stem) = sources.get(i) else { break };
                let result = TempDir::new("ptx")
                    .and_then(|scratch| compiler.compile(stem, scratch.path(), report))
                    .with_context(|| format!("compiling {stem}.cu with nvcc {}", nvcc::VERSION));
                results.lock().expect("no panics while locked")[i] = Some(result);
            });
        }
    });
    results
        .into_inner()
        .expect("no panics while locked")
        .into_iter()
        .map(|r| r.expect("every source compiled"))
        .collect()
}

/// Writes changed generated files and removes orphans.
fn write_outputs(
    dir: &Path,
    sources: &[String],
    compiled: &[Compiled],
    orphans: &[PathBuf],
) -> Result<()> {
    for (stem, out) in sources.iter().zip(compiled) {
        for (ext, bytes) in [("ptx", &out.ptx), ("fatbin", &out.fatbin)] {
            let path = dir.join(format!("{stem}.{ext}"));
            let status = if write_if_changed(&path, bytes)? {
                "written"
            } else {
                "unchanged"
            };
            println!("{status:>9}  {}  ({} bytes)", path.display(), bytes.len());
        }
    }
    for orphan in orphans {
        fs::remove_file(orphan).with_context(|| format!("removing {}", orphan.display()))?;
        println!("  removed  {}  (no matching .cu)", orphan.display());
    }
    Ok(())
}

/// Compares generated files with the committed ones; fails if any differ.
fn check_outputs(
    dir: &Path,
    sources: &[String],
    compiled: &[Compiled],
    orphans: &[PathBuf],
) -> Result<ExitCode> {
    let mut problems = 0;
    for (stem, out) in sources.iter().zip(compiled) {
        for (ext, bytes) in [("ptx", &out.ptx), ("fatbin", &out.fatbin)] {
            let path = dir.join(format!("{stem}.{ext}"));
            let status = match fs::read(&path) {
                Ok(committed) if committed == *bytes => "ok",
                Ok(_) => "STALE",
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => "MISSING",
                Err(err) => return Err(err).with_context(|| format!("reading {}", path.display())),
            };
            if status != "ok" {
                problems += 1;
            }
            println!("{status:>7}  {}", path.display());
        }
    }
    for orphan in orphans {
        problems += 1;
        println!(" ORPHAN  {}  (no matching .cu)", orphan.display());
    }
    if problems == 0 {
        println!("all generated kernel files are up to date");
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "xtask: {problems} generated kernel file(s) out of date: run `cargo xtask ptx` and commit the result"
        );
        Ok(ExitCode::FAILURE)
    }
}

/// Prints the ptxas sm_90 resource table for all kernels.
fn print_report(sources: &[String], compiled: &[Compiled]) {
    let rows: Vec<_> = sources
        .iter()
        .zip(compiled)
        .flat_map(|(stem, out)| {
            out.resources
                .iter()
                .map(move |f| (format!("{stem}.cu"), f.clone()))
        })
        .collect();
    println!("\nptxas resource usage, sm_90 (per thread: registers; per block: static smem):");
    if rows.is_empty() {
        println!("(no functions)");
    } else {
        print!("{}", ptxas_report::render(&rows));
    }
}
