import type http from "node:http";
import { sendJson } from "./upstream";

/** A thing as the scripted API stores and sends it (the reference feature's made-up entity). */
export type Thing = {
  id: string;
  name: string;
  quantity: number;
  colour: "red" | "green" | "blue";
  featured: boolean;
  notes: string;
  status: "active" | "archived";
  comments: { id: string; text: string }[];
  version: number;
};

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export const THINGS_PAGE_SIZE = 5;

const NAMES = "Amber Birch Cedar Dune Ember Fern Granite Harbour Iris Juniper".split(" ");

export type ThingsApi = {
  /** The API's state: tests read and change it directly. */
  things: Map<string, Thing>;
  /** Answers the next `times` requests whose "METHOD /path?query" matches `route` with `answer` instead. */
  intercept: (route: RegExp, answer: Handler, times?: number) => void;
  /** The upstream handler: `upstream.handle(api.handle)`. */
  handle: Handler;
};

/**
 * The "things" API the reference feature calls, in memory: list with search, a status filter,
 * in stock only and pages, read, create, update (409 when the posted `version` is not the stored
 * one), delete (204), a comment (422 when it repeats the last one), a status change and a stock
 * change (409 when the version is stale; 422 on `#/quantity` for an archived thing), and the end
 * of a stock check (422 naming no field while an archived thing is in stock). A name already
 * taken is a 422 in RFC 9457 problem details pointing at `#/name`.
 */
export function createThingsApi(count = NAMES.length + 2): ThingsApi {
  const things = new Map<string, Thing>();
  for (let index = 0; index < count; index++) {
    const id = String(index + 1);
    const name = NAMES[index] ?? `Thing ${id}`;
    const colour = (["red", "green", "blue"] as const)[index % 3]!;
    things.set(id, {
      id,
      name,
      quantity: index * 10,
      colour,
      featured: index % 2 === 0,
      notes: "",
      status: index === 1 ? "archived" : "active",
      comments: [],
      version: 1,
    });
  }
  let nextId = count + 1;
  const interceptions: { route: RegExp; answer: Handler; times: number }[] = [];

  const handle: Handler = (req, res, body) => {
    const route = `${req.method} ${req.url}`;
    const interception = interceptions.find((candidate) => candidate.route.test(route));
    if (interception) {
      if (--interception.times <= 0) interceptions.splice(interceptions.indexOf(interception), 1);
      return interception.answer(req, res, body);
    }
    const url = new URL(req.url!, "http://api.test");
    const [, id, part] =
      /^\/things\/([^/]+)(?:\/(comments|status|quantity))?$/.exec(url.pathname) ?? [];
    const thing = id === undefined ? undefined : things.get(decodeURIComponent(id));
    if (req.method === "GET" && url.pathname === "/things")
      return sendJson(res, 200, list(things, url));
    if (req.method === "POST" && url.pathname === "/things") {
      const input = JSON.parse(body) as Omit<Thing, "id" | "version">;
      if (isNameTaken(things, input.name)) return sendInvalid(res, "name", NAME_TAKEN);
      const newId = String(nextId++);
      const created: Thing = { ...input, id: newId, status: "active", comments: [], version: 1 };
      things.set(created.id, created);
      return sendJson(res, 201, created);
    }
    if (req.method === "POST" && url.pathname === "/stock-checks") {
      const archived = [...things.values()].find(
        (thing) => thing.status === "archived" && thing.quantity > 0,
      );
      if (archived)
        return sendProblem(res, 422, { title: `${archived.name} is archived but still in stock.` });
      return sendJson(res, 201, { id: String(nextId++) });
    }
    if (id === undefined) return sendJson(res, 404, {});
    if (!thing) return sendProblem(res, 404, { title: "Not found" });
    const update = (changes: Partial<Thing>) => {
      const updated = { ...thing, ...changes, id: thing.id, version: thing.version + 1 };
      things.set(thing.id, updated);
      sendJson(res, 200, updated);
    };
    if (req.method === "POST" && part === "comments") {
      const { text } = JSON.parse(body) as { text: string };
      if (thing.comments.at(-1)?.text === text) return sendInvalid(res, "text", REPEATED);
      const comment = { id: String(thing.comments.length + 1), text };
      things.set(thing.id, { ...thing, comments: [...thing.comments, comment] });
      return sendJson(res, 201, comment);
    }
    if (req.method === "POST" && part === "status") {
      const input = JSON.parse(body) as Pick<Thing, "status" | "version">;
      if (input.version !== thing.version) return sendStale(res);
      return update({ status: input.status });
    }
    if (req.method === "PUT" && part === "quantity") {
      const input = JSON.parse(body) as Pick<Thing, "quantity" | "version">;
      if (input.version !== thing.version) return sendStale(res);
      if (thing.status === "archived" && input.quantity > 0)
        return sendInvalid(res, "quantity", ARCHIVED_IN_STOCK);
      return update({ quantity: input.quantity });
    }
    if (part !== undefined) return sendJson(res, 405, {});
    if (req.method === "GET") return sendJson(res, 200, thing);
    if (req.method === "PATCH") {
      const input = JSON.parse(body) as Omit<Thing, "id">;
      if (input.version !== thing.version) return sendStale(res);
      if (isNameTaken(things, input.name, thing.id)) return sendInvalid(res, "name", NAME_TAKEN);
      return update(input);
    }
    if (req.method === "DELETE") {
      things.delete(thing.id);
      return res.writeHead(204).end();
    }
    sendJson(res, 405, {});
  };

  return {
    things,
    intercept: (route, answer, times = Infinity) => interceptions.push({ route, answer, times }),
    handle,
  };
}

function list(things: Map<string, Thing>, url: URL) {
  const q = (url.searchParams.get("q") ?? "").toLowerCase();
  const status = url.searchParams.get("status");
  const inStock = url.searchParams.get("inStock") === "true";
  const matching = [...things.values()]
    .filter((thing) => thing.name.toLowerCase().includes(q) && (!status || thing.status === status))
    .filter((thing) => !inStock || thing.quantity > 0)
    .sort((a, b) => a.name.localeCompare(b.name));
  const pageCount = Math.max(1, Math.ceil(matching.length / THINGS_PAGE_SIZE));
  const page = Math.max(1, Number(url.searchParams.get("page") ?? 1) || 1);
  const items = matching
    .slice((page - 1) * THINGS_PAGE_SIZE, page * THINGS_PAGE_SIZE)
    .map(({ id, name, colour, status, quantity, version }) => {
      return { id, name, colour, status, quantity, version };
    });
  return { items, page, pageCount, total: matching.length };
}

function isNameTaken(things: Map<string, Thing>, name: string, exceptId?: string) {
  return [...things.values()].some((thing) => thing.id !== exceptId && thing.name === name);
}

const NAME_TAKEN = "Another thing already has this name. Choose a different name.";
const ARCHIVED_IN_STOCK = "An archived thing cannot be in stock. Remove it instead.";
const REPEATED = "This comment repeats the last one. Write something new.";

function sendInvalid(res: http.ServerResponse, field: string, detail: string) {
  const errors = [{ pointer: `#/${field}`, detail }];
  sendProblem(res, 422, { title: "Your request is not valid.", errors });
}

function sendStale(res: http.ServerResponse) {
  sendProblem(res, 409, { title: "The thing has changed since you read it." });
}

/** Answers with RFC 9457 problem details. */
export function sendProblem(
  res: http.ServerResponse,
  status: number,
  problem: Record<string, unknown>,
) {
  const body = JSON.stringify({ type: "about:blank", status, ...problem });
  res.writeHead(status, {
    "content-type": "application/problem+json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}
