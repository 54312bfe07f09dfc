// Package errcode owns signaltty's request errors: the Error type every
// verb returns, its stable dotted Code ("<class>.<what>", docs/errors.md),
// the code constants and the constructors of the errors that recur.
//
// The varlink adapters send an Error as the interface error named for its
// class (Class), with code, message and data; nothing below the service
// layer imports this package.
package errcode
