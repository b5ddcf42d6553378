//! The CUDA backend: one context and one stream per GPU (plus, on request, two more streams of
//! the greatest priority for work that overlaps the first, and the streams of green contexts
//! that confine bulk work to a partition of the multiprocessors), embedded kernel modules, the
//! reduction workspace and the scan word. Everything unsafe about CUDA lives in this module
//! tree.

mod index_word;
pub(crate) mod launch;
mod modules;

pub(crate) use modules::{KernelModule, BLAS1, BLAS2, SPMV};

use crate::error::{Error, Result};
use crate::interop::PartitionStreams;
use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DriverError,
};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// Bytes of per-block partial results a single-launch reduction may write (enough for
/// 2048 blocks of a 64-byte accumulator).
pub(crate) const REDUCE_PARTIALS_BYTES: usize = 2048 * 64;

/// State for one CUDA device: its context, the stream all work is queued on, loaded modules.
pub(crate) struct CudaBackend {
    pub(crate) ordinal: usize,
    pub(crate) name: String,
    pub(crate) sm_count: u32,
    /// Opt-in maximum of dynamic shared memory per block, in bytes.
    pub(crate) max_shared_optin: usize,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
    functions: Mutex<HashMap<&'static str, HashMap<String, CudaFunction>>>,
    reduce: Mutex<Option<ReduceWorkspace>>,
    /// Workspace of the level-2 kernels that need one of varying size (symv's partial sums),
    /// kept between calls and grown when a call needs more.
    scratch: Mutex<Option<CudaSlice<u8>>>,
    counters: OnceLock<CudaSlice<u8>>,
    /// The word scan kernels report the smallest index they found in, created on first use.
    index_word: Mutex<Option<index_word::IndexWord>>,
    /// A second stream with the greatest scheduling priority, created on first use.
    priority: OnceLock<Arc<CudaStream>>,
    /// A third stream with the greatest scheduling priority, created on first use.
    side: OnceLock<Arc<CudaStream>>,
    /// Held while one of those streams is created.
    stream_creation: Mutex<()>,
    /// Streams of green contexts (SM partitions) by requested SM count, created on first use;
    /// `None` where the driver could not make one.
    partitions: Mutex<HashMap<(u32, bool), Option<PartitionStreams>>>,
}

/// Number of `u32` completion counters available to split kernels (each kernel resets the
/// counters it used, so they are zero between launches).
pub(crate) const SPLIT_COUNTERS: usize = 65536;

/// Scratch memory of the single-launch reductions: per-block partials and a completion counter
/// that the last block resets to zero, so it is zero between launches.
pub(crate) struct ReduceWorkspace {
    pub(crate) partials: CudaSlice<u8>,
    pub(crate) counter: CudaSlice<u8>,
}

fn registry() -> &'static Mutex<HashMap<usize, Arc<CudaBackend>>> {
    static REG: OnceLock<Mutex<HashMap<usize, Arc<CudaBackend>>>> = OnceLock::new();
    REG.get_or_init(|| Mutex::new(HashMap::new()))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Maps a driver error to the crate's error, singling out out-of-memory.
pub(crate) fn driver_err(op: &'static str, bytes: usize) -> impl Fn(DriverError) -> Error {
    move |e: DriverError| {
        if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            Error::OutOfMemory { op, bytes }
        } else {
            Error::cuda(op, e)
        }
    }
}

/// Runs a driver call that may panic inside the dynamic loader (missing symbol or library),
/// turning the panic into [`Error::CudaUnavailable`].
fn guarded<R>(what: &str, f: impl FnOnce() -> std::result::Result<R, DriverError>) -> Result<R> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(e)) => Err(Error::CudaUnavailable(format!("{what}: {e:?}"))),
        Err(_) => Err(Error::CudaUnavailable(format!(
            "{what}: the CUDA driver library could not be used"
        ))),
    }
}

/// Lets the device's default memory pool (where buffers are allocated, stream-ordered) keep
/// freed memory instead of returning it to the driver at every synchronization, so a temporary
/// buffer of a few GB (a batch copy, a workspace) does not have to be mapped again on every
/// call. A failure only costs that speed, so it is ignored.
fn keep_pool_memory(ctx: &Arc<CudaContext>) {
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    let mut threshold: u64 = u64::MAX;
    // SAFETY: `pool` receives the device's default pool (valid while the context lives); the
    // release threshold attribute takes a pointer to a u64, which `threshold` is.
    unsafe {
        if ctx.bind_to_thread().is_err()
            || sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device())
                != sys::CUresult::CUDA_SUCCESS
        {
            return;
        }
        let _ = sys::cuMemPoolSetAttribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&mut threshold as *mut u64).cast(),
        );
    }
}

impl CudaBackend {
    /// The process-wide backend for `ordinal`, created on first use.
    pub(crate) fn get(ordinal: usize) -> Result<Arc<CudaBackend>> {
        let mut reg = lock(registry());
        if let Some(b) = reg.get(&ordinal) {
            return Ok(b.clone());
        }
        let b = Arc::new(Self::create(ordinal)?);
        reg.insert(ordinal, b.clone());
        Ok(b)
    }

    fn create(ordinal: usize) -> Result<CudaBackend> {
        // SAFETY: only probes whether the driver library can be opened; no CUDA call is made.
        let present = catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false);
        if !present {
            return Err(Error::CudaUnavailable(
                "the CUDA driver library (libcuda.so) was not found".into(),
            ));
        }
        let count = guarded("counting devices", CudaContext::device_count)?;
        if count <= 0 {
            return Err(Error::CudaUnavailable("no CUDA device is present".into()));
        }
        if ordinal >= count as usize {
            return Err(Error::CudaUnavailable(format!(
                "device ordinal {ordinal} requested but only {count} device(s) exist"
            )));
        }
        let ctx = guarded("creating the context", || CudaContext::new(ordinal))?;
        // SAFETY: every buffer of this backend is used on its single stream only, so
        // cudarc's cross-stream event tracking is not needed (and would add events to
        // every launch).
        unsafe { ctx.disable_event_tracking() };
        let stream = guarded("creating a stream", || ctx.new_stream())?;
        if ctx.has_async_alloc() {
            keep_pool_memory(&ctx);
        }
        let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
        let sm_count = guarded("querying the device", || {
            ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        })? as u32;
        let max_shared_optin = guarded("querying the device", || {
            ctx.attribute(
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )
        })?
        .max(0) as usize;
        Ok(CudaBackend {
            ordinal,
            name,
            sm_count: sm_count.max(1),
            max_shared_optin,
            ctx,
            stream,
            modules: Mutex::new(HashMap::new()),
            functions: Mutex::new(HashMap::new()),
            reduce: Mutex::new(None),
            scratch: Mutex::new(None),
            counters: OnceLock::new(),
            index_word: Mutex::new(None),
            priority: OnceLock::new(),
            side: OnceLock::new(),
            stream_creation: Mutex::new(()),
            partitions: Mutex::new(HashMap::new()),
        })
    }

    /// The stream every operation of this device is queued on.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A second stream of this device's context with the greatest scheduling priority (its
    /// blocks are placed before those of the main stream's kernels when multiprocessors free
    /// up), created on first use and kept for the life of the process.
    pub(crate) fn priority_stream(&self) -> Result<Arc<CudaStream>> {
        self.extra_stream(&self.priority, "creating a priority stream")
    }

    /// A third stream of this device's context with the greatest scheduling priority, for a
    /// second chain of work beside the priority stream's; created on first use and kept for
    /// the life of the process.
    pub(crate) fn side_stream(&self) -> Result<Arc<CudaStream>> {
        self.extra_stream(&self.side, "creating a side stream")
    }

    /// The stream in `slot`, created (greatest priority) by the first caller. Creation holds
    /// a lock, so two threads never both create one (and then drop one: a stream destroyed
    /// from whichever thread last held it leaves nothing behind for another caller to meet).
    fn extra_stream(
        &self,
        slot: &OnceLock<Arc<CudaStream>>,
        what: &'static str,
    ) -> Result<Arc<CudaStream>> {
        if let Some(s) = slot.get() {
            return Ok(s.clone());
        }
        let _creating = lock(&self.stream_creation);
        if let Some(s) = slot.get() {
            return Ok(s.clone());
        }
        let s = guarded(what, || {
            self.ctx.bind_to_thread()?;
            let (_, greatest) = cudarc::driver::result::stream::get_priority_range()?;
            self.ctx.new_stream_with_priority(greatest)
        })?;
        Ok(slot.get_or_init(|| s).clone())
    }

    /// Streams whose kernels run only on a partition of the device's multiprocessors (a green
    /// context's), leaving at least `reserve` of them outside so that work on this context's
    /// other streams always finds those free. With `clustered`, the multiprocessors left out
    /// are split off first as a group able to hold the largest thread block clusters (the
    /// driver rounds `reserve` up to its granularity, 8 on compute capability 9.0) and the
    /// partition is the rest; otherwise the partition is a group of `total − reserve`
    /// multiprocessors rounded down to that granularity. Created on first use for each
    /// `(reserve, clustered)` and kept for the life of the process; `Ok(None)` when `reserve`
    /// is 0 or leaves nothing to the partition, or the driver cannot make one (before CUDA
    /// 12.4, or a device without green contexts). The streams share this context's memory and
    /// modules, so buffers and kernels are used on them as on the device's stream.
    pub(crate) fn partition(
        &self,
        reserve: u32,
        clustered: bool,
    ) -> Result<Option<PartitionStreams>> {
        // Held while a partition is made, so two threads never both make one.
        let mut parts = lock(&self.partitions);
        if let Some(p) = parts.get(&(reserve, clustered)) {
            return Ok(p.clone());
        }
        let made = if reserve == 0 || reserve + 8 > self.sm_count {
            None
        } else {
            let make = || self.create_partition(reserve, clustered);
            match catch_unwind(AssertUnwindSafe(make)) {
                Ok(Ok(p)) => p,
                Ok(Err(e)) => return Err(Error::cuda("creating an SM partition", e)),
                Err(_) => None,
            }
        };
        parts.insert((reserve, clustered), made.clone());
        Ok(made)
    }

    /// [`Self::partition`]'s driver calls; `Ok(None)` where the driver declines.
    fn create_partition(
        &self,
        reserve: u32,
        clustered: bool,
    ) -> std::result::Result<Option<PartitionStreams>, DriverError> {
        use std::mem::MaybeUninit;
        self.ctx.bind_to_thread()?;
        let ok = |r: sys::CUresult| r == sys::CUresult::CUDA_SUCCESS;
        // SAFETY: each out-parameter is a live local of the type the call writes; the
        // resources are plain data the driver fills; the green context and its streams are
        // never destroyed (kept for the process, like the priority streams), so the borrowed
        // stream wrappers never outlive them.
        unsafe {
            let mut all = MaybeUninit::<sys::CUdevResource>::zeroed().assume_init();
            if !ok(sys::cuDeviceGetDevResource(
                self.ctx.cu_device(),
                &mut all,
                sys::CUdevResourceType::CU_DEV_RESOURCE_TYPE_SM,
            )) {
                return Ok(None);
            }
            let total = all.__bindgen_anon_1.sm.smCount;
            let (count, flags) = match clustered {
                true => (
                    reserve,
                    sys::CUdevSmResourceSplit_flags::CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE
                        as std::ffi::c_uint,
                ),
                false => (total.saturating_sub(reserve) / 8 * 8, 0),
            };
            let mut group = MaybeUninit::<sys::CUdevResource>::zeroed().assume_init();
            let mut rest = MaybeUninit::<sys::CUdevResource>::zeroed().assume_init();
            let mut groups: std::ffi::c_uint = 1;
            if !ok(sys::cuDevSmResourceSplitByCount(
                &mut group,
                &mut groups,
                &all,
                &mut rest,
                flags,
                count,
            )) || groups != 1
            {
                return Ok(None);
            }
            let mut part = if clustered { rest } else { group };
            let sms = part.__bindgen_anon_1.sm.smCount;
            if sms == 0 || sms >= total {
                return Ok(None);
            }
            let mut desc: sys::CUdevResourceDesc = std::ptr::null_mut();
            if !ok(sys::cuDevResourceGenerateDesc(&mut desc, &mut part, 1)) {
                return Ok(None);
            }
            let mut green: sys::CUgreenCtx = std::ptr::null_mut();
            if !ok(sys::cuGreenCtxCreate(
                &mut green,
                desc,
                self.ctx.cu_device(),
                sys::CUgreenCtxCreate_flags::CU_GREEN_CTX_DEFAULT_STREAM as std::ffi::c_uint,
            )) {
                return Ok(None);
            }
            let (least, greatest) = cudarc::driver::result::stream::get_priority_range()?;
            let flags = sys::CUstream_flags::CU_STREAM_NON_BLOCKING as std::ffi::c_uint;
            let mut raw: [sys::CUstream; 3] = [std::ptr::null_mut(); 3];
            for (i, prio) in [least, greatest, greatest].into_iter().enumerate() {
                if !ok(sys::cuGreenCtxStreamCreate(&mut raw[i], green, flags, prio)) {
                    for s in raw.iter().take(i) {
                        sys::cuStreamDestroy_v2(*s);
                    }
                    sys::cuGreenCtxDestroy(green);
                    return Ok(None);
                }
            }
            // Later launches must see the device's own context current, whatever the calls
            // above did to this thread's.
            self.ctx.bind_to_thread()?;
            let wrap = |s: sys::CUstream| self.ctx.wrap_borrowed_stream(s);
            Ok(Some(PartitionStreams {
                low: wrap(raw[0]),
                high: [wrap(raw[1]), wrap(raw[2])],
                sms,
            }))
        }
    }

    /// The CUDA context (for vendor-library handles in benchmarks and tests).
    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    pub(crate) fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(|e| Error::cuda("synchronize", e))
    }

    /// Allocates `bytes` bytes of uninitialised device memory (stream-ordered).
    pub(crate) fn alloc_bytes(&self, op: &'static str, bytes: usize) -> Result<CudaSlice<u8>> {
        // SAFETY: the memory is uninitialised. It is only ever read through the driver (copies
        // and kernels), never as a Rust value in place, and every element type accepts any bit
        // pattern, so reading it before it is written gives unspecified values, not undefined
        // behaviour; internal callers fill it (copies, kernels that write every element) or
        // zero it first.
        unsafe { self.stream.alloc::<u8>(bytes.max(1)) }.map_err(driver_err(op, bytes))
    }

    /// Allocates `bytes` zeroed bytes of device memory.
    pub(crate) fn alloc_zeroed(&self, op: &'static str, bytes: usize) -> Result<CudaSlice<u8>> {
        self.stream
            .alloc_zeros::<u8>(bytes.max(1))
            .map_err(driver_err(op, bytes))
    }

    /// Raw device address of a slice.
    pub(crate) fn ptr(&self, s: &CudaSlice<u8>) -> u64 {
        let (p, _sync) = s.device_ptr(&self.stream);
        p
    }

    /// Copies host bytes to device memory at `dst + offset` (synchronous for the host data).
    pub(crate) fn htod(&self, src: &[u8], dst: &mut CudaSlice<u8>, offset: usize) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        let mut view = dst.slice_mut(offset..offset + src.len());
        self.stream
            .memcpy_htod(src, &mut view)
            .map_err(|e| Error::cuda("host-to-device copy", e))
    }

    /// Copies device bytes at `src + offset` to host memory and waits for the copy.
    pub(crate) fn dtoh(&self, src: &CudaSlice<u8>, offset: usize, dst: &mut [u8]) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        let view = src.slice(offset..offset + dst.len());
        self.stream
            .memcpy_dtoh(&view, dst)
            .map_err(|e| Error::cuda("device-to-host copy", e))?;
        self.synchronize()
    }

    /// Device-to-device copy of `bytes` bytes.
    pub(crate) fn dtod(
        &self,
        src: &CudaSlice<u8>,
        src_off: usize,
        dst: &mut CudaSlice<u8>,
        dst_off: usize,
        bytes: usize,
    ) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        let s = src.slice(src_off..src_off + bytes);
        let mut d = dst.slice_mut(dst_off..dst_off + bytes);
        self.stream
            .memcpy_dtod(&s, &mut d)
            .map_err(|e| Error::cuda("device-to-device copy", e))
    }

    /// Queues a strided two-dimensional copy: `height` rows of `width_bytes` bytes, `src_pitch`
    /// and `dst_pitch` bytes apart (device to device).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn copy_2d(
        &self,
        op: &'static str,
        src: u64,
        src_pitch: usize,
        dst: u64,
        dst_pitch: usize,
        width_bytes: usize,
        height: usize,
    ) -> Result<()> {
        let p = sys::CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            srcHost: std::ptr::null(),
            srcDevice: src,
            srcArray: std::ptr::null_mut(),
            srcPitch: src_pitch,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            dstHost: std::ptr::null_mut(),
            dstDevice: dst,
            dstArray: std::ptr::null_mut(),
            dstPitch: dst_pitch,
            WidthInBytes: width_bytes,
            Height: height,
        };
        self.ctx.bind_to_thread().map_err(|e| Error::cuda(op, e))?;
        // SAFETY: `p` describes `height` rows of `width_bytes` bytes inside two live device
        // allocations (the caller's views were bounds-checked), and the copy is queued on this
        // backend's stream, which orders it with every other operation on these buffers.
        unsafe { sys::cuMemcpy2DAsync_v2(&p, self.stream.cu_stream()) }
            .result()
            .map_err(|e| Error::cuda(op, e))
    }

    /// The kernel `name` of `module`, loading the module into the context on first use.
    pub(crate) fn function(&self, module: &KernelModule, name: &str) -> Result<CudaFunction> {
        let mut all = lock(&self.functions);
        let fns = all.entry(module.name).or_default();
        if let Some(f) = fns.get(name) {
            return Ok(f.clone());
        }
        let m = {
            let mut mods = lock(&self.modules);
            match mods.get(module.name) {
                Some(m) => m.clone(),
                None => {
                    let image = cudarc::nvrtc::Ptx::from_binary(module.image.to_vec());
                    let m = self.ctx.load_module(image).map_err(|e| Error::Cuda {
                        op: "loading kernel module",
                        message: format!("{}: {e:?}", module.name),
                    })?;
                    mods.insert(module.name, m.clone());
                    m
                }
            }
        };
        let f = m.load_function(name).map_err(|e| Error::Cuda {
            op: "loading kernel",
            message: format!("{name} in {}: {e:?}", module.name),
        })?;
        fns.insert(name.to_string(), f.clone());
        Ok(f)
    }

    /// Device address of [`SPLIT_COUNTERS`] zeroed `u32` counters, allocated on first use.
    pub(crate) fn split_counters(&self) -> Result<u64> {
        if let Some(c) = self.counters.get() {
            return Ok(self.ptr(c));
        }
        let c = self.alloc_zeroed("split counters", SPLIT_COUNTERS * 4)?;
        Ok(self.ptr(self.counters.get_or_init(|| c)))
    }

    /// At least `bytes` bytes of the shared level-2 workspace and their device address. The
    /// workspace is kept between calls (a fresh allocation of tens of megabytes costs more than
    /// a small kernel) and replaced by a larger one when needed; the old one is freed in stream
    /// order. Hold the guard across the launches that use it.
    pub(crate) fn scratch(
        &self,
        op: &'static str,
        bytes: usize,
    ) -> Result<(MutexGuard<'_, Option<CudaSlice<u8>>>, u64)> {
        let mut g = lock(&self.scratch);
        if g.as_ref().is_none_or(|s| s.len() < bytes) {
            *g = None;
            *g = Some(self.alloc_bytes(op, bytes)?);
        }
        let p = g.as_ref().map(|s| self.ptr(s)).unwrap_or(0);
        Ok((g, p))
    }

    /// The reduction workspace, allocated on first use. Hold the guard across the launch.
    pub(crate) fn reduce_workspace(&self) -> Result<MutexGuard<'_, Option<ReduceWorkspace>>> {
        let mut g = lock(&self.reduce);
        if g.is_none() {
            *g = Some(ReduceWorkspace {
                partials: self.alloc_bytes("reduction workspace", REDUCE_PARTIALS_BYTES)?,
                counter: self.alloc_zeroed("reduction workspace", 64)?,
            });
        }
        Ok(g)
    }
}
