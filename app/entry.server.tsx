import { PassThrough } from "node:stream";
import { buffer } from "node:stream/consumers";
import type { AppLoadContext, EntryContext, HandleErrorFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { carriesSessionCookie } from "./auth/session-store.server";
import { hasDeferredData } from "./lib/deferred-data.server";
import {
  finishErrorDocument,
  getErrorDocumentKey,
  isAskedAgain,
  NONCE_PLACEHOLDER,
  takeErrorDocument,
} from "./lib/error-documents.server";
import { getRequestFields, logger } from "./lib/logger.server";
import { NonceProvider } from "./lib/nonce";

// Deferred data still pending after this long is rejected in what Remix streams to the browser.
export const streamTimeout = 5_000;
// The render itself is stopped only for data that never settles, long after: a rejection that
// came in time (a call's deadline) is rendered first, on a busy machine too.
const RENDER_DEADLINE_MS = 2 * streamTimeout;
const RENDER_STOPPED = new Error("render stopped at its deadline");

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce;
  // Only a document with deferred data streams, and not to a crawler: the rest go whole (decision 003).
  const sendWhole =
    isbot(request.headers.get("user-agent") ?? "") || !hasDeferredData(remixContext.staticHandlerContext);
  const respond = (body: BodyInit) => {
    responseHeaders.set("Content-Type", "text/html; charset=utf-8");
    setPrivate(responseHeaders, request);
    return new Response(body, { headers: responseHeaders, status: responseStatusCode });
  };
  const errorDocumentKey =
    sendWhole && nonce ? getErrorDocumentKey(request, responseStatusCode, remixContext) : undefined;
  const kept = errorDocumentKey && takeErrorDocument(errorDocumentKey, nonce!);
  if (kept) {
    responseHeaders.set("Content-Length", String(kept.byteLength));
    return respond(kept as Uint8Array<ArrayBuffer>);
  }
  const keptAs = errorDocumentKey && isAskedAgain(errorDocumentKey) ? errorDocumentKey : undefined;
  const renderedNonce = keptAs ? NONCE_PLACEHOLDER : nonce;

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    let departed = false;
    let failed = false;
    let stopped = false;
    const stream = () => {
      const body = new PassThrough();
      resolve(respond(createReadableStreamFromReadable(body)));
      pipe(body);
    };
    const sendWholeDocument = () => {
      const body = new PassThrough();
      buffer(body).then((rendered) => {
        const whole = keptAs ? finishErrorDocument(rendered, nonce!, keptAs, !failed) : rendered;
        responseHeaders.set("Content-Length", String(whole.byteLength));
        resolve(respond(whole as Uint8Array<ArrayBuffer>));
      }, reject);
      pipe(body);
    };
    // Cleared once all is rendered: a pending timer would hold the whole render in memory.
    const abortTimer = setTimeout(() => abort(RENDER_STOPPED), RENDER_DEADLINE_MS);
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={renderedNonce ?? ""}>
        <RemixServer context={remixContext} url={request.url} nonce={renderedNonce} />
      </NonceProvider>,
      {
        nonce: renderedNonce,
        onShellReady() {
          shellRendered = true;
          if (!sendWhole) stream();
        },
        onAllReady() {
          clearTimeout(abortTimer);
          if (sendWhole) sendWholeDocument();
        },
        onShellError(error: unknown) {
          clearTimeout(abortTimer);
          reject(error);
        },
        onError(error: unknown) {
          // A visitor who left ends the render, reported once for each part still pending: not a fault.
          if (request.signal.aborted) {
            if (!departed)
              logger.info(getRequestFields(request), "visitor left before the page was complete");
            departed = true;
            return;
          }
          responseStatusCode = 500;
          failed = true;
          // Its own deadline, reported once per part still pending: the browser gets the rest.
          if (error === RENDER_STOPPED) {
            if (!stopped) logger.warn(getRequestFields(request), "render stopped at its deadline");
            stopped = true;
          } else if (shellRendered) logError(error, request);
        },
      },
    );
  });
}

export function handleDataRequest(response: Response, { request }: { request: Request }) {
  setPrivate(response.headers, request);
  return response;
}

// Pages depend on the visitor's cookies, so no shared cache keeps them; one showing who they are, no cache.
function setPrivate(headers: Headers, request: Request) {
  const cacheControl = headers.get("Cache-Control") ?? "";
  if (/\bno-store\b/.test(cacheControl)) return;
  headers.set("Cache-Control", carriesSessionCookie(request) ? "no-store" : "private, no-cache");
}

export const handleError: HandleErrorFunction = (error, { request }) => {
  // Remix reports aborted requests and expected 4xx answers here too; neither is a fault.
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status < 500) return;
  logError(error, request);
};

function logError(error: unknown, request: Request) {
  logger.error({ err: error, ...getRequestFields(request) }, "unexpected error");
}
