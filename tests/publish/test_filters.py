"""Unit filters: the one place base units become labels."""
import pytest

from pipeline.publish import filters as f


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


def test_unknown_unit_message_names_it():
    with pytest.raises(ValueError, match=r"^unknown byte unit 'MiBs'$"):
        f.bytes_as(1, "MiBs")


@pytest.mark.parametrize("call, expected", [
    # label=False: the number alone, for a table whose header carries the unit
    (lambda: f.bytes_as(1_500_000, "MB", 1, False), "1.5"),
    (lambda: f.byte_rate_as(1_500_000, "MB", 1, False), "1.5"),          # no '/s' either
    (lambda: f.link_rate(125e6, "Mbit/s", 0, False), "1,000"),           # 125e6 B/s x 8 = 1e9 bit/s
    (lambda: f.rate_as(2.5e9, "Gbit/s", 2, False), "2.50"),
    (lambda: f.us(0.0000015, 1, False), "1.5"),                          # 1.5e-6 s x 1e6
    (lambda: f.s(1.25, 2, False), "1.25"),
    (lambda: f.pct(0.125, 1, False), "12.5"),
    # a scale exactly: 1 s is 1,000,000 µs
    (lambda: f.us(1.0), "1,000,000 µs"),
    # a negative number that rounds to zero prints 0, not -0; with decimals it keeps its sign
    (lambda: f.num(-0.4), "0"),
    (lambda: f.num(-0.04, 1), "-0.0"),
    # zero is signed +, the digits are passed on
    (lambda: f.signed_pct(0.0), "+0.0%"),
    (lambda: f.signed_pct(0.12345, 2), "+12.35%"),
    # dash: missing or empty text is the em dash, anything else its text (0 is a value)
    (lambda: f.dash(None), "—"),
    (lambda: f.dash(""), "—"),
    (lambda: f.dash(float("nan")), "—"),
    (lambda: f.dash(0), "0"),
    (lambda: f.dash("eth0"), "eth0"),
    # measured: what a filter before it found nothing for says so in words
    (lambda: f.measured(None), "*not measured*"),
    (lambda: f.measured("—"), "*not measured*"),
    (lambda: f.measured("1 ms"), "1 ms"),
    (lambda: f.measured(0), "0"),
    # rate_sig, 3 significant figures: Mbit/s below 1 Gbit/s after rounding, else Gbit/s
    (lambda: f.rate_sig(790e6), "790 Mbit/s"),
    (lambda: f.rate_sig(1.1e9), "1.10 Gbit/s"),        # 1.10: 3 figures, 2 of them decimals
    (lambda: f.rate_sig(999.7e6), "1.00 Gbit/s"),      # rounds to 1.00e9: the unit follows
    (lambda: f.rate_sig(999.4e6), "999 Mbit/s"),
    (lambda: f.rate_sig(1e9), "1.00 Gbit/s"),          # exactly on the unit boundary
    (lambda: f.rate_sig(12_345_678), "12.3 Mbit/s"),
    (lambda: f.rate_sig(1_234_567), "1.23 Mbit/s"),
    (lambda: f.rate_sig(25e9), "25.0 Gbit/s"),
    (lambda: f.rate_sig(-5e8), "-500 Mbit/s"),         # the magnitude picks the unit
    (lambda: f.rate_sig(-2e9), "-2.00 Gbit/s"),
    (lambda: f.rate_sig(0), "0 Mbit/s"),
    (lambda: f.rate_sig(None), "—"),
    (lambda: f.rate_sig(790e6, 2), "790 Mbit/s"),      # 2 figures: 7.9e8, no decimal
    (lambda: f.rate_sig(1.25e9, 2), "1.2 Gbit/s"),     # '%.2g' of 1.25e9 is 1.2e9 (half to even)
])
def test_filter_edges(call, expected):
    assert call() == expected


@pytest.mark.parametrize("call, expected", [
    # each filter's defaults, as templates call them with a value only
    (lambda: f.bytes_as(20_480_000), "20.5 MB"),             # MB, 1 decimal
    (lambda: f.byte_rate_as(281_075_000), "281 MB/s"),       # MB, no decimal
    (lambda: f.rate_as(655_360), "0.66 Mbit/s"),             # Mbit/s, 2 decimals
    (lambda: f.link_rate(281_075_000), "2,249 Mbit/s"),      # x 8, Mbit/s, no decimal
    (lambda: f.ms(0.0123), "12 ms"),                         # no decimal
    # below 10 ms three significant digits, not "1 ms": 0.000752 s x 1e3 = 0.752
    (lambda: f.ms(0.000752), "0.752 ms"),
    (lambda: f.ms(0.000752, 0, False), "0.752"),            # the matrices' bare cells
    (lambda: f.ms(0.00113), "1.13 ms"),                     # 1.130: the trailing zero dropped
    (lambda: f.ms(0.001), "1 ms"),                          # a 1 ms tc setting stays "1 ms"
    (lambda: f.ms(0.0051), "5.1 ms"),
    (lambda: f.ms(0.0), "0 ms"),                             # an exact zero stays 0
    (lambda: f.ms(0.000055, 4), "0.0550 ms"),               # decimals asked for: as asked
    (lambda: f.ms(0.00413, 1), "4.1 ms"),
    (lambda: f.us(0.0000123), "12 µs"),
    (lambda: f.s(13.55), "13.6 s"),                          # 1 decimal (13.55 is 13.550000000000000711)
    (lambda: f.pct(0.12345), "12.3%"),
    (lambda: f.signed_pct(0.12345), "+12.3%"),
])
def test_filter_defaults(call, expected):
    assert call() == expected
