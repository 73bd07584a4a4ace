import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type ReceivedRequest = {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
};

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

/** Writes whatever bytes it likes on the connection of a request the API has read whole. */
type RawHandler = (socket: Socket, received: ReceivedRequest) => void;

/** Acts on a new connection before any byte of a request is read. */
type ConnectionHandler = (socket: Socket) => void;

export type Upstream = {
  url: string;
  port: number;
  /** Every request received since the last `handle*`, in order. */
  received: ReceivedRequest[];
  /** Sets how the next requests are answered, and forgets those received so far. */
  handle: (handler: Handler) => void;
  /** Answers the next requests with raw bytes on their sockets, bypassing `node:http`'s answer. */
  handleRaw: (handler: RawHandler) => void;
  /**
   * Handles each new connection before reading anything (idle keep-alive connections are closed
   * first, so the next request comes on a new one). `handle` or `handleRaw` ends it.
   */
  handleConnections: (handler: ConnectionHandler) => void;
  /** Resolves when a request's connection closes before its answer was finished. */
  nextAbort: () => Promise<void>;
  close: () => Promise<void>;
};

/** A scripted API on 127.0.0.1: each test case says how it answers and reads what it received. */
export async function startUpstream(): Promise<Upstream> {
  let handler: Handler = (_req, res) => res.writeHead(500).end();
  let rawHandler: RawHandler | undefined;
  let connectionHandler: ConnectionHandler | undefined;
  let received: ReceivedRequest[] = [];
  let abortWaiters: (() => void)[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const request = { method: req.method!, url: req.url!, headers: req.headers, body };
    received.push(request);
    res.on("close", () => {
      if (res.writableFinished) return;
      abortWaiters.forEach((resolve) => resolve());
      abortWaiters = [];
    });
    if (rawHandler) rawHandler(req.socket, request);
    else handler(req, res, body);
  });
  server.on("connection", (socket: Socket) => {
    socket.on("error", () => {});
    connectionHandler?.(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const reset = (setHandler: () => void) => {
    received = [];
    rawHandler = undefined;
    connectionHandler = undefined;
    setHandler();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get received() {
      return received;
    },
    handle: (next) => reset(() => (handler = next)),
    handleRaw: (next) => reset(() => (rawHandler = next)),
    handleConnections: (next) => {
      reset(() => (connectionHandler = next));
      server.closeIdleConnections();
    },
    nextAbort: () => new Promise((resolve) => abortWaiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers with a JSON body and status, and any further headers. */
export function sendJson(
  res: http.ServerResponse,
  status: number,
  value: unknown,
  headers: http.OutgoingHttpHeaders = {},
) {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** Writes `bytes` as they are (they may break HTTP), then closes the connection. */
export function answerRaw(...bytes: (string | Buffer)[]) {
  return (socket: Socket) => {
    for (const part of bytes) socket.write(part);
    socket.end();
  };
}

/** A loopback port with nothing listening on it, for "connection refused". */
export async function getClosedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
