import type http from "node:http";
import { afterAll, beforeAll } from "vitest";
import {
  startOpenIdProvider,
  signInEnv,
  type OpenIdProvider,
  type OpenIdProviderOptions,
} from "./oidc-provider";
import { buildReferenceApp } from "./reference-app";
import {
  expectNoServerErrors,
  HANG_TIMEOUT_MS,
  projectRoot,
  reservePort,
  startServer,
  type RunningServer,
} from "./server";
import { startUpstream, type Upstream } from "./upstream";

type Options = {
  /** More of the server's environment. */
  env?: Record<string, string>;
  /** Serve the reference app (with the "things" feature) rather than the app's own build. */
  referenceApp?: boolean;
  provider?: Omit<OpenIdProviderOptions, "appOrigins">;
};

export type SignInApp = {
  app: RunningServer;
  provider: OpenIdProvider;
  /** The scripted API behind API_BASE_URL. */
  upstream: Upstream;
  stop: () => Promise<void>;
};

/** A built server with sign-in through a new oidc-provider, its ORIGIN its own address. */
export async function startSignInApp({
  env = {},
  referenceApp = false,
  provider: options,
}: Options = {}) {
  const listener = await reservePort();
  const origin = listener.url;
  const [provider, upstream, cwd] = await Promise.all([
    startOpenIdProvider({ appOrigins: [origin], ...options }),
    startUpstream(),
    referenceApp ? buildReferenceApp() : projectRoot,
  ]);
  const app = await startServer(
    { ...signInEnv(provider, origin), API_BASE_URL: upstream.url, ...env },
    { cwd, listener },
  );
  const stop = async () => {
    await Promise.all([app.stop(), provider.close(), upstream.close()]);
  };
  return { app, provider, upstream, stop };
}

/**
 * `startSignInApp` for the enclosing `describe`: started before its tests, and after them checked
 * for 5xx answers and error-level log lines, then stopped.
 */
export function startSuiteSignInApp(options: Options = {}) {
  const suite = {} as SignInApp;
  beforeAll(async () => {
    Object.assign(suite, await startSignInApp(options));
  }, HANG_TIMEOUT_MS);
  afterAll(async () => {
    if (!suite.app) return;
    try {
      expectNoServerErrors(suite.app);
    } finally {
      await suite.stop();
    }
  });
  return suite;
}

/** The reference feature's one thing, as its API answers it. */
export const THING = {
  id: "1",
  name: "Anchor",
  quantity: 1,
  colour: "red",
  featured: false,
  notes: "",
  version: 1,
};

/**
 * The reference feature's API for sign-in tests: its thing, listed and read by anyone, featured
 * only with a token `accepts` allows (`attempt` counts the feature requests from 1), else 401.
 */
export function answerThingsApi(
  accepts: (authorization: string | undefined, attempt: number) => boolean,
) {
  let attempt = 0;
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "GET" && req.url?.startsWith("/things?"))
      return json(200, { items: [THING], page: 1, pageCount: 1 });
    if (req.method === "GET" && req.url === "/things/1") return json(200, THING);
    if (req.method !== "PUT" || req.url !== "/things/1/featured") return json(404, {});
    if (!accepts(req.headers.authorization, ++attempt))
      return json(401, { error: "invalid_token" });
    return json(200, { ...THING, featured: true });
  };
}

/** Whether a request carries a bearer token. */
export const bearer = (authorization: string | undefined) =>
  /^Bearer [\w.~+/-]+=*$/.test(authorization ?? "");

/** How many refresh-token grants the provider has been asked for so far. */
export const countRefreshes = (provider: { tokenRequests: string[] }) =>
  provider.tokenRequests.filter((grant) => grant === "refresh_token").length;
