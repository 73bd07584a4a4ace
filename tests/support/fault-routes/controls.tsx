import type { ActionFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import * as z from "zod/mini";
import { PageMessage, useValidatedForm, ValidatedForm } from "~/forms";
import {
  CheckboxField,
  RadioGroupField,
  SelectField,
  SubmitButton,
  TextField,
} from "~/forms/fields";
import { submitIntent, type SubmitOutcome } from "~/forms/index.server";

// One control of each kind, saved in this process and shown again after a post that comes back to
// this page, by a redirect or a message (tests/e2e/things-form.spec.ts): the toolkit, not a screen.
const SIZES = [
  { value: "small", label: "Small" },
  { value: "large", label: "Large" },
];
const COLOURS = [
  { value: "red", label: "Red" },
  { value: "blue", label: "Blue" },
];
const ControlsSchema = z.object({
  name: z.string(),
  size: z.enum(["small", "large"]),
  colour: z.enum(["red", "blue"]),
  urgent: z._default(z.boolean(), false),
});

let saved: z.output<typeof ControlsSchema> = {
  name: "First",
  size: "small",
  colour: "red",
  urgent: false,
};

export const loader = () => saved;

export async function action({ request }: ActionFunctionArgs) {
  const save = (outcome: SubmitOutcome) => async (value: typeof saved) => {
    saved = value;
    return outcome;
  };
  return submitIntent(request, {
    redirect: {
      schema: ControlsSchema,
      submit: save({ redirectTo: "/faults/controls", flash: "Saved." }),
    },
    stay: { schema: ControlsSchema, submit: save({ message: "Saved." }) },
  });
}

export default function ControlsPage() {
  const [form, fields] = useValidatedForm({
    id: "controls",
    schema: { redirect: ControlsSchema, stay: ControlsSchema },
    defaultValue: useLoaderData<typeof loader>(),
  });
  return (
    <>
      <h1>Controls</h1>
      <PageMessage />
      <ValidatedForm form={form} className="form">
        <TextField meta={fields.name} label="Name" />
        <SelectField meta={fields.size} label="Size" options={SIZES} />
        <RadioGroupField meta={fields.colour} label="Colour" options={COLOURS} />
        <CheckboxField meta={fields.urgent} label="Urgent" />
        <SubmitButton intent="redirect" pendingLabel="Saving…">
          Save and reload
        </SubmitButton>
        <SubmitButton intent="stay" pendingLabel="Saving…">
          Save here
        </SubmitButton>
      </ValidatedForm>
    </>
  );
}
