import { readdirSync, statSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import { countOpenSockets, readRssMegabytes } from "./process-stats";
import { readLoopDelay } from "./request-cost";
import { projectRoot, type RunningServer } from "./server";

/** The bound: memory under clients that never read stays within this of idle, and returns. */
export const MAX_MEMORY_GROWTH_MB = 256;

/** The largest JavaScript file of the app's browser build (`npm run build`), the one attacks ask for. */
export function findLargestChunk() {
  const directory = path.join(projectRoot, "public/build/_shared");
  const [largest] = readdirSync(directory)
    .filter((name) => name.endsWith(".js"))
    .map((name) => ({
      name,
      file: path.join(directory, name),
      size: statSync(path.join(directory, name)).size,
    }))
    .sort((a, b) => b.size - a.size);
  return { ...largest!, url: `/build/_shared/${largest!.name}` };
}

/** An answer as it came on the wire, its body not decoded. */
export async function getRaw(url: string, headers: Record<string, string> = {}, method = "GET") {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http.request(url, { method, headers, agent: false }, resolve).on("error", reject).end(),
  );
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return { status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) };
}

/**
 * Opens `connections` connections that each send `request` (pipelined requests, often) and
 * never read what comes back; `leave` closes them from the client's side.
 */
export function openNonReaders(port: number, connections: number, request: string) {
  const sockets = Array.from({ length: connections }, () => {
    const socket = net.connect(port, "127.0.0.1");
    socket.pause();
    socket.on("error", () => {});
    socket.write(request);
    return socket;
  });
  return { leave: () => sockets.forEach((socket) => socket.destroy()) };
}

/**
 * The server's memory and event loop while `attack` runs for `durationMs` and on until `until`
 * holds, and once the server has let go of every connection after it: its idle RSS first, the
 * highest seen meanwhile (sampled every 50 ms), the figure after, the loop's longest delay and the
 * slowest /healthz sent meanwhile (each on a connection of its own, closed after it), all printed
 * under `name`.
 */
export async function measureUnderAttack(
  server: RunningServer,
  name: string,
  attack: () => { leave: () => void },
  durationMs = 5_000,
  until = () => true,
) {
  const pid = server.child.pid!;
  const idle = readRssMegabytes(pid);
  const idleSockets = countOpenSockets(pid);
  await readLoopDelay(server);
  let peak = idle;
  let slowestHealthz = 0;
  const attacker = attack();
  const started = performance.now();
  while (performance.now() < started + durationMs || !until()) {
    const start = performance.now();
    expect((await getRaw(`${server.url}/healthz`)).status).toBe(200);
    slowestHealthz = Math.max(slowestHealthz, performance.now() - start);
    peak = Math.max(peak, readRssMegabytes(pid));
    await sleep(50);
  }
  const loopDelayMs = (await readLoopDelay(server)).maxMs;
  attacker.leave();
  await expect.poll(() => countOpenSockets(pid)).toBeLessThanOrEqual(idleSockets);
  const after = readRssMegabytes(pid);
  const mb = (value: number) => `${Math.round(value)} MB`;
  console.log(
    `${name}: RSS idle ${mb(idle)}, peak ${mb(peak)} (+${mb(peak - idle)}), once they were gone ${mb(after)}` +
      ` (+${mb(after - idle)}); loop delay at most ${loopDelayMs} ms, slowest /healthz ${Math.round(slowestHealthz)} ms`,
  );
  return { idle, peak, after, loopDelayMs };
}
