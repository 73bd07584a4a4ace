import type { Server, ServerResponse } from "node:http";
import type { RequestHandler } from "express";

/**
 * Graceful shutdown. Once `start` is called every response says `Connection: close` (those
 * already under way too, unless their headers are out), and a connection closes as soon as its
 * last response is sent: the process can exit with the last answer instead of waiting for
 * keep-alive connections to time out.
 */
export function createDrain() {
  const inFlight = new Set<ServerResponse>();
  let server: Server | undefined;

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

  function start(draining: Server) {
    server = draining;
    for (const res of inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
    server.closeIdleConnections();
  }

  return { track, start };
}
