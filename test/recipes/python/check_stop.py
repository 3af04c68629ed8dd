"""Driver for test/recipes/python.test.ts (not a recipe itself).

Usage: check_stop.py MODE COMMAND...
  terminate  start sendbox with the recipe, check it answers, leave the `with` block (terminate()),
             then report whether every process under it is gone.
  die        start it, print the pids, and kill this Python process with SIGKILL: the test then
             checks that sendbox stopped by itself.
"""
import json
import os
import signal
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from sendbox_process import sendbox  # noqa: E402


def descendants(root):
    """Pids under `root`, from /proc (Linux)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid):
    """True while the process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


mode, command = sys.argv[1], tuple(sys.argv[2:])
with sendbox(command=command) as url:
    health = json.load(urllib.request.urlopen(f"{url}/_sandbox/api/health"))
    pids = descendants(os.getpid())
    if mode == "die":
        print(json.dumps({"url": url, "pids": pids}), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

deadline = time.time() + 10
while time.time() < deadline and any(alive(pid) for pid in pids):
    # These processes are not this one's children: their exit sends no signal here, so it is
    # looked for again.
    time.sleep(0.05)
print(json.dumps({"url": url, "status": health["status"], "pids": pids, "left": [p for p in pids if alive(p)]}))
