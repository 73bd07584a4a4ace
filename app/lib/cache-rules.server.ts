import type { ActionFunction, HeadersArgs, HeadersFunction, ServerBuild } from "@remix-run/node";
import { refuseFailedPrecondition } from "./page-cache.server";

/** The rule of a route that states none, and of a page shown to an anonymous visitor (decision 021). */
export const DEFAULT_CACHE_CONTROL = "private, no-cache";

type Rule = {
  noStore: boolean;
  noCache: boolean;
  visibility: "private" | "public" | undefined;
  maxAge?: number;
  sharedMaxAge?: number;
  mustRevalidate: boolean;
  immutable: boolean;
};

function parseRule(cacheControl: string): Rule {
  const directives = new Map<string, string>();
  for (const part of cacheControl.split(",")) {
    const [name = "", value = ""] = part.split("=", 2).map((text) => text.trim().toLowerCase());
    if (name) directives.set(name, value.replace(/^"|"$/g, ""));
  }
  const seconds = (name: string) => {
    const value = directives.get(name);
    return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
  };
  const has = (name: string) => directives.has(name);
  return {
    noStore: has("no-store"),
    noCache: has("no-cache") || (has("max-age") && seconds("max-age") === undefined),
    visibility: has("private") ? "private" : has("public") ? "public" : undefined,
    maxAge: seconds("max-age"),
    sharedMaxAge: seconds("s-maxage") ?? seconds("max-age"),
    mustRevalidate: has("must-revalidate") || has("proxy-revalidate"),
    immutable: has("immutable"),
  };
}

const smallest = (values: (number | undefined)[]) => {
  const stated = values.filter((value) => value !== undefined);
  return stated.length > 0 ? Math.min(...stated) : undefined;
};

/**
 * The strictest of the rules: `no-store` over everything, `private` over `public` (which all must
 * say), `no-cache` over any lifetime, the smallest `max-age` and `s-maxage`. Unknown directives go.
 */
export function mergeCacheControl(cacheControls: string[]) {
  const rules = cacheControls.map(parseRule);
  if (rules.length === 0) return DEFAULT_CACHE_CONTROL;
  if (rules.some((rule) => rule.noStore)) return "no-store";
  const isPrivate = rules.some((rule) => rule.visibility === "private");
  const isPublic = rules.every((rule) => rule.visibility === "public");
  const noCache = rules.some((rule) => rule.noCache);
  const maxAge = smallest(rules.map((rule) => rule.maxAge));
  const sharedMaxAge = smallest(rules.map((rule) => rule.sharedMaxAge));
  const directives = [
    isPrivate ? "private" : isPublic ? "public" : "",
    noCache ? "no-cache" : "",
    !noCache && maxAge !== undefined ? `max-age=${maxAge}` : "",
    !noCache && !isPrivate && sharedMaxAge !== undefined && sharedMaxAge !== maxAge
      ? `s-maxage=${sharedMaxAge}`
      : "",
    rules.some((rule) => rule.mustRevalidate) ? "must-revalidate" : "",
    !noCache && rules.every((rule) => rule.immutable) ? "immutable" : "",
  ];
  return directives.filter(Boolean).join(", ");
}

/**
 * The build with each route's `headers` wrapped: its `Cache-Control` (DEFAULT_CACHE_CONTROL when it
 * states none, however its parents' read) merged with its parents', so a page gets the strictest
 * rule of all the routes it matched. Its other headers stay as Remix makes them. Each action runs
 * only once the write's preconditions hold (RFC 9110 §13.2.2: before the method is performed).
 */
export function applyCacheRules(build: ServerBuild): ServerBuild {
  const routes = Object.fromEntries(
    Object.entries(build.routes).map(([id, route]) => {
      const own = route.module.headers;
      const headers: HeadersFunction = (args: HeadersArgs) => {
        const stated = typeof own === "function" ? own(args) : own;
        const merged = new Headers(stated ?? args.parentHeaders);
        const rule = stated ? merged.get("Cache-Control") : null;
        const parentRule = args.parentHeaders.get("Cache-Control");
        merged.set(
          "Cache-Control",
          mergeCacheControl([rule ?? DEFAULT_CACHE_CONTROL, ...(parentRule ? [parentRule] : [])]),
        );
        return merged;
      };
      const ownAction = route.module.action;
      const action: ActionFunction | undefined =
        ownAction &&
        ((args) => {
          refuseFailedPrecondition(args.request);
          return ownAction(args);
        });
      return [id, { ...route, module: { ...route.module, headers, action } }];
    }),
  );
  return { ...build, routes };
}
