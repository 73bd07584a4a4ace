import { redirect } from "@remix-run/node";
import { getConfig } from "~/lib/config.server";
import { createErrorResponse } from "~/lib/errors";
import { readVisitor, refreshSession } from "./session.server";
import { getSignInHref, type User } from "./user";

/** Who the visitor is (null when signed out or unknown just now), and the Set-Cookie headers their session needs. */
export async function getUser(request: Request): Promise<{ user: User | null; headers: Headers }> {
  const settings = getConfig().signIn;
  if (!settings) return { user: null, headers: new Headers() };
  const { session, cookies } = await readVisitor(request, settings);
  return { user: session && toUser(session), headers: withCookies(new Headers(), cookies) };
}

/** The signed-in visitor; else a page redirects to sign-in and back, a write answers 401. */
export async function requireUser(request: Request): Promise<User> {
  return toUser(await requireSession(request));
}

export async function requireRole(request: Request, role: string): Promise<User> {
  const user = await requireUser(request);
  if (!user.roles.includes(role)) throw createErrorResponse("FORBIDDEN");
  return user;
}

export async function getAccessToken(request: Request) {
  return (await requireSession(request)).accessToken;
}

/** A fresh access token after the API refused `refused`, refreshed once; else sign in again. */
export async function getRefreshedAccessToken(request: Request, refused: string) {
  const session = await requireSession(request);
  const fresh =
    session.accessToken === refused ? await refreshSession(session, getConfig().signIn!) : session;
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

function signInAgain(request: Request) {
  if (request.method !== "GET") return createErrorResponse("SIGN_IN_REQUIRED");
  const { pathname, search } = new URL(request.url);
  return redirect(getSignInHref(pathname + search), {
    status: 303,
    headers: { "Cache-Control": "no-store" },
  });
}

function withCookies<T extends Headers | Response>(target: T, cookies: string[]): T {
  const headers = target instanceof Headers ? target : target.headers;
  for (const cookie of cookies) headers.append("Set-Cookie", cookie);
  return target;
}

const toUser = ({ name, roles }: User): User => ({ name, roles });
