import { format } from "node:util";
import pino from "pino";
import { getConfig } from "./config.server";
import { getTraceId } from "./trace-context.server";

const { LOG_LEVEL, NODE_ENV } = getConfig();

// A visitor's value can be as long as a request allows; a log line carries its start only.
const MAX_STRING_LENGTH = 2_000;
const MAX_STACK_LENGTH = 8_000;

export function cut(value: string, max = MAX_STRING_LENGTH) {
  return value.length > max ? `${value.slice(0, max)}… (${value.length} characters)` : value;
}

const cutStrings = (object: Record<string, unknown>) => {
  const isLong = (value: unknown) => typeof value === "string" && value.length > MAX_STRING_LENGTH;
  if (!Object.values(object).some(isLong)) return object;
  return Object.fromEntries(
    Object.entries(object).map(([key, value]) => [
      key,
      isLong(value) ? cut(value as string) : value,
    ]),
  );
};

/** JSON logs on stdout; readable ones in development. Never log cookies or credentials. */
export const logger = pino({
  level: LOG_LEVEL,
  base: undefined,
  hooks: {
    logMethod(args, method) {
      method.apply(
        this,
        args.map((arg) => (typeof arg === "string" ? cut(arg) : arg)) as Parameters<typeof method>,
      );
    },
  },
  formatters: { log: cutStrings },
  serializers: {
    err: (error: Error) => {
      const serialized = pino.stdSerializers.err(error);
      serialized.message = cut(serialized.message);
      if (serialized.stack) serialized.stack = cut(serialized.stack, MAX_STACK_LENGTH);
      return serialized;
    },
  },
  ...(NODE_ENV === "development" ? { transport: { target: "pino-pretty" } } : {}),
});

export function getRequestFields(request: Request) {
  return { requestId: request.headers.get("x-request-id"), traceId: getTraceId(request) };
}

const CONSOLE_LEVELS = {
  debug: "debug",
  trace: "debug",
  log: "info",
  info: "info",
  warn: "warn",
  error: "error",
} as const;

/** In production every line the process writes is the logger's: libraries' console.* and Node's warnings too. */
export function routeConsoleToLogger() {
  for (const [method, level] of Object.entries(CONSOLE_LEVELS)) {
    console[method as keyof typeof CONSOLE_LEVELS] = (...args: unknown[]) =>
      logger[level]({ source: "console" }, format(...args));
  }
  process.removeAllListeners("warning");
  process.on("warning", (warning) =>
    logger.warn({ source: "process", code: (warning as { code?: string }).code }, warning.message),
  );
}

const MINUTE_MS = 60_000;

/**
 * A warning for a failure that repeats while it lasts: said at most once a minute, however often
 * the peer comes and goes (each recovery starting over would let a flapping peer flood the log).
 */
export function createThrottledWarning(message: string) {
  let warnedAt = -Infinity;
  return (fields: Record<string, unknown>) => {
    if (performance.now() - warnedAt < MINUTE_MS) return;
    warnedAt = performance.now();
    logger.warn(fields, `${message} (said at most once a minute)`);
  };
}
