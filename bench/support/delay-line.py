#!/usr/bin/env python3
"""
A userspace delay line between two TUN devices, for kernels without netem.

    python3 delay-line.py TUN_A TUN_B DELAY_MS

Creates the two TUN devices (IFF_TUN | IFF_NO_PI: plain IP packets, no offloads, so
every packet arrives whole and checksummed), prints "ready", then copies every IP
packet read from one device into the other DELAY_MS later, in both directions. Every
packet is delayed: SYN, SYN-ACK, TLS records, data, ACKs and FINs alike, as
`tc qdisc add dev X root netem delay DELAY_MS` on both ends of a veth pair would do.
The caller moves one device into another network namespace and gives both addresses.

It asks for real-time scheduling (SCHED_FIFO; as root), as netem's timers run in the
kernel ahead of user processes; without it, busy benchmark processes delay its timers.

The devices are not persistent: they vanish when this process exits. It exits on
SIGTERM, SIGINT or when its stdin closes (its parent died), and then prints one JSON
line of statistics: packets and bytes each way, and how late packets left against
their due time (scheduling jitter added on top of DELAY_MS).
"""
import fcntl
import heapq
import json
import os
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def open_tun(name: str) -> int:
    fd = os.open('/dev/net/tun', os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack('16sH', name.encode(), IFF_TUN | IFF_NO_PI))
    os.set_blocking(fd, False)
    return fd


class Stop(Exception):
    pass


def stop(_signum, _frame):
    raise Stop()


def realtime() -> str:
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        return 'SCHED_FIFO 10'
    except (AttributeError, PermissionError, OSError):
        try:
            os.nice(-10)
            return 'nice -10'
        except OSError:
            return 'normal'


def main() -> None:
    name_a, name_b, delay_ms = sys.argv[1], sys.argv[2], float(sys.argv[3])
    delay = delay_ms / 1000.0
    scheduling = realtime()
    fd_a, fd_b = open_tun(name_a), open_tun(name_b)
    other = {fd_a: fd_b, fd_b: fd_a}
    label = {fd_a: 'a_to_b', fd_b: 'b_to_a'}
    stats = {
        'delayMs': delay_ms,
        'scheduling': scheduling,
        'a_to_b': {'packets': 0, 'bytes': 0},
        'b_to_a': {'packets': 0, 'bytes': 0},
        'dropped': 0,
    }
    lateness = []
    drops = []
    queue = []  # (due, seq, out_fd, packet); constant delay keeps each direction in order
    seq = 0
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    stdin = sys.stdin.fileno()
    print('ready', flush=True)

    def release() -> None:
        now = time.monotonic()
        while queue and queue[0][0] <= now:
            due, _, out, packet = heapq.heappop(queue)
            lateness.append(now - due)
            try:
                os.write(out, packet)
            except OSError as error:
                # The device is down or its queue full: the packet is lost, as on a wire.
                stats['dropped'] += 1
                drops.append({'errno': error.errno, 'ipVersion': packet[0] >> 4, 'bytes': len(packet),
                              'to': 'b' if out == fd_b else 'a'})

    try:
        while True:
            timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else None
            readable, _, _ = select.select([fd_a, fd_b, stdin], [], [], timeout)
            release()  # due packets first: they are the time-critical ones
            now = time.monotonic()
            for fd in readable:
                if fd == stdin:
                    if not os.read(stdin, 4096):
                        raise Stop()
                    continue
                while True:
                    try:
                        packet = os.read(fd, 65536)
                    except BlockingIOError:
                        break
                    except OSError:
                        raise Stop()  # the device was deleted under us: the bench is tearing down
                    direction = stats[label[fd]]
                    direction['packets'] += 1
                    direction['bytes'] += len(packet)
                    seq += 1
                    heapq.heappush(queue, (now + delay, seq, other[fd], packet))
            release()
    except Stop:
        pass
    lateness.sort()
    if lateness:
        stats['lateMs'] = {
            'median': round(lateness[len(lateness) // 2] * 1000, 3),
            'p99': round(lateness[min(len(lateness) - 1, int(len(lateness) * 0.99))] * 1000, 3),
            'max': round(lateness[-1] * 1000, 3),
        }
    if drops:
        stats['drops'] = drops[:20]
    print(json.dumps(stats), flush=True)


if __name__ == '__main__':
    main()
