// signaltty: tells signaltty what opencode does in this pane (written by
// `signaltty agent setup opencode`; see signaltty's docs/agents.md). Each
// session.* and permission.* event runs `signaltty hook opencode <type>`
// with the event's properties as JSON on stdin, one at a time and in order;
// an assistant message.updated runs it with {sessionID, model} when the
// session's model changes.
import { spawn } from "node:child_process";

const COMMAND = __SIGNALTTY_COMMAND__;
const EVENTS = new Set(["session.created", "session.status", "session.idle", "session.error", "permission.asked", "permission.replied", "message.updated"]);

function hook(type, payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(COMMAND, ["hook", "opencode", type], { stdio: ["pipe", "ignore", "ignore"] });
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

let queue = Promise.resolve();
const children = new Set(); // sessions of subagents: not the pane's session
const models = new Map(); // the model last passed on, by session

export const SignalttyPlugin = async () => ({
  event: async ({ event }) => {
    if (!process.env.SIGNALTTY_PANE || !event || !EVENTS.has(event.type)) return;
    const props = event.properties || {};
    const info = props.info || {};
    if (event.type === "session.created" && info.parentID) {
      children.add(info.id);
      return;
    }
    let sessionID = props.sessionID || info.id;
    let payload = { ...props, sessionID };
    if (event.type === "message.updated") {
      // An assistant message names the model that answers: only its
      // changes are passed on, never the message itself.
      sessionID = info.sessionID;
      if (info.role !== "assistant" || !info.modelID || models.get(sessionID) === info.modelID) return;
      models.set(sessionID, info.modelID);
      payload = { sessionID, model: info.modelID };
    }
    if (children.has(sessionID)) return;
    queue = queue.then(() => hook(event.type, payload));
    await queue;
  },
});
