"""`python -m bots upload BOT --name NAME --game G --token T --server URL`: send a bot to a league server.

Uploads BOT (bot.py or a .zip) as a new bot called NAME, or as a new version when you already own a bot of that
name, then waits until the league has validated it. Exit status: 0 active, 1 failed or refused (the reason is
printed), 2 usage or network errors. Standard library only: bots never import the league.

The token comes from --token or ARENA_TOKEN, the server from --server or ARENA_SERVER (your token page:
SERVER/account/tokens/).
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import games

ACTIVE, FAILED, VALIDATING = "active", "failed", "validating"


class UsageError(Exception):
    """Exit 2: the command, the network or the server stopped us; the message says what to fix."""


class Refused(Exception):
    """Exit 1: the server refused the upload or the bot failed validation; the message is the reason."""


def add_parser(commands: Any) -> None:
    """Add the `upload` subcommand to `python -m bots`."""
    upload = commands.add_parser(
        "upload",
        help="upload a bot to a league server and wait for its validation",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    upload.add_argument("bot", type=Path, help="bot.py, or a .zip with bot.py at its top level")
    upload.add_argument("--name", required=True, help="the bot's name on the server (yours, or new)")
    upload.add_argument("--game", required=True, choices=games.GAME_IDS)
    upload.add_argument("--description", default="", help="for a new bot: a line about it")
    upload.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="your API token (or ARENA_TOKEN)")
    upload.add_argument("--server", default=os.environ.get("ARENA_SERVER"), help="e.g. https://arena.example.org")
    upload.add_argument("--wait", type=float, default=600.0, help="seconds to wait for validation (default 600)")
    upload.add_argument("--poll", type=float, default=1.0, help=argparse.SUPPRESS)


class Client:
    """JSON over HTTP with the token; every failure becomes UsageError or Refused with a readable message."""

    def __init__(self, server: str, token: str, timeout: float = 30.0) -> None:
        parts = urllib.parse.urlsplit(server)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise UsageError(f"--server must be an http(s) URL such as https://arena.example.org, got {server!r}")
        self.base = server.rstrip("/")
        self.token = token
        self.timeout = timeout

    def request(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None) -> Any:
        headers = {"Authorization": f"Token {self.token}", "Accept": "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raise _http_error(error) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise UsageError(f"cannot reach {self.base}: {reason}") from None
        except ValueError:
            raise UsageError(f"{self.base}{path} did not answer JSON: is {self.base} a league server?") from None

    def get(self, path: str, **query: str) -> Any:
        return self.request("GET", path + ("?" + urllib.parse.urlencode(query) if query else ""))

    def post_form(self, path: str, fields: dict[str, str], file: Path) -> Any:
        body, content_type = multipart(fields, "file", file.name, file.read_bytes())
        return self.request("POST", path, body, content_type)


def _http_error(error: urllib.error.HTTPError) -> Exception:
    try:
        detail = json.loads(error.read())["error"]
        message = detail["message"]
    except (ValueError, KeyError, TypeError):
        detail, message = {}, f"{error.code} {error.reason}"
    if error.code == 400:
        return Refused(message)
    if error.code == 401:
        return UsageError(f"the server does not accept the token ({message}); get one on /account/tokens/")
    if error.code == 429:
        return UsageError(f"too many requests: {message}")
    return UsageError(f"the server answered {error.code}: {message}")


def multipart(fields: dict[str, str], file_field: str, filename: str, content: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body and its Content-Type."""
    boundary = f"arena-{uuid.uuid4().hex}"
    lines: list[bytes] = []
    for name, value in fields.items():
        lines += [f"--{boundary}".encode(), f'Content-Disposition: form-data; name="{name}"'.encode(), b""]
        lines.append(value.encode())
    safe_name = filename.replace('"', "_").replace("\r", "_").replace("\n", "_")
    file_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    lines += [
        f"--{boundary}".encode(),
        f'Content-Disposition: form-data; name="{file_field}"; filename="{safe_name}"'.encode(),
        f"Content-Type: {file_type}".encode(),
        b"",
        content,
        f"--{boundary}--".encode(),
        b"",
    ]
    return b"\r\n".join(lines), f"multipart/form-data; boundary={boundary}"


def upload(client: Client, file: Path, name: str, game: str, description: str = "") -> dict:
    """Send the file as a new version of your bot `name`, or as a new bot; the created version."""
    mine = client.get("/api/bots/", mine="true", name=name)["results"]
    if mine:
        bot = mine[0]
        if bot["game"] != game:
            raise UsageError(f"your bot {bot['name']} plays {bot['game']}, not {game}")
        return client.post_form(f"/api/bots/{bot['id']}/versions/", {}, file)
    created = client.post_form("/api/bots/", {"name": name, "game": game, "description": description}, file)
    return created["version"]


def wait_for_validation(client: Client, version: dict, wait: float, poll: float) -> dict:
    deadline = time.monotonic() + wait
    while version["status"] == VALIDATING:
        if time.monotonic() > deadline:
            raise UsageError(f"version {version['id']} is still validating after {wait:g} s; check it later")
        time.sleep(poll)
        version = client.get(f"/api/versions/{version['id']}/")
    return version


def run(args: argparse.Namespace) -> int:
    """The `upload` subcommand: exit 0 active, 1 refused or failed, 2 usage or network error."""
    try:
        if not args.token:
            raise UsageError("give your API token with --token or ARENA_TOKEN (create one on SERVER/account/tokens/)")
        if not args.server:
            raise UsageError("give the league's address with --server or ARENA_SERVER")
        if not args.bot.is_file():
            raise UsageError(f"{args.bot} is not a file: give bot.py or a .zip with bot.py at its top level")
        client = Client(args.server, args.token)
        version = upload(client, args.bot, args.name, args.game, args.description)
        print(f"uploaded {args.name} v{version['number']} (version {version['id']}); validating...", flush=True)
        version = wait_for_validation(client, version, args.wait, args.poll)
        if version["status"] != ACTIVE:
            reason = version.get("failure_reason") or version["status"]
            tail = version.get("stderr_tail")
            raise Refused(reason + (f"\nthe end of its stderr:\n{tail}" if tail else ""))
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Refused as error:
        print(f"failed: {error}", file=sys.stderr)
        return 1
    print(f"{args.name} v{version['number']} is active: it plays on the ladder now.")
    return 0
