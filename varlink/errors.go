package varlink

import (
	"context"
	"errors"

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

// replyError sends err as the interface's error for its class, carrying
// code, message and data. A class the interface does not declare is sent as
// its Internal error with the code kept.
func replyError(ctx context.Context, call vl.Call, iface string, declared []string, err error) error {
	var se *service.Error
	if !errors.As(err, &se) {
		se = &service.Error{Code: errcode.CodeInternal, Message: err.Error()}
	}
	name := "Internal"
	for _, d := range declared {
		if d == errorNames[se.Class()] {
			name = d
		}
	}
	data := se.Data
	if data == nil {
		data = map[string]any{}
	}
	return call.ReplyError(ctx, iface+"."+name, map[string]any{"code": se.Code, "message": se.Message, "data": data})
}
