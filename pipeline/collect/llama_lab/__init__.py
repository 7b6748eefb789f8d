"""The real llama.cpp lab: a small random-weight model split over ggml RPC between two network
namespaces, driven and measured with the project's own collectors (pipeline/collect/llama_lab/run.py)."""
