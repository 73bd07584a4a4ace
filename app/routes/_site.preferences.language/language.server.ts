import { z } from "zod";
import { LOCALES } from "~/i18n/locales";

// Checked on the server only, as the theme's is: the control every page carries loads no Zod.
export const LanguageFormSchema = z.object({
  locale: z.enum(LOCALES, { error: "language.invalid" }),
  redirectTo: z.string().optional().catch(undefined),
});
