#!/usr/bin/env python3
"""Pairs what BlueZ's example heart-rate server notified with what BluetoothLatency's builder delegate heard.

    scripts/bluetooth-latency.py GATT_SERVER_LOG LATENCY_OUTPUT...

The server's log has one line per notification, stamped as it was sent (`<unix seconds> Updating value:
[dbus.Byte(flags), dbus.Byte(bpm), ...]`, see start_gatt_server in bluetooth-vm-inside.sh). Each BluetoothLatency
output starts with `path dbus|raw ...`, then `<unix seconds> <bpm> <sample start>` per delegate call, then `end`.
A delegate call is paired with the last notification of the same value sent before it (the server sends one a
second, so the pair is unambiguous while the latency stays under a second). The notifications sent between the
first and the last paired one that were never heard are lost.

Prints, per output: how many were sent and heard, how many lost, and the latency's p50, p99 and maximum. Exits 1 when
an output heard fewer than 10, lost any, heard a value the server did not send, or did not end.
"""
import math
import re
import sys

SENT = re.compile(r"^(\d+\.\d+) Updating value: \[dbus\.Byte\(\d+\), dbus\.Byte\((\d+)\)")


def percentile(values, fraction):
    """The nearest-rank percentile of sorted `values`."""
    return values[max(0, math.ceil(fraction * len(values)) - 1)]


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    sent = []
    for line in open(sys.argv[1], errors="replace"):
        match = SENT.match(line)
        if match:
            sent.append((float(match.group(1)), int(match.group(2))))
    failed = False
    for output in sys.argv[2:]:
        lines = open(output, errors="replace").read().splitlines()
        path = lines[0].split()[1] if lines and lines[0].startswith("path ") else "unknown path"
        heard = [(float(t), int(float(v))) for t, v, _ in (line.split() for line in lines[1:] if len(line.split()) == 3)]
        paired, unpaired = [], 0
        for time, bpm in heard:
            candidates = [i for i, (at, value) in enumerate(sent) if value == bpm and at <= time and time - at < 2]
            if candidates:
                paired.append((candidates[-1], time - sent[candidates[-1]][0]))
            else:
                unpaired += 1
        ended = bool(lines) and lines[-1] == "end"
        if not paired:
            print(f"FAIL {path}: no heart rate heard was one the server sent ({len(heard)} heard, ended: {ended})")
            failed = True
            continue
        first, last = min(i for i, _ in paired), max(i for i, _ in paired)
        window = last - first + 1
        lost = window - len({i for i, _ in paired})
        latencies = sorted(latency * 1000 for _, latency in paired)
        ok = len(paired) >= 10 and lost == 0 and unpaired == 0 and ended
        print(
            f"{'PASS' if ok else 'FAIL'} {path}: {window} notifications sent, {len(paired)} heard by the builder's "
            f"delegate, {lost} lost, {unpaired} unpaired; latency p50 {percentile(latencies, 0.5):.1f} ms, "
            f"p99 {percentile(latencies, 0.99):.1f} ms, max {latencies[-1]:.1f} ms"
            + ("" if ended else " (did not end)"))
        failed = failed or not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
