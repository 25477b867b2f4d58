"""Go semantics the operator port and the binding share, one definition each.

Modules are named after the Go package they emulate (``strconv``, ``strings``,
``encoding_json``, ``mergo``, ``equality``; ``quantity`` for apimachinery's
``resource.Quantity``, ``gotime`` for ``metav1.Time``), so a reviewer finds ``strconv.Quote``
in ``goruntime/strconv.py``. ``typetable`` is the pinned Go types they walk (one loader, one
descriptor format). The scalar modules are checked against values printed by the Go
toolchain (``scripts/go-reference/``); the JSON runtime against the operator oracle.
"""
