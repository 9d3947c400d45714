"""What runs extractions inside a serving process: admission, and later the micro-batcher."""
