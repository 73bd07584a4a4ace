import type { IncomingMessage } from "node:http";
import type { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { UpstreamError } from "./upstream-error.server";

/** The content codings a call accepts, one at a time. */
export const ACCEPTED_ENCODINGS = "gzip, deflate, br";

/** Deeper JSON is refused: it can only be a mistake or an attack, and would exhaust the stack later. */
export const MAX_JSON_DEPTH = 64;

const decoders: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  "x-gzip": () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/**
 * Reads a JSON answer of at most `limit` bytes once decoded; an empty body is `undefined`. Too
 * large (declared or counted, so a compression bomb stops at the limit), cut short, in a coding
 * it did not ask for, not JSON, or nested deeper than MAX_JSON_DEPTH: an UpstreamError.
 */
export async function readJson(response: IncomingMessage, limit: number): Promise<unknown> {
  if (Number(response.headers["content-length"]) > limit) {
    response.destroy();
    throw tooLarge();
  }
  const decoder = getDecoder(response);
  const chunks: Buffer[] = [];
  let size = 0;
  const collect = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      size += chunk.byteLength;
      if (size > limit) throw tooLarge();
      chunks.push(chunk);
    }
  };
  try {
    await (decoder ? pipeline(response, decoder, collect) : pipeline(response, collect));
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    throw new UpstreamError("UPSTREAM_BAD_RESPONSE", `response cut short or undecodable: ${describe(error)}`);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  if (isNestedDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new UpstreamError("UPSTREAM_BAD_RESPONSE", `response nested deeper than ${MAX_JSON_DEPTH}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamError("UPSTREAM_BAD_RESPONSE", "response is not JSON");
  }
}

function getDecoder(response: IncomingMessage) {
  const codings = (response.headers["content-encoding"] ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length === 0) return undefined;
  const create = codings.length === 1 ? decoders[codings[0]!] : undefined;
  if (create) return create();
  response.destroy();
  throw new UpstreamError("UPSTREAM_BAD_RESPONSE", `unsupported content-encoding ${codings.join(", ")}`);
}

/**
 * Whether JSON text nests arrays and objects more than `max` deep, in one pass over the text
 * without recursion: brackets are counted outside strings only.
 */
export function isNestedDeeperThan(text: string, max: number) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === BACKSLASH) i++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) inString = true;
    else if (char === OPEN_ARRAY || char === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (char === CLOSE_ARRAY || char === CLOSE_OBJECT) depth--;
  }
  return false;
}

const [QUOTE, BACKSLASH, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [...'"\\[]{}'].map((c) =>
  c.charCodeAt(0),
);

function tooLarge() {
  return new UpstreamError("UPSTREAM_BAD_RESPONSE", "response larger than API_MAX_RESPONSE_BYTES");
}

function describe(error: unknown) {
  return error instanceof Error ? ((error as { code?: string }).code ?? error.message) : String(error);
}
