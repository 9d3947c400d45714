"""What tests in more than one folder import: servers on loopback, canned pages, test backends, paths.

Importable as ``support`` because pytest puts ``tests/`` on the path (``pythonpath`` in pyproject.toml).
Fixtures stay in the conftest.py of the folder that uses them.
"""
