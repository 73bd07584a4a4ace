import path from "node:path";
import { pathToFileURL } from "node:url";
import { askServer, type RunningServer } from "./server";

/** NODE_OPTIONS for a server a test will ask which CommonJS files it has loaded. */
export const loadedModulesOptions = `--import ${pathToFileURL(path.join(import.meta.dirname, "loaded-modules.js")).href}`;

/** The CommonJS files a server started with `loadedModulesOptions` has loaded so far. */
export async function readLoadedModules(server: RunningServer) {
  return (await askServer<{ files: string[] }>(server, "loaded-modules")).files;
}
