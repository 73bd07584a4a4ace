import type {
  Request as ExpressRequest,
  RequestHandler,
  Response as ExpressResponse,
} from "express";
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import { applyCacheRules } from "~/lib/cache-rules.server";
import type { Config } from "~/lib/config.server";
import { createErrorResponse } from "~/lib/errors";
import { REFRESHED_HEADERS } from "~/lib/page-cache.server";
import { readBody } from "../edge/body";

// A 304 keeps the pipeline's headers its 200 would carry (RFC 9110 §15.4.5), and the request's id;
// not its Content-Security-Policy, whose nonce the stored page does not have.
const NOT_MODIFIED_KEPT = new Set([...REFRESHED_HEADERS, "x-request-id"]);

/**
 * Hands Remix the request the edge judged, its body read within its limit, and sends its answer
 * (decision 002); each route's Cache-Control merged with its parents' (decision 021).
 */
export function createRemixHandler(build: ServerBuild, config: Config): RequestHandler {
  const handleRequest = createRequestHandler(applyCacheRules(build), config.NODE_ENV);
  return async (req, res, next) => {
    if (req.path.includes("%") && !isDecodable(req.path))
      return next(createErrorResponse("BAD_REQUEST"));
    let body: Uint8Array<ArrayBuffer> | undefined;
    if (req.method !== "GET" && req.method !== "HEAD") {
      try {
        body = await readBody(req, res);
      } catch (refusal) {
        return refusal instanceof Response ? next(refusal) : void res.destroy();
      }
    }
    try {
      const request = createFetchRequest(req, res, body);
      const response = await handleRequest(request, { cspNonce: res.locals.cspNonce });
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

function createFetchRequest(
  req: ExpressRequest,
  res: ExpressResponse,
  body?: Uint8Array<ArrayBuffer>,
) {
  // The origin the edge decided, with the path appended, not resolved: //other.example/ keeps the host.
  const url = new URL(res.locals.origin + req.originalUrl);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.append(name, value);
    else for (const item of value ?? []) headers.append(name, item);
  }
  headers.set("host", url.host);
  headers.delete("x-forwarded-host");
  const controller = new AbortController();
  res.once("close", () => res.writableFinished || controller.abort());
  return new Request(url, { method: req.method, headers, signal: controller.signal, body });
}

async function sendFetchResponse(res: ExpressResponse, response: Response) {
  res.statusMessage = response.statusText;
  res.status(response.status);
  if (response.status === 405 && !response.headers.has("Allow"))
    res.setHeader("Allow", "GET, HEAD");
  if (response.status === 304) {
    for (const name of res.getHeaderNames())
      if (!NOT_MODIFIED_KEPT.has(name)) res.removeHeader(name);
  }
  for (const [name, value] of response.headers) res.append(name, value);
  // A HEAD is not compressed as its GET would be: the length of the uncompressed page is no answer.
  if (res.req.method === "HEAD") res.removeHeader("Content-Length");
  if (!response.body) return void res.end();
  const flushEachChunk = !response.headers.has("Content-Length");
  const reader = response.body.getReader();
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

function isDecodable(path: string) {
  try {
    return decodeURIComponent(path) !== undefined;
  } catch {
    return false;
  }
}
