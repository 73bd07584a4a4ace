import { randomUUID } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { renderToStaticMarkup } from "react-dom/server";
import type { Operation } from "./contracts";

// Which answer each call gives this browser, picked on a page (a plain form) and kept in a cookie.
// The cookie only chooses among the contracts' own answers: a forged one can pick no other.

export const SCENARIO_PAGE = "/_api-mock";
const COOKIE = "api-mock";
// The W3C trace state member a request's calls carry the key of its picks in, first.
const PICKS_MEMBER = "api-mock";
const PICKS_KEY = new RegExp(`^\\s*${PICKS_MEMBER}=([^,\\s]+)`);
const MAX_FORM_BYTES = 64 * 1024;

type Picks = Map<string, string>;

/**
 * The page at SCENARIO_PAGE, and for every other request the visitor's picks, kept while it is
 * served under a key made here, never one a client chose: the key joins the request's trace state,
 * which the app passes on with each call, and the mock reads it there.
 */
export function createScenarioStep(
  operations: Operation[],
  picked: Map<string, Picks>,
): RequestHandler {
  const byId = new Map(operations.map((operation) => [operation.id, operation]));
  // Only an operation's own answers, each once; anything else is left out.
  const readPicks = (entries: Iterable<[string, string]>) => {
    const picks: Picks = new Map();
    for (const [id, answer] of entries) {
      const answers = byId.get(id)?.answers;
      if (answers?.some((known) => known.id === answer) && answers[0]!.id !== answer)
        picks.set(id, answer);
    }
    return picks;
  };
  return async (req, res, next) => {
    const picks = readPicks(parseCookie(req.headers.cookie, byId.size));
    if (picks.size > 0 && req.path !== SCENARIO_PAGE) {
      const key = randomUUID();
      picked.set(key, picks);
      res.once("close", () => picked.delete(key));
      // First, as a new member goes; a state already naming one repeats a key: the app drops it.
      const state = [`${PICKS_MEMBER}=${key}`, req.headers.tracestate].filter(Boolean);
      req.headers.tracestate = state.join(",");
    }
    if (req.path !== SCENARIO_PAGE) return next();
    if (req.method === "POST") {
      const form = await readForm(req);
      if (!form) return void res.status(413).type("text").send("The form is too large.");
      const chosen = form.has("reset") ? new Map() : readPicks(form);
      const value = [...chosen].map((pair) => pair.map(encodeURIComponent).join(":")).join(",");
      const lifetime = value ? "" : "; Max-Age=0";
      res.setHeader("Set-Cookie", `${COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax${lifetime}`);
      return void res.redirect(303, `${SCENARIO_PAGE}?saved`);
    }
    if (req.method !== "GET" && req.method !== "HEAD") return void res.sendStatus(405);
    const saved = new URLSearchParams(req.originalUrl.split("?")[1]).has("saved");
    sendPage(res, operations, picks, saved);
  };
}

/** The key of the picks a call was made for, from its trace state. */
export const readPicksKey = (tracestate: unknown) => PICKS_KEY.exec(String(tracestate ?? ""))?.[1];

// `operation:answer` pairs, comma-separated, each part URI-encoded; at most one per operation.
function parseCookie(header = "", most: number): [string, string][] {
  const value = /(?:^|;\s*)api-mock=([^;]*)/.exec(header)?.[1] ?? "";
  return value
    .split(",", most)
    .map((pair) => pair.split(":"))
    .filter((parts): parts is [string, string] => parts.length === 2)
    .flatMap(([id, answer]) => {
      try {
        return [[decodeURIComponent(id), decodeURIComponent(answer)]];
      } catch {
        return [];
      }
    });
}

async function readForm(req: Request) {
  let text = "";
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if ((text += chunk.toString("latin1")).length > MAX_FORM_BYTES) return undefined;
  }
  return new URLSearchParams(Buffer.from(text, "latin1").toString("utf8"));
}

function sendPage(res: Response, operations: Operation[], picks: Picks, saved: boolean) {
  const contracts = [...new Set(operations.map((operation) => operation.contract))];
  const page = (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>API mock answers</title>
      </head>
      <body>
        <main>
          <h1>API mock answers</h1>
          <p>
            Every call is answered from the contracts in app/api/contracts/. Pick the answer each
            call gives this browser, to see how a page shows it.
          </p>
          {saved ? <p role="status">Your answers are saved.</p> : null}
          <form method="post">
            {contracts.map((contract) => (
              <fieldset key={contract}>
                <legend>{contract}</legend>
                {operations
                  .filter((operation) => operation.contract === contract)
                  .map((operation) => (
                    <p key={operation.id}>
                      <label>
                        {`${operation.id} (${operation.method} ${operation.path}) `}
                        <select name={operation.id} defaultValue={picks.get(operation.id)}>
                          {operation.answers.map((answer) => (
                            <option key={answer.id} value={answer.id}>
                              {answer.label}
                            </option>
                          ))}
                        </select>
                      </label>
                    </p>
                  ))}
              </fieldset>
            ))}
            <p>
              <button type="submit">Use these answers</button>{" "}
              <button type="submit" name="reset" value="1">
                Back to the first answers
              </button>
            </p>
          </form>
          <p>
            <a href="/">Back to the app</a>
          </p>
        </main>
      </body>
    </html>
  );
  res.set("Cache-Control", "no-store").type("html");
  res.send("<!DOCTYPE html>\n" + renderToStaticMarkup(page));
}
