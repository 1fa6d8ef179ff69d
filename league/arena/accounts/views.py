"""Signing up (log-in, log-out and passwords are Django's views, see accounts/passwords.py)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from league.arena.accounts.forms import SignupForm
from league.arena.lib.throttles import client_address
from league.arena.web.decorators import throttled


@throttled("signup", "ARENA_SIGNUPS_PER_HOUR", client_address, "Too many sign-ups from your address this hour.")
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}! Upload your first bot.")
        return redirect("new-bot")
    return render(request, "registration/signup.html", {"form": form})
