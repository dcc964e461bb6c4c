"""Reading the figures a view renders."""

from app.ui.notation import typeset


def trace(figure: dict, name: str) -> dict:
    """The one trace called ``name`` (as the view names it, or as the page shows it typeset)."""
    matches = [t for t in figure["data"] if t.get("name") in (name, typeset(name))]
    assert len(matches) == 1, [t.get("name") for t in figure["data"]]
    return matches[0]
