import { createServer, type RequestListener } from "node:http";
import type { Config } from "~/lib/config.server";
import { MAX_HEADER_COUNT } from "../edge/header-checks";
import { closeStalledConnections } from "./stalled-connections";

/**
 * Node's HTTP server with the timeouts every port of this process keeps (the app's and the
 * metrics'): idle, half-sent, slow and stalled connections are closed alike on either.
 */
export function createHttpServer(config: Config, listener?: RequestListener) {
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
  // One header over the limit is kept, so that the edge can tell a request that has too many.
  server.maxHeadersCount = MAX_HEADER_COUNT + 1;
  closeStalledConnections(server, config.SEND_TIMEOUT_MS);
  return server;
}
