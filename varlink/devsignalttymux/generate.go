package devsignalttymux

//go:generate go tool varlink-go-interface-generator dev.signaltty.Mux.varlink
