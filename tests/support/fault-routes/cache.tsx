import type { HeadersFunction } from "@remix-run/node";
import { Outlet } from "@remix-run/react";

// A layout stating a loose rule (and an Expires its 304s must repeat), over a child stating
// `no-store` and one stating nothing.
export const headers: HeadersFunction = () => ({
  "Cache-Control": "public, max-age=60",
  Expires: "Thu, 01 Jan 1970 00:00:00 GMT",
});

export default function CacheRulesLayout() {
  return (
    <>
      <h1>Cache rules</h1>
      <Outlet />
    </>
  );
}
