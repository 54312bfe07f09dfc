package devsignalttyserver

//go:generate go tool varlink-go-interface-generator dev.signaltty.Server.varlink
