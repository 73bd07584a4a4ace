import { createServer, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Config } from "~/lib/config.server";
import type { AppEntry } from "../app";
import { drainWhenAnswered } from "../edge/body";
import { createNodeRefusals } from "./client-errors";

type Logger = AppEntry["logger"];

// Node's default; one header more is kept, so that the edge can tell a request with more.
export const MAX_HEADER_COUNT = 2_000;
// Browsers do not pipeline; a few requests ahead are tolerated for tools that do.
const MAX_PIPELINED = 16;

// A scraper is no proxy to outlast: the metrics port keeps an idle connection as Node would.
const METRICS_KEEP_ALIVE_TIMEOUT_MS = 5_000;

function createHttpServer(config: Config, logger: Logger, listener: RequestListener) {
  const handle: RequestListener = (req, res) => {
    drainWhenAnswered(req, res);
    listener(req, res);
  };
  const server = createServer(
    {
      headersTimeout: Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS),
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      // Node checks the two timeouts above only this often (30 s by default).
      connectionsCheckingInterval: Math.min(1_000, config.HEADERS_TIMEOUT_MS),
      // The edge refuses a missing Host itself, with the error page and security headers.
      requireHostHeader: false,
    },
    handle,
  );
  server.on("checkContinue", handle).on("checkExpectation", handle);
  server.keepAliveTimeout = config.KEEP_ALIVE_TIMEOUT_MS;
  server.maxHeadersCount = MAX_HEADER_COUNT + 1;
  closeStalledConnections(server, config.SEND_TIMEOUT_MS, logger);
  return server;
}

/**
 * Both ports' servers; the app's requests in flight, one at a time per connection, and each told
 * `Connection: close` once the process is stopping.
 */
export function createConnections(config: Config, logger: Logger) {
  // Per connection, the requests unanswered, the one being answered first.
  const queues = new WeakMap<Socket, (() => void)[]>();
  const inFlight = new Set<ServerResponse>();
  const refusals = createNodeRefusals(config, logger);
  let stopping = false;
  let draining: Server | undefined;

  function createAppServer(app: RequestListener) {
    const serve: RequestListener = (req, res) => {
      const socket = req.socket;
      if (socket.destroyed) return;
      let queue = queues.get(socket);
      if (!queue) queues.set(socket, (queue = []));
      if (queue.length >= MAX_PIPELINED) {
        logger.info({ limit: MAX_PIPELINED }, "closed a connection pipelining too many requests");
        return void socket.destroy();
      }
      queue.push(() => socket.destroyed || app(req, res));
      inFlight.add(res);
      if (stopping) res.setHeader("Connection", "close");
      res.once("close", () => {
        inFlight.delete(res);
        queue.shift();
        queue[0]?.();
        // Once Node has settled the connection (a turn later), it is idle if nothing else came.
        if (draining) setImmediate(() => draining!.closeIdleConnections());
      });
      if (queue.length === 1) app(req, res);
    };
    return createHttpServer(config, logger, serve)
      .on("clientError", refusals.onClientError)
      .on("connect", refusals.onConnect);
  }

  // From the signal on, every answer tells its client to go elsewhere (RFC 9112 9.6).
  function stopKeepingAlive() {
    stopping = true;
    for (const res of inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
  }

  function drain(server: Server) {
    stopKeepingAlive();
    draining = server;
    server.closeIdleConnections();
  }

  // A crash names the requests in flight: any of them may have caused it, and all are lost with it.
  function describeInFlight() {
    const ids = [
      ...new Set([...inFlight].map((res) => res.getHeader("X-Request-Id")).filter(Boolean)),
    ];
    return ids.length === 1 ? { requestId: ids[0] } : { inFlightRequestIds: ids };
  }

  return {
    createAppServer,
    createMetricsServer: (handle: RequestListener) => {
      const keepAlive = Math.min(config.KEEP_ALIVE_TIMEOUT_MS, METRICS_KEEP_ALIVE_TIMEOUT_MS);
      return createHttpServer({ ...config, KEEP_ALIVE_TIMEOUT_MS: keepAlive }, logger, handle);
    },
    stopKeepingAlive,
    drain,
    describeInFlight,
    countInFlight: () => inFlight.size,
  };
}

// Node's timeouts cover a request arriving, not its answer leaving, nor a connection left open
// while the server drains.
function closeStalledConnections(server: Server, timeoutMs: number, logger: Logger) {
  const sockets = new Map<Socket, { sent: number; since: number } | null>();
  server.on("connection", (socket: Socket) => {
    sockets.set(socket, null);
    socket.once("close", () => sockets.delete(socket));
  });
  const check = () => {
    const now = performance.now();
    for (const [socket, progress] of sockets) {
      // Once closed, Node times out no headers: a connection that never sent a byte (a browser's
      // preconnect) would hold the drain until its deadline.
      if (!server.listening && socket.bytesRead === 0) {
        socket.destroy();
        continue;
      }
      if (socket.writableLength === 0) {
        if (progress) sockets.set(socket, null);
        continue;
      }
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
