//! The one error type of the core: a message, and where (file, line) when a file is at fault.
//! The bindings turn it into Python's `TrecgainError(message, source, line)`.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub message: String,
    pub source: Option<String>,
    pub line: Option<u64>,
    /// A gain rule refused this grade (its f64 bits) of a query's judgments: the evaluation
    /// names the judgment that has it (`Qrels::locate_grade`).
    pub grade: Option<u64>,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A problem with a request or an option, not with a file.
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            source: None,
            line: None,
            grade: None,
        }
    }

    /// A gain rule's refusal of `grade`, a grade of the query's judgments.
    pub fn about_grade(message: impl Into<String>, grade: f64) -> Self {
        Error {
            grade: Some(grade.to_bits()),
            ..Error::new(message)
        }
    }

    /// A problem with a whole file (cannot read it, it is empty, ...).
    pub fn in_file(message: impl Into<String>, source: &str) -> Self {
        Error {
            message: message.into(),
            source: Some(source.to_string()),
            line: None,
            grade: None,
        }
    }

    /// A problem at one line of a file (1-based).
    pub fn at(message: impl Into<String>, source: &str, line: u64) -> Self {
        Error {
            message: message.into(),
            source: Some(source.to_string()),
            line: Some(line),
            grade: None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.source, self.line) {
            (Some(s), Some(l)) => write!(f, "{s}:{l}: {}", self.message),
            (Some(s), None) => write!(f, "{s}: {}", self.message),
            _ => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for Error {}
