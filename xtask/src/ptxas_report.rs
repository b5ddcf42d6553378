//! Parses `ptxas -v` output into per-function resource usage and renders it
//! as a compact table.

/// Resource usage of one function as reported by `ptxas -v`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FunctionResources {
    /// The (possibly mangled) function name.
    pub name: String,
    /// Whether it is a kernel (`.entry`) rather than a non-inlined device function.
    pub entry: bool,
    /// Registers per thread (reported for entries only).
    pub registers: Option<u32>,
    /// Static shared memory in bytes.
    pub smem: u64,
    /// Stack frame in bytes.
    pub stack: u64,
    /// Register spill stores in bytes.
    pub spill_stores: u64,
    /// Register spill loads in bytes.
    pub spill_loads: u64,
}

/// Parses the info lines of `ptxas -v`, in order of first mention.
pub fn parse(text: &str) -> Vec<FunctionResources> {
    let mut functions: Vec<FunctionResources> = Vec::new();
    // "Used N registers" belongs to the entry being compiled; the "N bytes
    // stack frame" line to the function named by the preceding "Function
    // properties for" line (which may be a device function).
    let mut current_entry = None;
    let mut current_props = None;
    for line in text.lines() {
        if let Some(rest) = after(line, "Compiling entry function '") {
            let name = rest.split('\'').next().unwrap_or(rest);
            let i = index_of(&mut functions, name);
            functions[i].entry = true;
            current_entry = Some(i);
        } else if let Some(name) = after(line, "Function properties for ") {
            current_props = Some(index_of(&mut functions, name.trim()));
        } else if line.contains("bytes stack frame") {
            if let Some(i) = current_props.take() {
                for part in line.split(',') {
                    let value = leading_number(part);
                    let f = &mut functions[i];
                    if part.contains("stack frame") {
                        f.stack = value;
                    } else if part.contains("spill stores") {
                        f.spill_stores = value;
                    } else if part.contains("spill loads") {
                        f.spill_loads = value;
                    }
                }
            }
        } else if let Some(rest) = after(line, "Used ") {
            if let Some(i) = current_entry {
                for part in rest.split(',') {
                    let f = &mut functions[i];
                    if part.contains("registers") {
                        f.registers = u32::try_from(leading_number(part)).ok();
                    } else if part.trim().ends_with("bytes smem") {
                        f.smem = leading_number(part);
                    }
                }
            }
        }
    }
    functions
}

/// The index of function `name` in `functions`, appending it if new.
fn index_of(functions: &mut Vec<FunctionResources>, name: &str) -> usize {
    if let Some(i) = functions.iter().position(|f| f.name == name) {
        return i;
    }
    functions.push(FunctionResources {
        name: name.to_owned(),
        ..FunctionResources::default()
    });
    functions.len() - 1
}

/// The text after the first occurrence of `marker` in `line`.
fn after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.find(marker).map(|i| &line[i + marker.len()..])
}

/// The first unsigned number in `text` (0 if none).
fn leading_number(text: &str) -> u64 {
    text.split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Renders rows of `(source file, function)` as an aligned table.
pub fn render(rows: &[(String, FunctionResources)]) -> String {
    let header = [
        "file",
        "function",
        "regs",
        "smem B",
        "stack B",
        "spill st B",
        "spill ld B",
    ];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|(file, f)| {
            [
                file.clone(),
                if f.entry {
                    f.name.clone()
                } else {
                    format!("{} (device fn)", f.name)
                },
                f.registers
                    .map_or_else(|| "-".to_owned(), |r| r.to_string()),
                f.smem.to_string(),
                f.stack.to_string(),
                f.spill_stores.to_string(),
                f.spill_loads.to_string(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let mut out = String::new();
    let mut push_row = |row: &[&str]| {
        let mut line = String::new();
        for (col, (cell, width)) in row.iter().zip(widths).enumerate() {
            if col < 2 {
                line.push_str(&format!("{cell:<width$}  "));
            } else {
                line.push_str(&format!("{cell:>width$}  "));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    };
    push_row(&header);
    for row in &cells {
        push_row(&row.each_ref().map(String::as_str));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Function properties for _Z6helperPd
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'probe_sum' for 'sm_90'
ptxas info    : Function properties for probe_sum
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 14 registers, used 1 barriers, 2048 bytes smem
ptxas info    : Compile time = 5.731 ms
ptxas info    : Compiling entry function 'probe_axpy' for 'sm_90'
ptxas info    : Function properties for probe_axpy
    16 bytes stack frame, 0 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers, 380 bytes cmem[0]
";

    #[test]
    fn parses_entries_and_device_functions() {
        let parsed = parse(SAMPLE);
        assert_eq!(parsed.len(), 3);
        assert_eq!(parsed[0].name, "_Z6helperPd");
        assert!(!parsed[0].entry);
        assert_eq!((parsed[0].stack, parsed[0].spill_stores), (8, 4));
        assert_eq!(
            parsed[1],
            FunctionResources {
                name: "probe_sum".into(),
                entry: true,
                registers: Some(14),
                smem: 2048,
                ..FunctionResources::default()
            }
        );
        assert_eq!(parsed[2].registers, Some(12));
        assert_eq!(
            (parsed[2].smem, parsed[2].stack, parsed[2].spill_loads),
            (0, 16, 8)
        );
        let table = render(&[("x.cu".into(), parsed[1].clone())]);
        assert!(table.contains("probe_sum"), "{table}");
        assert!(table.lines().nth(1).unwrap().contains("2048"), "{table}");
    }
}
