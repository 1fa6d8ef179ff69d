"""The notification centre's pages: the list (mark read, one or all), opening a notice, the navigation's live
count, and the user's preferences. Every page shows the signed-in user's own notices only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from league.arena.models import Notification
from league.arena.notifications import inbox, preferences
from league.arena.web.pagination import paginate

PER_PAGE = 25


@login_required
def notification_list(request: HttpRequest) -> HttpResponse:
    unread_only = request.GET.get("show") == "unread"
    page = paginate(request, inbox.of(request.user.pk, unread_only), PER_PAGE)
    return render(
        request,
        "arena/notifications.html",
        {"page": page, "unread_only": unread_only, "unread": inbox.unread_count(request.user.pk)},
    )


@login_required
@require_POST
def mark_read(request: HttpRequest) -> HttpResponse:
    """Mark one notice (`id`), or all (`all`), read or, with `unread`, unread again; back to where the form was."""
    raw = request.POST.get("id", "")
    if request.POST.get("all"):
        count = inbox.mark_read(request.user.pk)
        messages.success(request, f"Marked {count} notification{'s' if count != 1 else ''} read.")
    elif raw.isdigit():
        if request.POST.get("unread"):
            inbox.mark_unread(request.user.pk, [int(raw)])
        else:
            inbox.mark_read(request.user.pk, [int(raw)])
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, {request.get_host()}, request.is_secure()) or not back.startswith("/"):
        back = reverse("notifications")
    return redirect(back)


@login_required
def open_notification(request: HttpRequest, notification_id: int) -> HttpResponse:
    """Follow a notice's link, marking it read on the way (the list's links and the e-mails' go through here)."""
    notice = inbox.open_notice(request.user.pk, notification_id)
    if notice is None or not notice.url:
        return redirect("notifications")
    return redirect(notice.url)


def badge(request: HttpRequest) -> HttpResponse:
    """The navigation's link with the unread count, fetched again by the page every so often (site.js); a 403
    once signed out (the page keeps what it shows)."""
    if not request.user.is_authenticated:
        return HttpResponseForbidden("Sign in to see your notifications.")
    return render(request, "arena/_notification_badge.html")


class PreferencesForm(forms.Form):
    email = forms.EmailField(
        required=False, label="E-mail address", help_text="Where e-mails go; leave it empty for none."
    )

    def __init__(self, *args: Any, chosen: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for kind, label in Notification.Kind.choices:
            self.fields[kind] = forms.ChoiceField(
                label=label[:1].upper() + label[1:],
                choices=preferences.Delivery.choices,
                initial=chosen[kind],
                widget=forms.RadioSelect,
            )

    def kind_fields(self) -> list[forms.BoundField]:
        return [self[kind] for kind in Notification.Kind.values]


@login_required
def preferences_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = PreferencesForm(request.POST or None, chosen=preferences.choices(user.pk), initial={"email": user.email})
    if request.method == "POST" and form.is_valid():
        preferences.save(user.pk, {kind: form.cleaned_data[kind] for kind in Notification.Kind.values})
        if form.cleaned_data["email"] != user.email:
            user.email = form.cleaned_data["email"]
            user.save(update_fields=["email"])
        messages.success(request, "Your notification preferences are saved.")
        return redirect("notification-settings")
    return render(
        request,
        "arena/notification_settings.html",
        {"form": form, "email_configured": preferences.email_configured()},
    )
