import type { ActionFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import * as z from "zod/mini";
import { PageMessage, useValidatedForm, ValidatedForm } from "~/forms";
import { isLocalDateTime, toInstant } from "~/forms/date-time";
import { CheckboxField, DateTimeField, RadioGroupField, SelectField } from "~/forms/fields";
import { SubmitButton, TextField } from "~/forms/fields";
import { submitIntent, type SubmitOutcome } from "~/forms/index.server";
import { getConfig } from "~/lib/config.server";

// One control of each kind, saved in this process and shown again after a post that comes back to
// this page, by a redirect or a message (tests/e2e/things-form.spec.ts): the toolkit, not a screen.
// The date and time is saved as the API would have it, an instant, and shown as saved.
const options = (...values: string[]) => values.map((value) => ({ value, label: value }));
const ControlsSchema = z.object({
  name: z.string(),
  size: z.enum(["small", "large"]),
  colour: z.enum(["red", "blue"]),
  urgent: z._default(z.boolean(), false),
  due: z.string().check(z.refine(isLocalDateTime)),
});
let saved: z.output<typeof ControlsSchema> = {
  name: "First",
  size: "small",
  colour: "red",
  urgent: false,
  due: "2025-01-01T00:00:00.000Z",
};

export const loader = () => saved;

export async function action({ request }: ActionFunctionArgs) {
  const save = (outcome: SubmitOutcome) => async (value: typeof saved) => {
    saved = { ...value, due: toInstant(value.due, getConfig().TIME_ZONE)! };
    return outcome;
  };
  return submitIntent(request, {
    redirect: {
      schema: ControlsSchema,
      submit: save({ redirectTo: "/faults/controls", flash: "Saved and reloaded." }),
    },
    stay: { schema: ControlsSchema, submit: save({ message: "Saved here." }) },
  });
}

export default function ControlsPage() {
  const schema = { redirect: ControlsSchema, stay: ControlsSchema };
  const defaultValue = useLoaderData<typeof loader>();
  const [form, fields] = useValidatedForm({ id: "controls", schema, defaultValue });
  return (
    <ValidatedForm form={form}>
      <PageMessage />
      <TextField meta={fields.name} label="Name" />
      <SelectField meta={fields.size} label="Size" options={options("small", "large")} />
      <RadioGroupField meta={fields.colour} label="Colour" options={options("red", "blue")} />
      <CheckboxField meta={fields.urgent} label="Urgent" />
      <DateTimeField meta={fields.due} label="Due" hint={`Saved as ${defaultValue.due}`} />
      <SubmitButton intent="redirect" pendingLabel="Saving…">
        Save and reload
      </SubmitButton>
      <SubmitButton intent="stay" pendingLabel="Saving…">
        Save here
      </SubmitButton>
    </ValidatedForm>
  );
}
