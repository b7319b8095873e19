"""RWS grading: everything that needs no model (a pipeline of named stages, each bounded in time).

- ``extract`` — candidate answers from a reply (JSON, final line, boxed, maths, number).
- ``kinds`` — what a decided answer is (value, expression, set, several answers …).
- ``numeric`` and ``units`` (pint), ``magnitude`` — numbers with units, 5 % tolerance, heliophysics magnitudes.
- ``symbolic``, ``symcompare``, ``answercompare``, ``latexnorm``, ``vectors`` — LaTeX and plain-text maths with
  sympy; run inside the killable worker (``sandbox``, ``symworker``) so a hard expression cannot hang a caller.
- ``textual`` — text answers; ``chain`` — the stages in order; ``result`` — the frozen verdict objects;
  ``grader`` — ``check``, ``grade_item``, ``grade_many`` (the public API, re-exported by ``ifworld.rws``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
