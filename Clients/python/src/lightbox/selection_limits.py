"""Selection limits on a pick (Android's PhotoPickerSelectionParams): "at most 20 MB, at least
1080 px, at most 60 s, photos only". The owner's sheet shows what does not fit disabled, with the
reason, and the picker never delivers it (``owner.choose`` refuses it).

``min_pixels`` holds the shorter side and ``max_pixels`` the longer one, whatever the orientation;
``max_file_size`` is the original's size in bytes; ``max_duration`` (seconds) holds videos only.
The picker checks the values (``badRequest`` with a sentence naming the field); this module only
shapes them for the wire.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence

from .errors import LightboxError

__all__ = ["SelectionLimits", "SelectionMisfit"]


def _whole(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LightboxError("badRequest", f"{name} must be a whole number, not {value!r}.")
    return value


@dataclass(frozen=True)
class SelectionLimits:
    """What a pick may deliver beyond its filter; ``None`` leaves a limit out."""

    max_file_size: Optional[int] = None
    min_pixels: Optional[int] = None
    max_pixels: Optional[int] = None
    max_duration: Optional[float] = None
    #: ``"image"``, ``"video"`` (or :class:`lightbox.MediaType` members).
    media_types: Optional[Sequence[str]] = None

    def to_json(self) -> Dict[str, Any]:
        """The ``limits`` member of a pick's configuration."""
        body: Dict[str, Any] = {}
        if self.max_file_size is not None:
            body["maxFileSize"] = _whole("max_file_size", self.max_file_size)
        if self.min_pixels is not None:
            body["minPixels"] = _whole("min_pixels", self.min_pixels)
        if self.max_pixels is not None:
            body["maxPixels"] = _whole("max_pixels", self.max_pixels)
        if self.max_duration is not None:
            if isinstance(self.max_duration, bool) or not isinstance(self.max_duration, (int, float)):
                raise LightboxError("badRequest", f"max_duration must be a number of seconds, not {self.max_duration!r}.")
            body["maxDuration"] = self.max_duration
        if self.media_types is not None:
            if isinstance(self.media_types, str):
                raise LightboxError("badRequest", "media_types is a list, such as [\"image\"] or [\"image\", \"video\"].")
            body["mediaTypes"] = [str(getattr(kind, "value", kind)) for kind in self.media_types]
        return body


@dataclass(frozen=True)
class SelectionMisfit:
    """Why a pick's limits leave an asset out (``Asset.unavailable`` in ``owner.assets`` of a pick):
    the limit (``maxFileSize``, ``minPixels``, ``maxPixels``, ``maxDuration``, ``mediaTypes``), the
    asset's value and the limit's (bytes, pixels of a side, seconds; None when not known or for
    kinds), and the reason in English ("Too large for Postcard Maker: 48 MB of 20 MB")."""

    limit: str
    actual: Optional[float]
    allowed: Optional[float]
    reason: str

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "SelectionMisfit":
        return cls(limit=str(body.get("limit", "")), actual=body.get("actual"), allowed=body.get("allowed"),
                   reason=str(body.get("reason", "")))
