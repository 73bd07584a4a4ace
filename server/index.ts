// React and Remix choose their production or development code by NODE_ENV as they load.
process.env.NODE_ENV ||= "production";

const { startServer } = await import("./process/main");
await startServer();
