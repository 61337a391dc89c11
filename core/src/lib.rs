//! trecgain's engine: read -> rank -> label -> measures -> summary -> output, one module per
//! stage; `evaluate` drives them. No Python here: the bindings live in the root crate.

pub mod arena;
pub mod error;
pub mod options;
pub mod read;
pub mod measures;
