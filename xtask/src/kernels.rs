//! Compiles one `kernels/NAME.cu` into its generated files, reproducibly.
//!
//! The fatbin is assembled from the same steps `nvcc -fatbin` runs (cicc to
//! PTX per virtual arch, ptxas to SASS, fatbinary), with the same options, so
//! it is byte-identical to `nvcc -fatbin -gencode ...` output, except that the
//! PTX is made independent of where the repository and the toolkit live in
//! between ([`crate::ptx_normalize`]: cicc hashes the source's absolute path
//! into the names of internal-linkage functions, and `-lineinfo` adds absolute
//! `.file` paths). Each PTX is compiled once and reused for the `.ptx` file,
//! the fatbin and the resource report.
//!
//! `-lineinfo` is off by default: even with the paths normalized, its `.loc`
//! records point into the host's libstdc++ headers (e.g. `std::isnan` from
//! `<cmath>`), whose line numbers change with the gcc version, and it makes
//! fatbins about 2.5 times larger. It is available for local debugging
//! (`cargo xtask ptx --lineinfo`, e.g. before `gpu-bundle` + `run sanitize`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::fsutil::run_captured;
use crate::nvcc::Toolchain;
use crate::ptx_normalize::{normalize_module_ids, rewrite_file_directives};
use crate::ptxas_report::{self, FunctionResources};

/// Flags for every nvcc invocation (run inside the kernels directory, so
/// `-I .` is `-I kernels` from the workspace root).
const NVCC_FLAGS: [&str; 4] = ["-O3", "-std=c++17", "-I", "."];

/// SASS targets in the fatbin; the PTX of [`PTX_ARCH`] is embedded too.
const SASS_ARCHS: [u32; 2] = [80, 90];

/// The architecture of the standalone `.ptx` file, of the PTX in the fatbin
/// and of the resource report.
const PTX_ARCH: u32 = 90;

/// The generated contents for one kernel source file.
pub struct Compiled {
    /// `NAME.ptx`: compute_90 PTX text.
    pub ptx: Vec<u8>,
    /// `NAME.fatbin`: sm_80 and sm_90 SASS plus compute_90 PTX.
    pub fatbin: Vec<u8>,
    /// ptxas resource usage for sm_90, if requested.
    pub resources: Vec<FunctionResources>,
}

/// What one architecture's pipeline produced.
struct ArchOutput {
    /// The path-independent PTX text.
    ptx: Vec<u8>,
    /// Where that PTX was written.
    ptx_path: PathBuf,
    /// The SASS cubin compiled from it.
    cubin_path: PathBuf,
    /// `ptxas -v`'s output for that PTX, if requested.
    report: Option<String>,
}

/// Compiles kernels from one directory with one toolchain.
pub struct Compiler<'a> {
    /// The pinned toolkit.
    toolchain: &'a Toolchain,
    /// Canonical kernels directory (the working directory for nvcc).
    kernels_dir: PathBuf,
    /// Absolute path prefixes and the relative names they are rewritten to,
    /// longest prefix first.
    prefixes: Vec<(PathBuf, &'static str)>,
    /// Whether to pass `-lineinfo` (source line tables for profilers and
    /// compute-sanitizer).
    lineinfo: bool,
}

impl<'a> Compiler<'a> {
    /// A compiler for the `.cu` files in `kernels_dir`.
    pub fn new(toolchain: &'a Toolchain, kernels_dir: &Path, lineinfo: bool) -> Result<Self> {
        let kernels_dir = fs::canonicalize(kernels_dir)
            .with_context(|| format!("resolving {}", kernels_dir.display()))?;
        let mut prefixes = vec![
            (kernels_dir.clone(), "kernels"),
            (toolchain.root().to_path_buf(), "cuda"),
        ];
        // Includes reaching outside kernels/ (`../x.cuh`): relative to the
        // workspace root.
        if let Some(parent) = kernels_dir.parent().filter(|p| p.parent().is_some()) {
            prefixes.push((parent.to_path_buf(), ""));
        }
        prefixes.sort_by_key(|(prefix, _)| std::cmp::Reverse(prefix.components().count()));
        Ok(Self {
            toolchain,
            kernels_dir,
            prefixes,
            lineinfo,
        })
    }

    /// Compiles `<kernels>/<stem>.cu`, using `scratch` (an empty directory)
    /// for intermediate files; also runs `ptxas -v` if `report` is set.
    pub fn compile(&self, stem: &str, scratch: &Path, report: bool) -> Result<Compiled> {
        let source = format!("{stem}.cu");
        // The per-arch pipelines are independent: run them concurrently.
        let per_arch: Vec<Result<ArchOutput>> = std::thread::scope(|scope| {
            let handles: Vec<_> = SASS_ARCHS
                .map(|arch| {
                    let report = report && arch == PTX_ARCH;
                    scope.spawn(move || self.compile_arch(stem, arch, scratch, report))
                })
                .into_iter()
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("compile thread panicked"))
                .collect()
        });
        let mut images = Vec::new();
        let mut final_ptx = None;
        let mut report_text = None;
        for (arch, output) in SASS_ARCHS.into_iter().zip(per_arch) {
            let output = output?;
            // Same image order as `nvcc -fatbin`: the PTX before its SASS.
            if arch == PTX_ARCH {
                images.push(format!(
                    "--image3=kind=ptx,sm={arch},file={}",
                    output.ptx_path.display()
                ));
                final_ptx = Some(output.ptx);
                report_text = output.report;
            }
            images.push(format!(
                "--image3=kind=elf,sm={arch},file={}",
                output.cubin_path.display()
            ));
        }
        let ptx = final_ptx.context("PTX_ARCH is one of SASS_ARCHS")?;

        let fatbin_path = scratch.join(format!("{stem}.fatbin"));
        let mut fatbinary = self.toolchain.tool("fatbinary");
        fatbinary
            .arg(format!("--create={}", fatbin_path.display()))
            .arg("-64")
            // Machine code compressed too: the driver decompresses on load.
            .arg("--compress-all");
        if self.lineinfo {
            fatbinary
                .arg(format!("--ident={source}"))
                .arg("--cmdline= --generate-line-info ")
                .arg("--cicc-cmdline=-generate-line-info -ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1 ");
        } else {
            fatbinary.arg("--cicc-cmdline=-ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1 ");
        }
        fatbinary.args(&images);
        run_captured(&mut fatbinary)?;
        let fatbin =
            fs::read(&fatbin_path).with_context(|| format!("reading {}", fatbin_path.display()))?;

        let resources = report_text
            .map(|text| ptxas_report::parse(&text))
            .unwrap_or_default();

        Ok(Compiled {
            ptx,
            fatbin,
            resources,
        })
    }

    /// nvcc to PTX for `compute_<arch>`, made path-independent, then ptxas to
    /// `sm_<arch>` SASS; files go to `scratch`. With `report`, `ptxas -v` runs
    /// on the same PTX beside that ptxas (each is a long single-threaded pass
    /// for the larger modules).
    fn compile_arch(
        &self,
        stem: &str,
        arch: u32,
        scratch: &Path,
        report: bool,
    ) -> Result<ArchOutput> {
        let raw = scratch.join(format!("{stem}.compute_{arch}.raw.ptx"));
        let mut nvcc = self.toolchain.tool("nvcc");
        nvcc.current_dir(&self.kernels_dir)
            .arg("-ptx")
            .arg(format!("-arch=compute_{arch}"))
            .args(NVCC_FLAGS)
            .args(self.lineinfo.then_some("-lineinfo"))
            .arg(format!("{stem}.cu"))
            .arg("-o")
            .arg(&raw);
        run_captured(&mut nvcc)?;
        let text =
            fs::read_to_string(&raw).with_context(|| format!("reading {}", raw.display()))?;
        let text = self.path_independent(&text, stem)?;
        let ptx_path = scratch.join(format!("{stem}.compute_{arch}.ptx"));
        fs::write(&ptx_path, &text)?;

        let cubin_path = scratch.join(format!("{stem}.sm_{arch}.cubin"));
        let mut ptxas = self.ptxas(arch, &ptx_path);
        ptxas.arg("-o").arg(&cubin_path);
        let report = std::thread::scope(|scope| -> Result<Option<String>> {
            let verbose = report.then(|| {
                // -v changes the cubin (it records the option), so use a throwaway one.
                let mut ptxas = self.ptxas(arch, &ptx_path);
                ptxas
                    .arg("-v")
                    .arg("-o")
                    .arg(scratch.join(format!("{stem}.report.cubin")));
                scope.spawn(move || run_captured(&mut ptxas))
            });
            run_captured(&mut ptxas)?;
            let Some(verbose) = verbose else {
                return Ok(None);
            };
            let output = verbose.join().expect("ptxas -v thread panicked")?;
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            Ok(Some(text))
        })?;
        Ok(ArchOutput {
            ptx: text.into_bytes(),
            ptx_path,
            cubin_path,
            report,
        })
    }

    /// `ptxas` for SASS `sm_<arch>` from `ptx`, as nvcc runs it.
    fn ptxas(&self, arch: u32, ptx: &Path) -> Command {
        let mut ptxas = self.toolchain.tool("ptxas");
        ptxas.arg(format!("-arch=sm_{arch}")).arg("-m64");
        if self.lineinfo {
            ptxas.arg("--generate-line-info");
        }
        ptxas.arg(ptx);
        ptxas
    }

    /// Makes nvcc's PTX for `<stem>.cu` independent of where the kernels and
    /// the toolkit live (see [`crate::ptx_normalize`]) and checks that no
    /// machine-specific path is left in `.file` directives.
    fn path_independent(&self, ptx: &str, stem: &str) -> Result<String> {
        let text = rewrite_file_directives(ptx, &self.prefixes);
        let text = normalize_module_ids(&text, &format!("kernels/{stem}.cu"));
        let file_lines = || text.lines().filter(|l| l.trim_start().starts_with(".file"));
        for (prefix, _) in &self.prefixes {
            let prefix = prefix.to_string_lossy();
            if let Some(line) = file_lines().find(|line| line.contains(prefix.as_ref())) {
                bail!("absolute path left in PTX after rewriting: {line}");
            }
        }
        Ok(text)
    }
}
