"""Start sendbox for a Python test suite, and stop it afterwards.

    with sendbox() as url:          # or as a pytest fixture, below
        requests.post(f"{url}/messages", ...)
"""
import contextlib
import re
import subprocess
import threading


@contextlib.contextmanager
def sendbox(*args, command=("npx", "sendbox")):
    process = subprocess.Popen(
        [*command, "--port", "0", "--memory", "--no-open", "--exit-with-parent", *args],
        # A pipe only this process holds: if it dies, even by SIGKILL, sendbox sees stdin
        # close and stops too (--exit-with-parent).
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        url = None
        said = []
        for line in process.stdout:
            match = re.match(r"sendbox ready (\S+)", line)
            if match:
                url = match.group(1)
                break
            said.append(line)
        if url is None:
            raise RuntimeError(f"sendbox exited with {process.wait()} before it was ready: {''.join(said).strip()}")
        # Keep reading its output (one line per request), so that it never fills the pipe.
        threading.Thread(target=process.stdout.read, daemon=True).start()
        yield url
    finally:
        process.terminate()  # SIGTERM: sendbox flushes its log and exits 0
        process.wait(timeout=10)


# With pytest, one sandbox for the whole run:
#
#     @pytest.fixture(scope="session")
#     def sendbox_url():
#         with sendbox() as url:
#             yield url
