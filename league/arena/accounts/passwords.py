"""Password change and reset: Django's views with the site's templates and e-mail through Django's e-mail backend.

A reset request answers the same whatever the address (Django sends nothing for an unknown or disabled account),
and is limited per client address and per e-mail address asked for, so nobody floods an inbox or probes quickly.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.http import HttpRequest, HttpResponse
from django.urls import path, reverse_lazy

from league.arena.lib.throttles import client_address
from league.arena.web.decorators import throttled

LINK_HOURS = {"timeout_hours": settings.PASSWORD_RESET_TIMEOUT // 3600}
RESETS_REFUSED = "Too many password reset requests from your address, or for this e-mail address, this hour."


def asked_address(request: HttpRequest) -> str:
    """The e-mail address a reset form names, hashed (a cache key, whatever characters it holds)."""
    email = request.POST.get("email", "").strip().lower()
    return hashlib.sha256(email.encode()).hexdigest()


class ResetRequest(auth_views.PasswordResetView):
    """Django's reset request, naming the site in the e-mail (not the request's host name)."""

    template_name = "accounts/password_reset_form.html"
    email_template_name = "accounts/password_reset_email.txt"
    subject_template_name = "accounts/password_reset_subject.txt"
    success_url = reverse_lazy("password_reset_done")

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        self.extra_email_context = {"site_name": settings.SITE_NAME}
        return super().form_valid(form)


reset_request = throttled("password-reset", "ARENA_PASSWORD_RESETS_PER_HOUR", client_address, RESETS_REFUSED)(
    throttled("password-reset-email", "ARENA_PASSWORD_RESETS_PER_HOUR", asked_address, RESETS_REFUSED)(
        ResetRequest.as_view()
    )
)

urlpatterns = [
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(template_name="accounts/password_change_form.html"),
        name="password_change",
    ),
    path(
        "accounts/password/changed/",
        auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_change_done.html"),
        name="password_change_done",
    ),
    path("accounts/password/reset/", reset_request, name="password_reset"),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(
            template_name="accounts/password_reset_done.html", extra_context=LINK_HOURS
        ),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="accounts/password_reset_confirm.html", extra_context=LINK_HOURS
        ),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(template_name="accounts/password_reset_complete.html"),
        name="password_reset_complete",
    ),
]
