import type { EntryContext } from "@remix-run/node";

type StaticHandlerContext = EntryContext["staticHandlerContext"];

// Past this many values the data counts as deferred: streaming is right for any document, only
// slower, so a huge or cyclic value is never walked to the end.
const MAX_VALUES_WALKED = 5_000;

/** Whether any loader or action returned data still pending, which single fetch streams as it settles. */
export function hasDeferredData(context: StaticHandlerContext): boolean {
  if (context.activeDeferreds && Object.keys(context.activeDeferreds).length > 0) return true;
  const pending: unknown[] = [context.loaderData, context.actionData];
  let seen = pending.length;
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== "object" || value === null) continue;
    if (typeof (value as { then?: unknown }).then === "function") return true;
    const children = getChildren(value);
    seen += children.length;
    if (seen > MAX_VALUES_WALKED) return true;
    for (const child of children) pending.push(child);
  }
  return false;
}

// The containers single fetch looks into when it encodes data.
function getChildren(value: object): unknown[] {
  if (Array.isArray(value)) return value;
  if (value instanceof Map) return [...value.values()];
  if (value instanceof Set) return [...value];
  return isPlainObject(value) ? Object.values(value) : [];
}

function isPlainObject(value: object) {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
