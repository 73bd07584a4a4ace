import { redirect } from "@remix-run/node";
import { getConfig } from "~/lib/config.server";
import { createErrorResponse } from "~/lib/errors";
import { readVisitor, refreshSession } from "./session.server";
import { getSignInHref, type User } from "./user";

/**
 * Who the visitor is and the Set-Cookie values their session needs this request (a page's
 * layout sends them). Null when signed out, when sign-in is off (nothing of it is loaded then),
 * or when the session store cannot answer: a page that only varies shows itself signed out.
 */
export async function getUser(request: Request): Promise<{ user: User | null; headers: Headers }> {
  const settings = getConfig().signIn;
  if (!settings) return { user: null, headers: new Headers() };
  const { session, cookies } = await readVisitor(request, settings);
  return { user: session && { name: session.name, roles: session.roles }, headers: toHeaders(cookies) };
}

/**
 * The signed-in visitor, or a thrown response: a page (GET) redirects to sign-in and back here;
 * a write answers 401. A session store that cannot answer is a 503. Call it first in loaders
 * and actions.
 */
export async function requireUser(request: Request): Promise<User> {
  return toUser(await requireSession(request));
}

/** The signed-in visitor holding `role` (OIDC_ROLES_CLAIM), else the catalogue's 403. */
export async function requireRole(request: Request, role: string): Promise<User> {
  const user = await requireUser(request);
  if (!user.roles.includes(role)) throw createErrorResponse("FORBIDDEN");
  return user;
}

/** The visitor's access token for a call on their behalf (requireUser's refusals apply). */
export async function getAccessToken(request: Request) {
  return (await requireSession(request)).accessToken;
}

/**
 * A fresh access token after the API refused `refused`: refreshed once (or already refreshed by
 * another request); when that is not possible the visitor is asked to sign in again.
 */
export async function getRefreshedAccessToken(request: Request, refused: string) {
  const settings = getConfig().signIn!;
  const session = await requireSession(request);
  const fresh = session.accessToken === refused ? await refreshSession(session, settings) : session;
  if (!fresh || fresh.accessToken === refused) throw signInAgain(request);
  return fresh.accessToken;
}

async function requireSession(request: Request) {
  const settings = getConfig().signIn;
  if (!settings) throw createErrorResponse("SIGN_IN_REQUIRED");
  const { session, cookies, storeUnavailable } = await readVisitor(request, settings);
  if (storeUnavailable) throw withCookies(createErrorResponse("SIGN_IN_UNAVAILABLE"), cookies);
  if (!session) throw withCookies(signInAgain(request), cookies);
  return session;
}

/** A GET page goes to sign-in and comes back; anything else answers 401. */
function signInAgain(request: Request) {
  if (request.method !== "GET") return createErrorResponse("SIGN_IN_REQUIRED");
  const { pathname, search } = new URL(request.url);
  return redirect(getSignInHref(pathname + search), {
    status: 303,
    headers: { "Cache-Control": "no-store" },
  });
}

function withCookies(response: Response, cookies: string[]) {
  for (const cookie of cookies) response.headers.append("Set-Cookie", cookie);
  return response;
}

function toHeaders(cookies: string[]) {
  const headers = new Headers();
  for (const cookie of cookies) headers.append("Set-Cookie", cookie);
  return headers;
}

function toUser(session: User): User {
  return { name: session.name, roles: session.roles };
}
