import { afterAll, beforeAll, expect } from "vitest";
import { startServer, type RunningServer } from "../support/server";

/** The status of every request the server has logged so far. */
export function getLoggedStatuses(server: RunningServer) {
  return server
    .output()
    .split("\n")
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => (JSON.parse(line) as { status: number }).status);
}

/** No answer so far was a 5xx, and nothing was logged as an error. */
export function expectNoServerErrors(server: RunningServer) {
  expect(getLoggedStatuses(server).filter((status) => status >= 500)).toEqual([]);
  expect(server.output()).not.toMatch(/"level":(50|60)/);
}

/**
 * A built server for the enclosing `describe` (filled in before its tests run), checked for
 * 5xx answers and stopped after them.
 */
export function startSuiteServer(env: Record<string, string> = {}) {
  const server = {} as RunningServer;
  beforeAll(async () => {
    Object.assign(server, await startServer(env));
  });
  afterAll(async () => {
    expectNoServerErrors(server);
    await server.stop();
  });
  return server;
}
