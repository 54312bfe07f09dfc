package mcpschema

import (
	"strconv"

	"github.com/signaltty/signaltty/service/request"
)

// The wait bounds the tool texts state, in ms: the MCP cap of one call and
// the varlink default and maximum they replace in the IDL text.
var (
	mcpCap  = strconv.Itoa(request.MCPWaitCapMs)
	waitMax = strconv.Itoa(request.MaxWaitMs)
	waitDef = strconv.Itoa(request.DefaultWaitMs)
)

// tool is one MCP tool: the varlink method it calls, the CLI command that
// makes the same call, and what an agent must know before calling it
// (hint, put before the method's IDL documentation). params overrides the
// description of input parameters where MCP differs from the CLI.
type tool struct {
	name   string
	method string // interface.Method, e.g. "dev.signaltty.Run.Start"
	cli    string
	hint   string
	params map[string]string
	// doc replaces parts of the method's IDL comment that MCP changes
	// (old text → new text); generating fails when an old text is gone.
	doc map[string]string
	ann annotation
	// omit and omitDefault are the reply's fields MCP leaves out
	// (docs/mcp.md, "Small results"), as dotted paths in the reply
	// ("record.output.offset"): omit always, omitDefault when the field
	// has the given value. Generating removes them from the output schema.
	omit        []string
	omitDefault map[string]any
}

// runRecordOmit are the fields of a run record that an agent has no use
// for in a result: what it sent or can ask run_list for (source, key,
// workspace, tab, principal, shell), a pid and wall-clock times it cannot
// act on, and the output tail's bookkeeping (offset, the pane's size).
var runRecordOmit = []string{"source", "key", "tab", "workspace", "principal", "pid", "shell", "started_at", "completed_at",
	"output.offset", "output.cols", "output.rows"}

// runRecordDefaults are the output tail's fields left out at their usual
// value: the primary screen, the first epoch, rows kept from row 0.
var runRecordDefaults = map[string]any{"output.screen": "primary", "output.epoch": 0, "output.oldest": 0}

// prefixed returns the paths of runRecordOmit and runRecordDefaults under
// prefix (the reply field holding the record).
func prefixed(prefix string) ([]string, map[string]any) {
	omit := make([]string, 0, len(runRecordOmit))
	for _, p := range runRecordOmit {
		omit = append(omit, prefix+"."+p)
	}
	defs := map[string]any{}
	for p, v := range runRecordDefaults {
		defs[prefix+"."+p] = v
	}
	return omit, defs
}

// recordHint tells agents what a run record in MCP leaves out.
const recordHint = "The record is kept small: it leaves out source, key, workspace, tab, principal, pid, shell, started_at and completed_at (run_list has them), " +
	"the output tail's offset, cols and rows, and its screen, epoch and oldest when they are primary, 0 and 0. " +
	"An output tail over the server's result budget keeps its last rows: then cut is true and continue_with holds the pane_capture arguments of the rows left out."

// recordOmit and recordDefaults are the fields run_wait, run_get and
// run_cancel leave out of their reply's record.
var recordOmit, recordDefaults = prefixed("record")

// annotation is what MCP's tool annotations say of a tool.
type annotation int

const (
	execs   annotation = iota // starts or drives arbitrary programs (MCP's default: destructive)
	reads                     // changes nothing (readOnlyHint)
	stops                     // stops or removes things (destructiveHint, idempotentHint)
	adds                      // only adds (destructiveHint false)
	renames                   // changes a label (destructiveHint false, idempotentHint)
)

// tools is the MCP server's tool list, in the order of the skill guide.
var tools = []tool{
	{name: "run", method: "dev.signaltty.Run.Start", omit: []string{"key", "tab", "workspace", "principal", "pid"}, cli: "signaltty run --key K (--workspace W | --pane P --axis cols|rows) (--argv JSON | --shell TEXT | -- PROGRAM [ARG...])",
		hint: "Start a command as a trusted run in a new pane. Returns as soon as the process has been executed (it does not wait for it to finish: call run_wait next), with run, source, pane and reused (not the key and workspace you sent). " +
			"Always pass a unique key: calling again with the same key and identical parameters after a lost or timed-out response is safe and returns the same run with reused: true instead of starting it twice. " +
			"argv runs the program directly, with no shell (no quoting problems); use shell only when you need shell syntax (pipes, redirection, &&). " +
			"deadline_ms makes the daemon terminate the command when it runs too long. " +
			"cwd, env and env_unset set its working directory and environment, as for pane_spawn. " +
			"From an agent's pane, pass your own pane's workspace (pane_get of your pane names it): the run gets a new tab there; other workspaces and other agents' panes are denied.spawn by default."},
	{name: "run_wait", omit: recordOmit, omitDefault: recordDefaults, method: "dev.signaltty.Run.Wait", cli: "signaltty run wait --run R [--timeout-ms N]",
		hint: "Block until a run completes and return its record with outcome, status and the last rows of output. " +
			"In MCP one call waits at most timeout_ms (default and maximum " + mcpCap + " ms, unless the server was started with another --wait-cap-ms); when the wait ends first, the result is not an error but the record as it is now (state running), output_so_far (the pane's screen now, as pane_capture returns it), wait_ended \"timeout\" and next: call run_wait again. " +
			"With a progress token, a progress notification comes every 5 s while waiting. " +
			"A wait never stops the command (use run_cancel). Trust outcome and status, never the screen text. " +
			"When output.complete is false, earlier rows exist: read them with pane_capture (rows [output.oldest, output.start)). " +
			recordHint,
		params: map[string]string{"timeout_ms": "How long this call waits, in ms: 0 checks without waiting; default and maximum " + mcpCap + " in MCP (larger values are lowered to it).",
			"trim": "Leave trailing spaces out of the rows: default true in MCP (pass false for rows padded to the pane width, as varlink and --json give them)."},
		doc: map[string]string{
			"timeout_ms\n(0.." + waitMax + "; 0 checks without waiting; absent waits without limit) ends\nonly the wait, with timeout.wait (data: run, state).":                     "timeout_ms\n(in MCP at most the server's cap, " + mcpCap + " by default, which is also the default;\n0 checks without waiting) ends only the wait: MCP then returns the current\nrecord with wait_ended \"timeout\" and next.",
			"Called with \"more\", a reply with the current record (continues) is sent\nevery 10 s until the final one, so a client's own call timeout need not\nend a long wait. ": "",
			"(data.reason \"expired\" or \"unknown\"), timeout.wait,": "(data.reason \"expired\" or \"unknown\"),",
		}, ann: reads},
	{name: "run_get", omit: recordOmit, omitDefault: recordDefaults, method: "dev.signaltty.Run.Get", cli: "signaltty run get --run R",
		hint:   "Return a run's record now, without waiting (state running, terminating or completed). " + recordHint,
		params: map[string]string{"trim": "Leave trailing spaces out of the rows: default true in MCP (pass false for rows padded to the pane width, as varlink and --json give them)."}, ann: reads},
	{name: "run_list", method: "dev.signaltty.Run.List", cli: "signaltty run list [--pane P] [--key K]",
		hint: "List the runs the daemon still keeps, without output; find a run by its key after losing its id.", ann: reads},
	{name: "run_cancel", omit: recordOmit, omitDefault: recordDefaults, method: "dev.signaltty.Run.Cancel", cli: "signaltty run cancel --run R",
		hint: "Stop a run's command (destructive: signals its process group, then SIGKILL after grace_ms) and return the completed record. " + recordHint, ann: stops},
	{name: "workspace_create", method: "dev.signaltty.Mux.CreateWorkspace", cli: "signaltty workspace create [--name N] [--cwd DIR] [--grant RIGHT:SCOPE]... [-- PROGRAM [ARG...]]",
		hint: "Create a workspace (a group of tabs and panes, like a tmux session); runs and panes start in one. Its handle can be used wherever a workspace id is taken.", ann: adds},
	{name: "workspace_list", method: "dev.signaltty.Mux.ListWorkspaces", cli: "signaltty workspace list",
		hint: "List workspaces.", ann: reads},
	{name: "workspace_get", method: "dev.signaltty.Mux.GetWorkspace", cli: "signaltty workspace get --workspace W",
		hint: "Show a workspace with its tabs and panes.", ann: reads},
	{name: "workspace_rename", method: "dev.signaltty.Mux.RenameWorkspace", cli: "signaltty workspace rename --workspace W --name N",
		hint: "Rename a workspace; its handle does not change.", ann: renames},
	{name: "workspace_remove", method: "dev.signaltty.Mux.RemoveWorkspace", cli: "signaltty workspace remove --workspace W [--recursive]",
		hint: "Remove a workspace. With recursive it stops its live processes first (destructive).", ann: stops},
	{name: "pane_spawn", method: "dev.signaltty.Mux.SpawnPane", cli: "signaltty pane spawn (--workspace W | --tab T | --split P --axis cols|rows) -- PROGRAM [ARG...]",
		hint: "Start an interactive program (a shell, a REPL, a server) in a new pane and drive it with pane_send and pane_capture. For a command whose result matters, prefer run: it reports a trusted outcome."},
	{name: "pane_list", method: "dev.signaltty.Mux.ListPanes", cli: "signaltty pane list [--workspace W] [--tab T]",
		hint: "List panes with their state (live or exited) and exit status.", ann: reads},
	{name: "pane_list_fields", method: "dev.signaltty.Mux.ListPaneFields", cli: "signaltty pane list --fields F[,F...] [--workspace W] [--tab T] [--limit N] [--after P]",
		hint: "List panes with only the fields you name (for example id, title, state, lifecycle, attention): an overview of many panes in a small reply; with limit, page through them by passing next as after. Use pane_get or pane_list for whole records.", ann: reads},
	{name: "pane_get", method: "dev.signaltty.Mux.GetPane", cli: "signaltty pane get --pane P",
		hint: "Show one pane.", ann: reads},
	{name: "pane_send", method: "dev.signaltty.Mux.SendInput", cli: "signaltty pane send --pane P --text TEXT",
		hint: "Type input into a pane, as a user at its terminal would: include \"\\n\" (or \"\\r\") to press Enter, \"\\u0003\" for Ctrl-C. To also wait for the program's answer, use pane_send_wait; the result's baseline is what pane_wait_output takes as after. Prefer run for commands whose result matters."},
	{name: "pane_capture", method: "dev.signaltty.Mux.CaptureRows", cli: "signaltty pane capture --pane P [--start N] [--end N] [--last N | --history] [--clamp] [--escapes]",
		hint: "Read a pane's screen, its last rows (last), its whole history (history), or rows with start and end (for example the rows before a run's output tail). Rows come without trailing spaces unless trim is false. " +
			"A result stays under the server's size budget: when cut is true, call again with the arguments in continue_with for the next page.",
		params: map[string]string{"trim": "Leave trailing spaces out of the rows: default true in MCP (pass false for rows padded to the pane width, as varlink and --json give them).",
			"max_bytes": "Cut the rows at this many bytes of lines; in MCP at most the server's result budget, which applies without it."}, ann: reads},
	{name: "pane_kill", method: "dev.signaltty.Mux.KillPane", cli: "signaltty pane kill --pane P",
		hint: "Stop a pane's processes (destructive) and wait until they exited; the pane stays, with its rows, until pane_remove.", ann: stops},
	{name: "pane_remove", method: "dev.signaltty.Mux.RemovePane", cli: "signaltty pane remove --pane P [--kill]",
		hint: "Remove a pane. Remove finished panes (including those of completed runs) to keep the workspace tidy; a live pane needs kill (destructive).", ann: stops},
	{name: "pane_resume", method: "dev.signaltty.Mux.ResumePane", cli: "signaltty resume PANE",
		hint: "Resume an agent's conversation in a pane restored after a restart (restore_state RESUMABLE): starts the agent's official resume command for its recorded session in the same pane. Never resumes on its own; exactly one of two concurrent calls wins."},
	{name: "pane_mark_seen", method: "dev.signaltty.Mux.MarkSeen", cli: "signaltty pane mark-seen --pane P",
		hint: "Clear a pane's attention once you have looked at what it wanted.", ann: renames},
	{name: "pane_wait", method: "dev.signaltty.Mux.Wait", cli: "signaltty pane wait --pane P --until STATE[,STATE...] [--after BASELINE]",
		hint: "Block until another agent's pane reaches a state (done, blocked, input_required, …). Pass after (the wait_baseline of pane_get, or the baseline of the previous pane_wait) so that only a transition after it counts. " +
			"In MCP one call waits at most timeout_ms (default and maximum " + mcpCap + " ms); a wait that ends there is not an error but a result with outcome and wait_ended \"timeout\", the pane's lifecycle and attention now, and next: call again with baseline as after. With a progress token, a progress notification comes every 5 s. A wait never acts on the pane. " +
			"To wait for what a pane prints, use pane_wait_output.",
		params: map[string]string{"timeout_ms": "How long this call waits, in ms; default and maximum " + mcpCap + " in MCP (larger values are lowered to it)."},
		doc: map[string]string{"timeout_ms: default " + waitDef + ", at most " + waitMax + ".": "timeout_ms: in MCP, default and at most the\nserver's cap (" + mcpCap + " unless set otherwise), where the wait ends with\noutcome \"timeout\".",
			"history_lost,\ntimeout.wait, unavailable.journal": "history_lost,\nunavailable.journal"}, ann: reads},
	{name: "pane_send_wait", method: "dev.signaltty.Mux.SendWait", cli: "signaltty pane wait --pane P --send TEXT [--match RE] [--quiet-ms N]",
		hint: "Type input into a pane and wait for what it prints, in one call: the way to answer a prompt, drive a REPL or an installer. " +
			"Pass match (a regular expression tested on each row that changed since just before the input, without trailing spaces, so a prompt's trailing space is gone: \"^>>>$\" is the next Python prompt, \"\\\\?$\" a question), quiet_ms (the pane printed nothing for that long), or both; the process's exit always ends the wait. " +
			"The result has outcome (matched, quiet, exited, timeout), the changed rows only (lines, from row first) and baseline, which pane_wait_output takes as after to wait for more. " +
			"In MCP one call waits at most timeout_ms (default and maximum " + mcpCap + " ms); outcome timeout is a normal result with the rows so far and next: call pane_wait_output with after baseline to go on. With a progress token, a progress notification comes every 5 s.",
		params: map[string]string{"timeout_ms": "How long this call waits, in ms; default and maximum " + mcpCap + " in MCP (larger values are lowered to it)."},
	},
	{name: "pane_wait_output", method: "dev.signaltty.Mux.WaitOutput", cli: "signaltty pane wait --pane P [--match RE] [--quiet-ms N] [--after BASELINE]",
		hint: "Wait for what a pane prints, without typing anything: until a row that changed since after (the baseline of pane_send, pane_send_wait or a previous pane_wait_output; default: the screen now) matches match, or the pane was quiet for quiet_ms, or its process exited. " +
			"Rows are tested and returned without trailing spaces; only changed rows come back. To see everything a new pane printed, pass after {\"epoch\":0,\"row\":0,\"digest\":\"\"}. " +
			"In MCP one call waits at most timeout_ms (default and maximum " + mcpCap + " ms); outcome timeout is a normal result with the rows so far and next. With a progress token, a progress notification comes every 5 s.",
		params: map[string]string{"timeout_ms": "How long this call waits, in ms; default and maximum " + mcpCap + " in MCP (larger values are lowered to it)."},
		doc:    map[string]string{"timeout_ms (default " + waitDef + ", at most\n" + waitMax + ")": "timeout_ms (in MCP at most the\nserver's cap, " + mcpCap + " unless set otherwise, which is also the default)"},
		ann:    reads},
	{name: "notify", method: "dev.signaltty.Mux.Notify", cli: "signaltty notify [--pane P | --workspace W] --title T [--body B] [--severity info|warning|error]",
		hint: "Leave a notification for the human (about a pane: its attention rises with the severity). Use it to ask for a decision or report something they must see; do not spam.", ann: adds},
	{name: "notifications_list", method: "dev.signaltty.Mux.ListNotifications", cli: "signaltty notifications list [--pane P] [--unread]",
		hint: "List the kept notifications (the newest 200), oldest first.", ann: reads},
	{name: "status", method: "dev.signaltty.Server.GetStatus", cli: "signaltty status",
		hint: "The daemon's status. Its source changes with every daemon start: pass it as source to run, run_wait, run_get and run_cancel to detect a daemon restart (run keys are forgotten with it).", ann: reads},
	{name: "whoami", method: "dev.signaltty.Server.WhoAmI", cli: "signaltty whoami",
		hint: "Who the daemon takes you for: your pane's principal (pane:<id>) and its grants, or the owner. A denied.* error means your principal lacks that right; ask the human instead of working around it.", ann: reads},
}
