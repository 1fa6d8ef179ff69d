"""Times in the admin name their zone: listed, read-only and typed in."""

from __future__ import annotations

from django.contrib import admin
from django.db import models
from django.test import RequestFactory, override_settings
from django.urls import reverse
from django.utils import timezone

from league.arena.lib.admin_times import ZonedSplitDateTime


def test_every_editable_time_in_the_admin_is_typed_against_a_named_zone(db):
    request = RequestFactory().get("/admin/")
    checked = 0
    for model, model_admin in admin.site._registry.items():
        if not type(model_admin).__module__.startswith("league."):
            continue  # a library's own admin (axes' logs, tokens): its lists and read-only times still name the zone
        for field in model._meta.fields:
            if isinstance(field, models.DateTimeField) and field.editable:
                formfield = model_admin.formfield_for_dbfield(field, request)
                assert isinstance(formfield.widget, ZonedSplitDateTime), f"{model.__name__}.{field.name}"
                checked += 1
    assert checked >= 5  # the users' last log-in and joining, tournaments' schedule, bots' retirement, ...


def test_the_lists_the_read_only_fields_and_the_inputs_name_the_zone(admin_client, alice, make_version):
    version = make_version(alice, "mine")
    created = timezone.localtime(version.created)
    listed = admin_client.get(reverse("admin:arena_botversion_changelist")).content.decode()
    assert f"{created:%Y-%m-%d %H:%M:%S} UTC" in listed
    shown = admin_client.get(reverse("admin:arena_botversion_change", args=[version.pk])).content.decode()
    assert f"{created:%Y-%m-%d %H:%M:%S} UTC" in shown  # a read-only field
    form = admin_client.get(reverse("admin:arena_tournament_add")).content.decode()
    assert "Time (UTC):" in form

    with override_settings(TIME_ZONE="Europe/Berlin"):
        local = timezone.localtime(version.created)
        listed = admin_client.get(reverse("admin:arena_botversion_changelist")).content.decode()
        assert f"{local:%Y-%m-%d %H:%M:%S} {local.tzname()}" in listed and local.tzname() in ("CET", "CEST")
        form = admin_client.get(reverse("admin:arena_tournament_add")).content.decode()
        assert "Time (Europe/Berlin):" in form
