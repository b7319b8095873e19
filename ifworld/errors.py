"""One error tree: everything IF-World raises on purpose derives from :class:`IFWorldError`.

``except IFWorldError`` catches every failure the product names itself (a traceback from anywhere else is
a bug). Below the root there is one class per area; a page or command catches the area it can explain::

    IFWorldError
    ├── ConfigError        (ValueError)   a setting or the installation cannot do what was asked:
    │   │                                 IFWORLD_* values, an optional extra not installed
    │   └── BeliefConfigError             an impossible simulation parameter (beliefs.config.ConfigError)
    ├── InputError         (ValueError)   bad user input: files, parameters, propositions, choices
    │   ├── DatasetError                  an RWS data file or row that cannot be used
    │   └── WorkshopError                 a workshop action refused (closed, bounds, not the facilitator)
    ├── PackageError                      the installation is broken: a shipped prompt or resource file
    ├── ModelError                        the model layer: calls, replies (LLMError and its kinds)
    ├── StoreError         (RuntimeError) the run store file cannot be used (corrupt, read-only, full)
    ├── RecordError        (ValueError)   a stored run record does not have its kind's shape
    ├── WorkflowError                     a run cannot be found, started, driven or finished
    │   └── StepFailed     (RuntimeError) a step of a run failed; the run stops, resumable
    ├── GradingError                      RWS grading refused or could not read an answer
    └── SimulationError    (RuntimeError) a belief simulation could not run or finish

The finer classes stay next to the code that raises them, each below its area:

- ModelError: ``LLMError`` (→ ``LLMNotConfigured``, ``LLMCallError``, ``StructuredOutputError`` →
  ``TruncatedOutputError``) and ``ReplyFormatError`` in :mod:`ifworld.llm.reply`.
- WorkflowError: ``RunFailed`` → ``RunCancelled`` (:mod:`ifworld.runs.driver`), ``RunLive``, ``RunNotFound``
  (:mod:`ifworld.runs.store`), ``UnknownWorkflow`` (:mod:`ifworld.runs.registry`).
- InputError: ``ReviewError`` (what-if review answers), ``AliasRefused`` (YAML), ``DatasetTooLarge`` and
  ``HubUnavailable`` (RWS datasets), ``UnknownEntry``, ``DuplicateEntry`` and ``WrongSpecType`` (an extension
  point's registry, :mod:`ifworld.registry`).
- GradingError: ``UnitError``, ``MagnitudeError``, ``SymbolicInputError``, ``OpaqueVector``,
  ``UnreadableAnswer`` — refusals that become an item's verdict, never a crashed run.
- PackageError: ``PromptError`` (:mod:`ifworld.prompts`), ``ResourcesNotFound`` (:mod:`ifworld.resources`).

``StoreError``, ``RecordError`` and the belief engine's ``ConfigError`` *are* areas, so they live here; their
old modules re-export them under the old names.

Compatibility: each class also derives from the builtin it always was (``ValueError``, ``RuntimeError``,
``KeyError``, ``FileNotFoundError``), so ``except ValueError`` in callers keeps working. An area names a
builtin only when all its members share it; where they differ (``ModelError``, ``WorkflowError``,
``GradingError``, ``PackageError``) each member names its own.

Messages are for the person who has to act: what was wrong, with the value given, and what to do about it.
This module imports nothing from the package, so any module (even a grading worker process) can use it.
"""

from __future__ import annotations

__all__ = [
    "BeliefConfigError", "ConfigError", "DatasetError", "GradingError", "IFWorldError", "InputError",
    "ModelError", "PackageError", "RecordError", "SimulationError", "StepFailed", "StoreError", "WorkflowError",
    "WorkshopError",
]


class IFWorldError(Exception):
    """Root of every error IF-World raises on purpose."""


class ConfigError(IFWorldError, ValueError):
    """A setting or the installation cannot do what was asked (the message names the setting and a fix)."""


class BeliefConfigError(ConfigError):
    """An impossible belief-simulation parameter; the message names it, its bound and the value given."""


class InputError(IFWorldError, ValueError):
    """Input from the user that cannot be used (a file, a parameter, a proposition, a choice)."""


class DatasetError(InputError):
    """An RWS data file, or one of its rows, that cannot be used."""


class WorkshopError(InputError):
    """A workshop action that cannot be done: the workshop is closed, an input is over its bound, the code is
    wrong or tried too often, or the caller is not the facilitator (the message says which)."""


class PackageError(IFWorldError):
    """A file shipped with the package (a prompt, the bundled data) is missing or malformed: reinstall."""


class ModelError(IFWorldError):
    """The model layer: a call that failed, or a reply that cannot be used."""


class StoreError(IFWorldError, RuntimeError):
    """The run store file cannot be used (corrupt, read-only, disk full); the message names the file and a way out."""


class RecordError(IFWorldError, ValueError):
    """A stored record that does not have its kind's shape; the message names the run and the field."""

    def __init__(self, message: str, run_id: str | None = None, field: str = "") -> None:
        super().__init__(message)
        self.run_id, self.field = run_id, field


class WorkflowError(IFWorldError):
    """A run that cannot be found, started, driven or finished."""


class StepFailed(WorkflowError, RuntimeError):
    """A step of a run failed (an agent every later step needs, say); finished steps are kept, resume continues."""


class GradingError(IFWorldError):
    """RWS grading refused an answer or could not read it; the item's verdict says so, the run goes on."""


class SimulationError(IFWorldError, RuntimeError):
    """A belief simulation could not run or finish (the message says why and what to do)."""
