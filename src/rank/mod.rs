//! Joins what the log says (`Incident`/`Report`) with what the scan found in the project
//! (`Facts`): rules propose suspects, ranking orders them.

pub mod rules;
pub mod suspects;
