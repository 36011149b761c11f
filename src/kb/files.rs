//! The compiled-in site files, listed by build.rs.
include!(concat!(env!("OUT_DIR"), "/kernel_files.rs"));
