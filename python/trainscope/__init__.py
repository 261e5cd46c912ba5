"""trainscope in Python: diagnose large-model training profiles from a notebook.

The same C++ library as the ``trainscope`` command, in-process::

    import trainscope
    job = trainscope.analyze("build/demo-job")      # a job dir, rank dirs, traces
    job.findings[0]["id"]                           # ranked findings, as in --json
    job.kernels(rank=0, step=job.selected_step(0))  # every kernel: a pandas DataFrame
    trainscope.compare("base_run", "new_run")       # the compare JSON document
    trainscope.health("train.log")                  # training-log health
    trainscope.accuracy("dump_a", "dump_b")         # tensor-dump alignment
    trainscope.triage("failed_job/")                # hung or dead jobs

Every result is the CLI's JSON document for the same input (docs/json-schema.md):
``analyze`` returns a :class:`Job` around it, the other commands the parsed
document itself. Errors raise :class:`Error` with the CLI's message and hint.
The GIL is released while the library works, so threads run side by side.
Tables are pandas DataFrames when pandas is installed, else lists of dicts
(and, for kernels, numpy arrays or memoryviews). See docs/python.md.
"""

from .commands import Error, accuracy, analyze, compare, health, run, triage
from .job import Job, kernels

from . import _native

__version__ = _native.version
__all__ = ["Error", "Job", "accuracy", "analyze", "compare", "health", "kernels", "run", "triage"]
