// React and Remix choose their production or development code by NODE_ENV as they load.
process.env.NODE_ENV ||= "production";

// The Remix build reads the configuration as it loads: a bad setting stops it with one line.
try {
  (await import("./process/build")).app.getConfig();
} catch (error) {
  if (!(error instanceof Error && error.name === "ConfigError")) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

await import("./process/main");
