//! `--only lu-tune`: the sweep behind `batched-lu`'s table of blocked-kernel configurations.
//!
//! For each order n ≥ 33 and type, times our `getrf_batched` and `getri_batched` (batch 10000,
//! or what fits) for every panel width `nb ∈ {8, 16, 32}` (16 and 8 only for c128), every
//! thread count in {32, 64, 96, 128} (one-warp blocks: up to 32 resident blocks per
//! multiprocessor, the fastest for c128 at 33..96, c64 at 65..160 and f32 at 97..128; Batched
//! LU Version 23), plus 256 from n = 256 on (below, 256 never won a sweep once the
//! register caps existed; at 512, where the panel's shared memory leaves room for three blocks
//! per multiprocessor whatever their size, it took 5–24 % less time than 128), and every
//! register cap (80, 64, 48), and prints one line
//! per configuration plus the fastest factorization and the fastest inverse per order (the
//! two are chosen apart: the solve kernels read the factors whatever made them), as a row of
//! the table in `crates/batched-lu/src/tuning.rs`.

use crate::lu::{self, LuCtx};
use batched_lu::{getrf_batched, getri_batched, set_blocked_config, BatchLayout, Blocked, RegCap};
use gpu_blas::{DeviceVec, Scalar};

/// Orders swept (the blocked kernels serve n > 32).
pub const ORDERS: [usize; 9] = [33, 48, 64, 100, 128, 190, 256, 384, 512];

/// One configuration's times.
struct Tuned {
    cfg: Blocked,
    getrf_ms: f64,
    getri_ms: f64,
}

/// The table's spelling of a configuration: `c(nb, threads, cap)`.
fn row(c: &Blocked) -> String {
    format!("c({}, {}, {:?})", c.nb, c.threads, c.regs)
}

/// Sweeps one type over [`ORDERS`] (or `orders`); prints the lines described above.
pub fn sweep<T: Scalar>(cx: &LuCtx<'_>, orders: &[usize], batch: usize) {
    for &n in orders {
        match sweep_one::<T>(cx, n, batch) {
            Ok(all) if !all.is_empty() => {
                let f = all.iter().min_by(|a, b| a.getrf_ms.total_cmp(&b.getrf_ms));
                let i = all.iter().min_by(|a, b| a.getri_ms.total_cmp(&b.getri_ms));
                if let (Some(f), Some(i)) = (f, i) {
                    println!(
                        "tune-best {} n={n} getrf_ms={:.4} getri_ms={:.4} row=({n}, {}, {}),",
                        T::PREFIX,
                        f.getrf_ms,
                        i.getri_ms,
                        row(&f.cfg),
                        row(&i.cfg)
                    );
                }
            }
            Ok(_) => println!("tune {} n={n}: no configuration ran", T::PREFIX),
            Err(e) => println!("tune {} n={n}: {e}", T::PREFIX),
        }
    }
    set_blocked_config(None);
}

fn sweep_one<T: Scalar>(cx: &LuCtx<'_>, n: usize, wanted: usize) -> Result<Vec<Tuned>, String> {
    let es = std::mem::size_of::<T>();
    let batch = crate::lu_model::batch_that_fits(wanted, n, es, 0, cx.budget);
    let layout = BatchLayout::packed(n, batch);
    let nn = n * n;
    let e = |e: gpu_blas::Error| e.to_string();
    let host = lu::well_conditioned_packed::<T>(n, batch);
    let orig = DeviceVec::from_vec(cx.dev, host).map_err(e)?;
    let mut work = orig.try_clone().map_err(e)?;
    let mut inv = DeviceVec::<T>::zeros(cx.dev, batch * nn).map_err(e)?;
    let mut piv = DeviceVec::<i32>::zeros(cx.dev, n * batch).map_err(e)?;
    let mut info = DeviceVec::<i32>::zeros(cx.dev, batch).map_err(e)?;
    let widths: &[usize] = if T::IS_COMPLEX && es == 16 {
        &[8, 16]
    } else {
        &[8, 16, 32]
    };
    let mut out = Vec::new();
    let configs = widths.iter().flat_map(|&nb| {
        [32u32, 64, 96, 128, 256]
            .into_iter()
            .filter(move |&threads| threads < 256 || n >= 256)
            .flat_map(move |threads| {
                [RegCap::R80, RegCap::R64, RegCap::R48]
                    .into_iter()
                    .map(move |regs| Blocked { nb, threads, regs })
            })
    });
    for cfg in configs {
        set_blocked_config(Some(cfg));
        let rf = lu::time_in_place(cx, &orig, &mut work, |w| {
            getrf_batched(layout, w, &mut piv, &mut info)
        });
        let ri = rf.as_ref().ok().map(|_| {
            lu::time_out_of_place(cx, || {
                getri_batched(layout, &work, &piv, &info, &mut inv, nn)
            })
        });
        match (rf, ri) {
            (Ok(f), Some(Ok(i))) => {
                println!(
                    "tune {} n={n} batch={batch} {} getrf_ms={f:.4} getri_ms={i:.4}",
                    T::PREFIX,
                    row(&cfg)
                );
                out.push(Tuned {
                    cfg,
                    getrf_ms: f,
                    getri_ms: i,
                });
            }
            (Err(err), _) | (Ok(_), Some(Err(err))) => {
                println!("tune {} n={n} {}: {err}", T::PREFIX, row(&cfg))
            }
            (Ok(_), None) => {}
        }
    }
    Ok(out)
}
