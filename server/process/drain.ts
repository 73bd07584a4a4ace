import type { Server, ServerResponse } from "node:http";
import type { RequestHandler } from "express";

export type Drain = ReturnType<typeof createDrain>;

/**
 * Graceful shutdown, in two steps. `withdraw` only makes `/readyz` answer 503 (`readiness`), so
 * that a balancer probing it stops sending requests while every request is still served as
 * before. `start` drains: from then on every response says `Connection: close` (those already
 * under way too, unless their headers are out), and a connection closes as soon as its last
 * response is sent: the process can exit with the last answer instead of waiting for keep-alive
 * connections to time out.
 */
export function createDrain() {
  const inFlight = new Set<ServerResponse>();
  let server: Server | undefined;
  let withdrawn = false;

  const track: RequestHandler = (_req, res, next) => {
    if (server) res.setHeader("Connection", "close");
    inFlight.add(res);
    res.once("close", () => {
      inFlight.delete(res);
      // After Node has settled the connection (one turn later), it is idle if nothing else came.
      if (server) setImmediate(() => server!.closeIdleConnections());
    });
    next();
  };

  const readiness: RequestHandler = (_req, res, next) => {
    if (!withdrawn) return next();
    res.set("Cache-Control", "no-store").status(503).json({ status: "unavailable", reason: "shutting down" });
  };

  function withdraw() {
    withdrawn = true;
  }

  function start(draining: Server) {
    server = draining;
    for (const res of inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
    server.closeIdleConnections();
  }

  return { track, readiness, withdraw, start };
}
