import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { Answer } from "./answers";
import { readContracts, type Operation } from "./contracts";
import { createScenarioStep } from "./scenario-page";

// The API as its contracts describe it, on loopback, for `npm run dev`: API_BASE_URL points here,
// so a call reaches no other host (decision 025).

const MAX_BODY_BYTES = 1_048_576;
const MAX_LOGGED_PATH = 200;
// "No answer" is held until the app gives up, and at most this long whoever asked.
const MOST_HELD_MS = 120_000;

export type ApiMock = {
  url: string;
  operations: Operation[];
  /** The scenario page and the visitor's picks, as a step of the app's pipeline. */
  scenarioStep: ReturnType<typeof createScenarioStep>;
  close: () => Promise<void>;
};

type Options = {
  /** Where the contracts are: app/api/contracts of the app being served. */
  contracts: string;
  /** /readyz's call (API_HEALTH_PATH), answered 200 unless a contract has it. */
  healthPath: string;
  logger: Logger;
};

/** Reads the contracts (saying loudly what is wrong with them) and answers on 127.0.0.1. */
export async function startApiMock({ contracts, healthPath, logger }: Options): Promise<ApiMock> {
  const { operations, problems } = readContracts(contracts);
  for (const problem of problems) logger.warn(`API mock: ${problem}`);
  // The answers each visitor picked, by the id of the request being served (the app sends it on).
  const picked = new Map<string, Map<string, string>>();
  const server = http.createServer((req, res) => {
    void answer(req, res).catch((error: unknown) => {
      logger.error({ err: error }, "API mock: failed");
      if (!res.headersSent) sendProblem(res, 500, "The API mock failed.");
    });
  });
  server.requestTimeout = 30_000;

  async function answer(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", "http://api.mock");
    const body = await readBody(req);
    if (body === undefined) return sendProblem(res, 413, "The body is too large.");
    const call = `${req.method} ${url.pathname.slice(0, MAX_LOGGED_PATH)}`;
    let params: Record<string, string> | undefined;
    const operation = operations.find(
      (o) => o.method === req.method && (params = o.match(url.pathname)),
    );
    if (!operation) {
      if (req.method === "GET" && url.pathname === healthPath) return sendJson(res, 200, {});
      logger.error({ call }, "API mock: no operation of the contracts answers this call");
      return sendProblem(res, 501, `No operation of the contracts answers ${call}.`);
    }
    const type = req.headers["content-type"];
    const refused = operation.check({ params: params!, query: url.searchParams, type, body });
    if (refused) {
      logger.error({ call: operation.id, refused }, "API mock: the contract refuses what was sent");
      return sendProblem(res, 400, `The contract refuses it: ${refused}.`);
    }
    if (operation.secured && !/^Bearer \S/.test(req.headers.authorization ?? ""))
      return sendProblem(res, 401, "A bearer token is required.");
    const pick = picked.get(String(req.headers["x-request-id"]))?.get(operation.id);
    const chosen = operation.answers.find((a) => a.id === pick) ?? operation.answers[0]!;
    if (chosen.missing) {
      logger.error(
        { call: operation.id, answer: chosen.label },
        "API mock: no example to answer with",
      );
      return sendProblem(res, 501, `The contract has no example for ${chosen.label}.`);
    }
    if (chosen.hang) return hold(res);
    send(res, chosen);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  logger.info({ url, operations: operations.length }, `API mock answering on ${url}`);
  return {
    url,
    operations,
    scenarioStep: createScenarioStep(operations, picked),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// Undefined when larger than MAX_BODY_BYTES: the rest is not read.
async function readBody(req: http.IncomingMessage) {
  if (Number(req.headers["content-length"]) > MAX_BODY_BYTES) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if ((size += chunk.byteLength) > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function hold(res: http.ServerResponse) {
  const timer = setTimeout(() => res.destroy(), MOST_HELD_MS);
  res.once("close", () => clearTimeout(timer));
}

function send(res: http.ServerResponse, { status, mediaType, value }: Answer) {
  if (value === undefined) return void res.writeHead(status).end();
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "content-type": mediaType ?? "application/json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

const sendJson = (res: http.ServerResponse, status: number, value: unknown) =>
  send(res, { id: "", label: "", status, value });

function sendProblem(res: http.ServerResponse, status: number, detail: string) {
  const value = { type: "about:blank", status, title: "API mock", detail };
  send(res, { id: "", label: "", status, mediaType: "application/problem+json", value });
  // A body left unread is not worth waiting for.
  res.once("finish", () => res.req.readableEnded || res.req.socket.destroy());
}
