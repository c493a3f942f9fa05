"""Delivery by file descriptor, for a process on the picker's host: ``provider.open`` (over an
``ipc://`` connection only) answers with a one-time ticket for the picker's delivery socket; the
process presents it there and receives a read-only file descriptor (SCM_RIGHTS). The item
providers use it by themselves for ipc endpoints and stream (``provider.load``) otherwise, or
when it fails.

The delivery socket's exchange (docs/PROTOCOL.md): connect, write the ticket and ``"\\n"``
(at most :data:`MAXIMUM_TICKET_LINE` bytes); read one line of JSON, ``{"status":"ok","fileSize":…}``
with the descriptor attached, or ``{"status":"error","code":…,"message":…}``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
from dataclasses import dataclass
from typing import BinaryIO, Optional

from .errors import LightboxError
from .protocol import JSONObject, LoadCompletion
from .transport import Call, Progress

__all__ = ["MAXIMUM_TICKET_LINE", "STREAM_AFTER_OPEN_FAILING", "FileTicket", "DeliveredFile", "open_request_body",
           "open_call", "uses_descriptor_delivery", "receive_descriptor", "stream_instead"]

#: The longest ticket line the delivery socket reads, its newline included.
MAXIMUM_TICKET_LINE = 128
#: Error codes of ``provider.open`` after which the stream is tried: no ipc connection, a picker
#: without it, its bounds, a fault on the way. Token, type and asset errors the stream would repeat.
STREAM_AFTER_OPEN_FAILING = frozenset({"badRequest", "unknownOp", "busy", "internal", "timeout"})
_PIECE = 1 << 20
_MAXIMUM_ANSWER = 4096
#: Received descriptors are not inherited by child processes (Linux's MSG_CMSG_CLOEXEC).
_CLOSE_ON_EXEC: int = getattr(socket, "MSG_CMSG_CLOEXEC", 0)


@dataclass(frozen=True)
class FileTicket:
    """The reply to ``provider.open``."""

    ticket: str
    socket: str
    file_size: int
    type: Optional[str] = None
    suggested_name: Optional[str] = None
    expires_in: Optional[int] = None

    @classmethod
    def from_json(cls, body: JSONObject) -> "FileTicket":
        try:
            return cls(str(body["ticket"]), str(body["socket"]), int(body["fileSize"]), body.get("type"),
                       body.get("suggestedName"), body.get("expiresIn"))
        except (KeyError, TypeError, ValueError) as error:
            raise LightboxError("internal", f"The picker answered provider.open without {error}.") from error


def open_request_body(token: str, type: Optional[str] = None) -> JSONObject:
    """The body of ``provider.open``; ``type`` None opens the first registered type."""
    body: JSONObject = {"token": token}
    if type is not None:
        body["type"] = type
    return body


def open_call(token: str, type: Optional[str], timeout: Optional[float]) -> Call[FileTicket]:
    return Call("provider.open", open_request_body(token, type), FileTicket.from_json, timeout=timeout)


def uses_descriptor_delivery(endpoint: str) -> bool:
    """Whether loads over ``endpoint`` try the delivery socket first (ipc endpoints)."""
    return endpoint.startswith("ipc://")


def receive_descriptor(ticket: FileTicket, timeout: float = 5.0) -> int:
    """Presents ``ticket`` on its delivery socket; the read-only descriptor received (the caller
    closes it), or the picker's refusal as a :class:`LightboxError`."""
    if not ticket.socket.startswith("/") or "\n" in ticket.ticket or len(ticket.ticket) >= MAXIMUM_TICKET_LINE:
        raise LightboxError("internal", "The picker's file ticket is malformed; use provider.load.")
    descriptor = -1
    answer = b""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        connection.connect(ticket.socket)
        connection.sendall(ticket.ticket.encode() + b"\n")
        while b"\n" not in answer and len(answer) < _MAXIMUM_ANSWER:
            data, passed, _flags, _address = socket.recv_fds(connection, 512, 4, _CLOSE_ON_EXEC)
            for extra in passed:
                if descriptor < 0:
                    descriptor = extra
                else:
                    os.close(extra)
            if not data:
                break
            answer += data
    line = answer.split(b"\n", 1)[0]
    try:
        reply = json.loads(line) if line else {}
    except ValueError:
        reply = {}
    if not isinstance(reply, dict) or reply.get("status") != "ok" or descriptor < 0:
        if descriptor >= 0:
            os.close(descriptor)
        code = reply.get("code", "internal") if isinstance(reply, dict) else "internal"
        message = reply.get("message") if isinstance(reply, dict) else None
        raise LightboxError(str(code), str(message or "The delivery socket answered without a file."))
    return descriptor


def stream_instead(error: LightboxError) -> bool:
    """Whether a ``provider.open`` refusal means "stream it" rather than "this load fails"."""
    return error.code in STREAM_AFTER_OPEN_FAILING


class DeliveredFile:
    """A representation received as a read-only descriptor; ``with`` it to close the descriptor."""

    def __init__(self, ticket: FileTicket, descriptor: int) -> None:
        self.ticket = ticket
        self.descriptor = descriptor

    @classmethod
    def present(cls, ticket: FileTicket) -> Optional["DeliveredFile"]:
        """The file behind ``ticket``, or None when the delivery socket did not hand it over."""
        try:
            return cls(ticket, receive_descriptor(ticket))
        except (OSError, LightboxError):
            return None

    def __enter__(self) -> "DeliveredFile":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if self.descriptor >= 0:
            os.close(self.descriptor)
            self.descriptor = -1

    def copy_to(self, handle: BinaryIO, progress: Optional[Progress] = None) -> LoadCompletion:
        """Copies the whole file to ``handle``; what a stream's completion would say of it."""
        hasher = hashlib.sha256()
        written = 0
        offset = 0
        while True:
            piece = os.pread(self.descriptor, _PIECE, offset)
            if not piece:
                break
            offset += len(piece)
            handle.write(piece)
            hasher.update(piece)
            written += len(piece)
            if progress is not None:
                progress(written, self.ticket.file_size)
        if written == 0 and progress is not None:
            progress(0, 0)
        return LoadCompletion(written, hasher.hexdigest(), self.ticket.type, self.ticket.suggested_name)

    def read(self, progress: Optional[Progress] = None) -> bytes:
        """The whole file in memory."""
        buffer = io.BytesIO()
        self.copy_to(buffer, progress)
        return buffer.getvalue()
