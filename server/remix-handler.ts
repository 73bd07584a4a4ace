import type {
  RequestHandler as ExpressHandler,
  Request as ExpressRequest,
  Response as ExpressResponse,
} from "express";
import { createRequestHandler, type AppLoadContext, type ServerBuild } from "@remix-run/node";
import { HttpError } from "./http-error";

type Options = {
  build: ServerBuild;
  mode: string;
  bodyLimitBytes: number;
  /** The scheme and host the app answers for, which Remix sees as the request's own. */
  getOrigin: (req: ExpressRequest) => string;
  getLoadContext?: (req: ExpressRequest, res: ExpressResponse) => AppLoadContext;
};

/**
 * Hands an Express request to Remix and writes Remix's answer back. The server owns this
 * conversion (rather than @remix-run/express) so the edge decides what reaches Remix.
 */
export function createRemixHandler({
  build,
  mode,
  bodyLimitBytes,
  getOrigin,
  getLoadContext,
}: Options): ExpressHandler {
  const handleRequest = createRequestHandler(build, mode);
  return async (req, res, next) => {
    try {
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const body = hasBody ? await readBody(req, bodyLimitBytes) : undefined;
      const request = createFetchRequest(req, res, getOrigin(req), body);
      const response = await handleRequest(request, getLoadContext?.(req, res));
      await sendFetchResponse(res, response);
    } catch (error) {
      next(error);
    }
  };
}

/**
 * Reads the whole body, refusing it with 413 at the byte that crosses the limit (the edge has
 * already refused a declared Content-Length over it). The rest of a refused body is left
 * flowing, so the error page can be sent before the connection goes.
 */
function readBody(req: ExpressRequest, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off("data", onData).off("end", onEnd);
      chunks.length = 0;
      reject(new HttpError("PAYLOAD_TOO_LARGE"));
    };
    const onEnd = () => {
      const body = Buffer.concat(chunks);
      resolve(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
    };
    req.on("data", onData).on("end", onEnd).once("error", reject);
  });
}

function createFetchRequest(
  req: ExpressRequest,
  res: ExpressResponse,
  origin: string,
  body: Uint8Array<ArrayBuffer> | undefined,
): Request {
  // Appended, not resolved: a path such as //other.example/ must not change the host.
  const url = new URL(origin + req.originalUrl);

  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  headers.set("x-request-id", String(req.headers["x-request-id"]));
  // The edge has already compared Origin with this origin; Remix's own check must agree.
  headers.set("host", url.host);
  headers.delete("x-forwarded-host");

  // Remix aborts loaders and actions when the visitor goes away before the answer is sent.
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });

  return new Request(url, { method: req.method, headers, signal: controller.signal, body });
}

async function sendFetchResponse(res: ExpressResponse, response: Response) {
  res.statusMessage = response.statusText;
  res.status(response.status);
  if (response.status === 405 && !response.headers.has("Allow")) res.setHeader("Allow", "GET, HEAD");
  for (const [name, value] of response.headers) res.append(name, value);
  if (response.body) {
    // A body of known length (a whole document) is complete as it is; only a stream needs each
    // chunk pushed through compression at once.
    await writeBody(res, response.body, !response.headers.has("Content-Length"));
  } else {
    res.end();
  }
}

/** Streams the body; a whole document comes as one chunk with its length (app/entry.server.tsx). */
async function writeBody(res: ExpressResponse, body: ReadableStream<Uint8Array>, flushEachChunk: boolean) {
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  res.once("close", cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
      if (flushEachChunk) (res as ExpressResponse & { flush?: () => void }).flush?.();
    }
    res.end();
  } catch (error) {
    res.destroy(error as Error);
    throw error;
  } finally {
    res.off("close", cancel);
  }
}
