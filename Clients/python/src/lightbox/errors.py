"""Errors: :class:`LightboxError` and the protocol's :class:`ErrorCode` set."""

from __future__ import annotations

from typing import Any, Dict, Optional

from ._wire import WireEnum

__all__ = ["ErrorCode", "LightboxError"]


class ErrorCode(WireEnum):
    """The protocol's error codes (docs/PROTOCOL.md, *Error codes*)."""

    BAD_REQUEST = "badRequest"
    UNSUPPORTED_VERSION = "unsupportedVersion"
    UNKNOWN_OP = "unknownOp"
    NOT_AUTHORIZED = "notAuthorized"
    MISSING_USAGE_DESCRIPTION = "missingUsageDescription"
    NOT_LIMITED = "notLimited"
    TOKEN_UNKNOWN = "tokenUnknown"
    TOKEN_EXPIRED = "tokenExpired"
    TOKEN_REVOKED = "tokenRevoked"
    TYPE_NOT_REGISTERED = "typeNotRegistered"
    NOT_FOUND = "notFound"
    IN_CLOUD = "inCloud"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"
    BUSY = "busy"
    INTERNAL = "internal"
    BAD_MEDIA = "badMedia"


class LightboxError(Exception):
    """An ``error`` reply from a service, or a client-side failure with a code from the same set.

    ``code`` is an :class:`ErrorCode` (a ``str``, so ``error.code == "timeout"`` works), or the
    plain string of a code this client does not know yet; ``message`` is a sentence a person can
    act on, ``details`` an optional dict of strings.
    """

    def __init__(self, code: str, message: str, details: Optional[Dict[str, Any]] = None) -> None:
        self.code: str = ErrorCode.lenient(code)
        self.message = message
        self.details = details
        super().__init__(f"{self.code}: {message}")

    @classmethod
    def from_body(cls, body: Dict[str, Any]) -> "LightboxError":
        """The error an ``error`` reply's body describes."""
        details = body.get("details")
        return cls(str(body.get("code", "internal")), str(body.get("message", "")),
                   details if isinstance(details, dict) else None)

    def __repr__(self) -> str:
        return f"LightboxError({str(self.code)!r}, {self.message!r}, {self.details!r})"
