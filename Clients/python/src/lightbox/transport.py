"""Transport: CURVE keys, where the services are, one DEALER socket per service, and how a request's
replies are read (:class:`Exchange`), including credit-based streaming (:class:`StreamExchange`).

A :class:`Connection` is blocking and not thread-safe (neither is a ZeroMQ socket): give each thread
its own. :mod:`lightbox.aio` has the asyncio twin; both run the same exchanges.
"""

from __future__ import annotations

import abc
import hashlib
import json
import os
import time
import uuid
from dataclasses import dataclass, field
from typing import (TYPE_CHECKING, Any, BinaryIO, Callable, Dict, Generic, Iterator, List, Optional, Protocol,
                    Sequence, Tuple, TypeVar, Union)

import zmq

from .errors import LightboxError
from .protocol import (DEFAULT_CREDIT, MAXIMUM_CREDIT, ChunkHeader, JSONObject, LoadCompletion, Reply, ReplyStatus,
                       build_request, encode_header, new_request_id, parse_reply, stream_cancel_body,
                       stream_credit_body)

if TYPE_CHECKING:
    from .library import PhotoLibrary

__all__ = [
    "KeyPair", "load_key_pair", "load_public_key",
    "Exchange", "Call", "StreamExchange", "Progress", "partial_file",
    "Connection", "ServiceDirectory", "process_launch", "hello_frame",
]



class Closeable(Protocol):
    def close(self) -> None: ...


T = TypeVar("T")
C = TypeVar("C", bound=Closeable)
PathLike = Union[str, "os.PathLike[str]"]
#: ``progress(completed, total)`` in bytes.
Progress = Callable[[int, int], None]
#: A message to send without a reply: ``(op, body)``.
Post = Tuple[str, JSONObject]

#: The longest single poll; longer waits (a watch may wait forever) poll again.
MAXIMUM_POLL_SECONDS = 3600.0

# ---------------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyPair:
    """A CURVE key pair as Z85 text (40 characters each)."""

    public: str
    secret: str = field(repr=False)


def load_key_pair(path: PathLike) -> KeyPair:
    """Reads a key file: ``{"public":"<Z85>","secret":"<Z85>"}``."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            data = json.load(handle)
        return KeyPair(public=data["public"], secret=data["secret"])
    except OSError as error:
        raise LightboxError("notFound", f"Cannot read the key file {path}: {error.strerror}.") from error
    except (ValueError, KeyError, TypeError) as error:
        raise LightboxError("badRequest", f'{path} is not a Lightbox key file ({{"public":…,"secret":…}}).') from error


def load_public_key(path: PathLike, wait: float = 0.0) -> str:
    """Reads a public key file (Z85 text), waiting up to ``wait`` seconds for it to appear."""
    deadline = time.monotonic() + wait
    while True:
        try:
            with open(path, "r", encoding="utf-8") as handle:
                key = handle.read().strip()
        except FileNotFoundError:
            if time.monotonic() >= deadline:
                raise LightboxError(
                    "notFound",
                    f"Cannot read the public key {path}; has that service been started once with this data directory?",
                ) from None
            time.sleep(0.05)
            continue
        if len(key) != 40:
            raise LightboxError("badRequest", f"{path} does not hold a Z85 CURVE public key.")
        return key


def curve_dealer(context: zmq.Context[Any], endpoint: str, server_public_key: str, key_pair: KeyPair,
                 timeout: float) -> Any:
    """A DEALER socket of ``context`` connected to ``endpoint`` as a CURVE client (linger 0, ZMTP
    heartbeats as the services set them, sends bounded by ``timeout``)."""
    socket = context.socket(zmq.DEALER)
    try:
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.RECONNECT_IVL, 100)
        # A dead service is noticed and reconnected.
        socket.setsockopt(zmq.HEARTBEAT_IVL, 5000)
        socket.setsockopt(zmq.HEARTBEAT_TIMEOUT, 15000)
        socket.setsockopt(zmq.HEARTBEAT_TTL, 15000)
        # A DEALER with no usable peer (e.g. its key was refused) blocks sends: bound the wait.
        socket.setsockopt(zmq.SNDTIMEO, max(1, int(timeout * 1000)))
        socket.curve_secretkey = key_pair.secret.encode("ascii")
        socket.curve_publickey = key_pair.public.encode("ascii")
        socket.curve_serverkey = server_public_key.encode("ascii")
        socket.connect(endpoint)
    except Exception:
        socket.close(linger=0)
        raise
    return socket


#: The first message on every connection: which launch (process) of the app it belongs to.
HELLO = "service.hello"

_launch: Tuple[int, str] = (0, "")


def process_launch() -> str:
    """This process's launch id, said on every connection it opens (``service.hello``): made at first
    use, the same for all of the process's connections, and new in a child after ``fork`` (another
    process is another launch). The services show a limited app's "Select More Photos…" alert once
    per launch; who the app is still comes from its key alone."""
    global _launch
    pid = os.getpid()
    if _launch[0] != pid:
        _launch = (pid, uuid.uuid4().hex)
    return _launch[1]


def hello_frame(launch: str) -> bytes:
    """The header frame of ``service.hello`` for ``launch`` (sent without waiting for its reply)."""
    return encode_header(build_request(HELLO, {"launch": launch}))


def send_failed(op: str, endpoint: str) -> LightboxError:
    return LightboxError(
        "timeout", f"Could not send {op} to {endpoint}. Is the service running, and is this key registered with it?")


def no_answer(endpoint: str, idle: float) -> LightboxError:
    return LightboxError(
        "timeout",
        f"No answer from {endpoint} within {idle:g} s. Is the service running, and is this key registered with it?")


def closed(endpoint: str) -> LightboxError:
    return LightboxError("cancelled", f"The connection to {endpoint} was closed.")


# ---------------------------------------------------------------------------------------------
# Exchanges: one request and how its replies are read (the same for blocking and asyncio)
# ---------------------------------------------------------------------------------------------


class Exchange(abc.ABC, Generic[T]):
    """One request and what its replies mean. A connection's ``run`` sends it, feeds each reply
    before the final one to :meth:`step` (posting what that returns, such as ``stream.credit``) and
    returns :meth:`finish` of the final ``ok`` (an ``error`` raises :class:`LightboxError`)."""

    def __init__(self, op: str, body: Optional[JSONObject] = None, attachments: Sequence[bytes] = (),
                 timeout: Optional[float] = None) -> None:
        self.op = op
        self.body: JSONObject = body if body is not None else {}
        self.attachments = attachments
        #: The longest wait for each next reply (None: the connection's).
        self.timeout = timeout
        self.request_id = ""

    def started(self, request_id: str) -> None:
        """Called once the request is sent."""
        self.request_id = request_id

    def step(self, reply: Reply) -> Optional[Post]:
        """A reply before the final one; may return a message to send (no reply expected)."""
        return None

    @abc.abstractmethod
    def finish(self, reply: Reply) -> T:
        """The result, from the final ``ok`` reply."""


class Call(Exchange[T]):
    """A request whose result is its ``ok`` body, parsed by ``parse``; other replies are skipped."""

    def __init__(self, op: str, body: Optional[JSONObject], parse: Callable[[JSONObject], T],
                 attachments: Sequence[bytes] = (), timeout: Optional[float] = None) -> None:
        super().__init__(op, body, attachments, timeout)
        self.parse = parse

    def finish(self, reply: Reply) -> T:
        return self.parse(reply.body)


class StreamExchange(Exchange[T]):
    """A credit-based stream (``provider.load``, ``video.request``): ``chunk`` replies, each a header
    and one binary frame, then an ``ok`` with the size and SHA-256 of everything sent.

    The request grants ``credit`` chunks up front; as chunks are consumed the window is topped up
    with ``stream.credit`` (in batches of half the window), so at most ``credit`` chunks are ever
    in flight or buffered. Offsets, lengths, the total and the final digest are checked.
    """

    def __init__(self, op: str, body: JSONObject, consume: Callable[[bytes], Any],
                 progress: Optional[Progress] = None, timeout: Optional[float] = None) -> None:
        self.credit = max(1, min(int(body.get("credit", DEFAULT_CREDIT)), MAXIMUM_CREDIT))
        super().__init__(op, {**body, "credit": self.credit}, (), timeout)
        self.consume = consume
        self.progress = progress
        self.hasher = hashlib.sha256()
        self.received = 0
        self.total: Optional[int] = None
        self.consumed_since_grant = 0
        # Where this try's next chunk starts: a stream restarted at another picker begins again at
        # 0 (the load takes no offset), and the bytes already consumed are skipped.
        self.offset = 0

    def restart(self) -> None:
        """Prepares the exchange to be sent again (at another picker) after its stream broke."""
        self.offset = 0
        self.consumed_since_grant = 0

    def step(self, reply: Reply) -> Optional[Post]:
        if reply.status != ReplyStatus.CHUNK:
            return None
        header = ChunkHeader.from_json(reply.body)
        data = reply.frames[0] if reply.frames else None
        if data is None or len(data) != header.length:
            raise LightboxError("internal", f"The picker sent a chunk header for {header.length} bytes with "
                                            f"{'no data frame' if data is None else f'{len(data)} bytes'}.")
        if header.offset != self.offset or header.offset > self.received:
            raise LightboxError(
                "internal", f"The picker sent the chunk at {header.offset} while {self.received} bytes had arrived.")
        if header.completed != self.offset + header.length or (self.total is not None and header.total != self.total):
            raise LightboxError("internal", "The picker's chunk headers disagree about the stream's progress.")
        self.total = header.total
        self.offset += header.length
        fresh = data[len(data) - (self.offset - self.received):] if self.offset > self.received else b""
        if fresh:
            self.consume(fresh)
            self.hasher.update(fresh)
            self.received += len(fresh)
            if self.progress is not None:
                self.progress(self.received, header.total)
        self.consumed_since_grant += 1
        if self.consumed_since_grant * 2 < self.credit:
            return None
        granted, self.consumed_since_grant = self.consumed_since_grant, 0
        return "stream.credit", stream_credit_body(self.request_id, granted)

    def completion(self, reply: Reply) -> LoadCompletion:
        """The checked completion of the stream from its final ``ok`` reply."""
        completion = LoadCompletion.from_json(reply.body)
        if completion.bytes != self.received or (self.total is not None and self.total != self.received):
            raise LightboxError("internal", f"The stream ended after {self.received} bytes but the picker reports "
                                            f"{completion.bytes} (of {self.total}); try again.")
        if completion.sha256.lower() != self.hasher.hexdigest():
            raise LightboxError("internal", "The received bytes do not match the picker's digest; try again.")
        if self.received == 0 and self.progress is not None:
            self.progress(0, 0)
        return completion


class partial_file:
    """``with partial_file(path) as handle:`` writes to a temporary file in the same folder that
    replaces ``path`` (``os.replace``) only when the block ends without an exception, so nobody
    ever sees a half-written file; otherwise the temporary file is removed. Call
    :meth:`discard` to keep nothing even on success."""

    def __init__(self, path: PathLike) -> None:
        self.destination = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(self.destination))
        self.partial = os.path.join(folder, f".{os.path.basename(self.destination)}.partial-{uuid.uuid4().hex}")
        self.keep = True
        try:
            descriptor = os.open(self.partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except OSError as error:
            raise LightboxError(
                "notFound", f"Cannot create a file in {folder} ({error.strerror}); does the folder exist and is it writable?"
            ) from error
        self.handle: BinaryIO = os.fdopen(descriptor, "wb")

    def discard(self) -> None:
        self.keep = False

    def __enter__(self) -> BinaryIO:
        return self.handle

    def __exit__(self, kind: Optional[type], *rest: Any) -> None:
        try:
            if kind is None and self.keep:
                self.handle.flush()
                os.fsync(self.handle.fileno())
            self.handle.close()
            if kind is None and self.keep:
                os.replace(self.partial, self.destination)
        finally:
            if os.path.lexists(self.partial):
                os.unlink(self.partial)


# ---------------------------------------------------------------------------------------------
# Connection
# ---------------------------------------------------------------------------------------------


class Connection:
    """One DEALER socket to one service, as a CURVE client (linger 0).

    ``timeout`` is the default longest wait, in seconds, for the *next* reply to a request; a
    service that is down, or a key nobody registered (which gets no connection at all), ends in
    ``LightboxError("timeout", …)`` rather than a hang.

    Replies to other requests that arrive while one is being waited for are kept for their own
    ``replies`` call. Not thread-safe: one Connection per thread.

    Its first message is preceded by ``service.hello`` with ``launch`` (default: this process's,
    :func:`process_launch`), so every connection of one process counts as one launch of the app.
    """

    def __init__(self, endpoint: str, server_public_key: str, key_pair: KeyPair, timeout: float = 10.0,
                 context: Optional[zmq.Context[Any]] = None, launch: Optional[str] = None) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self._hello: Optional[bytes] = hello_frame(launch or process_launch())
        self._socket: zmq.Socket[bytes] = curve_dealer(
            context or zmq.Context.instance(), endpoint, server_public_key, key_pair, timeout)
        # Replies that arrived for a request still being waited for, in order; keyed by request id.
        self._inbox: Dict[str, List[Reply]] = {}

    # -- lifecycle --

    def close(self) -> None:
        """Closes the socket (unsent messages are dropped)."""
        if not self._socket.closed:
            self._socket.close(linger=0)
        self._inbox.clear()

    @property
    def closed(self) -> bool:
        return bool(self._socket.closed)

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- sending --

    def _send_frames(self, op: str, body: Optional[JSONObject], id: str, attachments: Sequence[bytes],
                     wait: bool = True) -> None:
        if self._socket.closed:
            raise closed(self.endpoint)
        header = encode_header(build_request(op, body, id))
        try:
            if self._hello is not None:
                self._socket.send(self._hello, flags=0 if wait else zmq.NOBLOCK, copy=True)
                self._hello = None
            self._socket.send_multipart([header, *attachments], flags=0 if wait else zmq.NOBLOCK, copy=True)
        except zmq.Again:
            raise send_failed(op, self.endpoint) from None

    def send(self, op: str, body: Optional[JSONObject] = None, attachments: Sequence[bytes] = (),
             id: Optional[str] = None) -> str:
        """Sends a request and returns its id; read its replies with :meth:`replies`."""
        request_id = id or new_request_id()
        self._inbox.setdefault(request_id, [])
        self._send_frames(op, body, request_id, attachments)
        return request_id

    def post(self, op: str, body: Optional[JSONObject] = None, wait: bool = True) -> None:
        """Sends a message that gets no reply (``stream.credit``). With ``wait`` False it never blocks
        (and raises ``LightboxError("timeout")`` when the message cannot be queued right now)."""
        self._send_frames(op, body, new_request_id(), (), wait)

    # -- receiving --

    def _receive(self, timeout: float) -> Optional[Reply]:
        """The next reply on the socket within ``timeout`` seconds, or None. Unreadable ones are skipped."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            # Long (or endless, math.inf) waits poll in slices.
            if not self._socket.poll(max(1, int(min(remaining, MAXIMUM_POLL_SECONDS) * 1000)), zmq.POLLIN):
                continue
            frames = self._socket.recv_multipart(copy=True)
            try:
                return parse_reply(frames)
            except LightboxError:
                continue

    def replies(self, id: str, timeout: Optional[float] = None) -> Iterator[Reply]:
        """Every reply to request ``id``, ending with the final ``ok`` (which is yielded).

        An ``error`` reply raises :class:`LightboxError`; ``timeout`` (default: the connection's)
        is the longest wait for each next reply (``math.inf``: no limit). Closing the generator
        early (``break``) drops the request and asks the service to stop a stream it runs for it
        (``stream.cancel``).
        """
        idle = self.timeout if timeout is None else timeout
        queue = self._inbox.setdefault(id, [])
        finished = False
        try:
            while True:
                reply = queue.pop(0) if queue else self._wait_for(id, idle)
                finished = reply.is_final
                if reply.status == ReplyStatus.ERROR:
                    raise reply.error()
                yield reply
                if finished:
                    return
        finally:
            self._inbox.pop(id, None)
            if not finished and not self._socket.closed:
                # Abandoned (timeout, a failed check, or the caller stopped reading): stop any stream.
                try:
                    self.post("stream.cancel", stream_cancel_body(id), wait=False)
                except (LightboxError, zmq.ZMQError):
                    pass

    def next_reply(self, id: str, timeout: float) -> Reply:
        """The next reply to request ``id`` (sent with :meth:`send`) within ``timeout`` seconds, without
        ending the request when none comes (``LightboxError("timeout")``); :meth:`forget` ends it."""
        queue = self._inbox.setdefault(id, [])
        return queue.pop(0) if queue else self._wait_for(id, timeout)

    def forget(self, id: str) -> None:
        """Drops request ``id``: later replies to it are discarded."""
        self._inbox.pop(id, None)

    def _wait_for(self, id: str, idle: float) -> Reply:
        deadline = time.monotonic() + idle
        while True:
            reply = self._receive(deadline - time.monotonic())
            if reply is None:
                raise no_answer(self.endpoint, idle)
            if reply.id == id:
                return reply
            if reply.id in self._inbox:
                self._inbox[reply.id].append(reply)
            # Replies to requests nobody waits for any more are dropped.

    def run(self, exchange: Exchange[T]) -> T:
        """Sends ``exchange``'s request and reads its replies to the end; returns its result."""
        request_id = self.send(exchange.op, exchange.body, exchange.attachments)
        exchange.started(request_id)
        for reply in self.replies(request_id, exchange.timeout):
            if reply.status == ReplyStatus.OK:
                return exchange.finish(reply)
            message = exchange.step(reply)
            if message is not None:
                self.post(*message)
        raise LightboxError("internal", f"The service ended {exchange.op} without a final reply.")  # pragma: no cover

    def request(self, op: str, body: Optional[JSONObject] = None, timeout: Optional[float] = None) -> JSONObject:
        """Sends a request and returns the body of its final ``ok`` reply (other replies are skipped)."""
        return self.run(Call(op, body, lambda body: body, timeout=timeout))

    def ping(self, timeout: Optional[float] = None) -> JSONObject:
        """``service.ping``: ``{"service":"picker","principal":"app:demo"}``."""
        return self.request("service.ping", {}, timeout)


# ---------------------------------------------------------------------------------------------
# Service directory
# ---------------------------------------------------------------------------------------------


class BaseServiceDirectory(abc.ABC, Generic[C]):
    """Where the services listen and the data directory that holds the keys; :meth:`connect` makes
    the connections (blocking in :class:`ServiceDirectory`, asyncio in
    :class:`lightbox.aio.AsyncServiceDirectory`).

    Defaults come from ``LIGHTBOX_DATA`` (``var``), ``LIGHTBOX_AUTH_ENDPOINT``
    (``tcp://127.0.0.1:7711``) and ``LIGHTBOX_PICKER_ENDPOINT`` (``tcp://127.0.0.1:7712``). The picker
    endpoint may list several pickers of one library, separated by commas (they share one service
    key, ``keys/picker.pub``): picker connections then fail over between them
    (:class:`lightbox.failover.FailoverConnection`, ``AsyncFailoverConnection``).
    """

    DEFAULT_AUTH_ENDPOINT = "tcp://127.0.0.1:7711"
    DEFAULT_PICKER_ENDPOINT = "tcp://127.0.0.1:7712"

    def __init__(self, data_dir: Optional[PathLike] = None, auth_endpoint: Optional[str] = None,
                 picker_endpoint: Optional[str] = None) -> None:
        self.data_dir = os.fspath(data_dir if data_dir is not None else os.environ.get("LIGHTBOX_DATA", "var"))
        self.auth_endpoint = auth_endpoint or os.environ.get("LIGHTBOX_AUTH_ENDPOINT", self.DEFAULT_AUTH_ENDPOINT)
        self.picker_endpoint = picker_endpoint or os.environ.get("LIGHTBOX_PICKER_ENDPOINT", self.DEFAULT_PICKER_ENDPOINT)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.data_dir!r}, {self.auth_endpoint!r}, {self.picker_endpoint!r})"

    @property
    def picker_endpoints(self) -> List[str]:
        """The pickers, in the order a client tries them."""
        return [endpoint.strip() for endpoint in self.picker_endpoint.split(",") if endpoint.strip()] or [
            self.DEFAULT_PICKER_ENDPOINT]

    # -- keys --

    def service_public_key(self, service: str, wait: float = 5.0) -> str:
        """``DATA/keys/<service>.pub``, waiting up to ``wait`` seconds for a first start to write it."""
        return load_public_key(os.path.join(self.data_dir, "keys", f"{service}.pub"), wait)

    def owner_key_pair(self) -> KeyPair:
        """``DATA/keys/owner.key``, made by lightbox-auth on its first start."""
        return load_key_pair(os.path.join(self.data_dir, "keys", "owner.key"))

    def app_key_pair(self, app: str) -> KeyPair:
        """``DATA/apps/<id>.key``, made by ``lightbox app register``."""
        path = os.path.join(self.data_dir, "apps", f"{app}.key")
        if not os.path.exists(path):
            raise LightboxError(
                "notFound", f'No key for app "{app}" in {self.data_dir}/apps/; run `lightbox app register {app} --name …` first.')
        return load_key_pair(path)

    # -- connections --

    @abc.abstractmethod
    def connect(self, endpoint: str, server_public_key: str, key_pair: KeyPair, timeout: float) -> C:
        """A connection to ``endpoint`` with ``key_pair``."""

    def connect_to_picker(self, key_pair: KeyPair, timeout: float = 10.0) -> C:
        return self.connect(self.picker_endpoints[0], self.service_public_key("picker"), key_pair, timeout)

    def connect_to_auth(self, key_pair: KeyPair, timeout: float = 10.0) -> C:
        return self.connect(self.auth_endpoint, self.service_public_key("auth"), key_pair, timeout)

    def picker_as_app(self, app: str, timeout: float = 10.0) -> C:
        return self.connect_to_picker(self.app_key_pair(app), timeout)

    def picker_as_owner(self, timeout: float = 10.0) -> C:
        return self.connect_to_picker(self.owner_key_pair(), timeout)

    def auth_as_owner(self, timeout: float = 10.0) -> C:
        return self.connect_to_auth(self.owner_key_pair(), timeout)

    def auth_as_app(self, app: str, timeout: float = 10.0) -> C:
        return self.connect_to_auth(self.app_key_pair(app), timeout)

    def app_connections(self, app: str, timeout: float = 10.0) -> Tuple[C, C]:
        """``(auth, picker)`` connections for ``app``; the caller closes both."""
        key_pair = self.app_key_pair(app)
        auth = self.connect_to_auth(key_pair, timeout)
        try:
            return auth, self.connect_to_picker(key_pair, timeout)
        except BaseException:
            auth.close()
            raise



class ServiceDirectory(BaseServiceDirectory[Connection]):
    """Blocking connections to the services (see :class:`BaseServiceDirectory` for the defaults)."""

    def connect(self, endpoint: str, server_public_key: str, key_pair: KeyPair, timeout: float) -> Connection:
        return Connection(endpoint, server_public_key, key_pair, timeout)

    def connect_to_picker(self, key_pair: KeyPair, timeout: float = 10.0) -> Connection:
        """A connection to the picker; with several picker endpoints, one that fails over between them."""
        endpoints = self.picker_endpoints
        if len(endpoints) == 1:
            return super().connect_to_picker(key_pair, timeout)
        from .failover import FailoverConnection  # builds on this module

        return FailoverConnection(endpoints, self.service_public_key("picker"), key_pair, timeout)

    def photo_library(self, app: str, timeout: float = 10.0) -> "PhotoLibrary":
        """A :class:`~lightbox.library.PhotoLibrary` for ``app`` with its own connections to both
        services; use it in a ``with`` block (or call ``close``) to close them."""
        from .library import PhotoLibrary  # the library builds on this module

        return PhotoLibrary(*self.app_connections(app, timeout))

