//! Rendering only: a finished `model::Report` as text for a terminal (`human`) or for CI
//! (`ci`: GitHub annotations, SARIF, Markdown). Nothing here reads the project or runs anything.

pub mod ci;
pub mod human;
