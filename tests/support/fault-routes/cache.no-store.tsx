import type { HeadersFunction } from "@remix-run/node";

export function loader() {
  return { rule: "no-store" };
}

export const headers: HeadersFunction = () => ({ "Cache-Control": "no-store" });

export default function NoStorePage() {
  return <p>Never stored</p>;
}
