"""The value extractors, one module per kind of value; ``advisor.nlu.scan`` runs them in pipeline.yaml's order."""
