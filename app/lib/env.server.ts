import { z } from "zod";
import { LANGUAGE_TAG } from "~/i18n/locales";

// Every environment variable the app reads, validated once by getConfig (config.server.ts);
// docs/configuration.md has a row for each.

const port = z.coerce.number().int().min(0).max(65_535);
const milliseconds = z.coerce.number().int().min(1).max(3_600_000);
const seconds = z.coerce.number().int().min(1).max(31_536_000);
const bytes = z.coerce.number().int().min(1).max(1_073_741_824);
const redisUrl = z
  .string()
  .refine(
    (value) => (/^rediss?:\/\//.test(value) ? URL.canParse(value) : /^unix:\/\/\/./.test(value)),
    {
      message: "must be a redis://, rediss:// or unix:///path/to/redis.sock URL",
    },
  );

/** An http(s) URL `accept`s, as `transform` makes it, else the issue `example` explains. */
const url = (
  example: string,
  accept: (url: URL, text: string) => boolean,
  transform: (url: URL) => string,
) =>
  z.string().transform((text, ctx) => {
    const parsed = URL.canParse(text) ? new URL(text) : null;
    if (parsed && /^https?:$/.test(parsed.protocol) && accept(parsed, text))
      return transform(parsed);
    ctx.addIssue({ code: "custom", message: `must be ${example}` });
    return z.NEVER;
  });
const plain = (url: URL) => !url.search && !url.hash && !url.username && !url.password;
const isLoopback = (url: URL) => ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);

export const EnvSchema = z.object({
  /** `production` unless set; `development` turns on readable logs and live reload. */
  NODE_ENV: z.enum(["production", "development", "test"]).default("production"),
  /** TCP port to listen on; 0 picks a free one. Unused when a socket is handed over (LISTEN_FDS). */
  PORT: port.default(3000),
  /** Interface to listen on; unset listens on all of them. */
  HOST: z.string().min(1).optional(),
  /** The public origin visitors use (`https://example.com`); when https, cookies are Secure. */
  ORIGIN: url(
    "an http(s) origin such as https://example.com, with no path",
    (url, text) => url.origin === text.replace(/\/$/, ""),
    (url) => url.origin,
  ).optional(),
  /** Signs cookies; comma-separated to rotate (the first signs, all verify); one for all. */
  SESSION_SECRET: z
    .string()
    .transform((value) => value.split(",").map((secret) => secret.trim()))
    .pipe(z.array(z.string().min(32, "each secret must be at least 32 characters")).min(1))
    .optional(),
  /** pino level: fatal, error, warn, info, debug, trace or silent. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** How long the server serves on after SIGTERM or SIGINT, /readyz answering 503. */
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(0),
  /** How long in-flight requests may run once draining starts, before the process exits. */
  SHUTDOWN_TIMEOUT_MS: milliseconds.default(10_000),
  /** Time a client has to send all request headers. */
  HEADERS_TIMEOUT_MS: milliseconds.default(10_000),
  /** Time a client has to send the whole request. */
  REQUEST_TIMEOUT_MS: milliseconds.default(30_000),
  /** How long an answer waits on a client that stopped reading it before the connection closes. */
  SEND_TIMEOUT_MS: milliseconds.default(30_000),
  /**
   * How long an idle keep-alive connection stays open: longer than the 60 s a proxy in front keeps
   * one (nginx, ingress-nginx, AWS ALB), so the proxy closes first and never reuses a closing one.
   */
  KEEP_ALIVE_TIMEOUT_MS: milliseconds.default(65_000),
  /** Largest request body accepted; larger ones are refused with 413. */
  BODY_LIMIT_BYTES: bytes.default(1_048_576),
  /** Base URL of the API the app calls (`https://api.example.com/v1`); unset when it calls none. */
  API_BASE_URL: url("an http(s) URL such as https://api.example.com/v1", plain, (url) =>
    url.href.replace(/\/$/, ""),
  ).optional(),
  /** Deadline for one call to the API, retries included; also bounds the readiness check. */
  API_TIMEOUT_MS: milliseconds.default(5_000),
  /** Path under API_BASE_URL that /readyz asks: a 2xx, 401, 403, 404 or 405 counts as ready. */
  API_HEALTH_PATH: z
    .string()
    .regex(/^\/[^?#:]*$/, "must be a path starting with /, without ?, # or :")
    .transform((path) => path as `/${string}`)
    .default("/"),
  /** `true`: the API is the development mock (`npm run dev` sets it); refused in production. */
  API_MOCK: z
    .enum(["true", "false"])
    .default("false")
    .transform((value) => value === "true"),
  /** Largest API answer read; a larger one counts as a bad response. */
  API_MAX_RESPONSE_BYTES: bytes.default(1_048_576),
  /** The language of the API's own words (a form shows them when no message key says them). */
  API_LANGUAGE: z
    .string()
    .regex(LANGUAGE_TAG, "must be a language tag such as en or pt-BR")
    .default("en"),
  /** `true` behind one reverse proxy: trust its X-Forwarded-* headers (else they are dropped). */
  TRUST_PROXY: z
    .enum(["true", "false"])
    .default("false")
    .transform((value) => value === "true"),
  /** State-changing requests allowed per client IP per minute; 0 turns the limit off. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(100),
  /** A Redis every instance shares, counting the write limit; unset, each counts its own. */
  RATE_LIMIT_REDIS_URL: redisUrl.optional(),
  /** Port of the Prometheus metrics endpoint (`GET /metrics`), apart from the app's; unset: off; 0 picks one. */
  METRICS_PORT: port.optional(),
  /** Most fields one form post may carry; more are refused with 413 before any is parsed. */
  FORM_MAX_FIELDS: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /** An OTLP/HTTP collector's base URL (`http://collector:4318`); unset, no span is sent. */
  OTEL_EXPORTER_OTLP_ENDPOINT: url("an http(s) URL such as http://collector:4318", plain, (url) =>
    url.href.replace(/\/$/, ""),
  ).optional(),
  /** The `service.name` spans are exported under; unset, the package's name. */
  OTEL_SERVICE_NAME: z.string().min(1).max(256).optional(),
  /** Set by `remix dev` to its live-reload server: the pages may open a socket to it. */
  REMIX_DEV_ORIGIN: url(
    "an http(s) origin",
    (url) => !url.search && !url.hash,
    (url) => url.origin,
  ).optional(),
  /** The OpenID Connect provider's issuer (http on loopback only); with OIDC_CLIENT_ID, sign-in. */
  OIDC_ISSUER: url(
    "an https URL such as https://login.example.com/realms/app",
    (url) => !url.search && !url.hash && (url.protocol === "https:" || isLoopback(url)),
    (url) => url.href,
  ).optional(),
  /** This app's client id at the provider. */
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  /** The client's secret, for a confidential client; unset, a public client (PKCE only). */
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** The ID token claim holding the visitor's roles; a dotted path reads nested claims. */
  OIDC_ROLES_CLAIM: z
    .string()
    .regex(
      /^[^.\s]+(\.[^.\s]+)*$/,
      "must be a claim name or a dotted path such as realm_access.roles",
    )
    .default("roles"),
  /** Space-separated scopes asked for at sign-in; `openid` must be one. */
  OIDC_SCOPES: z
    .string()
    .transform((value) => value.split(/\s+/).filter(Boolean))
    .refine((scopes) => scopes.includes("openid"), { message: "must include openid" })
    .default(["openid", "profile", "email"]),
  /** Deadline for one request to the provider (discovery, token, keys), its answer read whole. */
  OIDC_TIMEOUT_MS: milliseconds.default(5_000),
  /** Largest answer read from the provider; a larger one makes sign-in unavailable. */
  OIDC_MAX_RESPONSE_BYTES: bytes.min(1_024).default(1_048_576),
  /** A signed-in visitor idle this long is signed out. */
  SESSION_IDLE_SECONDS: seconds.default(3_600),
  /** A session ends this long after sign-in, whatever the activity. */
  SESSION_MAX_SECONDS: seconds.default(43_200),
  /** A Redis every instance shares for sessions; unset, sessions live in this process's memory. */
  SESSION_REDIS_URL: redisUrl.optional(),
  /** The zone dates are shown in, the same on the server and in the browser (an IANA name). */
  TIME_ZONE: z
    .string()
    .refine((zone) => {
      try {
        return Boolean(new Intl.DateTimeFormat("en", { timeZone: zone }));
      } catch {
        return false;
      }
    }, "must be an IANA time zone such as UTC or Europe/Paris")
    .default("UTC"),
  /** `true` adds the pseudo-locales en-XA and ar-XB, every message marked, for tests; never offered. */
  PSEUDO_LOCALES: z
    .enum(["true", "false"])
    .default("false")
    .transform((value) => value === "true"),
  /** Where to report a vulnerability (RFC 9116): comma-separated mailto: or https: URIs. */
  SECURITY_TXT_CONTACT: z
    .string()
    .transform((value) => value.split(",").map((uri) => uri.trim()))
    .pipe(
      z.array(
        z
          .string()
          .regex(/^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+)$/, "must be mailto: or https: URIs"),
      ),
    )
    .optional(),
  /** When the security.txt goes stale, as an ISO 8601 date and time: renew it before. */
  SECURITY_TXT_EXPIRES: z.iso
    .datetime({ offset: true, error: "must be a date and time such as 2027-01-31T00:00:00Z" })
    .refine((value) => {
      const now = new Date();
      return Date.parse(value) < now.setUTCFullYear(now.getUTCFullYear() + 1);
    }, "must be less than a year ahead (RFC 9116)")
    .optional(),
  /** The vulnerability disclosure policy's https URL, for the security.txt. */
  SECURITY_TXT_POLICY: url(
    "an https URL",
    (url) => url.protocol === "https:",
    (url) => url.href,
  ).optional(),
});
