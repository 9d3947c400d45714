"""Kept blocks to text, HTML or Markdown, through one intermediate tree; one room per job.

- :mod:`~service.output.tree`: the content tree built from the kept leaves (containers, paragraphs, runs);
- :mod:`~service.output.markup`: inline markup (text, styles, links, breaks), shared by HTML and Markdown;
- :mod:`~service.output.dialects`: the line layout's two dialects, plain text and Markdown;
- :mod:`~service.output.lists` and :mod:`~service.output.tables`: lists and tables in the line layout;
- :mod:`~service.output.layout`: the line layout of a whole tree;
- :mod:`~service.output.html_writer`: the tree as semantic HTML;
- :mod:`~service.output.formats`: the public renderers.
"""
