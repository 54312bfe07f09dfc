// Package mcpschema holds the MCP tools of `signaltty mcp` and the agent
// skill guide of `signaltty skill`, both generated from the varlink IDL of
// dev.signaltty.Run, .Mux and .Server (IDLFiles) by `go generate`, which
// runs command gen: each tool's input and output JSON Schema is its
// varlink method's parameters and reply, its description a hint for
// agents plus the method's IDL comment. It describes the tools and serves
// none: docs/mcp.md describes the server, which is signaltty-mcp.
package mcpschema
