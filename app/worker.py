"""The Celery worker of a class deployment: ``celery --app app.worker worker`` (the Procfile's
``worker`` process). It builds the app from the same environment as the web process, so that
the background callbacks it runs are the web app's, and needs ``BACKGROUND_BROKER_URL`` (and a
shared result cache, ``CACHE_REDIS_URL``)."""

from __future__ import annotations

from . import create_app

dash_app = create_app()
celery_app = dash_app.server.config["CELERY_APP"]
if celery_app is None:
    raise SystemExit(
        "The worker needs BACKGROUND_BROKER_URL (redis://host:6379/1), the broker the web "
        "processes send their background jobs to."
    )
app = celery_app  # ``celery --app app.worker`` looks for ``app`` or ``celery``
