// Types for the jest-dom matchers that tests/setup.ts registers with `expect.extend`.
/// <reference types="@testing-library/jest-dom/vitest" />
