"""``ethtool IFACE`` text for the campaign's NICs (igc 2.5 GbE, r8152 USB-C 1 GbE)."""
from __future__ import annotations


def ethtool_text(iface: str, nic: str) -> str:
    if nic == "igc":      # Intel I226-V, 2.5GBASE-T
        modes = ["10baseT/Half 10baseT/Full", "100baseT/Half 100baseT/Full", "1000baseT/Full",
                 "2500baseT/Full"]
        ports, pause, port, phyad, speed = "[ TP ]", "Symmetric", "Twisted Pair", 0, 2500
        tail = ["\tMDI-X: off (auto)", "\tSupports Wake-on: pumbg", "\tWake-on: g",
                "        Current message level: 0x00000007 (7)",
                "                               drv probe link"]
    else:                 # Realtek RTL8153 USB-C adapter (r8152)
        modes = ["10baseT/Half 10baseT/Full", "100baseT/Half 100baseT/Full", "1000baseT/Full"]
        ports, pause, port, phyad, speed = "[ MII ]", "Symmetric Receive-only", "MII", 32, 1000
        tail = ["\tSupports Wake-on: pumbg", "\tWake-on: g",
                "        Current message level: 0x00007fff (32767)",
                "                               drv probe link timer ifdown ifup rx_err tx_err "
                "tx_queued intr tx_done rx_status pktdata hw wol"]

    def block(label: str, pad: int) -> list[str]:
        head = f"\t{label}:"
        first = head + " " * (pad - len(head) + 1) + modes[0]
        cont = ["\t" + " " * pad + m for m in modes[1:]]
        return [first] + cont

    lines = [f"Settings for {iface}:", f"\tSupported ports: {ports}"]
    lines += block("Supported link modes", 24)
    lines += [f"\tSupported pause frame use: {'Symmetric' if nic == 'igc' else 'No'}",
              "\tSupports auto-negotiation: Yes", "\tSupported FEC modes: Not reported"]
    lines += block("Advertised link modes", 24)
    lines += [f"\tAdvertised pause frame use: {pause}", "\tAdvertised auto-negotiation: Yes",
              "\tAdvertised FEC modes: Not reported"]
    lines += block("Link partner advertised link modes", 37)
    lines += [f"\tLink partner advertised pause frame use: {pause}",
              "\tLink partner advertised auto-negotiation: Yes",
              "\tLink partner advertised FEC modes: Not reported",
              f"\tSpeed: {speed}Mb/s", "\tDuplex: Full", "\tAuto-negotiation: on",
              f"\tPort: {port}", f"\tPHYAD: {phyad}", "\tTransceiver: internal"]
    lines += tail + ["\tLink detected: yes"]
    return "\n".join(lines) + "\n"
