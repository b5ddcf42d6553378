//! Running cargo: `cargo metadata`, and builds whose JSON messages tell us
//! which executables were produced.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::fsutil::{describe, run_captured};

/// The benchmark package.
pub const BENCH_PACKAGE: &str = "gpu-linalg-benches";
/// The package of the `gpulinalg` command-line binary, bundled for its integration tests.
pub const CLI_PACKAGE: &str = "linalg-cli";

/// The benchmark binary in [`BENCH_PACKAGE`].
pub const BENCH_BIN: &str = "gpu-bench";

/// A `cargo` command (the same cargo that runs us, if known).
pub fn command() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The parts of `cargo metadata --no-deps` we use.
pub struct Metadata {
    /// The build output directory (honours `CARGO_TARGET_DIR`).
    pub target_directory: PathBuf,
    /// Package id to package name, for workspace members.
    pub package_names: HashMap<String, String>,
}

impl Metadata {
    /// Loads the metadata of the workspace at `root`.
    pub fn load(root: &Path) -> Result<Self> {
        let mut cmd = command();
        cmd.current_dir(root)
            .args(["metadata", "--no-deps", "--format-version", "1"]);
        let output = run_captured(&mut cmd)?;
        let json: Value =
            serde_json::from_slice(&output.stdout).context("parsing `cargo metadata` output")?;
        let target_directory = json["target_directory"]
            .as_str()
            .map(PathBuf::from)
            .context("`cargo metadata` has no target_directory")?;
        let package_names = json["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| Some((p["id"].as_str()?.to_owned(), p["name"].as_str()?.to_owned())))
            .collect();
        Ok(Self {
            target_directory,
            package_names,
        })
    }

    /// Whether the workspace has a package called `name`.
    pub fn has_package(&self, name: &str) -> bool {
        self.package_names.values().any(|n| n == name)
    }
}

/// An executable produced by a build (a `compiler-artifact` message).
pub struct Executable {
    /// Name of the package it belongs to.
    pub package: String,
    /// Name of the target (crate) it was built from.
    pub target: String,
    /// The target's kinds, e.g. `lib`, `bin`, `test`.
    pub kinds: Vec<String>,
    /// Whether it is a libtest harness (`profile.test`).
    pub test: bool,
    /// Where cargo put it.
    pub path: PathBuf,
}

/// Runs `cmd` (a cargo build command without `--message-format`), showing
/// cargo's progress and diagnostics, and returns the executables built.
pub fn build_executables(mut cmd: Command, metadata: &Metadata) -> Result<Vec<Executable>> {
    cmd.arg("--message-format=json-render-diagnostics")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    eprintln!("xtask: running {}", describe(&cmd));
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot run {}", describe(&cmd)))?;
    let stdout = child.stdout.take().context("child stdout")?;
    let mut executables = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if message["reason"] != "compiler-artifact" {
            continue;
        }
        let Some(path) = message["executable"].as_str() else {
            continue;
        };
        let id = message["package_id"].as_str().unwrap_or_default();
        let package = metadata
            .package_names
            .get(id)
            .cloned()
            .unwrap_or_else(|| package_name_from_id(id));
        executables.push(Executable {
            package,
            target: message["target"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            kinds: message["target"]["kind"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str().map(str::to_owned))
                .collect(),
            test: message["profile"]["test"].as_bool().unwrap_or(false),
            path: PathBuf::from(path),
        });
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("{} failed ({status})", describe(&cmd));
    }
    Ok(executables)
}

/// The package name in a package id spec such as
/// `path+file:///ws/crates/foo#0.1.0` or `registry+https://...#foo@1.2.3`.
fn package_name_from_id(id: &str) -> String {
    let (url, fragment) = id.split_once('#').unwrap_or((id, ""));
    match fragment.split_once('@') {
        Some((name, _)) => name.to_owned(),
        None => url.rsplit('/').next().unwrap_or(url).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::package_name_from_id;

    #[test]
    fn package_names_from_ids() {
        assert_eq!(
            package_name_from_id("path+file:///w/crates/gpu-blas#0.1.0"),
            "gpu-blas"
        );
        assert_eq!(
            package_name_from_id("path+file:///w/benches#gpu-linalg-benches@0.1.0"),
            "gpu-linalg-benches"
        );
    }
}
