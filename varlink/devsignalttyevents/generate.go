package devsignalttyevents

//go:generate go tool varlink-go-interface-generator dev.signaltty.Events.varlink
