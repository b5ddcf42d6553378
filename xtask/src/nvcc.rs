//! The pinned CUDA compiler: nvcc 13.0.88 and friends, installed from PyPI
//! wheels into the tool cache on first use, so every machine (including a CI
//! box without CUDA) produces the same PTX and fatbins.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::fsutil::{describe, run_captured};
use crate::paths;

/// The pinned CUDA toolkit version of all wheels below.
pub const VERSION: &str = "13.0.88";

/// The PyPI wheels that together make a working `nvcc -ptx/-cubin/-fatbin`.
const PACKAGES: [&str; 4] = [
    "nvidia-cuda-nvcc",
    "nvidia-nvvm",
    "nvidia-cuda-crt",
    "nvidia-cuda-runtime",
];

/// Written into the install dir after a successful, verified install.
const MARKER: &str = ".xtask-install-complete";

/// An installed pinned toolkit.
pub struct Toolchain {
    /// Canonical `<cache>/nvcc-<VERSION>/nvidia/cu13`, the toolkit's root.
    root: PathBuf,
}

impl Toolchain {
    /// Returns the cached toolkit, installing it with pip first if needed.
    pub fn ensure() -> Result<Self> {
        let cache = paths::cache_dir()?;
        let install_dir = cache.join(format!("nvcc-{VERSION}"));
        if !install_dir.join(MARKER).is_file() {
            install(&cache, &install_dir)?;
        }
        let root = fs::canonicalize(toolkit_root(&install_dir))
            .with_context(|| format!("locating the toolkit in {}", install_dir.display()))?;
        check_host_compiler()?;
        Ok(Self { root })
    }

    /// The toolkit root (canonical); its `include/` holds the CUDA headers.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A command for tool `name` from the toolkit's `bin/` (nvcc, ptxas,
    /// fatbinary).
    pub fn tool(&self, name: &str) -> Command {
        Command::new(self.root.join("bin").join(name))
    }
}

/// The toolkit root inside an install dir made by pip.
fn toolkit_root(install_dir: &Path) -> PathBuf {
    install_dir.join("nvidia").join("cu13")
}

/// Installs the pinned wheels into `install_dir` via a staging directory that
/// is renamed into place once nvcc has been verified to run.
fn install(cache: &Path, install_dir: &Path) -> Result<()> {
    fs::create_dir_all(cache).with_context(|| format!("creating {}", cache.display()))?;
    let staging = cache.join(format!("nvcc-{VERSION}.partial-{}", std::process::id()));
    if staging.exists() {
        fs::remove_dir_all(&staging)?;
    }
    eprintln!(
        "xtask: installing pinned nvcc {VERSION} from PyPI into {}",
        install_dir.display()
    );
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let mut probe = Command::new(&python);
    probe.args(["-m", "pip", "--version"]);
    run_captured(&mut probe).context(
        "pip is needed to install the pinned nvcc (Debian/Ubuntu: apt-get install python3-pip)",
    )?;

    let mut pip = Command::new(&python);
    pip.args(["-m", "pip", "install", "--no-deps", "--only-binary=:all:"])
        .args(["--disable-pip-version-check", "--no-input", "--quiet"])
        .arg("--target")
        .arg(&staging)
        .args(PACKAGES.iter().map(|p| format!("{p}=={VERSION}")))
        .env("PIP_ROOT_USER_ACTION", "ignore");
    let status = pip
        .status()
        .with_context(|| format!("cannot run {}", describe(&pip)))?;
    if !status.success() {
        let _ = fs::remove_dir_all(&staging);
        bail!("{} failed ({status})", describe(&pip));
    }

    let mut version = Command::new(toolkit_root(&staging).join("bin").join("nvcc"));
    version.arg("--version");
    let output = run_captured(&mut version)?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !text.contains(&format!("V{VERSION}")) {
        bail!("installed nvcc is not version {VERSION}:\n{text}");
    }
    fs::write(staging.join(MARKER), PACKAGES.join("\n") + "\n")?;

    if install_dir.join(MARKER).is_file() {
        // Another process finished the same install first; use theirs.
        fs::remove_dir_all(&staging)?;
        return Ok(());
    }
    if install_dir.exists() {
        // An interrupted install from an older version of this code.
        fs::remove_dir_all(install_dir)
            .with_context(|| format!("removing incomplete {}", install_dir.display()))?;
    }
    if let Err(err) = fs::rename(&staging, install_dir) {
        let _ = fs::remove_dir_all(&staging);
        if !install_dir.join(MARKER).is_file() {
            return Err(err).with_context(|| format!("moving nvcc into {}", install_dir.display()));
        }
    }
    Ok(())
}

/// nvcc preprocesses `.cu` files as C++ with the host compiler (`gcc -x c++
/// -E`, which needs `cc1plus`); fail early and clearly when that is missing.
fn check_host_compiler() -> Result<()> {
    let mut gcc = Command::new("gcc");
    gcc.args(["-x", "c++", "-E", "/dev/null"]);
    run_captured(&mut gcc)
        .map(drop)
        .context("nvcc needs a host C++ compiler `gcc` on PATH (Debian: apt-get install g++)")
}
