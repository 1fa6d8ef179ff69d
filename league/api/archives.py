"""/api/archives/: the public games' monthly archives (league/arena/play/archives.py), as /data/ lists them."""

from __future__ import annotations

from dataclasses import asdict

from django.urls import reverse
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from league.arena.play import archives


class ArchiveSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="File name: GAME-YYYY-MM.jsonl.gz.")
    game = serializers.CharField()
    month = serializers.CharField(help_text="YYYY-MM (UTC) the games were played in.")
    games = serializers.IntegerField(help_text="Games in the archive, one a line.")
    bytes = serializers.IntegerField(help_text="Size of the compressed file.")
    sha256 = serializers.CharField(help_text="SHA-256 of the file as downloaded.")
    url = serializers.CharField(help_text="Where to download it.")


class ArchiveListSerializer(serializers.Serializer):
    exported_through = serializers.CharField(allow_null=True, help_text="The last month archived (YYYY-MM).")
    results = ArchiveSerializer(many=True)


EXAMPLE = {
    "exported_through": "2026-10",
    "results": [
        {
            "name": "face-to-face-2026-10.jsonl.gz",
            "game": "face-to-face",
            "month": "2026-10",
            "games": 48210,
            "bytes": 61348210,
            "sha256": "9f2c" * 16,
            "url": "https://arena.example.org/data/face-to-face-2026-10.jsonl.gz",
        }
    ],
}


class ArchiveList(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="The public games' monthly archives",
        description=(
            "Every public game (ladder, tournament and exhibition matches; never validation matches, scrims or "
            "version tests) in "
            "gzip-compressed JSON lines per game and month, newest month first; each line holds the game's id, "
            "match, seats (bots and versions) and verified log, and replays with `python -m games replay`."
        ),
        responses={200: ArchiveListSerializer},
        examples=[OpenApiExample("archives", value=EXAMPLE, response_only=True)],
    )
    def get(self, request: Request) -> Response:
        listed = [
            {**asdict(archive), "url": request.build_absolute_uri(reverse("data-file", args=[archive.name]))}
            for archive in archives.archives()
        ]
        return Response({"exported_through": archives.exported_through(), "results": listed})
