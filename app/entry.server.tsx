import { PassThrough } from "node:stream";
import { buffer } from "node:stream/consumers";
import type { AppLoadContext, EntryContext, HandleErrorFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { carriesSessionCookie } from "./auth/session-store.server";
import { DEFAULT_CACHE_CONTROL } from "./lib/cache-rules.server";
import { hasDeferredData } from "./lib/deferred-data.server";
import {
  finishErrorDocument,
  getErrorDocumentKey,
  isAskedAgain,
  NONCE_PLACEHOLDER,
  takeErrorDocument,
} from "./lib/error-documents.server";
import { setLanguageHeaders } from "./i18n/locale.server";
import { getRequestFields, logger } from "./lib/logger.server";
import { NonceProvider } from "./lib/nonce";
import { answerConditionally } from "./lib/page-cache.server";

// What the server in front of Remix takes from this build (`build.entry.module`), so that each of
// these modules is loaded once: one configuration, one logger, one list of call listeners, one
// source of trace ids.
export { onCallOutcome } from "./api/client.server";
export { getConfig } from "./lib/config.server";
export { createThrottledWarning, routeConsoleToLogger } from "./lib/logger.server";
export * as traceContext from "./lib/trace-context.server";
export { logger };

// Deferred data still pending after this long is rejected in what Remix streams to the browser.
export const streamTimeout = 5_000;
// The render itself is stopped only for data that never settles, long after: a rejection that
// came in time (a call's deadline) is rendered first, on a busy machine too.
const RENDER_DEADLINE_MS = 2 * streamTimeout;
const RENDER_STOPPED = new Error("render stopped at its deadline");

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce;
  setCachePolicy(responseHeaders, request);
  await setLanguageHeaders(responseHeaders, request);
  // Known before rendering: a failed precondition (412), or the copy the browser holds (304).
  const notModified = answerConditionally(
    request,
    responseStatusCode,
    responseHeaders,
    remixContext,
  );
  if (notModified) return notModified;
  // Only a document with deferred data streams, and not to a crawler: the rest go whole
  // (decision 003).
  const sendWhole =
    isbot(request.headers.get("user-agent") ?? "") ||
    !hasDeferredData(remixContext.staticHandlerContext);
  const respond = (body: BodyInit) => {
    responseHeaders.set("Content-Type", "text/html; charset=utf-8");
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
          // A visitor who left ends the render, reported once per part still pending: no fault.
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

export async function handleDataRequest(response: Response, { request }: { request: Request }) {
  setCachePolicy(response.headers, request);
  await setLanguageHeaders(response.headers, request);
  return response;
}

// What may show who the visitor is is never stored; the rest keeps its routes' merged rule.
function setCachePolicy(headers: Headers, request: Request) {
  if (carriesSessionCookie(request)) headers.set("Cache-Control", "no-store");
  else if (!headers.has("Cache-Control")) headers.set("Cache-Control", DEFAULT_CACHE_CONTROL);
}

export const handleError: HandleErrorFunction = (error, { request }) => {
  // Remix reports aborted requests and expected 4xx answers here too; neither is a fault.
  if (request.signal.aborted) return;
  if ((isRouteErrorResponse(error) || error instanceof Response) && error.status < 500) return;
  logError(error, request);
};

function logError(error: unknown, request: Request) {
  logger.error({ err: error, ...getRequestFields(request) }, "unexpected error");
}
