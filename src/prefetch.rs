//! The command's first reading, started before the command line is parsed: while the
//! interpreter imports click (most of a start-up), a second thread reads the two files the
//! command most likely evaluates, as a qrels file and a run file with the default reading
//! rules. The command takes a reading only when its options ask for exactly that reading of
//! exactly that file; anything else (another format, a failed reading) is read again as
//! usual, so the prefetch changes when the work is done, never its outcome.

use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use pyo3::prelude::*;

use trecgain_core::label::prepare_ahead;
use trecgain_core::read::{read_relevance_path, read_run_path, Qrels, RelFormat, Run};

use crate::inputs::{PyQrels, PyRun};

/// What the thread read: the qrels and the run, each None if its reading failed.
type Reading = (Option<Arc<Qrels>>, Option<Arc<Run>>);

/// The reading: under way, or done (both None once handed over).
enum State {
    Reading(JoinHandle<Reading>),
    Done(Reading),
}

#[pyclass(frozen, name = "Prefetch", module = "trecgain._core")]
pub(crate) struct Prefetch {
    qrels_path: String,
    run_path: String,
    state: Mutex<State>,
}

/// Starts reading `qrels_path` as a qrels file (integer grades) and then `run_path` as a run
/// file (no rank column) on a second thread; `Prefetch.take` hands the readings over.
#[pyfunction]
pub(crate) fn prefetch(qrels_path: String, run_path: String) -> Prefetch {
    let (qrels, run) = (qrels_path.clone(), run_path.clone());
    // a reading that fails is left to the command, which reads again and says why; the run is
    // read even then (-R's formats have four columns too, and a plain reading may refuse them)
    let thread = std::thread::spawn(move || {
        let qrels = read_relevance_path(&qrels, false, RelFormat::Qrels)
            .ok()
            .map(Arc::new);
        let mut run = read_run_path(&run, false).ok();
        if let Some(run) = run.as_mut().filter(|r| r.lines.len() <= PREPARED_LINES) {
            prepare_ahead(run, qrels.as_ref()); // while Python loads
        }
        (qrels, run.map(Arc::new))
    });
    Prefetch {
        qrels_path,
        run_path,
        state: Mutex::new(State::Reading(thread)),
    }
}

/// The most run lines whose judgments and duplicates the prefetch works out too: reading and
/// this together take less time than Python's start-up (for the runs whose time start-up is).
const PREPARED_LINES: usize = 250_000;

#[pymethods]
impl Prefetch {
    /// Waits until the reading is done.
    fn wait(&self, py: Python<'_>) {
        py.allow_threads(|| {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let done = match std::mem::replace(&mut *state, State::Done((None, None))) {
                // a panicking reader: nothing to hand over; the command reads again and says why
                State::Reading(thread) => thread.join().unwrap_or((None, None)),
                State::Done(reading) => reading,
            };
            *state = State::Done(done);
        });
    }

    /// Waits for the reading and hands over what matches: the qrels if `qrels_path` is the
    /// file read and `qrels_wanted` (the command reads it as plain qrels with integer grades),
    /// the run likewise. Each is handed over once; afterwards both are None.
    fn take(
        &self,
        py: Python<'_>,
        qrels_path: &str,
        run_path: &str,
        qrels_wanted: bool,
        run_wanted: bool,
    ) -> (Option<PyQrels>, Option<PyRun>) {
        self.wait(py);
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let State::Done((qrels, run)) = std::mem::replace(&mut *state, State::Done((None, None)))
        else {
            return (None, None); // not reached: wait() leaves the reading done
        };
        let qrels = qrels.filter(|_| qrels_wanted && qrels_path == self.qrels_path);
        let mut run = run.filter(|_| run_wanted && run_path == self.run_path);
        if qrels.is_none() {
            // the judgments were worked out with qrels the command reads again: not kept
            if let Some(run) = run.as_mut().and_then(Arc::get_mut) {
                run.judged = None;
            }
        }
        (
            qrels.map(|inner| PyQrels { inner }),
            run.map(|inner| PyRun { inner }),
        )
    }
}
