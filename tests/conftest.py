"""Shared test setup: the repository root is importable, so tests use ``from tests.models import ...``."""
