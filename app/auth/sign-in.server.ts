import { redirect } from "@remix-run/node";
import type { SignInSettings } from "~/lib/config.server";
import { createSignedCookie } from "~/lib/cookies.server";
import { createErrorResponse, type ErrorCode } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
import { RedisUnavailableError } from "~/lib/redis.server";
import { getSafeRedirect } from "~/lib/safe-redirect";
import { getProvider, getProviderFailure, readUser, withTokens } from "./provider.server";
import { getSessionStore, readVisitor } from "./session.server";
import { createSessionId } from "./session-store.server";

// How long a visitor has at the provider between leaving this site and coming back.
const SIGN_IN_SECONDS = 600;

type SignInTransaction = {
  state: string;
  nonce: string;
  verifier: string;
  redirectTo: string;
  startedAt: number;
};

// Signed, not sealed: none of it is secret from the browser that started the sign-in.
function getTransactionCookie() {
  const cookie = createSignedCookie("sign-in");
  return {
    write: (transaction: SignInTransaction) =>
      cookie.serialize(transaction, { maxAge: SIGN_IN_SECONDS }),
    async read(request: Request) {
      const value: unknown = await cookie.parse(request.headers.get("Cookie"));
      const { state, nonce, verifier, redirectTo, startedAt } = (value ?? {}) as Record<
        string,
        unknown
      >;
      const isText = [state, nonce, verifier, redirectTo].every(
        (field) => typeof field === "string",
      );
      const isRecent =
        typeof startedAt === "number" && Date.now() - startedAt < SIGN_IN_SECONDS * 1000;
      return isText && isRecent ? (value as SignInTransaction) : null;
    },
    clear: () => cookie.serialize("", { maxAge: 0 }),
  };
}

/** Sends the visitor to the provider: the authorization code flow with PKCE (S256), state and nonce. */
export async function startSignIn(request: Request, settings: SignInSettings) {
  const redirectTo = getSafeRedirect(new URL(request.url).searchParams.get("redirectTo"));
  const { client, config } = await getProvider(settings).catch((error: unknown) => {
    throw createErrorResponse(getProviderFailure(error, "discovery"));
  });
  const transaction = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    verifier: client.randomPKCECodeVerifier(),
    redirectTo,
    startedAt: Date.now(),
  };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: settings.redirectUri,
    scope: settings.scopes.join(" "),
    state: transaction.state,
    nonce: transaction.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(transaction.verifier),
    code_challenge_method: "S256",
  });
  const cookie = await getTransactionCookie().write(transaction);
  return redirect(url.href, {
    status: 303,
    headers: { "Set-Cookie": cookie, "Cache-Control": "no-store" },
  });
}

/** The provider's answer: a new session (the old one ended) and a 303 onwards, else a catalogue page. */
export async function finishSignIn(request: Request, settings: SignInSettings) {
  const cookies = getTransactionCookie();
  const clearTransaction = await cookies.clear();
  const refuse = (code: ErrorCode) => {
    const response = createErrorResponse(code);
    response.headers.append("Set-Cookie", clearTransaction);
    response.headers.set("Cache-Control", "no-store");
    return response;
  };
  const params = new URL(request.url).searchParams;
  if (params.has("error")) {
    logger.info({ error: params.get("error")?.slice(0, 100) }, "sign-in: the provider refused");
    throw refuse("SIGN_IN_DENIED");
  }
  const codes = params.getAll("code");
  const repeated = ["state", "iss"].some((name) => params.getAll(name).length > 1);
  if (codes.length !== 1 || !codes[0] || repeated) throw refuse("BAD_REQUEST");
  const transaction = await cookies.read(request);
  if (!transaction || params.get("state") !== transaction.state) throw refuse("SIGN_IN_EXPIRED");
  try {
    const sessions = await getSessionStore(settings);
    if (!(await sessions.claimOnce(`sign-in:${transaction.state}`, SIGN_IN_SECONDS)))
      throw refuse("SIGN_IN_EXPIRED");
    const provider = await getProvider(settings);
    const callbackUrl = new URL(settings.redirectUri);
    callbackUrl.search = new URL(request.url).search;
    const tokens = await provider.client.authorizationCodeGrant(provider.config, callbackUrl, {
      pkceCodeVerifier: transaction.verifier,
      expectedState: transaction.state,
      expectedNonce: transaction.nonce,
      idTokenExpected: true,
    });
    const now = Date.now();
    const user = { id: createSessionId(), ...readUser(tokens.claims()!, settings.rolesClaim) };
    const session = withTokens(
      { ...user, createdAt: now, seenAt: now },
      tokens,
      settings.rolesClaim,
    );
    const { session: previous } = await readVisitor(request, settings);
    const headers = new Headers({ "Cache-Control": "no-store" });
    if (previous) headers.append("Set-Cookie", await sessions.remove(previous));
    headers.append("Set-Cookie", clearTransaction);
    headers.append("Set-Cookie", (await sessions.save(session))!);
    logger.info({ sub: session.sub }, "sign-in: signed in");
    return redirect(transaction.redirectTo, { status: 303, headers });
  } catch (error) {
    if (error instanceof Response) throw error;
    if (error instanceof RedisUnavailableError) throw refuse("SIGN_IN_UNAVAILABLE");
    throw refuse(getProviderFailure(error, "code exchange"));
  }
}

/** Ends the session here, then at the provider when it offers RP-initiated logout, else goes home. */
export async function signOut(request: Request, settings: SignInSettings) {
  const headers = new Headers({ "Cache-Control": "no-store" });
  let idToken: string | null = null;
  try {
    // As stored: ending a session waits on no token refresh.
    const sessions = await getSessionStore(settings);
    const session = await sessions.load(request);
    idToken = session?.idToken ?? null;
    headers.append("Set-Cookie", await sessions.remove(session));
  } catch (error) {
    if (!(error instanceof RedisUnavailableError)) throw error;
    throw createErrorResponse("SIGN_IN_UNAVAILABLE");
  }
  const provider = await getProvider(settings).catch(() => null);
  if (!provider?.canEndSession) return redirect("/", { status: 303, headers });
  const url = provider.client.buildEndSessionUrl(provider.config, {
    post_logout_redirect_uri: `${settings.origin}/`,
    client_id: settings.clientId,
    ...(idToken ? { id_token_hint: idToken } : {}),
  });
  return redirect(url.href, { status: 303, headers });
}
