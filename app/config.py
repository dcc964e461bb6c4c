"""Settings from the environment, with defaults that need nothing set up.

| variable | default | meaning |
| --- | --- | --- |
| ``CACHE_TYPE`` | ``FileSystemCache`` | flask-caching backend class (``SimpleCache`` in tests) |
| ``CACHE_DIR`` | ``<tmp>/lazy-rich-cache`` | file-system cache folder (one machine's workers) |
| ``CACHE_DEFAULT_TIMEOUT`` | ``3600`` | seconds a cached result lives |
| ``CACHE_THRESHOLD`` | ``2000`` | entries kept before the oldest are dropped |
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Settings"]

CACHE_TYPES = ("FileSystemCache", "SimpleCache", "RedisCache", "NullCache")


def _integer(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name, "")
    try:
        value = int(raw) if raw.strip() else default
    except ValueError:
        raise ValueError(f"{name} must be a whole number; got {raw!r}.") from None
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}; got {value}.")
    return value


@dataclass(frozen=True)
class Settings:
    cache_type: str = "FileSystemCache"
    cache_dir: str = os.path.join(tempfile.gettempdir(), "lazy-rich-cache")
    cache_timeout: int = 3600
    cache_threshold: int = 2000

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        cache_type = env.get("CACHE_TYPE", "").strip() or cls.cache_type
        if cache_type not in CACHE_TYPES:
            raise ValueError(
                f"CACHE_TYPE must be one of {', '.join(CACHE_TYPES)}; got {cache_type!r}."
            )
        return cls(
            cache_type=cache_type,
            cache_dir=env.get("CACHE_DIR", "").strip() or cls.cache_dir,
            cache_timeout=_integer(env, "CACHE_DEFAULT_TIMEOUT", cls.cache_timeout, 1, 30 * 86400),
            cache_threshold=_integer(env, "CACHE_THRESHOLD", cls.cache_threshold, 10, 10**7),
        )

    def flask_caching_config(self) -> dict:
        config = {
            "CACHE_TYPE": self.cache_type,
            "CACHE_DEFAULT_TIMEOUT": self.cache_timeout,
            "CACHE_THRESHOLD": self.cache_threshold,
        }
        if self.cache_type == "FileSystemCache":
            config["CACHE_DIR"] = self.cache_dir
        return config
