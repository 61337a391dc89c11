//! trecgain's engine: read -> rank -> label -> measures -> summary -> output, one module per
//! stage; `evaluate` drives them; `printf` (trec_eval's number spelling) is a leaf both use.
//! No Python here: the bindings live in the root crate.

pub mod arena;
pub mod cwl;
pub mod cwl_steps;
pub mod error;
pub mod evaluate;
pub mod explain;
pub mod ideal_steps;
pub mod label;
pub mod measures;
pub mod options;
pub mod output;
pub mod pref_steps;
pub mod printf;
pub mod rank;
pub mod read;
pub mod relations;
pub mod steps;
pub mod summary;
#[cfg(test)]
mod testing;
pub mod zscores;
