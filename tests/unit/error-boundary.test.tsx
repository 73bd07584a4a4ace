// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ErrorPage, GeneralErrorBoundary } from "~/components/error-boundary";
import {
  createErrorResponse,
  errorCatalogue,
  getErrorForStatus,
  isErrorCode,
  type ErrorCode,
} from "~/lib/errors";
import { createShellStub, getEnglishError } from "../support/shell";

afterEach(cleanup);

function renderThrown(
  thrown: () => unknown,
  ErrorBoundary = () => <GeneralErrorBoundary />,
  path = "/",
) {
  const loader = () => {
    throw thrown();
  };
  const RemixStub = createShellStub([
    { path: "/:id?", Component: () => null, ErrorBoundary, loader },
  ]);
  render(<RemixStub initialEntries={[path]} />);
}

const findTitle = (name: string) => screen.findByRole("heading", { level: 1, name });

describe("GeneralErrorBoundary", () => {
  it.each(Object.keys(errorCatalogue) as ErrorCode[])(
    "renders the entry %s when its code is thrown",
    async (code) => {
      const { status, title, message } = getEnglishError(code);
      renderThrown(() => createErrorResponse(code));
      expect(await findTitle(title)).toBeTruthy();
      expect(screen.getByText(message)).toBeTruthy();
      expect(screen.getByText(`Error ${status}`)).toBeTruthy();
      expect(screen.getByRole("link", { name: "Go to the home page" }).getAttribute("href")).toBe(
        "/",
      );
    },
  );

  it("falls back to the entry for the status when no code is given", async () => {
    renderThrown(() => new Response("gone", { status: 404 }));
    expect(await findTitle(getEnglishError(getErrorForStatus(404).code).title)).toBeTruthy();
  });

  it("shows the generic entry, not the error's own message, for an unexpected error", async () => {
    renderThrown(() => new Error("secret internals"));
    expect(await findTitle(getEnglishError("INTERNAL").title)).toBeTruthy();
    expect(screen.queryByText(/secret internals/)).toBeNull();
  });

  it("shows a route's own page for the statuses it handles, and the catalogue's for the others", async () => {
    const NotFoundHere = () => (
      <GeneralErrorBoundary
        statusHandlers={{
          404: ({ params }) => <ErrorPage status={404} title={`No thing with id ${params.id}`} />,
        }}
      />
    );
    renderThrown(() => createErrorResponse("NOT_FOUND"), NotFoundHere, "/42");
    expect(await findTitle("No thing with id 42")).toBeTruthy();
    expect(screen.getByText("Error 404")).toBeTruthy();
    cleanup();

    renderThrown(() => createErrorResponse("UPSTREAM_TIMEOUT"), NotFoundHere, "/42");
    expect(await findTitle(getEnglishError("UPSTREAM_TIMEOUT").title)).toBeTruthy();
    cleanup();

    renderThrown(() => new Error("secret internals"), NotFoundHere, "/42");
    expect(await findTitle(getEnglishError("INTERNAL").title)).toBeTruthy();
    expect(screen.queryByText(/secret internals/)).toBeNull();
  });
});

describe("createErrorResponse", () => {
  it("carries the entry's status and its code", async () => {
    const response = createErrorResponse("VALIDATION_FAILED");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: "VALIDATION_FAILED" });
  });

  it("names only the catalogue's own codes", () => {
    expect(isErrorCode("UPSTREAM_TIMEOUT")).toBe(true);
    expect(["toString", "constructor", "upstream_timeout", 404, null].some(isErrorCode)).toBe(
      false,
    );
  });
});
