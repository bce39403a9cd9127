"""Benchmarks: ``tower bench physics|model|game|load|battle``.

Each benchmark measures its subject and, in the same run, a baseline, and reports every
figure both as an absolute number and as a ratio against that baseline. Modules here are
one per subject and each exposes ``run(**options) -> dict`` with the JSON keys that
the issue tracker names.
"""
