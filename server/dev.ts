import { randomBytes } from "node:crypto";
import path from "node:path";
import type { RequestHandler } from "express";
import pino from "pino";
import { startApiMock } from "./api-mock/api-mock";
import { startSignInProvider } from "./api-mock/sign-in";
import { startServer } from "./process/main";

// `npm run dev`'s server, which `remix dev` starts again after each build: the production
// server's own start, with the API mock as the API while API_MOCK is on (the default when no
// API_BASE_URL is set), and a sign-in provider of its own. Nothing here is in the server's bundle.

process.env.NODE_ENV ||= "development";
const env = process.env;
env.API_MOCK ||= env.API_BASE_URL ? "false" : "true";
const logger = pino({
  level: env.LOG_LEVEL || "info",
  base: undefined,
  ...(env.NODE_ENV === "development" ? { transport: { target: "pino-pretty" } } : {}),
});
const developmentSteps: RequestHandler[] = [];

if (env.API_MOCK === "true") {
  if (env.API_BASE_URL) {
    process.stderr.write("Invalid environment variable API_MOCK: the mock is the API; unset one\n");
    process.exit(1);
  }
  const mock = await startApiMock({
    contracts: path.resolve("app/api/contracts"),
    healthPath: env.API_HEALTH_PATH || "/",
    logger,
  });
  env.API_BASE_URL = mock.url;
  developmentSteps.push(mock.scenarioStep);
  if (!env.OIDC_ISSUER) await startSignIn();
}

await startServer({ developmentSteps });

// Any login name signs in, and is also the visitor's one role: `editor` may feature a thing.
async function startSignIn() {
  const port = Number(env.PORT || 3000);
  env.ORIGIN ||= port ? `http://localhost:${port}` : "";
  if (!env.ORIGIN)
    return logger.warn("sign-in is off: set ORIGIN, the address pages are opened at");
  const provider = await startSignInProvider({
    appOrigins: [env.ORIGIN],
    findAccount: (login) =>
      /^[\w.@+-]{1,64}$/.test(login) ? { name: login, roles: [login] } : undefined,
  });
  env.OIDC_ISSUER = provider.issuer;
  env.OIDC_CLIENT_ID = provider.clientId;
  env.OIDC_CLIENT_SECRET = provider.clientSecret;
  env.SESSION_SECRET ||= randomBytes(32).toString("hex");
  logger.info({ issuer: provider.issuer }, `sign-in with any login name at ${env.ORIGIN}`);
}
