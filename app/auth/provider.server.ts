import type {
  Configuration,
  CustomFetch,
  TokenEndpointResponse,
  TokenEndpointResponseHelpers,
} from "openid-client";
import type { SignInSettings } from "~/lib/config.server";
import type { ErrorCode } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
import { createThrottledWarning } from "~/lib/logger.server";
import { loadOpenIdClient } from "./libraries.server";

export type TokenSet = TokenEndpointResponse & TokenEndpointResponseHelpers;

// A provider that could not be reached is asked again at most this often.
const RETRY_DISCOVERY_AFTER_MS = 5_000;

let discovered: { settings: SignInSettings; provider: Promise<Provider>; failedAt?: number } | undefined;

export type Provider = Awaited<ReturnType<typeof discoverProvider>>;

/**
 * The provider found from OIDC_ISSUER's discovery document, with openid-client's calls bound to
 * it. Discovered once; a failed discovery is tried again on a later sign-in.
 */
export function getProvider(settings: SignInSettings): Promise<Provider> {
  const failedRecently = discovered?.failedAt && Date.now() - discovered.failedAt < RETRY_DISCOVERY_AFTER_MS;
  if (discovered?.settings === settings && (!discovered.failedAt || failedRecently))
    return discovered.provider;
  const attempt: NonNullable<typeof discovered> = { settings, provider: discoverProvider(settings) };
  attempt.provider.catch(() => (attempt.failedAt = Date.now()));
  discovered = attempt;
  return attempt.provider;
}

async function discoverProvider(settings: SignInSettings) {
  const client = await loadOpenIdClient();
  const fetchWithinLimits: CustomFetch = async (url, options) => {
    const response = await fetch(url, {
      ...options,
      body: options.body as BodyInit | undefined,
      signal: AbortSignal.timeout(settings.timeoutMs),
      redirect: "error",
    });
    return readWhole(response, settings.maxResponseBytes);
  };
  const isHttp = new URL(settings.issuer).protocol === "http:";
  const config = await client.discovery(
    new URL(settings.issuer),
    settings.clientId,
    { redirect_uris: [settings.redirectUri], response_types: ["code"] },
    settings.clientSecret ? client.ClientSecretBasic(settings.clientSecret) : client.None(),
    {
      [client.customFetch]: fetchWithinLimits,
      execute: isHttp ? [client.allowInsecureRequests] : [],
    },
  );
  config[client.customFetch] = fetchWithinLimits;
  noteProviderAnswered();
  // openid-client trusts an ID token from the token endpoint on TLS alone; its signature is checked too.
  client.enableNonRepudiationChecks(config);
  return {
    client,
    config: config as Configuration,
    canEndSession: Boolean(config.serverMetadata().end_session_endpoint),
  };
}

export class ProviderAnswerTooLargeError extends Error {
  name = "ProviderAnswerTooLargeError";
}

/**
 * The answer with its body read here, at most `limit` bytes once decoded (declared larger: refused
 * before reading), so that openid-client never holds more; the fetch's deadline covers the body.
 */
async function readWhole(response: Response, limit: number) {
  const tooLarge = () => new ProviderAnswerTooLargeError("answer larger than OIDC_MAX_RESPONSE_BYTES");
  if (Number(response.headers.get("content-length")) > limit) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      size += read.value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(read.value);
    }
  }
  const headers = new Headers(response.headers);
  headers.delete("content-encoding");
  headers.delete("content-length");
  const body = response.body ? Buffer.concat(chunks) : null;
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** A token answer the app refuses though openid-client accepted it; the visitor is not signed in. */
export class UntrustedTokensError extends Error {
  name = "UntrustedTokensError";
}

// Visible ASCII with inner spaces (RFC 6749's VSCHAR): anything else could not go in a header.
const HEADER_SAFE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** Throws UntrustedTokensError when the access token or its type cannot be sent as a header value. */
export function requireHeaderSafeTokens(tokens: Pick<TokenSet, "access_token" | "token_type">) {
  if (!HEADER_SAFE.test(tokens.access_token) || !HEADER_SAFE.test(tokens.token_type ?? "bearer")) {
    throw new UntrustedTokensError("the access token or its type is not a valid header value");
  }
}

const warnings: Partial<Record<ErrorCode, ReturnType<typeof createThrottledWarning>>> = {
  SIGN_IN_UNAVAILABLE: createThrottledWarning("sign-in: the provider cannot be reached"),
  SIGN_IN_EXPIRED: createThrottledWarning("sign-in: the provider refused a code or refresh token"),
  SIGN_IN_FAILED: createThrottledWarning("sign-in: the provider's answer could not be trusted"),
};

/** Marks the provider as answering again: its next failure is said at once. */
export function noteProviderAnswered() {
  warnings.SIGN_IN_UNAVAILABLE!.reset();
}

/**
 * The catalogue entry for a failed exchange with the provider: an authorization code it refuses
 * (used, expired) means the sign-in must start again; no answer in time, no connection or an
 * answer over OIDC_MAX_RESPONSE_BYTES, that it is unavailable; anything else (a bad signature, a
 * wrong issuer, audience or nonce, an expired ID token, an error status, garbage, tokens the app
 * refuses) that its answer could not be trusted. Logged as a warning, at most once a minute each.
 */
export function getProviderFailure(error: unknown, during: string): ErrorCode {
  const causes: unknown[] = [];
  for (let cause = error; cause instanceof Error && causes.length < 5; cause = cause.cause)
    causes.push(cause);
  const isUnreachable = causes.some(
    (cause) =>
      cause instanceof ProviderAnswerTooLargeError ||
      (cause instanceof Error &&
        (cause.name === "TimeoutError" || cause.name === "AbortError" || cause.message === "fetch failed")),
  );
  if (error instanceof UntrustedTokensError) {
    logger.warn({ during }, `sign-in: ${error.message}`);
    return "SIGN_IN_FAILED";
  }
  const oauthError = (error as { error?: unknown }).error;
  const code: ErrorCode = isUnreachable
    ? "SIGN_IN_UNAVAILABLE"
    : oauthError === "invalid_grant"
      ? "SIGN_IN_EXPIRED"
      : "SIGN_IN_FAILED";
  warnings[code]!({ err: error, during });
  return code;
}
