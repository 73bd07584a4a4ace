import { randomBytes } from "node:crypto";
import { z } from "zod";
import packageJson from "../../package.json";
import { APP_NAME } from "./constants";

const port = z.coerce.number().int().min(0).max(65_535);
const milliseconds = z.coerce.number().int().min(1).max(3_600_000);
const seconds = z.coerce.number().int().min(1).max(31_536_000);
const redisUrl = z
  .string()
  .refine((value) => /^rediss?:$/.test(URL.canParse(value) ? new URL(value).protocol : ""), {
    message: "must be a redis:// or rediss:// URL",
  });

const EnvSchema = z.object({
  /** `production` unless set; `development` turns on readable logs and live reload. */
  NODE_ENV: z.enum(["production", "development", "test"]).default("production"),
  /** TCP port to listen on; 0 picks a free one (tests use this). */
  PORT: port.default(3000),
  /** Interface to listen on; unset listens on all of them. */
  HOST: z.string().min(1).optional(),
  /**
   * The public origin visitors use, e.g. `https://example.com`. Unset in local use.
   * When it is https, cookies are marked Secure.
   */
  ORIGIN: z.string().transform(toOrigin).optional(),
  /**
   * Signs cookies. Comma-separated for rotation: the first signs, all verify.
   * Every instance behind one load balancer needs the same value.
   */
  SESSION_SECRET: z
    .string()
    .transform((value) => value.split(",").map((secret) => secret.trim()))
    .pipe(z.array(z.string().min(32, "each secret must be at least 32 characters")).min(1))
    .optional(),
  /** pino level: fatal, error, warn, info, debug, trace or silent. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** How long the server goes on serving after SIGTERM/SIGINT, /readyz answering 503, before it drains. */
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(0),
  /** How long in-flight requests may run once draining starts, before the process exits. */
  SHUTDOWN_TIMEOUT_MS: milliseconds.default(10_000),
  /** Time a client has to send all request headers. */
  HEADERS_TIMEOUT_MS: milliseconds.default(10_000),
  /** Time a client has to send the whole request. */
  REQUEST_TIMEOUT_MS: milliseconds.default(30_000),
  /** How long an answer may wait on a client that has stopped reading it before the connection is closed. */
  SEND_TIMEOUT_MS: milliseconds.default(30_000),
  /** How long an idle keep-alive connection stays open. */
  KEEP_ALIVE_TIMEOUT_MS: milliseconds.default(5_000),
  /** Largest request body accepted, in bytes; larger ones are refused with 413. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1).max(1_073_741_824).default(1_048_576),
  /** Base URL of the API the app calls, e.g. `https://api.example.com/v1`; unset when it calls none. */
  API_BASE_URL: z.string().transform(toBaseUrl).optional(),
  /** Deadline for one call to the API, retries included; also bounds the readiness check. */
  API_TIMEOUT_MS: milliseconds.default(5_000),
  /** Path under API_BASE_URL that /readyz asks; any answer below 500 counts as ready. */
  API_HEALTH_PATH: z
    .string()
    .regex(/^\/[^?#]*$/, "must be a path starting with /")
    .default("/"),
  /** Largest API response body read, in bytes; a larger one counts as a bad response. */
  API_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1).max(1_073_741_824).default(1_048_576),
  /** `true` behind one reverse proxy: trust its X-Forwarded-* headers (else they are dropped). */
  TRUST_PROXY: z
    .enum(["true", "false"])
    .default("false")
    .transform((value) => value === "true"),
  /** State-changing requests allowed per client IP per minute; 0 turns the limit off. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(100),
  /** A Redis every instance shares: the write limit is counted there; unset, each counts its own. */
  RATE_LIMIT_REDIS_URL: redisUrl.optional(),
  /** Port of the Prometheus metrics endpoint (`GET /metrics`), apart from the app's; unset: off. */
  METRICS_PORT: port.optional(),
  /** Most fields one form post may carry; more are refused with 413 before any is parsed. */
  FORM_MAX_FIELDS: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /** OTLP/HTTP collector base URL (`http://collector:4318`) for spans; unset, nothing is exported. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().transform(toBaseUrl).optional(),
  /** The OpenID Connect provider's issuer URL; with OIDC_CLIENT_ID it turns sign-in on (docs/sign-in.md). */
  OIDC_ISSUER: z.string().transform(toIssuer).optional(),
  /** This app's client id at the provider. */
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  /** The client's secret, for a confidential client; unset, a public client (PKCE only). */
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** The ID token claim holding the visitor's roles; a dotted path reads nested claims. */
  OIDC_ROLES_CLAIM: z
    .string()
    .regex(/^[^.\s]+(\.[^.\s]+)*$/, "must be a claim name or a dotted path such as realm_access.roles")
    .default("roles"),
  /** Space-separated scopes asked for at sign-in; `openid` must be one. */
  OIDC_SCOPES: z
    .string()
    .transform((value) => value.split(/\s+/).filter(Boolean))
    .refine((scopes) => scopes.includes("openid"), { message: "must include openid" })
    .default(["openid", "profile", "email"]),
  /** Deadline for one request to the provider (discovery, token, keys), its answer read whole. */
  OIDC_TIMEOUT_MS: milliseconds.default(5_000),
  /** Largest answer read from the provider, in bytes; a larger one makes sign-in unavailable. */
  OIDC_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1_024).max(1_073_741_824).default(1_048_576),
  /** A signed-in visitor idle this long is signed out. */
  SESSION_IDLE_SECONDS: seconds.default(3_600),
  /** A session ends this long after sign-in, whatever the activity. */
  SESSION_MAX_SECONDS: seconds.default(43_200),
  /** A Redis every instance shares for sessions; unset, sessions live in this process's memory. */
  SESSION_REDIS_URL: redisUrl.optional(),
});

function toOrigin(value: string, ctx: z.RefinementCtx) {
  const url = URL.canParse(value) ? new URL(value) : null;
  const isHttp = url?.protocol === "https:" || url?.protocol === "http:";
  if (url && isHttp && url.origin === value.replace(/\/$/, "")) return url.origin;
  ctx.addIssue({
    code: "custom",
    message: "must be an http(s) origin such as https://example.com, with no path",
  });
  return z.NEVER;
}

function toBaseUrl(value: string, ctx: z.RefinementCtx) {
  const url = URL.canParse(value) ? new URL(value) : null;
  const isHttp = url?.protocol === "https:" || url?.protocol === "http:";
  if (url && isHttp && !url.search && !url.hash && !url.username && !url.password) {
    return url.href.replace(/\/$/, "");
  }
  ctx.addIssue({ code: "custom", message: "must be an http(s) URL such as https://api.example.com/v1" });
  return z.NEVER;
}

// Plain http reaches the provider only on this machine (development and tests).
function toIssuer(value: string, ctx: z.RefinementCtx) {
  const url = URL.canParse(value) ? new URL(value) : null;
  const isLoopback =
    url?.hostname === "localhost" || url?.hostname === "127.0.0.1" || url?.hostname === "[::1]";
  if (
    url &&
    !url.search &&
    !url.hash &&
    (url.protocol === "https:" || (url.protocol === "http:" && isLoopback))
  ) {
    return url.href;
  }
  ctx.addIssue({
    code: "custom",
    message: "must be an https URL such as https://login.example.com/realms/app",
  });
  return z.NEVER;
}

/** The sign-in settings, or null when sign-in is off; throws ConfigError when they cannot work. */
function getSignIn(env: z.output<typeof EnvSchema>) {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, ORIGIN } = env;
  if (!issuer && !clientId) return null;
  if (!issuer)
    throw new ConfigError("Invalid environment variable OIDC_ISSUER: required with OIDC_CLIENT_ID");
  if (!clientId)
    throw new ConfigError("Invalid environment variable OIDC_CLIENT_ID: required with OIDC_ISSUER");
  if (!ORIGIN) {
    throw new ConfigError(
      "Invalid environment variable ORIGIN: required for sign-in, whose redirect address is ORIGIN/auth/callback",
    );
  }
  if (!env.SESSION_SECRET) {
    throw new ConfigError(
      "Invalid environment variable SESSION_SECRET: required for sign-in, whose cookies every instance must trust",
    );
  }
  if (env.SESSION_IDLE_SECONDS > env.SESSION_MAX_SECONDS) {
    throw new ConfigError(
      "Invalid environment variable SESSION_IDLE_SECONDS: must not exceed SESSION_MAX_SECONDS",
    );
  }
  return {
    issuer,
    clientId,
    clientSecret: env.OIDC_CLIENT_SECRET ?? null,
    rolesClaim: env.OIDC_ROLES_CLAIM,
    scopes: env.OIDC_SCOPES,
    timeoutMs: env.OIDC_TIMEOUT_MS,
    maxResponseBytes: env.OIDC_MAX_RESPONSE_BYTES,
    origin: ORIGIN,
    redirectUri: `${ORIGIN}/auth/callback`,
    idleSeconds: env.SESSION_IDLE_SECONDS,
    maxSeconds: env.SESSION_MAX_SECONDS,
    redisUrl: env.SESSION_REDIS_URL ?? null,
  };
}

export type SignInSettings = NonNullable<Config["signIn"]>;

export type Config = ReturnType<typeof parseConfig>;

export class ConfigError extends Error {
  name = "ConfigError";
}

/** Parses an environment into the app's configuration; throws ConfigError naming the first bad variable. */
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
  const { SESSION_SECRET, ...rest } = result.data;
  return {
    ...rest,
    sessionSecrets: SESSION_SECRET ?? null,
    secureCookies: rest.ORIGIN?.startsWith("https:") ?? false,
    signIn: getSignIn(result.data),
  };
}

let config: Config | undefined;

/**
 * The configuration of this process, parsed once. Without SESSION_SECRET a random secret is
 * made and written back to `process.env`, so the server and the Remix build (bundled apart,
 * each with its own copy of this module) agree on it.
 */
export function getConfig(): Config {
  if (config) return config;
  const parsed = parseConfig(process.env);
  if (!parsed.sessionSecrets) {
    const secret = randomBytes(32).toString("hex");
    process.env.SESSION_SECRET = secret;
    parsed.sessionSecrets = [secret];
    generatedSecret = true;
  }
  config = parsed;
  return config;
}

/** True when getConfig had to generate SESSION_SECRET (the server warns once at start). */
export let generatedSecret = false;

/** The only configuration that reaches the browser: add to it deliberately. */
export function getPublicConfig() {
  return { appName: APP_NAME, version: packageJson.version };
}
