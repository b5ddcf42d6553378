//! The bordering inverse, unblocked and blocked, on SPD, Hermitian indefinite and complex
//! Hermitian matrices; one triangle read; breakdown on a singular leading block.

use crate::common::*;
use dense_inverse::{bordering_inverse, bordering_inverse_in_place, lu_inverse, Bordering, Error};
use gpu_blas::blas2::Uplo;
use gpu_blas::Scalar;

const VARIANTS: &[Bordering] = &[
    Bordering::Unblocked,
    Bordering::Blocked(1),
    Bordering::Blocked(7),
    Bordering::Blocked(64),
    Bordering::Blocked(80),
];

fn with_nan_above<T: Scalar>(n: usize, a: &[T]) -> Vec<T> {
    let mut p = a.to_vec();
    for j in 0..n {
        for i in 0..j {
            p[j * n + i] = T::from_f64(f64::NAN);
        }
    }
    p
}

fn spd_and_indefinite<T: Scalar>(dev: &gpu_blas::Device) {
    // Under the sanitizer every kernel runs tens of times slower: the sizes that reach each
    // code path (empty, 1×1, one partial 64-row step, more than one step) are kept.
    let sizes: &[usize] = if gpu_blas::testing::under_sanitizer() {
        &[0, 1, 13, 100]
    } else {
        &[0, 1, 2, 13, 64, 100]
    };
    for &n in sizes {
        for (kind, a) in [
            ("spd", spd::<T>(n, 31 + n as u64)),
            ("indefinite", hermitian_indefinite::<T>(n, 37 + n as u64)),
        ] {
            for &v in VARIANTS {
                let ad = upload(dev, n, &with_nan_above(n, &a));
                let x = bordering_inverse(Uplo::Lower, &ad, v);
                let x = download(&x.unwrap());
                assert_inverse(n, &a, &x, &format!("bordering {kind} {v:?}"));
                let ad = upload(dev, n, &a);
                let xu = download(&bordering_inverse(Uplo::Upper, &ad, v).unwrap());
                assert_inverse(n, &a, &xu, &format!("bordering upper {kind} {v:?}"));
            }
        }
    }
}

fn in_place_view<T: Scalar>(dev: &gpu_blas::Device) {
    let n = 70;
    let a = spd::<T>(n, 3);
    for v in [Bordering::Blocked(16), Bordering::Unblocked] {
        let mut big = padded(dev, n, &a);
        let r = bordering_inverse_in_place(Uplo::Upper, big.block_mut(1, 2, n, n).unwrap(), v);
        r.unwrap();
        let (x, outside) = unpad(&big, n);
        assert!(outside, "wrote outside the view ({v:?})");
        assert_inverse(n, &a, &x, &format!("bordering in place {v:?}"));
    }
}

fn breakdown<T: Scalar>(dev: &gpu_blas::Device) {
    // Leading 3×3 block singular (row/column 2 = row/column 0), the whole matrix invertible:
    // a = spd with a[2][j] = a[0][j] for j < 3 except the diagonal fix-up below.
    let n = 20;
    let mut a = spd::<T>(n, 6);
    for j in 0..3 {
        let v = a[j * n];
        a[j * n + 2] = v;
        a[2 * n + j] = v.conj();
    }
    a[2 * n + 2] = a[0];
    let ad = upload(dev, n, &a);
    for &v in VARIANTS {
        let r = bordering_inverse(Uplo::Lower, &ad, v);
        match r {
            Err(Error::SingularLeadingBlock {
                step,
                beta,
                threshold,
                ..
            }) => {
                assert_eq!(step, 3, "{v:?}");
                assert!(beta <= threshold);
            }
            other => panic!("expected a breakdown at step 3, got {other:?}"),
        }
    }
    // The pivoted method inverts the same matrix.
    let x = download(&lu_inverse(&ad).unwrap());
    assert_inverse(n, &a, &x, "lu on the bordering breakdown");
    let mut m = upload(dev, n, &a);
    let e = bordering_inverse_in_place(Uplo::Upper, &mut m, Bordering::Unblocked).unwrap_err();
    assert!(e.to_string().contains("lu_inverse"), "{e}");
    assert_eq!(download(&m), a, "buffer written on error");
}

/// The unblocked steps on full complex 64 × 64 tiles of the triangle (above and on the
/// diagonal) and a partial last tile column.
fn unblocked_complex_tiles<T: Scalar>(dev: &gpu_blas::Device) {
    let n = 200;
    let a = spd::<T>(n, 9);
    let x = bordering_inverse(Uplo::Upper, &upload(dev, n, &a), Bordering::Unblocked);
    assert_inverse(n, &a, &download(&x.unwrap()), "unblocked bordering 200");
}

gpu_blas::device_tests! {
    fn bordering_all_types(dev) { for_all_types!(spd_and_indefinite, dev); }
    fn bordering_in_place_view(dev) { for_all_types!(in_place_view, dev); }
    fn bordering_breakdown(dev) { for_all_types!(breakdown, dev); }
    fn bordering_large_513(dev) {
        let n = 513;
        let a = spd::<f64>(n, 8);
        for v in [
            Bordering::Unblocked,
            Bordering::Blocked(64),
            Bordering::Blocked(200),
        ] {
            let x = bordering_inverse(Uplo::Lower, &upload(dev, n, &a), v);
            assert_inverse(n, &a, &download(&x.unwrap()), "bordering 513");
        }
    }
    fn bordering_unblocked_complex_200(dev) {
        unblocked_complex_tiles::<num_complex::Complex32>(dev);
        unblocked_complex_tiles::<num_complex::Complex64>(dev);
    }
}
