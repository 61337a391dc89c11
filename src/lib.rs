//! trecgain._core: the Python face of the Rust engine. Python parses measure strings into
//! plain tuples and checks its options into one value (trecgain.options.EvaluationOptions),
//! read here by field name; this module turns them into the core's types, runs the stages and
//! hands back results; core errors become `trecgain.errors.TrecgainError`.

mod arrow;
mod cwl;
mod dicts;
mod evaluation;
mod explain;
mod ids;
mod inputs;
mod kernels;
mod options;
mod prefetch;
mod process;
mod readers;
mod rows;
mod tuples;

use pyo3::prelude::*;

use trecgain_core::error::Error;

/// The core's error as the package's TrecgainError(message, source, line).
pub(crate) fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let raised = py
        .import("trecgain.errors")
        .and_then(|m| m.getattr("TrecgainError"))
        .and_then(|cls| cls.call1((err.message.clone(), err.source.clone(), err.line)));
    match raised {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(process::exit_on_interrupt, m)?)?;
    m.add_function(wrap_pyfunction!(process::die_with_parent, m)?)?;
    m.add_function(wrap_pyfunction!(process::exit_on_out_of_memory, m)?)?;
    m.add_function(wrap_pyfunction!(prefetch::prefetch, m)?)?;
    m.add_class::<prefetch::Prefetch>()?;
    m.add_class::<inputs::PyQrels>()?;
    m.add_class::<inputs::PyRun>()?;
    m.add_class::<evaluation::PyEvaluation>()?;
    m.add_function(wrap_pyfunction!(evaluation::py_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(explain::py_explain, m)?)?;
    m.add_function(wrap_pyfunction!(readers::part_start, m)?)?;
    m.add_function(wrap_pyfunction!(evaluation::failing_query, m)?)?;
    m.add_function(wrap_pyfunction!(evaluation::py_assemble, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::kernels, m)?)?;
    m.add_function(wrap_pyfunction!(cwl::cwl_records, m)?)?;
    m.add_class::<cwl::PyCwlInputs>()?;
    m.add_class::<cwl::PyCwlMeasured>()?;
    m.add_function(wrap_pyfunction!(cwl::cwl_read, m)?)?;
    m.add_function(wrap_pyfunction!(cwl::cwl_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(cwl::cwl_bibtex, m)?)?;
    Ok(())
}
