"""The page where a user creates and revokes the API token their scripts send (`Authorization: Token KEY`).

One token per user (DRF's `authtoken`): creating a new one replaces the old one. The key is shown once, right
after it is created; afterwards the page says only that a token exists, since whoever sees the page could copy it.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token


@login_required
@require_http_methods(["GET", "POST"])
def tokens_page(request: HttpRequest) -> HttpResponse:
    new_key = None
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create":
            with transaction.atomic():
                Token.objects.filter(user=request.user).delete()
                new_key = Token.objects.create(user=request.user).key
        elif action == "revoke":
            deleted, _ = Token.objects.filter(user=request.user).delete()
            messages.success(request, "Your token is revoked." if deleted else "You had no token.")
            return redirect("api-tokens")
        else:
            return render(request, "accounts/tokens.html", {"bad_action": True}, status=400)
    token = Token.objects.filter(user=request.user).first()
    return render(request, "accounts/tokens.html", {"token": token, "new_key": new_key})
