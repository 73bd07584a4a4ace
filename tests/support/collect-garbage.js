// Loaded into a server under test (NODE_OPTIONS="--expose-gc --import …/collect-garbage.js"): a
// full garbage collection every 100 ms, a tenth of the deadlines peer-deadlines.test.ts holds, so
// that whatever only a weak reference keeps goes long before its deadline would have.
import { setInterval } from "node:timers";

setInterval(() => globalThis.gc(), 100).unref();
