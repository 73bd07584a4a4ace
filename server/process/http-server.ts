import { createServer, type RequestListener } from "node:http";
import type { Config } from "~/lib/config.server";

/**
 * Node's HTTP server with the timeouts every port of this process keeps (the app's and the
 * metrics'): idle, half-sent and slow connections are closed alike on either.
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
  return server;
}
