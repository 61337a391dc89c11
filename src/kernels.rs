//! The core's measure records as Python dicts (`_core.kernels()`), read once by trecgain.kernels.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use trecgain_core::options::Summary;

/// The core's measure records (`trecgain_core::measures::KERNELS`), in output order, one dict
/// each with the facts as plain values: the Python registry is built from these (one call,
/// when the registry is first imported).
#[pyfunction]
pub(crate) fn kernels(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    use trecgain_core::measures::{Naming, ParamKind, ParamType, Relevance, Value, KERNELS};
    let out = PyList::empty(py);
    for k in KERNELS {
        let d = PyDict::new(py);
        d.set_item("name", k.name)?;
        d.set_item("help", k.help)?;
        let params = match k.params {
            ParamKind::None => "none",
            ParamKind::Cutoffs => "cutoffs",
            ParamKind::Points => "points",
            ParamKind::Numbers => "numbers",
            ParamKind::Coefficients => "coefficients",
            ParamKind::Length => "length",
            ParamKind::Gains => "gains",
            ParamKind::Persistence => "persistence",
            ParamKind::Named => "named",
        };
        d.set_item("params", params)?;
        let naming = match k.naming {
            Naming::Plain => "plain",
            Naming::Params => "params",
            Naming::Cutoffs => "cutoffs",
            Naming::Points => "points",
            Naming::Named => "named",
        };
        d.set_item("naming", naming)?;
        let value = match k.value {
            Value::Float => "float",
            Value::Count => "count",
            Value::Tag => "tag",
            Value::Chars => "chars",
        };
        d.set_item("value", value)?;
        let summary = match k.summary {
            Summary::Mean => "mean",
            Summary::MeanOfDefined => "mean_of_defined",
            Summary::Sum => "sum",
            Summary::SumJudgedRelevant => "sum_judged_relevant",
            Summary::Count => "count",
            Summary::Tag => "tag",
            Summary::GeometricMean => "geometric_mean",
            Summary::None => "none",
        };
        d.set_item("summary", summary)?;
        d.set_item("per_query", k.per_query)?;
        d.set_item("in_trec_eval_9", k.in_trec_eval_9)?;
        d.set_item("in_trec_eval", k.in_trec_eval)?;
        d.set_item("tie_average", k.tie_average)?;
        d.set_item("gains", k.gains)?;
        d.set_item("discounted", k.discounted)?;
        d.set_item("rank_order", k.rank_order)?;
        d.set_item("level_from_zero", k.level_from_zero)?;
        d.set_item("lower_is_better", k.lower_is_better)?;
        let explain = k.explain.map(|e| e.name());
        d.set_item("explain", explain)?;
        d.set_item(
            "unexplained",
            k.explain
                .is_none()
                .then(|| trecgain_core::explain::refusal(k)),
        )?;
        d.set_item("ir_measures", k.ir_measures.to_vec())?;
        d.set_item("ir_params", k.ir_params.to_vec())?;
        d.set_item("default_cutoffs", k.default_cutoffs.to_vec())?;
        d.set_item("default_numbers", k.default_numbers.to_vec())?;
        let relevance = match k.relevance {
            Relevance::Any => "any",
            Relevance::Grades => "qrels",
            Relevance::Groups => "qrels_jg",
            Relevance::Preferences => "prefs",
            Relevance::Subtopics => "subtopics",
        };
        d.set_item("relevance", relevance)?;
        let named = PyList::empty(py);
        for p in k.named {
            let param = PyDict::new(py);
            param.set_item("name", p.name)?;
            let kind = match p.kind {
                ParamType::Number => "number",
                ParamType::Whole => "whole",
                ParamType::Flag => "flag",
            };
            param.set_item("kind", kind)?;
            param.set_item("default", p.default)?;
            param.set_item("range", (p.range.0, p.range.1))?;
            param.set_item("help", p.help)?;
            named.append(param)?;
        }
        d.set_item("named", named)?;
        d.set_item("max_cutoff", k.max_cutoff)?;
        out.append(d)?;
    }
    Ok(out)
}
