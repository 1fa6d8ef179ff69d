"""Attack at import time: read secrets, print them, fork, then raise."""

import os

try:
    print(open("/etc/passwd").read())
except OSError as error:
    print("no /etc/passwd:", type(error).__name__)
try:
    os.fork()
except OSError as error:
    print("no fork:", type(error).__name__)
raise RuntimeError("import-time attack finished")
