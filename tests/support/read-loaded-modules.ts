import path from "node:path";
import { pathToFileURL } from "node:url";
import type { RunningServer } from "./server";

/** NODE_OPTIONS for a server a test will ask which CommonJS files it has loaded. */
export const loadedModulesOptions = `--import ${pathToFileURL(path.join(import.meta.dirname, "loaded-modules.js")).href}`;

/** The CommonJS files a server started with `loadedModulesOptions` has loaded so far. */
export function readLoadedModules(server: RunningServer) {
  return new Promise<string[]>((resolve) => {
    const onMessage = (message: { type?: string; files: string[] }) => {
      if (message.type !== "loaded-modules") return;
      server.child.off("message", onMessage);
      resolve(message.files);
    };
    server.child.on("message", onMessage);
    server.child.send({ type: "loaded-modules" });
  });
}
