package errcode

import (
	"fmt"
	"strings"
)

// Code is a stable dotted error code: its class, a dot and what failed
// ("not_found.pane"), or a class alone ("cancelled", "internal").
type Code string

// Class is the part of the code before the first dot: invalid_params,
// not_found, denied, conflict, unavailable, timeout, cancelled, unsupported
// or internal.
func (c Code) Class() string {
	class, _, _ := strings.Cut(string(c), ".")
	return class
}

// Classes are the error classes in the order docs/errors.md lists them;
// each names one varlink error per interface (InvalidParams, NotFound, …).
var Classes = []string{"invalid_params", "not_found", "denied", "conflict", "unavailable", "timeout", "cancelled", "unsupported", "internal"}

// Error is a request failure: a code, a message for people and data for
// programs (never nil once made by New; sent as an empty object).
type Error struct {
	Code    Code
	Message string
	Data    map[string]any
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Class is the class of the error's code.
func (e *Error) Class() string { return e.Code.Class() }

// New makes an *Error; data may be nil.
func New(code Code, data map[string]any, format string, args ...any) *Error {
	if data == nil {
		data = map[string]any{}
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Data: data}
}

// Invalid is invalid_params.<param> with data {param, reason}.
func Invalid(param, reason, format string, args ...any) *Error {
	return New(InvalidParams(param), map[string]any{"param": param, "reason": reason}, format, args...)
}

// NotFound is not_found.<kind> with data {<kind>: id}.
func NotFound(kind, id string) *Error {
	return New(Code("not_found."+kind), map[string]any{kind: id}, "no %s %q", kind, id)
}

// Shutdown is unavailable.shutdown: the daemon is stopping and starts
// nothing new.
func Shutdown() *Error {
	return New(UnavailableShutdown, nil, "the daemon is shutting down")
}

// Cancelled is the error of a request whose caller went away or gave up;
// data may be nil.
func Cancelled(data map[string]any, format string, args ...any) *Error {
	return New(CodeCancelled, data, format, args...)
}

// InvalidParams is the code invalid_params.<param>, for errors that carry
// more data than Invalid gives.
func InvalidParams(param string) Code { return Code("invalid_params." + param) }
