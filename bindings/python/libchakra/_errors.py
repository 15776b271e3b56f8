# SPDX-License-Identifier: Apache-2.0
"""ChakraError and one subclass per libchakra error code (error.h)."""

from ._lib import lib


class ChakraError(Exception):
    """A libchakra call failed.

    ``code`` is the negative chakra_error value, ``strerror`` its short
    description and ``message`` the library's message (file, byte offset,
    node and what is wrong) when it gave one.
    """

    code = None

    def __init__(self, message, code=None):
        if code is not None:
            self.code = code
        self.message = message
        self.strerror = strerror(self.code) if self.code is not None else ""
        super().__init__(message)


class ChakraIOError(ChakraError):
    code = -1


class NoMemoryError(ChakraError, MemoryError):
    code = -2


class InvalidArgumentError(ChakraError, ValueError):
    code = -3


class TruncatedError(ChakraError):
    code = -4


class CorruptError(ChakraError):
    code = -5


class TooBigError(ChakraError):
    code = -6


class NoMetadataError(ChakraError):
    code = -7


class GzipError(ChakraError):
    code = -8


class NotFoundError(ChakraError, KeyError):
    code = -9

    def __str__(self):  # KeyError would quote the message
        return self.message


class KindError(ChakraError, TypeError):
    code = -10


class RangeError(ChakraError, OverflowError):
    code = -11


class DuplicateIdError(ChakraError):
    code = -12


class MissingDependencyError(ChakraError):
    code = -13


class CycleError(ChakraError):
    code = -14


class StateError(ChakraError):
    code = -15


class SelfDependencyError(ChakraError):
    code = -16


class ConfigError(ChakraError):
    code = -17


_BY_CODE = {c.code: c for c in (
    ChakraIOError, NoMemoryError, InvalidArgumentError, TruncatedError, CorruptError,
    TooBigError, NoMetadataError, GzipError, NotFoundError, KindError, RangeError,
    DuplicateIdError, MissingDependencyError, CycleError, StateError, SelfDependencyError,
    ConfigError)}


def strerror(code):
    s = lib.chakra_strerror(code)
    return s.decode() if s else "unknown error"


def error(code, message=None):
    """The exception for a negative return code, with the library's message
    (falling back to chakra_strerror when the handle gave none)."""
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    if not message:
        message = strerror(code)
    cls = _BY_CODE.get(code, ChakraError)
    return cls(message, code)
