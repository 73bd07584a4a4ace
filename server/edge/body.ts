import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, Response as ExpressResponse } from "express";
import { createErrorResponse } from "~/lib/errors";

// Each piece of a body costs a callback, and a kept piece holds the whole buffer Node read it into.
const MIN_AVERAGE_PIECE_BYTES = 256;
const MIN_PIECES = 1_024;
const BLOCK_BYTES = 64 * 1024;
const DRAIN_MS = 1_000;

export function hasBody(req: IncomingMessage) {
  return (
    req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"]) > 0
  );
}

/**
 * Once `res` is sent with its request's body still unread (refused, or never wanted), the rest is
 * read and dropped for a moment, then the connection closes: closing at once could lose the answer.
 */
export function drainWhenAnswered(req: IncomingMessage, res: ServerResponse) {
  res.once("finish", () => {
    if (req.complete || !hasBody(req)) return;
    const timer = setTimeout(() => req.socket.destroy(), DRAIN_MS);
    req.once("end", () => clearTimeout(timer)).once("close", () => clearTimeout(timer));
  });
}

export const expectsContinue = (req: Request) =>
  req.headers.expect?.trim().toLowerCase() === "100-continue";

/**
 * The body within the limit the edge set for its route (`res.locals.bodyLimit`), asked for with
 * 100 Continue only now; refused at the byte over it (413) or the piece over what such a body
 * needs (400), with a catalogue response.
 */
export function readBody(req: Request, res: ExpressResponse): Promise<Uint8Array<ArrayBuffer>> {
  const limit = res.locals.bodyLimit as number;
  const maxPieces = Math.max(MIN_PIECES, Math.ceil(limit / MIN_AVERAGE_PIECE_BYTES));
  let block = Buffer.allocUnsafe(
    Math.min(Number(req.headers["content-length"]) || BLOCK_BYTES, BLOCK_BYTES, limit),
  );
  const blocks = [block];
  let used = 0;
  let size = 0;
  let pieces = 0;
  return new Promise((resolve, reject) => {
    const refuse = (refusal: Response) => {
      req.off("data", onData).off("end", onEnd);
      blocks.length = 0;
      reject(refusal);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) return refuse(createErrorResponse("PAYLOAD_TOO_LARGE"));
      if (++pieces > maxPieces) {
        req.pause();
        return refuse(createErrorResponse("BAD_REQUEST"));
      }
      for (let offset = 0; offset < chunk.length;) {
        if (used === block.length) {
          blocks.push((block = Buffer.allocUnsafe(BLOCK_BYTES)));
          used = 0;
        }
        const copied = chunk.copy(block, used, offset);
        used += copied;
        offset += copied;
      }
      size += chunk.length;
    };
    const onEnd = () => {
      const whole = Buffer.concat(blocks, size);
      resolve(new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength));
    };
    req.on("data", onData).on("end", onEnd).once("error", reject);
    if (expectsContinue(req) && req.httpVersion === "1.1" && !res.headersSent) res.writeContinue();
  });
}
