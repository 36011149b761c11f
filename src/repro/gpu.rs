//! The replay as a CUDA kernel: compiled with NVRTC, launched with the logged kernel's grid and
//! block, run synchronized. cudarc loads libcuda and libnvrtc at run time, so the binary runs
//! on machines without CUDA; it panics when a library is missing, so presence is checked first
//! (and every call is fenced against a panic anyway).
//!
//! NVRTC is looked for on the system library path and in the user's torch install: pip wheels
//! keep it under `site-packages/nvidia/*/lib` (cu12: `cuda_nvrtc/lib`, cu13: `cu13/lib`). A
//! library found there is loaded by absolute path first, so the loader's later lookup by name
//! (its soname) finds it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::repro::replay::{Plan, Predicate};

const SOURCE: &str = r#"
__device__ int cs_bad(double x, double lo, double hi, int hi_incl, int has_ign, double ign) {
    if (has_ign && x == ign) return 0;
    int up = hi_incl ? (x <= hi) : (x < hi);
    return !(x >= lo && up);
}

extern "C" __global__ void cs_replay(const double* v, long long n, int plan, long long p0, long long p1,
                                     double lo, double hi, int hi_incl, int has_ign, double ign,
                                     unsigned int* flags) {
    long long b = blockIdx.x, t = threadIdx.x;
    int failed = 0;
    if (plan == 0) {            /* one block; thread t checks t, t + p0, ... */
        for (long long e = t; e < n; e += p0)
            if (cs_bad(v[e], lo, hi, hi_incl, has_ign, ign)) { failed = 1; break; }
    } else if (plan == 1) {     /* p1 elements per thread, p0 threads per block */
        long long base = b * p0 * p1 + t;
        for (long long j = 0; j < p1; ++j) {
            long long e = base + p0 * j;
            if (e < n && cs_bad(v[e], lo, hi, hi_incl, has_ign, ign)) { failed = 1; break; }
        }
    } else if (plan == 2) {     /* p1 blocks of 1024 per sample of p0 elements */
        long long sample = b / p1;
        for (long long i = (b % p1) * 1024 + t; i < p0; i += 1024 * p1) {
            long long e = sample * p0 + i;
            if (e < n && cs_bad(v[e], lo, hi, hi_incl, has_ign, ign)) { failed = 1; break; }
        }
    } else if (plan == 3) {     /* one block per element */
        if (t == 0 && b < n && cs_bad(v[b], lo, hi, hi_incl, has_ign, ign)) failed = 1;
    } else if (t == 0) {        /* p0 consecutive elements per block */
        for (long long e = b * p0; e < (b + 1) * p0 && e < n; ++e)
            if (cs_bad(v[e], lo, hi, hi_incl, has_ign, ign)) { failed = 1; break; }
    }
    if (failed) flags[b * blockDim.x + t] = 1;
}
"#;

/// Directories of the user's Python environments that may hold pip's NVIDIA libraries.
fn python_lib_dirs(python: Option<&str>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let pys: Vec<&str> = match python {
        Some(p) => vec![p],
        None => vec!["python3", "python"],
    };
    for py in pys {
        let Ok(out) = std::process::Command::new(py)
            .args(["-c", "import site, sys; print('\\n'.join(site.getsitepackages() + [site.getusersitepackages()]))"])
            .stderr(std::process::Stdio::null())
            .output()
        else {
            continue;
        };
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let sp = Path::new(line.trim());
            for sub in ["nvidia", "torch/lib"] {
                let base = sp.join(sub);
                if sub == "nvidia" {
                    if let Ok(rd) = std::fs::read_dir(&base) {
                        for e in rd.flatten() {
                            dirs.push(e.path().join("lib"));
                        }
                    }
                } else if base.is_dir() {
                    dirs.push(base);
                }
            }
        }
        if !dirs.is_empty() {
            break;
        }
    }
    dirs
}

/// Load libnvrtc from the user's torch install when the system has none on its path.
#[cfg(unix)]
fn preload_nvrtc(python: Option<&str>) -> Option<PathBuf> {
    for dir in python_lib_dirs(python) {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        let mut libs: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().map(|n| n.to_string_lossy().starts_with("libnvrtc.so")).unwrap_or(false))
            .collect();
        libs.sort();
        for lib in libs {
            let Ok(c) = std::ffi::CString::new(lib.as_os_str().to_string_lossy().as_bytes()) else { continue };
            // SAFETY: dlopen of a shared library by path; the handle is kept for the process.
            let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
            if !h.is_null() {
                return Some(lib);
            }
        }
    }
    None
}

#[cfg(not(unix))]
fn preload_nvrtc(_python: Option<&str>) -> Option<PathBuf> {
    None
}

/// Whether a GPU replay can run here; the reason when not.
pub fn available(python: Option<&str>) -> Result<String, String> {
    // SAFETY: cudarc's presence checks only try to open the libraries.
    let driver = std::panic::catch_unwind(|| unsafe { cudarc::driver::sys::is_culib_present() }).unwrap_or(false);
    if !driver {
        return Err("no CUDA driver (libcuda) on this machine".into());
    }
    let mut nvrtc = std::panic::catch_unwind(|| unsafe { cudarc::nvrtc::sys::is_culib_present() }).unwrap_or(false);
    let mut from = "the system library path".to_string();
    if !nvrtc {
        if let Some(p) = preload_nvrtc(python) {
            from = p.display().to_string();
            nvrtc = std::panic::catch_unwind(|| unsafe { cudarc::nvrtc::sys::is_culib_present() }).unwrap_or(false);
        }
    }
    if !nvrtc {
        return Err("no NVRTC (libnvrtc) on the library path or in the Python environment's nvidia packages".into());
    }
    Ok(from)
}

fn run(values: &[f64], plan: Plan, pred: &Predicate) -> Result<BTreeSet<(u32, u32)>, String> {
    use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
    let n = values.len() as u64;
    let (grid, block) = plan.launch(n);
    let ptx = cudarc::nvrtc::compile_ptx(SOURCE).map_err(|e| format!("NVRTC: {e:?}"))?;
    let ctx = CudaContext::new(0).map_err(|e| format!("CUDA context: {e:?}"))?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(ptx).map_err(|e| format!("load module: {e:?}"))?;
    let f = module.load_function("cs_replay").map_err(|e| format!("load function: {e:?}"))?;
    let data: Vec<f64> = if values.is_empty() { vec![0.0] } else { values.to_vec() };
    let v = stream.clone_htod(&data).map_err(|e| format!("copy: {e:?}"))?;
    let slots = grid as usize * block as usize;
    let mut flags = stream.alloc_zeros::<u32>(slots.max(1)).map_err(|e| format!("alloc: {e:?}"))?;
    let (code, p0, p1): (i32, i64, i64) = match plan {
        Plan::Strided { threads } => (0, i64::from(threads), 0),
        Plan::Tiled { threads, per_thread } => (1, i64::from(threads), i64::from(per_thread)),
        Plan::PerSample { map, bps } => (2, map as i64, i64::from(bps)),
        Plan::BlockPerElement => (3, 0, 0),
        Plan::Blocks { per_block } => (4, i64::from(per_block), 0),
    };
    let n_i = n as i64;
    let hi_incl = i32::from(pred.hi_inclusive);
    let has_ign = i32::from(pred.ignore.is_some());
    let ign = pred.ignore.unwrap_or(0.0);
    let mut b = stream.launch_builder(&f);
    b.arg(&v).arg(&n_i).arg(&code).arg(&p0).arg(&p1).arg(&pred.lo).arg(&pred.hi).arg(&hi_incl).arg(&has_ign).arg(&ign).arg(&mut flags);
    let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: the kernel reads n doubles from v and writes grid·block flags, both allocated above.
    unsafe { b.launch(cfg) }.map_err(|e| format!("launch: {e:?}"))?;
    let host = stream.clone_dtoh(&flags).map_err(|e| format!("copy back: {e:?}"))?;
    stream.synchronize().map_err(|e| format!("synchronize: {e:?}"))?;
    Ok(host.iter().enumerate().filter(|(_, f)| **f != 0).map(|(i, _)| ((i / block as usize) as u32, (i % block as usize) as u32)).collect())
}

/// The flagged (block, thread) ids, computed on the GPU.
pub fn flagged(values: &[f64], plan: Plan, pred: &Predicate) -> Result<BTreeSet<(u32, u32)>, String> {
    match std::panic::catch_unwind(|| run(values, plan, pred)) {
        Ok(r) => r,
        Err(_) => Err("the CUDA library call panicked (a missing symbol in an older driver?)".into()),
    }
}
