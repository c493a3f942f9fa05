"""The owner's side: :class:`OwnerSurface` (picks and the catalog, on the picker),
:class:`AppRegistry` and :class:`OwnerSettings` (apps, prompts, access, audit, on the auth service).

Connect with the owner's key (``ServiceDirectory.picker_as_owner()`` / ``auth_as_owner()``); an
app's key gets ``notAuthorized``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from .editing import owner_revert_call
from .errors import LightboxError
from .protocol import (AccessUpdate, AddOnlySetting, Album, AppAccess, Asset, AuditEntry, AuditPage, DateLike, JSONObject,
                       OwnerPrompt, PendingPick, PromptAnswer, ReadWriteSetting, answer_prompt_body, audit_body,
                       choose_request_body, prompts_request_body, register_app_body, set_access_body)
from .transport import Connection

__all__ = ["OwnerSurface", "AppRegistry", "OwnerSettings"]


class OwnerSurface:
    """The owner's side of the picker: pending picks, the catalog, choose / cancel, revoke."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def pending(self, wait_ms: int = 0) -> List[PendingPick]:
        """The picks waiting for the owner; with ``wait_ms`` > 0 waits (up to 60 s) for one to arrive."""
        wait_ms = max(0, int(wait_ms))
        body = self.connection.request(
            "owner.pending", {"waitMs": wait_ms}, timeout=wait_ms / 1000.0 + self.connection.timeout)
        return [PendingPick.from_json(pick) for pick in body.get("picks") or []]

    def asset_page(self, pick: Optional[str] = None, limit: int = 100,
                   after: Optional[str] = None) -> Tuple[List[Asset], Optional[str]]:
        """One page of the catalog, newest first, and the cursor of the next page (None on the last);
        with ``pick``, only what that pick's filter lets through."""
        request: JSONObject = {"limit": int(limit)}
        if pick is not None:
            request["pick"] = pick
        if after is not None:
            request["after"] = after
        body = self.connection.request("owner.assets", request)
        return [Asset.from_json(asset) for asset in body.get("assets") or []], body.get("next")

    def assets(self, pick: Optional[str] = None) -> List[Asset]:
        """Every asset, newest first, page by page; with ``pick``, only what its filter lets through."""
        assets: List[Asset] = []
        cursor: Optional[str] = None
        while True:
            page, cursor = self.asset_page(pick, limit=500, after=cursor)
            assets.extend(page)
            if cursor is None:
                return assets

    def choose(self, pick: str, ids: Sequence[str], location: Optional[str] = None) -> int:
        """Completes a pick with these assets; returns how many were delivered. ``location`` answers
        the pick's location request (none when absent; never more than it asked)."""
        return int(self.connection.request("owner.choose", choose_request_body(pick, ids, location)).get("delivered", 0))

    def cancel(self, pick: str) -> None:
        """Dismisses a pick: the app gets empty results."""
        self.connection.request("owner.cancel", {"pick": pick})

    def revoke(self, token: Optional[str] = None, app: Optional[str] = None) -> int:
        """Revokes one token, or every token of ``app``; returns how many were revoked."""
        if (token is None) == (app is None):
            raise LightboxError("badRequest", "Give either a token or an app to revoke.")
        body = {"token": token} if token is not None else {"app": app}
        return int(self.connection.request("owner.revoke", body).get("revoked", 0))

    def revert(self, asset: str) -> bool:
        """Returns an asset an app edited to its original; False when it had no edit."""
        return self.connection.run(owner_revert_call(asset))

    def import_folder(self, path: str, timeout: float = 120.0) -> JSONObject:
        """``owner.import``: adds a folder's media (absolute path, as the picker sees it); returns
        ``{"imported":[ids],"unchanged":[ids],"failed":[…]}``."""
        return self.connection.request("owner.import", {"path": path}, timeout=timeout)

    def albums(self) -> List[Album]:
        """The library's albums, each with its ``asset_count`` (``owner.outline``): what a limited
        selection may follow (:meth:`OwnerSettings.set_access` ``albums``)."""
        return [Album.from_json(album) for album in self.connection.request("owner.outline", {}).get("albums") or []]


class AppRegistry:
    """The owner's side of the auth service: the app registry."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def register(self, id: str, name: str, public_key: str, **manifest: Any) -> JSONObject:
        """Registers (or updates) an app's manifest; keyword arguments as
        :func:`~lightbox.protocol.register_app_body`."""
        body = register_app_body(id, name, public_key, **manifest)
        return dict(self.connection.request("owner.apps.register", body)["manifest"])

    def apps(self) -> List[Dict[str, Any]]:
        return list(self.connection.request("owner.apps.list", {}).get("apps") or [])


class OwnerSettings:
    """The owner's side of the auth service: prompts, per-app access settings, the audit trail."""

    def __init__(self, auth_conn: Connection) -> None:
        self.connection = auth_conn

    def prompts(self, wait_ms: int = 0) -> List[OwnerPrompt]:
        """The prompts waiting for the owner, oldest first; with ``wait_ms`` > 0 waits (up to 60 s)
        for one when none is open."""
        body = prompts_request_body(wait_ms)
        reply = self.connection.request("owner.prompts", body, timeout=body["waitMs"] / 1000.0 + self.connection.timeout)
        return [OwnerPrompt.from_json(prompt) for prompt in reply.get("prompts") or []]

    def answer(self, prompt: Union[str, OwnerPrompt], answer: Union[PromptAnswer, str],
               selection: Optional[Sequence[str]] = None, until: Optional[DateLike] = None, then_deny: bool = False,
               albums: Optional[Sequence[str]] = None, location: Optional[str] = None) -> None:
        """Answers a prompt (an :class:`~lightbox.protocol.OwnerPrompt` or its id): ``full`` /
        ``limited`` (with ``selection``) / ``deny`` for readWrite, ``allow`` / ``deny`` for addOnly,
        ``done`` with the whole new selection for the limited-library picker; ``albums`` (with
        ``limited`` and ``done``) are the albums the selection follows. A grant lasts until
        ``until`` when given, then the app may ask again (or is denied, with ``then_deny``). A prompt
        that asks for a location (``prompt.location``) gives ``location`` (none when absent)."""
        prompt_id = prompt.prompt if isinstance(prompt, OwnerPrompt) else prompt
        self.connection.request("owner.prompts.answer",
                                answer_prompt_body(prompt_id, answer, selection, until, then_deny, albums, location))

    def apps(self) -> List[AppAccess]:
        """Every registered app's access."""
        return [AppAccess.from_json(app) for app in self.connection.request("owner.access.list", {}).get("apps") or []]

    def set_access(self, app: str, read_write: Union[ReadWriteSetting, str, None] = None,
                   add_only: Union[AddOnlySetting, str, None] = None, selection: Optional[Sequence[str]] = None,
                   reset: bool = False, until: Optional[DateLike] = None, then_deny: bool = False,
                   albums: Optional[Sequence[str]] = None, location: Optional[str] = None) -> AccessUpdate:
        """Changes an app's access; arguments as :func:`~lightbox.protocol.set_access_body`
        (``until``: the grants given end then; ``albums``: with limited, every album the selection
        follows, its photos added later too). Returns once it is on disk."""
        return AccessUpdate.from_json(self.connection.request(
            "owner.access.set", set_access_body(app, read_write, add_only, selection, reset, until, then_deny, albums, location)))

    def audit(self, app: Optional[str] = None, limit: int = 200, operation: Optional[str] = None,
              since: Optional[DateLike] = None, until: Optional[DateLike] = None) -> List[AuditEntry]:
        """The newest ``limit`` entries of the audit trail, newest first; filters as
        :func:`~lightbox.protocol.audit_body`."""
        return self.audit_page(app, limit, operation, since, until).entries

    def audit_page(self, app: Optional[str] = None, limit: int = 200, operation: Optional[str] = None,
                   since: Optional[DateLike] = None, until: Optional[DateLike] = None,
                   before: Optional[int] = None) -> AuditPage:
        """One page of the audit trail; pass its ``next`` as ``before`` for the next (older) page."""
        return AuditPage.from_json(self.connection.request(
            "owner.audit", audit_body(app, limit, operation, since, until, before)))
