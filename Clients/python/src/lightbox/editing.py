"""Edits with the original kept (PhotoKit's content editing): an app with read-write access saves
an edited version of an asset with its :class:`AdjustmentData` (``library.edit``), reads the
current version's adjustment data back (``library.editingInput``, PHContentEditingInput) and
returns an asset to its original (``library.revert``). The original is always kept: ask for it
with ``ImageManager.request_image(…, version="original")``.

The calls are described once here; :class:`lightbox.PhotoLibrary` and
:class:`lightbox.aio.AsyncPhotoLibrary` run them.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
from dataclasses import dataclass
from typing import Optional, Union

from .errors import LightboxError
from .protocol import JSONObject, media_frame, parse_date
from .transport import Call

__all__ = ["AdjustmentData", "EditedVersion", "MAXIMUM_ADJUSTMENT_DATA"]

#: The most bytes of adjustment data the picker keeps with an edit.
MAXIMUM_ADJUSTMENT_DATA = 65_536


@dataclass(frozen=True)
class AdjustmentData:
    """PHAdjustmentData: who can read ``data`` (``format``, reverse DNS such as
    ``com.example.darkroom``), which version of that format, and the app's own description of its
    edit (bytes; base64 on the wire)."""

    format: str
    version: str
    data: bytes = b""

    def to_json(self) -> JSONObject:
        return {"format": self.format, "version": self.version, "data": base64.b64encode(self.data).decode("ascii")}

    @classmethod
    def from_json(cls, body: JSONObject) -> "AdjustmentData":
        try:
            data = base64.b64decode(str(body.get("data", "")), validate=True)
        except (binascii.Error, ValueError) as error:
            raise LightboxError("internal", "The picker sent adjustment data that is not base64.") from error
        return cls(str(body["format"]), str(body["version"]), data)


@dataclass(frozen=True)
class EditedVersion:
    """An asset's current version when it is an edit: its adjustment data and what the edited file is."""

    adjustment: AdjustmentData
    edited_at: Optional[_dt.datetime]
    type: str
    pixel_width: Optional[int]
    pixel_height: Optional[int]
    duration: Optional[float]
    file_size: int

    @classmethod
    def from_json(cls, body: JSONObject) -> "EditedVersion":
        return cls(adjustment=AdjustmentData.from_json(body["adjustment"]), edited_at=parse_date(body.get("editedAt")),
                   type=str(body.get("type", "")), pixel_width=body.get("pixelWidth"), pixel_height=body.get("pixelHeight"),
                   duration=body.get("duration"), file_size=int(body.get("fileSize", 0)))


def _edited(body: JSONObject) -> Optional[EditedVersion]:
    edit = body.get("edit")
    return EditedVersion.from_json(edit) if edit else None


def edit_call(asset: str, adjustment: AdjustmentData, edited: Union[bytes, bytearray, memoryview],
              timeout: Optional[float]) -> Call[EditedVersion]:
    edited = media_frame(edited, "library.edit")
    if len(adjustment.data) > MAXIMUM_ADJUSTMENT_DATA:
        raise LightboxError("badRequest", f"The adjustment data may be at most {MAXIMUM_ADJUSTMENT_DATA} bytes.")

    def version(body: JSONObject) -> EditedVersion:
        edit = _edited(body)
        if edit is None:
            raise LightboxError("internal", "library.edit ended without the edited version.")
        return edit

    return Call("library.edit", {"asset": asset, "adjustment": adjustment.to_json()}, version, attachments=[edited],
                timeout=timeout)


def editing_input_call(asset: str) -> Call[Optional[EditedVersion]]:
    return Call("library.editingInput", {"asset": asset}, _edited)


def revert_call(asset: str) -> Call[bool]:
    return Call("library.revert", {"asset": asset}, lambda body: bool(body.get("reverted", False)))


def owner_revert_call(asset: str) -> Call[bool]:
    return Call("owner.revert", {"asset": asset}, lambda body: bool(body.get("reverted", False)))
