"""The one place where base units become displayed units.

Tables store base units (bytes, bits/s, seconds). Templates convert only through
these filters, so every label is unambiguous: KiB/MiB are 1024-based,
KB/MB/GB and Mbit/s/Gbit/s are 1000-based. ``None`` renders as an em dash.
"""
from __future__ import annotations

import math

DASH = "—"
_SI = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
_IEC = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}
_RATE = {"bit/s": 1, "kbit/s": 1e3, "Mbit/s": 1e6, "Gbit/s": 1e9}


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def num(x, digits: int = 0) -> str:
    """Thousands separators, fixed decimals: 13959 -> '13,959'."""
    if _missing(x):
        return DASH
    text = f"{float(x):,.{digits}f}"
    return "0" if text == "-0" else text      # -0.4 rounds to '-0'; -0.04 to 1 digit stays '-0.0'


def bytes_as(x, unit: str = "MB", digits: int = 1, label: bool = True) -> str:
    """Bytes in an SI (KB, MB, GB) or IEC (KiB, MiB, GiB) unit."""
    if _missing(x):
        return DASH
    scale = _SI.get(unit) or _IEC.get(unit)
    if scale is None:
        raise ValueError(f"unknown byte unit {unit!r}")
    value = num(float(x) / scale, digits)
    return f"{value} {unit}" if label else value


def rate_as(bits_per_s, unit: str = "Mbit/s", digits: int = 2, label: bool = True) -> str:
    """Bits per second in bit/s, kbit/s, Mbit/s or Gbit/s (1000-based)."""
    if _missing(bits_per_s):
        return DASH
    value = num(float(bits_per_s) / _RATE[unit], digits)
    return f"{value} {unit}" if label else value


def byte_rate_as(bytes_per_s, unit: str = "MB", digits: int = 0, label: bool = True) -> str:
    """Bytes per second as 'MB/s' (or another byte unit per second)."""
    if _missing(bytes_per_s):
        return DASH
    return bytes_as(bytes_per_s, unit, digits, label) + ("/s" if label else "")


def link_rate(bytes_per_s, unit: str = "Mbit/s", digits: int = 0, label: bool = True) -> str:
    """A byte rate shown as a link rate, the site's one unit for a rate on a wire: bytes/s x 8
    in Mbit/s or Gbit/s (1000-based), as iperf3 and ethtool state them."""
    if _missing(bytes_per_s):
        return DASH
    return rate_as(float(bytes_per_s) * 8, unit, digits, label)


def ms(seconds, digits: int = 0, label: bool = True) -> str:
    """Seconds shown as milliseconds, with ``digits`` decimals. Without any asked for, a delay
    below 10 ms keeps the precision it has: three significant digits, trailing zeros dropped
    (0.752 ms and 1.13 ms, not "1 ms"; a 1 ms setting stays "1 ms")."""
    if _missing(seconds):
        return DASH
    millis = float(seconds) * 1e3
    value = num(millis, digits)
    if digits == 0 and millis and abs(millis) < 10:
        places = 2 - math.floor(math.log10(abs(millis)))      # decimals for 3 significant digits
        head, _, frac = num(millis, places).partition(".")
        frac = frac.rstrip("0")
        value = f"{head}.{frac}" if frac else head
    return f"{value} ms" if label else value


def us(seconds, digits: int = 0, label: bool = True) -> str:
    """Seconds shown as microseconds."""
    if _missing(seconds):
        return DASH
    value = num(float(seconds) * 1e6, digits)
    return f"{value} µs" if label else value


def s(seconds, digits: int = 1, label: bool = True) -> str:
    if _missing(seconds):
        return DASH
    value = num(seconds, digits)
    return f"{value} s" if label else value


def pct(fraction, digits: int = 1, label: bool = True) -> str:
    """A fraction (0.125) shown as a percentage ('12.5%')."""
    if _missing(fraction):
        return DASH
    value = num(float(fraction) * 100, digits)
    return f"{value}%" if label else value


def signed_pct(fraction, digits: int = 1) -> str:
    if _missing(fraction):
        return DASH
    return ("+" if fraction >= 0 else "") + pct(fraction, digits)


def dash(x) -> str:
    return DASH if _missing(x) or x == "" else str(x)


def rate_sig(bits_per_s, figures: int = 3) -> str:
    """A rate to N significant figures in Mbit/s below 1 Gbit/s, else Gbit/s: '790 Mbit/s', '1.10 Gbit/s'."""
    if _missing(bits_per_s):
        return DASH
    rounded = float(f"{float(bits_per_s):.{figures}g}")   # 999.7e6 -> 1.00e9 -> '1.00 Gbit/s'
    unit = "Gbit/s" if abs(rounded) >= 1e9 else "Mbit/s"
    value = rounded / _RATE[unit]
    digits = max(0, figures - 1 - int(math.floor(math.log10(abs(value))))) if value else 0
    return f"{num(value, digits)} {unit}"


NOT_MEASURED = "*not measured*"


def measured(text) -> str:
    """A formatted measurement, or 'not measured' where the filter before it found nothing."""
    return NOT_MEASURED if text is None or str(text) == DASH else str(text)


FILTERS = {
    "measured": measured,
    "num": num,
    "bytes_as": bytes_as,
    "rate_as": rate_as,
    "byte_rate_as": byte_rate_as,
    "link_rate": link_rate,
    "ms": ms,
    "us": us,
    "s": s,
    "pct": pct,
    "signed_pct": signed_pct,
    "dash": dash,
    "rate_sig": rate_sig,
}
