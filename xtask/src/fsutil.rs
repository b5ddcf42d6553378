//! Small filesystem helpers: self-deleting temp dirs, write-if-changed,
//! running commands with readable errors.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};

/// A fresh directory under the system temp dir, removed (with its contents)
/// when dropped.
pub struct TempDir {
    /// The directory's path.
    path: PathBuf,
}

impl TempDir {
    /// Creates `$TMPDIR/xtask-<tag>-<pid>-<time>-<n>`.
    pub fn new(tag: &str) -> Result<Self> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("xtask-{tag}-{}-{nanos}-{n}", std::process::id());
        let path = std::env::temp_dir().join(name);
        fs::create_dir_all(&path).with_context(|| format!("creating {}", path.display()))?;
        Ok(Self { path })
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Best effort: a leftover temp dir is harmless.
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// Writes `contents` to `path` unless the file already holds exactly these
/// bytes. The new content goes to a sibling temp file first and is renamed
/// over `path`, so readers never see a half-written file. Returns whether the
/// file was (re)written.
pub fn write_if_changed(path: &Path, contents: &[u8]) -> Result<bool> {
    match fs::read(path) {
        Ok(old) if old == contents => return Ok(false),
        Ok(_) => {}
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(err).with_context(|| format!("reading {}", path.display())),
    }
    let file_name = path
        .file_name()
        .with_context(|| format!("{} has no file name", path.display()))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(file_name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    fs::write(&tmp, contents).with_context(|| format!("writing {}", tmp.display()))?;
    fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
    Ok(true)
}

/// Runs `cmd` to completion with captured output; fails with the command line
/// and its output when it cannot start or exits unsuccessfully.
pub fn run_captured(cmd: &mut Command) -> Result<Output> {
    let output = cmd
        .output()
        .with_context(|| format!("cannot run {}", describe(cmd)))?;
    if !output.status.success() {
        bail!(
            "{} failed ({})\n{}{}",
            describe(cmd),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(output)
}

/// A readable one-line rendering of `cmd` (program, arguments and cwd).
pub fn describe(cmd: &Command) -> String {
    let mut text = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    if let Some(dir) = cmd.get_current_dir() {
        text.push_str(&format!(" (in {})", dir.display()));
    }
    format!("`{text}`")
}
