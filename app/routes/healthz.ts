import { getPublicConfig } from "~/lib/config.server";

/** Liveness: the process is up and serving. */
export function loader() {
  return Response.json(
    { status: "ok", version: getPublicConfig().version, uptime: Math.round(process.uptime()) },
    { headers: { "Cache-Control": "no-store" } },
  );
}
