import { ConfigError, getConfig } from "~/lib/config.server";

// Validate the environment before anything else loads, so a bad value stops the process with
// one line instead of a stack trace.
try {
  process.env.NODE_ENV = getConfig().NODE_ENV;
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

await import("./process/main");
