import type { FormErrors } from "~/forms/parse";
import type { ErrorCode } from "~/lib/errors";

// What a call is, and what its contract's types say it sends and reads: types only, for every
// module of app/api/ and each contract's generated `<name>.d.json.ts`.

declare const typed: unique symbol;
type Defined<T> = Exclude<T, undefined>;
type Verb = "get" | "put" | "post" | "delete" | "patch" | "head";

/** An API contract as `npm run contracts` copies it (`<name>.json`), its operations typed. */
export type Contract<Paths = unknown> = { openapi: string; [typed]?: Paths };

/** Each operation of `Paths` named as the contract writes it: "GET /things/{id}". */
export type OperationName<Paths> = {
  [P in keyof Paths & string]: {
    [V in keyof Paths[P] & Verb]: Defined<Paths[P][V]> extends never
      ? never
      : `${Uppercase<V>} ${P}`;
  }[keyof Paths[P] & Verb];
}[keyof Paths & string];

export type OperationOf<Paths, Name> =
  Name extends `${infer V} ${infer P extends keyof Paths & string}`
    ? Defined<Paths[P][Lowercase<V> & keyof Paths[P]]>
    : never;

/** Checks a value against one of the contract's schemas, filling in its defaults (ajv's). */
export type Check = ((value: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string }[] | null;
};

export type ReadFormErrors = (body: unknown) => FormErrors | undefined;

// What each field does is in docs/calls.md.
export type Call<Operation = unknown> = {
  name: string;
  method: "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: `/${string}`;
  errors?: Partial<Record<number, ErrorCode>>;
  formErrors?: Partial<Record<number, ReadFormErrors>>;
  idempotencyKey?: boolean;
  /** `false` for a call whose asker tries again itself (readiness: the orchestrator's probe). */
  retry?: false;
  auth?: "visitor";
  /** The contract's checks of what is sent, and of each 2xx answer; without them, any answer. */
  checks?: {
    params: Check;
    query: Check;
    body?: { type: string; required: boolean; check: Check };
    answers: Partial<Record<string, Check>>;
  };
  [typed]?: Operation;
};

type Statuses<O> = O extends { responses: infer R } ? keyof R & number : never;

/** What a call declares beyond its contract: `errors` and `formErrors` for its statuses only. */
export type CallOptions<O> = Pick<Call, "idempotencyKey" | "retry" | "auth"> & {
  errors?: { [S in Statuses<O>]?: ErrorCode };
  formErrors?: { [S in Statuses<O>]?: ReadFormErrors };
};

// `K` is left out when the operation has none, optional when it may be.
type Part<K extends string, T> = [Defined<T>] extends [never]
  ? { [_ in K]?: undefined }
  : undefined extends T
    ? { [_ in K]?: Defined<T> }
    : object extends T
      ? { [_ in K]?: T }
      : { [_ in K]: T };
type Parameters<O, In extends string> = O extends { parameters: { [_ in In]?: infer T } }
  ? T
  : never;
type Content<T, Else> = T extends { content: infer C } ? C[keyof C] : Else;
type Body<O> = O extends { requestBody?: infer B } ? Content<B, B> : never;

export type CallInput<C> =
  C extends Call<infer O>
    ? Part<"params", Parameters<O, "path">> &
        Part<"query", Parameters<O, "query">> &
        Part<"body", Body<O>>
    : never;

type Answers<R> = {
  [S in keyof R]: `${S & number}` extends `2${string}` ? Content<R[S], undefined> : never;
}[keyof R];

export type CallResult<C> =
  C extends Call<infer O> ? (O extends { responses: infer R } ? Answers<R> : unknown) : never;
