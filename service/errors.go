package service

import (
	"fmt"
	"strings"
)

// Error is a request failure with a stable dotted code whose first part is its
// class: invalid_params, not_found, denied, conflict, unavailable, timeout,
// cancelled, unsupported or internal (docs/errors.md).
type Error struct {
	Code    string
	Message string
	Data    map[string]any
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Class is the part of Code before the first dot.
func (e *Error) Class() string {
	class, _, _ := strings.Cut(e.Code, ".")
	return class
}

// newError makes an *Error; data may be nil (sent as an empty object).
func newError(code string, data map[string]any, format string, args ...any) *Error {
	if data == nil {
		data = map[string]any{}
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Data: data}
}

func invalid(param, reason, format string, args ...any) *Error {
	return newError("invalid_params."+param, map[string]any{"param": param, "reason": reason}, format, args...)
}

func notFound(kind, id string) *Error {
	return newError("not_found."+kind, map[string]any{kind: id}, "no %s %q", kind, id)
}

// Invalid is an invalid_params.<param> error for adapters that check wire
// details (encodings, exclusive fields) before calling the service.
func Invalid(param, reason, format string, args ...any) *Error {
	return invalid(param, reason, format, args...)
}
