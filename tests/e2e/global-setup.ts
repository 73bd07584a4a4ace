import { startServer } from "../support/server";

/** One production server for the run, at BASE_URL, with pseudo-locales for languages.spec.ts. */
export default async function globalSetup() {
  const server = await startServer({ PSEUDO_LOCALES: "true" });
  process.env.BASE_URL = server.url;
  return async () => {
    await server.stop();
  };
}
