//! From the (block, thread) ids a log prints to the elements of the batch to look at.
//! Each kernel's launch is in docs/kernels.md and was checked on an H200 with planted bad
//! elements (fixtures/torch-2.11-h200-more/geo_*). A kernel stops printing once a warp has
//! failed, so the printed ids are "at least these", never "exactly these".

use std::collections::BTreeSet;

use crate::model::Candidates;

/// Geometries whose printed ids carry no position (the human report says so).
pub fn no_position_reason(geometry: &str) -> Option<&'static str> {
    match geometry {
        "single_thread" => Some("the kernel runs as a single thread (<<<1,1>>>), so block and thread are always 0"),
        "index_select_small" => Some("with at most 16 indices every thread loops over all of them"),
        "triton" => Some("a generated Triton kernel: block ids depend on the autotuned block size"),
        _ => None,
    }
}

const MAX_LISTED: usize = 8;

fn list<T: std::fmt::Display>(items: impl IntoIterator<Item = T>, total: usize) -> String {
    let v: Vec<String> = items.into_iter().take(MAX_LISTED).map(|x| x.to_string()).collect();
    let more = if total > v.len() { format!(", … ({} in all)", total) } else { String::new() };
    format!("{}{more}", v.join(", "))
}

/// `pairs`: distinct (block, thread) pairs seen, sorted; `complete`: whether the log's set was
/// not capped.
pub fn candidates(geometry: &str, operand: &str, pairs: &[([u32; 3], [u32; 3])]) -> Option<Candidates> {
    if pairs.is_empty() || no_position_reason(geometry).is_some() {
        return None;
    }
    let tensor = operand.to_string();
    let threads: BTreeSet<u32> = pairs.iter().map(|(_, t)| t[0]).collect();
    let blocks: BTreeSet<u32> = pairs.iter().map(|(b, _)| b[0]).collect();
    let c = |elements: String, exact: bool, assumes: &str| {
        Some(Candidates { tensor: tensor.clone(), elements, exact, assumes: assumes.to_string() })
    };
    match geometry {
        "nll_reduce_block" | "nll_reduce_block_32" => {
            let max = *threads.iter().max()?;
            let t = if geometry == "nll_reduce_block_32" || max < 32 { 32 } else { (max + 1).next_power_of_two() };
            let el = list(threads.iter().map(|x| format!("{tensor}[{x}::{t}]")), threads.len());
            let assumes = if t == 32 {
                "1-D target; one block whose thread t checks rows t, t+32, t+64, … (32 threads up to torch ~2.6 and for N < 736 after; where the block grew with N, the true slices are a subset of these)"
            } else {
                "1-D target; one block of at least this many threads (the block size grows with N in recent torch); thread t checks rows t, t+T, t+2T, … — a larger true block only narrows these slices"
            };
            c(el, false, assumes)
        }
        "row_1024" => {
            let rows: BTreeSet<u64> = pairs.iter().map(|(b, t)| 1024 * u64::from(b[0]) + u64::from(t[0])).collect();
            c(list(rows.iter().map(|r| format!("{tensor}[{r}]")), rows.len()), true, "reduction='none': one thread per row, 1024 threads per block (row = 1024·block + thread)")
        }
        "nll2d_per_sample" => {
            let el = list(pairs.iter().map(|(b, t)| format!("{tensor}[{}].flatten()[{}::1024]", b[0], t[0])), pairs.len());
            c(el, false, "(N, C, H, W) input with H·W ≤ 131 072: one block per sample, thread t checks pixels t, t+1024, … of that sample (larger maps use ceil(H·W/131072) blocks per sample: sample = block // that)")
        }
        "nll2d_no_reduce" => {
            let idx: BTreeSet<u64> = pairs.iter().map(|(b, t)| 1024 * u64::from(b[0]) + u64::from(t[0])).collect();
            c(list(idx.iter(), idx.len()), false, "reduction='none' on (N, C, H, W): flat index i = 1024·block + thread with the batch fastest: sample = i % N, h = (i // N) % H, w = i // (N·H)")
        }
        "vectorized_gather" => c(
            list(blocks.iter().map(|b| format!("{tensor}.reshape(-1)[{b}]")), blocks.len()),
            true,
            "vectorized gather (torch ≥ 2.8, 16-byte aligned rows): block x is the position of the bad index in the flattened index tensor",
        ),
        "index_select_large" => c(
            list(pairs.iter().map(|(b, t)| format!("{tensor}.reshape(-1)[(128*{} + {}) // D]", b[0], t[0])), pairs.len()),
            false,
            "D = row width (embedding dim); exact when n·D ≤ 128·8·SMs (no grid-stride), else also positions + k·128·grid // D",
        ),
        "elementwise_512" => {
            let el = list(pairs.iter().map(|(b, t)| {
                let base = 512 * u64::from(b[0]) + u64::from(t[0]);
                format!("{{{}, {}, {}, {}}}", base, base + 128, base + 256, base + 384)
            }), pairs.len());
            c(el, false, "TensorIterator launch of 128 threads × 4 elements: element = 512·block + thread + 128·j (j < 4), counted over the op's output (for x[idx]: the flat position in idx times the trailing size)")
        }
        "scatter_gather" => {
            let el = list(pairs.iter().map(|(b, t)| {
                let b11 = 1024 * u64::from(b[0]) + u64::from(t[0]);
                let b_old = 512 * u64::from(b[0]) + u64::from(t[0]);
                format!("{b11}+128·j (j<8) or {b_old}+128·j (j<4)")
            }), pairs.len());
            c(el, false, "flat C-order positions in the index tensor: 1024 per block (128 threads × 8) in torch 2.11, 512 per block (× 4) in older builds; when Embedding / index_select land here (rows not 16-byte aligned) the ids are expanded to (n, D): id position = element // D")
        }
        "bce" => c(
            list(blocks.iter().map(|b| format!("{tensor}.flatten()[{}:{}]", 1024 * u64::from(*b), 1024 * (u64::from(*b) + 1))), blocks.len()),
            false,
            "contiguous float32 in torch 2.11: each block covers 1024 consecutive elements (512 in older builds; non-contiguous input: 256 per block in storage order)",
        ),
        "embedding_bag" => c(
            list(pairs.iter().map(|(b, t)| format!("bag (8·{} + {}) // ceil(D/32)", b[0], t[1])).collect::<BTreeSet<_>>(), pairs.len()),
            false,
            "blocks of 32×8 threads: each y-row of a block handles one 32-wide chunk of one bag's embedding (D = embedding dim; bag = 8·block + thread.y when D ≤ 32)",
        ),
        "multinomial_rows" => {
            let rows: BTreeSet<u32> = pairs.iter().map(|(b, _)| b[1]).collect();
            c(list(rows.iter().map(|r| format!("{tensor}[{r}]")), rows.len()), true, "sampling with replacement: block y is the row of the probability matrix")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(b: u32, t: u32) -> ([u32; 3], [u32; 3]) {
        ([b, 0, 0], [t, 0, 0])
    }

    // Planted on an H200 (fixtures/torch-2.11-h200-more/geo_ce1d_n3000.truth.json): bad rows
    // 5, 37, 70, 1500, 2999 with a 256-thread block printed threads 5, 37, 70, 183, 220.
    #[test]
    fn nll_reduce_grows_the_block() {
        let c = candidates("nll_reduce_block", "target", &[p(0, 5), p(0, 37), p(0, 70), p(0, 183), p(0, 220)]).unwrap();
        assert!(c.elements.starts_with("target[5::256], target[37::256]"), "{}", c.elements);
        let small = candidates("nll_reduce_block", "target", &[p(0, 5)]).unwrap();
        assert_eq!(small.elements, "target[5::32]");
    }

    #[test]
    fn exact_rows_and_positions() {
        assert_eq!(candidates("row_1024", "target", &[p(1, 0), p(2, 951)]).unwrap().elements, "target[1024], target[2999]");
        assert_eq!(candidates("vectorized_gather", "indices", &[p(401, 0), p(401, 5)]).unwrap().elements, "indices.reshape(-1)[401]");
        assert!(candidates("single_thread", "target", &[p(0, 0)]).is_none());
    }
}
