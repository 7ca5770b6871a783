"""Whether the `mcp` SDK can be loaded, asked once, before any server is started.

The SDK is a normal dependency, but an install can still lack it (a system package without it, a broken
wheel, a dependency such as `httpx2` missing). Without this check the first server's owner task would die on
its import and the run would wait out the whole start-up timeout before blaming the server; instead every
run that needs a server says at once which package is missing.
"""

from __future__ import annotations

import functools
import importlib

#: The public modules the client side uses; a failure in any of them is reported the same way.
SDK_MODULES = ("mcp", "mcp.client", "mcp.client.stdio", "mcp.client.streamable_http", "mcp.client.sse", "httpx2")


@functools.cache
def sdk_problem() -> str:
    """"" when the SDK loads; otherwise one line naming the package and how to get it."""
    for module in SDK_MODULES:
        try:
            importlib.import_module(module)
        except Exception as error:  # ImportError, or a broken package raising anything while it loads
            missing = getattr(error, "name", None) or module
            package = missing.split(".")[0]
            return (
                f"the MCP SDK could not be loaded: importing {module!r} failed ({type(error).__name__}: {error}); "
                f"MCP servers need the Python package {package!r} (pip install 'mcp>=2.3,<3')"
            )
    return ""
