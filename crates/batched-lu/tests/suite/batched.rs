//! Uniform batches on every device, every scalar type, against Complex64 host references:
//! factor reconstruction, pivots and `info`, inverse residuals, N/T/C solves.

use crate::common::*;
use batched_lu::{
    batch_from_array, batch_to_array, getrf_batched, getri_batched, getrs_batched, inverse_batched,
    pivots_to_array, solve_batched, BatchLayout,
};
use gpu_blas::blas2::Trans;
use gpu_blas::{Device, DeviceVec, Scalar};
use num_complex::{Complex32, Complex64};

macro_rules! for_all_types {
    ($f:ident, $dev:expr) => {
        $f::<f32>($dev);
        $f::<f64>($dev);
        $f::<Complex32>($dev);
        $f::<Complex64>($dev);
    };
}

/// Elements between matrices: NaN, so reading them would show; writing them is checked.
const GAP: usize = 3;

fn nan<T: Scalar>() -> T {
    T::from_f64(f64::NAN)
}

/// Packs matrices `stride = n² + GAP` apart with NaN in the gaps.
fn pack<T: Scalar>(n: usize, mats: &[Vec<T>]) -> (BatchLayout, Vec<T>) {
    let l = BatchLayout {
        n,
        batch: mats.len(),
        stride: n * n + GAP,
    };
    let mut buf = vec![nan::<T>(); l.batch * l.stride];
    for (k, m) in mats.iter().enumerate() {
        buf[k * l.stride..k * l.stride + n * n].copy_from_slice(m);
    }
    (l, buf)
}

fn gaps_untouched<T: Scalar>(l: &BatchLayout, buf: &[T]) {
    for k in 0..l.batch {
        let g = &buf[k * l.stride + l.n * l.n..(k + 1) * l.stride];
        assert!(g.iter().all(|v| v.is_nan()), "gap after matrix {k} written");
    }
}

fn factor_mixed<T: Scalar>(dev: &Device) {
    for n in sizes() {
        let seed = n as u64 * 31;
        let j0 = n / 2;
        let mats = vec![
            well::<T>(n, seed),
            ill::<T>(n, seed + 1),
            zero_col::<T>(n, j0, seed + 2),
            swap_every_step::<T>(n, seed + 3),
        ];
        let (l, buf) = pack(n, &mats);
        let mut a = DeviceVec::from_slice(dev, &buf).unwrap();
        let mut piv = DeviceVec::zeros(dev, n * l.batch).unwrap();
        let mut info = DeviceVec::zeros(dev, l.batch).unwrap();
        let r = getrf_batched(l, &mut a, &mut piv, &mut info);
        r.unwrap();
        let (f, piv, info) = (
            a.to_vec().unwrap(),
            piv.to_vec().unwrap(),
            info.to_vec().unwrap(),
        );
        gaps_untouched(&l, &f);
        for (k, m) in mats.iter().enumerate() {
            let fk = &f[k * l.stride..k * l.stride + n * n];
            let pk = &piv[k * n..(k + 1) * n];
            assert!(pk.iter().all(|&p| p >= 1 && p as usize <= n));
            let what = ["well", "ill", "zero column", "swap every step"][k];
            assert_lu(n, m, fk, pk, what);
        }
        assert_eq!(info[0], 0, "well-conditioned n = {n}");
        assert_eq!(info[2], j0 as i32 + 1, "zero column {j0}, n = {n}");
        assert_eq!(info[3], 0, "swap every step n = {n}");
        // Exact in exact arithmetic; rounding A to T perturbs the Schur complements by about
        // eps·‖L⁻¹‖, which grows exponentially with n for a random unit triangle, so the
        // pivot sequence is asserted only while that stays far below the 2× pivot margin.
        if n <= 128 {
            let want = vec![n as i32; n];
            assert_eq!(&piv[3 * n..4 * n], want.as_slice(), "{} n = {n}", T::PREFIX);
        }
    }
}

fn zero_matrix_and_ties<T: Scalar>(dev: &Device) {
    // All-zero: info = 1, pivots the identity. Equal |re|+|im| in a column: the first wins.
    let z = vec![T::zero(); 9];
    let ties: Vec<T> = [1.0, -1.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0]
        .iter()
        .map(|&v| T::from_f64(v))
        .collect();
    let (l, buf) = pack(3, &[z, ties]);
    let mut a = DeviceVec::from_slice(dev, &buf).unwrap();
    let mut piv = DeviceVec::zeros(dev, 6).unwrap();
    let mut info = DeviceVec::zeros(dev, 2).unwrap();
    let r = getrf_batched(l, &mut a, &mut piv, &mut info);
    r.unwrap();
    assert_eq!(info.to_vec().unwrap(), vec![1, 0]);
    let piv = piv.to_vec().unwrap();
    assert_eq!(&piv[..3], &[1, 2, 3]);
    assert_eq!(piv[3], 1, "first of equal pivots");
}

fn inverse<T: Scalar>(dev: &Device) {
    for n in sizes() {
        let seed = n as u64 * 77 + 5;
        let mats = vec![
            well::<T>(n, seed),
            zero_col::<T>(n, n - 1, seed + 1),
            swap_every_step::<T>(n, seed + 2),
        ];
        let (l, buf) = pack(n, &mats);
        let a = DeviceVec::from_slice(dev, &buf).unwrap();
        let mut inv = DeviceVec::from_slice(dev, &buf).unwrap(); // NaN gaps
        let r = inverse_batched(l, &a, &mut inv, l.stride);
        let info = r.unwrap().to_vec().unwrap();
        assert_eq!(info, vec![0, n as i32, 0], "n = {n}");
        assert_eq!(a.to_vec().unwrap().len(), buf.len());
        let x = inv.to_vec().unwrap();
        gaps_untouched(&l, &x);
        for k in [0, 2] {
            assert_inverse(
                n,
                &mats[k],
                &x[k * l.stride..k * l.stride + n * n],
                "inverse",
            );
        }
        assert!(x[l.stride..l.stride + n * n].iter().all(|v| v.is_nan()));

        // The two-step path gives the same bits.
        let mut f = a.try_clone().unwrap();
        let mut piv = DeviceVec::zeros(dev, n * l.batch).unwrap();
        let mut inf = DeviceVec::zeros(dev, l.batch).unwrap();
        getrf_batched(l, &mut f, &mut piv, &mut inf).unwrap();
        let mut inv2 = DeviceVec::zeros(dev, l.batch * n * n).unwrap();
        getri_batched(l, &f, &piv, &inf, &mut inv2, n * n).unwrap();
        let x2 = inv2.to_vec().unwrap();
        for k in [0, 2] {
            let same = x[k * l.stride..k * l.stride + n * n] == x2[k * n * n..(k + 1) * n * n];
            assert!(same, "getri and inverse_batched differ, n = {n}");
        }
    }
}

fn solves<T: Scalar>(dev: &Device) {
    let nrhs = 3;
    for n in sizes() {
        let seed = n as u64 * 13 + 1;
        let mats = vec![
            well::<T>(n, seed),
            swap_every_step::<T>(n, seed + 1),
            zero_col::<T>(n, 0, seed + 2),
        ];
        let (l, buf) = pack(n, &mats);
        let b_stride = n * nrhs + 2;
        let b0 = random_values::<T>(l.batch * b_stride, seed + 9);
        for trans in [Trans::N, Trans::T, Trans::C] {
            let a = DeviceVec::from_slice(dev, &buf).unwrap();
            let mut b = DeviceVec::from_slice(dev, &b0).unwrap();
            let r = solve_batched(l, trans, &a, &mut b, nrhs, b_stride);
            assert_eq!(r.unwrap().to_vec().unwrap(), vec![0, 0, 1]);
            let x = b.to_vec().unwrap();
            for (k, m) in mats.iter().enumerate().take(2) {
                let (s, e) = (k * b_stride, k * b_stride + n * nrhs);
                assert_solve(n, trans, m, &x[s..e], &b0[s..e], nrhs);
                assert_eq!(&x[e..e + 2], &b0[e..e + 2], "b gap written");
            }
            let s = 2 * b_stride;
            assert!(
                x[s..s + n * nrhs].iter().all(|v| v.is_nan()),
                "singular → NaN"
            );

            // getrf + getrs on the well-conditioned ones agree bit for bit.
            let l2 = BatchLayout { batch: 2, ..l };
            let mut f = DeviceVec::from_slice(dev, &buf[..2 * l.stride]).unwrap();
            let mut piv = DeviceVec::zeros(dev, 2 * n).unwrap();
            let mut inf = DeviceVec::zeros(dev, 2).unwrap();
            getrf_batched(l2, &mut f, &mut piv, &mut inf).unwrap();
            let mut b2 = DeviceVec::from_slice(dev, &b0[..2 * b_stride]).unwrap();
            getrs_batched(l2, trans, &f, &piv, &mut b2, nrhs, b_stride).unwrap();
            assert!(b2.to_vec().unwrap() == x[..2 * b_stride]);
        }
    }
}

/// Each form of the solve at its edges: right-hand-side counts around the register solve's
/// groups of up to four columns (5: two groups of three, the second with a column past `nrhs`)
/// and the streaming solves' limits (one column, two for some types and orders: more go to the
/// blocked solve), orders at the register solve's widths, around the streaming solves' tiles
/// (65, 129, 257, 300), all three transposes; a singular matrix between two good ones;
/// residuals against a host product.
fn solve_forms<T: Scalar>(dev: &Device) {
    // Under the sanitizer one order per form and the counts that split a group.
    let sanitizer = gpu_blas::testing::under_sanitizer();
    let (orders, counts): (&[usize], &[usize]) = if sanitizer {
        (&[16, 65, 257], &[1, 5])
    } else {
        (&[3, 16, 32, 33, 65, 129, 257, 300], &[1, 2, 4, 5, 9])
    };
    for &n in orders {
        for &nrhs in counts {
            if n > 100 && nrhs > 5 {
                continue;
            }
            let seed = (n * 31 + nrhs) as u64;
            let mats = vec![
                swap_every_step::<T>(n, seed),
                zero_col::<T>(n, n / 2, seed + 1),
                well::<T>(n, seed + 2),
            ];
            let (l, buf) = pack(n, &mats);
            let b_stride = n * nrhs + 1;
            let b0 = random_values::<T>(l.batch * b_stride, seed + 3);
            for trans in [Trans::N, Trans::T, Trans::C] {
                let a = DeviceVec::from_slice(dev, &buf).unwrap();
                let mut b = DeviceVec::from_slice(dev, &b0).unwrap();
                let r = solve_batched(l, trans, &a, &mut b, nrhs, b_stride).unwrap();
                assert_eq!(
                    r.to_vec().unwrap()[1],
                    (n / 2 + 1) as i32,
                    "n = {n}, nrhs = {nrhs}"
                );
                let x = b.to_vec().unwrap();
                for k in [0, 2] {
                    let (s, e) = (k * b_stride, k * b_stride + n * nrhs);
                    assert_solve(n, trans, &mats[k], &x[s..e], &b0[s..e], nrhs);
                    assert_eq!(x[e], b0[e], "n = {n}, nrhs = {nrhs}: gap written");
                }
                let s = b_stride;
                assert!(
                    x[s..s + n * nrhs].iter().all(|v| v.is_nan()),
                    "n = {n}, nrhs = {nrhs}: singular → NaN"
                );
            }
        }
    }
}

/// A finite f32 matrix whose factorization overflows: column 0 is (1, −1, …, −1), column 1 all
/// 3·10³⁸, column 2 (3·10³⁸, 0, …), the rest the identity's columns. The first step makes
/// rows 1.. of column 1 infinite (3e38 + 3e38), the second divides infinity by infinity, so
/// from column 2 on every candidate is NaN.
fn overflowing(n: usize) -> Vec<f32> {
    let mut a = vec![0.0f32; n * n];
    for i in 0..n {
        a[i] = if i == 0 { 1.0 } else { -1.0 };
        a[i + n] = 3e38;
    }
    a[2 * n] = 3e38;
    for j in 3..n {
        a[j + j * n] = 1.0;
    }
    a
}

/// An overflow inside the factorization (finite input, so no error) leaves every pivot in
/// range, the other matrices of the batch exact, and a NaN inverse for the overflowed one.
fn overflow_to_nan(dev: &Device) {
    for n in [3, 20, 40, 60, 100] {
        let mats = vec![overflowing(n), well::<f32>(n, n as u64)];
        let (l, buf) = pack(n, &mats);
        let mut a = DeviceVec::from_slice(dev, &buf).unwrap();
        let mut piv = DeviceVec::zeros(dev, n * l.batch).unwrap();
        let mut info = DeviceVec::zeros(dev, l.batch).unwrap();
        getrf_batched(l, &mut a, &mut piv, &mut info).unwrap();
        let (f, p, inf) = (
            a.to_vec().unwrap(),
            piv.to_vec().unwrap(),
            info.to_vec().unwrap(),
        );
        assert!(
            p.iter().all(|&q| q >= 1 && q as usize <= n),
            "n = {n}: pivots {p:?}"
        );
        assert_eq!(inf[1], 0, "n = {n}");
        let r = l.stride..l.stride + n * n;
        assert_lu(
            n,
            &mats[1],
            &f[r.clone()],
            &p[n..2 * n],
            "beside an overflow",
        );
        let a = DeviceVec::from_slice(dev, &buf).unwrap();
        let mut x = DeviceVec::from_slice(dev, &buf).unwrap();
        inverse_batched(l, &a, &mut x, l.stride).unwrap();
        let x = x.to_vec().unwrap();
        assert!(
            x[..n * n].iter().any(|v| v.is_nan()),
            "n = {n}: overflowed inverse"
        );
        assert_inverse(n, &mats[1], &x[r], "beside an overflow");
    }
}

/// The largest order the issue asks for: factor, inverse and a transposed solve at n = 1024.
fn order_1024<T: Scalar>(dev: &Device) {
    let n = 1024;
    let mats = vec![well::<T>(n, 3), swap_every_step::<T>(n, 4)];
    let (l, buf) = pack(n, &mats);
    let a = DeviceVec::from_slice(dev, &buf).unwrap();
    let mut inv = DeviceVec::from_slice(dev, &buf).unwrap();
    let info = inverse_batched(l, &a, &mut inv, l.stride).unwrap();
    assert_eq!(info.to_vec().unwrap(), vec![0, 0]);
    let x = inv.to_vec().unwrap();
    gaps_untouched(&l, &x);
    for (k, m) in mats.iter().enumerate() {
        assert_inverse(n, m, &x[k * l.stride..k * l.stride + n * n], "n = 1024");
    }
    let b0 = random_values::<T>(2 * n, 11);
    let mut b = DeviceVec::from_slice(dev, &b0).unwrap();
    solve_batched(l, Trans::C, &a, &mut b, 1, n).unwrap();
    let xb = b.to_vec().unwrap();
    for (k, m) in mats.iter().enumerate() {
        let r = k * n..(k + 1) * n;
        assert_solve(n, Trans::C, m, &xb[r.clone()], &b0[r], 1);
    }
}

/// Factorizations at two orders from two threads at once, `calls` each. On the GPU, f64 at 390
/// and 600 run the same blocked factorization kernel, each above 48 KiB of shared memory, so each
/// call raises the kernel's shared-memory limit before its launch: a call whose limit another
/// thread lowered in between would fail to launch. Every call must succeed, and the last
/// factors of each thread reconstruct.
fn concurrent_orders(dev: &Device, calls: usize) {
    let run = |n: usize, calls: usize| {
        let mats = [
            well::<f64>(n, 7 * n as u64),
            swap_every_step::<f64>(n, 7 * n as u64 + 1),
        ];
        let l = BatchLayout::packed(n, mats.len());
        let a0 = mats.concat();
        let mut piv = DeviceVec::zeros(dev, n * l.batch).unwrap();
        let mut info = DeviceVec::zeros(dev, l.batch).unwrap();
        let mut last = None;
        for _ in 0..calls {
            let mut a = DeviceVec::from_slice(dev, &a0).unwrap();
            getrf_batched(l, &mut a, &mut piv, &mut info).unwrap();
            last = Some(a);
        }
        let f = last.unwrap().to_vec().unwrap();
        assert_eq!(info.to_vec().unwrap(), vec![0, 0], "n = {n}");
        let p = piv.to_vec().unwrap();
        for (k, m) in mats.iter().enumerate() {
            let r = k * n * n..(k + 1) * n * n;
            assert_lu(
                n,
                m,
                &f[r],
                &p[k * n..(k + 1) * n],
                &format!("n = {n}, two threads"),
            );
        }
    };
    std::thread::scope(|s| {
        s.spawn(|| run(600, calls));
        run(390, calls);
    });
}

/// `mats` (order `n`) packed and factored on `dev`: the layout, factors, pivots and `info`.
fn factored<T: Scalar>(
    dev: &Device,
    n: usize,
    mats: &[Vec<T>],
) -> (BatchLayout, DeviceVec<T>, DeviceVec<i32>, DeviceVec<i32>) {
    let l = BatchLayout::packed(n, mats.len());
    let mut a = DeviceVec::from_slice(dev, &mats.concat()).unwrap();
    let mut piv = DeviceVec::zeros(dev, n * l.batch).unwrap();
    let mut info = DeviceVec::zeros(dev, l.batch).unwrap();
    getrf_batched(l, &mut a, &mut piv, &mut info).unwrap();
    (l, a, piv, info)
}

/// The register kernels (n ≤ 32) at each group width (4, 8, 16 and 32 lanes; the pivot row
/// through shared memory from 16 lanes), with partial groups and a partial last block: factor
/// reconstruction and inverse residuals. A few matrices per order, so the race checker gets
/// through it quickly.
fn register_widths<T: Scalar>(dev: &Device) {
    for n in [3, 4, 6, 8, 12, 16, 20, 32] {
        let mats: Vec<Vec<T>> = (0..9u64)
            .map(|k| match k % 3 {
                0 => well::<T>(n, 40 * n as u64 + k),
                1 => swap_every_step::<T>(n, 40 * n as u64 + k),
                _ => ill::<T>(n, 40 * n as u64 + k),
            })
            .collect();
        let (l, a, piv, info) = factored(dev, n, &mats);
        let mut inv = DeviceVec::zeros(dev, n * n * l.batch).unwrap();
        getri_batched(l, &a, &piv, &info, &mut inv, n * n).unwrap();
        let (f, p, x) = (
            a.to_vec().unwrap(),
            piv.to_vec().unwrap(),
            inv.to_vec().unwrap(),
        );
        for (k, m) in mats.iter().enumerate() {
            let what = format!("{} n = {n}, matrix {k}", T::PREFIX);
            let r = k * n * n..(k + 1) * n * n;
            assert_lu(n, m, &f[r.clone()], &p[k * n..(k + 1) * n], &what);
            if k % 3 != 2 {
                assert_inverse(n, m, &x[r], &what);
            }
        }
    }
}

/// The register factorization of a whole matrix in one block (f32 33..=96, f64 and c64
/// 33..=64; one to three warps, the compiled order rounded up, its steps unrolled or in chunks)
/// at the edges of each compiled order and beyond the last (the blocked kernel), for every type: factor reconstruction
/// against the host LU, the pivot sequence of a matrix needing an interchange at every step,
/// `info` of a zero first and zero last column, and inverse residuals. Seven matrices per
/// order, so the race checker gets through it quickly.
fn row_factorization<T: Scalar>(dev: &Device) {
    for n in [
        33, 35, 36, 37, 40, 41, 44, 45, 47, 48, 49, 55, 56, 57, 63, 64, 65, 72, 73, 89, 96, 97,
    ] {
        let s = 13 * n as u64;
        let mats = vec![
            well::<T>(n, s),
            swap_every_step::<T>(n, s + 1),
            ill::<T>(n, s + 2),
            zero_col::<T>(n, 0, s + 3),
            zero_col::<T>(n, n - 1, s + 4),
            well::<T>(n, s + 5),
            swap_every_step::<T>(n, s + 6),
        ];
        let (l, a, piv, info) = factored(dev, n, &mats);
        let mut inv = DeviceVec::zeros(dev, n * n * l.batch).unwrap();
        getri_batched(l, &a, &piv, &info, &mut inv, n * n).unwrap();
        let (f, p, ih, x) = (
            a.to_vec().unwrap(),
            piv.to_vec().unwrap(),
            info.to_vec().unwrap(),
            inv.to_vec().unwrap(),
        );
        // The ill-conditioned matrix (index 2) may round to singular in single precision.
        let want = [0, 0, ih[2], 1, n as i32, 0, 0];
        assert_eq!(ih, want, "{} n = {n}", T::PREFIX);
        for (k, m) in mats.iter().enumerate() {
            let what = format!("{} n = {n}, matrix {k}", T::PREFIX);
            let r = k * n * n..(k + 1) * n * n;
            let pk = &p[k * n..(k + 1) * n];
            assert!(pk.iter().all(|&q| q >= 1 && q as usize <= n), "{what}");
            assert_lu(n, m, &f[r.clone()], pk, &what);
            if k == 1 || k == 6 {
                assert_eq!(pk, vec![n as i32; n].as_slice(), "{what}: pivots");
            }
            if k == 3 || k == 4 {
                assert!(x[r].iter().all(|v| v.is_nan()), "{what}: not NaN");
            } else if k != 2 {
                assert_inverse(n, m, &x[r], &what);
            }
        }
    }
}

/// The mid-size inverse (33 ≤ n ≤ 128, f32 up to 192, c64 160, c128 112: the factors in shared
/// memory, two to ten rows per lane; f32 193..256, f64 180..192, c64 161..192, c128 65..80
/// and 113..144: one packed triangle of the factors at a time, two blocks per matrix; f64 and
/// c64 193..256, c128 161..192: four blocks per matrix, from 225 (c128: 161) each triangle in
/// two parts) at every order to 128, then a sample with the edges of each kernel, against the
/// host reference: well-conditioned matrices and matrices needing an interchange at every step
/// give small residuals; a singular one (`info` = n) and one
/// whose factors have an exactly-zero `U(j, j)` but `info` 0 (factors supplied by the caller)
/// come back NaN. Neighbours are unaffected.
fn mid_inverse<T: Scalar>(dev: &Device) {
    let orders: Vec<usize> = if gpu_blas::testing::under_sanitizer() {
        vec![
            33, 40, 41, 57, 64, 65, 80, 96, 97, 128, 129, 144, 160, 190, 193, 256,
        ]
    } else {
        (33..=128)
            .chain([
                129, 144, 145, 150, 160, 161, 179, 180, 190, 192, 193, 208, 224, 225, 255, 256,
            ])
            .collect()
    };
    mid_inverse_orders::<T>(dev, &orders);
}

/// The four-part triangle form of the inverse alone (four blocks per matrix; from f64 and c64
/// 225 and c128 161 each triangle staged in two parts, the second behind a block barrier when
/// the substitution reaches it): its first and last orders and one past the two-part switch,
/// as `mid_inverse` checks them. Small enough for the race checker.
fn four_part_inverse<T: Scalar>(dev: &Device) {
    let orders: &[usize] = if std::mem::size_of::<T>() == 16 {
        &[161, 192]
    } else if std::mem::size_of::<T>() == 8 {
        &[193, 224, 225, 256]
    } else {
        &[]
    };
    mid_inverse_orders::<T>(dev, orders);
}

/// The triangle forms with other staging, alone, as `mid_inverse` checks them: c128's
/// three-part form (193..=256, each triangle in three parts, the later ones behind block
/// barriers when the substitution reaches them) at its first and last orders and either side
/// of its switch from seven to eight blocks per matrix; f32's two-part form with U's later
/// columns staged during the forward substitution (193..=256); and, outside the sanitizer,
/// the many-part form (257..=512, every type) at the first and last order of each of its
/// kernels. Small enough for the race checker.
fn staged_triangle_inverse<T: Scalar>(dev: &Device) {
    let orders: &[usize] = match (T::IS_COMPLEX, std::mem::size_of::<T>()) {
        (true, 16) => &[193, 224, 225, 256],
        (false, 4) => &[193, 225, 256],
        _ => &[],
    };
    mid_inverse_orders::<T>(dev, orders);
    // The many-part form (every type at 257..=512: each triangle in one to thirteen parts, 3 to
    // 32 blocks per matrix, a kernel for every 32 orders) at each kernel's first and last
    // order; not under the sanitizer, where the race checker takes minutes over a batch of
    // these (the kernels' racecheck: docs/perf-notes.md, Batched LU Versions 27 and 28).
    if !gpu_blas::testing::under_sanitizer() {
        let orders: Vec<usize> = (8..16).flat_map(|r| [32 * r + 1, 32 * r + 32]).collect();
        mid_inverse_orders::<T>(dev, &orders);
    }
}

/// The mid-size inverse kernels whose backward substitution reads U's columns divided by their
/// diagonal (complex types, real ones from five rows per lane), one order per form: whole
/// factors in half-warp groups (f32 100, f64 128, c64 48), whole factors in whole warps (f32
/// 129), one triangle at a time (c128 128), as `mid_inverse` checks them (an exactly-zero
/// `U(j, j)` among them, whose scaled column must still give NaN). Small enough for the race
/// checker.
fn prescaled_inverse<T: Scalar>(dev: &Device) {
    let orders: &[usize] = match (T::IS_COMPLEX, std::mem::size_of::<T>()) {
        (false, 4) => &[100, 129],
        (false, _) => &[128],
        (true, 8) => &[48],
        _ => &[128],
    };
    mid_inverse_orders::<T>(dev, orders);
}

/// `mid_inverse`'s checks at each of `orders`.
fn mid_inverse_orders<T: Scalar>(dev: &Device, orders: &[usize]) {
    for &n in orders {
        let seed = 91 * n as u64;
        let mats = vec![
            well::<T>(n, seed),
            swap_every_step::<T>(n, seed + 1),
            zero_col::<T>(n, n / 3, seed + 2),
            well::<T>(n, seed + 3),
            well::<T>(n, seed + 4),
        ];
        let (l, a, piv, info) = factored(dev, n, &mats);
        // Matrix 3's factors get an exactly-zero U(j, j) with info left at 0.
        let mut f = a.to_vec().unwrap();
        let j = n - 2;
        f[3 * n * n + j + j * n] = T::zero();
        let a = DeviceVec::from_slice(dev, &f).unwrap();
        let mut inv = DeviceVec::zeros(dev, n * n * l.batch).unwrap();
        getri_batched(l, &a, &piv, &info, &mut inv, n * n).unwrap();
        let (ih, x) = (info.to_vec().unwrap(), inv.to_vec().unwrap());
        assert_eq!(ih, vec![0, 0, (n / 3 + 1) as i32, 0, 0], "n = {n}");
        for (k, m) in mats.iter().enumerate() {
            let what = format!("{} n = {n}, matrix {k}", T::PREFIX);
            let r = k * n * n..(k + 1) * n * n;
            if k == 2 || k == 3 {
                assert!(x[r].iter().all(|v| v.is_nan()), "{what}: not NaN");
            } else {
                assert_inverse(n, m, &x[r], &what);
            }
        }
    }
}

/// A batch in and out of `ndarray` (shape (batch, n, n), `a[[k, i, j]] = A_k(i, j)`): the
/// factors and pivots read back as arrays reconstruct each matrix, and the inverse read back
/// as an array is each matrix's inverse (register, row and blocked kernels by order).
fn through_arrays<T: Scalar>(dev: &Device) {
    for n in [5, 40, 100] {
        let mats: Vec<Vec<T>> = (0..3).map(|k| well::<T>(n, 7 * n as u64 + k)).collect();
        let a = ndarray::Array3::from_shape_fn((3, n, n), |(k, i, j)| mats[k][i + j * n]);
        let (l, d) = batch_from_array(dev, &a).unwrap();
        assert_eq!(l, BatchLayout::packed(n, 3));
        let mut inv = DeviceVec::zeros(dev, 3 * n * n).unwrap();
        let info = inverse_batched(l, &d, &mut inv, n * n).unwrap();
        assert_eq!(l.check_info(&info).unwrap(), vec![0; 3]);
        let x = batch_to_array(l, &inv).unwrap();
        let mut f = d;
        let mut piv = DeviceVec::zeros(dev, 3 * n).unwrap();
        let mut info = DeviceVec::zeros(dev, 3).unwrap();
        getrf_batched(l, &mut f, &mut piv, &mut info).unwrap();
        let (fa, pa) = (
            batch_to_array(l, &f).unwrap(),
            pivots_to_array(l, &piv).unwrap(),
        );
        for (k, m) in mats.iter().enumerate() {
            let what = format!("{} n = {n}, matrix {k}", T::PREFIX);
            let col_major = |b: &ndarray::Array3<T>| -> Vec<T> {
                (0..n * n).map(|e| b[[k, e % n, e / n]]).collect()
            };
            assert_inverse(n, m, &col_major(&x), &what);
            assert_lu(n, m, &col_major(&fa), &pa.row(k).to_vec(), &what);
        }
    }
}

gpu_blas::device_tests! {
    fn batches_through_ndarray(dev) {
        for_all_types!(through_arrays, dev);
    }
    fn order_1024_f64_and_c128(dev) {
        if gpu_blas::testing::under_sanitizer() {
            // Covered by the plain test run; under the sanitizer it would take minutes.
            return;
        }
        order_1024::<f64>(dev);
        order_1024::<Complex64>(dev);
    }
    fn calls_from_two_threads(dev) {
        // Under the sanitizer the calls would take minutes.
        if gpu_blas::testing::under_sanitizer() {
            return;
        }
        // The race the GPU run looks for needs many calls; the CPU backend's two threads of
        // calls are checked with two each.
        concurrent_orders(dev, if dev.is_cpu() { 2 } else { 40 });
    }
    fn getrf_reconstructs_mixed_batches(dev) {
        for_all_types!(factor_mixed, dev);
    }
    fn overflow_inside_the_factorization(dev) {
        overflow_to_nan(dev);
    }
    fn getrf_zero_matrix_and_pivot_ties(dev) {
        for_all_types!(zero_matrix_and_ties, dev);
    }
    fn inverse_residuals_and_singular_nan(dev) {
        for_all_types!(inverse, dev);
    }
    fn solves_n_t_c(dev) {
        for_all_types!(solves, dev);
    }
    fn solve_forms_at_their_edges(dev) {
        for_all_types!(solve_forms, dev);
    }
    fn register_kernels_each_width(dev) {
        for_all_types!(register_widths, dev);
    }
    fn mid_inverse_each_order(dev) {
        for_all_types!(mid_inverse, dev);
    }
    fn four_part_triangle_inverse(dev) {
        for_all_types!(four_part_inverse, dev);
    }
    fn triangle_staging_forms(dev) {
        for_all_types!(staged_triangle_inverse, dev);
    }
    fn prescaled_backward_each_form(dev) {
        for_all_types!(prescaled_inverse, dev);
    }
    fn row_factorization_each_order(dev) {
        for_all_types!(row_factorization, dev);
    }
    fn empty_batches(dev) {
        let l = BatchLayout { n: 0, batch: 3, stride: 0 };
        let mut a = DeviceVec::<f64>::zeros(dev, 0).unwrap();
        let mut piv = DeviceVec::zeros(dev, 0).unwrap();
        let mut info = DeviceVec::from_slice(dev, &[7, 7, 7]).unwrap();
        let r = getrf_batched(l, &mut a, &mut piv, &mut info);
        r.unwrap();
        assert_eq!(info.to_vec().unwrap(), vec![0, 0, 0]);
        let l = BatchLayout::packed(4, 0);
        let mut inv = DeviceVec::<f64>::zeros(dev, 0).unwrap();
        assert!(inverse_batched(l, &a, &mut inv, 16).unwrap().is_empty());
    }
}
