import http, { type ClientRequest, type IncomingMessage } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { TLSSocket } from "node:tls";
import type { startChildSpan } from "~/lib/trace-context.server";
import { UpstreamError } from "./upstream-error.server";

export type Exchange = {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** The call's span in the request's trace, sent as `traceparent`. */
  trace?: ReturnType<typeof startChildSpan>;
};

const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

// Far more than an API's answer needs; a flood of headers stops in Node's parser at this size.
const MAX_HEADER_BYTES = 16 * 1024;

// The connection was never made, so the API cannot have seen the request.
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
]);

// The connection went away; when not one byte of an answer had come, the API may be restarting.
const CONNECTION_LOST = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "ETIMEDOUT"]);

const CANCELLED = new Error("request cancelled");

/**
 * Sends one request with `node:http` and resolves with the answer once its headers are in.
 * Unlike `fetch`, it takes an interim `100 Continue` before the answer, as HTTP allows, and says
 * how far a failed request got. It rejects with an UpstreamError: UPSTREAM_UNAVAILABLE when no
 * connection was made (`sent: false`) or it was lost before any answer byte, and
 * UPSTREAM_BAD_RESPONSE for anything that breaks HTTP. An aborted `signal` rejects with its reason.
 */
export function sendRequest({ url, method, headers, body }: Exchange, signal: AbortSignal) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const client = url.protocol === "https:" ? https : http;
    const agent = url.protocol === "https:" ? agents["https:"] : agents["http:"];
    const request = client.request(url, { method, headers, agent, maxHeaderSize: MAX_HEADER_BYTES });
    const answerStart = countBytesFromConnection(request);
    let response: IncomingMessage | undefined;
    let failed = false;
    const fail = (error: unknown) => {
      failed = true;
      reject(error);
    };
    // Rather than `signal` as an option, whose abort makes an AbortError with a stack each time.
    const cancel = () => {
      if (!response) request.destroy(CANCELLED);
      else if (!response.complete) response.destroy(CANCELLED);
    };
    signal.addEventListener("abort", cancel, { once: true });
    request.once("response", (answer) => resolve((response = answer)));
    request.once("upgrade", (_response, socket) => {
      socket.destroy();
      fail(new UpstreamError("UPSTREAM_BAD_RESPONSE", "upstream switched protocols"));
    });
    // `on`, not `once`: a request can report more than one error, and one unheard would crash.
    request.on("error", (error: Error & { code?: string }) => {
      if (signal.aborted) return fail(signal.reason);
      fail(classify(error, (request.socket?.bytesRead ?? 0) > answerStart.bytes));
    });
    request.once("close", () => {
      signal.removeEventListener("abort", cancel);
      if (!response && !failed) fail(new UpstreamError("UPSTREAM_BAD_RESPONSE", "closed without an answer"));
    });
    request.end(body);
  });
}

/**
 * Where this request's answer starts in its socket's byte count: a reused socket has already
 * read earlier answers, and a TLS socket its handshake.
 */
function countBytesFromConnection(request: ClientRequest) {
  const start = { bytes: Infinity };
  request.once("socket", (socket: Socket) => {
    if (!socket.connecting) return void (start.bytes = socket.bytesRead);
    const connected = socket instanceof TLSSocket ? "secureConnect" : "connect";
    start.bytes = 0;
    socket.once(connected, () => (start.bytes = socket.bytesRead));
  });
  return start;
}

function classify(error: Error & { code?: string }, answerStarted: boolean) {
  const code = error.code ?? error.name;
  if (NOT_CONNECTED.has(code))
    return new UpstreamError("UPSTREAM_UNAVAILABLE", `no connection: ${code}`, { sent: false });
  if (CONNECTION_LOST.has(code) && !answerStarted) {
    return new UpstreamError("UPSTREAM_UNAVAILABLE", `connection lost before an answer: ${code}`);
  }
  return new UpstreamError("UPSTREAM_BAD_RESPONSE", `broken answer: ${code} ${error.message}`);
}
