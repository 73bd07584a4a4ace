import net from "node:net";
import { HANG_TIMEOUT_MS } from "./hang";

export type RawResponse = {
  status: number;
  headers: Record<string, string>;
  body: string;
  raw: string;
};

/**
 * Sends bytes exactly as given over a fresh TCP connection and parses the answer, for requests
 * that `fetch` would refuse to send or would normalise.
 */
export function sendRaw(
  port: number,
  request: string | Buffer,
  timeoutMs = HANG_TIMEOUT_MS,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("no complete answer in time"));
    }, timeoutMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks).toString("latin1")));
    });
    socket.write(request);
  });
}

export function parseResponse(raw: string): RawResponse {
  const headerEnd = raw.indexOf("\r\n\r\n");
  const head = headerEnd === -1 ? raw : raw.slice(0, headerEnd);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status: Number(statusLine.split(" ")[1] ?? 0),
    headers,
    body: headerEnd === -1 ? "" : raw.slice(headerEnd + 4),
    raw,
  };
}
