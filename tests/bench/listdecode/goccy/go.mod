module signaltty-bench/listdecode/goccy

go 1.26.8

require (
	github.com/goccy/go-json v0.12.0
	github.com/signaltty/signaltty v0.0.0
)

require github.com/varlink/go v0.4.1-0.20261015173642-c935be0c53f7 // indirect

replace github.com/signaltty/signaltty => ../../../..
