// Shared test setup. Component tests opt into jsdom with `// @vitest-environment jsdom`; this adds
// jest-dom's matchers (and their types) to vitest's expect.
import '@testing-library/jest-dom/vitest';
