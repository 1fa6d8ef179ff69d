"""Times in the admin name their zone: the lists and read-only fields through the date formats (league/formats),
the editable ones through `ZonedSplitDateTime`, whose time label says which zone the staff type a time in."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.widgets import AdminSplitDateTime
from django.db import models
from django.utils import timezone


class ZonedSplitDateTime(AdminSplitDateTime):
    """The admin's date and time inputs, the time labelled with the site's zone ("Time (UTC):")."""

    def get_context(self, name: str, value: Any, attrs: dict | None) -> dict:
        context = super().get_context(name, value, attrs)
        context["time_label"] = f"Time ({timezone.get_current_timezone_name()}):"
        return context


class ZonedTimes:
    """A ModelAdmin mix-in: every editable date-time field is entered against a named zone."""

    formfield_overrides = {models.DateTimeField: {"form_class": forms.SplitDateTimeField, "widget": ZonedSplitDateTime}}
