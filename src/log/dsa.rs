//! The `TORCH_USE_CUDA_DSA` report (c10/cuda/CUDADeviceAssertionHost.cpp): one record per
//! failure, each field on its own `name = value` line.

use crate::log::assert_line::{RawAssert, Shape};
use crate::model::LaunchInfo;

#[derive(Default, Debug, Clone)]
pub struct DsaRecord {
    pub message: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub function: Option<String>,
    pub thread: Option<[u32; 3]>,
    pub block: Option<[u32; 3]>,
    pub launch_file: Option<String>,
    pub launch_function: Option<String>,
    pub launch_kernel: Option<String>,
    pub log_line: u64,
}

impl DsaRecord {
    pub fn into_parts(self) -> (RawAssert, Option<LaunchInfo>) {
        let launch = if self.launch_kernel.is_some() || self.launch_file.is_some() {
            Some(LaunchInfo { kernel: self.launch_kernel, file: self.launch_file, function: self.launch_function })
        } else {
            None
        };
        (
            RawAssert {
                file: self.file,
                line: self.line,
                kernel: self.function,
                block: self.block,
                thread: self.thread,
                assertion: self.message,
                truncated: false,
                shape: Shape::Cuda,
                message: None,
            },
            launch,
        )
    }
}

#[derive(Default)]
pub struct DsaParser {
    cur: Option<DsaRecord>,
    pub records: Vec<DsaRecord>,
    /// "Looking for device-side assertion failure information..." was seen.
    pub header_seen: bool,
}

fn triple(v: &str) -> Option<[u32; 3]> {
    let v = v.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut out = [0u32; 3];
    let mut parts = v.split(',');
    for slot in &mut out {
        *slot = parts.next()?.trim().parse().ok()?;
    }
    Some(out)
}

impl DsaParser {
    /// Inside a record: its remaining field lines are read whatever they contain.
    pub fn in_record(&self) -> bool {
        self.cur.is_some()
    }

    /// Returns true when the line belonged to a DSA block.
    pub fn feed(&mut self, text: &str, lineno: u64) -> bool {
        let t = text.trim();
        if t.starts_with("Looking for device-side assertion failure information") {
            self.header_seen = true;
            return true;
        }
        if let Some(rest) = t.strip_prefix("Assertion failure ") {
            if rest.chars().all(|c| c.is_ascii_digit()) && !rest.is_empty() {
                self.flush();
                self.cur = Some(DsaRecord { log_line: lineno, ..Default::default() });
                return true;
            }
        }
        let Some((name, value)) = t.split_once(" = ") else {
            self.flush();
            return false;
        };
        let Some(rec) = self.cur.as_mut() else { return false };
        let value = value.trim().to_string();
        match name {
            "GPU assertion failure message" => rec.message = Some(value),
            "File containing assertion" => {
                if let Some((f, l)) = value.rsplit_once(':') {
                    rec.file = Some(f.to_string());
                    rec.line = l.parse().ok();
                } else {
                    rec.file = Some(value);
                }
            }
            "Device function containing assertion" => rec.function = Some(value),
            "Thread ID that failed assertion" => rec.thread = triple(&value),
            "Block ID that failed assertion" => rec.block = triple(&value),
            "File containing kernel launch" => rec.launch_file = Some(value),
            "Function containing kernel launch" => rec.launch_function = Some(value),
            "Name of kernel launched that led to failure" => rec.launch_kernel = Some(value),
            "Device that launched kernel" | "Stream kernel was launched on" | "Backtrace of kernel launch site" => {}
            _ => {
                self.flush();
                return false;
            }
        }
        true
    }

    pub fn flush(&mut self) {
        if let Some(r) = self.cur.take() {
            if (r.message.is_some() || r.file.is_some()) && self.records.len() < 1024 {
                self.records.push(r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_record() {
        let mut p = DsaParser::default();
        let lines = [
            "Looking for device-side assertion failure information...",
            "1 CUDA device-side assertion failures were found on GPU #0!",
            "Assertion failure 0",
            "  GPU assertion failure message = t >= 0 && t < n_classes",
            "  File containing assertion = /pytorch/aten/src/ATen/native/cuda/Loss.cu:250",
            "  Device function containing assertion = nll_loss_forward_reduce_cuda_kernel_2d",
            "  Thread ID that failed assertion = [5,0,0]",
            "  Block ID that failed assertion = [0,0,0]",
            "  File containing kernel launch = /pytorch/aten/src/ATen/native/cuda/Loss.cu:385",
            "  Function containing kernel launch = nll_loss_forward_out_cuda_template",
            "  Name of kernel launched that led to failure = nll_loss_forward_reduce_cuda_kernel_2d",
        ];
        for (i, l) in lines.iter().enumerate() {
            p.feed(l, i as u64 + 1);
        }
        p.flush();
        assert!(p.header_seen);
        assert_eq!(p.records.len(), 1);
        let (raw, launch) = p.records[0].clone().into_parts();
        assert_eq!(raw.line, Some(250));
        assert_eq!(raw.thread, Some([5, 0, 0]));
        assert_eq!(launch.unwrap().function.as_deref(), Some("nll_loss_forward_out_cuda_template"));
    }
}
