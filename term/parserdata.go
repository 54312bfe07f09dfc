package term

import (
	"reflect"
	"unsafe"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// oscDataBytes is the longest string payload (OSC, DCS, APC, PM, SOS) an
// emulator keeps; longer payloads are cut there. The payloads we act on
// (titles, working directory, prompt marks, program status: osc.go) are a
// few hundred bytes, a percent-encoded working directory a few KiB. x/vt
// v0.1.0 gives every emulator a 4 MiB buffer for them, allocated and
// zeroed at once: with a thousand panes that was 4 GiB of heap, and every
// run's pane churned another 4 MiB.
const oscDataBytes = 16 << 10

// shrinkParserData replaces the emulator's string-payload buffer with one
// of oscDataBytes. x/vt has no setting for it, so the parser is reached
// through its unexported field; if a later x/vt renames or retypes it,
// nothing is changed (TestEmulatorParserDataIsSmall then fails).
func shrinkParserData(e *vt.Emulator) bool {
	f := reflect.ValueOf(e).Elem().FieldByName("parser")
	if !f.IsValid() || f.Type() != reflect.TypeOf((*ansi.Parser)(nil)) {
		return false
	}
	p := *(**ansi.Parser)(unsafe.Pointer(f.UnsafeAddr()))
	if p == nil {
		return false
	}
	p.SetDataSize(oscDataBytes)
	return true
}
