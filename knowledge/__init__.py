"""Curated data: the GPU and model catalogs (YAML, validated on load) and the bilingual guidance docs."""
