"""Lightbox's Python client: PhotoKit-shaped access to the Lightbox services over ZeroMQ + CURVE.

The names most programs need are here; the modules hold the rest:

- :mod:`lightbox.transport` -- keys, :class:`ServiceDirectory`, :class:`Connection` (one DEALER socket).
- :mod:`lightbox.protocol` -- the wire protocol as enums, dataclasses and request builders.
- :mod:`lightbox.errors` -- :class:`LightboxError` and :class:`ErrorCode`.
- :mod:`lightbox.picker` -- :class:`PhotoPicker`, :class:`PickerResult`, :class:`ItemProvider`.
- :mod:`lightbox.selection_limits` -- :class:`SelectionLimits` on a pick, :class:`SelectionMisfit`.
- :mod:`lightbox.library` -- :class:`PhotoLibrary` (authorization and the library, for apps).
- :mod:`lightbox.image_manager` -- :class:`ImageManager` (images, movies, properties).
- :mod:`lightbox.owner` -- :class:`OwnerSurface`, :class:`AppRegistry`, :class:`OwnerSettings`.
- :mod:`lightbox.aio` -- the same on asyncio (``zmq.asyncio``).
- :mod:`lightbox.cli` -- the console scripts ``lightbox-pick``, ``lightbox-request-access``,
  ``lightbox-expand-limited``.
"""

from .errors import ErrorCode, LightboxError
from .failover import FailoverConnection
from .image_manager import ImageManager, VideoResult
from .library import PhotoLibrary
from .owner import AppRegistry, OwnerSettings, OwnerSurface
from .picker import ItemProvider, PhotoPicker, PickerResult
from .protocol import (AccessLevel, Asset, AuthorizationStatus, ImageResult, LocationAccess, MediaType, PromptAnswer)
from .selection_limits import SelectionLimits, SelectionMisfit
from .transport import Connection, KeyPair, ServiceDirectory

__version__ = "0.1.0"

__all__ = [
    "LightboxError", "ErrorCode", "AccessLevel", "AuthorizationStatus", "MediaType", "PromptAnswer", "LocationAccess",
    "KeyPair", "Connection", "FailoverConnection", "ServiceDirectory",
    "PhotoPicker", "PickerResult", "ItemProvider", "Asset",
    "SelectionLimits", "SelectionMisfit",
    "PhotoLibrary", "ImageManager", "ImageResult", "VideoResult",
    "OwnerSurface", "AppRegistry", "OwnerSettings",
]
