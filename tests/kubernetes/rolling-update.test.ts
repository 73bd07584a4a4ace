import http from "node:http";
import { expect, it } from "vitest";
import { expectNoServerErrors, startServer } from "../support/server";
import { getConfigMapData, overlays, renderOverlay } from "./manifests";

// Clients of each kind: on kept-alive connections, and on a new connection for every request.
const CLIENTS = 4;
const PATHS = ["/", "/healthz"];

type Answer = { status: number; connection: string | undefined };

function get(url: string, agent: http.Agent | false) {
  return new Promise<Answer>((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        response.resume();
        response.on("end", () =>
          resolve({ status: response.statusCode!, connection: response.headers.connection }),
        );
      })
      .on("error", reject);
  });
}

it.each(overlays)(
  "with the %s overlay's SHUTDOWN_DELAY_MS, a stopping server loses no request that endpoints still send it, each answer saying Connection: close, then exits 0",
  async (overlay) => {
    const config = getConfigMapData(renderOverlay(overlay));
    const delayMs = Number(config.SHUTDOWN_DELAY_MS);
    const server = await startServer({
      SHUTDOWN_DELAY_MS: config.SHUTDOWN_DELAY_MS,
      SHUTDOWN_TIMEOUT_MS: config.SHUTDOWN_TIMEOUT_MS,
    });
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    try {
      await Promise.all(
        Array.from({ length: CLIENTS }, () => get(`${server.url}/healthz`, keepAlive)),
      );
      server.child.kill("SIGTERM");
      const signalledAt = performance.now();
      // Endpoints let go of the pod within the delay; half of it leaves a slow machine its margin.
      const until = signalledAt + delayMs / 2;
      const answers: (Answer & { keptAlive: boolean })[] = [];
      const failures: string[] = [];
      const readiness: number[] = [];
      const client = async (agent: http.Agent | false) => {
        for (let i = 0; performance.now() < until; i++) {
          try {
            const answer = await get(`${server.url}${PATHS[i % PATHS.length]}`, agent);
            answers.push({ ...answer, keptAlive: !!agent });
          } catch (error) {
            failures.push((error as Error).message);
          }
        }
      };
      const probe = async () => {
        while (performance.now() < until) {
          readiness.push((await get(`${server.url}/readyz`, false)).status);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      await Promise.all([
        ...Array.from({ length: CLIENTS }, () => client(keepAlive)),
        ...Array.from({ length: CLIENTS }, () => client(false)),
        probe(),
      ]);
      const code = await server.exited;
      const exitedAfterMs = performance.now() - signalledAt;
      console.log(
        `${answers.length} requests answered in the ${delayMs / 2} ms after SIGTERM, ${failures.length} lost; exited ${Math.round(exitedAfterMs)} ms after it`,
      );
      expect(failures).toEqual([]);
      // Every client was answered, however few requests a busy machine let it make.
      expect(answers.length).toBeGreaterThanOrEqual(2 * CLIENTS);
      expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
      // Each answer tells its client to reconnect, and so to another pod once endpoints let go.
      expect(answers.filter((answer) => answer.keptAlive).length).toBeGreaterThan(0);
      expect(answers.filter((answer) => answer.connection !== "close")).toEqual([]);
      // Not ready from the moment it handles the signal to the end.
      expect(readiness.at(-1)).toBe(503);
      expect(readiness.slice(readiness.indexOf(503))).not.toContain(200);
      expect(code).toBe(0);
      expect(exitedAfterMs).toBeGreaterThanOrEqual(delayMs);
      expect(server.output()).toContain("shutting down: not ready, still serving");
      expectNoServerErrors(server, [503]);
    } finally {
      keepAlive.destroy();
      await server.stop("SIGKILL");
    }
  },
);
