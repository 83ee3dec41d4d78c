"""What "the model" is: catalog names, Hugging Face config.json, bare sizes, parameter counts."""
