// The release version, in one place for --version, the MCP handshake and the smoke report.
export const VERSION = "0.1.0";
