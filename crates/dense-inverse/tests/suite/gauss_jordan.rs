//! Blocked Gauss-Jordan with partial pivoting against Complex64 references; singular input.

use crate::common::*;
use dense_inverse::{gauss_jordan_inverse, gauss_jordan_inverse_in_place, Error};
use gpu_blas::Scalar;

fn general_sizes<T: Scalar>(dev: &gpu_blas::Device) {
    for &n in &[0usize, 1, 2, 3, 33, 63, 64, 65, 128, 190] {
        let a = general::<T>(n, 21 + n as u64);
        let x = gauss_jordan_inverse(&upload(dev, n, &a)).unwrap();
        assert_inverse(n, &a, &download(&x), "gauss_jordan_inverse");
        let mut big = padded(dev, n, &a);
        gauss_jordan_inverse_in_place(big.block_mut(1, 2, n, n).unwrap()).unwrap();
        let (x, outside) = unpad(&big, n);
        assert!(outside, "wrote outside the view");
        assert_inverse(n, &a, &x, "gauss_jordan_inverse_in_place");
    }
}

fn singular<T: Scalar>(dev: &gpu_blas::Device) {
    // Zero columns inside a panel, at the first and last column of one, and in the last one.
    for &(n, j) in &[
        (1usize, 0usize),
        (4, 3),
        (100, 70),
        (200, 63),
        (200, 64),
        (130, 129),
    ] {
        let a = zero_col::<T>(n, j, 8);
        let mut m = upload(dev, n, &a);
        assert_eq!(
            gauss_jordan_inverse(&m).unwrap_err(),
            Error::Singular {
                op: "gauss_jordan_inverse",
                step: j + 1
            }
        );
        let r = gauss_jordan_inverse_in_place(&mut m);
        assert_eq!(
            r.unwrap_err(),
            Error::Singular {
                op: "gauss_jordan_inverse_in_place",
                step: j + 1
            }
        );
        assert_eq!(download(&m), a, "buffer written on error");
    }
}

gpu_blas::device_tests! {
    fn gauss_jordan_all_types(dev) { for_all_types!(general_sizes, dev); }
    fn gauss_jordan_singular(dev) { for_all_types!(singular, dev); }
    fn gauss_jordan_large_513(dev) {
        let n = 513;
        let a = general::<f32>(n, 5);
        let x = gauss_jordan_inverse(&upload(dev, n, &a)).unwrap();
        assert_inverse(n, &a, &download(&x), "gauss_jordan 513");
    }
}
