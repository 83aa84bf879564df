//! What to run: benchmark discovery, parameter matrices, suite files and git revisions.

pub mod argv;
pub mod command;
pub mod discover;
pub mod git;
pub mod matrix;
pub mod suite;
