import { randomBytes } from "node:crypto";
import type { z } from "zod";
import packageJson from "../../package.json";
import { APP_NAME } from "./constants";
import { EnvSchema } from "./env.server";

/** The sign-in settings, or null when sign-in is off; throws ConfigError when they cannot work. */
function getSignIn(env: z.output<typeof EnvSchema>) {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, ORIGIN: origin } = env;
  if (!issuer && !clientId) return null;
  const problems: [string, boolean][] = [
    ["OIDC_ISSUER: required with OIDC_CLIENT_ID", !issuer],
    ["OIDC_CLIENT_ID: required with OIDC_ISSUER", !clientId],
    ["ORIGIN: required for sign-in, whose redirect address is ORIGIN/auth/callback", !origin],
    [
      "SESSION_SECRET: required for sign-in, whose cookies every instance must trust",
      !env.SESSION_SECRET,
    ],
    [
      "SESSION_IDLE_SECONDS: must not exceed SESSION_MAX_SECONDS",
      env.SESSION_IDLE_SECONDS > env.SESSION_MAX_SECONDS,
    ],
  ];
  const problem = problems.find(([, found]) => found);
  if (problem) throw new ConfigError(`Invalid environment variable ${problem[0]}`);
  return {
    issuer: issuer!,
    clientId: clientId!,
    clientSecret: env.OIDC_CLIENT_SECRET ?? null,
    rolesClaim: env.OIDC_ROLES_CLAIM,
    scopes: env.OIDC_SCOPES,
    timeoutMs: env.OIDC_TIMEOUT_MS,
    maxResponseBytes: env.OIDC_MAX_RESPONSE_BYTES,
    origin: origin!,
    redirectUri: `${origin}/auth/callback`,
    idleSeconds: env.SESSION_IDLE_SECONDS,
    maxSeconds: env.SESSION_MAX_SECONDS,
    redisUrl: env.SESSION_REDIS_URL ?? null,
  };
}

/** The security.txt's fields (RFC 9116), or null when it is off: Contact and Expires turn it on. */
function getSecurityTxt(env: z.output<typeof EnvSchema>) {
  const { SECURITY_TXT_CONTACT: contact, SECURITY_TXT_EXPIRES: expires } = env;
  if (!contact && !expires) return null;
  if (!contact || !expires) {
    const missing = contact ? "SECURITY_TXT_EXPIRES" : "SECURITY_TXT_CONTACT";
    throw new ConfigError(`Invalid environment variable ${missing}: required for a security.txt`);
  }
  return {
    contact,
    expires: new Date(expires),
    policy: env.SECURITY_TXT_POLICY ?? null,
    canonical: env.ORIGIN ? `${env.ORIGIN}/.well-known/security.txt` : null,
  };
}

/** The mock answers in development only, on this machine: never for visitors, never elsewhere. */
function checkApiMock(env: z.output<typeof EnvSchema>) {
  if (!env.API_MOCK) return;
  const host = env.API_BASE_URL && new URL(env.API_BASE_URL).hostname;
  if (env.NODE_ENV === "production")
    throw new ConfigError(
      "Invalid environment variable API_MOCK: the API mock is for development, not production",
    );
  if (host && !["localhost", "127.0.0.1", "[::1]"].includes(host))
    throw new ConfigError(
      "Invalid environment variable API_MOCK: the mock answers on this machine, not API_BASE_URL",
    );
}

export type SignInSettings = NonNullable<Config["signIn"]>;

export type Config = ReturnType<typeof parseConfig>;

export class ConfigError extends Error {
  name = "ConfigError";
}

export function parseConfig(env: Record<string, string | undefined>) {
  const withoutBlanks = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const result = EnvSchema.safeParse(withoutBlanks);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    throw new ConfigError(`Invalid environment variable ${name}: ${issue.message}`);
  }
  checkApiMock(result.data);
  const { SESSION_SECRET, ...rest } = result.data;
  return {
    ...rest,
    sessionSecrets: SESSION_SECRET ?? null,
    sessionSecretGenerated: false,
    secureCookies: rest.ORIGIN?.startsWith("https:") ?? false,
    signIn: getSignIn(result.data),
    securityTxt: getSecurityTxt(result.data),
  };
}

let config: Config | undefined;

/** The configuration, read once; without SESSION_SECRET, a random one for this process. */
export function getConfig(): Config {
  if (config) return config;
  const parsed = parseConfig(process.env);
  const random = [randomBytes(32).toString("hex")];
  config = parsed.sessionSecrets
    ? parsed
    : { ...parsed, sessionSecrets: random, sessionSecretGenerated: true };
  return config;
}

/** The only configuration that reaches the browser: add to it deliberately. */
export function getPublicConfig() {
  return { appName: APP_NAME, version: packageJson.version };
}
