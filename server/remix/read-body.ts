import type { Request as ExpressRequest } from "express";
import { ClientGoneError, HttpError } from "../edge/http-error";

// Every piece of a body (a TCP read, a chunk of a chunked body) costs Node a callback, so a body in
// tiny pieces costs far more than its size (docs/security.md). No real client sends them.
const MIN_AVERAGE_PIECE_BYTES = 256;
const MIN_PIECES = 1_024;
// Pieces are copied into blocks of this size rather than kept: a kept piece, however small,
// holds on to the whole buffer Node read it into.
const BLOCK_BYTES = 64 * 1024;

/**
 * Reads the whole body, refusing it with 413 at the byte that crosses the limit (the edge has
 * already refused a declared Content-Length over it) and with 400 when it comes in more pieces
 * than a body of the limit's size needs. The rest of a body refused for its size is left
 * flowing, so the error page can be sent before the connection goes; a body in too many pieces
 * is not read further.
 */
export function readBody(req: ExpressRequest, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const maxPieces = Math.max(MIN_PIECES, Math.ceil(limit / MIN_AVERAGE_PIECE_BYTES));
  const declared = Number(req.headers["content-length"]) || BLOCK_BYTES;
  let block = Buffer.allocUnsafe(Math.min(declared, BLOCK_BYTES, limit));
  const blocks = [block];
  let used = 0; // of the current block
  let size = 0;
  let pieces = 0;
  return new Promise((resolve, reject) => {
    const refuse = (error: Error) => {
      req.off("data", onData).off("end", onEnd);
      blocks.length = 0;
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) return refuse(new HttpError("PAYLOAD_TOO_LARGE"));
      if (++pieces > maxPieces) {
        req.pause();
        return refuse(new HttpError("BAD_REQUEST"));
      }
      for (let offset = 0; offset < chunk.length;) {
        if (used === block.length) {
          block = Buffer.allocUnsafe(BLOCK_BYTES);
          blocks.push(block);
          used = 0;
        }
        const copied = chunk.copy(block, used, offset);
        used += copied;
        offset += copied;
      }
      size += chunk.length;
    };
    const onEnd = () => {
      const body = Buffer.concat(blocks, size);
      resolve(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
    };
    // Node reports a client that hangs up, breaks the framing or runs out of time mid-body as
    // an error of the request; the client is gone, and there is no one to answer.
    const onError = () => reject(new ClientGoneError());
    req.on("data", onData).on("end", onEnd).once("error", onError);
  });
}
