//! Blocked Gauss-Jordan with partial pivoting against Complex64 references; singular input.

use crate::common::*;
use dense_inverse::{gauss_jordan_inverse, gauss_jordan_inverse_in_place, Error};
use gpu_blas::Scalar;

fn general_sizes<T: Scalar>(dev: &gpu_blas::Device) {
    for &n in &[0usize, 1, 2, 3, 33, 63, 64, 65, 128, 190] {
        let a = general::<T>(n, 21 + n as u64);
        let Some(x) = cpu_only(dev, gauss_jordan_inverse(&upload(dev, n, &a))) else {
            return;
        };
        assert_inverse(n, &a, &download(&x.unwrap()), "gauss_jordan_inverse");
        let mut big = padded(dev, n, &a);
        gauss_jordan_inverse_in_place(big.block_mut(1, 2, n, n).unwrap()).unwrap();
        let (x, outside) = unpad(&big, n);
        assert!(outside, "wrote outside the view");
        assert_inverse(n, &a, &x, "gauss_jordan_inverse_in_place");
    }
}

fn singular<T: Scalar>(dev: &gpu_blas::Device) {
    for &(n, j) in &[(1usize, 0usize), (4, 3), (100, 70)] {
        let a = zero_col::<T>(n, j, 8);
        let mut m = upload(dev, n, &a);
        let Some(r) = cpu_only(dev, gauss_jordan_inverse_in_place(&mut m)) else {
            return;
        };
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
        let Some(x) = cpu_only(dev, gauss_jordan_inverse(&upload(dev, n, &a))) else { return };
        assert_inverse(n, &a, &download(&x.unwrap()), "gauss_jordan 513");
    }
}
