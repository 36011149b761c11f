//! The join: what the log says (`log::Incident`), what the scan and the rules found in the
//! project (`scan::Facts`, `rules::Finding`) and what a run caught (the witness) become one
//! `model::Report` with ranked suspects: `assemble` reads the incident into a report, `suspects`
//! ranks the rules' findings against it, `confirm` joins the witness, `advice` writes the next
//! steps.

pub mod advice;
pub mod assemble;
pub mod confirm;
pub mod quote;
pub mod suspects;
