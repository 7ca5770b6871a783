"""MCP in the app: the servers screen and its form, sign-in, elicitation and sampling, resources, and the host
that answers the engine's MCP callbacks."""
