//! cudasleuth: explains PyTorch's `CUDA error: device-side assert triggered`.
//!
//! The flow is one-way (see docs/architecture.md): `log` reads a crash log into an `Incident`,
//! `kb` knows PyTorch's assert sites, `report` assembles and renders the result.

pub mod kb;
pub mod lint;
pub mod log;
pub mod memory;
pub mod rank;
pub mod report;
pub mod repro;
pub mod scan;
pub mod timings;
