import type { IncomingMessage } from "node:http";
import type { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { FormRefusal } from "~/forms/index.server";
import { LANGUAGE_TAG } from "~/i18n/locales";
import type { ErrorCode } from "~/lib/errors";
import { isNestedDeeperThan, MAX_JSON_DEPTH } from "~/lib/json-depth";
import type { Call, CallResult } from "./call";

/** A failed call as the visitor sees it (`code`) and as outcome events count it. */
export class UpstreamError extends Error {
  sent = true;
  readonly outcome: `${number}` | "timeout" | "unavailable" | "bad_answer";
  constructor(
    readonly code: ErrorCode,
    reason: string,
    mappedStatus?: number,
  ) {
    super(reason);
    this.outcome = mappedStatus ? `${mappedStatus}` : (OUTCOMES[code] ?? "bad_answer");
  }
}

const OUTCOMES: Partial<Record<ErrorCode, "timeout" | "unavailable">> = {
  UPSTREAM_TIMEOUT: "timeout",
  UPSTREAM_UNAVAILABLE: "unavailable",
};

export const badAnswer = (reason: string) => new UpstreamError("UPSTREAM_BAD_RESPONSE", reason);

const FAILURE_FOR_STATUS: Record<number, ErrorCode> = {
  429: "UPSTREAM_UNAVAILABLE",
  503: "UPSTREAM_UNAVAILABLE",
  504: "UPSTREAM_TIMEOUT",
};

/** The call's parsed answer; another status thrown as the call maps it, else as the catalogue's. */
export async function readAnswer<C extends Call>(
  call: C,
  response: IncomingMessage,
  limit: number,
) {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status <= 299) {
    const answer = await readJson(response, limit);
    const check = call.checks?.answers[status];
    if (!call.checks || check?.(answer)) return answer as CallResult<C>;
    const [error] = check?.errors ?? [{ instancePath: "", message: `${status} is not an answer` }];
    throw badAnswer(`off its contract at ${error?.instancePath || "/"}: ${error?.message}`);
  }
  const readFormErrors = call.formErrors?.[status];
  const body = readFormErrors && (await readJson(response, limit).catch(() => undefined));
  const formErrors = readFormErrors?.(body);
  response.destroy();
  // The action shows these on the form that posted, with the API's status.
  if (formErrors) throw new FormRefusal(status, formErrors, getLanguage(response));
  const expected = status >= 400 && status < 500 ? call.errors?.[status] : undefined;
  if (expected) throw new UpstreamError(expected, `answered ${status}`, status);
  throw new UpstreamError(
    FAILURE_FOR_STATUS[status] ?? "UPSTREAM_BAD_RESPONSE",
    `answered ${status}`,
  );
}

// The language of the answer's own words, when its Content-Language names one.
function getLanguage(response: IncomingMessage) {
  const tag = response.headers["content-language"]?.trim() ?? "";
  return LANGUAGE_TAG.test(tag) ? tag : undefined;
}

const decoders: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  "x-gzip": () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

// At most `limit` bytes once decoded, counted as they come, so that a compression bomb stops there.
async function readJson(response: IncomingMessage, limit: number): Promise<unknown> {
  const header = response.headers["content-encoding"] ?? "";
  const codings = header.split(",").filter((coding) => !/^\s*(identity)?\s*$/i.test(coding));
  const decoder = codings.length === 1 ? decoders[codings[0]!.trim().toLowerCase()]?.() : undefined;
  if (codings.length > 0 && !decoder) {
    response.destroy();
    throw badAnswer(`unsupported content-encoding ${header}`);
  }
  if (Number(response.headers["content-length"]) > limit) {
    response.destroy();
    throw badAnswer("response larger than API_MAX_RESPONSE_BYTES");
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const collect = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      if ((size += chunk.byteLength) > limit)
        throw badAnswer("response larger than API_MAX_RESPONSE_BYTES");
      chunks.push(chunk);
    }
  };
  try {
    await (decoder ? pipeline(response, decoder, collect) : pipeline(response, collect));
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    throw badAnswer(
      `response cut short or undecodable: ${(error as { code?: string }).code ?? error}`,
    );
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  if (isNestedDeeperThan(text, MAX_JSON_DEPTH))
    throw badAnswer(`response nested deeper than ${MAX_JSON_DEPTH}`);
  try {
    return JSON.parse(text);
  } catch {
    throw badAnswer("response is not JSON");
  }
}
