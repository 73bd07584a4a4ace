import { startServer } from "../support/server";

/** One production server for the whole browser run; tests read its address from BASE_URL. */
export default async function globalSetup() {
  const server = await startServer();
  process.env.BASE_URL = server.url;
  return async () => {
    await server.stop();
  };
}
