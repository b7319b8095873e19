"""RWS grading: everything that needs no model (a pipeline of named stages, each bounded in time).

What comes from Math-Verify and what is ours: docs/grading.md.

- ``extract`` — the answer region of a reply for numbers and text (JSON, final line, boxed, number line).
- ``mathverify`` — Math-Verify's ``parse`` / ``verify`` (extraction and equivalence; its own timeouts off).
- ``notation`` — hostile-input guards and physics notation rewritten for it (derivatives, ``vectors``,
  subscripted names, case); ``plaintext`` — calculator and CAS notation read safely; ``physics`` — vetoes of false
  "correct" and the proofs Math-Verify misses; ``ratios`` — ``a:b:c`` part by part; ``forms`` — answers as
  people write them (label sides such as ``P(r) =`` and ``A_1:A_2 =``, ``i`` for a numeric gold, stated
  precision); ``symbolic`` — the symbolic stage.
- ``numeric`` with ``units`` (pint), ``magnitude``, ``values`` (our reading and Math-Verify's of one value),
  ``latexnorm`` — numbers with units, 5 % tolerance, heliophysics units; ``textual`` — text answers.
- ``chain`` — one item's stages in the worker; ``sandbox`` / ``symworker`` — the killable worker pool;
  ``result`` — the frozen verdict objects and the deciding-step vocabulary (``decided_by``, first in every
  reason); ``grader`` — ``check``, ``grade_item``, ``grade_many`` (the public API, re-exported by ``ifworld.rws``).
"""

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
