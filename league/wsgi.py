"""WSGI entry point: `gunicorn league.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
application = get_wsgi_application()
