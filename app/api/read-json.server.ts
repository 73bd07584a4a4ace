import { describe, UpstreamError } from "./upstream-error.server";

/** Reads a JSON body of at most `limit` bytes; an empty body is `undefined`. */
export async function readJson(response: Response, limit: number, signal: AbortSignal): Promise<unknown> {
  if (Number(response.headers.get("content-length")) > limit) {
    await response.body?.cancel();
    throw new UpstreamError("UPSTREAM_BAD_RESPONSE", "response larger than API_MAX_RESPONSE_BYTES");
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw new UpstreamError("UPSTREAM_BAD_RESPONSE", "response larger than API_MAX_RESPONSE_BYTES");
      }
      chunks.push(value);
    }
  } catch (error) {
    if (signal.aborted || error instanceof UpstreamError) throw error;
    throw new UpstreamError("UPSTREAM_BAD_RESPONSE", `response cut short: ${describe(error)}`);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamError("UPSTREAM_BAD_RESPONSE", "response is not JSON");
  }
}
