# The Python MCP SDK's client against this server: the command line after this script's name
# starts the server; one JSON line tells what the client negotiated, listed and was answered.
import asyncio
import json
import os
import sys

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def main() -> None:
    server = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:], env=dict(os.environ))
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            opened = await session.initialize()
            listed = await session.list_tools()
            called = await session.call_tool("tmux_capabilities", {})
            print(json.dumps({
                "protocol": opened.protocol_version,
                "tools": [tool.name for tool in listed.tools],
                "structured": called.structured_content,
                "is_error": called.is_error,
            }))


asyncio.run(main())
