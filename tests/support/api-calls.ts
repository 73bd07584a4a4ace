/** A visitor's request as Remix hands it to a loader, with a request id and an optional signal. */
export function createIncoming(signal?: AbortSignal) {
  return new Request("http://app.test/page", { headers: { "x-request-id": "req-42" }, signal });
}

/** The status and catalogue code of the response a call threw. */
export async function getFailure(call: Promise<unknown>) {
  const thrown = await call.then(
    () => new Error("the call succeeded"),
    (error: unknown) => error,
  );
  if (!(thrown instanceof Response)) throw thrown;
  return { status: thrown.status, ...((await thrown.json()) as { code: string }) };
}
