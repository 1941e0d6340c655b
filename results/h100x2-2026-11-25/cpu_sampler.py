"""How busy the machine's CPUs are: every 2 s, the share of the last 2 s they were not idle, and the load."""

import time


def snapshot() -> tuple[int, int]:
    """(all jiffies, idle and iowait jiffies) since boot, from /proc/stat's first line."""
    with open("/proc/stat") as stat:
        fields = [int(field) for field in stat.readline().split()[1:]]
    return sum(fields), fields[3] + fields[4]


def main() -> None:
    start, last = time.time(), snapshot()
    while True:
        time.sleep(2)
        now = snapshot()
        total, idle = now[0] - last[0], now[1] - last[1]
        last = now
        with open("/proc/loadavg") as load:
            average = load.read().split()[0]
        busy = 100 * (total - idle) / max(total, 1)
        print(f"{time.time() - start:6.0f} s  cpu busy {busy:5.1f}%  load {average}", flush=True)


if __name__ == "__main__":
    main()
