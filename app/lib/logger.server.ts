import pino from "pino";
import { getConfig } from "./config.server";

const { LOG_LEVEL, NODE_ENV } = getConfig();

/** JSON logs on stdout; readable ones in development. Never log cookies or credentials. */
export const logger = pino({
  level: LOG_LEVEL,
  base: undefined,
  ...(NODE_ENV === "development" ? { transport: { target: "pino-pretty" } } : {}),
});
