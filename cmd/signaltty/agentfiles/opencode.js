// signaltty: tells signaltty what opencode does in this pane (written by
// `signaltty agent setup opencode`; see signaltty's docs/agents.md). Each
// session.* and permission.* event runs `signaltty hook opencode <type>`
// with the event's properties as JSON on stdin, one at a time and in order.
import { spawn } from "node:child_process";

const COMMAND = __SIGNALTTY_COMMAND__;
const EVENTS = new Set(["session.created", "session.status", "session.idle", "session.error", "permission.asked", "permission.replied"]);

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

export const SignalttyPlugin = async () => ({
  event: async ({ event }) => {
    if (!process.env.SIGNALTTY_PANE || !event || !EVENTS.has(event.type)) return;
    const props = event.properties || {};
    const info = props.info || {};
    if (event.type === "session.created" && info.parentID) {
      children.add(info.id);
      return;
    }
    const sessionID = props.sessionID || info.id;
    if (children.has(sessionID)) return;
    queue = queue.then(() => hook(event.type, { ...props, sessionID }));
    await queue;
  },
});
