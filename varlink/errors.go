package varlink

import (
	"context"
	"errors"
	"regexp"

	"github.com/signaltty/signaltty/service"
	"github.com/signaltty/signaltty/service/errcode"
	vl "github.com/varlink/go/varlink"
)

// errorNames maps an error class to the varlink error declared for it in
// each interface (dev.signaltty.<Interface>.<Name>).
var errorNames = map[string]string{
	"invalid_params": "InvalidParams", "not_found": "NotFound", "conflict": "Conflict",
	"unavailable": "Unavailable", "timeout": "Timeout", "internal": "Internal",
	"denied": "Denied", "cancelled": "Cancelled", "unsupported": "Unsupported",
}

// described is a generated interface: its name and its IDL text.
type described interface {
	VarlinkGetName() string
	VarlinkGetDescription() string
}

// interfaceErrors are the errors one interface declares in its IDL
// (`error Name (…)` lines of its .varlink file), by name.
type interfaceErrors struct {
	iface    string
	declared map[string]bool
}

var errorDecl = regexp.MustCompile(`(?m)^error\s+([A-Za-z][A-Za-z0-9]*)\s*\(`)

// errorsOf reads the declared errors from the interface's description.
func errorsOf(d described) interfaceErrors {
	ie := interfaceErrors{iface: d.VarlinkGetName(), declared: map[string]bool{}}
	for _, m := range errorDecl.FindAllStringSubmatch(d.VarlinkGetDescription(), -1) {
		ie.declared[m[1]] = true
	}
	return ie
}

// name is the error a code is sent as: the one declared for its class, or
// Internal (with the code kept) when the interface declares none for it.
func (ie interfaceErrors) name(code errcode.Code) string {
	if n := errorNames[code.Class()]; ie.declared[n] {
		return n
	}
	return "Internal"
}

// reply sends err as the interface's error for its class (name), carrying
// code, message and data; an error that is not a *service.Error is sent as
// internal with its text as the message.
func (ie interfaceErrors) reply(ctx context.Context, call vl.Call, err error) error {
	var se *service.Error
	if !errors.As(err, &se) {
		se = &service.Error{Code: errcode.CodeInternal, Message: err.Error()}
	}
	data := se.Data
	if data == nil {
		data = map[string]any{}
	}
	return call.ReplyError(ctx, ie.iface+"."+ie.name(se.Code), map[string]any{"code": se.Code, "message": se.Message, "data": data})
}
