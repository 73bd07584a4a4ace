import { createServer, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Config } from "~/lib/config.server";
import { logger } from "~/lib/logger.server";

// Node's default count; the server keeps one header more, so that the edge can tell a request that has more.
export const MAX_HEADER_COUNT = 2_000;
// Browsers do not pipeline; a few requests ahead are tolerated for tools that do.
const MAX_PIPELINED = 16;

/** Node's HTTP server with the timeouts every port of this process keeps (the app's and the metrics'). */
export function createHttpServer(config: Config, listener: RequestListener) {
  const server = createServer(
    {
      headersTimeout: Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS),
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      // Node checks the two timeouts above only this often (30 s by default).
      connectionsCheckingInterval: Math.min(1_000, config.HEADERS_TIMEOUT_MS),
      // The edge refuses a missing Host itself, with the error page and security headers.
      requireHostHeader: false,
    },
    listener,
  );
  server.keepAliveTimeout = config.KEEP_ALIVE_TIMEOUT_MS;
  server.maxHeadersCount = MAX_HEADER_COUNT + 1;
  closeStalledConnections(server, config.SEND_TIMEOUT_MS);
  return server;
}

type Connection = { unanswered: number; waiting: (() => void)[] };

/**
 * `serveInTurn` hands the app a connection's requests one at a time: Node hands over every request
 * one read holds at once, so a connection with more than MAX_PIPELINED unanswered is closed, and a
 * client that does not read holds one answer in memory. `drain` answers from then on, and what is
 * in flight, with `Connection: close`, and closes each connection once its last answer is sent.
 */
export function createConnections() {
  const connections = new WeakMap<Socket, Connection>();
  const inFlight = new Set<ServerResponse>();
  let draining: Server | undefined;

  const serveInTurn =
    (listener: RequestListener): RequestListener =>
    (req, res) => {
      const socket = req.socket;
      if (socket.destroyed) return;
      let connection = connections.get(socket);
      if (!connection) connections.set(socket, (connection = { unanswered: 0, waiting: [] }));
      if (connection.unanswered >= MAX_PIPELINED) {
        logger.info({ limit: MAX_PIPELINED }, "closed a connection pipelining too many requests");
        return void socket.destroy();
      }
      connection.unanswered += 1;
      inFlight.add(res);
      if (draining) res.setHeader("Connection", "close");
      res.once("close", () => {
        inFlight.delete(res);
        connection.unanswered -= 1;
        connection.waiting.shift()?.();
        // After Node has settled the connection (one turn later), it is idle if nothing else came.
        if (draining) setImmediate(() => draining!.closeIdleConnections());
      });
      if (connection.unanswered === 1) return listener(req, res);
      connection.waiting.push(() => socket.destroyed || listener(req, res));
    };

  function drain(server: Server) {
    draining = server;
    for (const res of inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
    server.closeIdleConnections();
  }

  /** The ids of the requests being answered: any of them may have caused a crash, and all are lost with it. */
  function describeInFlight() {
    const ids = [...new Set([...inFlight].map((res) => res.getHeader("X-Request-Id")).filter(Boolean))];
    return ids.length === 1 ? { requestId: ids[0] } : { inFlightRequestIds: ids };
  }

  return { serveInTurn, drain, describeInFlight, countInFlight: () => inFlight.size };
}

/** A connection with an answer waiting whose client has taken none of it for `timeoutMs` is closed. */
function closeStalledConnections(server: Server, timeoutMs: number) {
  const sockets = new Map<Socket, { sent: number; since: number } | null>();
  server.on("connection", (socket: Socket) => {
    sockets.set(socket, null);
    socket.once("close", () => sockets.delete(socket));
  });
  const check = () => {
    const now = performance.now();
    for (const [socket, progress] of sockets) {
      if (socket.writableLength === 0) {
        if (progress) sockets.set(socket, null);
        continue;
      }
      // Bytes whose write has completed: it grows whenever the client takes some of the answer.
      const sent = socket.bytesWritten - socket.writableLength;
      if (progress?.sent !== sent) sockets.set(socket, { sent, since: now });
      else if (now - progress.since >= timeoutMs) {
        logger.info({ timeoutMs }, "closed a connection whose client stopped reading its answer");
        socket.destroy();
      }
    }
  };
  const timer = setInterval(check, Math.min(1_000, timeoutMs / 2)).unref();
  server.once("close", () => clearInterval(timer));
}
