import { startServer } from "../support/server";

/**
 * One production server for the whole browser run; tests read its address from BASE_URL. The
 * pseudo-locales are on, for tests that ask for them (`tests/e2e/languages.spec.ts`).
 */
export default async function globalSetup() {
  const server = await startServer({ PSEUDO_LOCALES: "true" });
  process.env.BASE_URL = server.url;
  return async () => {
    await server.stop();
  };
}
