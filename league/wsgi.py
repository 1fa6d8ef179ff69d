"""WSGI entry point: `gunicorn league.wsgi`."""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
application = get_wsgi_application()

# Every view module loaded now, then the whole loaded app kept out of the cyclic collector's sight: a full
# collection walked all of it (tens of milliseconds each time), and a page that builds many objects (a 100-bot
# tournament's table) set one off every few requests: its p95 was twice its median.
get_resolver().url_patterns  # noqa: B018 - loads the URL configuration and the views it names
gc.collect()
gc.freeze()
