"""Diagnose GPU problems: log parsers, the compiled rule book, ranked diagnoses."""
