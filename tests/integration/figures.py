"""Reading the figures a view renders (before the harness packs their arrays)."""


def trace(figure: dict, name: str) -> dict:
    """The one trace called ``name``."""
    matches = [t for t in figure["data"] if t.get("name") == name]
    assert len(matches) == 1, [t.get("name") for t in figure["data"]]
    return matches[0]
