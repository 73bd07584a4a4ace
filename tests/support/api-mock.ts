import path from "node:path";
import { buildReferenceApp } from "./reference-app";
import { getLogLines, projectRoot, reservePort, startServer, type RunningServer } from "./server";

export type MockedServer = RunningServer & { mockUrl: string };

/**
 * The reference app served as `npm run dev` serves an app (server/dev.ts): the API mock answering
 * for the API from the feature's contract, and sign-in through its own provider at ORIGIN. Its
 * logs are JSON lines (NODE_ENV=test), for the harness to read.
 */
export async function startMockedServer(env: Record<string, string> = {}): Promise<MockedServer> {
  const listener = await reservePort();
  // server/ resolves `~/` in the app's own app/, as in `npm run dev`.
  const tsconfig = path.join(projectRoot, "tsconfig.json");
  const args = ["--import", "tsx", path.join(projectRoot, "server/dev.ts")];
  const server = await startServer(
    { NODE_ENV: "test", ORIGIN: listener.url, TSX_TSCONFIG_PATH: tsconfig, ...env },
    { cwd: await buildReferenceApp(), listener, args },
  );
  const [line] = getLogLines(server, "API mock answering on");
  return { ...server, mockUrl: (JSON.parse(line!) as { url: string }).url };
}
