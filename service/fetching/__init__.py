"""Fetching pages from the open web without becoming a proxy into the private network (no FastAPI here)."""
