import { ConfigError, getConfig } from "~/lib/config.server";

// A bad setting stops the process with one line, before anything else loads.
try {
  process.env.NODE_ENV = getConfig().NODE_ENV;
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

await import("./process/main");
