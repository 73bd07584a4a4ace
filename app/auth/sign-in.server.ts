import { redirect } from "@remix-run/node";
import type { SignInSettings } from "~/lib/config.server";
import { createErrorResponse, type ErrorCode } from "~/lib/errors";
import { logger } from "~/lib/logger.server";
import { getSafeRedirect } from "~/lib/safe-redirect";
import { getProvider, getProviderFailure } from "./provider.server";
import { CookieTooLargeError, createSealedCookie } from "./sealed-cookie.server";
import { getSessionStore, readUser, readVisitor, withTokens } from "./session.server";
import { createSessionId, StoreUnavailableError, type Session } from "./session-store.server";

// How long a visitor has at the provider between leaving this site and coming back.
const SIGN_IN_SECONDS = 600;

type SignInTransaction = { state: string; nonce: string; verifier: string; redirectTo: string };

let transactionCookie: ReturnType<typeof createSealedCookie<SignInTransaction>> | undefined;
const getTransactionCookie = () => (transactionCookie ??= createSealedCookie<SignInTransaction>("sign-in"));

/**
 * Sends the visitor to the provider (authorization code flow with PKCE S256, state and nonce),
 * remembering in an encrypted cookie of this browser what the callback must find.
 */
export async function startSignIn(request: Request, settings: SignInSettings) {
  const redirectTo = getSafeRedirect(new URL(request.url).searchParams.get("redirectTo"));
  const provider = await getProvider(settings).catch((error: unknown) => {
    throw createErrorResponse(getProviderFailure(error, "discovery"));
  });
  const { client } = provider;
  const transaction = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    verifier: client.randomPKCECodeVerifier(),
    redirectTo,
  };
  const url = client.buildAuthorizationUrl(provider.config, {
    redirect_uri: settings.redirectUri,
    scope: settings.scopes.join(" "),
    state: transaction.state,
    nonce: transaction.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(transaction.verifier),
    code_challenge_method: "S256",
  });
  const cookie = await getTransactionCookie().seal(transaction, SIGN_IN_SECONDS);
  return redirect(url.href, { status: 303, headers: { "Set-Cookie": cookie, "Cache-Control": "no-store" } });
}

/**
 * The provider's answer: the code exchanged and the ID token validated by openid-client, then a
 * new session (a new id, the old one ended) and a 303 to where the visitor was going. The
 * transaction is used once; anything wrong is a catalogue page, never a session.
 */
export async function finishSignIn(request: Request, settings: SignInSettings) {
  const cookies = getTransactionCookie();
  const refuse = (code: ErrorCode) => {
    const response = createErrorResponse(code);
    response.headers.append("Set-Cookie", cookies.clear());
    response.headers.set("Cache-Control", "no-store");
    return response;
  };
  const params = new URL(request.url).searchParams;
  if (params.has("error")) {
    logger.info({ error: params.get("error")?.slice(0, 100) }, "sign-in: the provider refused");
    throw refuse("SIGN_IN_DENIED");
  }
  if (params.getAll("code").length !== 1 || params.getAll("state").length > 1) throw refuse("BAD_REQUEST");
  const transaction = await cookies.open(request);
  const state = params.get("state");
  if (!transaction || !state || state !== transaction.state) throw refuse("SIGN_IN_EXPIRED");
  const sessions = await getSessionStore(settings);
  try {
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
    const claims = tokens.claims();
    if (!claims) throw new Error("no ID token");
    const now = Date.now();
    const session: Session = withTokens(
      { id: createSessionId(), ...readUser(claims, settings.rolesClaim), createdAt: now, seenAt: now },
      tokens,
      settings,
    );
    const { session: previous } = await readVisitor(request, settings);
    const ended = previous ? await sessions.remove(previous) : [];
    const headers = new Headers({ "Cache-Control": "no-store" });
    for (const cookie of [...ended, cookies.clear(), ...(await sessions.save(session, settings))]) {
      headers.append("Set-Cookie", cookie);
    }
    logger.info({ sub: session.sub }, "sign-in: signed in");
    return redirect(transaction.redirectTo, { status: 303, headers });
  } catch (error) {
    if (error instanceof Response) throw error;
    if (error instanceof StoreUnavailableError) throw refuse("SIGN_IN_UNAVAILABLE");
    if (error instanceof CookieTooLargeError) {
      logger.warn("sign-in: the provider's tokens do not fit a cookie; set SESSION_REDIS_URL");
      throw refuse("SIGN_IN_FAILED");
    }
    throw refuse(getProviderFailure(error, "code exchange"));
  }
}

/**
 * Ends the session here, then at the provider when it offers RP-initiated logout (which sends the
 * visitor back to the home page), else goes home directly.
 */
export async function signOut(request: Request, settings: SignInSettings) {
  const headers = new Headers({ "Cache-Control": "no-store" });
  let idToken: string | null = null;
  try {
    const sessions = await getSessionStore(settings);
    const { session } = await readVisitor(request, settings);
    idToken = session?.idToken ?? null;
    for (const cookie of await sessions.remove(session)) headers.append("Set-Cookie", cookie);
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
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
