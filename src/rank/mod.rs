//! Joins what the log says with the user's project. `paths` maps traceback files into the
//! project; the suspect ranking builds on it.

pub mod paths;
