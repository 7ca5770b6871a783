"""Holds a store open until killed, for the two-instances test. Usage: python hold_store.py HOME"""

from __future__ import annotations

import sys
import time

from visindigo.engine import Center

if __name__ == "__main__":
    center = Center.open(sys.argv[1])
    print("ready", flush=True)
    time.sleep(3600)
