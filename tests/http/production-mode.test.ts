import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { startSuiteServer, type RunningServer } from "../support/server";

// `node build/server.js` with no NODE_ENV is production: the server sets it before anything that
// reads it loads. React's development build renders pages several times slower.
const loadedModulesScript = pathToFileURL(
  path.join(import.meta.dirname, "../support/loaded-modules.js"),
).href;

function readLoadedModules(server: RunningServer) {
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

describe("a server started without NODE_ENV", () => {
  const server = startSuiteServer({ NODE_ENV: undefined, NODE_OPTIONS: `--import ${loadedModulesScript}` });

  it("renders with React's production build", async () => {
    expect((await fetch(server.url)).status).toBe(200);
    const reactFiles = (await readLoadedModules(server)).filter((file) => file.includes("/react-dom/"));
    expect(reactFiles).toContainEqual(expect.stringMatching(/react-dom-server\.node\.production/));
    expect(reactFiles.filter((file) => file.includes("development"))).toEqual([]);
  });
});
