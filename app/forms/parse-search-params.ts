import { safeParse, type $ZodObject, type output } from "zod/v4/core";
import { createErrorResponse } from "~/lib/errors";
import { coerceFormValue } from "./parse-with-schema";

/**
 * A loader's search parameters, read with `schema` as a GET form's fields are (text trimmed,
 * empty text missing, numbers from decimal text). A value the schema refuses is a 400 page;
 * a field that should fall back instead says so in the schema (`z.catch(…, 1)` for a page).
 * Names the schema does not have are ignored; a name it expects once may come only once.
 */
export function parseSearchParams<Schema extends $ZodObject>(
  request: Request,
  schema: Schema,
): output<Schema> {
  const search = new URL(request.url).searchParams;
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(schema._zod.def.shape)) {
    const all = search.getAll(name);
    values[name] = all.length > 1 ? all : all[0];
  }
  const result = safeParse(schema, coerceFormValue(schema, values));
  if (!result.success) throw createErrorResponse("BAD_REQUEST");
  return result.data;
}
