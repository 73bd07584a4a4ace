// @vitest-environment jsdom
import { createRemixStub } from "@remix-run/testing";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { GeneralErrorBoundary } from "~/components/error-boundary";

function renderThrowing(thrown: unknown) {
  const RemixStub = createRemixStub([
    {
      path: "/",
      Component: () => null,
      ErrorBoundary: GeneralErrorBoundary,
      loader: () => {
        throw thrown;
      },
    },
  ]);
  render(<RemixStub />);
}

afterEach(cleanup);

describe("GeneralErrorBoundary", () => {
  it.each([
    [400, "Bad request"],
    [403, "Request refused"],
    [404, "Page not found"],
    [405, "Not allowed here"],
    [413, "Too much data"],
    [429, "Too many requests"],
    [502, "Service error"],
    [503, "Service unavailable"],
    [504, "Service timed out"],
  ])("shows the catalogue's words for a thrown %i", async (status, title) => {
    renderThrowing(new Response("internal detail", { status }));
    expect((await screen.findByRole("heading", { level: 1 })).textContent).toBe(title);
    expect(screen.getByText(`Error ${status}`)).toBeTruthy();
    expect(screen.queryByText("internal detail")).toBeNull();
    expect(screen.getByRole("link", { name: "Go to the home page" }).getAttribute("href")).toBe("/");
  });

  it("treats an unknown 4xx status as a bad request", async () => {
    renderThrowing(new Response(null, { status: 418 }));
    expect((await screen.findByRole("heading", { level: 1 })).textContent).toBe("Bad request");
    expect(screen.getByText("Error 418")).toBeTruthy();
  });

  it("shows a thrown Error as a 500 without its message", async () => {
    renderThrowing(new Error("database password is hunter2"));
    expect((await screen.findByRole("heading", { level: 1 })).textContent).toBe("Something went wrong");
    expect(screen.getByText("Error 500")).toBeTruthy();
    expect(screen.queryByText(/hunter2/)).toBeNull();
  });
});
