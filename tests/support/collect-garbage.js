// Loaded into a server under test (NODE_OPTIONS="--expose-gc --import …/collect-garbage.js"): a
// full garbage collection every 20 ms, so that whatever only a weak reference keeps goes at once.
import { setInterval } from "node:timers";

setInterval(() => globalThis.gc(), 20).unref();
