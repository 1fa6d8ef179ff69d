"""The users' admin, with the staff's actions to disable an account (no log-in, no API token, its bots off the
ladder, its games kept) and to enable it again."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from league.arena.lib.admin_times import ZonedTimes
from league.arena.uploads import changes as bot_changes

User = get_user_model()


class AccountAdmin(ZonedTimes, UserAdmin):
    actions = ["disable_accounts", "enable_accounts"]

    @admin.action(description="Disable the selected accounts (no log-in or API; their bots leave the ladder)")
    def disable_accounts(self, request: HttpRequest, queryset: QuerySet) -> None:
        mine = queryset.filter(pk=request.user.pk)
        if mine.exists():
            self.message_user(request, "You cannot disable your own account.", messages.ERROR)
            return
        count = bot_changes.disable_users(queryset)
        self.message_user(request, f"{count} account{'s' if count != 1 else ''} disabled.", messages.SUCCESS)

    @admin.action(description="Enable the selected accounts again")
    def enable_accounts(self, request: HttpRequest, queryset: QuerySet) -> None:
        count = bot_changes.enable_users(queryset)
        self.message_user(request, f"{count} account{'s' if count != 1 else ''} enabled.", messages.SUCCESS)

    def save_model(self, request: HttpRequest, user: Any, form: Any, change: bool) -> None:
        """The form's "active" box does what the actions do: an account switched off withdraws its bots' queued
        ladder matches, and their pages forget it was on the ladder."""
        was_active = User.objects.filter(pk=user.pk).values_list("is_active", flat=True).first() if change else None
        super().save_model(request, user, form, change)
        if was_active is not None and was_active != user.is_active:
            follow = bot_changes.owners_returned if user.is_active else bot_changes.owners_left
            follow([user.pk])


admin.site.unregister(User)
admin.site.register(User, AccountAdmin)
