import type {
  Configuration,
  CustomFetch,
  TokenEndpointResponse,
  TokenEndpointResponseHelpers,
} from "openid-client";
import type { SignInSettings } from "~/lib/config.server";
import type { ErrorCode } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
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
  const fetchWithDeadline: CustomFetch = (url, options) =>
    fetch(url, {
      ...options,
      body: options.body as BodyInit | undefined,
      signal: AbortSignal.timeout(settings.timeoutMs),
      redirect: "error",
    });
  const isHttp = new URL(settings.issuer).protocol === "http:";
  const config = await client.discovery(
    new URL(settings.issuer),
    settings.clientId,
    { redirect_uris: [settings.redirectUri], response_types: ["code"] },
    settings.clientSecret ? client.ClientSecretBasic(settings.clientSecret) : client.None(),
    {
      [client.customFetch]: fetchWithDeadline,
      execute: isHttp ? [client.allowInsecureRequests] : [],
    },
  );
  config[client.customFetch] = fetchWithDeadline;
  // openid-client trusts an ID token from the token endpoint on TLS alone; its signature is checked too.
  client.enableNonRepudiationChecks(config);
  return {
    client,
    config: config as Configuration,
    canEndSession: Boolean(config.serverMetadata().end_session_endpoint),
  };
}

/**
 * The catalogue entry for a failed exchange with the provider: an authorization code it refuses
 * (used, expired) means the sign-in must start again; no answer in time or no connection, that
 * it is unavailable; anything else (a bad signature, a wrong issuer, audience or nonce, an
 * expired ID token, an error status, garbage) that its answer could not be trusted.
 */
export function getProviderFailure(error: unknown, during: string): ErrorCode {
  const causes: unknown[] = [];
  for (let cause = error; cause instanceof Error && causes.length < 5; cause = cause.cause)
    causes.push(cause);
  const isUnreachable = causes.some(
    (cause) =>
      cause instanceof Error &&
      (cause.name === "TimeoutError" || cause.name === "AbortError" || cause.message === "fetch failed"),
  );
  const oauthError = (error as { error?: unknown }).error;
  const code: ErrorCode = isUnreachable
    ? "SIGN_IN_UNAVAILABLE"
    : oauthError === "invalid_grant"
      ? "SIGN_IN_EXPIRED"
      : "SIGN_IN_FAILED";
  logger.warn({ err: error, code }, `sign-in: ${during} failed`);
  return code;
}
