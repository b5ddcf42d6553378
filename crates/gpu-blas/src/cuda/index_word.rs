//! The per-device word that scan kernels lower with `atomicMin` to report the smallest index
//! they found, and its read-back through page-locked host memory.
//!
//! A scan that finds nothing leaves the word at `u64::MAX`, so the word is reset (an
//! asynchronous memset) only before the first scan and after a scan that reported something.
//! A call then costs the scan's launches, one 8-byte copy into page-locked memory and one
//! stream synchronization: no allocation and no pageable copy.

use super::CudaBackend;
use crate::error::{Error, Result};
use cudarc::driver::{result, sys, CudaContext, CudaSlice, DriverError};
use std::sync::{Arc, TryLockError};

/// What the host knows about the device word between scans: whether it holds `u64::MAX`
/// ("nothing found"), so that the next scan may use it without a reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WordState {
    holds_max: bool,
}

impl WordState {
    /// A freshly allocated word: its contents are unknown.
    pub(crate) const fn unknown() -> Self {
        WordState { holds_max: false }
    }

    /// Whether a reset must be queued before the next scan.
    pub(crate) fn needs_reset(self) -> bool {
        !self.holds_max
    }

    /// A reset to `u64::MAX` was queued ahead of everything that follows on the stream.
    pub(crate) fn reset_queued(&mut self) {
        self.holds_max = true;
    }

    /// Kernels that may lower the word are about to be queued: until a read says otherwise
    /// (or the launch fails part-way), the word may hold anything below `u64::MAX`.
    pub(crate) fn scan_queued(&mut self) {
        self.holds_max = false;
    }

    /// The value read back after a scan: `None` when nothing was reported (the word is then
    /// known to hold `u64::MAX` again), else the reported index (the word needs a reset).
    pub(crate) fn read(&mut self, v: u64) -> Option<u64> {
        if v == u64::MAX {
            self.holds_max = true;
            None
        } else {
            Some(v)
        }
    }
}

/// One page-locked host `u64` (`cuMemHostAlloc`, cached: the host reads it), freed on drop.
struct PinnedWord {
    ptr: *mut u64,
    ctx: Arc<CudaContext>,
}

// SAFETY: the pointer is to driver-owned page-locked memory, valid in every thread; it is only
// copied into and read by the holder of the `IndexWord` that owns it (behind the backend's
// mutex), so moving it between threads shares nothing.
unsafe impl Send for PinnedWord {}

impl PinnedWord {
    fn new(ctx: &Arc<CudaContext>) -> std::result::Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        // SAFETY: allocates 8 bytes of page-locked host memory (no flags: ordinary cached
        // memory, which the host reads at full speed); the pointer is freed once, in `drop`.
        let p = unsafe { result::malloc_host(8, 0) }?;
        Ok(PinnedWord {
            ptr: p.cast(),
            ctx: ctx.clone(),
        })
    }
}

impl Drop for PinnedWord {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: `ptr` came from `cuMemHostAlloc` and is freed exactly once; the owning
        // `IndexWord` synchronized its stream before dropping, so no copy into it is pending.
        let _ = unsafe { result::free_host(self.ptr.cast()) };
    }
}

/// The cached word of one device: 8 bytes of device memory, the page-locked word it is read
/// back into, and what the host knows about its contents.
pub(crate) struct IndexWord {
    device: CudaSlice<u8>,
    host: PinnedWord,
    state: WordState,
}

impl Drop for IndexWord {
    fn drop(&mut self) {
        // A copy into the page-locked word may still be queued (after a failed call): wait for
        // it before the word is freed.
        let _ = self.device.stream().synchronize();
    }
}

impl IndexWord {
    fn new(b: &CudaBackend, op: &'static str) -> Result<Self> {
        let host = PinnedWord::new(&b.ctx).map_err(|e| Error::cuda(op, e))?;
        Ok(IndexWord {
            device: b.alloc_bytes(op, 8)?,
            host,
            state: WordState::unknown(),
        })
    }

    /// Resets the word if needed, queues `launch`, reads the word back and waits.
    fn scan(
        &mut self,
        b: &CudaBackend,
        op: &'static str,
        launch: impl FnOnce(u64) -> Result<()>,
    ) -> Result<Option<u64>> {
        let stream = b.stream.cu_stream();
        let word = b.ptr(&self.device);
        if self.state.needs_reset() {
            reset_word(b, op, word)?;
            self.state.reset_queued();
        }
        self.state.scan_queued();
        launch(word)?;
        // SAFETY: copies the 8-byte device word (alive while `self` is) into the page-locked
        // host word (likewise), queued on the backend's stream after the scan; the host word
        // is read only after the synchronization below.
        unsafe { sys::cuMemcpyDtoHAsync_v2(self.host.ptr.cast(), word, 8, stream) }
            .result()
            .map_err(|e| Error::cuda(op, e))?;
        b.stream.synchronize().map_err(|e| Error::cuda(op, e))?;
        // SAFETY: the copy has completed (the stream was synchronized after it); the word is
        // aligned, initialised by the copy, and written by nothing else until the next call,
        // which needs the mutex this caller holds.
        let v = unsafe { self.host.ptr.read() };
        Ok(self.state.read(v))
    }
}

/// Queues `word ← u64::MAX` (eight 0xFF bytes) on the backend's stream.
fn reset_word(b: &CudaBackend, op: &'static str, word: u64) -> Result<()> {
    // SAFETY: `word` is the address of a live 8-byte device allocation of this context, and
    // the memset is queued on the stream that orders every use of it.
    unsafe { result::memset_d8_async(word, 0xFF, 8, b.stream.cu_stream()) }
        .map_err(|e| Error::cuda(op, e))
}

impl CudaBackend {
    /// Runs a scan that reports the smallest index it finds (see
    /// [`crate::kernels::min_index_scan`]): the device's cached word when it is free, else
    /// (another thread is scanning, or the cached word cannot be created) a temporary word.
    pub(crate) fn min_index_scan(
        &self,
        op: &'static str,
        launch: impl FnOnce(u64) -> Result<()>,
    ) -> Result<Option<u64>> {
        // The raw driver calls below use the context current on this thread.
        self.ctx.bind_to_thread().map_err(|e| Error::cuda(op, e))?;
        let mut guard = match self.index_word.try_lock() {
            Ok(g) => g,
            // A panic part-way through a scan leaves the state "unknown" (see `scan_queued`),
            // so the word is reset before its next use.
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return self.min_index_scan_once(op, launch),
        };
        if guard.is_none() {
            *guard = IndexWord::new(self, op).ok();
        }
        if let Some(w) = guard.as_mut() {
            return w.scan(self, op, launch);
        }
        drop(guard);
        self.min_index_scan_once(op, launch)
    }

    /// [`min_index_scan`](Self::min_index_scan) with a word allocated for this call and read
    /// back through a pageable copy.
    fn min_index_scan_once(
        &self,
        op: &'static str,
        launch: impl FnOnce(u64) -> Result<()>,
    ) -> Result<Option<u64>> {
        let slice = self.alloc_bytes(op, 8)?;
        let word = self.ptr(&slice);
        reset_word(self, op, word)?;
        launch(word)?;
        let mut bytes = [0u8; 8];
        self.dtoh(&slice, 0, &mut bytes)?;
        Ok(WordState::unknown().read(u64::from_ne_bytes(bytes)))
    }
}

#[cfg(test)]
mod tests {
    use super::WordState;
    use crate::kernels::min_index_scan;
    use crate::testing::cuda_test_device;
    use crate::{interop, Device, Error, Result};

    /// Queues `word ← v` on the device's stream: a stand-in for a scan kernel reporting `v`.
    fn report(dev: &Device, word: u64, v: u64) -> Result<()> {
        let s = interop::cuda_stream(dev).expect("a CUDA device");
        // SAFETY: `word` is the live 8-byte word `min_index_scan` handed to this call; the copy
        // is queued on the device's stream, and the driver stages the pageable source before
        // the call returns.
        unsafe { cudarc::driver::result::memcpy_htod_async(word, &[v], s.cu_stream()) }
            .map_err(|e| Error::cuda("report", e))
    }

    /// One scan that reports `v` (or nothing).
    fn scan_reporting(dev: &Device, v: Option<u64>) -> Result<Option<u64>> {
        min_index_scan(dev, "test scan", |word| match v {
            Some(v) => report(dev, word, v),
            None => Ok(()),
        })
    }

    #[test]
    fn min_index_scan_needs_a_gpu() {
        let r = min_index_scan(&Device::cpu(), "test scan", |_| Ok(()));
        assert!(matches!(r, Err(Error::Unsupported { .. })), "{r:?}");
    }

    #[test]
    fn cuda_cached_word_is_reset_after_each_report() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        let seq = [
            None,
            Some(42),
            None,
            None,
            Some(7),
            Some(9),
            Some(0),
            None,
            Some(1 << 40),
        ];
        for v in seq {
            assert_eq!(scan_reporting(&dev, v), Ok(v), "reporting {v:?}");
        }
        // A launch that reports and then fails: its error comes back as is, and the next scan
        // starts from a reset word.
        let failed = min_index_scan(&dev, "test scan", |word| {
            report(&dev, word, 3)?;
            Err(Error::Unsupported {
                op: "test scan",
                detail: "failed on purpose".into(),
            })
        });
        assert!(
            matches!(failed, Err(Error::Unsupported { .. })),
            "{failed:?}"
        );
        assert_eq!(scan_reporting(&dev, None), Ok(None));
    }

    #[test]
    fn cuda_concurrent_scans_get_their_own_results() {
        let Some(dev) = cuda_test_device() else {
            return;
        };
        std::thread::scope(|s| {
            for t in 0..8u64 {
                let dev = &dev;
                s.spawn(move || {
                    for it in 0..100u64 {
                        let v = ((t + it) % 3 != 0).then_some(t * 1000 + it);
                        assert_eq!(scan_reporting(dev, v), Ok(v), "thread {t}, scan {it}");
                    }
                });
            }
        });
        assert_eq!(scan_reporting(&dev, None), Ok(None));
    }

    #[test]
    fn fresh_word_is_reset_once_and_stays_clean_while_scans_find_nothing() {
        let mut s = WordState::unknown();
        assert!(s.needs_reset());
        s.reset_queued();
        assert!(!s.needs_reset());
        for _ in 0..3 {
            s.scan_queued();
            assert_eq!(s.read(u64::MAX), None);
            assert!(
                !s.needs_reset(),
                "a scan that found nothing leaves u64::MAX"
            );
        }
    }

    #[test]
    fn a_reported_index_forces_a_reset() {
        let mut s = WordState::unknown();
        s.reset_queued();
        s.scan_queued();
        assert_eq!(s.read(49), Some(49));
        assert!(s.needs_reset());
        s.reset_queued();
        s.scan_queued();
        assert_eq!(s.read(0), Some(0));
        assert!(s.needs_reset());
        s.reset_queued();
        s.scan_queued();
        assert_eq!(s.read(u64::MAX), None);
        assert!(!s.needs_reset());
    }

    #[test]
    fn a_scan_never_read_back_leaves_the_word_unknown() {
        // A failed launch or synchronization: `read` is never called.
        let mut s = WordState::unknown();
        s.reset_queued();
        s.scan_queued();
        assert!(s.needs_reset());
    }

    #[test]
    fn the_largest_index_below_max_is_reported() {
        let mut s = WordState::unknown();
        assert_eq!(s.read(u64::MAX - 1), Some(u64::MAX - 1));
        assert!(s.needs_reset());
    }
}
