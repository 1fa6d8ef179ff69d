"""One error body for every failed API request: `{"error": {"status", "code", "message", "fields"?}}`.

DRF routes its own exceptions, Django's Http404 and PermissionDenied through `exception_handler`; `not_found`
answers URLs under /api/ that match no route, so even a typo gets the same body instead of an HTML page.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import Resolver404, resolve
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView, set_rollback

log = logging.getLogger(__name__)


def error_body(status_code: int, code: str, message: str, fields: dict[str, list[str]] | None = None) -> dict:
    error: dict[str, Any] = {"status": status_code, "code": code, "message": message}
    if fields:
        error["fields"] = fields
    return {"error": error}


def _messages(detail: Any) -> list[str]:
    if isinstance(detail, dict):
        return [f"{key}: {message}" for key, value in detail.items() for message in _messages(value)]
    if isinstance(detail, list):
        return [message for item in detail for message in _messages(item)]
    return [str(detail)]


def _first_code(codes: Any) -> str:
    while isinstance(codes, dict | list) and codes:
        codes = next(iter(codes.values())) if isinstance(codes, dict) else codes[0]
    return codes if isinstance(codes, str) and codes else "error"


def _body(exc: exceptions.APIException) -> dict:
    detail = exc.detail
    if isinstance(detail, dict):
        fields = {name: _messages(value) for name, value in detail.items() if name != "non_field_errors"}
        messages = _messages(detail.get("non_field_errors", [])) + [
            f"{name}: {message}" for name, values in fields.items() for message in values
        ]
        code = "invalid" if isinstance(exc, exceptions.ValidationError) else _first_code(exc.get_codes())
        return error_body(exc.status_code, code, "; ".join(messages) or "the request is invalid", fields)
    if isinstance(detail, list):
        return error_body(exc.status_code, "invalid", "; ".join(_messages(detail)) or "the request is invalid")
    return error_body(exc.status_code, _first_code(exc.get_codes()), str(detail))


def exception_handler(exc: Exception, context: dict) -> Response:
    """DRF's EXCEPTION_HANDLER: any exception a view raises becomes the one error body."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) if str(exc) else None)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) if str(exc) else None)
    set_rollback()
    if not isinstance(exc, exceptions.APIException):
        log.exception("API request failed", exc_info=exc)
        body = error_body(500, "server_error", "the server failed to answer; the error is logged")
        return Response(body, status=status.HTTP_500_INTERNAL_SERVER_ERROR)
    headers = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if getattr(exc, "wait", None):
        headers["Retry-After"] = str(int(exc.wait))
    return Response(_body(exc), status=exc.status_code, headers=headers)


class NotFoundView(APIView):
    """Every URL under /api/ that no route matches, whatever the method."""

    authentication_classes: list = []
    permission_classes: list = []
    throttle_classes: list = []
    schema = None  # not an endpoint: left out of the OpenAPI schema

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        hint = " (add a /)" if _is_endpoint(request.path + "/") else ""
        raise exceptions.NotFound(f"no API endpoint at {request.path}{hint}; see /api/docs/")


def _is_endpoint(path: str) -> bool:
    try:
        return getattr(resolve(path).func, "view_class", None) is not NotFoundView
    except Resolver404:
        return False
