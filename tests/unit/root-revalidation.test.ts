import type { ShouldRevalidateFunctionArgs } from "@remix-run/react";
import { describe, expect, it } from "vitest";
import { shouldRevalidate } from "~/root";

const here = new URL("http://app.test/things/3");

function afterPost(actionStatus: number | undefined, defaultShouldRevalidate = false) {
  return shouldRevalidate({
    currentUrl: here,
    nextUrl: here,
    currentParams: {},
    nextParams: {},
    formMethod: "POST",
    actionStatus,
    defaultShouldRevalidate,
  } as ShouldRevalidateFunctionArgs);
}

describe("the root's revalidation policy", () => {
  it.each([400, 403, 409, 422])("loads the page again after an action answered %i", (status) => {
    expect(afterPost(status)).toBe(true);
  });

  it("leaves the page after a 5xx to the error boundary", () => {
    expect(afterPost(503)).toBe(false);
  });
});
