"""Go semantics the operator port and the binding share, one definition each.

Modules are named after the Go package they emulate (``strconv``, ``strings``), so a
reviewer finds ``strconv.Quote`` in ``goruntime/strconv.py``. Each is checked against
values printed by the Go toolchain (``scripts/go-reference/``).
"""
