import type { z } from "zod";
import type { Call } from "./client.server";

// A call declaration held to its contract's types (openapi-typescript's `paths`, generated into
// app/api/contracts/): each disagreement is named, as "body.name: not in the contract".

type Templated<P extends string> = P extends `${infer Head}:${infer Name}/${infer Tail}`
  ? `${Head}{${Name}}/${Templated<Tail>}`
  : P extends `${infer Head}:${infer Name}`
    ? `${Head}{${Name}}`
    : P;

type Defined<T> = Exclude<T, undefined>;
type Empty = Record<never, never>;
type Sent<S> = S extends z.ZodType ? z.output<S> : Empty;
type Given<T> = [Defined<T>] extends [never] ? Empty : Defined<T>;
type IsUnion<T, All = T> = T extends unknown ? ([All] extends [T] ? false : true) : never;
type IsRecord<T> = [T] extends [readonly unknown[]]
  ? false
  : [T] extends [object]
    ? true extends IsUnion<T>
      ? false
      : true
    : false;
// Spelled out in an error message rather than named.
type Each<T> = T extends string ? T : never;
type IsOptional<T, K extends keyof T> = Empty extends Pick<T, K> ? true : false;

/** Where the app's side (what a call sends, or what it reads) and the contract's disagree. */
type Disagreement<App, Api, Sending extends boolean, At extends string> = unknown extends App
  ? never
  : unknown extends Api
    ? never
    : [App, Api] extends [readonly (infer A)[], readonly (infer B)[]]
      ? Disagreement<A, B, Sending, `${At}[]`>
      : [IsRecord<App>, IsRecord<Api>] extends [true, true]
        ? Each<FieldDisagreement<App, Api, Sending, At>>
        : (
              Sending extends true
                ? [App] extends [Api]
                  ? never
                  : 1
                : [Api] extends [App]
                  ? never
                  : 1
            ) extends never
          ? never
          : `${At}: ${Sending extends true ? "not what the contract takes" : "not what the contract answers"}`;

type FieldDisagreement<App, Api, Sending extends boolean, At extends string> =
  | {
      [K in keyof App]-?: K extends keyof Api
        ? | Disagreement<Defined<App[K]>, Defined<Api[K]>, Sending, `${At}.${K & string}`>
          | (Sending extends true
              ? [IsOptional<App, K>, IsOptional<Api, K>] extends [true, false]
                ? `${At}.${K & string}: required by the contract`
                : never
              : [IsOptional<App, K>, IsOptional<Api, K>] extends [false, true]
                ? `${At}.${K & string}: optional in the contract`
                : never)
        : `${At}.${K & string}: not in the contract`;
    }[keyof App]
  | (Sending extends true
      ? {
          [K in keyof Api]-?: K extends keyof App
            ? never
            : IsOptional<Api, K> extends true
              ? never
              : `${At}.${K & string}: required by the contract`;
        }[keyof Api]
      : never);

type Operation<Paths, C extends Call> =
  Templated<C["path"]> extends keyof Paths
    ? Lowercase<C["method"]> extends keyof Paths[Templated<C["path"]>]
      ? Defined<Paths[Templated<C["path"]>][Lowercase<C["method"]>]>
      : never
    : never;

type MediaType<C extends Call> = C["bodyType"] extends "form"
  ? "application/x-www-form-urlencoded"
  : "application/json";

type BodyDisagreement<O, C extends Call> = O extends { requestBody?: infer Body }
  ? [Defined<Body>] extends [never]
    ? C["body"] extends z.ZodType
      ? "body: the contract takes none"
      : never
    : C["body"] extends z.ZodType
      ? Defined<Body> extends { content: infer Content }
        ? MediaType<C> extends keyof Content
          ? Disagreement<Sent<C["body"]>, Content[MediaType<C>], true, "body">
          : `body: the contract takes no ${MediaType<C>}`
        : never
      : undefined extends Body
        ? never
        : "body: required by the contract"
  : never;

type Responses<O> = O extends { responses: infer R } ? R : Empty;
type SuccessStatus<R> = {
  [K in keyof R]: `${K & (string | number)}` extends `2${string}` ? K : never;
}[keyof R];
type Answer<Response> = Response extends { content?: infer Content }
  ? [Defined<Content>] extends [never]
    ? undefined
    : {
        [T in keyof Defined<Content>]: T extends `${string}json` ? Defined<Content>[T] : never;
      }[keyof Defined<Content>]
  : undefined;
type Answers<O> = Answer<Responses<O>[SuccessStatus<Responses<O>>]>;

type StatusDisagreement<O, Statuses, Field extends string> = {
  [S in keyof Defined<Statuses>]: S extends keyof Responses<O>
    ? never
    : `${Field}: ${S & number} is not an answer in the contract`;
}[keyof Defined<Statuses>];

/** Every way `C` departs from its operation in `Paths`: never when it matches. */
export type ContractDisagreement<Paths, C extends Call> = [Operation<Paths, C>] extends [never]
  ? `${C["method"]} ${Templated<C["path"]>}: not in the contract`
  : Operation<Paths, C> extends infer O
    ? O extends { parameters: { path?: infer Params; query?: infer Query } }
      ? | Disagreement<Sent<C["params"]>, Given<Params>, true, "params">
        | Disagreement<Sent<C["query"]>, Given<Query>, true, "query">
        | BodyDisagreement<O, C>
        | Disagreement<z.input<C["response"]>, Answers<O>, false, "response">
        | StatusDisagreement<O, C["errors"], "errors">
        | StatusDisagreement<O, C["formErrors"], "formErrors">
      : never
    : never;
