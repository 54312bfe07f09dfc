package service

import "github.com/signaltty/signaltty/service/errcode"

// Error is a request failure with a stable dotted code (service/errcode,
// docs/errors.md).
type Error = errcode.Error

// newError makes an *Error; data may be nil (sent as an empty object).
func newError(code errcode.Code, data map[string]any, format string, args ...any) *Error {
	return errcode.New(code, data, format, args...)
}

func invalid(param, reason, format string, args ...any) *Error {
	return errcode.Invalid(param, reason, format, args...)
}

func notFound(kind, id string) *Error { return errcode.NotFound(kind, id) }

// Invalid is an invalid_params.<param> error for adapters that check wire
// details (encodings, exclusive fields) before calling the service.
func Invalid(param, reason, format string, args ...any) *Error {
	return errcode.Invalid(param, reason, format, args...)
}
