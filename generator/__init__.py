"""errpages: a static site generator for error pages."""

__version__ = "0.1.0"
