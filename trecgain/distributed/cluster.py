"""Connecting to a Dask cluster for trecgain.distributed: Dask found (or one line saying how to
install it), a client made or borrowed and closed, a local cluster deaf to Ctrl-C while it starts."""

from __future__ import annotations

import os
import threading

from ..errors import TrecgainError

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Any

INSTALL = "pip install trecgain[dask]"
#: Who asked, as messages name it: the library's call, or the command's option.
API, COMMAND = "evaluate_on_dask", "--dask"
#: How long a cluster may have no worker while tasks wait, when Dask's
#: distributed.scheduler.no-workers-timeout is not set (its default: wait for ever).
NO_WORKERS_SECONDS = 60.0
#: How often the wait for tasks looks at the cluster's workers.
POLL_SECONDS = 1.0


def need_dask(who: str) -> None:
    """Dask missing: the one line _distributed says, without importing Dask (which starts a thread)."""
    from importlib.util import find_spec  # not at import: only this path needs it

    try:
        found = find_spec("distributed") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        _distributed(who)


def _distributed(who: str = API) -> Any:
    try:
        import distributed  # optional dependency: imported only when used
    except ImportError:
        raise TrecgainError(f"Dask is not installed ({who} needs dask[distributed]): {INSTALL}") from None
    return distributed


class Connection:
    """A Client for `target` (a Client, an address, or 'local'), closed on exit if made here;
    `who` (API or COMMAND) is what the messages name."""

    def __init__(self, target: Any, who: str):
        distributed = _distributed(who)
        self.cluster = None
        self.client = None
        self.owned = True
        if isinstance(target, distributed.Client):
            self.client, self.owned = target, False
            return
        if not isinstance(target, str) or not target:
            from .. import check  # not at import: only this path needs it

            raise TrecgainError(f"{who}: client must be a distributed.Client, a scheduler's address or 'local', "
                                f"not {check.show(target)}")
        import logging  # not at import: only this path needs it

        try:
            if target == "local":
                self.cluster = distributed.LocalCluster(processes=True, dashboard_address=":0",
                                                        silence_logs=logging.CRITICAL)
                self.client = _client(distributed, self.cluster)
            else:
                # Dask's distributed.comm.timeouts.connect (30 s) bounds the wait
                self.client = _client(distributed, target)
        except Exception as err:  # refused, timed out, a bad address: one line
            self.close()
            where = "start a local Dask cluster" if target == "local" else f"reach a Dask scheduler at {target}"
            raise TrecgainError(f"{who}: cannot {where}: {reason_of(err)}") from None

    def __enter__(self) -> Any:
        return self.client

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if not self.owned:
            return
        for thing in (self.client, self.cluster):
            if thing is not None:
                _close(thing)


def _client(distributed: Any, target: Any) -> Any:
    """A Client connected to `target`; one that fails half-way (an address Dask cannot parse,
    a scheduler out of reach) is closed here, at once: left to the garbage collector, it would
    wait 60 s at the interpreter's exit and print a traceback."""
    client = distributed.Client.__new__(distributed.Client)
    try:
        client.__init__(target, set_as_default=False)
    except BaseException:
        _close(client)
        raise
    return client


def _close(thing: Any) -> None:
    """Close a Client or a cluster (closing: nothing left to report)."""
    try:
        thing.close()
    except Exception:
        pass


def deaf_to_interrupts(start: Any) -> Any:
    """start() (Dask imported, the LocalCluster started) with SIGINT blocked in this thread:
    the threads Dask starts meanwhile, and the worker processes they spawn, now or later to
    replace one, inherit the block. A terminal's Ctrl-C reaches every process of the command:
    it then ends trecgain alone (one line, `trecgain: interrupted`), whose workers end with
    it, instead of each worker printing its KeyboardInterrupt. Meanwhile a thread started
    before the block takes a Ctrl-C at once (the signal goes to a thread that does not block
    it, and the handler, the core's or Python's, does the rest); SIGINT is unblocked here after."""
    import signal  # not at import: only this path needs it

    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        return start()
    started = threading.Event()
    listener = threading.Thread(target=started.wait, name="trecgain: Ctrl-C while Dask starts", daemon=True)
    listener.start()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        started.set()


def quiet_resource_tracker() -> None:
    """The command's own LocalCluster: multiprocessing's resource tracker (the process that
    removes what the worker processes leave) started with its warnings off, so that a command
    ended by a signal (Ctrl-C: `trecgain: interrupted`) says nothing more: the tracker warns
    of the semaphores it then removes. An environment variable of the tracker's process only."""
    from multiprocessing import resource_tracker  # not at import: only this path needs it

    saved = os.environ.get("PYTHONWARNINGS")
    quiet = "ignore::UserWarning:multiprocessing.resource_tracker"
    os.environ["PYTHONWARNINGS"] = f"{saved},{quiet}" if saved else quiet
    try:
        resource_tracker.ensure_running()
    except Exception:  # no tracker: the cluster starts one, or says why it cannot
        pass
    finally:
        if saved is None:
            del os.environ["PYTHONWARNINGS"]
        else:
            os.environ["PYTHONWARNINGS"] = saved


def reason_of(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def is_terminal(stream: Any) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
