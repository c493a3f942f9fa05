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
from typing import Any, Dict, List, Optional, Sequence

import zmq

from .errors import LightboxError
from .protocol import JSONObject, ReplyStatus, stream_cancel_body
from .transport import Connection, Exchange, KeyPair, StreamExchange, T, closed

__all__ = ["FailoverConnection", "REPEATABLE_OPERATIONS", "RESTARTABLE_STREAMS"]

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


class FailoverConnection(Connection):
    """A :class:`~lightbox.transport.Connection` to "the picker" that is several pickers, tried in
    ``endpoints`` order (see the module's description). Blocking and not thread-safe, like
    :class:`Connection`; ``endpoint`` is the picker requests go to now."""

    def __init__(self, endpoints: Sequence[str], server_public_key: str, key_pair: KeyPair, timeout: float = 10.0,
                 context: Optional[zmq.Context[Any]] = None, launch: Optional[str] = None, failover_time: float = 2.0,
                 dead_time: float = 30.0, deadline: float = 120.0) -> None:
        if not endpoints:
            raise LightboxError("badRequest", "No picker endpoint was given; pass one or more, separated by commas.")
        # No socket of its own: one Connection per picker, made on first use.
        self.endpoints = list(endpoints)
        self.endpoint = self.endpoints[0]
        self.timeout = timeout
        self.failover_time = failover_time
        self.dead_time = dead_time
        self.deadline = deadline
        self._server_public_key = server_public_key
        self._key_pair = key_pair
        self._context = context
        self._launch = launch
        self._members: Dict[int, Connection] = {}
        self._dead_until: Dict[int, float] = {}
        self._current = 0
        self._closed = False

    # -- lifecycle --

    def close(self) -> None:
        self._closed = True
        for connection in self._members.values():
            connection.close()
        self._members.clear()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def dead_endpoints(self) -> List[str]:
        """The pickers marked dead now."""
        now = time.monotonic()
        return [self.endpoints[index] for index, until in sorted(self._dead_until.items()) if until > now]

    # -- choosing pickers --

    def _member(self, index: int) -> Connection:
        if self._closed:
            raise closed(self.endpoint)
        connection = self._members.get(index)
        if connection is None:
            connection = Connection(self.endpoints[index], self._server_public_key, self._key_pair, self.timeout,
                                    self._context, self._launch)
            self._members[index] = connection
        return connection

    def _choose(self, tried: Sequence[int]) -> Optional[int]:
        """The current picker while it lives, else the next live one, else (all dead) the next one
        not tried; None when every picker was tried."""
        now = time.monotonic()
        count = len(self.endpoints)
        untried = [(self._current + step) % count for step in range(count) if (self._current + step) % count not in tried]
        live = [index for index in untried if self._dead_until.get(index, 0.0) <= now]
        candidates = live or untried
        if not candidates:
            return None
        self._current = candidates[0]
        self.endpoint = self.endpoints[self._current]
        return self._current

    def _mark_dead(self, index: int) -> None:
        connection = self._members.pop(index, None)
        if connection is not None:
            connection.close()
        self._dead_until[index] = time.monotonic() + self.dead_time
        if self._current == index:
            self._current = (index + 1) % len(self.endpoints)
            self.endpoint = self.endpoints[self._current]

    # -- requests --

    def send(self, op: str, body: Optional[JSONObject] = None, attachments: Sequence[bytes] = (),
             id: Optional[str] = None) -> str:
        """Sends to the current picker (no failover: use :meth:`run` for that)."""
        index = self._choose(())
        assert index is not None
        return self._member(index).send(op, body, attachments, id)

    def replies(self, id: str, timeout: Optional[float] = None) -> Any:
        return self._member(self._current).replies(id, timeout)

    def post(self, op: str, body: Optional[JSONObject] = None, wait: bool = True) -> None:
        self._member(self._current).post(op, body, wait)

    def run(self, exchange: Exchange[T]) -> T:
        """Runs ``exchange`` at the current picker, moving to the next as described above."""
        started = time.monotonic()
        tried: List[int] = []
        while True:
            index = self._choose(tried)
            if index is None or (tried and time.monotonic() - started > self.deadline):
                names = ", ".join(self.endpoints[each] for each in tried)
                raise LightboxError("timeout", f"No picker answered {exchange.op}; tried {names}. Are the pickers running, "
                                               "and is this app's key registered?")
            tried.append(index)
            try:
                return self._run_at(self._member(index), exchange)
            except _PickerLost as lost:
                endpoint = self.endpoints[index]
                self._mark_dead(index)
                if isinstance(exchange, StreamExchange) and exchange.op in RESTARTABLE_STREAMS:
                    exchange.restart()
                elif lost.handled:
                    raise LightboxError("timeout", f"lightbox-picker at {endpoint} stopped answering in the middle of "
                                                   f"{exchange.op}; part of its answer had arrived. Send the request "
                                                   "again: it goes to the next picker.") from None
                elif exchange.op not in REPEATABLE_OPERATIONS:
                    raise LightboxError("timeout", f"lightbox-picker at {endpoint} stopped answering while {exchange.op} "
                                                   "was under way. It was not sent to another picker because it may "
                                                   "already have been carried out: check its effect before trying "
                                                   "again.") from None

    def _run_at(self, connection: Connection, exchange: Exchange[T]) -> T:
        """One try at one picker; raises :class:`_PickerLost` when the picker stops answering."""
        idle = self.timeout if exchange.timeout is None else exchange.timeout
        request_id = connection.send(exchange.op, exchange.body, exchange.attachments)
        exchange.started(request_id)
        last_heard = time.monotonic()
        handled = False
        finished = False
        try:
            while True:
                silence = time.monotonic() - last_heard
                try:
                    reply = connection.next_reply(request_id, max(0.001, min(self.failover_time, idle - silence)))
                except LightboxError:
                    if time.monotonic() - last_heard < idle:
                        self._check_alive(connection, handled)
                        continue
                    if exchange.op in REPEATABLE_OPERATIONS:
                        raise _PickerLost(handled) from None
                    raise
                last_heard = time.monotonic()
                if reply.status == ReplyStatus.ERROR:
                    finished = True
                    raise reply.error()
                if reply.status == ReplyStatus.OK:
                    finished = True
                    return exchange.finish(reply)
                handled = True
                message = exchange.step(reply)
                if message is not None:
                    connection.post(*message)
        finally:
            connection.forget(request_id)
            if not finished and not connection.closed:
                try:
                    connection.post("stream.cancel", stream_cancel_body(request_id), wait=False)
                except (LightboxError, zmq.ZMQError):
                    pass

    def _check_alive(self, connection: Connection, handled: bool) -> None:
        """Asks a silent picker ``service.ping``; raises :class:`_PickerLost` when it does not answer."""
        try:
            connection.request("service.ping", {}, self.failover_time)
        except LightboxError:
            raise _PickerLost(handled) from None
