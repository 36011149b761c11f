//! From the (block, thread) ids a log prints to the elements of the batch to look at.
//! Each kernel's launch is in docs/kernels.md and was checked on an H200 with planted bad
//! elements (fixtures/torch-2.11-h200-more/geo_*). A kernel stops printing once a warp has
//! failed, so the printed ids are "at least these", never "exactly these".

use serde::Serialize;

use crate::model::Candidates;

const MAX_LISTED: usize = 8;

/// The distinct values, in order (a sorted vector: cheaper than a tree for thousands of ids).
fn distinct<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = items.into_iter().collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn list<T: std::fmt::Display>(items: impl IntoIterator<Item = T>, total: usize) -> String {
    let v: Vec<String> = items.into_iter().take(MAX_LISTED).map(|x| x.to_string()).collect();
    let more = if total > v.len() { format!(", … ({} in all)", total) } else { String::new() };
    format!("{}{more}", v.join(", "))
}

/// A kernel's launch: how the (block, thread) ids it prints map to elements of the operand
/// (`candidates`), the launches a replay tries (`plans`) and the mapping in words
/// (`description`, docs/kernels.md). The ids are the `geometry` keys of grammars/kernels/*.toml.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Geometry {
    NllReduceBlock,
    NllReduceBlock32,
    Row1024,
    Nll2dPerSample,
    Nll2dNoReduce,
    VectorizedGather,
    IndexSelectSmall,
    IndexSelectLarge,
    Elementwise512,
    ScatterGather,
    Bce,
    EmbeddingBag,
    MultinomialRows,
    SingleThread,
    Triton,
}

impl Geometry {
    /// Every geometry, in the order docs/kernels.md lists them.
    pub const ALL: &'static [Geometry] = &[
        Geometry::NllReduceBlock,
        Geometry::NllReduceBlock32,
        Geometry::Row1024,
        Geometry::Nll2dPerSample,
        Geometry::Nll2dNoReduce,
        Geometry::VectorizedGather,
        Geometry::IndexSelectSmall,
        Geometry::IndexSelectLarge,
        Geometry::Elementwise512,
        Geometry::ScatterGather,
        Geometry::Bce,
        Geometry::EmbeddingBag,
        Geometry::MultinomialRows,
        Geometry::SingleThread,
        Geometry::Triton,
    ];

    /// The id the knowledge base's files use.
    pub fn id(self) -> &'static str {
        match self {
            Geometry::NllReduceBlock => "nll_reduce_block",
            Geometry::NllReduceBlock32 => "nll_reduce_block_32",
            Geometry::Row1024 => "row_1024",
            Geometry::Nll2dPerSample => "nll2d_per_sample",
            Geometry::Nll2dNoReduce => "nll2d_no_reduce",
            Geometry::VectorizedGather => "vectorized_gather",
            Geometry::IndexSelectSmall => "index_select_small",
            Geometry::IndexSelectLarge => "index_select_large",
            Geometry::Elementwise512 => "elementwise_512",
            Geometry::ScatterGather => "scatter_gather",
            Geometry::Bce => "bce",
            Geometry::EmbeddingBag => "embedding_bag",
            Geometry::MultinomialRows => "multinomial_rows",
            Geometry::SingleThread => "single_thread",
            Geometry::Triton => "triton",
        }
    }

    pub fn from_id(id: &str) -> Option<Geometry> {
        Geometry::ALL.iter().copied().find(|g| g.id() == id)
    }

    /// How the printed ids map to elements, in a sentence.
    pub fn description(self) -> &'static str {
        match self {
            Geometry::NllReduceBlock => "one block; thread t checks rows t, t+T, t+2T, … with T = 32 for small N and up to 1024 in builds whose block grows with N (torch 2.11: N=1000 → 64, 3000 → 256, 20000 → 1024). Printed threads give `target[t::T]`.",
            Geometry::NllReduceBlock32 => "THCUNN: one block of 32 threads; thread t checks rows t, t+32, …",
            Geometry::Row1024 => "one thread per row, 1024 per block: row = 1024·block + thread (exact).",
            Geometry::Nll2dPerSample => "one block per sample while H·W ≤ 131 072 (else ceil(H·W/131072) blocks per sample); thread t checks pixels t, t+1024, … of that sample.",
            Geometry::Nll2dNoReduce => "flat index i = 1024·block + thread with the batch fastest-varying: sample = i % N, h = (i // N) % H, w = i // (N·H).",
            Geometry::VectorizedGather => "block x is the position of the bad index in the flattened index tensor (exact); threads walk the row.",
            Geometry::IndexSelectSmall => "at most 16 indices: every thread loops over all of them — no position information.",
            Geometry::IndexSelectLarge => "position = (128·block + thread) // D without grid-stride (n·D ≤ 128·8·SMs).",
            Geometry::Elementwise512 => "TensorIterator, 128 threads × 4: element = 512·block + thread + 128·j, j < 4, over the op's output.",
            Geometry::ScatterGather => "positions in the index tensor: 1024·block + thread + 128·j, j < 8 (torch 2.11); 512·block + thread + 128·j, j < 4 in older builds.",
            Geometry::Bce => "contiguous float32 (torch 2.11): block b covers elements [1024·b, 1024·(b+1)); non-contiguous input: 256 per block in storage order.",
            Geometry::EmbeddingBag => "blocks of 32×8: bag = (8·block + thread.y) // ceil(D/32).",
            Geometry::MultinomialRows => "block y is the row of the probability matrix (exact).",
            Geometry::SingleThread => "launched <<<1,1>>>: block and thread are always 0 — no position information.",
            Geometry::Triton => "generated Triton kernel: block ids depend on the autotuned block size — no position information.",
        }
    }

    /// Why the printed ids carry no position, for the launches where they do not (the human
    /// report says so).
    pub fn no_position_reason(self) -> Option<&'static str> {
        match self {
            Geometry::SingleThread => Some("the kernel runs as a single thread (<<<1,1>>>), so block and thread are always 0"),
            Geometry::IndexSelectSmall => Some("with at most 16 indices every thread loops over all of them"),
            Geometry::Triton => Some("a generated Triton kernel: block ids depend on the autotuned block size"),
            _ => None,
        }
    }

    /// `pairs`: distinct (block, thread) pairs seen, sorted; `complete`: whether the log's set was
    /// not capped.
    pub fn candidates(self, operand: &str, pairs: &[([u32; 3], [u32; 3])]) -> Option<Candidates> {
        if pairs.is_empty() || self.no_position_reason().is_some() {
            return None;
        }
        let tensor = operand.to_string();
        // built only by the geometries that list them (a flood holds thousands of pairs)
        let threads = || distinct(pairs.iter().map(|(_, t)| t[0]));
        let blocks = || distinct(pairs.iter().map(|(b, _)| b[0]));
        let c = |elements: String, exact: bool, assumes: &str| {
            Some(Candidates { tensor: tensor.clone(), elements, exact, assumes: assumes.to_string() })
        };
        match self {
            Geometry::NllReduceBlock | Geometry::NllReduceBlock32 => {
                let threads = threads();
                let max = *threads.iter().max()?;
                let t = if self == Geometry::NllReduceBlock32 || max < 32 { 32 } else { (max + 1).next_power_of_two() };
                let el = list(threads.iter().map(|x| format!("{tensor}[{x}::{t}]")), threads.len());
                let assumes = if t == 32 {
                    "1-D target; one block whose thread t checks rows t, t+32, t+64, … (32 threads up to torch ~2.6 and for N < 736 after; where the block grew with N, the true slices are a subset of these)"
                } else {
                    "1-D target; one block of at least this many threads (the block size grows with N in recent torch); thread t checks rows t, t+T, t+2T, … — a larger true block only narrows these slices"
                };
                c(el, false, assumes)
            }
            Geometry::Row1024 => {
                let rows = distinct(pairs.iter().map(|(b, t)| 1024 * u64::from(b[0]) + u64::from(t[0])));
                c(list(rows.iter().map(|r| format!("{tensor}[{r}]")), rows.len()), true, "reduction='none': one thread per row, 1024 threads per block (row = 1024·block + thread)")
            }
            Geometry::Nll2dPerSample => {
                let el = list(pairs.iter().map(|(b, t)| format!("{tensor}[{}].flatten()[{}::1024]", b[0], t[0])), pairs.len());
                c(el, false, "(N, C, H, W) input with H·W ≤ 131 072: one block per sample, thread t checks pixels t, t+1024, … of that sample (larger maps use ceil(H·W/131072) blocks per sample: sample = block // that)")
            }
            Geometry::Nll2dNoReduce => {
                let idx = distinct(pairs.iter().map(|(b, t)| 1024 * u64::from(b[0]) + u64::from(t[0])));
                c(list(idx.iter(), idx.len()), false, "reduction='none' on (N, C, H, W): flat index i = 1024·block + thread with the batch fastest: sample = i % N, h = (i // N) % H, w = i // (N·H)")
            }
            Geometry::VectorizedGather => {
                let blocks = blocks();
                c(
                list(blocks.iter().map(|b| format!("{tensor}.reshape(-1)[{b}]")), blocks.len()),
                true,
                "vectorized gather (torch ≥ 2.8, 16-byte aligned rows): block x is the position of the bad index in the flattened index tensor",
            )
            }
            Geometry::IndexSelectLarge => c(
                list(pairs.iter().map(|(b, t)| format!("{tensor}.reshape(-1)[(128*{} + {}) // D]", b[0], t[0])), pairs.len()),
                false,
                "D = row width (embedding dim); exact when n·D ≤ 128·8·SMs (no grid-stride), else also positions + k·128·grid // D",
            ),
            Geometry::Elementwise512 => {
                let el = list(pairs.iter().map(|(b, t)| {
                    let base = 512 * u64::from(b[0]) + u64::from(t[0]);
                    format!("{{{}, {}, {}, {}}}", base, base + 128, base + 256, base + 384)
                }), pairs.len());
                c(el, false, "TensorIterator launch of 128 threads × 4 elements: element = 512·block + thread + 128·j (j < 4), counted over the op's output (for x[idx]: the flat position in idx times the trailing size)")
            }
            Geometry::ScatterGather => {
                let el = list(pairs.iter().map(|(b, t)| {
                    let b11 = 1024 * u64::from(b[0]) + u64::from(t[0]);
                    let b_old = 512 * u64::from(b[0]) + u64::from(t[0]);
                    format!("{b11}+128·j (j<8) or {b_old}+128·j (j<4)")
                }), pairs.len());
                c(el, false, "flat C-order positions in the index tensor: 1024 per block (128 threads × 8) in torch 2.11, 512 per block (× 4) in older builds; when Embedding / index_select land here (rows not 16-byte aligned) the ids are expanded to (n, D): id position = element // D")
            }
            Geometry::Bce => {
                let blocks = blocks();
                c(
                list(blocks.iter().map(|b| format!("{tensor}.flatten()[{}:{}]", 1024 * u64::from(*b), 1024 * (u64::from(*b) + 1))), blocks.len()),
                false,
                "contiguous float32 in torch 2.11: each block covers 1024 consecutive elements (512 in older builds; non-contiguous input: 256 per block in storage order)",
            )
            }
            Geometry::EmbeddingBag => c(
                list(distinct(pairs.iter().map(|(b, t)| format!("bag (8·{} + {}) // ceil(D/32)", b[0], t[1]))), pairs.len()),
                false,
                "blocks of 32×8 threads: each y-row of a block handles one 32-wide chunk of one bag's embedding (D = embedding dim; bag = 8·block + thread.y when D ≤ 32)",
            ),
            Geometry::MultinomialRows => {
                let rows = distinct(pairs.iter().map(|(b, _)| b[1]));
                c(list(rows.iter().map(|r| format!("{tensor}[{r}]")), rows.len()), true, "sampling with replacement: block y is the row of the probability matrix")
            }
            _ => None,
        }
    }

    /// The plans to try for a geometry, most likely first (several where torch versions differ).
    pub fn plans(self, shape: &[usize]) -> Vec<Plan> {
        let n: u64 = shape.iter().map(|d| *d as u64).product();
        match self {
            Geometry::NllReduceBlock32 => vec![Plan::Strided { threads: 32 }],
            Geometry::NllReduceBlock => {
                let dynamic = nll_threads(n);
                let mut v = vec![Plan::Strided { threads: 32 }];
                if dynamic != 32 {
                    v.insert(0, Plan::Strided { threads: dynamic });
                }
                v
            }
            Geometry::Row1024 => vec![Plan::Tiled { threads: 1024, per_thread: 1 }],
            Geometry::Nll2dPerSample if shape.len() >= 2 => {
                let map: u64 = shape[1..].iter().map(|d| *d as u64).product();
                let bps = (map.div_ceil(1024) / 128).max(1) as u32;
                vec![Plan::PerSample { map, bps }]
            }
            Geometry::ScatterGather => vec![Plan::Tiled { threads: 128, per_thread: 8 }, Plan::Tiled { threads: 128, per_thread: 4 }],
            Geometry::Elementwise512 => vec![Plan::Tiled { threads: 128, per_thread: 4 }],
            Geometry::VectorizedGather => vec![Plan::BlockPerElement],
            // contiguous float32 in torch 2.11: 1024 elements per block; 512 in older builds
            Geometry::Bce => vec![Plan::Blocks { per_block: 1024 }, Plan::Blocks { per_block: 512 }],
            _ => Vec::new(),
        }
    }
}

/// A launch: grid and block (x only; the replayed kernels are 1-D) and the loop each thread runs.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum Plan {
    /// One block of `threads`; thread t checks elements t, t + threads, … (nll_loss reduce).
    Strided { threads: u32 },
    /// One element per thread: e = per_block·b + t + stride·j for j < per_thread.
    Tiled { threads: u32, per_thread: u32 },
    /// Per-sample blocks of 1024 threads (nll_loss2d): `map` elements per sample, `bps` blocks each.
    PerSample { map: u64, bps: u32 },
    /// One block per element position (vectorized gather): only the block id carries meaning.
    BlockPerElement,
    /// Consecutive runs of `per_block` elements per block (vectorized elementwise kernels such
    /// as BCE): only the block id carries meaning.
    Blocks { per_block: u32 },
}

impl Plan {
    pub fn launch(&self, n: u64) -> (u32, u32) {
        match *self {
            Plan::Strided { threads } => (1, threads),
            Plan::Tiled { threads, per_thread } => {
                let per_block = u64::from(threads) * u64::from(per_thread);
                (n.div_ceil(per_block).max(1) as u32, threads)
            }
            Plan::PerSample { map, bps } => ((n / map.max(1)) as u32 * bps, 1024),
            Plan::BlockPerElement => (n.max(1) as u32, 1),
            Plan::Blocks { per_block } => (n.div_ceil(u64::from(per_block)).max(1) as u32, 1),
        }
    }

    /// Whether the log's thread ids mean anything for this plan (else compare blocks only).
    pub fn threads_matter(&self) -> bool {
        !matches!(self, Plan::BlockPerElement | Plan::Blocks { .. })
    }
}

/// The nll_loss reduce kernel's block in recent torch: clamp(2^round(log2(N/16)), 32, 1024).
pub fn nll_threads(n: u64) -> u32 {
    let x = (n as f64 / 16.0).max(1.0);
    let p = x.log2().round().clamp(5.0, 10.0);
    2f64.powf(p) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_geometry_of_the_knowledge_base_is_known() {
        for site in &crate::kb::kb().sites {
            if let Some(g) = &site.geometry {
                assert!(Geometry::from_id(g).is_some(), "{}: unknown geometry {g}", site.id);
            }
        }
        assert_eq!(Geometry::from_id("row_1024"), Some(Geometry::Row1024));
        assert!(Geometry::ALL.iter().all(|g| Geometry::from_id(g.id()) == Some(*g)));
    }

    fn p(b: u32, t: u32) -> ([u32; 3], [u32; 3]) {
        ([b, 0, 0], [t, 0, 0])
    }

    // Planted on an H200 (fixtures/torch-2.11-h200-more/geo_ce1d_n3000.truth.json): bad rows
    // 5, 37, 70, 1500, 2999 with a 256-thread block printed threads 5, 37, 70, 183, 220.
    #[test]
    fn nll_reduce_grows_the_block() {
        let c = Geometry::NllReduceBlock.candidates("target", &[p(0, 5), p(0, 37), p(0, 70), p(0, 183), p(0, 220)]).unwrap();
        assert!(c.elements.starts_with("target[5::256], target[37::256]"), "{}", c.elements);
        let small = Geometry::NllReduceBlock.candidates("target", &[p(0, 5)]).unwrap();
        assert_eq!(small.elements, "target[5::32]");
    }

    #[test]
    fn exact_rows_and_positions() {
        assert_eq!(Geometry::Row1024.candidates("target", &[p(1, 0), p(2, 951)]).unwrap().elements, "target[1024], target[2999]");
        assert_eq!(Geometry::VectorizedGather.candidates("indices", &[p(401, 0), p(401, 5)]).unwrap().elements, "indices.reshape(-1)[401]");
        assert!(Geometry::SingleThread.candidates("target", &[p(0, 0)]).is_none());
    }
}
