//! The options and measure requests from Python (trecgain.options.EvaluationOptions, read by
//! field name; the requests' tuples) as the core's types, parsed strictly.

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use trecgain_core::options::{
    ApDivisor, Base, Compat, Discount, GainPair, GainSpec, Ideal, NoRelevant, Options, Request,
    Scheme, Summary, Ties,
};
use trecgain_core::read::RelFormat;
use trecgain_core::zscores::ZScores;

type SpecTuple = (String, Vec<(Option<i64>, f64)>, String, bool);
pub(crate) type RequestTuple = (
    String,
    Vec<usize>,
    Vec<f64>,
    Option<SpecTuple>,
    bool,
    Option<f64>,
    String,
    Vec<String>,
);

fn gain_spec((text, pairs, scheme, exact_ideal): SpecTuple) -> PyResult<GainSpec> {
    let scheme = match scheme.as_str() {
        "linear" => Scheme::Linear,
        "exp" => Scheme::Exp,
        "binary" => Scheme::Binary,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown gain scheme {other}"
            )))
        }
    };
    let pairs = pairs
        .into_iter()
        .map(|(level, gain)| GainPair { level, gain })
        .collect();
    Ok(GainSpec {
        text,
        pairs,
        scheme,
        exact_ideal,
    })
}

/// The requests' tuples as the core's requests, each checked.
pub(crate) fn core_requests(tuples: Vec<RequestTuple>) -> PyResult<Vec<Request>> {
    tuples.into_iter().map(request).collect()
}

pub(crate) fn request(
    (kernel, cutoffs, params, gains, judged_only, relevance_level, summary, lines): RequestTuple,
) -> PyResult<Request> {
    let summary = match summary.as_str() {
        "mean" => Summary::Mean,
        "mean_of_defined" => Summary::MeanOfDefined,
        "sum" => Summary::Sum,
        "sum_judged_relevant" => Summary::SumJudgedRelevant,
        "count" => Summary::Count,
        "tag" => Summary::Tag,
        "geometric_mean" => Summary::GeometricMean,
        "none" => Summary::None,
        other => return Err(PyValueError::new_err(format!("unknown summary {other}"))),
    };
    Ok(Request {
        kernel,
        cutoffs,
        params,
        gains: gains.map(gain_spec).transpose()?,
        judged_only,
        relevance_level,
        summary,
        lines,
    })
}

pub(crate) fn discount(kind: &str, base: &str) -> PyResult<Discount> {
    let base = match base {
        "2" => Base::Two,
        "e" => Base::E,
        "10" => Base::Ten,
        other => Base::Other(
            other
                .parse()
                .map_err(|_| PyValueError::new_err(format!("bad discount base '{other}'")))?,
        ),
    };
    match kind {
        "log" => Ok(Discount::Log(base)),
        "jk" => Ok(Discount::Jk(base)),
        other => Err(PyValueError::new_err(format!("unknown discount '{other}'"))),
    }
}

/// A field of a Python value, by name (a wrong type names the field).
pub(crate) fn field<'py, T: FromPyObject<'py>>(
    value: &Bound<'py, PyAny>,
    name: &str,
) -> PyResult<T> {
    value
        .getattr(name)?
        .extract()
        .map_err(|e| PyTypeError::new_err(format!("options field {name}: {e}")))
}

/// A gain spec given as a value with fields (trecgain.gains.GainSpec): text (only for messages,
/// a lone surrogate written as a backslash escape), pairs of (level, gain) with a level beyond
/// 64 bits saturated (it names no grade, as strtol saturates), scheme, exact_ideal.
fn gain_spec_fields(spec: &Bound<'_, PyAny>) -> PyResult<GainSpec> {
    let text = spec
        .getattr("text")?
        .call_method1("encode", ("utf-8", "backslashreplace"))?;
    let text = String::from_utf8_lossy(text.downcast::<PyBytes>()?.as_bytes()).into_owned();
    let mut pairs = Vec::new();
    for pair in spec.getattr("pairs")?.try_iter()? {
        let pair = pair?;
        let level = pair.getattr("level")?;
        let level = if level.is_none() {
            None
        } else {
            Some(
                level
                    .extract::<i64>()
                    .or_else(|_| Ok::<_, PyErr>(if level.gt(0)? { i64::MAX } else { i64::MIN }))?,
            )
        };
        pairs.push((level, field(&pair, "gain")?));
    }
    gain_spec((
        text,
        pairs,
        field(spec, "scheme")?,
        field(spec, "exact_ideal")?,
    ))
}

/// The core's Options from the Python options value (trecgain.options.EvaluationOptions), read
/// field by field by name; an unknown compat, tie rule or discount is an error naming it,
/// never a default.
pub(crate) fn core_options(value: &Bound<'_, PyAny>) -> PyResult<Options> {
    let compat: String = field(value, "compat")?;
    let ties: String = field(value, "ties")?;
    let discount_value = value.getattr("discount")?;
    let kind: String = field(&discount_value, "kind")?;
    let base: String = field(&discount_value, "base")?;
    let global_gains = value.getattr("global_gains")?;
    Ok(Options {
        relevance_level: field(value, "relevance_level")?,
        judged_only: field(value, "judged_only")?,
        max_docs: field(value, "max_docs")?,
        complete: field(value, "complete")?,
        empty_ok: field(value, "empty_ok")?,
        compat: match compat.as_str() {
            "9" => Compat::Nine,
            "10" => Compat::Ten,
            other => return Err(PyValueError::new_err(format!("unknown compat '{other}'"))),
        },
        discount: discount(&kind, &base)?,
        global_gains: if global_gains.is_none() {
            None
        } else {
            Some(gain_spec_fields(&global_gains)?)
        },
        exact_ideal: field(value, "exact_ideal")?,
        err_max_grade: field(value, "err_max_grade")?,
        num_docs: field(value, "num_docs")?,
        ties: match ties.as_str() {
            "docno" => Ties::Docno,
            "rank" => Ties::Rank,
            "average" => Ties::Average,
            "reversed" => Ties::Reversed,
            "input" => Ties::Input,
            other => return Err(PyValueError::new_err(format!("no tie rule '{other}'"))),
        },
        rel_format: rel_format(&field::<String>(value, "rel_format")?)?,
        zscores: zscores(&value.getattr("zscores")?)?,
        only_query: field::<Option<Vec<u8>>>(value, "only_query")?,
        drop_self: field(value, "drop_self")?,
        ideal: match field::<String>(value, "ideal")?.as_str() {
            "judged" => Ideal::Judged,
            "ranking" => Ideal::Ranking,
            other => return Err(PyValueError::new_err(format!("no ideal rule '{other}'"))),
        },
        level_gains: field(value, "level_gains")?,
        no_relevant: match field::<String>(value, "no_relevant")?.as_str() {
            "zero" => NoRelevant::Zero,
            "one" => NoRelevant::One,
            "skip" => NoRelevant::Skip,
            "error" => NoRelevant::Error,
            other => {
                return Err(PyValueError::new_err(format!(
                    "no rule '{other}' for queries with nothing relevant"
                )))
            }
        },
        positive_scores: field(value, "positive_scores")?,
        ap_divisor: match field::<String>(value, "ap_divisor")?.as_str() {
            "relevant" => ApDivisor::Relevant,
            "found" => ApDivisor::Found,
            other => return Err(PyValueError::new_err(format!("no AP divisor '{other}'"))),
        },
    })
}

/// -Z's table (EvaluationOptions.zscores): None, or (qid, line name, mean, deviation) rows.
fn zscores(value: &Bound<'_, PyAny>) -> PyResult<Option<Arc<ZScores>>> {
    if value.is_none() {
        return Ok(None);
    }
    let rows: Vec<(Vec<u8>, Vec<u8>, f64, f64)> = value.extract()?;
    Ok(Some(Arc::new(ZScores::new(rows))))
}

/// An `-R` format by name (EvaluationOptions.rel_format).
pub(crate) fn rel_format(name: &str) -> PyResult<RelFormat> {
    RelFormat::named(name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown relevance format '{name}'")))
}
