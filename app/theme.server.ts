import { z } from "zod";
import { THEMES } from "./theme";

// The theme form is validated on the server only: keeping its schema out of the route module
// keeps Zod out of the browser bundle of the route every page's theme control posts to.
export const ThemeFormSchema = z.object({
  theme: z.enum(THEMES, { error: "Choose System, Light or Dark." }),
  redirectTo: z.string().optional().catch(undefined),
});
