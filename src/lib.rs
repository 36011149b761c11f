//! cudasleuth: explains PyTorch's `CUDA error: device-side assert triggered`.
//!
//! One-way floors, each importing only from the floors below it (docs/architecture.md;
//! `tests/floors.rs` holds them):
//!
//! `model` → `log`, `kb`, `scan` → `analysis` → `rules` → `rank` → `repro` → `report` →
//! `lint`, `explain` → the command line (`src/cli/`).

pub mod analysis;
pub mod explain;
pub mod kb;
pub mod lint;
pub mod log;
pub mod model;
pub mod progress;
pub mod rank;
pub mod report;
pub mod repro;
pub mod rules;
pub mod scan;
pub mod timings;
