package listdecode

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"io"

	"github.com/signaltty/signaltty/varlink/devsignalttymux"
)

// ReplyFile is the reply's file under testdata/.
const ReplyFile = "listpanes-1000.json.gz"

//go:embed testdata/listpanes-1000.json.gz
var replyGz []byte

// Reply is the ListPanes reply message of 1,000 panes, as the daemon sent it.
func Reply() ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(replyGz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// Out is what the generated ListPanes_methods.Send decodes the parameters
// into.
type Out struct {
	Panes []devsignalttymux.Pane `json:"panes"`
}

// LibraryReply is the varlink library's reply type (connection.go): the
// parameters kept as raw bytes for a second decoding.
type LibraryReply struct {
	Parameters *json.RawMessage `json:"parameters"`
	Continues  bool             `json:"continues"`
	Error      string           `json:"error"`
}

// OneReply is the whole message decoded in one pass into the generated type.
type OneReply struct {
	Parameters Out    `json:"parameters"`
	Continues  bool   `json:"continues"`
	Error      string `json:"error"`
}

// DecodeLibrary decodes as the varlink library and the generated binding
// do: the message into LibraryReply, then its parameters into Out.
func DecodeLibrary(msg []byte) (Out, error) {
	var m LibraryReply
	var o Out
	if err := json.Unmarshal(msg, &m); err != nil {
		return o, err
	}
	err := json.Unmarshal(*m.Parameters, &o)
	return o, err
}

// DecodeOnePass decodes the message with encoding/json in one pass into
// the generated type.
func DecodeOnePass(msg []byte) (Out, error) {
	var m OneReply
	err := json.Unmarshal(msg, &m)
	return m.Parameters, err
}
