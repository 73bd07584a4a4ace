import js from "@eslint/js";
import jsxA11y from "eslint-plugin-jsx-a11y";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "build/",
      "public/build/",
      ".cache/",
      "node_modules/",
      "test-results/",
      "playwright-report/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  jsxA11y.flatConfigs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
    },
  },
  // Code that can reach the browser validates with Zod Mini (`import * as z from "zod/mini"`):
  // classic Zod brings all its locales into the route's chunk (docs/performance.md).
  {
    files: ["app/**/*.{ts,tsx}", "tests/fixtures/reference-app/app/**/*.{ts,tsx}"],
    ignores: ["**/*.server.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: ["zod", "zod/v4", "zod/v3"].map((name) => ({
            name,
            allowTypeImports: true,
            message:
              'Ships classic Zod to the browser: use "zod/mini", or move the schema to a *.server.ts module.',
          })),
        },
      ],
    },
  },
  { files: ["*.js", "patches/*.js"], languageOptions: { globals: globals.node } },
  // Playwright fixtures take `{}` when they need no other fixture, and call `use`, which is not React's hook.
  {
    files: ["tests/e2e/**"],
    rules: { "no-empty-pattern": "off", "react-hooks/rules-of-hooks": "off" },
  },
);
