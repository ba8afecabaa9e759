"""mdtodo: Markdown checklists to a JSON summary (see CONTRACT.md)."""

__version__ = '1.4.0'
