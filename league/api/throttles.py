"""Request rates: anonymous clients by address, signed-in users by account, uploads stricter per account.

The rates are read from settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] on every request (DRF's classes read
them once at import), so a deployment's environment and a test's `settings` fixture both take effect.
"""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle


class _RatesFromSettings:
    scope: str

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class AnonThrottle(_RatesFromSettings, AnonRateThrottle):
    scope = "anon"


class UserThrottle(_RatesFromSettings, UserRateThrottle):
    scope = "user"


class UploadThrottle(_RatesFromSettings, UserRateThrottle):
    """Uploads start validation games on the workers: a few per hour and account is plenty.

    Only uploads that start them count: a request the view refuses (a file that does not compile, a name taken)
    is given back, as the site's upload form gives back its hourly quota (`throttled(count_refused=False)`).
    """

    scope = "uploads"
    counted: float | None = None  # the moment this request was counted at, while it is

    def throttle_success(self) -> bool:
        self.counted = self.now
        return super().throttle_success()

    def give_back(self) -> None:
        """Uncount the request this throttle let through."""
        if self.counted is None:
            return
        history = self.cache.get(self.key, [])
        if self.counted in history:
            history.remove(self.counted)
            self.cache.set(self.key, history, self.duration)
        self.counted = None
