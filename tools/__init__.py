"""Pure, typed calculators: memory, recommendation, training time, TCO, troubleshooting.

Nothing here imports LangChain, Gradio or does file/network I/O; data (the GPU and
model catalogs) is passed in by the caller.
"""
