// Package docs holds signaltty's documentation, the Markdown files beside
// this one, and the tests that keep what the code, the IDL and the manual
// pages say about it true: every citation `docs/<file>.md, "Heading"`
// names a file here and one of its headings, and every link between these
// files reaches a file and heading anchor that exist.
package docs
