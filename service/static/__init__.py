"""The reader page, shipped as package data."""
