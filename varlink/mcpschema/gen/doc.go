// Command gen writes tools.json and SKILL.md of package mcpschema from the
// varlink IDL. Run it with `go generate ./varlink/...` (from the package
// directory).
package main
