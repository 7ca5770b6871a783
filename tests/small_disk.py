"""A real, small file system for the full-disk tests: a tmpfs of a few megabytes that can be filled up.

Mounting needs root, or a user namespace (`unshare -rm`), where an ordinary user is root over a mount table of
its own. A test that is not root runs itself again in one (`rerun_in_user_namespace`); it is skipped only when
neither works, with the reason.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Set in the copy of the test that runs inside the user namespace (where it is root and mounts directly);
#: VISINDIGO_TEST_USER_NAMESPACE=1 takes that way even as root, to try it.
INSIDE = "VISINDIGO_TEST_IN_USER_NAMESPACE"


def rerun_in_user_namespace(request: pytest.FixtureRequest) -> bool:
    """Run the calling test again inside `unshare -rm` when this process may not mount; True when it did (the
    outcome is then asserted here: the caller returns). False: mount here."""
    if os.environ.get(INSIDE) or (os.geteuid() == 0 and not os.environ.get("VISINDIGO_TEST_USER_NAMESPACE")):
        return False
    if shutil.which("unshare") is None:
        pytest.skip("a full disk needs a small tmpfs: not root, and there is no `unshare` for a user namespace")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"a full disk needs a small tmpfs: not root, and `unshare -rm` fails ({probe.stderr.strip()})")
    env = {**os.environ, INSIDE: "1"}
    result = subprocess.run(
        ["unshare", "-rm", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", request.node.nodeid],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=600,
    )  # fmt: skip
    if result.returncode == 0 and " passed" not in result.stdout:
        pytest.skip(f"inside a user namespace: {result.stdout.strip().splitlines()[-1]}")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    return True


@contextlib.contextmanager
def small_disk(where: Path, size_kb: int) -> Iterator[Path]:
    """A tmpfs of `size_kb` mounted at `where` (made empty), unmounted afterwards."""
    where.mkdir(parents=True, exist_ok=True)
    options = f"size={size_kb}k,mode=0700"
    command = ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)]
    mounted = subprocess.run(command, capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"a small tmpfs cannot be mounted here: {mounted.stderr.strip() or mounted.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(disk: Path) -> Path:
    """Fill `disk` to the last byte with one file (returned); shrinking it frees that much space again."""
    filler = disk / "filler"
    filler.touch()
    leave_free(filler, 0)
    return filler


def leave_free(filler: Path, free_bytes: int) -> None:
    """Make about `free_bytes` free on the filled disk (fill it first, then shrink the filler by that much)."""
    with open(filler, "ab", buffering=0) as handle, contextlib.suppress(OSError):  # fill what the last step freed
        while handle.write(b"\0" * 4096):
            pass
    size = filler.stat().st_size
    os.truncate(filler, max(0, size - free_bytes))
