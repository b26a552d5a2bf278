#!/usr/bin/env node
/**
 * An MCP server that hangs: it starts, reads everything the client writes and never answers (not `initialize`, not
 * a probe, not a call). The client must give up on its own time limit and the chat must not wait for it.
 */
process.stdin.resume();
setInterval(() => {}, 60_000);
