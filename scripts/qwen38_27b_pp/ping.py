"""iputils ``ping -c 20`` output whose summary line equals the seed's min/avg/max/mdev."""
from __future__ import annotations

import math
import random


def iputils_stats(t: list[int]) -> tuple[int, int, int, int]:
    """min/avg/max/mdev in microseconds exactly as iputils ping_common.c computes them."""
    n, tsum, tsum2 = len(t), sum(t), sum(x * x for x in t)
    tmavg = tsum // n
    tmvar = (tsum2 - (tsum * tsum) // n) // n
    return min(t), tmavg, max(t), math.isqrt(tmvar)


def iputils_time(us: int) -> str:
    """Per-reply 'time=' field (iputils print_timestamp/pr_echo_reply rounding)."""
    if us >= 100000 - 50:
        return f"{(us + 500) // 1000}"
    if us >= 10000 - 5:
        return f"{(us + 50) // 1000}.{((us + 50) % 1000) // 100:01d}"
    if us >= 1000:
        return f"{(us + 5) // 1000}.{((us + 5) % 1000) // 10:02d}"
    return f"{us // 1000}.{us % 1000:03d}"


def find_rtts(rng: random.Random, target: tuple[int, int, int, int], bimodal: bool,
              n: int = 20) -> list[int]:
    """Deterministic hill climb for n integer-µs RTTs whose iputils summary equals target.

    iputils prints replies under 1 ms with three decimals and replies of 1-10 ms with
    two, so replies of 1 ms or more (other than the maximum, which the summary states)
    are kept to whole 10 µs: every printed value is then the exact µs the summary used."""
    tmin, tavg, tmax, tmdev = target

    def snap(v: int) -> int:
        v = min(tmax - 1, max(tmin, v))
        return v if v < 1000 else min(10 * round(v / 10), (tmax - 1) // 10 * 10)

    if bimodal:   # USB adapter: interrupt moderation splits replies into fast and slow
        free = [snap(int(rng.gauss(300, 45)) if rng.random() < 0.36 else int(rng.gauss(975, 55)))
                for _ in range(n - 2)]
    else:
        free = [snap(int(rng.gauss(tavg, tmdev))) for _ in range(n - 2)]
    def err(vals):
        allv = [tmin, tmax] + vals
        s = sum(allv)
        var = (sum(x * x for x in allv) - s * s // n) // n
        return abs(s - sum_mid) / n + abs(var - var_mid) / (2 * tmdev)

    def done(vals):
        # iputils' integer arithmetic gives the target, and so does a float recomputation
        # rounded to 3 decimals (what a reader of the reply lines would do)
        allv = [tmin, tmax] + vals
        mean = sum(allv) / n
        sd = math.sqrt(sum(x * x for x in allv) / n - mean * mean)
        return iputils_stats(allv) == target and (round(mean), round(sd)) == (tavg, tmdev)

    sum_mid, var_mid = tavg * n + n // 4, (tmdev + 0.25) ** 2
    e = err(free)
    for _ in range(200000):
        if done(free):
            break
        i = rng.randrange(len(free))
        old = free[i]
        free[i] = snap(old + rng.randint(-25, 25))
        e2 = err(free)
        if e2 <= e:
            e = e2
        else:
            free[i] = old
    vals = [tmin, tmax] + free
    assert done(free), (iputils_stats(vals), target)
    rng.shuffle(vals)
    return vals


def ping_text(dest: str, rtts: list[int], elapsed_ms: int) -> str:
    mn, av, mx, md = iputils_stats(rtts)
    ms3 = lambda us: f"{us // 1000}.{us % 1000:03d}"
    lines = [f"PING {dest} ({dest}) 56(84) bytes of data."]
    lines += [f"64 bytes from {dest}: icmp_seq={i + 1} ttl=64 time={iputils_time(t)} ms"
              for i, t in enumerate(rtts)]
    lines += ["", f"--- {dest} ping statistics ---",
              f"{len(rtts)} packets transmitted, {len(rtts)} received, 0% packet loss, time {elapsed_ms}ms",
              f"rtt min/avg/max/mdev = {ms3(mn)}/{ms3(av)}/{ms3(mx)}/{ms3(md)} ms"]
    return "\n".join(lines) + "\n"
