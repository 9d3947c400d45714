"""Page metadata (title, author, dates, site, language, image, canonical URL, tags) and the page type.

A domain package: it reads the :class:`~service.parsing.document.Document`
and knows nothing of HTTP, the pipeline or the backends.
"""
