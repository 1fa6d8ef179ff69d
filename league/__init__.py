"""The league server: a Django project with its Celery app (``celery -A league worker``)."""

from league.celery import app

__all__ = ["app"]
