pub mod advice;
pub mod assemble;
pub mod human;
pub mod model;
