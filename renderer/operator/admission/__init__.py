"""What happens to a DGD before the controller sees it: CRD defaults, conversion, webhooks.

See ``renderer/operator/__init__.py`` for the layout; ``errors.AdmissionError`` is what every
stage raises when the operator would refuse the DGD.
"""
