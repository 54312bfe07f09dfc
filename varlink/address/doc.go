// Package address names where signalttyd listens and the CLI connects:
// the default address (Default, from $SIGNALTTY_ADDRESS or the user's
// runtime directory), the socket path of a unix: address, and the remote
// ssh-unix: and ssh-exec: addresses, which DialSSH reaches through ssh. It
// is kept apart from package varlink so the CLI links none of the daemon.
package address
