// signaltty: tells signaltty what pi does in this pane (written by
// `signaltty agent setup pi`; see signaltty's docs/agents.md). Each event
// runs `signaltty hook pi <event>` with JSON on stdin, one at a time and in
// order, with the model pi talks to. The session id is passed only once pi
// has written the session file (after the first message): before that
// there is nothing to resume.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

const COMMAND = __SIGNALTTY_COMMAND__;

function hook(event, payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(COMMAND, ["hook", "pi", event], { stdio: ["pipe", "ignore", "ignore"] });
    } catch {
      resolve();
      return;
    }
    child.on("error", () => resolve());
    child.on("close", () => resolve());
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export default function (pi) {
  let queue = Promise.resolve();
  const report = (event, ctx, payload) => {
    if (!process.env.SIGNALTTY_PANE) return Promise.resolve();
    const sm = ctx && ctx.sessionManager;
    const file = sm && sm.getSessionFile();
    if (file && existsSync(file)) {
      payload.session_id = sm.getSessionId();
      payload.session_file = file;
    }
    // ctx.model is the model pi talks to (docs/extensions.md of pi,
    // "ctx.modelRegistry / ctx.model"): the pane's agent.model.
    const model = ctx && ctx.model;
    if (model && typeof model.id === "string") payload.model = model.id;
    queue = queue.then(() => hook(event, payload));
    return queue;
  };
  pi.on("session_start", async (event, ctx) => report("session_start", ctx, { reason: event && event.reason }));
  pi.on("agent_start", async (_event, ctx) => report("agent_start", ctx, {}));
  // agent_end carries the prompt's messages; the last assistant one's
  // stopReason is "error" when a model call failed (pi's
  // docs/session-format.md, AssistantMessage).
  pi.on("agent_end", async (event, ctx) => {
    const msgs = (event && Array.isArray(event.messages)) ? event.messages : [];
    const last = msgs.filter((m) => m && m.role === "assistant").pop();
    return report("agent_end", ctx, last ? { stop_reason: last.stopReason, error_message: last.errorMessage } : {});
  });
  pi.on("session_shutdown", async (_event, ctx) => report("session_shutdown", ctx, {}));
}
