"""What backends and the serving layer run on: ONNX Runtime sessions, windows, the micro-batcher, admission."""
