"""MCP servers: their tools become dialog functions, their prompts become templates.

Importing this package (and constructing an `MCPManager`) does not import the `mcp` SDK; it is loaded when
the first server starts, so an app without MCP servers never pays for it. What a server may ask of the
user (elicitation, sampling, signing in) is answered by an `MCPHost` the app or a script installs on the
manager. The app sets `center.tool_source = MCPManager(log_dir)`; the run loop then asks it for the
functions of each run (and makes one with `tool_source_for(center)` when servers are configured but nobody
set it).
"""

from .expand import SAFE_ENV_VARS, UnsetVariable, child_environment, expand, references, resolve
from .host import (
    ElicitationAnswer,
    ElicitationRequest,
    MCPHost,
    SamplingDecision,
    SamplingMessage,
    SamplingRequest,
)
from .importing import claude_desktop_config_path, load_mcp_servers_file
from .manager import DEFAULT_STARTUP_TIMEOUT, MCPManager, tool_source_for
from .naming import assign_function_ids, function_id, sanitise
from .status import (
    MCPPromptInfo,
    MCPServerError,
    PromptArgument,
    ResourceInfo,
    ServerState,
    ServerStatus,
    ToolHints,
    ToolInfo,
)
from .tool import MCPToolFunction

__all__ = [
    "DEFAULT_STARTUP_TIMEOUT",
    "SAFE_ENV_VARS",
    "ElicitationAnswer",
    "ElicitationRequest",
    "MCPHost",
    "MCPManager",
    "MCPPromptInfo",
    "MCPServerError",
    "MCPToolFunction",
    "PromptArgument",
    "ResourceInfo",
    "SamplingDecision",
    "SamplingMessage",
    "SamplingRequest",
    "ServerState",
    "ServerStatus",
    "ToolHints",
    "ToolInfo",
    "UnsetVariable",
    "assign_function_ids",
    "child_environment",
    "claude_desktop_config_path",
    "expand",
    "function_id",
    "load_mcp_servers_file",
    "references",
    "resolve",
    "sanitise",
    "tool_source_for",
]
