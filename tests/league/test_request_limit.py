"""A request body larger than ARENA_MAX_REQUEST_BYTES is refused with 413 before any of it is read."""

from __future__ import annotations

import io

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.test import override_settings

CSRF_SECRET = "k" * 32


class WatchedBody(io.RawIOBase):
    """A request body of `size` bytes that records how much of it was read."""

    def __init__(self, size: int) -> None:
        self.size, self.taken = size, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        count = min(len(buffer), self.size - self.taken)
        buffer[:count] = b"x" * count
        self.taken += count
        return count


def post(path: str, size: int, content_type: str = "multipart/form-data; boundary=xyz") -> tuple[str, bytes, int]:
    body = WatchedBody(size)
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "HTTP_HOST": "127.0.0.1",
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(size),
        "HTTP_COOKIE": f"csrftoken={CSRF_SECRET}",  # with a CSRF cookie Django would read the body to check it
        "wsgi.input": body,
        "wsgi.url_scheme": "http",
        "wsgi.errors": io.StringIO(),
    }
    started = []
    chunks = WSGIHandler()(environ, lambda status, headers: started.append(status))
    return started[0], b"".join(chunks), body.taken


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/accounts/login/", "/bots/new/", "/accounts/signup/", "/no/such/page/"])
def test_an_anonymous_300_mib_post_is_refused_unread(path):
    status, content, taken = post(path, 300 << 20)
    assert status.startswith("413")
    assert b"this server accepts at most" in content
    assert taken == 0


@pytest.mark.django_db
def test_the_default_limit_is_the_largest_upload_and_a_margin(settings):
    assert settings.ARENA_MAX_REQUEST_BYTES == max(settings.ARENA_MAX_PY_BYTES, settings.ARENA_MAX_ZIP_BYTES) + (
        1 << 20
    )
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE <= settings.ARENA_MAX_REQUEST_BYTES


@pytest.mark.django_db
@override_settings(ARENA_MAX_REQUEST_BYTES=4096)
def test_a_body_within_the_limit_is_handled():
    status, _, taken = post("/accounts/login/", 4096, content_type="application/x-www-form-urlencoded")
    assert status.startswith("403")  # read and parsed, then refused for its missing CSRF token: past the limit
    assert taken == 4096
    status, _, taken = post("/accounts/login/", 4097, content_type="application/x-www-form-urlencoded")
    assert status.startswith("413") and taken == 0


@pytest.mark.django_db
def test_a_content_length_that_is_no_number_is_a_bad_request():
    body = io.BytesIO(b"")
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/accounts/login/",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "HTTP_HOST": "127.0.0.1",
        "CONTENT_LENGTH": "lots",
        "wsgi.input": body,
        "wsgi.url_scheme": "http",
        "wsgi.errors": io.StringIO(),
    }
    started = []
    WSGIHandler()(environ, lambda status, headers: started.append(status))
    assert started[0].startswith("400")
