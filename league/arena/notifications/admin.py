"""The staff see what owners were told and whether each e-mail went out (read only: notices are the league's record)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from league.arena.lib.admin_times import ZonedTimes
from league.arena.models import Notification


@admin.register(Notification)
class NotificationAdmin(ZonedTimes, admin.ModelAdmin):
    list_display = ("created", "recipient", "kind", "text", "read_at", "email", "emailed_at")
    list_filter = ("kind", "email")
    list_select_related = ("recipient",)
    search_fields = ("recipient__username", "text")
    date_hierarchy = "created"
    readonly_fields = [field.name for field in Notification._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Notification | None = None) -> bool:
        return False
