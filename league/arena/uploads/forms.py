"""Upload and bot forms; an upload is checked in full while the form is validated."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile

from league.arena.models import BOT_NAME_RULE, GAME_CHOICES, Bot
from league.arena.uploads.intake import InspectedUpload, UploadRejected, check_name_and_size, inspect_upload, name_taken


class BotFileField(forms.FileField):
    """A .py or .zip bot, checked at once; cleans to an InspectedUpload."""

    def clean(self, data: Any, initial: Any = None) -> InspectedUpload | None:
        upload = super().clean(data, initial)
        if upload is None:
            return None
        assert isinstance(upload, UploadedFile)
        try:
            check_name_and_size(upload.name or "", upload.size or 0)
        except UploadRejected as error:
            raise forms.ValidationError(str(error)) from None
        try:
            return inspect_upload(upload.name or "", upload.read())
        except UploadRejected as error:
            raise forms.ValidationError(str(error)) from None


class NewBotForm(forms.Form):
    name = forms.CharField(max_length=40, validators=[BOT_NAME_RULE])
    game = forms.ChoiceField(choices=GAME_CHOICES)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=2000)
    file = BotFileField(help_text="bot.py, or a .zip with bot.py at its top level.")

    def __init__(self, *args: Any, owner: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.owner = owner

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        if Bot.objects.filter(owner=self.owner, name__iexact=name).exists():
            raise forms.ValidationError(name_taken(name))
        return name


class NewVersionForm(forms.Form):
    file = BotFileField(help_text="bot.py, or a .zip with bot.py at its top level.")


class BotEditForm(forms.Form):
    """The owner's rename and description form (bot_changes.edit does the checking, for the API too)."""

    name = forms.CharField(
        max_length=40, help_text="1 to 40 letters, digits, '-' or '_', starting with a letter or digit."
    )
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False, max_length=2000)
