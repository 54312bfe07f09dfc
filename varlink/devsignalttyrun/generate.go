package devsignalttyrun

//go:generate go tool varlink-go-interface-generator dev.signaltty.Run.varlink
