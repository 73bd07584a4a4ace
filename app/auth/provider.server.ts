import type * as OpenId from "openid-client";
import type { SignInSettings } from "~/lib/config.server";
import type { ErrorCode } from "~/lib/errors";
import { createThrottledWarning, logger } from "~/lib/logger.server";
import type { Session } from "./session-store.server";

type TokenSet = OpenId.TokenEndpointResponse & OpenId.TokenEndpointResponseHelpers;
type Provider = Awaited<ReturnType<typeof discoverProvider>>;
const RETRY_DISCOVERY_AFTER_MS = 5_000;
// What a token answer without expires_in is taken to mean.
const DEFAULT_TOKEN_LIFETIME_S = 300;

let discovered:
  { settings: SignInSettings; provider: Promise<Provider>; failedAt?: number } | undefined;

/** The provider found from OIDC_ISSUER's discovery document, once; a failed discovery is tried again later. */
export function getProvider(settings: SignInSettings): Promise<Provider> {
  const failedAt = discovered?.failedAt;
  if (
    discovered?.settings === settings &&
    (!failedAt || Date.now() - failedAt < RETRY_DISCOVERY_AFTER_MS)
  )
    return discovered.provider;
  const attempt: NonNullable<typeof discovered> = {
    settings,
    provider: discoverProvider(settings),
  };
  attempt.provider.catch(() => (attempt.failedAt = Date.now()));
  discovered = attempt;
  return attempt.provider;
}

async function discoverProvider(settings: SignInSettings) {
  const client = await import("openid-client");
  const fetchWithinLimits: OpenId.CustomFetch = async (url, options) => {
    // Held by its timer until the body is read: on Node 20 nothing holds AbortSignal.timeout's,
    // and a garbage collection takes its timer with it.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new TimeoutError()), settings.timeoutMs);
    try {
      const response = await fetch(url, {
        ...options,
        body: options.body as BodyInit | undefined,
        signal: deadline.signal,
        redirect: "error",
      });
      return await readWhole(response, settings.maxResponseBytes, deadline.signal);
    } finally {
      clearTimeout(timer);
    }
  };
  const config = await client.discovery(
    new URL(settings.issuer),
    settings.clientId,
    { redirect_uris: [settings.redirectUri], response_types: ["code"] },
    settings.clientSecret ? client.ClientSecretBasic(settings.clientSecret) : client.None(),
    {
      [client.customFetch]: fetchWithinLimits,
      execute: new URL(settings.issuer).protocol === "http:" ? [client.allowInsecureRequests] : [],
    },
  );
  config[client.customFetch] = fetchWithinLimits;
  // openid-client trusts an ID token from the token endpoint on TLS alone; its signature is checked too.
  client.enableNonRepudiationChecks(config);
  const canEndSession = Boolean(config.serverMetadata().end_session_endpoint);
  return { client, config: config as OpenId.Configuration, canEndSession };
}

class AnswerTooLargeError extends Error {}
class TimeoutError extends Error {
  name = "TimeoutError";
}

/** The answer read whole here, at most `limit` bytes, so that openid-client never holds more. */
async function readWhole(response: Response, limit: number, deadline: AbortSignal) {
  const tooLarge = new AnswerTooLargeError("answer larger than OIDC_MAX_RESPONSE_BYTES");
  if (Number(response.headers.get("content-length")) > limit) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  // fetch's own link from the signal to the body is weak on Node 20: the deadline cancels the read.
  const cancel = () => void reader?.cancel(deadline.reason).catch(() => {});
  deadline.addEventListener("abort", cancel, { once: true });
  try {
    for (let read = await reader?.read(); read && !read.done; read = await reader!.read()) {
      size += read.value.byteLength;
      if (size > limit) {
        await reader!.cancel().catch(() => {});
        throw tooLarge;
      }
      chunks.push(read.value);
    }
    deadline.throwIfAborted();
  } finally {
    deadline.removeEventListener("abort", cancel);
  }
  const headers = new Headers(response.headers);
  headers.delete("content-encoding");
  headers.delete("content-length");
  const body = response.body ? Buffer.concat(chunks) : null;
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

export class UntrustedTokensError extends Error {}

// RFC 6749's VSCHAR with inner spaces: anything else could not be sent in a header.
const HEADER_SAFE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

function requireHeaderSafeTokens(tokens: Pick<TokenSet, "access_token" | "token_type">) {
  if (!HEADER_SAFE.test(tokens.access_token) || !HEADER_SAFE.test(tokens.token_type ?? "bearer"))
    throw new UntrustedTokensError("the access token or its type is not a valid header value");
}

/** `session` holding `tokens`; a new ID token must name the same subject (OpenID Connect Core 12.2). */
export function withTokens<S extends Partial<Session>>(
  session: S,
  tokens: TokenSet,
  rolesClaim: string,
) {
  requireHeaderSafeTokens(tokens);
  const now = Date.now();
  const claims = tokens.id_token ? tokens.claims() : undefined;
  if (claims && session.sub !== undefined && claims.sub !== session.sub)
    throw new UntrustedTokensError(
      "a refreshed ID token names another subject, the session is ended",
    );
  return {
    ...session,
    ...(claims ? readUser(claims, rolesClaim) : {}),
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? session.refreshToken ?? null,
    idToken: tokens.id_token ?? session.idToken ?? null,
    tokenIssuedAt: now,
    tokenExpiresAt: now + (tokens.expiresIn() ?? DEFAULT_TOKEN_LIFETIME_S) * 1000,
  };
}

export function readUser(claims: Record<string, unknown>, rolesClaim: string) {
  let roles: unknown = claims;
  for (const key of rolesClaim.split(".")) {
    roles =
      roles && typeof roles === "object" ? (roles as Record<string, unknown>)[key] : undefined;
  }
  const names = [claims.name, claims.preferred_username, claims.email, claims.sub];
  const name = names.find((candidate) => typeof candidate === "string" && candidate.trim());
  const roleList = Array.isArray(roles) ? roles : [roles];
  const isText = (role: unknown): role is string => typeof role === "string";
  return { sub: String(claims.sub), name: String(name ?? ""), roles: roleList.filter(isText) };
}

const warnings: Partial<Record<ErrorCode, ReturnType<typeof createThrottledWarning>>> = {
  SIGN_IN_UNAVAILABLE: createThrottledWarning("sign-in: the provider cannot be reached"),
  SIGN_IN_EXPIRED: createThrottledWarning("sign-in: the provider refused a code or refresh token"),
  SIGN_IN_FAILED: createThrottledWarning("sign-in: the provider's answer could not be trusted"),
};

/** The catalogue entry for a failed exchange with the provider, each kind warned at most once a minute. */
export function getProviderFailure(error: unknown, during: string): ErrorCode {
  if (error instanceof UntrustedTokensError) {
    logger.warn({ during }, `sign-in: ${error.message}`);
    return "SIGN_IN_FAILED";
  }
  let isUnreachable = false;
  for (
    let cause = error, depth = 0;
    cause instanceof Error && depth < 5;
    cause = cause.cause, depth++
  ) {
    const { name, message } = cause;
    isUnreachable ||= cause instanceof AnswerTooLargeError || message === "fetch failed";
    isUnreachable ||= name === "TimeoutError" || name === "AbortError";
  }
  const refused = (error as { error?: unknown }).error === "invalid_grant";
  const code = isUnreachable
    ? "SIGN_IN_UNAVAILABLE"
    : refused
      ? "SIGN_IN_EXPIRED"
      : "SIGN_IN_FAILED";
  warnings[code]!({ err: error, during });
  return code;
}
