import http from "node:http";
import type { AddressInfo } from "node:net";

export type ReceivedRequest = {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
};

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export type Upstream = {
  url: string;
  port: number;
  /** Every request received since the last `handle`, in order. */
  received: ReceivedRequest[];
  /** Sets how the next requests are answered, and forgets those received so far. */
  handle: (handler: Handler) => void;
  /** Resolves when a request's connection closes before its answer was finished. */
  nextAbort: () => Promise<void>;
  close: () => Promise<void>;
};

/** A scripted API on 127.0.0.1: each test case says how it answers and reads what it received. */
export async function startUpstream(): Promise<Upstream> {
  let handler: Handler = (_req, res) => res.writeHead(500).end();
  let received: ReceivedRequest[] = [];
  let abortWaiters: (() => void)[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    res.on("close", () => {
      if (res.writableFinished) return;
      abortWaiters.forEach((resolve) => resolve());
      abortWaiters = [];
    });
    handler(req, res, body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get received() {
      return received;
    },
    handle: (next) => {
      handler = next;
      received = [];
    },
    nextAbort: () => new Promise((resolve) => abortWaiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers with a JSON body and status. */
export function sendJson(res: http.ServerResponse, status: number, value: unknown) {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** A loopback port with nothing listening on it, for "connection refused". */
export async function getClosedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
