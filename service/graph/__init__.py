"""Graph-based label propagation over one page's blocks (the ``grf`` backend).

- :mod:`~service.graph.vectors`: hashed block vectors (words, tags, id/class tokens);
- :mod:`~service.graph.build`: the sparse, symmetric weight matrix (document order plus k nearest neighbours);
- :mod:`~service.graph.seeds`: confident labels from markup and text heuristics;
- :mod:`~service.graph.harmonic`: the harmonic solution (Zhu, Ghahramani, Lafferty 2003) by conjugate gradient.
"""
