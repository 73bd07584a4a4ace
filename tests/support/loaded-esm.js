// Loaded into a server under test (NODE_OPTIONS="--import …/loaded-esm.js") so a test can ask,
// over IPC, which ES modules the server has loaded (loaded-modules.js sees CommonJS only).
import { register } from "node:module";
import process from "node:process";
import { MessageChannel } from "node:worker_threads";

const loaded = new Set();
const { port1, port2 } = new MessageChannel();
port1.on("message", (url) => loaded.add(url));
port1.unref();

const hooks = `
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, nextLoad) { port.postMessage(url); return nextLoad(url, context); }
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, {
  data: { port: port2 },
  transferList: [port2],
});

process.on("message", (message) => {
  if (message?.type !== "loaded-esm") return;
  process.send?.({ type: "loaded-esm", files: [...loaded] });
});
