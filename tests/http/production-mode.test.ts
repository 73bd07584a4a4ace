import { describe, expect, it } from "vitest";
import { loadedModulesOptions, readLoadedModules } from "../support/read-loaded-modules";
import { startSuiteServer } from "../support/server";

// `node build/server.js` with no NODE_ENV is production: the server sets it before anything that
// reads it loads. React's development build renders pages several times slower.
describe("a server started without NODE_ENV", () => {
  const server = startSuiteServer({ NODE_ENV: undefined, NODE_OPTIONS: loadedModulesOptions });

  it("renders with React's production build", async () => {
    expect((await fetch(server.url)).status).toBe(200);
    const reactFiles = (await readLoadedModules(server)).filter((file) => file.includes("/react-dom/"));
    expect(reactFiles).toContainEqual(expect.stringMatching(/react-dom-server\.node\.production/));
    expect(reactFiles.filter((file) => file.includes("development"))).toEqual([]);
  });
});
