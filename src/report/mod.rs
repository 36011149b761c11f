pub mod advice;
pub mod assemble;
pub mod ci;
pub mod human;
pub mod model;
