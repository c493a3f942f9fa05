"""The base of the protocol's enums (private: use the enums in :mod:`lightbox.protocol`)."""

from __future__ import annotations

from enum import Enum
from typing import Type, TypeVar, Union

__all__ = ["WireEnum"]

E = TypeVar("E", bound="WireEnum")


class WireEnum(str, Enum):
    """An enum whose members are their wire names: ``AccessLevel.READ_WRITE == "readWrite"``, and
    ``str()`` / f-strings give the wire name, so members go into JSON and messages as they are."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    @classmethod
    def lenient(cls: Type[E], value: str) -> Union[E, str]:
        """The member named ``value`` on the wire, or ``value`` itself when this client does not know
        it (a newer service may send names an older client has never seen)."""
        try:
            return cls(value)
        except ValueError:
            return value

    @classmethod
    def names(cls) -> list[str]:
        """Every wire name, in declaration order."""
        return [member.value for member in cls]
