import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/** Per-request values visible to anything running on behalf of that request, logs included. */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Keeps a caller's X-Request-Id when it is safe to log and echo, otherwise makes a new one. */
export function getRequestId(incoming: string | undefined) {
  return incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
