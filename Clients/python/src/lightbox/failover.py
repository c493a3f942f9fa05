"""Several pickers of one library behind one connection: the ZeroMQ Guide's Freelance pattern
(brokerless reliability), as the Swift client's ``FailoverConnection`` does it.

Requests go to one picker at a time, the current one. While a request waits, silence of
``failover_time`` seconds makes the connection ask that picker ``service.ping``; no answer within
as long marks the picker dead for ``dead_time`` seconds (its socket is closed, so nothing queued for
it is sent later) and the next picker in the list becomes current. A request is then sent again at
the next picker only if it is a read (:data:`REPEATABLE_OPERATIONS`) and none of its replies was
handled yet; a credit stream (``provider.load``) starts again there and skips the bytes already
delivered; anything else ends with ``LightboxError("timeout")`` saying it was not sent again. Each
request tries every picker at most once and stops after ``deadline`` seconds; when none answers,
the ``timeout`` names the pickers tried.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, Generic, Iterator, List, Optional, Sequence, Tuple, TypeVar

import zmq
import zmq.asyncio

from .aio import AsyncConnection
from .errors import LightboxError
from .protocol import JSONObject, Reply, ReplyStatus, stream_cancel_body
from .transport import Closeable, Connection, Exchange, KeyPair, StreamExchange, T, closed

__all__ = ["FailoverConnection", "AsyncFailoverConnection", "REPEATABLE_OPERATIONS", "RESTARTABLE_STREAMS"]

#: Requests sent again at the next picker when the one in use stopped answering before any reply
#: was handled: reads, which change nothing but the audit log (a read sent twice may be audited
#: twice). A pick, a create, an album or edit change, a delete may already have been carried out
#: by the picker that died, so they are never sent twice.
REPEATABLE_OPERATIONS = frozenset({
    "service.ping", "provider.describe", "library.fetchAssets", "library.query", "library.albums",
    "library.albums.assets", "library.changes", "image.request", "library.properties", "library.editingInput",
    "owner.pending", "owner.assets", "owner.outline", "owner.thumbnail", "owner.asset", "owner.media",
})

#: Credit streams started again at the next picker, skipping the bytes already delivered.
RESTARTABLE_STREAMS = frozenset({"provider.load"})


class _PickerLost(Exception):
    """The picker of a try stopped answering; ``handled`` says whether a reply had been handled."""

    def __init__(self, handled: bool) -> None:
        super().__init__()
        self.handled = handled


M = TypeVar("M", bound=Closeable)


class PickerRoster(Generic[M]):
    """Which picker a request tries, and what a lost picker means for it: the part of failover that
    does no I/O, shared by :class:`FailoverConnection` and :class:`AsyncFailoverConnection`. One
    connection per picker (``M``), made by ``make`` on first use and closed when the picker is
    found dead, so nothing queued for it is sent later."""

    def __init__(self, endpoints: Sequence[str], make: Callable[[str], M], dead_time: float) -> None:
        if not endpoints:
            raise LightboxError("badRequest", "No picker endpoint was given; pass one or more, separated by commas.")
        self.endpoints = list(endpoints)
        self.dead_time = dead_time
        self.current = 0
        self.is_closed = False
        self._make = make
        self._members: Dict[int, M] = {}
        self._dead_until: Dict[int, float] = {}

    @property
    def endpoint(self) -> str:
        return self.endpoints[self.current]

    @property
    def dead_endpoints(self) -> List[str]:
        now = time.monotonic()
        return [self.endpoints[index] for index, until in sorted(self._dead_until.items()) if until > now]

    def close(self) -> None:
        self.is_closed = True
        for member in self._members.values():
            member.close()
        self._members.clear()

    def member(self, index: int) -> M:
        if self.is_closed:
            raise closed(self.endpoint)
        connection = self._members.get(index)
        if connection is None:
            connection = self._make(self.endpoints[index])
            self._members[index] = connection
        return connection

    def choose(self, op: str, tried: Sequence[int], started: float, deadline: float) -> int:
        """The current picker while it lives, else the next live one, else (all dead) the next one
        not tried; ``timeout`` naming the pickers tried when none is left or ``deadline`` passed."""
        now = time.monotonic()
        count = len(self.endpoints)
        untried = [(self.current + step) % count for step in range(count) if (self.current + step) % count not in tried]
        live = [index for index in untried if self._dead_until.get(index, 0.0) <= now]
        candidates = live or untried
        if not candidates or (tried and now - started > deadline):
            names = ", ".join(self.endpoints[each] for each in tried)
            raise LightboxError("timeout", f"No picker answered {op}; tried {names}. Are the pickers running, and is "
                                           "this app's key registered?")
        self.current = candidates[0]
        return self.current

    def tries(self, exchange: Exchange[T], timeout: float, failover_time: float,
              deadline: float) -> Iterator[Tuple[M, _Try[T]]]:
        """The tries of one exchange: a picker's connection and the try's state, each in turn. Asked
        for the next, the roster takes it that the last try's picker was lost (:meth:`lost`)."""
        started = time.monotonic()
        tried: List[int] = []
        while True:
            index = self.choose(exchange.op, tried, started, deadline)
            tried.append(index)
            attempt = _Try(exchange, timeout if exchange.timeout is None else exchange.timeout, failover_time)
            yield self.member(index), attempt
            self.lost(index, exchange, attempt.handled)

    def lost(self, index: int, exchange: Exchange[Any], handled: bool) -> None:
        """The picker ``index`` stopped answering ``exchange``: marks it dead, and returns when the
        exchange may go to the next picker (a read nobody saw a reply of; a load, restarted), else
        raises ``timeout`` saying why it was not sent again."""
        endpoint = self.endpoints[index]
        member = self._members.pop(index, None)
        if member is not None:
            member.close()
        self._dead_until[index] = time.monotonic() + self.dead_time
        if self.current == index:
            self.current = (index + 1) % len(self.endpoints)
        if isinstance(exchange, StreamExchange) and exchange.op in RESTARTABLE_STREAMS:
            exchange.restart()
        elif handled:
            raise LightboxError("timeout", f"lightbox-picker at {endpoint} stopped answering in the middle of "
                                           f"{exchange.op}; part of its answer had arrived. Send the request again: "
                                           "it goes to the next picker.")
        elif exchange.op not in REPEATABLE_OPERATIONS:
            raise LightboxError("timeout", f"lightbox-picker at {endpoint} stopped answering while {exchange.op} was "
                                           "under way. It was not sent to another picker because it may already have "
                                           "been carried out: check its effect before trying again.")


def _no_try_left(exchange: Exchange[Any]) -> LightboxError:
    return LightboxError("internal", f"{exchange.op} ran out of pickers without an answer.")


class _Try(Generic[T]):
    """One try of an exchange at one picker: what was heard, and what a reply means."""

    def __init__(self, exchange: Exchange[T], idle: float, failover_time: float) -> None:
        self.exchange = exchange
        self.idle = idle
        self.failover_time = failover_time
        self.last_heard = time.monotonic()
        self.handled = False
        self.finished = False

    def next_wait(self) -> float:
        return max(0.001, min(self.failover_time, self.idle - (time.monotonic() - self.last_heard)))

    def silent_too_long(self) -> bool:
        """No reply within the request's own idle time: the picker is lost for a read, else the
        request's ``timeout`` stands."""
        if time.monotonic() - self.last_heard < self.idle:
            return False
        if self.exchange.op in REPEATABLE_OPERATIONS:
            raise _PickerLost(self.handled)
        return True

    def heard(self, reply: Reply) -> bool:
        """Takes a reply; True once it was the final ``ok`` (an ``error`` raises)."""
        self.last_heard = time.monotonic()
        if reply.status == ReplyStatus.ERROR:
            self.finished = True
            raise reply.error()
        if reply.status == ReplyStatus.OK:
            self.finished = True
            return True
        self.handled = True
        return False


class _OverPickers(Generic[M]):
    """What both failover connections say about their pickers (the roster holds them)."""

    roster: PickerRoster[M]

    def _configure(self, timeout: float, failover_time: float, deadline: float) -> None:
        self.timeout = timeout
        self.failover_time = failover_time
        self.deadline = deadline

    @property
    def endpoint(self) -> str:
        """The picker requests go to now; setting it makes another picker (of the list) current."""
        return self.roster.endpoint

    @endpoint.setter
    def endpoint(self, endpoint: str) -> None:
        self.roster.current = self.roster.endpoints.index(endpoint)

    @property
    def dead_endpoints(self) -> List[str]:
        """The pickers marked dead now."""
        return self.roster.dead_endpoints

    def close(self) -> None:
        self.roster.close()

    @property
    def closed(self) -> bool:
        return self.roster.is_closed


class FailoverConnection(_OverPickers[Connection], Connection):
    """A :class:`~lightbox.transport.Connection` to "the picker" that is several pickers, tried in
    ``endpoints`` order (see the module's description). Blocking and not thread-safe, like
    :class:`Connection`; ``endpoint`` is the picker requests go to now."""

    def __init__(self, endpoints: Sequence[str], server_public_key: str, key_pair: KeyPair, timeout: float = 10.0,
                 context: Optional[zmq.Context[Any]] = None, launch: Optional[str] = None, failover_time: float = 2.0,
                 dead_time: float = 30.0, deadline: float = 120.0) -> None:
        # No socket of its own: one Connection per picker.
        self.roster: PickerRoster[Connection] = PickerRoster(
            endpoints, lambda endpoint: Connection(endpoint, server_public_key, key_pair, timeout, context, launch),
            dead_time)
        self._configure(timeout, failover_time, deadline)

    def send(self, op: str, body: Optional[JSONObject] = None, attachments: Sequence[bytes] = (),
             id: Optional[str] = None) -> str:
        """Sends to the current picker (without failover: :meth:`run` has it)."""
        return self.roster.member(self.roster.current).send(op, body, attachments, id)

    def replies(self, id: str, timeout: Optional[float] = None) -> Any:
        return self.roster.member(self.roster.current).replies(id, timeout)

    def post(self, op: str, body: Optional[JSONObject] = None, wait: bool = True) -> None:
        self.roster.member(self.roster.current).post(op, body, wait)

    def run(self, exchange: Exchange[T]) -> T:
        """Runs ``exchange`` at the current picker, moving to the next as described above."""
        for connection, attempt in self.roster.tries(exchange, self.timeout, self.failover_time, self.deadline):
            try:
                return self._run_at(connection, attempt)
            except _PickerLost:
                continue
        raise _no_try_left(exchange)  # pragma: no cover

    def _run_at(self, connection: Connection, attempt: _Try[T]) -> T:
        exchange = attempt.exchange
        request_id = connection.send(exchange.op, exchange.body, exchange.attachments)
        exchange.started(request_id)
        try:
            while True:
                try:
                    reply = connection.next_reply(request_id, attempt.next_wait())
                except LightboxError:
                    if attempt.silent_too_long():
                        raise
                    # Silent for the failover time: is the picker there?
                    try:
                        connection.request("service.ping", {}, self.failover_time)
                    except LightboxError:
                        raise _PickerLost(attempt.handled) from None
                    continue
                if attempt.heard(reply):
                    return exchange.finish(reply)
                message = exchange.step(reply)
                if message is not None:
                    connection.post(*message)
        finally:
            connection.forget(request_id)
            if not attempt.finished and not connection.closed:
                try:
                    connection.post("stream.cancel", stream_cancel_body(request_id), wait=False)
                except (LightboxError, zmq.ZMQError):
                    pass


class AsyncFailoverConnection(_OverPickers[AsyncConnection], AsyncConnection):
    """:class:`FailoverConnection` for asyncio: one :class:`~lightbox.aio.AsyncConnection` per picker.
    Requests run one at a time per picker connection as on any AsyncConnection; the same failover."""

    def __init__(self, endpoints: Sequence[str], server_public_key: str, key_pair: KeyPair, timeout: float = 10.0,
                 context: Optional[zmq.asyncio.Context] = None, launch: Optional[str] = None,
                 failover_time: float = 2.0, dead_time: float = 30.0, deadline: float = 120.0) -> None:
        self.roster: PickerRoster[AsyncConnection] = PickerRoster(
            endpoints, lambda endpoint: AsyncConnection(endpoint, server_public_key, key_pair, timeout, context, launch),
            dead_time)
        self._configure(timeout, failover_time, deadline)

    async def send(self, op: str, body: Optional[JSONObject] = None, attachments: Sequence[bytes] = (),
                   id: Optional[str] = None) -> str:
        return await self.roster.member(self.roster.current).send(op, body, attachments, id)

    def replies(self, id: str, timeout: Optional[float] = None) -> Any:
        return self.roster.member(self.roster.current).replies(id, timeout)

    async def post(self, op: str, body: Optional[JSONObject] = None, wait: bool = True) -> None:
        await self.roster.member(self.roster.current).post(op, body, wait)

    async def run(self, exchange: Exchange[T]) -> T:
        for connection, attempt in self.roster.tries(exchange, self.timeout, self.failover_time, self.deadline):
            try:
                return await self._run_at(connection, attempt)
            except _PickerLost:
                continue
        raise _no_try_left(exchange)  # pragma: no cover

    async def _run_at(self, connection: AsyncConnection, attempt: _Try[T]) -> T:
        exchange = attempt.exchange
        request_id = await connection.send(exchange.op, exchange.body, exchange.attachments)
        exchange.started(request_id)
        try:
            while True:
                try:
                    reply = await connection.next_reply(request_id, attempt.next_wait())
                except LightboxError:
                    if attempt.silent_too_long():
                        raise
                    try:
                        await connection.request("service.ping", {}, self.failover_time)
                    except LightboxError:
                        raise _PickerLost(attempt.handled) from None
                    continue
                if attempt.heard(reply):
                    return exchange.finish(reply)
                message = exchange.step(reply)
                if message is not None:
                    await connection.post(*message)
        finally:
            connection.forget(request_id)
            if not attempt.finished and not connection.closed:
                try:
                    await connection.post("stream.cancel", stream_cancel_body(request_id), wait=False)
                except (LightboxError, zmq.ZMQError):
                    pass
