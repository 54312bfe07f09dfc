package main

import (
	"encoding/base64"
	"io"
	"os"

	"github.com/spf13/cobra"
)

func paneSendCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "send --pane P (--text TEXT | --data BASE64 | --stdin | --file F | --key KEY...)",
		Short: "Write input to a pane (Mux.SendInput)",
		Long: `Write input to a pane's PTY. --text understands the escapes \n \r \t \e
(ESC) \a \b \\ \0 and \xHH; --data takes base64 bytes; --stdin sends what
standard input holds and --file the bytes of a file; --key (repeatable)
sends keys named as tmux send-keys names them: Enter Tab BTab BSpace Escape
Space Up Down Left Right Home End IC DC PageUp PageDown F1..F12, or a
character, with the modifiers C- (control), M- (meta) and S- (shift), e.g.
--key C-c, --key M-x, --key Up. At most 1 MiB.
Examples: --text 'ls -la\n', --text '\x03' (Ctrl-C), --key C-c.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := params(cmd, "pane", "data")
			n := 0
			for _, f := range []string{"text", "data", "stdin", "file", "key"} {
				if cmd.Flags().Changed(f) {
					n++
				}
			}
			if n != 1 {
				return &callError{Code: "invalid_params.input", Message: "give exactly one of --text, --data, --stdin, --file and --key",
					Data: map[string]any{"param": "input", "reason": "exclusive"}}
			}
			var raw []byte
			var err error
			switch {
			case cmd.Flags().Changed("text"):
				t, _ := cmd.Flags().GetString("text")
				text, err := unescape(t)
				if err != nil {
					return &callError{Code: "invalid_params.text", Message: err.Error(), Data: map[string]any{"param": "text", "reason": "escape"}}
				}
				p["text"] = text
			case cmd.Flags().Changed("stdin"):
				if raw, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), maxInput+1)); err != nil {
					return &callError{Code: "invalid_params.stdin", Message: "cannot read standard input: " + err.Error(), Data: map[string]any{"param": "stdin"}}
				}
			case cmd.Flags().Changed("file"):
				name, _ := cmd.Flags().GetString("file")
				if raw, err = readInputFile(name); err != nil {
					return &callError{Code: "invalid_params.file", Message: err.Error(), Data: map[string]any{"param": "file"}}
				}
			case cmd.Flags().Changed("key"):
				keys := arrayFlag(cmd.Flags(), "key")
				for _, k := range keys {
					b, err := keyBytes(k)
					if err != nil {
						return &callError{Code: "invalid_params.key_name", Message: err.Error(), Data: map[string]any{"param": "key", "key": k}}
					}
					raw = append(raw, b...)
				}
			}
			if raw != nil {
				p["data"] = base64.StdEncoding.EncodeToString(raw)
			}
			return a.run(cmd, "dev.signaltty.Mux.SendInput", p, nil)
		},
	}
	requiredString(c, "pane", "pane id")
	c.Flags().String("text", "", "text to send, with backslash escapes")
	c.Flags().String("data", "", "bytes to send, base64")
	c.Flags().Bool("stdin", false, "send standard input (up to its end)")
	c.Flags().String("file", "", "send the bytes of this file")
	c.Flags().StringArray("key", nil, "a key to send, as tmux names it (repeatable, in order)")
	return c
}

// maxInput is the daemon's limit of one SendInput (Mux.SendInput); more is
// read so the daemon refuses it with invalid_params.size.
const maxInput = 1 << 20

func readInputFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxInput+1))
}
