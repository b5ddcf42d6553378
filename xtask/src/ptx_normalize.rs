//! Removes the two things that make nvcc's `-lineinfo` PTX depend on where
//! the repository and the toolkit live:
//!
//! * `.file N "/abs/path"` directives: rewritten to relative names
//!   (`kernels/blas1.cu`, `cuda/include/...`);
//! * the module id that cicc derives from the source's absolute path and puts
//!   into the mangled names of internal-linkage functions and anonymous
//!   namespaces (`_ZN39_INTERNAL_caf4ef65_8_blas1_cu_...`,
//!   `_GLOBAL__N__caf4ef65_...`; with `-lineinfo` such names also appear in
//!   `.debug_str` as `.b8` byte lists): replaced by a hash of the relative
//!   source name, of the same length so the mangling stays valid.
//!
//! Everything downstream (ptxas SASS, fatbinary) is built from the rewritten
//! PTX, so it inherits the path independence.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// The markers after which cicc puts the module id in mangled names
/// (internal linkage; anonymous namespaces).
const ID_MARKERS: [&[u8]; 2] = [b"_INTERNAL_", b"_GLOBAL__N__"];

/// Returns `ptx` with every absolute path in a `.file N "path"` directive that
/// lies under one of `prefixes` replaced by the prefix's name joined with the
/// rest of the path (after lexical normalization of `.`, `..` and `//`).
pub fn rewrite_file_directives(ptx: &str, prefixes: &[(PathBuf, &str)]) -> String {
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.split_inclusive('\n') {
        out.push_str(&rewrite_file_line(line, prefixes).unwrap_or_else(|| line.to_owned()));
    }
    out
}

/// The rewritten `line` if it is a `.file` directive with a path to rewrite.
fn rewrite_file_line(line: &str, prefixes: &[(PathBuf, &str)]) -> Option<String> {
    if !line.trim_start().starts_with(".file") {
        return None;
    }
    let start = line.find('"')? + 1;
    let len = line[start..].find('"')?;
    let path = &line[start..start + len];
    let relative = relativize(Path::new(path), prefixes)?;
    Some(format!(
        "{}{relative}{}",
        &line[..start],
        &line[start + len..]
    ))
}

/// `path` relative to the longest matching prefix, or `None`.
fn relativize(path: &Path, prefixes: &[(PathBuf, &str)]) -> Option<String> {
    if !path.is_absolute() {
        return None;
    }
    let normalized = normalize(path);
    prefixes.iter().find_map(|(prefix, name)| {
        let rest = normalized.strip_prefix(prefix).ok()?;
        let rest = rest.to_str()?;
        Some(match (name.is_empty(), rest.is_empty()) {
            (true, _) => rest.to_owned(),
            (false, true) => (*name).to_owned(),
            (false, false) => format!("{name}/{rest}"),
        })
    })
}

/// Lexically normalizes an absolute path: drops `.` and empty components and
/// resolves `..` (fine here: the toolkit and kernel paths are canonical).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Replaces cicc's path-derived module id in mangled names, both in
/// plain PTX text and inside `.debug_str` `.b8` byte lists, by a hex hash of
/// `seed` (use the relative source name) of the same length.
pub fn normalize_module_ids(ptx: &str, seed: &str) -> String {
    let lines: Vec<&str> = ptx.split_inclusive('\n').collect();
    let in_debug_str = debug_str_lines(&lines);

    // Decode the .debug_str byte lists into one buffer, remembering how many
    // bytes each line holds, so the buffer can be written back line by line.
    let mut bytes = Vec::new();
    let byte_counts: Vec<Option<usize>> = lines
        .iter()
        .zip(&in_debug_str)
        .map(|(line, &inside)| {
            let values = parse_b8(line).filter(|_| inside)?;
            bytes.extend_from_slice(&values);
            Some(values.len())
        })
        .collect();

    let mut ids = module_ids(&bytes);
    for (line, count) in lines.iter().zip(&byte_counts) {
        if count.is_none() {
            ids.extend(module_ids(line.as_bytes()));
        }
    }
    if ids.is_empty() {
        return ptx.to_owned();
    }
    // One translation unit has one module id; should there ever be several,
    // they all map to the same value (their order depends on the old ids).
    let hash = format!("{:016x}", fnv1a64(seed));
    let replacements: Vec<(Vec<u8>, Vec<u8>)> = ids
        .into_iter()
        .map(|id| {
            let new_id = hash.bytes().cycle().take(id.len()).collect();
            (id, new_id)
        })
        .collect();

    replace_ids(&mut bytes, &replacements);
    let mut out = String::with_capacity(ptx.len());
    let mut rest = bytes.as_slice();
    for (line, count) in lines.iter().zip(&byte_counts) {
        if let Some(count) = *count {
            let (chunk, tail) = rest.split_at(count);
            rest = tail;
            out.push_str(&format_b8(line, chunk));
        } else {
            let mut text = line.as_bytes().to_vec();
            replace_ids(&mut text, &replacements);
            out.push_str(&String::from_utf8(text).expect("ASCII ids keep UTF-8 valid"));
        }
    }
    out
}

/// For each line, whether it lies inside a `.section .debug_str { ... }` block.
fn debug_str_lines(lines: &[&str]) -> Vec<bool> {
    let mut inside = false;
    lines
        .iter()
        .map(|line| {
            let trimmed = line.trim();
            if trimmed.starts_with(".section") {
                inside = trimmed.contains(".debug_str");
            } else if inside && trimmed == "}" {
                inside = false;
                return true;
            }
            inside
        })
        .collect()
}

/// The values of a `.b8 1,2,3` line, or `None` for any other line.
fn parse_b8(line: &str) -> Option<Vec<u8>> {
    let list = line.trim().strip_prefix(".b8 ")?;
    list.split(',').map(|v| v.trim().parse().ok()).collect()
}

/// A `.b8` line like `template` (same indentation and line ending) holding `values`.
fn format_b8(template: &str, values: &[u8]) -> String {
    let indent_len = template.len() - template.trim_start().len();
    let ending = &template[template.trim_end().len()..];
    let list: Vec<String> = values.iter().map(u8::to_string).collect();
    format!("{}.b8 {}{ending}", &template[..indent_len], list.join(","))
}

/// The distinct ids `X` in `_INTERNAL_X_` or `_GLOBAL__N__X_` (X lowercase
/// hex) found in `bytes`.
fn module_ids(bytes: &[u8]) -> BTreeSet<Vec<u8>> {
    let mut ids = BTreeSet::new();
    for marker in ID_MARKERS {
        let mut at = 0;
        while let Some(pos) = find(&bytes[at..], marker) {
            let start = at + pos + marker.len();
            let len = bytes[start..]
                .iter()
                .take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
                .count();
            if len > 0 && bytes.get(start + len) == Some(&b'_') {
                ids.insert(bytes[start..start + len].to_vec());
            }
            at = start;
        }
    }
    ids
}

/// Replaces, in place, every `_<old>_` by `_<new>_` (same lengths): the id
/// appears after several markers, and between underscores a random hex
/// string is not going to be anything else.
fn replace_ids(bytes: &mut [u8], replacements: &[(Vec<u8>, Vec<u8>)]) {
    for (old, new) in replacements {
        let pattern = [b"_", old.as_slice(), b"_"].concat();
        let mut at = 0;
        while let Some(pos) = find(&bytes[at..], &pattern) {
            let start = at + pos + 1;
            bytes[start..start + new.len()].copy_from_slice(new);
            at = start + new.len();
        }
    }
}

/// The position of the first `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// 64-bit FNV-1a: a small stable hash (std's hashers are not stable).
fn fnv1a64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_kernel_and_toolkit_paths() {
        let prefixes = vec![
            (PathBuf::from("/repo/kernels"), "kernels"),
            (
                PathBuf::from("/home/u/.cache/gpu-linalg/nvcc/nvidia/cu13"),
                "cuda",
            ),
            (PathBuf::from("/repo"), ""),
        ];
        let ptx = "\t.file\t1 \"/repo/kernels/blas1.cu\"\n\
                   \t.file\t2 \"/repo/kernels/./common.cuh\"\n\
                   \t.file\t3 \"/home/u/.cache/gpu-linalg/nvcc/nvidia/cu13/bin/..//include/sm_60_atomic_functions.hpp\"\n\
                   \t.file\t4 \"/repo/kernels/../include/x.cuh\", 123, 456\n\
                   \t.file\t5 \"/usr/include/c++/12/cmath\"\n\
                   \tld.global.f64 %fd1, [%rd1]; // \"/repo/kernels/x\"\n";
        let expected = "\t.file\t1 \"kernels/blas1.cu\"\n\
                        \t.file\t2 \"kernels/common.cuh\"\n\
                        \t.file\t3 \"cuda/include/sm_60_atomic_functions.hpp\"\n\
                        \t.file\t4 \"include/x.cuh\", 123, 456\n\
                        \t.file\t5 \"/usr/include/c++/12/cmath\"\n\
                        \tld.global.f64 %fd1, [%rd1]; // \"/repo/kernels/x\"\n";
        assert_eq!(rewrite_file_directives(ptx, &prefixes), expected);
    }

    /// `s` as the comma-separated decimal bytes of a `.b8` list.
    fn b8(s: &str) -> String {
        s.bytes()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// A PTX snippet with module id `id` in a function name and in a debug
    /// string whose `.b8` list is split in the middle of the id, as PTX line
    /// wrapping may do.
    fn sample(id: &str) -> String {
        let name = format!("_ZN35_INTERNAL_{id}_8_blas1_cu_dot_s9atomicAddEPjj");
        let (a, b) = name.split_at(18);
        format!(
            ".func {name}()\n{{\n}}\n\t.section\t.debug_str\n\t{{\n$L__info_string0:\n.b8 {}\n.b8 {},0\n\n\t}}\n",
            b8(a),
            b8(b)
        )
    }

    #[test]
    fn replaces_module_ids_in_text_and_split_debug_strings() {
        let ptx = sample("caf4ef65");
        let out = normalize_module_ids(&ptx, "kernels/blas1.cu");
        assert!(!out.contains("caf4ef65"), "{out}");
        assert!(!out.contains(&b8("caf4ef65")), "{out}");
        let new_name = out
            .lines()
            .next()
            .unwrap()
            .trim_start_matches(".func ")
            .trim_end_matches("()");
        assert_eq!(
            new_name.len(),
            "_ZN35_INTERNAL_caf4ef65_8_blas1_cu_dot_s9atomicAddEPjj".len()
        );
        assert!(
            new_name.starts_with("_ZN35_INTERNAL_")
                && new_name.ends_with("_8_blas1_cu_dot_s9atomicAddEPjj")
        );
        // The debug string decodes to the same new name.
        let decoded: Vec<u8> = out.lines().filter_map(parse_b8).flatten().collect();
        assert_eq!(decoded, [new_name.as_bytes(), &[0]].concat());
        // Another id (another checkout path) gives the same result; another
        // source name a different one.
        assert_eq!(
            out,
            normalize_module_ids(&sample("eeb7fed8"), "kernels/blas1.cu")
        );
        assert_ne!(out, normalize_module_ids(&ptx, "kernels/other.cu"));
        assert_eq!(normalize_module_ids("no ids\n", "x"), "no ids\n");
    }

    #[test]
    fn replaces_module_ids_of_anonymous_namespaces() {
        let ptx = |id: &str| {
            format!(".func _ZN39_INTERNAL_{id}_10__probe2_cu_probe241_GLOBAL__N__{id}_10__probe2_cu_probe26helperEd()\n")
        };
        let out = normalize_module_ids(&ptx("599e8b51"), "kernels/_probe2.cu");
        assert!(!out.contains("599e8b51"), "{out}");
        assert_eq!(
            out,
            normalize_module_ids(&ptx("ee41059e"), "kernels/_probe2.cu")
        );
    }
}
