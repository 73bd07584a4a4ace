import type { RequestHandler } from "express";
import { sendErrorPage } from "./error-page";

/**
 * Headers a request may carry once. Node keeps the first of most of these (or joins them) and a
 * proxy in front may have acted on the last, so two of them are refused rather than guessed at.
 */
const SINGLE_VALUE_HEADERS = new Set([
  "host",
  "content-type",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "origin",
  "referer",
  "authorization",
  "proxy-authorization",
  "expect",
  "range",
  "if-range",
  "if-modified-since",
  "if-unmodified-since",
  "sec-fetch-site",
  "sec-fetch-mode",
  "sec-fetch-dest",
]);

// Node's default count; the server keeps one header more (main.ts), so a request over it shows.
export const MAX_HEADER_COUNT = 2_000;

/** Node drops the headers past its count silently, and one the edge judges could be among them. */
export const refuseTooManyHeaders: RequestHandler = (req, res, next) => {
  if (req.rawHeaders.length / 2 > MAX_HEADER_COUNT) return sendErrorPage(res, "HEADERS_TOO_LARGE");
  next();
};

export const refuseRepeatedHeaders: RequestHandler = (req, res, next) => {
  const seen = new Set<string>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (!SINGLE_VALUE_HEADERS.has(name)) continue;
    if (seen.has(name)) return sendErrorPage(res, "BAD_REQUEST");
    seen.add(name);
  }
  next();
};

/** A body is either sent as it is (Content-Length) or chunked; no other coding is decoded here. */
export const requirePlainFraming: RequestHandler = (req, res, next) => {
  const codings = req.headers["transfer-encoding"];
  if (codings === undefined || codings.trim().toLowerCase() === "chunked") return next();
  sendErrorPage(res, "BAD_REQUEST");
};

/**
 * `100-continue` is the only expectation met; others get 417. Node hands such requests to the
 * app (its `checkContinue` and `checkExpectation` events) instead of answering them itself.
 */
export const requireKnownExpectation: RequestHandler = (req, res, next) => {
  const expect = req.headers.expect;
  if (expect === undefined || isContinueExpected(req)) return next();
  sendErrorPage(res, "EXPECTATION_FAILED");
};

/** The last step of the edge: a client waiting to send its body learns it may, now it is judged. */
export const sendContinue: RequestHandler = (req, res, next) => {
  if (isContinueExpected(req) && req.httpVersion === "1.1" && !res.headersSent) res.writeContinue();
  next();
};

const isContinueExpected = (req: { headers: { expect?: string } }) =>
  req.headers.expect?.trim().toLowerCase() === "100-continue";
