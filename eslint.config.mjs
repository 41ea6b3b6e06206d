// The linter and the formatter, one command (`npm run lint`; `npm run lint:fix` rewrites): typescript-eslint's
// recommended rules, and dprint with the Effect repositories' settings through @effect/eslint-plugin.
import effect from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "**/node_modules/**",
      "test-results/**",
      "test/conformance/**",
      "test/fixtures/**",
      "cli/agent/runtimes/generated/**",
      "**/*.js",
      "**/*.mjs",
      "**/*.cjs"
    ]
  },
  ...tseslint.configs.recommended,
  ...effect.configs.dprint,
  {
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 140,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force",
          "module.sortImportDeclarations": "maintain",
          "importDeclaration.sortNamedImports": "maintain",
          "exportDeclaration.sortNamedExports": "maintain"
        }
      }],
      // Unused bindings are the compiler's to report (noUnusedLocals, noUnusedParameters).
      "@typescript-eslint/no-unused-vars": "off",
      // A binding a finalizer reads before it is first set (a process's pid) cannot be const.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }]
    }
  },
  {
    // What the server and the CLI load. The package's index loads every module of it, among them the Scalar and
    // Swagger UIs' scripts, held as ~20 MB of strings in the server's heap (npm run bench:memory).
    files: ["src/**/*.ts", "catalog/**/*.ts", "cli/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: [{ name: "@effect/platform", message: "Import the module itself, e.g. \"@effect/platform/HttpServerResponse\"." }]
      }]
    }
  }
)
