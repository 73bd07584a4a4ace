import type {
  RequestHandler as ExpressHandler,
  Request as ExpressRequest,
  Response as ExpressResponse,
} from "express";
import { createRequestHandler, type AppLoadContext, type ServerBuild } from "@remix-run/node";
import { readBody } from "./read-body";

type Options = {
  build: ServerBuild;
  mode: string;
  bodyLimitBytes: number;
  getLoadContext?: (req: ExpressRequest, res: ExpressResponse) => AppLoadContext;
};

/**
 * Hands an Express request to Remix and writes Remix's answer back. The server owns this
 * conversion (rather than @remix-run/express) so the edge decides what reaches Remix: the
 * origin it decided, and the headers as it checked them.
 */
export function createRemixHandler({ build, mode, bodyLimitBytes, getLoadContext }: Options): ExpressHandler {
  const handleRequest = createRequestHandler(build, mode);
  return async (req, res, next) => {
    try {
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const body = hasBody ? await readBody(req, bodyLimitBytes) : undefined;
      const request = createFetchRequest(req, res, body);
      const response = await handleRequest(request, getLoadContext?.(req, res));
      // The visitor left while Remix worked: its answer (a 500 for the aborted work) has no one to go to.
      if (request.signal.aborted) {
        void response.body?.cancel().catch(() => {});
        return void res.destroy();
      }
      await sendFetchResponse(res, response);
    } catch (error) {
      next(error);
    }
  };
}

function createFetchRequest(req: ExpressRequest, res: ExpressResponse, body?: Uint8Array<ArrayBuffer>) {
  // The origin the edge decided, with the path appended, not resolved: a path such as
  // //other.example/ must not change the host.
  const url = new URL(res.locals.origin + req.originalUrl);

  // Node's view of the headers, the one the edge judged (a repeated header reads as Node reads it).
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.append(name, value);
    else for (const item of value ?? []) headers.append(name, item);
  }
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
