import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { buildReferenceApp } from "./reference-app";
import {
  expectNoServerErrors,
  getLogLines,
  projectRoot,
  reservePort,
  startServer,
  type RunningServer,
} from "./server";

export type MockedServer = RunningServer & { mockUrl: string };

/**
 * An app served as `npm run dev` serves it (server/dev.ts), the reference app unless `cwd` says
 * another build: the API mock answering for the API from the app's contracts, and sign-in through
 * its own provider at ORIGIN. Its logs are JSON lines (NODE_ENV=test), for the harness to read.
 */
export async function startMockedServer(
  env: Record<string, string> = {},
  cwd?: string,
): Promise<MockedServer> {
  const listener = await reservePort();
  // server/ resolves `~/` in the app's own app/, as in `npm run dev`.
  const tsconfig = path.join(projectRoot, "tsconfig.json");
  const args = ["--import", "tsx", path.join(projectRoot, "server/dev.ts")];
  const server = await startServer(
    { NODE_ENV: "test", ORIGIN: listener.url, TSX_TSCONFIG_PATH: tsconfig, ...env },
    { cwd: cwd ?? (await buildReferenceApp()), listener, args },
  );
  const [line] = getLogLines(server, "API mock answering on");
  return { ...server, mockUrl: (JSON.parse(line!) as { url: string }).url };
}

type MockedSuiteOptions = { cwd?: string; expectedStatuses?: number[]; said?: string[] };

/**
 * `startMockedServer` for the enclosing `describe`, checked after its tests for 5xx answers other
 * than `expectedStatuses`, and for lines at error level other than those containing one of `said`.
 */
export function startSuiteMockedServer(
  env: Record<string, string> = {},
  { cwd, expectedStatuses = [], said = [] }: MockedSuiteOptions = {},
) {
  const server = {} as MockedServer;
  beforeAll(async () => void Object.assign(server, await startMockedServer(env, cwd)));
  afterAll(async () => {
    try {
      const lines = server.output().split("\n");
      const output = lines.filter((line) => !said.some((text) => line.includes(text))).join("\n");
      expectNoServerErrors({ ...server, output: () => output }, expectedStatuses);
    } finally {
      await server.stop?.();
    }
  });
  return server;
}
