/** The version the server reports to MCP clients and the CLI reports when it registers (package.json's). */
export const VERSION = "0.1.0"
