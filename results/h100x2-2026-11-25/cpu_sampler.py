import time, sys
def snap():
    v = list(map(int, open('/proc/stat').readline().split()[1:]))
    return sum(v), v[3] + v[4]
t0 = time.time(); last = snap()
while True:
    time.sleep(2)
    now = snap(); total, idle = now[0] - last[0], now[1] - last[1]; last = now
    print(f"{time.time()-t0:6.0f} s  cpu busy {100*(total-idle)/max(total,1):5.1f}%  load {open('/proc/loadavg').read().split()[0]}", flush=True)
