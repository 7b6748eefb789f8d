"""Unit filters: the one place base units become labels."""
import pytest

from pipeline.render import filters as f


@pytest.mark.parametrize("call, expected", [
    (lambda: f.num(13959), "13,959"),
    (lambda: f.num(457.898, 1), "457.9"),
    (lambda: f.num(None), "—"),
    (lambda: f.num(float("nan")), "—"),
    # 40755 B / 1024 = 39.799 KiB -> 39.8 KiB (IEC, 1024-based)
    (lambda: f.bytes_as(40755, "KiB", 1), "39.8 KiB"),
    # 20.5e6 B in SI megabytes
    (lambda: f.bytes_as(20_480_000, "MB", 1), "20.5 MB"),
    # 2.2486e9 bit/s / 8 / 1e6 = 281.075 -> "281 MB/s"
    (lambda: f.byte_rate_as(2.2486e9 / 8, "MB", 0), "281 MB/s"),
    # a byte rate as a link rate: 281.075e6 B/s x 8 = 2,248.6 Mbit/s -> "2,249 Mbit/s"
    (lambda: f.link_rate(2.2486e9 / 8, "Mbit/s", 0), "2,249 Mbit/s"),
    (lambda: f.link_rate(None), "—"),
    # 0.65536 Mbit/s
    (lambda: f.rate_as(655_360, "Mbit/s", 2), "0.66 Mbit/s"),
    (lambda: f.ms(0.000742, 3), "0.742 ms"),
    (lambda: f.ms(0.000742, 3, False), "0.742"),
    (lambda: f.us(0.000015), "15 µs"),
    (lambda: f.pct(0.125), "12.5%"),
    (lambda: f.signed_pct(0.186), "+18.6%"),
    (lambda: f.signed_pct(-0.05), "-5.0%"),
    (lambda: f.s(13.598), "13.6 s"),
])
def test_filters(call, expected):
    assert call() == expected


def test_unknown_unit_rejected():
    with pytest.raises(ValueError):
        f.bytes_as(1, "MiBs")
